//! The terminal UI over a case of several files, without a terminal: an `App` over a real
//! case session (an in-process test, one job, step mode), rendered to ratatui's `TestBackend`.
//! The file list's rows are checked to the character, a pin made on one file holds through
//! that file's later sessions, and the chart is the whole set's.

mod common;

use std::path::PathBuf;
use std::sync::Arc;
use std::time::{Duration, Instant};

use ratatui::Terminal;
use ratatui::backend::TestBackend;
use ratatui::crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use whittle::tui::{App, AppOptions, ManualClock, Theme};
use whittle_core::bundle::{self, CaseFile};
use whittle_core::engine::case::{BinaryFiles, CaseFinished, CaseJob, FileState};
use whittle_core::engine::pipeline::{Pipeline, Settings};
use whittle_core::engine::session::{
    CaseSession, Command, PinTarget, RunState, SessionOptions, Snapshot,
};
use whittle_core::exec::oracle::predicate;
use whittle_core::observe::events::Event;
use whittle_core::params::ParallelMode;

use common::PATIENCE;

fn file(path: &str, content: &str) -> CaseFile {
    CaseFile {
        path: PathBuf::from(path),
        mode: 0o644,
        content: content.as_bytes().to_vec(),
    }
}

/// Three text files (the test wants `keep` in a.txt and `needed` in b.txt), started with
/// `options`.
fn start_case(options: SessionOptions) -> CaseSession {
    start_case_writing(options, Pipeline::ddmin(), None)
}

/// The case of [`start_case`] started with `options` and `algorithm`, its result written to
/// `output`.
fn start_case_writing(
    options: SessionOptions,
    algorithm: Pipeline,
    output: Option<&std::path::Path>,
) -> CaseSession {
    let input = vec![
        file("a.txt", "keep\ndrop\nx1\nx2\n"),
        file("b.txt", "y1\nneeded\ny2\n"),
        file("c.txt", "junk\n"),
    ];
    let settings = Settings {
        jobs: 1,
        parallel: Some(ParallelMode::Stable),
        algorithm: Some(algorithm),
        ..Settings::default()
    };
    let job = CaseJob {
        input,
        start: None,
        settings,
        binary: BinaryFiles::Keep,
        output: output.map(|path| Arc::new(bundle::CaseDirectory::new(path))),
        events: None,
        trace_dir: None,
        command: None,
        steering: None,
    };
    let oracle = predicate("keep in a.txt, needed in b.txt", |candidate: &[u8]| {
        let Ok(files) = bundle::decode(candidate) else {
            return false;
        };
        let has = |path: &str, text: &str| {
            files.iter().any(|f| {
                f.path.as_path() == std::path::Path::new(path)
                    && String::from_utf8_lossy(&f.content).contains(text)
            })
        };
        has("a.txt", "keep") && has("b.txt", "needed")
    });
    CaseSession::start(job, Arc::new(oracle), options).unwrap()
}

struct Harness {
    session: CaseSession,
    app: App,
    terminal: Terminal<TestBackend>,
    done: bool,
}

impl Harness {
    /// The UI over the case of [`start_case`] in step mode; its session ends with the run.
    fn new() -> Harness {
        Harness::with(SessionOptions {
            exit_when_done: true,
            start_in_step_mode: true,
            start_paused: false,
        })
    }

    /// The UI over the case of [`start_case`] started with `options`.
    fn with(options: SessionOptions) -> Harness {
        let session = start_case(options);
        let app = App::new(
            session.commands(),
            AppOptions {
                theme: Theme::named("dark", false).unwrap(),
                input_name: "case".into(),
                clock: Arc::new(ManualClock::new()),
                exit_when_done: false,
                language: None,
                extension: None,
            },
        );
        Harness {
            session,
            app,
            terminal: Terminal::new(TestBackend::new(120, 36)).unwrap(),
            done: false,
        }
    }

    fn drain(&mut self) -> bool {
        let mut judged = false;
        while let Ok(event) = self.session.events().try_recv() {
            judged |= matches!(event, Event::CandidateJudged { .. });
            self.done |= matches!(
                event,
                Event::Done { .. } | Event::Stopped { .. } | Event::Failed { .. }
            );
            self.app.on_engine_event(event);
        }
        judged
    }

    /// Waits until the engine waits for a step (or is done).
    fn settle(&mut self) -> Snapshot {
        let deadline = Instant::now() + PATIENCE;
        loop {
            self.drain();
            let snapshot = self.session.snapshot();
            if self.done || (snapshot.parked && snapshot.state == RunState::Running) {
                self.drain();
                return snapshot;
            }
            assert!(Instant::now() < deadline, "the engine did not settle");
            std::thread::sleep(Duration::from_millis(2));
        }
    }

    /// Presses `n` (one step) until `until` holds of the snapshot while the engine waits.
    fn step_until(&mut self, until: impl Fn(&Snapshot) -> bool) -> Snapshot {
        for _ in 0..200 {
            let snapshot = self.settle();
            if until(&snapshot) {
                return snapshot;
            }
            assert!(!self.done, "the run ended first");
            self.app
                .on_key(KeyEvent::new(KeyCode::Char('n'), KeyModifiers::NONE));
            let deadline = Instant::now() + PATIENCE;
            while !self.drain() && !self.done {
                assert!(Instant::now() < deadline, "the step was not judged");
                std::thread::sleep(Duration::from_millis(2));
            }
        }
        panic!("not reached in 200 steps");
    }

