//! A case of several files run as a session: the case job ([`CaseJob`]) on its own thread,
//! steered through the same [`CommandSender`] and read through the same [`Snapshot`] as a
//! file's session. The snapshot shows the file being reduced now (its best, pipeline, stage,
//! pins and history) and the whole set ([`Snapshot::case`]); pause, step and the knobs hold
//! across the files (one control), pins belong to the file they were made on and last for its
//! later sessions.

use std::ops::Range;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Condvar, Mutex};
use std::time::Instant;

use crate::engine::case::{
    CaseFinished, CaseJob, CaseSteering, CaseStop, CaseView, StartError, SteeredFile,
};
use crate::engine::history::{History, HistoryEntry};
use crate::engine::pipeline::{Plan, line_range};
use crate::exec::oracle::Oracle;
use crate::observe::events::{Branch, Event};
use crate::observe::stats::Stats;
use crate::testing::control::{Control, Stop};
use crate::testing::tester::{Improvement, Tester};
use crate::tree::{self, Preprocess};

use super::{
    Command, CommandSender, EngineHandle, PinTarget, RunState, SessionOptions, Shared, Snapshot,
    lock,
};

/// A running reduction of several files.
pub struct CaseSession {
    handle: EngineHandle<Result<CaseFinished, StartError>>,
}

impl CaseSession {
    /// Starts the case job on its own thread; its events come from [`EngineHandle::events`]
    /// (the job's own event sender is replaced). As a file's session, it ends with the run
    /// when `options.exit_when_done` says so; else, once the run is done, it waits (a front
    /// end stays on the result) until [`Command::Stop`], answering the other commands.
    pub fn start(
        mut job: CaseJob,
        oracle: Arc<dyn Oracle>,
        options: SessionOptions,
    ) -> anyhow::Result<CaseSession> {
        let plan = job.settings.resolve();
        plan.check().map_err(anyhow::Error::msg)?;
        let control = Arc::new(Control::with_max_jobs(plan.knobs, oracle.max_jobs()));
        if options.start_in_step_mode {
            control.set_step_mode(true);
        }
        let snapshot = starting_snapshot(&job, &plan, &control);
        let shared = Arc::new(Shared {
            control,
            pending: Mutex::new(Default::default()),
            wake: Condvar::new(),
            snapshot: Mutex::new(snapshot),
            stats: Arc::new(Mutex::new(Stats::default())),
            history: Arc::new(Mutex::new(History::default())),
        });
        let (events_tx, events_rx) = crossbeam_channel::unbounded();
        job.events = Some(events_tx.clone());
        job.steering = Some(Arc::new(Steering {
            shared: shared.clone(),
            start_paused: options.start_paused,
            started: Instant::now(),
            tests_before: AtomicU64::new(0),
        }));
        let thread = {
            let stop = CaseStop::default();
            let shared = shared.clone();
            std::thread::Builder::new()
                .name("whittle-engine".into())
                .spawn(move || {
                    let finished = job.run(oracle, &stop);
                    let event = ending_event(&finished, &shared);
                    let done = matches!(event, Event::Done { .. });
                    let _ = events_tx.send(event);
                    if done && !options.exit_when_done {
                        wait_for_stop(&shared, &events_tx);
                    }
                    finished
                })?
        };
        Ok(CaseSession {
            handle: EngineHandle::new(CommandSender { shared }, events_rx, thread),
        })
    }

    /// Waits for the run to end.
    pub fn wait(self) -> anyhow::Result<Result<CaseFinished, StartError>> {
        self.handle.wait()
    }
}

impl std::ops::Deref for CaseSession {
    type Target = EngineHandle<Result<CaseFinished, StartError>>;

    fn deref(&self) -> &Self::Target {
        &self.handle
    }
}

/// The snapshot of a case session before its start is checked.
fn starting_snapshot(job: &CaseJob, plan: &Plan, control: &Control) -> Snapshot {
    let start = crate::bundle::content_size(job.start_files());
    Snapshot {
        input_size: start,
        pipeline: plan.pipeline.to_string(),
        output: job
            .output
            .as_ref()
            .map(|output| output.path().to_path_buf()),
        ..Snapshot::checking(control)
    }
}

