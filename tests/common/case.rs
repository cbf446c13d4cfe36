//! A case of three text files as an in-process session with the terminal UI over it, and what
//! the case tests read of its screens, events and result directory (`tui_case`,
//! `tui_case_done`).

use std::path::PathBuf;
use std::sync::Arc;
use std::time::{Duration, Instant};

use ratatui::Terminal;
use ratatui::backend::TestBackend;
use ratatui::crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use whittle::tui::{App, AppOptions, ManualClock, Theme};
use whittle_core::bundle::{self, CaseFile};
use whittle_core::engine::case::{BinaryFiles, CaseFinished, CaseJob};
use whittle_core::engine::pipeline::{Pipeline, Settings};
use whittle_core::engine::session::{CaseSession, Command, RunState, SessionOptions, Snapshot};
use whittle_core::exec::oracle::predicate;
use whittle_core::observe::events::Event;
use whittle_core::params::ParallelMode;

use super::{PATIENCE, events_until};

pub fn file(path: &str, content: &str) -> CaseFile {
    CaseFile {
        path: PathBuf::from(path),
        mode: 0o644,
        content: content.as_bytes().to_vec(),
    }
}

/// Three text files (the test wants `keep` in a.txt and `needed` in b.txt), started with
/// `options`.
pub fn start_case(options: SessionOptions) -> CaseSession {
    start_case_writing(options, Pipeline::ddmin(), None)
}

/// The case of [`start_case`] started with `options` and `algorithm`, its result written to
/// `output`.
pub fn start_case_writing(
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
        test_text: Vec::new(),
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

pub struct Harness {
    pub session: CaseSession,
    pub app: App,
    pub terminal: Terminal<TestBackend>,
    pub done: bool,
}

impl Harness {
    /// The UI over the case of [`start_case`] in step mode; its session ends with the run.
    pub fn new() -> Harness {
        Harness::with(SessionOptions {
            exit_when_done: true,
            start_in_step_mode: true,
            start_paused: false,
        })
    }

    /// The UI over the case of [`start_case`] started with `options`.
    pub fn with(options: SessionOptions) -> Harness {
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

    pub fn drain(&mut self) -> bool {
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
    pub fn settle(&mut self) -> Snapshot {
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
    pub fn step_until(&mut self, until: impl Fn(&Snapshot) -> bool) -> Snapshot {
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

    pub fn screen(&mut self) -> String {
        self.app.refresh();
        self.terminal.draw(|frame| self.app.draw(frame)).unwrap();
        self.terminal.backend().to_string()
    }

    /// Waits for the end: the result, and the screen then.
    pub fn finish(mut self) -> (CaseFinished, String) {
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
pub fn file_list(screen: &str) -> Vec<String> {
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

/// The UI over a case session that ran to its end without a step, `exit_when_done` given to
/// both; whether the UI leaves by itself, and the events after `Done`.
pub fn run_to_the_end(exit_when_done: bool) -> (CaseSession, App, Vec<Event>) {
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

/// The events until the next end of a run (or `PATIENCE`).
pub fn events_until_done(session: &CaseSession) -> Vec<Event> {
    events_until(session.events(), |event| {
        matches!(
            event,
            Event::Done { .. } | Event::Stopped { .. } | Event::Failed { .. }
        )
    })
}

/// Steps a session in step mode (the events it sends kept in `seen`) until `until` holds of
/// its snapshot while it waits for a step.
pub fn step_session_until(
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
        seen.extend(events_until(session.events(), |event| {
            matches!(event, Event::CandidateJudged { .. })
        }));
    }
}

/// Each file of `files` as its path and its text.
pub fn named_contents(files: &[CaseFile]) -> Vec<(String, String)> {
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
pub fn on_disk(dir: &std::path::Path) -> Vec<(String, String)> {
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
pub fn shown(session: &CaseSession) -> (String, String) {
    let snapshot = session.snapshot();
    let case = snapshot.case.as_ref().expect("a case");
    let row = case.current.expect("the file list marks the file shown");
    (
        case.files[row].path.clone(),
        String::from_utf8_lossy(&snapshot.best).into_owned(),
    )
}

/// The other of the two files the case keeps (`a.txt` and `b.txt`).
pub fn other_kept(path: &str) -> &'static str {
    if path == "a.txt" { "b.txt" } else { "a.txt" }
}

/// The size of the file at `path` in the set now, as the file list tells it.
pub fn size_of(session: &CaseSession, path: &str) -> usize {
    let snapshot = session.snapshot();
    let case = snapshot.case.as_ref().expect("a case");
    case.files
        .iter()
        .find(|row| row.path == path)
        .map_or(0, |row| row.bytes)
}

/// The content of `path` in `files`.
pub fn content_of<'a>(files: &'a [(String, String)], path: &str) -> &'a str {
    files
        .iter()
        .find(|(name, _)| name == path)
        .map_or("", |(_, content)| content.as_str())
}

/// The next event that is not a test's, a candidate's or a stage's (the answer to a command).
pub fn answer(session: &CaseSession) -> Event {
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
pub fn done_case_writing(output: &std::path::Path) -> CaseSession {
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

/// Folds the engine's events into the app until `until` holds of one of them (or `PATIENCE`
/// passes), then refreshes and draws: the screen.
pub fn fold_until(
    session: &CaseSession,
    app: &mut App,
    terminal: &mut Terminal<TestBackend>,
    until: impl Fn(&Event) -> bool,
) -> String {
    for event in events_until(session.events(), until) {
        app.on_engine_event(event);
    }
    app.refresh();
    terminal.draw(|frame| app.draw(frame)).unwrap();
    terminal.backend().to_string()
}

/// The Configuration pane's first line on `screen`.
pub fn configuration_line(screen: &str) -> String {
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
