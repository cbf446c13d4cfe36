//! How each engine event is folded into the [`RunModel`], by kind: what announces the place in
//! the run (stage, pass, tree set, round), the tests and their verdicts, decisions, the moves
//! of the best, the end of the run, and messages.

use std::time::{Duration, Instant};

use whittle_core::exec::oracle::TestStatus;
use whittle_core::observe::events::{Action, Branch, Candidate, CandidateKind, Event};
use whittle_core::outcome::Outcome;

use super::{
    CandidateView, ChartMark, ConfigView, Decision, Ending, Judged, LOG_LENGTH, MAX_DRAWN_CHUNKS,
    MAX_SPANS_KEPT, Round, RunModel, TreeSet,
};

impl RunModel {
    /// Folds one event in; `now` is the UI's clock, `running` the run's time without pauses.
    pub fn apply(&mut self, event: Event, now: Instant, running: Duration) {
        self.events += 1;
        self.course.apply(&event, running);
        match event {
            Event::StageStarted { .. }
            | Event::FixpointIteration { .. }
            | Event::TreeNodes { .. }
            | Event::Round { .. } => self.announced(event, running),
            // Folded into the course above.
            Event::ScheduleRound(_) => {}
            Event::Beliefs(step) => self.beliefs_told(step),
            Event::TestStarted { .. } => self.test_started(event),
            Event::CandidateJudged { .. } => self.judged(event),
            Event::TestOutput {
                step,
                status,
                tail,
                node,
            } => {
                self.last_output = Some((step, status, tail));
                self.last_output_node = node;
            }
            Event::Accepted { .. } | Event::BranchTaken { .. } => self.decided(event, now),
            Event::Done { .. }
            | Event::Stopped { .. }
            | Event::Failed { .. }
            | Event::Flaky { .. } => self.ended(event, now, running),
            Event::Switched { .. }
            | Event::ManualEdit { .. }
            | Event::Restarted { .. }
            | Event::Undone { .. } => self.best_moved(event, now),
            Event::StageSkipped { .. }
            | Event::CommandRejected { .. }
            | Event::Warning { .. }
            | Event::Notice { .. }
            | Event::FileStarted { .. }
            | Event::FilesKept { .. }
            | Event::PlanChanged { .. }
            | Event::PinsChanged { .. } => self.told(event, now),
        }
    }

    /// The engine announces where the run is: a stage, a fixed-point pass, a tree set, a ddmin
    /// round.
    fn announced(&mut self, event: Event, running: Duration) {
        match event {
            Event::StageStarted {
                stage,
                index,
                scheduled,
            } => {
                if stage == whittle_core::engine::case::FILES_STAGE {
                    self.files_phase_started();
                }
                self.stage_started(&stage, running);
                *self.target() = ConfigView {
                    stage,
                    stage_index: index,
                    scheduled,
                    ..ConfigView::default()
                };
            }
            Event::FixpointIteration { stage, iteration } => self.pass_started(&stage, iteration),
            Event::TreeNodes {
                depth,
                parent,
                phase,
                nodes,
                mut spans,
                parent_span,
                levels,
                ..
            } => {
                spans.truncate(MAX_SPANS_KEPT);
                let tree_set = TreeSet {
                    depth,
                    levels,
                    phase,
                    nodes: nodes.len(),
                    spans: std::sync::Arc::new(spans),
                    parent_span,
                    recursive: parent.is_some(),
                    version: self.version,
                    hoisted: 0,
                };
                let target = self.target();
                target.tree_set = Some(tree_set);
                target.round = None;
                target.beliefs = None;
            }
            Event::Round {
                round,
                n,
                len,
                nu,
                chunks,
                candidates,
                ..
            } => self.round_started(Round {
                round,
                n,
                len,
                nu,
                chunks,
                candidates,
                judged: 0,
                subset_outcomes: Vec::new(),
                complement_outcomes: Vec::new(),
            }),
            // The other kinds of event are folded by the other methods `apply` calls.
            _ => {}
        }
    }

    /// A stage starts: a mark on the chart, its statistics opened, a text stage's edit
    /// forgotten.
    fn stage_started(&mut self, stage: &str, running: Duration) {
        self.marks.push(ChartMark {
            tests: self.tests,
            label: stage.to_owned(),
            stage: true,
        });
        self.open_stage(stage, running);
        self.stage = stage.to_owned();
        self.forget_edit();
    }

    /// A fixed-point pass of a stage starts (a mark on the chart from the second on).
    fn pass_started(&mut self, stage: &str, iteration: u32) {
        if iteration > 1 {
            self.marks.push(ChartMark {
                tests: self.tests,
                label: format!("{stage} pass {iteration}"),
                stage: false,
            });
        }
        let target = self.target();
        target.pass = iteration;
        target.tree_set = None;
        target.round = None;
        target.beliefs = None;
    }

