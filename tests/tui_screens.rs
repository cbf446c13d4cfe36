//! The terminal UI without a terminal: an `App` driven by keys and by the events of a real
//! session, rendered to ratatui's `TestBackend`, with snapshots of its screens. The clock is a
//! manual one and the tests run with one job, so every screen is reproducible.

use std::sync::Arc;
use std::time::{Duration, Instant};

use ratatui::Terminal;
use ratatui::backend::TestBackend;
use ratatui::crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use whittle::demo::examples;
use whittle::engine::{RunState, Session, SessionOptions};
use whittle::events::Event;
use whittle::tui::{App, AppOptions, ManualClock, Overlay, Theme};

/// How long a test waits for the engine before failing (generous: the machine may be loaded).
const PATIENCE: Duration = Duration::from_secs(60);

struct Harness {
    session: Session,
    app: App,
    terminal: Terminal<TestBackend>,
    done: bool,
}

/// A session on the built-in example `name`, in step mode, and an app over it.
fn harness(name: &str, width: u16, height: u16) -> Harness {
    let example = examples()
        .into_iter()
        .find(|e| e.name == name)
        .expect("the example exists");
    let options = SessionOptions {
        exit_when_done: false,
        start_in_step_mode: true,
    };
    let session = example.start(options).unwrap();
    let language = session.language();
    let app = App::new(
        session.commands(),
        AppOptions {
            theme: Theme::named("dark", false).unwrap(),
            input_name: format!("demo {name}"),
            clock: Arc::new(ManualClock::new()),
            exit_when_done: false,
            language,
            extension: None,
        },
    );
    let mut harness = Harness {
        session,
        app,
        terminal: Terminal::new(TestBackend::new(width, height)).unwrap(),
        done: false,
    };
    harness.through_preflight();
    harness
}

impl Harness {
    fn feed(&mut self, event: Event) {
        if matches!(event, Event::Done { .. }) {
            self.done = true;
        }
        self.app.on_engine_event(event);
    }

    /// Feeds events until `seen` accepted one and the engine waits (or is done), then the rest.
    fn settle(&mut self, mut seen: impl FnMut(&Event) -> bool) {
        let deadline = Instant::now() + PATIENCE;
        let mut found = false;
        loop {
            while let Ok(event) = self.session.events().try_recv() {
                found |= seen(&event);
                self.feed(event);
            }
            if found && (self.done || self.session.snapshot().parked) {
                break;
            }
            assert!(Instant::now() < deadline, "the engine did not settle");
            std::thread::sleep(Duration::from_millis(2));
        }
        while let Ok(event) = self.session.events().try_recv() {
            self.feed(event);
        }
    }

    /// The input is checked before the first step (the checks take no step); waits until the
    /// engine waits for step 1.
    fn through_preflight(&mut self) {
        let deadline = Instant::now() + PATIENCE;
        loop {
            self.app.refresh();
            while let Ok(event) = self.session.events().try_recv() {
                self.feed(event);
            }
            let snapshot = self.session.snapshot();
            if snapshot.state == RunState::Running && snapshot.parked {
                break;
            }
            assert!(Instant::now() < deadline, "the input was not checked");
            std::thread::sleep(Duration::from_millis(2));
        }
        while let Ok(event) = self.session.events().try_recv() {
            self.feed(event);
        }
    }

    fn key(&mut self, code: KeyCode) {
        self.app.on_key(KeyEvent::new(code, KeyModifiers::NONE));
    }

    /// Presses `n` and waits for step `step` to be judged.
    fn step(&mut self, step: u64) {
        self.key(KeyCode::Char('n'));
        self.settle(|event| matches!(event, Event::CandidateJudged { step: s, .. } if *s == step));
    }

    fn screen(&mut self) -> String {
        self.app.refresh();
        self.terminal.draw(|frame| self.app.draw(frame)).unwrap();
        self.terminal.backend().to_string()
    }
}

#[test]
fn start_screen() {
    let mut h = harness("table-4.1", 120, 36);
    let screen = h.screen();
    assert!(screen.contains("STEP MODE"), "{screen}");
    assert!(screen.contains("12345"), "{screen}");
    insta::assert_snapshot!("start", screen);
}

