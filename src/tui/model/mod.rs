//! What the UI knows of the run from the engine's events: the configuration being reduced
//! (stage, fixed-point pass, tree set, ddmin round and the outcome of each chunk), the
//! candidate under test, the decision taken, the per-stage statistics, the size series and the
//! test output. Every event is folded in O(1) (amortised); drawing reads the result.
//!
//! The Configuration pane shows one round at a time: once a round is decided (a candidate was
//! interesting, or the granularity grows, or ddmin is done), what the engine announces next
//! (a new round, tree set, pass or stage) waits in `next` until the first candidate of it is
//! tested, so the decision stays on screen with the partition it was made on.
//!
//! This module holds the model and what drawing reads of it; `fold` folds each kind of event
//! in.

mod case;
mod fold;

pub use case::CaseSeries;

use std::collections::VecDeque;
use std::ops::Range;
use std::time::{Duration, Instant};

use whittle_core::exec::oracle::TestStatus;
use whittle_core::observe::events::{
    Action, BeliefStep, Branch, Candidate, SchedulePlace, TreePhase,
};
use whittle_core::observe::stats::Stats;
use whittle_core::outcome::Outcome;
use whittle_core::params::SplitFactor;

/// How many judged candidates the log keeps.
pub const LOG_LENGTH: usize = 64;
/// How many of ProbDD's or CDD's latest steps keep their beliefs (a window holds one per job):
/// the strip shows those of the step the candidate shown belongs to.
pub const WINDOW_BELIEFS: usize = 64;
/// How many chunks a round may have for per-chunk outcomes to be kept.
pub const MAX_DRAWN_CHUNKS: usize = 256;

/// A ddmin round: the configuration and its partition.
#[derive(Clone, Debug, PartialEq)]
pub struct Round {
    /// The round of the current ddmin (1-based).
    pub round: u64,
    pub n: usize,
    pub len: usize,
    pub nu: SplitFactor,
    /// Units per chunk (empty when there are too many chunks to draw).
    pub chunks: Vec<u32>,
    /// The most candidates the round judges.
    pub candidates: usize,
    /// Candidates of the round judged so far.
    pub judged: usize,
    /// The outcome of Δi and ∇i as they arrive.
    pub subset_outcomes: Vec<Option<(Outcome, Action)>>,
    pub complement_outcomes: Vec<Option<(Outcome, Action)>>,
}

/// The nodes of a tree set whose places are kept, at most (to name them by kind).
pub const MAX_SPANS_KEPT: usize = 64;

/// The set of nodes a tree stage works on: a level of the tree or the children of one node.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TreeSet {
    pub depth: usize,
    /// How many levels the tree has (the level walks tell).
    pub levels: Option<usize>,
    pub phase: TreePhase,
    /// How many nodes (ddmin's units when pruning).
    pub nodes: usize,
    /// Where the first nodes are in the best of `version` (at most [`MAX_SPANS_KEPT`]).
    pub spans: std::sync::Arc<Vec<Range<usize>>>,
    /// Where the parent is in the best of `version` (the recursive variants).
    pub parent_span: Option<Range<usize>>,
    pub recursive: bool,
    /// The version of the best the spans refer to.
    pub version: u64,
    /// Hoists accepted in this set.
    pub hoisted: usize,
}

/// A candidate being tested or just judged.
#[derive(Clone, Debug, PartialEq)]
pub struct CandidateView {
    pub step: u64,
    pub candidate: Candidate,
    /// What it removes or replaces of the best of `version`.
    pub removed: Vec<Range<usize>>,
    pub version: u64,
    pub size: usize,
    /// The outcome, once judged.
    pub verdict: Option<(Outcome, Action)>,
    /// What replaces each removed range (a text stage's rename or replacement; empty when the
    /// candidate only removes).
    pub replacements: Vec<String>,
}

/// One judged candidate, for the steps table.
#[derive(Clone, Debug, PartialEq)]
pub struct Judged {
    pub step: u64,
    pub candidate: Candidate,
    pub size: usize,
    pub preview: Option<String>,
    pub action: Action,
    pub outcome: Outcome,
    /// Where it acts in the best of `version` (the first removed byte), for naming tree
    /// candidates by line and column.
    pub at: Option<usize>,
    pub version: u64,
}

/// A vertical mark on the size chart: a fixed-point pass or a stage began.
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

/// The decision taken on the round shown.
#[derive(Clone, Debug, PartialEq)]
pub struct Decision {
    pub branch: Branch,
    /// The candidate that decided it (for reductions).
    pub candidate: Option<Candidate>,
    /// The granularity it leads to (granularity, done).
    pub n: Option<usize>,
}

/// What the Configuration pane shows: the stage, its pass, the tree set and the ddmin round.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct ConfigView {
    pub stage: String,
    pub stage_index: usize,
    /// Where the stage is in its schedule (`(a+b+c)*`), if it belongs to one.
    pub scheduled: Option<SchedulePlace>,
    /// The fixed-point pass of the stage (1-based; 0 before the first).
    pub pass: u32,
    pub tree_set: Option<TreeSet>,
    pub round: Option<Round>,
    /// What ProbDD or CDD believes before its current step (shared: views are cloned).
    pub beliefs: Option<std::sync::Arc<BeliefStep>>,
    pub decision: Option<Decision>,
}

