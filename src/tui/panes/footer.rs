//! The status line: the latest notice (or the keys), and `? help` and `q quit` at its right
//! end, never cut.

use ratatui::Frame;
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::text::{Line, Span};
use ratatui::widgets::Paragraph;
use unicode_width::UnicodeWidthStr;

use super::View;
use whittle_core::text::describe::ellipsize;

/// How long a notice replaces the keys.
const NOTICE_TIME: std::time::Duration = std::time::Duration::from_secs(8);

/// The keys of a live run, most used first.
const LIVE_KEYS: &[(&str, &str)] = &[
    ("␣", "pause"),
    ("n", "step"),
    ("p", "pin"),
    ("r", "remove"),
    ("h", "hoist"),
    ("z", "undo"),
    ("a", "algorithm"),
    ("+-", "ν"),
    ("jJ", "jobs"),
    ("s", "skip"),
    ("d", "diff"),
    ("Tab", "pane"),
];

/// The keys of a replay.
const REPLAY_KEYS: &[(&str, &str)] = &[
    ("n →", "next"),
    ("b ←", "back"),
    ("␣", "play"),
    ("+-", "speed"),
    ("g", "go to step"),
    ("Home End", "first/last"),
    ("d", "diff"),
    ("Tab", "pane"),
];

/// Draws the status line.
pub fn draw(view: &View, frame: &mut Frame, area: Rect) {
    let theme = view.theme;
    let always = [("?", "help"), ("q", "quit")];
    let right: Vec<Span> = always
        .iter()
        .flat_map(|(key, what)| {
            [
                Span::styled(format!(" {key}"), theme.accent),
                Span::styled(format!(" {what}"), theme.muted),
            ]
        })
        .chain([Span::raw(" ")])
        .collect();
    let right_width: usize = right.iter().map(|span| span.content.width()).sum();
    let [left_area, right_area] =
        Layout::horizontal([Constraint::Fill(1), Constraint::Length(right_width as u16)])
            .areas(area);
    let room = left_area.width as usize;
    let mut left = Vec::new();
    let fresh = view
        .run
        .notice
        .as_ref()
        .filter(|notice| view.now.saturating_duration_since(notice.at) < NOTICE_TIME);
    match fresh {
        Some(notice) => {
            let style = if notice.warning {
                theme.warning
            } else {
                theme.accent
            };
            left.push(Span::styled(
                ellipsize(&format!(" {}", notice.text), room),
                style,
            ));
        }
        None => {
            let keys = if view.replay.is_some() {
                REPLAY_KEYS
            } else {
                LIVE_KEYS
            };
            let mut used = 0;
            for (key, what) in keys {
                let width = key.width() + what.width() + 2;
                if used + width > room {
                    break;
                }
                used += width;
                left.push(Span::styled(format!(" {key}"), theme.accent));
                left.push(Span::styled(format!(" {what}"), theme.muted));
            }
            if let Some(path) = &view.snapshot.output {
                let output = format!(" │ output: {}", path.display());
                if used + output.width() <= room {
                    left.push(Span::styled(output, theme.muted));
                }
            }
        }
    }
    frame.render_widget(
        Paragraph::new(Line::from(left)).style(theme.base),
        left_area,
    );
    frame.render_widget(
        Paragraph::new(Line::from(right)).style(theme.base),
        right_area,
    );
}
