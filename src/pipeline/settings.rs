//! The settings of a reduction: everything that decides how it runs.

use serde::Serialize;

use crate::atoms::AtomKind;
use crate::cache::CachePolicy;
use crate::params::{DdOptions, Knobs, ParallelMode, SplitFactor};
use crate::tester::Limits;

use super::Pipeline;

/// Everything that decides how a reduction runs.
#[derive(Clone, Debug, Serialize)]
pub struct Settings {
    /// The ddmin passes, in order (e.g. lines then characters).
    pub atoms: Vec<AtomKind>,
    /// The split factor ν to start with (a [knob](Knobs): the control owns it once the run
    /// starts).
    pub split_factor: SplitFactor,
    pub dd: DdOptions,
    /// Iterate each pass to its fixed point (DDMIN*) instead of running it once.
    pub fixpoint: bool,
    pub cache: CachePolicy,
    /// The most memory the outcome cache may take, in bytes (its estimate; the largest
    /// candidates are evicted first).
    pub cache_memory: usize,
    /// The testing window to start with (a [knob](Knobs)).
    pub jobs: usize,
    /// The parallel mode to start with (a [knob](Knobs)).
    pub parallel: ParallelMode,
    #[serde(skip)]
    pub limits: Limits,
    /// The pipeline (`-a`); `None`: the default for the language.
    pub algorithm: Option<Pipeline>,
    /// The input's language (a name `whittle languages` lists); `None`: unknown.
    pub language: Option<String>,
    /// Skip tree candidates that re-parse with new syntax errors (tree pipelines only).
    pub syntax_guard: bool,
}

impl Default for Settings {
    fn default() -> Self {
        Settings {
            atoms: vec![AtomKind::Line, AtomKind::Char],
            split_factor: SplitFactor::Finite(2),
            dd: DdOptions::default(),
            fixpoint: true,
            cache: CachePolicy::recommended(),
            cache_memory: crate::cache::DEFAULT_MEMORY_LIMIT,
            jobs: 1,
            parallel: ParallelMode::Stable,
            limits: Limits::default(),
            algorithm: None,
            language: None,
            syntax_guard: true,
        }
    }
}

impl Settings {
    /// The starting values of the knobs.
    pub fn knobs(&self) -> Knobs {
        Knobs {
            split_factor: self.split_factor,
            jobs: self.jobs,
            parallel: self.parallel,
        }
    }
}
