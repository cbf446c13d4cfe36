//! The terminal UI over a case of several files once it is done, without a terminal: the done
//! case is steered like a file (pins, restarts, the file shown picked in the Files pane by keys
//! and the mouse), reduced again on screen, and its result directory keeps the smallest set.

mod common;

use std::time::{Duration, Instant};

use ratatui::Terminal;
use ratatui::backend::TestBackend;
use ratatui::crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use whittle::tui::App;
use whittle_core::engine::session::{CaseSession, Command, PinTarget, RunState, SessionOptions};
use whittle_core::observe::events::Event;

use common::PATIENCE;
use common::case::*;

/// Once the case is done the commands of a file's session apply to the file shown, and each
/// that changes what is reduced runs the set again, the result directory keeping the smallest
/// set found: a switch of its pipeline, a restart from the start of its last session with a
/// pin, an undo, an edit; what cannot apply is refused with the reason.
#[test]
fn a_done_case_is_steered_like_a_file_and_reduced_again() {
    let dir = tempfile::tempdir().unwrap();
    let output = dir.path().join("out");
    let session = done_case_writing(&output);
    let lines = [
        ("a.txt".to_string(), "keep\n".to_string()),
        ("b.txt".to_string(), "needed\n".to_string()),
    ];
    assert_eq!(on_disk(&output), lines);
    let (path, best) = shown(&session);
    assert_eq!(best, content_of(&lines, &path), "the panes show {path}");

    // A pipeline that does not parse is refused, with why; one that does runs on the file
    // shown (the other keeps its own).
    session.send(Command::SwitchAlgorithm("no-such-stage".into()));
    let answer = session.events().recv_timeout(PATIENCE).unwrap();
    assert!(
        matches!(&answer, Event::CommandRejected { command, .. } if command == "switch"),
        "{answer:?}"
    );
    session.send(Command::SwitchAlgorithm("ddmin".into()));
    let events = events_until_done(&session);
    assert!(
        events
            .iter()
            .any(|e| matches!(e, Event::Switched { pipeline, .. } if pipeline == "ddmin")),
        "{events:?}"
    );
    assert!(matches!(events.last(), Some(Event::Done { .. })));
    let cut = on_disk(&output);
    assert_eq!(content_of(&cut, &path), best.trim_end(), "{cut:?}");
    let other = other_kept(&path);
    assert_eq!(content_of(&cut, other), content_of(&lines, other));
    assert_eq!(session.snapshot().state, RunState::Done);

    // Back to the start of the file's last session, with its line pinned: the set is reduced
    // again and keeps the line whole; the result directory keeps the smaller set found before.
    let start = session.commands().history_text(0).unwrap();
    assert_eq!(String::from_utf8_lossy(&start), best);
    // The pin is made once the file's session runs (in step mode): made before, it would apply
    // to the files phase, which has no file to pin in.
    session.send(Command::SetStepMode(true));
    session.send(Command::RestartFrom(0));
    let mut events = Vec::new();
    step_session_until(&session, &mut events, |s| {
        s.case
            .as_ref()
            .and_then(|case| case.current)
            .is_some_and(|row| s.case.as_ref().unwrap().files[row].path == path)
    });
    session.send(Command::Pin(PinTarget::Lines(0..1)));
    session.send(Command::SetStepMode(false));
    session.send(Command::Resume);
    events.extend(events_until_done(&session));
    assert!(
        events
            .iter()
            .any(|e| matches!(e, Event::Restarted { from: 0, .. })),
        "{events:?}"
    );
    assert!(
        events
            .iter()
            .any(|e| matches!(e, Event::FileStarted { path: p, .. } if *p == path)),
        "the file had another session: {events:?}"
    );
    assert_eq!(
        shown(&session),
        (path.clone(), content_of(&lines, &path).to_string()),
        "the pinned line stays whole"
    );
    assert_eq!(on_disk(&output), cut, "the smaller set stays on disk");

    // Undo takes back the restart: the set before it, reduced again; then nothing is left to
    // undo.
    session.send(Command::Undo);
    let events = events_until_done(&session);
    assert!(
        events
            .iter()
            .any(|e| matches!(e, Event::Undone { what, .. } if what.contains("restart"))),
        "{events:?}"
    );
    assert_eq!(on_disk(&output), cut);
    session.send(Command::Undo);
    let answer = session.events().recv_timeout(PATIENCE).unwrap();
    assert!(
        matches!(&answer, Event::CommandRejected { command, .. } if command == "undo"),
        "nothing left to undo: {answer:?}"
    );

    // An edit of the file is tested; the test refuses it, and nothing runs again.
    session.send(Command::Propose(
        whittle_core::engine::session::ManualEdit::RemoveBytes(0..1),
    ));
    let edit = std::iter::from_fn(|| session.events().recv_timeout(PATIENCE).ok())
        .find(|e| matches!(e, Event::ManualEdit { .. }))
        .expect("the edit is judged");
    assert!(
        matches!(
            &edit,
            Event::ManualEdit {
                accepted: false,
                ..
            }
        ),
        "{edit:?}"
    );
    session.send(Command::Stop);
    let finished = session.wait().unwrap().unwrap();
    assert!(finished.stopped.is_none());
    let result = named_contents(&finished.result);
    assert_eq!(result, cut);
    assert_eq!(on_disk(&output), cut);
}

