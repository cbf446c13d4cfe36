//! The schedule of a pipeline's `(a+b+c)*` form: its stages rerun until none of them changes the
//! current best (a global fixed point). Each stage runs to its own fixed point every time (run
//! for a single iteration instead, stages saved a few tests but took other paths: larger
//! results on C, `docs/benchmarks.md`). The first round runs them in the order written (cheap
//! stages first); later rounds run first the stages that removed the most bytes per test so far.
//! A stage that last ran to its end without changing anything is not run again while the
//! current best is the text it ran on (its result is known), so the schedule ends after a round
//! in which every stage either ran without effect or was skipped for that reason.
//!
//! A stage whose last run changed nothing runs on probation (as in shrinkray): after
//! [`PROBATION_BUDGET`] tests in a row that are not interesting it is interrupted and deferred.
//! A deferred stage runs on probation again while the other stages still remove something, and
//! to its end (without a budget) once a round changed nothing: the stages that pay go first,
//! the long sweeps that rarely pay run on the smallest text, and the end is still a fixed point
//! of every stage. A stage that proposes an edit at (nearly) every token (`tokens`, `spans`,
//! `runs`, `rename`, the rewrites) starts on probation in the first round as well: on a text that
//! the other stages still shrink most of its edits fail, and its full sweeps are worth their
//! cost on the smallest text (on the JavaScript of the shared bench 1083 → 879 tests, the same
//! result; `docs/benchmarks.md` section 15).
//!
//! While the other stages still remove something, a stage skips the edits that failed before
//! with the same neighbourhood (see [`crate::testing::recall`]): most of a tail stage's edits
//! fail again on a text that changed elsewhere. A stage that skipped some and changed nothing is
//! deferred too, and runs again without skipping once a round changed nothing.
//!
//! While a case of several files holds a file's recall (other files still change), the stages
//! that sweep every token do not run at all ([`crate::observe::events::Placement::Held`]): the
//! case runs the file's session again without the hold once its files settle.

use std::collections::hash_map::DefaultHasher;
use std::hash::{Hash, Hasher};

use crate::observe::events::{Event, SchedulePlace};
use crate::observe::forecast::{self, LastRun, Placement, PlannedStage, RoundPlan};
use crate::observe::stats::ScheduledRun;
use crate::testing::control::Stop;
use crate::testing::tester::Tester;
use crate::text::atoms::{line_count, non_whitespace_chars};

pub use crate::observe::forecast::PROBATION_BUDGET;

/// A stage as the schedule knows it before it ran.
#[derive(Clone, Debug)]
pub struct ScheduledStage {
    /// Its name in the plan, the statistics and the trace.
    pub name: String,
    /// It proposes an edit at (nearly) every token, so its cost grows with the text: its first
    /// run is on probation too, as if an earlier run had found nothing.
    pub sweeps_tokens: bool,
    /// While a case of several files holds the recall (other files still change), it waits for
    /// the case's settling round (the token sweeps, and the finer tree walk after a coarse one).
    pub waits_while_held: bool,
}

impl ScheduledStage {
    /// A stage with a few candidates (not on probation in its first run).
    pub fn new(name: impl Into<String>) -> Self {
        ScheduledStage {
            name: name.into(),
            sweeps_tokens: false,
            waits_while_held: false,
        }
    }
}

/// What the schedule has seen of one stage.
#[derive(Clone, Debug, Default)]
struct Record {
    /// Tests and bytes removed in the stage's last run.
    tests: u64,
    removed: u64,
    /// The fingerprint of the text the stage last ran on without changing it.
    idle_on: Option<u64>,
    /// Its last complete run changed nothing: the next one has a budget of failed tests.
    probation: bool,
    /// Its last run ran out of that budget: the next one runs to its end.
    deferred: bool,
    /// Its last run that was not cut short by the budget (for the estimates shown).
    complete: Option<LastRun>,
}

impl Record {
    /// Bytes removed per test in the last run (0 before the stage ran).
    fn yield_per_test(&self) -> f64 {
        self.removed as f64 / self.tests.max(1) as f64
    }

    /// The record after a run that began on the text of fingerprint `before` and left
    /// `after`, `cut` short (its budget, or edits it skipped): what the run did.
    fn after_run(&mut self, before: u64, after: u64, cut: bool) -> RunEffect {
        if after != before {
            self.idle_on = None;
            self.probation = false;
            self.deferred = false;
            RunEffect::Changed
        } else if cut {
            self.probation = true;
            self.deferred = true;
            RunEffect::Deferred
        } else {
            self.idle_on = Some(after);
            self.probation = true;
            self.deferred = false;
            RunEffect::Idle
        }
    }

