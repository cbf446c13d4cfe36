//! What a tree walk judges next, should the candidates before them all fail: the candidates of
//! the next sets' first windows, on the current tree, for workers that would otherwise idle.

use std::sync::Arc;

use crate::ahead::Lookahead;
use crate::dd;
use crate::params::{DdOptions, SplitFactor};
use crate::tree::{NodeId, TreeEdits, TreeState};

use super::hoist::hoists_of;
use super::pins::PinnedNodes;

/// At most this many candidates are looked ahead at a time (a few windows' idle workers).
const LOOKAHEAD_LIMIT: usize = 8;

/// Edits of the current tree, in the order the walk would judge them.
pub(super) struct TreeLookahead {
    state: Arc<TreeState>,
    edits: Vec<TreeEdits>,
}

impl TreeLookahead {
    pub fn new(state: Arc<TreeState>) -> Self {
        TreeLookahead {
            state,
            edits: Vec::new(),
        }
    }

    pub fn is_full(&self) -> bool {
        self.edits.len() >= LOOKAHEAD_LIMIT
    }

    fn push(&mut self, edit: TreeEdits) {
        if !self.is_full() {
            self.edits.push(edit);
        }
    }

    /// The first window ddmin judges on `config` ([`dd::first_window`]); with one node, the
    /// empty configuration (which pruning tries after ddmin).
    pub fn first_window(&mut self, config: &[NodeId], nu: SplitFactor, dd: &DdOptions) {
        if let [only] = config {
            self.push(TreeEdits::removing([*only]));
            return;
        }
        self.keeping(config, dd::first_window(config.len(), nu, dd));
    }

    /// The first window a chunk sweep judges on `config` ([`crate::sweep::first_window`]).
    pub fn first_sweep(&mut self, config: &[NodeId]) {
        self.keeping(config, crate::sweep::first_window(config.len()));
    }

    /// Removals of nodes of `config`: each candidate keeps the positions its ranges hold.
    fn keeping(&mut self, config: &[NodeId], candidates: Vec<Vec<std::ops::Range<usize>>>) {
        for kept in candidates {
            let removed = config
                .iter()
                .enumerate()
                .filter(|(unit, _)| !kept.iter().any(|range| range.contains(unit)))
                .map(|(_, &node)| node);
            self.push(TreeEdits::removing(removed));
        }
    }

    /// The first round of TMIN^χ on `nodes`: each node's hoists, farthest first.
    pub fn hoists(&mut self, nodes: &[NodeId], pins: &PinnedNodes) {
        for &place in nodes {
            if self.is_full() {
                return;
            }
            for (node, target) in hoists_of(&self.state, pins, place) {
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