/// The screen of a case that was done and is steered again from the UI: a pin on the file
/// shown (`p` on the tree pane's line) runs the set again; the file list marks the file the
/// commands apply to, and the round goes on.
#[test]
fn a_pin_after_the_end_runs_the_case_again_on_screen() {
    let (session, mut app, _) = run_to_the_end(false);
    let mut terminal = Terminal::new(TestBackend::new(120, 36)).unwrap();
    app.refresh();
    let rounds = session.snapshot().case.as_ref().unwrap().round;
    app.on_key(KeyEvent::new(KeyCode::Char('p'), KeyModifiers::NONE));
    let events = events_until_done(&session);
    assert!(
        events
            .iter()
            .any(|e| matches!(e, Event::PinsChanged { pins } if !pins.is_empty())),
        "{events:?}"
    );
    for event in events {
        app.on_engine_event(event);
    }
    app.refresh();
    terminal.draw(|frame| app.draw(frame)).unwrap();
    let screen = terminal.backend().to_string();
    let snapshot = session.snapshot();
    let case = snapshot.case.as_ref().unwrap();
    assert!(case.round > rounds, "another round ran");
    assert_eq!(snapshot.state, RunState::Done);
    assert!(!snapshot.pins.is_empty(), "the pin holds");
    let marked = case.current.expect("the file shown is marked");
    assert!(
        screen.contains(&format!("▶ {}", case.files[marked].path)),
        "{screen}"
    );
    insta::assert_snapshot!("case_pin_after_the_end", screen);
    session.send(Command::Stop);
    session.wait().unwrap().unwrap();
}

