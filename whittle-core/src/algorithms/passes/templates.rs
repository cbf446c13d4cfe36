//! `templates`: a template or generic parameter that its declaration does not mention goes,
//! together with the argument in its place at every use (C-Vise's
//! `reduce-class-template-param`, shrinkray's template remover): `template <class A, class B>
//! struct P { A a; }; P<int, char> p;` becomes `template <class A> struct P { A a; }; P<int>
//! p;`. The last parameter takes its list with it (`template <class A>` goes, `P<int>` becomes
//! `P`). Read from the grammar: C++'s `template_declaration` with its `parameters`, or any
//! declaration with a `name` and `type_parameters` (Java, TypeScript, Rust); a use is an
//! argument list (`template_argument_list`, `type_arguments`) right after the declared name.

use std::collections::HashMap;

use super::edit::{Changes, Edit, EditRequest, EditStage};
use super::nodes::{
    edits_by_node, element_range, elements, is_name, merged, text_of, with_parsed_nodes,
};
use crate::testing::control::Stop;
use crate::tree::Language;
use crate::tree::syntax::{Node, visit_preorder};

/// The template-parameter stage for one language (it needs the parse tree).
pub struct DropTemplateParameters<'a> {
    pub language: &'a Language,
}

/// A declaration with template or generic parameters.
struct Generic<'t> {
    /// The name it declares.
    name: Node<'t>,
    /// The parameter list.
    parameters: Node<'t>,
    /// What goes when the last parameter goes: the list, or C++'s `template <…>` prefix.
    list: std::ops::Range<usize>,
    /// The declaration the parameters are in scope of (their mentions are looked for there).
    scope: Node<'t>,
}

impl EditStage for DropTemplateParameters<'_> {
    fn name(&self) -> &'static str {
        "templates"
    }

    fn edits_for(&self, text: &[u8], request: &EditRequest<'_>) -> Result<Vec<Edit>, Stop> {
        with_parsed_nodes(self.language, text, request, |nodes| {
            // Argument lists by the name right before them.
            let mut uses: HashMap<&[u8], Vec<Node<'_>>> = HashMap::new();
            for &node in nodes {
                request.work()?;
                let kind = node.kind();
                if !(kind.contains("template_argument_list") || kind == "type_arguments") {
                    continue;
                }
                if let Some(name) = node.prev_named_sibling().filter(|n| is_name(*n)) {
                    uses.entry(text_of(name, text)).or_default().push(node);
                }
            }
            edits_by_node(nodes, request, |node, at| {
                let Some(generic) = generic(node) else {
                    return Vec::new();
                };
                let sites = uses
                    .get(text_of(generic.name, text))
                    .map(Vec::as_slice)
                    .unwrap_or(&[]);
                let parameters = elements(generic.parameters);
                let mut edits = Vec::new();
                for (k, parameter) in parameters.iter().enumerate() {
                    // A parameter without a name (`template <long>`) is mentioned nowhere.
                    if let Some(own_name) = parameter_name(*parameter)
                        && mentions(generic.scope, text_of(own_name, text), own_name, text)
                    {
                        continue;
                    }
                    let mut changes: Changes = Vec::new();
                    if parameters.len() == 1 {
                        changes.push((generic.list.clone(), Vec::new()));
                        changes.extend(sites.iter().map(|site| (site.byte_range(), Vec::new())));
                    } else {
                        changes.extend(element_range(&parameters, k).map(|r| (r, Vec::new())));
                        for site in sites {
                            let arguments = elements(*site);
                            if arguments.len() == parameters.len() {
                                changes
                                    .extend(element_range(&arguments, k).map(|r| (r, Vec::new())));
                            }
                        }
                    }
                    edits.push(Edit::replace(merged(changes), at).with_resume(at));
                }
                edits
            })
        })
    }
}

