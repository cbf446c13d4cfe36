//! `inline`: a function whose body only returns an expression is inlined into every call of it
//! and its definition deleted, in one edit (C-Vise's `simple-inliner`, shrinkray's
//! `inline_function_calls`): `c(a, b) { return a * b; }` and `prod = c(prod, i)` become
//! `prod = (prod * i)`. The parentheses keep the meaning; the `brackets` stage drops them where
//! they are not needed. It reads the parse tree of the current best through the grammar's
//! field names (`name` or `declarator`, `parameters`, `body`, `function`, `arguments`), so it
//! works wherever a language spells functions and calls that way (C, C++, JavaScript,
//! TypeScript, Python, Rust, Go, Java's static calls). A function is inlined only when every
//! other mention of its name is a call with as many arguments as it has parameters.

use std::collections::HashMap;

use super::edit::{Changes, Edit, EditRequest, EditStage, deletion, position_order};
use super::nodes::elements;
use crate::testing::control::Stop;
use crate::tree::Language;
use crate::tree::syntax::{Node, parse_syntax, preorder};

/// The inline stage for one language (it needs the parse tree).
pub struct InlineCalls<'a> {
    pub language: &'a Language,
}

/// A function that only returns an expression: what its calls become.
struct Inlinable<'t> {
    /// The whole definition (deleted).
    definition: Node<'t>,
    name: Vec<u8>,
    parameters: Vec<Vec<u8>>,
    /// The returned expression.
    expression: Node<'t>,
}

impl EditStage for InlineCalls<'_> {
    fn name(&self) -> &'static str {
        "inline"
    }

    fn edits_for(&self, text: &[u8], request: &EditRequest<'_>) -> Result<Vec<Edit>, Stop> {
        let Some(tree) = parse_syntax(self.language, text, || request.work())? else {
            return Ok(Vec::new());
        };
        let root = tree.root_node();
        let mut nodes = Vec::new();
        preorder(root, &mut nodes);
        request.check_stop()?;
        let mentions = Mentions::of(&nodes, text, request)?;
        let mut edits: Vec<Edit> = Vec::new();
        for &node in &nodes {
            request.work()?;
            let order = position_order(node.start_byte(), 0);
            if order < request.from {
                continue;
            }
            // A batch ends between two positions (a node and its first child share one).
            if request.is_full(edits.len()) && edits.last().is_some_and(|edit| edit.order < order) {
                break;
            }
            let Some(function) = inlinable(node, text) else {
                continue;
            };
            if let Some(edit) = inline_everywhere(&function, &mentions, text) {
                edits.push(Edit::replace(edit, order).with_resume(order));
            }
        }
        Ok(edits)
    }
}

/// Where each identifier is mentioned: how many times, and the calls whose callee it is, in
/// document order (read in one pass, so that a file of many functions is not read once per
/// function).
#[derive(Default)]
struct Mentions<'t> {
    by_name: HashMap<&'t [u8], NameMentions<'t>>,
}

#[derive(Default)]
struct NameMentions<'t> {
    identifiers: usize,
    calls: Vec<Node<'t>>,
}

