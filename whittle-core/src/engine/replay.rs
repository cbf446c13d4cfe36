//! A recorded run (`whittle reduce --trace`) read back for `whittle replay`: the events of each
//! position, the best and the history there. A position `p` is what a paused run showed after
//! its `p`-th candidate: every event up to that candidate's judgement and the events that led
//! to the next candidate (a new round, a reduction, a new stage). Nothing is tested again.

use std::path::Path;
use std::sync::Arc;
use std::time::Duration;

use crate::engine::history::{History, HistoryEntry};
use crate::observe::events::{Branch, Event};
use crate::observe::trace::{CutLine, RecordedEvent, Trace, TraceHeader};
use crate::tree::Language;

/// A recorded run.
pub struct Replay {
    pub header: TraceHeader,
    /// The input the run started from.
    pub input: Vec<u8>,
    /// The steps: what led to each candidate of the algorithm, and its judgement.
    steps: Vec<Step>,
    /// What happened after the last candidate, and when the run ended (if it did).
    end: Vec<TimedEvent>,
    end_time: Option<f64>,
    /// The trace's last line was cut: only the lines before it are replayed.
    cut: Option<CutLine>,
    history: History,
    /// Per position: how many history entries exist there.
    history_len: Vec<usize>,
}

/// An event with the time (seconds of running time into the recorded run) it happened.
pub type TimedEvent = (Event, f64);

/// One candidate of the algorithm as recorded: the events since the previous one (the checks
/// of the input among them), and its judgement.
struct Step {
    lead: Vec<(RecordedEvent, f64)>,
    judged: TimedEvent,
    step: u64,
}

impl Replay {
    /// Reads and checks a trace.
    pub fn open(path: &Path) -> anyhow::Result<Replay> {
        let trace = Trace::read(path)?;
        Replay::new(trace)
    }

    /// Builds the replay of a trace read already: its history is rebuilt from the deltas.
    pub fn new(trace: Trace) -> anyhow::Result<Replay> {
        let header = trace.header.clone();
        let input = header
            .input
            .bytes()
            .map_err(|e| anyhow::anyhow!("the trace's input is damaged: {e}"))?;
        let mut steps = Vec::new();
        let mut lead: Vec<(RecordedEvent, f64)> = Vec::new();
        let mut last_time = 0.0;
        for candidate in trace.candidates {
            lead.extend(
                candidate
                    .events
                    .iter()
                    .map(|recorded| (recorded.clone(), last_time)),
            );
            last_time = candidate.t;
            let judged = (candidate.judged_event(), candidate.t);
            if candidate.step == 0 {
                // The checks of the input take no step: they lead to the first one.
                lead.push((
                    RecordedEvent {
                        event: judged.0,
                        delta: None,
                    },
                    judged.1,
                ));
                continue;
            }
            steps.push(Step {
                lead: std::mem::take(&mut lead),
                judged,
                step: candidate.step,
            });
        }
        let end_time = trace.end.as_ref().map(|(t, _)| *t);
        if let Some((t, events)) = trace.end {
            lead.extend(events.into_iter().map(|recorded| (recorded, t)));
        }
        let mut replay = Replay {
            header,
            input,
            steps,
            end: Vec::new(),
            end_time,
            cut: trace.cut,
            history: History::default(),
            history_len: Vec::new(),
        };
        replay.build_history(&lead)?;
        replay.end = lead
            .into_iter()
            .map(|(recorded, t)| (recorded.event, t))
            .collect();
        Ok(replay)
    }

    /// Follows the deltas through the whole trace, recording every best.
    fn build_history(&mut self, end: &[(RecordedEvent, f64)]) -> anyhow::Result<()> {
        let mut best = self.input.clone();
        let mut tests = 0u64;
        let mut stage = String::new();
        let mut history = History::default();
        history.push(entry(Branch::Start, 0.0, tests, best.len(), &stage), &best);
        let mut lengths = Vec::with_capacity(self.steps.len() + 1);
        for position in 0..=self.steps.len() {
            let lead = match self.steps.get(position) {
                Some(step) => &step.lead[..],
                None => end,
            };
            for (recorded, time) in lead {
                if let Event::StageStarted { stage: name, .. } = &recorded.event {
                    stage = name.clone();
                }
                let Some(delta) = &recorded.delta else {
                    continue;
                };
                best = delta.apply(&best).map_err(|e| {
                    anyhow::anyhow!("the trace is damaged before step {}: {e}", position + 1)
                })?;
                let branch = match &recorded.event {
                    Event::Accepted { branch, .. } => *branch,
                    _ => Branch::Restart,
                };
                history.push(entry(branch, *time, tests, best.len(), &stage), &best);
            }
            lengths.push(history.len());
            if let Some(Step {
                judged:
                    (
                        Event::CandidateJudged {
                            action: crate::observe::events::Action::Test,
                            timeout_reruns,
                            ..
                        },
                        _,
                    ),
                ..
            }) = self.steps.get(position)
            {
                tests += 1 + u64::from(*timeout_reruns);
            }
        }
        self.history = history;
        self.history_len = lengths;
        Ok(())
    }

