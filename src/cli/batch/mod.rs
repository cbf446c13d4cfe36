//! `whittle batch`: many reductions in one campaign, each a headless `whittle reduce` of its
//! own: several at once on this machine, or one per Slurm array task. A progress line while
//! they run, a summary at the end (a table, and JSON); a reduction that fails does not stop the
//! others.

use std::collections::VecDeque;
use std::ffi::{OsStr, OsString};
use std::fs;
use std::io::IsTerminal;
use std::os::unix::ffi::OsStrExt;
use std::os::unix::process::{CommandExt, ExitStatusExt};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::{Duration, Instant};

use clap::Args;
use indicatif::{ProgressBar, ProgressStyle};
use nix::sys::signal::{Signal, killpg};
use nix::unistd::Pid;
use serde::{Deserialize, Serialize};

use super::{EXIT_ERROR, EXIT_INTERRUPTED, EXIT_USAGE, ExecutorKind};
use crate::console::{Report, errln};

#[derive(Debug, Args)]
pub struct BatchArgs {
    /// A directory of inputs: every regular file directly in it (not hidden, not a result of
    /// whittle's), in name order.
    #[arg(
        value_name = "DIR",
        required_unless_present = "manifest",
        conflicts_with = "manifest"
    )]
    pub dir: Option<PathBuf>,

    /// A manifest instead of DIR: one JSON object per line, `{"input": PATH, "test": [PROGRAM,
    /// ARG...]}` (or `"test": "shell command"`, run by `sh -c` with the candidate as `$1`; an
    /// optional `"output": PATH`); without `test` the TEST-COMMAND is used. Relative paths are
    /// relative to the manifest's directory, a test's program too (the first word of a shell
    /// command when it is a path such as `./t.sh`).
    #[arg(long, value_name = "PATH")]
    pub manifest: Option<PathBuf>,

    /// The interestingness test of every input, as for `whittle reduce`.
    #[arg(last = true, value_name = "TEST-COMMAND")]
    pub command: Vec<OsString>,

    /// Put each result in DIR under its input's file name [default: beside each input as
    /// <stem>.whittled<.ext>]. Inputs are never written.
    #[arg(short, long, value_name = "DIR")]
    pub output_dir: Option<PathBuf>,

    /// Where the logs, statistics and scripts of the reductions go (with Slurm on a file system
    /// the nodes share) [default: a new `whittle-batch-<time>` in the current directory].
    #[arg(long, value_name = "DIR")]
    pub work_dir: Option<PathBuf>,

    /// Run the reductions on this machine, or each as a Slurm array task (`sbatch --array`).
    #[arg(long, value_enum, default_value = "local", value_name = "local|slurm")]
    pub executor: ExecutorKind,

    /// How many reductions run at once [default: on this machine, the CPUs divided by -j; with
    /// Slurm, as many as the scheduler allows].
    #[arg(long, value_name = "N")]
    pub reductions: Option<usize>,

    /// Tests at once within each reduction (with Slurm, the CPUs of each array task).
    #[arg(short, long, default_value_t = 1, value_name = "N")]
    pub jobs: usize,

    /// The algorithm of every reduction (see `whittle reduce --algorithm`).
    #[arg(short, long, value_name = "PIPELINE")]
    pub algorithm: Option<String>,

    /// Kill a test after SECS seconds (see `whittle reduce --timeout`).
    #[arg(long, value_name = "SECS")]
    pub timeout: Option<f64>,

    /// Stop each reduction after SECS seconds (its output holds its best result).
    #[arg(long, value_name = "SECS")]
    pub limit_time: Option<f64>,

    /// Stop each reduction after N tests.
    #[arg(long, value_name = "N")]
    pub limit_tests: Option<u64>,

    /// An extra argument for every `whittle reduce` (e.g. `--reduce-arg=--force`); repeat it
    /// for several.
    #[arg(long, value_name = "ARG", allow_hyphen_values = true)]
    pub reduce_arg: Vec<OsString>,

    /// An extra argument for `sbatch` (a partition, an account, `--time=2:00:00`...); repeat it
    /// for several.
    #[arg(long, value_name = "ARG", allow_hyphen_values = true)]
    pub sbatch_arg: Vec<OsString>,

    /// Also write the summary as JSON to PATH (it is always in the work directory).
    #[arg(long, value_name = "PATH")]
    pub summary_json: Option<PathBuf>,
}

/// One reduction of the campaign.
#[derive(Clone, Debug)]
struct Item {
    index: usize,
    input: PathBuf,
    output: PathBuf,
    test: Vec<OsString>,
}

