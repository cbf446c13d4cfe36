//! A reduction session: the engine thread, the commands that steer it, the snapshot the UI
//! reads, and the history of accepted states.

use std::collections::VecDeque;
use std::ops::Range;
use std::path::PathBuf;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Condvar, Mutex, MutexGuard, PoisonError};
use std::thread::JoinHandle;
use std::time::Instant;

use crossbeam_channel::Receiver;
use serde::Serialize;

use super::history::{History, HistoryEntry};
use crate::engine::job::{Finished, Flaky, Job, StartError};
use crate::engine::pipeline::{
    Pins, PipelineStages, StageContext, Stages, StagesFactory, check, language_of, line_range,
    stages_factory,
};
use crate::exec::oracle::Oracle;
use crate::observe::events::{Branch, Candidate, CandidateKind, Event};
use crate::observe::stats::Stats;
use crate::outcome::Outcome;
use crate::params::{ParallelMode, SplitFactor};
use crate::testing::control::{Control, Stop};
use crate::testing::tester::Tester;
use crate::tree::{self, NodeId, Preprocess};

/// How many earlier results are re-tested, newest first, when the final one fails its re-test
/// (the start is tried after them).
const FLAKY_LOOKBACK: usize = 8;

/// A part of the current best, as the user points at it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum PinTarget {
    /// A byte range of the current best.
    Bytes(Range<usize>),
    /// Lines of the current best (0-based, end exclusive).
    Lines(Range<usize>),
    /// A node of the parse tree of the current best with the given version (see
    /// [`Snapshot::version`]; the tree is `tree::parse` of the best with default preprocessing).
    Node { version: u64, node: NodeId },
}

/// An edit the user proposes; the oracle decides whether it is kept.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ManualEdit {
    RemoveBytes(Range<usize>),
    RemoveLines(Range<usize>),
    /// Remove a node (it prints its minimal replacement Φ).
    RemoveNode {
        version: u64,
        node: NodeId,
    },
    /// Replace a node by one of its descendants.
    Hoist {
        version: u64,
        node: NodeId,
        descendant: NodeId,
    },
}

/// What the user can ask of a running session.
#[derive(Clone, Debug, PartialEq)]
pub enum Command {
    Pause,
    Resume,
    /// Consider exactly one more candidate, then pause.
    Step,
    SetStepMode(bool),
    Pin(PinTarget),
    Unpin(PinTarget),
    /// Continue from the current best with another pipeline.
    SwitchAlgorithm(String),
    SetSplitFactor(SplitFactor),
    SetJobs(usize),
    SetParallelMode(ParallelMode),
    Propose(ManualEdit),
    /// End the current stage of the pipeline.
    SkipStage,
    /// Continue from the accepted state with this history index (the output keeps the
    /// smallest result found: only where the engine works moves).
    RestartFrom(usize),
    /// Take back the last accepted manual edit or restart: the engine works again from where
    /// it was before it.
    Undo,
    Stop,
}

/// Where the session is.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum RunState {
    /// The preflight checks run.
    Checking,
    Running,
    /// The pipeline finished; the session waits for commands (or has ended).
    Done,
    /// Stopped before the end (by the user or a limit).
    Stopped(String),
    /// The reduction could not start.
    Failed(String),
}

/// What the UI needs to draw, cheap to clone.
#[derive(Clone, Debug)]
pub struct Snapshot {
    pub state: RunState,
    pub paused: bool,
    pub step_mode: bool,
    /// The engine waits at its checkpoint for a step or a resume.
    pub parked: bool,
    /// How long it has waited there in all (paused or stepping): not running time.
    pub parked_time: std::time::Duration,
    /// The current best test case and how many times it changed.
    pub best: Arc<[u8]>,
    pub version: u64,
    pub input_size: usize,
    pub pipeline: String,
    pub stage: String,
    pub stage_index: usize,
    pub stage_count: usize,
    pub split_factor: SplitFactor,
    pub jobs: usize,
    pub parallel: ParallelMode,
    pub pins: Vec<Range<usize>>,
    pub history: Vec<HistoryEntry>,
    pub stats: Stats,
    pub output: Option<PathBuf>,
    pub language: Option<&'static str>,
}

