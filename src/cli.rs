//! The command line: argument definitions (clap) and dispatch to the subcommands.

mod batch;
mod choices;
mod demo;
mod replay;
mod slurm_step;
mod tree;

use std::ffi::OsString;
use std::io::IsTerminal;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use clap::{Args, Parser, ValueEnum};

use crate::console::{Report, StdoutError, errln};
use whittle_core::engine::job::{Job, StartError};
use whittle_core::engine::pipeline::Settings;
use whittle_core::engine::session::{Command, Session, SessionOptions};
use whittle_core::exec::cache::{CacheKind, CachePolicy};
use whittle_core::exec::oracle::{CommandOracle, Oracle, TimeoutFit};
use whittle_core::params::{
    DdOptions, Direction, ParallelMode, ReduceOrder, SplitFactor, SplitStyle,
};
use whittle_core::testing::control::Stop;
use whittle_core::testing::tester::Limits;
use whittle_core::text::atoms::AtomKind;

/// Exit code: bad usage, or an input that is not interesting to begin with.
pub const EXIT_USAGE: i32 = 2;
/// Exit code: an internal error.
pub const EXIT_ERROR: i32 = 1;
/// Exit code: stopped by Ctrl-C or SIGTERM (the output holds the best result so far).
pub const EXIT_INTERRUPTED: i32 = 130;
/// Exit code: the result is trivial (empty or only whitespace): the test probably accepts too
/// much. The output is written all the same; `--allow-trivial` makes this a success.
pub const EXIT_TRIVIAL: i32 = 3;

/// whittle: shrink a file while an interestingness test keeps saying it is interesting.
#[derive(Debug, Parser)]
#[command(name = "whittle", version, about, long_about = None)]
pub struct Cli {
    #[command(subcommand)]
    pub subcommand: Subcommand,
}

/// What `whittle` is asked to do.
#[derive(Debug, clap::Subcommand)]
#[allow(clippy::large_enum_variant)] // built once per run
pub enum Subcommand {
    /// Reduce INPUT while TEST-COMMAND exits 0 on the candidate (whose path is appended).
    Reduce(ReduceArgs),
    /// Reduce many inputs with one test (a directory of them, or a manifest of inputs and
    /// tests): several at once here, or one per Slurm array task; a summary at the end.
    Batch(batch::BatchArgs),
    /// Reduce a built-in example with a built-in test, showing each step.
    Demo(DemoArgs),
    /// Show a run recorded with `reduce --trace` again, step by step, forwards and backwards
    /// (nothing is tested).
    Replay(ReplayArgs),
    /// Print the preprocessed parse tree of a file (for people who write or debug grammars).
    Tree(TreeArgs),
    /// List the languages whittle can parse.
    Languages,
    /// List the reduction algorithms and the pipelines of the dissertation's Table 7.1.
    Algorithms,
    /// Print a shell completion script for SHELL (bash, zsh, fish, elvish, powershell) on
    /// stdout, e.g. `whittle completions bash > /etc/bash_completion.d/whittle`.
    Completions {
        /// The shell.
        #[arg(value_enum)]
        shell: clap_complete::Shell,
    },
    /// Print whittle's man page (roff) on stdout, e.g. `whittle man > whittle.1`.
    Man,
    /// Runs one test on a Slurm node for `--executor slurm` (not for people).
    #[command(hide = true)]
    SlurmStep(slurm_step::SlurmStepArgs),
}

/// Where the tests run.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, ValueEnum)]
pub enum ExecutorKind {
    /// On this machine, each test in its own process group.
    #[default]
    Local,
    /// Each test a Slurm job step (`srun`): in the current allocation when SLURM_JOB_ID is set
    /// (`salloc`, `sbatch`), else as a job of its own.
    Slurm,
}

/// How the test is given the candidate (`--input-type`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, ValueEnum)]
pub enum InputTypeArg {
    /// The file in the working directory, its path as an argument and its bytes on stdin.
    #[default]
    All,
    /// The file in the working directory and its path as an argument; stdin is empty.
    Arg,
    /// Only the file in the working directory, under the input's name (no argument, empty
    /// stdin): C-Vise and C-Reduce scripts.
    Name,
    /// Only its bytes on stdin (no argument; the file is in the working directory all the same).
    Stdin,
}

impl From<InputTypeArg> for whittle_core::exec::oracle::InputType {
    fn from(value: InputTypeArg) -> Self {
        match value {
            InputTypeArg::All => whittle_core::exec::oracle::InputType::All,
            InputTypeArg::Arg => whittle_core::exec::oracle::InputType::Arg,
            InputTypeArg::Name => whittle_core::exec::oracle::InputType::Name,
            InputTypeArg::Stdin => whittle_core::exec::oracle::InputType::Stdin,
        }
    }
}

#[derive(Debug, Args)]
#[command(
    after_help = "Exit codes: 0 done (also after a limit), 2 bad usage or an input that is \
not interesting, 1 an error of whittle's own, 130 stopped by Ctrl-C, SIGTERM or SIGHUP, or by q \
in the UI before the reduction ended (q once it is done exits 0). The output holds the best \
result so far in every case."
)]
pub struct ReduceArgs {
    /// The file to reduce (never modified).
    pub input: PathBuf,

