//! A case of several files: when the engine turns to another file (or, once the run is done,
//! the user picks one in the Files pane), the panes that show one file (tree, test case,
//! history, the Configuration pane's place) start over on it, with its language and
//! highlighting, and the header names it; the whole set's chart starts from the set's size.

use std::path::PathBuf;
use std::sync::Arc;

use super::App;
use crate::tui::highlight::{HighlightCache, find_syntax};
use crate::tui::panes::Measures;
use crate::tui::panes::history::HistoryPane;
use crate::tui::panes::test_case::TestCasePane;
use crate::tui::panes::tree::TreePane;
use whittle_core::engine::case::FileState;
use whittle_core::engine::session::{Command, RunState};
use whittle_core::tree::Language;

impl App {
    /// Why a case of several files does not take `command` now (the engine would refuse it
    /// too, after interrupting the stage): while the case runs, a switch, an edit, a restart or
    /// an undo waits for its end; then it applies to the file shown and the set is reduced
    /// again.
    pub(super) fn case_refuses(&self, command: &Command) -> Option<&'static str> {
        self.snapshot.case.as_ref()?;
        if self.snapshot.state == RunState::Done {
            return None;
        }
        match command {
            Command::SwitchAlgorithm(_)
            | Command::Propose(_)
            | Command::RestartFrom(_)
            | Command::Undo => Some(
                "with several files this waits for the end of the run (then it applies to the file shown)",
            ),
            _ => None,
        }
    }

    /// How many files the Files pane lists (none without a case).
    pub(super) fn case_file_count(&self) -> usize {
        self.snapshot
            .case
            .as_ref()
            .map_or(0, |case| case.files.len())
    }

    /// Follows the file the snapshot shows (once per turn of a file).
    pub(super) fn follow_case_file(&mut self) {
        let Some(case) = &self.snapshot.case else {
            return;
        };
        self.run.start_case(case.start_bytes());
        // A file's turn, or the files phase of a round (the set listed as the test case).
        let current = match case.current {
            Some(current) => Some(current),
            None if case.removing_files => None,
            None => return,
        };
        let shown = current.map(|row| case.files[row].path.as_str());
        self.run.show_case_file(shown);
        let turn = (case.round, current);
        if self.case_turn == Some(turn) {
            return;
        }
        self.case_turn = Some(turn);
        let path = match current {
            Some(current) => case.files[current].path.clone(),
            None => "whole files".into(),
        };
        let language = self
            .snapshot
            .language
            .and_then(|name| Language::by_name(name).ok());
        let extension = std::path::Path::new(&path)
            .extension()
            .map(|e| e.to_string_lossy().into_owned());
        let percent = self.tree.percent;
        self.tree = TreePane::new(language);
        self.tree.percent = percent;
        let syntax = find_syntax(language.map(Language::syntect_syntax), extension.as_deref());
        self.text = TestCasePane::new(HighlightCache::new(syntax));
        self.history = HistoryPane::default();
        self.recent.clear();
        let start = self
            .source
            .history_text(0)
            .map_or_else(|| self.snapshot.best.clone(), Arc::from);
        self.input_measures = Measures::of(&start);
        self.input_name = format!("{} · {path}", self.case_name);
    }

    /// Shows the file under the Files pane's cursor (Enter, a click): once the run is done the
    /// panes show it and the commands apply to it; while it runs the panes follow the file
    /// being reduced and show the one picked at the end. A removed file cannot be shown.
    pub(super) fn show_case_file(&mut self) {
        let Some(case) = &self.snapshot.case else {
            return;
        };
        let Some(row) = case.files.get(self.files.cursor.row) else {
            return;
        };
        let path = row.path.clone();
        if row.state == FileState::Removed {
            self.notice(
                format!(
                    "{path} was removed from the set (the test is interesting without it): \
                     there is nothing of it to show"
                ),
                true,
            );
            return;
        }
        if row.link {
            self.notice(
                format!("{path} is a symbolic link, kept as it is: nothing to show or steer"),
                true,
            );
            return;
        }
        let note = match &self.snapshot.state {
            RunState::Done if case.current == Some(self.files.cursor.row) => {
                format!("{path} is shown: pins, edits, switches, restarts and undo apply to it")
            }
            RunState::Done => format!("showing {path}…"),
            RunState::Checking | RunState::Running => format!(
                "{path} is shown when the run is done; until then the panes follow the file \
                 being reduced (▶)"
            ),
            RunState::Stopped(_) | RunState::Failed(_) => {
                self.notice("the run has ended: nothing more is shown".into(), true);
                return;
            }
        };
        if self.snapshot.state == RunState::Done {
            // The cursor follows the file shown again.
            self.files.cursor.moved = false;
        }
        self.send(Command::ShowFile(PathBuf::from(path)));
        self.notice(note, false);
    }
}
