//! How each candidate gets its verdict: the checkpoint, then what is known without a test (the
//! verdict cache by configuration or content, the syntax guard, a test run ahead), else the
//! test; then statistics, cache, trace and events record it. The entry points for candidates
//! that stand alone (the input's checks, a hoist, a manual edit, the re-test of the result) are
//! here too.

use std::sync::Arc;
use std::time::{Duration, Instant};

use crate::exec::cache::{CacheKey, Digest, UnitId, sha3_256};
use crate::exec::oracle::{CancelToken, Oracle, TestStatus, Verdict};
use crate::observe::events::{Action, Candidate, Event, PREVIEW_LIMIT};
use crate::outcome::Outcome;
use crate::testing::control::Stop;
use crate::testing::recall::signature;

use super::{CandidateGuard, CandidateSource, Tester, WindowPolicy};

impl Tester {
    /// Judges one candidate that stands alone (the input, a hoist, a manual edit).
    pub fn judge_single(
        &mut self,
        candidate: Candidate,
        content: &[u8],
    ) -> Result<(Outcome, Option<Verdict>), Stop> {
        self.judge_single_removing(candidate, content, Vec::new())
    }

    /// Like [`Tester::judge_single`], telling displays which bytes of the current best the
    /// candidate removes or replaces (see [`CandidateSource::removed_spans`]).
    pub fn judge_single_removing(
        &mut self,
        candidate: Candidate,
        content: &[u8],
        removed: Vec<std::ops::Range<usize>>,
    ) -> Result<(Outcome, Option<Verdict>), Stop> {
        let source = SingleCandidate {
            candidate,
            content,
            removed,
        };
        let mut verdict = None;
        let outcome = self.consider(&source, 0, &mut verdict)?;
        Ok((outcome, verdict))
    }

    /// Whether a candidate that stands alone is interesting, judged as a window of its own
    /// (workers it leaves idle test ahead); `removed` as for
    /// [`Tester::judge_single_removing`].
    pub fn judge_in_window(
        &mut self,
        candidate: Candidate,
        content: &[u8],
        removed: Vec<std::ops::Range<usize>>,
    ) -> Result<bool, Stop> {
        let source = SingleCandidate {
            candidate,
            content,
            removed,
        };
        Ok(!self
            .run_window(&source, WindowPolicy::FirstInOrder)?
            .is_empty())
    }

    /// Judges an edit the user proposed (which removes or replaces `removed` of the current
    /// best): it runs even while the session is paused.
    pub fn judge_manual(
        &mut self,
        candidate: Candidate,
        content: &[u8],
        removed: Vec<std::ops::Range<usize>>,
    ) -> Result<(Outcome, Option<Verdict>), Stop> {
        self.bypass_pause = true;
        let result = self.judge_single_removing(candidate, content, removed);
        self.bypass_pause = false;
        result
    }

    /// Judges a check made before reduction starts (the input, the empty file): it is tested
    /// and counted like any test but takes no step number (step 0) and, in step mode, waits for
    /// no step, so that the steps of the algorithm are numbered as the papers number them.
    pub fn preflight(
        &mut self,
        candidate: Candidate,
        content: &[u8],
    ) -> Result<(Outcome, Option<Verdict>), Stop> {
        self.preflight = true;
        let mut result = self.judge_single(candidate, content);
        // A lost run says nothing; a check decides whether the reduction starts at all.
        for _ in 1..LOST_RUN_ATTEMPTS {
            if !matches!(&result, Ok((_, Some(verdict))) if is_lost(verdict)) {
                break;
            }
            result = self.judge_single(candidate, content);
        }
        self.preflight = false;
        result
    }

