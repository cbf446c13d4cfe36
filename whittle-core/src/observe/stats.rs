//! Statistics of a run, as reported at the end and written by `--stats-json`.

use serde::{Deserialize, Serialize};

use crate::exec::cache::CacheStats;

/// Everything counted during a run. Counts are exact in every parallel mode.
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
#[serde(default)]
pub struct Stats {
    /// The algorithm's real runs of the test (cache hits and guard skips excluded; cancelled
    /// runs included), as the papers count them: the checks are not among them.
    pub tests: u64,
    /// Runs of the test on the input and the empty file before the reduction.
    pub checks: u64,
    /// Every run of the test: `tests` + `checks`.
    pub oracle_runs: u64,
    /// Tests that said interesting (checks not counted).
    pub interesting_tests: u64,
    pub cache_hits: u64,
    /// ddmin rounds of the whole run, counted as the papers count their iterations (one per
    /// loop of ddmin₂; not the fixed-point iterations of a stage).
    pub iterations: u64,
    /// Runs killed at the timeout (checks included); those run again are among them.
    pub timeouts: u64,
    /// Tests that timed out under the derived timeout while the machine had slowed down and
    /// ran once more under the grown timeout (each rerun is one of `tests`, its first run one
    /// of `timeouts`): `timeouts` - `timeout_reruns` runs ended unresolved by a timeout.
    pub timeout_reruns: u64,
    /// Runs that crashed themselves (killed by a signal) or could not be started (unresolved;
    /// checks included).
    pub crashes: u64,
    /// Runs that ended without a verdict for a reason outside the test (a job step the
    /// scheduler killed, a failed node): unresolved and not cached.
    pub lost: u64,
    /// All unresolved outcomes of real runs (timeouts, crashes, lost runs and checks included).
    pub unresolved: u64,
    /// Tree candidates the syntax guard rejected without running the test.
    pub guard_skips: u64,
    /// Candidates tested without asking the syntax guard: on a big text its parse cost more
    /// than the tests it saved (see `testing::tester::guard_worth`).
    pub guard_passed_over: u64,
    /// Tree candidates skipped without a test because one of the same shape in the same
    /// neighbourhood had failed (see [`crate::testing::recall`]).
    pub recall_skips: u64,
    /// Candidates that leave a used name undeclared, judged not interesting without a test
    /// (see [`crate::tree::NameIndex`]).
    pub names_skips: u64,
    /// Tests killed before they finished because another candidate won the window (or, for a
    /// speculative test, because the candidate it was made for failed).
    pub cancelled: u64,
    /// Tests that finished but whose outcome the algorithm did not need (tests run ahead whose
    /// candidate never came included).
    pub wasted: u64,
    /// Tests run ahead by idle workers, on candidates the algorithm expected to judge next
    /// (among `tests`; those it then judged count once, as tests of their own step).
    pub ahead: u64,
    /// Speculative tests started: on the candidate judged after one a window predicted to be
    /// interesting, should it be accepted (their ends are among `ahead` or `cancelled`).
    pub speculated: u64,
    /// Sum of the durations of every run (checks included), in seconds.
    pub test_seconds: f64,
    /// Reductions accepted.
    pub accepted: u64,
    pub cache: CacheStats,
    pub cache_peak_entries: u64,
    pub cache_peak_bytes: u64,
    pub input_bytes: u64,
    pub input_lines: u64,
    pub input_nonws_chars: u64,
    pub output_bytes: u64,
    pub output_lines: u64,
    pub output_nonws_chars: u64,
    pub wall_seconds: f64,
    /// test-seconds / wall-seconds.
    pub effective_parallelism: f64,
    /// The parallel mode in force at the end (the UI may change it during the run).
    pub parallel_mode: String,
    /// ν, the split factor in force at the end (the UI may change it during the run).
    pub split_factor: String,
    /// The pipeline that ran (e.g. `hoist+hddh+ddmin`).
    pub algorithm: String,
    pub jobs: usize,
    /// The live switches of the plan (split factor, jobs, parallel mode), in order: the last
    /// one's version is the version that ran last.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub plan_changes: Vec<crate::params::PlanChange>,
    /// Why the run stopped early, if it did.
    pub stopped: Option<String>,
    /// The test command's timeout in seconds, if it had one: a derived one as it was at the
    /// end (it follows the recent tests).
    pub timeout_seconds: Option<f64>,
    /// The timeout was derived from the time of the input's own check (no `--timeout`).
    pub timeout_derived: bool,
    /// How the timeout was derived, when it was (`5x the larger of the input's check and the
    /// median of the last 11 tests + 0.5s`).
    #[serde(default)]
    pub timeout_rule: Option<String>,
    /// Per stage of the pipeline (by name, in the order each first ran): what it cost and what
    /// it removed.
    pub stages: Vec<StageStats>,
    /// The run's course: the best result's size at each moment of [`course_moment_after`] (1,
    /// 2, 5, 10, 20 and 30 s of running time, then each whole minute), and last where the run
    /// is now (at the end: where it ended).
    pub course: Vec<CoursePoint>,
    /// Every run of a stage of a `(a+b+c)*` schedule, in order: why it ran where it did, its
    /// yield, and the time left the schedule estimated as it began.
    pub schedule: Vec<ScheduledRun>,
}

