//! The timeout derived from the test's own times (no `--timeout`): fitted to the larger of the
//! input's check and the median of the recent runs, so that it grows when the whole machine
//! slows down, and the rule for running a timed-out test once more under the grown timeout.

use std::collections::VecDeque;
use std::time::Duration;

/// How many of the most recent runs that ended with an exit status the median is taken over:
/// enough that a few slow or fast candidates do not move it, few enough that it follows a
/// machine that slows down within a dozen tests.
pub const RECENT_RUNS: usize = 11;

/// Fewer recent runs than this say nothing yet: the timeout is fitted to the check alone.
const FEWEST_RUNS: usize = 3;

/// Recent runs are "much slower" than the input's check when their median is at least this
/// many times the check: 1.5 is above the spread of a quiet machine (the same test runs
/// within some 20% of its time) and well below the slowdowns that cost candidates (a loaded
/// machine running the test 3x slower).
pub const MUCH_SLOWER: f64 = 1.5;

/// A timed-out test is run again only when the grown timeout is at least this many times the
/// one it ran with; under (nearly) the same timeout it would time out again, and a candidate
/// that hangs should cost about one timeout.
const GROWN_ENOUGH: f64 = 1.25;

/// How a timeout is fitted to a test's time, so that a candidate that never ends costs little
/// more than a good one.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TimeoutFit {
    /// Five times the test plus half a second: the half second covers the start-up jitter of
    /// short tests, the factor parallel tests slowing each other and the spread of long ones.
    Generous,
    /// Three times the test plus a tenth of a second (`--fast`): a candidate that is
    /// interesting but much slower than the input may be taken for one that hangs, which costs
    /// a reduction, never the result.
    Tight,
}

impl TimeoutFit {
    /// The timeout for a test that takes `test`.
    pub fn fit(self, test: Duration) -> Duration {
        match self {
            TimeoutFit::Generous => test * 5 + Duration::from_millis(500),
            TimeoutFit::Tight => test * 3 + Duration::from_millis(100),
        }
    }

    /// The rule, for reports.
    pub fn describe(self) -> String {
        let test = format!(
            "the larger of the input's check and the median of the last {RECENT_RUNS} tests"
        );
        match self {
            TimeoutFit::Generous => format!("5x {test} + 0.5s"),
            TimeoutFit::Tight => format!("3x {test} + 0.1s"),
        }
    }
}

/// A timeout that follows the tests: [`TimeoutFit::fit`] of the larger of the input's check and
/// the median of the last [`RECENT_RUNS`] runs that ended with an exit status (interesting or
/// not). Every such run measures how fast the machine runs the test now; the uninteresting
/// ones count too, so that the figure follows a slowdown even while few candidates are
/// interesting (a median over the interesting ones alone would starve exactly when a slowdown
/// makes them time out). Timeouts, cancelled and lost runs are left out, so a candidate that
/// hangs does not grow the timeout that catches it. Candidates that fail fast only pull the
/// median down, and the timeout never falls below the fit of the check.
///
/// The fit is chosen when the oracle is built; the timeout exists only once the input's check
/// has been timed ([`DerivedTimeout::check`]): before that there is none, and runs are not
/// noted.
#[derive(Clone, Debug)]
pub struct DerivedTimeout {
    fit: TimeoutFit,
    check: Option<Duration>,
    recent: VecDeque<Duration>,
}

impl DerivedTimeout {
    /// A timeout to be fitted `fit`'s way to the input's check, once that is timed.
    pub fn new(fit: TimeoutFit) -> Self {
        DerivedTimeout {
            fit,
            check: None,
            recent: VecDeque::with_capacity(RECENT_RUNS),
        }
    }

    /// The input's check took `check` (again, for a case's next file: the recent runs stay).
    pub fn check(&mut self, check: Duration) {
        self.check = Some(check);
    }

    /// How the timeout is fitted.
    pub fn fit(&self) -> TimeoutFit {
        self.fit
    }

    /// Notes a run that ended with an exit status after `duration` (nothing before the check).
    pub fn record(&mut self, duration: Duration) {
        if self.check.is_none() {
            return;
        }
        if self.recent.len() == RECENT_RUNS {
            self.recent.pop_front();
        }
        self.recent.push_back(duration);
    }

