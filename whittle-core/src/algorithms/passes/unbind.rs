//! `unbind`: a name goes with every statement that mentions it, in one edit. Languages that
//! refuse unused variables and imports (Go) keep a declaration as long as one use is left, and
//! a use as long as its declaration is: neither goes alone, both go together. For each name
//! (identifiers of every sort; for an import, the last segment of its path, the name its uses
//! spell), the statements its mentions sit in (see [`enclosing_unit`]) are deleted at once.
//! Names come in the order of their first mention; a name mentioned in one statement only is
//! left to the tree stages, which delete single statements.
//!
//! A name's uses may also hold up whole declarations: in Go, `func Escape(s string) string {
//! return url.QueryEscape(s) }` cannot lose its statement (it must return) and `"net/url"`
//! cannot go while the function uses it. So an imported name also goes with every top-level
//! declaration that mentions it (the import by its own line), when that is another edit (other
//! top-level declarations are siblings, which the tree stages remove together).

use std::collections::HashMap;

use super::edit::{Edit, EditRequest, EditStage, deletion, position_order};
use super::nodes::{enclosing_unit, identity_of, is_name, merged, text_of, with_parsed_nodes};
use crate::testing::control::Stop;
use crate::tree::Language;
use crate::tree::syntax::Node;

/// The unbind stage for one language (it needs the parse tree).
pub struct RemoveBindings<'a> {
    pub language: &'a Language,
}

impl EditStage for RemoveBindings<'_> {
    fn name(&self) -> &'static str {
        "unbind"
    }

    fn edits_for(&self, text: &[u8], request: &EditRequest<'_>) -> Result<Vec<Edit>, Stop> {
        with_parsed_nodes(self.language, text, request, |nodes| {
            // Each name's mentions, names in the order of their first mention.
            let mut order: Vec<&[u8]> = Vec::new();
            let mut mentions: HashMap<&[u8], Vec<Node<'_>>> = HashMap::new();
            for &node in nodes {
                request.work()?;
                let Some(name) = mentioned_name(node, text) else {
                    continue;
                };
                let list = mentions.entry(name).or_default();
                if list.is_empty() {
                    order.push(name);
                }
                list.push(node);
            }
            let mut edits = Vec::new();
            for name in order {
                request.work()?;
                let list = &mentions[name];
                let at = position_order(list[0].start_byte(), 0);
                if at < request.from {
                    continue;
                }
                if request.is_full(edits.len()) {
                    break;
                }
                let Some(units) = list
                    .iter()
                    .map(|&node| enclosing_unit(node))
                    .collect::<Option<Vec<Node<'_>>>>()
                else {
                    continue;
                };
                let statements = outermost(&units);
                // Each mention's top-level declaration, for an import its own line (its unit):
                // only an import's name goes with them (other declarations are siblings at the
                // top, where the tree stages remove them together).
                let tops: Vec<Node<'_>> =
                    list.iter().map(|&node| top(node).unwrap_or(node)).collect();
                let mut declarations = Vec::new();
                if tops.iter().any(|&at| is_import(at)) {
                    let kept: Vec<Node<'_>> = units
                        .iter()
                        .zip(&tops)
                        .map(|(&unit, &at)| if is_import(at) { unit } else { at })
                        .collect();
                    declarations = outermost(&kept);
                }
                // The same edit as the statements' is not proposed twice.
                if declarations == statements {
                    declarations.clear();
                }
                for (kind, ranges) in [
                    ("unbind", &statements),
                    ("unbind declarations", &declarations),
                ] {
                    if ranges.len() < 2 || request.is_full(edits.len()) {
                        continue;
                    }
                    let changes =
                        merged(ranges.iter().map(|r| deletion(text, r.clone())).collect());
                    edits.push(
                        Edit::replace(changes, at)
                            .with_resume(at)
                            .with_identity(identity_of(kind, name)),
                    );
                }
            }
            Ok(edits)
        })
    }
}