    /// The interestingness test and its arguments; exit status 0 means interesting. It runs in
    /// a fresh directory holding the candidate under the input's file name; by default (see
    /// --input-type) the candidate's absolute path is appended, or replaces an argument that
    /// is exactly `{}`, and its bytes are on the test's stdin.
    #[arg(last = true, required = true, value_name = "TEST-COMMAND")]
    pub command: Vec<OsString>,

    /// How the test gets the candidate besides the file in its working directory: `all` (its
    /// path as an argument and its bytes on stdin), `arg` (the path only), `name` (nothing
    /// more: the test reads the file by name) or `stdin` (the bytes only).
    #[arg(long, value_enum, default_value_t = InputTypeArg::All, value_name = "TYPE")]
    pub input_type: InputTypeArg,

    /// Cap each test's address space at MIB mebibytes (RLIMIT_AS): a test that needs more
    /// fails to allocate.
    #[arg(long, value_name = "MIB", value_parser = clap::value_parser!(u64).range(1..=1 << 40))]
    pub memory_limit: Option<u64>,

    /// Accept a trivial result (empty or only whitespace) as a success; by default it means
    /// the test accepts too much, and whittle exits with status 3 (the output is written).
    #[arg(long)]
    pub allow_trivial: bool,

    /// Trust the test to judge a file the same way every time: the input is checked once (by
    /// default an interesting check is run three times) and nothing is re-tested to find out
    /// whether the test is flaky (the final result is still re-tested once).
    #[arg(long, conflicts_with = "confirm")]
    pub assume_deterministic: bool,