impl<'t> Mentions<'t> {
    fn of(nodes: &[Node<'t>], text: &'t [u8], request: &EditRequest<'_>) -> Result<Self, Stop> {
        let mut mentions = Mentions::default();
        for &node in nodes {
            request.work()?;
            if is_identifier(node) {
                mentions
                    .by_name
                    .entry(text_of(node, text))
                    .or_default()
                    .identifiers += 1;
            }
            if let Some(callee) = node.child_by_field_name("function")
                && is_identifier(callee)
            {
                mentions
                    .by_name
                    .entry(text_of(callee, text))
                    .or_default()
                    .calls
                    .push(node);
            }
        }
        Ok(mentions)
    }
}

fn text_of<'a>(node: Node<'_>, text: &'a [u8]) -> &'a [u8] {
    &text[node.byte_range()]
}

fn is_identifier(node: Node<'_>) -> bool {
    node.kind() == "identifier" && node.child_count() == 0
}

/// The identifier a declarator names (through `declarator` fields: C's function, pointer and
/// parenthesized declarators).
fn declared_name(mut node: Node<'_>) -> Option<Node<'_>> {
    for _ in 0..8 {
        if is_identifier(node) {
            return Some(node);
        }
        node = node.child_by_field_name("declarator")?;
    }
    None
}

/// The first identifier in `node` (itself included), in document order.
fn first_identifier(node: Node<'_>) -> Option<Node<'_>> {
    if is_identifier(node) {
        return Some(node);
    }
    let mut cursor = node.walk();
    let children: Vec<Node<'_>> = node.named_children(&mut cursor).collect();
    children.into_iter().find_map(first_identifier)
}

/// `node` as a function that only returns an expression, if it is one.
fn inlinable<'t>(node: Node<'t>, text: &[u8]) -> Option<Inlinable<'t>> {
    let body = node.child_by_field_name("body")?;
    let (name, parameters) = match node.child_by_field_name("name") {
        Some(name) if is_identifier(name) => (name, node.child_by_field_name("parameters")?),
        Some(_) => return None,
        None => {
            // C and C++: the name and the parameters sit in the function declarator.
            let declarator = node.child_by_field_name("declarator")?;
            let mut function = declarator;
            while function.child_by_field_name("parameters").is_none() {
                function = function.child_by_field_name("declarator")?;
            }
            (
                declared_name(function.child_by_field_name("declarator")?)?,
                function.child_by_field_name("parameters")?,
            )
        }
    };
    let mut names = Vec::new();
    for parameter in elements(parameters) {
        match first_identifier(parameter) {
            Some(identifier) => names.push(text_of(identifier, text).to_vec()),
            // C's `(void)`: no parameter at all.
            None if text_of(parameter, text) == b"void" => {}
            // `self`, `...`, patterns: not a plain parameter.
            None => return None,
        }
    }
    let statements = elements(body);
    let [only] = statements.as_slice() else {
        return None;
    };
    if !only.kind().contains("return") {
        return None;
    }
    let returned = elements(*only);
    let [expression] = returned.as_slice() else {
        return None;
    };
    Some(Inlinable {
        definition: node,
        name: text_of(name, text).to_vec(),
        parameters: names,
        expression: *expression,
    })
}

/// The edit that puts the function's expression in place of each of its calls and deletes its
/// definition, when every other mention of its name is such a call.
fn inline_everywhere(
    function: &Inlinable<'_>,
    mentions: &Mentions<'_>,
    text: &[u8],
) -> Option<Changes> {
    let definition = function.definition.byte_range();
    let name = mentions.by_name.get(function.name.as_slice())?;
    let mentions = name.identifiers;
    let mut calls = Vec::new();
    for &node in &name.calls {
        let arguments = elements(node.child_by_field_name("arguments")?);
        if arguments.len() != function.parameters.len()
            || node.start_byte() < definition.end && definition.start < node.end_byte()
        {
            return None;
        }
        calls.push((node.byte_range(), arguments));
    }
    // The name in the definition, and one per call: no other use (a pointer to it, a
    // prototype, a call inside another call of it) may lose its function.
    if calls.is_empty() || mentions != calls.len() + 1 {
        return None;
    }
    let mut changes = Vec::with_capacity(calls.len() + 1);
    for (range, arguments) in &calls {
        changes.push((range.clone(), substituted(function, arguments, text)));
    }
    changes.push(deletion(text, definition));
    changes.sort_by_key(|(range, _)| (range.start, range.end));
    let disjoint = changes
        .windows(2)
        .all(|pair| pair[0].0.end <= pair[1].0.start);
    disjoint.then_some(changes)
}

/// `(expression)` with each parameter replaced by its argument (in parentheses unless it is a
/// single token).
fn substituted(function: &Inlinable<'_>, arguments: &[Node<'_>], text: &[u8]) -> Vec<u8> {
    let expression = function.expression;
    let mut out = b"(".to_vec();
    let mut at = expression.start_byte();
    let mut nodes = Vec::new();
    preorder(expression, &mut nodes);
    for node in nodes {
        if !is_identifier(node) || node.start_byte() < at {
            continue;
        }
        let name = text_of(node, text);
        let Some(index) = function
            .parameters
            .iter()
            .position(|p| p.as_slice() == name)
        else {
            continue;
        };
        // A field or member name (`p.x`, `p->x`) is no use of a parameter.
        if let Some(parent) = node.parent()
            && parent.child_by_field_name("field") == Some(node)
        {
            continue;
        }
        out.extend_from_slice(&text[at..node.start_byte()]);
        let argument = arguments[index];
        if argument.child_count() == 0 {
            out.extend_from_slice(text_of(argument, text));
        } else {
            out.push(b'(');
            out.extend_from_slice(text_of(argument, text));
            out.push(b')');
        }
        at = node.end_byte();
    }
    out.extend_from_slice(&text[at..expression.end_byte()]);
    out.push(b')');
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::algorithms::passes::edit::rendered_edits_in;

    fn inlined(language: &str, text: &str) -> Vec<String> {
        rendered_edits_in(language, text, |language| InlineCalls { language })
    }

    #[test]
    #[cfg_attr(
        not(feature = "lang-c"),
        ignore = "needs the C grammar (cargo feature lang-c)"
    )]
    fn a_c_function_that_returns_an_expression_goes_into_its_calls() {
        let text = "int c(int a, int b)\n{\n    return a * b;\n}\nint main() {\n    int p = 1;\n    p = c(p, p + 1);\n    return c(2, p);\n}\n";
        assert_eq!(
            inlined("c", text),
            ["int main() {\n    int p = 1;\n    p = (p * (p + 1));\n    return (2 * p);\n}\n"]
        );
    }

    #[test]
    #[cfg_attr(
        not(feature = "lang-c"),
        ignore = "needs the C grammar (cargo feature lang-c)"
    )]
    fn other_uses_of_the_name_keep_the_function() {
        // A prototype, a pointer to it, a call with another number of arguments, recursion.
        for text in [
            "int c(int a);\nint c(int a) { return a; }\nint x = c(1);\n",
            "int c(int a) { return a; }\nvoid *f = c;\nint x = c(1);\n",
            "int c(int a) { return a; }\nint x = c(1, 2);\n",
            "int c(int a) { return c(a); }\nint x = c(1);\n",
            "int c(int a) { int b = a; return b; }\nint x = c(1);\n",
        ] {
            assert!(inlined("c", text).is_empty(), "{text}");
        }
    }

    #[test]
    #[cfg_attr(
        not(feature = "lang-python"),
        ignore = "needs the Python grammar (cargo feature lang-python)"
    )]
    fn python_and_javascript_functions_too() {
        assert_eq!(
            inlined(
                "python",
                "def twice(n):\n    return n + n\nprint(twice(3))\n"
            ),
            ["print((3 + 3))\n"]
        );
        if let Ok(javascript) = Language::by_name("javascript")
            && javascript.is_available()
        {
            assert_eq!(
                inlined(
                    "javascript",
                    "function get(o) { return o.value; }\nconsole.log(get({value: 1}));\n"
                ),
                ["console.log((({value: 1}).value));\n"]
            );
        }
    }
}
