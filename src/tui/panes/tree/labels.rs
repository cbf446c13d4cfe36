//! The items of the tree pane: a node's label (its kind, size, text and marks) wrapped to the
//! pane's width, and the items under it.

use super::*;

/// What every item of one drawing shares.
pub(super) struct ItemContext<'a> {
    pub(super) tree: &'a Tree,
    pub(super) opened: &'a HashSet<Vec<usize>>,
    pub(super) theme: &'a Theme,
    pub(super) marks: &'a Marks<'a>,
    /// The pane's inside, in columns.
    pub(super) width: usize,
}

pub(super) fn build_item(
    context: &ItemContext,
    node: NodeId,
    path: &mut Vec<usize>,
    expand: bool,
) -> TreeItem<'static, usize> {
    let tree = context.tree;
    path.push(node.index());
    // The widget draws the selection mark (one column), two columns a level and the open or
    // closed symbol (two columns) before the label.
    let room = context.width.saturating_sub(1 + 2 * (path.len() - 1) + 2);
    let label = wrap_label(node_label(tree, node, context.theme, context.marks), room);
    let item = if !expand {
        TreeItem::new_leaf(node.index(), label)
    } else {
        let open = context.opened.contains(path.as_slice());
        let children: Vec<TreeItem<'static, usize>> = tree
            .children(node)
            .take(MAX_LISTED)
            .map(|child| build_item(context, child, path, open))
            .collect();
        if children.is_empty() {
            TreeItem::new_leaf(node.index(), label)
        } else {
            // Node ids are unique, so siblings never clash.
            TreeItem::new(node.index(), label.clone(), children)
                .unwrap_or_else(|_| TreeItem::new_leaf(node.index(), label))
        }
    };
    path.pop();
    item
}

/// A label in lines of at most `width` columns: broken between words (a word wider than a line
/// broken where the line ends), so that nothing is cut.
pub(super) fn wrap_label(label: Line<'static>, width: usize) -> Text<'static> {
    let width = width.max(8);
    let mut lines: Vec<Line<'static>> = vec![Line::default()];
    for span in label.spans {
        // Each word with the spaces before it.
        let content = span.content.into_owned();
        let mut words: Vec<&str> = Vec::new();
        let mut start = 0;
        for (index, _) in content.match_indices(' ') {
            if index > start && !content[start..index].trim().is_empty() {
                words.push(&content[start..index]);
                start = index;
            }
        }
        words.push(&content[start..]);
        for word in words {
            let mut rest = word.to_string();
            loop {
                let line = lines.last_mut().expect("one line at least");
                let used = line.width();
                if used + rest.width() <= width {
                    line.push_span(Span::styled(rest, span.style));
                    break;
                }
                if used > 0 {
                    // The word starts a line of its own, without its spaces.
                    rest = rest.trim_start().to_string();
                    lines.push(Line::default());
                    continue;
                }
                let (head, tail) = split_at_width(&rest, width);
                line.push_span(Span::styled(head, span.style));
                lines.push(Line::default());
                rest = tail;
                if rest.is_empty() {
                    break;
                }
            }
        }
    }
    lines.retain(|line| line.width() > 0);
    Text::from(lines)
}

/// `text` cut after at most `width` columns (one character at least), and the rest.
pub(super) fn split_at_width(text: &str, width: usize) -> (String, String) {
    let mut used = 0;
    let mut cut = 0;
    for (index, character) in text.char_indices() {
        let columns = character.width().unwrap_or(0);
        if used + columns > width && index > 0 {
            break;
        }
        used += columns;
        cut = index + character.len_utf8();
    }
    (text[..cut].to_string(), text[cut..].to_string())
}

pub(super) fn node_label(tree: &Tree, node: NodeId, theme: &Theme, marks: &Marks) -> Line<'static> {
    let range = tree.byte_range(node);
    let unit = marks_of(&range, marks.pins, marks.removed);
    let kind_style = if unit.removed {
        theme.candidate
    } else if !tree.is_removable(node) {
        theme.unremovable
    } else {
        theme.base
    };
    let mut spans = vec![Span::styled(tree.kind(node).to_string(), kind_style)];
    if tree.is_token(node) {
        let short = ellipsize(&String::from_utf8_lossy(tree.text(node)), 24);
        spans.push(Span::styled(format!(" `{short}`"), theme.muted));
    }
    spans.push(Span::styled(format!(" {}B", range.len()), theme.muted));
    if unit.pinned {
        spans.push(Span::styled(" [pin]", theme.pinned));
    }
    match (&marks.hoist, &marks.hoisted) {
        (_, Some(kept)) if kept.start == range.start && kept.hoisted == tree.kind(node) => {
            spans.push(Span::styled(
                format!(" [hoisted here: was {}]", kept.ancestor),
                theme.accent,
            ));
        }
        (Some((outer, _)), _) if *outer == range => {
            spans.push(Span::styled(" [replaced]", theme.accent));
        }
        (Some((_, inner)), _) if *inner == range => {
            spans.push(Span::styled(" [replaces it]", theme.accent));
        }
        _ if unit.removed => {
            // A removed node prints its replacement Φ; a hoist replaces nothing inside.
            let phi = if marks.hoist.is_some() || tree.is_phi_empty(node) {
                String::new()
            } else {
                tree.replacement(node)
                    .map(|r| format!(" → Φ `{}`", String::from_utf8_lossy(r)))
                    .unwrap_or_default()
            };
            spans.push(Span::styled(format!(" [test]{phi}"), theme.accent));
        }
        _ if unit.touched => spans.push(Span::styled(" [part]", theme.accent)),
        _ => {}
    }
    if let Some((label, heat)) = marks.beliefs.get(&range) {
        spans.push(Span::styled(
            label.clone(),
            crate::tui::panes::beliefs::heat_style(*heat, theme),
        ));
    }
    if !tree.is_removable(node) {
        spans.push(Span::styled(" [fixed]", theme.unremovable));
    }
    Line::from(spans)
}
