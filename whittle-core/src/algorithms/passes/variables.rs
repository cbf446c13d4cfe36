//! `variables`: a variable bound once and only read after its binding goes into every read of
//! it, and its binding away, in one edit (C-Vise's copy propagation): `$exp = $str;
//! array_merge($r, $exp);` becomes `array_merge($r, $str);`, `x := f(a); g(x)` becomes
//! `g(f(a))`. The value goes in parentheses unless it is one token or a primary expression
//! (a call, a literal, a member, a bracketed list), and an edit is proposed only when it
//! shortens the text. It reads the parse tree through the grammar's field names (`name`,
//! `left`, `pattern` or `declarator` for the variable, `value` or `right` for its value), so it
//! works wherever a language spells bindings that way (C, C++, Go, Java, JavaScript,
//! TypeScript, PHP, Python, Ruby, Rust, ...). A binding qualifies only when its statement binds
//! nothing else and holds nothing but the binding, its type and modifiers; and every other
//! mention of the variable (same kind and spelling) comes after that statement and only reads
//! it: no second binding, no `x += 1`, `x++`, parameter or keyword of that name.

use std::collections::HashMap;

use super::edit::{Edit, EditRequest, EditStage, deletion};
use super::nodes::{
    edits_by_node, elements, enclosing_unit, identity_of, is_name, text_of, with_parsed_nodes,
};
use crate::testing::control::Stop;
use crate::tree::Language;
use crate::tree::syntax::Node;

/// The variable-inlining stage for one language (it needs the parse tree).
pub struct InlineVariables<'a> {
    pub language: &'a Language,
}

/// The mentions of each variable, by its node's kind and its spelling, in document order.
type Mentions<'n, 't> = HashMap<(&'n str, &'t [u8]), Vec<Node<'n>>>;

/// A variable bound once: the statement that binds it, its name and its value.
struct Binding<'t> {
    statement: Node<'t>,
    variable: Node<'t>,
    value: Node<'t>,
}

impl EditStage for InlineVariables<'_> {
    fn name(&self) -> &'static str {
        "variables"
    }

    fn edits_for(&self, text: &[u8], request: &EditRequest<'_>) -> Result<Vec<Edit>, Stop> {
        with_parsed_nodes(self.language, text, request, |nodes| {
            // Each variable's mentions by kind and spelling, read once for every binding.
            let mut mentions: Mentions<'_, '_> = HashMap::new();
            for &node in nodes.iter().filter(|&&node| is_variable(node)) {
                let key = (node.kind(), text_of(node, text));
                mentions.entry(key).or_default().push(node);
            }
            edits_by_node(nodes, request, |node, at| {
                let binding = binding(node)?;
                let changes = inline_everywhere(&binding, &mentions, text)?;
                let key = [
                    text_of(binding.variable, text),
                    text_of(binding.value, text),
                ]
                .join(&0);
                Some(
                    Edit::replace(changes, at)
                        .with_resume(at)
                        .with_identity(identity_of("variables", &key)),
                )
            })
        })
    }
}

/// Whether `node` names a variable where it stands: a name, or PHP's `$name` (whose inner
/// `name` is no name of its own).
fn is_variable(node: Node<'_>) -> bool {
    is_name(node) || node.is_named() && node.kind() == "variable_name"
}