impl ConfigView {
    /// The same place in the run, before anything is decided there.
    fn undecided(&self) -> ConfigView {
        ConfigView {
            decision: None,
            ..self.clone()
        }
    }
}

/// One stage's statistics, as the events tell them.
#[derive(Clone, Debug, PartialEq)]
pub struct StageRow {
    pub name: String,
    pub runs: u32,
    /// Tests, bytes removed and running time of the finished runs.
    pub tests: u64,
    pub bytes_removed: u64,
    pub time: Duration,
    /// The run under way: when it started (running time), tests and size then.
    open: Option<(Duration, u64, usize)>,
}

/// What the events count (the statistics of a replay, where no engine publishes them).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Counters {
    pub checks: u64,
    pub interesting_tests: u64,
    pub cache_interesting: u64,
    pub cache_not: u64,
    pub cache_unresolved: u64,
    pub guard_skips: u64,
    pub recalled: u64,
    pub names_skips: u64,
    pub timeouts: u64,
    pub rounds: u64,
    pub test_seconds: f64,
}

/// The run as the events describe it.
#[derive(Debug, Clone)]
pub struct RunModel {
    /// What the Configuration pane shows, and what is announced after a decision.
    pub view: ConfigView,
    next: Option<ConfigView>,
    /// The stage running now (the Configuration pane may still show the previous one).
    pub stage: String,
    /// The candidate under test, or the last one judged.
    pub current: Option<CandidateView>,
    /// The replacement texts of the candidates under test that have some, by step (a few at
    /// most: one per job).
    replacing: VecDeque<(u64, Vec<String>)>,
    /// The beliefs of ProbDD's or CDD's latest steps, oldest first (at most
    /// [`WINDOW_BELIEFS`]), and whether a test started or was judged since the last arrived
    /// (the next one opens a new window).
    window_beliefs: VecDeque<std::sync::Arc<BeliefStep>>,
    beliefs_tested: bool,
    pub log: VecDeque<Judged>,
    /// (tests run, size) at the start and after every change of the best.
    pub sizes: Vec<(u64, usize)>,
    pub marks: Vec<ChartMark>,
    /// The algorithm's real tests judged (checks of the input, cache hits and guard skips
    /// excluded).
    pub tests: u64,
    pub last_step: u64,
    pub accepted: u64,
    /// How many times the best changed (reductions, restarts, undos): the best's version.
    pub version: u64,
    pub last_output: Option<(u64, TestStatus, String)>,
    /// The machine the last test with output ran on, when not this one (a Slurm node).
    pub last_output_node: Option<String>,
    pub ending: Option<Ending>,
    /// The run's time when it last ended (the clock shown stops there while it stays ended).
    pub ended_after: Duration,
    pub notice: Option<Notice>,
    /// When the last reduction was accepted (by the UI's clock).
    pub last_reduction: Option<Instant>,
    /// Events folded in, in total.
    pub events: u64,
    pub stages: Vec<StageRow>,
    pub counters: Counters,
    /// The pinned ranges and the pipeline as the events last told them (for replays).
    pub pins: Vec<Range<usize>>,
    pub pipeline: Option<String>,
    pub split_factor: Option<SplitFactor>,
    /// The version of the plan the events last told (0: as resolved).
    pub plan_version: u64,
    /// The statistics of the end of the run (`Done`, `Stopped`).
    pub final_stats: Option<Stats>,
    /// A case of several files: the whole set's course (the rest is the current file's).
    pub case: Option<CaseSeries>,
    /// The schedule's round, its estimates and the best's size over running time.
    pub course: whittle_core::observe::forecast::Course,
}

impl RunModel {
    pub fn new(input_size: usize) -> Self {
        RunModel {
            view: ConfigView::default(),
            next: None,
            stage: String::new(),
            current: None,
            replacing: VecDeque::new(),
            window_beliefs: VecDeque::new(),
            beliefs_tested: true,
            log: VecDeque::with_capacity(LOG_LENGTH),
            sizes: vec![(0, input_size)],
            marks: Vec::new(),
            tests: 0,
            last_step: 0,
            accepted: 0,
            version: 0,
            last_output: None,
            last_output_node: None,
            ending: None,
            ended_after: Duration::ZERO,
            notice: None,
            last_reduction: None,
            events: 0,
            stages: Vec::new(),
            counters: Counters::default(),
            pins: Vec::new(),
            pipeline: None,
            course: whittle_core::observe::forecast::Course::new(input_size as u64),
            split_factor: None,
            plan_version: 0,
            final_stats: None,
            case: None,
        }
    }

    /// The current size of the best, as the events told it.
    pub fn size(&self) -> usize {
        self.sizes.last().map_or(0, |&(_, size)| size)
    }

