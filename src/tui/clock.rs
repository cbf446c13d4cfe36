//! The UI's clock, injectable so that rendered screens can be made deterministic.

use std::sync::{Arc, Mutex, PoisonError};
use std::time::{Duration, Instant};

/// Where the UI reads the time (elapsed time, tests per second, throttling).
pub trait Clock: Send + Sync {
    fn now(&self) -> Instant;
}

/// The real clock.
pub struct SystemClock;

impl Clock for SystemClock {
    fn now(&self) -> Instant {
        Instant::now()
    }
}

/// A clock that moves only when told to (for tests and reproducible screens).
#[derive(Clone)]
pub struct ManualClock {
    start: Instant,
    offset: Arc<Mutex<Duration>>,
}

impl ManualClock {
    pub fn new() -> Self {
        ManualClock {
            start: Instant::now(),
            offset: Arc::default(),
        }
    }

    pub fn advance(&self, by: Duration) {
        *self.offset.lock().unwrap_or_else(PoisonError::into_inner) += by;
    }
}

impl Default for ManualClock {
    fn default() -> Self {
        Self::new()
    }
}

impl Clock for ManualClock {
    fn now(&self) -> Instant {
        self.start + *self.offset.lock().unwrap_or_else(PoisonError::into_inner)
    }
}