/// The one element of a list node (Go's `x := f()` binds lists), or the node itself.
fn sole(node: Node<'_>) -> Option<Node<'_>> {
    if !node.kind().ends_with("_list") {
        return Some(node);
    }
    match elements(node)[..] {
        [only] => Some(only),
        _ => None,
    }
}

/// `node` as the binding of one variable to a value, if it is one that can be inlined.
fn binding(node: Node<'_>) -> Option<Binding<'_>> {
    let kind = node.kind();
    let binds = ["assign", "declarat", "var_spec", "binding", "definition"]
        .iter()
        .any(|part| kind.contains(part));
    // `x += 1` binds nothing new; `for (x in o)` has a `left` and a `right` too.
    if !node.is_named() || !binds || node.child_by_field_name("operator").is_some() {
        return None;
    }
    let value = node
        .child_by_field_name("value")
        .or_else(|| node.child_by_field_name("right"))?;
    let target = ["name", "left", "pattern", "declarator"]
        .into_iter()
        .find_map(|field| node.child_by_field_name(field))?;
    let (variable, value) = (sole(target)?, sole(value)?);
    if !is_variable(variable) || value.is_error() || value.is_missing() {
        return None;
    }
    let statement = enclosing_unit(node)?;
    holds_only(statement, node).then_some(Binding {
        statement,
        variable,
        value,
    })
}

/// Whether `statement` holds `binding` and nothing else but types, modifiers and comments:
/// deleting it deletes the binding only (`let x = 1;`, `int x = 1;`, not `int x = 1, y;` nor
/// `for (int i = 0; …) …`).
fn holds_only(statement: Node<'_>, binding: Node<'_>) -> bool {
    let mut at = binding;
    while at != statement {
        let Some(parent) = at.parent() else {
            return false;
        };
        let mut cursor = parent.walk();
        for (index, child) in parent.children(&mut cursor).enumerate() {
            if child == at || !child.is_named() {
                continue;
            }
            let field = parent.field_name_for_child(index as u32);
            let kind = child.kind();
            let incidental = field == Some("type")
                || crate::tree::is_comment_kind(kind)
                || ["modifier", "specifier", "qualifier"]
                    .iter()
                    .any(|part| kind.contains(part));
            if !incidental {
                return false;
            }
        }
        at = parent;
    }
    true
}

/// Whether a mention of a variable, in `field` of its parent, only reads it (else the variable
/// may change after its binding, or the name means something else there).
fn only_reads(mention: Node<'_>, field: Option<&str>) -> bool {
    let Some(parent) = mention.parent() else {
        return true;
    };
    let kind = parent.kind();
    !(crate::tree::declares(field, Some(kind))
        || [
            "augmented",
            "compound",
            "update",
            "increment",
            "decrement",
            "parameter",
            "keyword",
        ]
        .iter()
        .any(|part| kind.contains(part))
        || kind.contains("for") && field != Some("body"))
}

/// The field `node` fills in its parent, if any.
fn field_of<'t>(node: Node<'t>) -> Option<&'t str> {
    let parent = node.parent()?;
    let mut cursor = parent.walk();
    let index = parent
        .children(&mut cursor)
        .position(|child| child == node)?;
    parent.field_name_for_child(index as u32)
}

/// Whether a value stands as it is in place of a name: one token, or a primary expression.
fn primary(value: Node<'_>) -> bool {
    value.child_count() == 0
        || [
            "identifier",
            "variable_name",
            "call",
            "invocation",
            "literal",
            "string",
            "number",
            "integer",
            "float",
            "member",
            "field_expression",
            "attribute",
            "subscript",
            "index_expression",
            "parenthesized",
            "array",
            "list",
            "object",
            "dictionary",
            "tuple",
        ]
        .iter()
        .any(|part| value.kind().contains(part))
}

