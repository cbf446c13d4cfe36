//! The whole job on a file: initial checks, output kept up to date, the result and statistics
//! at the end.

use std::path::Path;
use std::sync::Arc;
use std::time::Duration;

use crate::engine::pipeline::{PipelineStages, Plan, Settings, StageContext, run_all_stages};
use crate::exec::oracle::{Oracle, Verdict};
use crate::observe::events::{Branch, Candidate, CandidateKind};
use crate::observe::stats::Stats;
use crate::outcome::Outcome;
use crate::output::ResultFile;
use crate::testing::control::{Control, Stop};
use crate::testing::tester::Tester;
use crate::text::atoms;

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

/// How many of the newest earlier results a flaky run keeps (all of them) and re-tests first
/// when a result fails its re-test; older ones are kept ever sparser ([`kept_for_fallback`]),
/// the start last.
pub const FLAKY_LOOKBACK: u64 = 8;

/// How many times a run goes on reducing from an earlier result after its result failed a
/// re-test (a flaky test).
pub const MAX_GOING_BACK: u32 = 2;

/// Whether a flaky run falls back to its earlier result numbered `number` (the first 0) when
/// the newest is numbered `newest`: the newest [`FLAKY_LOOKBACK`] all, older ones ever sparser
/// (of those between 2^k and 2^(k+1) results back, about one), so that a result accepted on a
/// lucky run long ago is got behind in a few re-tests, not one per result.
pub fn kept_for_fallback(newest: u64, number: u64) -> bool {
    let back = newest - number;
    back < FLAKY_LOOKBACK || number.is_multiple_of((back.next_power_of_two() / 2).max(1))
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
    /// Whether the run went on reducing from the result it fell back to (the result is then
    /// what that found, and it passed its own re-test unless another `Flaky` says so).
    pub went_on: bool,
}

/// Why a reduction could not start.
#[derive(Debug, thiserror::Error)]
pub enum StartError {
    #[error("{}", not_interesting(verdict, status))]
    NotInteresting {
        verdict: Box<Verdict>,
        status: String,
    },
    #[error("stopped before the input was checked: {0}")]
    Stopped(Stop),
}

