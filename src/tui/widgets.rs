//! Drawing helpers of the panes: frames and short numbers, the partition strip (the chunks Δ1..Δn as bars sized by their
//! units, as in the dissertation's Fig 5.1, with the outcome of each Δi and ∇i below), and the
//! test case's lines with highlighting, the candidate's removed spans, pins and the chunk
//! gutter.

use std::ops::Range;
use std::time::Duration;

use ratatui::crossterm::event::KeyCode;
use ratatui::layout::Rect;
use ratatui::style::{Modifier, Style};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, BorderType, Borders};
use unicode_width::UnicodeWidthStr;

pub use whittle_core::text::describe::ellipsize;

use super::highlight::HighlightSpan;
use super::model::Round;
use super::theme::Theme;
use whittle_core::observe::events::{Action, CandidateKind};

/// Splits `width` columns among chunks in proportion to their sizes, each at least one column
/// (when there are more chunks than columns, the first `width` get one each).
pub fn chunk_widths(chunks: &[u32], width: usize) -> Vec<usize> {
    let n = chunks.len();
    if n == 0 || width == 0 {
        return vec![0; n];
    }
    if n >= width {
        return (0..n).map(|i| usize::from(i < width)).collect();
    }
    let total: u64 = chunks.iter().map(|&c| u64::from(c.max(1))).sum();
    let spare = (width - n) as u64;
    // Largest remainders: one column each, then the spare ones in proportion.
    let mut widths: Vec<usize> = Vec::with_capacity(n);
    let mut remainders: Vec<(u64, usize)> = Vec::with_capacity(n);
    let mut used = 0usize;
    for (i, &c) in chunks.iter().enumerate() {
        let share = u64::from(c.max(1)) * spare;
        let whole = (share / total) as usize;
        widths.push(1 + whole);
        used += 1 + whole;
        remainders.push((share % total, i));
    }
    remainders.sort_by(|a, b| b.0.cmp(&a.0).then(a.1.cmp(&b.1)));
    for (_, i) in remainders.into_iter().take(width - used) {
        widths[i] += 1;
    }
    widths
}

/// `text` centered in `width` columns (cut when it is wider).
fn centered_text(text: &str, width: usize) -> String {
    let len = text.width();
    if len >= width {
        return ellipsize(text, width);
    }
    let left = (width - len) / 2;
    format!(
        "{}{text}{}",
        " ".repeat(left),
        " ".repeat(width - len - left)
    )
}

/// A pane's frame: thick when it has the focus.
pub fn block<'a>(title: impl Into<Line<'a>>, focused: bool, theme: &Theme) -> Block<'a> {
    Block::default()
        .borders(Borders::ALL)
        .border_type(if focused {
            BorderType::Thick
        } else {
            BorderType::Rounded
        })
        .border_style(if focused {
            theme.border_focused
        } else {
            theme.border
        })
        .title(title)
        .title_style(theme.title)
        .style(theme.base)
}

/// A size in bytes, short.
pub fn human_bytes(bytes: usize) -> String {
    if bytes < 10_000 {
        format!("{bytes} B")
    } else if bytes < 10_000_000 {
        format!("{:.1} KB", bytes as f64 / 1000.0)
    } else {
        format!("{:.1} MB", bytes as f64 / 1e6)
    }
}

/// `part` of `whole` in percent, one decimal.
pub fn percent(part: usize, whole: usize) -> String {
    if whole == 0 {
        "–".into()
    } else {
        format!("{:.1}%", 100.0 * part as f64 / whole as f64)
    }
}

/// A duration as m:ss or h:mm:ss.
pub fn clock_time(duration: Duration) -> String {
    let secs = duration.as_secs();
    if secs >= 3600 {
        format!("{}:{:02}:{:02}", secs / 3600, secs / 60 % 60, secs % 60)
    } else {
        format!("{}:{:02}", secs / 60, secs % 60)
    }
}

/// A rectangle of at most `width` × `height` in the middle of `area`.
pub fn centered(area: Rect, width: u16, height: u16) -> Rect {
    let width = width.min(area.width);
    let height = height.min(area.height);
    Rect {
        x: area.x + (area.width - width) / 2,
        y: area.y + (area.height - height) / 2,
        width,
        height,
    }
}

/// Where overlays go: the screen without its header and status line (which stay visible).
pub fn overlay_area(screen: Rect) -> Rect {
    Rect {
        y: screen.y + 1,
        height: screen.height.saturating_sub(2),
        ..screen
    }
}

