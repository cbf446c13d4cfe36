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
use super::undeclaring::SoleDeclarations;

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
    state
        .hoist_candidates(node)
        .into_iter()
        .filter(|&(target, _)| worth_trying(state, pins, node, target))
        .map(|(target, _)| (node, target))
        .collect()
}

/// Whether hoisting `target` into the visible node `node`'s place is worth a test: it changes
/// the text and drops no pinned node.
fn worth_trying(state: &TreeState, pins: &PinnedNodes, node: NodeId, target: NodeId) -> bool {
    let tree = state.tree();
    tree.byte_range(target) != tree.byte_range(node) && pins.allow_hoist(node, target)
}

/// How TMIN^χ runs in a walk: the papers' way (`most` unbounded, no galloping), or the `-sweep`
/// variants' (beyond the papers).
#[derive(Clone, Copy)]
pub(super) struct HoistPolicy<'a> {
    /// Nodes with more hoists than this are left out (see [`hoist_round`]).
    pub most: usize,
    /// After two hoists in a row at the same place, try a hoist down the chain of hoists
    /// (see [`chain_hoist`]), twice as far at each success and half as far after a failure,
    /// before the round's own hoists: a chain of a thousand `else if` arms, nested arrays or
    /// terms of a sum then goes in a few dozen tests instead of one test a level. The result
    /// is still 1-maximal: TMIN^χ ends only when a whole round of χ's hoists found nothing.
    pub gallop: bool,
    /// When given, hoists that would leave a name undeclared are passed over (a later walk
    /// tries them: see [`SoleDeclarations`]).
    pub undeclaring: Option<&'a SoleDeclarations>,
}

impl HoistPolicy<'_> {
    /// The papers' TMIN^χ.
    pub(super) const PAPERS: HoistPolicy<'static> = HoistPolicy {
        most: usize::MAX,
        gallop: false,
        undeclaring: None,
    };

    /// Whether hoisting `target` into `node`'s place waits for a later walk.
    pub(super) fn waits(&self, state: &TreeState, node: NodeId, target: NodeId) -> bool {
        self.undeclaring
            .is_some_and(|names| names.undeclares(state, node, target))
    }

    /// Whether the walk passes over hoisting `target` into `node`'s place now (it
    /// [`HoistPolicy::waits`]); notes it when so, for a later walk to try it.
    pub(super) fn passes_over(&self, state: &TreeState, node: NodeId, target: NodeId) -> bool {
        let waits = self.waits(state, node, target);
        if let Some(names) = self.undeclaring.filter(|_| waits) {
            names.pass_over();
        }
        waits
    }
}

/// TMIN^χ over `nodes` (places in the current tree). Commits each hoist to `state`. `layout`
/// tells where the nodes are in the best, when known already (for displays).
pub(super) fn tmin(
    tester: &mut Tester,
    shared: &mut Arc<TreeState>,
    nodes: &[NodeId],
    pins: &PinnedNodes,
    layout: Option<&Layout>,
    policy: HoistPolicy<'_>,
) -> Result<(), Stop> {
    let mut known = layout.cloned();
    let mut round = Round {
        nodes,
        start: 0,
        jump: None,
        policy,
    };
    let mut gallop = Gallop::default();
    loop {
        round.jump = if policy.gallop {
            gallop
                .levels(round.start)
                .and_then(|levels| chain_hoist(shared, pins, nodes[round.start], levels))
                .filter(|&(node, target)| !policy.passes_over(shared, node, target))
        } else {
            None
        };
        let Some(hoisted) = hoist_round(tester, shared, &round, pins, known.take())? else {
            return Ok(());
        };
        gallop.record(hoisted, round.jump.is_some());
        round.start = hoisted.slot;
    }
}

/// Where TMIN^χ gallops down a chain of hoists: the place hoisted last and how many levels
/// down the next jump goes (none under two).
#[derive(Default)]
struct Gallop {
    slot: Option<usize>,
    levels: usize,
}

