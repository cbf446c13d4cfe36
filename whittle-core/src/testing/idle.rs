//! The oracle's own runs on workers nothing else needs ([`Oracle::idle_work`]: a flaky test's
//! re-runs): started where a window or a single test leaves a worker free, counted among the
//! busy workers until they end, and stopped with the tester that started them.
//!
//! [`Oracle::idle_work`]: crate::exec::oracle::Oracle::idle_work

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use crossbeam_channel::{Receiver, Sender};

use crate::exec::oracle::{CancelToken, IdleWork};

/// How long a tester that goes waits for its idle runs to end once they are stopped.
const STOP_WAIT: Duration = Duration::from_secs(5);

/// The idle runs a tester started that have not ended.
pub(crate) struct IdleRuns {
    running: Arc<AtomicUsize>,
    /// The parent of every idle run's token: a child of the run's stop token.
    token: CancelToken,
    /// A message each time an idle run ends: a window waiting for a free worker wakes.
    ended_tx: Sender<()>,
    ended_rx: Receiver<()>,
}

impl IdleRuns {
    pub fn new(token: CancelToken) -> IdleRuns {
        let (ended_tx, ended_rx) = crossbeam_channel::unbounded();
        IdleRuns {
            running: Arc::new(AtomicUsize::new(0)),
            token,
            ended_tx,
            ended_rx,
        }
    }

    /// Idle runs under way.
    pub fn running(&self) -> usize {
        self.running.load(Ordering::SeqCst)
    }

    /// Where a message comes each time an idle run ends.
    pub fn ended(&self) -> Receiver<()> {
        self.ended_rx.clone()
    }

    /// Starts `work` on a worker of `pool`.
    pub fn launch(&self, pool: &rayon::ThreadPool, work: IdleWork) {
        self.running.fetch_add(1, Ordering::SeqCst);
        let running = Arc::clone(&self.running);
        let ended = self.ended_tx.clone();
        let token = self.token.child();
        pool.spawn(move || {
            work(&token);
            running.fetch_sub(1, Ordering::SeqCst);
            let _ = ended.send(());
        });
    }
}

impl Drop for IdleRuns {
    /// The runs under way are stopped (a re-run that is stopped waits for another worker), and
    /// waited for a moment, so that no test of this tester outlives it.
    fn drop(&mut self) {
        self.token.cancel();
        let since = Instant::now();
        while self.running() > 0 && since.elapsed() < STOP_WAIT {
            std::thread::sleep(Duration::from_millis(2));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_idle_run_is_counted_until_it_ends_and_stopped_with_its_owner() {
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(2)
            .build()
            .expect("a pool");
        let idle = IdleRuns::new(CancelToken::new());
        let (started_tx, started_rx) = crossbeam_channel::bounded(1);
        let (stopped_tx, stopped_rx) = crossbeam_channel::bounded(1);
        idle.launch(
            &pool,
            Box::new(move |token: &CancelToken| {
                let _ = started_tx.send(());
                while !token.is_cancelled() {
                    std::thread::sleep(Duration::from_millis(1));
                }
                let _ = stopped_tx.send(());
            }),
        );
        started_rx.recv().expect("started");
        assert_eq!(idle.running(), 1);
        let running = Arc::clone(&idle.running);
        drop(idle);
        assert!(
            stopped_rx.try_recv().is_ok(),
            "stopped before its owner went"
        );
        assert_eq!(running.load(Ordering::SeqCst), 0);
    }
}
