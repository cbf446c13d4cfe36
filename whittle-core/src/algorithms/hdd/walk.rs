//! One iteration of a hierarchical algorithm over one parsed tree: the level walk (HDD, Hoist,
//! HDDH and their coarse forms) and the breadth-first walk over children (the `^r` variants).

use std::sync::Arc;

use crate::algorithms::sweep::Patience;
use crate::observe::events::{Event, TreePhase};
use crate::params::{BeliefOptions, DdOptions};
use crate::testing::control::Stop;
use crate::testing::tester::Tester;
use crate::tree::{Layout, NodeId, Tree, TreeEdits, TreeState};

use super::algorithm::{Algorithm, Pruner, Traversal};
use super::hoist::HoistPolicy;
use super::lookahead::{LOOKAHEAD_LIMIT, TreeLookahead};
use super::pinned_nodes::PinnedNodes;
use super::queue::{NodeQueue, Turn, split_small};
use super::undeclaring::SoleDeclarations;
use super::{comments, hoist, prune};

/// The most hoists a node may have to be hoisted with its siblings in the `-sweep` variants
/// (see [`Walk::hoist_policy`]).
const MOST_HOISTS_WITH_SIBLINGS: usize = 32;

/// In the `-sweep` variants, the sweep over a set of this many nodes or more pauses once it ran
/// [`PATIENCE_TESTS`] tests and removed fewer than half of the nodes it went past: the rest of
/// the set is taken again once the other turns of the walk were taken (see [`Turn::Again`]).
/// A JSON service model's 3,135 shapes, most of them used by its 615 operations, went a few per
/// test before the smaller set of operations (first, and all but one removable) had its turn.
const PATIENT_SET: usize = 64;

/// See [`PATIENT_SET`].
const PATIENCE_TESTS: u64 = 32;

/// At most this many nodes of the queue are looked at for the candidates the walk judges next
/// (most have none where no child is removable: the look stays short on a large tree).
const UPCOMING_NODES: usize = 32;

pub(super) struct Walk<'a> {
    pub tester: &'a mut Tester,
    /// Shared with the lookahead while it lasts (a commit follows an acceptance, which ends
    /// the lookahead: the state is then the walk's alone again).
    pub state: Arc<TreeState>,
    pub algorithm: Algorithm,
    pub dd: &'a DdOptions,
    pub belief: &'a BeliefOptions,
    /// The walk runs again while it removes something (the algorithm's fixed point).
    pub repeats: bool,
    pub pins: PinnedNodes,
    /// Loops' conditions and updates are neither pruned nor hoisted.
    pub keep_loop_control: bool,
    pub stage: &'a str,
    /// Where the nodes of the state are in the best, for displays, with the number of
    /// reductions accepted when it was made (a reduction commits an edit: it is made again).
    pub layout: Option<(u64, Layout)>,
    /// How many levels the tree has now, while the level walk reduces one (for displays).
    pub levels: Option<usize>,
    /// Whether this walk tries every hoist. When not (the `-sweep` variants of HDD^r, while
    /// the walk before removed something), the nodes with too many hoists to be hoisted with
    /// their siblings get no turn of their own (see [`Walk::hoist_at_own_turn`]) and, in the
    /// stage run's first walk, hoists that would leave a name undeclared are passed over
    /// (`undeclaring`); [`Walk::passed_over`] tells whether one was.
    pub every_hoist: bool,
    /// Whether a node was denied its own turn.
    pub passed_over_own_turn: bool,
    /// The names declared once in the walk's tree, while hoists that undeclare them wait for a
    /// later walk (see [`undeclaring`]).
    pub undeclaring: Option<SoleDeclarations>,
    /// Whether the walk begins with one test of the tree without its comments and one with its
    /// docstrings emptied (the `-sweep` variants, in a stage's first walk: see [`comments`]).
    pub comments_first: bool,
}

