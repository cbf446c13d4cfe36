//! The stages of a pipeline as a session runs them ([`PipelineStages`]): a ddmin stage is one
//! step per kind of atom, a schedule one step that reruns its own; each step runs under the
//! syntax guard (tree pipelines) and records its statistics. Also the switch to another
//! pipeline by name and the run of a whole pipeline without a session.

use std::sync::Arc;

use crate::algorithms::hdd::{self, Algorithm, PinSource, TreeContext};
use crate::algorithms::passes::{EditOptions, TextStage};
use crate::algorithms::rewrite::{self, Rewrite};
use crate::algorithms::schedule::{self, ScheduledStage};
use crate::observe::events::Event;
use crate::observe::stats::StageStats;
use crate::params::{BeliefModel, DdOptions, ParallelMode};
use crate::testing::control::Stop;
use crate::testing::tester::{CandidateGuard, Tester};
use crate::text::atoms::{self, AtomKind};
use crate::tree::{NodeId, SyntaxGuard, Tree};

use super::guard::{OnTrial, TreeGuard, TrialRecord};

use super::{Pipeline, Plan, Settings, Stage, StageContext, Stages, StagesFactory};
use super::{UnitMinimizer, run_all_stages, run_belief_pass, run_list_pass};

/// One stage as a session runs it: a tree algorithm, one ddmin pass, a text stage, or a
/// schedule of such stages.
#[derive(Clone, Debug, PartialEq, Eq)]
enum Step {
    Tree(Algorithm),
    Ddmin(AtomKind),
    Belief(BeliefModel, AtomKind),
    Rewrite(Rewrite),
    Text(TextStage),
    Polish,
    Schedule(Vec<Step>),
}

impl Step {
    /// The steps of `stages`: a ddmin stage is one step per kind of atom.
    fn of(stages: &[Stage], default_atoms: &[AtomKind]) -> Vec<Step> {
        stages
            .iter()
            .flat_map(|stage| match stage {
                Stage::Tree(algorithm) => vec![Step::Tree(*algorithm)],
                Stage::Rewrite(rewrite) => vec![Step::Rewrite(*rewrite)],
                Stage::Ddmin(atoms) => atoms
                    .as_deref()
                    .unwrap_or(default_atoms)
                    .iter()
                    .map(|&atom| Step::Ddmin(atom))
                    .collect(),
                Stage::Belief(model, atoms) => atoms
                    .as_deref()
                    .unwrap_or(default_atoms)
                    .iter()
                    .map(|&atom| Step::Belief(*model, atom))
                    .collect(),
                Stage::Text(stage) => vec![Step::Text(*stage)],
                Stage::Polish => vec![Step::Polish],
                Stage::Schedule(stages) => vec![Step::Schedule(Step::of(stages, default_atoms))],
            })
            .collect()
    }

    fn name(&self) -> String {
        match self {
            Step::Tree(algorithm) => algorithm.name().to_owned(),
            Step::Rewrite(rewrite) => rewrite.name().to_owned(),
            Step::Ddmin(atom) => format!("ddmin {atom}"),
            Step::Belief(model, atom) => format!("{model} {atom}"),
            Step::Text(stage) => stage.name().to_owned(),
            Step::Polish => "polish".to_owned(),
            Step::Schedule(steps) => {
                let names: Vec<String> = steps.iter().map(Step::name).collect();
                format!("({})*", names.join("+"))
            }
        }
    }

    /// Whether it proposes an edit at (nearly) every token or node of the text, so that its
    /// runs cost more the larger the text (see [`ScheduledStage::sweeps_tokens`]).
    fn sweeps_tokens(&self) -> bool {
        match self {
            Step::Rewrite(_) => true,
            Step::Text(stage) => stage.sweeps_tokens(),
            Step::Tree(_)
            | Step::Ddmin(_)
            | Step::Belief(..)
            | Step::Polish
            | Step::Schedule(_) => false,
        }
    }
}

