//! `whittle reduce DIR -- test` and `whittle reduce a.c a.h -- test`: several files reduced as
//! one test case (see `whittle_core::engine::case`). The result is a directory, written whole
//! each time the best changes; progress names the file being reduced.

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use crossbeam_channel::Receiver;

use super::{EXIT_ERROR, EXIT_INTERRUPTED, EXIT_TRIVIAL, EXIT_USAGE, ReduceArgs, usage_error};
use crate::console::{Report, errln};
use whittle_core::bundle::{self, CaseDirectory, CaseFile};
use whittle_core::engine::case::{BinaryFiles, CaseJob, CaseStop};
use whittle_core::engine::job::StartError;
use whittle_core::exec::confirm::Confirming;
use whittle_core::exec::oracle::{CaseLayout, CommandOracle, InputType, Oracle, TimeoutFit};
use whittle_core::observe::events::Event;
use whittle_core::testing::control::Stop;

/// The largest file of a case (as for a single input).
const FILE_LIMIT: u64 = u32::MAX as u64;

/// Whether these arguments ask for a case of several files: more than one input, or a
/// directory.
pub fn asks_for_several(args: &ReduceArgs) -> bool {
    !args.more_inputs.is_empty() || args.input.is_dir()
}

/// The inputs as a case: its files, how the run directory holds them, and the name the
/// default output is made from.
fn read_inputs(args: &ReduceArgs) -> Result<(Vec<CaseFile>, CaseLayout, String), String> {
    let inputs: Vec<&PathBuf> = std::iter::once(&args.input)
        .chain(&args.more_inputs)
        .collect();
    if inputs.len() == 1 {
        let dir = inputs[0];
        let name = dir
            .canonicalize()
            .ok()
            .and_then(|path| path.file_name().map(|n| n.to_os_string()))
            .ok_or_else(|| format!("{} has no name", dir.display()))?;
        let files = bundle::read_case(dir, FILE_LIMIT)?;
        if files.is_empty() {
            return Err(format!("{} holds no files", dir.display()));
        }
        let shown = name.to_string_lossy().into_owned();
        return Ok((files, CaseLayout::Directory(name), shown));
    }
    let mut files: Vec<CaseFile> = Vec::new();
    for input in &inputs {
        if input.is_dir() {
            return Err(format!(
                "{} is a directory: give one directory alone, or several files",
                input.display()
            ));
        }
        let mut read = bundle::read_case(input, FILE_LIMIT)?;
        let file = read.remove(0);
        if let Some(twin) = files.iter().find(|f| f.path == file.path) {
            return Err(format!(
                "two inputs are named {}: the test finds the files by name in its directory, so \
                 each needs a name of its own",
                twin.path.display()
            ));
        }
        files.push(file);
    }
    let stem = args
        .input
        .file_stem()
        .map_or_else(|| "case".into(), |s| s.to_string_lossy().into_owned());
    Ok((files, CaseLayout::Files, stem))
}

/// The default output: `<name>.whittled` beside the (first) input.
fn default_output(args: &ReduceArgs, name: &str) -> PathBuf {
    let parent = if args.more_inputs.is_empty() {
        args.input
            .canonicalize()
            .ok()
            .and_then(|p| p.parent().map(Path::to_path_buf))
    } else {
        args.input.parent().map(Path::to_path_buf)
    };
    parent.unwrap_or_default().join(format!("{name}.whittled"))
}

