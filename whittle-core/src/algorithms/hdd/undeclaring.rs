//! Hoists that would leave a name undeclared: replacing a node by a descendant that drops the
//! only declaration of a name the rest of the text still uses (`var a = f(…)` replaced by a
//! statement from inside `f`'s argument) nearly always fails while the text is large, so the
//! `-sweep` variants leave such hoists to the walks after a stage run's first (see
//! `walk::undeclaring`).
//!
//! A declaration is a name (a named leaf whose kind is an identifier of any sort) where
//! [`tree::declares`] says it declares itself; names are compared by their text, whatever their
//! scope, so a name declared in two places is never counted (the other may be the one in use).

use std::cell::Cell;
use std::collections::HashMap;

use crate::tree::{self, NodeId, Tree, TreeState, is_name_kind};

/// The names of one parse declared exactly once and used elsewhere, with where they occur.
pub(super) struct SoleDeclarations {
    /// The declaring identifier of each such name, in document order, with the name's index in
    /// `occurrences`.
    declarations: Vec<(NodeId, usize)>,
    /// Per name: every identifier with its text, in document order.
    occurrences: Vec<Vec<NodeId>>,
    /// Whether a hoist was found to undeclare a name since the walk began.
    passed_over: Cell<bool>,
}

impl SoleDeclarations {
    /// The names of `tree` declared exactly once and occurring more than once.
    pub fn new(tree: &Tree) -> Self {
        let mut names: HashMap<&[u8], (Vec<NodeId>, Vec<NodeId>)> = HashMap::new();
        for id in tree.ids() {
            if !(tree.is_named(id) && tree.is_token(id) && is_name_kind(tree.kind(id))) {
                continue;
            }
            let (declaring, occurring) = names.entry(tree.text(id)).or_default();
            if declares(tree, id) {
                declaring.push(id);
            }
            occurring.push(id);
        }
        let mut declarations = Vec::new();
        let mut occurrences = Vec::new();
        for (declaring, occurring) in names.into_values() {
            if let ([declaration], 2..) = (declaring.as_slice(), occurring.len()) {
                declarations.push((*declaration, occurrences.len()));
                occurrences.push(occurring);
            }
        }
        declarations.sort_unstable();
        SoleDeclarations {
            declarations,
            occurrences,
            passed_over: Cell::new(false),
        }
    }

    /// Whether hoisting `target` into the visible node `node`'s place drops the only
    /// declaration of a name that still occurs outside `node` in the current text.
    pub fn undeclares(&self, state: &TreeState, node: NodeId, target: NodeId) -> bool {
        let tree = state.tree();
        let inside = |ancestor: NodeId, id: NodeId| tree.is_descendant(ancestor, id);
        let from = self.declarations.partition_point(|&(id, _)| id < node);
        self.declarations[from..]
            .iter()
            .take_while(|&&(id, _)| inside(node, id))
            .filter(|&&(id, _)| !inside(target, id) && state.is_shown(id))
            .any(|&(_, name)| {
                self.occurrences[name]
                    .iter()
                    .any(|&id| !inside(node, id) && state.is_shown(id))
            })
    }

    /// Notes that the walk passed over a hoist that [`SoleDeclarations::undeclares`] a name.
    pub fn pass_over(&self) {
        self.passed_over.set(true);
    }

    /// Whether a hoist was passed over ([`SoleDeclarations::pass_over`]) since these were made.
    pub fn passed_over(&self) -> bool {
        self.passed_over.get()
    }
}

/// Whether the identifier declares its name (see [`tree::declares`]).
fn declares(tree: &Tree, id: NodeId) -> bool {
    let parent = tree.parent(id).map(|parent| tree.kind(parent));
    tree::declares(tree.field_name(id), parent)
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use super::*;
    use crate::tree::{self, Language, Preprocess, TreeEdits};

    fn parse(text: &str) -> Arc<Tree> {
        let language = Language::by_name("javascript").expect("javascript is compiled in");
        tree::parse(language, text.as_bytes().to_vec(), Preprocess::default()).expect("parses")
    }

    /// The node whose text is `text` and whose kind is `kind`.
    fn node(tree: &Tree, kind: &str, text: &str) -> NodeId {
        tree.ids()
            .find(|&id| tree.kind(id) == kind && tree.text(id) == text.as_bytes())
            .expect("the node is in the tree")
    }

    #[test]
    #[cfg_attr(
        not(feature = "lang-javascript"),
        ignore = "needs the JavaScript grammar (cargo feature lang-javascript)"
    )]
    fn a_hoist_dropping_the_only_declaration_of_a_used_name_undeclares_it() {
        let tree = parse("var a = f(() => { g(); }); a();\n");
        let state = TreeState::new(Arc::clone(&tree));
        let names = SoleDeclarations::new(&tree);
        let declaration = node(&tree, "variable_declaration", "var a = f(() => { g(); });");
        let inner = node(&tree, "expression_statement", "g();");
        assert!(names.undeclares(&state, declaration, inner));
        // The call keeps its declaration when its argument takes its place.
        let call = node(&tree, "call_expression", "f(() => { g(); })");
        let arrow = node(&tree, "arrow_function", "() => { g(); }");
        let fresh = SoleDeclarations::new(&tree);
        assert!(!fresh.undeclares(&state, call, arrow));
    }

    #[test]
    #[cfg_attr(
        not(feature = "lang-javascript"),
        ignore = "needs the JavaScript grammar (cargo feature lang-javascript)"
    )]
    fn a_name_no_longer_used_or_declared_twice_may_go() {
        let tree = parse("var a = f(() => { g(); }); a();\n");
        let declaration = node(&tree, "variable_declaration", "var a = f(() => { g(); });");
        let inner = node(&tree, "expression_statement", "g();");
        let mut state = TreeState::new(Arc::clone(&tree));
        state.commit(&TreeEdits::removing([node(
            &tree,
            "expression_statement",
            "a();",
        )]));
        assert!(!SoleDeclarations::new(&tree).undeclares(&state, declaration, inner));

        let twice = parse("var a = f(() => { g(); }); var a = 1; a();\n");
        let declaration = node(&twice, "variable_declaration", "var a = f(() => { g(); });");
        let inner = node(&twice, "expression_statement", "g();");
        let state = TreeState::new(Arc::clone(&twice));
        assert!(!SoleDeclarations::new(&twice).undeclares(&state, declaration, inner));
    }
}
