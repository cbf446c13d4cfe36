//! A case of several files: when the engine turns to another file, the panes that show one
//! file (tree, test case, history) start over on it, with its language and highlighting, and
//! the header names it; the whole set's chart starts from the set's size.

use std::sync::Arc;

use super::App;
use crate::tui::highlight::{HighlightCache, find_syntax};
use crate::tui::panes::Measures;
use crate::tui::panes::history::HistoryPane;
use crate::tui::panes::test_case::TestCasePane;
use crate::tui::panes::tree::TreePane;
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
}