    /// The text of the current candidate, when it was judged and is short.
    pub fn current_preview(&self) -> Option<&str> {
        let current = self.current.as_ref()?;
        current.verdict?;
        self.log
            .iter()
            .rev()
            .find(|judged| judged.step == current.step && judged.candidate == current.candidate)
            .and_then(|judged| judged.preview.as_deref())
    }

    fn notify(&mut self, text: String, warning: bool, now: Instant) {
        self.notice = Some(Notice {
            text,
            warning,
            at: now,
        });
    }

    /// Where context events go: the view shown, or, once it is decided, the next one.
    fn target(&mut self) -> &mut ConfigView {
        if self.view.decision.is_some() || self.next.is_some() {
            let view = &self.view;
            self.next.get_or_insert_with(|| view.undecided())
        } else {
            &mut self.view
        }
    }

    /// A candidate of the next configuration is tested: it is shown from now on.
    fn show_next(&mut self) {
        if let Some(next) = self.next.take() {
            self.view = next;
        }
    }

    /// Decisions apply to what is shown, or to what is announced when a candidate of it was
    /// not tested yet (a ddmin of one unit is done without a test).
    fn decide(&mut self, decision: Decision) {
        match &mut self.next {
            Some(next) => next.decision = Some(decision),
            None => self.view.decision = Some(decision),
        }
    }

    /// The statistics of each stage, with the run under way counted up to `running`.
    pub fn stage_rows(&self, running: Duration) -> Vec<StageRow> {
        let size = self.size();
        self.stages
            .iter()
            .map(|row| {
                let mut row = row.clone();
                if let Some((started, tests, at_start)) = row.open.take() {
                    row.tests += self.tests.saturating_sub(tests);
                    row.bytes_removed += at_start.saturating_sub(size) as u64;
                    row.time += running.saturating_sub(started);
                }
                row
            })
            .collect()
    }

    fn close_stage(&mut self, running: Duration) {
        let (tests, size) = (self.tests, self.size());
        for row in &mut self.stages {
            if let Some((started, at_tests, at_size)) = row.open.take() {
                row.tests += tests.saturating_sub(at_tests);
                row.bytes_removed += at_size.saturating_sub(size) as u64;
                row.time += running.saturating_sub(started);
            }
        }
    }

    fn open_stage(&mut self, name: &str, running: Duration) {
        self.close_stage(running);
        let open = Some((running, self.tests, self.size()));
        match self.stages.iter_mut().find(|row| row.name == name) {
            Some(row) => {
                row.runs += 1;
                row.open = open;
            }
            None => self.stages.push(StageRow {
                name: name.to_owned(),
                runs: 1,
                tests: 0,
                bytes_removed: 0,
                time: Duration::ZERO,
                open,
            }),
        }
    }

    /// Statistics as the events tell them (for replays): what no event reports (cache entries,
    /// cancelled and wasted tests) is zero until the end of the run reports it all.
    pub fn derived_stats(&self) -> Stats {
        if let Some(stats) = &self.final_stats {
            return stats.clone();
        }
        let counters = &self.counters;
        let mut stats = Stats {
            tests: self.tests,
            checks: counters.checks,
            oracle_runs: self.tests + counters.checks,
            interesting_tests: counters.interesting_tests,
            cache_hits: counters.cache_interesting + counters.cache_not + counters.cache_unresolved,
            iterations: counters.rounds,
            timeouts: counters.timeouts,
            guard_skips: counters.guard_skips,
            recall_skips: counters.recalled,
            names_skips: counters.names_skips,
            test_seconds: counters.test_seconds,
            accepted: self.accepted,
            ..Stats::default()
        };
        stats.cache.hits_interesting = counters.cache_interesting;
        stats.cache.hits_not = counters.cache_not;
        stats.cache.hits_unresolved = counters.cache_unresolved;
        stats
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use whittle_core::observe::events::{CandidateKind, Event};

    /// A replay's statistics count the candidates judged without a test apart from the tests:
    /// those the syntax guard rejected, those the recall skipped and those the name check did.
    #[test]
    fn candidates_judged_without_a_test_are_counted_by_who_judged_them() {
        let mut model = RunModel::new(10);
        let judged = |step, action| Event::CandidateJudged {
            step,
            candidate: Candidate {
                kind: CandidateKind::Complement,
                index: 0,
                n: 2,
            },
            size: 5,
            preview: None,
            removed: Vec::new(),
            action,
            outcome: Outcome::NotInteresting,
            status: None,
            duration: Duration::ZERO,
            node: None,
            timeout_reruns: 0,
        };
        let actions = [
            Action::Test,
            Action::Recall,
            Action::Guard,
            Action::Names,
            Action::Recall,
        ];
        for (step, action) in (1..).zip(actions) {
            model.apply(judged(step, action), Instant::now(), Duration::ZERO);
        }
        let stats = model.derived_stats();
        assert_eq!(
            (
                stats.tests,
                stats.guard_skips,
                stats.recall_skips,
                stats.names_skips
            ),
            (1, 1, 2, 1)
        );
    }
}
