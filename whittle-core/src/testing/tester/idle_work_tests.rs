//! The oracle's idle work in the tester: started on the workers a test leaves free, counted
//! among the busy ones, and a window woken when one ends.

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use super::window::tests::Contents;
use super::{Tester, WindowPolicy};
use crate::exec::cache::CachePolicy;
use crate::exec::oracle::{CancelToken, IdleWork, Oracle, TestStatus, Verdict};
use crate::outcome::Outcome;
use crate::params::Knobs;
use crate::testing::control::Control;

/// A test that finds nothing interesting after `duration`.
fn not_interesting_after(duration: Duration) -> Verdict {
    std::thread::sleep(duration);
    Verdict {
        outcome: Outcome::NotInteresting,
        status: TestStatus::Exited(1),
        duration,
        output_tail: None,
        node: None,
        remembered: false,
        timeout_reruns: 0,
    }
}

/// Not interesting, after 50 ms; has `left` idle runs of 300 ms to hand out and counts
/// those started.
struct WithIdleWork {
    left: AtomicUsize,
    started: Arc<AtomicUsize>,
}

impl Oracle for WithIdleWork {
    fn judge(&self, _: &[u8], _: &CancelToken) -> Verdict {
        not_interesting_after(Duration::from_millis(50))
    }

    fn describe(&self) -> String {
        "with idle work".into()
    }

    fn idle_work(&self) -> Option<IdleWork> {
        self.left
            .fetch_update(Ordering::SeqCst, Ordering::SeqCst, |left| {
                left.checked_sub(1)
            })
            .ok()?;
        let started = Arc::clone(&self.started);
        Some(Box::new(move |_: &CancelToken| {
            started.fetch_add(1, Ordering::SeqCst);
            std::thread::sleep(Duration::from_millis(300));
        }))
    }
}

/// The oracle's idle work goes to the workers a test leaves free, and only to those: with
/// one job there are none.
#[test]
fn idle_work_runs_on_the_workers_a_test_leaves_free() {
    for (jobs, started) in [(1, 0), (2, 1), (3, 2)] {
        let control = Arc::new(Control::new(Knobs {
            jobs,
            ..Knobs::default()
        }));
        let oracle = Arc::new(WithIdleWork {
            left: AtomicUsize::new(5),
            started: Arc::new(AtomicUsize::new(0)),
        });
        let mut tester = Tester::new(oracle.clone(), CachePolicy::recommended(), control.clone());
        tester.adopt_jobs().unwrap();
        tester.set_best(b"the best so far".to_vec());
        let found = tester
            .run_window(&Contents(vec!["one"]), WindowPolicy::FirstInOrder)
            .unwrap();
        assert!(found.is_empty());
        assert_eq!(tester.idle.running(), started, "{jobs} jobs");
        assert_eq!(
            oracle.left.load(Ordering::SeqCst),
            5 - started,
            "{jobs} jobs"
        );
        // The workers are still busy with the idle work: the next test starts no more.
        let found = tester
            .run_window(&Contents(vec!["two"]), WindowPolicy::FirstInOrder)
            .unwrap();
        assert!(found.is_empty());
        assert_eq!(
            oracle.left.load(Ordering::SeqCst),
            5 - started,
            "{jobs} jobs"
        );
        if jobs == 3 {
            // As many idle runs under way as workers: the window waits for one to end.
            control.set_jobs(2);
            let found = tester
                .run_window(&Contents(vec!["three", "four"]), WindowPolicy::FirstInOrder)
                .unwrap();
            assert!(found.is_empty());
            assert_eq!(tester.stats().tests, 4);
        }
        drop(tester);
        // Every idle run handed out ran (with three jobs, more after the first two ended).
        let handed_out = 5 - oracle.left.load(Ordering::SeqCst);
        assert_eq!(
            oracle.started.load(Ordering::SeqCst),
            handed_out,
            "{jobs} jobs"
        );
        assert!(handed_out >= started, "{jobs} jobs");
    }
}

/// Not interesting, after 400 ms, noting how many of its tests ran at once at most; hands
/// out one idle run of 50 ms.
#[derive(Default)]
struct SlowWithShortIdleRun {
    handed_out: AtomicUsize,
    running: AtomicUsize,
    most: AtomicUsize,
}

impl Oracle for SlowWithShortIdleRun {
    fn judge(&self, _: &[u8], _: &CancelToken) -> Verdict {
        let now = self.running.fetch_add(1, Ordering::SeqCst) + 1;
        self.most.fetch_max(now, Ordering::SeqCst);
        let verdict = not_interesting_after(Duration::from_millis(400));
        self.running.fetch_sub(1, Ordering::SeqCst);
        verdict
    }

    fn describe(&self) -> String {
        "slow".into()
    }

    fn idle_work(&self) -> Option<IdleWork> {
        (self.handed_out.fetch_add(1, Ordering::SeqCst) == 0).then(|| {
            let work: IdleWork =
                Box::new(|_: &CancelToken| std::thread::sleep(Duration::from_millis(50)));
            work
        })
    }
}

/// A window whose second test waits for a worker an idle run holds starts it when the idle
/// run ends, not when the window's first test does.
#[test]
fn a_worker_an_idle_run_frees_goes_back_to_the_window() {
    let control = Arc::new(Control::new(Knobs {
        jobs: 2,
        ..Knobs::default()
    }));
    let oracle = Arc::new(SlowWithShortIdleRun::default());
    let mut tester = Tester::new(oracle.clone(), CachePolicy::recommended(), control);
    tester.adopt_jobs().unwrap();
    tester.set_best(b"the best so far".to_vec());
    // A single test: the idle run takes the other worker.
    tester.start_idle_work();
    assert_eq!(tester.idle.running(), 1);
    let found = tester
        .run_window(&Contents(vec!["one", "two"]), WindowPolicy::FirstInOrder)
        .unwrap();
    assert!(found.is_empty());
    assert_eq!(
        oracle.most.load(Ordering::SeqCst),
        2,
        "the window's tests overlapped"
    );
}