impl Walk<'_> {
    pub fn run(&mut self) -> Result<(), Stop> {
        if self.comments_first {
            comments::remove_comments_and_empty_docstrings(
                self.tester,
                &mut self.state,
                &self.pins,
            )?;
        }
        let walked = match self.algorithm.traversal {
            Traversal::Levels => self.levels(),
            Traversal::Recursive => self.recursive(),
        };
        self.tester.set_lookahead(None);
        walked
    }

    /// Whether the walk passed over a hoist (see [`Walk::every_hoist`]): a walk that tries
    /// every hoist must follow it.
    pub fn passed_over(&self) -> bool {
        self.passed_over_own_turn
            || self
                .undeclaring
                .as_ref()
                .is_some_and(SoleDeclarations::passed_over)
    }

    /// Fig. 2.2a, 2.3a, 7.7a, 7.7c, 7.8: each level of the current tree in turn, from the root.
    fn levels(&mut self) -> Result<(), Stop> {
        let mut level: Vec<NodeId> = self.state.root().into_iter().collect();
        let mut depth = 0;
        while !level.is_empty() {
            if self.tester.wants_spans() {
                self.levels = Some(depth + self.levels_from(&level));
            }
            self.reduce_set(&level, None, depth, None, false)?;
            level = self.state.next_level(&level);
            depth += 1;
        }
        self.levels = None;
        Ok(())
    }

    /// How many levels the current tree has from `level` (one of its levels) down.
    fn levels_from(&self, level: &[NodeId]) -> usize {
        let mut count = 0;
        let mut level = level.to_vec();
        while !level.is_empty() {
            count += 1;
            level = self.state.next_level(&level);
        }
        count
    }

    /// Fig. 2.2b, 2.3b, 7.7b, 7.7d: a queue of nodes, each node's current children reduced as
    /// one configuration, then queued. The root is treated as the only child of a virtual
    /// parent (as when the grammar has a start rule above it), so it may be hoisted too. The
    /// papers' queue is first in, first out (breadth first); the `-sweep` variants take the
    /// largest node first (see [`NodeQueue`]).
    fn recursive(&mut self) -> Result<(), Stop> {
        let Some(root) = self.state.root() else {
            return Ok(());
        };
        self.reduce_set(&[root], None, 0, None, false)?;
        let sweeps = self.algorithm.pruner == Pruner::Sweep;
        let mut queue = NodeQueue::new(sweeps);
        // Turns whose sweep paused, taken again (largest first) once the queue is empty.
        let mut again = NodeQueue::new(true);
        queue.push(&self.state, root, 0);
        loop {
            let (turn, depth, patient) = match queue.pop() {
                Some((turn, depth)) => (turn, depth, sweeps),
                None => match again.pop() {
                    Some((turn, depth)) => (turn, depth, false),
                    None => break,
                },
            };
            let own_turn = match turn {
                Turn::Children(_) => true,
                Turn::Small { .. } => false,
                Turn::Again { own_turn, .. } => own_turn,
            };
            let Some((parent, set)) = self.turn_set(turn, depth, &mut queue) else {
                continue;
            };
            let after_emptied = self.look_ahead(&set, &queue);
            let pruned = self.reduce_set(
                &set,
                Some(parent),
                depth + 1,
                after_emptied.as_ref(),
                patient,
            )?;
            if pruned == prune::Pruned::Paused {
                let nodes = set;
                let turn = Turn::Again {
                    parent,
                    nodes,
                    own_turn,
                };
                again.push_turn(&self.state, turn, depth);
                continue;
            }
            if own_turn && let Some(hoisted) = self.hoist_at_own_turn(parent, depth)? {
                // Its children have not been pruned yet: it takes a turn of its own.
                queue.push(&self.state, hoisted, depth);
                continue;
            }
            for child in set.iter().filter_map(|&node| self.state.visible(node)) {
                queue.push(&self.state, child, depth + 1);
            }
        }
        Ok(())
    }

    /// The parent and the nodes of a turn still in the tree (`None`: nothing left to reduce);
    /// at a node's turn, its small children that wait are queued (see [`Walk::turn_nodes`]).
    fn turn_set(
        &self,
        turn: Turn,
        depth: usize,
        queue: &mut NodeQueue,
    ) -> Option<(NodeId, Vec<NodeId>)> {
        let (parent, set, small) = self.turn_nodes(&turn, queue.largest_first())?;
        if !small.is_empty() {
            let waiting = Turn::Small {
                parent,
                nodes: small,
            };
            queue.push_turn(&self.state, waiting, depth);
        }
        Some((parent, set))
    }

    /// The parent of a turn, the nodes it reduces as the current tree stands, and (at a node's
    /// turn, when the queue takes the largest first) the small children that wait for a turn of
    /// their own (see [`split_small`]); `None` when the parent is gone or nothing is left.
    /// A waiting child's place still in its shown parent holds a node (itself, or what was
    /// hoisted into it) unless it was removed.
    fn turn_nodes(
        &self,
        turn: &Turn,
        largest_first: bool,
    ) -> Option<(NodeId, Vec<NodeId>, Vec<NodeId>)> {
        match *turn {
            Turn::Children(node) => {
                if self.state.visible(node) != Some(node) {
                    return None;
                }
                let children = self.state.children(node);
                if children.is_empty() {
                    return None;
                }
                let (set, small) = if largest_first {
                    split_small(&self.state, children)
                } else {
                    (children, Vec::new())
                };
                Some((node, set, small))
            }
            Turn::Small { parent, ref nodes }
            | Turn::Again {
                parent, ref nodes, ..
            } => {
                if self.state.visible(parent) != Some(parent) || !self.state.is_shown(parent) {
                    return None;
                }
                let nodes: Vec<NodeId> = nodes
                    .iter()
                    .filter_map(|&node| self.state.visible(node))
                    .collect();
                (!nodes.is_empty()).then_some((parent, nodes, Vec::new()))
            }
        }
    }

    /// How TMIN^χ runs: the papers' way, or in the `-sweep` variants (beyond the papers) with
    /// galloping down chains of hoists and at most [`MOST_HOISTS_WITH_SIBLINGS`] hoists for a
    /// node hoisted with its siblings at its parent's turn; one with more waits for its own
    /// turn, after its children were pruned. Hoisting a JSON array of 30,000 objects at its
    /// parent's turn tries each object in its place, 30,000 tests, before the sweep over them
    /// would remove most in a few dozen.
    fn hoist_policy(&self) -> HoistPolicy<'_> {
        hoist_policy(self.algorithm, self.undeclaring.as_ref())
    }

    /// Hoists `node` (at `depth`) at its own turn, its children pruned, when it has too many
    /// hoists to be hoisted with its siblings: one round of TMIN^χ, the first of its hoists
    /// that is interesting. Returns the descendant now in its place, if any; that one's
    /// hoists wait for its own turn (the walk runs again while it removes something, so the
    /// last walk tries every hoist on the final text). In a walk without own turns the node
    /// is only noted as passed over.
    fn hoist_at_own_turn(&mut self, node: NodeId, depth: usize) -> Result<Option<NodeId>, Stop> {
        let most = self.hoist_policy().most;
        if !self.algorithm.hoist
            || most == usize::MAX
            || self.hoist_set(&[node]).is_empty()
            || hoist::hoists_of(&self.state, &self.pins, node).len() <= most
        {
            return Ok(None);
        }
        if !self.every_hoist {
            self.passed_over_own_turn = true;
            return Ok(None);
        }
        self.report(TreePhase::Hoist, &[node], None, depth);
        let layout = self.layout.as_ref().map(|(_, layout)| layout.clone());
        let round = hoist::Round {
            nodes: &[node],
            start: 0,
            jump: None,
            policy: HoistPolicy {
                most: usize::MAX,
                ..hoist_policy(self.algorithm, self.undeclaring.as_ref())
            },
        };
        let hoisted = hoist::hoist_round(self.tester, &mut self.state, &round, &self.pins, layout)?;
        Ok(hoisted.and_then(|_| self.state.visible(node)))
    }

    /// What a coarse variant keeps of a set: the Φ-empty nodes (all nodes otherwise); never a
    /// part of a loop's control when it is kept.
    fn considered(&self, node: NodeId) -> bool {
        (!self.algorithm.coarse
            || (self.state.is_phi_empty(node) && !self.state.tree().is_detail(node)))
            && !(self.keep_loop_control && self.state.tree().in_loop_control(node))
    }

    /// The nodes of a set that pruning tries to remove.
    fn prune_config(&self, nodes: &[NodeId]) -> Vec<NodeId> {
        nodes
            .iter()
            .copied()
            .filter(|&node| {
                self.state.is_removable(node) && self.considered(node) && !self.pins.protects(node)
            })
            .collect()
    }

    /// The nodes at the places of a set that hoisting tries to replace.
    fn hoist_set(&self, nodes: &[NodeId]) -> Vec<NodeId> {
        nodes
            .iter()
            .filter_map(|&node| self.state.visible(node))
            .filter(|&node| self.considered(node))
            .collect()
    }

    /// Prepares the tests run ahead of the pruning of `current` (the children of the node just
    /// taken from `queue`). While most tests fail, tells the tester what the walk judges
    /// should nothing of `current` go: its hoists, then the first candidates of the sets the
    /// queue holds and of `current`'s own children. While most pass, returns what the walk
    /// judges first should every node of `current` go (the next set's first candidate, on the
    /// current tree), for the pruning to test ahead while it removes the last of them.
    fn look_ahead(&mut self, current: &[NodeId], queue: &NodeQueue) -> Option<TreeEdits> {
        if self.tester.wants_lookahead() {
            let lookahead = self.upcoming_candidates(Some(current), queue, LOOKAHEAD_LIMIT);
            self.tester.set_lookahead(Some(Box::new(lookahead)));
            None
        } else if self.tester.expects_interesting() && self.algorithm.prune {
            self.upcoming_candidates(None, queue, 1).into_first()
        } else {
            None
        }
    }

    /// At most `limit` candidates the walk judges next, in order, should none before them be
    /// interesting: the hoists of `current` (when given), then for the sets the queue holds
    /// (and `current`'s children) the first candidates of their pruning and their hoists.
    fn upcoming_candidates(
        &self,
        current: Option<&[NodeId]>,
        queue: &NodeQueue,
        limit: usize,
    ) -> TreeLookahead {
        let nu = self.tester.control().split_factor();
        let mut lookahead = TreeLookahead::new(Arc::clone(&self.state), limit);
        let policy = self.hoist_policy();
        if self.algorithm.hoist
            && let Some(current) = current
        {
            lookahead.hoists(&self.hoist_set(current), &self.pins, policy);
        }
        let current_turns: Vec<Turn> = current
            .into_iter()
            .flatten()
            .map(|&node| Turn::Children(node))
            .collect();
        let upcoming = queue.upcoming().take(UPCOMING_NODES);
        for turn in upcoming.chain(current_turns.iter()) {
            if lookahead.is_full() {
                break;
            }
            let Some((_, children, _)) = self.turn_nodes(turn, queue.largest_first()) else {
                continue;
            };
            if self.algorithm.prune {
                let config = self.prune_config(&children);
                let first = prune::first_candidates(
                    config.len(),
                    self.algorithm.pruner,
                    nu,
                    self.dd,
                    self.belief,
                );
                lookahead.keeping(&config, first);
            }
            if self.algorithm.hoist {
                lookahead.hoists(&self.hoist_set(&children), &self.pins, policy);
            }
        }
        lookahead
    }

    /// Prunes and/or hoists one set of sibling or same-level nodes; `after_emptied` is what
    /// the walk judges next should every node of the set go (see [`Walk::look_ahead`]). When
    /// `patient`, a sweep over a long set may pause (see [`PATIENT_SET`]): nothing is hoisted
    /// then.
    fn reduce_set(
        &mut self,
        nodes: &[NodeId],
        parent: Option<NodeId>,
        depth: usize,
        after_emptied: Option<&TreeEdits>,
        patient: bool,
    ) -> Result<prune::Pruned, Stop> {
        if self.algorithm.prune {
            let config = self.prune_config(nodes);
            if !config.is_empty() {
                self.report(TreePhase::Prune, &config, parent, depth);
                let layout = self.layout.as_ref().map(|(_, layout)| layout);
                let pruning = prune::Pruning {
                    pruner: self.algorithm.pruner,
                    dd: self.dd,
                    belief: self.belief,
                    walk_repeats: self.repeats,
                    after_emptied,
                    patience: patient.then_some(Patience {
                        long: PATIENT_SET,
                        tests: PATIENCE_TESTS,
                    }),
                };
                let pruned = prune::prune(self.tester, &mut self.state, &config, &pruning, layout)?;
                if pruned == prune::Pruned::Paused {
                    return Ok(pruned);
                }
            }
        }
        if self.algorithm.hoist {
            let kept = self.hoist_set(nodes);
            let most = self.hoist_policy().most;
            if kept.iter().any(|&node| {
                let hoists = hoist::hoists_of(&self.state, &self.pins, node).len();
                (1..=most).contains(&hoists)
            }) {
                self.report(TreePhase::Hoist, &kept, parent, depth);
                let layout = self.layout.as_ref().map(|(_, layout)| layout);
                let policy = hoist_policy(self.algorithm, self.undeclaring.as_ref());
                hoist::tmin(
                    self.tester,
                    &mut self.state,
                    &kept,
                    &self.pins,
                    layout,
                    policy,
                )?;
            }
        }
        Ok(prune::Pruned::Done)
    }

    fn report(&mut self, phase: TreePhase, nodes: &[NodeId], parent: Option<NodeId>, depth: usize) {
        // Where the nodes are in the current best, for displays: one rendering for as long as
        // no reduction changes the state.
        let (spans, parent_span) = if self.tester.wants_spans() {
            let accepted = self.tester.accepted();
            if self.layout.as_ref().is_none_or(|(at, _)| *at != accepted) {
                self.layout = Some((accepted, self.state.layout(&TreeEdits::new())));
            }
            let Some((_, layout)) = &self.layout else {
                return;
            };
            let span = |node| self.state.span_in(layout, node).unwrap_or(0..0);
            (
                nodes.iter().map(|&node| span(node)).collect(),
                parent.map(span),
            )
        } else {
            (Vec::new(), None)
        };
        self.tester.emit(Event::TreeNodes {
            stage: self.stage.to_owned(),
            depth,
            parent: parent.map(|p| p.index() as u32),
            phase,
            nodes: nodes.iter().map(|n| n.index() as u32).collect(),
            spans,
            parent_span,
            levels: self.levels,
        });
    }
}