/// Refuses outputs that would touch the inputs or the test: the output directory may not be an
/// input, lie inside the input directory, or be a file.
fn check_output(args: &ReduceArgs, output: &Path) -> Result<(), String> {
    if output.exists() && !output.is_dir() {
        return Err(format!(
            "the output {} exists and is not a directory; the result of several files is a \
             directory: give another --output",
            output.display()
        ));
    }
    let resolved = absolute(output);
    for input in std::iter::once(&args.input).chain(&args.more_inputs) {
        let input = absolute(input);
        if resolved == input || (args.input.is_dir() && resolved.starts_with(&input)) {
            return Err(format!(
                "the output {} is, or is inside, the input {}; whittle never writes its input",
                output.display(),
                input.display()
            ));
        }
        if input.starts_with(&resolved) {
            return Err(format!(
                "the input {} is inside the output {}; whittle would replace it",
                input.display(),
                output.display()
            ));
        }
    }
    let test_files = super::paths::test_files(&args.command);
    if let Some(file) = test_files
        .iter()
        .find(|file| absolute(file).starts_with(&resolved))
    {
        return Err(format!(
            "{} of the test command is inside the output {}; whittle would replace it",
            file.display(),
            output.display()
        ));
    }
    for (what, path, kind) in [(
        "--stats-json",
        &args.stats_json,
        super::paths::Record::Statistics,
    )] {
        if let Some(path) = path {
            whittle_core::output::check_output_path(path, what)?;
            super::paths::check_record_path(path, what, kind, args.force)?;
        }
    }
    if let Some(trace) = &args.trace
        && trace.exists()
        && !args.force
    {
        let earlier = std::fs::read_dir(trace).is_ok_and(|entries| {
            entries
                .flatten()
                .all(|entry| entry.path().extension().is_some_and(|ext| ext == "trace"))
        });
        if !earlier {
            return Err(format!(
                "--trace {} exists and is not a directory of traces written by whittle; with \
                 several files --trace names a directory (one trace per file session): give \
                 another path, or --force",
                trace.display()
            ));
        }
    }
    Ok(())
}

/// A path made absolute and resolved as far as it exists.
fn absolute(path: &Path) -> PathBuf {
    if let Ok(resolved) = path.canonicalize() {
        return resolved;
    }
    match (path.parent(), path.file_name()) {
        (Some(parent), Some(name)) => {
            let parent = if parent.as_os_str().is_empty() {
                Path::new(".")
            } else {
                parent
            };
            absolute(parent).join(name)
        }
        _ => std::env::current_dir().unwrap_or_default().join(path),
    }
}

/// `whittle reduce` on a directory or several files.
pub fn reduce(args: &ReduceArgs) -> anyhow::Result<i32> {
    if let Err(error) = whittle_core::exec::signals::install() {
        errln!("whittle: warning: cannot handle Ctrl-C and SIGTERM: {error}");
    }
    let prepared = match prepare(args) {
        Ok(prepared) => prepared,
        Err(message) => return usage_error(message),
    };
    let input = prepared.job.input.clone();
    let judge_dyn: Arc<dyn Oracle> = prepared.judge.clone();
    let finished = match prepared.theme {
        Some(theme) => run_ui(args, prepared.job, judge_dyn, theme, &prepared.name)?,
        None => run_headless(
            args,
            prepared.job,
            judge_dyn,
            &prepared.oracle,
            &prepared.layout,
        ),
    };
    let Prepared {
        output,
        lock,
        oracle,
        judge,
        result_dir,
        ..
    } = prepared;
    if let Err(warning) = oracle.close() {
        errln!("whittle: warning: {warning}");
    }
    let finished = match finished {
        Ok(finished) => finished,
        Err(error) => return Ok(refused_start(args, error)),
    };
    let mut code = report_flakiness_and_statistics(args, &input, &finished, &judge);
    let mut stdout = Report::new();
    report_files(&mut stdout, &input, &finished);
    if let Err(error) = result_dir.finish() {
        errln!(
            "whittle: error: cannot write the result to {}: {error}",
            output.display()
        );
        code = EXIT_ERROR;
    }
    drop(lock);
    let code =
        super::reduce::tell_where(&mut stdout, finished.stopped.as_ref(), &output, false, code);
    let code = refuse_trivial(args, &finished, code);
    Ok(super::with_stdout(stdout, code))
}

/// What a checked command line of several files starts: the job and what its run and its
/// report need.
struct Prepared {
    /// The terminal UI's theme, or none for the headless run.
    theme: Option<crate::tui::Theme>,
    /// The name the case is shown by.
    name: String,
    layout: CaseLayout,
    output: PathBuf,
    /// Held until the result is written.
    lock: whittle_core::output::OutputLock,
    oracle: Arc<CommandOracle>,
    judge: Arc<Confirming>,
    result_dir: Arc<CaseDirectory>,
    job: CaseJob,
}