    /// Why the stage runs where it does in `round`, `settling` after a round that changed
    /// nothing, the current best's fingerprint being `best`.
    fn placement(&self, round: u32, settling: bool, best: u64) -> Placement {
        if self.idle_on == Some(best) {
            Placement::Known
        } else if self.probation && self.deferred && settling {
            Placement::ToTheEnd
        } else if self.probation && self.deferred {
            Placement::Deferred
        } else if self.probation {
            Placement::Probation
        } else if round == 1 {
            Placement::Written
        } else {
            Placement::Yield
        }
    }
}

fn fingerprint(text: &[u8]) -> u64 {
    let mut hasher = DefaultHasher::new();
    text.hash(&mut hasher);
    hasher.finish()
}

/// The order of the next round: by bytes removed per test in the last run (highest first), ties
/// (in the first round every stage) in the order written.
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

/// Runs `count` stages (`run_stage(i, round, tester)` runs stage `i` to its own end in round
/// `round`) until a round changes nothing and defers nothing. Returns the number of rounds.
pub fn run(
    count: usize,
    tester: &mut Tester,
    mut run_stage: impl FnMut(usize, u32, &mut Tester) -> Result<(), Stop>,
) -> Result<u32, Stop> {
    let stages: Vec<ScheduledStage> = (1..=count)
        .map(|stage| ScheduledStage::new(format!("stage {stage}")))
        .collect();
    run_named(&stages, tester, |place, tester| {
        run_stage(place.stage, place.round, tester)
    })
}

/// [`run`] over stages with names: each round begins with an [`Event::ScheduleRound`] (the
/// plan: order, why, last runs), `run_stage` gets the stage's place, and every run of a stage
/// is noted in the statistics' `schedule`.
pub fn run_named(
    stages: &[ScheduledStage],
    tester: &mut Tester,
    mut run_stage: impl FnMut(SchedulePlace, &mut Tester) -> Result<(), Stop>,
) -> Result<u32, Stop> {
    let names: Vec<String> = stages.iter().map(|stage| stage.name.clone()).collect();
    let names = names.as_slice();
    let mut records: Vec<Record> = stages
        .iter()
        .map(|stage| Record {
            probation: stage.sweeps_tokens,
            ..Record::default()
        })
        .collect();
    // The last round changed nothing but deferred stages: they now run to their end.
    let mut settling = false;
    for round in 1.. {
        let mut changed = false;
        let mut deferred = false;
        let order = round_order(&records);
        let mut plan = round_plan(stages, &records, &order, round, settling, tester);
        tester.emit(Event::ScheduleRound(plan.clone()));
        for position in 0..order.len() {
            let mut round = RoundState {
                names,
                stages,
                records: &mut records,
                plan: &mut plan,
                settling,
                changed,
            };
            match round.run_stage(position, tester, &mut run_stage)? {
                RunEffect::Skipped | RunEffect::Idle => {}
                RunEffect::Changed => changed = true,
                RunEffect::Deferred => deferred = true,
            }
        }
        if !changed && !deferred {
            return Ok(round);
        }
        settling = !changed;
    }
    unreachable!("the rounds end when one changes nothing")
}

/// The plan of round `round`: the stages in `order`, why each runs where it does (a stage that
/// sweeps every token waits for the case's settling round while the recall is held), their
/// last complete runs.
fn round_plan(
    stages: &[ScheduledStage],
    records: &[Record],
    order: &[usize],
    round: u32,
    settling: bool,
    tester: &Tester,
) -> RoundPlan {
    let start = fingerprint(tester.best());
    RoundPlan {
        round,
        last_round: settling,
        size: tester.best().len() as u64,
        lines: line_count(tester.best()) as u64,
        bytes: tester.best().len() as u64,
        stages: order
            .iter()
            .map(|&stage| PlannedStage {
                stage,
                name: stages[stage].name.clone(),
                why: if tester.recall().held() && stages[stage].waits_while_held {
                    Placement::Held
                } else {
                    records[stage].placement(round, settling, start)
                },
                last: records[stage].complete,
            })
            .collect(),
    }
}