    /// Confirm every interesting verdict with N runs in all (interesting only when all N
    /// agree), from the start [default: 1, and 3 from the moment the test is found flaky].
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u32).range(1..=100))]
    pub confirm: Option<u32>,

    /// Where the result goes [default: <stem>.whittled<.ext> beside the input]. A regular file
    /// or a new path; when it exists and differs from the input, give --resume or --force.
    #[arg(short, long, value_name = "PATH")]
    pub output: Option<PathBuf>,

    /// When the output exists (an earlier run's result), start from it instead of the input
    /// (it must still be interesting).
    #[arg(long, conflicts_with = "force")]
    pub resume: bool,

    /// When the output exists and differs from the input, start over from the input anyway (the
    /// existing output is replaced only by a result no larger than it); --trace and
    /// --stats-json may then replace a file that is not a trace or statistics of whittle.
    #[arg(long)]
    pub force: bool,

    /// The algorithm: stages joined with `+`, run in order (e.g. `hoist+hddh+ddmin`; see
    /// `whittle algorithms`) [default: a tree pipeline when the language is known, else ddmin].
    #[arg(short, long, value_name = "PIPELINE")]
    pub algorithm: Option<whittle_core::engine::pipeline::Pipeline>,

    /// Without -a: the fast default (`(hddhr-sweep+ddmin:line)*` for a known language, else
    /// `ddmin`): the tree and lines only, a fraction of the tests for a larger result; without
    /// --timeout, a tighter one (see --timeout).
    #[arg(long, conflicts_with = "algorithm")]
    pub fast: bool,

    /// The input's language for the tree algorithms [default: by the file extension].
    #[arg(long, value_name = "NAME")]
    pub language: Option<String>,

    /// Test tree candidates even when they re-parse with new syntax errors.
    #[arg(long)]
    pub no_syntax_guard: bool,

    /// Workers a window leaves idle do not test ahead the candidates a tree stage judges
    /// next (tests ahead change no result; a few are wasted).
    #[arg(long)]
    pub no_lookahead: bool,

    /// Units of the ddmin passes, run in order, each to its fixed point: line, char, token
    /// [default: line,char]. Without `-a`, ddmin runs over them (whatever the language).
    #[arg(long, value_parser = AtomKind::parse_list, value_name = "LIST")]
    pub atoms: Option<std::vec::Vec<AtomKind>>,

    /// The split factor ν of ddmin^ν: an integer ≥ 2, or `inf`.
    #[arg(long, default_value = "2", value_name = "N|inf")]
    pub split_factor: SplitFactor,

    /// How a configuration is cut into chunks.
    #[arg(long, value_parser = choices::split_style(), default_value_t = SplitStyle::Zeller, value_name = "STYLE")]
    pub split: SplitStyle,

    /// Which reduce steps ddmin tries, in which order [default: subsets-first; in a schedule
    /// `(...)*`, such as the default pipeline's, complements-only].
    #[arg(long, value_parser = choices::reduce_order(), value_name = "ORDER")]
    pub order: Option<ReduceOrder>,

    /// Iteration order of the subsets.
    #[arg(long, value_parser = choices::direction(), default_value_t = Direction::Forward, value_name = "DIRECTION")]
    pub subset_order: Direction,

    /// Iteration order of the complements [default: forward; in a schedule `(...)*`, such as the
    /// default pipeline's, backward: later parts go first, and what they used may go after
    /// them in the same round].
    #[arg(long, value_parser = choices::direction(), value_name = "DIRECTION")]
    pub complement_order: Option<Direction>,

    /// Run each pass once instead of iterating it to its fixed point (DDMIN*).
    #[arg(long)]
    pub no_fixpoint: bool,

    /// ProbDD and CDD (`probdd:line`, `hddr-cdd`, ...): every unit's probability of being
    /// needed before the first test.
    #[arg(long, default_value_t = 0.1, value_parser = probability, value_name = "P")]
    pub initial_probability: f64,

    /// ProbDD and CDD: break ties between equally likely units by a shuffle from this seed
    /// (default: by position).
    #[arg(long, value_name = "SEED")]
    pub belief_seed: Option<u64>,

    /// ProbDD and CDD: end with one pass of single-unit removals (1-minimal on monotone tests).
    #[arg(long)]
    pub final_check: bool,

    /// The outcome cache.
    #[arg(long, value_parser = choices::cache_kind(), default_value_t = CacheKind::Hash, value_name = "KIND")]
    pub cache: CacheKind,

    /// Also cache interesting outcomes (by default only the others are stored).
    #[arg(long)]
    pub cache_fail: bool,

    /// Keep cache entries larger than a newly accepted candidate (by default they are evicted).
    #[arg(long)]
    pub no_cache_evict: bool,

    /// The most memory the cache may take, in MiB; past it the entries of the largest
    /// candidates are evicted first.
    #[arg(long, default_value_t = (whittle_core::exec::cache::DEFAULT_MEMORY_LIMIT >> 20) as u64, value_name = "MIB")]
    pub cache_memory: u64,

    /// How many tests run at once (the testing window; at most 4 per CPU, at least 8, at most
    /// 1024; with Slurm at most 1024) [default: the number of CPUs; with Slurm the allocation's
    /// tasks].
    #[arg(short, long, value_name = "N")]
    pub jobs: Option<usize>,

    /// Where the tests run: on this machine, or each as a Slurm job step.
    #[arg(long, value_enum, default_value = "local", value_name = "local|slurm")]
    pub executor: ExecutorKind,

    /// Where candidates and run directories go (a private directory is made inside). With
    /// Slurm it must be on a file system the nodes share (checked at the start) [default: the
    /// system's temporary directory; with Slurm the current directory].
    #[arg(long, value_name = "DIR")]
    pub scratch_dir: Option<PathBuf>,

    /// An extra argument for every `srun` (a partition, an account, `--cpus-per-task=4`...);
    /// repeat it for several.
    #[arg(long, value_name = "ARG", allow_hyphen_values = true)]
    pub srun_arg: Vec<OsString>,

    /// How a window of parallel tests is decided [default: stable; greedy when the pipeline has
    /// a schedule `(...)*`, as the default pipeline does].
    #[arg(long, value_parser = choices::parallel_mode(), value_name = "MODE")]
    pub parallel: Option<ParallelMode>,

    /// Kill a test (its whole process group) after SECS seconds (more than 0); it counts as
    /// unresolved [default: five times the input's own check, plus half a second; with --fast
    /// three times, plus a tenth].
    #[arg(long, value_name = "SECS")]
    pub timeout: Option<f64>,

    /// Stop after N tests (the output holds the best result so far).
    #[arg(long, value_name = "N")]
    pub limit_tests: Option<u64>,

    /// Stop after SECS seconds (the output holds the best result so far).
    #[arg(long, value_name = "SECS")]
    pub limit_time: Option<f64>,

    /// Write the statistics as JSON to PATH.
    #[arg(long, value_name = "PATH")]
    pub stats_json: Option<PathBuf>,

    /// Record the run in PATH: one JSON line per candidate considered, with what `whittle
    /// replay` needs to show it again.
    #[arg(long, value_name = "PATH")]
    pub trace: Option<PathBuf>,

    /// Check the input, then wait (space runs, n steps) before the first step.
    #[arg(long, conflicts_with = "step")]
    pub paused: bool,

    /// Start in step mode: n tests one candidate, space runs.
    #[arg(long)]
    pub step: bool,

    /// Run without the terminal UI (progress on stderr, report at the end). Without a
    /// terminal on stdout there is no UI anyway.
    #[arg(long)]
    pub no_tui: bool,

    /// The UI's palette: dark, light or high-contrast (NO_COLOR turns colours off).
    #[arg(long, default_value = crate::tui::DEFAULT_THEME, value_name = "NAME", value_parser = theme_name)]
    pub theme: String,

    /// Leave the UI as soon as the reduction ends (by default it stays open on the result).
    #[arg(long)]
    pub exit_when_done: bool,
}

#[derive(Debug, Args)]
pub struct DemoArgs {
    /// List the built-in examples.
    #[arg(long)]
    pub list: bool,
    /// The example to run.
    #[arg(long, default_value = "table-4.1")]
    pub example: String,
    /// Print the steps instead of opening the UI (also when stdout is not a terminal).
    #[arg(long)]
    pub no_tui: bool,
    /// The UI's palette: dark, light or high-contrast.
    #[arg(long, default_value = crate::tui::DEFAULT_THEME, value_name = "NAME", value_parser = theme_name)]
    pub theme: String,
}

