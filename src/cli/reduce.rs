//! `whittle reduce`: one reduction, in the terminal UI or headless, from the checks of its
//! arguments and paths to its report at the end (where the result is, warnings, the exit code).

use std::io::IsTerminal;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use super::paths::{check_paths, existing_output};
use super::reduce_args::seconds;
use super::{
    EXIT_ERROR, EXIT_INTERRUPTED, EXIT_TRIVIAL, EXIT_USAGE, ExecutorKind, ReduceArgs, usage_error,
    with_stdout,
};
use crate::console::{Report, errln};
use whittle_core::engine::job::{Finished, Job, StartError};
use whittle_core::engine::pipeline::Settings;
use whittle_core::engine::session::{Command, Session, SessionOptions, SessionReport};
use whittle_core::exec::confirm::Flakiness;
use whittle_core::exec::oracle::{CommandOracle, Oracle, TimeoutFit};
use whittle_core::observe::trace::TraceWriter;
use whittle_core::output::{OutputLock, ResultFile};
use whittle_core::testing::control::Stop;

/// Runs `whittle reduce` and returns the exit code.
pub(super) fn reduce(args: &ReduceArgs) -> anyhow::Result<i32> {
    if super::several::asks_for_several(args) {
        return super::several::reduce(args);
    }
    // First of all: from now on a signal ends the run through the normal path (tests killed,
    // output written, scratch directory and lock removed).
    if let Err(error) = whittle_core::exec::signals::install() {
        errln!("whittle: warning: cannot handle Ctrl-C and SIGTERM: {error}");
    }
    let (settings, use_tui) = match checked_settings(args) {
        Ok(checked) => checked,
        Err(error) => return usage_error(error),
    };
    let input = match whittle_core::engine::job::read_input(&args.input, "the input") {
        Ok(input) => input,
        Err(error) => return usage_error(error),
    };
    let timeout = match timeout(args) {
        Ok(timeout) => timeout,
        Err(error) => return usage_error(error),
    };
    let output = match output_path(args) {
        Ok(output) => output,
        Err(error) => return usage_error(error),
    };
    // Held to the end of the run: the lock file goes when it is dropped.
    let _lock = match lock_output(&output) {
        Ok(lock) => lock,
        Err(error) => return usage_error(error),
    };
    let (result_file, start, existed) = match starting_point(args, &output, &input) {
        Ok(start) => start,
        Err(error) => return usage_error(error),
    };
    // Processes a test leaves behind (daemons) are adopted and killed (Linux).
    whittle_core::exec::processes::adopt_orphans();
    let oracle = match args.oracle(timeout) {
        Ok(oracle) => Arc::new(oracle.fitting_timeout(if args.fast {
            TimeoutFit::Tight
        } else {
            TimeoutFit::Generous
        })),
        Err(error) => return usage_error(format!("{error:#}")),
    };
    let result_file = Arc::new(result_file);
    let resumed = start.is_some();
    let mut job = Job::new(input, settings).writing_to(result_file.clone());
    job.start = start;
    let input_size = job.input.len();
    let trace = match &args.trace {
        Some(path) => match trace_writer(args, path, &job, &oracle, &output) {
            Ok(trace) => Some(trace),
            Err(error) => return usage_error(error),
        },
        None => None,
    };
    let theme = if use_tui {
        match crate::tui::Theme::from_environment(&args.theme) {
            Ok(theme) => Some(theme),
            Err(error) => return usage_error(error),
        }
    } else {
        None
    };
    let (report, completed, flakiness) = run(args, job, &oracle, trace, theme)?;
    if let Err(warning) = oracle.close() {
        errln!("whittle: warning: {warning}");
    }
    let outcome = EndOfRun {
        output: &result_file,
        existed,
        resumed,
        input_size,
        flakiness,
    };
    conclude(args, outcome, report, completed)
}

