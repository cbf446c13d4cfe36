//! Pipelines: stages joined with `+` and run in order on the current best (`hoist+hddh` is the
//! dissertation's Hoist*+HDDH*), a trailing `ddmin` finishing at line/char level, text stages
//! (`tokens`, `brackets`, `rename`, `indent`), and schedules `(a+b+c)*` that rerun their stages
//! to a global fixed point; the default pipelines. Beside them: the settings of a reduction
//! ([`Settings`]) and the plan resolved from them ([`Plan`]), the stages a session runs
//! ([`Stages`], [`PipelineStages`]), the pipelines offered ([`catalogue`]), and pinned byte
//! ranges ([`Pins`], from `crate::algorithms::pins`).

mod belief;
mod catalogue;
mod guard;
mod plan;
mod settings;
mod stages;
mod steps;

pub use crate::algorithms::pins::{Pins, line_range};
pub use belief::run_belief_pass;
pub use catalogue::{
    PipelineInfo, TABLE_7_1, TABLE_7_1_COLUMNS, algorithms_listing, catalogue, table_7_1,
};
pub use guard::{TRIALS, TrialRecord};
pub use plan::Plan;
pub use settings::Settings;
pub use stages::{
    SharedPins, StageContext, Stages, StagesFactory, UnitMinimizer, run_all_stages, run_list_pass,
};
pub use steps::{PipelineStages, run_pipeline, stages_factory};

use std::fmt;
use std::str::FromStr;

use serde::{Serialize, Serializer};

use crate::algorithms::hdd::Algorithm;
use crate::algorithms::passes::TextStage;
use crate::algorithms::rewrite::Rewrite;
use crate::params::BeliefModel;
use crate::text::atoms::AtomKind;
use crate::tree::Language;

/// One stage of a pipeline.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Stage {
    /// A hierarchical algorithm on the parse tree of the current best.
    Tree(Algorithm),
    /// ddmin passes over text units, each to its fixed point: the given atoms, or `--atoms`.
    Ddmin(Option<Vec<AtomKind>>),
    /// ProbDD or CDD passes over text units, like [`Stage::Ddmin`]'s.
    Belief(BeliefModel, Option<Vec<AtomKind>>),
    /// A text stage over tokens (no parse tree needed).
    Text(TextStage),
    /// ddmin over characters when the tests are cheap enough (see [`schedule::polish_cost`]).
    Polish,
    /// `(a+b+c)*`: the stages rerun until none of them changes anything (see [`schedule`]).
    Schedule(Vec<Stage>),
    /// A rewrite of the parse tree of the current best (`replace`, `lift`).
    Rewrite(Rewrite),
}

impl Stage {
    fn is_tree(&self) -> bool {
        match self {
            Stage::Tree(_) | Stage::Rewrite(_) => true,
            Stage::Schedule(stages) => stages.iter().any(Stage::is_tree),
            Stage::Ddmin(_) | Stage::Belief(..) | Stage::Text(_) | Stage::Polish => false,
        }
    }
}

impl fmt::Display for Stage {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Stage::Tree(algorithm) => f.write_str(algorithm.name()),
            Stage::Rewrite(rewrite) => f.write_str(rewrite.name()),
            Stage::Ddmin(None) => f.write_str("ddmin"),
            Stage::Ddmin(Some(atoms)) => {
                let names: Vec<&str> = atoms.iter().map(|atom| atom.name()).collect();
                write!(f, "ddmin:{}", names.join(","))
            }
            Stage::Belief(model, None) => write!(f, "{model}"),
            Stage::Belief(model, Some(atoms)) => {
                let names: Vec<&str> = atoms.iter().map(|atom| atom.name()).collect();
                write!(f, "{model}:{}", names.join(","))
            }
            Stage::Text(stage) => f.write_str(stage.name()),
            Stage::Polish => f.write_str("polish"),
            Stage::Schedule(stages) => write!(f, "({})*", join_stages(stages)),
        }
    }
}

fn join_stages(stages: &[Stage]) -> String {
    let names: Vec<String> = stages.iter().map(Stage::to_string).collect();
    names.join("+")
}

/// Splits `a+(b+c)*+d` at the `+` signs outside parentheses.
fn split_stages(s: &str) -> Result<Vec<&str>, String> {
    let mut parts = Vec::new();
    let mut depth = 0usize;
    let mut start = 0;
    for (i, c) in s.char_indices() {
        match c {
            '(' => depth += 1,
            ')' => {
                depth = depth
                    .checked_sub(1)
                    .ok_or_else(|| format!("unbalanced `)` in `{s}`"))?;
            }
            '+' if depth == 0 => {
                parts.push(&s[start..i]);
                start = i + 1;
            }
            _ => {}
        }
    }
    if depth != 0 {
        return Err(format!("unbalanced `(` in `{s}`"));
    }
    parts.push(&s[start..]);
    Ok(parts)
}