#[test]
fn table_4_1_walk_through() {
    let mut h = harness("table-4.1", 120, 36);
    h.step(1);
    let screen = h.screen();
    // Step 1 tests ∇2/2, "12" (backward complements): not interesting.
    assert!(screen.contains("step 1 ∇2/2 “12”"), "{screen}");
    assert!(screen.contains("✓ not interesting (test)"), "{screen}");
    insta::assert_snapshot!("step_01", screen);

    for step in 2..=4 {
        h.step(step);
    }
    let screen = h.screen();
    // Step 4: "1245" (∇3/4 removed "3") is interesting: reduce to complement.
    assert!(screen.contains("“1245”"), "{screen}");
    assert!(screen.contains("✗ interesting (test)"), "{screen}");
    assert!(screen.contains("▶ reduce to complement"), "{screen}");
    insta::assert_snapshot!("step_04", screen);

    for step in 5..=6 {
        h.step(step);
    }
    let screen = h.screen();
    assert!(screen.contains("step 6 ∇1/3 “245”"), "{screen}");
    assert!(screen.contains("✗ interesting (test)"), "{screen}");
    insta::assert_snapshot!("step_06", screen);

    for step in 7..=11 {
        h.step(step);
    }
    let screen = h.screen();
    // Step 10 came from the cache; step 11 ("4") ends it: "24" is 1-minimal.
    assert!(screen.contains("cache"), "{screen}");
    assert!(screen.contains("step 11 ∇1/2 “4”"), "{screen}");
    assert!(screen.contains("✓ not interesting (test)"), "{screen}");
    assert!(screen.contains("▶ done"), "{screen}");
    assert!(screen.contains("DONE"), "{screen}");
    assert_eq!(&*h.app.snapshot().best, b"24");
    insta::assert_snapshot!("step_11", screen);
}

#[test]
#[cfg_attr(
    not(feature = "lang-json"),
    ignore = "needs the JSON grammar (cargo feature lang-json)"
)]
fn pinned_node() {
    let mut h = harness("json-87", 120, 36);
    h.screen();
    // Down the tree (the object, its `{`, the first pair) and pin the pair.
    for code in [KeyCode::Down, KeyCode::Down, KeyCode::Down] {
        h.key(code);
        h.screen();
    }
    h.key(KeyCode::Char('p'));
    h.settle(|event| matches!(event, Event::PinsChanged { .. }));
    let screen = h.screen();
    assert!(screen.contains("[pin]"), "{screen}");
    assert_eq!(h.app.snapshot().pins.len(), 1);
    let pin = h.app.snapshot().pins[0].clone();
    assert_eq!(&h.app.snapshot().best[pin], b"\"foo\": \"bar\"");
    insta::assert_snapshot!("pinned", screen);

    // Run to the end: the pinned pair survives.
    h.key(KeyCode::Char(' '));
    h.settle(|event| matches!(event, Event::Done { .. }));
    h.screen();
    let best = String::from_utf8_lossy(&h.app.snapshot().best).into_owned();
    assert!(best.len() < 40, "{best}");
    assert!(best.contains("\"foo\": \"bar\""), "{best}");
    assert!(best.contains("87"), "{best}");
}

#[test]
fn algorithm_picker() {
    let mut h = harness("table-4.1", 120, 36);
    h.key(KeyCode::Char('a'));
    h.key(KeyCode::Down);
    assert!(matches!(
        h.app.overlay(),
        Some(Overlay::Picker { selected: 1 })
    ));
    let screen = h.screen();
    assert!(screen.contains("ddmin:line"), "{screen}");
    insta::assert_snapshot!("picker", screen);
    h.key(KeyCode::Esc);
    assert!(h.app.overlay().is_none());
}

#[test]
fn help_overlay() {
    let mut h = harness("table-4.1", 120, 36);
    h.key(KeyCode::Char('?'));
    let screen = h.screen();
    for (key, _) in whittle::tui::KEYS {
        assert!(screen.contains(key), "the help lists {key}\n{screen}");
    }
    insta::assert_snapshot!("help", screen);
    h.key(KeyCode::Char('?'));
    assert!(h.app.overlay().is_none());
}