#[derive(Debug, Args)]
pub struct ReplayArgs {
    /// The trace a run wrote with `whittle reduce --trace`.
    pub trace: PathBuf,
    /// Open at this step (the candidate with this step number has just been judged).
    #[arg(long, value_name = "N")]
    pub at: Option<u64>,
    /// Play at start, this many steps a second.
    #[arg(long, value_name = "STEPS_PER_SECOND")]
    pub play: Option<f64>,
    /// Print the steps instead of opening the UI (also when stdout is not a terminal).
    #[arg(long)]
    pub no_tui: bool,
    /// The UI's palette: dark, light or high-contrast.
    #[arg(long, default_value = crate::tui::DEFAULT_THEME, value_name = "NAME", value_parser = theme_name)]
    pub theme: String,
}

#[derive(Debug, Args)]
pub struct TreeArgs {
    /// The file to parse.
    pub file: PathBuf,
    /// Language name (default: chosen by the file extension).
    #[arg(long)]
    pub language: Option<String>,
    /// Splice each node's Φ in alone, re-parse, and report how many parse without new errors.
    #[arg(long)]
    pub phi_check: bool,
}

/// A theme of the command line: one of the embedded palettes, checked whether or not the UI
/// opens (a misspelt name is never ignored).
fn theme_name(name: &str) -> Result<String, String> {
    let names = crate::tui::theme_names();
    if names.contains(&name) {
        Ok(name.to_owned())
    } else {
        Err(format!(
            "there is no theme called `{name}` (the themes are: {})",
            names.join(", ")
        ))
    }
}

/// Durations from the command line are capped here (about 317 years): longer ones mean "never".
const LONGEST_SECONDS: f64 = 1e10;

/// A number of seconds from the command line: non-negative (`inf` and anything past
/// [`LONGEST_SECONDS`] are capped there).
fn seconds(value: Option<f64>, what: &str) -> anyhow::Result<Option<Duration>> {
    value
        .map(|secs| {
            if secs.is_nan() || secs < 0.0 {
                anyhow::bail!("{what} must be a non-negative number of seconds, not {secs}");
            }
            Ok(Duration::from_secs_f64(secs.min(LONGEST_SECONDS)))
        })
        .transpose()
}

/// A probability strictly between 0 and 1 (`--initial-probability`).
fn probability(text: &str) -> Result<f64, String> {
    match text.parse::<f64>() {
        Ok(p) if p > 0.0 && p < 1.0 => Ok(p),
        _ => Err(format!(
            "`{text}` is not a probability strictly between 0 and 1"
        )),
    }
}

/// The first 256 bytes of a file (empty when it cannot be read or is no regular file: the
/// input's checks say why later), for what a `#!` line tells of its language.
fn file_head(path: &std::path::Path) -> Vec<u8> {
    whittle_core::output::regular_file_head(path, 256).unwrap_or_default()
}

impl ReduceArgs {
    /// ddmin's options: what the command line says, else `defaults`.
    fn dd_options(&self, defaults: DdOptions) -> DdOptions {
        DdOptions {
            order: self.order.unwrap_or(defaults.order),
            subset_direction: self.subset_order,
            complement_direction: self
                .complement_order
                .unwrap_or(defaults.complement_direction),
            split: self.split,
        }
    }

    /// The engine settings these arguments ask for.
    pub fn settings(&self) -> anyhow::Result<Settings> {
        let jobs = match self.jobs {
            Some(0) => anyhow::bail!("--jobs must be at least 1"),
            Some(jobs) => jobs.min(self.max_jobs()),
            None => match self.executor {
                ExecutorKind::Local => std::thread::available_parallelism().map_or(1, |n| n.get()),
                ExecutorKind::Slurm => whittle_core::exec::slurm::default_jobs(),
            },
        };
        let language = match &self.language {
            Some(name) => Some(
                whittle_core::tree::Language::by_name(name)?
                    .name()
                    .to_owned(),
            ),
            None => whittle_core::tree::Language::for_file(&self.input, &file_head(&self.input))
                .ok()
                .map(|language| language.name().to_owned()),
        };
        let settings = Settings {
            atoms: self
                .atoms
                .clone()
                .unwrap_or_else(|| Settings::default().atoms),
            split_factor: self.split_factor,
            dd: self.dd_options(DdOptions::default()),
            scheduled_dd: self.dd_options(DdOptions::scheduled()),
            belief: whittle_core::params::BeliefOptions {
                initial_probability: self.initial_probability,
                seed: self.belief_seed,
                final_check: self.final_check,
                ..Default::default()
            },
            fixpoint: !self.no_fixpoint,
            cache: CachePolicy {
                kind: self.cache,
                store_interesting: self.cache_fail,
                evict_larger: !self.no_cache_evict,
            },
            cache_memory: usize::try_from(self.cache_memory.saturating_mul(1 << 20))
                .unwrap_or(usize::MAX),
            jobs,
            parallel: self.parallel,
            limits: Limits {
                tests: self.limit_tests,
                time: seconds(self.limit_time, "--limit-time")?,
            },
            // `--atoms` without `-a` asks for ddmin over those atoms.
            algorithm: self.algorithm.clone().or_else(|| {
                self.atoms
                    .is_some()
                    .then(whittle_core::engine::pipeline::Pipeline::ddmin)
            }),
            fast: self.fast,
            language,
            syntax_guard: !self.no_syntax_guard,
            lookahead: !self.no_lookahead,
        };
        whittle_core::engine::pipeline::check(&settings).map_err(anyhow::Error::msg)?;
        Ok(settings)
    }
}