    /// Runs the test once more on `content` (the final result), bypassing the cache and
    /// leaving it as it is. The run takes no step and is not counted among the tests (which
    /// count candidates); a pause holds it, a stop prevents it.
    pub fn retest(&mut self, content: &[u8]) -> Result<Verdict, Stop> {
        self.preflight = true;
        let passed = self.checkpoint();
        self.preflight = false;
        passed?;
        let mut verdict = self
            .oracle
            .judge(content, &self.control.stop_token().child());
        // A lost run would pass for a flaky test: it says nothing, so it is repeated.
        for _ in 1..LOST_RUN_ATTEMPTS {
            if !is_lost(&verdict) {
                break;
            }
            verdict = self
                .oracle
                .judge(content, &self.control.stop_token().child());
        }
        self.report_oracle_warnings();
        match &verdict.status {
            TestStatus::ScratchFailed(why) => {
                let stop = Stop::Failed(why.clone());
                self.control.request_stop(stop.clone());
                Err(stop)
            }
            TestStatus::Cancelled => Err(self.control.stop_requested().unwrap_or(Stop::Requested)),
            _ => Ok(verdict),
        }
    }

    /// Everything before the test itself: checkpoint, cache lookups, rendering and the guard.
    /// Returns the outcome when it is known without a test, or the rendered candidate.
    pub(super) fn prepare(
        &mut self,
        source: &dyn CandidateSource,
        i: usize,
    ) -> Result<Prepared, Stop> {
        self.checkpoint()?;
        let started = Instant::now();
        let prepared = self.prepare_after_checkpoint(source, i);
        self.preparing.add(started.elapsed());
        prepared
    }

    fn prepare_after_checkpoint(
        &mut self,
        source: &dyn CandidateSource,
        i: usize,
    ) -> Result<Prepared, Stop> {
        let step = if self.preflight {
            0
        } else {
            self.steps += 1;
            self.steps
        };
        let candidate = source.candidate(i);
        let mut content = Vec::new();
        let mut undeclares = false;
        let judged = (step, candidate);
        if let Some(outcome) =
            self.known_without_test(source, i, judged, &mut content, &mut undeclares)
        {
            return Ok(Prepared::Known(outcome));
        }
        let removed = self.spans_of(source, i);
        let replacements = if removed.is_empty() {
            Vec::new()
        } else {
            source.replacements(i)
        };
        self.emit(Event::TestStarted {
            step,
            candidate,
            removed,
            replacements,
            size: content.len(),
        });
        let judging = Judging {
            step,
            candidate,
            content,
            digest: None,
            undeclares,
        };
        if self.ahead.is_in_flight(&judging.content) {
            return Ok(Prepared::InFlight(judging));
        }
        if let Some(verdict) = self.ahead.claim(&judging.content) {
            // Tested ahead: the test is reported now, where it belongs.
            self.conclude(source, i, &judging, &verdict);
            return Ok(Prepared::Known(verdict.outcome));
        }
        Ok(Prepared::Test(judging))
    }

    /// The outcome of candidate `i` (`judged`: its step and what it is) when it is known
    /// without a test (the verdict cache, by configuration before rendering or by content
    /// after, the syntax guard or the name check), recorded as such; else `None`, with the
    /// candidate rendered into `content` and whether it leaves a used name undeclared in
    /// `undeclares`.
    fn known_without_test(
        &mut self,
        source: &dyn CandidateSource,
        i: usize,
        judged: (u64, Candidate),
        content: &mut Vec<u8>,
        undeclares: &mut bool,
    ) -> Option<Outcome> {
        let config = source.config(i);
        let config_parts: &[&[UnitId]] = config.as_deref().unwrap_or(&[]);
        if !self.cache.needs_content() && config.is_some() {
            let key = CacheKey {
                config: config_parts,
                content: None,
            };
            if let Some(outcome) = self.cache.lookup(key) {
                if self.trace.is_some() || self.events.is_some() {
                    source.render(i, content);
                }
                return Some(self.record_known(source, i, content, judged, Action::Cache, outcome));
            }
        }
        source.render(i, content);
        if self.cache.needs_content() {
            let key = CacheKey {
                config: config_parts,
                content: Some(content),
            };
            if let Some(outcome) = self.cache.lookup(key) {
                return Some(self.record_known(source, i, content, judged, Action::Cache, outcome));
            }
        }
        // Judged by the reduction order (not below the best), by the recall (failed before in a
        // neighbourhood of the same shape), the syntax guard, or the name check (a guess).
        let (action, outcome) = if !self.preflight && !below_in_reduction_order(content, &self.best)
        {
            self.stats.guard_skips += 1;
            (Action::Guard, Outcome::NotInteresting)
        } else if self.recall.skipping()
            && let Some(signature) = self.window_signature(source, i, content)
            && self.recall.skips(signature)
        {
            self.stats.recall_skips += 1;
            (Action::Recall, Outcome::NotInteresting)
        } else if !self.guard_admits(content, undeclares) {
            self.stats.guard_skips += 1;
            (Action::Guard, Outcome::Unresolved)
        } else if *undeclares && self.undeclared.judges_next() {
            self.recall.count_skipped(1);
            self.stats.names_skips += 1;
            (Action::Names, Outcome::NotInteresting)
        } else {
            return None;
        };
        Some(self.record_known(source, i, content, judged, action, outcome))
    }