/// The first row of a list shown in `height` rows so that `cursor` is visible.
pub fn first_visible_row(cursor: usize, len: usize, height: usize) -> usize {
    if height == 0 || len <= height {
        return 0;
    }
    cursor.saturating_sub(height - 1).min(len - height)
}

fn outcome_cell(
    outcome: Option<(whittle_core::outcome::Outcome, Action)>,
    testing: bool,
    width: usize,
    theme: &Theme,
) -> Span<'static> {
    match (outcome, testing) {
        (_, true) if outcome.is_none() => Span::styled(centered_text("▶", width), theme.accent),
        (Some((outcome, action)), _) => {
            let symbol = match action {
                Action::Test => outcome.symbol().to_string(),
                Action::Cache => format!("{}c", outcome.symbol()),
                Action::Guard => format!("{}g", outcome.symbol()),
                Action::Recall => format!("{}r", outcome.symbol()),
                Action::Names => format!("{}n", outcome.symbol()),
            };
            let mut style = theme.outcome(outcome);
            if testing {
                style = style.add_modifier(Modifier::REVERSED);
            }
            Span::styled(centered_text(&symbol, width), style)
        }
        (None, _) => Span::styled(centered_text("·", width), theme.muted),
    }
}

/// The strip of chunks and the Δ and ∇ outcome rows under it. `under_test` is the chunk of
/// the candidate under test (or just judged) and whether it is a subset or a complement.
pub fn partition_strip(
    round: &Round,
    width: usize,
    under_test: Option<(usize, CandidateKind)>,
    theme: &Theme,
) -> Vec<Line<'static>> {
    let widths = chunk_widths(&round.chunks, width);
    let mut bars = vec![Span::styled("   ", theme.muted)];
    let mut subsets = vec![Span::styled("Δi ", theme.muted)];
    let mut complements = vec![Span::styled("∇i ", theme.muted)];
    let mut shown = 0;
    // Numbers on every chunk when they all fit, else on the first and the last only.
    let all_numbered = widths
        .iter()
        .enumerate()
        .all(|(i, &w)| w > (i + 1).to_string().len());
    for (i, &w) in widths.iter().enumerate() {
        if w == 0 {
            continue;
        }
        shown += 1;
        let style = match under_test {
            Some((index, _)) if index == i => theme.chunk_test,
            _ if i % 2 == 0 => theme.chunk_a,
            _ => theme.chunk_b,
        };
        let label = if w >= (i + 1).to_string().len() + 2 {
            format!("Δ{}", i + 1)
        } else if all_numbered
            || ((i == 0 || i + 1 == widths.len()) && w > (i + 1).to_string().len())
        {
            (i + 1).to_string()
        } else {
            String::new()
        };
        bars.push(Span::styled(centered_text(&label, w), style));
        let testing_subset = under_test == Some((i, CandidateKind::Subset));
        let testing_complement = under_test == Some((i, CandidateKind::Complement));
        subsets.push(outcome_cell(
            round.subset_outcomes.get(i).copied().flatten(),
            testing_subset,
            w,
            theme,
        ));
        complements.push(outcome_cell(
            round.complement_outcomes.get(i).copied().flatten(),
            testing_complement,
            w,
            theme,
        ));
    }
    if shown < round.chunks.len() {
        bars.push(Span::styled(
            format!("… {} more", round.chunks.len() - shown),
            theme.muted,
        ));
    }
    vec![
        Line::from(bars),
        Line::from(subsets),
        Line::from(complements),
    ]
}

/// The cursor of a list pane (History, Files): arrows, PgUp/PgDn, Home/End and clicks move it;
/// until the user moves it, it follows the row its pane chooses (the newest entry, the file
/// shown).
#[derive(Clone, Debug, Default)]
pub struct ListCursor {
    pub row: usize,
    /// The user moved it: it stays where it was put.
    pub moved: bool,
}

impl ListCursor {
    /// On `chosen` while the user did not move it, and on a row of a list of `len`.
    pub fn follow(&mut self, chosen: Option<usize>, len: usize) {
        if let Some(chosen) = chosen.filter(|_| !self.moved) {
            self.row = chosen;
        }
        self.row = self.row.min(len.saturating_sub(1));
    }

    /// Moves with a navigation key over a list of `len` rows (`page` rows a page); whether it
    /// moved.
    pub fn on_key(&mut self, code: KeyCode, page: usize, len: usize) -> bool {
        if len == 0 {
            return false;
        }
        match scrolled(self.row, code, page) {
            Some(row) => {
                self.row = row.min(len - 1);
                self.moved = true;
                true
            }
            None => false,
        }
    }