/// How one reduction ended, as the summary shows it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Status {
    /// The result is smaller than the input.
    Reduced,
    /// The reduction ran to its end and found nothing smaller.
    Unchanged,
    /// A limit (`--limit-time`, `--limit-tests`) stopped it; the output holds its best result.
    Limit,
    /// The test does not find the input interesting: nothing was reduced.
    NotInteresting,
    /// whittle refused to start (a bad argument, an existing output...): see the log.
    Refused,
    /// Stopped by a signal (Ctrl-C, `scancel`); the output holds its best result.
    Stopped,
    /// It failed (an error of whittle's environment, a crash, a lost array task): see the log.
    Failed,
    /// The campaign was stopped before it started.
    NotStarted,
}

impl Status {
    fn as_str(&self) -> &'static str {
        match self {
            Status::Reduced => "reduced",
            Status::Unchanged => "unchanged",
            Status::Limit => "limit",
            Status::NotInteresting => "not interesting",
            Status::Refused => "refused",
            Status::Stopped => "stopped",
            Status::Failed => "failed",
            Status::NotStarted => "not started",
        }
    }

    /// Whether the reduction ran as asked (whatever it found).
    fn is_success(&self) -> bool {
        matches!(self, Status::Reduced | Status::Unchanged | Status::Limit)
    }
}

/// One line of the summary.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Summary {
    pub input: PathBuf,
    pub output: PathBuf,
    pub status: Status,
    /// The input's size in bytes.
    pub size_before: u64,
    /// The result's size in bytes (when the reduction got as far as a result).
    pub size_after: Option<u64>,
    /// The algorithm's tests (as `whittle reduce` counts them).
    pub tests: Option<u64>,
    pub seconds: f64,
    /// `whittle reduce`'s exit status.
    pub exit_code: Option<i32>,
    /// What went wrong, when something did (a line of the log).
    pub detail: Option<String>,
    /// The reduction's own output (its log).
    pub log: PathBuf,
}

/// The JSON summary of a campaign.
#[derive(Debug, Serialize, Deserialize)]
pub struct BatchSummary {
    pub executor: String,
    pub work_dir: PathBuf,
    pub reductions: Vec<Summary>,
}

/// Runs `whittle batch` and returns the exit code: 0 when every reduction ran to its end, 1
/// when one failed, was refused or found its input not interesting, 2 for bad arguments,
/// 130 when stopped.
pub fn run(args: &BatchArgs) -> anyhow::Result<i32> {
    if let Err(error) = whittle_core::exec::signals::install() {
        errln!("whittle: warning: cannot handle Ctrl-C and SIGTERM: {error}");
    }
    let items = match plan(args) {
        Ok(items) => items,
        Err(error) => {
            errln!("whittle: {error:#}");
            return Ok(EXIT_USAGE);
        }
    };
    if args.jobs == 0 || args.reductions == Some(0) {
        errln!("whittle: -j and --reductions must be at least 1");
        return Ok(EXIT_USAGE);
    }
    if let Err(error) = check_reduce_args(args, &items[0]) {
        errln!("whittle: {error}");
        return Ok(EXIT_USAGE);
    }
    let work_dir = match make_work_dir(args) {
        Ok(dir) => dir,
        Err(error) => {
            errln!("whittle: {error:#}");
            return Ok(EXIT_USAGE);
        }
    };
    let whittle = std::env::current_exe()?;
    errln!(
        "whittle: batch of {} reductions; logs and statistics in {}",
        items.len(),
        work_dir.display()
    );
    let progress = Progress::new(items.len());
    let summaries = match args.executor {
        ExecutorKind::Local => run_local(args, &items, &work_dir, &whittle, &progress),
        ExecutorKind::Slurm => match run_slurm(args, &items, &work_dir, &progress) {
            Ok(summaries) => summaries,
            Err(error) => {
                progress.finish();
                errln!("whittle: {error:#}");
                return Ok(EXIT_USAGE);
            }
        },
    };
    progress.finish();
    let summary = BatchSummary {
        executor: match args.executor {
            ExecutorKind::Local => "local".into(),
            ExecutorKind::Slurm => "slurm".into(),
        },
        work_dir: work_dir.clone(),
        reductions: summaries,
    };
    // The summary files are written whatever becomes of stdout (`| head`, a full disk).
    let mut stdout = Report::new();
    stdout.text(&table(&summary.reductions));
    let json = serde_json::to_vec_pretty(&summary)?;
    let mut code = 0;
    let mut written = Vec::new();
    for path in std::iter::once(work_dir.join("summary.json")).chain(args.summary_json.clone()) {
        match whittle_core::output::write_atomically(&path, &json, Some(0o644)) {
            Ok(()) => written.push(path.display().to_string()),
            Err(error) => {
                errln!(
                    "whittle: error: cannot write the summary to {}: {error}",
                    path.display()
                );
                code = EXIT_ERROR;
            }
        }
    }
    if !written.is_empty() {
        errln!("whittle: summary in {}", written.join(" and "));
    }
    if whittle_core::exec::signals::received() > 0 {
        code = EXIT_INTERRUPTED;
    } else if summary.reductions.iter().any(|s| !s.status.is_success()) {
        code = EXIT_ERROR;
    }
    Ok(super::with_stdout(stdout, code))
}

