//! Reduction runs: the settings, the line/char/token passes of ddmin (each to its fixed point,
//! DDMIN*), and the whole job on a file: initial checks, output kept up to date, final report.

use std::path::Path;
use std::sync::Arc;
use std::time::Duration;

use serde::Serialize;

use crate::atoms::{self, AtomKind};
use crate::cache::{CachePolicy, UnitId};
use crate::control::{Control, SplitFactor, Stop};
use crate::dd::{self, DdOptions, TextDomain};
use crate::engine::{Pins, StageContext, Stages};
use crate::events::{Branch, Candidate, CandidateKind, Event};
use crate::oracle::{Oracle, Verdict};
use crate::outcome::Outcome;
use crate::output::ResultFile;
use crate::pipeline::Pipeline;
use crate::pipeline::{PipelineStages, pipeline_of};
use crate::stats::Stats;
use crate::tester::{Limits, Tester};

/// Everything that decides how a reduction runs.
#[derive(Clone, Debug, Serialize)]
pub struct Settings {
    /// The ddmin passes, in order (e.g. lines then characters).
    pub atoms: Vec<AtomKind>,
    pub split_factor: SplitFactor,
    pub dd: DdOptions,
    /// Iterate each pass to its fixed point (DDMIN*) instead of running it once.
    pub fixpoint: bool,
    pub cache: CachePolicy,
    /// The most memory the outcome cache may take, in bytes (its estimate; the largest
    /// candidates are evicted first).
    pub cache_memory: usize,
    pub jobs: usize,
    #[serde(skip)]
    pub limits: Limits,
    /// The pipeline (`-a`); `None`: the default for the language.
    pub algorithm: Option<Pipeline>,
    /// The input's language (a name `whittle languages` lists); `None`: unknown.
    pub language: Option<String>,
    /// Skip tree candidates that re-parse with new syntax errors (tree pipelines only).
    pub syntax_guard: bool,
}

impl Default for Settings {
    fn default() -> Self {
        Settings {
            atoms: vec![AtomKind::Line, AtomKind::Char],
            split_factor: SplitFactor::Finite(2),
            dd: DdOptions::default(),
            fixpoint: true,
            cache: CachePolicy::recommended(),
            cache_memory: crate::cache::DEFAULT_MEMORY_LIMIT,
            jobs: 1,
            limits: Limits::default(),
            algorithm: None,
            language: None,
            syntax_guard: true,
        }
    }
}

/// One ddmin pass over `atom` units of the tester's current best, to its fixed point unless
/// `settings.fixpoint` is off. Units overlapping a pin stay in every candidate.
pub fn run_ddmin_pass(
    tester: &mut Tester,
    settings: &Settings,
    atom: AtomKind,
    pins: &Pins,
) -> Result<(), Stop> {
    let stage = format!("ddmin {atom}");
    let text = tester.best().to_vec();
    let spans = atoms::split(&text, atom);
    let pinned = pins.pinned_units(&spans);
    let mut config: Vec<UnitId> = (0..spans.len() as UnitId)
        .filter(|unit| pinned.binary_search(unit).is_err())
        .collect();
    let domain = TextDomain::new(&text, spans).with_pinned(pinned);
    tester.begin_universe();
    for iteration in 1.. {
        tester.emit(Event::FixpointIteration {
            stage: stage.clone(),
            iteration,
        });
        let before = config.len();
        config = dd::ddmin(&domain, config, tester, &settings.dd)?;
        if config.len() == before || !settings.fixpoint {
            break;
        }
    }
    Ok(())
}

/// How a reduction of a file ended.
pub struct Finished {
    pub result: Vec<u8>,
    pub stats: Stats,
    pub stopped: Option<Stop>,
    /// The empty file was interesting: the test is probably too permissive.
    pub empty_is_interesting: bool,
    /// The re-test of the final result said it is not interesting (a flaky test); the result
    /// is the last one that was confirmed instead.
    pub flaky: Option<Flaky>,
}

/// The final result did not pass its re-test.
#[derive(Clone, Debug)]
pub struct Flaky {
    /// The size of the result that failed its re-test.
    pub unconfirmed_size: usize,
    /// What the re-test said.
    pub status: String,
    /// Whether an earlier result passed its re-test and became the result (else the result
    /// is the one that failed, for want of anything confirmed).
    pub fell_back: bool,
}

/// Why a reduction could not start.
#[derive(Debug, thiserror::Error)]
pub enum StartError {
    #[error("the input is not interesting: the test reported {status} on it")]
    NotInteresting {
        verdict: Box<Verdict>,
        status: String,
    },
    #[error("stopped before the input was checked: {0}")]
    Stopped(Stop),
}

/// What the checks before the reduction found.
#[derive(Clone, Debug, Default)]
pub struct Checked {
    /// The empty file was interesting (and became the result).
    pub empty_is_interesting: bool,
    /// The run was stopped after the input was found interesting (during the check of the
    /// empty file): the input is the result.
    pub stopped: Option<Stop>,
}

/// A file reduction: the input, where the result goes, the test and the settings.
pub struct Job {
    pub input: Vec<u8>,
    /// Where the result is written (`None`: it is kept in memory only).
    pub output: Option<Arc<ResultFile>>,
    /// Start from this instead of the input (an earlier run's result that the output holds,
    /// with `--resume`); it must be interesting too.
    pub start: Option<Vec<u8>>,
    pub settings: Settings,
}

impl Job {
    /// A job on `input` whose result is kept in memory only.
    pub fn new(input: Vec<u8>, settings: Settings) -> Self {
        Job {
            input,
            output: None,
            start: None,
            settings,
        }
    }

