//! The one path every candidate takes: the control checkpoint, the cache, the syntax guard and
//! the oracle, with statistics, trace and events recorded on the way. Windows of candidates run
//! on a rayon pool; workers a window leaves idle test ahead (see [`crate::testing::ahead`]).
//!
//! The [`Tester`] and what it is given (its settings, limits, the checkpoint, accepted
//! reductions) are here; its parts are in the files beside: how each candidate gets its
//! verdict (`verdicts.rs`), the window scheduler (`window.rs`), its statistics
//! (`statistics.rs`) and what it tells of each reduction ([`Improvement`]).

mod guard_worth;
#[cfg(test)]
mod idle_work_tests;
mod improvement;
mod limits;
mod statistics;
mod undeclared;
mod verdicts;
mod window;

use std::sync::Arc;
use std::time::{Duration, Instant};

use crossbeam_channel::Sender;

use crate::exec::cache::{CacheKey, CachePolicy, OutcomeCache, UnitId};
use crate::exec::oracle::Oracle;
use crate::observe::events::{Branch, Candidate, Event};
use crate::observe::stats::Stats;
use crate::observe::trace::TraceWriter;
use crate::params::PlanChange;
use crate::testing::ahead::{Lookahead, RunAhead};
use crate::testing::control::{Control, Stop};
use crate::testing::idle::IdleRuns;
use crate::testing::recall::Recall;
use crate::tree::Admission;

pub use improvement::{Improvement, ImprovementSink};
pub use limits::{Limits, Spent};
use statistics::MeanTime;

/// Rejects candidates that cannot be worth a test (the syntax guard of tree reductions).
pub trait CandidateGuard: Send + Sync {
    /// False when the candidate should count as unresolved without running the test.
    fn admits(&self, candidate: &[u8]) -> bool;
    /// The current best changed to `best`.
    fn rebase(&self, best: &[u8]);
    /// Whether the candidate is admitted and, with `check_names`, whether an admitted one
    /// leaves a name it uses undeclared (see [`crate::tree::NameIndex`]); such candidates may
    /// be judged without a test while the recall skips. By default no name is checked.
    fn judge(&self, candidate: &[u8], _check_names: bool) -> Admission {
        Admission {
            admitted: self.admits(candidate),
            undeclares: false,
        }
    }
}

/// A list of candidates an algorithm wants judged, produced lazily in iteration order.
pub trait CandidateSource {
    fn len(&self) -> usize;

    fn is_empty(&self) -> bool {
        self.len() == 0
    }

    fn candidate(&self, i: usize) -> Candidate;

    /// The configuration of candidate `i` as consecutive slices of unit ids, when candidates are
    /// subsets of one universe of units (None for transformations such as hoisting).
    fn config(&self, i: usize) -> Option<Vec<&[UnitId]>>;

    /// Writes the test case of candidate `i` into `out` (which is empty).
    fn render(&self, i: usize, out: &mut Vec<u8>);

    /// The byte ranges of the current best that candidate `i` removes or replaces, for
    /// displays (empty when unknown).
    fn removed_spans(&self, i: usize) -> Vec<std::ops::Range<usize>> {
        let _ = i;
        Vec::new()
    }

    /// What replaces each of [`CandidateSource::removed_spans`], for displays (empty when the
    /// candidate only removes).
    fn replacements(&self, i: usize) -> Vec<String> {
        let _ = i;
        Vec::new()
    }

    /// The candidate the algorithm's recent verdicts predict to be interesting, if any (the
    /// branch prediction of a window judged first in order). While its test runs, a free
    /// worker tests [`CandidateSource::render_after_accepting`] of it instead of the window's
    /// next candidate. A hint only: it changes no choice, only which tests run.
    fn predicted_interesting(&self) -> Option<usize> {
        None
    }

    /// Writes into `out` (which is empty) the candidate the algorithm judges next should
    /// candidate `i` be the one accepted from this window; false when it does not know.
    /// Called only when that candidate is about to be tested.
    fn render_after_accepting(&self, i: usize, out: &mut Vec<u8>) -> bool {
        let _ = (i, out);
        false
    }

    /// The signature by which the recall knows candidate `i` (see
    /// [`crate::testing::recall::signature`]), when its stage made one: a candidate judged not
    /// interesting (by a test, the cache or the guard) is noted as it is judged, so that a
    /// window cut short (a stage out of its budget) keeps what it learnt.
    fn recall_signature(&self, i: usize) -> Option<u64> {
        let _ = i;
        None
    }
}