/// How a session behaves.
pub struct SessionOptions {
    /// End the engine thread when the pipeline is done (headless); otherwise it waits for
    /// commands (restart, propose, switch) until [`Command::Stop`].
    pub exit_when_done: bool,
    /// Start in step mode: nothing is tested until [`Command::Step`] or [`Command::Resume`].
    pub start_in_step_mode: bool,
    /// Check the input, then wait for [`Command::Resume`] (or a step) before the first step.
    pub start_paused: bool,
}

struct Shared {
    control: Arc<Control>,
    pending: Mutex<VecDeque<Command>>,
    wake: Condvar,
    snapshot: Mutex<Snapshot>,
    stats: Arc<Mutex<Stats>>,
    history: Arc<Mutex<History>>,
}

fn lock<T>(mutex: &Mutex<T>) -> MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(PoisonError::into_inner)
}

/// Sends commands to a session from any thread.
#[derive(Clone)]
pub struct CommandSender {
    shared: Arc<Shared>,
}

impl CommandSender {
    pub fn send(&self, command: Command) {
        let control = &self.shared.control;
        match command {
            Command::Pause => control.pause(),
            Command::Resume => control.resume(),
            Command::Step => control.step(),
            Command::SetStepMode(on) => control.set_step_mode(on),
            Command::SetSplitFactor(nu) => control.set_split_factor(nu),
            Command::SetJobs(jobs) => control.set_jobs(jobs),
            Command::SetParallelMode(mode) => control.set_parallel_mode(mode),
            Command::Stop => {
                // Kills the running tests of this session and keeps new ones from starting.
                control.request_stop(Stop::Requested);
                self.enqueue(Command::Stop);
            }
            structural => {
                self.enqueue(structural);
                control.request_stop(Stop::Switched);
            }
        }
    }

    /// The current state, for drawing (the same as [`Session::snapshot`]).
    pub fn snapshot(&self) -> Snapshot {
        let shared = &self.shared;
        let mut snapshot = lock(&shared.snapshot).clone();
        snapshot.stats = lock(&shared.stats).clone();
        snapshot.paused = shared.control.is_paused();
        snapshot.step_mode = shared.control.is_step_mode();
        snapshot.parked = shared.control.is_parked();
        snapshot.parked_time = shared.control.parked_time();
        let knobs = shared.control.knobs();
        snapshot.split_factor = knobs.split_factor;
        snapshot.jobs = knobs.jobs;
        snapshot.parallel = knobs.parallel;
        snapshot
    }

    /// The text of history entry `index` (see [`Snapshot::history`]).
    pub fn history_text(&self, index: usize) -> Option<Vec<u8>> {
        lock(&self.shared.history).text(index)
    }

    fn enqueue(&self, command: Command) {
        lock(&self.shared.pending).push_back(command);
        self.shared.wake.notify_all();
    }
}

/// How a session ended.
pub struct SessionReport {
    /// The preflight checks failed: nothing was reduced.
    pub failure: Option<StartError>,
    /// The result and statistics (the input and zero counts after a failure).
    pub finished: Finished,
}

/// A running reduction.
pub struct Session {
    sender: CommandSender,
    events: Receiver<Event>,
    engine: Option<JoinHandle<SessionReport>>,
    language: Option<&'static tree::Language>,
}

impl Session {
    /// Starts the engine thread on `job`. The settings of the job decide the rest: the pipeline
    /// it runs, the pipelines a switch builds and the input's language (for node pins and node
    /// edits).
    pub fn start(
        job: Job,
        oracle: Arc<dyn Oracle>,
        options: SessionOptions,
    ) -> anyhow::Result<Session> {
        Self::start_with(job, oracle, options, |_| {})
    }

