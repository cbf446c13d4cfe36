//! The settings of a reduction as the user gives them: choices left open (`None`: the default)
//! are resolved once, into a [`Plan`].

use serde::Serialize;

use crate::exec::cache::CachePolicy;
use crate::params::{BeliefOptions, DdOptions, ParallelMode, SplitFactor};
use crate::testing::tester::Limits;
use crate::text::atoms::AtomKind;

use super::{Pipeline, Plan};

/// Everything that decides how a reduction runs.
#[derive(Clone, Debug, Serialize)]
pub struct Settings {
    /// The ddmin passes, in order (e.g. lines then characters).
    pub atoms: Vec<AtomKind>,
    /// The split factor ν to start with (a [knob](crate::params::Knobs): the control owns it once the run
    /// starts).
    pub split_factor: SplitFactor,
    pub dd: DdOptions,
    /// ddmin's options inside a schedule `(...)*` (tree levels, lines, characters): by default
    /// complements only, the last first. A schedule reruns its stages to a fixed point, so most of ddmin's work
    /// there is showing that nothing more goes, where subsets never help.
    pub scheduled_dd: DdOptions,
    /// The options of ProbDD and CDD (`probdd:ATOMS`, `cdd:ATOMS`, `hddr-cdd`, ...).
    pub belief: BeliefOptions,
    /// Iterate each pass to its fixed point (DDMIN*) instead of running it once.
    pub fixpoint: bool,
    pub cache: CachePolicy,
    /// The most memory the outcome cache may take, in bytes (its estimate; the largest
    /// candidates are evicted first).
    pub cache_memory: usize,
    /// The testing window to start with (a [knob](crate::params::Knobs)).
    pub jobs: usize,
    /// The parallel mode to start with (a [knob](crate::params::Knobs)); `None`: greedy when the pipeline has a
    /// schedule (several interesting edits of a window go together: fewer tests at the same
    /// sizes), else stable.
    pub parallel: Option<ParallelMode>,
    #[serde(skip)]
    pub limits: Limits,
    /// The pipeline (`-a`); `None`: the default for the language.
    pub algorithm: Option<Pipeline>,
    /// Without a pipeline: the fast default (no text stages, no schedule).
    pub fast: bool,
    /// The input's language (a name `whittle languages` lists); `None`: unknown.
    pub language: Option<String>,
    /// Skip tree candidates that re-parse with new syntax errors (tree pipelines only).
    pub syntax_guard: bool,
    /// Idle workers test ahead what a tree stage judges next (see [`crate::testing::ahead`]).
    pub lookahead: bool,
}

impl Default for Settings {
    fn default() -> Self {
        Settings {
            atoms: vec![AtomKind::Line, AtomKind::Char],
            split_factor: SplitFactor::Finite(2),
            dd: DdOptions::default(),
            scheduled_dd: DdOptions::scheduled(),
            belief: BeliefOptions::default(),
            fixpoint: true,
            cache: CachePolicy::recommended(),
            cache_memory: crate::exec::cache::DEFAULT_MEMORY_LIMIT,
            jobs: 1,
            parallel: None,
            limits: Limits::default(),
            algorithm: None,
            fast: false,
            language: None,
            syntax_guard: true,
            lookahead: true,
        }
    }
}

impl Settings {
    /// The plan these settings ask for, every open choice resolved (see [`Plan::resolve`]).
    pub fn resolve(&self) -> Plan {
        Plan::resolve(self)
    }
}
