//! `declarators`: declarations lose what only their spelling needs (C-Vise's and shrinkray's
//! declaration passes, read from the grammar's `declarator` fields so that it holds for C, C++
//! and Java alike). Two declarations of the same type next to each other become one with both
//! declarators (`f j(0); f k(0);` becomes `f j(0), k(0);`), and a declarator loses its
//! initializer or constructor arguments (`T g(k);` becomes the default-constructed `T g;`,
//! `int n = 5;` becomes `int n;`).

use super::edit::{Edit, EditRequest, EditStage};
use super::nodes::{edits_by_node, with_parsed_nodes};
use crate::testing::control::Stop;
use crate::tree::Language;
use crate::tree::syntax::Node;

/// The declarator stage for one language (it needs the parse tree).
pub struct MergeDeclarators<'a> {
    pub language: &'a Language,
}

impl EditStage for MergeDeclarators<'_> {
    fn name(&self) -> &'static str {
        "declarators"
    }

    fn edits_for(&self, text: &[u8], request: &EditRequest<'_>) -> Result<Vec<Edit>, Stop> {
        with_parsed_nodes(self.language, text, request, |nodes| {
            edits_by_node(nodes, request, |node, at| {
                let change = merged_with_next(node, text).or_else(|| without_initializer(node))?;
                Some(Edit::replace(vec![change], at).with_resume(at))
            })
        })
    }
}

/// The `declarator` fields of `node`, in order.
fn declarators<'t>(node: Node<'t>) -> Vec<Node<'t>> {
    let mut cursor = node.walk();
    node.children_by_field_name("declarator", &mut cursor)
        .collect()
}

/// `node` and the declaration after it as one: when both are declarations of the same kind
/// whose text before their first declarator (the type and its qualifiers) and after their last
/// (the `;`) are the same, what lies between `node`'s last declarator and the next one's first
/// becomes `, `.
fn merged_with_next(node: Node<'_>, text: &[u8]) -> Option<(std::ops::Range<usize>, Vec<u8>)> {
    if !node.is_named() || !node.kind().ends_with("declaration") {
        return None;
    }
    let next = node.next_named_sibling()?;
    if next.kind() != node.kind() {
        return None;
    }
    let (own, theirs) = (declarators(node), declarators(next));
    let (first, last) = (own.first()?, own.last()?);
    let (next_first, next_last) = (theirs.first()?, theirs.last()?);
    let prefix =
        |decl: Node<'_>, first: &Node<'_>| text[decl.start_byte()..first.start_byte()].trim_ascii();
    let suffix =
        |decl: Node<'_>, last: &Node<'_>| text[last.end_byte()..decl.end_byte()].trim_ascii();
    if prefix(node, first) != prefix(next, next_first)
        || prefix(node, first).is_empty()
        || suffix(node, last) != suffix(next, next_last)
    {
        return None;
    }
    Some((last.end_byte()..next_first.start_byte(), b", ".to_vec()))
}

/// A declarator of a declaration without its initializer: a node in a declaration's
/// `declarator` field that has a `declarator` (Java: `name`) of its own and a `value` (`g(k)`,
/// `n = 5`) becomes that inner declarator.
fn without_initializer(node: Node<'_>) -> Option<(std::ops::Range<usize>, Vec<u8>)> {
    let parent = node.parent()?;
    if !node.is_named() || !parent.kind().ends_with("declaration") {
        return None;
    }
    if !declarators(parent).contains(&node) {
        return None;
    }
    let inner = node
        .child_by_field_name("declarator")
        .or_else(|| node.child_by_field_name("name"))?;
    node.child_by_field_name("value")?;
    Some((inner.end_byte()..node.end_byte(), Vec::new()))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::algorithms::passes::edit::rendered_edits_in;

    fn merged(language: &str, text: &str) -> Vec<String> {
        rendered_edits_in(language, text, |language| MergeDeclarators { language })
    }

    #[test]
    #[cfg_attr(
        not(feature = "lang-cpp"),
        ignore = "needs the C++ grammar (cargo feature lang-cpp)"
    )]
    fn cpp_declarations_of_one_type_merge_and_lose_their_arguments() {
        // The shape TheAlgorithms' dsu_union_rank.cpp keeps at its end.
        let text = "void f() {\n  dsu j(0);\n  dsu k(0);\n}\n";
        assert_eq!(
            merged("cpp", text),
            [
                "void f() {\n  dsu j(0), k(0);\n}\n",
                "void f() {\n  dsu j;\n  dsu k(0);\n}\n",
                "void f() {\n  dsu j(0);\n  dsu k;\n}\n",
            ]
        );
        // Different types stay apart.
        assert_eq!(
            merged("cpp", "int a = 1;\nlong b;\n"),
            ["int a;\nlong b;\n"]
        );
    }

    #[test]
    #[cfg_attr(
        not(feature = "lang-java"),
        ignore = "needs the Java grammar (cargo feature lang-java)"
    )]
    fn java_fields_merge_too() {
        let text = "class A {\n  int a = 1;\n  int b;\n}\n";
        assert_eq!(
            merged("java", text),
            [
                "class A {\n  int a = 1, b;\n}\n",
                "class A {\n  int a;\n  int b;\n}\n"
            ]
        );
    }
}