    /// Like [`Session::start`]; `configure` adjusts the tester before the engine starts (trace,
    /// inline threshold, ...).
    pub fn start_with(
        job: Job,
        oracle: Arc<dyn Oracle>,
        options: SessionOptions,
        configure: impl FnOnce(&mut Tester),
    ) -> anyhow::Result<Session> {
        check(&job.settings).map_err(anyhow::Error::msg)?;
        let stages: Box<dyn Stages> = Box::new(PipelineStages::from_settings(&job.settings));
        let factory = stages_factory(job.settings.clone());
        let language = language_of(&job.settings);
        let mut tester = job.tester(oracle)?;
        let control = tester.control().clone();
        if options.start_in_step_mode {
            control.set_step_mode(true);
        }
        configure(&mut tester);
        let (events_tx, events_rx) = crossbeam_channel::unbounded();
        tester.set_events(Some(events_tx));
        let stats = Arc::new(Mutex::new(tester.stats()));
        tester.set_stats_output(Some(stats.clone()));
        let snapshot = Snapshot {
            state: RunState::Checking,
            paused: false,
            step_mode: false,
            parked: false,
            parked_time: std::time::Duration::ZERO,
            best: Arc::from(job.start_text()),
            version: 0,
            input_size: job.input.len(),
            pipeline: stages.describe(),
            stage: String::new(),
            stage_index: 0,
            stage_count: stages.len(),
            split_factor: control.split_factor(),
            jobs: control.jobs(),
            parallel: control.parallel_mode(),
            pins: Vec::new(),
            history: Vec::new(),
            stats: tester.stats(),
            output: job
                .output
                .as_ref()
                .map(|output| output.path().to_path_buf()),
            language: language.map(|l| l.name()),
        };
        let shared = Arc::new(Shared {
            control,
            pending: Mutex::new(VecDeque::new()),
            wake: Condvar::new(),
            snapshot: Mutex::new(snapshot),
            stats,
            history: Arc::new(Mutex::new(History::default())),
        });
        let job_start_len = job.start_text().len();
        let engine = Engine {
            job,
            language,
            shared: shared.clone(),
            stages,
            factory,
            options,
            history: shared.history.clone(),
            pins: Arc::new(Mutex::new(Pins::default())),
            stage_name: Arc::new(Mutex::new(String::new())),
            started: Instant::now(),
            undo: Vec::new(),
            smallest: Arc::new(AtomicUsize::new(job_start_len)),
        };
        let thread = std::thread::Builder::new()
            .name("whittle-engine".into())
            .spawn(move || engine.run(tester))?;
        Ok(Session {
            sender: CommandSender { shared },
            events: events_rx,
            engine: Some(thread),
            language,
        })
    }

    /// The input's language, when this build parses it (the settings name it).
    pub fn language(&self) -> Option<&'static tree::Language> {
        self.language
    }

    pub fn commands(&self) -> CommandSender {
        self.sender.clone()
    }

    pub fn send(&self, command: Command) {
        self.sender.send(command);
    }

    /// The engine's events; the channel closes when the engine thread ends.
    pub fn events(&self) -> &Receiver<Event> {
        &self.events
    }

    /// The current state, for drawing.
    pub fn snapshot(&self) -> Snapshot {
        self.sender.snapshot()
    }

    pub fn is_finished(&self) -> bool {
        self.engine.as_ref().is_none_or(|e| e.is_finished())
    }

    /// Waits for the engine thread to end.
    pub fn wait(mut self) -> anyhow::Result<SessionReport> {
        let engine = self
            .engine
            .take()
            .ok_or_else(|| anyhow::anyhow!("the session was already waited for"))?;
        engine
            .join()
            .map_err(|_| anyhow::anyhow!("the engine thread panicked"))
    }
}

impl Drop for Session {
    fn drop(&mut self) {
        if let Some(engine) = self.engine.take() {
            self.sender.send(Command::Stop);
            let _ = engine.join();
        }
    }
}

/// A proposed edit made concrete on the current best.
struct EditedCandidate {
    content: Vec<u8>,
    /// The candidate's index (the node, or the first byte removed).
    index: u32,
    /// What it removes or replaces of the current best (for displays).
    removed: Vec<Range<usize>>,
    /// In words, with the node's kind, text and place.
    description: String,
}

