//! `declarations`: a function definition becomes its declaration, the body (and a
//! constructor's member initializers) replaced by `;` where only the signature matters (C-Vise's
//! `replace-function-def-with-decl`, shrinkray's `replace_function_bodies`): `int f() { … }`
//! becomes `int f();`, a C++ method defined in its class a declared one, a Java method an
//! abstract or interface one. Read from the grammar: any node of a function, method or
//! constructor kind with a braced `body` field.

use super::edit::{Edit, EditRequest, EditStage};
use super::nodes::{edits_by_node, uses_semicolons, with_parsed_nodes};
use crate::testing::control::Stop;
use crate::tree::Language;

/// The definition-to-declaration stage for one language (it needs the parse tree).
pub struct DefinitionsToDeclarations<'a> {
    pub language: &'a Language,
}

impl EditStage for DefinitionsToDeclarations<'_> {
    fn name(&self) -> &'static str {
        "declarations"
    }

    fn edits_for(&self, text: &[u8], request: &EditRequest<'_>) -> Result<Vec<Edit>, Stop> {
        with_parsed_nodes(self.language, text, request, |nodes| {
            let terminator: &[u8] = if uses_semicolons(nodes[0]) { b";" } else { b"" };
            edits_by_node(nodes, request, |node, at| {
                let kind = node.kind();
                if !node.is_named()
                    || !["function", "method", "constructor"]
                        .iter()
                        .any(|word| kind.contains(word))
                {
                    return None;
                }
                let body = node.child_by_field_name("body")?;
                if text.get(body.start_byte()) != Some(&b'{') || body.end_byte() != node.end_byte()
                {
                    return None;
                }
                // C++'s `A() : x(0) { }`: the initializers go with the body.
                let mut start = body.start_byte();
                let mut sibling = body.prev_sibling();
                while let Some(before) = sibling {
                    if !before.kind().contains("initializer") {
                        break;
                    }
                    start = before.start_byte();
                    sibling = before.prev_sibling();
                }
                // The blanks before the body go too.
                while start > 0 && text[start - 1].is_ascii_whitespace() {
                    start -= 1;
                }
                Some(
                    Edit::replace(vec![(start..body.end_byte(), terminator.to_vec())], at)
                        .with_resume(at),
                )
            })
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::algorithms::passes::edit::rendered_edits_in;

    fn declared(language: &str, text: &str) -> Vec<String> {
        rendered_edits_in(language, text, |language| DefinitionsToDeclarations {
            language,
        })
    }

    #[test]
    #[cfg_attr(
        not(feature = "lang-cpp"),
        ignore = "needs the C++ grammar (cargo feature lang-cpp)"
    )]
    fn cpp_methods_and_constructors_keep_their_signatures() {
        let text = "struct Registry {\n  Registry() : n(0) { reset(); }\n  int size() const { return n; }\n  int n;\n};\n";
        assert_eq!(
            declared("cpp", text),
            [
                "struct Registry {\n  Registry();\n  int size() const { return n; }\n  int n;\n};\n",
                "struct Registry {\n  Registry() : n(0) { reset(); }\n  int size() const;\n  int n;\n};\n",
            ]
        );
    }

    #[test]
    #[cfg_attr(
        not(feature = "lang-java"),
        ignore = "needs the Java grammar (cargo feature lang-java)"
    )]
    fn a_java_method_too() {
        assert_eq!(
            declared(
                "java",
                "interface I {\n  default int f() { return 1; }\n}\n"
            ),
            ["interface I {\n  default int f();\n}\n"]
        );
    }
}
