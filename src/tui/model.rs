//! What the UI knows of the run from the engine's events: the partition of the current round,
//! the outcome of each chunk, the candidate under test, the branches taken, the size series and
//! the test output. Every event is folded in O(1) (amortised); drawing reads the result.

use std::collections::VecDeque;
use std::ops::Range;
use std::time::Instant;

use crate::events::{Action, Branch, Candidate, CandidateKind, Event, TreePhase};
use crate::oracle::TestStatus;
use crate::outcome::Outcome;
use crate::params::SplitFactor;

/// How many judged candidates the log keeps.
pub const LOG_LENGTH: usize = 64;
/// How many chunks a round may have for per-chunk outcomes to be kept.
pub const MAX_DRAWN_CHUNKS: usize = 256;

/// The configuration of a ddmin round.
#[derive(Clone, Debug, PartialEq)]
pub struct Round {
    pub iteration: u64,
    pub n: usize,
    pub len: usize,
    pub nu: SplitFactor,
    /// Units per chunk (empty when there are too many chunks to draw).
    pub chunks: Vec<u32>,
    /// The outcome of Δi and ∇i as they arrive.
    pub subset_outcomes: Vec<Option<(Outcome, Action)>>,
    pub complement_outcomes: Vec<Option<(Outcome, Action)>>,
}

/// A candidate being tested or just judged.
#[derive(Clone, Debug, PartialEq)]
pub struct CandidateView {
    pub step: u64,
    pub candidate: Candidate,
    pub removed: Vec<Range<usize>>,
    pub size: usize,
    /// The outcome, once judged.
    pub verdict: Option<(Outcome, Action)>,
}

/// One judged candidate, for the log.
#[derive(Clone, Debug, PartialEq)]
pub struct Judged {
    pub step: u64,
    pub candidate: Candidate,
    pub size: usize,
    pub preview: Option<String>,
    pub action: Action,
    pub outcome: Outcome,
}

/// A vertical mark on the size chart: a fixed-point iteration or a stage began.
#[derive(Clone, Debug, PartialEq)]
pub struct ChartMark {
    /// Tests run when it began.
    pub tests: u64,
    pub label: String,
    pub stage: bool,
}

/// How the run ended, as far as the events told.
#[derive(Clone, Debug, PartialEq)]
pub enum Ending {
    Done,
    Stopped(String),
    Failed(String),
}

/// A message to show in the status line.
#[derive(Clone, Debug, PartialEq)]
pub struct Notice {
    pub text: String,
    pub warning: bool,
    pub at: Instant,
}

/// The run as the events describe it.
#[derive(Debug)]
pub struct RunModel {
    pub stage: String,
    pub stage_index: usize,
    pub fixpoint_iteration: u32,
    pub round: Option<Round>,
    /// The candidate under test, or the last one judged.
    pub current: Option<CandidateView>,
    /// The last branch of the algorithm taken, with the granularity it led to.
    pub branch: Option<(Branch, String)>,
    pub log: VecDeque<Judged>,
    /// (tests run, size) at the start and after every accepted reduction.
    pub sizes: Vec<(u64, usize)>,
    pub marks: Vec<ChartMark>,
    /// The algorithm's real tests judged (checks of the input, cache hits and guard skips
    /// excluded).
    pub tests: u64,
    pub last_step: u64,
    pub accepted: u64,
    pub last_output: Option<(u64, TestStatus, String)>,
    /// The machine the last test with output ran on, when not this one (a Slurm node).
    pub last_output_node: Option<String>,
    pub ending: Option<Ending>,
    pub notice: Option<Notice>,
    /// When the last reduction was accepted (by the UI's clock).
    pub last_reduction: Option<Instant>,
    /// Events folded in, in total.
    pub events: u64,
    /// The set of nodes a tree stage works on (HDD's level), if a tree stage runs.
    pub tree_level: Option<TreeLevel>,
}

/// What a tree stage works on: a level of the tree, or the children of one node.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TreeLevel {
    pub depth: usize,
    pub parent: Option<u32>,
    pub phase: TreePhase,
    /// How many nodes (ddmin's units when pruning).
    pub nodes: usize,
}

impl RunModel {
    /// The text of the current candidate, when it was judged and is short.
    pub fn current_preview(&self) -> Option<&str> {
        let current = self.current.as_ref()?;
        let last = self.log.back()?;
        (current.verdict.is_some()
            && last.step == current.step
            && last.candidate == current.candidate)
            .then_some(last.preview.as_deref())
            .flatten()
    }

    pub fn new(input_size: usize) -> Self {
        RunModel {
            stage: String::new(),
            stage_index: 0,
            fixpoint_iteration: 0,
            round: None,
            current: None,
            branch: None,
            log: VecDeque::with_capacity(LOG_LENGTH),
            sizes: vec![(0, input_size)],
            marks: Vec::new(),
            tests: 0,
            last_step: 0,
            accepted: 0,
            last_output: None,
            last_output_node: None,
            ending: None,
            notice: None,
            last_reduction: None,
            events: 0,
            tree_level: None,
        }
    }

    fn notify(&mut self, text: String, warning: bool, now: Instant) {
        self.notice = Some(Notice {
            text,
            warning,
            at: now,
        });
    }