/// The engine thread's state.
struct Engine {
    job: Job,
    /// The language of the input, for node pins and node edits.
    language: Option<&'static tree::Language>,
    shared: Arc<Shared>,
    stages: Box<dyn Stages>,
    factory: StagesFactory,
    options: SessionOptions,
    history: Arc<Mutex<History>>,
    pins: Arc<Mutex<Pins>>,
    stage_name: Arc<Mutex<String>>,
    started: Instant,
    /// What [`Command::Undo`] takes back, newest last: the history entry to return to and
    /// what moved away from it.
    undo: Vec<(usize, String)>,
    /// The size of the result in the output file: only smaller ones replace it.
    smallest: Arc<AtomicUsize>,
}

/// What the driver does after handling the pending commands.
enum Next {
    /// Run the pipeline from this stage.
    RunFrom(usize),
    /// Nothing to do: wait for commands.
    Wait,
    Stop,
    /// The run was stopped (and reported as such) already.
    Stopped(Stop),
}

impl Engine {
    fn update_snapshot(&self, change: impl FnOnce(&mut Snapshot)) {
        change(&mut lock(&self.shared.snapshot));
    }

    fn record_history(&self, tester: &Tester, branch: Branch, text: &[u8]) {
        let entry = HistoryEntry {
            index: 0,
            elapsed: self.started.elapsed(),
            tests: tester.stats().tests,
            size: text.len(),
            branch,
            stage: lock(&self.stage_name).clone(),
        };
        let entry = lock(&self.history).push(entry, text);
        self.update_snapshot(|s| s.history.push(entry));
    }

    /// Every accepted reduction: output file, pins carried over, history, snapshot.
    fn install_sink(&self, tester: &mut Tester) {
        let shared = self.shared.clone();
        let history = self.history.clone();
        let pins = self.pins.clone();
        let stage_name = self.stage_name.clone();
        let started = self.started;
        let output = self.job.output.clone();
        // The output holds the smallest interesting result found (the start at first), and among
        // results of that size the latest accepted (a rename keeps the size): after a restart
        // or an undo the engine may accept larger ones, which are not written.
        let smallest = self.smallest.clone();
        tester.set_improvement_sink(Some(Box::new(move |improvement, report| {
            if let Some(output) = &output
                && improvement.content.len() <= smallest.load(Ordering::Relaxed)
            {
                smallest.store(improvement.content.len(), Ordering::Relaxed);
                if let Some(notice) = output.write(improvement.content) {
                    report(notice.into());
                }
            }
            let mapped = {
                let mut pins = lock(&pins);
                if !pins.is_empty() {
                    *pins = pins.map_through(improvement.previous, improvement.content);
                }
                pins.ranges().to_vec()
            };
            let entry = HistoryEntry {
                index: 0,
                elapsed: started.elapsed(),
                tests: improvement.tests,
                size: improvement.content.len(),
                branch: improvement.branch,
                stage: lock(&stage_name).clone(),
            };
            let entry = lock(&history).push(entry, improvement.content);
            let mut snapshot = lock(&shared.snapshot);
            snapshot.best = Arc::from(improvement.content);
            snapshot.version += 1;
            snapshot.pins = mapped;
            snapshot.history.push(entry);
        })));
    }

