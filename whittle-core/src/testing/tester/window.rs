//! The window scheduler: a window of candidates tested in parallel on the tester's pool, decided
//! by its policy (first in order, first to finish, all in the window), with idle workers testing
//! ahead the candidates a lookahead expects next.

use std::sync::Arc;

use crossbeam_channel::{Receiver, Sender};

use crate::exec::cache::OutcomeCache;
use crate::exec::oracle::{CancelToken, TestStatus, Verdict};
use crate::outcome::Outcome;
use crate::testing::ahead::RunAhead;
use crate::testing::control::Stop;

use super::verdicts::{Judging, Prepared, is_lost, judge_digesting};
use super::{CandidateGuard, CandidateSource, Tester, WindowPolicy};

impl Tester {
    pub(super) fn run_parallel_window(
        &mut self,
        source: &dyn CandidateSource,
        policy: WindowPolicy,
    ) -> Result<Vec<usize>, Stop> {
        let Some(pool) = self.pool.take() else {
            return Ok(Vec::new());
        };
        let result = pool.in_place_scope(|scope| self.drive_window(&pool, scope, source, policy));
        self.pool = Some(pool);
        result
    }

    fn drive_window<'scope>(
        &mut self,
        pool: &rayon::ThreadPool,
        scope: &rayon::Scope<'scope>,
        source: &dyn CandidateSource,
        policy: WindowPolicy,
    ) -> Result<Vec<usize>, Stop> {
        let (done_tx, done_rx) = crossbeam_channel::unbounded::<(usize, Judging, Verdict)>();
        let ahead_results = self.ahead.results();
        let mut window = Window {
            source,
            policy,
            done: done_tx,
            running: Vec::new(),
            waiting: Vec::new(),
            interesting: Vec::new(),
            finished_after: Vec::new(),
            next: 0,
            speculation: Speculation::NotYet,
            stop: None,
        };
        loop {
            self.start_window_tests(pool, scope, &mut window);
            if window.is_over() {
                break;
            }
            let Some(decided) = self.await_window(scope, &mut window, &done_rx, &ahead_results)
            else {
                break;
            };
            for (i, outcome) in decided {
                window.finished_after.push(i);
                if outcome.is_interesting() {
                    window.found_interesting(i);
                } else if window.speculation.made_for() == Some(i) {
                    // The prediction failed: the worker goes back to the window.
                    self.ahead.mispredicted();
                }
            }
            window.cancel_after_chosen();
            if window.stop.is_none()
                && let Some(why) = self.control.stop_requested()
            {
                window.stop = Some(why);
            }
            if window.stop.is_some() {
                cancel_all(&window.running);
                self.drop_run_ahead();
            }
        }
        if let Some(why) = window.stop {
            return Err(why);
        }
        let chosen = window.chosen();
        if let Some(predicted) = window.speculation.made_for()
            && chosen.first() != Some(&predicted)
        {
            self.ahead.mispredicted();
        }
        self.stats.wasted += window.wasted_after(&chosen);
        Ok(chosen)
    }

    /// Starts tests of the window's candidates (and, past its last one, of the lookahead's)
    /// while workers are free. Paused or stepping, the tests under way finish and are reported
    /// before the next candidate waits at the checkpoint: one step is one candidate judged and
    /// shown.
    fn start_window_tests<'scope>(
        &mut self,
        pool: &rayon::ThreadPool,
        scope: &rayon::Scope<'scope>,
        window: &mut Window<'_>,
    ) {
        while window.stop.is_none()
            && window.interesting.is_empty()
            && self.busy_workers(window) < self.jobs
            && (window.running.is_empty() || !self.control.is_paused())
        {
            if let Some(predicted) = self.speculation_due(window) {
                // Once per window: tested, or declined for good.
                match self.speculative_candidate(window.source, predicted) {
                    Some(content) => {
                        window.speculation = Speculation::MadeFor(predicted);
                        self.launch_speculation(pool, content);
                        continue;
                    }
                    None => window.speculation = Speculation::Declined,
                }
            }
            if window.speculation.made_for().is_some() && self.ahead.speculation_passed() {
                // What comes after the predicted candidate passed: that one very likely
                // passes too, and a test of the next candidate would be wasted.
                break;
            }
            if window.next >= window.source.len() {
                // The window's candidates are all under way: an idle worker tests ahead.
                if window.running.is_empty() && window.waiting.is_empty() {
                    break;
                }
                // The oracle's own runs first (a flaky test's re-runs).
                if let Some(work) = self.oracle.idle_work() {
                    self.idle.launch(pool, work);
                    continue;
                }
                match self.next_ahead() {
                    Some(content) => self.launch_ahead(pool, content),
                    None => break,
                }
                continue;
            }
            let i = window.next;
            window.next += 1;
            match self.prepare(window.source, i) {
                Err(why) => window.stop = Some(why),
                Ok(Prepared::Known(outcome)) => {
                    if outcome.is_interesting() {
                        window.found_interesting(i);
                    }
                }
                Ok(Prepared::InFlight(judging)) => window.waiting.push((i, judging)),
                Ok(Prepared::Test(judging)) => {
                    self.count_start();
                    let started = self.spawn_test(scope, &window.done, i, judging);
                    window.running.push(started);
                }
            }
        }
    }

    /// Starts the test of candidate `i` of a window on the pool; its verdict comes back on
    /// `done`.
    fn spawn_test<'scope>(
        &self,
        scope: &rayon::Scope<'scope>,
        done: &Sender<(usize, Judging, Verdict)>,
        i: usize,
        judging: Judging,
    ) -> (usize, CancelToken) {
        let token = self.control.stop_token().child();
        let oracle = Arc::clone(&self.oracle);
        let done = done.clone();
        let cancel = token.clone();
        let digest = self.cache.keys_by_digest();
        scope.spawn(move |_| {
            let mut judging = judging;
            let verdict = judge_digesting(&*oracle, &mut judging, &token, digest);
            let _ = done.send((i, judging, verdict));
        });
        (i, cancel)
    }

    /// Waits for the next test of the window or run ahead, or an idle run, to end and books
    /// it; returns the candidates of the window it decides (`None`: a channel closed, the
    /// window ends).
    fn await_window<'scope>(
        &mut self,
        scope: &rayon::Scope<'scope>,
        window: &mut Window<'_>,
        done_rx: &Receiver<(usize, Judging, Verdict)>,
        ahead_results: &Receiver<(Vec<u8>, Verdict)>,
    ) -> Option<Vec<(usize, Outcome)>> {
        let mut decided: Vec<(usize, Outcome)> = Vec::new();
        let idle_ended = self.idle.ended();
        crossbeam_channel::select! {
            // A worker is free: the window may start another test.
            recv(idle_ended) -> _ => {}
            recv(done_rx) -> finished => {
                let Ok((i, judging, verdict)) = finished else {
                    return None;
                };
                self.window_test_ended(window, i, &judging, &verdict, &mut decided);
            }
            recv(ahead_results) -> result => {
                let Ok(result) = result else {
                    return None;
                };
                self.ahead_test_ended(scope, window, result, &mut decided);
            }
        }
        Some(decided)
    }

    /// Books the end of the test of candidate `i` of the window.
    fn window_test_ended(
        &mut self,
        window: &mut Window<'_>,
        i: usize,
        judging: &Judging,
        verdict: &Verdict,
        decided: &mut Vec<(usize, Outcome)>,
    ) {
        window.running.retain(|(index, _)| *index != i);
        self.report_oracle_warnings();
        let no_verdict = matches!(
            verdict.status,
            TestStatus::Cancelled | TestStatus::ScratchFailed(_)
        );
        if no_verdict {
            if let Some(why) = self.interrupted(verdict) {
                window.stop.get_or_insert(why);
            }
        } else {
            self.finish(window.source, i, judging, verdict);
            decided.push((i, verdict.outcome));
        }
    }

    /// Books the end of a test run ahead, and decides the window's candidates that waited for
    /// it (a test run ahead that ended without a verdict leaves its candidate to be tested).
    fn ahead_test_ended<'scope>(
        &mut self,
        scope: &rayon::Scope<'scope>,
        window: &mut Window<'_>,
        result: (Vec<u8>, Verdict),
        decided: &mut Vec<(usize, Outcome)>,
    ) {
        if let Some(why) = self.take_ahead_result(result) {
            window.stop.get_or_insert(why);
        }
        let (ended, still): (Vec<_>, Vec<_>) = window
            .waiting
            .drain(..)
            .partition(|(_, judging)| !self.ahead.is_in_flight(&judging.content));
        window.waiting = still;
        for (i, judging) in ended {
            match self.ahead.claim(&judging.content) {
                Some(verdict) => {
                    self.conclude(window.source, i, &judging, &verdict);
                    decided.push((i, verdict.outcome));
                }
                // Ended without a verdict: the candidate is tested after all, when the limit
                // allows a test more.
                None if window.stop.is_none() => match self.test_limit_reached() {
                    Some(limit) => window.stop = Some(limit),
                    None => {
                        self.count_start();
                        let started = self.spawn_test(scope, &window.done, i, judging);
                        window.running.push(started);
                    }
                },
                None => {}
            }
        }
    }

    /// Waits for the test run ahead on `content` and takes its verdict (`None`: it ended
    /// without one, and the candidate is to be tested).
    pub(super) fn await_ahead(&mut self, content: &[u8]) -> Result<Option<Verdict>, Stop> {
        let results = self.ahead.results();
        while self.ahead.is_in_flight(content) {
            let Ok(result) = results.recv() else {
                break;
            };
            if let Some(stop) = self.take_ahead_result(result) {
                return Err(stop);
            }
        }
        Ok(self.ahead.claim(content))
    }

    /// Books a test run ahead that ended; returns why the reduction must stop, if it must.
    fn take_ahead_result(&mut self, (content, verdict): (Vec<u8>, Verdict)) -> Option<Stop> {
        self.report_oracle_warnings();
        if matches!(
            verdict.status,
            TestStatus::Cancelled | TestStatus::ScratchFailed(_)
        ) {
            self.ahead.finished(content, None);
            return self.interrupted(&verdict);
        }
        self.count_verdict(&verdict);
        self.stats.ahead += 1;
        let keep = !is_lost(&verdict);
        self.stats.wasted += self.ahead.finished(content, keep.then_some(verdict)) as u64;
        None
    }

    /// The candidate of the window predicted to be interesting, when the next free worker
    /// should test what comes after accepting it: a window judged first in order whose
    /// predicted candidate is under test, once per window, and not while paused or stepping.
    fn speculation_due(&self, window: &Window<'_>) -> Option<usize> {
        if window.policy != WindowPolicy::FirstInOrder
            || window.speculation != Speculation::NotYet
            || self.ahead.is_speculating()
            || !self.lookahead_enabled
            || self.control.is_paused()
        {
            return None;
        }
        let predicted = window.source.predicted_interesting()?;
        window.is_pending(predicted).then_some(predicted)
    }

    /// The candidate judged after accepting candidate `predicted` of `source`, when it is worth
    /// a test: known to the source, not to the cache, admitted by the guard, within the test
    /// limit.
    fn speculative_candidate(
        &self,
        source: &dyn CandidateSource,
        predicted: usize,
    ) -> Option<Vec<u8>> {
        if self.near_test_limit() {
            return None;
        }
        let mut content = Vec::new();
        if !source.render_after_accepting(predicted, &mut content) {
            return None;
        }
        let worth = !self.ahead.is_in_flight(&content)
            && worth_testing_ahead(&self.cache, self.guard_for_ahead(), &content);
        worth.then_some(content)
    }

    /// Starts the test of a candidate judged after the one predicted to be interesting; it
    /// runs on after the window, and past the acceptance of that one.
    fn launch_speculation(&mut self, pool: &rayon::ThreadPool, content: Vec<u8>) {
        self.stats.speculated += 1;
        self.launch(pool, content, RunAhead::speculate);
    }

    /// Starts a test of a candidate of the lookahead; it runs on after the window.
    fn launch_ahead(&mut self, pool: &rayon::ThreadPool, content: Vec<u8>) {
        self.launch(pool, content, RunAhead::started);
    }

    /// Workers busy while `window` runs: its tests, the tests run ahead, and the oracle's idle
    /// runs (each wakes the window when it ends, see [`Tester::await_window`]).
    fn busy_workers(&self, window: &Window<'_>) -> usize {
        window.running.len() + self.ahead.in_flight() + self.idle.running()
    }

    /// Starts the oracle's idle work ([`crate::exec::oracle::Oracle::idle_work`]) on the
    /// workers a single test leaves free.
    pub(super) fn start_idle_work(&self) {
        let Some(pool) = &self.pool else {
            return;
        };
        while 1 + self.ahead.in_flight() + self.idle.running() < self.jobs {
            match self.oracle.idle_work() {
                Some(work) => self.idle.launch(pool, work),
                None => break,
            }
        }
    }

    /// Starts a test ahead of the window, noted in the run ahead by `note` (which returns
    /// where its verdict goes).
    fn launch(&mut self, pool: &rayon::ThreadPool, content: Vec<u8>, note: NoteAhead) {
        self.count_start();
        let token = self.control.stop_token().child();
        let done = note(&mut self.ahead, content.clone(), token.clone());
        let oracle = Arc::clone(&self.oracle);
        pool.spawn(move || {
            let verdict = oracle.judge(&content, &token);
            let _ = done.send((content, verdict));
        });
    }

    /// The next candidate of the lookahead worth a test ahead: not known to the cache, admitted
    /// by the guard, within the test limit, and not while paused or stepping.
    fn next_ahead(&mut self) -> Option<Vec<u8>> {
        if !self.ahead.has_next() || self.control.is_paused() {
            return None;
        }
        if self.near_test_limit() {
            return None;
        }
        let guard = self.guard_for_ahead().cloned();
        let cache = &self.cache;
        self.ahead
            .take_next(|content| worth_testing_ahead(cache, guard.as_ref(), content))
    }

    /// Whether the tests started and a window's more would reach the test limit: no test is
    /// run ahead then.
    fn near_test_limit(&self) -> bool {
        self.limits
            .tests
            .is_some_and(|max| self.tests_toward_limit() + self.jobs as u64 >= max)
    }
}

