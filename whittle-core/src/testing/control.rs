//! Steering a running reduction from another thread: pause, single steps, stop, and the knobs
//! (split factor, testing window, parallel mode), which the control alone owns while the
//! reduction runs. Every candidate the engine considers passes [`Control::checkpoint`].

use std::sync::{Condvar, Mutex, MutexGuard, PoisonError};

use serde::Serialize;

use crate::exec::processes::CancelToken;
use crate::params::{Knobs, ParallelMode, PlanChange, SplitFactor, max_jobs};

/// Why a reduction stopped before it finished on its own.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Stop {
    /// `--limit-tests` or `--limit-time` was reached.
    Limit(String),
    /// The user asked to stop (Ctrl-C, SIGTERM, `q`).
    Requested,
    /// The user switched algorithm or settings: the driver restarts from the current best.
    Switched,
    /// A stage on probation failed too many tests in a row (see
    /// [`crate::testing::tester::Tester::set_failure_budget`]); the schedule that set the budget
    /// takes it back and defers the stage.
    Budget,
    /// The test was just found flaky (see [`crate::testing::tester::Tester::arm_flaky_recheck`]):
    /// the driver re-tests the result, which may have been accepted on a lucky run, before the
    /// run goes on.
    Recheck,
    /// whittle itself failed (it could not write a candidate into its scratch directory, say):
    /// nothing to do with the test.
    Failed(String),
}

impl Stop {
    /// Whether running tests must be killed for this stop (all but a switch, which lets them
    /// finish).
    pub fn kills_running_tests(&self) -> bool {
        !matches!(self, Stop::Switched | Stop::Recheck)
    }
}

impl std::fmt::Display for Stop {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Stop::Limit(what) => write!(f, "stopped early: {what}"),
            Stop::Requested => f.write_str("stopped on request"),
            Stop::Switched => f.write_str("interrupted by a switch"),
            Stop::Budget => f.write_str("out of failed tests on probation"),
            Stop::Recheck => f.write_str("interrupted to re-test the result of a flaky test"),
            Stop::Failed(why) => write!(f, "stopped by an error of whittle's: {why}"),
        }
    }
}

/// The knobs while a run lasts, with the version of the plan they make.
#[derive(Debug)]
struct LiveKnobs {
    knobs: Knobs,
    version: u64,
    unreported: Vec<PlanChange>,
}

impl LiveKnobs {
    /// Sets a knob to `new`; a change of value makes a new version of the plan.
    fn switch<T: PartialEq + std::fmt::Display>(
        &mut self,
        what: &str,
        knob: impl FnOnce(&mut Knobs) -> &mut T,
        new: T,
    ) {
        let value = knob(&mut self.knobs);
        if *value == new {
            return;
        }
        let change = format!("{what} {value} → {new}");
        *value = new;
        self.version += 1;
        self.unreported.push(PlanChange {
            version: self.version,
            change,
        });
    }
}

#[derive(Debug, Default)]
struct State {
    paused: bool,
    /// In step mode, how many more candidates may be considered before pausing again.
    steps_granted: u64,
    step_mode: bool,
    stop: Option<Stop>,
    /// The engine is blocked in [`Control::checkpoint`], waiting for a step or a resume.
    parked: bool,
    /// Time spent parked, and since when it is parked now.
    parked_for: std::time::Duration,
    parked_since: Option<std::time::Instant>,
    /// The user asked to skip the stage running: whoever runs it takes the request (a
    /// schedule, for its stage; else the session, for the pipeline's).
    skip_requested: bool,
}

/// Shared between the engine thread and whoever steers it.
#[derive(Debug)]
pub struct Control {
    state: Mutex<State>,
    wake: Condvar,
    /// The one live copy of the knobs (the plan gave their starting values), the plan's version
    /// and the switches not yet reported.
    knobs: Mutex<LiveKnobs>,
    /// The largest testing window: what the tests' executor allows ([`max_jobs`] on this
    /// machine).
    max_jobs: usize,
    /// Cancelled by every stop but a switch: the tokens of all test runs are its children, so
    /// a stop kills the tests that run and keeps new ones from starting.
    stop_token: CancelToken,
}

