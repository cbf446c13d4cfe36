//! Pruning a configuration of tree nodes with ddmin (or a chunk sweep): the configuration is a
//! list of nodes, a candidate keeps some and replaces the others by their Φ (and the companions
//! of the nodes it removes, [`Companions`]). Where ddmin leaves one node, the empty
//! configuration is tried too (ddmin assumes it is not interesting and never tests it; a sweep
//! tries it itself).

use std::ops::Range;
use std::sync::{Arc, Mutex};

use crate::algorithms::dd::{self, Domain};
use crate::algorithms::probdd;
use crate::algorithms::sweep::{Patience, Swept, sweep_patiently};
use crate::exec::cache::UnitId;
use crate::params::{BeliefOptions, DdOptions, SplitFactor};
use crate::testing::control::Stop;
use crate::testing::tester::Tester;
use crate::tree::{Companions, Layout, NodeId, TreeEdits, TreeState};

use super::algorithm::Pruner;

/// A configuration of nodes: unit `k` is `nodes[k]`; the rendering keeps the units of the
/// configuration and removes the other nodes.
pub(super) struct NodesDomain<'a> {
    pub state: &'a TreeState,
    pub nodes: &'a [NodeId],
    /// The nodes that go with the last of the nodes defining what they name.
    pub companions: Companions,
    /// Where the nodes are in the rendering of all of them (the state's), when known already.
    pub layout: Option<&'a Layout>,
    /// The spans of the last configuration asked for (a configuration only shrinks, so its
    /// length tells it), for displays: ddmin asks each round, but its configuration changes
    /// only when a reduction is accepted.
    pub spans: Mutex<Option<(usize, Vec<Range<usize>>)>>,
    /// What the walk judges first once every node of the configuration is gone (see
    /// [`Pruning::after_emptied`]).
    pub after_emptied: Option<&'a TreeEdits>,
}

impl NodesDomain<'_> {
    /// The edit that keeps exactly the units of `parts` (consecutive slices, in order).
    pub fn candidate(&self, parts: &[&[UnitId]]) -> TreeEdits {
        let mut kept = parts
            .iter()
            .flat_map(|part| part.iter())
            .copied()
            .peekable();
        let mut removed = Vec::with_capacity(self.nodes.len());
        for (unit, &node) in self.nodes.iter().enumerate() {
            if kept.next_if_eq(&(unit as UnitId)).is_none() {
                removed.push(node);
            }
        }
        self.companions.complete(&mut removed);
        TreeEdits::removing(removed)
    }
}

impl Domain for NodesDomain<'_> {
    fn render(&self, parts: &[&[UnitId]], out: &mut Vec<u8>) {
        self.state.render_into(&self.candidate(parts), out);
    }

    /// The walk's next candidate with every node of the configuration removed, when none is
    /// kept.
    fn render_after(&self, kept: &[&[UnitId]], out: &mut Vec<u8>) -> bool {
        let Some(next) = self.after_emptied else {
            return false;
        };
        if kept.iter().any(|part| !part.is_empty()) {
            return false;
        }
        let mut edits = next.clone();
        edits.remove_all(self.nodes.iter().copied());
        self.state.render_into(&edits, out);
        true
    }

    /// Where each node of `config` is in the rendering of `config` (found by rendering it once
    /// per configuration).
    fn unit_spans(&self, config: &[UnitId]) -> Option<Vec<Range<usize>>> {
        let mut cached = self
            .spans
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        if let Some((len, spans)) = cached.as_ref()
            && *len == config.len()
        {
            return Some(spans.clone());
        }
        let rendered;
        let layout = match self.layout {
            Some(layout) if config.len() == self.nodes.len() => layout,
            _ => {
                rendered = self.state.layout(&self.candidate(&[config]));
                &rendered
            }
        };
        let spans: Vec<Range<usize>> = config
            .iter()
            .map(|&unit| {
                let node = self.nodes[unit as usize];
                self.state.span_in(layout, node).unwrap_or(0..0)
            })
            .collect();
        *cached = Some((config.len(), spans.clone()));
        Some(spans)
    }
}