    /// A ddmin round is announced: its outcomes start empty (kept per chunk only when there are
    /// few enough chunks to draw).
    fn round_started(&mut self, mut announced: Round) {
        self.counters.rounds += 1;
        self.split_factor = Some(announced.nu);
        let drawn = if announced.n <= MAX_DRAWN_CHUNKS {
            announced.n
        } else {
            0
        };
        let target = self.target();
        // Reuse the previous round's buffers: no allocation in the steady state.
        if let Some(previous) = target.round.take() {
            announced.subset_outcomes = previous.subset_outcomes;
            announced.complement_outcomes = previous.complement_outcomes;
        }
        announced.subset_outcomes.clear();
        announced.subset_outcomes.resize(drawn, None);
        announced.complement_outcomes.clear();
        announced.complement_outcomes.resize(drawn, None);
        target.round = Some(announced);
        target.decision = None;
    }

    /// ProbDD or CDD told the beliefs of a step it is about to judge. The first of a window is
    /// announced (the candidate judged last stays on screen with the beliefs it was chosen by
    /// until the next test starts); every one is kept for its candidate.
    fn beliefs_told(&mut self, step: whittle_core::observe::events::BeliefStep) {
        let step = std::sync::Arc::new(step);
        if std::mem::take(&mut self.beliefs_tested) {
            let view = &self.view;
            let next = self.next.get_or_insert_with(|| view.undecided());
            next.round = None;
            next.beliefs = Some(step.clone());
        }
        if self.window_beliefs.len() == super::WINDOW_BELIEFS {
            self.window_beliefs.pop_front();
        }
        self.window_beliefs.push_back(step);
    }

    /// The candidate shown is step `candidate.index` of ProbDD or CDD: the strip shows the
    /// beliefs that step was chosen by (with several jobs, steps of a window are judged in any
    /// order). The latest told for that step wins (a window after an acceptance starts at an
    /// index the one before had already).
    fn show_beliefs_of(&mut self, candidate: Candidate) {
        self.beliefs_tested = true;
        if candidate.kind != CandidateKind::LeastLikely {
            return;
        }
        if let Some(step) = self
            .window_beliefs
            .iter()
            .rev()
            .find(|step| step.step == candidate.index)
        {
            self.view.beliefs = Some(step.clone());
        }
    }

    /// A candidate's test starts: it is the current candidate until it is judged.
    fn test_started(&mut self, event: Event) {
        let Event::TestStarted {
            step,
            candidate,
            removed,
            replacements,
            size,
        } = event
        else {
            return;
        };
        if !candidate.is_check() {
            self.show_next();
            self.show_beliefs_of(candidate);
        }
        self.last_step = self.last_step.max(step);
        if !replacements.is_empty() {
            if self.replacing.len() == LOG_LENGTH {
                self.replacing.pop_front();
            }
            self.replacing.push_back((step, replacements.clone()));
        }
        self.current = Some(CandidateView {
            replacements,
            ..self.candidate_view(step, candidate, removed, size)
        });
    }

    /// A candidate was judged: counted, logged in step order, shown with its verdict.
    fn judged(&mut self, event: Event) {
        let Event::CandidateJudged {
            step,
            candidate,
            size,
            preview,
            removed,
            action,
            outcome,
            status,
            duration,
            timeout_reruns,
            ..
        } = event
        else {
            return;
        };
        self.last_step = self.last_step.max(step);
        let runs = Runs {
            status: status.as_ref(),
            duration,
            timeout_reruns,
        };
        self.count(candidate, action, outcome, runs);
        if !candidate.is_check() {
            self.show_next();
            self.show_beliefs_of(candidate);
            self.record_outcome(candidate, action, outcome);
        }
        // A hoist is where its node starts (its first span may be empty).
        let at = match candidate.kind {
            CandidateKind::Hoist => removed.first(),
            _ => removed.iter().find(|r| !r.is_empty()),
        }
        .map(|r| r.start);
        // The preview lives in the log (no copy per event); see `current_preview`.
        self.log_in_step_order(Judged {
            step,
            candidate,
            size,
            preview,
            action,
            outcome,
            at,
            version: self.version,
        });
        // In a parallel window other candidates may be under test; the latest wins.
        self.current = Some(CandidateView {
            verdict: Some((outcome, action)),
            replacements: self.take_replacements(step),
            ..self.candidate_view(step, candidate, removed, size)
        });
    }

    /// A candidate of the current best, not judged yet and replacing nothing.
    fn candidate_view(
        &self,
        step: u64,
        candidate: Candidate,
        removed: Vec<std::ops::Range<usize>>,
        size: usize,
    ) -> CandidateView {
        CandidateView {
            step,
            candidate,
            removed,
            version: self.version,
            size,
            verdict: None,
            replacements: Vec::new(),
        }
    }