    fn run(mut self, mut tester: Tester) -> SessionReport {
        self.install_sink(&mut tester);
        // Commands given before the input is checked (pins, say) apply to the input.
        tester.set_best(self.job.start_text().to_vec());
        let preflight = loop {
            if let Next::Stop = self.handle_commands(&mut tester, 0, false) {
                break Err(StartError::Stopped(Stop::Requested));
            }
            // The empty file cannot hold pinned text: with pins it is not tried.
            let try_empty = lock(&self.pins).is_empty();
            match self.job.preflight(&mut tester, try_empty) {
                Err(StartError::Stopped(Stop::Switched)) => self.shared.control.clear_switch(),
                result => break result,
            }
        };
        let checked = match preflight {
            Ok(checked) => checked,
            Err(failure) => {
                let message = failure.to_string();
                self.update_snapshot(|s| s.state = RunState::Failed(message.clone()));
                tester.emit(Event::Failed { message });
                let finished = self.job.finish(&tester, None, false);
                return SessionReport {
                    failure: Some(failure),
                    finished,
                };
            }
        };
        let empty_is_interesting = checked.empty_is_interesting;
        if lock(&self.history).is_empty() {
            // The input itself is entry 0 (the empty file, when interesting, was recorded by
            // the sink before it).
            self.record_history(&tester, Branch::Start, self.job.start_text());
        }
        if self.options.start_paused {
            self.shared.control.pause();
        }
        self.update_snapshot(|s| s.state = RunState::Running);

        let mut next = if let Some(stop) = &checked.stopped {
            self.finish_run(&tester, RunState::Stopped(stop.to_string()));
            Next::Stopped(stop.clone())
        } else if empty_is_interesting {
            Next::Wait
        } else {
            Next::RunFrom(0)
        };
        let mut stopped = None;
        let mut done = empty_is_interesting;
        let mut flaky = None;
        loop {
            match next {
                Next::RunFrom(first) => {
                    let mut current = first;
                    let result = self.run_stages(&mut tester, first, &mut current);
                    match result {
                        Ok(()) => {
                            done = true;
                            match self.confirm_result(&mut tester) {
                                Ok(found) => flaky = found.or(flaky),
                                Err(stop) => {
                                    let state = RunState::Stopped(stop.to_string());
                                    stopped = Some(stop);
                                    self.finish_run(&tester, state);
                                    break;
                                }
                            }
                            self.finish_run(&tester, RunState::Done);
                            if self.options.exit_when_done {
                                break;
                            }
                            next = Next::Wait;
                        }
                        Err(Stop::Switched) => {
                            next = Next::RunFrom(current);
                            done = false;
                        }
                        Err(stop) => {
                            let state = RunState::Stopped(stop.to_string());
                            stopped = Some(stop);
                            self.finish_run(&tester, state);
                            break;
                        }
                    }
                }
                Next::Wait => {
                    if self.options.exit_when_done {
                        self.finish_run(&tester, RunState::Done);
                        break;
                    }
                    self.wait_for_commands();
                    next = Next::RunFrom(self.stages.len());
                }
                Next::Stop => {
                    let stop = Stop::Requested;
                    self.finish_run(&tester, RunState::Stopped(stop.to_string()));
                    stopped = Some(stop);
                    break;
                }
                Next::Stopped(stop) => {
                    stopped = Some(stop);
                    break;
                }
            }
            self.shared.control.clear_switch();
            if let Next::RunFrom(stage) = next {
                next = self.handle_commands(&mut tester, stage, done);
            }
        }
        tester.publish_stats(true);
        let mut finished = self.job.finish(&tester, stopped, empty_is_interesting);
        finished.flaky = flaky;
        SessionReport {
            failure: None,
            finished,
        }
    }

    /// Tests the final result once more, bypassing the cache. When it is not interesting any
    /// more the test is flaky: the earlier results are re-tested, newest first, and the first
    /// that passes becomes the result (and is written). Returns what was found.
    fn confirm_result(&self, tester: &mut Tester) -> Result<Option<Flaky>, Stop> {
        let best = tester.best().to_vec();
        let verdict = match tester.retest(&best) {
            // A limit reached with the last step: the run is done, the re-test is skipped.
            Err(Stop::Limit(_)) => return Ok(None),
            verdict => verdict?,
        };
        if verdict.outcome == Outcome::Interesting {
            return Ok(None);
        }
        let mut flaky = Flaky {
            unconfirmed_size: best.len(),
            status: verdict.status.to_string(),
            fell_back: false,
        };
        // The newest earlier results, then the start: a test that fails everything now (its
        // environment changed) costs a few tests, not one per entry.
        let entries = lock(&self.history).len();
        let newest = (0..entries).rev().take(FLAKY_LOOKBACK);
        let tried: Vec<usize> = newest
            .chain((entries > FLAKY_LOOKBACK).then_some(0))
            .collect();
        for index in tried {
            let Some(text) = lock(&self.history).text(index) else {
                continue;
            };
            if text == best {
                continue;
            }
            let passes = match tester.retest(&text) {
                Err(Stop::Limit(_)) => break,
                verdict => verdict?.outcome == Outcome::Interesting,
            };
            if passes {
                // This result is the one that passes: it goes to the output, larger or not.
                self.smallest.store(text.len(), Ordering::Relaxed);
                self.job.write_output(&text, tester);
                self.restart_from(tester, index, text);
                flaky.fell_back = true;
                break;
            }
        }
        tester.emit(Event::Flaky {
            unconfirmed_size: flaky.unconfirmed_size,
            status: flaky.status.clone(),
            fell_back: flaky.fell_back,
        });
        Ok(Some(flaky))
    }