/// The arguments checked, the output taken and the job built; an error is a usage error's
/// message.
fn prepare(args: &ReduceArgs) -> Result<Prepared, String> {
    let (theme, settings) = front_end_and_settings(args)?;
    let (input, layout, name) = read_inputs(args)?;
    let timeout = match super::reduce_args::seconds(args.limits.timeout, "--timeout") {
        Ok(Some(Duration::ZERO)) => return Err("--timeout must be more than 0 seconds".into()),
        Ok(timeout) => timeout,
        Err(error) => return Err(error.to_string()),
    };
    let output = args
        .output
        .clone()
        .unwrap_or_else(|| default_output(args, &name));
    check_output(args, &output)?;
    let lock = whittle_core::output::OutputLock::acquire(&output).map_err(|e| e.to_string())?;
    if let Some(pid) = lock.stale_pid() {
        errln!(
            "whittle: a stale lock of process {pid}, which is gone, was removed ({})",
            lock.path().display()
        );
    }
    let start = resumed_start(args, &output, &input)?;
    let trace_dir = match &args.trace {
        Some(dir) => match std::fs::create_dir_all(dir) {
            Ok(()) => Some(dir.clone()),
            Err(error) => return Err(format!("--trace {}: {error}", dir.display())),
        },
        None => None,
    };
    whittle_core::exec::processes::adopt_orphans();
    let oracle = match args.oracle(timeout) {
        Ok(oracle) => Arc::new(oracle.with_case_layout(layout.clone()).fitting_timeout(
            if args.fast {
                TimeoutFit::Tight
            } else {
                TimeoutFit::Generous
            },
        )),
        Err(error) => return Err(format!("{error:#}")),
    };
    let judge = Arc::new(Confirming::new(
        oracle.clone(),
        whittle_core::exec::confirm::Policy::new(args.confirm, args.assume_deterministic)
            .with_jobs(settings.jobs),
    ));
    let result_dir = Arc::new(CaseDirectory::new(&output));
    let job = CaseJob {
        input,
        start,
        settings,
        binary: if args.binary_lines {
            BinaryFiles::Lines
        } else {
            BinaryFiles::Keep
        },
        output: Some(result_dir.clone()),
        events: None,
        trace_dir,
        command: Some(oracle.describe()),
        test_text: test_text(&args.command),
        steering: None,
    };
    Ok(Prepared {
        theme,
        name,
        layout,
        output,
        lock,
        oracle,
        judge,
        result_dir,
        job,
    })
}

/// The terminal UI's theme (none without the UI) and the settings, refusing what cannot work
/// with several files or without the UI.
fn front_end_and_settings(
    args: &ReduceArgs,
) -> Result<
    (
        Option<crate::tui::Theme>,
        whittle_core::engine::pipeline::Settings,
    ),
    String,
> {
    let use_tui = !args.no_tui && std::io::IsTerminal::is_terminal(&std::io::stdout());
    if (args.step || args.paused) && !use_tui {
        return Err(
            "--step and --paused wait for keys of the terminal UI; without it (--no-tui, or no \
             terminal on stdout) nothing would ever resume the run"
                .into(),
        );
    }
    let theme = if use_tui {
        Some(crate::tui::Theme::from_environment(&args.theme).map_err(|e| e.to_string())?)
    } else {
        None
    };
    if args.input_type == super::InputTypeArg::Stdin {
        return Err(
            "--input-type stdin gives the test one file's bytes; several files reach the test \
             as a directory (all, arg or name)"
                .into(),
        );
    }
    let mut settings = args.settings().map_err(|e| e.to_string())?;
    if args.language.is_none() {
        // Each file's own, by its name.
        settings.language = None;
    }
    Ok((theme, settings))
}

/// The files to start from: an existing output that is not the input is resumed with
/// `--resume`, replaced with `--force`, and refused otherwise.
fn resumed_start(
    args: &ReduceArgs,
    output: &Path,
    input: &[CaseFile],
) -> Result<Option<Vec<CaseFile>>, String> {
    if !output.exists() {
        return Ok(None);
    }
    let existing =
        bundle::read_case(output, FILE_LIMIT).map_err(|error| format!("the output: {error}"))?;
    if existing == input {
        return Ok(None);
    }
    if args.resume {
        errln!(
            "whittle: resuming from {} ({} files, {} bytes; the input has {} files, {} bytes)",
            output.display(),
            existing.len(),
            bundle::content_size(&existing),
            input.len(),
            bundle::content_size(input)
        );
        return Ok(Some(existing));
    }
    if !args.force {
        return Err(format!(
            "{} exists and is not the input, the result of an earlier run perhaps: give \
             --resume to continue from it, --force to start over from the input (it is \
             replaced at the first write), or another --output",
            output.display()
        ));
    }
    Ok(None)
}