    /// Whether the syntax guard, if there is one, admits `content`; it is asked only while it
    /// is worth it ([`super::guard_worth`]), and what it is not asked about is admitted. When
    /// it admits a candidate of the algorithm while the recall skips, `undeclares` says whether
    /// the candidate leaves a used name undeclared.
    fn guard_admits(&mut self, content: &[u8], undeclares: &mut bool) -> bool {
        let Some(guard) = &self.guard else {
            return true;
        };
        if !self.guard_worth.ask(self.mean_test_seconds()) {
            self.stats.guard_passed_over += 1;
            return true;
        }
        let started = Instant::now();
        let check_names = !self.preflight && self.recall.skipping();
        let admission = guard.judge(content, check_names);
        *undeclares = admission.undeclares;
        self.guard_worth
            .answered(started.elapsed(), admission.admitted);
        admission.admitted
    }

    /// The guard for the candidates tested ahead: none while it is not worth asking.
    pub(super) fn guard_for_ahead(&self) -> Option<&Arc<dyn CandidateGuard>> {
        let worth = self.guard_worth.worth(self.mean_test_seconds());
        self.guard.as_ref().filter(|_| worth)
    }

    /// How long a test has taken on average, once one has run.
    fn mean_test_seconds(&self) -> Option<f64> {
        (self.stats.oracle_runs > 0)
            .then(|| self.stats.test_seconds / self.stats.oracle_runs as f64)
    }

    /// Records candidate `i` (its step and what it is in `judged`) as judged without a test by
    /// `action`, and returns the `outcome`.
    fn record_known(
        &mut self,
        source: &dyn CandidateSource,
        i: usize,
        content: &[u8],
        judged: (u64, Candidate),
        action: Action,
        outcome: Outcome,
    ) -> Outcome {
        let (step, candidate) = judged;
        // Not interesting without a test (the cache, the guard): noted like a failed test.
        if !outcome.is_interesting()
            && let Some(signature) = source.recall_signature(i)
        {
            self.recall.note_failed(signature);
        }
        let removed = self.spans_of(source, i);
        self.record(
            content,
            Judgement::known(step, candidate, action, outcome, removed),
        );
        outcome
    }

    pub(super) fn consider(
        &mut self,
        source: &dyn CandidateSource,
        i: usize,
        verdict_out: &mut Option<Verdict>,
    ) -> Result<Outcome, Stop> {
        let mut judging = match self.prepare(source, i)? {
            Prepared::Known(outcome) => return Ok(outcome),
            Prepared::InFlight(judging) => {
                if let Some(verdict) = self.await_ahead(&judging.content)? {
                    self.conclude(source, i, &judging, &verdict);
                    let outcome = verdict.outcome;
                    *verdict_out = Some(verdict);
                    return Ok(outcome);
                }
                judging
            }
            Prepared::Test(judging) => judging,
        };
        // Tested after all if its test ahead ended without a verdict: one the limit may forbid.
        if let Some(stop) = self.test_limit_reached() {
            return Err(stop);
        }
        self.start_idle_work();
        self.count_start();
        let token = self.control.stop_token().child();
        let verdict = judge_digesting(
            &*self.oracle,
            &mut judging,
            &token,
            self.cache.keys_by_digest(),
        );
        self.report_oracle_warnings();
        if let Some(stop) = self.interrupted(&verdict) {
            return Err(stop);
        }
        self.finish(source, i, &judging, &verdict);
        let outcome = verdict.outcome;
        *verdict_out = Some(verdict);
        Ok(outcome)
    }

