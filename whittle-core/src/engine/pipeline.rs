//! Pipelines: stages joined with `+` and run in order on the current best (`hoist+hddh` is the
//! dissertation's Hoist*+HDDH*), a trailing `ddmin` finishing at line/char level, text stages
//! (`tokens`, `brackets`, `rename`, `indent`), and schedules `(a+b+c)*` that rerun their stages
//! to a global fixed point; the sixteen combinations of Table 7.1; the default pipeline; the
//! settings of a reduction
//! ([`Settings`]), the stages a session runs ([`Stages`], [`PipelineStages`]), the stage runner
//! and the ddmin pass over text units; pinned byte ranges ([`Pins`], from
//! `crate::algorithms::pins`).

mod settings;
mod stages;

pub use crate::algorithms::pins::{Pins, line_range};
pub use settings::Settings;
pub use stages::{SharedPins, StageContext, Stages, StagesFactory, run_all_stages, run_ddmin_pass};

use std::fmt;
use std::str::FromStr;
use std::sync::Arc;

use serde::{Serialize, Serializer};

use crate::algorithms::hdd::{self, Algorithm, PinSource, TreeContext};
use crate::algorithms::passes::{EditOptions, TextStage};
use crate::algorithms::rewrite::{self, Rewrite};
use crate::algorithms::schedule;
use crate::observe::events::Event;
use crate::observe::stats::StageStats;
use crate::params::ParallelMode;
use crate::testing::control::Stop;
use crate::testing::tester::{CandidateGuard, Tester};
use crate::text::atoms::{self, AtomKind};
use crate::tree::{Language, NodeId, SyntaxGuard, Tree};

