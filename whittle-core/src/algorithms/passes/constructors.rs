//! `constructors`: a class's constructors go together with what their callers pass them, which
//! neither the tree stages (a constructor alone leaves its callers' arguments without a
//! taker) nor the argument stage (the name before `(` is a variable's, not the class's) can do.
//! For a class with a `name` and a `body` (C++'s `class`/`struct`, Java's `class`): its
//! constructors (members that declare the class's own name with parameters) are deleted and
//! every construction loses its arguments (`dsu d(5);` becomes `dsu d;`, `new A(1)` becomes
//! `new A()`); the body is emptied to `{}` with the same; and a constructor's `k`-th parameter
//! goes with the `k`-th argument of every construction. All read from the grammar's fields
//! (`name`, `body`, `type`, `declarator`, `value`, `arguments`, `function`, `parameters`).

use std::collections::HashMap;

use super::edit::{Changes, Edit, EditRequest, EditStage, deletion};
use super::nodes::{
    callable_parts, edits_by_node, element_range, elements, is_name, merged, text_of,
    with_parsed_nodes,
};
use crate::testing::control::Stop;
use crate::tree::Language;
use crate::tree::syntax::Node;

/// The constructor stage for one language (it needs the parse tree).
pub struct RemoveConstructors<'a> {
    pub language: &'a Language,
}

/// Where a class is constructed with arguments.
#[derive(Clone, Copy)]
struct Construction<'t> {
    /// The argument list (`(5)`, `{5}`).
    arguments: Node<'t>,
    /// A declarator's initializer (`d(5)`): the list goes entirely; else (`new A(1)`, `A(1)`)
    /// it becomes `()`.
    in_declarator: bool,
}

impl Construction<'_> {
    fn without_arguments(self) -> (std::ops::Range<usize>, Vec<u8>) {
        if self.in_declarator {
            (self.arguments.byte_range(), Vec::new())
        } else {
            (self.arguments.byte_range(), b"()".to_vec())
        }
    }
}

impl EditStage for RemoveConstructors<'_> {
    fn name(&self) -> &'static str {
        "constructors"
    }

    fn edits_for(&self, text: &[u8], request: &EditRequest<'_>) -> Result<Vec<Edit>, Stop> {
        with_parsed_nodes(self.language, text, request, |nodes| {
            let mut constructions: HashMap<&[u8], Vec<Construction<'_>>> = HashMap::new();
            for &node in nodes {
                request.work()?;
                if let Some((class, construction)) = construction(node, text) {
                    constructions.entry(class).or_default().push(construction);
                }
            }
            edits_by_node(nodes, request, |node, at| {
                let Some((name, body)) = class_parts(node) else {
                    return Vec::new();
                };
                let name = text_of(name, text);
                let sites = constructions.get(name).map(Vec::as_slice).unwrap_or(&[]);
                let stripped: Changes = sites.iter().map(|site| site.without_arguments()).collect();
                let own: Vec<Node<'_>> = elements(body)
                    .into_iter()
                    .filter(|member| {
                        callable_parts(*member)
                            .is_some_and(|(declared, _)| text_of(declared, text) == name)
                    })
                    .collect();
                let mut edits = Vec::new();
                let mut add = |changes: Changes| {
                    edits.push(Edit::replace(merged(changes), at).with_resume(at));
                };
                if !own.is_empty() {
                    let mut changes = stripped.clone();
                    changes.extend(own.iter().map(|member| deletion(text, member.byte_range())));
                    add(changes);
                }
                // (Only where `{}` is shorter: a body of one short statement, as in Python,
                // would grow.)
                if !elements(body).is_empty() && body.byte_range().len() > b"{}".len() {
                    let mut changes = stripped.clone();
                    changes.push((body.byte_range(), b"{}".to_vec()));
                    add(changes);
                }
                // One constructor: each parameter with its argument everywhere.
                if let [only] = own.as_slice()
                    && let Some((_, parameters)) = callable_parts(*only)
                {
                    let parameters = elements(parameters);
                    for k in 0..parameters.len() {
                        let mut changes: Changes = Vec::new();
                        changes.extend(element_range(&parameters, k).map(|r| (r, Vec::new())));
                        for site in sites {
                            let arguments = elements(site.arguments);
                            if arguments.len() == parameters.len() {
                                changes
                                    .extend(element_range(&arguments, k).map(|r| (r, Vec::new())));
                            }
                        }
                        add(changes);
                    }
                }
                edits
            })
        })
    }
}