/// How a test ahead is noted in the run ahead (an ordinary one, or the speculation): it
/// returns where the test's verdict goes.
type NoteAhead = fn(&mut RunAhead, Vec<u8>, CancelToken) -> Sender<(Vec<u8>, Verdict)>;

/// Whether a candidate is worth a test ahead of the window: not known to the cache, and
/// admitted by the guard.
fn worth_testing_ahead(
    cache: &OutcomeCache,
    guard: Option<&Arc<dyn CandidateGuard>>,
    content: &[u8],
) -> bool {
    !cache.knows(content) && guard.is_none_or(|guard| guard.admits(content))
}

/// What a window did on the branch its source predicted: a test of the candidate judged after
/// the predicted one is accepted (once per window).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Speculation {
    NotYet,
    /// That test started, for this candidate of the window.
    MadeFor(usize),
    /// The candidate after the predicted one was not worth a test: no other is tried.
    Declined,
}

impl Speculation {
    fn made_for(self) -> Option<usize> {
        match self {
            Speculation::MadeFor(i) => Some(i),
            Speculation::NotYet | Speculation::Declined => None,
        }
    }
}

/// Cancels the tests of a window that are under way.
fn cancel_all(running: &[(usize, CancelToken)]) {
    for (_, token) in running {
        token.cancel();
    }
}