impl ReduceArgs {
    /// `--memory-limit` in bytes.
    fn memory_limit_bytes(&self) -> Option<u64> {
        self.memory_limit.map(|mib| mib.saturating_mul(1 << 20))
    }

    /// The largest testing window of the chosen executor.
    fn max_jobs(&self) -> usize {
        match self.executor {
            ExecutorKind::Local => whittle_core::params::max_jobs(),
            ExecutorKind::Slurm => whittle_core::exec::slurm::MAX_STEPS,
        }
    }

    /// The test command as an oracle running through the chosen executor.
    fn oracle(&self, timeout: Option<Duration>) -> anyhow::Result<CommandOracle> {
        match self.executor {
            ExecutorKind::Local => {
                // What would keep every test from starting is told before any runs.
                if let Some(program) = self.command.first() {
                    whittle_core::exec::oracle::check_program(program)
                        .map_err(|why| anyhow::anyhow!("the test cannot be started: {why}"))?;
                }
                Ok(CommandOracle::new_in(
                    &self.command,
                    &self.input,
                    timeout,
                    self.scratch_dir.as_deref(),
                )?
                .with_input_type(self.input_type.into())
                .with_memory_limit(self.memory_limit_bytes()))
            }
            ExecutorKind::Slurm => {
                let root = match &self.scratch_dir {
                    Some(dir) => dir.clone(),
                    None => std::env::current_dir()?,
                };
                let oracle =
                    CommandOracle::new_in(&self.command, &self.input, timeout, Some(&root))?
                        .with_input_type(self.input_type.into())
                        .with_memory_limit(self.memory_limit_bytes());
                let options = whittle_core::exec::slurm::SlurmOptions {
                    srun_args: self.srun_arg.clone(),
                };
                errln!(
                    "whittle: checking that a Slurm node sees the scratch directory {}",
                    oracle.scratch_dir().display()
                );
                let executor = whittle_core::exec::slurm::SlurmExecutor::connect(
                    &options,
                    oracle.scratch_dir(),
                )?;
                Ok(oracle.with_executor(Box::new(executor)))
            }
        }
    }
}

/// Runs the command line and returns the process exit code.
pub fn main() -> i32 {
    let cli = Cli::parse();
    let result = match &cli.subcommand {
        Subcommand::Reduce(args) => reduce(args),
        Subcommand::Demo(args) => demo::run(args),
        Subcommand::Replay(args) => replay::run(args),
        Subcommand::Tree(args) => {
            tree::tree_command(&args.file, args.language.as_deref(), args.phi_check)
        }
        Subcommand::Languages => tree::languages_command(),
        Subcommand::Algorithms => crate::console::write_out(format_args!(
            "{}",
            whittle_core::engine::pipeline::algorithms_listing()
        ))
        .map(|()| 0)
        .map_err(anyhow::Error::from),
        Subcommand::SlurmStep(args) => Ok(slurm_step::run(args)),
        Subcommand::Batch(args) => batch::run(args),
        Subcommand::Completions { shell } => completions(*shell),
        Subcommand::Man => man_page(),
    };
    match result {
        Ok(code) => code,
        // The reader of stdout went away (`whittle languages | head -1`): the command ends
        // quietly, as Unix tools do.
        Err(error) if stdout_closed(&error) => 0,
        Err(error) => {
            errln!("whittle: error: {error:#}");
            EXIT_ERROR
        }
    }
}

/// `whittle completions SHELL`: the completion script, from the clap definitions.
fn completions(shell: clap_complete::Shell) -> anyhow::Result<i32> {
    use clap::CommandFactory as _;
    let mut script = Vec::new();
    clap_complete::generate(shell, &mut Cli::command(), "whittle", &mut script);
    crate::console::write_out(format_args!("{}", String::from_utf8_lossy(&script)))?;
    Ok(0)
}