#[test]
fn narrow_terminal() {
    let mut h = harness("table-4.1", 100, 30);
    for step in 1..=4 {
        h.step(step);
    }
    let screen = h.screen();
    for title in [
        "Tree",
        "Lines",
        "Test case",
        "Configuration",
        "Statistics",
        "Size",
        "Test output",
        "History",
    ] {
        if title == "Tree" {
            continue;
        }
        assert!(screen.contains(title), "{title} is shown\n{screen}");
    }
    insta::assert_snapshot!("narrow", screen);
}

#[test]
fn space_runs_step_mode_to_the_end() {
    let mut h = harness("json-87", 120, 36);
    h.key(KeyCode::Char(' '));
    h.settle(|event| matches!(event, Event::Done { .. }));
    let screen = h.screen();
    assert!(screen.contains("DONE"), "{screen}");
    assert_eq!(String::from_utf8_lossy(&h.app.snapshot().best), "87");
}

/// The line of the screen with the tree cursor (`>`), if any.
fn selected_line(screen: &str) -> Option<&str> {
    // Each line of the rendered buffer is quoted.
    screen
        .lines()
        .find(|line| line.trim_start_matches('"').starts_with("┃>"))
}

#[test]
#[cfg_attr(
    not(feature = "lang-c"),
    ignore = "needs the C grammar (cargo feature lang-c)"
)]
fn hoisting_through_the_tree() {
    let mut h = harness("hello-hoist", 120, 36);
    let mut screen = h.screen();
    // Walk down the tree, opening closed nodes, to the if statement.
    for _ in 0..60 {
        match selected_line(&screen) {
            Some(line) if line.contains("if_statement") => break,
            Some(line) if line.contains('▸') => h.key(KeyCode::Right),
            _ => h.key(KeyCode::Down),
        }
        screen = h.screen();
    }
    assert!(
        selected_line(&screen).is_some_and(|l| l.contains("if_statement")),
        "{screen}"
    );
    h.key(KeyCode::Char('h'));
    let Some(Overlay::Hoist { choices, .. }) = h.app.overlay().cloned() else {
        panic!("the hoist picker is open");
    };
    let target = choices
        .iter()
        .position(|(_, label)| label.starts_with("expression_statement"))
        .expect("the printf statement is offered");
    let screen = h.screen();
    assert!(screen.contains("Hoist to"), "{screen}");
    for _ in 0..target {
        h.key(KeyCode::Down);
    }
    h.key(KeyCode::Enter);
    h.settle(|event| matches!(event, Event::ManualEdit { accepted: true, .. }));
    h.screen();
    // The dissertation's result (Fig 7.2): 42 → 35 non-whitespace characters.
    let best = String::from_utf8_lossy(&h.app.snapshot().best).into_owned();
    let solid: String = best.chars().filter(|c| !c.is_whitespace()).collect();
    assert_eq!(solid, "intmain(){printf(\"Helloworld!\\n\");}", "{best}");
    assert_eq!(solid.chars().count(), 35);
}

#[test]
fn history_view_and_restart() {
    let mut h = harness("table-4.1", 120, 36);
    for step in 1..=4 {
        h.step(step);
    }
    h.screen();
    assert_eq!(h.app.snapshot().history.len(), 2);
    // Tab to the history, up to the input, Enter shows it.
    h.key(KeyCode::Tab);
    h.key(KeyCode::Tab);
    h.key(KeyCode::Up);
    h.key(KeyCode::Enter);
    let screen = h.screen();
    assert!(screen.contains("history #0"), "{screen}");
    assert!(screen.contains("12345"), "{screen}");
    // R restarts from it.
    h.key(KeyCode::Char('R'));
    h.settle(|event| matches!(event, Event::Restarted { from: 0, .. }));
    let screen = h.screen();
    assert_eq!(&*h.app.snapshot().best, b"12345");
    assert!(screen.contains("restart"), "{screen}");
}