/// The settings the arguments ask for, and whether the terminal UI opens; a warning when `-j`
/// asks for more than whittle runs at once.
fn checked_settings(args: &ReduceArgs) -> Result<(Settings, bool), String> {
    let settings = args.settings().map_err(|error| error.to_string())?;
    let use_tui = !args.no_tui && std::io::stdout().is_terminal();
    if (args.step || args.paused) && !use_tui {
        return Err(
            "--step and --paused wait for keys of the terminal UI; without it (--no-tui, or no \
             terminal) nothing would go on"
                .into(),
        );
    }
    if let Some(asked) = args.jobs
        && asked > settings.jobs
    {
        errln!(
            "whittle: warning: -j {asked} is more than whittle runs at once {}; using -j {}",
            match args.executor {
                ExecutorKind::Local =>
                    "on this machine (4 tests per CPU, at least 8, at most 1024)",
                ExecutorKind::Slurm => "as Slurm steps (1024)",
            },
            settings.jobs
        );
    }
    Ok((settings, use_tui))
}

/// `--timeout`: more than 0 seconds when given.
fn timeout(args: &ReduceArgs) -> Result<Option<Duration>, String> {
    match seconds(args.limits.timeout, "--timeout") {
        Ok(Some(Duration::ZERO)) => Err(
            "--timeout must be more than 0 seconds (every test would time out); leave it out \
             for no timeout"
                .into(),
        ),
        Ok(timeout) => Ok(timeout),
        Err(error) => Err(error.to_string()),
    }
}

/// The file the result goes to (through a symbolic link, the file it leads to), its path
/// checked against the run's other paths.
fn output_path(args: &ReduceArgs) -> Result<PathBuf, String> {
    let named_output = args
        .output
        .clone()
        .unwrap_or_else(|| whittle_core::output::default_output_path(&args.input));
    // Through a symbolic link, the file it leads to is written (and locked), not the link.
    let output = whittle_core::output::resolve_output_link(&named_output).map_err(|error| {
        format!(
            "the output {} is a symbolic link that cannot be followed: {error}",
            named_output.display()
        )
    })?;
    check_paths(args, &output)?;
    Ok(output)
}

/// The lock of the output, for the whole run; a stale lock of a killed run is told of.
fn lock_output(output: &Path) -> Result<OutputLock, String> {
    let lock = OutputLock::acquire(output).map_err(|error| error.to_string())?;
    if let Some(pid) = lock.stale_pid() {
        errln!(
            "whittle: a stale lock of process {pid}, which is gone, was removed ({}): that run \
             was killed before it could end",
            lock.path().display()
        );
    }
    Ok(lock)
}

/// The result file, what the run starts from instead of the input (`--resume`), and whether
/// the output existed: an existing output that is not the input needs --resume or --force.
fn starting_point(
    args: &ReduceArgs,
    output: &Path,
    input: &[u8],
) -> Result<(ResultFile, Option<Vec<u8>>, bool), String> {
    let mode = {
        use std::os::unix::fs::PermissionsExt;
        std::fs::metadata(&args.input)
            .ok()
            .map(|m| m.permissions().mode())
    };
    let mut result_file = ResultFile::new(output, mode);
    let mut start = None;
    let existed = output.exists();
    match existing_output(output, input)? {
        None => {}
        Some(existing) if args.resume => {
            errln!(
                "whittle: resuming from {} ({} bytes; the input has {} bytes)",
                output.display(),
                existing.len(),
                input.len()
            );
            start = Some(existing);
        }
        Some(existing) if args.force => {
            result_file = result_file.keeping_smaller_than(existing.len());
        }
        Some(existing) => {
            return Err(format!(
                "{} exists and is not the input ({} bytes; the input has {}), the result of an \
                 earlier run perhaps: give --resume to continue from it, --force to start over \
                 from the input (it is replaced only by a result no larger), or another --output",
                output.display(),
                existing.len(),
                input.len()
            ));
        }
    }
    Ok((result_file, start, existed))
}