/// The run without the terminal UI: a line saying what runs, progress on stderr, and Ctrl-C
/// stopping the run.
fn run_headless(
    args: &ReduceArgs,
    mut job: CaseJob,
    judge: Arc<dyn Oracle>,
    oracle: &CommandOracle,
    layout: &CaseLayout,
) -> Result<whittle_core::engine::case::CaseFinished, StartError> {
    let (sender, events) = crossbeam_channel::unbounded();
    job.events = Some(sender);
    errln!(
        "whittle: reducing {} files ({} bytes) with `{}`; the test runs in a directory holding \
         {}, {}; tests run {}, {} at once",
        job.input.len(),
        bundle::content_size(&job.input),
        oracle.describe(),
        match layout {
            CaseLayout::Directory(name) => {
                format!("the directory {}", name.to_string_lossy())
            }
            CaseLayout::Files => "the files by name".into(),
        },
        match InputType::from(args.input_type) {
            InputType::Name => "with no argument".to_string(),
            _ => "whose path it gets as its argument".to_string(),
        },
        oracle.executor().describe(),
        job.settings.jobs
    );
    let stop = CaseStop::default();
    let _stop_on_signal = {
        let stop = stop.clone();
        whittle_core::exec::signals::on_signal(move || stop.request(Stop::Requested))
    };
    let progress = spawn_case_progress(events, bundle::content_size(job.start_files()));
    let finished = job.run(judge, &stop);
    drop(job);
    let _ = progress.join();
    finished
}

/// The exit code of a run that never started: the test could not be run, the files were not
/// interesting, or the run was stopped before they were checked.
fn refused_start(args: &ReduceArgs, error: StartError) -> i32 {
    match error {
        StartError::NotInteresting { verdict, status } => {
            if let whittle_core::exec::oracle::TestStatus::SpawnFailed(why) = &verdict.status {
                let program = args.command.first().cloned().unwrap_or_default();
                errln!(
                    "whittle: the test could not be started ({why}): {}",
                    whittle_core::exec::oracle::explain_spawn_failure(&program, why)
                );
                return EXIT_USAGE;
            }
            errln!("whittle: the files are not interesting: the test reported {status} on them.");
            if let Some(tail) = verdict.output_tail.filter(|t| !t.is_empty()) {
                errln!(
                    "whittle: the end of its output:\n{}",
                    super::reduce::last_chars(&tail, 4096)
                );
            }
            super::reduce::hint_at_relative_files(&args.command, &|path| {
                std::iter::once(&args.input)
                    .chain(&args.more_inputs)
                    .any(|input| {
                        input.is_dir() && input.join(path).exists()
                            || input.file_name() == Some(path.as_os_str())
                    })
            });
            EXIT_USAGE
        }
        StartError::Stopped(stop) => {
            errln!("whittle: {stop} before the files were checked.");
            match stop {
                Stop::Requested => EXIT_INTERRUPTED,
                Stop::Failed(_) => EXIT_ERROR,
                _ => 0,
            }
        }
    }
}

