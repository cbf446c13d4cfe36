//! The one path every candidate takes: the control checkpoint, the cache, the syntax guard and
//! the oracle, with statistics, trace and events recorded on the way. Windows of candidates run
//! on a rayon pool; workers a window leaves idle test ahead (see [`crate::testing::ahead`]).

use std::sync::Arc;
use std::time::{Duration, Instant};

use crossbeam_channel::Sender;

use crate::exec::cache::{CacheKey, CachePolicy, OutcomeCache, UnitId};
use crate::exec::oracle::{CancelToken, Oracle, TestStatus, Verdict};
use crate::observe::events::{Action, Branch, Candidate, Event, PREVIEW_LIMIT};
use crate::observe::stats::Stats;
use crate::observe::trace::TraceWriter;
use crate::outcome::Outcome;
use crate::testing::ahead::{Lookahead, RunAhead};
use crate::testing::control::{Control, Stop};

/// Rejects candidates that cannot be worth a test (the syntax guard of tree reductions).
pub trait CandidateGuard: Send + Sync {
    /// False when the candidate should count as unresolved without running the test.
    fn admits(&self, candidate: &[u8]) -> bool;
    /// The current best changed to `best`.
    fn rebase(&self, best: &[u8]);
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

/// Stop conditions of a run.
#[derive(Clone, Copy, Debug, Default)]
pub struct Limits {
    pub tests: Option<u64>,
    pub time: Option<Duration>,
}

/// A reduction that was just accepted.
pub struct Improvement<'a> {
    /// The best test case before.
    pub previous: &'a [u8],
    /// The new best test case.
    pub content: &'a [u8],
    pub branch: Branch,
    pub candidate: Candidate,
    /// Tests run so far.
    pub tests: u64,
}

/// Receives each new best test case (e.g. to write it to disk and keep the history); what it
/// has to report (a write that failed, say) it gives to the second argument, which sends it
/// with the tester's events.
pub type ImprovementSink = Box<dyn FnMut(&Improvement<'_>, &dyn Fn(Event)) + Send>;

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
    stats_out: Option<Arc<std::sync::Mutex<Stats>>>,
    last_published: Instant,
    /// Tests that may fail in a row before the checkpoint stops with [`Stop::Budget`].
    failure_budget: Option<u64>,
    failures_in_a_row: u64,
    /// Dropping it disarms the timer of the time limit.
    time_limit_timer: Option<Sender<()>>,
    /// Whether idle workers test ahead what an algorithm expects next.
    lookahead_enabled: bool,
    ahead: RunAhead,
    /// The engine's own time per candidate: checkpoint to test (render, cache, guard).
    preparing: MeanTime,
}

/// Whether preparing a candidate for each of `jobs` workers (`preparing` seconds each) takes
/// under a quarter of the time a test takes (`test` seconds).
fn engine_keeps_up(preparing: f64, test: f64, jobs: usize) -> bool {
    preparing * jobs as f64 * 4.0 < test
}

/// A running mean of durations.
#[derive(Default)]
struct MeanTime {
    total: Duration,
    count: u32,
}

impl MeanTime {
    fn add(&mut self, duration: Duration) {
        self.total += duration;
        self.count = self.count.saturating_add(1);
    }

    fn mean(&self) -> Option<Duration> {
        (self.count > 0).then(|| self.total / self.count)
    }
}

/// How often a check of the input or the re-test of the result runs when its run is lost
/// ([`TestStatus::Lost`]: a failed node, a job step the scheduler killed).
const LOST_RUN_ATTEMPTS: usize = 3;

fn is_lost(verdict: &Verdict) -> bool {
    matches!(verdict.status, TestStatus::Lost(_))
}

