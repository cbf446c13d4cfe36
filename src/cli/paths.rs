//! The paths of a reduction, checked before anything runs: the output, `--trace` and
//! `--stats-json` must be writable, distinct from each other, the input and the test's files,
//! and may replace only what whittle wrote there before.

use std::ffi::OsString;
use std::path::PathBuf;

use super::ReduceArgs;

/// that name the same file (through symbolic or hard links too): no path whittle writes may be
/// the input, a file of the test (its program or a file among its arguments), another run's
/// output, or (without --force) a file that is not an earlier trace or statistics of whittle.
pub(super) fn check_paths(args: &ReduceArgs, output: &std::path::Path) -> Result<(), String> {
    use whittle_core::output::{check_output_path, same_file};
    check_output_path(output, "the output")?;
    let records = [
        ("--stats-json", &args.stats_json, Record::Statistics),
        ("--trace", &args.trace, Record::Trace),
    ];
    for (what, path, _) in records {
        if let Some(path) = path {
            check_output_path(path, what)?;
        }
    }
    let test_files = test_files(&args.command);
    let named: Vec<(&str, &std::path::Path)> = [
        ("the input", Some(args.input.as_path())),
        ("the output", Some(output)),
        ("--trace", args.trace.as_deref()),
        ("--stats-json", args.stats_json.as_deref()),
    ]
    .into_iter()
    .filter_map(|(what, path)| path.map(|path| (what, path)))
    .collect();
    for (i, &(first, a)) in named.iter().enumerate() {
        for &(second, b) in &named[i + 1..] {
            if same_file(a, b) {
                let why = if first == "the input" {
                    "whittle never writes its input"
                } else {
                    "each needs a file of its own"
                };
                return Err(format!(
                    "{first} ({}) and {second} ({}) are the same file; {why}",
                    a.display(),
                    b.display()
                ));
            }
        }
        // The input may be a file of the test (it is never written); nothing else may.
        if i > 0
            && let Some(file) = test_files.iter().find(|file| same_file(a, file))
        {
            return Err(format!(
                "{first} ({}) is {} of the test command; whittle would overwrite it",
                a.display(),
                if file == &test_files[0] {
                    format!("the program {}", file.display())
                } else {
                    format!("the file {}", file.display())
                }
            ));
        }
    }
    for (what, path, kind) in records {
        if let Some(path) = path {
            check_record_path(path, what, kind, args.force)?;
        }
    }
    Ok(())
}

/// What a `--trace` or `--stats-json` path may replace.
#[derive(Clone, Copy)]
enum Record {
    Trace,
    Statistics,
}

/// An existing `--trace` or `--stats-json` file is replaced only when it is empty or what an
/// earlier run of whittle wrote there (or with `--force`), and never while another run writes it
/// as its output.
fn check_record_path(
    path: &std::path::Path,
    what: &str,
    kind: Record,
    force: bool,
) -> Result<(), String> {
    if let Some(pid) = whittle_core::output::OutputLock::holder(path) {
        return Err(format!(
            "{what} {} is the output of another whittle run{}, which is writing it; choose \
             another path",
            path.display(),
            pid.map(|pid| format!(" (process {pid})"))
                .unwrap_or_default()
        ));
    }
    if force || !path.exists() {
        return Ok(());
    }
    let head = whittle_core::output::regular_file_head(path, 64).unwrap_or_default();
    let earlier = match kind {
        Record::Trace => {
            head.is_empty()
                || head.starts_with(b"{\"whittle_trace\":")
                || head.starts_with(b"{\"step\":")
        }
        Record::Statistics => {
            head.is_empty()
                || whittle_core::output::read_regular_file(path, what, 1 << 24)
                    .ok()
                    .and_then(|bytes| serde_json::from_slice::<serde_json::Value>(&bytes).ok())
                    .is_some_and(|json| json.get("oracle_runs").is_some())
        }
    };
    if earlier {
        return Ok(());
    }
    Err(format!(
        "{what} {} exists and is not {} written by whittle; whittle would replace it: give \
         another path, or --force to replace it",
        path.display(),
        match kind {
            Record::Trace => "a trace",
            Record::Statistics => "statistics",
        }
    ))
}

/// The files of a test command: its program (found on `PATH` when named without a `/`) first,
/// then each argument that names an existing file.
fn test_files(command: &[OsString]) -> Vec<PathBuf> {
    let Some((program, arguments)) = command.split_first() else {
        return Vec::new();
    };
    let program = PathBuf::from(program);
    let program = if program.components().count() == 1 && !program.as_os_str().is_empty() {
        std::env::var_os("PATH")
            .and_then(|paths| {
                std::env::split_paths(&paths)
                    .map(|dir| dir.join(&program))
                    .find(|candidate| candidate.is_file())
            })
            .unwrap_or(program)
    } else {
        program
    };
    std::iter::once(program)
        .chain(
            arguments
                .iter()
                .map(PathBuf::from)
                .filter(|argument| argument.is_file()),
        )
        .collect()
}

/// The content of an existing output that differs from the input (`None`: no output yet, or
/// it is the input byte for byte).
pub(super) fn existing_output(
    output: &std::path::Path,
    input: &[u8],
) -> Result<Option<Vec<u8>>, String> {
    if !output.exists() {
        return Ok(None);
    }
    let existing =
        whittle_core::engine::job::read_input(output, "the output").map_err(|e| e.to_string())?;
    Ok((existing != input).then_some(existing))
}