    fn finish_run(&self, tester: &Tester, state: RunState) {
        let mut stats = tester.stats();
        crate::engine::job::fill_sizes(&mut stats, &self.job.input, tester.best());
        // The knobs that ran last: the UI may have switched them since the start.
        let control = tester.control();
        stats.parallel_mode = control.parallel_mode().to_string();
        stats.split_factor = control.split_factor().to_string();
        *lock(&self.shared.stats) = stats.clone();
        self.update_snapshot(|s| s.state = state.clone());
        match state {
            RunState::Done => tester.emit(Event::Done { stats }),
            RunState::Stopped(reason) => tester.emit(Event::Stopped { reason, stats }),
            _ => {}
        }
    }

    fn wait_for_commands(&self) {
        let mut pending = lock(&self.shared.pending);
        while pending.is_empty() {
            pending = self
                .shared
                .wake
                .wait(pending)
                .unwrap_or_else(PoisonError::into_inner);
        }
    }

    /// Runs stages `first..` and keeps `current` on the stage being run.
    fn run_stages(
        &self,
        tester: &mut Tester,
        first: usize,
        current: &mut usize,
    ) -> Result<(), Stop> {
        for index in first..self.stages.len() {
            *current = index;
            let name = self.stages.name(index);
            *lock(&self.stage_name) = name.clone();
            self.update_snapshot(|s| {
                s.stage = name.clone();
                s.stage_index = index;
                s.stage_count = self.stages.len();
                s.state = RunState::Running;
            });
            tester.emit(Event::StageStarted {
                stage: name,
                index,
                scheduled: None,
            });
            let context = StageContext {
                pins: self.pins.clone(),
                node_pins: None,
            };
            self.stages.run(index, tester, &context)?;
        }
        *current = self.stages.len();
        Ok(())
    }

    /// Applies the queued commands. `stage` is where the pipeline would resume; `done` tells
    /// whether it had finished.
    fn handle_commands(&mut self, tester: &mut Tester, stage: usize, done: bool) -> Next {
        let mut resume = stage;
        loop {
            let command = lock(&self.shared.pending).pop_front();
            let Some(command) = command else {
                break;
            };
            match command {
                Command::Stop => return Next::Stop,
                Command::Pin(target) => self.pin(tester, &target, true),
                Command::Unpin(target) => self.pin(tester, &target, false),
                Command::SwitchAlgorithm(name) => match (self.factory)(&name) {
                    Ok(stages) => {
                        self.stages = stages;
                        resume = 0;
                        let pipeline = self.stages.describe();
                        tester.stats_mut().algorithm = pipeline.clone();
                        self.update_snapshot(|s| {
                            s.pipeline = pipeline.clone();
                            s.stage_count = self.stages.len();
                        });
                        tester.emit(Event::Switched {
                            pipeline,
                            step: tester.steps(),
                        });
                    }
                    Err(error) => self.reject(tester, "switch", &error.to_string()),
                },
                Command::SkipStage => {
                    if resume < self.stages.len() {
                        tester.emit(Event::StageSkipped {
                            stage: self.stages.name(resume),
                            reason: "skipped by the user".into(),
                        });
                        resume += 1;
                    }
                }
                Command::Propose(edit) => {
                    if self.propose(tester, &edit) && done {
                        resume = 0;
                    }
                }
                Command::RestartFrom(index) => {
                    let text = lock(&self.history).text(index);
                    match text {
                        Some(text) => {
                            let current = lock(&self.history).len().saturating_sub(1);
                            self.restart_from(tester, index, text);
                            self.undo
                                .push((current, format!("the restart from #{index}")));
                            resume = 0;
                        }
                        None => self.reject(tester, "restart", "there is no such history entry"),
                    }
                }
                Command::Undo => match self.undo.pop() {
                    Some((index, what)) => match self.history_text(index) {
                        Some(text) => {
                            let size = text.len();
                            self.move_to(tester, text);
                            tester.emit(Event::Undone {
                                what,
                                to: index,
                                size,
                            });
                            resume = 0;
                        }
                        None => self.reject(tester, "undo", "the earlier state is not available"),
                    },
                    None => {
                        self.reject(tester, "undo", "there is no manual edit or restart to undo")
                    }
                },
                // Immediate commands never reach the queue.
                Command::Pause
                | Command::Resume
                | Command::Step
                | Command::SetStepMode(_)
                | Command::SetSplitFactor(_)
                | Command::SetJobs(_)
                | Command::SetParallelMode(_) => {}
            }
        }
        if done && resume >= self.stages.len() {
            Next::Wait
        } else {
            Next::RunFrom(resume)
        }
    }

