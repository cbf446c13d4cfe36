//! What the engine reports while it works: candidates tested, reductions accepted, rounds and
//! stages. The headless display and the UI are consumers of these events.

use std::time::Duration;

use serde::{Deserialize, Serialize};

use crate::exec::oracle::TestStatus;
use crate::observe::stats::Stats;
use crate::outcome::Outcome;
use crate::output::WriteNotice;

/// Candidates up to this size travel with their events.
pub const PREVIEW_LIMIT: usize = 256;

/// The name of the stage of a case of several files that removes whole files (ddmin over the
/// files): the sizes accepted in it are those of whole sets, not of one file.
pub const FILES_STAGE: &str = "ddmin files";

/// What a candidate is, relative to the configuration it came from.

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum CandidateKind {
    /// The input itself, checked once before reduction starts.
    Initial,
    /// The empty test case, checked once to warn about permissive tests.
    Empty,
    /// Δi: keep only chunk `index` of `n`.
    Subset,
    /// ∇i: remove chunk `index` of `n`.
    Complement,
    /// GreeDDy: remove several chunks at once.
    Combination,
    /// The empty configuration of a tree level where ddmin left one node.
    EmptyConfig,
    /// Hoisting: replace a node by a compatible descendant.
    Hoist,
    /// `replace`: a node becomes a shorter text its place allows (`n`: the text's rank).
    Replace,
    /// `lift`: a node becomes one of its descendants, of any kind (`n`: the descendant).
    Lift,
    /// `reshape`: a node becomes the short form of another kind (`n`: the form's rank).
    Reshape,
    /// An edit proposed by the user.
    Manual,
    /// An edit of a text stage (tokens, brackets, rename): candidate `index` of the `n` the
    /// stage proposed for the current best.
    Edit,
    /// A chunk sweep's removal of the `n` units from unit `index` (0-based) of its
    /// configuration.
    Sweep,
    /// ProbDD or CDD: remove the `n` least likely units of the configuration (`index`: the
    /// search's step, 0-based).
    LeastLikely,
    /// Several files: remove the `n` files that no file in use names any more (see
    /// [`FILES_STAGE`]).
    Unused,
    /// The `-sweep` tree variants: remove the tree's `n` comments at once.
    Comments,
    /// The `-sweep` tree variants: empty the tree's `n` docstrings at once.
    Docstrings,
}

/// One candidate under consideration.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Candidate {
    pub kind: CandidateKind,
    /// The chunk (Δ/∇ index, 0-based) or node concerned.
    pub index: u32,
    /// The granularity: how many chunks the configuration is split into (for a hoist: the
    /// descendant that takes the node's place).
    pub n: u32,
}

impl Candidate {
    pub fn single(kind: CandidateKind) -> Self {
        Candidate {
            kind,
            index: 0,
            n: 1,
        }
    }

    /// A check of the input (the input itself, the empty file) rather than an algorithm's step.
    pub fn is_check(&self) -> bool {
        matches!(self.kind, CandidateKind::Initial | CandidateKind::Empty)
    }

    /// Δ3/8 or ∇2/4 as the papers would write it (1-based).
    pub fn describe(&self) -> String {
        match self.kind {
            CandidateKind::Subset => format!("Δ{}/{}", self.index + 1, self.n),
            CandidateKind::Complement => format!("∇{}/{}", self.index + 1, self.n),
            CandidateKind::Combination => format!("∇-combination/{}", self.n),
            CandidateKind::Initial => "input".into(),
            CandidateKind::Empty => "empty".into(),
            CandidateKind::EmptyConfig => "empty configuration".into(),
            CandidateKind::Hoist => "hoist".into(),
            CandidateKind::Replace => "replace".into(),
            CandidateKind::Lift => "lift".into(),
            CandidateKind::Reshape => "reshape".into(),
            CandidateKind::Manual => "manual edit".into(),
            CandidateKind::Edit => format!("edit {}/{}", self.index + 1, self.n),
            CandidateKind::Sweep => format!("−{}@{}", self.n, self.index + 1),
            CandidateKind::LeastLikely => format!("−{} least likely", self.n),
            CandidateKind::Unused => format!("−{} unused", self.n),
            CandidateKind::Comments => format!("−{} comments", self.n),
            CandidateKind::Docstrings => format!("−{} docstrings", self.n),
        }
    }
}

/// How the outcome of a candidate was obtained.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Action {
    /// The test ran.
    Test,
    /// The outcome came from the cache.
    Cache,
    /// The syntax guard rejected the candidate without running the test.
    Guard,
    /// An edit of the same shape in the same neighbourhood failed earlier in the stage's run
    /// (or an earlier run): skipped without a test until the schedule settles.
    Recall,
    /// The candidate leaves a name it uses undeclared, and such candidates failed in this run:
    /// skipped without a test until the schedule settles.
    Names,
}

