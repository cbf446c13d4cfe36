//! Hierarchical reduction of parse trees: HDD, HDD^r and their coarse forms (pruning levels or
//! children with ddmin, or with chunk sweeps in the `-sweep` variants), hoisting with TMIN^χ
//! (Hoist, Hoist^r and their coarse forms), and HDDH, which interlaces both; every algorithm
//! iterated to its fixed point.
//!
//! Each fixed-point iteration parses the tester's current best afresh, so nodes whose text
//! became equal to their replacement Φ get their unremovable marks and the levels follow the
//! current text. Within an iteration the edits are committed to one [`TreeState`].

mod algorithm;
mod comments;
mod hoist;
mod lookahead;
mod pinned_nodes;
mod prune;
mod queue;
mod undeclaring;
mod walk;

use std::sync::Arc;

pub use algorithm::{Algorithm, Traversal};
pub use pinned_nodes::PinSource;
pub(crate) use pinned_nodes::PinnedNodes;

use crate::observe::events::Event;
use crate::params::{BeliefOptions, DdOptions};
use crate::testing::control::Stop;
use crate::testing::tester::Tester;
use crate::tree::{self, Language, Preprocess, TreeState};

/// What a tree stage needs besides the tester.
pub struct TreeContext<'a> {
    /// The language the current best is parsed in.
    pub language: &'static Language,
    /// The options of the inner ddmin.
    pub dd: &'a DdOptions,
    /// The options of the inner ProbDD or CDD.
    pub belief: &'a BeliefOptions,
    /// Iterate to the fixed point (re-run while the text shrinks).
    pub fixpoint: bool,
    /// Nodes that must never be removed or hoisted away.
    pub pins: &'a dyn PinSource,
    /// Leave loops' conditions and updates as they are (see [`tree::Tree::in_loop_control`]):
    /// candidates that change them often never end, and each costs a timeout.
    pub keep_loop_control: bool,
}

/// Runs `algorithm` on the tester's current best (to its fixed point unless the context says
/// otherwise). The tester's best is the result; an early stop loses nothing. In a schedule,
/// each walk after the first skips the removals and hoists that failed in an earlier walk (or
/// run) with a neighbourhood of the same shape ([`crate::testing::recall`]), until the schedule
/// settles.
pub fn run(
    tester: &mut Tester,
    algorithm: Algorithm,
    context: &TreeContext<'_>,
    stage: &str,
) -> Result<(), Stop> {
    // Its walks' candidates are known to the recall by the nodes they remove (in a schedule).
    tester.with_window_recall(stage, |tester| {
        run_to_fixpoint(tester, algorithm, context, stage)
    })
}

/// The walks of [`run`], each on a fresh parse, until one removes nothing. The hoists of nodes
/// that take their own turn (a class body in place of one of its hundred methods: each a test,
/// rarely interesting while the class is large) wait for a walk that removed nothing without
/// them: the walks before it prune first; the last walk tries them all.
fn run_to_fixpoint(
    tester: &mut Tester,
    algorithm: Algorithm,
    context: &TreeContext<'_>,
    stage: &str,
) -> Result<(), Stop> {
    let mut every_hoist = !context.fixpoint;
    for iteration in 1.. {
        tester.begin_fixpoint_iteration(stage, iteration);
        let before = tester.best().len();
        let Some(tree) = parse_best(tester, context.language, Preprocess::default(), stage) else {
            return Ok(());
        };
        let pins = PinnedNodes::new(&tree, context.pins.pinned_nodes(&tree));
        let state = Arc::new(TreeState::new(Arc::clone(&tree)));
        let mut walk = walk::Walk {
            tester: &mut *tester,
            state,
            algorithm,
            dd: context.dd,
            belief: context.belief,
            repeats: context.fixpoint,
            pins,
            keep_loop_control: context.keep_loop_control,
            stage,
            layout: None,
            levels: None,
            every_hoist,
            passed_over_own_turn: false,
            undeclaring: walk::undeclaring(algorithm, &tree, iteration == 1 && !every_hoist),
            comments_first: iteration == 1 && algorithm.pruner == algorithm::Pruner::Sweep,
        };
        walk.run()?;
        let passed_over = walk.passed_over();
        if !context.fixpoint {
            break;
        }
        if tester.best().len() < before {
            every_hoist = false;
        } else if passed_over {
            every_hoist = true;
        } else {
            break;
        }
    }
    Ok(())
}

/// The parse of the tester's current best for a tree stage; when it cannot be parsed, the stage
/// is reported skipped (with why) and `None` returned.
pub(crate) fn parse_best(
    tester: &Tester,
    language: &'static Language,
    preprocess: Preprocess,
    stage: &str,
) -> Option<Arc<tree::Tree>> {
    match tree::parse(language, tester.best().to_vec(), preprocess) {
        Ok(tree) => Some(tree),
        Err(error) => {
            tester.emit(Event::StageSkipped {
                stage: stage.to_owned(),
                reason: format!("{error:#}"),
            });
            None
        }
    }
}