    /// The text of history entry `index` (the history's lock is not held after).
    fn history_text(&self, index: usize) -> Option<Vec<u8>> {
        lock(&self.history).text(index)
    }

    fn reject(&self, tester: &Tester, command: &str, reason: &str) {
        tester.emit(Event::CommandRejected {
            command: command.to_string(),
            reason: reason.to_string(),
        });
    }

    /// Pins (or unpins) what `target` denotes, resolved once (a node target parses the best).
    fn pin(&self, tester: &Tester, target: &PinTarget, pin: bool) {
        match self.resolve(tester, target) {
            None => self.reject(tester, "pin", "the target is not part of the current best"),
            Some(range) if pin => self.change_pins(tester, |pins| pins.add(range)),
            Some(range) => self.change_pins(tester, |pins| pins.remove(range)),
        }
    }

    fn change_pins(&self, tester: &Tester, change: impl FnOnce(&mut Pins)) {
        let ranges = {
            let mut pins = lock(&self.pins);
            change(&mut pins);
            pins.ranges().to_vec()
        };
        self.update_snapshot(|s| s.pins = ranges.clone());
        tester.emit(Event::PinsChanged { pins: ranges });
    }

    /// The tree of the current best, if the language is known and `version` is current.
    fn current_tree(&self, version: u64, best: &[u8]) -> Option<Arc<tree::Tree>> {
        let language = self.language?;
        if lock(&self.shared.snapshot).version != version {
            return None;
        }
        tree::parse(language, best.to_vec(), Preprocess::default()).ok()
    }

    /// The byte range of the current best a target denotes.
    fn resolve(&self, tester: &Tester, target: &PinTarget) -> Option<Range<usize>> {
        let best = tester.best();
        let range = match target {
            PinTarget::Bytes(range) => range.clone(),
            PinTarget::Lines(lines) => line_range(best, lines.clone()),
            PinTarget::Node { version, node } => {
                let tree = self.current_tree(*version, best)?;
                if node.index() >= tree.len() {
                    return None;
                }
                tree.byte_range(*node)
            }
        };
        (range.start <= range.end && range.end <= best.len()).then_some(range)
    }