/// A parallel window while it runs.
struct Window<'a> {
    source: &'a dyn CandidateSource,
    policy: WindowPolicy,
    /// Where the window's tests send their verdicts.
    done: Sender<(usize, Judging, Verdict)>,
    /// The candidates whose tests run, with their cancellation.
    running: Vec<(usize, CancelToken)>,
    /// Candidates whose test runs ahead already.
    waiting: Vec<(usize, Judging)>,
    interesting: Vec<usize>,
    /// The candidates decided by a test that ended during the window, in the order they ended.
    finished_after: Vec<usize>,
    /// The next candidate to start.
    next: usize,
    /// The window's one speculation (see [`Speculation`]).
    speculation: Speculation,
    stop: Option<Stop>,
}

impl Window<'_> {
    /// Whether nothing is left to wait for: no test of the window under way, none awaited
    /// ahead, and no candidate left to start (or no reason to start one).
    fn is_over(&self) -> bool {
        let more =
            self.stop.is_none() && self.interesting.is_empty() && self.next < self.source.len();
        self.running.is_empty() && self.waiting.is_empty() && !more
    }

    /// Whether candidate `i` is under test (here or run ahead) and not decided yet.
    fn is_pending(&self, i: usize) -> bool {
        self.running.iter().any(|(index, _)| *index == i)
            || self.waiting.iter().any(|(index, _)| *index == i)
    }

    /// Judged first in order, the window is decided once a candidate is interesting and every
    /// one before it is decided: the tests of the candidates after it are of no use, and the
    /// window would wait for them. They are cancelled.
    fn cancel_after_chosen(&mut self) {
        if self.policy != WindowPolicy::FirstInOrder {
            return;
        }
        let Some(&first) = self.interesting.iter().min() else {
            return;
        };
        if (0..first).any(|i| self.is_pending(i)) {
            return;
        }
        for (_, token) in self.running.iter().filter(|(i, _)| *i > first) {
            token.cancel();
        }
    }

    /// Candidate `i` is interesting; the first to finish cancels the others.
    fn found_interesting(&mut self, i: usize) {
        self.interesting.push(i);
        if self.policy == WindowPolicy::FirstToFinish {
            cancel_all(&self.running);
        }
    }

    /// The interesting candidates the policy selects.
    fn chosen(&self) -> Vec<usize> {
        match self.policy {
            WindowPolicy::FirstToFinish => self.interesting.first().copied().into_iter().collect(),
            WindowPolicy::FirstInOrder => {
                self.interesting.iter().min().copied().into_iter().collect()
            }
            WindowPolicy::AllInWindow => {
                let mut all = self.interesting.clone();
                all.sort_unstable();
                all
            }
        }
    }

    /// The tests of the window that were not needed: those of candidates after the first
    /// chosen one that were not chosen themselves.
    fn wasted_after(&self, chosen: &[usize]) -> u64 {
        let Some(&first) = chosen.iter().min() else {
            return 0;
        };
        self.finished_after
            .iter()
            .filter(|&&i| i > first && !chosen.contains(&i))
            .count() as u64
    }
}