impl Control {
    /// A control whose knobs start at `start` (the testing window clamped to 1..=[`max_jobs`]).
    pub fn new(start: Knobs) -> Self {
        Self::with_max_jobs(start, max_jobs())
    }

    /// A control whose testing window may go up to `max` (an executor's cap, see
    /// [`crate::exec::oracle::Oracle::max_jobs`]) instead of [`max_jobs`].
    pub fn with_max_jobs(start: Knobs, max: usize) -> Self {
        let max = max.max(1);
        Control {
            state: Mutex::new(State::default()),
            wake: Condvar::new(),
            knobs: Mutex::new(LiveKnobs {
                knobs: Knobs {
                    jobs: start.jobs.clamp(1, max),
                    ..start
                },
                version: 0,
                unreported: Vec::new(),
            }),
            max_jobs: max,
            stop_token: CancelToken::new(),
        }
    }

    fn lock(&self) -> MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// The choke point: returns when the engine may consider one more candidate, or why it must
    /// stop. Blocks while paused, and in step mode until a step is granted; `before_parking`
    /// runs (outside the lock) once before it blocks, so that what the engine did so far can be
    /// shown before the display learns that it waits.
    pub fn checkpoint(&self, before_parking: impl FnMut()) -> Result<(), Stop> {
        let may_pass = |state: &mut State| {
            if !state.step_mode {
                return !state.paused;
            }
            let granted = state.steps_granted > 0;
            state.steps_granted = state.steps_granted.saturating_sub(1);
            granted
        };
        self.park_until(may_pass, before_parking)
    }

    /// The choke point for work that is no step of the algorithm (the checks of the input): it
    /// blocks while paused, but in step mode it passes without taking a granted step, so that
    /// the first step is the algorithm's first.
    pub fn checkpoint_outside_steps(&self, before_parking: impl FnMut()) -> Result<(), Stop> {
        self.park_until(|state| state.step_mode || !state.paused, before_parking)
    }

    /// Waits (parked) until `may_pass` says so or a stop is requested; runs `before_parking`
    /// once before it first blocks.
    fn park_until(
        &self,
        mut may_pass: impl FnMut(&mut State) -> bool,
        mut before_parking: impl FnMut(),
    ) -> Result<(), Stop> {
        let mut state = self.lock();
        let mut prepared = false;
        loop {
            if let Some(stop) = &state.stop {
                return Err(stop.clone());
            }
            if may_pass(&mut state) {
                return Ok(());
            }
            if !prepared {
                // Outside the lock, then judged again: a command may have come meanwhile.
                prepared = true;
                drop(state);
                before_parking();
                state = self.lock();
                continue;
            }
            state.parked = true;
            state.parked_since = Some(std::time::Instant::now());
            state = self
                .wake
                .wait(state)
                .unwrap_or_else(PoisonError::into_inner);
            state.parked = false;
            if let Some(since) = state.parked_since.take() {
                state.parked_for += since.elapsed();
            }
        }
    }

    /// Whether the engine waits at the checkpoint (paused, or between steps); with one job,
    /// everything it did before has then been reported.
    pub fn is_parked(&self) -> bool {
        self.lock().parked
    }

    /// How long the engine has waited at its checkpoint in all (paused, or between steps): the
    /// time that is no running time.
    pub fn parked_time(&self) -> std::time::Duration {
        let state = self.lock();
        state.parked_for
            + state
                .parked_since
                .map_or_else(Default::default, |since| since.elapsed())
    }

    /// Pauses before the next candidate (the running ones finish).
    pub fn pause(&self) {
        self.lock().paused = true;
    }

    pub fn resume(&self) {
        let mut state = self.lock();
        state.paused = false;
        state.step_mode = false;
        self.wake.notify_all();
    }

    /// Enters step mode (if needed) and lets exactly one more candidate through.
    pub fn step(&self) {
        let mut state = self.lock();
        state.step_mode = true;
        state.paused = true;
        state.steps_granted += 1;
        self.wake.notify_all();
    }

    /// Switches step mode on (every candidate waits for [`Control::step`]) or off.
    pub fn set_step_mode(&self, on: bool) {
        let mut state = self.lock();
        state.step_mode = on;
        state.paused = on;
        state.steps_granted = 0;
        self.wake.notify_all();
    }

