//! `typedefs`: a type alias is inlined at its uses and deleted, in one edit (C-Vise's
//! `replace-simple-typedef`, shrinkray's `inline_typedefs`): `typedef long llong; llong c;`
//! becomes `long c;`, `using V = std::vector<int>; V v;` becomes `std::vector<int> v;`. It
//! reads the aliases the grammar spells with a `type` field and a plain type name as the
//! `declarator` or `name` (C and C++ `typedef`, C++ `using … =`, TypeScript and Rust `type … =`,
//! Go `type … =`); a typedef of a pointer, a function or a struct body, and an alias template,
//! stay.

use super::edit::{Edit, EditRequest, EditStage, deletion};
use super::nodes::{
    edits_by_node, enclosing_unit, identity_of, is_name, merged, text_of, with_parsed_nodes,
};
use crate::testing::control::Stop;
use crate::tree::Language;
use crate::tree::syntax::Node;

/// The typedef-inlining stage for one language (it needs the parse tree).
pub struct InlineTypedefs<'a> {
    pub language: &'a Language,
}

/// An alias: the statement that declares it, its name and the text of the type it stands for.
struct Alias<'t> {
    statement: Node<'t>,
    name: Node<'t>,
    aliased: Vec<u8>,
}

impl EditStage for InlineTypedefs<'_> {
    fn name(&self) -> &'static str {
        "typedefs"
    }

    fn edits_for(&self, text: &[u8], request: &EditRequest<'_>) -> Result<Vec<Edit>, Stop> {
        with_parsed_nodes(self.language, text, request, |nodes| {
            let names: Vec<Node<'_>> = nodes.iter().copied().filter(|&n| is_name(n)).collect();
            edits_by_node(nodes, request, |node, at| {
                let alias = alias(node, text)?;
                let name = text_of(alias.name, text);
                let declared = alias.statement.byte_range();
                let mut changes = vec![deletion(text, declared.clone())];
                for &used in &names {
                    if text_of(used, text) == name
                        && !(declared.start <= used.start_byte() && used.end_byte() <= declared.end)
                    {
                        changes.push((used.byte_range(), alias.aliased.clone()));
                    }
                }
                Some(
                    Edit::replace(merged(changes), at)
                        .with_resume(at)
                        .with_identity(identity_of("typedefs", name)),
                )
            })
        })
    }
}

/// `node` as an alias, when it is one that can be inlined.
fn alias<'t>(node: Node<'t>, text: &[u8]) -> Option<Alias<'t>> {
    if !node.is_named() {
        return None;
    }
    let aliased = node.child_by_field_name("type").or_else(|| {
        // TypeScript spells the aliased type as `value`.
        node.kind()
            .contains("alias")
            .then(|| node.child_by_field_name("value"))
            .flatten()
    })?;
    let name = node
        .child_by_field_name("declarator")
        .or_else(|| node.child_by_field_name("name"))?;
    if !is_name(name) || !name.kind().contains("type") && !node.kind().contains("alias") {
        return None;
    }
    // One declarator only (`typedef int A, B;` stays), no template parameters.
    let mut cursor = node.walk();
    let declarators = node
        .children_by_field_name("declarator", &mut cursor)
        .count();
    if declarators > 1 || node.child_by_field_name("type_parameters").is_some() {
        return None;
    }
    let statement = match node.parent() {
        Some(parent) if parent.kind().contains("template") => return None,
        // Go's `type A = B` is a spec inside a declaration.
        Some(parent) if parent.kind() == "type_declaration" => {
            let mut cursor = parent.walk();
            if parent.named_children(&mut cursor).count() != 1 {
                return None;
            }
            parent
        }
        _ => node,
    };
    enclosing_unit(statement).filter(|unit| *unit == statement)?;
    // C's qualifiers (`typedef const int T`) sit before the `type` field: the alias is all
    // between the keyword and the name.
    let from = if node.kind() == "type_definition" {
        node.child(0)?.end_byte()
    } else {
        aliased.start_byte()
    };
    let to = if node.kind() == "type_definition" {
        name.start_byte()
    } else {
        aliased.end_byte()
    };
    let aliased = text.get(from..to)?.trim_ascii().to_vec();
    if aliased.is_empty() || aliased.contains(&b'{') || aliased.contains(&b'(') {
        return None;
    }
    Some(Alias {
        statement,
        name,
        aliased,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::algorithms::passes::edit::rendered_edits_in;

    fn inlined(language: &str, text: &str) -> Vec<String> {
        rendered_edits_in(language, text, |language| InlineTypedefs { language })
    }

    #[test]
    #[cfg_attr(
        not(feature = "lang-c"),
        ignore = "needs the C grammar (cargo feature lang-c)"
    )]
    fn a_c_typedef_goes_into_its_uses() {
        // GCC PR 71626's test case (the shared bench's c-perses-gcc71626), cut down.
        let text =
            "typedef long llong;\ntypedef llong vllong1;\nvllong1 A() {\n  llong c = A;\n}\n";
        assert_eq!(
            inlined("c", text),
            [
                "typedef long vllong1;\nvllong1 A() {\n  long c = A;\n}\n",
                "typedef long llong;\nllong A() {\n  llong c = A;\n}\n",
            ]
        );
        // Pointers and structs stay.
        assert!(inlined("c", "typedef int *P;\nP p;\n").is_empty());
        assert!(inlined("c", "typedef struct { int a; } S;\nS s;\n").is_empty());
    }

    #[test]
    #[cfg_attr(
        not(feature = "lang-cpp"),
        ignore = "needs the C++ grammar (cargo feature lang-cpp)"
    )]
    fn a_cpp_alias_and_a_qualified_typedef_too() {
        let text = "using Names = std::vector<int>;\ntypedef const char Byte;\nNames all(Byte b) { return Names(b); }\n";
        assert_eq!(
            inlined("cpp", text),
            [
                "typedef const char Byte;\nstd::vector<int> all(Byte b) { return std::vector<int>(b); }\n",
                "using Names = std::vector<int>;\nNames all(const char b) { return Names(b); }\n",
            ]
        );
        // An alias template stays.
        assert!(inlined("cpp", "template <class T> using V = T;\nV<int> v;\n").is_empty());
    }
}