/// Sends an event to whoever listens (nobody: it is dropped).
fn send(events: &Option<Sender<Event>>, event: Event) {
    if let Some(events) = events {
        let _ = events.send(event);
    }
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
    pub fn new(oracle: Arc<dyn Oracle>, cache: CachePolicy, control: Arc<Control>) -> Self {
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
            stats_out: None,
            last_published: Instant::now(),
            failure_budget: None,
            failures_in_a_row: 0,
            time_limit_timer: None,
            lookahead_enabled: true,
            ahead: RunAhead::default(),
            preparing: MeanTime::default(),
        }
    }

    /// Whether workers a window leaves idle may test ahead (on by default).
    pub fn set_lookahead_enabled(&mut self, enabled: bool) {
        self.lookahead_enabled = enabled;
        if !enabled {
            self.drop_run_ahead();
        }
    }

    /// Whether a lookahead would be used now: tests ahead are on, several run at once, and
    /// the tests take long enough that the engine keeps up with the workers (preparing a
    /// candidate for each worker, render, cache and guard, takes under a quarter of a test's
    /// time; otherwise a test ahead only adds to the engine's work). Algorithms need not
    /// compute one otherwise.
    pub fn wants_lookahead(&self) -> bool {
        if !self.lookahead_enabled || self.control.jobs() < 2 || self.tests_are_trivial() {
            return false;
        }
        let (Some(preparing), true) = (self.preparing.mean(), self.stats.oracle_runs > 0) else {
            return true;
        };
        let test = self.stats.test_seconds / self.stats.oracle_runs as f64;
        engine_keeps_up(preparing.as_secs_f64(), test, self.control.jobs())
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

    /// Sets the limits. A time limit also arms a timer that stops the run at the limit,
    /// killing the tests that run then (the checkpoint alone would wait for them).
    pub fn set_limits(&mut self, limits: Limits) {
        self.limits = limits;
        self.time_limit_timer = limits.time.and_then(|limit| {
            arm_time_limit(
                self.control.clone(),
                limit,
                limit.saturating_sub(self.started.elapsed()),
            )
        });
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

    /// Bounds the outcome cache's memory (see [`crate::exec::cache::DEFAULT_MEMORY_LIMIT`]); the
    /// cache starts afresh.
    pub fn set_cache_memory(&mut self, bytes: usize) {
        self.cache = OutcomeCache::new(self.cache.policy()).with_memory_limit(bytes);
    }

    /// The statistics so far (cache figures included).
    pub fn stats(&self) -> Stats {
        let mut stats = self.stats.clone();
        let cache = self.cache.stats();
        stats.cache = cache;
        stats.cache_hits = cache.hits();
        stats.cache_peak_entries = cache.peak_entries;
        stats.cache_peak_bytes = cache.peak_bytes;
        stats.wasted += self.ahead.unclaimed() as u64;
        stats.wall_seconds = self.started.elapsed().as_secs_f64();
        if stats.wall_seconds > 0.0 {
            stats.effective_parallelism = stats.test_seconds / stats.wall_seconds;
        }
        stats
    }

    pub fn stats_mut(&mut self) -> &mut Stats {
        &mut self.stats
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
    }

    /// A new universe of unit ids begins (a new pass, a new tree level).
    pub fn begin_universe(&mut self) {
        self.cache.begin_universe();
    }

    /// Whether someone listens to the events or a replayable trace records them (so
    /// candidates should tell what they remove).
    pub fn wants_spans(&self) -> bool {
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

    /// The limit of tests or time, when one is reached.
    fn limit_reached(&self) -> Option<Stop> {
        if let Some(stop) = self.test_limit_reached() {
            return Some(stop);
        }
        if let Some(max) = self.limits.time
            && self.started.elapsed() >= max
        {
            return Some(time_limit_reached(max));
        }
        None
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
        if let Some(budget) = self.failure_budget
            && self.failures_in_a_row >= budget
        {
            return Err(Stop::Budget);
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
        if self.control.is_paused() {
            // About to wait: whoever displays the run sees the statistics of every step so far.
            self.publish_stats(true);
        }
        if self.preflight {
            self.control.checkpoint_outside_steps()
        } else {
            self.control.checkpoint()
        }
    }

    /// The stop of `--limit-tests` once as many tests as it allows have started.
    fn test_limit_reached(&self) -> Option<Stop> {
        let max = self.limits.tests?;
        (self.tests_started.max(self.stats.tests) >= max)
            .then(|| Stop::Limit(format!("the limit of {max} tests was reached")))
    }

    /// Counts a test of the algorithm that starts (the checks of the input are not among them).
    fn count_start(&mut self) {
        if !self.preflight {
            self.tests_started += 1;
        }
    }

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
        let lookahead = self.ahead.has_next() && !self.control.is_paused();
        if self.jobs == 1 || (source.len() <= 1 && !lookahead) || self.tests_are_trivial() {
            for i in 0..source.len() {
                if self.consider(source, i, &mut None)?.is_interesting() {
                    return Ok(vec![i]);
                }
            }
            return Ok(Vec::new());
        }
        self.run_parallel_window(source, policy)
    }

    /// Publishes the statistics to the shared copy (at most every 50 ms unless `now`).
    pub fn publish_stats(&mut self, now: bool) {
        if self.stats_out.is_none() {
            return;
        }
        if !now && self.last_published.elapsed() < Duration::from_millis(50) {
            return;
        }
        self.last_published = Instant::now();
        let stats = self.stats();
        if let Some(shared) = &self.stats_out {
            *shared
                .lock()
                .unwrap_or_else(std::sync::PoisonError::into_inner) = stats;
        }
    }

    /// Where [`Tester::publish_stats`] copies the statistics.
    pub fn set_stats_output(&mut self, shared: Option<Arc<std::sync::Mutex<Stats>>>) {
        self.stats_out = shared;
    }

    /// Whether tests are so fast that handing them to the pool costs more than running them
    /// here (in-process predicates): then windows run inline, in iteration order.
    fn tests_are_trivial(&self) -> bool {
        let Some(threshold) = self.inline_below else {
            return false;
        };
        self.stats.oracle_runs >= 8
            && self.stats.test_seconds / (self.stats.oracle_runs as f64) < threshold.as_secs_f64()
    }

    /// Windows run inline when the mean test takes less than `threshold` (default 100 µs);
    /// `None` always uses the pool when `jobs` > 1.
    pub fn set_inline_below(&mut self, threshold: Option<Duration>) {
        self.inline_below = threshold;
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
        self.drop_run_ahead();
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
        self.emit(Event::Accepted {
            step: self.steps,
            size,
            branch,
            candidate,
        });
    }

    /// Everything before the test itself: checkpoint, cache lookups, rendering and the guard.
    /// Returns the outcome when it is known without a test, or the rendered candidate.
    fn prepare(&mut self, source: &dyn CandidateSource, i: usize) -> Result<Prepared, Stop> {
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
        let config = source.config(i);
        let config_parts: &[&[UnitId]] = config.as_deref().unwrap_or(&[]);
        let mut content = Vec::new();

        if !self.cache.needs_content() && config.is_some() {
            let key = CacheKey {
                config: config_parts,
                content: None,
            };
            if let Some(outcome) = self.cache.lookup(key) {
                if self.trace.is_some() || self.events.is_some() {
                    source.render(i, &mut content);
                }
                let removed = self.spans_of(source, i);
                self.record(
                    &content,
                    Judgement::known(step, candidate, Action::Cache, outcome, removed),
                );
                return Ok(Prepared::Known(outcome));
            }
        }
        source.render(i, &mut content);
        if self.cache.needs_content() {
            let key = CacheKey {
                config: config_parts,
                content: Some(&content),
            };
            if let Some(outcome) = self.cache.lookup(key) {
                let removed = self.spans_of(source, i);
                self.record(
                    &content,
                    Judgement::known(step, candidate, Action::Cache, outcome, removed),
                );
                return Ok(Prepared::Known(outcome));
            }
        }
        if let Some(guard) = &self.guard
            && !guard.admits(&content)
        {
            self.stats.guard_skips += 1;
            let outcome = Outcome::Unresolved;
            let removed = self.spans_of(source, i);
            self.record(
                &content,
                Judgement::known(step, candidate, Action::Guard, outcome, removed),
            );
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

    /// Records a finished test: statistics, cache, trace and events.
    fn finish(
        &mut self,
        source: &dyn CandidateSource,
        i: usize,
        judging: &Judging,
        verdict: &Verdict,
    ) {
        self.count_verdict(verdict);
        self.conclude(source, i, judging, verdict);
    }

    /// Counts a finished run and how it ended.
    fn count_verdict(&mut self, verdict: &Verdict) {
        self.count_run();
        self.stats.test_seconds += verdict.duration.as_secs_f64();
        match verdict.status {
            TestStatus::TimedOut => self.stats.timeouts += 1,
            TestStatus::Signaled(_) | TestStatus::SpawnFailed(_) => self.stats.crashes += 1,
            TestStatus::Lost(_) => self.stats.lost += 1,
            _ => {}
        }
    }

    /// Records what a finished test says of candidate `i`: outcome statistics, cache, trace
    /// and events (its run is counted by [`Tester::count_verdict`]).
    fn conclude(
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
        } = *judging;
        match verdict.outcome {
            Outcome::Interesting if !self.preflight => self.stats.interesting_tests += 1,
            Outcome::Unresolved => self.stats.unresolved += 1,
            Outcome::Interesting | Outcome::NotInteresting => {}
        }
        // A lost run says nothing of the candidate: it is tested again when it comes up again,
        // and it is no failure of the stage.
        if !matches!(verdict.status, TestStatus::Lost(_)) {
            if verdict.outcome.is_interesting() {
                self.failures_in_a_row = 0;
            } else {
                self.failures_in_a_row += 1;
            }
            let config = source.config(i);
            self.cache.store(
                CacheKey {
                    config: config.as_deref().unwrap_or(&[]),
                    content: Some(content),
                },
                verdict.outcome,
            );
        }
        if let Some(tail) = &verdict.output_tail {
            self.emit(Event::TestOutput {
                step,
                status: verdict.status.clone(),
                tail: tail.clone(),
                node: verdict.node.clone(),
            });
        }
        self.publish_stats(false);
        let removed = self.spans_of(source, i);
        self.record(
            content,
            Judgement {
                step,
                candidate,
                action: Action::Test,
                outcome: verdict.outcome,
                status: Some(verdict.status.clone()),
                duration: verdict.duration,
                removed,
                node: verdict.node.clone(),
            },
        );
    }

    /// Counts one run of the test: a check of the input (preflight) or a test of the algorithm.
    fn count_run(&mut self) {
        if self.preflight {
            self.stats.checks += 1;
        } else {
            self.stats.tests += 1;
        }
        self.stats.oracle_runs += 1;
    }

    /// What candidate `i` removes from the current best, when someone displays or records it.
    fn spans_of(&self, source: &dyn CandidateSource, i: usize) -> Vec<std::ops::Range<usize>> {
        if self.wants_spans() {
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
                judgement.duration,
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
        });
    }

    fn consider(
        &mut self,
        source: &dyn CandidateSource,
        i: usize,
        verdict_out: &mut Option<Verdict>,
    ) -> Result<Outcome, Stop> {
        let judging = match self.prepare(source, i)? {
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
        // A candidate whose test ahead ended without a verdict is tested after all: a test
        // more, which the limit may not allow.
        if let Some(stop) = self.test_limit_reached() {
            return Err(stop);
        }
        self.count_start();
        let token = self.control.stop_token().child();
        let verdict = self.oracle.judge(&judging.content, &token);
        self.report_oracle_warnings();
        if let Some(stop) = self.interrupted(&verdict) {
            return Err(stop);
        }
        self.finish(source, i, &judging, &verdict);
        let outcome = verdict.outcome;
        *verdict_out = Some(verdict);
        Ok(outcome)
    }

    /// Waits for the test run ahead on `content` and takes its verdict (`None`: it ended
    /// without one, and the candidate is to be tested).
    fn await_ahead(&mut self, content: &[u8]) -> Result<Option<Verdict>, Stop> {
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

    /// Starts a test of a candidate of the lookahead; it runs on after the window.
    fn launch_ahead(&mut self, pool: &rayon::ThreadPool, content: Vec<u8>) {
        self.count_start();
        let token = self.control.stop_token().child();
        let done = self.ahead.started(content.clone(), token.clone());
        let oracle = Arc::clone(&self.oracle);
        pool.spawn(move || {
            let verdict = oracle.judge(&content, &token);
            let _ = done.send((content, verdict));
        });
    }

    /// A run that says nothing about the candidate: cancelled by a stop, or whittle could not
    /// prepare it. Counts it and returns why the reduction must stop (`None`: an ordinary
    /// verdict, or a run cancelled by its window that the caller handles).
    fn interrupted(&mut self, verdict: &Verdict) -> Option<Stop> {
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

    fn run_parallel_window(
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
        let mut running: Vec<(usize, CancelToken)> = Vec::new();
        // Candidates whose test runs ahead already.
        let mut waiting: Vec<(usize, Judging)> = Vec::new();
        let mut interesting: Vec<usize> = Vec::new();
        let mut finished_after: Vec<usize> = Vec::new();
        let mut next = 0;
        let mut stop = None;
        let spawn = |i: usize, judging: Judging, tester: &Self| {
            let token = tester.control.stop_token().child();
            let oracle = Arc::clone(&tester.oracle);
            let done = done_tx.clone();
            let cancel = token.clone();
            scope.spawn(move |_| {
                let verdict = oracle.judge(&judging.content, &token);
                let _ = done.send((i, judging, verdict));
            });
            (i, cancel)
        };

        loop {
            // Paused or stepping, the tests under way finish and are reported before the next
            // candidate waits at the checkpoint: one step is one candidate judged and shown.
            while stop.is_none()
                && interesting.is_empty()
                && running.len() + self.ahead.in_flight() < self.jobs
                && (running.is_empty() || !self.control.is_paused())
            {
                if next >= source.len() {
                    // The window's candidates are all under way: an idle worker tests ahead.
                    if running.is_empty() && waiting.is_empty() {
                        break;
                    }
                    match self.next_ahead() {
                        Some(content) => self.launch_ahead(pool, content),
                        None => break,
                    }
                    continue;
                }
                let i = next;
                next += 1;
                match self.prepare(source, i) {
                    Err(why) => stop = Some(why),
                    Ok(Prepared::Known(outcome)) => {
                        if outcome.is_interesting() {
                            interesting.push(i);
                            if policy == WindowPolicy::FirstToFinish {
                                cancel_all(&running);
                            }
                        }
                    }
                    Ok(Prepared::InFlight(judging)) => waiting.push((i, judging)),
                    Ok(Prepared::Test(judging)) => {
                        self.count_start();
                        running.push(spawn(i, judging, self));
                    }
                }
            }
            // Candidates left while every worker runs a test ahead: wait for one of those.
            let more = stop.is_none() && interesting.is_empty() && next < source.len();
            if running.is_empty() && waiting.is_empty() && !more {
                break;
            }
            let mut decided: Vec<(usize, Outcome)> = Vec::new();
            crossbeam_channel::select! {
                recv(done_rx) -> finished => {
                    let Ok((i, judging, verdict)) = finished else {
                        break;
                    };
                    running.retain(|(index, _)| *index != i);
                    self.report_oracle_warnings();
                    let no_verdict = matches!(
                        verdict.status,
                        TestStatus::Cancelled | TestStatus::ScratchFailed(_)
                    );
                    if no_verdict {
                        if let Some(why) = self.interrupted(&verdict) {
                            stop.get_or_insert(why);
                        }
                    } else {
                        self.finish(source, i, &judging, &verdict);
                        decided.push((i, verdict.outcome));
                    }
                }
                recv(ahead_results) -> result => {
                    let Ok(result) = result else {
                        break;
                    };
                    if let Some(why) = self.take_ahead_result(result) {
                        stop.get_or_insert(why);
                    }
                    let (ended, still): (Vec<_>, Vec<_>) = waiting
                        .drain(..)
                        .partition(|(_, judging)| !self.ahead.is_in_flight(&judging.content));
                    waiting = still;
                    for (i, judging) in ended {
                        match self.ahead.claim(&judging.content) {
                            Some(verdict) => {
                                self.conclude(source, i, &judging, &verdict);
                                decided.push((i, verdict.outcome));
                            }
                            // Ended without a verdict: the candidate is tested after all, when
                            // the limit allows a test more.
                            None if stop.is_none() => match self.test_limit_reached() {
                                Some(limit) => stop = Some(limit),
                                None => {
                                    self.count_start();
                                    running.push(spawn(i, judging, self));
                                }
                            },
                            None => {}
                        }
                    }
                }
            }
            for (i, outcome) in decided {
                finished_after.push(i);
                if outcome.is_interesting() {
                    interesting.push(i);
                    if policy == WindowPolicy::FirstToFinish {
                        cancel_all(&running);
                    }
                }
            }
            if stop.is_none()
                && let Some(why) = self.control.stop_requested()
            {
                stop = Some(why);
            }
            if stop.is_some() {
                cancel_all(&running);
                self.drop_run_ahead();
            }
        }
        if let Some(why) = stop {
            return Err(why);
        }

        let chosen = match policy {
            WindowPolicy::FirstToFinish => interesting.first().copied().into_iter().collect(),
            WindowPolicy::FirstInOrder => interesting.iter().min().copied().into_iter().collect(),
            WindowPolicy::AllInWindow => {
                let mut all = interesting.clone();
                all.sort_unstable();
                all
            }
        };
        if let Some(&first) = chosen.iter().min() {
            self.stats.wasted += finished_after
                .iter()
                .filter(|&&i| i > first && !chosen.contains(&i))
                .count() as u64;
        }
        Ok(chosen)
    }

    /// The next candidate of the lookahead worth a test ahead: not known to the cache, admitted
    /// by the guard, within the test limit, and not while paused or stepping.
    fn next_ahead(&mut self) -> Option<Vec<u8>> {
        if !self.ahead.has_next() || self.control.is_paused() {
            return None;
        }
        if let Some(max) = self.limits.tests
            && self.tests_started.max(self.stats.tests) + self.jobs as u64 >= max
        {
            return None;
        }
        let cache = &self.cache;
        let guard = &self.guard;
        self.ahead.take_next(|content| {
            !cache.knows(content) && guard.as_ref().is_none_or(|guard| guard.admits(content))
        })
    }
}

/// Cancels the tests of a window that are under way.
fn cancel_all(running: &[(usize, CancelToken)]) {
    for (_, token) in running {
        token.cancel();
    }
}

impl Drop for Tester {
    /// Ends a replayable trace with the events after the last candidate.
    fn drop(&mut self) {
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
        }
    }
}

enum Prepared {
    Known(Outcome),
    /// Its test runs ahead already: its verdict is awaited.
    InFlight(Judging),
    Test(Judging),
}

/// A candidate whose outcome takes a test: its step, what it is, its content.
struct Judging {
    step: u64,
    candidate: Candidate,
    content: Vec<u8>,
}

/// A window of one candidate with a fixed content.
struct SingleCandidate<'a> {
    candidate: Candidate,
    content: &'a [u8],
    removed: Vec<std::ops::Range<usize>>,
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
    use super::*;
    use crate::observe::events::CandidateKind;
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
            }
        }

        fn describe(&self) -> String {
            "untidy".into()
        }

        fn take_warnings(&self) -> Vec<String> {
            vec!["a run left a mess".into()]
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
    struct Contents(Vec<&'static str>);

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

    #[test]
    fn tests_run_ahead_only_while_the_engine_keeps_up() {
        // gcc on a C file: 0.15 ms to prepare, 13 ms a test.
        assert!(engine_keeps_up(0.000_15, 0.013, 2));
        // grep on half a megabyte: 0.8 ms to prepare, 1.6 ms a test.
        assert!(!engine_keeps_up(0.000_8, 0.001_6, 2));
        // The more workers, the more the engine prepares.
        assert!(engine_keeps_up(0.001, 0.010, 2));
        assert!(!engine_keeps_up(0.001, 0.010, 4));
        let mut mean = MeanTime::default();
        assert_eq!(mean.mean(), None);
        mean.add(Duration::from_millis(1));
        mean.add(Duration::from_millis(3));
        assert_eq!(mean.mean(), Some(Duration::from_millis(2)));
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