/// Once the case is done the user picks the file shown: a removed file is refused with why;
/// another file is shown (its content, pipeline and its last session's history), the commands
/// apply to it, the panes come back to it after the run they start, and a file shown again
/// has the history it had.
#[test]
fn a_file_picked_after_the_end_is_shown_and_the_commands_apply_to_it() {
    let dir = tempfile::tempdir().unwrap();
    let output = dir.path().join("out");
    let session = done_case_writing(&output);
    let (first, _) = shown(&session);
    let other = other_kept(&first);
    let pipeline = session.snapshot().pipeline;

    session.send(Command::ShowFile("c.txt".into()));
    let refused = answer(&session);
    assert!(
        matches!(&refused, Event::CommandRejected { command, reason }
            if command == "show file" && reason.contains("c.txt was removed from the set")),
        "{refused:?}"
    );
    assert_eq!(shown(&session).0, first, "the panes stay");

    session.send(Command::ShowFile(other.into()));
    let told = answer(&session);
    assert!(
        matches!(&told, Event::Notice { message } if message.contains(other)),
        "{told:?}"
    );
    let snapshot = session.snapshot();
    let (path, best) = shown(&session);
    assert_eq!(path, other);
    let expected = if other == "a.txt" {
        "keep\n"
    } else {
        "needed\n"
    };
    assert_eq!(best, expected);
    assert_eq!(snapshot.pipeline, pipeline);
    assert_eq!(snapshot.state, RunState::Done);
    let last = snapshot.history.len() - 1;
    assert_eq!(
        session.commands().history_text(last).as_deref(),
        Some(expected.as_bytes()),
        "the history is the file's"
    );

    // A switch applies to the file picked: it loses its newline, the other file keeps its own.
    session.send(Command::SwitchAlgorithm("ddmin".into()));
    events_until_done(&session);
    let (path, best) = shown(&session);
    assert_eq!(path, other, "the panes come back to the file picked");
    assert_eq!(best, expected.trim_end());
    let on_disk_now = on_disk(&output);
    assert_eq!(content_of(&on_disk_now, other), expected.trim_end());
    assert!(
        content_of(&on_disk_now, &first).ends_with('\n'),
        "{first} keeps its line pipeline: {on_disk_now:?}"
    );
    let sizes = |session: &CaseSession| -> Vec<(usize, usize)> {
        let history = session.snapshot().history;
        history
            .iter()
            .map(|entry| (entry.index, entry.size))
            .collect()
    };
    let history = sizes(&session);
    assert!(
        history.len() >= 2,
        "its session took the newline: {history:?}"
    );

    // Away and back: the file's history is kept meanwhile.
    session.send(Command::ShowFile(first.clone().into()));
    answer(&session);
    assert_eq!(shown(&session).0, first);
    session.send(Command::ShowFile(other.into()));
    answer(&session);
    assert_eq!(sizes(&session), history, "the history it had");

    // A restart applies to it too: from its session's start (with the newline).
    session.send(Command::SetStepMode(true));
    session.send(Command::RestartFrom(0));
    let restarted = answer(&session);
    assert!(
        matches!(restarted, Event::Restarted { from: 0, .. }),
        "{restarted:?}"
    );
    assert_eq!(size_of(&session, other), expected.len());
    session.send(Command::Stop);
    session.wait().unwrap().unwrap();
}

/// A file picked while the case runs: the panes go on following the file being reduced, and
/// show the one picked once the run is done.
#[test]
fn a_file_picked_while_the_case_runs_is_shown_at_the_end() {
    // Which file a run shows at its end when nothing is picked.
    let (session, _, _) = run_to_the_end(false);
    let (unpicked, _) = shown(&session);
    session.send(Command::Stop);
    session.wait().unwrap().unwrap();
    let picked = if unpicked == "a.txt" {
        "b.txt"
    } else {
        "a.txt"
    };

    let mut harness = Harness::with(SessionOptions {
        exit_when_done: false,
        start_in_step_mode: true,
        start_paused: false,
    });
    let snapshot = harness.step_until(|s| s.case.as_ref().is_some_and(|c| c.current.is_some()));
    let reducing = snapshot.case.as_ref().unwrap().current;
    let best = snapshot.best.clone();
    harness.session.send(Command::ShowFile(picked.into()));
    let snapshot = harness.step_until(|s| s.stats.tests > 1);
    assert_eq!(
        (
            snapshot.case.as_ref().unwrap().current,
            snapshot.best.len() <= best.len()
        ),
        (reducing, true),
        "the panes follow the file being reduced"
    );
    harness.session.send(Command::SetStepMode(false));
    harness.session.send(Command::Resume);
    events_until_done(&harness.session);
    assert_eq!(
        shown(&harness.session).0,
        picked,
        "the file picked is shown at the end"
    );
    harness.session.send(Command::Stop);
}

/// The result directory holds the smallest set the session has seen: a restart to a larger
/// set is not written at once (as a file's session keeps its smallest result); the rerun
/// writes again only what is no larger.
#[test]
fn a_restart_in_a_done_case_keeps_the_smaller_set_on_disk() {
    let dir = tempfile::tempdir().unwrap();
    let output = dir.path().join("out");
    let session = done_case_writing(&output);
    let (path, best) = shown(&session);
    session.send(Command::SwitchAlgorithm("ddmin".into()));
    events_until_done(&session);
    let cut = on_disk(&output);
    assert_eq!(content_of(&cut, &path), best.trim_end());
    // The restart, with the rerun held at its first candidate.
    session.send(Command::SetStepMode(true));
    session.send(Command::RestartFrom(0));
    let restarted = answer(&session);
    assert!(
        matches!(restarted, Event::Restarted { from: 0, .. }),
        "{restarted:?}"
    );
    let deadline = Instant::now() + PATIENCE;
    while !(session.snapshot().parked && session.snapshot().state == RunState::Running) {
        assert!(Instant::now() < deadline, "the rerun did not park");
        std::thread::sleep(Duration::from_millis(2));
    }
    assert_eq!(
        size_of(&session, &path),
        best.len(),
        "the set restarted from is the larger one"
    );
    assert_eq!(on_disk(&output), cut, "the smaller set stays on disk");
    session.send(Command::SetStepMode(false));
    session.send(Command::Resume);
    events_until_done(&session);
    assert_eq!(on_disk(&output), cut, "the rerun found it again");
    session.send(Command::Stop);
    let finished = session.wait().unwrap().unwrap();
    assert_eq!(named_contents(&finished.result), cut);
}

