//! The tree pane: the parse tree of the current best (re-parsed when the best changes, no more
//! often than parsing can afford), or its lines when the language is unknown; the selection,
//! what is open, whether the cursor follows the candidate under test, and the marks of what
//! the candidate removes (`[test]` all of a node, `[part]` some of it).

use std::collections::HashSet;
use std::ops::Range;
use std::sync::Arc;
use std::time::Instant;

use ratatui::Frame;
use ratatui::crossterm::event::{KeyCode, KeyEvent};
use ratatui::layout::{Position, Rect};
use ratatui::style::{Modifier, Style};
use ratatui::text::{Line, Span, Text};
use ratatui::widgets::Paragraph;
use tui_tree_widget::{Tree as TreeWidget, TreeItem, TreeState};
use unicode_width::{UnicodeWidthChar, UnicodeWidthStr};

use super::View;
use crate::tui::theme::Theme;
use crate::tui::throttle::Throttle;
use crate::tui::widgets::{block, scrolled};
use whittle_core::text::describe::{ellipsize, line_column, snippet};
use whittle_core::tree::{self, Language, NodeId, Preprocess, Tree};

mod labels;
use labels::*;

/// Nodes listed under a closed node, and descendants offered for hoisting, at most.
const MAX_LISTED: usize = 400;

/// The largest best parsed again to name the nodes of a hoist made on an earlier version.
const MAX_PARSED_AT_ONCE: usize = 256 * 1024;

/// The kind of the outermost node of `tree` that spans exactly `span`.
pub fn kind_spanning<'t>(tree: &'t Tree, span: &Range<usize>) -> Option<&'t str> {
    let mut node = tree.root();
    loop {
        if tree.byte_range(node) == *span {
            return Some(tree.kind(node));
        }
        node = tree.children(node).find(|&child| {
            let range = tree.byte_range(child);
            range.start <= span.start && span.end <= range.end
        })?;
    }
}

/// What the user points at in the tree pane.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Selection {
    /// A node of the tree parsed from the best with `version`.
    Node {
        version: u64,
        node: NodeId,
        bytes: Range<usize>,
    },
    /// A line of the best (0-based) and its bytes.
    Line { line: usize, bytes: Range<usize> },
}

impl Selection {
    pub fn bytes(&self) -> Range<usize> {
        match self {
            Selection::Node { bytes, .. } | Selection::Line { bytes, .. } => bytes.clone(),
        }
    }
}

/// Marks drawn on a node or line.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct UnitMarks {
    pub pinned: bool,
    /// Entirely removed by the candidate under test.
    pub removed: bool,
    /// Partly removed by the candidate under test.
    pub touched: bool,
}

/// Whether `range` lies in, or meets, the sorted ranges `set`.
fn relation(set: &[Range<usize>], range: &Range<usize>) -> (bool, bool) {
    if range.start >= range.end {
        return (false, false);
    }
    let first = set.partition_point(|r| r.end <= range.start);
    let mut covered = range.start;
    let mut meets = false;
    for r in &set[first..] {
        if r.start >= range.end {
            break;
        }
        meets = true;
        if r.start <= covered {
            covered = covered.max(r.end);
        }
    }
    (covered >= range.end, meets)
}

/// The marks of a unit given the pins and what the candidate removes (both sorted).
pub fn marks_of(
    range: &Range<usize>,
    pins: &[Range<usize>],
    removed: &[Range<usize>],
) -> UnitMarks {
    let (pinned, _) = relation(pins, range);
    let (inside, meets) = relation(removed, range);
    UnitMarks {
        pinned,
        removed: inside,
        touched: meets && !inside,
    }
}

/// The tree pane's state.
pub struct TreePane {
    language: Option<&'static Language>,
    tree: Option<Arc<Tree>>,
    tree_version: u64,
    /// Spaces out re-parses by their cost.
    parse_throttle: Throttle,
    parse_failed: bool,
    pub state: TreeState<usize>,
    /// The selected line in lines mode, and the first line shown.
    pub line_cursor: usize,
    pub line_offset: usize,
    /// The cursor follows the candidate under test until the user moves it.
    pub follow: bool,
    /// The step whose candidate the cursor last followed.
    followed_step: Option<u64>,
    /// Show lines even when a tree is available.
    pub lines_mode: bool,
    /// Width in percent of the screen (wide layout).
    pub percent: u16,
}

