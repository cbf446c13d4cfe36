//! The schedule of a pipeline's `(a+b+c)*` form: its stages rerun until none of them changes the
//! current best (a global fixed point). The first round runs them in the order written (cheap
//! stages first); later rounds run first the stages that removed the most bytes per test so far.
//! A stage that last ran to its end without changing anything is not run again while the
//! current best is the text it ran on (its result is known), so the schedule ends after a round
//! in which every stage either ran without effect or was skipped for that reason.

use std::collections::hash_map::DefaultHasher;
use std::hash::{Hash, Hasher};

use crate::control::Stop;
use crate::tester::Tester;

/// What the schedule has seen of one stage.
#[derive(Clone, Debug, Default)]
struct Record {
    tests: u64,
    removed: u64,
    /// The fingerprint of the text the stage last ran on without changing it.
    idle_on: Option<u64>,
}

impl Record {
    /// Bytes removed per test so far (0 before the stage removed anything).
    fn yield_per_test(&self) -> f64 {
        self.removed as f64 / self.tests.max(1) as f64
    }
}

fn fingerprint(text: &[u8]) -> u64 {
    let mut hasher = DefaultHasher::new();
    text.hash(&mut hasher);
    hasher.finish()
}

/// The order of the next round: by bytes removed per test (highest first), ties (stages that
/// removed nothing yet, in the first round every stage) in the order written.
fn round_order(records: &[Record]) -> Vec<usize> {
    let mut order: Vec<usize> = (0..records.len()).collect();
    order.sort_by(|&a, &b| {
        records[b]
            .yield_per_test()
            .total_cmp(&records[a].yield_per_test())
            .then(a.cmp(&b))
    });
    order
}

/// Runs `count` stages (`run_stage(i, tester)` runs stage `i` to its own end) until a round
/// changes nothing. Returns the number of rounds.
pub fn run(
    count: usize,
    tester: &mut Tester,
    mut run_stage: impl FnMut(usize, &mut Tester) -> Result<(), Stop>,
) -> Result<u32, Stop> {
    let mut records = vec![Record::default(); count];
    for round in 1.. {
        let mut changed = false;
        for stage in round_order(&records) {
            let before = fingerprint(tester.best());
            if records[stage].idle_on == Some(before) {
                continue;
            }
            let size = tester.best().len();
            let tests = tester.stats().tests;
            run_stage(stage, tester)?;
            let record = &mut records[stage];
            record.tests += tester.stats().tests - tests;
            record.removed += size.saturating_sub(tester.best().len()) as u64;
            let after = fingerprint(tester.best());
            if after == before {
                record.idle_on = Some(after);
            } else {
                record.idle_on = None;
                changed = true;
            }
        }
        if !changed {
            return Ok(round);
        }
    }
    unreachable!("the rounds end when one changes nothing")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn productive_stages_go_first() {
        let records = vec![
            Record {
                tests: 10,
                removed: 10,
                idle_on: None,
            },
            Record::default(),
            Record {
                tests: 2,
                removed: 10,
                idle_on: None,
            },
        ];
        assert_eq!(round_order(&records), [2, 0, 1]);
        assert_eq!(round_order(&[Record::default(), Record::default()]), [0, 1]);
    }
}