/// One run of a stage of a schedule.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct ScheduledRun {
    pub round: u32,
    /// Its place in the round's order (1-based).
    pub position: usize,
    pub stage: String,
    /// Why it ran there (`as written`, `by yield`, `probation`, `deferred`, `to the end`).
    pub why: String,
    /// Its start in running time.
    pub started_seconds: f64,
    pub tests: u64,
    pub bytes_removed: u64,
    pub nonws_removed: u64,
    /// Bytes and non-whitespace characters removed per test.
    pub bytes_per_test: f64,
    pub nonws_per_test: f64,
    /// Its budget of failed tests ran out (it was deferred).
    pub interrupted: bool,
    /// The running time the whole schedule was estimated to need still when the stage began,
    /// and how many stages of the round that estimate guessed (they had never run to their
    /// end: a test a line).
    pub eta_seconds: f64,
    pub eta_guessed_stages: usize,
    /// Its running time.
    pub seconds: f64,
}

/// How often the run's course is noted past its first minute: once a minute of running time
/// (pauses excluded).
const COURSE_INTERVAL: std::time::Duration = std::time::Duration::from_secs(60);

/// The moments of running time the course is noted at in a run's first minute (most runs end
/// within it), then each minute.
const FIRST_MOMENTS: [u64; 7] = [1, 2, 5, 10, 20, 30, 60];

/// The moment of running time after `moment` at which the course is noted next.
pub fn course_moment_after(moment: std::time::Duration) -> std::time::Duration {
    FIRST_MOMENTS
        .iter()
        .map(|&seconds| std::time::Duration::from_secs(seconds))
        .find(|&next| next > moment)
        .unwrap_or(moment + COURSE_INTERVAL)
}

/// Where a tester's course sits in its run's: a case's file session notes the whole set's
/// course, from the case's start, after the tests of the testers before it.
#[derive(Clone, Copy, Debug)]
pub struct CourseFrame {
    /// When the run began: its moments count from there (pauses excluded).
    pub started: std::time::Instant,
    /// The next moment of the run's course to note.
    pub next: std::time::Duration,
    /// Tests run before this tester.
    pub tests: u64,
    /// The size of the rest of what the best is part of (the other files of the set).
    pub bytes: u64,
    pub nonws_chars: u64,
    /// The bytes and non-whitespace characters the best stands for (a files phase's best is a
    /// bundle of the set: its files' contents).
    pub sizes_of_best: fn(&[u8]) -> (u64, u64),
}

/// The best result at one moment of a run.
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct CoursePoint {
    /// Running time, pauses excluded.
    pub seconds: f64,
    /// Real runs of the test by then.
    pub tests: u64,
    pub bytes: u64,
    pub nonws_chars: u64,
}

/// What one stage of a pipeline did, summed over all its runs.
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
#[serde(default)]
pub struct StageStats {
    pub name: String,
    pub runs: u64,
    /// Real runs of the test during the stage.
    pub tests: u64,
    pub bytes_removed: u64,
    pub nonws_removed: u64,
    pub seconds: f64,
    /// Edits not tried because they failed before with the same neighbourhood (in a case of
    /// several files, those a file's held recall skipped too), or because the syntax guard
    /// rejected them while the stage skipped.
    pub skipped: u64,
    /// Tests of the stage whose verdicts the algorithm did not need (see [`Stats::wasted`]).
    pub wasted: u64,
}

impl Stats {
    /// Sets the run's wall time so far, and the effective parallelism it gives.
    pub fn set_wall_seconds(&mut self, seconds: f64) {
        self.wall_seconds = seconds;
        if seconds > 0.0 {
            self.effective_parallelism = self.test_seconds / seconds;
        }
    }

    /// Adds one run of stage `name` to its statistics.
    pub fn record_stage(&mut self, name: &str, run: StageStats) {
        let index = match self.stages.iter().position(|stage| stage.name == name) {
            Some(index) => index,
            None => {
                self.stages.push(StageStats {
                    name: name.to_owned(),
                    ..StageStats::default()
                });
                self.stages.len() - 1
            }
        };
        let stage = &mut self.stages[index];
        stage.runs += 1;
        stage.tests += run.tests;
        stage.bytes_removed += run.bytes_removed;
        stage.nonws_removed += run.nonws_removed;
        stage.seconds += run.seconds;
        stage.skipped += run.skipped;
        stage.wasted += run.wasted;
    }
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use super::*;

    #[test]
    fn the_course_is_noted_often_in_the_first_minute_then_each_minute() {
        let mut moment = Duration::ZERO;
        let mut moments = Vec::new();
        while moment < Duration::from_secs(180) {
            moment = course_moment_after(moment);
            moments.push(moment.as_secs());
        }
        assert_eq!(moments, [1, 2, 5, 10, 20, 30, 60, 120, 180]);
    }
}