/// How a window of candidates is decided.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum WindowPolicy {
    /// The interesting candidate that comes first in iteration order (sequential and `stable`).
    FirstInOrder,
    /// The interesting candidate that finishes first; the others are cancelled (`first`).
    FirstToFinish,
    /// Every interesting candidate of the testing window (`greedy`).
    AllInWindow,
}

/// Judges candidates for the algorithms.
pub struct Tester {
    oracle: Arc<dyn Oracle>,
    cache: OutcomeCache,
    guard: Option<Arc<dyn CandidateGuard>>,
    control: Arc<Control>,
    limits: Limits,
    /// Tests of the algorithm started so far (counted when they start, so that a window of
    /// parallel tests stops at `--limit-tests` exactly; `stats.tests` counts them as they end).
    tests_started: u64,
    started: Instant,
    stats: Stats,
    /// The trace (behind a cell: events are noted from `&self`).
    trace: Option<std::cell::RefCell<TraceWriter>>,
    events: Option<Sender<Event>>,
    on_improvement: Option<ImprovementSink>,
    steps: u64,
    /// Candidates judged now are preflight checks (step 0).
    preflight: bool,
    /// Candidates judged now were proposed by the user: they run even while paused.
    bypass_pause: bool,
    /// The testing window in use: the control's, once adopted (see [`Tester::adopt_jobs`]).
    jobs: usize,
    /// A window whose threads could not be started: not tried again until the control asks
    /// for another one.
    unavailable_jobs: Option<usize>,
    pool: Option<rayon::ThreadPool>,
    inline_below: Option<Duration>,
    best: Vec<u8>,
    /// The non-whitespace characters of `best`, counted when first asked for.
    best_nonws: std::cell::OnceCell<u64>,
    /// When the run's course is next noted (see [`Stats::course`]).
    next_course_point: Duration,
    /// Where the course sits in a larger run's (a case's), if it does.
    course_frame: Option<crate::observe::stats::CourseFrame>,
    stats_out: Option<Arc<std::sync::Mutex<Stats>>>,
    last_published: Instant,
    /// Tests that may fail in a row before the checkpoint stops with [`Stop::Budget`].
    failure_budget: Option<u64>,
    failures_in_a_row: u64,
    /// How often the recent tests passed (see [`Tester::note_recent_outcome`]).
    recent_interesting: f64,
    /// Dropping it disarms the timer of the time limit.
    time_limit_timer: Option<Sender<()>>,
    /// Whether idle workers test ahead what an algorithm expects next.
    lookahead_enabled: bool,
    ahead: RunAhead,
    /// The oracle's runs on workers nothing else needed (see [`crate::testing::idle`]).
    idle: IdleRuns,
    /// The engine's own time per candidate: checkpoint to test (render, cache, guard).
    preparing: MeanTime,
    /// The edits that failed, by neighbourhood (see [`Recall`]).
    recall: Recall,
    /// The stage whose window candidates the recall knows by their removed spans (see
    /// [`Tester::with_window_recall`]).
    window_recall: Option<String>,
    /// Whether the checkpoint stops with [`Stop::Recheck`] once the test is found flaky.
    recheck_when_flaky: bool,
    /// Whether the guard is worth asking (see [`guard_worth`]).
    guard_worth: guard_worth::GuardWorth,
    /// How candidates that leave a used name undeclared fared (see [`undeclared`]).
    undeclared: undeclared::UndeclaredRecord,
}

/// Sends an event to whoever listens (nobody: it is dropped).
fn send(events: &Option<Sender<Event>>, event: Event) {
    if let Some(events) = events {
        let _ = events.send(event);
    }
}

impl Tester {
    pub fn new(oracle: Arc<dyn Oracle>, cache: CachePolicy, control: Arc<Control>) -> Self {
        let idle = IdleRuns::new(control.stop_token().child());
        Tester {
            oracle,
            cache: OutcomeCache::new(cache),
            guard: None,
            control,
            limits: Limits::default(),
            tests_started: 0,
            started: Instant::now(),
            stats: Stats {
                jobs: 1,
                ..Stats::default()
            },
            trace: None,
            events: None,
            on_improvement: None,
            steps: 0,
            preflight: false,
            bypass_pause: false,
            jobs: 1,
            unavailable_jobs: None,
            pool: None,
            inline_below: Some(Duration::from_micros(100)),
            best: Vec::new(),
            best_nonws: std::cell::OnceCell::new(),
            next_course_point: crate::observe::stats::course_moment_after(Duration::ZERO),
            course_frame: None,
            stats_out: None,
            last_published: Instant::now(),
            failure_budget: None,
            failures_in_a_row: 0,
            recent_interesting: 0.0,
            time_limit_timer: None,
            lookahead_enabled: true,
            ahead: RunAhead::default(),
            idle,
            preparing: MeanTime::default(),
            recall: Recall::default(),
            window_recall: None,
            recheck_when_flaky: false,
            guard_worth: Default::default(),
            undeclared: Default::default(),
        }
    }

