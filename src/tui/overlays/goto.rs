//! A replay's "go to step" window.

use ratatui::Frame;
use ratatui::text::Line;
use ratatui::widgets::{Clear, Paragraph};

use crate::tui::panes::View;
use crate::tui::widgets::{block, centered, overlay_area};

pub fn draw(view: &View, input: &str, frame: &mut Frame) {
    let theme = view.theme;
    let area = centered(overlay_area(frame.area()), 44, 4);
    let last = view.replay.map_or(0, |replay| replay.last_step);
    let lines = vec![
        Line::styled(format!(" step: {input}▏"), theme.accent),
        Line::styled(
            format!(" 0 … {last} · Enter goes · Esc cancels"),
            theme.muted,
        ),
    ];
    frame.render_widget(Clear, area);
    frame.render_widget(
        Paragraph::new(lines).block(block(" Go to step ", true, theme)),
        area,
    );
}