#[test]
fn keys_steer_the_session() {
    let mut h = harness("table-4.1", 120, 36);
    h.key(KeyCode::Char('+'));
    h.key(KeyCode::Char('+'));
    h.key(KeyCode::Char('J'));
    h.screen();
    let snapshot = h.app.snapshot();
    assert_eq!(snapshot.split_factor.to_string(), "4");
    assert_eq!(snapshot.jobs, 2);
    h.key(KeyCode::Char('-'));
    h.key(KeyCode::Char('j'));
    h.screen();
    assert_eq!(h.app.snapshot().split_factor.to_string(), "3");
    assert_eq!(h.app.snapshot().jobs, 1);
    // r proposes removing the selected line: "12345" alone is the only line, and the empty
    // file is not interesting, so it is rejected.
    h.key(KeyCode::Char('r'));
    h.settle(|event| {
        matches!(
            event,
            Event::ManualEdit {
                accepted: false,
                ..
            }
        )
    });
    let screen = h.screen();
    assert!(screen.contains("rejected"), "{screen}");
    // d shows the diff view, s skips the stage (the only one): the run is done.
    h.key(KeyCode::Char('d'));
    assert!(h.screen().contains("Diff"));
    h.key(KeyCode::Char('s'));
    let mut skipped = false;
    h.settle(|event| {
        skipped |= matches!(event, Event::StageSkipped { .. });
        matches!(event, Event::Done { .. })
    });
    assert!(skipped);
    let screen = h.screen();
    assert!(screen.contains("DONE"), "{screen}");
    assert_eq!(&*h.app.snapshot().best, b"12345", "nothing was reduced");
    // q quits.
    h.key(KeyCode::Char('q'));
    assert!(h.app.should_quit());
}

#[test]
#[cfg_attr(
    not(feature = "lang-json"),
    ignore = "needs the JSON grammar (cargo feature lang-json): the tree pane shows no line text"
)]
fn mouse_focuses_selects_and_scrolls() {
    use ratatui::crossterm::event::{Event as TerminalEvent, MouseEvent, MouseEventKind};
    let mouse = |kind, column, row| {
        TerminalEvent::Mouse(MouseEvent {
            kind,
            column,
            row,
            modifiers: KeyModifiers::NONE,
        })
    };
    let mut h = harness("json-87", 120, 36);
    let screen = h.screen();
    let row_of = |screen: &str, text: &str| {
        screen
            .lines()
            .position(|line| line.contains(text))
            .unwrap_or_else(|| panic!("{text} is shown\n{screen}")) as u16
    };
    // A click on the history pane focuses it (its title then lists its keys).
    let history_row = row_of(&screen, "History 1");
    let history_column = screen
        .lines()
        .nth(history_row as usize)
        .unwrap()
        .find("History")
        .unwrap();
    let column = screen.lines().nth(history_row as usize).unwrap()[..history_column]
        .chars()
        .count() as u16;
    h.app.on_terminal_event(mouse(
        MouseEventKind::Down(ratatui::crossterm::event::MouseButton::Left),
        column,
        history_row + 1,
    ));
    let screen = h.screen();
    assert!(screen.contains("History 1 · ⏎ view"), "{screen}");
    // The wheel over the test case scrolls it: its first line goes out of view.
    let first_line = row_of(&screen, "\"foo\": \"bar\",");
    h.app
        .on_terminal_event(mouse(MouseEventKind::ScrollDown, 40, first_line));
    let screen = h.screen();
    assert!(!screen.contains("\"foo\": \"bar\","), "{screen}");
}

/// A test that ran elsewhere (a Slurm node) says where in the output pane.
#[test]
fn the_output_pane_names_the_node_a_test_ran_on() {
    let mut h = harness("table-4.1", 160, 45);
    h.feed(Event::TestOutput {
        step: 1,
        status: whittle::oracle::TestStatus::Exited(0),
        tail: "printed on the node\n".into(),
        node: Some("node17".into()),
    });
    let screen = h.screen();
    // The pane is narrow here: its first line wraps after the status.
    assert!(screen.contains("step 1 · exit status 0 · on"), "{screen}");
    assert!(screen.contains("node17"), "{screen}");
    assert!(screen.contains("printed on the node"), "{screen}");
}