    fn screen(&mut self) -> String {
        self.app.refresh();
        self.terminal.draw(|frame| self.app.draw(frame)).unwrap();
        self.terminal.backend().to_string()
    }

    /// Waits for the end: the result, and the screen then.
    fn finish(mut self) -> (CaseFinished, String) {
        let deadline = Instant::now() + PATIENCE;
        while !self.done {
            self.drain();
            assert!(Instant::now() < deadline, "the run did not end");
            std::thread::sleep(Duration::from_millis(2));
        }
        let screen = self.screen();
        (self.session.wait().unwrap().unwrap(), screen)
    }
}

/// The text of the file list as drawn: the rows between its borders (a focused pane's thick
/// border drawn thin).
fn file_list(screen: &str) -> Vec<String> {
    let thin = |line: &str| -> String {
        line.chars()
            .map(|c| match c {
                '┃' => '│',
                '━' => '─',
                '┏' => '╭',
                '┓' => '╮',
                '┗' => '╰',
                '┛' => '╯',
                other => other,
            })
            .collect()
    };
    let lines: Vec<String> = screen.lines().map(thin).collect();
    let top = lines
        .iter()
        .position(|line| line.contains("╭ Files"))
        .expect("a file list on screen");
    let column = lines[top].chars().position(|c| c == '╭').unwrap_or(0);
    let column = lines[top]
        .chars()
        .enumerate()
        .filter(|&(_, c)| c == '╭')
        .map(|(at, _)| at)
        .find(|&at| {
            lines[top]
                .chars()
                .skip(at)
                .collect::<String>()
                .starts_with("╭ Files")
        })
        .unwrap_or(column);
    let mut rows = Vec::new();
    for line in &lines[top..] {
        let row: String = line.chars().skip(column).collect();
        let row = row.trim_end_matches(['"', ' ']).to_string();
        let end = row.starts_with('╰');
        rows.push(row);
        if end {
            break;
        }
    }
    rows
}

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

/// The UI over a case session that ran to its end without a step, `exit_when_done` given to
/// both; whether the UI leaves by itself, and the events after `Done`.
fn run_to_the_end(exit_when_done: bool) -> (CaseSession, App, Vec<Event>) {
    let session = start_case(SessionOptions {
        exit_when_done,
        start_in_step_mode: false,
        start_paused: false,
    });
    let mut app = App::new(
        session.commands(),
        AppOptions {
            theme: Theme::named("dark", false).unwrap(),
            input_name: "case".into(),
            clock: Arc::new(ManualClock::new()),
            exit_when_done,
            language: None,
            extension: None,
        },
    );
    let deadline = Instant::now() + PATIENCE;
    let mut after = Vec::new();
    let mut done = false;
    while !done {
        assert!(Instant::now() < deadline, "the run did not end");
        match session.events().recv_timeout(Duration::from_millis(10)) {
            Ok(event) => {
                done = matches!(event, Event::Done { .. });
                app.on_engine_event(event);
            }
            Err(_) => continue,
        }
    }
    // What comes after the end, for a while.
    while let Ok(event) = session.events().recv_timeout(Duration::from_millis(200)) {
        after.push(event);
    }
    (session, app, after)
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

/// The events until the next end of a run (or `PATIENCE`).
fn events_until_done(session: &CaseSession) -> Vec<Event> {
    let deadline = Instant::now() + PATIENCE;
    let mut events = Vec::new();
    loop {
        let left = deadline.saturating_duration_since(Instant::now());
        let event = session
            .events()
            .recv_timeout(left)
            .unwrap_or_else(|_| panic!("the run did not end: {events:?}"));
        let end = matches!(
            event,
            Event::Done { .. } | Event::Stopped { .. } | Event::Failed { .. }
        );
        events.push(event);
        if end {
            return events;
        }
    }
}

/// Steps a session in step mode (the events it sends kept in `seen`) until `until` holds of
/// its snapshot while it waits for a step.
fn step_session_until(
    session: &CaseSession,
    seen: &mut Vec<Event>,
    until: impl Fn(&Snapshot) -> bool,
) {
    let deadline = Instant::now() + PATIENCE;
    loop {
        assert!(Instant::now() < deadline, "not reached: {seen:?}");
        seen.extend(session.events().try_iter());
        assert!(
            !seen.iter().any(|event| matches!(event, Event::Done { .. })),
            "the run ended first: {seen:?}"
        );
        let snapshot = session.snapshot();
        if !(snapshot.parked && snapshot.state == RunState::Running) {
            std::thread::sleep(Duration::from_millis(2));
            continue;
        }
        if until(&snapshot) {
            return;
        }
        session.send(Command::Step);
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            let event = session
                .events()
                .recv_timeout(left)
                .expect("the step was judged");
            let judged = matches!(event, Event::CandidateJudged { .. });
            seen.push(event);
            if judged {
                break;
            }
        }
    }
}

