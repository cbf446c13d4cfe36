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
use whittle_core::engine::session::Command;
use whittle_core::tree::Language;

impl App {
    /// Why a case of several files does not take `command` (the engine would refuse it too,
    /// after interrupting the stage): each file runs its own language's pipeline, and edits,
    /// restarts and undos are for one file.
    pub(super) fn case_refuses(&self, command: &Command) -> Option<&'static str> {
        self.snapshot.case.as_ref()?;
        match command {
            Command::SwitchAlgorithm(_) => {
                Some("with several files each file runs its own language's pipeline")
            }
            Command::Propose(_) | Command::RestartFrom(_) | Command::Undo => Some(
                "edits, restarts and undos are for one file: reduce the file on its own for them",
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