/// One stage of a pipeline.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Stage {
    /// A hierarchical algorithm on the parse tree of the current best.
    Tree(Algorithm),
    /// ddmin passes over text units, each to its fixed point: the given atoms, or `--atoms`.
    Ddmin(Option<Vec<AtomKind>>),
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
            Stage::Ddmin(_) | Stage::Text(_) | Stage::Polish => false,
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
        let stages = named_stages();
        if let Some((_, stage)) = stages.iter().find(|(known, _)| *known == name) {
            return Ok(stage.clone());
        }
        let names: Vec<&str> = stages.iter().map(|(known, _)| *known).collect();
        Err(format!(
            "unknown algorithm `{trimmed}`: a stage is one of {}; or ddmin:ATOMS (e.g. \
             ddmin:line,char); or a schedule `(a+b+...)*` of stages (see `whittle algorithms`)",
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
    /// `fast`, [`FAST_TREE_PIPELINE`] or ddmin (lines, then characters).
    pub fn default_for(language: Option<&Language>, fast: bool) -> Pipeline {
        let tree = language.is_some_and(Language::is_available);
        let name = match (tree, fast) {
            (true, false) => DEFAULT_TREE_PIPELINE,
            (true, true) => FAST_TREE_PIPELINE,
            (false, false) => DEFAULT_TEXT_PIPELINE,
            (false, true) => return Pipeline::ddmin(),
        };
        name.parse().unwrap_or_else(|_| Pipeline::ddmin())
    }
}

/// The default for inputs in a known language (chosen by measurement: `docs/benchmarks.md`).
pub const DEFAULT_TREE_PIPELINE: &str = "(coarse-hddhr-sweep+hddhr-sweep+unbind+typedefs+declarations+\
     conditions+replace+inline+ddmin:line+brackets+tokens+spans+rename+indent)*";

/// The default for other inputs.
pub const DEFAULT_TEXT_PIPELINE: &str = "(ddmin:line+brackets+tokens+rename+indent)*+polish";

/// `--fast` for inputs in a known language: the tree pruned by chunk sweeps and hoisted, then
/// lines, rerun while either removes something (a schedule, so with its ddmin: complements
/// only, the last first, greedy windows); for other inputs `--fast` runs `ddmin`.
pub const FAST_TREE_PIPELINE: &str = "(hddhr-sweep+ddmin:line)*";

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
        .unwrap_or_else(|| Pipeline::default_for(language_of(settings), settings.fast))
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

/// One stage as a session runs it: a tree algorithm, one ddmin pass, a text stage, or a
/// schedule of such stages.
#[derive(Clone, Debug, PartialEq, Eq)]
enum Step {
    Tree(Algorithm),
    Ddmin(AtomKind),
    Rewrite(Rewrite),
    Text(TextStage),
    Polish,
    Schedule(Vec<Step>),
}

impl Step {
    /// The steps of `stages`: a ddmin stage is one step per kind of atom.
    fn of(stages: &[Stage], settings: &Settings) -> Vec<Step> {
        stages
            .iter()
            .flat_map(|stage| match stage {
                Stage::Tree(algorithm) => vec![Step::Tree(*algorithm)],
                Stage::Rewrite(rewrite) => vec![Step::Rewrite(*rewrite)],
                Stage::Ddmin(atoms) => atoms
                    .as_deref()
                    .unwrap_or(&settings.atoms)
                    .iter()
                    .map(|&atom| Step::Ddmin(atom))
                    .collect(),
                Stage::Text(stage) => vec![Step::Text(*stage)],
                Stage::Polish => vec![Step::Polish],
                Stage::Schedule(stages) => vec![Step::Schedule(Step::of(stages, settings))],
            })
            .collect()
    }

    fn name(&self) -> String {
        match self {
            Step::Tree(algorithm) => algorithm.name().to_owned(),
            Step::Rewrite(rewrite) => rewrite.name().to_owned(),
            Step::Ddmin(atom) => format!("ddmin {atom}"),
            Step::Text(stage) => stage.name().to_owned(),
            Step::Polish => "polish".to_owned(),
            Step::Schedule(steps) => {
                let names: Vec<String> = steps.iter().map(Step::name).collect();
                format!("({})*", names.join("+"))
            }
        }
    }
}

/// The stages of a pipeline as a session runs them: each tree algorithm is a stage, and a ddmin
/// stage is one stage per kind of atom (so `hdd+ddmin` with `--atoms line,char` has three).
pub struct PipelineStages {
    pipeline: Pipeline,
    settings: Settings,
    steps: Vec<Step>,
}

impl PipelineStages {
    pub fn new(pipeline: Pipeline, settings: Settings) -> PipelineStages {
        let steps = Step::of(pipeline.stages(), &settings);
        PipelineStages {
            pipeline,
            settings,
            steps,
        }
    }

    /// The pipeline the settings ask for (see [`pipeline_of`]).
    pub fn from_settings(settings: &Settings) -> PipelineStages {
        PipelineStages::new(pipeline_of(settings), settings.clone())
    }

    /// Runs a stage on the parse tree (a tree algorithm or a rewrite) named `name`.
    fn run_tree(
        &self,
        name: &str,
        tester: &mut Tester,
        context: &StageContext,
        settings: &Settings,
        stage: impl FnOnce(&mut Tester, &TreeContext<'_>) -> Result<(), Stop>,
    ) -> Result<(), Stop> {
        let Some(language) = language_of(&self.settings) else {
            tester.emit(Event::StageSkipped {
                stage: name.to_owned(),
                reason: "the input's language is unknown".into(),
            });
            return Ok(());
        };
        let pins = StagePins(context);
        let tree_context = TreeContext {
            language,
            dd: &settings.dd,
            fixpoint: settings.fixpoint,
            pins: &pins,
            keep_loop_control: settings.fast,
        };
        stage(tester, &tree_context)
    }

    /// Runs one step (the session's stage `index`, or a stage of the schedule that is stage
    /// `index`), recording its statistics. In a schedule (`scheduled`) ddmin runs with
    /// [`Settings::scheduled_dd`].
    fn run_step(
        &self,
        step: &Step,
        index: usize,
        tester: &mut Tester,
        context: &StageContext,
        scheduled: bool,
    ) -> Result<(), Stop> {
        if let Step::Schedule(steps) = step {
            return schedule::run(steps.len(), tester, |inner, round, tester| {
                let step = &steps[inner];
                tester.emit(Event::StageStarted {
                    stage: step.name(),
                    index,
                    scheduled: Some(crate::observe::events::SchedulePlace {
                        stage: inner,
                        of: steps.len(),
                        round,
                    }),
                });
                self.run_step(step, index, tester, context, true)
            })
            .map(|_| ());
        }
        let settings = Settings {
            dd: if scheduled {
                self.settings.scheduled_dd
            } else {
                self.settings.dd
            },
            ..self.settings.clone()
        };
        let started = tester.running_time();
        let tests = tester.stats().tests;
        let before = tester.best().to_vec();
        // Text stages judge what the parser would reject: compilers accept more than the
        // grammars do (C's implicit int, say), and their edits are few and small.
        let guard = if matches!(step, Step::Text(_)) {
            None
        } else {
            self.guard(tester.best())
        };
        let guarded = guard.is_some();
        tester.set_guard(guard);
        let result = match step {
            Step::Tree(algorithm) => {
                let (algorithm, name) = (*algorithm, algorithm.name());
                self.run_tree(name, tester, context, &settings, |tester, tree| {
                    hdd::run(tester, algorithm, tree, name)
                })
            }
            Step::Rewrite(stage) => {
                let (stage, name) = (*stage, stage.name());
                self.run_tree(name, tester, context, &settings, |tester, tree| {
                    rewrite::run(tester, stage, tree, name)
                })
            }
            Step::Ddmin(atom) => run_ddmin_pass(tester, &settings, *atom, &context.current_pins()),
            Step::Text(stage) => stage.run(
                tester,
                language_of(&self.settings),
                &|| context.current_pins(),
                EditOptions {
                    fixpoint: settings.fixpoint,
                    greedy: tester.control().parallel_mode() == ParallelMode::Greedy,
                },
            ),
            Step::Polish => match schedule::polish_cost(tester) {
                Ok(_) => run_ddmin_pass(tester, &settings, AtomKind::Char, &context.current_pins()),
                Err(reason) => {
                    tester.emit(Event::StageSkipped {
                        stage: step.name(),
                        reason,
                    });
                    Ok(())
                }
            },
            Step::Schedule(_) => Ok(()),
        };
        if guarded {
            tester.set_guard(None);
        }
        let run = StageStats {
            tests: tester.stats().tests - tests,
            bytes_removed: before.len().saturating_sub(tester.best().len()) as u64,
            nonws_removed: atoms::non_whitespace_chars(&before)
                .saturating_sub(atoms::non_whitespace_chars(tester.best()))
                as u64,
            seconds: (tester.running_time().saturating_sub(started)).as_secs_f64(),
            ..StageStats::default()
        };
        tester.stats_mut().record_stage(&step.name(), run);
        result
    }

    /// The syntax guard for this pipeline: on for every stage (ddmin passes included) when a
    /// stage works on the tree and the settings do not turn it off.
    fn guard(&self, best: &[u8]) -> Option<Arc<dyn CandidateGuard>> {
        if !self.settings.syntax_guard || !self.pipeline.needs_tree() {
            return None;
        }
        let guard = SyntaxGuard::new(language_of(&self.settings)?, best).ok()?;
        Some(Arc::new(TreeGuard(guard)))
    }
}

impl Stages for PipelineStages {
    fn describe(&self) -> String {
        self.pipeline.to_string()
    }

    fn len(&self) -> usize {
        self.steps.len()
    }

    fn name(&self, index: usize) -> String {
        self.steps[index].name()
    }

    fn run(&self, index: usize, tester: &mut Tester, context: &StageContext) -> Result<(), Stop> {
        self.run_step(&self.steps[index], index, tester, context, false)
    }
}

/// The nodes a tree stage keeps: those overlapping a pinned byte range of the current best,
/// and those the context's node pins name.
struct StagePins<'a>(&'a StageContext);

impl PinSource for StagePins<'_> {
    fn pinned_nodes(&self, tree: &Arc<Tree>) -> Vec<NodeId> {
        let pins = self.0.current_pins();
        let mut nodes: Vec<NodeId> = if pins.is_empty() {
            Vec::new()
        } else {
            tree.ids()
                .filter(|&node| pins.touches(tree.byte_range(node)))
                .collect()
        };
        if let Some(extra) = &self.0.node_pins {
            nodes.extend(extra.pinned_nodes(tree));
        }
        nodes
    }
}

