//! The mouse: a click on a tab of the compact layout shows it, a click in a pane focuses it
//! (and selects a tree node or a history entry, or shows the file of a row of the file list),
//! the wheel scrolls the pane under it.

use ratatui::crossterm::event::{KeyCode, MouseButton, MouseEvent, MouseEventKind};
use ratatui::layout::Position;

use super::App;
use crate::tui::panes::Pane;

impl App {
    pub(super) fn on_mouse(&mut self, mouse: MouseEvent) {
        if let MouseEventKind::Down(MouseButton::Left) = mouse.kind
            && let Some(tab) = self.screen.tab_at(mouse.column, mouse.row)
        {
            self.deck = tab;
            if Pane::FOCUS_ORDER.contains(&tab) {
                self.focus = tab;
            }
            return;
        }
        let Some((pane, area)) = self.screen.pane_at(mouse.column, mouse.row) else {
            return;
        };
        let height = area.height.saturating_sub(2) as usize;
        match mouse.kind {
            MouseEventKind::Down(MouseButton::Left) => {
                if Pane::FOCUS_ORDER.contains(&pane) {
                    self.focus = pane;
                }
                let row = mouse.row.saturating_sub(area.y + 1) as usize;
                match pane {
                    Pane::Tree => self
                        .tree
                        .on_click(Position::new(mouse.column, mouse.row), row),
                    Pane::History => {
                        let len = self.snapshot.history.len();
                        self.history.cursor.on_click(row, height, len);
                    }
                    Pane::Files => {
                        let len = self.case_file_count();
                        if self.files.cursor.on_click(row, height, len).is_some() {
                            self.show_case_file();
                        }
                    }
                    _ => {}
                }
            }
            MouseEventKind::ScrollDown | MouseEventKind::ScrollUp => {
                let down = mouse.kind == MouseEventKind::ScrollDown;
                let code = if down { KeyCode::Down } else { KeyCode::Up };
                match pane {
                    Pane::Tree => {
                        let lines = self.best_measures.1.lines;
                        self.tree.on_scroll(down, height, lines);
                    }
                    Pane::TestCase => self.text.on_scroll(down),
                    Pane::Output => {
                        self.output.on_key(code, height);
                    }
                    Pane::History => {
                        let len = self.snapshot.history.len();
                        self.history.cursor.on_key(code, height, len);
                    }
                    Pane::Files => {
                        let len = self.case_file_count();
                        self.files.cursor.on_key(code, height, len);
                    }
                    _ => {}
                }
            }
            _ => {}
        }
    }
}
