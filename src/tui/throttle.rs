//! Pacing of the UI's costly recomputations (diff, highlighting, parsing): each may take at
//! most a tenth of the machine's time, measured by the machine's clock, not the one shown.

use std::time::{Duration, Instant};

/// Remembers when a piece of work last ran and how long it took.
#[derive(Debug, Default)]
pub struct Throttle {
    cost: Duration,
    last_run: Option<Instant>,
}

impl Throttle {
    /// Whether running again at `now` would spend more than a tenth of the time since the last
    /// run on this work.
    pub fn too_soon(&self, now: Instant) -> bool {
        self.last_run
            .is_some_and(|last| now.saturating_duration_since(last) < self.cost * 10)
    }

    /// Runs `work` and remembers when and for how long.
    pub fn run<T>(&mut self, work: impl FnOnce() -> T) -> T {
        let started = Instant::now();
        let result = work();
        self.cost = started.elapsed();
        self.last_run = Some(started);
        result
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn waits_ten_times_the_cost_of_the_last_run() {
        let mut throttle = Throttle::default();
        assert!(
            !throttle.too_soon(Instant::now()),
            "the first run is never early"
        );
        let before = Instant::now();
        throttle.run(|| std::thread::sleep(Duration::from_millis(3)));
        let after = Instant::now();
        assert!(throttle.too_soon(after), "3 ms of work, then 30 ms of rest");
        let cost = after - before;
        assert!(!throttle.too_soon(after + cost * 10));
    }
}