    /// Records a finished test: statistics, cache, trace and events.
    pub(super) fn finish(
        &mut self,
        source: &dyn CandidateSource,
        i: usize,
        judging: &Judging,
        verdict: &Verdict,
    ) {
        self.count_verdict(verdict);
        self.conclude(source, i, judging, verdict);
    }

    /// Records what a finished test says of candidate `i`: outcome statistics, cache, trace
    /// and events (its run is counted by [`Tester::count_verdict`]).
    pub(super) fn conclude(
        &mut self,
        source: &dyn CandidateSource,
        i: usize,
        judging: &Judging,
        verdict: &Verdict,
    ) {
        let Judging {
            step,
            candidate,
            ref content,
            ..
        } = *judging;
        match verdict.outcome {
            Outcome::Interesting if !self.preflight => self.stats.interesting_tests += 1,
            Outcome::Unresolved => self.stats.unresolved += 1,
            Outcome::Interesting | Outcome::NotInteresting => {}
        }
        // A lost run says nothing of the candidate: it is tested again when it comes up again,
        // and it is no failure of the stage.
        if !matches!(verdict.status, TestStatus::Lost(_)) {
            self.learn(source, i, judging, verdict);
        }
        if let Some(tail) = &verdict.output_tail {
            self.emit(Event::TestOutput {
                step,
                status: verdict.status.clone(),
                tail: tail.clone(),
                node: verdict.node.clone(),
            });
        }
        self.note_course();
        self.publish_stats(false);
        let removed = self.spans_of(source, i);
        self.record(
            content,
            Judgement {
                step,
                candidate,
                action: if verdict.remembered {
                    Action::Cache
                } else {
                    Action::Test
                },
                outcome: verdict.outcome,
                status: Some(verdict.status.clone()),
                duration: verdict.duration,
                removed,
                node: verdict.node.clone(),
                timeout_reruns: if verdict.remembered {
                    0
                } else {
                    verdict.timeout_reruns
                },
            },
        );
    }

    /// Learns from an ended run of candidate `i`: name check, passing share, recall, cache.
    fn learn(
        &mut self,
        source: &dyn CandidateSource,
        i: usize,
        judging: &Judging,
        verdict: &Verdict,
    ) {
        if judging.undeclares {
            self.undeclared.tested(verdict.outcome.is_interesting());
        }
        self.note_recent_outcome(verdict.outcome.is_interesting());
        if verdict.outcome.is_interesting() {
            self.failures_in_a_row = 0;
        } else {
            self.failures_in_a_row += 1;
            let signature = source
                .recall_signature(i)
                .or_else(|| self.window_signature(source, i, &judging.content));
            if let Some(signature) = signature {
                self.recall.note_failed(signature);
            }
        }
        self.cache.store_digested(
            CacheKey {
                config: source.config(i).as_deref().unwrap_or(&[]),
                content: Some(&judging.content),
            },
            judging.digest,
            verdict.outcome,
        );
    }

    /// A run that says nothing about the candidate: cancelled by a stop, or whittle could not
    /// prepare it. Counts it and returns why the reduction must stop (`None`: an ordinary
    /// verdict, or a run cancelled by its window that the caller handles).
    pub(super) fn interrupted(&mut self, verdict: &Verdict) -> Option<Stop> {
        match &verdict.status {
            TestStatus::ScratchFailed(why) => {
                let stop = Stop::Failed(why.clone());
                self.control.request_stop(stop.clone());
                Some(stop)
            }
            TestStatus::Cancelled => {
                self.count_run();
                self.stats.cancelled += 1;
                self.stats.test_seconds += verdict.duration.as_secs_f64();
                self.control
                    .stop_requested()
                    .filter(Stop::kills_running_tests)
            }
            _ => None,
        }
    }

