//! tree-sitter's own parse of a text, as the grammar gives it (no preprocessing, no arena), for
//! the text stages that read syntax: the words a grammar reserves, functions and their calls.
//! Everything else reads trees through [`super::Tree`]; this module and the rest of `tree/` are
//! the only code that names tree-sitter.

pub use tree_sitter::Node;

use super::Language;

/// tree-sitter's parse of `text` in `language`, as the grammar gives it (for the text stages
/// that read syntax); `None` when the grammar is not compiled in.
pub fn parse_syntax(language: &Language, text: &[u8]) -> Option<tree_sitter::Tree> {
    let grammar = language.grammar().ok()?;
    let mut parser = tree_sitter::Parser::new();
    parser.set_language(&grammar).ok()?;
    parser.parse(text, None)
}

/// Every node under `root` (itself included) in document order.
pub fn preorder<'t>(root: Node<'t>, out: &mut Vec<Node<'t>>) {
    let mut cursor = root.walk();
    loop {
        out.push(cursor.node());
        if cursor.goto_first_child() {
            continue;
        }
        loop {
            if cursor.goto_next_sibling() {
                break;
            }
            if !cursor.goto_parent() {
                return;
            }
        }
    }
}
