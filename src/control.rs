//! Steering a running reduction from another thread: pause, single steps, stop, and the split
//! factor read live. Every candidate the engine considers passes [`Control::checkpoint`].

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Condvar, Mutex, MutexGuard, PoisonError};

use serde::Serialize;

use crate::oracle::CancelToken;

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
    /// whittle itself failed (it could not write a candidate into its scratch directory, say):
    /// nothing to do with the test.
    Failed(String),
}

impl Stop {
    /// Whether running tests must be killed for this stop (all but a switch, which lets them
    /// finish).
    pub fn kills_running_tests(&self) -> bool {
        !matches!(self, Stop::Switched)
    }
}

impl std::fmt::Display for Stop {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Stop::Limit(what) => write!(f, "stopped early: {what}"),
            Stop::Requested => f.write_str("stopped on request"),
            Stop::Switched => f.write_str("interrupted by a switch"),
            Stop::Failed(why) => write!(f, "stopped by an error of whittle's: {why}"),
        }
    }
}

/// The split factor ν of ddmin^ν: a number ≥ 2, or infinity (finest granularity at once).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub enum SplitFactor {
    Finite(u32),
    Infinite,
}

impl SplitFactor {
    /// min(len, n·ν): the granularity after splitting `n` chunks further, capped at `len`.
    pub fn grow(self, n: usize, len: usize) -> usize {
        match self {
            SplitFactor::Finite(nu) => n.saturating_mul(nu as usize).min(len),
            SplitFactor::Infinite => len,
        }
    }

    fn encode(self) -> u64 {
        match self {
            SplitFactor::Finite(nu) => u64::from(nu),
            SplitFactor::Infinite => 0,
        }
    }

    fn decode(raw: u64) -> Self {
        match raw {
            0 => SplitFactor::Infinite,
            nu => SplitFactor::Finite(nu as u32),
        }
    }
}

impl std::fmt::Display for SplitFactor {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            SplitFactor::Finite(nu) => write!(f, "{nu}"),
            SplitFactor::Infinite => f.write_str("inf"),
        }
    }
}

impl std::str::FromStr for SplitFactor {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        if matches!(s, "inf" | "infinity" | "∞") {
            return Ok(SplitFactor::Infinite);
        }
        match s.parse::<u32>() {
            Ok(nu) if nu >= 2 => Ok(SplitFactor::Finite(nu)),
            _ => Err(format!(
                "the split factor must be an integer ≥ 2 or `inf`, not `{s}`"
            )),
        }
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
}

/// Shared between the engine thread and whoever steers it.
#[derive(Debug)]
pub struct Control {
    state: Mutex<State>,
    wake: Condvar,
    split_factor: AtomicU64,
    jobs: AtomicU64,
    /// The largest testing window the tests' executor allows.
    max_jobs: AtomicU64,
    parallel: Mutex<Option<crate::dd::ParallelMode>>,
    /// Cancelled by every stop but a switch: the tokens of all test runs are its children, so
    /// a stop kills the tests that run and keeps new ones from starting.
    stop_token: CancelToken,
}

impl Control {
    pub fn new(split_factor: SplitFactor) -> Self {
        Control {
            state: Mutex::new(State::default()),
            wake: Condvar::new(),
            split_factor: AtomicU64::new(split_factor.encode()),
            jobs: AtomicU64::new(0),
            max_jobs: AtomicU64::new(crate::tester::max_jobs() as u64),
            parallel: Mutex::new(None),
            stop_token: CancelToken::new(),
        }
    }

    fn lock(&self) -> MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// The choke point: returns when the engine may consider one more candidate, or why it must
    /// stop. Blocks while paused, and in step mode until a step is granted.
    pub fn checkpoint(&self) -> Result<(), Stop> {
        self.park_until(|state| {
            if !state.step_mode {
                return !state.paused;
            }
            let granted = state.steps_granted > 0;
            state.steps_granted = state.steps_granted.saturating_sub(1);
            granted
        })
    }

    /// The choke point for work that is no step of the algorithm (the checks of the input): it
    /// blocks while paused, but in step mode it passes without taking a granted step, so that
    /// the first step is the algorithm's first.
    pub fn checkpoint_outside_steps(&self) -> Result<(), Stop> {
        self.park_until(|state| state.step_mode || !state.paused)
    }