/// The Files pane takes the focus (Shift-Tab from the tree), its cursor moves with the arrow
/// keys and Enter shows the file under it once the case is done: the test case, the header,
/// the Configuration pane (that file's pipeline, done) and the ▶ follow; a removed file is
/// refused with why; a click on a row shows that file.
#[test]
fn the_files_pane_picks_the_file_shown_with_keys_and_the_mouse() {
    let (session, mut app, _) = run_to_the_end(false);
    let mut terminal = Terminal::new(TestBackend::new(120, 36)).unwrap();
    app.refresh();
    let (first, _) = shown(&session);
    let (other, down) = if first == "a.txt" {
        ("b.txt", KeyCode::Down)
    } else {
        ("a.txt", KeyCode::Up)
    };
    let key = |app: &mut App, code| app.on_key(KeyEvent::new(code, KeyModifiers::NONE));
    key(&mut app, KeyCode::BackTab);
    key(&mut app, down);
    terminal.draw(|frame| app.draw(frame)).unwrap();
    let screen = terminal.backend().to_string();
    let cursor = file_list(&screen);
    assert!(
        cursor
            .iter()
            .any(|row| row.starts_with(&format!("│› {other} "))),
        "the cursor is on {other}: {cursor:?}"
    );
    key(&mut app, KeyCode::Enter);
    let screen = fold_until(&session, &mut app, &mut terminal, |event| {
        matches!(event, Event::Notice { .. })
    });
    assert_eq!(shown(&session).0, other);
    let rows = file_list(&screen);
    assert!(
        rows.iter()
            .any(|row| row.starts_with(&format!("│▶ {other} "))),
        "{rows:?}"
    );
    assert!(screen.contains(&format!(" case · {other} ")), "{screen}");
    assert!(screen.contains("ddmin · done"), "{screen}");
    assert!(
        screen.contains(&format!("the pipeline of {other}")),
        "{screen}"
    );
    insta::assert_snapshot!("case_file_picked_after_the_end", screen);

    // c.txt was removed: nothing to show, and the note says why.
    key(&mut app, KeyCode::End);
    key(&mut app, KeyCode::Enter);
    app.refresh();
    terminal.draw(|frame| app.draw(frame)).unwrap();
    let screen = terminal.backend().to_string();
    assert!(
        screen.contains("c.txt was removed from the set (the test is interesting without"),
        "{screen}"
    );
    assert_eq!(shown(&session).0, other, "the panes stay");

    // A click on the first file's row shows it.
    let lines: Vec<&str> = screen.lines().collect();
    let (row, column) = lines
        .iter()
        .enumerate()
        .find_map(|(y, line)| {
            let x = line.find(&format!(" {first} text"))?;
            line.contains('│')
                .then(|| (y, line[..x].chars().count() + 1))
        })
        .expect("the first file's row");
    app.on_terminal_event(ratatui::crossterm::event::Event::Mouse(
        ratatui::crossterm::event::MouseEvent {
            kind: ratatui::crossterm::event::MouseEventKind::Down(
                ratatui::crossterm::event::MouseButton::Left,
            ),
            column: (column - 1) as u16,
            row: (row - 1) as u16,
            modifiers: KeyModifiers::NONE,
        },
    ));
    let screen = fold_until(&session, &mut app, &mut terminal, |event| {
        matches!(event, Event::Notice { .. })
    });
    assert_eq!(shown(&session).0, first);
    assert!(screen.contains(&format!(" case · {first} ")), "{screen}");
    session.send(Command::Stop);
    session.wait().unwrap().unwrap();
}

