//! Which reductions a batch runs: the inputs of a directory or the lines of a manifest, each
//! with its test and output, checked before any starts; and the work directory.

use std::ffi::{OsStr, OsString};
use std::fs;
use std::os::unix::ffi::OsStrExt;
use std::path::{Path, PathBuf};

use serde::Deserialize;

use super::{BatchArgs, Item, shell_quote};
use crate::cli::ExecutorKind;

/// An input, its output when the manifest names one, and its test.
type Planned = (PathBuf, Option<PathBuf>, Vec<OsString>);

/// The reductions the arguments ask for, checked: inputs readable, outputs distinct and none
/// of them an input.
pub(super) fn plan(args: &BatchArgs) -> anyhow::Result<Vec<Item>> {
    let cwd = std::env::current_dir()?;
    let default_test = absolute_program(&args.command, &cwd);
    let mut items = Vec::new();
    if let Some(manifest) = &args.manifest {
        items = manifest_items(args, manifest, &cwd, &default_test)?;
    } else if let Some(dir) = &args.dir {
        items = dir_items(args, dir, &cwd, &default_test)?;
    }
    if items.is_empty() {
        anyhow::bail!("no inputs to reduce");
    }
    let output_dir = args.output_dir.as_ref().map(|dir| absolute(dir, &cwd));
    if let Some(dir) = &output_dir {
        fs::create_dir_all(dir).map_err(|e| {
            anyhow::anyhow!("cannot create the output directory {}: {e}", dir.display())
        })?;
    }
    let items: Vec<Item> = items
        .into_iter()
        .enumerate()
        .map(|(index, (input, output, test))| {
            let output = output.unwrap_or_else(|| match (&output_dir, input.file_name()) {
                (Some(dir), Some(name)) => dir.join(name),
                // A case of several files: `<name>.whittled`, as `whittle reduce DIR` makes.
                (None, Some(name)) if input.is_dir() => {
                    input.with_file_name(format!("{}.whittled", name.to_string_lossy()))
                }
                _ => whittle_core::output::default_output_path(&input),
            });
            Item {
                index,
                input,
                output,
                test,
            }
        })
        .collect();
    check_items(&items)?;
    Ok(items)
}

/// The reductions of a manifest, one a line (blank lines and `#` comments skipped).
fn manifest_items(
    args: &BatchArgs,
    manifest: &Path,
    cwd: &Path,
    default_test: &[OsString],
) -> anyhow::Result<Vec<Planned>> {
    let text = whittle_core::output::read_regular_file(manifest, "the manifest", 1 << 30)
        .map_err(anyhow::Error::msg)
        .and_then(|bytes| {
            String::from_utf8(bytes).map_err(|_| {
                anyhow::anyhow!("the manifest {} is not UTF-8 text", manifest.display())
            })
        })?;
    let base = absolute(manifest, cwd)
        .parent()
        .map_or_else(|| cwd.to_path_buf(), Path::to_path_buf);
    let mut items = Vec::new();
    for (number, line) in text.lines().enumerate() {
        let line = line.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let at = |why: &dyn std::fmt::Display| {
            anyhow::anyhow!("{} line {}: {why}", manifest.display(), number + 1)
        };
        let entry: ManifestEntry = serde_json::from_str(line).map_err(|e| at(&e))?;
        let (test, program) = match entry.test {
            Some(ManifestTest::Argv(argv)) => {
                let test = absolute_program(
                    &argv.into_iter().map(OsString::from).collect::<Vec<_>>(),
                    &base,
                );
                let program = test.first().cloned();
                (test, program)
            }
            Some(ManifestTest::Shell(script)) => {
                let (script, program) = absolute_shell_program(&script, &base);
                let test = vec!["sh".into(), "-c".into(), script.into(), "sh".into()];
                (test, program.map(PathBuf::into_os_string))
            }
            None => (default_test.to_vec(), default_test.first().cloned()),
        };
        if test.is_empty() {
            return Err(at(&"no test (give \"test\" or a TEST-COMMAND after `--`)"));
        }
        if let Some(program) = program {
            check_test_program(args, &program).map_err(|why| at(&why))?;
        }
        let input = absolute(Path::new(&entry.input), &base);
        let output = entry
            .output
            .map(|output| absolute(Path::new(&output), &base));
        items.push((input, output, test));
    }
    Ok(items)
}

/// The reductions of an input directory: its inputs in name order, each with the default test.
fn dir_items(
    args: &BatchArgs,
    dir: &Path,
    cwd: &Path,
    default_test: &[OsString],
) -> anyhow::Result<Vec<Planned>> {
    if default_test.is_empty() {
        anyhow::bail!("the test command is missing (give it after `--`)");
    }
    check_test_program(args, &default_test[0]).map_err(anyhow::Error::msg)?;
    let entries = fs::read_dir(dir)
        .map_err(|e| anyhow::anyhow!("cannot read the directory {}: {e}", dir.display()))?;
    // Regular files, or with --directories the subdirectories (each a case of several files).
    let wanted = |m: fs::Metadata| {
        if args.directories {
            m.is_dir()
        } else {
            m.is_file()
        }
    };
    let mut inputs: Vec<PathBuf> = entries
        .flatten()
        .filter(|entry| fs::metadata(entry.path()).is_ok_and(wanted))
        .filter(|entry| is_input_name(&entry.file_name()))
        .map(|entry| absolute(&entry.path(), cwd))
        .collect();
    inputs.sort();
    Ok(inputs
        .into_iter()
        .map(|input| (input, None, default_test.to_vec()))
        .collect())
}

