//! Pipelines: stages joined with `+` and run in order on the current best (`hoist+hddh` is the
//! dissertation's Hoist*+HDDH*), a trailing `ddmin` finishing at line/char level; the sixteen
//! combinations of Table 7.1; the default pipeline; and the stage runner.

use std::fmt;
use std::str::FromStr;
use std::sync::Arc;

use serde::{Serialize, Serializer};

use crate::atoms::AtomKind;
use crate::control::Stop;
use crate::events::Event;
use crate::hdd::{self, Algorithm, NoPins, PinSource, TreeContext};
use crate::reduce::{Settings, run_ddmin_pass};
use crate::tester::{CandidateGuard, Tester};
use crate::tree::{Language, SyntaxGuard};

/// One stage of a pipeline.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Stage {
    /// A hierarchical algorithm on the parse tree of the current best.
    Tree(Algorithm),
    /// ddmin passes over text units, each to its fixed point: the given atoms, or `--atoms`.
    Ddmin(Option<Vec<AtomKind>>),
}

impl Stage {
    fn is_tree(&self) -> bool {
        matches!(self, Stage::Tree(_))
    }
}

impl fmt::Display for Stage {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Stage::Tree(algorithm) => f.write_str(algorithm.name()),
            Stage::Ddmin(None) => f.write_str("ddmin"),
            Stage::Ddmin(Some(atoms)) => {
                let names: Vec<&str> = atoms.iter().map(|atom| atom.name()).collect();
                write!(f, "ddmin:{}", names.join(","))
            }
        }
    }
}

impl FromStr for Stage {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        // The papers write fixed points with a star (HDD*): every stage runs to its fixed point.
        let name = s.trim().trim_end_matches('*').to_ascii_lowercase();
        if name == "ddmin" {
            return Ok(Stage::Ddmin(None));
        }
        if let Some(atoms) = name.strip_prefix("ddmin:") {
            return AtomKind::parse_list(atoms).map(|atoms| Stage::Ddmin(Some(atoms)));
        }
        name.parse().map(Stage::Tree)
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

    /// The pipeline run when none is asked for: [`DEFAULT_TREE_PIPELINE`] when the input's
    /// language is known and its grammar compiled in, else ddmin (lines, then characters).
    pub fn default_for(language: Option<&Language>) -> Pipeline {
        match language {
            Some(language) if language.is_available() => DEFAULT_TREE_PIPELINE
                .parse()
                .unwrap_or_else(|_| Pipeline::ddmin()),
            _ => Pipeline::ddmin(),
        }
    }
}

/// The default for inputs in a known language (chosen by measurement: `docs/benchmarks.md`).
pub const DEFAULT_TREE_PIPELINE: &str = "hddhr+ddmin:line";

impl fmt::Display for Pipeline {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, stage) in self.stages.iter().enumerate() {
            if i > 0 {
                f.write_str("+")?;
            }
            write!(f, "{stage}")?;
        }
        Ok(())
    }
}

impl FromStr for Pipeline {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        if s.trim().is_empty() {
            return Err("the pipeline is empty (name an algorithm, e.g. `hdd` or `ddmin`)".into());
        }
        let stages = s
            .split('+')
            .map(str::parse)
            .collect::<Result<Vec<Stage>, String>>()?;
        Ok(Pipeline { stages })
    }
}

impl Serialize for Pipeline {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_str(self)
    }
}

/// Table 7.1 of the dissertation: per HDD variant (rows), the variant alone, hoisting as
/// preprocessing, hoisting interlaced, and both. (The coarse rows are coarse throughout.)
pub const TABLE_7_1: [[&str; 4]; 4] = [
    ["hdd", "hoist+hdd", "hddh", "hoist+hddh"],
    ["hddr", "hoistr+hddr", "hddhr", "hoistr+hddhr"],
    [
        "coarse-hdd",
        "coarse-hoist+coarse-hdd",
        "coarse-hddh",
        "coarse-hoist+coarse-hddh",
    ],
    [
        "coarse-hddr",
        "coarse-hoistr+coarse-hddr",
        "coarse-hddhr",
        "coarse-hoistr+coarse-hddhr",
    ],
];

/// The column titles of [`TABLE_7_1`].
pub const TABLE_7_1_COLUMNS: [&str; 4] = [
    "alone",
    "preprocessing",
    "interlacing",
    "preprocessing & interlacing",
];

/// The sixteen pipelines of Table 7.1, row by row.
pub fn table_7_1() -> Vec<Pipeline> {
    TABLE_7_1
        .iter()
        .flatten()
        .filter_map(|name| name.parse().ok())
        .collect()
}

/// What a running pipeline may be given from outside.
#[derive(Clone)]
pub struct Hooks {
    /// Nodes that tree stages must keep (asked again at each parse).
    pub pins: Arc<dyn PinSource>,
}

impl Default for Hooks {
    fn default() -> Self {
        Hooks {
            pins: Arc::new(NoPins),
        }
    }
}

/// The language named in the settings, when its grammar is compiled in.
pub fn language_of(settings: &Settings) -> Option<&'static Language> {
    let language = Language::by_name(settings.language.as_deref()?).ok()?;
    language.is_available().then_some(language)
}

/// The pipeline the settings ask for (the default for their language when none is named).
pub fn pipeline_of(settings: &Settings) -> Pipeline {
    settings
        .algorithm
        .clone()
        .unwrap_or_else(|| Pipeline::default_for(language_of(settings)))
}