/// The last event of a case session (done, stopped or failed), its state set in the snapshot.
fn ending_event(finished: &Result<CaseFinished, StartError>, shared: &Shared) -> Event {
    match finished {
        Ok(finished) => {
            let state = match &finished.stopped {
                None => RunState::Done,
                Some(stop) => RunState::Stopped(stop.to_string()),
            };
            lock(&shared.snapshot).state = state.clone();
            // The statistics on screen at the end are the whole case's.
            *lock(&shared.stats) = finished.stats.clone();
            match state {
                RunState::Stopped(reason) => Event::Stopped {
                    reason,
                    stats: finished.stats.clone(),
                },
                _ => Event::Done {
                    stats: finished.stats.clone(),
                },
            }
        }
        Err(error) => {
            let message = error.to_string();
            lock(&shared.snapshot).state = RunState::Failed(message.clone());
            Event::Failed { message }
        }
    }
}

/// After the run: waits for [`Command::Stop`]; every other command that reaches the queue is
/// refused (the case is done, its result written).
fn wait_for_stop(shared: &Shared, events: &crossbeam_channel::Sender<Event>) {
    loop {
        let command = {
            let mut pending = lock(&shared.pending);
            while pending.is_empty() {
                pending = shared
                    .wake
                    .wait(pending)
                    .unwrap_or_else(std::sync::PoisonError::into_inner);
            }
            pending.pop_front()
        };
        match command {
            Some(Command::Stop) => return,
            Some(_) => {
                let _ = events.send(Event::CommandRejected {
                    command: "command".into(),
                    reason: "the case is done and its result written: quit to leave".into(),
                });
            }
            None => {}
        }
    }
}

/// The session's side of a case run: keeps the snapshot and applies the commands.
struct Steering {
    shared: Arc<Shared>,
    start_paused: bool,
    started: Instant,
    /// Tests run by the testers that ended (the history's counts are the whole run's).
    tests_before: AtomicU64,
}

impl Steering {
    fn update(&self, change: impl FnOnce(&mut Snapshot)) {
        change(&mut lock(&self.shared.snapshot));
    }

    fn reject(&self, tester: &Tester, command: &str, reason: &str) {
        tester.emit(Event::CommandRejected {
            command: command.into(),
            reason: reason.into(),
        });
    }

    /// The byte range of the current best a target denotes.
    fn resolve(
        &self,
        best: &[u8],
        target: &PinTarget,
        language: Option<&'static tree::Language>,
    ) -> Option<Range<usize>> {
        let range = match target {
            PinTarget::Bytes(range) => range.clone(),
            PinTarget::Lines(lines) => line_range(best, lines.clone()),
            PinTarget::Node { version, node } => {
                if lock(&self.shared.snapshot).version != *version {
                    return None;
                }
                let tree = tree::parse(language?, best.to_vec(), Preprocess::default()).ok()?;
                if node.index() >= tree.len() {
                    return None;
                }
                tree.byte_range(*node)
            }
        };
        (range.start <= range.end && range.end <= best.len()).then_some(range)
    }

    fn pin(&self, tester: &Tester, file: Option<&SteeredFile<'_>>, target: &PinTarget, on: bool) {
        let Some(file) = file else {
            self.reject(
                tester,
                "pin",
                "no file is being reduced now (whole files are being removed)",
            );
            return;
        };
        let Some(range) = self.resolve(tester.best(), target, file.language) else {
            self.reject(tester, "pin", "the target is not part of the current best");
            return;
        };
        let ranges = {
            let mut pins = lock(file.pins);
            if on {
                pins.add(range);
            } else {
                pins.remove(range);
            }
            pins.ranges().to_vec()
        };
        self.update(|s| s.pins = ranges.clone());
        tester.emit(Event::PinsChanged { pins: ranges });
    }
}

impl CaseSteering for Steering {
    fn control(&self) -> Arc<Control> {
        self.shared.control.clone()
    }

    fn checked(&self) {
        if self.start_paused {
            self.shared.control.pause();
        }
        self.update(|s| s.state = RunState::Running);
    }

    fn case_changed(&self, view: &CaseView) {
        let starts_files_phase = view.removing_files
            && !lock(&self.shared.snapshot)
                .case
                .as_ref()
                .is_some_and(|before| before.removing_files && before.round == view.round);
        if starts_files_phase {
            // The panes of one file show the set instead: a listing, with no history.
            let listing = files_listing(view);
            *lock(&self.shared.history) = History::default();
            self.update(|s| {
                s.best = Arc::from(listing.as_bytes());
                s.version += 1;
                s.input_size = listing.len();
                s.pipeline = crate::engine::case::FILES_STAGE.into();
                s.stage = crate::engine::case::FILES_STAGE.into();
                s.stage_index = 0;
                s.stage_count = 1;
                s.language = None;
                s.pins.clear();
                s.history.clear();
            });
        }
        self.update(|s| s.case = Some(view.clone()));
    }