    pub fn is_step_mode(&self) -> bool {
        self.lock().step_mode
    }

    pub fn is_paused(&self) -> bool {
        let state = self.lock();
        state.paused || state.step_mode
    }

    /// Makes the next checkpoint fail with `stop` (the first reason given wins until cleared).
    /// Every stop but a switch also kills the running tests and keeps new ones from starting.
    pub fn request_stop(&self, stop: Stop) {
        let kills = stop.kills_running_tests();
        {
            let mut state = self.lock();
            if state.stop.is_none() || state.stop == Some(Stop::Switched) || stop == Stop::Requested
            {
                state.stop = Some(stop);
            }
            self.wake.notify_all();
        }
        if kills {
            self.stop_token.cancel();
        }
    }

    /// The token every test run's token descends from (see [`Control::request_stop`]).
    pub fn stop_token(&self) -> &CancelToken {
        &self.stop_token
    }

    /// Asks to skip the stage running: a [`Stop::Switched`] interrupts it, and whoever runs the
    /// stage [takes](Control::take_skip) the request.
    pub fn request_skip(&self) {
        self.lock().skip_requested = true;
        self.request_stop(Stop::Switched);
    }

    /// Whether a skip was requested, and no longer (the one who skips takes it).
    pub fn take_skip(&self) -> bool {
        std::mem::take(&mut self.lock().skip_requested)
    }

    /// Clears a pending [`Stop::Switched`] once the driver has handled it.
    pub fn clear_switch(&self) {
        let mut state = self.lock();
        if state.stop == Some(Stop::Switched) {
            state.stop = None;
        }
    }

    pub fn stop_requested(&self) -> Option<Stop> {
        self.lock().stop.clone()
    }

    fn knobs_now(&self) -> MutexGuard<'_, LiveKnobs> {
        self.knobs.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// The knobs as they are now.
    pub fn knobs(&self) -> Knobs {
        self.knobs_now().knobs
    }

    /// The version of the running plan: 0 as resolved, one more for each live switch.
    pub fn plan_version(&self) -> u64 {
        self.knobs_now().version
    }

    /// The switches of the plan since this was last asked, oldest first (the engine reports
    /// them).
    pub fn take_plan_changes(&self) -> Vec<PlanChange> {
        std::mem::take(&mut self.knobs_now().unreported)
    }

    pub fn split_factor(&self) -> SplitFactor {
        self.knobs_now().knobs.split_factor
    }

    /// Changes ν; ddmin picks it up at its next granularity step.
    pub fn set_split_factor(&self, nu: SplitFactor) {
        self.knobs_now()
            .switch("split factor", |knobs| &mut knobs.split_factor, nu);
    }

    /// The testing window: how many tests run at once.
    pub fn jobs(&self) -> usize {
        self.knobs_now().knobs.jobs
    }

    /// Changes the testing window (clamped to 1..=[`Control::max_jobs`]); the tester adopts
    /// it at its next window.
    pub fn set_jobs(&self, jobs: usize) {
        let jobs = jobs.clamp(1, self.max_jobs);
        self.knobs_now()
            .switch("jobs", |knobs| &mut knobs.jobs, jobs);
    }

    /// The largest testing window allowed.
    pub fn max_jobs(&self) -> usize {
        self.max_jobs
    }

    pub fn parallel_mode(&self) -> ParallelMode {
        self.knobs_now().knobs.parallel
    }