impl TreePane {
    pub fn new(language: Option<&'static Language>) -> Self {
        TreePane {
            language: language.filter(|l| l.is_available()),
            tree: None,
            tree_version: 0,
            parse_throttle: Throttle::default(),
            parse_failed: false,
            state: TreeState::default(),
            line_cursor: 0,
            line_offset: 0,
            follow: true,
            followed_step: None,
            lines_mode: false,
            percent: 24,
        }
    }

    /// The tree shown, if the pane shows a tree.
    pub fn tree(&self) -> Option<&Arc<Tree>> {
        if self.lines_mode {
            None
        } else {
            self.tree.as_ref()
        }
    }

    /// The parse of the best of `version`, whatever the pane shows.
    pub fn parsed(&self, version: u64) -> Option<Arc<Tree>> {
        self.tree.clone().filter(|_| self.tree_version == version)
    }

    /// The kinds of the nodes that span exactly `spans` of the best of `version` (`best`), from
    /// the tree shown when it is of that version, else from a parse of `best` when it is
    /// small enough to parse at once.
    pub fn kinds_spanning(
        &self,
        version: u64,
        best: &[u8],
        spans: &[Range<usize>],
    ) -> Option<Vec<String>> {
        let tree = match self.parsed(version) {
            Some(tree) => tree,
            None if best.len() <= MAX_PARSED_AT_ONCE => {
                tree::parse(self.language?, best.to_vec(), Preprocess::default()).ok()?
            }
            None => return None,
        };
        spans
            .iter()
            .map(|span| kind_spanning(&tree, span).map(str::to_string))
            .collect()
    }

    pub fn has_language(&self) -> bool {
        self.language.is_some()
    }

    /// Re-parses the best when its version changed (unless the last parse was so recent that
    /// parsing would take more than a tenth of the time). Returns whether the tree changed.
    pub fn refresh(&mut self, version: u64, best: &[u8]) -> bool {
        let Some(language) = self.language else {
            return false;
        };
        if self.tree.is_some() && self.tree_version == version {
            return false;
        }
        if self.parse_failed && self.tree_version == version {
            return false;
        }
        if self.tree.is_some() && self.parse_throttle.too_soon(Instant::now()) {
            return false;
        }
        let parsed = self
            .parse_throttle
            .run(|| tree::parse(language, best.to_vec(), Preprocess::default()));
        self.tree_version = version;
        match parsed {
            Ok(tree) => {
                let previous = self.selected_bytes();
                self.parse_failed = false;
                self.state = TreeState::default();
                self.state.open(vec![tree.root().index()]);
                self.tree = Some(tree);
                if let Some(bytes) = previous
                    && !self.follow
                {
                    self.select_covering(&bytes);
                } else {
                    self.followed_step = None;
                }
                true
            }
            Err(_) => {
                self.parse_failed = true;
                self.tree = None;
                false
            }
        }
    }

    fn selected_bytes(&self) -> Option<Range<usize>> {
        let tree = self.tree.as_ref()?;
        let id = *self.state.selected().last()?;
        (id < tree.len()).then(|| tree.byte_range(NodeId::from_index(id)))
    }

    /// The path from the root to the smallest node covering `bytes`.
    fn path_covering(tree: &Tree, bytes: &Range<usize>) -> Vec<usize> {
        let mut path = vec![tree.root().index()];
        let mut node = tree.root();
        loop {
            let next = tree.children(node).find(|&child| {
                let range = tree.byte_range(child);
                range.start <= bytes.start && bytes.end <= range.end && range.start < range.end
            });
            match next {
                Some(child) => {
                    path.push(child.index());
                    node = child;
                }
                None => return path,
            }
        }
    }

    /// Selects the smallest node covering `bytes`, opening its ancestors.
    fn select_covering(&mut self, bytes: &Range<usize>) {
        let Some(tree) = &self.tree else {
            return;
        };
        let path = Self::path_covering(tree, bytes);
        for depth in 1..path.len() {
            self.state.open(path[..depth].to_vec());
        }
        self.state.select(path);
    }

    /// Moves the cursor to what the candidate of `step` removes, if following (`line_starts`:
    /// the best's line index).
    pub fn follow_candidate(&mut self, step: u64, removed: &[Range<usize>], line_starts: &[usize]) {
        if !self.follow || self.followed_step == Some(step) {
            return;
        }
        let Some(first) = removed.first() else {
            return;
        };
        self.followed_step = Some(step);
        if self.tree().is_some() {
            // The smallest node covering every removed byte.
            let last = removed.last().map_or(first.end, |r| r.end);
            self.select_covering(&(first.start..last));
        } else {
            self.line_cursor = line_of(line_starts, first.start);
        }
    }