    /// The recall's signature of window candidate `i` (rendered as `content`) while the tester
    /// knows a stage's window candidates by their spans ([`Tester::with_window_recall`]) in a
    /// schedule's stage run: the spans it removes, with what replaces them (exactly for one
    /// span, by their total length for several) and the kind of candidate.
    fn window_signature(
        &self,
        source: &dyn CandidateSource,
        i: usize,
        content: &[u8],
    ) -> Option<u64> {
        // Outside a schedule's stage run nothing is noted or skipped: no signature is needed.
        if !self.recall.recording() {
            return None;
        }
        let stage = self.window_recall.as_deref()?;
        let spans = source.removed_spans(i);
        let removed: usize = spans.iter().map(|span| span.len()).sum();
        let added = (content.len() + removed).checked_sub(self.best.len())?;
        let first = spans.first()?;
        let new = match spans.len() {
            1 => content.get(first.start..first.start + added)?,
            _ => &[][..],
        };
        Some(signature(
            (stage, source.candidate(i).kind, added),
            &self.best,
            spans.iter().map(|span| (span.clone(), new)),
        ))
    }

    /// What candidate `i` removes from the current best, when someone displays or records it.
    fn spans_of(&self, source: &dyn CandidateSource, i: usize) -> Vec<std::ops::Range<usize>> {
        if self.shows_spans() {
            source.removed_spans(i)
        } else {
            Vec::new()
        }
    }

    fn record(&mut self, content: &[u8], judgement: Judgement) {
        let running = self.running_time();
        let written = self.trace.as_ref().map(|trace| {
            trace.borrow_mut().record(
                running,
                judgement.step,
                content,
                judgement.action,
                judgement.outcome,
                &judgement.candidate,
                &judgement.removed,
                (judgement.duration, judgement.timeout_reruns),
            )
        });
        if let Some(Err(error)) = written {
            self.trace = None;
            self.emit(Event::Warning {
                message: format!("cannot write the trace ({error}); tracing stops"),
            });
        }
        if self.events.is_none() {
            return;
        }
        let preview = (content.len() <= PREVIEW_LIMIT)
            .then(|| std::str::from_utf8(content).ok().map(str::to_owned))
            .flatten();
        self.emit(Event::CandidateJudged {
            step: judgement.step,
            candidate: judgement.candidate,
            size: content.len(),
            preview,
            removed: judgement.removed,
            action: judgement.action,
            outcome: judgement.outcome,
            status: judgement.status,
            duration: judgement.duration,
            node: judgement.node,
            timeout_reruns: judgement.timeout_reruns,
        });
    }
}

/// How often a check of the input or the re-test of the result runs when its run is lost
/// ([`TestStatus::Lost`]: a failed node, a job step the scheduler killed).
const LOST_RUN_ATTEMPTS: usize = 3;

/// Whether `candidate` comes before `best` in the reduction order: fewer bytes, or as many and
/// lexicographically smaller. The best only moves down this order, so every reduction ends
/// (no two edits can undo each other forever) and the best on screen is the result file's,
/// which takes no larger result.
pub(crate) fn below_in_reduction_order(candidate: &[u8], best: &[u8]) -> bool {
    (candidate.len(), candidate) < (best.len(), best)
}

pub(super) fn is_lost(verdict: &Verdict) -> bool {
    matches!(verdict.status, TestStatus::Lost(_))
}

/// How a candidate was judged, for the trace and the events.
struct Judgement {
    step: u64,
    candidate: Candidate,
    action: Action,
    outcome: Outcome,
    status: Option<TestStatus>,
    duration: Duration,
    removed: Vec<std::ops::Range<usize>>,
    /// Where the test ran, when not on this machine.
    node: Option<String>,
    /// Runs more after a timeout (see [`Verdict::timeout_reruns`]).
    timeout_reruns: u32,
}