    fn tester_started(&self, tester: &mut Tester) {
        let before = lock(&self.shared.stats).tests;
        self.tests_before.fetch_add(before, Ordering::Relaxed);
        tester.set_stats_output(Some(self.shared.stats.clone()));
        *lock(&self.shared.stats) = tester.stats();
    }

    fn file_started(&self, content: &[u8], plan: &Plan, pins: &[Range<usize>]) {
        let tests = self.tests_before.load(Ordering::Relaxed);
        let entry = HistoryEntry {
            index: 0,
            elapsed: self.started.elapsed(),
            tests,
            size: content.len(),
            branch: Branch::Start,
            stage: String::new(),
        };
        let entry = {
            let mut history = lock(&self.shared.history);
            *history = History::default();
            history.push(entry, content)
        };
        self.update(|s| {
            s.best = Arc::from(content);
            s.version += 1;
            s.input_size = content.len();
            s.pipeline = plan.pipeline.to_string();
            s.stage = String::new();
            s.stage_index = 0;
            s.stage_count = crate::engine::pipeline::Stages::len(
                &crate::engine::pipeline::PipelineStages::new(plan.clone()),
            );
            s.language = plan.language.map(|l| l.name());
            s.pins = pins.to_vec();
            s.history = vec![entry];
        });
    }

    fn accepted(&self, improvement: &Improvement<'_>, pins: &[Range<usize>]) {
        let entry = HistoryEntry {
            index: 0,
            elapsed: self.started.elapsed(),
            tests: self.tests_before.load(Ordering::Relaxed) + improvement.tests,
            size: improvement.content.len(),
            branch: improvement.branch,
            stage: lock(&self.shared.snapshot).stage.clone(),
        };
        let entry = lock(&self.shared.history).push(entry, improvement.content);
        self.update(|s| {
            s.best = Arc::from(improvement.content);
            s.version += 1;
            s.pins = pins.to_vec();
            s.history.push(entry);
            if let Some(case) = &mut s.case
                && let Some(row) = case.current
            {
                case.files[row].bytes = improvement.content.len();
            }
        });
    }

    fn stage_started(&self, name: &str, index: usize, count: usize) {
        self.update(|s| {
            s.stage = name.into();
            s.stage_index = index;
            s.stage_count = count;
        });
    }

    fn steer(
        &self,
        tester: &Tester,
        file: Option<SteeredFile<'_>>,
        stage: usize,
        stage_name: &str,
    ) -> Result<usize, Stop> {
        let mut resume = stage;
        while let Some(command) = self.shared.next_command() {
            match command {
                Command::Stop => return Err(Stop::Requested),
                Command::Pin(target) => self.pin(tester, file.as_ref(), &target, true),
                Command::Unpin(target) => self.pin(tester, file.as_ref(), &target, false),
                // A schedule skipped its own stage and took the request.
                Command::SkipStage if !self.shared.control.take_skip() => {}
                Command::SkipStage if file.is_some() && resume == stage => {
                    tester.emit(Event::StageSkipped {
                        stage: stage_name.into(),
                        reason: "skipped by the user".into(),
                    });
                    resume += 1;
                }
                Command::SkipStage => self.reject(
                    tester,
                    "skip",
                    "whole files are being removed: there is no stage of a file to skip",
                ),
                Command::SwitchAlgorithm(_) => self.reject(
                    tester,
                    "switch",
                    "with several files each file runs its own language's pipeline",
                ),
                Command::Propose(_) => self.reject(
                    tester,
                    "edit",
                    "proposed edits are for one file (reduce the file on its own)",
                ),
                Command::RestartFrom(_) | Command::Undo => self.reject(
                    tester,
                    "restart",
                    "restarts and undos are for one file (reduce the file on its own)",
                ),
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
        Ok(resume)
    }
}

/// What the test case pane shows while whole files are removed: the files of the set.
fn files_listing(view: &CaseView) -> String {
    let present: Vec<_> = view
        .files
        .iter()
        .filter(|file| file.state != crate::engine::case::FileState::Removed)
        .collect();
    let width = present
        .iter()
        .map(|file| file.path.len())
        .max()
        .unwrap_or(0);
    let mut listing = format!(
        "Round {}: removing whole files\n(ddmin over the {} files of the set)\n\n",
        view.round,
        present.len()
    );
    for file in present {
        listing.push_str(&format!("{:<width$}  {} bytes\n", file.path, file.bytes));
    }
    listing
}