    /// The user moved the cursor: stop following.
    pub fn user_moved(&mut self) {
        self.follow = false;
    }

    /// What the cursor points at (`line_starts`: the line index of `best`).
    pub fn selection(&self, best: &[u8], line_starts: &[usize]) -> Option<Selection> {
        if let Some(tree) = self.tree() {
            let id = *self.state.selected().last()?;
            if id >= tree.len() {
                return None;
            }
            let node = NodeId::from_index(id);
            return Some(Selection::Node {
                version: self.tree_version,
                node,
                bytes: tree.byte_range(node),
            });
        }
        let line = self.line_cursor.min(line_starts.len().saturating_sub(1));
        let start = *line_starts.get(line)?;
        let end = line_starts.get(line + 1).copied().unwrap_or(best.len());
        Some(Selection::Line {
            line,
            bytes: start..end,
        })
    }

    /// Descendants of the selected node that it may be hoisted to: compatible ones first.
    pub fn hoist_choices(&self) -> Vec<(NodeId, String)> {
        let Some(tree) = self.tree() else {
            return Vec::new();
        };
        let Some(&id) = self.state.selected().last() else {
            return Vec::new();
        };
        if id >= tree.len() {
            return Vec::new();
        }
        let node = NodeId::from_index(id);
        let end = tree.subtree_end(node).index();
        let mut compatible = Vec::new();
        let mut others = Vec::new();
        for index in id + 1..end.min(tree.len()) {
            let descendant = NodeId::from_index(index);
            if !tree.is_named(descendant) {
                continue;
            }
            let short = snippet(tree.text(descendant), 40);
            let (line, column) = line_column(tree.source(), tree.byte_range(descendant).start);
            let label = format!("{}  `{short}` at {line}:{column}", tree.kind(descendant));
            if tree.compatible(node, descendant) {
                compatible.push((descendant, format!("{label}  (same kind)")));
            } else {
                others.push((descendant, label));
            }
            if compatible.len() + others.len() >= MAX_LISTED {
                break;
            }
        }
        compatible.extend(others);
        compatible
    }

    /// The tree items to draw: open nodes with their children, closed ones with their children
    /// as leaves (so that they show as expandable).
    /// Labels wider than `width` (the pane's inside) wrap onto more lines.
    pub fn items(
        &self,
        theme: &Theme,
        marks: &Marks,
        width: usize,
    ) -> Vec<TreeItem<'static, usize>> {
        let Some(tree) = self.tree() else {
            return Vec::new();
        };
        let opened: &HashSet<Vec<usize>> = self.state.opened();
        let mut path = Vec::new();
        let context = ItemContext {
            tree,
            opened,
            theme,
            marks,
            width,
        };
        vec![build_item(&context, tree.root(), &mut path, true)]
    }
}

/// What the tree pane marks: the pins, what the candidate removes, and for a hoist the node
/// and the descendant that takes its place (before it is judged, or when it is not kept) or,
/// once it is kept, the descendant in its new place with the kind of the node it replaced.
pub struct Marks<'a> {
    pub pins: &'a [Range<usize>],
    pub removed: &'a [Range<usize>],
    pub hoist: Option<(Range<usize>, Range<usize>)>,
    pub hoisted: Option<super::HoistKept>,
    /// ProbDD's or CDD's belief per node bytes, with its heat (while one prunes a set).
    pub beliefs: std::collections::HashMap<Range<usize>, (String, f32)>,
}

impl TreePane {
    /// Moves the cursor by a key; `page` is the pane's height, `lines` the best's line count.
    /// Returns whether the key was the pane's.
    pub fn on_key(&mut self, key: KeyEvent, page: usize, lines: usize) -> bool {
        if self.tree().is_none() {
            if let Some(line) = scrolled(self.line_cursor, key.code, page) {
                self.line_cursor = line.min(lines.max(1) - 1);
                self.user_moved();
                return true;
            }
            return false;
        }
        let state = &mut self.state;
        let moved = match key.code {
            KeyCode::Up => state.key_up(),
            KeyCode::Down => state.key_down(),
            KeyCode::Left => state.key_left(),
            KeyCode::Right => state.key_right(),
            KeyCode::Enter => state.toggle_selected(),
            KeyCode::PageUp => {
                state.select_relative(|current| current.map_or(0, |c| c.saturating_sub(page)))
            }
            KeyCode::PageDown => {
                state.select_relative(|current| current.map_or(0, |c| c.saturating_add(page)))
            }
            KeyCode::Home => state.select_first(),
            KeyCode::End => state.select_last(),
            _ => return false,
        };
        if moved {
            self.user_moved();
        }
        true
    }

