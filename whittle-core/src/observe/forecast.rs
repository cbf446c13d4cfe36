//! The course of a run as its events tell it, and the course ahead of a schedule: from what a
//! round of `(a+b+c)*` will run and why in that order ([`RoundPlan`], published by the schedule
//! as an event), each stage's likely cost in tests from its last complete run scaled by the
//! best's size today ([`likely_tests`]), and the time left for the whole run ([`eta`]). These
//! are estimates (the front ends show them with `~`); the schedule decides nothing by them.
//! [`Course`] folds the events a front end receives into what it shows: where the schedule is,
//! the mean test time, and the best's size over running time.

use std::time::Duration;

use crate::observe::events::{Action, Event, FILES_STAGE, SchedulePlace};

pub use crate::observe::events::{LastRun, Placement, PlannedStage, RoundPlan};

/// Tests in a row that may fail before a stage on probation is deferred (the schedule's rule,
/// here because the estimate caps a probation run by it).
pub const PROBATION_BUDGET: u64 = 25;

/// The tests a stage will likely run when it runs next, the best being `size` bytes: its last
/// complete run's tests scaled by the size (sweeps test in proportion to the units), at most
/// [`PROBATION_BUDGET`] on probation (the likely end of a run that finds nothing), none when
/// its result is known. `None` when it never ran to its end.
pub fn likely_tests(stage: &PlannedStage, size: u64) -> Option<f64> {
    if matches!(stage.why, Placement::Known | Placement::Held) {
        return Some(0.0);
    }
    let last = stage.last?;
    let scaled = last.tests as f64 * size as f64 / last.size.max(1) as f64;
    Some(match stage.why {
        Placement::Probation | Placement::Deferred => scaled.min(PROBATION_BUDGET as f64),
        _ => scaled,
    })
}

/// The tests guessed for a stage that never ran to its end: one per line of the best (a sweep
/// tests each unit at least once at its finest granularity), the lines counted when the plan
/// was published and scaled to the best's `size` now; at least one.
pub fn guessed_tests(plan: &RoundPlan, size: u64) -> f64 {
    let lines = plan.lines as f64 * size as f64 / plan.bytes.max(1) as f64;
    lines.round().max(1.0)
}

/// Where a schedule is: its round's plan, the stage running (its index in the plan) and the
/// tests that stage has run so far.
#[derive(Clone, Copy, Debug)]
pub struct Position<'a> {
    pub plan: &'a RoundPlan,
    pub running: usize,
    pub tests_so_far: u64,
    /// The round has changed the best already.
    pub changed: bool,
}

/// The time left, as estimated.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Eta {
    /// Tests left in this round (the stage running, less what it ran, and those after it).
    pub round_tests: f64,
    /// Tests of the rounds after it, at least one unless this is the last round.
    pub later_tests: f64,
    /// Seconds for all of them: tests × mean test time ÷ jobs.
    pub seconds: f64,
    /// Stages of the round that never ran to their end: their cost is guessed (one test per
    /// line of the best: a sweep tests each unit at least once at its finest granularity).
    pub guessed: usize,
    /// The tests of the round's guessed stages, within `round_tests`.
    pub guessed_tests: f64,
    pub last_round: bool,
}

impl Eta {
    /// Whether the guesses make most of the estimate: before the first stages end, a line of
    /// the input each, when they will run on a text that those stages have cut to a fraction
    /// (an 8 MB JSON file: 366 hours guessed, 17 s run). No time is worth showing then.
    pub fn mostly_guessed(&self) -> bool {
        self.guessed_tests > (self.round_tests + self.later_tests) / 2.0
    }
}

