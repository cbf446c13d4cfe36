//! Pruning a configuration of tree nodes with ddmin: the configuration is a list of nodes, a
//! candidate keeps some and replaces the others by their Φ. Where ddmin leaves one node, the
//! empty configuration is tried too (ddmin assumes it is not interesting and never tests it).

use crate::cache::UnitId;
use crate::control::Stop;
use crate::dd::{self, Domain};
use crate::events::{Branch, Candidate, CandidateKind};
use crate::params::DdOptions;
use crate::tester::Tester;
use crate::tree::{NodeId, TreeEdits, TreeState};

/// A configuration of nodes: unit `k` is `nodes[k]`; the rendering keeps the units of the
/// configuration and removes the other nodes.
pub(super) struct NodesDomain<'a> {
    pub state: &'a TreeState,
    pub nodes: &'a [NodeId],
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
        TreeEdits::removing(removed)
    }
}

impl Domain for NodesDomain<'_> {
    fn render(&self, parts: &[&[UnitId]], out: &mut Vec<u8>) {
        self.state.render_into(&self.candidate(parts), out);
    }
}

/// ddmin over `config` (nodes of the current tree whose text is the tester's best), then the
/// empty configuration if one node is left. Commits the removals to `state`.
pub(super) fn prune(
    tester: &mut Tester,
    state: &mut TreeState,
    config: &[NodeId],
    options: &DdOptions,
) -> Result<(), Stop> {
    if config.is_empty() {
        return Ok(());
    }
    tester.begin_universe();
    let domain = NodesDomain {
        state,
        nodes: config,
    };
    let units: Vec<UnitId> = (0..config.len() as UnitId).collect();
    let kept = dd::ddmin(&domain, units, tester, options)?;
    let mut removal = domain.candidate(&[&kept]);
    if let [only] = kept[..] {
        let node = config[only as usize];
        let mut all = removal.clone();
        all.remove_all([node]);
        let mut content = Vec::new();
        state.render_into(&all, &mut content);
        let probe = Candidate {
            kind: CandidateKind::EmptyConfig,
            index: node.index() as u32,
            n: 1,
        };
        let (outcome, _) = tester.judge_single(probe, &content)?;
        if outcome.is_interesting() {
            tester.accept(content, None, Branch::EmptyConfig, probe);
            removal = all;
        }
    }
    if !removal.is_empty() {
        state.commit(&removal);
    }
    debug_assert_eq!(state.text(), tester.best(), "the tree follows the best");
    Ok(())
}
