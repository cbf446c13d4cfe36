//! The turns of HDD^r's walk still to come: a node whose children are to be reduced, or (in the
//! `-sweep` variants) a node's small children that wait while larger text is reduced.

use std::cmp::Reverse;
use std::collections::{BTreeMap, VecDeque};

use crate::tree::{NodeId, TreeState};

/// A child is small beside its largest sibling when this many of it fit in that sibling.
const SMALL_AGAINST_LARGEST: usize = 64;

/// The small children of a node wait only while all of them together hold at most this share
/// of the node's children's bytes (one part in this many).
const SMALL_SHARE_OF_SET: usize = 8;

/// Nor on a node whose children hold fewer bytes than this: on a small text a sweep over its
/// small children costs little time, and the order of the edits there is the one measured
/// (without this limit a 5.8 KB C++ task of `bench/generality` ended larger).
const LEAST_SET_BYTES: usize = 32 * 1024;

/// One turn of the walk.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) enum Turn {
    /// The children of this node are reduced (the small ones may wait: see [`split_small`]).
    Children(NodeId),
    /// These children of `parent`, small beside a sibling, are reduced after the larger text.
    Small { parent: NodeId, nodes: Vec<NodeId> },
    /// A turn whose sweep paused (it removed little), taken again once the rest of the walk
    /// had its turns; `own_turn` when it was `parent`'s own.
    Again {
        parent: NodeId,
        nodes: Vec<NodeId>,
        own_turn: bool,
    },
}

/// The children of a node split into those reduced at its turn and the small ones that wait
/// for a turn of their own, queued by their bytes together: beside a sibling that holds most of
/// the text (the class after a file's imports), removing them one run at a time costs as many
/// tests as a sweep over the large one's children while it saves next to nothing, and most of
/// them (the imports) are needed only by text that the reduction of their large sibling
/// removes. The split is made only in a set of [`LEAST_SET_BYTES`] or more where the small ones
/// together hold a small share of it.
pub(super) fn split_small(state: &TreeState, children: Vec<NodeId>) -> (Vec<NodeId>, Vec<NodeId>) {
    let sizes: Vec<usize> = children
        .iter()
        .map(|&node| state.tree().byte_range(node).len())
        .collect();
    let total: usize = sizes.iter().sum();
    if total < LEAST_SET_BYTES {
        return (children, Vec::new());
    }
    let largest = sizes.iter().copied().max().unwrap_or(0);
    let is_small = |size: usize| size.saturating_mul(SMALL_AGAINST_LARGEST) < largest;
    let (mut large, mut small) = (Vec::new(), Vec::new());
    let mut small_bytes = 0;
    for (node, size) in children.iter().copied().zip(sizes) {
        if is_small(size) {
            small.push(node);
            small_bytes += size;
        } else {
            large.push(node);
        }
    }
    if small.is_empty() || small_bytes.saturating_mul(SMALL_SHARE_OF_SET) > total {
        return (children, Vec::new());
    }
    (large, small)
}

/// The walk's turns to come with their depths: first in, first out (breadth first, the
/// papers' queue), or the largest first (by the bytes of the node, or of the small nodes
/// together, in the parsed text; ties first in, first out), as Perses' priority queue: the
/// `-sweep` variants, beyond the papers, reduce inside the nodes that hold the most text before
/// the small ones, so the best shrinks sooner (on a 6.5 KB JavaScript file 2828 → 1917
/// non-whitespace characters after 60 s, `docs/benchmarks.md` section 17).
pub(super) enum NodeQueue {
    Fifo(VecDeque<(Turn, usize)>),
    /// Keyed by the turn's bytes (largest first) and the order of arrival.
    Largest {
        turns: BTreeMap<(Reverse<usize>, u64), (Turn, usize)>,
        arrivals: u64,
    },
}

impl NodeQueue {
    pub(super) fn new(largest_first: bool) -> Self {
        if largest_first {
            NodeQueue::Largest {
                turns: BTreeMap::new(),
                arrivals: 0,
            }
        } else {
            NodeQueue::Fifo(VecDeque::new())
        }
    }

    /// Whether the largest turn comes first (and small children may wait).
    pub(super) fn largest_first(&self) -> bool {
        matches!(self, NodeQueue::Largest { .. })
    }

    /// Queues the turn of `node`'s children.
    pub(super) fn push(&mut self, state: &TreeState, node: NodeId, depth: usize) {
        self.push_turn(state, Turn::Children(node), depth);
    }

    pub(super) fn push_turn(&mut self, state: &TreeState, turn: Turn, depth: usize) {
        match self {
            NodeQueue::Fifo(queue) => queue.push_back((turn, depth)),
            NodeQueue::Largest { turns, arrivals } => {
                let bytes = |node: NodeId| state.tree().byte_range(node).len();
                let size = match &turn {
                    Turn::Children(node) => bytes(*node),
                    Turn::Small { nodes, .. } | Turn::Again { nodes, .. } => {
                        nodes.iter().map(|&node| bytes(node)).sum()
                    }
                };
                turns.insert((Reverse(size), *arrivals), (turn, depth));
                *arrivals += 1;
            }
        }
    }

    pub(super) fn pop(&mut self) -> Option<(Turn, usize)> {
        match self {
            NodeQueue::Fifo(queue) => queue.pop_front(),
            NodeQueue::Largest { turns, .. } => turns.pop_first().map(|(_, entry)| entry),
        }
    }