/// The time left for the whole schedule, the best being `size` bytes, tests taking
/// `mean_test_seconds` and `jobs` running at once. This round: the likely tests of the stage
/// running (less those it ran) and of the stages after it. After it, when the round changes
/// the best (it did already, or a stage still to run removed something in its last run or
/// never ran) and is not the last, one more round that checks the fixed point, each stage at
/// most [`PROBATION_BUDGET`] tests (measured: such a round skips the stages whose result is
/// known and finds most candidates of the others in the cache). A stage that never ran to its
/// end is guessed at one test per line of the best ([`guessed_tests`]).
pub fn eta(position: Position<'_>, size: u64, mean_test_seconds: f64, jobs: usize) -> Eta {
    let plan = position.plan;
    let guess = guessed_tests(plan, size);
    let mut guessed = 0;
    let mut guessed_tests = 0.0;
    let mut round_tests = 0.0;
    for (index, stage) in plan.stages.iter().enumerate().skip(position.running) {
        let tests = likely_tests(stage, size).unwrap_or_else(|| {
            guessed += 1;
            guessed_tests += guess;
            guess
        });
        round_tests += if index == position.running {
            (tests - position.tests_so_far as f64).max(0.0)
        } else {
            tests
        };
    }
    let will_change = position.changed
        || plan.stages[position.running..].iter().any(|stage| {
            matches!(stage.why, Placement::Yield | Placement::Written)
                && stage.last.is_none_or(|last| last.removed > 0)
        });
    let later_tests = if plan.last_round || !will_change {
        0.0
    } else {
        plan.stages
            .iter()
            .map(|stage| {
                let tests = match stage.last {
                    None => guess,
                    Some(last) => last.tests as f64 * size as f64 / last.size.max(1) as f64,
                };
                tests.min(PROBATION_BUDGET as f64)
            })
            .sum()
    };
    let seconds = (round_tests + later_tests) * mean_test_seconds / jobs.max(1) as f64;
    Eta {
        round_tests,
        later_tests,
        seconds,
        guessed,
        guessed_tests,
        last_round: plan.last_round,
    }
}

/// What a front end knows of the run's course from the events: the schedule's round and the
/// stage running, the real tests and their time, the best's size over running time.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Course {
    /// The plan of the schedule's current round (none outside a schedule).
    pub plan: Option<RoundPlan>,
    /// The stage of the schedule running.
    pub place: Option<SchedulePlace>,
    /// Real tests (checks of the input excluded) and their summed time.
    pub tests: u64,
    pub test_seconds: f64,
    /// Real tests when the stage running began.
    tests_at_stage: u64,
    /// (running time in seconds, bytes of the best): at the start and at each change. In a
    /// case of several files the bytes are the whole set's.
    pub curve: Vec<(f64, u64)>,
    /// In a case of several files, what runs now (`None`: a run on one file).
    case: Option<CasePart>,
}

/// The part of a case of several files that runs now.
#[derive(Clone, Copy, Debug, PartialEq)]
enum CasePart {
    /// Whole files are removed: what is accepted is a set, whose size the next file's turn
    /// tells.
    Files,
    /// One file is reduced while the others (`others` bytes) stay as they are.
    File { others: u64 },
}

impl Course {
    /// The course of a run on an input of `size` bytes.
    pub fn new(size: u64) -> Course {
        Course {
            curve: vec![(0.0, size)],
            ..Course::default()
        }
    }

    /// Folds one event in, `running` being the run's time then (pauses excluded).
    pub fn apply(&mut self, event: &Event, running: Duration) {
        match event {
            Event::ScheduleRound(plan) => self.plan = Some(plan.clone()),
            Event::StageStarted {
                stage, scheduled, ..
            } => {
                if stage == FILES_STAGE {
                    self.case = Some(CasePart::Files);
                }
                self.place = *scheduled;
                self.tests_at_stage = self.tests;
                if scheduled.is_none() {
                    self.plan = None;
                }
            }
            Event::Switched { .. } => {
                self.plan = None;
                self.place = None;
            }
            Event::CandidateJudged {
                action: Action::Test,
                candidate,
                duration,
                ..
            } if !candidate.is_check() => {
                self.tests += 1;
                self.test_seconds += duration.as_secs_f64();
            }
            Event::FileStarted { size, others, .. } => {
                self.case = Some(CasePart::File {
                    others: *others as u64,
                });
                self.curve
                    .push((running.as_secs_f64(), (*size + *others) as u64));
            }
            Event::Accepted { size, .. }
            | Event::Restarted { size, .. }
            | Event::Undone { size, .. } => {
                let others = match self.case {
                    None => 0,
                    Some(CasePart::File { others }) => others,
                    Some(CasePart::Files) => return,
                };
                self.curve
                    .push((running.as_secs_f64(), *size as u64 + others));
            }
            Event::FilesKept { size, .. } => {
                self.curve.push((running.as_secs_f64(), *size as u64));
            }
            Event::Done { stats } | Event::Stopped { stats, .. } if self.case.is_some() => {
                self.curve.push((running.as_secs_f64(), stats.output_bytes));
            }
            _ => {}
        }
    }

    /// The best's size now (in a case of several files the whole set's).
    pub fn size(&self) -> u64 {
        self.curve.last().map_or(0, |&(_, size)| size)
    }

    /// The size of what the schedule reduces now: the best's, or in a case the file's.
    pub fn scheduled_size(&self) -> u64 {
        match self.case {
            Some(CasePart::File { others }) => self.size().saturating_sub(others),
            _ => self.size(),
        }
    }