/// Checks before a run that the pipeline can run on the settings' language.
pub fn check(settings: &Settings) -> Result<(), String> {
    let pipeline = pipeline_of(settings);
    if !pipeline.needs_tree() {
        return Ok(());
    }
    match settings.language.as_deref() {
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

/// The syntax guard as the tester's candidate guard.
struct TreeGuard(SyntaxGuard);

impl CandidateGuard for TreeGuard {
    fn admits(&self, candidate: &[u8]) -> bool {
        self.0.admits(candidate)
    }

    fn rebase(&self, best: &[u8]) {
        self.0.rebase(best);
    }
}

/// Runs the pipeline of `settings` on the tester's current best (which must be interesting).
/// Tree stages run with the syntax guard unless the settings turn it off; stages that cannot
/// run (no grammar) are reported with [`Event::StageSkipped`] and passed over.
pub fn run_pipeline(tester: &mut Tester, settings: &Settings, hooks: &Hooks) -> Result<(), Stop> {
    let pipeline = pipeline_of(settings);
    let language = language_of(settings);
    let guarded = settings.syntax_guard && pipeline.needs_tree();
    if guarded
        && let Some(language) = language
        && let Ok(guard) = SyntaxGuard::new(language, tester.best())
    {
        tester.set_guard(Some(Arc::new(TreeGuard(guard))));
    }
    let result = run_stages(tester, settings, hooks, &pipeline, language);
    if guarded {
        tester.set_guard(None);
    }
    result
}

fn run_stages(
    tester: &mut Tester,
    settings: &Settings,
    hooks: &Hooks,
    pipeline: &Pipeline,
    language: Option<&'static Language>,
) -> Result<(), Stop> {
    for (index, stage) in pipeline.stages().iter().enumerate() {
        match stage {
            Stage::Ddmin(atoms) => {
                let atoms = atoms.as_deref().unwrap_or(&settings.atoms);
                for &atom in atoms {
                    run_ddmin_pass(tester, settings, atom, &format!("ddmin {atom}"), index)?;
                }
            }
            Stage::Tree(algorithm) => {
                let name = algorithm.name();
                tester.emit(Event::StageStarted {
                    stage: name.to_owned(),
                    index,
                });
                let Some(language) = language else {
                    tester.emit(Event::StageSkipped {
                        stage: name.to_owned(),
                        reason: "the input's language is unknown".into(),
                    });
                    continue;
                };
                let context = TreeContext {
                    language,
                    dd: &settings.dd,
                    fixpoint: settings.fixpoint,
                    pins: hooks.pins.as_ref(),
                };
                hdd::run(tester, *algorithm, &context, name)?;
            }
        }
    }
    Ok(())
}

/// `whittle algorithms`: every algorithm and the sixteen pipelines of Table 7.1.
pub fn algorithms_listing() -> String {
    let mut out = String::new();
    out.push_str("Algorithms (each runs to its fixed point unless --no-fixpoint):\n");
    out.push_str(&format!(
        "  {:<14} {:<16} {:<26} {}\n",
        "ddmin", "DDMIN*", "Fig. 2.1, ch. 5", "line/char/token passes (--atoms), each ddmin^ν"
    ));
    for algorithm in Algorithm::all() {
        out.push_str(&format!(
            "  {:<14} {:<16} {:<26} {}\n",
            algorithm.name(),
            algorithm.title(),
            algorithm.figure(),
            algorithm.description()
        ));
    }
    out.push_str(
        "\nPipelines join stages with `+` and run them in order; `ddmin` (or `ddmin:token`, \
         `ddmin:line,char`, ...)\nmay finish at text level. The sixteen of Table 7.1:\n",
    );
    for row in TABLE_7_1 {
        for (column, pipeline) in TABLE_7_1_COLUMNS.iter().zip(row) {
            out.push_str(&format!(
                "  {:<28} {:<32} {}\n",
                pipeline,
                paper_name(pipeline),
                column
            ));
        }
    }
    out.push_str(&format!(
        "\nDefault: `{DEFAULT_TREE_PIPELINE}` when the input's language is known, else `ddmin` \
         (lines, then characters).\n"
    ));
    out
}

/// The dissertation's name of a pipeline (`Hoist* + HDDH*`).
fn paper_name(pipeline: &str) -> String {
    let Ok(pipeline) = pipeline.parse::<Pipeline>() else {
        return String::new();
    };
    let titles: Vec<String> = pipeline
        .stages()
        .iter()
        .map(|stage| match stage {
            Stage::Tree(algorithm) => algorithm.title().to_owned(),
            Stage::Ddmin(_) => "DDMIN*".to_owned(),
        })
        .collect();
    titles.join(" + ")
}

#[cfg(test)]
mod tests {
    use super::*;

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
    }

    #[test]
    fn table_7_1_has_sixteen_distinct_pipelines() {
        let all = table_7_1();
        assert_eq!(all.len(), 16);
        for (i, a) in all.iter().enumerate() {
            assert!(all[i + 1..].iter().all(|b| b != a), "{a} twice");
            assert!(a.needs_tree());
        }
        assert!(DEFAULT_TREE_PIPELINE.parse::<Pipeline>().is_ok());
        let listing = algorithms_listing();
        for name in TABLE_7_1.iter().flatten() {
            assert!(listing.contains(name), "{name} missing");
        }
        assert!(listing.contains("Coarse Hoist^r* + Coarse HDDH^r*"));
    }
}
