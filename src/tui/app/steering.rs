//! The keys that steer a live session: pause and step, the split factor and the jobs, pins,
//! proposed removals and hoistings, the algorithm picker, skipping a stage, undoing, and
//! restarting from an earlier best.

use ratatui::crossterm::event::{KeyCode, KeyEvent};

use super::App;
use crate::tui::overlays::Overlay;
use crate::tui::panes::tree::Selection;
use whittle_core::engine::session::{Command, ManualEdit, PinTarget};
use whittle_core::params::SplitFactor;

/// Largest finite split factor the `+` key reaches before ∞.
const MAX_FINITE_SPLIT: u32 = 16;
/// Most jobs the `J` key asks for.
const MAX_JOBS: usize = 64;

impl App {
    /// The keys that steer a live session.
    pub(super) fn on_live_key(&mut self, key: KeyEvent) {
        match key.code {
            KeyCode::Char(' ') => {
                if self.snapshot.paused {
                    self.send(Command::Resume);
                    self.snapshot.paused = false;
                    self.snapshot.step_mode = false;
                } else {
                    self.send(Command::Pause);
                    self.snapshot.paused = true;
                }
            }
            KeyCode::Char('n') => {
                self.send(Command::Step);
                self.snapshot.paused = true;
                self.snapshot.step_mode = true;
            }
            KeyCode::Char('p') => self.toggle_pin(),
            KeyCode::Char('a') => self.open_picker(),
            KeyCode::Char('+') | KeyCode::Char('=') => self.change_split_factor(true),
            KeyCode::Char('-') | KeyCode::Char('_') => self.change_split_factor(false),
            KeyCode::Char('j') => self.change_jobs(false),
            KeyCode::Char('J') => self.change_jobs(true),
            KeyCode::Char('r') => self.propose_removal(),
            KeyCode::Char('h') => self.open_hoist(),
            KeyCode::Char('z') => {
                if self.send(Command::Undo) {
                    self.notice(
                        "undoing the last kept manual edit or restart…".into(),
                        false,
                    );
                }
            }
            KeyCode::Char('s') => {
                self.send(Command::SkipStage);
                let last = self.snapshot.stage_index + 1 >= self.snapshot.stage_count;
                let said = if self.run.view.scheduled.is_some() {
                    "skipping the schedule's current stage: the round goes on with the next one"
                } else if last {
                    "skipping the last stage: the reduction ends with the best so far \
                     (a: run an algorithm on it again)"
                } else {
                    "skipping the current stage"
                };
                self.notice(said.into(), false);
            }
            KeyCode::Char('R') => self.restart_from_history(),
            _ => self.on_pane_key(key),
        }
    }

    fn change_split_factor(&mut self, up: bool) {
        let next = match (self.snapshot.split_factor, up) {
            (SplitFactor::Finite(nu), true) if nu >= MAX_FINITE_SPLIT => SplitFactor::Infinite,
            (SplitFactor::Finite(nu), true) => SplitFactor::Finite(nu + 1),
            (SplitFactor::Finite(nu), false) => SplitFactor::Finite(nu.saturating_sub(1).max(2)),
            (SplitFactor::Infinite, true) => SplitFactor::Infinite,
            (SplitFactor::Infinite, false) => SplitFactor::Finite(MAX_FINITE_SPLIT),
        };
        self.send(Command::SetSplitFactor(next));
        self.snapshot.split_factor = next;
        self.notice(
            format!("split factor ν = {next} from the next granularity step"),
            false,
        );
    }

    fn change_jobs(&mut self, up: bool) {
        let jobs = self.snapshot.jobs;
        let next = if up {
            (jobs + 1).min(MAX_JOBS)
        } else {
            jobs.saturating_sub(1).max(1)
        };
        self.send(Command::SetJobs(next));
        self.snapshot.jobs = next;
        self.notice(format!("{next} job(s) from the next testing window"), false);
    }

    fn selection(&self) -> Option<Selection> {
        self.tree.selection(&self.snapshot.best, &self.line_index)
    }

    fn toggle_pin(&mut self) {
        let Some(selection) = self.selection() else {
            self.notice(
                "select a node or line in the tree pane to pin it".into(),
                true,
            );
            return;
        };
        let bytes = selection.bytes();
        let pinned = self
            .snapshot
            .pins
            .iter()
            .any(|pin| pin.start < bytes.end && bytes.start < pin.end);
        let target = match &selection {
            Selection::Node { version, node, .. } => PinTarget::Node {
                version: *version,
                node: *node,
            },
            Selection::Line { line, .. } => PinTarget::Lines(*line..*line + 1),
        };
        let (line, column) =
            whittle_core::text::describe::line_column(&self.snapshot.best, bytes.start);
        if pinned {
            self.send(Command::Unpin(target));
            self.notice(format!("unpinning what is at {line}:{column}"), false);
        } else {
            self.send(Command::Pin(target));
            self.notice(format!("pinning what is at {line}:{column}"), false);
        }
    }

    fn propose_removal(&mut self) {
        let Some(selection) = self.selection() else {
            self.notice(
                "select a node or line in the tree pane to remove it".into(),
                true,
            );
            return;
        };
        let edit = match selection {
            Selection::Node { version, node, .. } => ManualEdit::RemoveNode { version, node },
            Selection::Line { line, .. } => ManualEdit::RemoveLines(line..line + 1),
        };
        if self.send(Command::Propose(edit)) {
            self.notice("testing the proposed removal…".into(), false);
        }
    }

    fn open_picker(&mut self) {
        self.picker.reset();
        // The running pipeline: its own entry, else the longest entry it starts with (`hddr`
        // runs: `hddr`, not `hdd`).
        let running = self.snapshot.pipeline.as_str();
        let catalogue = &self.picker.catalogue;
        let selected = catalogue
            .iter()
            .position(|p| p.name == running)
            .or_else(|| {
                catalogue
                    .iter()
                    .enumerate()
                    .filter(|(_, p)| running.starts_with(&p.name))
                    .max_by_key(|(_, p)| p.name.len())
                    .map(|(index, _)| index)
            })
            .unwrap_or(0);
        self.overlay = Some(Overlay::Picker { selected });
    }

    fn open_hoist(&mut self) {
        let Some(Selection::Node { version, node, .. }) = self.selection() else {
            self.notice(
                "hoisting needs a node of the parse tree selected".into(),
                true,
            );
            return;
        };
        let choices = self.tree.hoist_choices();
        if choices.is_empty() {
            self.notice(
                "the selected node has no named descendant to hoist".into(),
                true,
            );
            return;
        }
        self.overlay = Some(Overlay::Hoist {
            version,
            node,
            choices,
            selected: 0,
        });
    }

    fn restart_from_history(&mut self) {
        let Some(entry) = self.snapshot.history.get(self.history.cursor.row) else {
            self.notice("there is no history entry to restart from".into(), true);
            return;
        };
        let index = entry.index;
        if !self.send(Command::RestartFrom(index)) {
            return;
        }
        self.text.viewing = None;
        self.history.cursor.moved = false;
        self.notice(
            format!("restarting from history #{index} (the output keeps the smallest result)"),
            false,
        );
    }
}