/// The stages of the pipeline `name` (as `-a` takes it), with the other settings.
fn stages_named(settings: &Settings, name: &str) -> anyhow::Result<Box<dyn Stages>> {
    let pipeline: Pipeline = name.parse().map_err(|e: String| anyhow::anyhow!(e))?;
    let settings = Settings {
        algorithm: Some(pipeline.clone()),
        ..settings.clone()
    };
    check(&settings).map_err(|e| anyhow::anyhow!(e))?;
    Ok(Box::new(PipelineStages::new(pipeline, settings)))
}

/// Makes stages from pipeline names, for switching algorithm in a session.
pub fn stages_factory(settings: Settings) -> StagesFactory {
    Box::new(move |name: &str| stages_named(&settings, name))
}

/// Runs the pipeline of `settings` on the tester's current best (which must be interesting),
/// without a session; tree stages keep the nodes `node_pins` names. Stages that cannot run (no
/// grammar) are reported with [`Event::StageSkipped`] and passed over.
pub fn run_pipeline(
    tester: &mut Tester,
    settings: &Settings,
    node_pins: Arc<dyn PinSource>,
) -> Result<(), Stop> {
    let context = StageContext {
        node_pins: Some(node_pins),
        ..StageContext::default()
    };
    run_all_stages(&PipelineStages::from_settings(settings), tester, &context)
}