/// Why the input was not found interesting: the test said so, or it could not even start.
fn not_interesting(verdict: &Verdict, status: &str) -> String {
    match &verdict.status {
        crate::exec::oracle::TestStatus::SpawnFailed(why) => format!(
            "the test could not be started ({why}): check the test command (chmod +x, `./` \
             before a program of the current directory, a script's `#!` line)"
        ),
        _ => format!("the input is not interesting: the test reported {status} on it"),
    }
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

/// A file reduction: the input, where the result goes, and the plan (the test comes with the
/// tester).
pub struct Job {
    pub input: Vec<u8>,
    /// Where the result is written (`None`: it is kept in memory only).
    pub output: Option<Arc<ResultFile>>,
    /// Start from this instead of the input (an earlier run's result that the output holds,
    /// with `--resume`); it must be interesting too.
    pub start: Option<Vec<u8>>,
    /// How it runs, resolved once from the settings.
    pub plan: Plan,
}

impl Job {
    /// A job on `input` with the plan `settings` resolve to, whose result is kept in memory
    /// only.
    pub fn new(input: Vec<u8>, settings: Settings) -> Self {
        Job::planned(input, settings.resolve())
    }

    /// A job on `input` that runs `plan`, whose result is kept in memory only.
    pub fn planned(input: Vec<u8>, plan: Plan) -> Self {
        Job {
            input,
            output: None,
            start: None,
            plan,
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

    /// Builds the tester for this job, with a control whose knobs start at the plan's; every
    /// accepted reduction is written to the output.
    pub fn tester(&self, oracle: Arc<dyn Oracle>) -> anyhow::Result<Tester> {
        let control = Arc::new(Control::with_max_jobs(self.plan.knobs, oracle.max_jobs()));
        let mut tester = Tester::new(oracle, self.plan.cache, control);
        tester.set_cache_memory(self.plan.cache_memory);
        tester.set_lookahead_enabled(self.plan.lookahead);
        tester.adopt_jobs()?;
        tester.set_limits(self.plan.limits);
        tester.stats_mut().algorithm = self.plan.pipeline.to_string();
        if let Some(output) = &self.output {
            let output = output.clone();
            tester.set_improvement_sink(Some(Box::new(move |improvement, report| {
                if let Some(notice) = output.write(improvement.content) {
                    report(notice.into());
                }
            })));
        }
        Ok(tester)
    }

    /// The preflight checks: the starting point (the input, or what is resumed) must be
    /// interesting (it becomes the current best and is written to the output); the empty file
    /// is tried once, and when it is interesting it becomes the result at once.
    pub fn preflight(&self, tester: &mut Tester, try_empty: bool) -> Result<Checked, StartError> {
        let start = self.start_text();
        check_start(tester, start)?;
        tester.set_best(start.to_vec());
        if self.start.is_none() {
            // A resumed result is on disk already.
            self.write_output(start, tester);
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

    /// Checks the input, then runs the whole pipeline of the plan synchronously, without a
    /// session (the stages are the ones a session runs).
    pub fn run(&self, tester: &mut Tester) -> Result<Finished, StartError> {
        let checked = self.preflight(tester, true)?;
        let stopped = if checked.stopped.is_some() {
            checked.stopped
        } else if checked.empty_is_interesting {
            None
        } else {
            let stages = PipelineStages::new(self.plan.clone());
            run_all_stages(&stages, tester, &StageContext::default()).err()
        };
        Ok(self.finish(tester, stopped, checked.empty_is_interesting))
    }

    /// Writes `content` to the output file (see [`ResultFile::write`]); what the user should
    /// be told of it goes with the tester's events.
    pub fn write_output(&self, content: &[u8], tester: &Tester) {
        if let Some(notice) = self
            .output
            .as_ref()
            .and_then(|output| output.write(content))
        {
            tester.emit(notice.into());
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

/// Records the sizes of input and output in the statistics.
pub fn fill_sizes(stats: &mut Stats, input: &[u8], output: &[u8]) {
    stats.input_bytes = input.len() as u64;
    stats.input_lines = atoms::line_count(input) as u64;
    stats.input_nonws_chars = atoms::non_whitespace_chars(input) as u64;
    stats.output_bytes = output.len() as u64;
    stats.output_lines = atoms::line_count(output) as u64;
    stats.output_nonws_chars = atoms::non_whitespace_chars(output) as u64;
}

/// Reads the input file (or an earlier output, named `what` in messages), refusing what whittle
/// cannot handle: anything but a regular file (without blocking on a FIFO), and 4 GiB or more.
pub fn read_input(path: &Path, what: &str) -> anyhow::Result<Vec<u8>> {
    crate::output::read_regular_file(path, what, u32::MAX as u64).map_err(anyhow::Error::msg)
}
/// The check of a run's starting point: it must be interesting (else `NotInteresting` with the
/// test's verdict); the test's timeout is fitted to that check's time, and the statistics say
/// how.
pub(crate) fn check_start(tester: &mut Tester, start: &[u8]) -> Result<(), StartError> {
    let (outcome, verdict) = tester
        .preflight(Candidate::single(CandidateKind::Initial), start)
        .map_err(StartError::Stopped)?;
    if outcome != Outcome::Interesting {
        let verdict = verdict.unwrap_or(Verdict {
            outcome,
            status: crate::exec::oracle::TestStatus::Predicate,
            duration: Duration::ZERO,
            output_tail: None,
            node: None,
            remembered: false,
            timeout_reruns: 0,
        });
        return Err(StartError::NotInteresting {
            status: verdict.status.to_string(),
            verdict: Box::new(verdict),
        });
    }
    if let Some(verdict) = &verdict {
        let fit = tester.oracle().fit_timeout(verdict.duration);
        tester.stats_mut().timeout_derived = fit.is_some();
        tester.stats_mut().timeout_rule = fit.map(|fit| fit.describe().to_owned());
    }
    tester.stats_mut().timeout_seconds = tester.oracle().timeout().map(|t| t.as_secs_f64());
    Ok(())
}
