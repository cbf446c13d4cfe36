//! `conditions`: a statement with a condition (`if`, `while`, `do`, `for`) becomes its
//! condition alone as an expression statement: `if 0 is not 0: A` becomes `0 is not 0`, `if
//! (n < 1) return 1;` becomes `(n < 1);`. Hoisting puts a child in its parent's place only
//! where the child's own kind may stand; this moves an expression into a statement's place
//! through the one statement that holds an expression (read from the grammar's `condition`
//! field, ended with `;` when the language's statements are).

use super::edit::{Edit, EditRequest, EditStage};
use super::nodes::{edits_by_node, enclosing_unit, text_of, uses_semicolons, with_parsed_nodes};
use crate::testing::control::Stop;
use crate::tree::Language;

/// The condition-hoisting stage for one language (it needs the parse tree).
pub struct HoistConditions<'a> {
    pub language: &'a Language,
}

impl EditStage for HoistConditions<'_> {
    fn name(&self) -> &'static str {
        "conditions"
    }

    fn edits_for(&self, text: &[u8], request: &EditRequest<'_>) -> Result<Vec<Edit>, Stop> {
        with_parsed_nodes(self.language, text, request, |nodes| {
            let terminator: &[u8] = if uses_semicolons(nodes[0]) { b";" } else { b"" };
            edits_by_node(nodes, request, |node, at| {
                if !node.is_named() || !node.kind().ends_with("statement") {
                    return None;
                }
                let condition = node.child_by_field_name("condition")?;
                if enclosing_unit(node) != Some(node) {
                    return None;
                }
                let mut new = text_of(condition, text).to_vec();
                new.extend_from_slice(terminator);
                Some(Edit::replace(vec![(node.byte_range(), new)], at).with_resume(at))
            })
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::algorithms::passes::edit::rendered_edits_in;

    fn hoisted(language: &str, text: &str) -> Vec<String> {
        rendered_edits_in(language, text, |language| HoistConditions { language })
    }

    #[test]
    #[cfg_attr(
        not(feature = "lang-python"),
        ignore = "needs the Python grammar (cargo feature lang-python)"
    )]
    fn a_python_if_becomes_its_condition() {
        // rust-lang/rust's missing-colon test case (the shared bench's py-rust-missing-colon),
        // as whittle leaves it.
        assert_eq!(hoisted("python", "if 0 is not 0: A\n"), ["0 is not 0\n"]);
        assert_eq!(
            hoisted("python", "def f():\n    while x < 3:\n        x += 1\n"),
            ["def f():\n    x < 3\n"]
        );
    }

    #[test]
    #[cfg_attr(
        not(feature = "lang-c"),
        ignore = "needs the C grammar (cargo feature lang-c)"
    )]
    fn a_c_if_becomes_an_expression_statement() {
        assert_eq!(
            hoisted(
                "c",
                "int f(int n) {\n  if (n < 1) return 1;\n  return n;\n}\n"
            ),
            ["int f(int n) {\n  (n < 1);\n  return n;\n}\n"]
        );
    }
}
