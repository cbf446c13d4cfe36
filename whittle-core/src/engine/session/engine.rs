//! The engine thread: the session's driver loop, the commands it applies between stages, the
//! re-test of the final result and what it reports at the end.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Instant;

use crate::engine::history::{History, HistoryEntry};
use crate::engine::job::{Checked, Flaky, Job, MAX_GOING_BACK, StartError, kept_for_fallback};
use crate::engine::pipeline::{Pins, StageContext, Stages, StagesFactory};
use crate::observe::events::{Branch, Event};
use crate::outcome::Outcome;
use crate::testing::control::Stop;
use crate::testing::tester::Tester;
use crate::tree::{self};

use super::{
    ManualEdit, PinTarget, RunState, SessionOptions, SessionReport, Shared, Snapshot, Steer, lock,
};

/// The engine thread's state.
pub(super) struct Engine {
    pub(super) job: Job,
    /// The language of the input, for node pins and node edits.
    pub(super) language: Option<&'static tree::Language>,
    pub(super) shared: Arc<Shared>,
    pub(super) stages: Box<dyn Stages>,
    pub(super) factory: StagesFactory,
    pub(super) options: SessionOptions,
    pub(super) history: Arc<Mutex<History>>,
    pub(super) pins: Arc<Mutex<Pins>>,
    pub(super) stage_name: Arc<Mutex<String>>,
    pub(super) started: Instant,
    /// What [`Command::Undo`] takes back, newest last: the history entry to return to and
    /// what moved away from it.
    pub(super) undo: Vec<(usize, String)>,
    /// The size of the result in the output file: only smaller ones replace it.
    pub(super) smallest: Arc<AtomicUsize>,
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
    pub(super) fn update_snapshot(&self, change: impl FnOnce(&mut Snapshot)) {
        change(&mut lock(&self.shared.snapshot));
    }