#[cfg(test)]
pub(super) mod tests {
    use std::sync::atomic::{AtomicUsize, Ordering};
    use std::time::Duration;

    use super::*;
    use crate::exec::cache::{CachePolicy, UnitId};
    use crate::exec::oracle::Oracle;
    use crate::observe::events::{Candidate, CandidateKind};
    use crate::params::Knobs;
    use crate::testing::ahead::Lookahead;
    use crate::testing::control::Control;
    use crate::testing::tester::verdicts::{DIGEST_ALONGSIDE_BYTES, SingleCandidate};

    /// A large candidate, hashed while it is tested (one and two workers), is stored under its
    /// digest: asked again, the cache answers without a test.
    #[test]
    fn a_large_candidate_hashed_alongside_its_test_is_cached() {
        for jobs in [1, 2] {
            let runs = Arc::new(AtomicUsize::new(0));
            let counted = Arc::clone(&runs);
            let oracle = crate::exec::oracle::predicate("short", move |c: &[u8]| {
                counted.fetch_add(1, Ordering::SeqCst);
                c.len() < 10
            });
            let knobs = Knobs {
                jobs,
                ..Knobs::default()
            };
            let control = Arc::new(Control::new(knobs));
            let mut tester = Tester::new(Arc::new(oracle), CachePolicy::recommended(), control);
            tester.set_best(vec![b'a'; 2 * DIGEST_ALONGSIDE_BYTES]);
            let large = vec![b'b'; DIGEST_ALONGSIDE_BYTES + 1];
            let candidate = Candidate::single(CandidateKind::Sweep);
            for _ in 0..2 {
                let window = SingleCandidate {
                    candidate,
                    content: &large,
                    removed: Vec::new(),
                };
                let found = tester
                    .run_window(&window, WindowPolicy::FirstInOrder)
                    .expect("no stop");
                assert!(found.is_empty());
            }
            assert_eq!(runs.load(Ordering::SeqCst), 1, "{jobs} jobs");
        }
    }

