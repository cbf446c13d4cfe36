//! The syntax guard of a pipeline's stages, and its trial on the user's test: in the round that
//! settles a schedule, the text stages' edits that the grammar rejects reach the test (a
//! compiler may accept more than the grammar does, or recover from a syntax error and still
//! report the bug) until [`TRIALS`] of them have failed with none accepted; from then on the
//! guard judges them there too. One accepted, and the text stages never use the guard again.

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};

use crate::testing::tester::CandidateGuard;
use crate::tree::{Admission, SyntaxGuard};

/// Edits the guard rejects that must fail at the test, none accepted, before the guard judges
/// them in the round that settles.
pub const TRIALS: u64 = 32;

/// The syntax guard as the tester's candidate guard.
pub(super) struct TreeGuard(pub(super) SyntaxGuard);

impl CandidateGuard for TreeGuard {
    fn admits(&self, candidate: &[u8]) -> bool {
        self.0.admits(candidate)
    }

    fn rebase(&self, best: &[u8]) {
        self.0.rebase(best);
    }

    fn judge(&self, candidate: &[u8], check_names: bool) -> Admission {
        self.0.judge(candidate, check_names)
    }
}

/// What a pipeline's settling runs found of its guard. A case of several files shares one
/// for all the sessions of the files of a language: the test is the same.
#[derive(Debug, Default)]
pub struct TrialRecord {
    /// Edits the guard rejects that were tested and failed.
    failed: AtomicU64,
    /// One the guard rejects was accepted: the grammar is stricter than the test.
    misjudges: AtomicBool,
}

impl TrialRecord {
    /// Whether the guard was found to reject what the test accepts.
    pub(super) fn misjudges(&self) -> bool {
        self.misjudges.load(Ordering::Relaxed)
    }

    /// It was (a text stage without the guard reached a text it rejects).
    pub(super) fn found_misjudging(&self) {
        self.misjudges.store(true, Ordering::Relaxed);
    }

    /// Whether the guard has passed its trial: it judges the text stages in the settling round.
    pub(super) fn trusted(&self) -> bool {
        !self.misjudges() && self.failed.load(Ordering::Relaxed) >= TRIALS
    }
}

/// The guard of a text stage's run in the settling round while the trial lasts: it admits every
/// edit, counts those the guard would reject, and notes when the run accepts one of them.
pub(super) struct OnTrial {
    guard: TreeGuard,
    rejected: AtomicU64,
    accepted_one: AtomicBool,
}

impl OnTrial {
    pub(super) fn new(guard: TreeGuard) -> OnTrial {
        OnTrial {
            guard,
            rejected: AtomicU64::new(0),
            accepted_one: AtomicBool::new(false),
        }
    }

    /// The run is over: what it found goes to `record`.
    pub(super) fn conclude(&self, record: &TrialRecord) {
        if self.accepted_one.load(Ordering::Relaxed) {
            record.found_misjudging();
        } else {
            record
                .failed
                .fetch_add(self.rejected.load(Ordering::Relaxed), Ordering::Relaxed);
        }
    }
}

impl CandidateGuard for OnTrial {
    fn admits(&self, candidate: &[u8]) -> bool {
        if !self.guard.admits(candidate) {
            self.rejected.fetch_add(1, Ordering::Relaxed);
        }
        true
    }

    fn rebase(&self, best: &[u8]) {
        if !self.guard.admits(best) {
            self.accepted_one.store(true, Ordering::Relaxed);
        }
        self.guard.rebase(best);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn json_guard(best: &[u8]) -> TreeGuard {
        let json = crate::tree::Language::by_name("json").expect("the JSON grammar");
        TreeGuard(SyntaxGuard::new(json, best).expect("guard"))
    }

    #[test]
    #[cfg_attr(
        not(feature = "lang-json"),
        ignore = "needs the JSON grammar (cargo feature lang-json)"
    )]
    fn the_guard_is_trusted_once_enough_of_what_it_rejects_failed() {
        let record = TrialRecord::default();
        for run in 0..2 {
            assert!(!record.trusted(), "run {run}");
            let trial = OnTrial::new(json_guard(br#"{"a": [1, 2]}"#));
            // Every edit reaches the test; those the grammar rejects are counted.
            for _ in 0..TRIALS / 2 {
                assert!(trial.admits(br#"{"a": [1, 2}"#));
            }
            assert!(trial.admits(br#"{"a": [1]}"#));
            trial.rebase(br#"{"a": [1]}"#);
            trial.conclude(&record);
        }
        assert!(record.trusted());
        assert!(!record.misjudges());
    }

    #[test]
    #[cfg_attr(
        not(feature = "lang-json"),
        ignore = "needs the JSON grammar (cargo feature lang-json)"
    )]
    fn one_accepted_edit_the_guard_rejects_ends_its_trial_for_good() {
        let record = TrialRecord::default();
        let trial = OnTrial::new(json_guard(br#"{"a": [1, 2]}"#));
        for _ in 0..TRIALS {
            assert!(trial.admits(br#"{"a": [1, 2}"#));
        }
        trial.rebase(br#"{"a": [1, 2}"#);
        trial.conclude(&record);
        assert!(record.misjudges());
        assert!(!record.trusted());
    }
}