/// Checks that every input is a readable file or a directory (a case of several files), and
/// that no two reductions write the same output and no output is an input.
fn check_items(items: &[Item]) -> anyhow::Result<()> {
    for (i, item) in items.iter().enumerate() {
        if !item.input.is_file() && !item.input.is_dir() {
            anyhow::bail!(
                "the input {} is not a readable file or directory",
                item.input.display()
            );
        }
        for other in &items[i + 1..] {
            if item.output == other.output
                || whittle_core::output::same_file(&item.output, &other.output)
            {
                anyhow::bail!(
                    "{} and {} would both be reduced into {}; give each its own output",
                    item.input.display(),
                    other.input.display(),
                    item.output.display()
                );
            }
        }
        for other in items {
            if item.output == other.input
                || whittle_core::output::same_file(&item.output, &other.input)
            {
                anyhow::bail!(
                    "the result of {} would be written over the input {}; whittle never writes \
                     its inputs",
                    item.input.display(),
                    other.input.display()
                );
            }
        }
    }
    Ok(())
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct ManifestEntry {
    input: String,
    #[serde(default)]
    test: Option<ManifestTest>,
    #[serde(default)]
    output: Option<String>,
}

#[derive(Deserialize)]
#[serde(untagged)]
enum ManifestTest {
    Argv(Vec<String>),
    Shell(String),
}

/// Whether a file of an input directory is an input: not hidden, not a result of whittle's
/// (`*.whittled*`).
fn is_input_name(name: &OsStr) -> bool {
    let name = name.to_string_lossy();
    !name.starts_with('.') && !name.contains(".whittled")
}

/// `path` relative to `base` (without its `./` parts, which say nothing there).
fn absolute(path: &Path, base: &Path) -> PathBuf {
    if path.is_absolute() {
        path.to_path_buf()
    } else {
        base.join(
            path.components()
                .filter(|part| *part != std::path::Component::CurDir)
                .collect::<PathBuf>(),
        )
    }
}

/// Checks, before any reduction starts, that a test's program can be started (on this
/// machine; Slurm nodes are not looked at).
fn check_test_program(args: &BatchArgs, program: &OsStr) -> Result<(), String> {
    match args.executor {
        ExecutorKind::Local => whittle_core::exec::oracle::check_program(program)
            .map_err(|why| format!("the test cannot be started: {why}")),
        ExecutorKind::Slurm => Ok(()),
    }
}

/// A shell test (`"test": "./check.sh \"$1\""`) with its first word made absolute, relative
/// to `base`, when it is a relative path with a `/`, like the program of a test given as an
/// array: the test runs in a scratch directory, not beside the manifest. Only a plain first
/// word is resolved (no quotes, no `$`, no assignment); the rest of the script is the
/// shell's. Returns the script and the program it resolved.
fn absolute_shell_program(script: &str, base: &Path) -> (String, Option<PathBuf>) {
    let body = script.trim_start();
    let lead = &script[..script.len() - body.len()];
    let end = body
        .find(|c: char| c.is_whitespace() || ";&|<>()".contains(c))
        .unwrap_or(body.len());
    let (word, rest) = body.split_at(end);
    let plain = word
        .chars()
        .all(|c| c.is_ascii_alphanumeric() || "/._-+@%,:".contains(c));
    if !plain || !word.contains('/') || word.starts_with('/') {
        return (script.to_owned(), None);
    }
    let program = absolute(Path::new(word), base);
    let quoted = String::from_utf8_lossy(&shell_quote(program.as_os_str())).into_owned();
    (format!("{lead}{quoted}{rest}"), Some(program))
}

/// The test with its program made absolute when it is a relative path with a `/` (the
/// reductions may run elsewhere).
fn absolute_program(test: &[OsString], base: &Path) -> Vec<OsString> {
    let mut test = test.to_vec();
    if let Some(program) = test.first_mut() {
        let path = Path::new(program.as_os_str());
        if path.is_relative() && program.as_bytes().contains(&b'/') {
            *program = absolute(path, base).into_os_string();
        }
    }
    test
}

/// The work directory of the campaign, made if need be.
pub(super) fn make_work_dir(args: &BatchArgs) -> anyhow::Result<PathBuf> {
    let cwd = std::env::current_dir()?;
    let dir = match &args.work_dir {
        Some(dir) => absolute(dir, &cwd),
        None => {
            let base = cwd.join(format!("whittle-batch-{}", utc_stamp()));
            let mut dir = base.clone();
            let mut n = 1;
            while dir.exists() {
                n += 1;
                dir = PathBuf::from(format!("{}-{n}", base.display()));
            }
            dir
        }
    };
    fs::create_dir_all(&dir)
        .map_err(|e| anyhow::anyhow!("cannot create the work directory {}: {e}", dir.display()))?;
    Ok(dir)
}

/// The current time as `YYYYMMDD-HHMMSS` (UTC).
fn utc_stamp() -> String {
    let secs = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs());
    let (days, rest) = (secs / 86_400, secs % 86_400);
    // Civil date from days since 1970-01-01 (H. Hinnant's algorithm).
    let z = days as i64 + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + i64::from(month <= 2);
    format!(
        "{year:04}{month:02}{day:02}-{:02}{:02}{:02}",
        rest / 3600,
        rest / 60 % 60,
        rest % 60
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn input_names_skip_hidden_files_and_results() {
        assert!(is_input_name(OsStr::new("crash-17.c")));
        assert!(!is_input_name(OsStr::new(".crash-17.c.whittle.lock")));
        assert!(!is_input_name(OsStr::new("crash-17.whittled.c")));
    }

    #[test]
    fn the_stamp_is_a_date_and_time() {
        let stamp = utc_stamp();
        assert_eq!(stamp.len(), 15);
        assert_eq!(&stamp[8..9], "-");
        assert!(stamp.starts_with("20"));
    }
}