    /// Finds interesting exactly the candidate `yes`; takes 20 ms on `quick`, else the time it
    /// holds.
    struct Sleepy(Duration);

    impl Oracle for Sleepy {
        fn judge(&self, candidate: &[u8], _: &CancelToken) -> Verdict {
            let duration = if candidate == b"quick" {
                Duration::from_millis(20)
            } else {
                self.0
            };
            std::thread::sleep(duration);
            Verdict {
                outcome: if candidate == b"yes" {
                    Outcome::Interesting
                } else {
                    Outcome::NotInteresting
                },
                status: TestStatus::Exited(i32::from(candidate != b"yes")),
                duration,
                output_tail: None,
                node: None,
                remembered: false,
                timeout_reruns: 0,
            }
        }

        fn describe(&self) -> String {
            "sleepy".into()
        }
    }

    impl Lookahead for Contents {
        fn len(&self) -> usize {
            self.0.len()
        }

        fn render(&self, i: usize, out: &mut Vec<u8>) {
            out.extend_from_slice(self.0[i].as_bytes());
        }
    }

    /// Fixed candidates: a window of them, or a lookahead.
    pub(in crate::testing::tester) struct Contents(pub Vec<&'static str>);

    impl CandidateSource for Contents {
        fn len(&self) -> usize {
            self.0.len()
        }

        fn candidate(&self, i: usize) -> Candidate {
            Candidate {
                kind: CandidateKind::Complement,
                index: i as u32,
                n: self.0.len() as u32,
            }
        }

        fn config(&self, _: usize) -> Option<Vec<&[UnitId]>> {
            None
        }

        fn render(&self, i: usize, out: &mut Vec<u8>) {
            out.extend_from_slice(self.0[i].as_bytes());
        }
    }

    #[test]
    fn tests_ahead_are_claimed_and_a_smaller_window_waits_for_them() {
        let knobs = Knobs {
            jobs: 3,
            ..Knobs::default()
        };
        let control = Arc::new(Control::new(knobs));
        let oracle = Arc::new(Sleepy(Duration::from_millis(300)));
        let mut tester = Tester::new(oracle, CachePolicy::recommended(), control.clone());
        tester.adopt_jobs().unwrap();
        // Every candidate is below the best in the reduction order.
        tester.set_best(b"the best so far".to_vec());
        tester.set_lookahead(Some(Box::new(Contents(vec!["no 1", "yes"]))));
        // A window of one candidate: the two idle workers test both candidates ahead.
        let found = tester
            .run_window(&Contents(vec!["quick"]), WindowPolicy::FirstInOrder)
            .unwrap();
        assert!(found.is_empty());
        assert_eq!(tester.ahead.in_flight(), 2);
        // Fewer workers than tests under way: the window waits for them, takes their verdicts
        // and finds the interesting one.
        control.set_jobs(2);
        let found = tester
            .run_window(&Contents(vec!["no 1", "yes"]), WindowPolicy::FirstInOrder)
            .unwrap();
        assert_eq!(found, [1]);
        let stats = tester.stats();
        assert_eq!(stats.tests, 3, "{stats:?}");
        assert_eq!(stats.ahead, 2, "{stats:?}");
        assert_eq!(stats.wasted, 0, "{stats:?}");
    }
}
