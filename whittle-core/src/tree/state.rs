//! The state of a tree's nodes and the edits tried on it: each node kept, removed (it prints its
//! replacement) or hoisted (replaced by one of its descendants). A [`TreeState`] holds the
//! committed edits; a [`TreeEdits`] describes
//! further edits to try, rendered without copying the tree (the unparser, `render.rs`, renders
//! them) and committed when they succeed.

use std::collections::HashMap;
use std::sync::Arc;

use super::arena::{NodeId, Tree};

/// The committed state of a node: kept, removed, or the id of the descendant it is hoisted to.
pub(crate) const KEPT: u32 = u32::MAX;
pub(crate) const REMOVED: u32 = u32::MAX - 1;

/// What happens to a node under the committed edits plus a candidate.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum NodeState {
    Kept,
    Removed,
    /// The node's place shows this descendant instead.
    Hoisted(NodeId),
}

/// Edits to try on top of a [`TreeState`]: nodes to remove and nodes to hoist to a descendant.
///
/// Node ids are the ids the listing functions of [`TreeState`] return (the nodes visible in the
/// current tree). Both lists are kept sorted, which lets rendering look them up in one pass.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct TreeEdits {
    removed: Vec<NodeId>,
    hoisted: Vec<(NodeId, NodeId)>,
}

impl TreeEdits {
    /// No edit.
    pub fn new() -> TreeEdits {
        TreeEdits::default()
    }

    /// Removes these nodes.
    pub fn removing(ids: impl IntoIterator<Item = NodeId>) -> TreeEdits {
        let mut candidate = TreeEdits::new();
        candidate.remove_all(ids);
        candidate
    }

    /// Replaces `node` by its descendant `descendant`.
    pub fn hoisting(node: NodeId, descendant: NodeId) -> TreeEdits {
        TreeEdits {
            removed: Vec::new(),
            hoisted: vec![(node, descendant)],
        }
    }

    /// Adds nodes to remove.
    pub fn remove_all(&mut self, ids: impl IntoIterator<Item = NodeId>) -> &mut Self {
        self.removed.extend(ids);
        self.removed.sort_unstable();
        self.removed.dedup();
        self
    }

    /// Adds a hoisting of `node` to its descendant `descendant` (a later one for the same node
    /// replaces an earlier one).
    pub fn hoist(&mut self, node: NodeId, descendant: NodeId) -> &mut Self {
        match self.hoisted.binary_search_by_key(&node, |&(n, _)| n) {
            Ok(at) => self.hoisted[at].1 = descendant,
            Err(at) => self.hoisted.insert(at, (node, descendant)),
        }
        self
    }

    /// Forgets all edits, keeping the buffers.
    pub fn clear(&mut self) {
        self.removed.clear();
        self.hoisted.clear();
    }

    /// Whether the candidate changes nothing.
    pub fn is_empty(&self) -> bool {
        self.removed.is_empty() && self.hoisted.is_empty()
    }

    /// The nodes to remove, sorted.
    pub fn removed(&self) -> &[NodeId] {
        &self.removed
    }

    /// The hoistings (node, descendant), sorted by node.
    pub fn hoisted(&self) -> &[(NodeId, NodeId)] {
        &self.hoisted
    }
}

/// A tree with its committed edits. Cheap to share (`Send + Sync`); rendering takes `&self`.
#[derive(Debug, Clone)]
pub struct TreeState {
    tree: Arc<Tree>,
    /// Per node: [`KEPT`], [`REMOVED`] or the hoist target.
    pub(crate) state: Vec<u32>,
    /// Hoist target → the node whose place it took.
    placed_at: HashMap<NodeId, NodeId>,
    /// Per node: whether it or a descendant has a committed edit (untouched subtrees render as
    /// one copy of their input bytes).
    pub(crate) touched: Vec<bool>,
}

impl TreeState {
    /// The unedited tree.
    pub fn new(tree: Arc<Tree>) -> TreeState {
        let state = vec![KEPT; tree.len()];
        let touched = vec![false; tree.len()];
        TreeState {
            tree,
            state,
            placed_at: HashMap::new(),
            touched,
        }
    }

    /// The tree the edits apply to.
    pub fn tree(&self) -> &Arc<Tree> {
        &self.tree
    }

    /// The committed state of a node.
    pub fn node_state(&self, id: NodeId) -> NodeState {
        match self.state[id.index()] {
            KEPT => NodeState::Kept,
            REMOVED => NodeState::Removed,
            target => NodeState::Hoisted(NodeId(target)),
        }
    }

    /// The node visible at `id`'s place: `id` itself, or where its hoistings lead. `None` when
    /// the place is removed.
    pub fn visible(&self, id: NodeId) -> Option<NodeId> {
        let mut current = id;
        loop {
            match self.state[current.index()] {
                KEPT => return Some(current),
                REMOVED => return None,
                target => current = NodeId(target),
            }
        }
    }

    /// Whether the node's text is part of the current text: no node on its way up is removed,
    /// and each hoisted one is hoisted to the node or one of its ancestors.
    pub fn is_shown(&self, id: NodeId) -> bool {
        let mut current = Some(id);
        while let Some(node) = current {
            match self.state[node.index()] {
                KEPT => {}
                REMOVED => return false,
                target => {
                    if !self.tree.is_descendant(NodeId(target), id) {
                        return false;
                    }
                }
            }
            current = self.tree.parent(node);
        }
        true
    }

