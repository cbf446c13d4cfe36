//! Pinned nodes: nodes the user wants kept. A pinned node is never removed, and neither is any
//! ancestor (removing it would take the pinned node along); a hoist is allowed only when every
//! pinned node under the hoisted node is also under the descendant that takes its place.

use std::sync::Arc;

use crate::tree::{NodeId, Tree};

/// Says which nodes of a freshly parsed tree are pinned. Called each time a tree stage parses
/// the current best (once per fixed-point iteration), so node ids always refer to that tree;
/// an implementation can also keep the tree (e.g. to display it).
pub trait PinSource: Send + Sync {
    fn pinned_nodes(&self, tree: &Arc<Tree>) -> Vec<NodeId>;
}

impl<F> PinSource for F
where
    F: Fn(&Arc<Tree>) -> Vec<NodeId> + Send + Sync,
{
    fn pinned_nodes(&self, tree: &Arc<Tree>) -> Vec<NodeId> {
        self(tree)
    }
}

/// The pinned nodes of one tree, sorted (node ids are in preorder, so the pinned nodes of a
/// subtree form one run).
pub struct PinnedNodes {
    tree: Arc<Tree>,
    pinned: Vec<NodeId>,
}

impl PinnedNodes {
    pub fn new(tree: &Arc<Tree>, mut pinned: Vec<NodeId>) -> PinnedNodes {
        pinned.retain(|id| id.index() < tree.len());
        pinned.sort_unstable();
        pinned.dedup();
        PinnedNodes {
            tree: Arc::clone(tree),
            pinned,
        }
    }

    /// How many pinned nodes lie in the subtree of `node` (in the unedited tree).
    fn count_under(&self, node: NodeId) -> usize {
        let end = self.tree.subtree_end(node);
        let from = self.pinned.partition_point(|&p| p < node);
        let to = self.pinned.partition_point(|&p| p < end);
        to - from
    }

    /// Whether removing `node` would remove a pinned node.
    pub fn protects(&self, node: NodeId) -> bool {
        !self.pinned.is_empty() && self.count_under(node) > 0
    }

    /// Whether replacing `node` by its descendant `target` keeps every pinned node.
    pub fn allow_hoist(&self, node: NodeId, target: NodeId) -> bool {
        self.pinned.is_empty() || self.count_under(node) == self.count_under(target)
    }
}
