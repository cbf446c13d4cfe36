//! `whittle reduce`'s arguments, and what they ask for: the engine's settings, the test as an
//! oracle on the chosen executor.

use std::ffi::OsString;
use std::path::PathBuf;
use std::time::Duration;

use clap::{Args, ValueEnum};

use super::{ExecutorKind, choices, theme_name};
use crate::console::errln;
use whittle_core::engine::pipeline::Settings;
use whittle_core::exec::cache::{CacheKind, CachePolicy};
use whittle_core::exec::oracle::CommandOracle;
use whittle_core::params::{
    DdOptions, Direction, ParallelMode, ReduceOrder, SplitFactor, SplitStyle,
};
use whittle_core::testing::tester::Limits;
use whittle_core::text::atoms::AtomKind;

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

/// How long a reduction and each of its tests may run: flags of `whittle reduce` that `whittle
/// batch` takes too and gives to each of its reductions.
#[derive(Debug, Args)]
pub struct ReductionLimits {
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
}

impl ReductionLimits {
    /// The limits given, as arguments of `whittle reduce`.
    pub fn forwarded(&self) -> Vec<OsString> {
        let mut argv = Vec::new();
        if let Some(timeout) = self.timeout {
            argv.push(format!("--timeout={timeout}").into());
        }
        if let Some(limit) = self.limit_time {
            argv.push(format!("--limit-time={limit}").into());
        }
        if let Some(limit) = self.limit_tests {
            argv.push(format!("--limit-tests={limit}").into());
        }
        argv
    }
}

#[derive(Debug, Args)]
#[command(
    after_help = "Exit codes: 0 done (also after a limit), 2 bad usage or an input that is \
not interesting, 1 an error of whittle's own, 130 stopped by Ctrl-C, SIGTERM or SIGHUP, or by q \
in the UI before the reduction ended (q once it is done exits 0). The output holds the best \
result so far in every case.

Several files: `whittle reduce DIR -- TEST` or `whittle reduce a.c a.h -- TEST` reduce the \
files as one test case. Each test runs in a fresh directory holding the whole case: a DIR \
under its own name (the test gets that directory's path), several files each under its file \
name (the test gets the path of the directory holding them, which is also its working \
directory; a C-Vise script that reads `bug.c` from its working directory works as it is). \
Stdin is empty. First the files that can go go (ddmin over whole files), then each file is \
reduced with the pipeline of its own language while the others stay as they are, in rounds \
until a round changes none. Binary files (NUL bytes or invalid UTF-8) are kept or removed \
whole (--binary-lines: reduced as lines). The result is a directory (-o, default \
<name>.whittled beside the input), replaced as a whole at each improvement; --trace names a \
directory of one trace per file session; --stats-json holds the totals and each file's."
)]
pub struct ReduceArgs {
    /// The file to reduce (never modified); a directory, or several files, are reduced as one
    /// test case (see below).
    pub input: PathBuf,

    /// More files of the same test case.
    #[arg(value_name = "MORE-INPUTS")]
    pub more_inputs: Vec<PathBuf>,

    /// With several files: reduce binary files (NUL bytes or invalid UTF-8) as lines too; by
    /// default they are kept or removed whole, never cut.
    #[arg(long)]
    pub binary_lines: bool,

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
    /// `(ddmin:block+ddmin:line)*`): the tree or blocks and lines only, a fraction of the tests
    /// for a larger result; without --timeout, a tighter one (see --timeout).
    #[arg(long, conflicts_with = "algorithm")]
    pub fast: bool,

    /// The input's language for the tree algorithms [default: by the file extension].
    #[arg(long, value_name = "NAME")]
    pub language: Option<String>,

    /// Test tree candidates even when they re-parse with new syntax errors.
    #[arg(long)]
    pub no_syntax_guard: bool,

    /// Workers a window leaves idle do not test ahead the candidates a tree stage judges
    /// next, nor what a sweep judges after a run predicted to pass (tests ahead change no
    /// result; a few are wasted).
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

    #[command(flatten)]
    pub limits: ReductionLimits,

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

/// Durations from the command line are capped here (about 317 years): longer ones mean "never".
const LONGEST_SECONDS: f64 = 1e10;

/// A number of seconds from the command line: non-negative (`inf` and anything past
/// [`LONGEST_SECONDS`] are capped there).
pub(super) fn seconds(value: Option<f64>, what: &str) -> anyhow::Result<Option<Duration>> {
    value
        .map(|secs| {
            if secs.is_nan() || secs < 0.0 {
                anyhow::bail!("{what} must be a non-negative number of seconds, not {secs}");
            }
            Ok(Duration::from_secs_f64(secs.min(LONGEST_SECONDS)))
        })
        .transpose()
}

/// The first 256 bytes of a file (empty when it cannot be read or is no regular file: the
/// input's checks say why later), for what a `#!` line tells of its language.
fn file_head(path: &std::path::Path) -> Vec<u8> {
    whittle_core::output::regular_file_head(path, 256).unwrap_or_default()
}

/// The language of the file at `path`, by its extension or `#!` line; none (the text
/// pipeline, with a note) when its grammar reads several dialects as one and misreads the file
/// throughout (see `Language::reads_as_text`).
fn detected_language(path: &std::path::Path) -> Option<String> {
    use whittle_core::tree::{Detected, Language};
    // Only the files of such a grammar are read whole here.
    let whole = || {
        let content = whittle_core::output::regular_file_head(path, u64::MAX);
        content.unwrap_or_default().into()
    };
    match Language::detect(path, &file_head(path), whole) {
        Detected::Grammar(language) => Some(language.name().to_owned()),
        Detected::AsText(language) => {
            errln!(
                "whittle: note: the {} grammar finds syntax errors throughout {} (a dialect it \
                 does not know?): it is reduced as text; --language {} parses it anyway",
                language.title(),
                path.display(),
                language.name()
            );
            None
        }
        Detected::Unknown => None,
    }
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
            None => detected_language(&self.input),
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
                tests: self.limits.limit_tests,
                time: seconds(self.limits.limit_time, "--limit-time")?,
                ..Limits::default()
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
        settings.resolve().check().map_err(anyhow::Error::msg)?;
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
    pub(super) fn oracle(&self, timeout: Option<Duration>) -> anyhow::Result<CommandOracle> {
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

/// A probability strictly between 0 and 1 (`--initial-probability`).
fn probability(text: &str) -> Result<f64, String> {
    match text.parse::<f64>() {
        Ok(p) if p > 0.0 && p < 1.0 => Ok(p),
        _ => Err(format!(
            "`{text}` is not a probability strictly between 0 and 1"
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cli::{Cli, Subcommand};
    use clap::Parser as _;

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