/// On a small screen the file list is the deck's tab 8: its number key shows and focuses it,
/// and Enter there shows the file under the cursor.
#[test]
fn on_a_small_screen_the_file_tab_picks_the_file_shown() {
    let (session, mut app, _) = run_to_the_end(false);
    let mut terminal = Terminal::new(TestBackend::new(80, 24)).unwrap();
    app.refresh();
    terminal.draw(|frame| app.draw(frame)).unwrap();
    let (first, _) = shown(&session);
    let up_or_down = if first == "a.txt" {
        KeyCode::Down
    } else {
        KeyCode::Up
    };
    for code in [KeyCode::Char('8'), up_or_down, KeyCode::Enter] {
        app.on_key(KeyEvent::new(code, KeyModifiers::NONE));
    }
    let screen = fold_until(&session, &mut app, &mut terminal, |event| {
        matches!(event, Event::Notice { .. })
    });
    let other = other_kept(&first);
    assert_eq!(shown(&session).0, other);
    assert!(screen.contains(&format!("▶ {other}")), "{screen}");
    // Tab goes on from the file list to the tree (the deck shows it).
    app.on_key(KeyEvent::new(KeyCode::Tab, KeyModifiers::NONE));
    terminal.draw(|frame| app.draw(frame)).unwrap();
    let screen = terminal.backend().to_string();
    assert!(!screen.contains(&format!("▶ {other}")), "{screen}");
    session.send(Command::Stop);
    session.wait().unwrap().unwrap();
}

/// A rerun of a done case whose set changed runs the files phase first: the Configuration
/// pane shows it while it runs, then the stage of each file being reduced, and at the end the
/// file shown's own place (here its pipeline, done: another file's session ran after its
/// own), never the files phase or another file's stage.
#[test]
fn the_configuration_pane_follows_a_rerun_of_a_done_case() {
    let (session, mut app, _) = run_to_the_end(false);
    let mut terminal = Terminal::new(TestBackend::new(120, 36)).unwrap();
    app.refresh();
    // The other file (its last session had steps) goes back to where that session started.
    let (first, _) = shown(&session);
    let other = other_kept(&first);
    session.send(Command::ShowFile(other.into()));
    answer(&session);
    assert!(session.snapshot().history.len() > 1);
    session.send(Command::SetStepMode(true));
    session.send(Command::RestartFrom(0));
    let mut seen = Vec::new();
    step_session_until(&session, &mut seen, |s| {
        s.case.as_ref().is_some_and(|case| case.removing_files)
    });
    for event in seen.drain(..) {
        app.on_engine_event(event);
    }
    app.refresh();
    terminal.draw(|frame| app.draw(frame)).unwrap();
    let screen = terminal.backend().to_string();
    assert!(
        configuration_line(&screen).starts_with("ddmin files"),
        "the files phase runs: {screen}"
    );
    step_session_until(&session, &mut seen, |s| {
        s.case.as_ref().is_some_and(|case| case.current.is_some()) && s.stats.tests > 0
    });
    for event in seen.drain(..) {
        app.on_engine_event(event);
    }
    app.refresh();
    terminal.draw(|frame| app.draw(frame)).unwrap();
    let screen = terminal.backend().to_string();
    assert!(
        configuration_line(&screen).starts_with("ddmin line"),
        "a file's stage: {screen}"
    );
    session.send(Command::SetStepMode(false));
    session.send(Command::Resume);
    for event in events_until_done(&session) {
        app.on_engine_event(event);
    }
    app.refresh();
    terminal.draw(|frame| app.draw(frame)).unwrap();
    let screen = terminal.backend().to_string();
    let line = configuration_line(&screen);
    // The other file's session ran after the file shown's: the pane shows the file shown's
    // pipeline, done (not the other file's last stage, nor the files phase).
    assert_eq!(line, "ddmin · done", "{screen}");
    assert!(
        screen.contains(&format!("the pipeline of {other}")),
        "{screen}"
    );
    session.send(Command::Stop);
    session.wait().unwrap().unwrap();
}
