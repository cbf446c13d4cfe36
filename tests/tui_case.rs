//! The terminal UI over a case of several files while it runs, without a terminal: an `App` over
//! a real case session (an in-process test, one job, step mode), rendered to ratatui's
//! `TestBackend`. The file list's rows are checked to the character, a pin made on one file
//! holds through that file's later sessions, the chart is the whole set's, and the session ends
//! with the run or waits on its result. (The case once done: `tui_case_done`.)

mod common;

use std::time::{Duration, Instant};

use ratatui::crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use whittle_core::engine::case::FileState;
use whittle_core::engine::session::{Command, PinTarget, RunState};

use common::PATIENCE;
use common::case::*;

#[test]
fn the_file_list_shows_each_file_s_state_and_a_pin_lasts_through_later_rounds() {
    let mut harness = Harness::new();
    // Whole files go first: the test case pane lists the set meanwhile.
    harness.settle();
    let screen = harness.screen();
    assert!(
        screen.contains("Round 1: removing whole files")
            && screen.contains("(ddmin over the 3 files of the set)"),
        "{screen}"
    );
    for row in ["a.txt  16 bytes", "b.txt  13 bytes", "c.txt  5 bytes"] {
        assert!(screen.contains(row), "{row}\n{screen}");
    }
    assert!(screen.contains(" case · whole files "), "{screen}");
    assert!(
        screen.contains("Files · round 1 · removing files"),
        "{screen}"
    );
    // c.txt is not needed.
    let snapshot = harness.step_until(|s| s.case.as_ref().is_some_and(|c| c.current == Some(0)));
    let case = snapshot.case.as_ref().unwrap();
    assert_eq!(case.round, 1);
    assert_eq!(
        case.files.iter().map(|f| f.state).collect::<Vec<_>>(),
        [FileState::Reducing, FileState::Waiting, FileState::Removed]
    );
    assert_eq!(
        &snapshot.best[..],
        b"keep\ndrop\nx1\nx2\n",
        "the panes show a.txt"
    );
    // The events and the snapshot agree on the version of the best shown (what the candidate
    // under test removes is drawn only then).
    harness.app.refresh();
    assert_eq!(harness.app.run_model().version, snapshot.version);
    let screen = harness.screen();
    assert_eq!(
        file_list(&screen),
        [
            "╭ Files · round 1 · 2/3 · 34 B → 29 B ─╮",
            "│▶ a.txt text 16 → 16 reducing         │",
            "│  b.txt text 13 → 13 waiting          │",
            "│  c.txt text  5 →  – removed          │",
            "╰──────────────────────────────────────╯",
        ],
        "{screen}"
    );
    assert!(
        screen.contains(" case · a.txt "),
        "the header names the file\n{screen}"
    );
    assert!(screen.contains("Whole case: size over tests"), "{screen}");
    assert!(
        screen.contains("│34 B│"),
        "the chart starts at the whole set's size\n{screen}"
    );

    // What changes a file waits for the end of the run: refused at once, without
    // interrupting the stage.
    harness
        .app
        .on_key(KeyEvent::new(KeyCode::Char('z'), KeyModifiers::NONE));
    let screen = harness.screen();
    assert!(screen.contains("waits for the end of the run"), "{screen}");

    // Line 2 of a.txt is pinned: no session of a.txt removes it, in this round or the next.
    harness.session.send(Command::Pin(PinTarget::Lines(1..2)));
    let snapshot = harness.step_until(|s| !s.pins.is_empty());
    assert_eq!(snapshot.pins, vec![5..10]);
    harness.session.send(Command::SetStepMode(false));
    harness.session.send(Command::Resume);
    let (finished, screen) = harness.finish();
    let result = named_contents(&finished.result);
    assert_eq!(
        result,
        [
            // The pinned "drop\n" stays whole; the rest goes to the byte.
            ("a.txt".to_string(), "keepdrop\n".to_string()),
            ("b.txt".to_string(), "needed".to_string()),
        ]
    );
    // At the end the statistics are the whole case's: its size, and the tests of every
    // session and of the files phase.
    assert!(screen.contains("case     34 → 15 "), "{screen}");
    let tests = format!("tests    {} · ", finished.stats.tests);
    assert!(screen.contains(&tests), "{tests}\n{screen}");
    assert!(finished.rounds >= 2, "a.txt had a later session");
    assert!(
        finished.files[0].sessions >= 2,
        "a.txt was reduced again with its pin: {:?}",
        finished.files[0]
    );
}

#[test]
fn steps_count_over_the_whole_case_and_the_files_phase_charts_its_sets() {
    let mut harness = Harness::new();
    harness.settle();
    harness.screen();
    // The files phase removes c.txt; then a.txt's session starts, then b.txt's.
    harness.step_until(|s| s.case.as_ref().is_some_and(|c| c.current == Some(0)));
    let series = harness.app.run_model().case.clone().expect("a case series");
    assert_eq!(
        series
            .sizes
            .iter()
            .map(|&(_, size)| size)
            .collect::<Vec<_>>(),
        [34, 29, 29],
        "the start, the set without c.txt (the files phase), a.txt's turn"
    );
    let snapshot = harness.step_until(|s| s.case.as_ref().is_some_and(|c| c.current == Some(1)));
    assert_eq!(&snapshot.best[..], b"y1\nneeded\ny2\n");
    // One step into b.txt's session: the header and the candidate shown say the same step,
    // counted on from the files phase and a.txt's session (49 steps before it).
    harness.step_until(|s| s.stats.tests > 0);
    let screen = harness.screen();
    let lines: Vec<&str> = screen.lines().collect();
    assert!(
        lines[0].contains(" step 50  case · b.txt  ddmin "),
        "{screen}"
    );
    assert!(lines[8].contains("│step 50 Δ1/2 · 3 B "), "{screen}");
    harness.session.send(Command::SetStepMode(false));
    harness.session.send(Command::Resume);
    let (finished, _) = harness.finish();
    assert_eq!(finished.result.len(), 2);
}

#[test]
fn exit_when_done_ends_the_case_session_and_the_ui_with_the_run() {
    let (session, app, after) = run_to_the_end(true);
    assert!(app.should_quit(), "the UI leaves when the run is done");
    assert!(after.is_empty(), "{after:?}");
    let deadline = Instant::now() + PATIENCE;
    while !session.is_finished() {
        assert!(
            Instant::now() < deadline,
            "the session did not end by itself"
        );
        std::thread::sleep(Duration::from_millis(2));
    }
    let finished = session.wait().unwrap().unwrap();
    assert_eq!(finished.result.len(), 2);
}

#[test]
fn without_exit_when_done_the_case_session_waits_on_the_result_until_stopped() {
    let (session, app, after) = run_to_the_end(false);
    assert!(!app.should_quit(), "the UI stays on the result");
    assert!(
        after.is_empty(),
        "nothing happens until the user acts: {after:?}"
    );
    assert!(!session.is_finished(), "the session waits for the UI");
    assert_eq!(session.snapshot().state, RunState::Done);
    session.send(Command::Stop);
    let finished = session.wait().unwrap().unwrap();
    assert!(finished.stopped.is_none(), "the run itself was done");
    assert_eq!(finished.result.len(), 2);
}
