//! The terminal UI without a terminal: an `App` driven by keys and by the events of a real
//! session, rendered to ratatui's `TestBackend`, with snapshots of its screens. The clock is a
//! manual one and the tests run with one job, so every screen is reproducible.

use std::sync::Arc;
use std::time::{Duration, Instant};

use ratatui::Terminal;
use ratatui::backend::TestBackend;
use ratatui::crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use whittle::demo::examples;
use whittle::engine::{Session, SessionOptions, StagesFactory};
use whittle::events::Event;
use whittle::reduce::{Job, ddmin_stages};
use whittle::tree::Language;
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
    let language = example
        .language
        .and_then(|n| Language::by_name(n).ok())
        .filter(|l| l.is_available());
    let settings = example.settings.clone();
    let job = Job {
        input: example.input.to_vec(),
        output: None,
        output_mode: None,
        settings: example.settings.clone(),
    };
    let stages = ddmin_stages(&settings, "ddmin").unwrap();
    let factory: StagesFactory = Box::new(move |name: &str| ddmin_stages(&settings, name));
    let options = SessionOptions {
        exit_when_done: false,
        language,
        start_in_step_mode: true,
    };
    let session = Session::start(job, (example.oracle)(), stages, factory, options).unwrap();
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
    // The input is checked before the first step; wait until the engine waits for one.
    harness.settle(|_| true);
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
    let best = String::from_utf8_lossy(&h.app.snapshot().best).into_owned();
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
fn space_pauses_and_resumes() {
    let mut h = harness("json-87", 120, 36);
    h.key(KeyCode::Char(' '));
    h.settle(|event| matches!(event, Event::Done { .. }));
    let screen = h.screen();
    assert!(screen.contains("DONE"), "{screen}");
    assert_eq!(String::from_utf8_lossy(&h.app.snapshot().best), "87");
}