    pub(super) fn record_history(&self, tester: &Tester, branch: Branch, text: &[u8]) {
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
    pub(super) fn install_sink(&self, tester: &mut Tester) {
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

    pub(super) fn run(mut self, mut tester: Tester) -> SessionReport {
        self.install_sink(&mut tester);
        let checked = match self.check_input(&mut tester) {
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
        tester.arm_flaky_recheck();
        let (stopped, flaky) = self.drive(&mut tester, &checked);
        tester.publish_stats(true);
        let mut finished = self.job.finish(&tester, stopped, empty_is_interesting);
        finished.flaky = flaky;
        SessionReport {
            failure: None,
            finished,
        }
    }

    /// The preflight checks of the job, after the commands given before them (pins, say), which
    /// apply to the input; a switch during the checks starts them again.
    fn check_input(&mut self, tester: &mut Tester) -> Result<Checked, StartError> {
        tester.set_best(self.job.start_text().to_vec());
        loop {
            if let Next::Stop = self.handle_commands(tester, 0, false) {
                return Err(StartError::Stopped(Stop::Requested));
            }
            // The empty file cannot hold pinned text: with pins it is not tried.
            let try_empty = lock(&self.pins).is_empty();
            match self.job.preflight(tester, try_empty) {
                Err(StartError::Stopped(Stop::Switched)) => self.shared.control.clear_switch(),
                result => return result,
            }
        }
    }

    /// Runs the pipeline, and again after every command that changes what is reduced, until
    /// the run ends; returns why it stopped early (if it did) and what the re-test of the
    /// result found.
    fn drive(&mut self, tester: &mut Tester, checked: &Checked) -> (Option<Stop>, Option<Flaky>) {
        let mut next = if let Some(stop) = &checked.stopped {
            self.finish_run(tester, RunState::Stopped(stop.to_string()));
            Next::Stopped(stop.clone())
        } else if checked.empty_is_interesting {
            Next::Wait
        } else {
            Next::RunFrom(0)
        };
        let mut done = checked.empty_is_interesting;
        let mut flaky = None;
        let mut gone_back = 0;
        loop {
            match next {
                Next::RunFrom(first) => {
                    let mut current = first;
                    match self.run_stages(tester, first, &mut current) {
                        // A flaky test let a result through that fails its re-test: the run
                        // goes on from the result it fell back to, verdicts confirmed.
                        Ok(()) => match self.retest_result(
                            tester,
                            &mut flaky,
                            &mut gone_back,
                            MAX_GOING_BACK,
                        ) {
                            Ok(true) => {
                                next = Next::RunFrom(0);
                                done = false;
                            }
                            Ok(false) => {
                                done = true;
                                self.finish_run(tester, RunState::Done);
                                if self.options.exit_when_done {
                                    return (None, flaky);
                                }
                                next = Next::Wait;
                            }
                            Err(stop) => return (Some(self.stopped(tester, stop)), flaky),
                        },
                        Err(Stop::Switched) => {
                            next = Next::RunFrom(current);
                            done = false;
                        }
                        // The test was just found flaky: the result is re-tested now, not
                        // only at the end.
                        Err(Stop::Recheck) => {
                            next = match self.retest_result(
                                tester,
                                &mut flaky,
                                &mut gone_back,
                                u32::MAX,
                            ) {
                                Ok(true) => Next::RunFrom(0),
                                Ok(false) => Next::RunFrom(current),
                                Err(stop) => return (Some(self.stopped(tester, stop)), flaky),
                            };
                            done = false;
                        }
                        Err(stop) => return (Some(self.stopped(tester, stop)), flaky),
                    }
                }
                Next::Wait => {
                    if self.options.exit_when_done {
                        self.finish_run(tester, RunState::Done);
                        return (None, flaky);
                    }
                    self.shared.wait_for_command();
                    next = Next::RunFrom(self.stages.len());
                }
                Next::Stop => return (Some(self.stopped(tester, Stop::Requested)), flaky),
                Next::Stopped(stop) => return (Some(stop), flaky),
            }
            self.shared.control.clear_switch();
            if let Next::RunFrom(stage) = next {
                next = self.handle_commands(tester, stage, done);
            }
        }
    }

    /// Re-tests the result ([`Engine::confirm_result`]); when it fails, the run fell back to an
    /// earlier result and it went back fewer than `most` times so far, the run goes on from
    /// there (`went_on`, one more in `gone_back`). What a flaky test did goes to `flaky`.
    /// Whether the run goes on from the result it fell back to.
    fn retest_result(
        &self,
        tester: &mut Tester,
        flaky: &mut Option<Flaky>,
        gone_back: &mut u32,
        most: u32,
    ) -> Result<bool, Stop> {
        match self.confirm_result(tester)? {
            Some(mut found) if found.fell_back && *gone_back < most => {
                *gone_back += 1;
                found.went_on = true;
                *flaky = Some(found);
                Ok(true)
            }
            Some(found) => {
                *flaky = Some(found);
                Ok(false)
            }
            None => Ok(false),
        }
    }

    /// Reports the run as stopped by `stop`, and returns it.
    fn stopped(&self, tester: &mut Tester, stop: Stop) -> Stop {
        self.finish_run(tester, RunState::Stopped(stop.to_string()));
        stop
    }

    /// Tests the final result once more, bypassing the cache. When it is not interesting any
    /// more the test is flaky: the earlier results are re-tested, newest first, and the first
    /// that passes becomes the result (and is written). Returns what was found.
    pub(super) fn confirm_result(&self, tester: &mut Tester) -> Result<Option<Flaky>, Stop> {
        tester.disarm_flaky_recheck();
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
            went_on: false,
        };
        // The newest earlier results, older ones ever sparser, then the start: a test that
        // fails everything now (its environment changed) costs a few tests, not one per entry.
        let entries = lock(&self.history).len();
        let newest = entries.saturating_sub(1) as u64;
        let tried: Vec<usize> = (1..entries)
            .rev()
            .filter(|&index| kept_for_fallback(newest, index as u64))
            .chain((entries > 0).then_some(0))
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
                tester.forget_cached_verdicts();
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

    pub(super) fn finish_run(&self, tester: &mut Tester, state: RunState) {
        // Switches after the last candidate are part of the run that ends.
        tester.report_plan_changes();
        let mut stats = tester.stats();
        crate::engine::job::fill_sizes(&mut stats, &self.job.input, tester.best());
        *lock(&self.shared.stats) = stats.clone();
        self.update_snapshot(|s| s.state = state.clone());
        match state {
            RunState::Done => tester.emit(Event::Done { stats }),
            RunState::Stopped(reason) => tester.emit(Event::Stopped { reason, stats }),
            _ => {}
        }
    }

    /// Runs stages `first..` and keeps `current` on the stage being run.
    pub(super) fn run_stages(
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
    /// whether it had finished (then a command that changes what is reduced runs it again).
    fn handle_commands(&mut self, tester: &mut Tester, stage: usize, done: bool) -> Next {
        let shared = self.shared.clone();
        let mut steer = FileSteer {
            engine: self,
            tester,
            done,
            resume: stage,
        };
        if !shared.apply_queued(&mut steer) {
            return Next::Stop;
        }
        let resume = steer.resume;
        if done && resume >= self.stages.len() {
            Next::Wait
        } else {
            Next::RunFrom(resume)
        }
    }

    /// Switches to the pipeline `name`; returns whether it runs now (from its first stage).
    fn switch_pipeline(&mut self, tester: &mut Tester, name: &str) -> bool {
        match (self.factory)(name) {
            Ok(stages) => {
                self.stages = stages;
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
                true
            }
            Err(error) => {
                self.reject(tester, "switch", &error.to_string());
                false
            }
        }
    }

    /// Continues from history entry `index`; returns whether it exists.
    fn restart_command(&mut self, tester: &mut Tester, index: usize) -> bool {
        let Some(text) = self.history_text(index) else {
            self.reject(tester, "restart", "there is no such history entry");
            return false;
        };
        let current = lock(&self.history).len().saturating_sub(1);
        self.restart_from(tester, index, text);
        self.undo
            .push((current, format!("the restart from #{index}")));
        true
    }

    /// Takes back the last manual edit or restart; returns whether there was one to take back.
    fn undo_last(&mut self, tester: &mut Tester) -> bool {
        let Some((index, what)) = self.undo.pop() else {
            self.reject(tester, "undo", "there is no manual edit or restart to undo");
            return false;
        };
        let Some(text) = self.history_text(index) else {
            self.reject(tester, "undo", "the earlier state is not available");
            return false;
        };
        let size = text.len();
        self.move_to(tester, text);
        tester.emit(Event::Undone {
            what,
            to: index,
            size,
        });
        true
    }

    /// The text of history entry `index` (the history's lock is not held after).
    pub(super) fn history_text(&self, index: usize) -> Option<Vec<u8>> {
        lock(&self.history).text(index)
    }

    pub(super) fn reject(&self, tester: &Tester, command: &str, reason: &str) {
        tester.emit(Event::CommandRejected {
            command: command.to_string(),
            reason: reason.to_string(),
        });
    }
}

/// A file's session as the commands steer it: where its pipeline resumes (`resume`: the first
/// stage after a change of what is reduced, the next one after a skip).
struct FileSteer<'a> {
    engine: &'a mut Engine,
    tester: &'a mut Tester,
    /// The pipeline had finished.
    done: bool,
    resume: usize,
}

impl Steer for FileSteer<'_> {
    fn pin(&mut self, target: &PinTarget, on: bool) {
        self.engine.pin(self.tester, target, on);
    }

    fn switch(&mut self, pipeline: &str) {
        if self.engine.switch_pipeline(self.tester, pipeline) {
            self.resume = 0;
        }
    }

    fn skip_stage(&mut self) {
        // A schedule skips its own stage and takes the request.
        let engine = &self.engine;
        if engine.shared.control.take_skip() && self.resume < engine.stages.len() {
            self.tester.emit(Event::StageSkipped {
                stage: engine.stages.name(self.resume),
                reason: "skipped by the user".into(),
            });
            self.resume += 1;
        }
    }

    fn propose(&mut self, edit: &ManualEdit) {
        if self.engine.propose(self.tester, edit) && self.done {
            self.resume = 0;
        }
    }

    fn restart(&mut self, index: usize) {
        if self.engine.restart_command(self.tester, index) {
            self.resume = 0;
        }
    }

    fn undo(&mut self) {
        if self.engine.undo_last(self.tester) {
            self.resume = 0;
        }
    }

    fn show_file(&mut self, _: &std::path::Path) {
        self.engine.reject(
            self.tester,
            "show file",
            "one file is reduced: there is no other file to show",
        );
    }
}