impl Judgement {
    /// A candidate whose outcome was known without running the test.
    fn known(
        step: u64,
        candidate: Candidate,
        action: Action,
        outcome: Outcome,
        removed: Vec<std::ops::Range<usize>>,
    ) -> Self {
        Judgement {
            step,
            candidate,
            action,
            outcome,
            status: None,
            duration: Duration::ZERO,
            removed,
            node: None,
            timeout_reruns: 0,
        }
    }
}

pub(super) enum Prepared {
    Known(Outcome),
    /// Its test runs ahead already: its verdict is awaited.
    InFlight(Judging),
    Test(Judging),
}

/// A candidate whose outcome takes a test: its step, what it is, its content.
pub(super) struct Judging {
    pub(super) step: u64,
    pub(super) candidate: Candidate,
    pub(super) content: Vec<u8>,
    /// The content's digest for the cache, when it was worked out alongside the test.
    pub(super) digest: Option<Digest>,
    /// It leaves a used name undeclared (its outcome is noted for [`super::undeclared`]).
    pub(super) undeclares: bool,
}

/// From this size on, a candidate's digest for a cache keyed by digests is worked out on a
/// thread of its own while the candidate is tested (on a large text the hash takes a tenth of
/// a fast test, and the engine would otherwise hash after the verdict, with the workers idle).
pub(super) const DIGEST_ALONGSIDE_BYTES: usize = 1 << 18;

/// The verdict of `oracle` on `judging`'s content, and, when `digest` and the content is
/// large, the content's digest, worked out meanwhile.
pub(super) fn judge_digesting(
    oracle: &dyn Oracle,
    judging: &mut Judging,
    token: &CancelToken,
    digest: bool,
) -> Verdict {
    if !digest || judging.content.len() < DIGEST_ALONGSIDE_BYTES {
        return oracle.judge(&judging.content, token);
    }
    let content = &judging.content;
    let (verdict, digest) = std::thread::scope(|scope| {
        let hashing = scope.spawn(|| sha3_256(content));
        let verdict = oracle.judge(content, token);
        (verdict, hashing.join().ok())
    });
    judging.digest = digest;
    verdict
}

/// A window of one candidate with a fixed content.
pub(super) struct SingleCandidate<'a> {
    pub(super) candidate: Candidate,
    pub(super) content: &'a [u8],
    pub(super) removed: Vec<std::ops::Range<usize>>,
}

