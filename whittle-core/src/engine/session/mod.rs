//! A reduction session: the engine thread, the commands that steer it, the snapshot the UI
//! reads, and the history of accepted states.

mod case;
mod engine;
mod manual;

use std::collections::VecDeque;
use std::ops::Range;
use std::path::PathBuf;
use std::sync::atomic::AtomicUsize;
use std::sync::{Arc, Condvar, Mutex, MutexGuard, PoisonError};
use std::thread::JoinHandle;
use std::time::Instant;

use crossbeam_channel::Receiver;
use serde::Serialize;

use crate::engine::history::{History, HistoryEntry};
use crate::engine::job::{Finished, Job, StartError};
use crate::engine::pipeline::{Pins, PipelineStages, Stages, stages_factory};
use crate::exec::oracle::Oracle;
use crate::observe::events::Event;
use crate::observe::stats::Stats;
use crate::params::{ParallelMode, SplitFactor};
use crate::testing::control::{Control, Stop};
use crate::testing::tester::Tester;
use crate::tree::{self, NodeId};

pub use case::CaseSession;
use engine::Engine;

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
    /// A case of several files: show the file at this path of the case (its test case, tree,
    /// history, pins and pipeline); the commands that change what is reduced apply to it once
    /// the run is done. While the run goes on the panes follow the file being reduced, and
    /// the file asked for is shown when it is done. It never interrupts a stage.
    ShowFile(PathBuf),
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
    /// The version of the running plan (see [`crate::params::PlanChange`]).
    pub plan_version: u64,
    pub pins: Vec<Range<usize>>,
    pub history: Vec<HistoryEntry>,
    pub stats: Stats,
    pub output: Option<PathBuf>,
    pub language: Option<&'static str>,
    /// A case of several files: the whole set (the rest of the snapshot is the file being
    /// reduced now).
    pub case: Option<crate::engine::case::CaseView>,
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

impl Snapshot {
    /// The snapshot of a session whose start is being checked, with `control`'s knobs: nothing
    /// reduced, no stage started, no pins, no history.
    fn checking(control: &Control) -> Snapshot {
        Snapshot {
            state: RunState::Checking,
            paused: false,
            step_mode: false,
            parked: false,
            parked_time: std::time::Duration::ZERO,
            best: Arc::from(&b""[..]),
            version: 0,
            input_size: 0,
            pipeline: String::new(),
            stage: String::new(),
            stage_index: 0,
            stage_count: 0,
            split_factor: control.split_factor(),
            jobs: control.jobs(),
            parallel: control.parallel_mode(),
            plan_version: control.plan_version(),
            pins: Vec::new(),
            history: Vec::new(),
            stats: Stats::default(),
            output: None,
            language: None,
            case: None,
        }
    }
}

impl Shared {
    /// The oldest queued command, taken off the queue (the queue's lock is released at once).
    fn next_command(&self) -> Option<Command> {
        lock(&self.pending).pop_front()
    }

    /// The file the queued [`Command::ShowFile`]s at the head of the queue ask for (the last
    /// wins), taken off the queue: a run that ends shows it at once.
    fn take_file_to_show(&self) -> Option<PathBuf> {
        let mut pending = lock(&self.pending);
        let mut path = None;
        while let Some(Command::ShowFile(next)) = pending.front() {
            path = Some(next.clone());
            pending.pop_front();
        }
        path
    }

    /// Waits until a command is queued (a run that is done waits for what the user does).
    fn wait_for_command(&self) {
        let mut pending = lock(&self.pending);
        while pending.is_empty() {
            pending = self
                .wake
                .wait(pending)
                .unwrap_or_else(PoisonError::into_inner);
        }
    }

    /// Applies the queued commands that change what is reduced to `steer`, in order; `false`
    /// when one of them is [`Command::Stop`] (the rest stay queued). The immediate commands
    /// (pause, step, the knobs) never reach the queue.
    fn apply_queued(&self, steer: &mut impl Steer) -> bool {
        while let Some(command) = self.next_command() {
            match command {
                Command::Stop => return false,
                Command::Pin(target) => steer.pin(&target, true),
                Command::Unpin(target) => steer.pin(&target, false),
                Command::SwitchAlgorithm(name) => steer.switch(&name),
                Command::SkipStage => steer.skip_stage(),
                Command::Propose(edit) => steer.propose(&edit),
                Command::RestartFrom(index) => steer.restart(index),
                Command::Undo => steer.undo(),
                Command::ShowFile(path) => steer.show_file(&path),
                Command::Pause
                | Command::Resume
                | Command::Step
                | Command::SetStepMode(_)
                | Command::SetSplitFactor(_)
                | Command::SetJobs(_)
                | Command::SetParallelMode(_) => {}
            }
        }
        true
    }
}