    /// Moves to the row of the list under a click on `row` of a pane `height` rows inside;
    /// that row, if there is one.
    pub fn on_click(&mut self, row: usize, height: usize, len: usize) -> Option<usize> {
        let clicked = self.first_visible(len, height) + row;
        (clicked < len).then(|| {
            self.row = clicked;
            self.moved = true;
            clicked
        })
    }

    /// The first row shown of a list of `len` in `height` rows, the cursor's row visible.
    pub fn first_visible(&self, len: usize, height: usize) -> usize {
        first_visible_row(self.row, len, height)
    }
}

/// A cursor or scroll position moved by a navigation key, if it is one.
pub fn scrolled(position: usize, code: KeyCode, page: usize) -> Option<usize> {
    Some(match code {
        KeyCode::Up => position.saturating_sub(1),
        KeyCode::Down => position + 1,
        KeyCode::PageUp => position.saturating_sub(page),
        KeyCode::PageDown => position + page,
        KeyCode::Home => 0,
        KeyCode::End => usize::MAX / 2,
        _ => return None,
    })
}

/// Whether `offset` lies in one of the sorted, disjoint-or-overlapping `ranges`.
fn inside(ranges: &[Range<usize>], offset: usize) -> bool {
    let first = ranges.partition_point(|r| r.end <= offset);
    ranges[first..]
        .iter()
        .take_while(|r| r.start <= offset)
        .any(|r| offset < r.end)
}

/// The gutter cell of a line in the chunk column.
fn chunk_cell(
    owners: &[usize],
    line: usize,
    under_test: Option<usize>,
    theme: &Theme,
) -> Span<'static> {
    let Some(&chunk) = owners.get(line) else {
        return Span::raw(" ");
    };
    let first = line == 0 || owners[line - 1] != chunk;
    let last = owners.get(line + 1) != Some(&chunk);
    let symbol = match (first, last) {
        (true, true) => "╺",
        (true, false) => "┏",
        (false, true) => "┗",
        (false, false) => "┃",
    };
    let style = if under_test == Some(chunk) {
        theme.chunk_test
    } else if chunk % 2 == 0 {
        theme.chunk_a
    } else {
        theme.chunk_b
    };
    Span::styled(symbol, style)
}

/// What a candidate changes in the test case: the ranges it removes or replaces (sorted), and
/// the new texts it puts in, each where its range ends (sorted).
#[derive(Clone, Copy, Default)]
pub struct Changes<'a> {
    pub removed: &'a [Range<usize>],
    pub inserted: &'a [(usize, String)],
}

/// The visible lines of the test case: numbers, chunk gutter, highlighted text with the
/// candidate's removed spans (struck through), the new texts it puts in and the pins marked.
#[allow(clippy::too_many_arguments)]
pub fn text_lines(
    text: &[u8],
    starts: &[usize],
    first: usize,
    height: usize,
    highlighted: Option<&[Vec<HighlightSpan>]>,
    changes: Changes<'_>,
    pins: &[Range<usize>],
    chunk_owners: Option<&[usize]>,
    chunk_under_test: Option<usize>,
    theme: &Theme,
) -> Vec<Line<'static>> {
    let number_width = starts.len().to_string().len();
    let mut lines = Vec::with_capacity(height);
    for (index, &start) in starts.iter().enumerate().skip(first).take(height) {
        let end = starts.get(index + 1).copied().unwrap_or(text.len());
        let bytes = &text[start..end];
        let content = bytes.strip_suffix(b"\n").unwrap_or(bytes);
        let mut spans = vec![Span::styled(
            format!("{:>number_width$} ", index + 1),
            theme.muted,
        )];
        if let Some(owners) = chunk_owners {
            spans.push(chunk_cell(owners, index, chunk_under_test, theme));
            spans.push(Span::raw(" "));
        }
        let Ok(content) = std::str::from_utf8(content) else {
            spans.push(Span::styled(
                String::from_utf8_lossy(content).into_owned(),
                theme.base,
            ));
            lines.push(Line::from(spans));
            continue;
        };
        let line = LineText {
            content,
            start,
            highlighted: highlighted.and_then(|h| h.get(index)).map(Vec::as_slice),
        };
        let content_removed = push_styled_runs(&mut spans, &line, changes, pins, theme);
        let removed = changes.removed;
        // A removed newline of a line that otherwise stays (or is blank) shows as ⏎.
        if end > start
            && text[end - 1] == b'\n'
            && inside(removed, end - 1)
            && (content.is_empty() || !content_removed)
        {
            spans.push(Span::styled("⏎", theme.candidate));
        }
        lines.push(Line::from(spans));
    }
    lines
}