    /// From now on, the first checkpoint after the test is found flaky stops the run with
    /// [`Stop::Recheck`], so that the driver re-tests the result (it may have been accepted on
    /// a lucky run, and every candidate made from it would fail) before going on. Not armed
    /// when the test is known flaky already: then every verdict so far was confirmed.
    pub fn arm_flaky_recheck(&mut self) {
        self.recheck_when_flaky = !self.oracle.found_flaky();
    }

    /// No [`Stop::Recheck`] from now on (the caller re-tests the result: the first that
    /// stopped, or the end's).
    pub fn disarm_flaky_recheck(&mut self) {
        self.recheck_when_flaky = false;
    }

    /// Whether workers a window leaves idle may test ahead (on by default).
    pub fn set_lookahead_enabled(&mut self, enabled: bool) {
        self.lookahead_enabled = enabled;
        if !enabled {
            self.drop_run_ahead();
        }
    }

    /// The candidates the algorithm expects to judge next, should the ones it judges before
    /// them all fail: the workers that the coming windows leave idle test them ahead. The
    /// lookahead holds until the next one is set or a reduction is accepted.
    /// `None` ends it: the tests under way are cancelled and the verdicts not claimed dropped.
    pub fn set_lookahead(&mut self, lookahead: Option<Box<dyn Lookahead>>) {
        match lookahead.filter(|_| self.lookahead_enabled && !self.preflight) {
            Some(lookahead) => self.ahead.set(Some(lookahead)),
            None => self.drop_run_ahead(),
        }
    }

    /// Forgets the lookahead and the verdicts not claimed (counted as wasted); cancels the
    /// tests run ahead that are under way.
    fn drop_run_ahead(&mut self) {
        self.stats.wasted += self.ahead.clear() as u64;
    }

    /// With `Some(n)`, the next candidate after `n` tests in a row that were not interesting
    /// stops with [`Stop::Budget`] (cache hits and guard skips do not count); `None` lifts it.
    /// The count starts again at zero.
    pub fn set_failure_budget(&mut self, budget: Option<u64>) {
        self.failure_budget = budget;
        self.failures_in_a_row = 0;
    }

    /// The edits that failed before, by neighbourhood.
    pub fn recall(&self) -> &Recall {
        &self.recall
    }

    /// The edits that failed before, to note failures or to skip them.
    pub fn recall_mut(&mut self) -> &mut Recall {
        &mut self.recall
    }

    /// Iteration `iteration` of a stage's walks to their fixed point begins: told to the
    /// listeners, and from the second on the recall skips what failed in the earlier ones
    /// (see [`Recall::next_pass`]).
    pub fn begin_fixpoint_iteration(&mut self, stage: &str, iteration: u32) {
        self.emit(Event::FixpointIteration {
            stage: stage.to_owned(),
            iteration,
        });
        if iteration > 1 {
            self.recall.next_pass();
        }
    }

    /// Runs `run` with the window candidates that tell their removed spans known to the recall
    /// as `stage`'s, by those spans and what replaces them: those that failed in an earlier run
    /// or pass of the stage with the same neighbourhood are skipped while the recall skips, and
    /// those that fail are noted. For the tree stages and unit passes, whose windows come from
    /// generic minimizers; the text stages filter their edits themselves.
    pub fn with_window_recall<R>(&mut self, stage: &str, run: impl FnOnce(&mut Tester) -> R) -> R {
        let outer = self.window_recall.replace(stage.to_owned());
        let result = run(self);
        self.window_recall = outer;
        result
    }