    /// The place a visible node occupies: itself, or the node it was hoisted into.
    pub fn place_of(&self, id: NodeId) -> NodeId {
        let mut current = id;
        while let Some(&from) = self.placed_at.get(&current) {
            current = from;
        }
        current
    }

    /// Whether removing the visible node prints nothing (its place may be empty): the nodes the
    /// coarse variants consider.
    pub fn is_phi_empty(&self, id: NodeId) -> bool {
        self.tree.is_phi_empty(self.place_of(id))
    }

    /// Whether removing the visible node is worth trying.
    pub fn is_removable(&self, id: NodeId) -> bool {
        let place = self.place_of(id);
        if place != id && self.tree.is_phi_empty(place) {
            return !self.tree.byte_range(id).is_empty();
        }
        self.tree.is_removable(id)
    }

    /// The children of a node in the current tree: for each child place, the visible node
    /// (removed places are left out; a hoisted node shows its target's children).
    pub fn children(&self, id: NodeId) -> Vec<NodeId> {
        let mut out = Vec::new();
        self.children_into(id, &mut out);
        out
    }

    /// Like [`TreeState::children`], appending to `out`.
    pub fn children_into(&self, id: NodeId, out: &mut Vec<NodeId>) {
        let Some(node) = self.visible(id) else {
            return;
        };
        out.extend(
            self.tree
                .children(node)
                .filter_map(|child| self.visible(child)),
        );
    }

    /// The visible root, `None` when the whole input is removed.
    pub fn root(&self) -> Option<NodeId> {
        self.visible(self.tree.root())
    }

    /// The nodes at `depth` in the current tree (the root has depth 0), in document order.
    pub fn level(&self, depth: usize) -> Vec<NodeId> {
        let mut current: Vec<NodeId> = self.root().into_iter().collect();
        let mut next = Vec::new();
        for _ in 0..depth {
            next.clear();
            for &node in &current {
                self.children_into(node, &mut next);
            }
            std::mem::swap(&mut current, &mut next);
            if current.is_empty() {
                break;
            }
        }
        current
    }

    /// Whether `descendant` may replace the visible node `id`: the same kind, or a kind of a
    /// supertype `id`'s kind belongs to that the grammar allows at `id`'s place.
    pub fn can_hoist(&self, id: NodeId, descendant: NodeId) -> bool {
        let tree = &self.tree;
        if tree.kind_id(id) == tree.kind_id(descendant) {
            return !tree.is_synthetic(id);
        }
        tree.compatible(id, descendant)
            && tree.fits_place(self.place_of(id), tree.kind_id(descendant))
    }

    /// The level below `nodes` (a level of the current tree): the current children of those of
    /// `nodes` still visible, in order. Cheaper than [`TreeState::level`] when walking the levels
    /// one after the other, committing edits in between.
    pub fn next_level(&self, nodes: &[NodeId]) -> Vec<NodeId> {
        let mut out = Vec::new();
        for &node in nodes {
            self.children_into(node, &mut out);
        }
        out
    }

    /// χ(n): the hoistable descendants of a visible node in the current tree (on each path down,
    /// the first node that [`TreeState::can_hoist`] accepts), farthest first, each with its
    /// distance in levels.
    pub fn hoist_candidates(&self, id: NodeId) -> Vec<(NodeId, usize)> {
        match self.visible(id) {
            Some(node) => self.hoistables_under(node, node),
            None => Vec::new(),
        }
    }

    /// The nodes below `under` (the visible node `node` or one of its descendants) that may
    /// replace `node`: on each path down from `under`, the first that [`TreeState::can_hoist`]
    /// accepts; farthest first, each with its distance in levels from `under`. Below `node`
    /// itself this is χ(`node`); below one of χ(`node`), it is where a hoist down a chain of
    /// hoists goes next.
    pub fn hoistables_under(&self, node: NodeId, under: NodeId) -> Vec<(NodeId, usize)> {
        let mut found = Vec::new();
        let mut stack: Vec<(NodeId, usize)> = Vec::new();
        let mut children = Vec::new();
        self.children_into(under, &mut children);
        stack.extend(children.iter().rev().map(|&child| (child, 1)));
        while let Some((current, distance)) = stack.pop() {
            if self.can_hoist(node, current) {
                found.push((current, distance));
                continue;
            }
            children.clear();
            self.children_into(current, &mut children);
            stack.extend(children.iter().rev().map(|&child| (child, distance + 1)));
        }
        found.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(&b.0)));
        found
    }

    /// Makes a candidate's edits part of the current state. Hoistings to nodes that are not
    /// descendants are ignored.
    pub fn commit(&mut self, candidate: &TreeEdits) {
        for &(node, target) in &candidate.hoisted {
            if node != target
                && self.tree.is_descendant(node, target)
                && node.index() < self.state.len()
            {
                self.state[node.index()] = target.0;
                self.placed_at.insert(target, node);
                self.touch(node);
            }
        }
        for &node in &candidate.removed {
            if let Some(slot) = self.state.get_mut(node.index()) {
                *slot = REMOVED;
                self.touch(node);
            }
        }
    }

    /// Marks a node and its ancestors as holding an edit.
    fn touch(&mut self, node: NodeId) {
        let mut current = Some(node);
        while let Some(id) = current {
            if self.touched[id.index()] {
                break;
            }
            self.touched[id.index()] = true;
            current = self.tree.parent(id);
        }
    }
}