/// Every stage known by its name alone, as the parser looks it up: `ddmin`, the text stages,
/// `polish`, the rewrites and the tree algorithms (besides these, `ddmin:ATOMS` and schedules
/// `(...)*`). Messages list the names from here, so they name every stage the parser takes.
pub fn named_stages() -> Vec<(&'static str, Stage)> {
    let mut stages = vec![("ddmin", Stage::Ddmin(None))];
    stages.extend(
        BeliefModel::ALL
            .iter()
            .map(|&model| (model.name(), Stage::Belief(model, None))),
    );
    stages.extend(
        TextStage::ALL
            .into_iter()
            .map(|stage| (stage.name(), Stage::Text(stage))),
    );
    stages.push(("polish", Stage::Polish));
    stages.extend(
        Rewrite::all()
            .into_iter()
            .map(|rewrite| (rewrite.name(), Stage::Rewrite(rewrite))),
    );
    stages.extend(Algorithm::all().map(|algorithm| (algorithm.name(), Stage::Tree(algorithm))));
    stages
}

/// Parses the stages of `s` joined with `+` (`whole` is the pipeline or schedule they are
/// part of, for messages); a missing stage is said for what it is.
fn parse_stages(s: &str, whole: &str) -> Result<Vec<Stage>, String> {
    let parts = split_stages(s)?;
    let last = parts.len() - 1;
    if let Some(empty) = parts.iter().position(|part| part.trim().is_empty()) {
        return Err(if empty == 0 && last > 0 {
            format!("`{whole}` starts with `+`: a stage is missing before it")
        } else if empty == last && last > 0 {
            format!("`{whole}` ends with `+`: a stage is missing after it")
        } else if last > 0 {
            format!("`{whole}` has an empty stage between two `+` signs")
        } else {
            format!("`{whole}` has no stage")
        });
    }
    parts.into_iter().map(str::parse).collect()
}

impl FromStr for Stage {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        // The papers write fixed points with a star (HDD*): every stage runs to its fixed point.
        let trimmed = s.trim();
        if let Some(inner) = trimmed.strip_prefix('(') {
            let inner = inner
                .strip_suffix(")*")
                .ok_or_else(|| format!("a schedule is written `(a+b+...)*`, not `{trimmed}`"))?;
            if inner.trim().is_empty() {
                return Err(format!(
                    "the schedule `{trimmed}` is empty: name the stages it reruns, e.g. \
                     `(hddhr+ddmin:line)*`"
                ));
            }
            let stages = parse_stages(inner, trimmed)?;
            if stages
                .iter()
                .any(|stage| matches!(stage, Stage::Schedule(_)))
            {
                return Err(format!("schedules do not nest: `{trimmed}`"));
            }
            return Ok(Stage::Schedule(stages));
        }
        let name = trimmed.trim_end_matches('*').to_ascii_lowercase();
        if let Some(atoms) = name.strip_prefix("ddmin:") {
            return AtomKind::parse_list(atoms).map(|atoms| Stage::Ddmin(Some(atoms)));
        }
        for &model in BeliefModel::ALL {
            if let Some(atoms) = name.strip_prefix(&format!("{model}:")) {
                return AtomKind::parse_list(atoms).map(|atoms| Stage::Belief(model, Some(atoms)));
            }
        }
        let stages = named_stages();
        if let Some((_, stage)) = stages.iter().find(|(known, _)| *known == name) {
            return Ok(stage.clone());
        }
        let names: Vec<&str> = stages.iter().map(|(known, _)| *known).collect();
        Err(format!(
            "unknown algorithm `{trimmed}`: a stage is one of {}; or ddmin:ATOMS (e.g. \
             ddmin:line,char, cdd:token); or a schedule `(a+b+...)*` of stages (see `whittle algorithms`)",
            names.join(", ")
        ))
    }
}

/// Stages run one after the other, each on the result of the previous one.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Pipeline {
    stages: Vec<Stage>,
}

impl Pipeline {
    pub fn new(stages: Vec<Stage>) -> Pipeline {
        Pipeline { stages }
    }

    pub fn stages(&self) -> &[Stage] {
        &self.stages
    }

    /// The ddmin passes of `--atoms` alone.
    pub fn ddmin() -> Pipeline {
        Pipeline::new(vec![Stage::Ddmin(None)])
    }

    /// Whether a stage works on the parse tree (the pipeline needs a grammar).
    pub fn needs_tree(&self) -> bool {
        self.stages.iter().any(Stage::is_tree)
    }

    /// Whether a stage is a schedule `(...)*`.
    pub fn has_schedule(&self) -> bool {
        self.stages
            .iter()
            .any(|stage| matches!(stage, Stage::Schedule(_)))
    }