/// What a stage's turn in a round did.
enum RunEffect {
    /// It did not run: it changed nothing on this very text before.
    Skipped,
    /// It ran to its end and changed nothing.
    Idle,
    /// It changed the text.
    Changed,
    /// It changed nothing but was cut short (its budget, or edits it skipped): it runs again
    /// to its end in the settling round.
    Deferred,
}

/// Where the best stood when a stage's run began.
struct RunStart {
    size: usize,
    nonws: usize,
    tests: u64,
    started: f64,
    eta_seconds: f64,
    eta_guessed_stages: usize,
}

impl RunStart {
    /// Where the best stands now, as stage `position` of `plan` begins.
    fn now(tester: &Tester, plan: &RoundPlan, position: usize, changed: bool) -> RunStart {
        let (eta_seconds, eta_guessed_stages) = estimate(tester, plan, position, changed);
        RunStart {
            size: tester.best().len(),
            nonws: non_whitespace_chars(tester.best()),
            tests: tester.stats().tests,
            started: tester.running_time().as_secs_f64(),
            eta_seconds,
            eta_guessed_stages,
        }
    }
}

/// A round of the schedule while its stages take their turns.
struct RoundState<'a> {
    names: &'a [String],
    stages: &'a [ScheduledStage],
    records: &'a mut [Record],
    plan: &'a mut RoundPlan,
    /// The round runs the deferred stages to their end.
    settling: bool,
    /// A stage before in this round changed the text.
    changed: bool,
}

impl RoundState<'_> {
    /// Whether the user asked to skip the stage (then the request is taken, the interruption
    /// cleared and the skip reported).
    fn skipped_by_user(&self, stage: usize, tester: &mut Tester) -> bool {
        if !tester.control().take_skip() {
            return false;
        }
        tester.control().clear_switch();
        tester.emit(Event::StageSkipped {
            stage: self.names[stage].clone(),
            reason: "skipped by the user".into(),
        });
        true
    }

    /// The turn of the stage at `position` of the plan: it runs (with a budget of failed tests
    /// while on probation), is noted in the statistics and the plan, and its record is updated.
    fn run_stage(
        &mut self,
        position: usize,
        tester: &mut Tester,
        run_stage: &mut impl FnMut(SchedulePlace, &mut Tester) -> Result<(), Stop>,
    ) -> Result<RunEffect, Stop> {
        let stage = self.plan.stages[position].stage;
        let round = self.plan.round;
        let settling = self.settling;
        let before = fingerprint(tester.best());
        if self.records[stage].idle_on == Some(before) {
            return Ok(RunEffect::Skipped);
        }
        if tester
            .recall_mut()
            .defer_stage(self.stages[stage].waits_while_held, stage == 0)
        {
            self.plan.stages[position].why = Placement::Held;
            return Ok(RunEffect::Skipped);
        }
        // What it runs as (a stage the plan knew may run after all: the text changed).
        self.plan.stages[position].why = self.records[stage].placement(round, settling, before);
        let budgeted = self.records[stage].probation && !(self.records[stage].deferred && settling);
        if budgeted {
            tester.set_failure_budget(Some(PROBATION_BUDGET));
        }
        let start = RunStart::now(tester, self.plan, position, self.changed);
        let place = SchedulePlace {
            stage,
            of: self.names.len(),
            round,
            position,
        };
        // Edits that failed before with the same neighbourhood wait for the settling round.
        tester.recall_mut().start_run(!settling);
        let skipped = tester.recall().skipped();
        let result = run_stage(place, tester);
        tester.recall_mut().end_run();
        let partial = tester.recall().skipped() > skipped;
        if budgeted {
            tester.set_failure_budget(None);
        }
        let interrupted = match result {
            Ok(()) => false,
            Err(Stop::Budget) => true,
            // The user skipped the stage: the round goes on with the next one.
            Err(Stop::Switched) if self.skipped_by_user(stage, tester) => {
                return Ok(RunEffect::Skipped);
            }
            Err(stop) => return Err(stop),
        };
        self.note_run(position, &start, interrupted, tester);
        let after = fingerprint(tester.best());
        Ok(self.records[stage].after_run(before, after, interrupted || partial))
    }

    /// The run of the stage at `position` noted: its record's tests and bytes, its last
    /// complete run in the plan, a [`ScheduledRun`] in the statistics, and the plan sent again.
    fn note_run(
        &mut self,
        position: usize,
        start: &RunStart,
        interrupted: bool,
        tester: &mut Tester,
    ) {
        let stage = self.plan.stages[position].stage;
        let record = &mut self.records[stage];
        record.tests = tester.stats().tests - start.tests;
        record.removed = start.size.saturating_sub(tester.best().len()) as u64;
        if !interrupted {
            record.complete = Some(LastRun {
                tests: record.tests,
                removed: record.removed,
                size: start.size as u64,
            });
            self.plan.stages[position].last = record.complete;
        }
        let nonws_removed = start
            .nonws
            .saturating_sub(non_whitespace_chars(tester.best())) as u64;
        let run = ScheduledRun {
            round: self.plan.round,
            position: position + 1,
            stage: self.names[stage].clone(),
            why: self.plan.stages[position].why.words().to_owned(),
            started_seconds: start.started,
            tests: record.tests,
            bytes_removed: record.removed,
            nonws_removed,
            bytes_per_test: record.removed as f64 / record.tests.max(1) as f64,
            nonws_per_test: nonws_removed as f64 / record.tests.max(1) as f64,
            interrupted,
            eta_seconds: start.eta_seconds,
            eta_guessed_stages: start.eta_guessed_stages,
            seconds: tester.running_time().as_secs_f64() - start.started,
        };
        tester.stats_mut().schedule.push(run);
        self.plan.lines = line_count(tester.best()) as u64;
        self.plan.bytes = tester.best().len() as u64;
        tester.emit(Event::ScheduleRound(self.plan.clone()));
    }
}

