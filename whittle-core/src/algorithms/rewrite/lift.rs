//! `lift`: a node is replaced by one of its named descendants, whatever their kinds: any named
//! descendant up to [`MAX_DEPTH`] levels down, or at any depth one of the node's own kind or a
//! node (not a token) of a kind the grammar names for the node's place (the call inside a
//! subquery inside a query's column: `SELECT (SELECT * FROM t WHERE f())` → `SELECT f()`); the
//! syntax guard and the test decide what is valid. The descendants that leave least come first.

use super::Round;
use crate::tree::NodeId;

/// How many levels below a node a descendant of another kind may lie.
pub const MAX_DEPTH: usize = 2;

/// The descendants `node` may be lifted to, the shortest text (largest gain) first, then in
/// document order. Synthetic levels (flattened rests) are not counted.
pub fn targets(round: &Round, node: NodeId) -> Vec<NodeId> {
    let tree = &*round.tree;
    if tree.is_token(node) || tree.is_synthetic(node) {
        return Vec::new();
    }
    let own_chars = round.chars_of(node);
    let kind = tree.kind_id(node);
    let allowed_here = tree.kinds_allowed_at(node);
    let fits_here = |target: NodeId| {
        !tree.is_token(target)
            && allowed_here.is_some_and(|allowed| allowed.contains(&tree.kind_id(target)))
    };
    let mut found: Vec<NodeId> = Vec::new();
    let mut stack: Vec<(NodeId, usize)> = tree.children(node).map(|child| (child, 1)).collect();
    while let Some((current, depth)) = stack.pop() {
        let synthetic = tree.is_synthetic(current);
        let same_kind = tree.kind_id(current) == kind;
        if !synthetic
            && tree.is_named(current)
            && !tree.is_extra(current)
            && (depth <= MAX_DEPTH || same_kind || fits_here(current))
            && (1..own_chars).contains(&round.chars_of(current))
            && round.pins.allow_hoist(node, current)
        {
            found.push(current);
        }
        let below = if synthetic { depth } else { depth + 1 };
        stack.extend(tree.children(current).map(|child| (child, below)));
    }
    found.sort_by_key(|&target| (tree.byte_range(target).len(), target));
    // A chain of nodes over the same bytes gives one text.
    found.dedup_by_key(|target| tree.byte_range(*target));
    found
}