    /// Adopts the control's testing window now: windows of up to that many tests run at once
    /// (1: strictly sequential) on as many threads. Every window adopts it anyway; this tells
    /// at once whether the threads can be started (on failure the tester keeps the window it
    /// had).
    pub fn adopt_jobs(&mut self) -> anyhow::Result<()> {
        let wanted = self.control.jobs();
        if wanted == self.jobs {
            return Ok(());
        }
        self.pool = if wanted > 1 {
            let pool = rayon::ThreadPoolBuilder::new()
                .num_threads(wanted)
                .thread_name(|i| format!("whittle-test-{i}"))
                .build();
            match pool {
                Ok(pool) => Some(pool),
                Err(error) => {
                    self.unavailable_jobs = Some(wanted);
                    anyhow::bail!("cannot start {wanted} threads for the tests: {error}");
                }
            }
        } else {
            None
        };
        self.jobs = wanted;
        self.stats.jobs = wanted;
        self.unavailable_jobs = None;
        Ok(())
    }

    /// The testing window in use (the control's, from its next window on).
    pub fn jobs(&self) -> usize {
        self.jobs
    }

    pub fn set_guard(&mut self, guard: Option<Arc<dyn CandidateGuard>>) {
        self.guard = guard;
    }

    pub fn set_trace(&mut self, trace: Option<TraceWriter>) {
        self.trace = trace.map(std::cell::RefCell::new);
    }

    pub fn set_events(&mut self, events: Option<Sender<Event>>) {
        self.events = events;
    }

    pub fn set_improvement_sink(&mut self, sink: Option<ImprovementSink>) {
        self.on_improvement = sink;
    }

    pub fn control(&self) -> &Arc<Control> {
        &self.control
    }

    pub fn oracle(&self) -> &Arc<dyn Oracle> {
        &self.oracle
    }

    /// Forgets the cached verdicts: the run went back to an earlier result after a flaky test
    /// let a later one through, and the verdicts of single runs are not to be trusted.
    pub fn forget_cached_verdicts(&mut self) {
        self.cache.clear();
    }

    /// Bounds the outcome cache's memory (see [`crate::exec::cache::DEFAULT_MEMORY_LIMIT`]); the
    /// cache starts afresh.
    pub fn set_cache_memory(&mut self, bytes: usize) {
        self.cache = OutcomeCache::new(self.cache.policy()).with_memory_limit(bytes);
    }

    /// Time since the tester started, without the time it waited paused or between steps.
    pub fn running_time(&self) -> Duration {
        self.started
            .elapsed()
            .saturating_sub(self.control.parked_time())
    }

    /// Reductions accepted so far.
    pub fn accepted(&self) -> u64 {
        self.stats.accepted
    }

    /// Candidates considered so far (tests, cache hits and guard skips).
    pub fn steps(&self) -> u64 {
        self.steps
    }

    /// Numbers the steps that follow after `steps` earlier ones (those of another tester of
    /// the same run: a case's files phase and each file's session count on one scale).
    pub fn continue_steps(&mut self, steps: u64) {
        self.steps = steps;
    }

    /// The current best test case (the last one accepted).
    pub fn best(&self) -> &[u8] {
        &self.best
    }

    /// Sets the current best without a test (the input, once it was found interesting).
    pub fn set_best(&mut self, best: Vec<u8>) {
        if let Some(guard) = &self.guard {
            guard.rebase(&best);
        }
        self.best = best;
        self.best_nonws = std::cell::OnceCell::new();
    }

    /// A new universe of unit ids begins (a new pass, a new tree level).
    pub fn begin_universe(&mut self) {
        self.cache.begin_universe();
    }

    /// Whether candidates should tell what they remove: someone shows it (see
    /// [`Tester::shows_spans`]), or the recall knows the window candidates by it (in a
    /// schedule's stage run, see [`Tester::with_window_recall`]).
    pub fn wants_spans(&self) -> bool {
        self.shows_spans() || (self.window_recall.is_some() && self.recall.recording())
    }

    /// Whether someone listens to the events or a replayable trace records them (so a
    /// candidate's judgement carries what it removes).
    pub(super) fn shows_spans(&self) -> bool {
        self.events.is_some()
            || self
                .trace
                .as_ref()
                .is_some_and(|trace| trace.borrow().is_replayable())
    }

    /// Reports an event to whoever listens, and to a replayable trace.
    pub fn emit(&self, event: Event) {
        if let Some(trace) = &self.trace {
            trace.borrow_mut().note_event(&event, &self.best);
        }
        send(&self.events, event);
    }

    /// Reports what the oracle has to say (a run directory it could not remove, say).
    fn report_oracle_warnings(&self) {
        for message in self.oracle.take_warnings() {
            self.emit(Event::Warning { message });
        }
    }