/// How a configuration is pruned.
pub(super) struct Pruning<'a> {
    pub pruner: Pruner,
    /// The options of the inner ddmin.
    pub dd: &'a DdOptions,
    /// The options of the inner ProbDD or CDD.
    pub belief: &'a BeliefOptions,
    /// The whole walk runs again while it removes something: a chunk sweep makes one pass over
    /// each configuration (a unit that a later removal made removable is found by the next
    /// walk), since the walk that removes nothing is 1-minimal for every configuration anyway.
    pub walk_repeats: bool,
    /// The candidate the walk judges first after this configuration, on the current tree,
    /// should pruning remove every node of it: tested ahead while the one removing the last
    /// nodes is (when most tests pass, see [`Tester::expects_interesting`]).
    pub after_emptied: Option<&'a TreeEdits>,
    /// A chunk sweep over a long configuration may pause where it removes little (see
    /// [`crate::algorithms::sweep::sweep_patiently`]).
    pub patience: Option<Patience>,
}

/// How pruning a configuration ended.
#[derive(Debug, PartialEq, Eq)]
pub(super) enum Pruned {
    /// Done: what could go went.
    Done,
    /// The sweep paused (see [`Pruning::patience`]); what it removed is committed.
    Paused,
}

/// ddmin (or ProbDD, CDD) over `config` (nodes of the current tree whose text is the tester's
/// best), then the empty configuration if one node is left; or chunk sweeps over it (which try
/// the empty configuration themselves). Commits the removals to `state`.
/// `layout` tells where the nodes are in the best, when known already (for displays).
pub(super) fn prune(
    tester: &mut Tester,
    shared: &mut Arc<TreeState>,
    config: &[NodeId],
    pruning: &Pruning<'_>,
    layout: Option<&Layout>,
) -> Result<Pruned, Stop> {
    if config.is_empty() {
        return Ok(Pruned::Done);
    }
    tester.begin_universe();
    let state: &TreeState = shared;
    let domain = NodesDomain {
        state,
        nodes: config,
        companions: Companions::among(state, config),
        layout,
        spans: Mutex::new(None),
        after_emptied: pruning.after_emptied,
    };
    let units: Vec<UnitId> = (0..config.len() as UnitId).collect();
    let mut paused = false;
    let removal = match pruning.pruner {
        Pruner::Sweep => {
            let repeats = !pruning.walk_repeats;
            let swept = sweep_patiently(&domain, units, tester, repeats, pruning.patience)?;
            paused = matches!(swept, Swept::Paused(_));
            domain.candidate(&[&swept.kept()])
        }
        Pruner::Ddmin => {
            let kept = dd::ddmin(&domain, units, tester, pruning.dd)?;
            empty_configuration(tester, &domain, &kept)?
        }
        Pruner::Belief(model) => {
            let kept = probdd::minimize(&domain, units, tester, model, pruning.belief)?;
            empty_configuration(tester, &domain, &kept)?
        }
    };
    if !removal.is_empty() {
        Arc::make_mut(shared).commit(&removal);
    }
    debug_assert_eq!(shared.text(), tester.best(), "the tree follows the best");
    Ok(if paused { Pruned::Paused } else { Pruned::Done })
}

/// The removal ddmin's result `kept` makes; where it is one node, the empty configuration is
/// tried too (ddmin never tests it), and taken when interesting.
fn empty_configuration(
    tester: &mut Tester,
    domain: &NodesDomain<'_>,
    kept: &[UnitId],
) -> Result<TreeEdits, Stop> {
    let removal = domain.candidate(&[kept]);
    let [only] = kept[..] else {
        return Ok(removal);
    };
    let node = domain.nodes[only as usize];
    if dd::without_the_last(tester, domain, only, node.index() as u32)? {
        return Ok(domain.candidate(&[]));
    }
    Ok(removal)
}

/// The candidates pruning judges first on a configuration of `len` nodes, should the ones
/// before all fail (for the walk's lookahead): for each, the positions of the nodes it keeps.
/// A sweep's first window ([`crate::algorithms::sweep::first_window`]); ddmin's
/// ([`dd::first_window`]), ProbDD's or CDD's first steps ([`probdd::first_window`]), or with
/// one node the empty configuration, which pruning tries after ddmin.
pub(super) fn first_candidates(
    len: usize,
    pruner: Pruner,
    nu: SplitFactor,
    options: &DdOptions,
    belief: &BeliefOptions,
) -> Vec<Vec<Range<usize>>> {
    /// ProbDD's and CDD's steps foreseen per configuration.
    const BELIEF_STEPS: usize = 4;
    match (pruner, len) {
        (Pruner::Sweep, _) => crate::algorithms::sweep::first_window(len),
        (Pruner::Belief(model), _) => probdd::first_window(len, model, belief, BELIEF_STEPS),
        (Pruner::Ddmin, 1) => vec![Vec::new()],
        (Pruner::Ddmin, _) => dd::first_window(len, nu, options),
    }
}