    /// Changes the parallel mode; ddmin adopts it at its next round.
    pub fn set_parallel_mode(&self, mode: ParallelMode) {
        self.knobs_now()
            .switch("parallel mode", |knobs| &mut knobs.parallel, mode);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Arc;
    use std::time::Duration;

    #[test]
    fn steps_let_one_candidate_through_each() {
        let control = Arc::new(Control::new(Knobs::default()));
        control.set_step_mode(true);
        control.step();
        control.step();
        assert!(control.checkpoint(|| {}).is_ok());
        assert!(control.checkpoint(|| {}).is_ok());
        let waiting = {
            let control = control.clone();
            std::thread::spawn(move || control.checkpoint(|| {}))
        };
        std::thread::sleep(Duration::from_millis(50));
        assert!(!waiting.is_finished(), "a third candidate waits for a step");
        control.request_stop(Stop::Requested);
        assert_eq!(waiting.join().unwrap(), Err(Stop::Requested));
    }

    #[test]
    fn checks_outside_steps_pass_in_step_mode_but_wait_while_paused() {
        let control = Arc::new(Control::new(Knobs::default()));
        control.set_step_mode(true);
        assert!(control.checkpoint_outside_steps(|| {}).is_ok());
        control.step();
        assert!(
            control.checkpoint(|| {}).is_ok(),
            "the granted step is still there"
        );

        control.set_step_mode(false);
        control.pause();
        let waiting = {
            let control = control.clone();
            std::thread::spawn(move || control.checkpoint_outside_steps(|| {}))
        };
        std::thread::sleep(Duration::from_millis(50));
        assert!(!waiting.is_finished(), "a pause holds the checks too");
        assert!(control.is_parked());
        control.resume();
        assert_eq!(waiting.join().unwrap(), Ok(()));
    }

    #[test]
    fn what_runs_before_parking_runs_once_and_before_the_engine_is_seen_parked() {
        let control = Arc::new(Control::new(Knobs::default()));
        let mut calls = 0;
        assert!(control.checkpoint(|| calls += 1).is_ok());
        assert_eq!(calls, 0, "nothing runs when the candidate may pass");

        control.pause();
        let seen_parked = Arc::new(std::sync::Mutex::new(Vec::new()));
        let waiting = {
            let control = control.clone();
            let seen_parked = seen_parked.clone();
            std::thread::spawn(move || {
                control.checkpoint(|| seen_parked.lock().unwrap().push(control.is_parked()))
            })
        };
        while !control.is_parked() {
            std::thread::sleep(Duration::from_millis(5));
        }
        std::thread::sleep(Duration::from_millis(30));
        // Woken without leave to pass (step mode, no step granted): it parks again.
        control.set_step_mode(true);
        std::thread::sleep(Duration::from_millis(30));
        assert!(control.is_parked());
        control.resume();
        assert_eq!(waiting.join().unwrap(), Ok(()));
        assert_eq!(*seen_parked.lock().unwrap(), vec![false]);
    }

    #[test]
    fn the_knobs_start_at_the_given_values_and_the_window_stays_in_bounds() {
        let start = Knobs {
            split_factor: SplitFactor::Finite(3),
            jobs: 2,
            parallel: ParallelMode::Greedy,
        };
        let control = Control::new(start);
        assert_eq!(control.knobs(), start);
        control.set_jobs(0);
        assert_eq!(control.jobs(), 1);
        control.set_jobs(usize::MAX);
        assert_eq!(control.jobs(), max_jobs());
        control.set_split_factor(SplitFactor::Infinite);
        control.set_parallel_mode(ParallelMode::First);
        assert_eq!(
            control.knobs(),
            Knobs {
                split_factor: SplitFactor::Infinite,
                jobs: max_jobs(),
                parallel: ParallelMode::First,
            }
        );
        let too_many = Control::new(Knobs {
            jobs: usize::MAX,
            ..Knobs::default()
        });
        assert_eq!(too_many.jobs(), max_jobs());
    }

    #[test]
    fn each_switch_that_changes_a_knob_makes_a_new_plan_version() {
        let control = Control::new(Knobs::default());
        assert_eq!(control.plan_version(), 0);
        control.set_split_factor(SplitFactor::Finite(2));
        assert_eq!(control.plan_version(), 0, "the same value changes nothing");
        control.set_split_factor(SplitFactor::Finite(4));
        control.set_parallel_mode(ParallelMode::Greedy);
        assert_eq!(control.plan_version(), 2);
        let changes = control.take_plan_changes();
        let words: Vec<&str> = changes.iter().map(|c| c.change.as_str()).collect();
        assert_eq!(
            words,
            ["split factor 2 → 4", "parallel mode stable → greedy"]
        );
        assert_eq!(changes[1].version, 2);
        assert!(control.take_plan_changes().is_empty());
    }
}
