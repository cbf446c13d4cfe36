//! A case of several files run as a session: the case job ([`CaseJob`]) on its own thread,
//! steered through the same [`CommandSender`] and read through the same [`Snapshot`] as a
//! file's session. The snapshot shows the file being reduced now (its best, pipeline, stage,
//! pins and history) and the whole set ([`Snapshot::case`]); pause, step and the knobs hold
//! across the files (one control), pins belong to the file they were made on and last for its
//! later sessions. Once the run is done the session waits on the result as a file's does: the
//! user picks the file shown ([`Command::ShowFile`](super::Command::ShowFile)), the commands
//! apply to it (pins, a pipeline, an edit, a restart from its history; an undo takes back the
//! last edit or restart) and the set is reduced again, with the whole-set memo and each file's
//! recall kept. Each file's last history is kept while another is shown.

use std::collections::HashMap;
use std::ops::Range;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Condvar, Mutex};
use std::time::Instant;

use crossbeam_channel::Sender;

use crate::bundle::{self, CaseFile};
use crate::engine::case::{
    CaseFinished, CaseJob, CaseRun, CaseSteering, CaseStop, CaseView, StartError, SteeredFile,
};
use crate::engine::history::{History, HistoryEntry};
use crate::engine::pipeline::Plan;
use crate::exec::oracle::Oracle;
use crate::observe::events::{Branch, Event};
use crate::observe::stats::Stats;
use crate::testing::control::{Control, Stop};
use crate::testing::tester::{Improvement, Tester};
use crate::tree::{self, Preprocess};

use super::manual;
use super::{
    CommandSender, EngineHandle, ManualEdit, PinTarget, RunState, SessionOptions, Shared, Snapshot,
    Steer, lock,
};

mod steer;
use steer::{DoneCase, RunningCase};

/// A running reduction of several files.
pub struct CaseSession {
    handle: EngineHandle<Result<CaseFinished, StartError>>,
}