/// The trace of the run (`--trace`), its header written.
fn trace_writer(
    args: &ReduceArgs,
    path: &Path,
    job: &Job,
    oracle: &CommandOracle,
    output: &Path,
) -> Result<TraceWriter, String> {
    let plan = &job.plan;
    let header = whittle_core::observe::trace::TraceHeader {
        input_name: input_name(&args.input),
        pipeline: plan.pipeline.to_string(),
        language: plan.language.map(|l| l.name().to_owned()),
        jobs: plan.knobs.jobs,
        parallel: plan.knobs.parallel.to_string(),
        split_factor: plan.knobs.split_factor.to_string(),
        stage_count: whittle_core::engine::pipeline::Stages::len(
            &whittle_core::engine::pipeline::PipelineStages::new(plan.clone()),
        ),
        command: Some(oracle.describe()),
        output: Some(output.display().to_string()),
        ..Default::default()
    };
    // A resumed run starts from the earlier result: the replay starts there too.
    TraceWriter::for_run(path, header, job.start_text()).map_err(|error| error.to_string())
}

/// Runs the session, in the UI (`theme`) or headless with progress on stderr, to its end:
/// its report, whether the pipeline had finished when the user left the UI (`None` without
/// it), and what was seen of the test's flakiness.
fn run(
    args: &ReduceArgs,
    job: Job,
    oracle: &Arc<CommandOracle>,
    trace: Option<TraceWriter>,
    theme: Option<crate::tui::Theme>,
) -> anyhow::Result<(SessionReport, Option<bool>, Flakiness)> {
    let place = oracle.executor().describe();
    let input_size = job.input.len();
    let job_count = job.plan.knobs.jobs;
    let options = SessionOptions {
        // The UI keeps the session for edits and restarts after the pipeline ends.
        exit_when_done: theme.is_none(),
        start_in_step_mode: args.step,
        start_paused: args.paused,
    };
    let describe = oracle.describe();
    // The oracle is closed after the run, so that what its cleaning up says is printed.
    // The test as the reduction sees it: the input's check replayed, verdicts re-tested now
    // and then, and confirmed by repeated runs once the test is seen to be flaky.
    let judge = Arc::new(whittle_core::exec::confirm::Confirming::new(
        oracle.clone(),
        whittle_core::exec::confirm::Policy::new(args.confirm, args.assume_deterministic)
            .with_jobs(job_count),
    ));
    let session = Session::start_with(job, judge.clone(), options, |tester| {
        tester.set_trace(trace)
    })?;
    let pipeline = session.snapshot().pipeline;
    let mut completed = None;
    let mut _stop_on_signal = None;
    if let Some(theme) = theme {
        completed = Some(run_ui(args, &session, theme)?);
    } else {
        let commands = session.commands();
        _stop_on_signal = Some(whittle_core::exec::signals::on_signal(move || {
            commands.send(Command::Stop)
        }));
    }
    // After the UI, which showed the events so far, only the warnings of the end are printed.
    let progress = match completed {
        None => crate::headless::spawn_progress(session.events().clone(), input_size, job_count),
        Some(_) => crate::headless::spawn_messages(session.events().clone()),
    };
    if completed.is_none() {
        errln!(
            "whittle: reducing {} ({input_size} bytes) with `{describe}`, algorithm {pipeline}; \
             tests run {place}, {} at once",
            args.input.display(),
            job_count
        );
    }
    let report = session.wait()?;
    let _ = progress.join();
    Ok((report, completed, judge.flakiness()))
}