    /// Counts a ddmin round and reports the partition: round `round` of the current ddmin,
    /// which judges at most `candidates` candidates.
    pub fn note_round(
        &mut self,
        n: usize,
        len: usize,
        round: u64,
        candidates: usize,
        chunks: impl FnOnce() -> Vec<u32>,
    ) {
        self.stats.iterations += 1;
        if self.wants_spans() {
            let chunks = if n <= 256 { chunks() } else { Vec::new() };
            let nu = self.control.split_factor();
            self.emit(Event::Round {
                iteration: self.stats.iterations,
                round,
                candidates,
                n,
                len,
                nu,
                chunks,
            });
        }
    }

    /// Reports a branch that accepts no candidate (granularity increase, done).
    pub fn note_branch(&self, branch: Branch, n: usize) {
        self.emit(Event::BranchTaken { branch, n });
    }

    /// Why the run must stop now, if it must: a stop asked for (a signal, the time limit's
    /// timer, a switch) or a limit reached. Unlike the checkpoint it never waits (a pause holds
    /// the next candidate, not the work before it): long work between two candidates (a text
    /// stage working out the edits of a long line) asks it as it goes.
    pub fn interruption(&self) -> Result<(), Stop> {
        match self
            .control
            .stop_requested()
            .or_else(|| self.limit_reached())
        {
            Some(stop) => Err(stop),
            None => Ok(()),
        }
    }

    fn checkpoint(&mut self) -> Result<(), Stop> {
        self.report_plan_changes();
        if let Some(budget) = self.failure_budget
            && self.failures_in_a_row >= budget
        {
            return Err(Stop::Budget);
        }
        if self.recheck_when_flaky && self.oracle.found_flaky() {
            self.recheck_when_flaky = false;
            return Err(Stop::Recheck);
        }
        if let Some(stop) = self.limit_reached() {
            return Err(stop);
        }
        if self.bypass_pause {
            return match self.control.stop_requested() {
                Some(Stop::Requested) => Err(Stop::Requested),
                _ => Ok(()),
            };
        }
        // About to wait: whoever displays the run sees the statistics of every step so far
        // before it sees the engine wait.
        let control = Arc::clone(&self.control);
        let preflight = self.preflight;
        let publish = || self.publish_stats(true);
        let passed = if preflight {
            control.checkpoint_outside_steps(publish)
        } else {
            control.checkpoint(publish)
        };
        // What was switched while it waited holds from this candidate on.
        self.report_plan_changes();
        passed
    }

    /// Reports the live switches of the plan since the last report (an event each, and in the
    /// statistics): they hold from the next candidate on.
    pub fn report_plan_changes(&mut self) {
        for PlanChange { version, change } in self.control.take_plan_changes() {
            self.emit(Event::PlanChanged {
                version,
                change: change.clone(),
                step: self.steps(),
            });
            self.stats.plan_changes.push(PlanChange { version, change });
        }
    }

    /// Judges the candidates of `source` in order and returns the indices of the interesting
    /// ones the policy selects (at most one, except for [`WindowPolicy::AllInWindow`]).
    pub fn run_window(
        &mut self,
        source: &dyn CandidateSource,
        policy: WindowPolicy,
    ) -> Result<Vec<usize>, Stop> {
        let wanted = self.control.jobs();
        if wanted != self.jobs
            && self.unavailable_jobs != Some(wanted)
            && let Err(error) = self.adopt_jobs()
        {
            self.emit(Event::Warning {
                message: format!("{error:#}; the tests keep running {} at a time", self.jobs),
            });
        }
        self.publish_stats(false);
        let ahead = (self.ahead.has_next() || source.predicted_interesting().is_some())
            && !self.control.is_paused();
        if self.jobs == 1 || (source.len() <= 1 && !ahead) || self.tests_are_trivial() {
            for i in 0..source.len() {
                if self.consider(source, i, &mut None)?.is_interesting() {
                    return Ok(vec![i]);
                }
            }
            return Ok(Vec::new());
        }
        self.run_parallel_window(source, policy)
    }

    /// Candidate `i` of `window`, judged interesting, becomes the current best (with the
    /// configuration the window gives it).
    pub fn accept_from(&mut self, window: &dyn CandidateSource, i: usize, branch: Branch) {
        let mut content = Vec::new();
        window.render(i, &mut content);
        let config = window.config(i);
        self.accept(content, config.as_deref(), branch, window.candidate(i));
    }