impl Action {
    /// The word that names it in listings (`test`, `cache`, `guard`, `recall`, `names`).
    pub fn word(self) -> &'static str {
        match self {
            Action::Test => "test",
            Action::Cache => "cache",
            Action::Guard => "guard",
            Action::Recall => "recall",
            Action::Names => "names",
        }
    }
}

/// Which branch of the algorithm's definition a step took.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Branch {
    ReduceToSubset,
    ReduceToComplement,
    /// GreeDDy's "reduce greedily": several complements at once.
    ReduceGreedily,
    IncreaseGranularity,
    Done,
    Hoist,
    /// A node was replaced by a shorter text (`replace`).
    Replace,
    /// A node was replaced by a descendant of another kind (`lift`).
    Lift,
    /// A node took the short form of another kind (`reshape`).
    Reshape,
    /// A tree level's configuration was pruned to nothing.
    EmptyConfig,
    Manual,
    /// The input, where the history starts.
    Start,
    /// The user went back to an earlier state.
    Restart,
    /// A text stage's edit.
    Edit,
    /// A chunk sweep removed a run of units.
    Sweep,
    /// ProbDD or CDD removed the least likely units.
    LeastLikely,
    /// The tree's comments were removed at once.
    Comments,
    /// The tree's docstrings were emptied at once.
    Docstrings,
}

impl Branch {
    pub fn describe(self) -> &'static str {
        match self {
            Branch::ReduceToSubset => "reduce to subset",
            Branch::ReduceToComplement => "reduce to complement",
            Branch::ReduceGreedily => "reduce greedily",
            Branch::IncreaseGranularity => "increase granularity",
            Branch::Done => "done",
            Branch::Hoist => "hoist",
            Branch::Replace => "replace",
            Branch::Lift => "lift",
            Branch::Reshape => "reshape",
            Branch::EmptyConfig => "empty configuration",
            Branch::Manual => "manual edit",
            Branch::Start => "input",
            Branch::Restart => "restart",
            Branch::Edit => "text edit",
            Branch::Sweep => "remove a run",
            Branch::LeastLikely => "remove the least likely",
            Branch::Comments => "remove the comments",
            Branch::Docstrings => "empty the docstrings",
        }
    }
}