/// The terminal UI on the session, until the user leaves it; whether the pipeline had finished
/// by then.
fn run_ui(args: &ReduceArgs, session: &Session, theme: crate::tui::Theme) -> anyhow::Result<bool> {
    let app = crate::tui::App::new(
        session.commands(),
        crate::tui::AppOptions {
            theme,
            input_name: input_name(&args.input),
            clock: std::sync::Arc::new(crate::tui::SystemClock),
            exit_when_done: args.exit_when_done,
            language: session.language(),
            extension: args
                .input
                .extension()
                .map(|e| e.to_string_lossy().into_owned()),
        },
    );
    let (_, _, app) = crate::tui::terminal::run(session, app)?;
    Ok(app.run_model().ending == Some(crate::tui::Ending::Done))
}

/// What the end of a run needs to know besides the session's report.
struct EndOfRun<'a> {
    output: &'a ResultFile,
    /// The output existed before the run.
    existed: bool,
    /// The run started from the existing output.
    resumed: bool,
    input_size: usize,
    /// What was seen of the test's flakiness.
    flakiness: Flakiness,
}

impl EndOfRun<'_> {
    /// What the output path holds when this run wrote nothing.
    fn untouched(&self) -> String {
        if self.existed {
            format!("{} was left as it was", self.output.path().display())
        } else {
            "nothing was written".into()
        }
    }
}

/// Reports how a reduction ended and returns the exit code. `completed` tells, after the UI,
/// whether the pipeline had finished before the user left it.
fn conclude(
    args: &ReduceArgs,
    outcome: EndOfRun<'_>,
    report: SessionReport,
    completed: Option<bool>,
) -> anyhow::Result<i32> {
    let finished = match report.failure {
        None => report.finished,
        Some(failure) => return Ok(start_failure(args, &outcome, failure)),
    };
    // A result that is empty or only whitespace: the test says interesting where nothing of
    // the input is left.
    let trivial = finished.result.iter().all(u8::is_ascii_whitespace);
    let flakiness = warn_of_flakiness(&finished, &outcome.flakiness);
    let mut code = 0;
    if let Some(path) = &args.stats_json
        && !write_stats(
            path,
            &finished.stats,
            &serde_json::json!({ "flakiness": flakiness }),
        )
    {
        code = EXIT_ERROR;
    }
    // stdout may be gone (`whittle reduce ... | head -1`) or full: the run ends all the same
    // (result written, lock removed), and learns of it at the very end.
    let mut stdout = Report::new();
    stdout.line(format_args!("{}", crate::headless::report(&finished.stats)));
    if flakiness.flaky {
        stdout.line(format_args!(
            "flaky test: yes ({} disagreement(s); {} extra run(s); {} run(s) per interesting \
             verdict at the end)",
            flakiness.disagreements, flakiness.extra_runs, flakiness.confirm_runs
        ));
    }
    let Some((place, failed_write)) = save(outcome.output) else {
        return Ok(with_stdout(stdout, EXIT_ERROR));
    };
    if failed_write {
        code = EXIT_ERROR;
    }
    // Leaving the UI after the pipeline finished stops an idle session: that is no interruption.
    let stopped = match (completed, &finished.stopped) {
        (Some(true), Some(Stop::Requested)) => None,
        (_, stopped) => stopped.as_ref(),
    };
    let unchanged = finished.result.len() == outcome.input_size && !outcome.resumed;
    let code = tell_where(&mut stdout, stopped, &place, unchanged, code);
    let code = if trivial && !matches!(stopped, Some(Stop::Requested | Stop::Failed(_))) {
        trivial_result(args, &finished.result, code)
    } else {
        code
    };
    Ok(with_stdout(stdout, code))
}

/// When a word of the test command after its program names a file of the current directory
/// by a relative path: the test runs in a scratch directory, where that path names nothing
/// (unless it is one of the case's own files, `in_the_case`).
pub(super) fn hint_at_relative_files(
    command: &[std::ffi::OsString],
    in_the_case: &dyn Fn(&Path) -> bool,
) {
    for word in command.iter().skip(1) {
        let path = Path::new(word);
        if path.is_relative()
            && !word.to_string_lossy().starts_with('-')
            && path.is_file()
            && !in_the_case(path)
        {
            let absolute = std::path::absolute(path).unwrap_or_else(|_| path.to_path_buf());
            errln!(
                "whittle: note: the test runs in a fresh directory of its own, where `{}` (a \
                 file of this directory) is not: give its absolute path, `{}`",
                path.display(),
                absolute.display()
            );
        }
    }
}

