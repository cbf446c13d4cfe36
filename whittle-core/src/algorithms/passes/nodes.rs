//! What the tree-reading text stages (`unbind`, `typedefs`, `conditions`, `declarations`)
//! share: the parse's nodes and the walk over them, names as the parse spells them, the
//! statement a mention sits in, and whether the language ends its statements with `;`. All of
//! it is read from node kinds and fields, so it holds for every grammar that names its nodes
//! the usual way (`…identifier`, `…statement`, `…declaration`).

use super::edit::{Edit, EditRequest, position_order};
use crate::testing::control::Stop;
use crate::tree::syntax::Node;

/// The bytes of `node`.
pub fn text_of<'a>(node: Node<'_>, text: &'a [u8]) -> &'a [u8] {
    &text[node.byte_range()]
}

/// Whether `node` is a name: a named leaf whose kind is an identifier of any sort
/// ([`crate::tree::is_name_kind`]).
pub fn is_name(node: Node<'_>) -> bool {
    node.is_named() && node.child_count() == 0 && crate::tree::is_name_kind(node.kind())
}

/// Kinds that stand alone in a list of their siblings: statements, declarations, definitions,
/// import and type specs, items.
fn is_unit_kind(kind: &str) -> bool {
    ["statement", "declaration", "definition", "_spec", "_item"]
        .iter()
        .any(|suffix| kind.ends_with(suffix))
}

/// Kinds that hold a list of units (blocks, bodies, declaration and spec lists, modules).
fn is_list_kind(kind: &str) -> bool {
    [
        "block",
        "body",
        "list",
        "compound",
        "module",
        "program",
        "source_file",
        "translation_unit",
    ]
    .iter()
    .any(|part| kind.contains(part))
}

/// The statement `node` sits in: its nearest ancestor (itself included) of a unit kind whose
/// parent is the root or a list of units, so that deleting it leaves its parent whole. `None`
/// when there is none below the root.
pub fn enclosing_unit(node: Node<'_>) -> Option<Node<'_>> {
    let mut at = node;
    loop {
        let parent = at.parent()?;
        if at.is_named()
            && is_unit_kind(at.kind())
            && (parent.parent().is_none() || is_list_kind(parent.kind()))
        {
            return Some(at);
        }
        at = parent;
    }
}

/// Whether the text's statements end with `;` (some leaf of the parse is a `;`).
pub fn uses_semicolons(root: Node<'_>) -> bool {
    let mut found = false;
    let visited: Result<(), ()> = crate::tree::syntax::visit_preorder(root, |node| {
        if node.child_count() == 0 && !node.is_named() && node.kind() == ";" {
            found = true;
            return Err(());
        }
        Ok(())
    });
    let _ = visited;
    found
}

/// The elements of a node that holds a list (arguments, parameters, a block's statements): its
/// named children but comments.
pub fn elements(list: Node<'_>) -> Vec<Node<'_>> {
    let mut cursor = list.walk();
    list.named_children(&mut cursor)
        .filter(|child| !crate::tree::is_comment_kind(child.kind()))
        .collect()
}

/// The bytes that go when the `k`-th of `elements` leaves its list: up to the next element
/// (its separator with it), or for the last, from the end of the one before.
pub fn element_range(elements: &[Node<'_>], k: usize) -> Option<std::ops::Range<usize>> {
    let element = elements.get(k)?;
    Some(match (elements.get(k + 1), k.checked_sub(1)) {
        (Some(next), _) => element.start_byte()..next.start_byte(),
        (None, Some(before)) => elements[before].end_byte()..element.end_byte(),
        (None, None) => element.byte_range(),
    })
}

/// The name a function-like node declares and its parameter list: read from its `name` or
/// `declarator` and `parameters` fields, down through nested declarators (C++'s
/// `explicit A(int n) { … }` declares `A`).
pub fn callable_parts(node: Node<'_>) -> Option<(Node<'_>, Node<'_>)> {
    let mut at = node;
    for _ in 0..4 {
        if let Some(parameters) = at.child_by_field_name("parameters") {
            let name = at
                .child_by_field_name("name")
                .or_else(|| at.child_by_field_name("declarator"))?;
            return is_name(name).then_some((name, parameters));
        }
        at = at.child_by_field_name("declarator")?;
    }
    None
}

/// Sorted ranges merged where they overlap or touch (the first's text kept).
pub fn merged(mut changes: super::edit::Changes) -> super::edit::Changes {
    changes.sort_by_key(|(range, _)| (range.start, range.end));
    let mut out: super::edit::Changes = Vec::with_capacity(changes.len());
    for (range, new) in changes {
        match out.last_mut() {
            Some((last, _)) if range.start < last.end => last.end = last.end.max(range.end),
            _ => out.push((range, new)),
        }
    }
    out
}

/// A stable identity for an edit named by `key` (never 0).
pub fn identity_of(stage: &str, key: &[u8]) -> u64 {
    use std::hash::{Hash, Hasher};
    let mut hasher = std::collections::hash_map::DefaultHasher::new();
    stage.hash(&mut hasher);
    key.hash(&mut hasher);
    hasher.finish() | 1
}

/// The nodes of `text`'s parse in preorder, given to `stage` (nothing when `text` does not
/// parse): the walk every tree-reading stage starts with, its parse interruptible by
/// `request` and a stop checked after the walk.
pub fn with_parsed_nodes(
    language: &crate::tree::Language,
    text: &[u8],
    request: &EditRequest<'_>,
    stage: impl FnOnce(&[Node<'_>]) -> Result<Vec<Edit>, Stop>,
) -> Result<Vec<Edit>, Stop> {
    let Some(tree) = crate::tree::syntax::parse_syntax(language, text, || request.work())? else {
        return Ok(Vec::new());
    };
    let mut nodes = Vec::new();
    crate::tree::syntax::preorder(tree.root_node(), &mut nodes);
    request.check_stop()?;
    stage(&nodes)
}

/// The edits `edit_at` makes of `nodes` (in preorder), each at its node's start (`at`): from
/// where `request` resumes, until its window is full and a node lies past the last edit.
pub fn edits_by_node<'t, E: IntoIterator<Item = Edit>>(
    nodes: &[Node<'t>],
    request: &EditRequest<'_>,
    mut edit_at: impl FnMut(Node<'t>, u64) -> E,
) -> Result<Vec<Edit>, Stop> {
    let mut edits: Vec<Edit> = Vec::new();
    for &node in nodes {
        request.work()?;
        let at = position_order(node.start_byte(), 0);
        if at < request.from {
            continue;
        }
        if request.is_full(edits.len()) && edits.last().is_some_and(|edit| edit.order < at) {
            break;
        }
        edits.extend(edit_at(node, at));
    }
    Ok(edits)
}