/// The stages of a pipeline as a session runs them: each tree algorithm is a stage, and a ddmin
/// stage is one stage per kind of atom (so `hdd+ddmin` with `--atoms line,char` has three).
pub struct PipelineStages {
    plan: Plan,
    steps: Vec<Step>,
    /// What the settling rounds found of the syntax guard (see [`super::guard`]): whether the
    /// text stages use it there, or nowhere (it rejected what the test accepts).
    guard_trial: Arc<TrialRecord>,
}

impl PipelineStages {
    /// The stages of the plan's pipeline.
    /// How many stages a session of `plan` runs (as [`Stages::len`] of its stages).
    pub fn stage_count(plan: &Plan) -> usize {
        Step::of(plan.pipeline.stages(), &plan.atoms).len()
    }

    pub fn new(plan: Plan) -> PipelineStages {
        PipelineStages::sharing_trial(plan, Arc::default())
    }

    /// The stages of the plan's pipeline, their guard's trial kept in `guard_trial` (what
    /// earlier sessions of the same test and language found of it).
    pub fn sharing_trial(plan: Plan, guard_trial: Arc<TrialRecord>) -> PipelineStages {
        let steps = Step::of(plan.pipeline.stages(), &plan.atoms);
        PipelineStages {
            plan,
            steps,
            guard_trial,
        }
    }