    /// The result goes to `output`.
    pub fn writing_to(mut self, output: Arc<ResultFile>) -> Self {
        self.output = Some(output);
        self
    }

    /// What the reduction starts from: the input, or what it resumes.
    pub fn start_text(&self) -> &[u8] {
        self.start.as_deref().unwrap_or(&self.input)
    }

    /// Builds the tester for this job; every accepted reduction is written to the output.
    pub fn tester(&self, oracle: Arc<dyn Oracle>, control: Arc<Control>) -> anyhow::Result<Tester> {
        let mut tester = Tester::new(oracle, self.settings.cache, control);
        tester.set_cache_memory(self.settings.cache_memory);
        tester.set_jobs(self.settings.jobs)?;
        tester.set_limits(self.settings.limits);
        tester.stats_mut().parallel_mode = self.settings.dd.parallel.to_string();
        tester.stats_mut().algorithm = pipeline_of(&self.settings).to_string();
        if let Some(output) = &self.output {
            let output = output.clone();
            tester.set_improvement_sink(Some(Box::new(move |improvement| {
                output.write(improvement.content)
            })));
        }
        Ok(tester)
    }

    /// The preflight checks: the starting point (the input, or what is resumed) must be
    /// interesting (it becomes the current best and is written to the output); the empty file
    /// is tried once, and when it is interesting it becomes the result at once.
    pub fn preflight(&self, tester: &mut Tester, try_empty: bool) -> Result<Checked, StartError> {
        let initial = Candidate::single(CandidateKind::Initial);
        let start = self.start_text();
        let (outcome, verdict) = tester
            .preflight(initial, start)
            .map_err(StartError::Stopped)?;
        if outcome != Outcome::Interesting {
            let verdict = verdict.unwrap_or(Verdict {
                outcome,
                status: crate::oracle::TestStatus::Predicate,
                duration: Duration::ZERO,
                output_tail: None,
                node: None,
            });
            return Err(StartError::NotInteresting {
                status: verdict.status.to_string(),
                verdict: Box::new(verdict),
            });
        }
        tester.set_best(start.to_vec());
        if self.start.is_none() {
            // A resumed result is on disk already.
            self.write_output(start);
        }
        let mut checked = Checked::default();
        if start.is_empty() || !try_empty {
            return Ok(checked);
        }
        let empty = Candidate::single(CandidateKind::Empty);
        match tester.preflight(empty, b"") {
            Ok((Outcome::Interesting, _)) => {
                tester.accept(Vec::new(), None, Branch::ReduceToSubset, empty);
                checked.empty_is_interesting = true;
            }
            Ok(_) => {}
            Err(Stop::Switched) => return Err(StartError::Stopped(Stop::Switched)),
            Err(stop) => checked.stopped = Some(stop),
        }
        Ok(checked)
    }

    /// Checks the input, then runs the whole pipeline of the settings synchronously, without a
    /// session (the stages are the ones a session runs).
    pub fn run(&self, tester: &mut Tester) -> Result<Finished, StartError> {
        let checked = self.preflight(tester, true)?;
        let stopped = if checked.stopped.is_some() {
            checked.stopped
        } else if checked.empty_is_interesting {
            None
        } else {
            let stages = PipelineStages::from_settings(&self.settings);
            run_all_stages(&stages, tester, &StageContext::default()).err()
        };
        Ok(self.finish(tester, stopped, checked.empty_is_interesting))
    }

    /// Writes `content` to the output file (see [`ResultFile::write`]).
    pub fn write_output(&self, content: &[u8]) {
        if let Some(output) = &self.output {
            output.write(content);
        }
    }

    /// The result and statistics of a run that ended.
    pub fn finish(
        &self,
        tester: &Tester,
        stopped: Option<Stop>,
        empty_is_interesting: bool,
    ) -> Finished {
        let result = tester.best().to_vec();
        let mut stats = tester.stats();
        fill_sizes(&mut stats, &self.input, &result);
        stats.stopped = stopped.as_ref().map(|s| s.to_string());
        Finished {
            result,
            stats,
            stopped,
            empty_is_interesting,
            flaky: None,
        }
    }
}

/// Runs every stage in order, reporting each start.
pub fn run_all_stages(
    stages: &dyn Stages,
    tester: &mut Tester,
    context: &StageContext,
) -> Result<(), Stop> {
    for index in 0..stages.len() {
        tester.emit(Event::StageStarted {
            stage: stages.name(index),
            index,
        });
        stages.run(index, tester, context)?;
    }
    Ok(())
}

/// Records the sizes of input and output in the statistics.
pub fn fill_sizes(stats: &mut Stats, input: &[u8], output: &[u8]) {
    stats.input_bytes = input.len() as u64;
    stats.input_lines = atoms::line_count(input) as u64;
    stats.input_nonws_chars = atoms::non_whitespace_chars(input) as u64;
    stats.output_bytes = output.len() as u64;
    stats.output_lines = atoms::line_count(output) as u64;
    stats.output_nonws_chars = atoms::non_whitespace_chars(output) as u64;
}

/// Reads the input file, refusing what whittle cannot handle.
pub fn read_input(path: &Path) -> anyhow::Result<Vec<u8>> {
    let metadata = std::fs::metadata(path)
        .map_err(|e| anyhow::anyhow!("cannot read {}: {e}", path.display()))?;
    if !metadata.is_file() {
        anyhow::bail!("{} is not a regular file", path.display());
    }
    if metadata.len() >= u32::MAX as u64 {
        anyhow::bail!("{} is too large (4 GiB or more)", path.display());
    }
    std::fs::read(path).map_err(|e| anyhow::anyhow!("cannot read {}: {e}", path.display()))
}
