//! Candidates that leave a used name undeclared ([`crate::tree::NameIndex`]): how their tests
//! went in this run, and whether the next one is judged without a test. Most fail where the
//! test compiles or runs the text; where it only looks at the syntax, most pass. So the first
//! ones are tested, and the rest are judged not interesting only while at most a fifth of those
//! tested passed, one in eight still tested to keep the record true to the test.

/// Candidates that leave a name undeclared tested before any is judged without a test.
const FIRST_TESTED: u64 = 6;
/// Of those tested, at most one in this many may have passed for the rest to be judged.
const MOST_PASSED_ONE_IN: u64 = 5;
/// While they are judged without a test, one in this many is still tested.
const TESTED_ONE_IN: u64 = 8;

/// How the tests of candidates that leave a used name undeclared went.
#[derive(Debug, Default)]
pub(super) struct UndeclaredRecord {
    tested: u64,
    passed: u64,
    /// Judged without a test since the last one tested.
    judged_since_test: u64,
}

impl UndeclaredRecord {
    /// Whether the next candidate that leaves a name undeclared is judged not interesting
    /// without a test (else it is tested, and its outcome noted with
    /// [`UndeclaredRecord::tested`]).
    pub(super) fn judges_next(&mut self) -> bool {
        let trusted =
            self.tested >= FIRST_TESTED && self.passed * MOST_PASSED_ONE_IN <= self.tested;
        if trusted && self.judged_since_test + 1 < TESTED_ONE_IN {
            self.judged_since_test += 1;
            return true;
        }
        self.judged_since_test = 0;
        false
    }

    /// Notes the outcome of a test of such a candidate.
    pub(super) fn tested(&mut self, passed: bool) {
        self.tested += 1;
        self.passed += u64::from(passed);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_first_are_tested_then_seven_in_eight_judged_while_they_fail() {
        let mut record = UndeclaredRecord::default();
        for _ in 0..FIRST_TESTED {
            assert!(!record.judges_next());
            record.tested(false);
        }
        let judged: Vec<bool> = (0..16)
            .map(|_| {
                let judged = record.judges_next();
                if !judged {
                    record.tested(false);
                }
                judged
            })
            .collect();
        assert_eq!(judged.iter().filter(|&&judged| !judged).count(), 2);
        assert!(judged[..7].iter().all(|&judged| judged));
        assert!(!judged[7]);
    }

    #[test]
    fn they_are_tested_while_more_than_a_fifth_of_those_tested_passed() {
        let mut record = UndeclaredRecord::default();
        for passed in [false, true, false, false, true, false] {
            assert!(!record.judges_next());
            record.tested(passed);
        }
        // 2 of 6, then of 7, 8 and 9 passed: more than a fifth.
        for _ in 0..4 {
            assert!(!record.judges_next());
            record.tested(false);
        }
        // 2 of 10.
        assert!(record.judges_next());
    }

    /// A candidate judged by the name check is a guess, like one the recall skips: it counts
    /// among the run's skipped edits, so the stage's run is no proof of its fixed point and
    /// the round that settles runs it again without the check.
    #[test]
    fn a_candidate_the_name_check_judged_counts_as_skipped() {
        use std::sync::Arc;

        use crate::exec::cache::CachePolicy;
        use crate::observe::events::{Candidate, CandidateKind};
        use crate::params::Knobs;
        use crate::testing::control::Control;
        use crate::testing::tester::{CandidateGuard, Tester};
        use crate::tree::Admission;

        /// Admits every candidate, and says each leaves a used name undeclared.
        struct Undeclaring;

        impl CandidateGuard for Undeclaring {
            fn admits(&self, _: &[u8]) -> bool {
                true
            }

            fn rebase(&self, _: &[u8]) {}

            fn judge(&self, _: &[u8], check_names: bool) -> Admission {
                Admission {
                    admitted: true,
                    undeclares: check_names,
                }
            }
        }

        let oracle = crate::exec::oracle::predicate("never", |_: &[u8]| false);
        let control = Arc::new(Control::new(Knobs::default()));
        let mut tester = Tester::new(Arc::new(oracle), CachePolicy::recommended(), control);
        tester.set_best(vec![b'a'; 100]);
        tester.set_guard(Some(Arc::new(Undeclaring)));
        tester.recall_mut().start_run(true);
        for i in 0..16u8 {
            let candidate = Candidate::single(CandidateKind::Edit);
            tester.judge_single(candidate, &[i; 50]).unwrap();
        }
        let judged = tester.stats().names_skips;
        assert!(judged > 0, "{:?}", tester.stats());
        assert_eq!(tester.stats().tests + judged, 16);
        assert_eq!(tester.recall().skipped(), judged);
        tester.recall_mut().end_run();
    }
}