/// `whittle man`: the man page (roff), from the clap definitions: the command, then each
/// subcommand's options in a section of their own (`WHITTLE REDUCE`...).
fn man_page() -> anyhow::Result<i32> {
    use clap::CommandFactory as _;
    let command = Cli::command();
    let mut page = Vec::new();
    clap_mangen::Man::new(command.clone()).render(&mut page)?;
    for sub in command.get_subcommands().filter(|sub| !sub.is_hide_set()) {
        let title = format!("whittle {}", sub.get_name());
        let mut options = Vec::new();
        clap_mangen::Man::new(sub.clone()).render_options_section(&mut options)?;
        let options = String::from_utf8_lossy(&options);
        let about = sub
            .get_long_about()
            .or(sub.get_about())
            .map(|about| about.to_string())
            .unwrap_or_default();
        let heading = format!(".SH \"{}\"\n", title.to_uppercase());
        page.extend_from_slice(heading.as_bytes());
        for line in about.lines() {
            // A line starting with `.` or `'` would be a roff request.
            page.extend_from_slice(format!("\\&{line}\n").as_bytes());
        }
        page.extend_from_slice(options.replacen(".SH OPTIONS\n", ".PP\n", 1).as_bytes());
    }
    crate::console::write_out(format_args!("{}", String::from_utf8_lossy(&page)))?;
    Ok(0)
}

/// Whether an error is a write to stdout whose reader went away.
fn stdout_closed(error: &anyhow::Error) -> bool {
    error.chain().any(|cause| {
        cause
            .downcast_ref::<StdoutError>()
            .is_some_and(StdoutError::is_closed)
    })
}

fn usage_error(message: impl std::fmt::Display) -> anyhow::Result<i32> {
    errln!("whittle: {message}");
    Ok(EXIT_USAGE)
}

