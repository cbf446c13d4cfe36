//! The file list of a case of several files: every file of the input with its language, its
//! size at the start and now, and where it stands in the round (waiting, reducing, done,
//! removed); the file the other panes show (the one being reduced, or once the run is done the
//! one picked) is marked ▶. Focused, it has a cursor (› on a row that is not the one shown):
//! Enter or a click picks the file under it.

use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::Paragraph;

use super::{Pane, View};
use crate::tui::widgets::{ListCursor, block, human_bytes};
use whittle_core::engine::case::{CaseView, FileRow, FileState};
use whittle_core::text::describe::{ellipsize, ellipsize_path};

/// The rows the pane needs to show every file (with its borders).
pub fn height(case: &CaseView) -> u16 {
    (case.files.len() as u16).saturating_add(2)
}

/// The pane's title: the round and the whole set's size, start → now.
pub fn title(case: &CaseView) -> String {
    let kept = case
        .files
        .iter()
        .filter(|file| file.state != FileState::Removed)
        .count();
    if case.removing_files {
        return format!(" Files · round {} · removing files ", case.round);
    }
    format!(
        " Files · round {} · {kept}/{} · {} → {} ",
        case.round,
        case.files.len(),
        human_bytes(case.start_bytes()),
        human_bytes(case.bytes())
    )
}

/// A size in at most five columns: bytes, then thousands (k) and millions (M).
fn short_bytes(bytes: usize) -> String {
    if bytes < 100_000 {
        bytes.to_string()
    } else if bytes < 10_000_000 {
        format!("{}k", bytes / 1000)
    } else {
        format!("{}M", bytes / 1_000_000)
    }
}

/// The name of a file's language in the list.
fn language(row: &FileRow) -> &str {
    match (&row.language, row.binary) {
        _ if row.link => "link",
        (_, true) => "binary",
        (Some(language), false) => language.as_str(),
        (None, false) => "text",
    }
}

/// Its size now, or a dash once removed.
fn now(row: &FileRow) -> String {
    match row.state {
        FileState::Removed => "–".to_string(),
        _ => short_bytes(row.bytes),
    }
}

/// The Files pane's state: its cursor, which follows the file shown until it is moved.
#[derive(Clone, Debug, Default)]
pub struct FilesPane {
    pub cursor: ListCursor,
}

impl FilesPane {
    /// Keeps the cursor on the file shown while it was not moved, and on a row of the list.
    pub fn refresh(&mut self, case: &CaseView) {
        self.cursor.follow(case.current, case.files.len());
    }

    pub fn draw(&self, view: &View, frame: &mut Frame, area: Rect) {
        let Some(case) = &view.snapshot.case else {
            return;
        };
        let theme = view.theme;
        let focused = view.focus == Pane::Files;
        let width = area.width.saturating_sub(2) as usize;
        let height = area.height.saturating_sub(2) as usize;
        let cursor = focused.then_some(self.cursor.row);
        let first = self.cursor.first_visible(case.files.len(), height);
        let body: Vec<Line> = lines(case, cursor, width)
            .into_iter()
            .zip(&case.files)
            .enumerate()
            .skip(first)
            .take(height)
            .map(|(index, (text, row))| {
                let style = if cursor == Some(index) {
                    theme.selection
                } else if case.current == Some(index) {
                    theme.accent
                } else if row.state == FileState::Removed {
                    theme.muted
                } else {
                    theme.base
                };
                Line::from(Span::styled(text, style))
            })
            .collect();
        frame.render_widget(
            Paragraph::new(body).block(block(title(case), focused, theme)),
            area,
        );
    }
}

/// Every file as a line `width` columns wide: the mark of the file shown (▶, or › on the
/// row of the `cursor` when it is another), its path, its language, its sizes in bytes
/// (start → now) and its state, in columns as wide as the list needs.
pub fn lines(case: &CaseView, cursor: Option<usize>, width: usize) -> Vec<String> {
    let widest =
        |column: &dyn Fn(&FileRow) -> usize| case.files.iter().map(column).max().unwrap_or(0);
    let language_width = widest(&|row| language(row).chars().count()).min(8);
    let start_width = widest(&|row| short_bytes(row.start_bytes).len());
    let now_width = widest(&|row| now(row).chars().count());
    let state_width = widest(&|row| row.state.describe().len());
    let path_width = widest(&|row| row.path.chars().count());
    case.files
        .iter()
        .enumerate()
        .map(|(index, row)| {
            let mark = if case.current == Some(index) {
                "▶"
            } else if cursor == Some(index) {
                "›"
            } else {
                " "
            };
            let tail = format!(
                " {:<language_width$} {:>start_width$} → {:>now_width$} {:<state_width$}",
                ellipsize(language(row), language_width),
                short_bytes(row.start_bytes),
                now(row),
                row.state.describe()
            );
            let room = width.saturating_sub(tail.chars().count() + 2);
            let path_width = path_width.min(room).max(4);
            let path = ellipsize_path(&row.path, path_width);
            let line = format!("{mark} {path:<path_width$}{tail}");
            ellipsize(line.trim_end(), width)
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn row(path: &str, state: FileState) -> FileRow {
        FileRow {
            path: path.to_string(),
            language: Some("java".to_string()),
            binary: false,
            link: false,
            start_bytes: 19915,
            bytes: if state == FileState::Removed { 0 } else { 80 },
            state,
        }
    }

    /// Long paths that share their directories lose those, not the files' names.
    #[test]
    fn rows_too_narrow_for_the_paths_keep_the_file_names() {
        let dir = "java/util/concurrent/atomic";
        let case = CaseView {
            round: 1,
            removing_files: false,
            current: Some(1),
            files: vec![
                row(&format!("{dir}/AtomicBoolean.java"), FileState::Removed),
                row(&format!("{dir}/Striped64.java"), FileState::Reducing),
            ],
        };
        assert_eq!(
            lines(&case, None, 52),
            [
                "  …/AtomicBoolean.java      java 19915 →  – removed",
                "▶ …/atomic/Striped64.java   java 19915 → 80 reducing",
            ]
        );
    }
}