    /// The median of the recent runs, once there are enough of them.
    pub fn recent_median(&self) -> Option<Duration> {
        if self.recent.len() < FEWEST_RUNS {
            return None;
        }
        let mut sorted: Vec<Duration> = self.recent.iter().copied().collect();
        sorted.sort_unstable();
        Some(sorted[sorted.len() / 2])
    }

    /// The timeout of the next test, once the input's check is timed.
    pub fn current(&self) -> Option<Duration> {
        let check = self.check?;
        let test = self
            .recent_median()
            .map_or(check, |median| median.max(check));
        Some(self.fit.fit(test))
    }

    /// The timeout to run a test again with that timed out under `ran_with`: the grown
    /// timeout, when the recent runs are [`MUCH_SLOWER`] than the check and the timeout has
    /// grown by [`GROWN_ENOUGH`] since; otherwise `None` (the test is unresolved).
    pub fn rerun_timeout(&self, ran_with: Duration) -> Option<Duration> {
        let check = self.check?;
        let median = self.recent_median()?;
        let much_slower = median.as_secs_f64() >= check.as_secs_f64() * MUCH_SLOWER;
        let grown = self.current()?;
        (much_slower && grown.as_secs_f64() >= ran_with.as_secs_f64() * GROWN_ENOUGH)
            .then_some(grown)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ms(millis: u64) -> Duration {
        Duration::from_millis(millis)
    }

    #[test]
    fn the_timeout_grows_with_the_recent_median_and_never_falls_below_the_check() {
        let mut timeout = DerivedTimeout::new(TimeoutFit::Generous);
        assert_eq!(timeout.current(), None, "no timeout before the check");
        timeout.record(ms(900));
        timeout.check(ms(200));
        assert_eq!(timeout.current(), Some(ms(1500)));
        // Two runs say nothing yet, however slow.
        timeout.record(ms(900));
        timeout.record(ms(900));
        assert_eq!(timeout.current(), Some(ms(1500)));
        // Fast failures never shrink it.
        for _ in 0..RECENT_RUNS {
            timeout.record(ms(10));
        }
        assert_eq!(timeout.current(), Some(ms(1500)));
        // The machine slows down: once most recent runs take 0.6 s, the timeout is 5x that.
        for _ in 0..RECENT_RUNS / 2 {
            timeout.record(ms(600));
        }
        assert_eq!(
            timeout.current(),
            Some(ms(1500)),
            "a minority moves nothing"
        );
        timeout.record(ms(600));
        assert_eq!(timeout.recent_median(), Some(ms(600)));
        assert_eq!(timeout.current(), Some(ms(3500)));
        // One candidate that runs long does not move the median.
        timeout.record(ms(60_000));
        assert_eq!(timeout.current(), Some(ms(3500)));
        let mut tight = DerivedTimeout::new(TimeoutFit::Tight);
        tight.check(ms(200));
        assert_eq!(tight.current(), Some(ms(700)));
        for _ in 0..RECENT_RUNS {
            tight.record(ms(1000));
        }
        assert_eq!(tight.current(), Some(ms(3100)));
        // A new check keeps the recent runs.
        tight.check(ms(2000));
        assert_eq!(tight.current(), Some(ms(6100)));
    }

    #[test]
    fn a_timed_out_test_runs_again_only_under_a_timeout_grown_by_a_slowdown() {
        let mut timeout = DerivedTimeout::new(TimeoutFit::Generous);
        timeout.check(ms(200));
        assert_eq!(timeout.rerun_timeout(ms(1500)), None, "no recent runs");
        for _ in 0..RECENT_RUNS {
            timeout.record(ms(280));
        }
        // 1.4x the check is not much slower.
        assert_eq!(timeout.rerun_timeout(ms(1500)), None);
        for _ in 0..RECENT_RUNS {
            timeout.record(ms(600));
        }
        assert_eq!(timeout.rerun_timeout(ms(1500)), Some(ms(3500)));
        // A test that already ran under the grown timeout (a hang) is not run again.
        assert_eq!(timeout.rerun_timeout(ms(3500)), None);
        assert_eq!(timeout.rerun_timeout(ms(3000)), None);
    }
}
