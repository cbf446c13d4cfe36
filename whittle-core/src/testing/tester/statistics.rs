//! The tester's statistics: the counts of runs and how they ended, the figures read from the
//! cache and the clock, their publication to displays, and the timings that decide whether
//! windows run inline and whether tests run ahead.

use std::sync::Arc;
use std::time::{Duration, Instant};

use crate::exec::oracle::{TestStatus, Verdict};
use crate::observe::stats::{CourseFrame, CoursePoint, Stats, course_moment_after};

use super::Tester;

/// While at least this share of the recent tests passed, no lookahead is used (a test run
/// ahead assumes that the candidates before it fail, and is wasted when one passes) and a free
/// worker tests what follows the acceptance of the candidate under test instead.
const MOSTLY_INTERESTING: f64 = 0.5;

/// The weight of a test's outcome in the recent share of tests that passed.
const RECENT_WEIGHT: f64 = 0.25;

impl Tester {
    /// Notes the outcome of a test of the algorithm's in the recent share of tests that passed
    /// (an exponential mean).
    pub(super) fn note_recent_outcome(&mut self, interesting: bool) {
        let outcome = if interesting { 1.0 } else { 0.0 };
        self.recent_interesting += RECENT_WEIGHT * (outcome - self.recent_interesting);
    }

    /// Whether a lookahead would be used now: tests may run ahead ([`Tester::may_test_ahead`]),
    /// most recent tests failed (see [`MOSTLY_INTERESTING`]), and the engine keeps up with the
    /// workers (preparing a candidate for each worker, render, cache and guard, takes under a
    /// quarter of a test's time; otherwise a test ahead only adds to the engine's work).
    /// Algorithms need not compute one otherwise.
    pub fn wants_lookahead(&self) -> bool {
        if !self.may_test_ahead() || self.mostly_interesting() {
            return false;
        }
        let (Some(preparing), true) = (self.preparing.mean(), self.stats.oracle_runs > 0) else {
            return true;
        };
        let test = self.stats.test_seconds / self.stats.oracle_runs as f64;
        engine_keeps_up(preparing.as_secs_f64(), test, self.control.jobs())
    }

    /// Whether the candidate under test is likely interesting (most recent tests passed) and a
    /// free worker may test what the algorithm judges after accepting it (a window's branch
    /// prediction, see [`super::CandidateSource::predicted_interesting`]). The counterpart of
    /// [`Tester::wants_lookahead`].
    pub fn expects_interesting(&self) -> bool {
        self.may_test_ahead() && self.mostly_interesting()
    }

    /// Whether tests may run ahead at all: they are on, several run at once, and the tests are
    /// not trivial.
    fn may_test_ahead(&self) -> bool {
        self.lookahead_enabled && self.control.jobs() >= 2 && !self.tests_are_trivial()
    }

    /// Whether most recent tests passed (see [`MOSTLY_INTERESTING`]).
    fn mostly_interesting(&self) -> bool {
        self.recent_interesting >= MOSTLY_INTERESTING
    }

    /// The tests run so far (what [`Tester::stats`] counts, without copying the statistics).
    pub fn tests(&self) -> u64 {
        self.stats.tests
    }

    /// The statistics so far (cache figures included).
    pub fn stats(&self) -> Stats {
        let mut stats = self.stats.clone();
        let cache = self.cache.stats();
        stats.cache = cache;
        stats.cache_hits = cache.hits();
        stats.cache_peak_entries = cache.peak_entries;
        stats.cache_peak_bytes = cache.peak_bytes;
        stats.wasted += self.ahead.unclaimed() as u64;
        // The knobs of the plan's latest version, never those it started with.
        stats.parallel_mode = self.control.parallel_mode().to_string();
        stats.split_factor = self.control.split_factor().to_string();
        // A derived timeout follows the tests: the one it stands at now.
        if stats.timeout_derived {
            stats.timeout_seconds = self.oracle.timeout().map(|t| t.as_secs_f64());
        }
        stats.set_wall_seconds(self.started.elapsed().as_secs_f64());
        stats.course.push(self.course_point(self.course_time()));
        stats
    }

