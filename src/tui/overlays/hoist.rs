//! The hoist chooser: the descendants the selected node may be replaced by, compatible ones
//! first, each by its kind, its code and where it is.

use ratatui::Frame;
use ratatui::text::Line;
use ratatui::widgets::{Clear, Paragraph};

use crate::tui::panes::View;
use crate::tui::widgets::{block, centered, first_visible_row, overlay_area};
use whittle_core::text::describe::ellipsize;
use whittle_core::tree::NodeId;

pub fn draw(view: &View, choices: &[(NodeId, String)], selected: usize, frame: &mut Frame) {
    let theme = view.theme;
    let height = (choices.len() as u16 + 3).min(frame.area().height.saturating_sub(4));
    let area = centered(overlay_area(frame.area()), 90, height);
    let width = area.width.saturating_sub(3) as usize;
    let rows = height.saturating_sub(3) as usize;
    let first = first_visible_row(selected, choices.len(), rows);
    let mut lines: Vec<Line> = choices
        .iter()
        .enumerate()
        .skip(first)
        .take(rows)
        .map(|(index, (_, label))| {
            let style = if index == selected {
                theme.selection
            } else {
                theme.base
            };
            Line::styled(format!(" {}", ellipsize(label, width)), style)
        })
        .collect();
    lines.push(Line::styled(
        ellipsize(
            " Enter: replace the node by this descendant (the test decides) · Esc cancels",
            width + 1,
        ),
        theme.muted,
    ));
    frame.render_widget(Clear, area);
    frame.render_widget(
        Paragraph::new(lines).block(block(" Hoist to… ", true, theme)),
        area,
    );
}
