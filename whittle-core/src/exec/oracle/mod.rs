//! The interestingness test: the [`Oracle`] trait, its verdicts, an in-process predicate, and
//! the user's command ([`CommandOracle`]), which runs in a fresh private directory inside its own
//! process group, killed whole on timeout or cancellation. How the command runs is an
//! [`Executor`]: on this machine ([`LocalExecutor`]) or as a Slurm job step
//! ([`crate::exec::slurm::SlurmExecutor`]).

mod command;
mod executor;
mod program;
mod timeout;

pub use command::{CaseLayout, CommandOracle, InputType, remove_tree};
pub use executor::{Execution, Executor, LocalExecutor, Run, STOP_GRACE};
pub(crate) use executor::{OutputReader, OutputTail};
pub use program::{check_program, explain_spawn_failure};
pub use timeout::{DerivedTimeout, MUCH_SLOWER, RECENT_RUNS, TimeoutFit};

use std::time::{Duration, Instant};

use serde::{Deserialize, Serialize};

pub use crate::exec::processes::CancelToken;
use crate::outcome::Outcome;

/// How much of a test's output is kept (its tail).
pub const OUTPUT_TAIL_BYTES: u64 = 64 * 1024;

/// How a test run ended.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum TestStatus {
    /// The command exited with this code.
    Exited(i32),
    /// The command was killed by this signal (a crash of the test itself).
    Signaled(i32),
    /// The command ran past the timeout; its process group was killed.
    TimedOut,
    /// The run was cancelled (another candidate won its window, or the user stopped).
    Cancelled,
    /// The command could not be started.
    SpawnFailed(String),
    /// whittle could not prepare the run (write the candidate in its scratch directory): an
    /// error of whittle's environment, not of the test.
    ScratchFailed(String),
    /// The run ended without a verdict for a reason outside the test: a job step the scheduler
    /// killed (time limit, preemption), a node that failed, a launcher that could not start
    /// the step. Unresolved, and never cached: the candidate is tested again when it comes up
    /// again.
    Lost(String),
    /// An in-process predicate decided.
    Predicate,
}

impl TestStatus {
    /// What a run of the user's command that ended this way says about the candidate: exit
    /// status 0 is interesting, any other exit status is not, the rest is unresolved.
    pub fn command_outcome(&self) -> Outcome {
        match self {
            TestStatus::Exited(0) => Outcome::Interesting,
            TestStatus::Exited(_) => Outcome::NotInteresting,
            _ => Outcome::Unresolved,
        }
    }
}

impl std::fmt::Display for TestStatus {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            TestStatus::Exited(code) => write!(f, "exit status {code}"),
            TestStatus::Signaled(signal) => write!(f, "killed by signal {signal}"),
            TestStatus::TimedOut => f.write_str("timed out"),
            TestStatus::Cancelled => f.write_str("cancelled"),
            TestStatus::SpawnFailed(why) => write!(f, "could not start: {why}"),
            TestStatus::ScratchFailed(why) => f.write_str(why),
            TestStatus::Lost(why) => write!(f, "lost ({why})"),
            TestStatus::Predicate => f.write_str("in-process predicate"),
        }
    }
}

/// The result of one test run.
#[derive(Clone, Debug)]
pub struct Verdict {
    pub outcome: Outcome,
    pub status: TestStatus,
    pub duration: Duration,
    /// The last [`OUTPUT_TAIL_BYTES`] of what the command printed (stdout and stderr together).
    pub output_tail: Option<String>,
    /// The machine the test ran on, when it ran elsewhere (the Slurm node).
    pub node: Option<String>,
    /// The verdict was remembered, not found by a run of the test (a case of several files
    /// met this whole set before): the tester counts it as a cache hit.
    pub remembered: bool,
    /// How many times the test ran again after timing out under a derived timeout that the
    /// recent tests had since grown (see [`DerivedTimeout::rerun_timeout`]): each is one more
    /// real run, which timed out. `duration` covers all the runs.
    pub timeout_reruns: u32,
}

/// The interestingness test. Implementations must be callable from several threads at once.
pub trait Oracle: Send + Sync {
    /// Judges one candidate. A cancelled run returns [`TestStatus::Cancelled`] promptly.
    fn judge(&self, candidate: &[u8], cancel: &CancelToken) -> Verdict;

    /// One line saying what the test is, for reports.
    fn describe(&self) -> String;

    /// The time limit of one test, if there is one.
    fn timeout(&self) -> Option<Duration> {
        None
    }

    /// Told how long the input's own check took: an oracle that fits its timeout to the test
    /// sets it now (see [`TimeoutFit`] and [`DerivedTimeout`]: from then on the timeout follows
    /// the recent tests) and returns how; others return `None`.
    fn fit_timeout(&self, check: Duration) -> Option<TimeoutFit> {
        let _ = check;
        None
    }

    /// What went wrong around the tests since the last call, that the user should know (a run
    /// directory that could not be removed, say). The tester reports these as warnings.
    fn take_warnings(&self) -> Vec<String> {
        Vec::new()
    }

    /// The most tests that may run at once (the cap of the testing window).
    fn max_jobs(&self) -> usize {
        crate::params::max_jobs()
    }

    /// Whether the test has been found flaky (a file judged both ways); an oracle that
    /// confirms verdicts confirms interesting ones from then on.
    fn found_flaky(&self) -> bool {
        false
    }

    /// A run the oracle wants made on a worker that nothing else needs right now (an oracle
    /// that confirms verdicts re-runs the input's check and spot-checks verdicts there): the
    /// tester asks where a worker is free and runs it there, counted among the busy workers.
    fn idle_work(&self) -> Option<IdleWork> {
        None
    }
}

/// What [`Oracle::idle_work`] hands out: called once, on a worker of its own, with a token
/// that stops it.
pub type IdleWork = Box<dyn FnOnce(&CancelToken) + Send>;

/// A test function in the same process: tests, benchmarks and the demo use it.
pub struct PredicateOracle<F> {
    predicate: F,
    name: String,
}

impl<F: Fn(&[u8]) -> Outcome + Send + Sync> PredicateOracle<F> {
    pub fn new(name: impl Into<String>, predicate: F) -> Self {
        PredicateOracle {
            predicate,
            name: name.into(),
        }
    }
}

/// An in-process oracle from a yes/no predicate (yes = interesting).
pub fn predicate(
    name: impl Into<String>,
    is_interesting: impl Fn(&[u8]) -> bool + Send + Sync,
) -> PredicateOracle<impl Fn(&[u8]) -> Outcome + Send + Sync> {
    PredicateOracle::new(name, move |candidate: &[u8]| {
        if is_interesting(candidate) {
            Outcome::Interesting
        } else {
            Outcome::NotInteresting
        }
    })
}

impl<F: Fn(&[u8]) -> Outcome + Send + Sync> Oracle for PredicateOracle<F> {
    fn judge(&self, candidate: &[u8], _cancel: &CancelToken) -> Verdict {
        let start = Instant::now();
        let outcome = (self.predicate)(candidate);
        Verdict {
            outcome,
            status: TestStatus::Predicate,
            duration: start.elapsed(),
            output_tail: None,
            node: None,
            remembered: false,
            timeout_reruns: 0,
        }
    }

    fn describe(&self) -> String {
        self.name.clone()
    }
}