    /// Notes the course as part of a larger run's (see [`CourseFrame`]) from now on; what it
    /// noted before (as a run of its own) is dropped.
    pub fn continue_course(&mut self, frame: CourseFrame) {
        self.next_course_point = frame.next;
        self.course_frame = Some(frame);
        self.stats.course.clear();
    }

    /// The points of the course noted so far (not where the run is now).
    pub fn course_noted(&self) -> &[CoursePoint] {
        &self.stats.course
    }

    /// The running time of the course: the larger run's when it is part of one.
    fn course_time(&self) -> Duration {
        match &self.course_frame {
            Some(frame) => frame
                .started
                .elapsed()
                .saturating_sub(self.control.parked_time()),
            None => self.running_time(),
        }
    }

    /// The best result now, as a point of the run's course at running time `at`.
    fn course_point(&self, at: Duration) -> CoursePoint {
        let (tests, bytes, nonws_chars, (best_bytes, best_nonws)) = match &self.course_frame {
            Some(frame) => (
                frame.tests,
                frame.bytes,
                frame.nonws_chars,
                (frame.sizes_of_best)(&self.best),
            ),
            None => {
                let nonws = self
                    .best_nonws
                    .get_or_init(|| crate::text::atoms::non_whitespace_chars(&self.best) as u64);
                (0, 0, 0, (self.best.len() as u64, *nonws))
            }
        };
        CoursePoint {
            seconds: at.as_secs_f64(),
            tests: tests + self.stats.tests,
            bytes: bytes + best_bytes,
            nonws_chars: nonws_chars + best_nonws,
        }
    }

    /// Notes the run's course for each of its moments that has passed (called as
    /// each test ends, before what it found is accepted: the best is still what it was then).
    pub(super) fn note_course(&mut self) {
        // Running time never exceeds the wall clock's: most tests end with nothing to note,
        // and then the control's lock is not taken.
        let started = self
            .course_frame
            .map_or(self.started, |frame| frame.started);
        if started.elapsed() < self.next_course_point {
            return;
        }
        let now = self.course_time();
        while self.next_course_point <= now {
            let point = self.course_point(self.next_course_point);
            self.stats.course.push(point);
            self.next_course_point = course_moment_after(self.next_course_point);
        }
    }

    pub fn stats_mut(&mut self) -> &mut Stats {
        &mut self.stats
    }

    /// Publishes the statistics to the shared copy (at most every 50 ms unless `now`).
    pub fn publish_stats(&mut self, now: bool) {
        if self.stats_out.is_none() {
            return;
        }
        if !now && self.last_published.elapsed() < Duration::from_millis(50) {
            return;
        }
        self.last_published = Instant::now();
        let stats = self.stats();
        if let Some(shared) = &self.stats_out {
            *shared
                .lock()
                .unwrap_or_else(std::sync::PoisonError::into_inner) = stats;
        }
    }

    /// Where [`Tester::publish_stats`] copies the statistics.
    pub fn set_stats_output(&mut self, shared: Option<Arc<std::sync::Mutex<Stats>>>) {
        self.stats_out = shared;
    }

    /// Whether tests are so fast that handing them to the pool costs more than running them
    /// here (in-process predicates): then windows run inline, in iteration order.
    pub(super) fn tests_are_trivial(&self) -> bool {
        let Some(threshold) = self.inline_below else {
            return false;
        };
        self.stats.oracle_runs >= 8
            && self.stats.test_seconds / (self.stats.oracle_runs as f64) < threshold.as_secs_f64()
    }

    /// Windows run inline when the mean test takes less than `threshold` (default 100 µs);
    /// `None` always uses the pool when `jobs` > 1.
    pub fn set_inline_below(&mut self, threshold: Option<Duration>) {
        self.inline_below = threshold;
    }

    /// Counts a test of the algorithm that starts (the checks of the input are not among them).
    pub(super) fn count_start(&mut self) {
        if !self.preflight {
            self.tests_started += 1;
        }
    }