impl CaseSession {
    /// Starts the case job on its own thread; its events come from [`EngineHandle::events`]
    /// (the job's own event sender is replaced). As a file's session, it ends with the run
    /// when `options.exit_when_done` says so; else, once the run is done, it waits (a front
    /// end stays on the result) until [`Command::Stop`](super::Command::Stop): a pin, a
    /// switch, an edit or a restart applies to the file shown and reduces the set again, an
    /// undo takes back the last edit or restart (see `DoneCase`).
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
        let steering = Arc::new(Steering {
            shared: shared.clone(),
            start_paused: options.start_paused,
            started: Instant::now(),
            tests_before: AtomicU64::new(0),
            shown: Mutex::new(None),
            selected: Mutex::new(None),
            histories: Mutex::new(HashMap::new()),
            undo: Mutex::new(Vec::new()),
        });
        job.steering = Some(steering.clone());
        let thread = {
            let stop = CaseStop::default();
            std::thread::Builder::new()
                .name("whittle-engine".into())
                .spawn(move || {
                    let mut run = match job.start(oracle, &stop) {
                        Ok(run) => run,
                        Err(error) => {
                            let failed = Err(error);
                            let _ = events_tx.send(ending_event(&failed, &steering.shared));
                            return failed;
                        }
                    };
                    let mut finished = run.reduce().map(|()| run.finish());
                    loop {
                        steering.show_current_file(&mut run);
                        let event = ending_event(&finished, &steering.shared);
                        let done = matches!(event, Event::Done { .. });
                        let _ = events_tx.send(event);
                        if !done || options.exit_when_done {
                            return finished;
                        }
                        // Done: the run waits on its result for what the user does next, as
                        // a file's session does; a change of what is reduced runs it again.
                        if !steering.wait_for_change(&mut run, &events_tx) {
                            return finished;
                        }
                        run.go_on();
                        finished = run.reduce().map(|()| run.finish());
                    }
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

/// The session's side of a case run: keeps the snapshot and applies the commands.
struct Steering {
    shared: Arc<Shared>,
    start_paused: bool,
    started: Instant,
    /// Tests run by the testers that ended (the history's counts are the whole run's).
    tests_before: AtomicU64,
    /// The file the panes show, or showed before they listed the whole set (the last whose
    /// session ran): the commands after the end apply to it.
    shown: Mutex<Option<PathBuf>>,
    /// The file the user picked, or the commands after the end applied to: the panes come back
    /// to it at the end of each run (other files' sessions ran meanwhile).
    selected: Mutex<Option<PathBuf>>,
    /// The history of each file's last session, kept while the panes show another file or
    /// the whole set: shown again with the file (its restarts too) while it is the file's
    /// content now.
    histories: Mutex<HashMap<PathBuf, KeptHistory>>,
    /// What [`Command::Undo`](super::Command::Undo) takes back once the run is done, newest last: the set before an
    /// edit or a restart, and what it was.
    undo: Mutex<Vec<(Vec<CaseFile>, String)>>,
}

impl Steering {
    fn update(&self, change: impl FnOnce(&mut Snapshot)) {
        change(&mut lock(&self.shared.snapshot));
    }

    /// Pins (or unpins) what `target` denotes in `best`, the content of `file`; whether it
    /// did.
    fn pin(
        &self,
        emit: &dyn Fn(Event),
        best: &[u8],
        file: Option<&SteeredFile<'_>>,
        target: &PinTarget,
        on: bool,
    ) -> bool {
        let Some(file) = file else {
            emit(rejected(
                "pin",
                "no file is shown now (the panes list the whole set of files)",
            ));
            return false;
        };
        let version = lock(&self.shared.snapshot).version;
        let tree_of = |at: u64| {
            (at == version)
                .then(|| tree::parse(file.language?, best.to_vec(), Preprocess::default()).ok())
                .flatten()
        };
        let Some(range) = manual::resolve(best, &tree_of, target) else {
            emit(rejected(
                "pin",
                "the target is not part of the current best",
            ));
            return false;
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
        emit(Event::PinsChanged { pins: ranges });
        true
    }

    /// The next testers count on from `tests`, the whole run's so far (the statistics shown at
    /// the end were the whole run's).
    fn count_on(&self, tests: u64) {
        *lock(&self.shared.stats) = Stats::default();
        self.tests_before.store(tests, Ordering::Relaxed);
    }

    /// Whether the panes list the whole set (the files phase) rather than show a file.
    fn listing(&self) -> bool {
        lock(&self.shared.snapshot).pipeline == crate::engine::case::FILES_STAGE
    }

    /// The panes leave the file they show: its history is kept.
    fn keep_shown_history(&self) {
        let Some(path) = lock(&self.shown).clone() else {
            return;
        };
        if self.listing() {
            return;
        }
        let history = std::mem::take(&mut *lock(&self.shared.history));
        if history.is_empty() {
            return;
        }
        let entries = lock(&self.shared.snapshot).history.clone();
        lock(&self.histories).insert(path, (history, entries));
    }

    /// Once the run is done the panes show the file picked (or the commands applied to), else
    /// the one its last session ran on, as it is in the result (a flaky final set may have
    /// fallen back to an earlier one), and the file list marks it: the commands apply to it.
    fn show_current_file(&self, run: &mut CaseRun<'_>) {
        if let Some(path) = self.shared.take_file_to_show() {
            *lock(&self.selected) = Some(path);
        }
        let shown = lock(&self.shown).clone();
        let selected = lock(&self.selected).clone();
        for path in [selected, shown].into_iter().flatten() {
            if self.show_file(run, &path).is_ok() {
                return;
            }
        }
    }

    /// The panes show the file at `path` as it is in the set now, with its pipeline, its pins
    /// and its last session's history (when nothing changed the file since; else a history
    /// that starts from its content now); it is the file the commands apply to from now on.
    /// Why it cannot be shown, when it cannot.
    fn show_file(&self, run: &mut CaseRun<'_>, path: &Path) -> Result<(), String> {
        let name = path.display();
        let content = run
            .file(path)
            .ok_or_else(|| {
                format!(
                    "{name} was removed from the set (the test is interesting without it): \
                     there is nothing of it to show"
                )
            })?
            .to_vec();
        let plan = run.plan_of(path).ok_or_else(|| {
            format!("{name} is kept as it is (a symbolic link, or not text): nothing to steer")
        })?;
        *lock(&self.selected) = Some(path.to_path_buf());
        let shown = lock(&self.shown).as_deref() == Some(path);
        if shown && !self.listing() {
            // Shown already: only its content may have changed (a flaky set's fallback).
            self.update(|s| {
                if *s.best != *content {
                    s.best = Arc::from(content.as_slice());
                    s.version += 1;
                }
            });
        } else {
            self.keep_shown_history();
            *lock(&self.shown) = Some(path.to_path_buf());
            let kept = lock(&self.histories).remove(path);
            let pins = run.pins(path);
            let ranges = lock(&pins).ranges().to_vec();
            self.file_started(&content, &plan, &ranges);
            if let Some((history, entries)) = kept
                && !history.is_empty()
                && history.text(history.len() - 1).as_deref() == Some(content.as_slice())
            {
                *lock(&self.shared.history) = history;
                self.update(|s| s.history = entries);
            }
        }
        self.update(|s| {
            if let Some(case) = &mut s.case {
                case.current = case
                    .files
                    .iter()
                    .position(|row| path.to_str() == Some(row.path.as_str()));
            }
        });
        Ok(())
    }

    /// Waits, once the run is done, for a command that changes what is reduced and applies
    /// it; `false` on [`Command::Stop`](super::Command::Stop).
    fn wait_for_change(&self, run: &mut CaseRun<'_>, events: &Sender<Event>) -> bool {
        loop {
            self.shared.wait_for_command();
            let mut done = DoneCase {
                steering: self,
                run: &mut *run,
                events,
                again: false,
            };
            if !self.shared.apply_queued(&mut done) {
                return false;
            }
            // The commands asked the last run to stop (`Stop::Switched`): the next one starts
            // clear.
            self.shared.control.clear_switch();
            if done.again {
                self.count_on(run.tests());
                self.update(|s| s.state = RunState::Running);
                return true;
            }
        }
    }
}

/// A file's history as the panes showed it: the texts and the entries.
type KeptHistory = (History, Vec<HistoryEntry>);

/// A command refused, and why.
fn rejected(command: &str, reason: &str) -> Event {
    Event::CommandRejected {
        command: command.into(),
        reason: reason.into(),
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
        let showing = view.current.map(|row| PathBuf::from(&view.files[row].path));
        let leaves = starts_files_phase || (showing.is_some() && showing != *lock(&self.shown));
        if leaves {
            self.keep_shown_history();
        }
        if let Some(path) = showing {
            *lock(&self.shown) = Some(path);
        }
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
        if let Some(shown) = lock(&self.shown).as_ref() {
            // A new session of the file (or a new history from its content now): its earlier
            // history is over.
            lock(&self.histories).remove(shown);
        }
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
            s.stage_count = crate::engine::pipeline::PipelineStages::stage_count(plan);
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
        let mut running = RunningCase {
            steering: self,
            tester,
            file,
            stage,
            stage_name,
            resume: stage,
        };
        if self.shared.apply_queued(&mut running) {
            Ok(running.resume)
        } else {
            Err(Stop::Requested)
        }
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