    /// The mean time of a real test so far.
    pub fn mean_test_seconds(&self) -> f64 {
        self.test_seconds / self.tests.max(1) as f64
    }

    /// Where the schedule is: its plan and the stage running (when it belongs to the plan).
    pub fn position(&self) -> Option<Position<'_>> {
        let plan = self.plan.as_ref()?;
        let place = self.place?;
        if place.round != plan.round || plan.stages.get(place.position)?.stage != place.stage {
            return None;
        }
        Some(Position {
            plan,
            running: place.position,
            tests_so_far: self.tests - self.tests_at_stage,
            changed: self.scheduled_size() != plan.size,
        })
    }

    /// The time left, with `jobs` tests at once.
    pub fn eta(&self, jobs: usize) -> Option<Eta> {
        Some(eta(
            self.position()?,
            self.scheduled_size(),
            self.mean_test_seconds(),
            jobs,
        ))
    }

    /// The best's size at `fraction` of the running time `now` (the last size reached by
    /// then).
    pub fn size_at(&self, fraction: f64, now: f64) -> u64 {
        let moment = now * fraction;
        self.curve
            .iter()
            .take_while(|&&(seconds, _)| seconds <= moment)
            .last()
            .map_or(self.size(), |&(_, size)| size)
    }

    /// One line for a progress display: `round 2 · stage 3 of 9 · ETA ~4m10s`, with how many
    /// stages it guesses (`(2 guessed)`; `ETA ? (9 not run yet)` while guesses make most of
    /// it) or `last round`; `None` outside a schedule.
    pub fn summary(&self, jobs: usize) -> Option<String> {
        let place = self.place?;
        let mut line = format!(
            "round {} · stage {} of {}",
            place.round,
            place.position + 1,
            place.of
        );
        match self.eta(jobs) {
            Some(eta) if eta.mostly_guessed() => {
                line.push_str(&format!(" · ETA ? ({} not run yet)", eta.guessed));
            }
            Some(eta) => {
                let time = if eta.seconds < 1.0 {
                    "<1s".to_owned()
                } else {
                    format!("~{}", short_duration(eta.seconds))
                };
                line.push_str(&format!(" · ETA {time}"));
                if eta.guessed > 0 {
                    line.push_str(&format!(" ({} guessed)", eta.guessed));
                }
                if eta.last_round {
                    line.push_str(" · last round");
                }
            }
            None => {}
        }
        Some(line)
    }
}

