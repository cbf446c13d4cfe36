//! The header line: the state of the run (never cut), the step, then the input and the
//! pipeline as far as they fit.

use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::style::{Modifier, Style};
use ratatui::text::{Line, Span};
use ratatui::widgets::Paragraph;
use unicode_width::UnicodeWidthStr;

use super::View;
use crate::tui::model::Ending;
use whittle_core::engine::session::RunState;
use whittle_core::text::describe::{ellipsize, ellipsize_path};

/// What the run is doing, in one phrase.
pub fn state_label(view: &View) -> (String, Style) {
    let theme = view.theme;
    let snapshot = view.snapshot;
    let bold = theme.not_interesting.add_modifier(Modifier::BOLD);
    if let Some(replay) = view.replay {
        let label = match replay.playing {
            Some(speed) => format!("REPLAY ▶ {speed} steps/s · space: pause"),
            None if replay.position >= replay.len => {
                let end = if replay.complete {
                    "the end"
                } else if replay.cut {
                    "the end of the trace (its last line was cut)"
                } else {
                    "the end of the trace"
                };
                format!("REPLAY · {end} · b: back")
            }
            None => "REPLAY · n: next · b: back · space: play".to_string(),
        };
        return (label, theme.accent);
    }
    if let RunState::Failed(message) = &snapshot.state {
        return (format!("FAILED: {message}"), theme.warning);
    }
    match &view.run.ending {
        Some(Ending::Done) => return ("DONE".into(), bold),
        Some(Ending::Stopped(reason)) => return (format!("STOPPED ({reason})"), theme.warning),
        Some(Ending::Failed(message)) => return (format!("FAILED: {message}"), theme.warning),
        None => {}
    }
    if snapshot.state == RunState::Checking && !snapshot.paused {
        return ("CHECKING THE INPUT".into(), theme.accent);
    }
    if snapshot.step_mode {
        return ("STEP MODE · n: next step · space: run".into(), theme.accent);
    }
    if snapshot.paused {
        if snapshot.parked {
            return ("PAUSED · space: resume".into(), theme.accent);
        }
        return ("PAUSING (running tests finish)".into(), theme.accent);
    }
    ("RUNNING".into(), bold)
}

/// Draws the header: whittle, the state, the step, the input and the pipeline.
pub fn draw(view: &View, input_name: &str, frame: &mut Frame, area: Rect) {
    let theme = view.theme;
    let (state, state_style) = state_label(view);
    let step = match view.replay {
        Some(replay) => format!(" step {} of {} ", replay.step, replay.last_step),
        None => format!(" step {} ", view.run.last_step),
    };
    let mut spans = vec![
        Span::styled(" whittle ", theme.header.add_modifier(Modifier::BOLD)),
        Span::styled(
            format!(" {state} "),
            state_style.patch(theme.header).add_modifier(Modifier::BOLD),
        ),
        Span::styled(step, theme.header),
    ];
    let used: usize = spans.iter().map(|span| span.content.width()).sum();
    let room = (area.width as usize).saturating_sub(used);
    let language = view
        .snapshot
        .language
        .map(|l| format!(" ({l})"))
        .unwrap_or_default();
    let output = view
        .snapshot
        .output
        .as_ref()
        .and_then(|path| path.file_name())
        .map(|name| format!(" → {}", name.to_string_lossy()))
        .unwrap_or_default();
    let pipeline = format!(" {} ", view.snapshot.pipeline);
    if room > 4 {
        let input_room = room.saturating_sub(pipeline.width().min(room / 2));
        let input = input_label(input_name, &format!("{language}{output}"), input_room);
        let pipeline = ellipsize(&pipeline, room - input.width());
        spans.push(Span::styled(input, theme.header));
        spans.push(Span::styled(pipeline, theme.muted.patch(theme.header)));
    }
    frame.render_widget(Paragraph::new(Line::from(spans)).style(theme.header), area);
}

/// The header's input ` NAME (language) → output ` in at most `room` columns. A path too long
/// for the room keeps its file's name: its directories go first, then the language and output.
fn input_label(name: &str, extras: &str, room: usize) -> String {
    let full = format!(" {name}{extras} ");
    if full.width() <= room || !name.contains('/') {
        return ellipsize(&full, room);
    }
    let file_name = name.rsplit('/').next().unwrap_or(name);
    let short = ellipsize_path(name, room.saturating_sub(extras.width() + 2));
    let label = if short.ends_with(file_name) {
        format!(" {short}{extras} ")
    } else {
        format!(" {} ", ellipsize_path(name, room.saturating_sub(2)))
    };
    ellipsize(&label, room)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_long_path_keeps_its_file_name_before_the_language_and_output() {
        let name = "src · java/util/concurrent/atomic/Striped64.java";
        let extras = " (java) → tui.out";
        assert_eq!(input_label(name, extras, 80), format!(" {name}{extras} "));
        assert_eq!(
            input_label(name, extras, 44),
            " …/atomic/Striped64.java (java) → tui.out "
        );
        assert_eq!(input_label(name, extras, 30), " …/atomic/Striped64.java ");
        assert_eq!(input_label(name, extras, 12), " Striped64… ");
        // A name that is no path is cut at its end, as before.
        assert_eq!(input_label("demo hello-world", " (c)", 12), " demo hello…");
        for room in 0..60 {
            assert!(input_label(name, extras, room).width() <= room, "{room}");
        }
    }
}
