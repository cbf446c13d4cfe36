//! What a tree walk judges next, should the candidates before them all fail: the candidates of
//! the next sets' first windows, on the current tree, for workers that would otherwise idle.

use std::ops::Range;
use std::sync::Arc;

use crate::testing::ahead::Lookahead;
use crate::tree::{Companions, NodeId, TreeEdits, TreeState};

use super::hoist::{HoistPolicy, hoists_of};
use super::pinned_nodes::PinnedNodes;

/// At most this many candidates are looked ahead at a time (a few windows' idle workers).
pub(super) const LOOKAHEAD_LIMIT: usize = 8;

/// Edits of the current tree, in the order the walk would judge them.
pub(super) struct TreeLookahead {
    state: Arc<TreeState>,
    edits: Vec<TreeEdits>,
    /// At most this many edits are kept.
    limit: usize,
}

impl TreeLookahead {
    pub fn new(state: Arc<TreeState>, limit: usize) -> Self {
        TreeLookahead {
            state,
            edits: Vec::new(),
            limit,
        }
    }

    pub fn is_full(&self) -> bool {
        self.edits.len() >= self.limit
    }

    /// The edit the walk would judge first.
    pub fn into_first(self) -> Option<TreeEdits> {
        self.edits.into_iter().next()
    }

    fn push(&mut self, edit: TreeEdits) {
        if !self.is_full() {
            self.edits.push(edit);
        }
    }

    /// Removals of nodes of `config`: each candidate keeps the nodes at the positions its
    /// ranges hold (see [`super::prune::first_candidates`]), and removes the companions of
    /// those it removes, as pruning does.
    pub fn keeping(&mut self, config: &[NodeId], candidates: Vec<Vec<Range<usize>>>) {
        if candidates.is_empty() || self.is_full() {
            return;
        }
        let companions = Companions::among(&self.state, config);
        for kept in candidates {
            let mut removed: Vec<NodeId> = config
                .iter()
                .enumerate()
                .filter(|(unit, _)| !kept.iter().any(|range| range.contains(unit)))
                .map(|(_, &node)| node)
                .collect();
            companions.complete(&mut removed);
            self.push(TreeEdits::removing(removed));
        }
    }

    /// The first round of TMIN^χ on `nodes`: each node's hoists, farthest first (those of a
    /// node with more than `policy.most` are left to its own turn, and those the policy passes
    /// over left out).
    pub fn hoists(&mut self, nodes: &[NodeId], pins: &PinnedNodes, policy: HoistPolicy<'_>) {
        for &place in nodes {
            if self.is_full() {
                return;
            }
            let hoists = hoists_of(&self.state, pins, place);
            if hoists.len() > policy.most {
                continue;
            }
            for (node, target) in hoists {
                if policy.waits(&self.state, node, target) {
                    continue;
                }
                self.push(TreeEdits::hoisting(node, target));
            }
        }
    }
}

impl Lookahead for TreeLookahead {
    fn len(&self) -> usize {
        self.edits.len()
    }

    fn render(&self, i: usize, out: &mut Vec<u8>) {
        self.state.render_into(&self.edits[i], out);
    }
}
