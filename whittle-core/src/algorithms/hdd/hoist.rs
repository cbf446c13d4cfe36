//! TMIN^χ (Fig. 7.5 with χ of Fig. 7.6): replace nodes by compatible descendants while the test
//! case stays interesting, until no single hoist of any node of the set applies (1-maximal).
//!
//! The candidates of a node are χ of the node visible at its place, farthest first; nodes are
//! visited in document order. After a successful hoist the search goes on at the same node
//! (its new χ lies deeper) and then at the following nodes, wrapping around, and ends when a
//! whole round over the set finds nothing: each hoist left untried was tried on the final text.
//! The candidates of one round are judged as one lazy window, so hoisting runs in parallel with
//! `--jobs` and stays deterministic (the first interesting one in order wins).

use std::ops::Range;
use std::sync::Arc;

use crate::exec::cache::UnitId;
use crate::observe::events::{Branch, Candidate, CandidateKind};
use crate::testing::control::Stop;
use crate::testing::tester::{CandidateSource, Tester, WindowPolicy};
use crate::tree::{Layout, NodeId, TreeEdits, TreeState};

use super::pinned_nodes::PinnedNodes;

/// One round of hoisting candidates: (index in the node set, node, descendant).
struct HoistWindow<'a> {
    state: &'a TreeState,
    hoists: Vec<(usize, NodeId, NodeId)>,
    /// Where the nodes are in the current best, when a display wants to know.
    layout: Option<Layout>,
}

impl CandidateSource for HoistWindow<'_> {
    fn len(&self) -> usize {
        self.hoists.len()
    }

    fn candidate(&self, i: usize) -> Candidate {
        let (_, node, target) = self.hoists[i];
        Candidate {
            kind: CandidateKind::Hoist,
            index: node.index() as u32,
            n: target.index() as u32,
        }
    }

    fn config(&self, _: usize) -> Option<Vec<&[UnitId]>> {
        None
    }

    fn render(&self, i: usize, out: &mut Vec<u8>) {
        let (_, node, target) = self.hoists[i];
        self.state
            .render_into(&TreeEdits::hoisting(node, target), out);
    }

    /// The node's bytes before the descendant and after it (two spans, either may be empty):
    /// the descendant's bytes take the node's place.
    fn removed_spans(&self, i: usize) -> Vec<Range<usize>> {
        let (_, node, target) = self.hoists[i];
        let Some(layout) = &self.layout else {
            return Vec::new();
        };
        match (
            self.state.span_in(layout, node),
            self.state.span_in(layout, target),
        ) {
            (Some(outer), Some(inner)) => vec![outer.start..inner.start, inner.end..outer.end],
            _ => Vec::new(),
        }
    }
}

/// The hoists worth trying for the node at `place`: χ of the visible node, farthest first,
/// without those that would not change the text or would drop a pinned node.
pub(super) fn hoists_of(
    state: &TreeState,
    pins: &PinnedNodes,
    place: NodeId,
) -> Vec<(NodeId, NodeId)> {
    let Some(node) = state.visible(place) else {
        return Vec::new();
    };
    let tree = state.tree();
    let range = tree.byte_range(node);
    state
        .hoist_candidates(node)
        .into_iter()
        .filter(|&(target, _)| tree.byte_range(target) != range && pins.allow_hoist(node, target))
        .map(|(target, _)| (node, target))
        .collect()
}

/// TMIN^χ over `nodes` (places in the current tree). Commits each hoist to `state`. `layout`
/// tells where the nodes are in the best, when known already (for displays).
/// Nodes with more than `most` hoists are left out (see [`hoist_round`]).
pub(super) fn tmin(
    tester: &mut Tester,
    shared: &mut Arc<TreeState>,
    nodes: &[NodeId],
    pins: &PinnedNodes,
    layout: Option<&Layout>,
    most: usize,
) -> Result<(), Stop> {
    let mut known = layout.cloned();
    let mut start = 0;
    while let Some(slot) = hoist_round(tester, shared, nodes, start, pins, known.take(), most)? {
        start = slot;
    }
    Ok(())
}

/// One round of TMIN^χ over `nodes` from the one at `start` on, wrapping around: their hoists
/// judged as one window, the first interesting one accepted and committed to `shared`; a node
/// with more than `most` hoists is left out. Returns the index in `nodes` of the node hoisted,
/// `None` when no hoist applies.
#[allow(clippy::too_many_arguments)]
pub(super) fn hoist_round(
    tester: &mut Tester,
    shared: &mut Arc<TreeState>,
    nodes: &[NodeId],
    start: usize,
    pins: &PinnedNodes,
    layout: Option<Layout>,
    most: usize,
) -> Result<Option<usize>, Stop> {
    let state: &TreeState = shared;
    let mut hoists = Vec::new();
    for k in 0..nodes.len() {
        let slot = (start + k) % nodes.len();
        let of_node = hoists_of(state, pins, nodes[slot]);
        if of_node.len() <= most {
            hoists.extend(
                of_node
                    .into_iter()
                    .map(|(node, target)| (slot, node, target)),
            );
        }
    }
    if hoists.is_empty() {
        return Ok(None);
    }
    // Where the nodes are: as given, else rendered when a display wants them.
    let layout = layout.or_else(|| {
        tester
            .wants_spans()
            .then(|| state.layout(&TreeEdits::new()))
    });
    let window = HoistWindow {
        state,
        hoists,
        layout,
    };
    let found = tester.run_window(&window, WindowPolicy::FirstInOrder)?;
    let Some(&i) = found.first() else {
        return Ok(None);
    };
    let (slot, node, target) = window.hoists[i];
    let probe = window.candidate(i);
    let mut content = Vec::new();
    window.render(i, &mut content);
    tester.accept(content, None, Branch::Hoist, probe);
    drop(window);
    Arc::make_mut(shared).commit(&TreeEdits::hoisting(node, target));
    debug_assert_eq!(shared.text(), tester.best(), "the tree follows the best");
    Ok(Some(slot))
}