/// Seconds as a short duration: `42s`, `3m05s`, `1h12m`; under a second `<1s`.
pub fn short_duration(seconds: f64) -> String {
    if !seconds.is_finite() || seconds < 1.0 {
        return "<1s".into();
    }
    let whole = seconds.round() as u64;
    match whole {
        0..60 => format!("{whole}s"),
        60..3600 => format!("{}m{:02}s", whole / 60, whole % 60),
        _ => format!("{}h{:02}m", whole / 3600, whole % 3600 / 60),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn stage(index: usize, why: Placement, last: Option<(u64, u64, u64)>) -> PlannedStage {
        PlannedStage {
            stage: index,
            name: format!("s{index}"),
            why,
            last: last.map(|(tests, removed, size)| LastRun {
                tests,
                removed,
                size,
            }),
        }
    }

    #[test]
    fn a_stage_costs_its_last_tests_scaled_by_the_size() {
        // 200 tests on 1000 bytes; the best is 250 bytes now: 50 tests.
        let yielding = stage(0, Placement::Yield, Some((200, 300, 1000)));
        assert_eq!(likely_tests(&yielding, 250), Some(50.0));
        // On probation the budget caps it: 25, not 50; a small one stays small.
        let idle = stage(1, Placement::Probation, Some((200, 0, 1000)));
        assert_eq!(likely_tests(&idle, 250), Some(25.0));
        let small = stage(1, Placement::Deferred, Some((40, 0, 1000)));
        assert_eq!(likely_tests(&small, 500), Some(20.0));
        // To its end: the whole scaled run.
        let to_the_end = stage(1, Placement::ToTheEnd, Some((200, 0, 1000)));
        assert_eq!(likely_tests(&to_the_end, 500), Some(100.0));
        assert_eq!(
            likely_tests(&stage(2, Placement::Known, Some((9, 0, 9))), 9),
            Some(0.0)
        );
        assert_eq!(likely_tests(&stage(3, Placement::Written, None), 9), None);
    }

    #[test]
    fn the_eta_sums_the_rest_of_the_round_and_one_more() {
        let plan = RoundPlan {
            round: 2,
            last_round: false,
            size: 1000,
            lines: 10,
            bytes: 1000,
            stages: vec![
                stage(2, Placement::Yield, Some((100, 500, 1000))),
                stage(0, Placement::Yield, Some((40, 100, 800))),
                stage(1, Placement::Probation, Some((300, 0, 1000))),
            ],
        };
        // The first stage ran 30 of its likely 50 (size 500); then 25 and 25 (capped).
        let eta = super::eta(
            Position {
                plan: &plan,
                running: 0,
                tests_so_far: 30,
                changed: false,
            },
            500,
            0.5,
            2,
        );
        assert_eq!(eta.round_tests, 20.0 + 25.0 + 25.0);
        // One more round: each stage at most the budget: 25, 25 (of 40 × 500/800) and 25.
        assert_eq!(eta.later_tests, 75.0);
        assert_eq!(eta.seconds, (70.0 + 75.0) * 0.5 / 2.0);
        assert_eq!(eta.guessed, 0);
        // A stage that ran more than expected costs nothing more; in the last round no later
        // round is counted.
        let last = RoundPlan {
            last_round: true,
            ..plan.clone()
        };
        let eta = super::eta(
            Position {
                plan: &last,
                running: 1,
                tests_so_far: 99,
                changed: true,
            },
            500,
            1.0,
            1,
        );
        assert_eq!((eta.round_tests, eta.later_tests), (25.0, 0.0));
        assert_eq!(eta.seconds, 25.0);
        assert!(eta.last_round);
    }

    #[test]
    fn a_round_that_likely_changes_nothing_is_the_last() {
        // Nothing changed yet and no stage left removed anything last time: no later round.
        let plan = RoundPlan {
            round: 3,
            last_round: false,
            size: 1000,
            lines: 10,
            bytes: 1000,
            stages: vec![
                stage(0, Placement::Yield, Some((100, 500, 1000))),
                stage(1, Placement::Probation, Some((60, 0, 500))),
            ],
        };
        let at = |running, changed| {
            super::eta(
                Position {
                    plan: &plan,
                    running,
                    tests_so_far: 0,
                    changed,
                },
                500,
                1.0,
                1,
            )
        };
        assert_eq!(
            (at(1, false).round_tests, at(1, false).later_tests),
            (25.0, 0.0)
        );
        // Once the round changed the best, the fixed point needs one more: 25 + 25.
        assert_eq!(at(1, true).later_tests, 50.0);
        // Before the stage that removed something ran, it is expected to remove again.
        assert_eq!(at(0, false).later_tests, 50.0);
    }

    #[test]
    fn stages_that_never_ran_are_guessed_at_a_test_a_line() {
        let plan = RoundPlan {
            round: 1,
            last_round: false,
            size: 100,
            lines: 7,
            bytes: 100,
            stages: vec![
                stage(0, Placement::Written, Some((10, 5, 100))),
                stage(1, Placement::Written, None),
                stage(2, Placement::Written, None),
            ],
        };
        let eta = super::eta(
            Position {
                plan: &plan,
                running: 0,
                tests_so_far: 4,
                changed: false,
            },
            100,
            1.0,
            1,
        );
        assert_eq!(eta.guessed, 2);
        // The lines are scaled to the size: 7 lines in 100 bytes are about 4 in 50.
        assert_eq!(guessed_tests(&plan, 50), 4.0);
        // This round: 6 left of the first, 7 and 7; the next: 10, 7 and 7.
        assert_eq!((eta.round_tests, eta.later_tests), (20.0, 24.0));
        // 14 of 44 tests guessed: the time is worth showing.
        assert_eq!(eta.guessed_tests, 14.0);
        assert!(!eta.mostly_guessed());
        // The next round counts each stage at most at the budget.
        let long = RoundPlan {
            lines: 70,
            ..plan.clone()
        };
        let eta = super::eta(
            Position {
                plan: &long,
                running: 0,
                tests_so_far: 4,
                changed: false,
            },
            100,
            1.0,
            1,
        );
        assert_eq!((eta.round_tests, eta.later_tests), (146.0, 60.0));
        // 140 of 206 guessed: no time is shown (see `summary`).
        assert!(eta.mostly_guessed());
    }

    /// A course of a `size`-byte input in `plan`'s round, its first stage running.
    fn course_at_first_stage(size: u64, plan: RoundPlan) -> Course {
        let mut course = Course::new(size);
        let first = plan.stages[0].clone();
        let (round, of) = (plan.round, plan.stages.len());
        course.apply(&Event::ScheduleRound(plan), Duration::ZERO);
        course.apply(
            &Event::StageStarted {
                stage: first.name,
                index: 0,
                scheduled: Some(SchedulePlace {
                    stage: first.stage,
                    of,
                    round,
                    position: 0,
                }),
            },
            Duration::ZERO,
        );
        course
    }

    #[test]
    fn the_course_follows_the_events() {
        use crate::observe::events::{Branch, Candidate, CandidateKind};
        let plan = RoundPlan {
            round: 2,
            last_round: true,
            size: 1000,
            lines: 10,
            bytes: 1000,
            stages: vec![
                stage(1, Placement::ToTheEnd, Some((40, 0, 1000))),
                stage(0, Placement::Known, Some((10, 0, 500))),
            ],
        };
        let mut course = course_at_first_stage(1000, plan);
        let candidate = Candidate::single(CandidateKind::Manual);
        for _ in 0..4 {
            course.apply(
                &Event::CandidateJudged {
                    step: 1,
                    candidate,
                    size: 400,
                    preview: None,
                    removed: Vec::new(),
                    action: Action::Test,
                    outcome: crate::outcome::Outcome::NotInteresting,
                    status: None,
                    duration: Duration::from_millis(500),
                    node: None,
                    timeout_reruns: 0,
                },
                Duration::from_secs(1),
            );
        }
        course.apply(
            &Event::Accepted {
                step: 4,
                size: 500,
                branch: Branch::Manual,
                candidate,
            },
            Duration::from_secs(8),
        );
        // 40 tests at 1000 bytes: 20 at 500, 4 run; the known stage costs nothing.
        let eta = course.eta(2).expect("in the plan");
        assert_eq!((eta.round_tests, eta.later_tests), (16.0, 0.0));
        assert_eq!(eta.seconds, 16.0 * 0.5 / 2.0);
        assert_eq!(
            course.summary(2).as_deref(),
            Some("round 2 · stage 1 of 2 · ETA ~4s · last round")
        );
        assert_eq!(course.size_at(0.5, 10.0), 1000);
        assert_eq!(course.size_at(1.0, 10.0), 500);
    }

    /// Before the first stages end, every stage is guessed at a line of the input: no time.
    #[test]
    fn a_run_whose_stages_never_ran_shows_no_time() {
        let plan = RoundPlan {
            round: 1,
            last_round: false,
            size: 1000,
            lines: 100,
            bytes: 1000,
            stages: vec![
                stage(0, Placement::Written, None),
                stage(1, Placement::Written, None),
            ],
        };
        let course = course_at_first_stage(1000, plan);
        assert_eq!(
            course.summary(1).as_deref(),
            Some("round 1 · stage 1 of 2 · ETA ? (2 not run yet)")
        );
    }

    #[test]
    fn a_case_s_course_is_the_whole_set_s_size() {
        use crate::observe::events::{Branch, Candidate, CandidateKind};
        let candidate = Candidate::single(CandidateKind::Manual);
        let accepted = |size| Event::Accepted {
            step: 1,
            size,
            branch: Branch::Manual,
            candidate,
        };
        let started = |stage: &str| Event::StageStarted {
            stage: stage.into(),
            index: 0,
            scheduled: None,
        };
        let seconds = Duration::from_secs;
        let mut course = Course::new(3000);
        course.apply(&started(FILES_STAGE), seconds(1));
        // A set of whole files (a bundle's size) is no point of the curve.
        course.apply(&accepted(2600), seconds(2));
        course.apply(
            &Event::FileStarted {
                path: "a.c".into(),
                index: 0,
                of: 2,
                round: 1,
                size: 1500,
                others: 900,
            },
            seconds(3),
        );
        course.apply(&accepted(400), seconds(4));
        assert_eq!(course.scheduled_size(), 400);
        course.apply(&started(FILES_STAGE), seconds(5));
        course.apply(&accepted(700), seconds(6));
        let stats = crate::observe::stats::Stats {
            output_bytes: 1000,
            ..Default::default()
        };
        course.apply(&Event::Done { stats }, seconds(7));
        assert_eq!(
            course.curve,
            vec![(0.0, 3000), (3.0, 2400), (4.0, 1300), (7.0, 1000)]
        );
        assert_eq!(course.size_at(0.5, 7.0), 2400);
    }

    #[test]
    fn durations_read_short() {
        assert_eq!(short_duration(0.2), "<1s");
        assert_eq!(short_duration(42.4), "42s");
        assert_eq!(short_duration(185.0), "3m05s");
        assert_eq!(short_duration(4320.0), "1h12m");
    }
}
