//! The test output pane: the end of what the last test command printed (and the node it ran
//! on, when elsewhere), scrollable.

use ratatui::Frame;
use ratatui::crossterm::event::KeyCode;
use ratatui::layout::Rect;
use ratatui::text::Line;
use ratatui::widgets::{Paragraph, Wrap};

use super::{Pane, View};
use crate::tui::widgets::{block, scrolled};

/// The output pane's state: how many lines up from the end it is scrolled.
#[derive(Default)]
pub struct OutputPane {
    pub scroll: usize,
}

impl OutputPane {
    pub fn on_key(&mut self, code: KeyCode, page: usize) -> bool {
        match scrolled(self.scroll, code, page) {
            Some(scroll) => {
                self.scroll = scroll;
                true
            }
            None => false,
        }
    }

    pub fn draw(&self, view: &View, frame: &mut Frame, area: Rect) {
        let theme = view.theme;
        let focused = view.focus == Pane::Output;
        let height = area.height.saturating_sub(3) as usize;
        let body = match &view.run.last_output {
            None => vec![Line::styled(
                "no output yet (in-process tests print nothing)",
                theme.muted,
            )],
            Some((step, status, tail)) => {
                let all: Vec<&str> = tail.lines().collect();
                let end = all.len().saturating_sub(self.scroll.min(all.len()));
                let start = end.saturating_sub(height);
                let place = view
                    .run
                    .last_output_node
                    .as_ref()
                    .map_or_else(String::new, |node| format!(" · on {node}"));
                let mut body = vec![Line::styled(
                    format!("step {step} · {status}{place}"),
                    theme.accent,
                )];
                body.extend(
                    all[start..end]
                        .iter()
                        .map(|l| Line::styled(l.replace('\t', "    "), theme.base)),
                );
                if all.is_empty() {
                    body.push(Line::styled("(no output)", theme.muted));
                }
                body
            }
        };
        frame.render_widget(
            Paragraph::new(body).wrap(Wrap { trim: false }).block(block(
                " Test output ",
                focused,
                theme,
            )),
            area,
        );
    }
}
