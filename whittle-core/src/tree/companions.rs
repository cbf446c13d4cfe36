//! Companions: nodes that are no valid text without the siblings that define what they name
//! (a Haskell type signature without its function's equations, a TypeScript overload without
//! its implementation). The grammar profile lists their kinds (`[companions]`); a removal that
//! takes every definer of a name takes its companions too, so the pair goes in one test.

use std::collections::{HashMap, HashSet};

use super::{NodeId, Tree, TreeState};

/// The field of a companion and of its definers that holds the name.
const NAME_FIELD: &str = "name";

/// A companion and the siblings that define what it names.
#[derive(Debug)]
struct Group {
    companion: NodeId,
    definers: Vec<NodeId>,
}

/// The companions of one configuration of nodes whose definers are all in it.
#[derive(Debug, Default)]
pub struct Companions {
    groups: Vec<Group>,
}

impl Companions {
    /// The companions whose definers (at least one in the current tree) are all among `nodes`
    /// (visible nodes of `state`): only a removal of `nodes` can take all of them.
    pub fn among(state: &TreeState, nodes: &[NodeId]) -> Companions {
        let tree: &Tree = state.tree();
        let tables = tree.tables();
        let companions: Vec<NodeId> = nodes
            .iter()
            .copied()
            .filter(|&node| !tables.definers_of(tree.kind_id(node)).is_empty())
            .collect();
        if companions.is_empty() {
            return Companions::default();
        }
        let members: HashSet<NodeId> = nodes.iter().copied().collect();
        // Per parent, the siblings that define something, by kind and name.
        let mut definitions: HashMap<NodeId, Vec<(NodeId, &[u8])>> = HashMap::new();
        let mut groups = Vec::new();
        for companion in companions {
            // A hoisted companion, or one whose parent shows another node, is left alone.
            let Some(parent) = tree.parent(companion) else {
                continue;
            };
            if state.place_of(companion) != companion || state.visible(parent) != Some(parent) {
                continue;
            }
            let Some(name) = name_of(tree, companion) else {
                continue;
            };
            let siblings = definitions.entry(parent).or_insert_with(|| {
                state
                    .children(parent)
                    .into_iter()
                    .filter_map(|child| Some((child, name_of(tree, child)?)))
                    .collect()
            });
            let kinds = tables.definers_of(tree.kind_id(companion));
            let definers: Vec<NodeId> = siblings
                .iter()
                .filter(|&&(sibling, sibling_name)| {
                    sibling_name == name && kinds.contains(&tree.kind_id(sibling))
                })
                .map(|&(sibling, _)| sibling)
                .collect();
            if !definers.is_empty() && definers.iter().all(|node| members.contains(node)) {
                groups.push(Group {
                    companion,
                    definers,
                });
            }
        }
        Companions { groups }
    }

    /// Whether there are none.
    pub fn is_empty(&self) -> bool {
        self.groups.is_empty()
    }

    /// Adds to `removed` the companions all of whose definers it holds (and that it lacks).
    pub fn complete(&self, removed: &mut Vec<NodeId>) {
        if self.groups.is_empty() {
            return;
        }
        let taken: HashSet<NodeId> = removed.iter().copied().collect();
        for group in &self.groups {
            if !taken.contains(&group.companion)
                && group.definers.iter().all(|node| taken.contains(node))
            {
                removed.push(group.companion);
            }
        }
    }
}

/// The text of the node's `name` field, if it has one.
fn name_of(tree: &Tree, node: NodeId) -> Option<&[u8]> {
    tree.children(node)
        .find(|&child| tree.field_name(child) == Some(NAME_FIELD))
        .map(|child| tree.text(child))
}

#[cfg(all(test, feature = "lang-haskell"))]
mod tests {
    use super::*;
    use crate::tree::{Language, Preprocess, parse};
    use std::sync::Arc;

    const SOURCE: &[u8] =
        b"module M where\nf :: Int -> Int\nf 0 = 1\nf n = n\ng :: Int\ng = 1\nk :: Int\n";

    /// The declarations of `SOURCE` in the current tree, and the state.
    fn declarations() -> (TreeState, Vec<NodeId>) {
        let language = Language::by_name("haskell").expect("built with Haskell");
        let tree = parse(language, SOURCE.to_vec(), Preprocess::default()).expect("parses");
        let state = TreeState::new(Arc::clone(&tree));
        let parent = tree
            .ids()
            .find(|&id| tree.kind(id) == "declarations")
            .expect("declarations");
        let nodes = state.children(parent);
        (state, nodes)
    }

    fn texts(state: &TreeState, nodes: &[NodeId]) -> Vec<String> {
        nodes
            .iter()
            .map(|&id| String::from_utf8_lossy(state.tree().text(id)).into_owned())
            .collect()
    }

    #[test]
    fn a_signature_goes_with_the_last_equation_of_its_function() {
        let (state, nodes) = declarations();
        assert_eq!(
            texts(&state, &nodes),
            [
                "f :: Int -> Int",
                "f 0 = 1",
                "f n = n",
                "g :: Int",
                "g = 1",
                "k :: Int"
            ]
        );
        let companions = Companions::among(&state, &nodes);
        let completed = |removed: &[usize]| {
            let mut removed: Vec<NodeId> = removed.iter().map(|&k| nodes[k]).collect();
            companions.complete(&mut removed);
            removed.sort();
            texts(&state, &removed)
        };
        // One equation of two: the signature stays.
        assert_eq!(completed(&[1]), ["f 0 = 1"]);
        // Both: it goes.
        assert_eq!(
            completed(&[1, 2]),
            ["f :: Int -> Int", "f 0 = 1", "f n = n"]
        );
        // A binding takes its signature; a signature alone goes alone.
        assert_eq!(completed(&[4]), ["g :: Int", "g = 1"]);
        assert_eq!(completed(&[3]), ["g :: Int"]);
        // A signature that nothing beside it defines (`k`) is no companion.
        assert_eq!(companions.groups.len(), 2);
    }

    #[test]
    fn a_signature_whose_definers_are_not_all_in_the_configuration_stays() {
        let (state, nodes) = declarations();
        // The second equation of `f` is not pruned with the others.
        let some: Vec<NodeId> = nodes.iter().copied().filter(|&id| id != nodes[2]).collect();
        let companions = Companions::among(&state, &some);
        let mut removed = vec![nodes[1]];
        companions.complete(&mut removed);
        assert_eq!(removed, [nodes[1]]);
        let mut removed = vec![nodes[4]];
        companions.complete(&mut removed);
        assert_eq!(removed, [nodes[4], nodes[3]]);
    }
}