    /// How many steps the trace holds (positions run from 0 to this).
    pub fn len(&self) -> usize {
        self.steps.len()
    }

    pub fn is_empty(&self) -> bool {
        self.steps.is_empty()
    }

    /// Whether the recorded run reached its end (the trace has its end line).
    pub fn is_complete(&self) -> bool {
        self.end_time.is_some()
    }

    /// The trace's last line, when it was cut (the run was killed, or the disk was full, while
    /// it was written): the replay holds the complete lines before it.
    pub fn cut(&self) -> Option<CutLine> {
        self.cut
    }

    /// Every event shown at `position`, in order.
    pub fn events_upto(&self, position: usize) -> Vec<TimedEvent> {
        let position = position.min(self.len());
        let mut events = Vec::new();
        for step in &self.steps[..position] {
            push_lead(&step.lead, &mut events);
            events.push(step.judged.clone());
        }
        self.push_lead_of(position, &mut events);
        events
    }

    /// The events from `position` to `position + 1`: the next candidate's judgement and what
    /// led to the one after it.
    pub fn events_step(&self, position: usize) -> Vec<TimedEvent> {
        let Some(step) = self.steps.get(position) else {
            return Vec::new();
        };
        let mut events = vec![step.judged.clone()];
        self.push_lead_of(position + 1, &mut events);
        events
    }

    fn push_lead_of(&self, position: usize, events: &mut Vec<TimedEvent>) {
        match self.steps.get(position) {
            Some(step) => push_lead(&step.lead, events),
            None => events.extend(self.end.iter().cloned()),
        }
    }

    /// The step number of the candidate last judged at `position` (0 before the first).
    pub fn step_at(&self, position: usize) -> u64 {
        position
            .checked_sub(1)
            .and_then(|index| self.steps.get(index))
            .map_or(0, |step| step.step)
    }

    /// The number of the last step (with several jobs, candidates are judged out of order).
    pub fn last_step(&self) -> u64 {
        self.steps.iter().map(|step| step.step).max().unwrap_or(0)
    }

    /// The position where the candidate of step `step` (or the first after it) has just been
    /// judged; 0 for step 0.
    pub fn position_of_step(&self, step: u64) -> usize {
        if step == 0 {
            return 0;
        }
        self.steps
            .iter()
            .position(|recorded| recorded.step >= step)
            .map_or(self.len(), |index| index + 1)
    }

    /// Running time into the recorded run at `position`.
    pub fn time_at(&self, position: usize) -> Duration {
        let seconds = match position.checked_sub(1).and_then(|i| self.steps.get(i)) {
            _ if position >= self.len() && self.end_time.is_some() => self.end_time.unwrap_or(0.0),
            Some(step) => step.judged.1,
            None => 0.0,
        };
        Duration::from_secs_f64(seconds.max(0.0))
    }

    /// The history index of the best at `position`.
    pub fn version_at(&self, position: usize) -> u64 {
        self.history_len
            .get(position.min(self.len()))
            .map_or(0, |&len| len.saturating_sub(1) as u64)
    }

    /// The best at `position`.
    pub fn best_at(&self, position: usize) -> Arc<[u8]> {
        let index = self.version_at(position) as usize;
        Arc::from(self.history.text(index).unwrap_or_default())
    }

    /// The history as it stood at `position`.
    pub fn history_at(&self, position: usize) -> Vec<HistoryEntry> {
        let len = self.history_len.get(position.min(self.len())).copied();
        self.history
            .entries()
            .take(len.unwrap_or(0))
            .cloned()
            .collect()
    }

    /// The text of history entry `index`.
    pub fn history_text(&self, index: usize) -> Option<Vec<u8>> {
        self.history.text(index)
    }

    /// The input's language, when this build parses it.
    pub fn language(&self) -> Option<&'static Language> {
        let name = self.header.language.as_deref()?;
        Language::by_name(name)
            .ok()
            .filter(|language| language.is_available())
    }
}

fn push_lead(lead: &[(RecordedEvent, f64)], events: &mut Vec<TimedEvent>) {
    events.extend(
        lead.iter()
            .map(|(recorded, time)| (recorded.event.clone(), *time)),
    );
}

fn entry(branch: Branch, seconds: f64, tests: u64, size: usize, stage: &str) -> HistoryEntry {
    HistoryEntry {
        index: 0,
        elapsed: Duration::from_secs_f64(seconds.max(0.0)),
        tests,
        size,
        branch,
        stage: stage.to_owned(),
    }
}