    /// Waits (parked) until `may_pass` says so or a stop is requested.
    fn park_until(&self, mut may_pass: impl FnMut(&mut State) -> bool) -> Result<(), Stop> {
        let mut state = self.lock();
        loop {
            if let Some(stop) = &state.stop {
                return Err(stop.clone());
            }
            if may_pass(&mut state) {
                return Ok(());
            }
            state.parked = true;
            state = self
                .wake
                .wait(state)
                .unwrap_or_else(PoisonError::into_inner);
            state.parked = false;
        }
    }

    /// Whether the engine waits at the checkpoint (paused, or between steps); with one job,
    /// everything it did before has then been reported.
    pub fn is_parked(&self) -> bool {
        self.lock().parked
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

    pub fn split_factor(&self) -> SplitFactor {
        SplitFactor::decode(self.split_factor.load(Ordering::Relaxed))
    }

    /// The testing window wanted (0: not set); the tester adopts it at its next window.
    pub fn jobs(&self) -> usize {
        self.jobs.load(Ordering::Relaxed) as usize
    }

    pub fn set_jobs(&self, jobs: usize) {
        self.jobs.store(jobs as u64, Ordering::Relaxed);
    }

    /// The largest testing window allowed (see [`crate::oracle::Oracle::max_jobs`]).
    pub fn max_jobs(&self) -> usize {
        self.max_jobs.load(Ordering::Relaxed) as usize
    }

    pub fn set_max_jobs(&self, max: usize) {
        self.max_jobs.store(max.max(1) as u64, Ordering::Relaxed);
    }

    /// The parallel mode wanted, if it was changed; ddmin adopts it at its next round.
    pub fn parallel_mode(&self) -> Option<crate::dd::ParallelMode> {
        *self.parallel.lock().unwrap_or_else(PoisonError::into_inner)
    }

    pub fn set_parallel_mode(&self, mode: crate::dd::ParallelMode) {
        *self.parallel.lock().unwrap_or_else(PoisonError::into_inner) = Some(mode);
    }

    /// Changes ν; ddmin picks it up at its next granularity step.
    pub fn set_split_factor(&self, nu: SplitFactor) {
        self.split_factor.store(nu.encode(), Ordering::Relaxed);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Arc;
    use std::time::Duration;

    #[test]
    fn split_factor_parses_and_grows() {
        assert_eq!("inf".parse::<SplitFactor>(), Ok(SplitFactor::Infinite));
        assert_eq!("3".parse::<SplitFactor>(), Ok(SplitFactor::Finite(3)));
        assert!("1".parse::<SplitFactor>().is_err());
        assert_eq!(SplitFactor::Finite(2).grow(4, 5), 5);
        assert_eq!(SplitFactor::Finite(3).grow(2, 100), 6);
        assert_eq!(SplitFactor::Infinite.grow(2, 100), 100);
    }

    #[test]
    fn steps_let_one_candidate_through_each() {
        let control = Arc::new(Control::new(SplitFactor::Finite(2)));
        control.set_step_mode(true);
        control.step();
        control.step();
        assert!(control.checkpoint().is_ok());
        assert!(control.checkpoint().is_ok());
        let waiting = {
            let control = control.clone();
            std::thread::spawn(move || control.checkpoint())
        };
        std::thread::sleep(Duration::from_millis(50));
        assert!(!waiting.is_finished(), "a third candidate waits for a step");
        control.request_stop(Stop::Requested);
        assert_eq!(waiting.join().unwrap(), Err(Stop::Requested));
    }

    #[test]
    fn checks_outside_steps_pass_in_step_mode_but_wait_while_paused() {
        let control = Arc::new(Control::new(SplitFactor::Finite(2)));
        control.set_step_mode(true);
        assert!(control.checkpoint_outside_steps().is_ok());
        control.step();
        assert!(
            control.checkpoint().is_ok(),
            "the granted step is still there"
        );

        control.set_step_mode(false);
        control.pause();
        let waiting = {
            let control = control.clone();
            std::thread::spawn(move || control.checkpoint_outside_steps())
        };
        std::thread::sleep(Duration::from_millis(50));
        assert!(!waiting.is_finished(), "a pause holds the checks too");
        assert!(control.is_parked());
        control.resume();
        assert_eq!(waiting.join().unwrap(), Ok(()));
    }
}