/// Warnings of a flaky test and the `--stats-json` file; the exit code so far.
fn report_flakiness_and_statistics(
    args: &ReduceArgs,
    input: &[CaseFile],
    finished: &whittle_core::engine::case::CaseFinished,
    judge: &Confirming,
) -> i32 {
    let mut code = 0;
    let mut flakiness = judge.flakiness();
    if let Some(first) = &flakiness.first_disagreement {
        errln!(
            "whittle: WARNING: the test is flaky: {first}; interesting verdicts were confirmed \
             by {} runs from then on.",
            flakiness.confirm_runs
        );
    }
    flakiness.flaky |= flakiness.first_disagreement.is_some() || finished.flaky.is_some();
    if let Some(back) = finished.flaky.as_ref().filter(|flaky| flaky.went_on) {
        errln!(
            "whittle: the set of files the run was on then ({} bytes) failed its re-test ({}); \
             the run went back to the newest earlier set that passed and went on from there.",
            back.unconfirmed_size,
            back.status
        );
    } else if let Some(flaky) = &finished.flaky {
        errln!(
            "whittle: WARNING: the test is flaky: the final set of files ({} bytes) was \
             interesting before but not on its re-test ({}).",
            flaky.unconfirmed_size,
            flaky.status
        );
        if flaky.fell_back {
            errln!(
                "whittle: the result is the newest earlier set that passed its re-test ({} \
                 files, {} bytes).",
                finished.result.len(),
                bundle::content_size(&finished.result)
            );
        } else {
            errln!(
                "whittle: no earlier set passed its re-test either; the result was judged \
                 interesting only once."
            );
        }
    }
    if let Some(path) = &args.stats_json {
        let json = serde_json::json!({
            "case": {
                "files": finished.files,
                "rounds": finished.rounds,
                "file_removal_tests": finished.file_removal_tests,
                "files_in": input.len(),
                "files_out": finished.result.len(),
            },
            "flakiness": flakiness,
            "memo_hits": finished.memo_hits,
        });
        if !super::reduce::write_stats(path, &finished.stats, &json) {
            code = EXIT_ERROR;
        }
    }
    code
}

/// The report on stdout: the statistics, the files before and after, and each file's course.
fn report_files(
    stdout: &mut Report,
    input: &[CaseFile],
    finished: &whittle_core::engine::case::CaseFinished,
) {
    stdout.line(format_args!("{}", crate::headless::report(&finished.stats)));
    stdout.line(format_args!(
        "files: {} -> {} ({} tests removing whole files, {} round(s) over the files; {} \
         verdicts from the memo of whole sets, not among the tests)",
        input.len(),
        finished.result.len(),
        finished.file_removal_tests,
        finished.rounds,
        finished.memo_hits
    ));
    for file in &finished.files {
        let after = match file.output_bytes {
            Some(bytes) => format!("{bytes} bytes"),
            None => "removed".into(),
        };
        let note = if file.link && file.output_bytes.is_some() {
            " (a symbolic link: kept as it is)"
        } else if file.binary && file.output_bytes == Some(file.input_bytes) {
            " (binary: kept whole)"
        } else {
            ""
        };
        stdout.line(format_args!(
            "  {}: {} -> {after}{note}, {} tests",
            file.path, file.input_bytes, file.tests
        ));
    }
}

/// The exit code once a result of nothing but whitespace is refused (unless the run was
/// interrupted or failed, or `--allow-trivial` allows it).
fn refuse_trivial(
    args: &ReduceArgs,
    finished: &whittle_core::engine::case::CaseFinished,
    code: i32,
) -> i32 {
    let trivial = finished
        .result
        .iter()
        .all(|file| file.content.iter().all(u8::is_ascii_whitespace));
    if !trivial || matches!(finished.stopped, Some(Stop::Requested | Stop::Failed(_))) {
        return code;
    }
    if args.allow_trivial {
        errln!("whittle: the result holds no text (allowed by --allow-trivial).");
        code
    } else {
        errln!(
            "whittle: error: the test probably accepts too much: it says interesting on files \
             that hold nothing but whitespace (or on no files). The result was written all \
             the same; make the test check for what matters, or give --allow-trivial."
        );
        if code == 0 { EXIT_TRIVIAL } else { code }
    }
}

/// The terminal UI over the case until the user leaves it; then the run is stopped (the best
/// set so far is in the output already) and its end is waited for.
fn run_ui(
    args: &ReduceArgs,
    job: CaseJob,
    judge: Arc<dyn Oracle>,
    theme: crate::tui::Theme,
    name: &str,
) -> anyhow::Result<Result<whittle_core::engine::case::CaseFinished, StartError>> {
    let options = whittle_core::engine::session::SessionOptions {
        // As for one file, the session stays on the result until the UI leaves (at once with
        // --exit-when-done).
        exit_when_done: args.exit_when_done,
        start_in_step_mode: args.step,
        start_paused: args.paused,
    };
    let session = whittle_core::engine::session::CaseSession::start(job, judge, options)?;
    let app = crate::tui::App::new(
        session.commands(),
        crate::tui::AppOptions {
            theme,
            input_name: name.to_owned(),
            clock: Arc::new(crate::tui::SystemClock),
            exit_when_done: args.exit_when_done,
            language: None,
            extension: None,
        },
    );
    crate::tui::terminal::run_case(&session, app)?;
    // After the UI, which showed the events so far, only the warnings of the end are printed.
    let messages = crate::headless::spawn_messages(session.events().clone());
    let finished = session.wait()?;
    let _ = messages.join();
    Ok(finished)
}