    /// The pipeline run when none is asked for: [`DEFAULT_TREE_PIPELINE`] when the input's
    /// language is known and its grammar compiled in, else [`DEFAULT_TEXT_PIPELINE`]; with
    /// `fast`, [`FAST_TREE_PIPELINE`] or [`FAST_TEXT_PIPELINE`].
    pub fn default_for(language: Option<&Language>, fast: bool) -> Pipeline {
        let tree = language.is_some_and(Language::is_available);
        let name = match (tree, fast) {
            (true, false) => DEFAULT_TREE_PIPELINE,
            (true, true) => FAST_TREE_PIPELINE,
            (false, false) => DEFAULT_TEXT_PIPELINE,
            (false, true) => FAST_TEXT_PIPELINE,
        };
        name.parse().unwrap_or_else(|_| Pipeline::ddmin())
    }
}

/// The default for inputs in a known language (chosen by measurement: `docs/benchmarks.md`).
pub const DEFAULT_TREE_PIPELINE: &str = "(coarse-hddhr-sweep+hddhr-sweep+unbind+variables+typedefs+\
     declarations+declarators+constructors+templates+zeros+receivers+conditions+replace+reshape+lift+\
     inline+ddmin:line+brackets+tokens+rename+indent+runs)*";

/// The default for other inputs.
pub const DEFAULT_TEXT_PIPELINE: &str =
    "(ddmin:block+ddmin:line+brackets+tokens+rename+indent)*+polish";

/// `--fast` for inputs in a known language: the tree pruned by chunk sweeps and hoisted, then
/// lines, rerun while either removes something (a schedule, so with its ddmin: complements
/// only, the last first, greedy windows).
pub const FAST_TREE_PIPELINE: &str = "(hddhr-sweep+ddmin:line)*";

/// `--fast` for other inputs: blocks of lines, then lines, rerun while either removes
/// something (as [`FAST_TREE_PIPELINE`]; characters are left alone: ddmin over the characters
/// of a 4 KB LLVM function took 21,290 tests).
pub const FAST_TEXT_PIPELINE: &str = "(ddmin:block+ddmin:line)*";

impl fmt::Display for Pipeline {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&join_stages(&self.stages))
    }
}

impl FromStr for Pipeline {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        if s.trim().is_empty() {
            return Err("the pipeline is empty (name an algorithm, e.g. `hdd` or `ddmin`)".into());
        }
        let stages = parse_stages(s, s.trim())?;
        Ok(Pipeline { stages })
    }
}

impl Serialize for Pipeline {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_str(self)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_named_stage_parses_and_the_unknown_name_message_lists_them_all() {
        let error = "bogus".parse::<Stage>().unwrap_err();
        for (name, stage) in named_stages() {
            assert_eq!(name.parse::<Stage>().as_ref(), Ok(&stage), "{name}");
            assert_eq!(stage.to_string(), name);
            assert!(
                error.contains(&format!(" {name},")) || error.contains(&format!(" {name};")),
                "{name}: {error}"
            );
        }
        for name in ["tokens", "brackets", "rename", "indent", "inline", "polish"] {
            assert!(
                named_stages().iter().any(|(known, _)| *known == name),
                "{name}"
            );
        }
    }

    #[test]
    fn empty_stages_are_said_for_what_they_are() {
        let error = |s: &str| s.parse::<Pipeline>().unwrap_err();
        assert!(error("hdd++ddmin").contains("empty stage between two `+`"));
        assert!(error("ddmin+").contains("ends with `+`"));
        assert!(error("+ddmin").contains("starts with `+`"));
        assert!(error("()*").contains("the schedule `()*` is empty"));
        assert!(error("hdd+( )*").contains("is empty"));
        assert!(error("(hdd++ddmin)*").contains("`(hdd++ddmin)*` has an empty stage"));
        assert!(error("  ").contains("empty"));
        for s in ["hdd++ddmin", "ddmin+", "+ddmin", "()*", "(+)*", "+"] {
            assert!(!error(s).contains("``"), "{s}: {}", error(s));
        }
    }

    #[test]
    fn pipelines_parse_and_print() {
        let pipeline: Pipeline = "Hoist* + HDDH*+ddmin".parse().unwrap();
        assert_eq!(pipeline.to_string(), "hoist+hddh+ddmin");
        assert_eq!(
            "hdd+ddmin:token".parse::<Pipeline>().unwrap().stages()[1],
            Stage::Ddmin(Some(vec![AtomKind::Token]))
        );
        assert!("hdd+".parse::<Pipeline>().is_err());
        assert!("".parse::<Pipeline>().is_err());
        assert!(
            "hdd+bogus"
                .parse::<Pipeline>()
                .unwrap_err()
                .contains("bogus")
        );
        assert!(!Pipeline::ddmin().needs_tree());
        let schedule: Pipeline = "hdd + (hddhr+ddmin:line + tokens)* + polish"
            .parse()
            .unwrap();
        assert_eq!(
            schedule.to_string(),
            "hdd+(hddhr+ddmin:line+tokens)*+polish"
        );
        assert!(schedule.needs_tree());
        assert!("(tokens+(rename)*)*".parse::<Pipeline>().is_err());
        assert!("(tokens+rename".parse::<Pipeline>().is_err());
        assert!("(tokens)".parse::<Pipeline>().is_err());
    }
}
