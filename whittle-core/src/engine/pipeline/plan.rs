//! The run plan: every choice of a reduction resolved once from the settings (the pipeline, the
//! parallel mode, the language's grammar, ddmin's options, the limits, ...), in
//! [`Plan::resolve`] alone; the engine reads the plan, never the settings' open choices.
//!
//! The knobs of the plan ([`Knobs`]: split factor, testing window, parallel mode) are where a
//! run starts; while it runs its `Control` owns them, and each live switch makes a new version of
//! the plan ([`crate::testing::control::PlanChange`]) that the engine, the statistics and the
//! trace read.

use std::collections::HashSet;
use std::sync::Arc;

use crate::exec::cache::CachePolicy;
use crate::params::{BeliefOptions, DdOptions, Knobs, ParallelMode};
use crate::testing::tester::Limits;
use crate::text::atoms::AtomKind;
use crate::tree::Language;

use super::{Pipeline, Settings};

/// How a reduction runs, with nothing left to decide.
#[derive(Clone, Debug)]
pub struct Plan {
    /// The pipeline that runs: the one asked for, else the language's default.
    pub pipeline: Pipeline,
    /// The input's language as named (`None`: unknown).
    pub language_name: Option<String>,
    /// The input's language when its grammar is compiled in: what tree stages parse with.
    pub language: Option<&'static Language>,
    /// The atoms of a `ddmin` stage that names none.
    pub atoms: Vec<AtomKind>,
    /// ddmin's options outside a schedule, and inside one.
    pub dd: DdOptions,
    pub scheduled_dd: DdOptions,
    pub fixpoint: bool,
    pub cache: CachePolicy,
    pub cache_memory: usize,
    pub limits: Limits,
    /// The syntax guard runs (only for a pipeline that works on the tree).
    pub syntax_guard: bool,
    pub lookahead: bool,
    /// Tree stages keep loops' conditions and updates (`--fast`).
    pub keep_loop_control: bool,
    /// The options of ProbDD and CDD.
    pub belief: BeliefOptions,
    /// The knobs the run starts with (version 0 of the plan).
    pub knobs: Knobs,
    /// Names that code outside the input uses and only the input declares (the other files
    /// of a case, for one file's session): the name check counts them as used.
    pub outside_uses: Option<Arc<HashSet<Box<[u8]>>>>,
}

impl Plan {
    /// Resolves every open choice of `settings`: the pipeline (`-a`, else the default for the
    /// language, `--fast` or not), the language's grammar, and the parallel mode (the one asked
    /// for, else greedy for a pipeline with a schedule, where several interesting edits of a
    /// window go together, and stable for the others).
    pub fn resolve(settings: &Settings) -> Plan {
        let language = settings
            .language
            .as_deref()
            .and_then(|name| Language::by_name(name).ok())
            .filter(|language| language.is_available());
        let pipeline = settings
            .algorithm
            .clone()
            .unwrap_or_else(|| Pipeline::default_for(language, settings.fast));
        let parallel = settings.parallel.unwrap_or(if pipeline.has_schedule() {
            ParallelMode::Greedy
        } else {
            ParallelMode::Stable
        });
        Plan {
            knobs: Knobs {
                split_factor: settings.split_factor,
                jobs: settings.jobs,
                parallel,
            },
            pipeline,
            language_name: settings.language.clone(),
            language,
            atoms: settings.atoms.clone(),
            dd: settings.dd,
            scheduled_dd: settings.scheduled_dd,
            fixpoint: settings.fixpoint,
            cache: settings.cache,
            cache_memory: settings.cache_memory,
            limits: settings.limits,
            syntax_guard: settings.syntax_guard,
            lookahead: settings.lookahead,
            keep_loop_control: settings.fast,
            belief: settings.belief,
            outside_uses: None,
        }
    }

    /// The same plan running `pipeline` instead (a session's switch): the knobs stay with the
    /// running reduction's control.
    pub fn with_pipeline(&self, pipeline: Pipeline) -> Plan {
        Plan {
            pipeline,
            ..self.clone()
        }
    }