    /// An interesting candidate becomes the current best.
    pub fn accept(
        &mut self,
        content: Vec<u8>,
        config: Option<&[&[UnitId]]>,
        branch: Branch,
        candidate: Candidate,
    ) {
        self.cache.accepted(CacheKey {
            config: config.unwrap_or(&[]),
            content: Some(&content),
        });
        self.failures_in_a_row = 0;
        // The test of the candidate judged next after this one, run on the prediction that
        // this one would be accepted, stays: the next window claims it.
        self.stats.wasted += self.ahead.accepted() as u64;
        if let Some(guard) = &self.guard {
            guard.rebase(&content);
        }
        self.stats.accepted += 1;
        if let Some(sink) = &mut self.on_improvement {
            let events = &self.events;
            let report = |event: Event| send(events, event);
            sink(
                &Improvement {
                    previous: &self.best,
                    content: &content,
                    branch,
                    candidate,
                    tests: self.stats.tests,
                },
                &report,
            );
        }
        let size = content.len();
        self.best = content;
        self.best_nonws = std::cell::OnceCell::new();
        self.emit(Event::Accepted {
            step: self.steps,
            size,
            branch,
            candidate,
        });
    }
}

impl Drop for Tester {
    fn drop(&mut self) {
        self.end_trace();
    }
}

impl Tester {
    /// Ends a replayable trace with the events after the last candidate (dropping the tester
    /// does too); nothing more is traced.
    pub fn end_trace(&mut self) {
        let running = self.running_time();
        if let Some(trace) = self.trace.take()
            && let Err(error) = trace.into_inner().finish(running, &self.best)
        {
            self.emit(Event::Warning {
                message: format!("cannot write the end of the trace ({error})"),
            });
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::exec::oracle::{CancelToken, TestStatus, Verdict};
    use crate::observe::events::{Branch, CandidateKind};
    use crate::outcome::Outcome;
    use crate::params::Knobs;

    /// An oracle that finds everything interesting and has something to say after each run.
    struct Untidy;

    impl Oracle for Untidy {
        fn judge(&self, _: &[u8], _: &CancelToken) -> Verdict {
            Verdict {
                outcome: Outcome::Interesting,
                status: TestStatus::Predicate,
                duration: Duration::ZERO,
                output_tail: None,
                node: None,
                remembered: false,
                timeout_reruns: 0,
            }
        }

        fn describe(&self) -> String {
            "untidy".into()
        }

        fn take_warnings(&self) -> Vec<String> {
            vec!["a run left a mess".into()]
        }
    }

    /// The course holds the best as it was at each noted moment, and last the best now.
    #[test]
    fn the_course_notes_the_best_of_each_moment_and_ends_where_the_run_is() {
        let oracle = crate::exec::oracle::predicate("has x", |c: &[u8]| c.contains(&b'x'));
        let control = Arc::new(Control::new(Knobs::default()));
        let mut tester = Tester::new(Arc::new(oracle), CachePolicy::recommended(), control);
        tester.set_best(b"a b x".to_vec());
        // The first moment is due at once: the test below ends after it.
        tester.next_course_point = Duration::ZERO;
        let candidate = Candidate::single(CandidateKind::Complement);
        let (outcome, _) = tester.judge_single(candidate, b"x").unwrap();
        assert_eq!(outcome, Outcome::Interesting);
        tester.accept(b"x".to_vec(), None, Branch::ReduceToComplement, candidate);
        let course = tester.stats().course;
        let seen: Vec<(u64, u64, u64)> = course
            .iter()
            .map(|point| (point.tests, point.bytes, point.nonws_chars))
            .collect();
        assert_eq!(seen, [(1, 5, 3), (1, 1, 1)]);
        assert_eq!(course[0].seconds, 0.0);
        assert!(course[1].seconds > 0.0);
        assert_eq!(tester.next_course_point, Duration::from_secs(1));
    }

    #[test]
    fn what_the_oracle_has_to_say_becomes_a_warning_event() {
        let control = Arc::new(Control::new(Knobs::default()));
        let mut tester = Tester::new(Arc::new(Untidy), CachePolicy::recommended(), control);
        let (events, received) = crossbeam_channel::unbounded();
        tester.set_events(Some(events));
        let initial = Candidate::single(CandidateKind::Initial);
        let (outcome, _) = tester.preflight(initial, b"input").unwrap();
        assert_eq!(outcome, Outcome::Interesting);
        drop(tester);
        let warnings: Vec<String> = received
            .iter()
            .filter_map(|event| match event {
                Event::Warning { message } => Some(message),
                _ => None,
            })
            .collect();
        assert_eq!(warnings, ["a run left a mess"]);
    }
}