    /// Folds one event in.
    pub fn apply(&mut self, event: Event, now: Instant) {
        self.events += 1;
        match event {
            Event::StageStarted { stage, index } => {
                self.marks.push(ChartMark {
                    tests: self.tests,
                    label: stage.clone(),
                    stage: true,
                });
                self.stage = stage;
                self.stage_index = index;
                self.fixpoint_iteration = 0;
                self.round = None;
                self.tree_level = None;
            }
            Event::FixpointIteration { stage, iteration } => {
                self.fixpoint_iteration = iteration;
                if iteration > 1 {
                    self.marks.push(ChartMark {
                        tests: self.tests,
                        label: format!("{stage} #{iteration}"),
                        stage: false,
                    });
                }
            }
            Event::Round {
                iteration,
                n,
                len,
                nu,
                chunks,
            } => {
                let drawn = if n <= MAX_DRAWN_CHUNKS { n } else { 0 };
                // Reuse the previous round's buffers: no allocation in the steady state.
                let mut round = self.round.take().unwrap_or_else(|| Round {
                    iteration,
                    n,
                    len,
                    nu,
                    chunks: Vec::new(),
                    subset_outcomes: Vec::new(),
                    complement_outcomes: Vec::new(),
                });
                round.iteration = iteration;
                round.n = n;
                round.len = len;
                round.nu = nu;
                round.chunks = chunks;
                round.subset_outcomes.clear();
                round.subset_outcomes.resize(drawn, None);
                round.complement_outcomes.clear();
                round.complement_outcomes.resize(drawn, None);
                self.round = Some(round);
            }
            Event::TestStarted {
                step,
                candidate,
                removed,
                size,
            } => {
                self.last_step = self.last_step.max(step);
                self.current = Some(CandidateView {
                    step,
                    candidate,
                    removed,
                    size,
                    verdict: None,
                });
            }
            Event::CandidateJudged {
                step,
                candidate,
                size,
                preview,
                removed,
                action,
                outcome,
                ..
            } => {
                self.last_step = self.last_step.max(step);
                if action == Action::Test && !candidate.is_check() {
                    self.tests += 1;
                }
                if let Some(round) = &mut self.round {
                    let slot = match candidate.kind {
                        CandidateKind::Subset => {
                            round.subset_outcomes.get_mut(candidate.index as usize)
                        }
                        CandidateKind::Complement => {
                            round.complement_outcomes.get_mut(candidate.index as usize)
                        }
                        _ => None,
                    };
                    if let Some(slot) = slot
                        && candidate.n as usize == round.n
                    {
                        *slot = Some((outcome, action));
                    }
                }
                if self.log.len() == LOG_LENGTH {
                    self.log.pop_front();
                }
                // The preview lives in the log (no copy per event); see `current_preview`.
                self.log.push_back(Judged {
                    step,
                    candidate,
                    size,
                    preview,
                    action,
                    outcome,
                });
                // In a parallel window other candidates may be under test; the latest wins.
                self.current = Some(CandidateView {
                    step,
                    candidate,
                    removed,
                    size,
                    verdict: Some((outcome, action)),
                });
            }
            Event::Accepted {
                size,
                branch,
                candidate,
                ..
            } => {
                self.accepted += 1;
                self.sizes.push((self.tests, size));
                // What it removed is gone: its spans no longer apply to the new best.
                if let Some(current) = &mut self.current {
                    current.removed.clear();
                }
                self.last_reduction = Some(now);
                let detail = match branch {
                    Branch::ReduceToSubset | Branch::ReduceToComplement => {
                        format!("{} ✗", candidate.describe())
                    }
                    _ => candidate.describe(),
                };
                self.branch = Some((branch, detail));
            }
            Event::BranchTaken { branch, n } => {
                let detail = match branch {
                    Branch::IncreaseGranularity => format!("n → {n}"),
                    Branch::Done => format!("1-minimal at n = {n}"),
                    _ => format!("n = {n}"),
                };
                self.branch = Some((branch, detail));
            }
            Event::TestOutput {
                step,
                status,
                tail,
                node,
            } => {
                self.last_output = Some((step, status, tail));
                self.last_output_node = node;
            }
            Event::Done { .. } => {
                self.ending = Some(Ending::Done);
                self.current = self.current.take().map(|mut view| {
                    view.removed.clear();
                    view
                });
                self.notify("the reduction is done".into(), false, now);
            }
            Event::Stopped { reason, .. } => {
                self.notify(format!("stopped: {reason}"), true, now);
                self.ending = Some(Ending::Stopped(reason));
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
            }
            Event::Switched { pipeline, step } => {
                self.ending = None;
                self.notify(
                    format!("switched to {pipeline} after step {step}"),
                    false,
                    now,
                );
            }
            Event::StageSkipped { stage, reason } => {
                self.notify(format!("skipped the stage {stage}: {reason}"), false, now);
            }
            Event::TreeNodes {
                depth,
                parent,
                phase,
                nodes,
                ..
            } => {
                self.tree_level = Some(TreeLevel {
                    depth,
                    parent,
                    phase,
                    nodes: nodes.len(),
                });
            }
            Event::CommandRejected { command, reason } => {
                self.notify(format!("{command}: {reason}"), true, now);
            }
            Event::Warning { message } => self.notify(message, true, now),
            Event::Notice { message } => self.notify(message, false, now),
            Event::PinsChanged { pins } => {
                self.notify(format!("{} pinned range(s)", pins.len()), false, now);
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
                }
            }
            Event::Restarted { from, size } => {
                self.ending = None;
                self.sizes.push((self.tests, size));
                self.notify(
                    format!("restarted from history #{from} ({size} bytes)"),
                    false,
                    now,
                );
            }
        }
    }
}
