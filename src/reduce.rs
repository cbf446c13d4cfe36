//! Reduction runs: the settings, the line/char/token passes of ddmin (each to its fixed point,
//! DDMIN*), and the whole job on a file: initial checks, output kept up to date, final report.

use std::path::{Path, PathBuf};
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
    /// ddmin's options inside a schedule `(...)*` (tree levels, lines, characters): by default
    /// complements only, greedy windows. A schedule reruns its stages to a fixed point, so
    /// most of ddmin's work there is showing that nothing more goes, where subsets never help.
    pub scheduled_dd: DdOptions,
    /// Iterate each pass to its fixed point (DDMIN*) instead of running it once.
    pub fixpoint: bool,
    pub cache: CachePolicy,
    pub jobs: usize,
    #[serde(skip)]
    pub limits: Limits,
    /// The pipeline (`-a`); `None`: the default for the language.
    pub algorithm: Option<Pipeline>,
    /// Without a pipeline: the fast default (no text stages, no schedule).
    pub fast: bool,
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
            scheduled_dd: DdOptions::scheduled(),
            fixpoint: true,
            cache: CachePolicy::recommended(),
            jobs: 1,
            limits: Limits::default(),
            algorithm: None,
            fast: false,
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

/// A file reduction: the input, where the result goes, the test and the settings.
pub struct Job {
    pub input: Vec<u8>,
    pub output: Option<PathBuf>,
    /// Permission bits the output gets (the input's).
    pub output_mode: Option<u32>,
    pub settings: Settings,
}

impl Job {
    /// Builds the tester for this job. Events go to `events` when given.
    pub fn tester(&self, oracle: Arc<dyn Oracle>, control: Arc<Control>) -> anyhow::Result<Tester> {
        let mut tester = Tester::new(oracle, self.settings.cache, control);
        tester.set_jobs(self.settings.jobs)?;
        tester.set_limits(self.settings.limits);
        tester.stats_mut().parallel_mode = self.settings.dd.parallel.to_string();
        tester.stats_mut().algorithm = pipeline_of(&self.settings).to_string();
        if let Some(path) = &self.output {
            let path = path.clone();
            let mode = self.output_mode;
            tester.set_improvement_sink(Some(Box::new(move |improvement| {
                if let Err(error) =
                    crate::output::write_atomically(&path, improvement.content, mode)
                {
                    eprintln!("whittle: warning: cannot write {}: {error}", path.display());
                }
            })));
        }
        Ok(tester)
    }

    /// The preflight checks: the input must be interesting (it becomes the current best and is
    /// written to the output); the empty file is tried once, and when it is interesting it
    /// becomes the result at once. Returns whether the empty file was interesting.
    pub fn preflight(&self, tester: &mut Tester, try_empty: bool) -> Result<bool, StartError> {
        let initial = Candidate::single(CandidateKind::Initial);
        let (outcome, verdict) = tester
            .preflight(initial, &self.input)
            .map_err(StartError::Stopped)?;
        if outcome != Outcome::Interesting {
            let verdict = verdict.unwrap_or(Verdict {
                outcome,
                status: crate::oracle::TestStatus::Predicate,
                duration: Duration::ZERO,
                output_tail: None,
            });
            return Err(StartError::NotInteresting {
                status: verdict.status.to_string(),
                verdict: Box::new(verdict),
            });
        }
        if let Some(verdict) = &verdict {
            let derived = tester.oracle().fit_timeout(verdict.duration).is_some();
            tester.stats_mut().timeout_derived = derived;
        }
        tester.stats_mut().timeout_seconds = tester.oracle().timeout().map(|t| t.as_secs_f64());
        tester.set_best(self.input.clone());
        self.write_output(&self.input);
        if self.input.is_empty() || !try_empty {
            return Ok(false);
        }
        let empty = Candidate::single(CandidateKind::Empty);
        match tester.preflight(empty, b"") {
            Ok((Outcome::Interesting, _)) => {
                tester.accept(Vec::new(), None, Branch::ReduceToSubset, empty);
                Ok(true)
            }
            Ok(_) => Ok(false),
            Err(stop) => Err(StartError::Stopped(stop)),
        }
    }

    /// Checks the input, then runs the whole pipeline of the settings synchronously, without a
    /// session (the stages are the ones a session runs).
    pub fn run(&self, tester: &mut Tester) -> Result<Finished, StartError> {
        let empty_is_interesting = self.preflight(tester, true)?;
        let stopped = if empty_is_interesting {
            None
        } else {
            let stages = PipelineStages::from_settings(&self.settings);
            run_all_stages(&stages, tester, &StageContext::default()).err()
        };
        Ok(self.finish(tester, stopped, empty_is_interesting))
    }

    /// Writes `content` to the output file (atomically), warning when that fails.
    pub fn write_output(&self, content: &[u8]) {
        if let Some(path) = &self.output
            && let Err(error) = crate::output::write_atomically(path, content, self.output_mode)
        {
            eprintln!("whittle: warning: cannot write {}: {error}", path.display());
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