impl CandidateSource for SingleCandidate<'_> {
    fn len(&self) -> usize {
        1
    }

    fn candidate(&self, _: usize) -> Candidate {
        self.candidate
    }

    fn config(&self, _: usize) -> Option<Vec<&[UnitId]>> {
        None
    }

    fn render(&self, _: usize, out: &mut Vec<u8>) {
        out.extend_from_slice(self.content);
    }

    fn removed_spans(&self, _: usize) -> Vec<std::ops::Range<usize>> {
        self.removed.clone()
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;
    use std::sync::atomic::{AtomicUsize, Ordering};

    use crate::exec::cache::CachePolicy;
    use crate::observe::events::{Action, CandidateKind, Event};
    use crate::outcome::Outcome;
    use crate::params::Knobs;
    use crate::testing::control::Control;
    use crate::testing::tester::Tester;

    /// A window candidate that failed in an earlier pass of a stage's run, proposed again with a
    /// neighbourhood of the same shape (a name elsewhere changed, so the cache does not know
    /// its text), is skipped without a test while the recall skips, and tested when it does
    /// not (the round that settles).
    #[test]
    fn window_candidates_that_failed_in_an_earlier_pass_wait_for_the_settling_round() {
        let runs = Arc::new(AtomicUsize::new(0));
        let counted = Arc::clone(&runs);
        let oracle = crate::exec::oracle::predicate("keeps keep", move |c: &[u8]| {
            counted.fetch_add(1, Ordering::SeqCst);
            c.windows(4).any(|w| w == b"keep")
        });
        let control = Arc::new(Control::new(Knobs::default()));
        let mut tester = Tester::new(Arc::new(oracle), CachePolicy::recommended(), control);
        let (events, received) = crossbeam_channel::unbounded();
        tester.set_events(Some(events));
        tester.with_window_recall("walk", |tester| {
            let candidate = crate::observe::events::Candidate::single(CandidateKind::Sweep);
            // Removing `keep` (bytes 2..6) from the best, whatever the name after it.
            let remove_keep = |tester: &mut Tester| {
                let best = tester.best().to_vec();
                let content = [&best[..2], &best[6..]].concat();
                let keep = std::iter::once(2..6).collect();
                tester.judge_in_window(candidate, &content, keep).unwrap()
            };
            tester.recall_mut().start_run(true);
            tester.set_best(b"x keep y".to_vec());
            assert!(!remove_keep(tester));
            assert_eq!(runs.load(Ordering::SeqCst), 1);
            // Same pass, another text: tested again.
            tester.set_best(b"x keep z".to_vec());
            assert!(!remove_keep(tester));
            assert_eq!(runs.load(Ordering::SeqCst), 2);
            // The next pass skips it.
            tester.recall_mut().next_pass();
            tester.set_best(b"x keep w".to_vec());
            assert!(!remove_keep(tester));
            assert_eq!(runs.load(Ordering::SeqCst), 2, "skipped without a test");
            assert_eq!(tester.stats().recall_skips, 1);
            // Another shape of neighbourhood is tested.
            tester.set_best(b"x keep (w)".to_vec());
            assert!(!remove_keep(tester));
            assert_eq!(runs.load(Ordering::SeqCst), 3);
            tester.recall_mut().end_run();
            // The settling round skips nothing.
            tester.recall_mut().start_run(false);
            tester.set_best(b"x keep v".to_vec());
            assert!(!remove_keep(tester));
            assert_eq!(runs.load(Ordering::SeqCst), 4);
            tester.recall_mut().end_run();
        });
        drop(tester);
        let actions: Vec<Action> = received
            .iter()
            .filter_map(|event| match event {
                Event::CandidateJudged { action, .. } => Some(action),
                _ => None,
            })
            .collect();
        use Action::{Recall, Test};
        assert_eq!(actions, [Test, Test, Recall, Test, Test]);
    }

    /// The best only moves down the reduction order: a candidate with more bytes than the best,
    /// or as many and not lexicographically smaller, is not interesting without a test (though
    /// the test would take it: two stages that undo each other's edits would loop forever);
    /// one with as many bytes and lexicographically smaller is tested.
    #[test]
    fn candidates_not_below_the_best_in_the_reduction_order_are_not_tested() {
        let runs = Arc::new(AtomicUsize::new(0));
        let counted = Arc::clone(&runs);
        let oracle = crate::exec::oracle::predicate("anything", move |_: &[u8]| {
            counted.fetch_add(1, Ordering::SeqCst);
            true
        });
        let control = Arc::new(Control::new(Knobs::default()));
        let mut tester = Tester::new(Arc::new(oracle), CachePolicy::recommended(), control);
        tester.set_best(b"class A:\n    0\n".to_vec());
        let edit = crate::observe::events::Candidate::single(CandidateKind::Edit);
        let mut judge = |content: &[u8]| tester.judge_single(edit, content).unwrap().0;
        for not_below in [
            &b"class A:\n    {}\n"[..],
            b"class B:\n    0\n",
            b"class A:\n    0\n",
        ] {
            assert_eq!(judge(not_below), Outcome::NotInteresting);
        }
        assert_eq!(runs.load(Ordering::SeqCst), 0);
        assert_eq!(judge(b"class 0:\n    0\n"), Outcome::Interesting);
        assert_eq!(runs.load(Ordering::SeqCst), 1);
        assert_eq!(tester.stats().guard_skips, 3);
    }
}
