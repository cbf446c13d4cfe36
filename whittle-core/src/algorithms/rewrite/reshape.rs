//! `reshape`: a node becomes the short form of another kind its place allows, filled with the
//! node's own fields: the grammar's shortest derivation of that kind with some of its fields
//! left as slots (the generated `[forms]`). A C function definition keeps its `type` and
//! `declarator` as a declaration (a prototype), a JavaScript function expression its
//! `parameters` and `body` as an arrow function, a Python `def` its `name` and `body` as a class.

use super::Round;
use super::measure::chars;
use crate::tree::{NodeId, needs_space};

/// The texts `node` may become, shortest first: for each kind its place allows other than its
/// own, each short form whose fields the node has, filled with the node's children in those
/// fields (each with the whitespace before it when it starts a line, so indented blocks stay
/// blocks, or follows another field directly); only those with fewer non-whitespace characters
/// than the node.
pub fn candidates(round: &Round, node: NodeId) -> Vec<Vec<u8>> {
    let tree = &*round.tree;
    if !tree.is_named(node)
        || tree.is_token(node)
        || tree.is_synthetic(node)
        || tree.is_extra(node)
        || tree.is_in_error(node)
    {
        return Vec::new();
    }
    let Some(allowed) = tree.kinds_allowed_at(node) else {
        return Vec::new();
    };
    let own = tree.kind_id(node);
    let own_chars = round.chars_of(node);
    let mut kinds: Vec<_> = allowed.iter().copied().filter(|&k| k != own).collect();
    kinds.sort_unstable();
    let mut out: Vec<Vec<u8>> = Vec::new();
    for kind in kinds {
        'forms: for form in tree.tables().forms(kind) {
            let mut text: Vec<u8> = Vec::new();
            for (index, piece) in form.texts.iter().enumerate() {
                append(&mut text, piece, &[]);
                let Some(&field) = form.fields.get(index) else {
                    continue;
                };
                let mut filled = tree
                    .children(node)
                    .filter(|&child| tree.field(child) == field);
                let Some(first) = filled.next() else {
                    continue 'forms;
                };
                let last = filled.last().unwrap_or(first);
                let range = tree.byte_range(first).start..tree.byte_range(last).end;
                // The child keeps the whitespace before it when it starts a line, or when it
                // follows another part with nothing of the form in between.
                let trivia = tree.leading_trivia(first);
                let keep = trivia.contains(&b'\n') || (piece.is_empty() && !text.is_empty());
                let lead: &[u8] = if keep { trivia } else { &[] };
                append(&mut text, &tree.source()[range], lead);
                if chars(&text) >= own_chars {
                    continue 'forms;
                }
            }
            if chars(&text) < own_chars {
                out.push(text);
            }
        }
    }
    out.sort_by(|a, b| (a.len(), a).cmp(&(b.len(), b)));
    out.dedup();
    out
}

/// Appends `piece` after `lead` (whitespace), or with a space where two words would join.
fn append(text: &mut Vec<u8>, piece: &[u8], lead: &[u8]) {
    if piece.is_empty() {
        return;
    }
    if !lead.is_empty() {
        text.extend_from_slice(lead);
    } else if needs_space(text.last().copied(), piece.first().copied()) {
        text.push(b' ');
    }
    text.extend_from_slice(piece);
}