/// When files lie beside the input (other than the test's own files and whittle's): the test
/// runs in a fresh directory that holds only the input's file, so a test that reads a
/// neighbour (a module the input imports, a header it includes) fails there.
fn hint_at_neighbours(input: &Path, command: &[std::ffi::OsString], output: &Path) {
    /// Neighbours named, at most; the directory is read only this far.
    const NAMED: usize = 4;
    const READ: usize = 1000;
    let directory = match input.parent() {
        Some(parent) if !parent.as_os_str().is_empty() => parent,
        _ => Path::new("."),
    };
    let Ok(entries) = std::fs::read_dir(directory) else {
        return;
    };
    // The input, the output and the test's own files, each found once.
    let theirs: Vec<std::path::PathBuf> = [input, output]
        .into_iter()
        .chain(command.iter().map(Path::new))
        .filter_map(|path| path.canonicalize().ok())
        .collect();
    let mut neighbours: Vec<String> = entries
        .take(READ)
        .filter_map(Result::ok)
        .filter(|entry| entry.file_type().is_ok_and(|kind| kind.is_file()))
        .map(|entry| entry.path())
        .filter_map(|path| {
            let name = path.file_name()?.to_string_lossy().into_owned();
            let neighbour = !name.starts_with('.')
                && !name.contains(".whittled")
                && path
                    .canonicalize()
                    .is_ok_and(|path| !theirs.contains(&path));
            neighbour.then_some(name)
        })
        .collect();
    if neighbours.is_empty() {
        return;
    }
    neighbours.sort();
    let more = neighbours.len().saturating_sub(NAMED);
    neighbours.truncate(NAMED);
    let listed = if more > 0 {
        format!("{}, and {more} more", neighbours.join(", "))
    } else {
        neighbours.join(", ")
    };
    let name = input.file_name().unwrap_or_default().to_string_lossy();
    errln!(
        "whittle: note: the test runs in a fresh directory holding only `{name}`; the files \
         beside the input ({listed}) are not there: if the test needs them, name them by \
         absolute path in the test, or reduce them with the input (`whittle reduce {} {} -- \
         ...`)",
        input.display(),
        input.with_file_name(&neighbours[0]).display()
    );
}

/// Tells why nothing was reduced (the input is not interesting, the test cannot start, a
/// stop before the input was checked) and returns the exit code.
fn start_failure(args: &ReduceArgs, outcome: &EndOfRun<'_>, failure: StartError) -> i32 {
    match failure {
        StartError::NotInteresting { verdict, status } => {
            // Not a verdict on the input: the test never ran.
            if let whittle_core::exec::oracle::TestStatus::SpawnFailed(why) = &verdict.status {
                let program = args.command.first().cloned().unwrap_or_default();
                errln!(
                    "whittle: the test could not be started ({why}): {}; {}.",
                    whittle_core::exec::oracle::explain_spawn_failure(&program, why),
                    outcome.untouched()
                );
                return EXIT_USAGE;
            }
            let what = if outcome.resumed {
                format!("the existing output {}", outcome.output.path().display())
            } else {
                "the input".to_string()
            };
            errln!("whittle: {what} is not interesting: the test reported {status} on it.");
            errln!(
                "whittle: the test was given {} (see --input-type).",
                whittle_core::exec::oracle::InputType::from(args.input_type)
                    .describe(&input_name(&args.input))
            );
            if let Some(tail) = verdict.output_tail.filter(|t| !t.is_empty()) {
                errln!(
                    "whittle: the end of its output:\n{}",
                    last_chars(&tail, 4096)
                );
            }
            hint_at_relative_files(&args.command, &|path| {
                path.as_os_str() == args.input.file_name().unwrap_or_default()
            });
            hint_at_neighbours(&args.input, &args.command, outcome.output.path());
            if outcome.resumed {
                errln!(
                    "whittle: {}; give --force to start over from the input.",
                    outcome.untouched()
                );
            } else {
                errln!(
                    "whittle: fix the test so that it exits 0 on the input; {}.",
                    outcome.untouched()
                );
            }
            EXIT_USAGE
        }
        StartError::Stopped(stop) => {
            let untouched = outcome.untouched();
            match stop {
                Stop::Requested => {
                    errln!("whittle: stopped before the input was checked; {untouched}.");
                    EXIT_INTERRUPTED
                }
                Stop::Failed(why) => {
                    errln!("whittle: error: {why}");
                    errln!(
                        "whittle: this is a failure of whittle's environment (disk full? \
                         permissions?), not of the test; {untouched}."
                    );
                    EXIT_ERROR
                }
                stop => {
                    errln!("whittle: {stop} before the input was checked; {untouched}.");
                    0
                }
            }
        }
    }
}