    /// The same plan for a file whose declarations of `names` code outside it uses.
    pub fn with_outside_uses(self, names: Option<Arc<HashSet<Box<[u8]>>>>) -> Plan {
        Plan {
            outside_uses: names,
            ..self
        }
    }

    /// Checks before a run that the pipeline can run on the plan's language.
    pub fn check(&self) -> Result<(), String> {
        let pipeline = &self.pipeline;
        if !pipeline.needs_tree() {
            return Ok(());
        }
        match self.language_name.as_deref() {
            None => Err(format!(
                "the pipeline `{pipeline}` works on parse trees, but the input's language is \
                 unknown; name it with --language, or use -a ddmin"
            )),
            Some(name) => {
                let language = Language::by_name(name).map_err(|e| e.to_string())?;
                if language.is_available() {
                    Ok(())
                } else {
                    Err(format!(
                        "the {} grammar is not compiled into this build (cargo feature `{}`); \
                         use -a ddmin",
                        language.name(),
                        language.feature()
                    ))
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::params::SplitFactor;

    fn plan(change: impl FnOnce(&mut Settings)) -> Plan {
        let mut settings = Settings::default();
        change(&mut settings);
        Plan::resolve(&settings)
    }

    #[test]
    fn a_pipeline_with_a_schedule_runs_greedy_unless_a_mode_is_asked_for() {
        let scheduled = |s: &mut Settings| s.algorithm = Some("(ddmin:line)*".parse().unwrap());
        assert_eq!(plan(scheduled).knobs.parallel, ParallelMode::Greedy);
        let asked = plan(|s| {
            scheduled(s);
            s.parallel = Some(ParallelMode::First);
        });
        assert_eq!(asked.knobs.parallel, ParallelMode::First);
        let plain = plan(|s| s.algorithm = Some(Pipeline::ddmin()));
        assert_eq!(plain.knobs.parallel, ParallelMode::Stable);
    }

    #[test]
    fn without_a_pipeline_the_languages_default_runs() {
        // No language: the text default, which has a schedule (so greedy).
        let text = plan(|_| {});
        assert_eq!(
            text.pipeline.to_string(),
            super::super::DEFAULT_TEXT_PIPELINE
        );
        assert_eq!(text.knobs.parallel, ParallelMode::Greedy);
        assert!(text.language.is_none());
        let fast_text = plan(|s| s.fast = true);
        assert_eq!(fast_text.pipeline.to_string(), "(ddmin:block+ddmin:line)*");
        assert_eq!(fast_text.knobs.parallel, ParallelMode::Greedy);
        assert!(fast_text.keep_loop_control);
        let unknown = plan(|s| s.language = Some("no-such-language".into()));
        assert_eq!(
            unknown.pipeline.to_string(),
            super::super::DEFAULT_TEXT_PIPELINE
        );
    }

    #[cfg(feature = "lang-json")]
    #[test]
    fn a_known_language_runs_the_tree_default_and_fast_the_fast_one() {
        let json = plan(|s| s.language = Some("json".into()));
        assert_eq!(
            json.pipeline.to_string(),
            super::super::DEFAULT_TREE_PIPELINE
        );
        assert_eq!(json.language.map(Language::name), Some("json"));
        assert!(json.check().is_ok());
        let fast = plan(|s| {
            s.language = Some("json".into());
            s.fast = true;
        });
        assert_eq!(fast.pipeline.to_string(), super::super::FAST_TREE_PIPELINE);
        assert!(fast.keep_loop_control);
    }

    #[test]
    fn the_starting_knobs_and_fixed_choices_come_from_the_settings() {
        let resolved = plan(|s| {
            s.split_factor = SplitFactor::Infinite;
            s.jobs = 3;
            s.fixpoint = false;
        });
        assert_eq!(resolved.knobs.split_factor, SplitFactor::Infinite);
        assert_eq!(resolved.knobs.jobs, 3);
        assert!(!resolved.fixpoint);
        let tree_without_language = plan(|s| s.algorithm = Some("hdd".parse().unwrap()));
        assert!(
            tree_without_language
                .check()
                .unwrap_err()
                .contains("unknown")
        );
    }
}