/// Checks the arguments every `whittle reduce` of the campaign gets (`--reduce-arg`, `-a`...)
/// once, before any starts, as `whittle reduce` parses them: a mistake is told once, with the
/// parser's own message, instead of every reduction being refused.
fn check_reduce_args(args: &BatchArgs, item: &Item) -> Result<(), String> {
    let argv = reduce_args(args, Path::new("whittle-batch"), item);
    use clap::Parser as _;
    match super::Cli::try_parse_from(std::iter::once(OsString::from("whittle")).chain(argv)) {
        Ok(_) => Ok(()),
        Err(error) => {
            // The parser's message without the usage of `whittle reduce` that follows it.
            let message = error.to_string();
            let first = message.split("\n\n").next().unwrap_or_default().trim();
            let first = first.strip_prefix("error: ").unwrap_or(first);
            Err(format!(
                "the arguments every reduction would get are refused (`whittle reduce` says: \
                 {first}); check --reduce-arg, -a and the limits"
            ))
        }
    }
}

/// The reductions the arguments ask for, checked: inputs readable, outputs distinct and none
/// of them an input.
fn plan(args: &BatchArgs) -> anyhow::Result<Vec<Item>> {
    let cwd = std::env::current_dir()?;
    let default_test = absolute_program(&args.command, &cwd);
    let mut items = Vec::new();
    if let Some(manifest) = &args.manifest {
        let text = whittle_core::output::read_regular_file(manifest, "the manifest", 1 << 30)
            .map_err(anyhow::Error::msg)
            .and_then(|bytes| {
                String::from_utf8(bytes).map_err(|_| {
                    anyhow::anyhow!("the manifest {} is not UTF-8 text", manifest.display())
                })
            })?;
        let base = absolute(manifest, &cwd)
            .parent()
            .map_or_else(|| cwd.clone(), Path::to_path_buf);
        for (number, line) in text.lines().enumerate() {
            let line = line.trim();
            if line.is_empty() || line.starts_with('#') {
                continue;
            }
            let entry: ManifestEntry = serde_json::from_str(line)
                .map_err(|e| anyhow::anyhow!("{} line {}: {e}", manifest.display(), number + 1))?;
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
                None => (default_test.clone(), default_test.first().cloned()),
            };
            if test.is_empty() {
                anyhow::bail!(
                    "{} line {}: no test (give \"test\" or a TEST-COMMAND after `--`)",
                    manifest.display(),
                    number + 1
                );
            }
            if let Some(program) = program {
                check_test_program(args, &program).map_err(|why| {
                    anyhow::anyhow!("{} line {}: {why}", manifest.display(), number + 1)
                })?;
            }
            let input = absolute(Path::new(&entry.input), &base);
            let output = entry
                .output
                .map(|output| absolute(Path::new(&output), &base));
            items.push((input, output, test));
        }
    } else if let Some(dir) = &args.dir {
        if default_test.is_empty() {
            anyhow::bail!("the test command is missing (give it after `--`)");
        }
        check_test_program(args, &default_test[0]).map_err(anyhow::Error::msg)?;
        let entries = fs::read_dir(dir)
            .map_err(|e| anyhow::anyhow!("cannot read the directory {}: {e}", dir.display()))?;
        let mut inputs: Vec<PathBuf> = entries
            .flatten()
            .filter(|entry| fs::metadata(entry.path()).is_ok_and(|m| m.is_file()))
            .filter(|entry| is_input_name(&entry.file_name()))
            .map(|entry| absolute(&entry.path(), &cwd))
            .collect();
        inputs.sort();
        items.extend(
            inputs
                .into_iter()
                .map(|input| (input, None, default_test.clone())),
        );
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
    for (i, item) in items.iter().enumerate() {
        if !item.input.is_file() {
            anyhow::bail!("the input {} is not a readable file", item.input.display());
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
        for other in &items {
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
    Ok(items)
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

fn make_work_dir(args: &BatchArgs) -> anyhow::Result<PathBuf> {
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

/// The files of one reduction in the work directory.
fn stats_path(work: &Path, item: &Item) -> PathBuf {
    work.join(format!("{}.stats.json", item.index))
}

fn log_path(work: &Path, item: &Item) -> PathBuf {
    work.join(format!("{}.log", item.index))
}

fn exit_path(work: &Path, item: &Item) -> PathBuf {
    work.join(format!("{}.exit", item.index))
}

/// The `whittle reduce` command line of one reduction (without the program).
fn reduce_args(args: &BatchArgs, work: &Path, item: &Item) -> Vec<OsString> {
    let mut argv: Vec<OsString> = vec![
        "reduce".into(),
        item.input.clone().into(),
        "--no-tui".into(),
        "--output".into(),
        item.output.clone().into(),
        "--stats-json".into(),
        stats_path(work, item).into(),
        format!("--jobs={}", args.jobs).into(),
    ];
    if let Some(algorithm) = &args.algorithm {
        argv.push(format!("--algorithm={algorithm}").into());
    }
    if let Some(timeout) = args.timeout {
        argv.push(format!("--timeout={timeout}").into());
    }
    if let Some(limit) = args.limit_time {
        argv.push(format!("--limit-time={limit}").into());
    }
    if let Some(limit) = args.limit_tests {
        argv.push(format!("--limit-tests={limit}").into());
    }
    argv.extend(args.reduce_arg.iter().cloned());
    argv.push("--".into());
    argv.extend(item.test.iter().cloned());
    argv
}

/// What `whittle reduce --stats-json` wrote, as far as the summary needs it.
#[derive(Deserialize)]
struct ReduceStats {
    tests: u64,
    output_bytes: u64,
    wall_seconds: f64,
    stopped: Option<String>,
}

/// The summary line of a reduction that ended with `exit` (`None`: no exit status is known)
/// after `seconds`.
fn summarize(work: &Path, item: &Item, exit: Option<i32>, seconds: f64) -> Summary {
    let log = log_path(work, item);
    let stats: Option<ReduceStats> = fs::read(stats_path(work, item))
        .ok()
        .and_then(|json| serde_json::from_slice(&json).ok());
    let log_text = fs::read(&log)
        .map(|bytes| String::from_utf8_lossy(&bytes).into_owned())
        .unwrap_or_default();
    let last_message = log_text
        .lines()
        .rev()
        .find(|line| line.starts_with("whittle: "))
        .map(|line| line.trim_start_matches("whittle: ").to_owned());
    let size_before = fs::metadata(&item.input).map_or(0, |m| m.len());
    let (status, detail) = match (exit, &stats) {
        (Some(0), Some(stats)) if stats.stopped.is_some() => (Status::Limit, stats.stopped.clone()),
        (Some(0), Some(stats)) if stats.output_bytes < size_before => (Status::Reduced, None),
        (Some(0), Some(_)) => (Status::Unchanged, None),
        (Some(0), None) => (Status::Limit, last_message),
        (Some(EXIT_USAGE), _) if log_text.contains(" is not interesting") => (
            Status::NotInteresting,
            log_text
                .lines()
                .find(|line| line.contains(" is not interesting"))
                .map(|line| line.trim_start_matches("whittle: ").to_owned()),
        ),
        (Some(EXIT_USAGE), _) => (Status::Refused, last_message),
        (Some(EXIT_INTERRUPTED), _) => (Status::Stopped, None),
        (Some(code), _) => (
            Status::Failed,
            Some(last_message.unwrap_or_else(|| format!("exit status {code}"))),
        ),
        (None, _) => (
            Status::Failed,
            Some(last_message.unwrap_or_else(|| "ended without an exit status".into())),
        ),
    };
    // A reduction that said nothing although it did not succeed could not write its log.
    let detail = match detail {
        _ if !log_text.trim().is_empty() || status.is_success() || exit.is_none() => detail,
        Some(detail) => Some(format!(
            "{detail}; its log {} is empty: it could not be written (a full disk?)",
            log.display()
        )),
        None => Some(format!(
            "exit status {}; its log {} is empty: it could not be written (a full disk?)",
            exit.unwrap_or_default(),
            log.display()
        )),
    };
    Summary {
        input: item.input.clone(),
        output: item.output.clone(),
        size_after: stats.as_ref().map(|s| s.output_bytes),
        tests: stats.as_ref().map(|s| s.tests),
        seconds: stats.as_ref().map_or(seconds, |s| s.wall_seconds.max(0.0)),
        status,
        size_before,
        exit_code: exit,
        detail,
        log,
    }
}

fn not_started(work: &Path, item: &Item) -> Summary {
    Summary {
        input: item.input.clone(),
        output: item.output.clone(),
        status: Status::NotStarted,
        size_before: fs::metadata(&item.input).map_or(0, |m| m.len()),
        size_after: None,
        tests: None,
        seconds: 0.0,
        exit_code: None,
        detail: None,
        log: log_path(work, item),
    }
}

/// The summary as a table.
fn table(summaries: &[Summary]) -> String {
    let cwd = std::env::current_dir().unwrap_or_default();
    let rows: Vec<[String; 6]> = summaries
        .iter()
        .map(|s| {
            [
                s.input
                    .strip_prefix(&cwd)
                    .unwrap_or(&s.input)
                    .display()
                    .to_string(),
                s.size_before.to_string(),
                s.size_after.map_or("-".into(), |n| n.to_string()),
                s.tests.map_or("-".into(), |n| n.to_string()),
                format!("{:.1}s", s.seconds),
                match &s.detail {
                    Some(detail) => format!("{} ({detail})", s.status.as_str()),
                    None => s.status.as_str().into(),
                },
            ]
        })
        .collect();
    let header = ["input", "before", "after", "tests", "time", "status"];
    let width = |column: usize| {
        rows.iter()
            .map(|row| row[column].chars().count())
            .chain(std::iter::once(header[column].len()))
            .max()
            .unwrap_or(0)
    };
    let widths: Vec<usize> = (0..5).map(width).collect();
    let mut out = String::new();
    let mut line = |cells: [&str; 6]| {
        out.push_str(&format!("{:<w$}", cells[0], w = widths[0]));
        for (i, cell) in cells.iter().enumerate().take(5).skip(1) {
            out.push_str(&format!("  {:>w$}", cell, w = widths[i]));
        }
        out.push_str(&format!("  {}\n", cells[5]));
    };
    line(header);
    for row in &rows {
        line([&row[0], &row[1], &row[2], &row[3], &row[4], &row[5]]);
    }
    let count = |status: &Status| summaries.iter().filter(|s| &s.status == status).count();
    let before: u64 = summaries.iter().map(|s| s.size_before).sum();
    let after: u64 = summaries
        .iter()
        .map(|s| s.size_after.unwrap_or(s.size_before))
        .sum();
    out.push_str(&format!(
        "{} reductions: {} reduced, {} unchanged, {} stopped by a limit, {} not interesting, {} \
         refused, {} stopped, {} failed, {} not started; {before} -> {after} bytes in all\n",
        summaries.len(),
        count(&Status::Reduced),
        count(&Status::Unchanged),
        count(&Status::Limit),
        count(&Status::NotInteresting),
        count(&Status::Refused),
        count(&Status::Stopped),
        count(&Status::Failed),
        count(&Status::NotStarted),
    ));
    out
}

/// The progress line: a bar on a terminal, a line per finished reduction otherwise (and
/// always).
struct Progress {
    bar: ProgressBar,
    total: usize,
    done: Mutex<Vec<Status>>,
}

impl Progress {
    fn new(total: usize) -> Progress {
        let bar = if std::io::stderr().is_terminal() {
            let bar = ProgressBar::new(total as u64);
            if let Ok(style) = ProgressStyle::with_template(
                "{elapsed_precise} [{bar:30.cyan/blue}] {pos}/{len} {msg}",
            ) {
                bar.set_style(style.progress_chars("=> "));
            }
            bar.enable_steady_tick(Duration::from_millis(250));
            bar
        } else {
            ProgressBar::hidden()
        };
        Progress {
            bar,
            total,
            done: Mutex::new(Vec::new()),
        }
    }

    fn running(&self, running: usize) {
        let done = self.done.lock().unwrap_or_else(PoisonError::into_inner);
        self.bar.set_message(Self::message(&done, running));
    }

    fn message(done: &[Status], running: usize) -> String {
        let count = |wanted: &[Status]| done.iter().filter(|s| wanted.contains(s)).count();
        format!(
            "{running} running · {} reduced · {} unchanged/limit · {} not interesting · {} failed",
            count(&[Status::Reduced]),
            count(&[Status::Unchanged, Status::Limit]),
            count(&[Status::NotInteresting]),
            count(&[
                Status::Refused,
                Status::Failed,
                Status::Stopped,
                Status::NotStarted
            ]),
        )
    }

    fn finished(&self, summary: &Summary, running: usize) {
        let mut done = self.done.lock().unwrap_or_else(PoisonError::into_inner);
        done.push(summary.status.clone());
        let cwd = std::env::current_dir().unwrap_or_default();
        let line = format!(
            "whittle: [{}/{}] {}: {}{} ({:.1}s){}",
            done.len(),
            self.total,
            summary
                .input
                .strip_prefix(&cwd)
                .unwrap_or(&summary.input)
                .display(),
            summary.status.as_str(),
            match (summary.size_after, summary.tests) {
                (Some(after), Some(tests)) =>
                    format!(", {} -> {after} bytes, {tests} tests", summary.size_before),
                _ => String::new(),
            },
            summary.seconds,
            summary
                .detail
                .as_ref()
                .map_or_else(String::new, |d| format!(": {d}")),
        );
        self.bar.suspend(|| errln!("{line}"));
        self.bar.inc(1);
        self.bar.set_message(Self::message(&done, running));
    }

    fn finish(&self) {
        self.bar.finish_and_clear();
    }
}

/// A running local reduction.
struct Running {
    item: Item,
    child: Child,
    started: Instant,
}

/// Runs the reductions on this machine, `--reductions` at once, each `whittle reduce` in its
/// own process group (a stop reaches each once; each ends when this process dies).
fn run_local(
    args: &BatchArgs,
    items: &[Item],
    work: &Path,
    whittle: &Path,
    progress: &Progress,
) -> Vec<Summary> {
    let at_once = args.reductions.unwrap_or_else(|| {
        let cpus = std::thread::available_parallelism().map_or(1, |n| n.get());
        (cpus / args.jobs.max(1)).max(1)
    });
    let stopping = Arc::new(AtomicBool::new(false));
    // The process groups of the running reductions: a stop signals them under this lock, and
    // none starts after a stop (it is taken to start one).
    let groups: Arc<Mutex<Vec<i32>>> = Arc::default();
    let _on_signal = whittle_core::exec::signals::on_signal({
        let (stopping, groups) = (stopping.clone(), groups.clone());
        move || {
            let groups = groups.lock().unwrap_or_else(PoisonError::into_inner);
            stopping.store(true, Ordering::SeqCst);
            for &pgid in groups.iter() {
                let _ = killpg(Pid::from_raw(pgid), Signal::SIGTERM);
            }
        }
    });
    let mut pending: VecDeque<&Item> = items.iter().collect();
    let mut running: Vec<Running> = Vec::new();
    let mut summaries: Vec<Option<Summary>> = vec![None; items.len()];
    loop {
        while running.len() < at_once
            && let Some(item) = pending.front().copied()
        {
            let mut groups_now = groups.lock().unwrap_or_else(PoisonError::into_inner);
            if stopping.load(Ordering::SeqCst) {
                break;
            }
            pending.pop_front();
            match spawn_reduction(args, work, whittle, item) {
                Ok(child) => {
                    groups_now.push(child.id() as i32);
                    running.push(Running {
                        item: item.clone(),
                        child,
                        started: Instant::now(),
                    });
                }
                Err(error) => {
                    drop(groups_now);
                    let mut summary = summarize(work, item, None, 0.0);
                    summary.detail = Some(format!("cannot start whittle: {error}"));
                    progress.finished(&summary, running.len());
                    summaries[item.index] = Some(summary);
                }
            }
        }
        progress.running(running.len());
        if running.is_empty() {
            break;
        }
        std::thread::sleep(Duration::from_millis(50));
        let mut still = Vec::new();
        for mut reduction in running.drain(..) {
            match reduction.child.try_wait() {
                Ok(None) => still.push(reduction),
                Ok(Some(status)) => {
                    let pgid = reduction.child.id() as i32;
                    groups
                        .lock()
                        .unwrap_or_else(PoisonError::into_inner)
                        .retain(|&g| g != pgid);
                    let exit = status
                        .code()
                        .or_else(|| status.signal().map(|signal| 128 + signal));
                    let summary = summarize(
                        work,
                        &reduction.item,
                        exit,
                        reduction.started.elapsed().as_secs_f64(),
                    );
                    progress.finished(&summary, still.len());
                    summaries[reduction.item.index] = Some(summary);
                }
                Err(_) => still.push(reduction),
            }
        }
        running = still;
    }
    items
        .iter()
        .zip(summaries)
        .map(|(item, summary)| summary.unwrap_or_else(|| not_started(work, item)))
        .collect()
}

fn spawn_reduction(
    args: &BatchArgs,
    work: &Path,
    whittle: &Path,
    item: &Item,
) -> std::io::Result<Child> {
    let log = fs::File::create(log_path(work, item))?;
    let log_err = log.try_clone()?;
    let _ = fs::remove_file(stats_path(work, item));
    let mut command = Command::new(whittle);
    command
        .args(reduce_args(args, work, item))
        .stdin(Stdio::null())
        .stdout(log)
        .stderr(log_err)
        .process_group(0);
    #[cfg(target_os = "linux")]
    {
        let parent = nix::unistd::getpid();
        // SAFETY: only async-signal-safe calls (prctl, getppid, _exit) between fork and exec.
        unsafe {
            command.pre_exec(move || {
                // The reduction ends (as on Ctrl-C: its best result written) when this process
                // dies; and at once when it died already.
                nix::sys::prctl::set_pdeathsig(Signal::SIGTERM).map_err(std::io::Error::from)?;
                if nix::unistd::getppid() != parent {
                    nix::libc::_exit(EXIT_INTERRUPTED);
                }
                Ok(())
            });
        }
    }
    command.spawn()
}

/// Runs the reductions as one Slurm array job (`sbatch --array`), each task a `whittle
/// reduce`, and waits for them.
fn run_slurm(
    args: &BatchArgs,
    items: &[Item],
    work: &Path,
    progress: &Progress,
) -> anyhow::Result<Vec<Summary>> {
    errln!(
        "whittle: checking that a Slurm node sees the work directory {}",
        work.display()
    );
    let executor = whittle_core::exec::slurm::SlurmExecutor::connect(
        &whittle_core::exec::slurm::SlurmOptions::default(),
        work,
    )?;
    let whittle = executor.step_program().to_path_buf();
    for item in items {
        let script = task_script(&whittle, &reduce_args(args, work, item), work, item);
        let path = work.join(format!("task-{}.sh", item.index));
        fs::write(&path, script)
            .map_err(|e| anyhow::anyhow!("cannot write {}: {e}", path.display()))?;
        let _ = fs::remove_file(exit_path(work, item));
        let _ = fs::remove_file(stats_path(work, item));
    }
    let array = work.join("array.sh");
    fs::write(
        &array,
        format!(
            "#!/bin/sh\n# One reduction of a whittle batch per array task.\nexec sh {}/task-\"$SLURM_ARRAY_TASK_ID\".sh\n",
            String::from_utf8_lossy(&shell_quote(work.as_os_str()))
        ),
    )?;
    let mut range = format!("0-{}", items.len() - 1);
    if let Some(at_once) = args.reductions {
        range.push_str(&format!("%{at_once}"));
    }
    let mut sbatch = Command::new(std::env::var_os("WHITTLE_SBATCH").unwrap_or("sbatch".into()));
    sbatch
        .arg("--parsable")
        .arg(format!("--array={range}"))
        .arg("--job-name=whittle-batch")
        .arg("--ntasks=1")
        .arg(format!("--cpus-per-task={}", args.jobs))
        .arg(format!("--output={}/slurm-%A_%a.out", work.display()))
        .arg(format!("--chdir={}", work.display()))
        .args(&args.sbatch_arg)
        .arg(&array)
        .stdin(Stdio::null());
    let submitted = sbatch
        .output()
        .map_err(|e| anyhow::anyhow!("cannot run sbatch: {e}"))?;
    if !submitted.status.success() {
        anyhow::bail!(
            "sbatch refused the array job: {}",
            String::from_utf8_lossy(&submitted.stderr).trim()
        );
    }
    let job = String::from_utf8_lossy(&submitted.stdout)
        .trim()
        .split(';')
        .next()
        .unwrap_or_default()
        .to_owned();
    if job.is_empty() {
        anyhow::bail!("sbatch did not say which job it submitted");
    }
    errln!("whittle: submitted array job {job} ({} tasks)", items.len());
    let stopping = Arc::new(AtomicBool::new(false));
    let _on_signal = whittle_core::exec::signals::on_signal({
        let stopping = stopping.clone();
        move || stopping.store(true, Ordering::SeqCst)
    });
    let started = Instant::now();
    let mut summaries: Vec<Option<Summary>> = vec![None; items.len()];
    let mut cancelled = false;
    loop {
        if stopping.load(Ordering::SeqCst) && !cancelled {
            cancelled = true;
            // The tasks get SIGTERM: each reduction writes its best result and ends.
            let _ = Command::new(std::env::var_os("WHITTLE_SCANCEL").unwrap_or("scancel".into()))
                .arg(&job)
                .stdin(Stdio::null())
                .status();
        }
        let alive = job_alive(&job);
        collect_finished(work, items, &mut summaries, progress, alive);
        if !alive {
            break;
        }
        std::thread::sleep(Duration::from_millis(500));
    }
    // A shared file system may show the last status files a moment late.
    for wait in [200, 1000, 2000] {
        if summaries.iter().all(Option::is_some) {
            break;
        }
        std::thread::sleep(Duration::from_millis(wait));
        collect_finished(work, items, &mut summaries, progress, false);
    }
    let elapsed = started.elapsed().as_secs_f64();
    let summaries: Vec<Summary> = items
        .iter()
        .zip(summaries)
        .map(|(item, summary)| {
            summary.unwrap_or_else(|| {
                let mut summary = summarize(work, item, None, elapsed);
                summary.detail = Some(format!(
                    "the array task ended without an exit status (cancelled before it started, \
                     a failed node, its time limit?): see {}/slurm-{job}_{}.out",
                    work.display(),
                    item.index
                ));
                if cancelled && summary.tests.is_none() {
                    summary.status = Status::NotStarted;
                }
                progress.finished(&summary, 0);
                summary
            })
        })
        .collect();
    Ok(summaries)
}

/// Reads the exit files of the tasks that ended since the last look.
fn collect_finished(
    work: &Path,
    items: &[Item],
    summaries: &mut [Option<Summary>],
    progress: &Progress,
    alive: bool,
) {
    for item in items {
        if summaries[item.index].is_some() {
            continue;
        }
        let Ok(text) = fs::read_to_string(exit_path(work, item)) else {
            continue;
        };
        let mut fields = text.split_whitespace();
        let code = fields.next().and_then(|c| c.parse::<i32>().ok());
        let seconds = fields
            .next()
            .and_then(|s| s.parse::<f64>().ok())
            .unwrap_or(0.0);
        let summary = summarize(work, item, code, seconds);
        let running = if alive { 1 } else { 0 };
        progress.finished(&summary, running);
        summaries[item.index] = Some(summary);
    }
    progress.running(summaries.iter().filter(|s| s.is_none()).count());
}

/// Whether Slurm still knows the job (some task pending or running).
fn job_alive(job: &str) -> bool {
    let listed = Command::new(std::env::var_os("WHITTLE_SQUEUE").unwrap_or("squeue".into()))
        .arg("--noheader")
        .arg("--format=%i")
        .arg(format!("--jobs={job}"))
        .stdin(Stdio::null())
        .stderr(Stdio::null())
        .output();
    match listed {
        Ok(listed) if listed.status.success() => !listed.stdout.trim_ascii().is_empty(),
        // squeue fails for a job that has left the controller's memory.
        Ok(_) => false,
        // No squeue: nothing can be followed.
        Err(_) => false,
    }
}

/// The script of one array task: runs the reduction, passes a stop (SIGTERM from `scancel` or
/// the time limit) on to it, and writes its exit status and time.
fn task_script(whittle: &Path, argv: &[OsString], work: &Path, item: &Item) -> Vec<u8> {
    let mut command = shell_quote(whittle.as_os_str());
    for arg in argv {
        command.push(b' ');
        command.extend(shell_quote(arg));
    }
    let log = shell_quote(log_path(work, item).as_os_str());
    let exit = shell_quote(exit_path(work, item).as_os_str());
    let exit_tmp = shell_quote(work.join(format!("{}.exit.tmp", item.index)).as_os_str());
    let mut script = format!(
        "#!/bin/sh\n# Reduction {} of a whittle batch.\nstart=$(date +%s)\n",
        item.index
    )
    .into_bytes();
    script.extend(command);
    script.extend(b" >");
    script.extend(&log);
    script.extend(b" 2>&1 </dev/null &\npid=$!\n");
    script.extend(b"trap 'kill -TERM $pid 2>/dev/null' TERM INT HUP\n");
    script.extend(b"wait $pid; code=$?\n");
    script.extend(b"while kill -0 $pid 2>/dev/null; do wait $pid; code=$?; done\n");
    script.extend(b"echo \"$code $(( $(date +%s) - start ))\" >");
    script.extend(&exit_tmp);
    script.extend(b" && mv ");
    script.extend(&exit_tmp);
    script.push(b' ');
    script.extend(&exit);
    script.extend(b"\nexit $code\n");
    script
}

/// `value` quoted for sh: in single quotes, a `'` as `'\''`; any bytes kept as they are.
fn shell_quote(value: &OsStr) -> Vec<u8> {
    let mut quoted = vec![b'\''];
    for &byte in value.as_bytes() {
        if byte == b'\'' {
            quoted.extend(b"'\\''");
        } else {
            quoted.push(byte);
        }
    }
    quoted.push(b'\'');
    quoted
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
    fn shell_quoting_survives_quotes() {
        assert_eq!(shell_quote(OsStr::new("a b")), b"'a b'");
        assert_eq!(shell_quote(OsStr::new("it's")), b"'it'\\''s'");
    }

    #[test]
    fn the_stamp_is_a_date_and_time() {
        let stamp = utc_stamp();
        assert_eq!(stamp.len(), 15);
        assert_eq!(&stamp[8..9], "-");
        assert!(stamp.starts_with("20"));
    }
}