/// Something that happened in the engine.
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(tag = "event", rename_all = "snake_case")]
pub enum Event {
    /// A stage of the pipeline began (e.g. "ddmin line", "hdd").
    StageStarted {
        stage: String,
        index: usize,
        /// Where the stage is in the `(a+b+c)*` schedule it belongs to, if any.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        scheduled: Option<SchedulePlace>,
    },
    /// A round of a `(a+b+c)*` schedule begins, or a stage of it ran: the stages the round
    /// runs, in order, why there, and their last complete runs (this round's for those that
    /// ran).
    ScheduleRound(RoundPlan),
    /// A fixed-point iteration of the current stage began (1-based).
    FixpointIteration { stage: String, iteration: u32 },
    /// A ddmin round: the configuration of `len` units split into `n` chunks.
    Round {
        /// The rounds of the whole run so far (the report's `iterations`).
        iteration: u64,
        /// The round of the current ddmin (1-based).
        #[serde(default)]
        round: u64,
        /// The most candidates the round judges (Δs and ∇s as the reduce order asks).
        #[serde(default)]
        candidates: usize,
        n: usize,
        len: usize,
        /// The split factor ν in force.
        nu: crate::params::SplitFactor,
        /// Chunk sizes, in order (only for configurations of at most 256 chunks).
        chunks: Vec<u32>,
    },
    /// A test was started (not sent for cache hits or guard skips).
    TestStarted {
        step: u64,
        candidate: Candidate,
        /// Byte ranges of the current best the candidate removes or replaces (may be empty
        /// when the algorithm cannot tell).
        removed: Vec<std::ops::Range<usize>>,
        /// What replaces each removed range, when the candidate replaces rather than removes
        /// (a text stage's rename or replacement; cut to a few dozen bytes each).
        #[serde(default, skip_serializing_if = "Vec::is_empty")]
        replacements: Vec<String>,
        size: usize,
    },
    /// The outcome of a candidate is known.
    CandidateJudged {
        step: u64,
        candidate: Candidate,
        size: usize,
        /// The candidate itself when it is short (at most [`PREVIEW_LIMIT`] bytes of UTF-8).
        preview: Option<String>,
        /// Byte ranges of the current best the candidate removes or replaces (may be empty).
        removed: Vec<std::ops::Range<usize>>,
        action: Action,
        outcome: Outcome,
        status: Option<TestStatus>,
        duration: Duration,
        /// The machine the test ran on, when not this one (a Slurm node).
        #[serde(skip_serializing_if = "Option::is_none")]
        node: Option<String>,
        /// The test ran this many times more after timing out under a derived timeout that had
        /// since grown (see `Verdict::timeout_reruns`): each is one more test, which timed out.
        #[serde(default, skip_serializing_if = "is_zero")]
        timeout_reruns: u32,
    },
    /// A smaller interesting test case became the current best.
    Accepted {
        step: u64,
        size: usize,
        branch: Branch,
        candidate: Candidate,
    },
    /// ProbDD or CDD is about to judge its next step: what it believes of each unit and why it
    /// chose the units it removes.
    Beliefs(BeliefStep),
    /// The algorithm took a branch that accepts nothing (granularity, done).
    BranchTaken { branch: Branch, n: usize },
    /// The output of the last test command (its tail).
    TestOutput {
        step: u64,
        status: TestStatus,
        tail: String,
        /// The machine the test ran on, when not this one (a Slurm node).
        #[serde(skip_serializing_if = "Option::is_none")]
        node: Option<String>,
    },
    /// The re-test of the final result said it is not interesting: the test is flaky. When an
    /// earlier result passed its re-test it became the result (`fell_back`).
    Flaky {
        unconfirmed_size: usize,
        status: String,
        fell_back: bool,
    },
    /// The pipeline finished.
    Done { stats: Stats },
    /// The session stopped before the pipeline finished (user, limit).
    Stopped { reason: String, stats: Stats },
    /// The reduction could not start (e.g. the input is not interesting).
    Failed { message: String },
    /// The algorithm was switched; it took effect after step `step`.
    Switched { pipeline: String, step: u64 },
    /// A knob was switched live (split factor, jobs, parallel mode): the plan has a new
    /// version, in force from the candidate after step `step`.
    PlanChanged {
        version: u64,
        change: String,
        step: u64,
    },
    /// A command could not be carried out.
    CommandRejected { command: String, reason: String },
    /// The pinned byte ranges of the current best changed.
    PinsChanged { pins: Vec<std::ops::Range<usize>> },
    /// A proposed edit was tested.
    ManualEdit {
        description: String,
        accepted: bool,
        step: u64,
    },
    /// The session went back to history entry `from`.
    Restarted { from: usize, size: usize },
    /// The last manual edit or restart (`what`) was taken back: the session works on history
    /// entry `to` again.
    Undone {
        what: String,
        to: usize,
        size: usize,
    },
    /// A tree stage works on a set of nodes: one level (`parent` is `None`), or the children of
    /// `parent` (the recursive variants). Node ids refer to the tree parsed from the current best
    /// at the start of the fixed-point iteration; when pruning, ddmin's unit `k` is `nodes[k]`.
    TreeNodes {
        stage: String,
        depth: usize,
        parent: Option<u32>,
        phase: TreePhase,
        nodes: Vec<u32>,
        /// Where the nodes are in the current best (empty when nobody displays them).
        spans: Vec<std::ops::Range<usize>>,
        /// Where `parent` is in the current best.
        parent_span: Option<std::ops::Range<usize>>,
        /// How many levels the current tree has (the depth of its deepest node plus one), for
        /// the level walks when something displays them.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        levels: Option<usize>,
    },
    /// A stage was skipped: it could not run (e.g. no grammar for the input), or the user
    /// skipped it.
    StageSkipped { stage: String, reason: String },
    /// Something went wrong that does not stop the run (the output or the trace could not be
    /// written, a test left files that cannot be removed). The engine prints nothing: the front
    /// ends show these.
    Warning { message: String },
    /// A case of several files: file `index` (0-based) of `of`, at `path` in the case, is
    /// reduced now, in round `round` (1-based) over the files, while the others (`others`
    /// bytes together) stay as they are. The sizes of the events that follow are this file's.
    FileStarted {
        path: String,
        index: usize,
        of: usize,
        round: u32,
        size: usize,
        others: usize,
    },
    /// A case of several files: the files phase accepted a set of whole files, `files` files
    /// of `size` bytes together (the sizes of its `Accepted` events are those of bundles).
    FilesKept { files: usize, size: usize },
    /// Something the user should know that is no problem (the output is written again after a
    /// failure).
    Notice { message: String },
}

impl From<WriteNotice> for Event {
    fn from(notice: WriteNotice) -> Event {
        match notice {
            WriteNotice::Failed(message) => Event::Warning { message },
            WriteNotice::Recovered(message) => Event::Notice { message },
        }
    }
}

