//! The test case pane: the current best, highlighted, with what the candidate removes struck
//! through, the pins, and (for line passes) which chunk each line belongs to; or a history
//! entry; or the diff between the previous best and the current one.

use std::sync::Arc;
use std::time::Instant;

use ratatui::Frame;
use ratatui::crossterm::event::KeyCode;
use ratatui::layout::Rect;
use ratatui::text::Line;
use ratatui::widgets::Paragraph;

use super::{Pane, View};
use crate::tui::highlight::HighlightCache;
use crate::tui::throttle::Throttle;
use crate::tui::widgets::{Changes, block, human_bytes, scrolled, text_lines};
use whittle_core::observe::events::CandidateKind;

/// The new texts the candidate under test puts in the best shown, each where the range it
/// replaces ends (a text stage's rename or replacement), sorted.
fn inserted_texts(view: &View) -> Vec<(usize, String)> {
    let Some(current) = &view.run.current else {
        return Vec::new();
    };
    if current.version != view.snapshot.version || view.removed.is_empty() {
        return Vec::new();
    }
    let mut inserted: Vec<(usize, String)> = current
        .removed
        .iter()
        .zip(&current.replacements)
        .filter(|(_, new)| !new.is_empty())
        .map(|(range, new)| (range.end, new.clone()))
        .collect();
    inserted.sort_by_key(|(at, _)| *at);
    inserted
}

/// A line diff between two versions of the best.
pub struct DiffView {
    pub from: u64,
    pub to: u64,
    pub lines: Vec<(similar::ChangeTag, String)>,
    /// The first line that changed.
    pub first_change: usize,
}

impl DiffView {
    /// The line diff from one version of the best to another.
    fn between(from: (u64, &[u8]), to: (u64, &[u8])) -> Self {
        let old = String::from_utf8_lossy(from.1);
        let new = String::from_utf8_lossy(to.1);
        let diff = similar::TextDiff::from_lines(old.as_ref(), new.as_ref());
        let lines: Vec<(similar::ChangeTag, String)> = diff
            .iter_all_changes()
            .map(|change| {
                (
                    change.tag(),
                    change.value().trim_end_matches('\n').replace('\t', "    "),
                )
            })
            .collect();
        let first_change = lines
            .iter()
            .position(|(tag, _)| *tag != similar::ChangeTag::Equal)
            .unwrap_or(0);
        DiffView {
            from: from.0,
            to: to.0,
            lines,
            first_change,
        }
    }
}

/// The test case pane's state.
pub struct TestCasePane {
    /// First line shown, and whether the view follows the candidate.
    pub scroll: usize,
    pub follow: bool,
    /// Show the diff instead of the text.
    pub diff: bool,
    /// The best shown before the current one (version, text), for the diff.
    previous_best: Option<(u64, Arc<[u8]>)>,
    /// The diff shown by `d`, recomputed when the best changes (as often as it can afford).
    diff_cache: Option<DiffView>,
    diff_throttle: Throttle,
    /// A history entry shown instead of the live best.
    pub viewing: Option<(usize, Arc<[u8]>)>,
    highlight: HighlightCache,
}

impl TestCasePane {
    pub fn new(highlight: HighlightCache) -> Self {
        TestCasePane {
            scroll: 0,
            follow: true,
            diff: false,
            previous_best: None,
            diff_cache: None,
            diff_throttle: Throttle::default(),
            viewing: None,
            highlight,
        }
    }

    /// The best changed from `(version, text)`: it becomes the diff's old side.
    pub fn best_changed(&mut self, version: u64, text: Arc<[u8]>) {
        self.previous_best = Some((version, text));
    }

    pub fn toggle_diff(&mut self) {
        self.diff = !self.diff;
        self.scroll = 0;
    }

    /// Shows a history entry instead of the live best.
    pub fn view_history(&mut self, index: usize, text: Arc<[u8]>) {
        self.viewing = Some((index, text));
        self.scroll = 0;
        self.follow = false;
    }

    /// Esc: back to the live best, or out of the diff.
    pub fn back(&mut self) {
        if self.viewing.take().is_none() {
            self.diff = false;
        }
    }

    pub fn on_key(&mut self, code: KeyCode, page: usize) -> bool {
        match scrolled(self.scroll, code, page) {
            Some(scroll) => {
                self.scroll = scroll;
                self.follow = false;
                true
            }
            None => false,
        }
    }

    pub fn on_scroll(&mut self, down: bool) {
        self.scroll = if down {
            self.scroll + 3
        } else {
            self.scroll.saturating_sub(3)
        };
        self.follow = false;
    }

    /// Brings the diff up to date with the current and the previous best, unless the last diff
    /// was made so recently that another would take more than a tenth of the time.
    fn update_diff(&mut self, version: u64, best: &[u8]) {
        let Some((from, previous)) = &self.previous_best else {
            return;
        };
        if self
            .diff_cache
            .as_ref()
            .is_some_and(|d| d.from == *from && d.to == version)
        {
            return;
        }
        if self.diff_cache.is_some() && self.diff_throttle.too_soon(Instant::now()) {
            return;
        }
        let view = self
            .diff_throttle
            .run(|| DiffView::between((*from, previous), (version, best)));
        self.diff_cache = Some(view);
    }