    /// Runs a stage on the parse tree (a tree algorithm or a rewrite) named `name`.
    fn run_tree(
        &self,
        name: &str,
        tester: &mut Tester,
        context: &StageContext,
        dd: &DdOptions,
        stage: impl FnOnce(&mut Tester, &TreeContext<'_>) -> Result<(), Stop>,
    ) -> Result<(), Stop> {
        let Some(language) = self.plan.language else {
            tester.emit(Event::StageSkipped {
                stage: name.to_owned(),
                reason: "the input's language is unknown".into(),
            });
            return Ok(());
        };
        let pins = StagePins(context);
        let tree_context = TreeContext {
            language,
            dd,
            belief: &self.plan.belief,
            fixpoint: self.plan.fixpoint,
            pins: &pins,
            keep_loop_control: self.plan.keep_loop_control,
        };
        stage(tester, &tree_context)
    }

    /// Runs one step (the session's stage `index`, or a stage of the schedule that is stage
    /// `index`), recording its statistics. In a schedule (`scheduled`) ddmin runs with
    /// [`Plan::scheduled_dd`].
    fn run_step(
        &self,
        step: &Step,
        index: usize,
        tester: &mut Tester,
        context: &StageContext,
        scheduled: bool,
    ) -> Result<(), Stop> {
        if let Step::Schedule(steps) = step {
            let stages = scheduled_stages(steps);
            return schedule::run_named(&stages, tester, |place, tester| {
                let step = &steps[place.stage];
                tester.emit(Event::StageStarted {
                    stage: step.name(),
                    index,
                    scheduled: Some(place),
                });
                self.run_step(step, index, tester, context, true)
            })
            .map(|_| ());
        }
        let dd = if scheduled {
            self.plan.scheduled_dd
        } else {
            self.plan.dd
        };
        let started = tester.running_time();
        let tests = tester.stats().tests;
        let wasted = tester.stats().wasted;
        let skipped = tester.recall().all_skipped();
        let before = tester.best().to_vec();
        let text = matches!(step, Step::Text(_));
        let (guard, trial) = self.step_guard(text, tester);
        let guarded = guard.is_some();
        let likely_only = guarded && text && tester.recall().skipping();
        let guard_skips = tester.stats().guard_skips;
        tester.set_guard(guard);
        let result = self.run_single(step, tester, context, &dd);
        if guarded {
            tester.set_guard(None);
        }
        if likely_only {
            // What the guard rejected is still to be tried in the round that settles.
            let rejected = tester.stats().guard_skips - guard_skips;
            tester.recall_mut().count_skipped(rejected);
        }
        if let Some(trial) = trial {
            trial.conclude(&self.guard_trial);
        }
        let run = StageStats {
            tests: tester.stats().tests - tests,
            bytes_removed: before.len().saturating_sub(tester.best().len()) as u64,
            nonws_removed: atoms::non_whitespace_chars(&before)
                .saturating_sub(atoms::non_whitespace_chars(tester.best()))
                as u64,
            seconds: (tester.running_time().saturating_sub(started)).as_secs_f64(),
            skipped: tester.recall().all_skipped() - skipped,
            wasted: tester.stats().wasted - wasted,
            ..StageStats::default()
        };
        tester.stats_mut().record_stage(&step.name(), run);
        result
    }

    /// Runs a step that is no schedule, with ddmin's options `dd`.
    fn run_single(
        &self,
        step: &Step,
        tester: &mut Tester,
        context: &StageContext,
        dd: &DdOptions,
    ) -> Result<(), Stop> {
        let fixpoint = self.plan.fixpoint;
        match step {
            Step::Tree(algorithm) => {
                let (algorithm, name) = (*algorithm, algorithm.name());
                self.run_tree(name, tester, context, dd, |tester, tree| {
                    hdd::run(tester, algorithm, tree, name)
                })
            }
            Step::Rewrite(stage) => {
                let (stage, name) = (*stage, stage.name());
                self.run_tree(name, tester, context, dd, |tester, tree| {
                    rewrite::run(tester, stage, tree, name)
                })
            }
            Step::Ddmin(atom) => run_list_pass(
                tester,
                UnitMinimizer::Ddmin(dd),
                fixpoint,
                *atom,
                &context.current_pins(),
            ),
            Step::Belief(model, atom) => run_belief_pass(
                tester,
                &self.plan.belief,
                fixpoint,
                *model,
                *atom,
                &context.current_pins(),
            ),
            Step::Text(stage) => stage.run(
                tester,
                self.plan.language,
                &|| context.current_pins(),
                EditOptions {
                    fixpoint,
                    greedy: tester.control().parallel_mode() == ParallelMode::Greedy,
                },
            ),
            Step::Polish => match schedule::polish_cost(tester) {
                Ok(_) => polish(tester, fixpoint, &context.current_pins()),
                Err(reason) => {
                    tester.emit(Event::StageSkipped {
                        stage: step.name(),
                        reason,
                    });
                    Ok(())
                }
            },
            Step::Schedule(_) => Ok(()),
        }
    }

    /// The syntax guard of a step (`text`: a text stage) on the current best, and its trial
    /// when it is on one. Text stages judge what the parser would reject: compilers accept
    /// more than the grammars do (C's implicit int, say), and their edits are few and small.
    /// While a schedule runs on what is likely to pass (before the round that settles it),
    /// they skip those too (most of them fail); in the round that settles, they test them
    /// until the guard passes its trial ([`super::guard`]). Never where the language's
    /// compilers are known to accept much that its grammar rejects, nor once a text stage
    /// reached a text the guard rejects.
    fn step_guard(
        &self,
        text: bool,
        tester: &Tester,
    ) -> (Option<Arc<dyn CandidateGuard>>, Option<Arc<OnTrial>>) {
        let misjudges = self.guard_trial.misjudges()
            || self
                .plan
                .language
                .is_some_and(|language| !language.guards_text_edits());
        let guard = match self.tree_guard(tester.best()) {
            Some(guard) if !(text && misjudges) => guard,
            _ => return (None, None),
        };
        if !text || tester.recall().skipping() || self.guard_trial.trusted() {
            return (Some(Arc::new(guard)), None);
        }
        let trial = Arc::new(OnTrial::new(guard));
        (Some(trial.clone()), Some(trial))
    }

    /// The syntax guard for this pipeline: on for every stage (ddmin passes included) when a
    /// stage works on the tree and the plan does not turn it off.
    fn tree_guard(&self, best: &[u8]) -> Option<TreeGuard> {
        if !self.plan.syntax_guard || !self.plan.pipeline.needs_tree() {
            return None;
        }
        let guard = SyntaxGuard::new(self.plan.language?, best).ok()?;
        Some(TreeGuard(
            guard.with_outside_uses(self.plan.outside_uses.clone()),
        ))
    }
}

impl Stages for PipelineStages {
    fn describe(&self) -> String {
        self.plan.pipeline.to_string()
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

/// The stages of the pipeline `name` (as `-a` takes it), with the rest of `plan`.
fn stages_named(plan: &Plan, name: &str) -> anyhow::Result<Box<dyn Stages>> {
    let pipeline: Pipeline = name.parse().map_err(|e: String| anyhow::anyhow!(e))?;
    let plan = plan.with_pipeline(pipeline);
    plan.check().map_err(|e| anyhow::anyhow!(e))?;
    Ok(Box::new(PipelineStages::new(plan)))
}

/// Makes stages from pipeline names, for switching algorithm in a session.
pub fn stages_factory(plan: Plan) -> StagesFactory {
    Box::new(move |name: &str| stages_named(&plan, name))
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
    run_all_stages(&PipelineStages::new(settings.resolve()), tester, &context)
}

/// The character pass: its passes after the first skip the deletions that failed in the earlier
/// ones with the same neighbourhood (most fail again: the text changed elsewhere), then, when
/// it skipped any, a run that skips nothing makes the result a fixed point of the pass again.
fn polish(
    tester: &mut Tester,
    fixpoint: bool,
    pins: &crate::algorithms::pins::Pins,
) -> Result<(), Stop> {
    let skipped = tester.recall().skipped();
    for skipping in [true, false] {
        tester.recall_mut().start_run(skipping);
        let result = run_list_pass(tester, UnitMinimizer::Sweep, fixpoint, AtomKind::Char, pins);
        tester.recall_mut().end_run();
        result?;
        if tester.recall().skipped() == skipped {
            break;
        }
    }
    Ok(())
}

/// The steps of a schedule as it knows them. A finer tree walk after a coarse one of the same
/// schedule waits while a case of several files holds the recall, as the token sweeps do: most
/// of what it finds is small (on a Go package of 17 files, 343 → 227 s for the same result).
fn scheduled_stages(steps: &[Step]) -> Vec<ScheduledStage> {
    let coarse_walk = steps
        .iter()
        .any(|step| matches!(step, Step::Tree(algorithm) if algorithm.coarse));
    steps
        .iter()
        .map(|step| ScheduledStage {
            name: step.name(),
            sweeps_tokens: step.sweeps_tokens(),
            waits_while_held: step.sweeps_tokens()
                || (coarse_walk && matches!(step, Step::Tree(algorithm) if !algorithm.coarse)),
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Only a finer walk after a coarse one waits while held, besides the token sweeps.
    #[test]
    fn a_finer_walk_waits_while_held_only_after_a_coarse_one() {
        let plan = |pipeline: &str| {
            let stages = pipeline
                .parse::<Pipeline>()
                .expect("a pipeline")
                .stages()
                .to_vec();
            let Step::Schedule(steps) = &Step::of(&stages, &[AtomKind::Line])[0] else {
                panic!("a schedule")
            };
            scheduled_stages(steps)
                .into_iter()
                .map(|stage| (stage.name, stage.waits_while_held))
                .collect::<Vec<_>>()
        };
        let waits = plan("(coarse-hddhr-sweep+hddhr-sweep+tokens+ddmin:line)*");
        assert_eq!(
            waits,
            [
                ("coarse-hddhr-sweep".to_owned(), false),
                ("hddhr-sweep".to_owned(), true),
                ("tokens".to_owned(), true),
                ("ddmin line".to_owned(), false),
            ]
        );
        let alone = plan("(hddhr-sweep+ddmin:line)*");
        assert_eq!(alone[0], ("hddhr-sweep".to_owned(), false));
    }
}