    /// The turns in the order they will be taken.
    pub(super) fn upcoming(&self) -> Box<dyn Iterator<Item = &Turn> + '_> {
        match self {
            NodeQueue::Fifo(queue) => Box::new(queue.iter().map(|(turn, _)| turn)),
            NodeQueue::Largest { turns, .. } => Box::new(turns.values().map(|(turn, _)| turn)),
        }
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use super::*;
    use crate::tree::{Language, Preprocess};

    fn json_state(text: &[u8]) -> TreeState {
        let json = Language::by_name("json").expect("json is compiled in");
        let tree = crate::tree::parse(json, text.to_vec(), Preprocess::default()).expect("parse");
        TreeState::new(Arc::clone(&tree))
    }

    fn first_array(state: &TreeState) -> NodeId {
        let tree = state.tree();
        tree.ids()
            .find(|&id| tree.kind(id) == "array")
            .expect("array")
    }

    fn texts(state: &TreeState, nodes: &[NodeId]) -> Vec<String> {
        nodes
            .iter()
            .map(|&node| String::from_utf8_lossy(state.tree().text(node)).into_owned())
            .collect()
    }

    /// The sweep variants' queue takes the node with the most text first (ties in order of
    /// arrival); the papers' queue takes them as they came.
    #[test]
    #[cfg_attr(
        not(feature = "lang-json"),
        ignore = "needs the JSON grammar (cargo feature lang-json)"
    )]
    fn the_largest_node_comes_first_and_ties_keep_their_order() {
        let state = json_state(br#"[1, [22, 333], 4444, [5], 6666]"#);
        let elements = state.children(first_array(&state));
        let order = |queue: &mut NodeQueue| {
            let nodes: Vec<NodeId> = std::iter::from_fn(|| queue.pop())
                .map(|(turn, _)| match turn {
                    Turn::Children(node) => node,
                    Turn::Small { .. } | Turn::Again { .. } => {
                        unreachable!("only nodes were queued")
                    }
                })
                .collect();
            texts(&state, &nodes)
        };
        let mut largest = NodeQueue::new(true);
        let mut fifo = NodeQueue::new(false);
        for &node in &elements {
            largest.push(&state, node, 1);
            fifo.push(&state, node, 1);
        }
        let upcoming: Vec<usize> = largest
            .upcoming()
            .map(|turn| match turn {
                Turn::Children(node) => state.tree().text(*node).len(),
                Turn::Small { .. } | Turn::Again { .. } => 0,
            })
            .collect();
        assert_eq!(
            order(&mut largest),
            [
                "[22, 333]",
                "4444",
                "6666",
                "[5]",
                "[",
                "1",
                ",",
                ",",
                ",",
                ",",
                "]"
            ]
        );
        assert_eq!(upcoming, [9, 4, 4, 3, 1, 1, 1, 1, 1, 1, 1]);
        assert_eq!(
            order(&mut fifo),
            [
                "[",
                "1",
                ",",
                "[22, 333]",
                ",",
                "4444",
                ",",
                "[5]",
                ",",
                "6666",
                "]"
            ]
        );
    }

    /// Beside an element that holds most of the text, the small ones wait, queued by their bytes
    /// together; where they hold a share of the text, nothing waits.
    #[test]
    #[cfg_attr(
        not(feature = "lang-json"),
        ignore = "needs the JSON grammar (cargo feature lang-json)"
    )]
    fn small_children_wait_beside_one_that_holds_most_of_the_text() {
        let big = format!("[{}]", vec!["12345678"; 4000].join(", "));
        let text = format!("[1, 2, {big}, 3]");
        let state = json_state(text.as_bytes());
        let elements = state.children(first_array(&state));
        let (large, small) = split_small(&state, elements.clone());
        assert_eq!(texts(&state, &large), [big.as_str()]);
        assert_eq!(
            texts(&state, &small),
            ["[", "1", ",", "2", ",", ",", "3", "]"]
        );
        let mut queue = NodeQueue::new(true);
        queue.push(&state, large[0], 1);
        let parent = first_array(&state);
        queue.push_turn(
            &state,
            Turn::Small {
                parent,
                nodes: small.clone(),
            },
            0,
        );
        assert_eq!(
            queue.pop().map(|(turn, _)| turn),
            Some(Turn::Children(large[0]))
        );
        assert_eq!(
            queue.pop().map(|(turn, _)| turn),
            Some(Turn::Small {
                parent,
                nodes: small
            })
        );

        // Small elements that together hold an eighth of the text or more do not wait.
        let text = format!("[{big}, {}]", vec!["1"; 3000].join(", "));
        let state = json_state(text.as_bytes());
        let elements = state.children(first_array(&state));
        let (large, small) = split_small(&state, elements.clone());
        assert_eq!((large, small), (elements, Vec::new()));
        // Nor on a small text.
        let big = format!("[{}]", vec!["12345678"; 100].join(", "));
        let text = format!("[1, 2, {big}, 3]");
        let state = json_state(text.as_bytes());
        let elements = state.children(first_array(&state));
        let (large, small) = split_small(&state, elements.clone());
        assert_eq!((large, small), (elements, Vec::new()));
    }
}