/// A pipeline the user can switch to.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PipelineInfo {
    /// What `-a` and a session's switch take.
    pub name: String,
    pub description: String,
}

/// The pipelines offered for switching: the ddmin passes, each tree algorithm alone, and the
/// sixteen pipelines of Table 7.1 (tree entries only when `tree` is true, i.e. the input's
/// language is known).
pub fn catalogue(tree: bool) -> Vec<PipelineInfo> {
    let mut entries: Vec<PipelineInfo> = [
        ("ddmin", "ddmin over the --atoms passes (default lines, then characters), each to its fixed point"),
        ("ddmin:line", "ddmin over lines, to its fixed point (DDMIN*)"),
        ("ddmin:char", "ddmin over characters, to its fixed point"),
        ("ddmin:token", "ddmin over tokens (words and punctuation), to its fixed point"),
    ]
    .into_iter()
    .map(|(name, description)| PipelineInfo {
        name: name.into(),
        description: description.into(),
    })
    .collect();
    let text_default = PipelineInfo {
        name: DEFAULT_TEXT_PIPELINE.into(),
        description: "the default for other inputs: lines and the text stages to a fixed point"
            .into(),
    };
    entries.push(text_default);
    // `inline` reads the parse tree: only where there is one.
    for stage in TextStage::ALL
        .into_iter()
        .filter(|&stage| tree || !stage.needs_grammar())
    {
        entries.push(PipelineInfo {
            name: stage.name().into(),
            description: stage.description().into(),
        });
    }
    if tree {
        entries.insert(
            0,
            PipelineInfo {
                name: DEFAULT_TREE_PIPELINE.into(),
                description: "the default for known languages (see docs/benchmarks.md)".into(),
            },
        );
        entries.insert(
            1,
            PipelineInfo {
                name: FAST_TREE_PIPELINE.into(),
                description:
                    "--fast: the tree pruned by chunk sweeps, then lines; no text stages, loops' \
                     conditions and updates kept, a tighter timeout (a fraction of the tests)"
                        .into(),
            },
        );
        for algorithm in Algorithm::all() {
            entries.push(PipelineInfo {
                name: algorithm.name().into(),
                description: format!("{} ({})", algorithm.description(), algorithm.figure()),
            });
        }
        for rewrite in Rewrite::all() {
            entries.push(PipelineInfo {
                name: rewrite.name().into(),
                description: rewrite.description().into(),
            });
        }
        for (row, names) in TABLE_7_1.iter().enumerate() {
            for (column, name) in names.iter().enumerate() {
                // Algorithms alone are listed above (the first column, and HDDH's interlacing).
                if entries.iter().any(|entry| entry.name == *name) {
                    continue;
                }
                entries.push(PipelineInfo {
                    name: (*name).into(),
                    description: format!(
                        "{}: Table 7.1, row {}, {}",
                        paper_name(name),
                        row + 1,
                        TABLE_7_1_COLUMNS[column]
                    ),
                });
            }
        }
    }
    entries
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
    out.push_str("\nRewrite stages (each to its fixed point; best after a tree algorithm):\n");
    for rewrite in Rewrite::all() {
        out.push_str(&format!(
            "  {:<14} {:<16} {}\n",
            rewrite.name(),
            rewrite.title(),
            rewrite.description()
        ));
    }
    out.push_str(
        "\nText stages (over tokens, each to its fixed point; only `inline` needs the grammar):\n",
    );
    for stage in TextStage::ALL {
        out.push_str(&format!("  {:<14} {}\n", stage.name(), stage.description()));
    }
    out.push_str(&format!(
        "  {:<14} {}\n",
        "polish", "ddmin over characters, skipped when the tests are too slow for it"
    ));
    out.push_str(
        "\nPipelines join stages with `+` and run them in order; `ddmin` (or `ddmin:token`, \
         `ddmin:line,char`, ...)\nmay finish at text level. `(a+b+c)*` reruns its stages until \
         none changes anything (the most\nproductive per test first; a stage that changed \
         nothing last time is deferred after 25 failed tests\nin a row). The sixteen of Table \
         7.1:\n",
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
        "\nDefault: `{DEFAULT_TREE_PIPELINE}` when the input's language is known, else \
         `{DEFAULT_TEXT_PIPELINE}`.\nWith --fast: `{FAST_TREE_PIPELINE}`, else `ddmin` (lines, \
         then characters).\n"
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
            Stage::Rewrite(rewrite) => rewrite.title().to_owned(),
            Stage::Ddmin(_) => "DDMIN*".to_owned(),
            other => other.to_string(),
        })
        .collect();
    titles.join(" + ")
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

    #[test]
    fn the_catalogue_names_pipelines_that_parse() {
        let with_trees = catalogue(true);
        assert!(with_trees.len() > catalogue(false).len());
        for entry in with_trees {
            assert!(entry.name.parse::<Pipeline>().is_ok(), "{}", entry.name);
        }
        assert!(
            catalogue(false)
                .iter()
                .all(|e| !e.name.parse::<Pipeline>().unwrap().needs_tree())
        );
    }

    #[test]
    fn the_catalogue_lists_each_pipeline_once() {
        let entries = catalogue(true);
        for (i, entry) in entries.iter().enumerate() {
            assert!(
                entries[i + 1..]
                    .iter()
                    .all(|other| other.name != entry.name),
                "{} is listed twice",
                entry.name
            );
        }
        for name in TABLE_7_1.iter().flatten() {
            assert!(entries.iter().any(|entry| entry.name == *name), "{name}");
        }
    }

    #[test]
    fn table_7_1_has_sixteen_distinct_pipelines() {
        let all = table_7_1();
        assert_eq!(all.len(), 16);
        for (i, a) in all.iter().enumerate() {
            assert!(all[i + 1..].iter().all(|b| b != a), "{a} twice");
            assert!(a.needs_tree());
        }
        for default in [
            DEFAULT_TREE_PIPELINE,
            DEFAULT_TEXT_PIPELINE,
            FAST_TREE_PIPELINE,
        ] {
            let pipeline = default.parse::<Pipeline>().unwrap();
            assert_eq!(pipeline.to_string(), default);
        }
        assert!(
            !DEFAULT_TEXT_PIPELINE
                .parse::<Pipeline>()
                .unwrap()
                .needs_tree()
        );
        let listing = algorithms_listing();
        for name in TABLE_7_1.iter().flatten() {
            assert!(listing.contains(name), "{name} missing");
        }
        assert!(listing.contains("Coarse Hoist^r* + Coarse HDDH^r*"));
    }
}