impl Gallop {
    /// How far down to jump at the place `slot` in the next round, if at all.
    fn levels(&self, slot: usize) -> Option<usize> {
        (self.slot == Some(slot) && self.levels >= 2).then_some(self.levels)
    }

    /// A round hoisted at `hoisted.slot`; it had offered a jump when `offered`.
    fn record(&mut self, hoisted: Hoisted, offered: bool) {
        if self.slot != Some(hoisted.slot) {
            *self = Gallop {
                slot: Some(hoisted.slot),
                levels: 1,
            };
            return;
        }
        self.levels = match (offered, hoisted.jumped) {
            (_, true) => self.levels.saturating_mul(2),
            (true, false) => (self.levels / 2).max(1),
            // A second hoist in a row: jump next (with no chain to jump down, stay).
            (false, false) => self.levels.max(2),
        };
    }
}

/// The hoist `levels` steps down the chain of hoists from the node at `place`: its first hoist
/// (the farthest of χ), then, below that one, the first node that may take the place, and so
/// on. `None` when the chain is shorter than two steps (the round's own first hoist is then
/// as far).
pub(super) fn chain_hoist(
    state: &TreeState,
    pins: &PinnedNodes,
    place: NodeId,
    levels: usize,
) -> Option<(NodeId, NodeId)> {
    let node = state.visible(place)?;
    let mut target = node;
    let mut steps = 0;
    while steps < levels {
        let next = state
            .hoistables_under(node, target)
            .into_iter()
            .map(|(next, _)| next)
            .find(|&next| worth_trying(state, pins, node, next));
        match next {
            Some(next) => target = next,
            None => break,
        }
        steps += 1;
    }
    (steps >= 2).then_some((node, target))
}

/// One round of TMIN^χ: the nodes whose hoists it judges, from which one on, and what it
/// tries before them.
pub(super) struct Round<'a> {
    /// Places in the current tree.
    pub nodes: &'a [NodeId],
    /// The index in `nodes` the round starts at, wrapping around.
    pub start: usize,
    /// A hoist down a chain at the place `nodes[start]`, tried first ([`HoistPolicy::gallop`]).
    pub jump: Option<(NodeId, NodeId)>,
    /// Which nodes it leaves out ([`HoistPolicy::most`]) and which hoists it passes over
    /// ([`HoistPolicy::undeclaring`]).
    pub policy: HoistPolicy<'a>,
}

/// What a round hoisted: at which index of its nodes, and whether by its jump.
#[derive(Clone, Copy, Debug)]
pub(super) struct Hoisted {
    pub slot: usize,
    pub jumped: bool,
}

/// One round of TMIN^χ over `round.nodes` from the one at `round.start` on, wrapping around:
/// its jump and then the nodes' hoists judged as one window, the first interesting one
/// accepted and committed to `shared`; a node with more than `round.policy.most` hoists is
/// left out, and so are the hoists the policy passes over. `None` when no hoist applies.
pub(super) fn hoist_round(
    tester: &mut Tester,
    shared: &mut Arc<TreeState>,
    round: &Round<'_>,
    pins: &PinnedNodes,
    layout: Option<Layout>,
) -> Result<Option<Hoisted>, Stop> {
    let state: &TreeState = shared;
    let nodes = round.nodes;
    let mut hoists: Vec<(usize, NodeId, NodeId)> = round
        .jump
        .map(|(node, target)| (round.start, node, target))
        .into_iter()
        .collect();
    for k in 0..nodes.len() {
        let slot = (round.start + k) % nodes.len();
        let of_node = hoists_of(state, pins, nodes[slot]);
        if of_node.len() <= round.policy.most {
            hoists.extend(
                of_node
                    .into_iter()
                    .filter(|&(node, target)| !round.policy.passes_over(state, node, target))
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
    Ok(Some(Hoisted {
        slot,
        jumped: i == 0 && round.jump.is_some(),
    }))
}