    /// The text shown (an earlier best of the history, else the best), the version it is
    /// highlighted as, and the pane's title.
    fn shown(&self, view: &View) -> (Arc<[u8]>, u64, String) {
        let snapshot = view.snapshot;
        match &self.viewing {
            Some((index, text)) => (
                text.clone(),
                u64::MAX - *index as u64,
                format!(
                    " Test case · history #{index} · {} · Esc: back to live ",
                    human_bytes(text.len())
                ),
            ),
            None => (
                snapshot.best.clone(),
                snapshot.version,
                format!(
                    " Test case {} · {} lines · v{} ",
                    human_bytes(snapshot.best.len()),
                    view.best.lines,
                    snapshot.version
                ),
            ),
        }
    }

    pub fn draw(&mut self, view: &View, frame: &mut Frame, area: Rect) {
        let focused = view.focus == Pane::TestCase;
        let theme = view.theme;
        let height = area.height.saturating_sub(2) as usize;
        if self.diff {
            self.draw_diff(view, frame, area, height);
            return;
        }
        let snapshot = view.snapshot;
        let (text, version, title) = self.shown(view);
        let live = self.viewing.is_none();
        let (removed, pins): (&[std::ops::Range<usize>], &[std::ops::Range<usize>]) = if live {
            (view.removed, &snapshot.pins)
        } else {
            (&[], &[])
        };
        let own_lines;
        let starts: &[usize] = if live {
            view.lines
        } else {
            own_lines = super::tree::line_starts(&text);
            &own_lines
        };
        // Follow the candidate: its first removed line a third of the way down.
        if self.follow
            && let Some(first) = removed.first()
        {
            let line = super::tree::line_of(starts, first.start);
            if line < self.scroll || line >= self.scroll + height.max(1) {
                self.scroll = line.saturating_sub(height / 3);
            }
        }
        self.scroll = self.scroll.min(starts.len().saturating_sub(1));
        let chunks = if live {
            line_chunks(view, starts.len())
        } else {
            None
        };
        let under_test = view.run.current.as_ref().and_then(|c| {
            matches!(
                c.candidate.kind,
                CandidateKind::Subset | CandidateKind::Complement
            )
            .then_some(c.candidate.index as usize)
        });
        let highlighted = if live {
            self.highlight.lines(version, &text)
        } else {
            None
        };
        let inserted = if live {
            inserted_texts(view)
        } else {
            Vec::new()
        };
        let changes = Changes {
            removed,
            inserted: &inserted,
        };
        let lines = text_lines(
            &text,
            starts,
            self.scroll,
            height,
            highlighted,
            changes,
            pins,
            chunks.as_deref(),
            under_test,
            theme,
        );
        frame.render_widget(
            Paragraph::new(lines).block(block(title, focused, theme)),
            area,
        );
    }

    fn draw_diff(&mut self, view: &View, frame: &mut Frame, area: Rect, height: usize) {
        let focused = view.focus == Pane::TestCase;
        self.update_diff(view.snapshot.version, &view.snapshot.best);
        let theme = view.theme;
        let (title, lines): (String, Vec<Line>) = match &self.diff_cache {
            None => (
                " Diff · no earlier best yet · d: back ".to_string(),
                vec![Line::styled("the best has not changed yet", theme.muted)],
            ),
            Some(diff) => {
                if self.follow {
                    self.scroll = diff.first_change.saturating_sub(height / 3);
                }
                self.scroll = self.scroll.min(diff.lines.len().saturating_sub(1));
                let lines = diff
                    .lines
                    .iter()
                    .skip(self.scroll)
                    .take(height)
                    .map(|(tag, text)| {
                        let (sign, style) = match tag {
                            similar::ChangeTag::Delete => ("-", theme.interesting),
                            similar::ChangeTag::Insert => ("+", theme.not_interesting),
                            similar::ChangeTag::Equal => (" ", theme.muted),
                        };
                        Line::styled(format!("{sign} {text}"), style)
                    })
                    .collect();
                (
                    format!(" Diff · version {} → {} · d: back ", diff.from, diff.to),
                    lines,
                )
            }
        };
        frame.render_widget(
            Paragraph::new(lines).block(block(title, focused, theme)),
            area,
        );
    }
}

/// Which chunk of the round shown each line of the best belongs to, when the round's units are
/// the best's lines (a line pass without pins).
fn line_chunks(view: &View, line_count: usize) -> Option<Vec<usize>> {
    let round = view.run.view.round.as_ref()?;
    if !view.run.view.stage.contains("line")
        || !view.snapshot.pins.is_empty()
        || round.chunks.is_empty()
        || view.run.version != view.snapshot.version
    {
        return None;
    }
    let total: u32 = round.chunks.iter().sum();
    if total as usize != line_count || round.len != line_count {
        return None;
    }
    let mut owners = Vec::with_capacity(line_count);
    for (chunk, &count) in round.chunks.iter().enumerate() {
        owners.extend(std::iter::repeat_n(chunk, count as usize));
    }
    Some(owners)
}