    /// A click at `position` (`row` of the pane's inside).
    pub fn on_click(&mut self, position: Position, row: usize) {
        if self.tree().is_some() {
            if self.state.click_at(position) {
                self.user_moved();
            }
        } else {
            self.line_cursor = self.line_offset + row;
            self.user_moved();
        }
    }

    /// The mouse wheel over the pane.
    pub fn on_scroll(&mut self, down: bool, page: usize, lines: usize) {
        if self.tree().is_some() {
            if down {
                self.state.scroll_down(3);
            } else {
                self.state.scroll_up(3);
            }
            self.user_moved();
        } else {
            let code = if down { KeyCode::Down } else { KeyCode::Up };
            self.on_key(KeyEvent::from(code), page, lines);
        }
    }

    /// Draws the tree (or the lines) with the pins and the candidate's marks.
    pub fn draw(&mut self, view: &View, frame: &mut Frame, area: Rect) {
        match self.tree().cloned() {
            Some(tree) => self.draw_tree(view, &tree, frame, area),
            None => self.draw_lines(view, frame, area),
        }
    }

    /// The title's note that the view follows the candidate under test.
    fn follow_note(&self) -> &'static str {
        if self.follow { " · follow" } else { "" }
    }

    /// The tree of the best, its nodes marked.
    fn draw_tree(&mut self, view: &View, tree: &Tree, frame: &mut Frame, area: Rect) {
        let focused = view.focus == super::Pane::Tree;
        let theme = view.theme;
        let follow = self.follow_note();
        let stale = if self.tree_version != view.snapshot.version {
            " · …"
        } else {
            ""
        };
        // Marks apply to the tree of the best they were made on.
        let removed = if stale.is_empty() { view.removed } else { &[] };
        let title = format!(" Tree {}{follow}{stale} ", tree.len());
        let hoist = if stale.is_empty() {
            view.hoist.clone()
        } else {
            None
        };
        let beliefs = match &view.run.view.beliefs {
            Some(step) if stale.is_empty() => super::beliefs::node_beliefs(step),
            _ => Default::default(),
        };
        let hoisted = view.hoist_kept.clone().filter(|_| stale.is_empty());
        let marks = Marks {
            pins: &view.snapshot.pins,
            removed,
            hoist,
            hoisted,
            beliefs,
        };
        let items = self.items(theme, &marks, area.width.saturating_sub(2) as usize);
        match TreeWidget::new(&items) {
            Ok(widget) => {
                let widget = widget
                    .block(block(title, focused, theme))
                    .highlight_style(theme.selection.add_modifier(Modifier::BOLD))
                    .highlight_symbol(">")
                    .node_closed_symbol("▸ ")
                    .node_open_symbol("▾ ")
                    .node_no_children_symbol("  ");
                frame.render_stateful_widget(widget, area, &mut self.state);
            }
            Err(error) => frame.render_widget(
                Paragraph::new(error.to_string()).block(block(title, focused, theme)),
                area,
            ),
        }
    }

    /// The lines of the best (lines as units: no tree), marked.
    fn draw_lines(&mut self, view: &View, frame: &mut Frame, area: Rect) {
        let focused = view.focus == super::Pane::Tree;
        let theme = view.theme;
        let follow = self.follow_note();
        let best = &view.snapshot.best;
        let starts = view.lines;
        let height = area.height.saturating_sub(2) as usize;
        let cursor = self.line_cursor.min(starts.len().saturating_sub(1));
        self.line_cursor = cursor;
        if cursor < self.line_offset {
            self.line_offset = cursor;
        } else if height > 0 && cursor >= self.line_offset + height {
            self.line_offset = cursor + 1 - height;
        }
        let number_width = starts.len().to_string().len();
        let mut lines = Vec::new();
        for (index, &start) in starts
            .iter()
            .enumerate()
            .skip(self.line_offset)
            .take(height)
        {
            let end = starts.get(index + 1).copied().unwrap_or(best.len());
            let marks = marks_of(&(start..end), &view.snapshot.pins, view.removed);
            let text = String::from_utf8_lossy(&best[start..end]);
            let text = text.trim_end_matches('\n').replace('\t', "    ");
            let mut style = marked_style(theme.base, marks, theme);
            if index == cursor {
                style = style.patch(theme.selection);
            }
            let mark = if marks.pinned {
                "⚑"
            } else if marks.removed {
                "✂"
            } else {
                " "
            };
            lines.push(Line::from(vec![
                Span::styled(format!("{:>number_width$} ", index + 1), theme.muted),
                Span::styled(
                    mark,
                    if marks.pinned {
                        theme.pinned
                    } else {
                        theme.accent
                    },
                ),
                Span::styled(format!(" {text}"), style),
            ]));
        }
        let title = format!(" Lines · {}{follow} ", starts.len());
        frame.render_widget(
            Paragraph::new(lines).block(block(title, focused, theme)),
            area,
        );
    }
}