/// What the commands that change what is reduced do to a session: a file's session (between
/// its stages, and once it is done: then they make it run again), a case of several files
/// while it runs and once it is done. [`Shared::apply_queued`] hands each queued command to it;
/// a command that cannot apply is refused with a [`Event::CommandRejected`] that says why.
trait Steer {
    fn pin(&mut self, target: &PinTarget, on: bool);
    fn switch(&mut self, pipeline: &str);
    fn skip_stage(&mut self);
    fn propose(&mut self, edit: &ManualEdit);
    fn restart(&mut self, index: usize);
    fn undo(&mut self);
    /// Shows another file of a case (see [`Command::ShowFile`]).
    fn show_file(&mut self, path: &std::path::Path);
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
            Command::SkipStage => {
                self.enqueue(Command::SkipStage);
                control.request_skip();
            }
            // Applied when the run is done (or with the next command that interrupts it).
            Command::ShowFile(path) => self.enqueue(Command::ShowFile(path)),
            structural => {
                // The stage is asked to stop while the command is queued (under the queue's
                // lock): an engine that takes the command has seen the request too, and
                // clears it with the command applied, so it never stops a run it starts next.
                let mut pending = lock(&self.shared.pending);
                pending.push_back(structural);
                control.request_stop(Stop::Switched);
                drop(pending);
                self.shared.wake.notify_all();
            }
        }
    }

    /// The current state, for drawing (the same as [`EngineHandle::snapshot`]).
    pub fn snapshot(&self) -> Snapshot {
        let shared = &self.shared;
        let mut snapshot = lock(&shared.snapshot).clone();
        snapshot.paused = shared.control.is_paused();
        snapshot.step_mode = shared.control.is_step_mode();
        snapshot.parked = shared.control.is_parked();
        snapshot.parked_time = shared.control.parked_time();
        // Read after `parked`: an engine publishes its statistics before it parks, so a
        // snapshot that says it waits holds every test it ran.
        snapshot.stats = lock(&shared.stats).clone();
        let knobs = shared.control.knobs();
        snapshot.split_factor = knobs.split_factor;
        snapshot.jobs = knobs.jobs;
        snapshot.parallel = knobs.parallel;
        snapshot.plan_version = shared.control.plan_version();
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
    handle: EngineHandle<SessionReport>,
    language: Option<&'static tree::Language>,
}

impl Session {
    /// Starts the engine thread on `job`. The plan of the job decides the rest: the pipeline it
    /// runs, the pipelines a switch builds and the input's language (for node pins and node
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
        job.plan.check().map_err(anyhow::Error::msg)?;
        let stages: Box<dyn Stages> = Box::new(PipelineStages::new(job.plan.clone()));
        let factory = stages_factory(job.plan.clone());
        let language = job.plan.language;
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
            best: Arc::from(job.start_text()),
            input_size: job.input.len(),
            pipeline: stages.describe(),
            stage_count: stages.len(),
            stats: tester.stats(),
            output: job
                .output
                .as_ref()
                .map(|output| output.path().to_path_buf()),
            language: language.map(|l| l.name()),
            ..Snapshot::checking(&control)
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
            handle: EngineHandle::new(CommandSender { shared }, events_rx, thread),
            language,
        })
    }

    /// The input's language, when this build parses it (the plan names it).
    pub fn language(&self) -> Option<&'static tree::Language> {
        self.language
    }

    /// Waits for the engine thread to end.
    pub fn wait(self) -> anyhow::Result<SessionReport> {
        self.handle.wait()
    }
}

impl std::ops::Deref for Session {
    type Target = EngineHandle<SessionReport>;

    fn deref(&self) -> &Self::Target {
        &self.handle
    }
}

/// What a session holds of its engine thread, which ends in `T`: the commands it takes, the
/// events it sends, the thread itself. Dropped before the thread ends, it stops the run and
/// waits for its end.
pub struct EngineHandle<T> {
    sender: CommandSender,
    events: Receiver<Event>,
    engine: Option<JoinHandle<T>>,
}

impl<T> EngineHandle<T> {
    fn new(sender: CommandSender, events: Receiver<Event>, engine: JoinHandle<T>) -> Self {
        EngineHandle {
            sender,
            events,
            engine: Some(engine),
        }
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
    fn wait(mut self) -> anyhow::Result<T> {
        let engine = self
            .engine
            .take()
            .ok_or_else(|| anyhow::anyhow!("the session was already waited for"))?;
        engine
            .join()
            .map_err(|_| anyhow::anyhow!("the engine thread panicked"))
    }
}

impl<T> Drop for EngineHandle<T> {
    fn drop(&mut self) {
        if let Some(engine) = self.engine.take() {
            self.sender.send(Command::Stop);
            let _ = engine.join();
        }
    }
}