fn reduce(args: &ReduceArgs) -> anyhow::Result<i32> {
    // First of all: from now on a signal ends the run through the normal path (tests killed,
    // output written, scratch directory and lock removed).
    if let Err(error) = whittle_core::exec::signals::install() {
        errln!("whittle: warning: cannot handle Ctrl-C and SIGTERM: {error}");
    }
    let settings = match args.settings() {
        Ok(settings) => settings,
        Err(error) => return usage_error(error),
    };
    let use_tui = !args.no_tui && std::io::stdout().is_terminal();
    if (args.step || args.paused) && !use_tui {
        return usage_error(
            "--step and --paused wait for keys of the terminal UI; without it (--no-tui, or no \
             terminal) nothing would go on",
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
    let input = match whittle_core::engine::job::read_input(&args.input, "the input") {
        Ok(input) => input,
        Err(error) => return usage_error(error),
    };
    let timeout = match seconds(args.timeout, "--timeout") {
        Ok(Some(Duration::ZERO)) => {
            return usage_error(
                "--timeout must be more than 0 seconds (every test would time out); leave it out \
                 for no timeout",
            );
        }
        Ok(timeout) => timeout,
        Err(error) => return usage_error(error),
    };
    let named_output = args
        .output
        .clone()
        .unwrap_or_else(|| whittle_core::output::default_output_path(&args.input));
    // Through a symbolic link, the file it leads to is written (and locked), not the link.
    let output = match whittle_core::output::resolve_output_link(&named_output) {
        Ok(output) => output,
        Err(error) => {
            return usage_error(format!(
                "the output {} is a symbolic link that cannot be followed: {error}",
                named_output.display()
            ));
        }
    };
    if let Err(error) = check_paths(args, &output) {
        return usage_error(error);
    }
    // Held to the end of the run: the lock file goes when it is dropped.
    let lock = match whittle_core::output::OutputLock::acquire(&output) {
        Ok(lock) => lock,
        Err(error) => return usage_error(error),
    };
    if let Some(pid) = lock.stale_pid() {
        errln!(
            "whittle: a stale lock of process {pid}, which is gone, was removed ({}): that run \
             was killed before it could end",
            lock.path().display()
        );
    }
    let mode = {
        use std::os::unix::fs::PermissionsExt;
        std::fs::metadata(&args.input)
            .ok()
            .map(|m| m.permissions().mode())
    };
    let mut result_file = whittle_core::output::ResultFile::new(&output, mode);
    let mut start = None;
    let existed = output.exists();
    match existing_output(&output, &input) {
        Ok(None) => {}
        Ok(Some(existing)) if args.resume => {
            errln!(
                "whittle: resuming from {} ({} bytes; the input has {} bytes)",
                output.display(),
                existing.len(),
                input.len()
            );
            start = Some(existing);
        }
        Ok(Some(existing)) if args.force => {
            result_file = result_file.keeping_smaller_than(existing.len());
        }
        Ok(Some(existing)) => {
            return usage_error(format!(
                "{} exists and is not the input ({} bytes; the input has {}), the result of an \
                 earlier run perhaps: give --resume to continue from it, --force to start over \
                 from the input (it is replaced only by a result no larger), or another --output",
                output.display(),
                existing.len(),
                input.len()
            ));
        }
        Err(error) => return usage_error(error),
    }
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
    let place = oracle.executor().describe();
    let result_file = Arc::new(result_file);
    let resumed = start.is_some();
    let mut job = Job::new(input, settings).writing_to(result_file.clone());
    job.start = start;

    let input_size = job.input.len();
    let job_count = job.settings.jobs;
    let trace = match &args.trace {
        Some(path) => {
            let settings = &job.settings;
            let header = whittle_core::observe::trace::TraceHeader {
                input_name: input_name(&args.input),
                pipeline: whittle_core::engine::pipeline::pipeline_of(settings).to_string(),
                language: whittle_core::engine::pipeline::language_of(settings)
                    .map(|l| l.name().to_owned()),
                jobs: settings.jobs,
                parallel: settings.parallel_mode().to_string(),
                split_factor: settings.split_factor.to_string(),
                stage_count: whittle_core::engine::pipeline::Stages::len(
                    &whittle_core::engine::pipeline::PipelineStages::from_settings(settings),
                ),
                command: Some(oracle.describe()),
                output: Some(output.display().to_string()),
                ..Default::default()
            };
            // A resumed run starts from the earlier result: the replay starts there too.
            match whittle_core::observe::trace::TraceWriter::for_run(path, header, job.start_text())
            {
                Ok(trace) => Some(trace),
                Err(error) => return usage_error(error),
            }
        }
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
    let options = SessionOptions {
        // The UI keeps the session for edits and restarts after the pipeline ends.
        exit_when_done: theme.is_none(),
        start_in_step_mode: args.step,
        start_paused: args.paused,
    };
    let describe = oracle.describe();
    // The oracle is closed here after the run, so that what its cleaning up says is printed.
    // The test as the reduction sees it: the input's check replayed, verdicts re-tested now
    // and then, and confirmed by repeated runs once the test is seen to be flaky.
    let judge = Arc::new(whittle_core::exec::confirm::Confirming::new(
        oracle.clone(),
        whittle_core::exec::confirm::Policy::new(args.confirm, args.assume_deterministic),
    ));
    let session = Session::start_with(job, judge.clone(), options, |tester| {
        tester.set_trace(trace)
    })?;
    let pipeline = session.snapshot().pipeline;
    let mut completed = None;
    let mut _stop_on_signal = None;
    if let Some(theme) = theme {
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
        let (_, _, app) = crate::tui::terminal::run(&session, app)?;
        completed = Some(app.run_model().ending == Some(crate::tui::Ending::Done));
    } else {
        let commands = session.commands();
        _stop_on_signal = Some(whittle_core::exec::signals::on_signal(move || {
            commands.send(Command::Stop)
        }));
    }
    // After the UI, which showed the events so far, only the warnings of the end are printed.
    let progress = match completed {
        None => crate::headless::spawn_progress(session.events().clone(), input_size),
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
    if let Err(warning) = oracle.close() {
        errln!("whittle: warning: {warning}");
    }
    let outcome = EndOfRun {
        output: &result_file,
        existed,
        resumed,
        input_size,
        flakiness: judge.flakiness(),
    };
    conclude(args, outcome, report, completed)
}

/// Refuses, before anything runs, output paths that cannot be written and two paths of a run
/// that name the same file (through symbolic or hard links too): no path whittle writes may be
/// the input, a file of the test (its program or a file among its arguments), another run's
/// output, or (without --force) a file that is not an earlier trace or statistics of whittle.
fn check_paths(args: &ReduceArgs, output: &std::path::Path) -> Result<(), String> {
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
fn existing_output(output: &std::path::Path, input: &[u8]) -> Result<Option<Vec<u8>>, String> {
    if !output.exists() {
        return Ok(None);
    }
    let existing =
        whittle_core::engine::job::read_input(output, "the output").map_err(|e| e.to_string())?;
    Ok((existing != input).then_some(existing))
}

/// What the end of a run needs to know besides the session's report.
struct EndOfRun<'a> {
    output: &'a whittle_core::output::ResultFile,
    /// The output existed before the run.
    existed: bool,
    /// The run started from the existing output.
    resumed: bool,
    input_size: usize,
    /// What was seen of the test's flakiness.
    flakiness: whittle_core::exec::confirm::Flakiness,
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
    report: whittle_core::engine::session::SessionReport,
    completed: Option<bool>,
) -> anyhow::Result<i32> {
    use whittle_core::output::Saved;
    let finished = match report.failure {
        None => report.finished,
        Some(StartError::NotInteresting { verdict, status }) => {
            // Not a verdict on the input: the test never ran.
            if let whittle_core::exec::oracle::TestStatus::SpawnFailed(why) = &verdict.status {
                let program = args.command.first().cloned().unwrap_or_default();
                errln!(
                    "whittle: the test could not be started ({why}): {}; {}.",
                    whittle_core::exec::oracle::explain_spawn_failure(&program, why),
                    outcome.untouched()
                );
                return Ok(EXIT_USAGE);
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
            return Ok(EXIT_USAGE);
        }
        Some(StartError::Stopped(stop)) => {
            let untouched = outcome.untouched();
            return Ok(match stop {
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
            });
        }
    };
    // A result that is empty or only whitespace: the test says interesting where nothing of
    // the input is left.
    let trivial = finished.result.iter().all(u8::is_ascii_whitespace);
    if let Some(flaky) = &finished.flaky {
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
    let mut flakiness = outcome.flakiness.clone();
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
    let mut code = 0;
    if let Some(path) = &args.stats_json {
        let written = serde_json::to_value(&finished.stats)
            .and_then(|mut json| {
                if let Some(fields) = json.as_object_mut() {
                    fields.insert("flakiness".into(), serde_json::to_value(&flakiness)?);
                }
                serde_json::to_vec_pretty(&json)
            })
            .map_err(std::io::Error::other)
            .and_then(|json| whittle_core::output::write_atomically(path, &json, Some(0o644)));
        if let Err(error) = written {
            errln!(
                "whittle: error: cannot write the statistics to {}: {error}",
                path.display()
            );
            code = EXIT_ERROR;
        }
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
    let intended = outcome.output.path();
    let (saved, notice) = outcome.output.finish();
    if let Some(line) = notice.and_then(|notice| crate::headless::message_line(&notice.into())) {
        errln!("{line}");
    }
    let (place, failed_write) = match saved {
        Saved::Best | Saved::Nothing => (intended.to_path_buf(), false),
        Saved::KeptSmaller { existing, best } => {
            let saved = whittle_core::output::save_elsewhere(intended, &best);
            errln!(
                "whittle: {} ({existing} bytes, from before) is smaller than this run's result \
                 ({} bytes) and was kept.",
                intended.display(),
                best.len()
            );
            match saved {
                Ok(place) => (place, false),
                Err(error) => {
                    errln!("whittle: error: cannot save this run's result anywhere: {error}");
                    return Ok(with_stdout(stdout, EXIT_ERROR));
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
                    (place, true)
                }
                Err(error) => {
                    errln!("whittle: error: cannot save the result anywhere: {error}");
                    return Ok(with_stdout(stdout, EXIT_ERROR));
                }
            }
        }
    };
    if failed_write {
        code = EXIT_ERROR;
    }
    let unchanged = if finished.result.len() == outcome.input_size && !outcome.resumed {
        " (the input, unchanged: nothing smaller was found)"
    } else {
        ""
    };
    // Leaving the UI after the pipeline finished stops an idle session: that is no interruption.
    let stopped = match (completed, &finished.stopped) {
        (Some(true), Some(Stop::Requested)) => None,
        (_, stopped) => stopped.as_ref(),
    };
    let code = match stopped {
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
    };
    let code = if trivial && !matches!(stopped, Some(Stop::Requested | Stop::Failed(_))) {
        let what = if finished.result.is_empty() {
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
    } else {
        code
    };
    Ok(with_stdout(stdout, code))
}

/// The exit code of a command that would end with `code` once its lines on stdout are done:
/// a success becomes a failure when stdout could not take them (a full disk; a closed pipe is
/// no failure).
fn with_stdout(stdout: Report, code: i32) -> i32 {
    if stdout.finish() || code != 0 {
        code
    } else {
        EXIT_ERROR
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
fn last_chars(text: &str, limit: usize) -> &str {
    let count = text.chars().count();
    match text.char_indices().nth(count.saturating_sub(limit)) {
        Some((at, _)) if count > limit => &text[at..],
        _ => text,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bad_keywords_are_refused_with_the_values_that_exist() {
        let error = Cli::try_parse_from([
            "whittle",
            "reduce",
            "in.txt",
            "--parallel",
            "fastest",
            "--",
            "test.sh",
        ])
        .unwrap_err()
        .to_string();
        assert!(
            error.contains("[possible values: first, stable, combined, greedy]"),
            "{error}"
        );
        let cli = Cli::try_parse_from([
            "whittle",
            "reduce",
            "in.txt",
            "--order",
            "complements-only",
            "--cache",
            "config",
            "--",
            "test.sh",
        ])
        .unwrap();
        let Subcommand::Reduce(args) = cli.subcommand else {
            panic!("a reduce command");
        };
        assert_eq!(args.order, Some(ReduceOrder::ComplementsOnly));
        assert_eq!(args.cache, CacheKind::Config);
        assert_eq!(args.parallel, None, "the default: by the pipeline");
    }

    #[test]
    fn schedules_take_complements_last_first_unless_told() {
        let settings_of = |extra: &[&str]| {
            let mut argv = vec!["whittle", "reduce", "in.txt"];
            argv.extend_from_slice(extra);
            argv.extend(["--", "test.sh"]);
            let Subcommand::Reduce(args) = Cli::try_parse_from(argv).unwrap().subcommand else {
                panic!("a reduce command");
            };
            args.settings().unwrap()
        };
        let default = settings_of(&[]);
        assert_eq!(default.dd.order, ReduceOrder::SubsetsFirst);
        assert_eq!(default.dd.complement_direction, Direction::Forward);
        assert_eq!(default.scheduled_dd.order, ReduceOrder::ComplementsOnly);
        assert_eq!(
            default.scheduled_dd.complement_direction,
            Direction::Backward
        );
        let told = settings_of(&["--complement-order", "forward", "--order", "subsets-first"]);
        assert_eq!(told.scheduled_dd.complement_direction, Direction::Forward);
        assert_eq!(told.scheduled_dd.order, ReduceOrder::SubsetsFirst);
    }
}