/// Byte offsets where the lines of `text` start (a final line without newline included; an
/// empty text has one empty line).
pub fn line_starts(text: &[u8]) -> Vec<usize> {
    let mut starts = Vec::with_capacity(text.len() / 32 + 1);
    starts.push(0);
    let last = text.len().saturating_sub(1);
    starts.extend(
        text[..last]
            .iter()
            .enumerate()
            .filter(|(_, b)| **b == b'\n')
            .map(|(i, _)| i + 1),
    );
    starts
}

/// The line (0-based) holding byte `offset`, given the text's [`line_starts`].
pub fn line_of(line_starts: &[usize], offset: usize) -> usize {
    line_starts
        .partition_point(|&start| start <= offset)
        .saturating_sub(1)
}

/// The style a unit's marks give on top of `base`.
pub fn marked_style(base: Style, marks: UnitMarks, theme: &Theme) -> Style {
    let mut style = base;
    if marks.pinned {
        style = style.patch(theme.pinned);
    }
    if marks.removed {
        style = style.patch(theme.candidate);
    }
    style
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn marks_tell_inside_from_touching() {
        let removed = [2..5, 5..8, 10..12];
        assert!(marks_of(&(3..7), &[], &removed).removed);
        assert!(marks_of(&(9..11), &[], &removed).touched);
        let clear = marks_of(&(8..10), &[], &removed);
        assert!(!clear.removed && !clear.touched);
        assert!(marks_of(&(1..2), &[0..3, 5..6], &[]).pinned);
        assert!(!marks_of(&(0..3), &[1..2, 5..6], &[]).pinned);
    }

    #[test]
    fn long_labels_wrap_between_words_and_lose_nothing() {
        let label = Line::from(vec![
            Span::raw("compound_statement"),
            Span::raw(" 33B"),
            Span::raw(" [hoisted here: was compound_statement]"),
        ]);
        let text = wrap_label(label, 24);
        let lines: Vec<String> = text.lines.iter().map(|line| line.to_string()).collect();
        assert_eq!(
            lines,
            [
                "compound_statement 33B",
                "[hoisted here: was",
                "compound_statement]"
            ]
        );
        assert!(text.lines.iter().all(|line| line.width() <= 24));
        let long = wrap_label(Line::raw("a_kind_name_longer_than_the_line 3B"), 10);
        let joined: String = long.lines.iter().map(|line| line.to_string()).collect();
        assert_eq!(joined, "a_kind_name_longer_than_the_line 3B");
        assert!(long.lines.iter().all(|line| line.width() <= 10));
    }

    #[test]
    fn lines_start_after_newlines() {
        assert_eq!(line_starts(b"a\nbc\n"), vec![0, 2]);
        assert_eq!(line_starts(b"a\nbc"), vec![0, 2]);
        let starts = line_starts(b"a\nbc\nd");
        assert_eq!(line_of(&starts, 0), 0);
        assert_eq!(line_of(&starts, 1), 0, "a newline belongs to its line");
        assert_eq!(line_of(&starts, 2), 1);
        assert_eq!(line_of(&starts, 3), 1);
        assert_eq!(line_of(&starts, 5), 2);
        assert_eq!(line_of(&starts, 99), 2);
    }
}
