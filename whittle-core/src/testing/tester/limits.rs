//! The limits of a run (`--limit-tests`, `--limit-time`): when the tester stops, counting what
//! a case's earlier sessions spent, and the timer that stops a run at its time limit.

use std::sync::Arc;
use std::time::Duration;

use crossbeam_channel::Sender;

use crate::testing::control::{Control, Stop};

use super::Tester;

/// Stop conditions of a run.
#[derive(Clone, Copy, Debug, Default)]
pub struct Limits {
    pub tests: Option<u64>,
    pub time: Option<Duration>,
    /// What earlier parts of the same run (a case's earlier sessions) spent of them: a tester
    /// counts its own on top, and reports a limit reached as the user gave it.
    pub spent: Spent,
}

/// Tests and time an earlier part of a run spent (see [`Limits::spent`]).
#[derive(Clone, Copy, Debug, Default)]
pub struct Spent {
    pub tests: u64,
    pub time: Duration,
}

fn time_limit_reached(limit: Duration) -> Stop {
    Stop::Limit(format!(
        "the time limit of {}s was reached",
        limit.as_secs_f64()
    ))
}

/// Starts a thread that stops the run after `left` unless the returned sender is dropped first.
fn arm_time_limit(control: Arc<Control>, limit: Duration, left: Duration) -> Option<Sender<()>> {
    let (disarm, disarmed) = crossbeam_channel::bounded::<()>(0);
    std::thread::Builder::new()
        .name("whittle-time-limit".into())
        .spawn(move || {
            if let Err(crossbeam_channel::RecvTimeoutError::Timeout) = disarmed.recv_timeout(left) {
                control.request_stop(time_limit_reached(limit));
            }
        })
        .ok()?;
    Some(disarm)
}

impl Tester {
    /// Sets the limits. A time limit also arms a timer that stops the run at the limit,
    /// killing the tests that run then (the checkpoint alone would wait for them).
    pub fn set_limits(&mut self, limits: Limits) {
        self.limits = limits;
        self.time_limit_timer = limits.time.and_then(|limit| {
            arm_time_limit(
                self.control.clone(),
                limit,
                limit.saturating_sub(self.time_toward_limit()),
            )
        });
    }

    /// The limit of tests or time, when one is reached.
    pub(super) fn limit_reached(&self) -> Option<Stop> {
        if let Some(stop) = self.test_limit_reached() {
            return Some(stop);
        }
        if let Some(max) = self.limits.time
            && self.time_toward_limit() >= max
        {
            return Some(time_limit_reached(max));
        }
        None
    }

    /// The stop of `--limit-tests` once as many tests as it allows have started.
    pub(super) fn test_limit_reached(&self) -> Option<Stop> {
        let max = self.limits.tests?;
        (self.tests_toward_limit() >= max)
            .then(|| Stop::Limit(format!("the limit of {max} tests was reached")))
    }

    /// The tests that count toward the test limit: those started so far, the run's earlier
    /// parts' included.
    pub(super) fn tests_toward_limit(&self) -> u64 {
        self.tests_started.max(self.stats.tests) + self.limits.spent.tests
    }

    /// The time that counts toward the time limit, the run's earlier parts' included.
    fn time_toward_limit(&self) -> Duration {
        self.started.elapsed() + self.limits.spent.time
    }
}
