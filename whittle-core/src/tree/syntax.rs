//! tree-sitter's own parse of a text, as the grammar gives it (no preprocessing, no arena), for
//! the text stages that read syntax: the words a grammar reserves, functions and their calls.
//! Everything else reads trees through [`super::Tree`]; this module and the rest of `tree/` are
//! the only code that names tree-sitter.

pub use tree_sitter::Node;

use super::Language;

/// tree-sitter's parse of `text` in `language`, as the grammar gives it (for the text stages
/// that read syntax); `None` when the grammar is not compiled in. The parse calls `work` as it
/// goes and ends early with its error (a stop: a file of megabytes takes seconds).
pub fn parse_syntax<E>(
    language: &Language,
    text: &[u8],
    mut work: impl FnMut() -> Result<(), E>,
) -> Result<Option<tree_sitter::Tree>, E> {
    let Ok(grammar) = language.grammar() else {
        return Ok(None);
    };
    let mut parser = tree_sitter::Parser::new();
    if parser.set_language(&grammar).is_err() {
        return Ok(None);
    }
    let mut stopped = None;
    let mut progress = |_: &tree_sitter::ParseState| match work() {
        Ok(()) => std::ops::ControlFlow::Continue(()),
        Err(stop) => {
            stopped = Some(stop);
            std::ops::ControlFlow::Break(())
        }
    };
    let options = tree_sitter::ParseOptions::new().progress_callback(&mut progress);
    let tree = parser.parse_with_options(
        &mut |offset, _| text.get(offset..).unwrap_or_default(),
        None,
        Some(options),
    );
    match stopped {
        Some(stop) => Err(stop),
        None => Ok(tree),
    }
}

/// Every node under `root` (itself included) in document order.
pub fn preorder<'t>(root: Node<'t>, out: &mut Vec<Node<'t>>) {
    let visited: Result<(), std::convert::Infallible> = visit_preorder(root, |node| {
        out.push(node);
        Ok(())
    });
    let Ok(()) = visited;
}

/// Calls `visit` on every node under `root` (itself included) in document order, and ends at
/// the first error it returns (a stop, for a walk over a file of megabytes).
pub fn visit_preorder<'t, E>(
    root: Node<'t>,
    mut visit: impl FnMut(Node<'t>) -> Result<(), E>,
) -> Result<(), E> {
    let mut cursor = root.walk();
    loop {
        visit(cursor.node())?;
        if cursor.goto_first_child() {
            continue;
        }
        loop {
            if cursor.goto_next_sibling() {
                break;
            }
            if !cursor.goto_parent() {
                return Ok(());
            }
        }
    }
}