/// Warns of a flaky test (a final result that failed its re-test, verdicts that disagreed) and
/// returns all that was seen of its flakiness.
fn warn_of_flakiness(finished: &Finished, seen: &Flakiness) -> Flakiness {
    if let Some(flaky) = finished.flaky.as_ref().filter(|flaky| flaky.went_on) {
        errln!(
            "whittle: WARNING: the test is flaky: the result then ({} bytes) was interesting \
             before but not on its re-test ({}); the run went back to the last result that \
             passed and went on reducing from there.",
            flaky.unconfirmed_size,
            flaky.status
        );
    } else if let Some(flaky) = &finished.flaky {
        errln!(
            "whittle: WARNING: the test is flaky: the final result ({} bytes) was interesting \
             before but not on its re-test ({}).",
            flaky.unconfirmed_size,
            flaky.status
        );
        if flaky.fell_back {
            errln!(
                "whittle: the result is the last one that passed its re-test ({} bytes).",
                finished.result.len()
            );
        } else {
            errln!(
                "whittle: no earlier result passed its re-test either; the result below was \
                 judged interesting only once."
            );
        }
    }
    let mut flakiness = seen.clone();
    flakiness.flaky |= finished.flaky.is_some();
    if let Some(first) = &flakiness.first_disagreement {
        errln!(
            "whittle: WARNING: the test is flaky: {first} ({} disagreement{} in all); interesting \
             verdicts were confirmed by {} runs from then on.",
            flakiness.disagreements,
            if flakiness.disagreements == 1 {
                ""
            } else {
                "s"
            },
            flakiness.confirm_runs
        );
    }
    flakiness
}

/// Writes the statistics with the fields of `extra` (the flakiness, a case's files) as JSON to
/// `path` (`--stats-json`); false, said on stderr, when they cannot be written.
pub(super) fn write_stats(
    path: &Path,
    stats: &whittle_core::observe::stats::Stats,
    extra: &serde_json::Value,
) -> bool {
    let written = serde_json::to_value(stats)
        .and_then(|mut total| {
            if let (Some(fields), Some(extra)) = (total.as_object_mut(), extra.as_object()) {
                fields.extend(extra.clone());
            }
            serde_json::to_vec_pretty(&total)
        })
        .map_err(std::io::Error::other)
        .and_then(|json| whittle_core::output::write_atomically(path, &json, Some(0o644)));
    if let Err(error) = written {
        errln!(
            "whittle: error: cannot write the statistics to {}: {error}",
            path.display()
        );
        return false;
    }
    true
}