/// How an algorithm's walks hoist (see [`Walk::hoist_policy`]), passing over the hoists that
/// undeclare one of `undeclaring`'s names when given.
fn hoist_policy(algorithm: Algorithm, undeclaring: Option<&SoleDeclarations>) -> HoistPolicy<'_> {
    if sweeps_with_own_turns(algorithm) {
        HoistPolicy {
            most: MOST_HOISTS_WITH_SIBLINGS,
            gallop: true,
            undeclaring,
        }
    } else {
        HoistPolicy::PAPERS
    }
}

/// The names whose undeclaring hoists wait in a walk over `tree` (see [`SoleDeclarations`]):
/// in a stage run's first walk that does not try every hoist (`first_walk`), of a `-sweep`
/// variant of HDD^r that hoists. Most such hoists fail while the text is large, but on a small
/// one, in a language that looks names up only when it runs the code, a name's last uses are
/// often in code that never runs: the later walks try them.
pub(super) fn undeclaring(
    algorithm: Algorithm,
    tree: &Tree,
    first_walk: bool,
) -> Option<SoleDeclarations> {
    (first_walk && algorithm.hoist && sweeps_with_own_turns(algorithm))
        .then(|| SoleDeclarations::new(tree))
}

/// Whether the algorithm is a `-sweep` variant of HDD^r: large nodes take their own turn.
fn sweeps_with_own_turns(algorithm: Algorithm) -> bool {
    algorithm.pruner == Pruner::Sweep && algorithm.traversal == Traversal::Recursive
}
