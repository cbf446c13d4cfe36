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
use crate::events::{CandidateKind, Event};
use crate::oracle::{Oracle, Verdict};
use crate::outcome::Outcome;
use crate::pipeline::{Hooks, Pipeline, pipeline_of, run_pipeline};
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
            jobs: 1,
            limits: Limits::default(),
            algorithm: None,
            language: None,
            syntax_guard: true,
        }
    }
}

/// Runs the ddmin passes of `settings` on the tester's current best.
pub fn run_ddmin_passes(tester: &mut Tester, settings: &Settings) -> Result<(), Stop> {
    for (index, &atom) in settings.atoms.iter().enumerate() {
        run_ddmin_pass(tester, settings, atom, &format!("ddmin {atom}"), index)?;
    }
    Ok(())
}

/// One ddmin pass over `atom` units of the tester's current best (to its fixed point unless
/// the settings say otherwise), reported as stage `stage` number `index`.
pub fn run_ddmin_pass(
    tester: &mut Tester,
    settings: &Settings,
    atom: AtomKind,
    stage: &str,
    index: usize,
) -> Result<(), Stop> {
    tester.emit(Event::StageStarted {
        stage: stage.to_owned(),
        index,
    });
    let text = tester.best().to_vec();
    let domain = TextDomain::new(&text, atoms::split(&text, atom));
    tester.begin_universe();
    let mut config: Vec<UnitId> = (0..domain.unit_count() as UnitId).collect();
    for iteration in 1.. {
        tester.emit(Event::FixpointIteration {
            stage: stage.to_owned(),
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
        if let Some(path) = &self.output {
            let path = path.clone();
            let mode = self.output_mode;
            tester.set_improvement_sink(Some(Box::new(move |best: &[u8]| {
                if let Err(error) = crate::output::write_atomically(&path, best, mode) {
                    eprintln!("whittle: warning: cannot write {}: {error}", path.display());
                }
            })));
        }
        Ok(tester)
    }

    /// Checks the input, then reduces it. The output file is written as soon as the input is
    /// known to be interesting, and again after every improvement.
    pub fn run(&self, tester: &mut Tester) -> Result<Finished, StartError> {
        let initial = crate::events::Candidate::single(CandidateKind::Initial);
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
        tester.set_best(self.input.clone());
        if let Some(path) = &self.output
            && let Err(error) = crate::output::write_atomically(path, &self.input, self.output_mode)
        {
            eprintln!("whittle: warning: cannot write {}: {error}", path.display());
        }

        let mut empty_is_interesting = false;
        let mut stopped = None;
        if !self.input.is_empty() {
            let empty = crate::events::Candidate::single(CandidateKind::Empty);
            match tester.preflight(empty, b"") {
                Ok((Outcome::Interesting, _)) => {
                    empty_is_interesting = true;
                    tester.accept(
                        Vec::new(),
                        None,
                        crate::events::Branch::ReduceToSubset,
                        empty,
                    );
                }
                Ok(_) => {}
                Err(stop) => stopped = Some(stop),
            }
        }
        if stopped.is_none() && !empty_is_interesting {
            stopped = run_pipeline(tester, &self.settings, &Hooks::default()).err();
        }
        let result = tester.best().to_vec();
        let mut stats = tester.stats();
        fill_sizes(&mut stats, &self.input, &result);
        stats.algorithm = pipeline_of(&self.settings).to_string();
        stats.stopped = stopped.as_ref().map(|s| s.to_string());
        Ok(Finished {
            result,
            stats,
            stopped,
            empty_is_interesting,
        })
    }
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