    /// Counts one run of the test: a check of the input (preflight) or a test of the algorithm.
    pub(super) fn count_run(&mut self) {
        if self.preflight {
            self.stats.checks += 1;
        } else {
            self.stats.tests += 1;
        }
        self.stats.oracle_runs += 1;
    }

    /// Counts a finished run and how it ended (a remembered verdict is no run).
    pub(super) fn count_verdict(&mut self, verdict: &Verdict) {
        if verdict.remembered {
            return;
        }
        self.count_run();
        for _ in 0..verdict.timeout_reruns {
            self.count_run();
            self.stats.timeouts += 1;
            self.stats.timeout_reruns += 1;
        }
        self.stats.test_seconds += verdict.duration.as_secs_f64();
        match verdict.status {
            TestStatus::TimedOut => self.stats.timeouts += 1,
            TestStatus::Signaled(_) | TestStatus::SpawnFailed(_) => self.stats.crashes += 1,
            TestStatus::Lost(_) => self.stats.lost += 1,
            _ => {}
        }
    }
}

/// Whether preparing a candidate for each of `jobs` workers (`preparing` seconds each) takes
/// under a quarter of the time a test takes (`test` seconds).
fn engine_keeps_up(preparing: f64, test: f64, jobs: usize) -> bool {
    preparing * jobs as f64 * 4.0 < test
}

/// A running mean of durations.
#[derive(Default)]
pub(super) struct MeanTime {
    total: Duration,
    count: u32,
}

impl MeanTime {
    pub(super) fn add(&mut self, duration: Duration) {
        self.total += duration;
        self.count = self.count.saturating_add(1);
    }

    pub(super) fn mean(&self) -> Option<Duration> {
        (self.count > 0).then(|| self.total / self.count)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::exec::cache::CachePolicy;
    use crate::exec::oracle::predicate;
    use crate::observe::events::{Candidate, CandidateKind};
    use crate::params::Knobs;
    use crate::testing::control::Control;

    /// A lookahead assumes the candidates before it fail: while most recent tests pass, none
    /// is asked for, and once they mostly fail again it is.
    #[test]
    fn no_lookahead_while_most_recent_tests_pass() {
        let oracle = predicate("starts with y", |candidate: &[u8]| {
            std::thread::sleep(Duration::from_millis(2));
            candidate.starts_with(b"y")
        });
        let knobs = Knobs {
            jobs: 2,
            ..Knobs::default()
        };
        let control = Arc::new(Control::new(knobs));
        let mut tester = Tester::new(Arc::new(oracle), CachePolicy::recommended(), control);
        tester.set_best(vec![b'a'; 100]);
        let judge = |tester: &mut Tester, first: u8, i: u8| {
            let candidate = Candidate::single(CandidateKind::Complement);
            tester.judge_single(candidate, &[first, i]).unwrap();
        };
        for i in 0..4 {
            judge(&mut tester, b'n', i);
        }
        assert!(tester.wants_lookahead(), "the tests fail");
        for i in 0..3 {
            judge(&mut tester, b'y', i);
        }
        assert!(!tester.wants_lookahead(), "three passed in a row");
        for i in 4..6 {
            judge(&mut tester, b'n', i);
        }
        assert!(tester.wants_lookahead(), "they fail again");
    }

    #[test]
    fn tests_run_ahead_only_while_the_engine_keeps_up() {
        // gcc on a C file: 0.15 ms to prepare, 13 ms a test.
        assert!(engine_keeps_up(0.000_15, 0.013, 2));
        // grep on half a megabyte: 0.8 ms to prepare, 1.6 ms a test.
        assert!(!engine_keeps_up(0.000_8, 0.001_6, 2));
        // The more workers, the more the engine prepares.
        assert!(engine_keeps_up(0.001, 0.010, 2));
        assert!(!engine_keeps_up(0.001, 0.010, 4));
        let mut mean = MeanTime::default();
        assert_eq!(mean.mean(), None);
        mean.add(Duration::from_millis(1));
        mean.add(Duration::from_millis(3));
        assert_eq!(mean.mean(), Some(Duration::from_millis(2)));
    }
}
