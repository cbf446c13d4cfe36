//! Moving through a replay: playing it at a speed, stepping forward and back, jumping to a
//! position or a step; the keys that would steer a live session only say that a replay changes
//! nothing.

use std::time::Duration;

use ratatui::crossterm::event::{KeyCode, KeyEvent};

use super::App;
use crate::tui::model::RunModel;
use crate::tui::overlays::Overlay;

impl App {
    /// Plays a replay at about `steps_per_second` (the nearest speed offered).
    pub fn play(&mut self, steps_per_second: f64) {
        let now = self.clock.now();
        if let Some(replay) = self.source.replay_mut() {
            replay.speed = crate::tui::source::SPEEDS
                .iter()
                .enumerate()
                .min_by(|a, b| {
                    (a.1 - steps_per_second)
                        .abs()
                        .total_cmp(&(b.1 - steps_per_second).abs())
                })
                .map_or(2, |(index, _)| index);
            if !replay.playing {
                replay.toggle_play(now);
            }
            self.replay_status = Some(replay.status());
        }
    }

    /// How soon the UI wants to draw again on its own (a replay that plays).
    pub fn wake_within(&self) -> Option<Duration> {
        self.source.replay()?.next_due(self.clock.now())
    }

    /// The keys that move a replay; false when the key is not one of them.
    pub(super) fn on_replay_key(&mut self, key: KeyEvent) -> bool {
        let now = self.clock.now();
        let Some(replay) = self.source.replay_mut() else {
            return false;
        };
        match key.code {
            KeyCode::Char('n') | KeyCode::Right => {
                replay.playing = false;
                self.step_replay();
            }
            KeyCode::Char('b') | KeyCode::Left => {
                replay.playing = false;
                let position = replay.position.saturating_sub(1);
                self.jump_to(position);
            }
            KeyCode::Char(' ') => replay.toggle_play(now),
            KeyCode::Char('+') | KeyCode::Char('=') => replay.change_speed(true),
            KeyCode::Char('-') | KeyCode::Char('_') => replay.change_speed(false),
            KeyCode::Home => {
                replay.playing = false;
                self.jump_to(0);
            }
            KeyCode::End => {
                replay.playing = false;
                let last = replay.replay.len();
                self.jump_to(last);
            }
            KeyCode::Char('g') => {
                replay.playing = false;
                self.overlay = Some(Overlay::GoTo {
                    input: String::new(),
                });
            }
            KeyCode::Char('p' | 'r' | 'h' | 'a' | 's' | 'R' | 'z' | 'j' | 'J') => {
                self.notice(
                    "this is a replay: it shows what was recorded and changes nothing".into(),
                    true,
                );
            }
            _ => return false,
        }
        true
    }

    /// One step forward in a replay.
    pub(super) fn step_replay(&mut self) {
        let Some(replay) = self.source.replay_mut() else {
            return;
        };
        let events = replay.step_forward();
        self.fold_replayed(events);
    }

    /// Moves a replay to `position`, rebuilding what the screen knows from the start.
    pub fn jump_to(&mut self, position: usize) {
        let Some(replay) = self.source.replay_mut() else {
            return;
        };
        let input_size = replay.replay.input.len();
        if position == replay.position + 1 {
            self.step_replay();
            return;
        }
        let events = replay.jump(position);
        let notice = self.run.notice.take();
        self.run = RunModel::new(input_size);
        self.fold_replayed(events);
        if self.run.notice.is_none() {
            self.run.notice = notice;
        }
        self.tree.follow = true;
        self.text.follow = true;
    }

    fn fold_replayed(&mut self, events: Vec<whittle_core::engine::replay::TimedEvent>) {
        for (event, seconds) in events {
            let running = Duration::from_secs_f64(seconds.max(0.0));
            self.run.apply(event, self.started + running, running);
        }
        if let Some(replay) = self.source.replay() {
            self.replay_status = Some(replay.status());
        }
    }
}