/// One line of the test case as [`text_lines`] draws it.
struct LineText<'a> {
    /// Its text, without the newline.
    content: &'a str,
    /// Where it starts in the whole text.
    start: usize,
    /// Its syntax highlighting, when there is one.
    highlighted: Option<&'a [HighlightSpan]>,
}

/// Appends the characters of `line` to `spans` in runs of one style (its syntax colours, the
/// pins and the candidate's removed spans marked; a tab as four spaces). Returns whether the
/// candidate removes all of them.
fn push_styled_runs(
    spans: &mut Vec<Span<'static>>,
    line: &LineText<'_>,
    changes: Changes<'_>,
    pins: &[Range<usize>],
    theme: &Theme,
) -> bool {
    let removed = changes.removed;
    let mut span_index = 0;
    let mut run = String::new();
    let mut run_style: Option<Style> = None;
    let mut content_removed = true;
    // The new texts put in where a replaced range ends, after it.
    let inserted_at = |spans: &mut Vec<Span<'static>>, at: usize| {
        let first = changes.inserted.partition_point(|(point, _)| *point < at);
        for (_, new) in changes.inserted[first..]
            .iter()
            .take_while(|(p, _)| *p == at)
        {
            spans.push(Span::styled(new.replace('\n', "⏎"), theme.inserted()));
        }
    };
    for (offset, ch) in line.content.char_indices() {
        let mut style = syntax_style(line.highlighted, &mut span_index, offset, theme);
        let absolute = line.start + offset;
        if changes.inserted.iter().any(|(point, _)| *point == absolute) {
            if let Some(previous) = run_style
                && !run.is_empty()
            {
                spans.push(Span::styled(std::mem::take(&mut run), previous));
            }
            inserted_at(spans, absolute);
        }
        if inside(pins, absolute) {
            style = style.patch(theme.pinned);
        }
        if inside(removed, absolute) {
            style = style.patch(theme.candidate);
        } else {
            content_removed = false;
        }
        if run_style != Some(style) {
            if let Some(previous) = run_style
                && !run.is_empty()
            {
                spans.push(Span::styled(std::mem::take(&mut run), previous));
            }
            run_style = Some(style);
        }
        if ch == '\t' {
            run.push_str("    ");
        } else {
            run.push(ch);
        }
    }
    if let Some(style) = run_style
        && !run.is_empty()
    {
        spans.push(Span::styled(run, style));
    }
    inserted_at(spans, line.start + line.content.len());
    content_removed
}

/// The base style with the syntax colour of the character at `offset` of a line highlighted by
/// `highlighted`; `span_index` is where the search starts (offsets come in increasing order).
fn syntax_style(
    highlighted: Option<&[HighlightSpan]>,
    span_index: &mut usize,
    offset: usize,
    theme: &Theme,
) -> Style {
    let style = theme.base;
    let Some(hl) = highlighted else {
        return style;
    };
    while *span_index < hl.len() && hl[*span_index].bytes.end <= offset {
        *span_index += 1;
    }
    if let Some(span) = hl.get(*span_index)
        && span.bytes.start <= offset
        && let Some(category) = span.category
        && let Some(colour) = theme.syntax_colour(category)
    {
        return style.fg(colour);
    }
    style
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn widths_are_proportional_and_fill_the_strip() {
        let widths = chunk_widths(&[7, 7, 8, 8], 30);
        assert_eq!(widths.iter().sum::<usize>(), 30);
        assert!(widths.iter().all(|&w| (7..=8).contains(&w)), "{widths:?}");
        let widths = chunk_widths(&[1, 99], 20);
        assert_eq!(widths.iter().sum::<usize>(), 20);
        assert_eq!(widths[0], 1);
        assert_eq!(chunk_widths(&[1; 5], 3), vec![1, 1, 1, 0, 0]);
    }

    #[test]
    fn inside_finds_offsets_in_ranges() {
        let ranges = [0..2, 5..9];
        assert!(inside(&ranges, 1));
        assert!(!inside(&ranges, 2));
        assert!(inside(&ranges, 8));
        assert!(!inside(&ranges, 9));
    }
}
