//! The keys every run shares: quitting, help, the panes' layout and focus, following the
//! candidate, and the keys of the focused pane; the keys of a live session, of a replay and of
//! an open overlay go on to their own modules.

use ratatui::crossterm::event::{KeyCode, KeyEvent, KeyEventKind, KeyModifiers};

use super::{App, QuitReason};
use crate::tui::overlays::Overlay;
use crate::tui::panes::Pane;
use std::sync::Arc;

impl App {
    /// Handles a key.
    pub fn on_key(&mut self, key: KeyEvent) {
        if key.kind == KeyEventKind::Release {
            return;
        }
        if key.modifiers.contains(KeyModifiers::CONTROL)
            && matches!(key.code, KeyCode::Char('c') | KeyCode::Char('q'))
        {
            self.quit = Some(QuitReason::User);
            return;
        }
        if self.overlay.is_some() {
            self.on_overlay_key(key);
            return;
        }
        if self.source.replay().is_some() && self.on_replay_key(key) {
            return;
        }
        match key.code {
            KeyCode::Char('q') => self.quit = Some(QuitReason::User),
            KeyCode::Char('?') => {
                self.overlay = Some(Overlay::Help);
                self.help_scroll = 0;
            }
            KeyCode::Char('d') => self.text.toggle_diff(),
            KeyCode::Char('f') => {
                self.tree.follow = true;
                self.text.follow = true;
                self.history.cursor.moved = false;
                self.notice("the cursor follows the candidate under test".into(), false);
            }
            KeyCode::Char('u') => {
                if self.tree.has_language() {
                    self.tree.lines_mode = !self.tree.lines_mode;
                }
            }
            KeyCode::Char('[') => self.tree.percent = self.tree.percent.saturating_sub(4).max(12),
            KeyCode::Char(']') => self.tree.percent = (self.tree.percent + 4).min(60),
            KeyCode::Char(digit @ '1'..='8') => {
                let index = digit as usize - '1' as usize;
                if let Some(&pane) = Pane::deck(self.snapshot.case.is_some()).get(index) {
                    self.deck = pane;
                    if Pane::FOCUS_ORDER.contains(&self.deck) {
                        self.focus = self.deck;
                    }
                }
            }
            KeyCode::Tab => self.cycle_focus(true),
            KeyCode::BackTab => self.cycle_focus(false),
            KeyCode::Esc => self.text.back(),
            KeyCode::Enter if self.focus == Pane::History => self.view_history(),
            KeyCode::Enter if self.focus == Pane::Files => self.show_case_file(),
            _ if self.source.replay().is_some() => self.on_pane_key(key),
            _ => self.on_live_key(key),
        }
    }

    pub(super) fn cycle_focus(&mut self, forward: bool) {
        let order = Pane::focus_order(self.snapshot.case.is_some());
        let position = order.iter().position(|p| *p == self.focus).unwrap_or(0);
        let next = if forward {
            (position + 1) % order.len()
        } else {
            (position + order.len() - 1) % order.len()
        };
        self.focus = order[next];
        // The compact layout shows the focused pane's tab (the test case and the
        // Configuration pane are always on screen).
        if Pane::deck(self.snapshot.case.is_some()).contains(&self.focus) {
            self.deck = self.focus;
        }
    }

    pub(super) fn view_history(&mut self) {
        let Some(entry) = self.snapshot.history.get(self.history.cursor.row) else {
            return;
        };
        let index = entry.index;
        match self.source.history_text(index) {
            Some(text) => self.text.view_history(index, Arc::from(text)),
            None => self.notice(format!("history #{index} is not available"), true),
        }
    }

    /// Height of a pane's inside, for page moves.
    pub(super) fn page(&self, pane: Pane) -> usize {
        self.screen
            .area(pane)
            .map_or(10, |area| area.height.saturating_sub(2).max(1) as usize)
    }

    pub(super) fn on_pane_key(&mut self, key: KeyEvent) {
        let page = self.page(self.focus);
        match self.focus {
            Pane::Tree => {
                let lines = self.best_measures.1.lines;
                self.tree.on_key(key, page, lines);
            }
            Pane::TestCase => {
                self.text.on_key(key.code, page);
            }
            Pane::Output => {
                self.output.on_key(key.code, page);
            }
            Pane::History => {
                let len = self.snapshot.history.len();
                self.history.cursor.on_key(key.code, page, len);
            }
            Pane::Files => {
                let len = self.case_file_count();
                self.files.cursor.on_key(key.code, page, len);
            }
            _ => {}
        }
    }
}
