//! `whittle batch`: many reductions in one campaign, each a headless `whittle reduce` of its
//! own: several at once on this machine, or one per Slurm array task. A progress line while
//! they run, a summary at the end (a table, and JSON); a reduction that fails does not stop the
//! others.

mod local;
mod plan;
mod progress;
mod slurm_array;
mod summary;

use std::ffi::{OsStr, OsString};
use std::os::unix::ffi::OsStrExt;
use std::path::{Path, PathBuf};

use clap::Args;

use super::{EXIT_USAGE, ExecutorKind, ReductionLimits};
use crate::console::errln;
use progress::Progress;

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

    /// With DIR: each subdirectory of DIR (not hidden, not a result of whittle's) is one test
    /// case of several files, reduced as `whittle reduce SUBDIR` does; DIR's own files are not
    /// inputs then. (A manifest's input may be a directory without it.)
    #[arg(long, requires = "dir")]
    pub directories: bool,

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

    // How long each reduction and its tests may run, as for `whittle reduce` (which gets them).
    #[command(flatten)]
    pub limits: ReductionLimits,

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

/// Runs `whittle batch` and returns the exit code: 0 when every reduction ran to its end, 1
/// when one failed, was refused or found its input not interesting, 2 for bad arguments,
/// 130 when stopped.
pub fn run(args: &BatchArgs) -> anyhow::Result<i32> {
    if let Err(error) = whittle_core::exec::signals::install() {
        errln!("whittle: warning: cannot handle Ctrl-C and SIGTERM: {error}");
    }
    let items = match plan::plan(args) {
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
    let work_dir = match plan::make_work_dir(args) {
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
        ExecutorKind::Local => local::run_local(args, &items, &work_dir, &whittle, &progress),
        ExecutorKind::Slurm => match slurm_array::run_slurm(args, &items, &work_dir, &progress) {
            Ok(summaries) => summaries,
            Err(error) => {
                progress.finish();
                errln!("whittle: {error:#}");
                return Ok(EXIT_USAGE);
            }
        },
    };
    progress.finish();
    summary::report(args, work_dir, summaries)
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
    argv.extend(args.limits.forwarded());
    argv.extend(args.reduce_arg.iter().cloned());
    argv.push("--".into());
    argv.extend(item.test.iter().cloned());
    argv
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
    fn shell_quoting_survives_quotes() {
        assert_eq!(shell_quote(OsStr::new("a b")), b"'a b'");
        assert_eq!(shell_quote(OsStr::new("it's")), b"'it'\\''s'");
    }
}