    /// Adds a judged candidate to the log, which keeps the last [`LOG_LENGTH`] in step order.
    fn log_in_step_order(&mut self, judged: Judged) {
        if self.log.len() == LOG_LENGTH {
            self.log.pop_front();
        }
        // With several jobs the tests end in any order: the log is kept in step order (a
        // judged step is at most `jobs` places from the end, so this stays cheap).
        let place = self
            .log
            .iter()
            .rposition(|earlier| earlier.step <= judged.step)
            .map_or(0, |i| i + 1);
        self.log.insert(place, judged);
    }

    /// The replacement texts of the candidate of `step` (empty when it only removes).
    fn take_replacements(&mut self, step: u64) -> Vec<String> {
        match self.replacing.iter().position(|(s, _)| *s == step) {
            Some(place) => self.replacing.remove(place).map(|(_, texts)| texts),
            None => None,
        }
        .unwrap_or_default()
    }

    /// A candidate was accepted, or ddmin took a branch without one.
    fn decided(&mut self, event: Event, now: Instant) {
        match event {
            Event::Accepted {
                size,
                branch,
                candidate,
                ..
            } => {
                self.accepted += 1;
                // A set of whole files accepted is no best of a file the UI shows.
                if !self.removing_files() {
                    self.version += 1;
                    self.sizes.push((self.tests, size));
                    self.case_accepted(size);
                }
                self.last_reduction = Some(now);
                if branch == Branch::Hoist
                    && let Some(set) = &mut self.view.tree_set
                {
                    set.hoisted += 1;
                }
                if !candidate.is_check() {
                    self.decide(Decision {
                        branch,
                        candidate: Some(candidate),
                        n: None,
                    });
                }
            }
            Event::BranchTaken { branch, n } => self.decide(Decision {
                branch,
                candidate: None,
                n: Some(n),
            }),
            // The other kinds of event are folded by the other methods `apply` calls.
            _ => {}
        }
    }

    /// The run ended (done, stopped, failed), or its final result failed its re-test.
    fn ended(&mut self, event: Event, now: Instant, running: Duration) {
        match event {
            Event::Done { stats } => {
                self.close_stage(running);
                self.forget_edit();
                if self.case.is_some() {
                    // What a file's session announced last is where it ended, though no
                    // candidate of it was tested (all of it pinned, say): the pane shows the
                    // file's last stage, not one before it.
                    self.show_next();
                }
                self.ending = Some(Ending::Done);
                self.ended_after = running;
                self.final_stats = Some(stats);
                self.notify("the reduction is done".into(), false, now);
            }
            Event::Stopped { reason, stats } => {
                self.close_stage(running);
                self.final_stats = Some(stats);
                self.notify(format!("stopped: {reason}"), true, now);
                self.ending = Some(Ending::Stopped(reason));
                self.ended_after = running;
            }
            Event::Flaky {
                unconfirmed_size,
                status,
                fell_back,
            } => {
                let kept = if fell_back {
                    "went back to the last result that passed again"
                } else {
                    "no earlier result passed again"
                };
                self.notify(
                    format!(
                        "the test is flaky: the final result ({unconfirmed_size} B) failed its \
                         re-test ({status}); {kept}"
                    ),
                    true,
                    now,
                );
            }
            Event::Failed { message } => {
                self.notify(message.clone(), true, now);
                self.ending = Some(Ending::Failed(message));
                self.ended_after = running;
            }
            // The other kinds of event are folded by the other methods `apply` calls.
            _ => {}
        }
    }

    /// The engine works on another best: another pipeline, a manual edit, a restart from the
    /// history or an undo.
    fn best_moved(&mut self, event: Event, now: Instant) {
        match event {
            Event::Switched { pipeline, step } => {
                self.ending = None;
                self.restart_view();
                self.notify(
                    format!("switched to {pipeline} after step {step}"),
                    false,
                    now,
                );
                self.pipeline = Some(pipeline);
            }
            Event::ManualEdit {
                description,
                accepted,
                ..
            } => {
                let verdict = if accepted {
                    "kept: the result is still interesting"
                } else {
                    "rejected: the result is not interesting"
                };
                self.notify(format!("{description}: {verdict}"), !accepted, now);
                if accepted {
                    self.ending = None;
                    self.restart_view();
                }
            }
            Event::Restarted { from, size } => {
                self.moved(size);
                self.notify(
                    format!("restarted from history #{from} ({size} bytes)"),
                    false,
                    now,
                );
            }
            Event::Undone { what, to, size } => {
                self.moved(size);
                self.notify(
                    format!("undid {what}: back to history #{to} ({size} bytes)"),
                    false,
                    now,
                );
            }
            // The other kinds of event are folded by the other methods `apply` calls.
            _ => {}
        }
    }