/// The edit that puts the binding's value in place of every read of its variable and deletes
/// its statement, when every other mention reads it after the statement and the text shrinks.
fn inline_everywhere(
    binding: &Binding<'_>,
    mentions: &Mentions<'_, '_>,
    text: &[u8],
) -> Option<super::edit::Changes> {
    let name = text_of(binding.variable, text);
    let statement = binding.statement.byte_range();
    let mut reads = Vec::new();
    for &mention in mentions.get(&(binding.variable.kind(), name))? {
        if mention == binding.variable {
            continue;
        }
        // A member's or attribute's name (`o.x`) is no mention of the variable.
        let field = field_of(mention);
        if crate::tree::is_member(field) {
            continue;
        }
        if mention.start_byte() < statement.end || !only_reads(mention, field) {
            return None;
        }
        reads.push(mention.byte_range());
    }
    if reads.is_empty() {
        return None;
    }
    let value = text_of(binding.value, text);
    let new: Vec<u8> = if primary(binding.value) {
        value.to_vec()
    } else {
        [b"(", value, b")"].concat()
    };
    let deleted = deletion(text, statement);
    let removed = deleted.0.len() + reads.len() * name.len();
    if reads.len() * new.len() >= removed {
        return None;
    }
    let mut changes = vec![deleted];
    changes.extend(reads.into_iter().map(|range| (range, new.clone())));
    Some(changes)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::algorithms::passes::edit::rendered_edits_in;

    fn inlined(language: &str, text: &str) -> Vec<String> {
        match Language::by_name(language) {
            Ok(found) if found.is_available() => {
                rendered_edits_in(language, text, |language| InlineVariables { language })
            }
            _ => panic!("needs the {language} grammar"),
        }
    }

    #[test]
    #[cfg_attr(
        not(feature = "lang-php"),
        ignore = "needs the PHP grammar (cargo feature lang-php)"
    )]
    fn php_variables_go_into_their_reads_one_edit_each() {
        let text = "<?php\n$r = [];\n$s = 0 . 0;\n$e = $s;\narray_merge($r, $e);\n";
        assert_eq!(
            inlined("php", text),
            [
                "<?php\n$s = 0 . 0;\n$e = $s;\narray_merge([], $e);\n",
                "<?php\n$r = [];\n$e = (0 . 0);\narray_merge($r, $e);\n",
                "<?php\n$r = [];\n$s = 0 . 0;\narray_merge($r, $s);\n",
            ]
        );
    }

    #[test]
    #[cfg_attr(
        not(feature = "lang-javascript"),
        ignore = "needs the JavaScript grammar (cargo feature lang-javascript)"
    )]
    fn a_javascript_constant_read_twice_goes_into_both_reads() {
        assert_eq!(
            inlined(
                "javascript",
                "const handler = {};\nvar p = new Proxy(handler, handler);\nf(p.handler);\n"
            ),
            [
                "var p = new Proxy({}, {});\nf(p.handler);\n",
                "const handler = {};\nf((new Proxy(handler, handler)).handler);\n",
            ]
        );
        // A loop's `left` and `right` bind nothing to inline.
        assert!(inlined("javascript", "for (x in o) g();\nf(x);\n").is_empty());
    }

    #[test]
    #[cfg_attr(
        not(feature = "lang-go"),
        ignore = "needs the Go grammar (cargo feature lang-go)"
    )]
    fn go_short_declarations_and_c_declarations_too() {
        assert_eq!(
            inlined(
                "go",
                "package main\nfunc main() {\n\tx := f(1)\n\tg(x)\n}\n"
            ),
            ["package main\nfunc main() {\n\tg(f(1))\n}\n"]
        );
        if Language::by_name("c").is_ok_and(|c| c.is_available()) {
            assert_eq!(
                inlined("c", "int main() {\n  int n = 40 + 2;\n  return n;\n}\n"),
                ["int main() {\n  return (40 + 2);\n}\n"]
            );
        }
    }

    #[test]
    #[cfg_attr(
        not(feature = "lang-python"),
        ignore = "needs the Python grammar (cargo feature lang-python)"
    )]
    fn variables_written_or_read_before_their_binding_stay() {
        for text in [
            // Bound twice, changed in place, read before, bound in a loop, a parameter.
            "x = 1\nx = 2\nprint(x)\n",
            "x = 1\nx += 2\nprint(x)\n",
            "print(x)\nx = 1\nprint(x)\n",
            "for x in y:\n    pass\nx = 1\nprint(x)\n",
            "x = 1\ndef f(x):\n    return x\n",
            // Not shorter: a long value read three times.
            "value = compute(alpha, beta)\nprint(value, value, value)\n",
        ] {
            assert!(inlined("python", text).is_empty(), "{text}");
        }
        // An attribute of the same spelling is no read of the variable.
        assert_eq!(
            inlined("python", "x = 1\nprint(o.x + x)\n"),
            ["print(o.x + 1)\n"]
        );
    }
}