/// The running time the schedule still needs as stage `position` of `plan` begins, as the
/// front ends estimate it ([`forecast::eta`]), and how many stages of the round it guessed.
fn estimate(tester: &Tester, plan: &RoundPlan, position: usize, changed: bool) -> (f64, usize) {
    let stats = tester.stats();
    let mean = stats.test_seconds / stats.tests.max(1) as f64;
    let eta = forecast::eta(
        forecast::Position {
            plan,
            running: position,
            tests_so_far: 0,
            changed,
        },
        tester.best().len() as u64,
        mean,
        tester.jobs(),
    );
    (eta.seconds, eta.guessed)
}

/// The longest a final character pass is expected to take and still run.
pub const POLISH_LIMIT: std::time::Duration = std::time::Duration::from_secs(60);

/// The expected cost of a character pass over the current best, at least one test per
/// character at the mean test time so far, spread over the jobs: `Ok` when it is within
/// [`POLISH_LIMIT`], else why the pass is skipped.
pub fn polish_cost(tester: &Tester) -> Result<std::time::Duration, String> {
    let stats = tester.stats();
    let mean = stats.test_seconds / stats.tests.max(1) as f64;
    let chars = crate::text::atoms::split(tester.best(), crate::text::atoms::AtomKind::Char).len();
    let seconds = mean * chars as f64 / tester.jobs().max(1) as f64;
    if seconds <= POLISH_LIMIT.as_secs_f64() {
        Ok(std::time::Duration::from_secs_f64(seconds))
    } else {
        Err(format!(
            "tests are too slow for a character pass: {chars} characters at {mean:.2}s a test \
             would take at least {seconds:.0}s"
        ))
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use super::*;
    use crate::exec::cache::CachePolicy;
    use crate::observe::events::{Branch, Candidate, CandidateKind};
    use crate::params::Knobs;
    use crate::testing::control::Control;

    fn manual() -> Candidate {
        Candidate::single(CandidateKind::Manual)
    }

    /// A tester whose test wants two or more `a` and nothing else, starting from `best`.
    fn tester_of_as(best: &[u8]) -> Tester {
        let oracle = crate::exec::oracle::predicate("two or more a", |c: &[u8]| {
            c.len() >= 2 && c.iter().all(|&b| b == b'a')
        });
        let mut tester = Tester::new(
            Arc::new(oracle),
            CachePolicy::recommended(),
            Arc::new(Control::new(Knobs::default())),
        );
        tester.set_best(best.to_vec());
        tester
    }

    /// A stage that removes one `a` when that stays interesting.
    fn remove_one_a(tester: &mut Tester) -> Result<(), Stop> {
        let shorter = tester.best()[1..].to_vec();
        if tester.judge_single(manual(), &shorter)?.0.is_interesting() {
            tester.accept(shorter, None, Branch::Manual, manual());
        }
        Ok(())
    }

    /// Runs two stages on `aaaa` (two or more `a` wanted): one that removes an `a` a round,
    /// then `second`, which judges thirty distinct candidates of one byte (below the best in
    /// the reduction order), none interesting. Returns the
    /// rounds, the tests of each of `second`'s runs and the tester.
    fn remove_then_thirty_failures(second: ScheduledStage) -> (u32, Vec<u64>, Tester) {
        let mut tester = tester_of_as(b"aaaa");
        let stages = [ScheduledStage::new("remove an a"), second];
        let mut idle_tests = Vec::new();
        let mut fresh = 0u32;
        let rounds = run_named(&stages, &mut tester, |place, tester| {
            if place.stage == 0 {
                return remove_one_a(tester);
            }
            let before = tester.stats().tests;
            let result = (0..30).try_for_each(|_| {
                fresh += 1;
                tester.judge_single(manual(), &[(128 + fresh) as u8])?;
                Ok(())
            });
            idle_tests.push(tester.stats().tests - before);
            result
        })
        .unwrap();
        assert_eq!(tester.best(), b"aa");
        (rounds, idle_tests, tester)
    }

    #[test]
    fn idle_stages_go_on_probation_and_the_end_is_a_fixed_point() {
        let (rounds, idle_tests, _) = remove_then_thirty_failures(ScheduledStage::new("idle"));
        // Round 1: stage 1 is idle; round 2: on probation, deferred after 25 failures while
        // stage 0 still removes; round 3: stage 0 is idle, stage 1 deferred again; round 4
        // (nothing changed in round 3): it runs to its end, and nothing is deferred.
        assert_eq!(rounds, 4);
        assert_eq!(idle_tests, [30, 25, 25, 30]);
    }

    /// A stage that proposes an edit at every token starts on probation: its first run is cut
    /// after the budget too, and it still runs to its end once a round changed nothing.
    #[test]
    fn a_token_sweep_starts_on_probation() {
        let (rounds, idle_tests, tester) = remove_then_thirty_failures(ScheduledStage {
            name: "every token".into(),
            sweeps_tokens: true,
            waits_while_held: true,
        });
        // As in the test above, but its first run too stops after 25 failures in a row.
        assert_eq!(rounds, 4);
        assert_eq!(idle_tests, [25, 25, 25, 30]);
        let stats = tester.stats();
        let whys: Vec<&str> = stats
            .schedule
            .iter()
            .filter(|run| run.stage == "every token")
            .map(|run| run.why.as_str())
            .collect();
        assert_eq!(whys, ["probation", "deferred", "deferred", "to the end"]);
    }

    /// A stage that never removes anything runs last in every round after the first, and at
    /// most once a round; the others reach their fixed point first.
    #[test]
    fn a_stage_that_never_removes_runs_last_once_a_round() {
        let mut tester = tester_of_as(b"aaaaaa");
        let mut runs: Vec<(u32, usize)> = Vec::new();
        let mut fresh = 0u32;
        run(2, &mut tester, |stage, round, tester| {
            runs.push((round, stage));
            if stage == 1 {
                return remove_one_a(tester);
            }
            (0..40).try_for_each(|_| {
                fresh += 1;
                tester.judge_single(manual(), format!("b{fresh}").as_bytes())?;
                Ok(())
            })
        })
        .unwrap();
        assert_eq!(tester.best(), b"aa");
        let last_round = runs.last().map_or(0, |&(round, _)| round);
        for round in 2..=last_round {
            let stages: Vec<usize> = runs
                .iter()
                .filter(|&&(r, _)| r == round)
                .map(|&(_, stage)| stage)
                .collect();
            assert!(
                stages.iter().filter(|&&stage| stage == 0).count() <= 1,
                "{runs:?}"
            );
            if let Some(at) = stages.iter().position(|&stage| stage == 0) {
                assert_eq!(at, stages.len() - 1, "round {round}: {runs:?}");
            }
        }
    }

    /// A stage's edits that failed before are skipped while another stage still removes
    /// something, and tried again once a round changed nothing.
    #[test]
    fn known_failures_wait_for_the_round_that_settles() {
        let mut tester = tester_of_as(b"aaaaa");
        let candidate = manual();
        let mut tried = Vec::new();
        let rounds = run(2, &mut tester, |stage, round, tester| {
            if stage == 0 {
                let shorter = tester.best()[1..].to_vec();
                if tester.judge_single(candidate, &shorter)?.0.is_interesting() {
                    tester.accept(shorter, None, Branch::Manual, candidate);
                }
                return Ok(());
            }
            // One edit, the same in every round (its text differs: the cache cannot know it).
            if !tester.recall_mut().skips(7) {
                tried.push(round);
                let text = format!("b{}", tester.best().len());
                tester.judge_single(candidate, text.as_bytes())?;
                tester.recall_mut().note_failed(7);
            }
            Ok(())
        })
        .unwrap();
        assert_eq!(tester.best(), b"aa");
        // Round 1 tries it; rounds 2 and 3 (stage 0 removes) and 4 (stage 0 idle) skip it;
        // round 5 settles: it is tried on the final text, and nothing is left to do.
        assert_eq!(tried, [1, 5]);
        assert_eq!(rounds, 5);
    }

    /// While the recall is held (a case whose other files still change), a stage that sweeps
    /// every token does not run: the plan says why, the schedule still ends, and the recall
    /// counts what it left out, so that the case runs it later without the hold.
    #[test]
    fn a_held_recall_leaves_the_token_sweeps_to_the_case() {
        let (tester, runs, whys) = held_schedule(true);
        assert_eq!(tester.best(), b"aa");
        assert_eq!(runs, [0, 0, 0], "only the stage with few edits ran");
        assert!(tester.recall().held_back() > 0);
        assert!(!whys.is_empty() && whys.iter().all(|&why| why == Placement::Held));
        let stats = tester.stats();
        assert!(stats.schedule.iter().all(|run| run.stage == "remove an a"));
        let (tester, runs, whys) = held_schedule(false);
        assert!(runs.contains(&1), "not held: the token sweep runs");
        assert!(!whys.contains(&Placement::Held));
        assert_eq!(tester.recall().held_back(), 0);
    }

    /// A stage that waits while the recall is held without sweeping every token (the finer tree
    /// walk after a coarse one) is left to the case too, and runs when the recall is not held.
    #[test]
    fn a_held_recall_leaves_a_finer_walk_to_the_case() {
        let finer = || ScheduledStage {
            name: "finer walk".into(),
            sweeps_tokens: false,
            waits_while_held: true,
        };
        let (_, runs, whys) = held_schedule_of(true, finer());
        assert_eq!(runs, [0, 0, 0]);
        assert!(!whys.is_empty() && whys.iter().all(|&why| why == Placement::Held));
        let (_, runs, whys) = held_schedule_of(false, finer());
        assert!(runs.contains(&1));
        assert!(!whys.contains(&Placement::Held));
    }

    /// A schedule of a stage that removes an `a` a round and a token sweep that judges one
    /// candidate, with the recall `held` or not: the tester, the stages that ran in order, and
    /// why the token sweep was where it was in each plan published.
    fn held_schedule(held: bool) -> (Tester, Vec<usize>, Vec<Placement>) {
        held_schedule_of(
            held,
            ScheduledStage {
                name: "every token".into(),
                sweeps_tokens: true,
                waits_while_held: true,
            },
        )
    }

    /// As [`held_schedule`], with `second` for the token sweep.
    fn held_schedule_of(
        held: bool,
        second: ScheduledStage,
    ) -> (Tester, Vec<usize>, Vec<Placement>) {
        let mut tester = tester_of_as(b"aaaa");
        let (sender, receiver) = crossbeam_channel::unbounded();
        tester.set_events(Some(sender));
        tester.recall_mut().hold(held);
        let stages = [ScheduledStage::new("remove an a"), second];
        let mut runs = Vec::new();
        run_named(&stages, &mut tester, |place, tester| {
            runs.push(place.stage);
            if place.stage == 0 {
                return remove_one_a(tester);
            }
            tester.judge_single(manual(), b"b")?;
            Ok(())
        })
        .unwrap();
        tester.set_events(None);
        let whys = receiver
            .try_iter()
            .filter_map(|event| match event {
                Event::ScheduleRound(plan) => Some(plan),
                _ => None,
            })
            .flat_map(|plan| plan.stages)
            .filter(|stage| stage.stage == 1)
            .map(|stage| stage.why)
            .collect();
        (tester, runs, whys)
    }

    #[test]
    fn productive_stages_go_first() {
        let records = vec![
            Record {
                tests: 10,
                removed: 10,
                ..Record::default()
            },
            Record::default(),
            Record {
                tests: 2,
                removed: 10,
                ..Record::default()
            },
        ];
        assert_eq!(round_order(&records), [2, 0, 1]);
        assert_eq!(round_order(&[Record::default(), Record::default()]), [0, 1]);
    }
}