    /// What the status line tells: skipped stages, refused commands, warnings, notices, pins.
    fn told(&mut self, event: Event, now: Instant) {
        match event {
            Event::PlanChanged {
                version,
                change,
                step,
            } => {
                self.plan_version = version;
                self.notify(
                    format!("plan v{version}: {change} after step {step}"),
                    false,
                    now,
                );
            }
            Event::StageSkipped { stage, reason } => {
                self.notify(format!("skipped the stage {stage}: {reason}"), false, now);
            }
            Event::CommandRejected { command, reason } => {
                self.notify(format!("{command}: {reason}"), true, now);
            }
            Event::Warning { message } => self.notify(message, true, now),
            Event::Notice { message } => self.notify(message, false, now),
            Event::FileStarted {
                path,
                index,
                of,
                round,
                size,
                others,
            } => {
                self.file_started(&path, size, others);
                self.notify(
                    format!(
                        "round {round}: reducing {path} (file {} of {of})",
                        index + 1
                    ),
                    false,
                    now,
                );
            }
            Event::FilesKept { size, .. } => self.files_kept(size),
            Event::PinsChanged { pins } => {
                self.notify(format!("{} pinned range(s)", pins.len()), false, now);
                self.pins = pins;
            }
            // The other kinds of event are folded by the other methods `apply` calls.
            _ => {}
        }
    }

    /// A text stage's edit (`edit 2/81`) means nothing once its stage ended: it is no longer
    /// shown. (ddmin's last candidate stays, beside the decision it led to.)
    fn forget_edit(&mut self) {
        if self
            .current
            .as_ref()
            .is_some_and(|current| current.candidate.kind == CandidateKind::Edit)
        {
            self.current = None;
        }
        self.replacing.clear();
    }

    /// The engine works on another best: what was shown no longer applies.
    fn moved(&mut self, size: usize) {
        self.ending = None;
        self.version += 1;
        self.sizes.push((self.tests, size));
        self.restart_view();
    }

    /// The pipeline starts again: the view waits for what it announces.
    fn restart_view(&mut self) {
        let stage = std::mem::take(&mut self.view.stage);
        self.view = ConfigView {
            stage,
            ..ConfigView::default()
        };
        self.next = None;
        if let Some(current) = &mut self.current {
            current.removed.clear();
        }
    }

    /// Counts what a replay's statistics need. A test that ran again after a timeout is one
    /// more test (or check) each time, as the tester counts it.
    fn count(&mut self, candidate: Candidate, action: Action, outcome: Outcome, runs: Runs<'_>) {
        let counters = &mut self.counters;
        let Runs {
            status,
            duration,
            timeout_reruns,
        } = runs;
        let reruns = u64::from(timeout_reruns);
        match action {
            Action::Test if candidate.is_check() => counters.checks += 1 + reruns,
            Action::Test => {
                self.tests += 1 + reruns;
                if outcome.is_interesting() {
                    counters.interesting_tests += 1;
                }
            }
            Action::Cache => match outcome {
                Outcome::Interesting => counters.cache_interesting += 1,
                Outcome::NotInteresting => counters.cache_not += 1,
                Outcome::Unresolved => counters.cache_unresolved += 1,
            },
            Action::Guard => counters.guard_skips += 1,
            Action::Recall => counters.recalled += 1,
            Action::Names => counters.names_skips += 1,
        }
        if action == Action::Test {
            counters.test_seconds += duration.as_secs_f64();
            counters.timeouts += reruns;
            if status == Some(&TestStatus::TimedOut) {
                counters.timeouts += 1;
            }
        }
    }

    /// The outcome of a Δ or ∇ of the round shown.
    fn record_outcome(&mut self, candidate: Candidate, action: Action, outcome: Outcome) {
        let Some(round) = &mut self.view.round else {
            return;
        };
        if candidate.n as usize != round.n {
            return;
        }
        if matches!(
            candidate.kind,
            CandidateKind::Subset | CandidateKind::Complement | CandidateKind::Combination
        ) {
            round.judged += 1;
        }
        let slot = match candidate.kind {
            CandidateKind::Subset => round.subset_outcomes.get_mut(candidate.index as usize),
            CandidateKind::Complement => {
                round.complement_outcomes.get_mut(candidate.index as usize)
            }
            _ => None,
        };
        if let Some(slot) = slot {
            *slot = Some((outcome, action));
        }
    }
}

/// The runs of the test behind one verdict: how the last ended, all of them together, and how
/// many ran again after a timeout.
struct Runs<'a> {
    status: Option<&'a TestStatus>,
    duration: Duration,
    timeout_reruns: u32,
}