/// Ends the result file: where the result is, and whether writing it to the output failed
/// (it was saved elsewhere); `None` when it could be saved nowhere.
fn save(output: &ResultFile) -> Option<(PathBuf, bool)> {
    use whittle_core::output::Saved;
    let intended = output.path();
    let (saved, notice) = output.finish();
    if let Some(line) = notice.and_then(|notice| crate::headless::message_line(&notice.into())) {
        errln!("{line}");
    }
    match saved {
        Saved::Best | Saved::Nothing => Some((intended.to_path_buf(), false)),
        Saved::KeptSmaller { existing, best } => {
            let saved = whittle_core::output::save_elsewhere(intended, &best);
            errln!(
                "whittle: {} ({existing} bytes, from before) is smaller than this run's result \
                 ({} bytes) and was kept.",
                intended.display(),
                best.len()
            );
            match saved {
                Ok(place) => Some((place, false)),
                Err(error) => {
                    errln!("whittle: error: cannot save this run's result anywhere: {error}");
                    None
                }
            }
        }
        Saved::Failed { error, best } => {
            errln!(
                "whittle: error: cannot write the result to {}: {error}",
                intended.display()
            );
            match whittle_core::output::save_elsewhere(intended, &best) {
                Ok(place) => {
                    errln!(
                        "whittle: the result ({} bytes) was saved to {} instead.",
                        best.len(),
                        place.display()
                    );
                    Some((place, true))
                }
                Err(error) => {
                    errln!("whittle: error: cannot save the result anywhere: {error}");
                    None
                }
            }
        }
    }
}

/// Tells on stdout where the result is and how the run ended (`stopped`); returns the exit
/// code, `code` unless a stop makes it another. `unchanged`: the result is the input.
pub(super) fn tell_where(
    stdout: &mut Report,
    stopped: Option<&Stop>,
    place: &Path,
    unchanged: bool,
    code: i32,
) -> i32 {
    let unchanged = if unchanged {
        " (the input, unchanged: nothing smaller was found)"
    } else {
        ""
    };
    match stopped {
        None => {
            stdout.line(format_args!("result: {}", place.display()));
            code
        }
        Some(Stop::Requested) => {
            stdout.line(format_args!(
                "stopped on request; the best result so far is in {}{unchanged}",
                place.display()
            ));
            EXIT_INTERRUPTED
        }
        Some(Stop::Failed(why)) => {
            errln!("whittle: error: {why}");
            errln!(
                "whittle: this is a failure of whittle's environment (disk full? permissions?), \
                 not of the test."
            );
            stdout.line(format_args!(
                "stopped by an error; the best result so far is in {}{unchanged}",
                place.display()
            ));
            EXIT_ERROR
        }
        Some(stop) => {
            stdout.line(format_args!(
                "{stop}; the best result so far is in {}{unchanged}",
                place.display()
            ));
            code
        }
    }
}

/// A trivial result (empty or only whitespace): allowed by --allow-trivial, else an error of
/// the test (exit code 3 when nothing else went wrong).
fn trivial_result(args: &ReduceArgs, result: &[u8], code: i32) -> i32 {
    let what = if result.is_empty() {
        "an empty file"
    } else {
        "a file of whitespace only"
    };
    if args.allow_trivial {
        errln!("whittle: the result is {what} (allowed by --allow-trivial).");
        code
    } else {
        errln!(
            "whittle: error: the test probably accepts too much: it says interesting on \
             {what}. The result was written all the same; make the test check for what \
             matters, or give --allow-trivial if this result is right."
        );
        if code == 0 { EXIT_TRIVIAL } else { code }
    }
}

/// How the input is named on screen and in traces: its file name.
fn input_name(path: &std::path::Path) -> String {
    path.file_name().map_or_else(
        || path.display().to_string(),
        |name| name.to_string_lossy().into_owned(),
    )
}

/// The last `limit` characters of `text` (at most), for messages.
pub(super) fn last_chars(text: &str, limit: usize) -> &str {
    let count = text.chars().count();
    match text.char_indices().nth(count.saturating_sub(limit)) {
        Some((at, _)) if count > limit => &text[at..],
        _ => text,
    }
}