/// Each file of `files` as its path and its text.
fn named_contents(files: &[CaseFile]) -> Vec<(String, String)> {
    files
        .iter()
        .map(|f| {
            (
                f.path.display().to_string(),
                String::from_utf8_lossy(&f.content).into_owned(),
            )
        })
        .collect()
}

/// The files of the result directory, by name.
fn on_disk(dir: &std::path::Path) -> Vec<(String, String)> {
    let mut files: Vec<(String, String)> = std::fs::read_dir(dir)
        .unwrap()
        .map(|entry| {
            let entry = entry.unwrap();
            (
                entry.file_name().to_string_lossy().into_owned(),
                std::fs::read_to_string(entry.path()).unwrap(),
            )
        })
        .collect();
    files.sort();
    files
}

/// The file the panes show (the commands after the end apply to it) and its content.
fn shown(session: &CaseSession) -> (String, String) {
    let snapshot = session.snapshot();
    let case = snapshot.case.as_ref().expect("a case");
    let row = case.current.expect("the file list marks the file shown");
    (
        case.files[row].path.clone(),
        String::from_utf8_lossy(&snapshot.best).into_owned(),
    )
}

/// The size of the file at `path` in the set now, as the file list tells it.
fn size_of(session: &CaseSession, path: &str) -> usize {
    let snapshot = session.snapshot();
    let case = snapshot.case.as_ref().expect("a case");
    case.files
        .iter()
        .find(|row| row.path == path)
        .map_or(0, |row| row.bytes)
}

/// The content of `path` in `files`.
fn content_of<'a>(files: &'a [(String, String)], path: &str) -> &'a str {
    files
        .iter()
        .find(|(name, _)| name == path)
        .map_or("", |(_, content)| content.as_str())
}

/// Once the case is done the commands of a file's session apply to the file shown, and each
/// that changes what is reduced runs the set again, the result directory keeping the smallest
/// set found: a switch of its pipeline, a restart from the start of its last session with a
/// pin, an undo, an edit; what cannot apply is refused with the reason.
#[test]
fn a_done_case_is_steered_like_a_file_and_reduced_again() {
    let dir = tempfile::tempdir().unwrap();
    let output = dir.path().join("out");
    let session = start_case_writing(
        SessionOptions {
            exit_when_done: false,
            start_in_step_mode: false,
            start_paused: false,
        },
        "ddmin:line".parse().unwrap(),
        Some(&output),
    );
    events_until_done(&session);
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
    let other = if path == "a.txt" { "b.txt" } else { "a.txt" };
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

/// The next event that is not a test's, a candidate's or a stage's (the answer to a command).
fn answer(session: &CaseSession) -> Event {
    std::iter::from_fn(|| session.events().recv_timeout(PATIENCE).ok())
        .find(|event| {
            matches!(
                event,
                Event::CommandRejected { .. } | Event::Notice { .. } | Event::Restarted { .. }
            )
        })
        .expect("an answer to the command")
}

/// A done case writing its result to a directory, with the line pipeline.
fn done_case_writing(output: &std::path::Path) -> CaseSession {
    let session = start_case_writing(
        SessionOptions {
            exit_when_done: false,
            start_in_step_mode: false,
            start_paused: false,
        },
        "ddmin:line".parse().unwrap(),
        Some(output),
    );
    events_until_done(&session);
    session
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
    let other = if first == "a.txt" { "b.txt" } else { "a.txt" };
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

/// Folds the engine's events into the app until `until` holds of one of them (or `PATIENCE`
/// passes), then refreshes and draws: the screen.
fn fold_until(
    session: &CaseSession,
    app: &mut App,
    terminal: &mut Terminal<TestBackend>,
    until: impl Fn(&Event) -> bool,
) -> String {
    let deadline = Instant::now() + PATIENCE;
    loop {
        let left = deadline.saturating_duration_since(Instant::now());
        let event = session
            .events()
            .recv_timeout(left)
            .expect("the engine answered");
        let found = until(&event);
        app.on_engine_event(event);
        if found {
            break;
        }
    }
    app.refresh();
    terminal.draw(|frame| app.draw(frame)).unwrap();
    terminal.backend().to_string()
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
    let other = if first == "a.txt" { "b.txt" } else { "a.txt" };
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

/// The Configuration pane's first line on `screen`.
fn configuration_line(screen: &str) -> String {
    let lines: Vec<&str> = screen.lines().collect();
    let top = lines
        .iter()
        .position(|line| line.contains("Configuration"))
        .expect("a Configuration pane");
    let column = lines[top]
        .chars()
        .collect::<String>()
        .find("Configuration")
        .map(|at| lines[top][..at].chars().count() - 2)
        .unwrap_or(0);
    lines[top + 1]
        .chars()
        .skip(column + 1)
        .collect::<String>()
        .trim_end_matches(['"', ' ', '│', '┃'])
        .trim()
        .to_string()
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
    let other = if first == "a.txt" { "b.txt" } else { "a.txt" };
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
