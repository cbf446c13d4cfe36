//! Whether the syntax guard is worth asking: on a big text its parse may cost more than the
//! tests its rejections save (a fast test of a large JSON file), and then it is asked only now
//! and then, to follow how both change as the text shrinks.

use std::time::Duration;

/// A guard that takes at most this long a candidate is always asked: what it costs is below
/// any test's time, and runs on small inputs stay as they are (the same steps every run).
const ALWAYS_WORTH: Duration = Duration::from_millis(1);

/// Candidates the guard is asked about before its rejection rate is taken into account.
const WARM_UP: u64 = 16;

/// While the guard is not worth it, it is still asked about one candidate in this many.
const SAMPLE_EVERY: u32 = 8;

/// What asking the guard has cost and saved so far.
#[derive(Debug, Default)]
pub(super) struct GuardWorth {
    /// How long it takes a candidate lately (an exponential mean).
    seconds: f64,
    asked: u64,
    rejected: u64,
    /// Candidates judged without asking it since it was last asked.
    passed_over_in_a_row: u32,
}

impl GuardWorth {
    /// Whether to ask the guard about the next candidate, given how long a test takes
    /// (`test_seconds`, when one has run): always while it is cheap; else when what it costs a
    /// candidate is below the test time its rejections save on average (its rejection rate,
    /// smoothed, times a test; while it is young, as if it rejected all), or as the sample of
    /// one in [`SAMPLE_EVERY`].
    pub(super) fn ask(&mut self, test_seconds: Option<f64>) -> bool {
        if self.worth(test_seconds) || self.passed_over_in_a_row + 1 >= SAMPLE_EVERY {
            self.passed_over_in_a_row = 0;
            true
        } else {
            self.passed_over_in_a_row += 1;
            false
        }
    }

    /// Whether asking the guard costs less than the tests it saves (see [`GuardWorth::ask`]),
    /// without the sample: for the candidates tested ahead, which are guesses anyway.
    pub(super) fn worth(&self, test_seconds: Option<f64>) -> bool {
        let rejection_rate = if self.asked < WARM_UP {
            1.0
        } else {
            (self.rejected as f64 + 1.0) / (self.asked as f64 + 2.0)
        };
        self.seconds <= ALWAYS_WORTH.as_secs_f64()
            || test_seconds.is_none_or(|test| self.seconds <= rejection_rate * test)
    }

    /// The guard was asked: it took `took` and admitted the candidate or not. The first answer's
    /// time is not counted: it pays the guard's setup once (the grammar's tables, the first
    /// parse), which made a small input's guard look dear on a slow machine and the steps of a
    /// run depend on the machine.
    pub(super) fn answered(&mut self, took: Duration, admitted: bool) {
        let took = took.as_secs_f64();
        self.seconds = match self.asked {
            0 => 0.0,
            1 => took,
            _ => 0.75 * self.seconds + 0.25 * took,
        };
        self.asked += 1;
        self.rejected += u64::from(!admitted);
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;
    use std::sync::atomic::{AtomicU64, Ordering};

    use super::*;
    use crate::exec::cache::CachePolicy;
    use crate::exec::oracle::predicate;
    use crate::observe::events::{Candidate, CandidateKind};
    use crate::outcome::Outcome;
    use crate::params::Knobs;
    use crate::testing::control::Control;
    use crate::testing::tester::{CandidateGuard, Tester};

    fn worth_after(took: Duration, rejected_one_in: u64) -> GuardWorth {
        let mut worth = GuardWorth::default();
        for i in 0..64 {
            worth.answered(took, i % rejected_one_in != 0);
        }
        worth
    }

    #[test]
    fn a_cheap_guard_is_always_asked() {
        // Well under a millisecond a parse: asked whatever the tests take.
        let mut worth = worth_after(Duration::from_micros(300), 100);
        assert!((0..100).all(|_| worth.ask(Some(0.001))));
    }

    #[test]
    fn a_costly_guard_that_saves_little_is_asked_one_time_in_eight() {
        // 16 ms a parse of a large JSON file, 15 ms a test, one rejection in 16: a test saved
        // costs four parses' worth.
        let mut worth = worth_after(Duration::from_millis(16), 16);
        let asked = (0..64).filter(|_| worth.ask(Some(0.015))).count();
        assert_eq!(asked, 64 / SAMPLE_EVERY as usize);
        // Nor is it asked about the candidates tested ahead.
        assert!(!worth.worth(Some(0.015)));
        // The same guard before a compiler's one-second test is worth every parse.
        assert!((0..64).all(|_| worth.ask(Some(1.0))));
        // Before any test has run it is asked; while it is young, when it costs less than a
        // test (it might reject them all).
        assert!(worth.ask(None));
        let mut young = GuardWorth::default();
        assert!((0..WARM_UP).all(|_| {
            let ask = young.ask(Some(0.020));
            young.answered(Duration::from_millis(16), true);
            ask
        }));
        // Its first answer pays its setup and is not counted; from the second on it is.
        let mut dearer = GuardWorth::default();
        dearer.answered(Duration::from_millis(50), false);
        assert!(dearer.ask(Some(0.015)));
        dearer.answered(Duration::from_millis(16), false);
        assert!(!dearer.ask(Some(0.015)));
    }

    #[test]
    fn a_guard_that_grows_cheap_is_asked_again() {
        let mut worth = worth_after(Duration::from_millis(16), 16);
        assert!(!(0..8).all(|_| worth.ask(Some(0.015))));
        // The text shrank: its samples take 0.1 ms now.
        for _ in 0..16 {
            worth.answered(Duration::from_micros(100), true);
        }
        assert!((0..100).all(|_| worth.ask(Some(0.015))));
    }

    /// A guard that takes 3 ms a candidate and rejects none, counting how often it is asked.
    struct SlowGuard(AtomicU64);

    impl CandidateGuard for SlowGuard {
        fn admits(&self, _: &[u8]) -> bool {
            self.0.fetch_add(1, Ordering::Relaxed);
            std::thread::sleep(Duration::from_millis(3));
            true
        }

        fn rebase(&self, _: &[u8]) {}
    }

    /// A guard slower than the tests is asked about one candidate in eight; the others are
    /// tested.
    #[test]
    fn a_guard_that_costs_more_than_it_saves_is_asked_now_and_then() {
        let oracle = predicate("never", |_: &[u8]| false);
        let control = Arc::new(Control::new(Knobs::default()));
        let mut tester = Tester::new(Arc::new(oracle), CachePolicy::recommended(), control);
        tester.set_best(vec![b'a'; 100]);
        let guard = Arc::new(SlowGuard(Default::default()));
        tester.set_guard(Some(guard.clone()));
        for i in 0..64u8 {
            let candidate = Candidate::single(CandidateKind::Complement);
            let (outcome, _) = tester.judge_single(candidate, &[i; 50]).unwrap();
            assert_eq!(outcome, Outcome::NotInteresting);
        }
        let asked = guard.0.load(Ordering::Relaxed);
        // Asked first (no test had run), again (the first answer's time is its setup's), then
        // one in eight.
        assert_eq!(asked, 2 + 62 / 8);
        assert_eq!(tester.stats().tests, 64);
        assert_eq!(tester.stats().guard_passed_over, 64 - asked);
    }
}