    /// The candidate an edit makes of the current best, with what it removes and its
    /// description.
    fn edited(&self, tester: &Tester, edit: &ManualEdit) -> Option<EditedCandidate> {
        use crate::text::describe::{line_column, snippet};
        let best = tester.best();
        let at = |offset: usize| {
            let (line, column) = line_column(best, offset);
            format!("{line}:{column}")
        };
        let cut = |range: Range<usize>, description: String| {
            (range.start < range.end && range.end <= best.len()).then(|| {
                let mut content = best[..range.start].to_vec();
                content.extend_from_slice(&best[range.end..]);
                EditedCandidate {
                    content,
                    index: range.start as u32,
                    removed: vec![range],
                    description,
                }
            })
        };
        match edit {
            ManualEdit::RemoveBytes(range) => {
                let text = best.get(range.clone())?;
                cut(
                    range.clone(),
                    format!("remove `{}` at {}", snippet(text, 24), at(range.start)),
                )
            }
            ManualEdit::RemoveLines(lines) => {
                let description = if lines.len() == 1 {
                    format!("remove line {}", lines.start + 1)
                } else {
                    format!("remove lines {}-{}", lines.start + 1, lines.end)
                };
                cut(line_range(best, lines.clone()), description)
            }
            ManualEdit::RemoveNode { version, node } => {
                let tree = self.current_tree(*version, best)?;
                if node.index() >= tree.len() {
                    return None;
                }
                let range = tree.byte_range(*node);
                let becomes = match tree.replacement(*node) {
                    Some(phi) if !phi.is_empty() && !tree.is_phi_empty(*node) => {
                        format!(" → `{}`", snippet(phi, 16))
                    }
                    _ => String::new(),
                };
                let description = format!(
                    "remove {} `{}` at {}{becomes}",
                    tree.kind(*node),
                    snippet(tree.text(*node), 24),
                    at(range.start)
                );
                let state = tree::TreeState::new(tree);
                let candidate = tree::TreeEdits::removing([*node]);
                Some(EditedCandidate {
                    content: state.render(&candidate),
                    index: node.index() as u32,
                    removed: vec![range],
                    description,
                })
            }
            ManualEdit::Hoist {
                version,
                node,
                descendant,
            } => {
                let tree = self.current_tree(*version, best)?;
                if node.index() >= tree.len()
                    || descendant.index() >= tree.len()
                    || !tree.is_descendant(*node, *descendant)
                {
                    return None;
                }
                let (outer, inner) = (tree.byte_range(*node), tree.byte_range(*descendant));
                let description = format!(
                    "hoist `{}` → `{}` at {}",
                    snippet(tree.text(*node), 24),
                    snippet(tree.text(*descendant), 24),
                    at(outer.start)
                );
                let state = tree::TreeState::new(tree);
                let candidate = tree::TreeEdits::hoisting(*node, *descendant);
                Some(EditedCandidate {
                    content: state.render(&candidate),
                    index: node.index() as u32,
                    removed: vec![outer.start..inner.start, inner.end..outer.end],
                    description,
                })
            }
        }
    }

    /// Tests a proposed edit; keeps it when the oracle finds it interesting. Returns whether it
    /// was accepted.
    fn propose(&mut self, tester: &mut Tester, edit: &ManualEdit) -> bool {
        let Some(edited) = self.edited(tester, edit) else {
            self.reject(
                tester,
                "propose",
                "the edit does not apply to the current best",
            );
            return false;
        };
        let pins = lock(&self.pins).clone();
        if !pins.is_empty() {
            let mapped = pins.map_through(tester.best(), &edited.content);
            if !pins.intact_in(tester.best(), &edited.content, &mapped) {
                self.reject(tester, "propose", "the edit would change pinned text");
                return false;
            }
        }
        let kind = match edit {
            ManualEdit::Hoist { .. } => CandidateKind::Hoist,
            _ => CandidateKind::Manual,
        };
        let candidate = Candidate {
            kind,
            index: edited.index,
            n: 1,
        };
        let before = lock(&self.history).len().saturating_sub(1);
        let accepted = match tester.judge_manual(candidate, &edited.content, edited.removed.clone())
        {
            Ok((Outcome::Interesting, _)) => {
                tester.accept(edited.content, None, Branch::Manual, candidate);
                true
            }
            _ => false,
        };
        if accepted {
            self.undo
                .push((before, format!("the edit “{}”", edited.description)));
        }
        tester.emit(Event::ManualEdit {
            description: edited.description,
            accepted,
            step: tester.steps(),
        });
        accepted
    }

    fn restart_from(&self, tester: &mut Tester, index: usize, text: Vec<u8>) {
        let size = text.len();
        self.move_to(tester, text);
        tester.emit(Event::Restarted { from: index, size });
    }

    /// The engine works on `text` from now on (a history entry); the output file keeps the
    /// smallest result found.
    fn move_to(&self, tester: &mut Tester, text: Vec<u8>) {
        {
            let mut pins = lock(&self.pins);
            if !pins.is_empty() {
                *pins = pins.map_through(tester.best(), &text);
            }
        }
        tester.set_best(text.clone());
        self.record_history(tester, Branch::Restart, &text);
        let pins = lock(&self.pins).ranges().to_vec();
        self.update_snapshot(|s| {
            s.best = Arc::from(text.as_slice());
            s.version += 1;
            s.pins = pins;
        });
    }
}