/// What ProbDD or CDD believes of the units of its configuration before a step, and the step.
/// Configurations of more than [`crate::algorithms::probdd::BELIEF_CELLS`] units are shown in
/// as many cells, each holding consecutive units (the largest value, settled when all are,
/// chosen when one is).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct BeliefStep {
    pub model: crate::params::BeliefModel,
    /// The step of the search (the index of its [`CandidateKind::LeastLikely`] candidate):
    /// with several jobs a window's steps come one after another, and a display shows the
    /// beliefs of the candidate it names.
    #[serde(default)]
    pub step: u32,
    /// Units in the configuration.
    pub len: usize,
    /// Per cell: the probability a unit is needed (ProbDD), or its counter (CDD).
    pub values: Vec<f32>,
    /// Per cell: whether its units stay (no step removes them any more).
    pub settled: Vec<bool>,
    /// Per cell: whether the step removes a unit of it.
    pub chosen: Vec<bool>,
    /// How many units the step removes.
    pub size: usize,
    /// The expected gain of the step, E(size).
    pub gain: f64,
    /// E(s) for the sizes around `size`.
    pub gains: Vec<(u32, f64)>,
    /// Where each unit is in the current best, when there is one cell per unit and the
    /// algorithm can tell (else empty): lets the tree pane colour the nodes.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub spans: Vec<std::ops::Range<usize>>,
}

/// A stage's place in a schedule: stage `stage` (0-based, in the order written) of `of`, in
/// round `round` (1-based) of the schedule, run `position`-th in that round.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct SchedulePlace {
    pub stage: usize,
    pub of: usize,
    pub round: u32,
    /// Its place in the order of this round (0-based; see [`Event::ScheduleRound`]).
    #[serde(default)]
    pub position: usize,
}

/// Why a stage of a schedule runs where it does in its round.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Placement {
    /// The first round: in the order written.
    Written,
    /// By bytes removed per test in its last run (it removed something).
    Yield,
    /// Its last complete run removed nothing: it stops after `PROBATION_BUDGET` failed tests
    /// in a row.
    Probation,
    /// It ran out of that budget and runs on probation again while others still remove.
    Deferred,
    /// Deferred, and the last round changed nothing: it runs to its end.
    ToTheEnd,
    /// It last ran to its end on this very text without changing it: skipped unless a stage
    /// before it changes the text.
    Known,
    /// It sweeps every token and other files of the case still change: it waits for the
    /// case's settling round (not run).
    Held,
}

impl Placement {
    /// In a few words, for screens.
    pub fn words(self) -> &'static str {
        match self {
            Placement::Written => "as written",
            Placement::Yield => "by yield",
            Placement::Probation => "probation",
            Placement::Deferred => "deferred",
            Placement::ToTheEnd => "to the end",
            Placement::Known => "known",
            Placement::Held => "held",
        }
    }
}

/// A stage's last complete run (not cut short by its budget).
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct LastRun {
    /// Real tests it ran.
    pub tests: u64,
    /// Bytes it removed.
    pub removed: u64,
    /// The best's size when it began.
    pub size: u64,
}

impl LastRun {
    /// Bytes removed per test.
    pub fn yield_per_test(&self) -> f64 {
        self.removed as f64 / self.tests.max(1) as f64
    }
}

/// One stage of a round, in the order the round runs them.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct PlannedStage {
    /// Its place in the schedule as written (0-based).
    pub stage: usize,
    pub name: String,
    pub why: Placement,
    /// Its last complete run (`None` before it ran to its end once).
    pub last: Option<LastRun>,
}

/// What a round of a schedule runs, in order (the stages it ran already with their runs of
/// this round).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct RoundPlan {
    /// The round (1-based).
    pub round: u32,
    /// The round before changed nothing: unless this one changes something, the run's schedule
    /// ends with it.
    pub last_round: bool,
    /// The best's size when the round began.
    #[serde(default)]
    pub size: u64,
    /// Lines and bytes of the best when the plan was published (the guess of a stage that
    /// never ran: a test a line, scaled by the size then).
    #[serde(default)]
    pub lines: u64,
    #[serde(default)]
    pub bytes: u64,
    pub stages: Vec<PlannedStage>,
}

/// What a tree stage does with a set of nodes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum TreePhase {
    /// ddmin over the nodes, removed nodes print their replacement Φ.
    Prune,
    /// TMIN^χ: each node may be replaced by a compatible descendant.
    Hoist,
    /// `replace`: the nodes that may become a shorter text (the whole tree, in document order).
    Replace,
    /// `lift`: the nodes that may become one of their descendants.
    Lift,
    /// `reshape`: the nodes that may take the short form of another kind.
    Reshape,
    /// `rewrite`: the nodes that may be replaced, lifted or reshaped.
    Rewrite,
}

/// Whether a count is zero (left out of the JSON form).
fn is_zero(count: &u32) -> bool {
    *count == 0
}
