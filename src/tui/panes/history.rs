//! The history pane: every accepted state, the cursor (Enter views an entry, R restarts from
//! it) following the newest unless moved.

use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::Paragraph;

use super::{Pane, View};
use crate::tui::widgets::{ListCursor, block, human_bytes};
use whittle_core::observe::events::Branch;

/// The history pane's state: its cursor, on the newest entry until moved.
#[derive(Default)]
pub struct HistoryPane {
    pub cursor: ListCursor,
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
    /// Keeps the cursor on the newest of `len` entries while it was not moved.
    pub fn refresh(&mut self, len: usize) {
        self.cursor.follow(len.checked_sub(1), len);
    }

    pub fn draw(&self, view: &View, frame: &mut Frame, area: Rect) {
        let theme = view.theme;
        let focused = view.focus == Pane::History;
        let history = &view.snapshot.history;
        let height = area.height.saturating_sub(2) as usize;
        let first = self.cursor.first_visible(history.len(), height);
        let lines: Vec<Line> = history
            .iter()
            .enumerate()
            .skip(first)
            .take(height)
            .map(|(row, entry)| {
                let style = if row == self.cursor.row && focused {
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
