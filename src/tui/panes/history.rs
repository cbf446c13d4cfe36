//! The history pane: every accepted state, the cursor (Enter views an entry, R restarts from
//! it) following the newest unless moved.

use ratatui::Frame;
use ratatui::crossterm::event::KeyCode;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::Paragraph;

use super::{Pane, View};
use crate::tui::widgets::{block, first_visible_row, human_bytes, scrolled};
use whittle_core::observe::events::Branch;

/// The history pane's state.
pub struct HistoryPane {
    pub cursor: usize,
    /// The cursor stays on the newest entry.
    pub follow: bool,
}

impl Default for HistoryPane {
    fn default() -> Self {
        HistoryPane {
            cursor: 0,
            follow: true,
        }
    }
}

/// A branch in few words, for narrow lists.
pub fn short_branch(branch: Branch) -> &'static str {
    match branch {
        Branch::ReduceToSubset => "Δ subset",
        Branch::ReduceToComplement => "∇ complement",
        Branch::ReduceGreedily => "∇ greedy",
        Branch::IncreaseGranularity => "granularity",
        Branch::EmptyConfig => "empty config",
        other => other.describe(),
    }
}

impl HistoryPane {
    /// Keeps the cursor on the newest of `len` entries while following.
    pub fn refresh(&mut self, len: usize) {
        if self.follow || self.cursor >= len {
            self.cursor = len.saturating_sub(1);
        }
    }

    pub fn on_key(&mut self, code: KeyCode, page: usize, len: usize) -> bool {
        if len == 0 {
            return false;
        }
        match scrolled(self.cursor, code, page) {
            Some(cursor) => {
                self.cursor = cursor.min(len - 1);
                self.follow = false;
                true
            }
            None => false,
        }
    }

    /// A click on `row` of the pane's inside (`height` rows).
    pub fn on_click(&mut self, row: usize, height: usize, len: usize) {
        let clicked = first_visible_row(self.cursor, len, height) + row;
        if clicked < len {
            self.cursor = clicked;
            self.follow = false;
        }
    }

    pub fn draw(&self, view: &View, frame: &mut Frame, area: Rect) {
        let theme = view.theme;
        let focused = view.focus == Pane::History;
        let history = &view.snapshot.history;
        let height = area.height.saturating_sub(2) as usize;
        let first = first_visible_row(self.cursor, history.len(), height);
        let lines: Vec<Line> = history
            .iter()
            .enumerate()
            .skip(first)
            .take(height)
            .map(|(row, entry)| {
                let style = if row == self.cursor && focused {
                    theme.selection
                } else {
                    theme.base
                };
                Line::from(vec![
                    Span::styled(format!("#{:<3} ", entry.index), theme.muted.patch(style)),
                    Span::styled(format!("{:>8} ", human_bytes(entry.size)), style),
                    Span::styled(short_branch(entry.branch), style),
                    Span::styled(format!(" t{}", entry.tests), theme.muted.patch(style)),
                ])
            })
            .collect();
        let keys = if view.replay.is_some() {
            " · ⏎ view"
        } else {
            " · ⏎ view · R restart"
        };
        let title = if focused {
            format!(" History {}{keys} ", history.len())
        } else {
            format!(" History {} ", history.len())
        };
        frame.render_widget(
            Paragraph::new(lines).block(block(title, focused, theme)),
            area,
        );
    }
}
