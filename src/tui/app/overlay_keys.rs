//! The keys of the overlay on top: scrolling the help, choosing an algorithm in the picker, a
//! descendant to hoist, or a step to go to in a replay.

use ratatui::crossterm::event::{KeyCode, KeyEvent};

use super::App;
use crate::tui::overlays::Overlay;
use whittle_core::engine::session::{Command, ManualEdit};

impl App {
    pub(super) fn on_overlay_key(&mut self, key: KeyEvent) {
        match self.overlay {
            Some(Overlay::Help) => self.on_help_key(key),
            Some(Overlay::Picker { .. }) => self.on_picker_key(key),
            Some(Overlay::Hoist { .. }) => self.on_hoist_key(key),
            Some(Overlay::GoTo { .. }) => self.on_goto_key(key),
            None => {}
        }
    }

    fn on_help_key(&mut self, key: KeyEvent) {
        match key.code {
            KeyCode::Up => self.help_scroll = self.help_scroll.saturating_sub(1),
            KeyCode::Down => self.help_scroll += 1,
            KeyCode::Esc | KeyCode::Char('?') | KeyCode::Char('q') | KeyCode::Enter => {
                self.overlay = None
            }
            _ => {}
        }
    }

    fn on_picker_key(&mut self, key: KeyEvent) {
        let Some(Overlay::Picker { selected }) = self.overlay.as_mut() else {
            return;
        };

        let count = self.picker.matching().len();
        match key.code {
            KeyCode::Up => {
                *selected = selected.saturating_sub(1);
                self.picker.moved = true;
            }
            KeyCode::Down => {
                *selected = (*selected + 1).min(count.saturating_sub(1));
                self.picker.moved = true;
            }
            KeyCode::PageUp => {
                *selected = selected.saturating_sub(10);
                self.picker.moved = true;
            }
            KeyCode::PageDown => {
                *selected = (*selected + 10).min(count.saturating_sub(1));
                self.picker.moved = true;
            }
            KeyCode::Tab => {
                self.picker.complete();
                *selected = 0;
            }
            KeyCode::Backspace => {
                self.picker.backspace();
                *selected = 0;
            }
            KeyCode::Char(c) if !c.is_whitespace() && !c.is_control() => {
                self.picker.type_char(c);
                *selected = 0;
            }
            KeyCode::Enter => match self.picker.choice(*selected) {
                Ok(name) => {
                    self.overlay = None;
                    if self.send(Command::SwitchAlgorithm(name.clone())) {
                        self.notice(format!("switching to {name}"), false);
                    }
                }
                Err(error) => self.picker.error = Some(error),
            },
            KeyCode::Esc => self.overlay = None,
            _ => {}
        }
    }

    fn on_hoist_key(&mut self, key: KeyEvent) {
        let Some(Overlay::Hoist {
            version,
            node,
            choices,
            selected,
        }) = self.overlay.as_mut()
        else {
            return;
        };
        match key.code {
            KeyCode::Up | KeyCode::Char('k') => *selected = selected.saturating_sub(1),
            KeyCode::Down | KeyCode::Char('j') => {
                *selected = (*selected + 1).min(choices.len().saturating_sub(1))
            }
            KeyCode::PageUp => *selected = selected.saturating_sub(10),
            KeyCode::PageDown => *selected = (*selected + 10).min(choices.len().saturating_sub(1)),
            KeyCode::Enter => {
                let edit = choices
                    .get(*selected)
                    .map(|(descendant, _)| ManualEdit::Hoist {
                        version: *version,
                        node: *node,
                        descendant: *descendant,
                    });
                self.overlay = None;
                if let Some(edit) = edit
                    && self.send(Command::Propose(edit))
                {
                    self.notice("testing the proposed hoisting…".into(), false);
                }
            }
            KeyCode::Esc | KeyCode::Char('h') | KeyCode::Char('q') => self.overlay = None,
            _ => {}
        }
    }

    fn on_goto_key(&mut self, key: KeyEvent) {
        let Some(Overlay::GoTo { input }) = self.overlay.as_mut() else {
            return;
        };
        match key.code {
            KeyCode::Char(digit @ '0'..='9') if input.len() < 12 => input.push(digit),
            KeyCode::Backspace => {
                input.pop();
            }
            KeyCode::Enter => {
                let step = input.parse::<u64>().ok();
                self.overlay = None;
                if let Some(step) = step
                    && let Some(replay) = self.source.replay()
                {
                    let position = replay.replay.position_of_step(step);
                    self.jump_to(position);
                }
            }
            KeyCode::Esc | KeyCode::Char('q') => self.overlay = None,
            _ => {}
        }
    }
}
