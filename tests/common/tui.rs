//! Helpers of the tests of the terminal UI: an app drawn on a test terminal.

use std::time::{Duration, Instant};

use super::PATIENCE;

use ratatui::Terminal;
use ratatui::backend::TestBackend;
use whittle::tui::App;

/// Draws `app` on `terminal` and returns the screen as text, once the tree it shows is parsed
/// from the current text (the tree is re-parsed no more often than parsing can afford: waits
/// for it up to [`PATIENCE`]).
pub fn draw_current(app: &mut App, terminal: &mut Terminal<TestBackend>) -> String {
    app.refresh();
    let deadline = Instant::now() + PATIENCE;
    while !app.tree_is_current() && Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(2));
        app.refresh();
    }
    terminal.draw(|frame| app.draw(frame)).unwrap();
    terminal.backend().to_string()
}