/// `node` as a declaration with parameters: C++'s `template_declaration` (its `parameters`,
/// the name of the declaration inside), or a node with a `name` and `type_parameters`.
fn generic(node: Node<'_>) -> Option<Generic<'_>> {
    if !node.is_named() {
        return None;
    }
    if let Some(parameters) = node.child_by_field_name("type_parameters") {
        let name = node.child_by_field_name("name").filter(|n| is_name(*n))?;
        return Some(Generic {
            name,
            parameters,
            list: parameters.byte_range(),
            scope: node,
        });
    }
    if !node.kind().contains("template") {
        return None;
    }
    let parameters = node.child_by_field_name("parameters")?;
    let declared = parameters.next_named_sibling()?;
    let name = declared_name(declared)?;
    Some(Generic {
        name,
        parameters,
        list: node.start_byte()..declared.start_byte(),
        scope: declared,
    })
}

/// The name a declaration declares: its `name` field, or the name at the end of its
/// `declarator` chain (a function template's).
fn declared_name(node: Node<'_>) -> Option<Node<'_>> {
    let mut at = node;
    for _ in 0..4 {
        if let Some(name) = at.child_by_field_name("name") {
            return is_name(name).then_some(name);
        }
        at = at.child_by_field_name("declarator")?;
        if is_name(at) {
            return Some(at);
        }
    }
    None
}

/// The name a parameter declares (`class A`, `typename A = int`, `int N`, Java's `T extends
/// U`): its `name` or `declarator` field, else its first named child that is a name; `None`
/// for an unnamed one (`template <long>`, `template <class>`).
fn parameter_name(parameter: Node<'_>) -> Option<Node<'_>> {
    if is_name(parameter) {
        return Some(parameter);
    }
    if let Some(name) = parameter
        .child_by_field_name("name")
        .or_else(|| parameter.child_by_field_name("declarator"))
    {
        return is_name(name).then_some(name);
    }
    if parameter.child_by_field_name("type").is_some() {
        return None;
    }
    let mut cursor = parameter.walk();
    parameter.named_children(&mut cursor).find(|n| is_name(*n))
}

/// Whether a name leaf in `scope` other than `own` spells `name`.
fn mentions(scope: Node<'_>, name: &[u8], own: Node<'_>, text: &[u8]) -> bool {
    visit_preorder(scope, |node| {
        if node != own && is_name(node) && text_of(node, text) == name {
            return Err(());
        }
        Ok(())
    })
    .is_err()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::algorithms::passes::edit::rendered_edits_in;

    fn dropped(language: &str, text: &str) -> Vec<String> {
        rendered_edits_in(language, text, |language| DropTemplateParameters {
            language,
        })
    }

    #[test]
    #[cfg_attr(
        not(feature = "lang-cpp"),
        ignore = "needs the C++ grammar (cargo feature lang-cpp)"
    )]
    fn an_unused_cpp_template_parameter_goes_with_its_arguments() {
        // The shape of a class template as test cases keep it (cpp-gxx-const-this's Registry).
        let text = "template <class A, class B>\nstruct P { A a; };\nP<int, char> p;\n";
        assert_eq!(
            dropped("cpp", text),
            ["template <class A>\nstruct P { A a; };\nP<int> p;\n"]
        );
        // An unnamed parameter is never mentioned (cpp-gxx-const-this keeps one).
        assert_eq!(
            dropped(
                "cpp",
                "template <long, class a>\nstruct A { a b; };\nA<0, int> x;\n"
            ),
            ["template <class a>\nstruct A { a b; };\nA<int> x;\n"]
        );
        // The last one takes the `template <…>` with it.
        assert_eq!(
            dropped(
                "cpp",
                "template <int N>\nstruct R { int f(); };\nR<16> r;\n"
            ),
            ["struct R { int f(); };\nR r;\n"]
        );
    }

    #[test]
    #[cfg_attr(
        not(feature = "lang-java"),
        ignore = "needs the Java grammar (cargo feature lang-java)"
    )]
    fn an_unused_java_type_parameter_too() {
        let text = "class Box<K, V> { V v; }\nclass U { Box<String, Integer> b; }\n";
        assert_eq!(
            dropped("java", text),
            ["class Box<V> { V v; }\nclass U { Box<Integer> b; }\n"]
        );
    }
}