/// Progress of a case on stderr: a line when a file's turn starts and, at most once a second,
/// the sizes (this file's and the whole set's).
fn spawn_case_progress(events: Receiver<Event>, start_size: usize) -> std::thread::JoinHandle<()> {
    std::thread::Builder::new()
        .name("whittle-progress".into())
        .spawn(move || {
            let mut file = String::from("(all files)");
            let mut others = 0;
            let mut size = start_size;
            let mut tests = 0u64;
            let mut last = std::time::Instant::now();
            let mut pending = false;
            let line = |file: &str, size: usize, others: usize, tests: u64| {
                format!(
                    "whittle: [{file}] {size} bytes; all files {} bytes · {tests} tests",
                    size + others
                )
            };
            for event in events {
                if let Some(message) = crate::headless::message_line(&event) {
                    errln!("{message}");
                }
                match &event {
                    Event::FileStarted {
                        path,
                        index,
                        of,
                        round,
                        size: now,
                        others: rest,
                    } => {
                        if pending {
                            errln!("{}", line(&file, size, others, tests));
                        }
                        file = path.clone();
                        size = *now;
                        others = *rest;
                        pending = false;
                        errln!(
                            "whittle: round {round}, file {} of {of}: {path} ({now} bytes)",
                            index + 1
                        );
                    }
                    // The files phase: sizes are the whole set's.
                    Event::StageStarted { stage, .. }
                        if stage == whittle_core::engine::case::FILES_STAGE =>
                    {
                        file = String::from("(all files)");
                        pending = false;
                    }
                    Event::CandidateJudged {
                        action: whittle_core::observe::events::Action::Test,
                        candidate,
                        ..
                    } if !candidate.is_check() => tests += 1,
                    Event::Accepted { size: now, .. } if file != "(all files)" => {
                        size = *now;
                        pending = true;
                    }
                    _ => {}
                }
                if pending && last.elapsed() >= Duration::from_secs(1) {
                    errln!("{}", line(&file, size, others, tests));
                    last = std::time::Instant::now();
                    pending = false;
                }
            }
            if pending {
                errln!("{}", line(&file, size, others, tests));
            }
        })
        .unwrap_or_else(|_| std::thread::spawn(|| {}))
}

/// The test's own text: its command's words and the text files among them (a script it runs,
/// up to 1 MB each; the program itself when it is a script), for the case's guess of which
/// files no file uses.
fn test_text(command: &[std::ffi::OsString]) -> Vec<u8> {
    let mut text: Vec<u8> = Vec::new();
    for word in command {
        text.extend_from_slice(word.as_encoded_bytes());
        text.push(b'\n');
    }
    for file in super::paths::test_files(command) {
        let small = std::fs::metadata(&file).is_ok_and(|meta| meta.len() <= 1 << 20);
        if let Some(content) = small.then(|| std::fs::read(&file).ok()).flatten()
            && std::str::from_utf8(&content).is_ok_and(|text| !text.contains('\0'))
        {
            text.extend_from_slice(&content);
            text.push(b'\n');
        }
    }
    text
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_test_text_holds_the_command_and_the_scripts_it_names() {
        let dir = tempfile::tempdir().expect("a temporary directory");
        let script = dir.path().join("test.sh");
        std::fs::write(&script, "python3 -c 'import inventory.report'\n").expect("written");
        let binary = dir.path().join("data.bin");
        std::fs::write(&binary, b"\0\x01report").expect("written");
        let command = [
            "sh".into(),
            script.clone().into_os_string(),
            binary.clone().into_os_string(),
        ];
        let text = String::from_utf8(test_text(&command)).expect("text");
        assert!(text.starts_with("sh\n"), "{text}");
        assert!(text.contains("import inventory.report"), "{text}");
        assert!(!text.contains('\0'), "binary files are left out: {text}");
    }
}