/// The name and body of a class-like node: a named node whose kind speaks of a class or struct,
/// with a `name` field that is a name and a `body` field.
fn class_parts(node: Node<'_>) -> Option<(Node<'_>, Node<'_>)> {
    let kind = node.kind();
    if !node.is_named() || !(kind.contains("class") || kind.contains("struct")) {
        return None;
    }
    let name = node.child_by_field_name("name").filter(|n| is_name(*n))?;
    Some((name, node.child_by_field_name("body")?))
}

/// The class `node` constructs with arguments, if it does: a declaration of the class's type
/// whose declarator has an argument or initializer list as its `value` (`dsu d(5)`), or an
/// expression with the class as its `type` or `function` and `arguments` (`new A(1)`, `A(1)`).
fn construction<'t>(node: Node<'t>, text: &'t [u8]) -> Option<(&'t [u8], Construction<'t>)> {
    if !node.is_named() {
        return None;
    }
    if let Some(arguments) = node.child_by_field_name("arguments") {
        let class = node
            .child_by_field_name("type")
            .or_else(|| node.child_by_field_name("function"))?;
        return Some((
            text_of(class, text),
            Construction {
                arguments,
                in_declarator: false,
            },
        ));
    }
    let declaration = node.parent()?;
    let class = declaration.child_by_field_name("type")?;
    let value = node.child_by_field_name("value")?;
    let list = value.kind();
    if node.child_by_field_name("declarator").is_none()
        || !(list.contains("argument_list") || list.contains("initializer_list"))
    {
        return None;
    }
    Some((
        text_of(class, text),
        Construction {
            arguments: value,
            in_declarator: true,
        },
    ))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::algorithms::passes::edit::rendered_edits_in;

    fn removed(language: &str, text: &str) -> Vec<String> {
        rendered_edits_in(language, text, |language| RemoveConstructors { language })
    }

    #[test]
    #[cfg_attr(
        not(feature = "lang-cpp"),
        ignore = "needs the C++ grammar (cargo feature lang-cpp)"
    )]
    fn a_cpp_constructor_goes_with_the_arguments_of_its_callers() {
        // The shape of TheAlgorithms' dsu_union_rank.cpp.
        let text = "class dsu {\n public:\n  explicit dsu(int n, int m) { p = n; }\n  int p;\n};\nvoid f() { dsu d(5, 6); }\n";
        assert_eq!(
            removed("cpp", text),
            [
                // The constructor and the arguments.
                "class dsu {\n public:\n  int p;\n};\nvoid f() { dsu d; }\n",
                // The body emptied.
                "class dsu {};\nvoid f() { dsu d; }\n",
                // Each parameter with its argument.
                "class dsu {\n public:\n  explicit dsu(int m) { p = n; }\n  int p;\n};\nvoid f() { dsu d(6); }\n",
                "class dsu {\n public:\n  explicit dsu(int n) { p = n; }\n  int p;\n};\nvoid f() { dsu d(5); }\n",
            ]
        );
    }

    #[test]
    #[cfg_attr(
        not(feature = "lang-python"),
        ignore = "needs the Python grammar (cargo feature lang-python)"
    )]
    fn a_python_class_body_shorter_than_braces_is_not_replaced_by_them() {
        // `{}` would grow the text; `hddhr-sweep` would make it `0` again, and so on.
        assert!(removed("python", "class A:\n    0\n").is_empty());
        assert_eq!(
            removed("python", "class A:\n    pass\n"),
            ["class A:\n    {}\n"]
        );
    }

    #[test]
    #[cfg_attr(
        not(feature = "lang-java"),
        ignore = "needs the Java grammar (cargo feature lang-java)"
    )]
    fn a_java_constructor_and_new() {
        let text = "class A {\n  A(int n) {}\n}\nclass B { Object o = new A(1); }\n";
        let edits = removed("java", text);
        assert_eq!(
            edits[0], "class A {\n}\nclass B { Object o = new A(); }\n",
            "{edits:#?}"
        );
    }
}