/// The byte ranges of `units`, those inside another left out (they go with it), in order.
fn outermost(units: &[Node<'_>]) -> Vec<std::ops::Range<usize>> {
    super::edit::outermost(units.iter().map(|unit| unit.byte_range()).collect())
}

/// The root's child that holds `node`.
fn top(node: Node<'_>) -> Option<Node<'_>> {
    let mut at = node;
    while at.parent()?.parent().is_some() {
        at = at.parent()?;
    }
    Some(at)
}

/// Whether a top-level declaration is an import.
fn is_import(top: Node<'_>) -> bool {
    top.kind().contains("import")
}

/// The name `node` mentions: a name leaf's text, or the last segment of an import's path
/// (`"net/http"` is used as `http`).
fn mentioned_name<'a>(node: Node<'_>, text: &'a [u8]) -> Option<&'a [u8]> {
    if is_name(node) {
        return Some(text_of(node, text));
    }
    if !node.kind().contains("string") || node.parent()?.kind().contains("string") {
        return None;
    }
    if !top(node).is_some_and(is_import) {
        return None;
    }
    let path = text_of(node, text);
    let path = path.strip_prefix(b"\"").unwrap_or(path);
    let path = path.strip_suffix(b"\"").unwrap_or(path);
    let last = path.rsplit(|&b| b == b'/').next()?;
    (!last.is_empty() && last.iter().all(|&b| super::lexer::is_word_byte(b))).then_some(last)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::algorithms::passes::edit::rendered_edits_in;

    fn unbound(language: &str, text: &str) -> Vec<String> {
        rendered_edits_in(language, text, |language| RemoveBindings { language })
    }

    #[test]
    #[cfg_attr(
        not(feature = "lang-go"),
        ignore = "needs the Go grammar (cargo feature lang-go)"
    )]
    fn a_go_variable_goes_with_every_statement_that_uses_it() {
        // From golang/go's src/sort/example_test.go, cut down.
        let text = "package main\n\nimport \"fmt\"\n\nfunc main() {\n\tpeople := []int{1, 2}\n\tn := len(people)\n\tfmt.Println(people, n)\n\tfmt.Println(n)\n}\n";
        let edits = unbound("go", text);
        // `people`: its declaration, the `len` and the first print go; `n := …` with it.
        assert!(
            edits.contains(
                &"package main\n\nimport \"fmt\"\n\nfunc main() {\n\tfmt.Println(n)\n}\n"
                    .to_owned()
            ),
            "{edits:#?}"
        );
        // `fmt`: the import and both prints.
        assert!(
            edits.contains(
                &"package main\n\n\nfunc main() {\n\tpeople := []int{1, 2}\n\tn := len(people)\n}\n"
                    .to_owned()
            ),
            "{edits:#?}"
        );
    }

    #[test]
    #[cfg_attr(
        not(feature = "lang-go"),
        ignore = "needs the Go grammar (cargo feature lang-go)"
    )]
    fn a_name_used_once_is_left_alone() {
        assert!(unbound("go", "package main\n\nfunc main() {\n\tx := 1\n}\n").is_empty());
    }

    #[test]
    #[cfg_attr(
        not(feature = "lang-go"),
        ignore = "needs the Go grammar (cargo feature lang-go)"
    )]
    fn an_import_goes_with_the_functions_that_use_it() {
        // A function that must return keeps its statement; its import goes only with it.
        let text = "package p\n\nimport (\n\t\"fmt\"\n\t\"net/url\"\n)\n\nfunc Escape(s string) string {\n\treturn url.QueryEscape(s)\n}\n\nfunc Report(n int) {\n\tfmt.Printf(\"%s\", n)\n}\n";
        let edits = unbound("go", text);
        let without = "package p\n\nimport (\n\t\"fmt\"\n)\n\n\nfunc Report(n int) {\n\tfmt.Printf(\"%s\", n)\n}\n";
        assert!(edits.contains(&without.to_owned()), "{edits:#?}");
        // The statement alone with its import is still proposed, before it.
        let statement_only = edits
            .iter()
            .position(|e| e.contains("func Escape(s string) string {\n}"))
            .expect("statement-level");
        let whole = edits.iter().position(|e| e == without).unwrap();
        assert!(statement_only < whole, "{edits:#?}");
        // `fmt` and `url` both ways; the parameters `s` and `n`, local, only with their
        // statements.
        assert_eq!(edits.len(), 6, "{edits:#?}");
    }
}
