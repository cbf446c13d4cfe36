//! The terminal UI without a terminal: an `App` driven by keys and by the events of a real
//! session, rendered to ratatui's `TestBackend`, with snapshots of its screens. The clock is a
//! manual one and the tests run with one job, so every screen is reproducible.

mod common;

use std::sync::Arc;
use std::time::{Duration, Instant};

use ratatui::Terminal;
use ratatui::backend::TestBackend;
use ratatui::crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use ratatui::style::Modifier;
use whittle::tui::{App, AppOptions, ManualClock, Overlay, Theme};
use whittle_core::engine::demo::examples;
use whittle_core::engine::job::Job;
use whittle_core::engine::session::{RunState, Session, SessionOptions};
use whittle_core::observe::events::{CandidateKind, Event};
use whittle_core::outcome::Outcome;

use common::PATIENCE;
use common::tui::draw_current;

struct Harness {
    session: Session,
    app: App,
    terminal: Terminal<TestBackend>,
    done: bool,
}

/// A session on the built-in example `name`, in step mode, and an app over it.
fn harness(name: &str, width: u16, height: u16) -> Harness {
    harness_with(name, width, height, 1)
}

/// Like [`harness`], with `jobs` tests at once (on the pool even though the example's tests
/// are fast).
fn harness_with(name: &str, width: u16, height: u16, jobs: usize) -> Harness {
    harness_on(name, width, height, |settings| settings.jobs = jobs)
}

/// Like [`harness`], with the example's settings changed by `change`.
fn harness_on(
    name: &str,
    width: u16,
    height: u16,
    change: impl FnOnce(&mut whittle_core::engine::pipeline::Settings),
) -> Harness {
    let mut example = examples()
        .into_iter()
        .find(|e| e.name == name)
        .expect("the example exists");
    change(&mut example.settings);
    let options = SessionOptions {
        exit_when_done: false,
        start_in_step_mode: true,
        start_paused: false,
    };
    let job = Job::new(example.input.to_vec(), example.settings.clone());
    let session = Session::start_with(job, (example.oracle)(), options, |t| {
        t.set_inline_below(None)
    })
    .unwrap();
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
        draw_current(&mut self.app, &mut self.terminal)
    }

    /// The text drawn struck through (what the candidate removes), in screen order.
    fn struck_through(&self) -> String {
        let buffer = self.terminal.backend().buffer();
        buffer
            .content()
            .iter()
            .filter(|cell| cell.modifier.contains(Modifier::CROSSED_OUT))
            .map(|cell| cell.symbol())
            .collect()
    }

    /// The text drawn as put in (a text stage's new text: bold and underlined), in screen order.
    fn inserted(&self) -> String {
        let buffer = self.terminal.backend().buffer();
        buffer
            .content()
            .iter()
            .filter(|cell| {
                cell.modifier
                    .contains(Modifier::BOLD | Modifier::UNDERLINED)
            })
            .map(|cell| cell.symbol())
            .collect()
    }

    /// Steps until an event `wanted` is seen (at most `limit` steps) and the engine waits.
    fn step_until_event(&mut self, mut wanted: impl FnMut(&Event) -> bool, limit: u64) {
        for step in self.app.run_model().last_step + 1..=limit {
            let mut found = false;
            self.key(KeyCode::Char('n'));
            self.settle(|event| {
                found |= wanted(event);
                matches!(event, Event::CandidateJudged { step: s, .. } if *s == step)
            });
            if found {
                return;
            }
        }
        panic!("the event did not come by step {limit}");
    }

    /// Steps until a candidate of `kind` is judged with `outcome` (at most `limit` steps);
    /// returns its step.
    fn step_until(&mut self, kind: CandidateKind, outcome: Outcome, limit: u64) -> u64 {
        let mut found = None;
        for step in self.app.run_model().last_step + 1..=limit {
            self.key(KeyCode::Char('n'));
            self.settle(|event| match event {
                Event::CandidateJudged {
                    step: s,
                    candidate,
                    outcome: o,
                    ..
                } if *s == step => {
                    if candidate.kind == kind && *o == outcome {
                        found = Some(step);
                    }
                    true
                }
                _ => false,
            });
            if let Some(step) = found {
                return step;
            }
        }
        panic!("no {kind:?} candidate was {outcome:?} by step {limit}");
    }
}

/// The two sizes every teaching screen is checked at.
const SIZES: [(u16, u16); 2] = [(160, 45), (80, 24)];

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
    // The text default's name is longer than the name column: cut there, whole when highlighted.
    let long = whittle_core::engine::pipeline::DEFAULT_TEXT_PIPELINE;
    assert!(!screen.contains(long), "{screen}");
    // Past ddmin:char, ddmin:token and the three ProbDD and CDD passes.
    for _ in 0..6 {
        h.key(KeyCode::Down);
    }
    let screen = h.screen();
    assert!(screen.contains(&format!("▶ {}…", &long[..27])), "{screen}");
    assert!(screen.contains(long), "{screen}");
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
    // Scrolled to its end: the notation, each symbol with its meaning, none cut.
    for _ in 0..40 {
        h.key(KeyCode::Down);
    }
    let screen = h.screen();
    for (symbol, meaning) in whittle::tui::NOTATION {
        assert!(
            screen.contains(&format!("{symbol:<15}{meaning}")),
            "the legend explains {symbol} whole\n{screen}"
        );
    }
    insta::assert_snapshot!("help_notation", screen);
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

/// A test that ran elsewhere (a Slurm node) says where in the output pane, on wide screens and
/// in the deck of small ones.
#[test]
fn the_output_pane_names_the_node_a_test_ran_on() {
    for (width, height) in SIZES {
        let mut h = harness("table-4.1", width, height);
        h.feed(Event::TestOutput {
            step: 1,
            status: whittle_core::exec::oracle::TestStatus::Exited(0),
            tail: "printed on the node\n".into(),
            node: Some("node17".into()),
        });
        if width < 100 {
            // Small screens show the output in the deck.
            h.key(KeyCode::Char('6'));
        }
        let screen = h.screen();
        // The wide screen's pane is narrow: its first line wraps after the status.
        assert!(screen.contains("step 1 · exit status 0 · on"), "{screen}");
        assert!(screen.contains("node17"), "{screen}");
        assert!(screen.contains("printed on the node"), "{screen}");
    }
}

/// A tree stage marks its candidate: what it removes is struck through in the test case, the
/// tree pane marks the node `[test]` and its parent `[part]`, and the cursor follows it.
#[test]
#[cfg_attr(
    not(feature = "lang-c"),
    ignore = "needs the C grammar (cargo feature lang-c)"
)]
fn tree_stage_marks_its_candidate() {
    for (width, height) in SIZES {
        let mut h = harness("hello-hoist", width, height);
        h.step(1);
        h.step(2);
        if width < 100 {
            // Small screens show the tree in the deck.
            h.key(KeyCode::Char('4'));
        }
        let screen = h.screen();
        // Step 2 keeps the declarator of `main` and tests removing its body (HDD^r, depth 1).
        assert!(screen.contains("step 2 Δ1/2"), "{screen}");
        // The set's line wraps on a narrow pane: nothing of it is cut.
        assert!(
            pane_text(&screen, "Configuration").contains("children of function_definition at 1:1"),
            "{screen}"
        );
        if width >= 100 {
            assert!(
                screen.contains("children of function_definition at 1:1"),
                "{screen}"
            );
        }
        let current = h.app.run_model().current.clone().unwrap();
        let best = h.app.snapshot().best.clone();
        let body = &best[current.removed[0].clone()];
        assert!(body.starts_with(b"{") && body.ends_with(b"}"), "{body:?}");
        let struck: String = h
            .struck_through()
            .chars()
            .filter(|c| !c.is_whitespace())
            .collect();
        assert!(
            struck.contains("{⏎if(1){printf(\"Helloworld!\\n\");"),
            "the body is struck through: {struck}"
        );
        let selected = selected_line(&screen).unwrap_or_default().to_string();
        assert!(
            selected.contains("compound_statement"),
            "the cursor follows the candidate\n{screen}"
        );
        // A label wider than the pane wraps: its marks are on the lines below.
        let tree = pane_text(&screen, "Tree");
        assert!(tree.contains("compound_statement 56B [test]"), "{screen}");
        assert!(tree.contains("function_definition 67B [part]"), "{screen}");
        insta::assert_snapshot!(format!("tree_stage_{width}x{height}"), screen);
    }
}

/// The Configuration pane across a ✗: the partition the decision was made on stays with its
/// outcomes and the branch taken until the next round's first candidate.
#[test]
fn configuration_across_an_interesting_candidate() {
    for (width, height) in SIZES {
        let mut h = harness("table-4.1", width, height);
        for step in 1..=4 {
            h.step(step);
        }
        let screen = h.screen();
        // Step 4 tests ∇3/4 ("1245") of the round n = 4 of 5: interesting.
        assert!(screen.contains("step 4 ∇3/4 “1245”"), "{screen}");
        assert!(screen.contains("n = 4 of 5"), "{screen}");
        assert!(screen.contains("▶ reduce to complement"), "{screen}");
        let complements = screen
            .lines()
            .find(|line| line.contains("∇i "))
            .unwrap_or_default()
            .to_string();
        let outcomes: Vec<&str> = complements
            .split_whitespace()
            .filter(|word| ["✓", "✗", "·"].contains(word))
            .collect();
        assert_eq!(outcomes, ["·", "·", "✗", "✓"], "{screen}");
        insta::assert_snapshot!(format!("decision_{width}x{height}"), screen);
        // The next candidate belongs to the next round (n = 3 of 4): it is shown from then on.
        h.step(5);
        let screen = h.screen();
        assert!(screen.contains("n = 3 of 4"), "{screen}");
        assert!(!screen.contains("▶ reduce to complement"), "{screen}");
        assert!(screen.contains("step 5 ∇2/3 “145”"), "{screen}");
    }
}

/// A hoist is named by its code and place, the tree marks the node and its descendant, and
/// the decision says what was hoisted.
#[test]
#[cfg_attr(
    not(feature = "lang-c"),
    ignore = "needs the C grammar (cargo feature lang-c)"
)]
fn hoist_with_its_label() {
    for (width, height) in SIZES {
        let mut h = harness("hello-hoist", width, height);
        // The first hoist tried: `main()` by `main` (not interesting); the tree marks both.
        let step = h.step_until(CandidateKind::Hoist, Outcome::NotInteresting, 40);
        if width < 100 {
            h.key(KeyCode::Char('4'));
        } else {
            // A wider tree pane, for the marks.
            h.key(KeyCode::Char(']'));
            h.key(KeyCode::Char(']'));
        }
        let screen = h.screen();
        assert!(
            screen.contains(&format!("step {step} hoist at 1:5")),
            "{screen}"
        );
        assert!(screen.contains("`main()` → `main`"), "{screen}");
        assert!(
            screen.contains("function_declarator 6B [replaced]"),
            "{screen}"
        );
        assert!(
            screen.contains("identifier `main` 4B [replaces it]"),
            "{screen}"
        );
        insta::assert_snapshot!(format!("hoist_tried_{width}x{height}"), screen);
        // The next one is interesting: the body's block takes the place of the outer block.
        let step = h.step_until(CandidateKind::Hoist, Outcome::Interesting, 40);
        let screen = h.screen();
        assert!(
            screen.contains(&format!("step {step} hoist at 1:12")),
            "the hoist is named by its place\n{screen}"
        );
        assert!(screen.contains("→ `{"), "and what it does\n{screen}");
        assert!(screen.contains("▶ hoist"), "{screen}");
        assert!(screen.contains("✗ interesting"), "{screen}");
        if width >= 100 {
            assert!(
                screen.contains("`{ if (1) {...} }` → `{ printf(...); }`"),
                "{screen}"
            );
        }
        for internal in ["NodeId", "node 1", "χ3", "Hoist {"] {
            assert!(!screen.contains(internal), "{internal}\n{screen}");
        }
        insta::assert_snapshot!(format!("hoist_{width}x{height}"), screen);
    }
}

/// Step mode with two jobs: each `n` judges exactly one candidate, and the screen shows its
/// outcome (no candidate stays "testing…").
#[test]
fn step_mode_with_two_jobs() {
    for (width, height) in SIZES {
        let mut h = harness_with("table-4.1", width, height, 2);
        for step in 1..=4 {
            let before = h.app.run_model().log.len();
            h.step(step);
            let judged = h.app.run_model().log.len() - before;
            assert_eq!(judged, 1, "step {step} judged {judged} candidates");
            let screen = h.screen();
            assert!(!screen.contains("testing…"), "{screen}");
            assert!(screen.contains(&format!("step {step} ∇")), "{screen}");
        }
        let screen = h.screen();
        assert!(screen.contains("jobs 2"), "{screen}");
        assert!(screen.contains("✗ interesting (test)"), "{screen}");
        assert_eq!(&*h.app.snapshot().best, b"1245");
        insta::assert_snapshot!(format!("two_jobs_{width}x{height}"), screen);
    }
}

/// 80×24: the state, `? help` and `q quit` are on screen; the steps table and the cache line
/// are one key away.
#[test]
fn small_screens_keep_the_essentials() {
    let mut h = harness("table-4.1", 80, 24);
    for step in 1..=3 {
        h.step(step);
    }
    let screen = h.screen();
    assert!(screen.contains("STEP MODE"), "{screen}");
    assert!(screen.contains("? help q quit"), "{screen}");
    assert!(screen.contains("Configuration"), "{screen}");
    assert!(screen.contains("1 Steps"), "{screen}");
    assert!(
        screen.contains("   3 ∇4/4"),
        "the steps table shows\n{screen}"
    );
    h.key(KeyCode::Char('2'));
    let screen = h.screen();
    assert!(screen.contains("cache    "), "{screen}");
    assert!(screen.contains("tests    3"), "{screen}");
    insta::assert_snapshot!("small_statistics", screen);
    h.key(KeyCode::Char('?'));
    let screen = h.screen();
    assert!(screen.contains("↑ ↓ scroll"), "{screen}");
}

/// The C example under a schedule of nine stages (the default for C before its structure
/// stages: the screens below are about a schedule, not about the default).
fn scheduled_hello(width: u16, height: u16) -> Harness {
    harness_on("hello-hoist", width, height, |settings| {
        settings.algorithm =
            "(coarse-hddhr-sweep+hddhr-sweep+replace+inline+ddmin:line+brackets+tokens+rename+indent)*"
                .parse()
                .ok();
    })
}

/// Step by step, the default pipeline for C runs to its end: every stage parks before each
/// test it runs.
#[test]
#[cfg_attr(
    not(feature = "lang-c"),
    ignore = "needs the C grammar (cargo feature lang-c)"
)]
fn stepping_through_the_default_for_c_reaches_the_end() {
    let mut h = harness_on("hello-hoist", 160, 45, |settings| {
        settings.algorithm = whittle_core::engine::pipeline::DEFAULT_TREE_PIPELINE
            .parse()
            .ok();
    });
    h.step_until_event(|event| matches!(event, Event::Done { .. }), 400);
}

/// A stage of a schedule says where it is in the schedule and in which round, not "stage 1/1".
#[test]
#[cfg_attr(
    not(feature = "lang-c"),
    ignore = "needs the C grammar (cargo feature lang-c)"
)]
fn the_schedule_line() {
    let mut h = scheduled_hello(160, 45);
    // Steps until the Configuration pane shows a candidate of the third stage.
    let mut step = h.app.run_model().last_step;
    while h
        .app
        .run_model()
        .view
        .scheduled
        .is_none_or(|p| p.stage != 2)
    {
        step += 1;
        assert!(step < 400, "the third stage did not come");
        h.step(step);
    }
    let screen = h.screen();
    assert!(
        screen.contains("replace · stage 3 of 9 · round 1"),
        "{screen}"
    );
    assert!(!screen.contains("stage 1/1"), "{screen}");
    insta::assert_snapshot!("schedule_stage_3_of_9", screen);
}

/// The course of a schedule: in round 2 the Statistics pane (160×45) and the Stages tab
/// (80×24, whole lines) say which stage of the round runs, the time left and what each stage
/// still to run will likely cost; the Chart pane has the size over running time beside.
#[test]
#[cfg_attr(
    not(feature = "lang-c"),
    ignore = "needs the C grammar (cargo feature lang-c)"
)]
fn the_course_of_a_schedule() {
    for (width, height) in SIZES {
        let mut h = scheduled_hello(width, height);
        h.step_until_event(
            |event| matches!(event, Event::ScheduleRound(plan) if plan.round == 2),
            400,
        );
        let summary = h
            .app
            .run_model()
            .course
            .summary(1)
            .expect("a schedule is running");
        assert!(
            summary.starts_with("round 2 · stage 1 of 9 · ETA "),
            "{summary}"
        );
        assert!(!summary.contains("not run yet"), "{summary}");
        if width < 100 {
            h.key(KeyCode::Char('3'));
        }
        let screen = h.screen();
        assert!(screen.contains(&summary), "{summary}\n{screen}");
        assert!(
            screen.contains("▸ "),
            "the stage running is marked\n{screen}"
        );
        assert!(screen.contains("by yield"), "{screen}");
        if width >= 100 {
            // The size over running time, with the sizes at 10, 25 and 50 % of it.
            assert!(
                screen.contains("Size/time 10% 41 B 25% 41 B 50% 41 B"),
                "{screen}"
            );
        }
        // Nothing of the course is cut: no line of it ends in an ellipsis.
        for line in screen.lines().filter(|line| line.contains(" t ")) {
            assert!(!line.contains('…'), "{line}");
        }
        insta::assert_snapshot!(format!("course_{width}x{height}"), screen);
    }
}

/// A rename is shown with the name it gives, in the Configuration pane and in plain words.
#[test]
#[cfg_attr(
    not(feature = "lang-c"),
    ignore = "needs the C grammar (cargo feature lang-c)"
)]
fn a_rename_shows_its_new_text() {
    let mut h = scheduled_hello(160, 45);
    h.step_until_event(
        |event| {
            matches!(event, Event::TestStarted { candidate, replacements, .. }
                if candidate.kind == CandidateKind::Edit && !replacements.is_empty())
        },
        600,
    );
    let screen = h.screen();
    let current = h.app.run_model().current.clone().expect("a candidate");
    assert_eq!(current.candidate.kind, CandidateKind::Edit);
    assert!(screen.contains("` → `"), "old → new\n{screen}");
    assert!(screen.contains("replacing `"), "{screen}");
    // The test case shows what is replaced struck through and, after it, the new text.
    assert!(h.struck_through().starts_with("printf"), "{screen}");
    assert_eq!(h.inserted(), "a", "{screen}");
    assert!(
        screen.contains("│2 printfa(\"Hello world!\\n\");"),
        "{screen}"
    );
    insta::assert_snapshot!("rename_step_160x45", screen);
}

/// The step under way in plain words: what the candidate removes, where, and what its outcome
/// means (✗: still fails, so the removal stays; ✓: passes, so it is put back).
#[test]
fn the_step_in_plain_words() {
    let mut h = harness("table-4.1", 160, 45);
    h.step(1);
    let screen = h.screen();
    // ∇2/2 removes "345" (3 chars): the test passes, the chars come back.
    assert!(
        screen.contains("removing 3 chars (part 2 of 2) at line 1: passes →"),
        "{screen}"
    );
    assert!(screen.contains("│put back "), "{screen}");
    for step in 2..=4 {
        h.step(step);
    }
    let screen = h.screen();
    // ∇3/4 removes "3": still fails, so it stays removed.
    assert!(
        screen.contains("removing 1 char (part 3 of 4) at line 1: still fails"),
        "{screen}"
    );
    assert!(screen.contains("│→ kept removed "), "{screen}");
    insta::assert_snapshot!("plain_words_160x45", screen);
}

/// With two jobs the tests end in any order: the steps table lists them by step, each with
/// its own outcome.
#[test]
fn two_jobs_list_steps_in_order() {
    let mut h = harness_with("table-4.1", 160, 45, 2);
    let mut model = whittle::tui::RunModel::new(5);
    let now = Instant::now();
    let judged = |step: u64, index: u32, outcome: Outcome| Event::CandidateJudged {
        step,
        candidate: whittle_core::observe::events::Candidate {
            kind: CandidateKind::Complement,
            index,
            n: 4,
        },
        size: 4,
        preview: None,
        removed: Vec::new(),
        action: whittle_core::observe::events::Action::Test,
        outcome,
        status: None,
        duration: Duration::ZERO,
        node: None,
    };
    // Step 7 ends after step 6 started and before it ended, step 8 last.
    for event in [
        judged(7, 1, Outcome::Interesting),
        judged(6, 0, Outcome::NotInteresting),
        judged(8, 2, Outcome::NotInteresting),
    ] {
        model.apply(event, now, Duration::ZERO);
    }
    let rows: Vec<(u64, Outcome)> = model.log.iter().map(|j| (j.step, j.outcome)).collect();
    assert_eq!(
        rows,
        [
            (6, Outcome::NotInteresting),
            (7, Outcome::Interesting),
            (8, Outcome::NotInteresting)
        ]
    );
    // A real run with two jobs: the table on screen is in step order.
    for step in 1..=6 {
        h.step(step);
    }
    let screen = h.screen();
    let steps: Vec<u64> = screen
        .lines()
        .filter_map(|line| {
            let table = line.rsplit('│').nth(1)?;
            let mut words = table.split_whitespace();
            let step = words.next()?.parse().ok()?;
            words
                .next()
                .filter(|w| w.starts_with('∇') || w.starts_with('Δ'))?;
            Some(step)
        })
        .collect();
    assert!(steps.len() >= 5, "{screen}");
    assert!(steps.is_sorted(), "{steps:?}\n{screen}");
    insta::assert_snapshot!("two_jobs_in_order_160x45", screen);
}

/// CDD's beliefs as a heat strip: the counters of the eight lines, the prefix the step removes
/// marked under them, its expected gain; after two failed removals every counter is 1 (hot).
#[test]
fn the_beliefs_heat_strip() {
    let mut h = harness("cdd-vs-ddmin", 160, 45);
    h.step(1);
    let screen = h.screen();
    assert!(
        screen.contains("CDD · 8 lines · heat: failed removals each was in"),
        "{screen}"
    );
    assert!(screen.contains("░░░░░░░░"), "{screen}");
    assert!(screen.contains("   ^^^^    "), "{screen}");
    assert!(
        screen.contains("remove the 4 least likely lines, expected gain 1.3"),
        "{screen}"
    );
    assert!(
        screen.contains("removing the 4 least likely lines"),
        "{screen}"
    );
    h.step(2);
    h.step(3);
    let screen = h.screen();
    assert!(screen.contains("████████"), "{screen}");
    assert!(screen.contains("   ^^      "), "{screen}");
    assert!(
        screen.contains("remove the 2 least likely lines, expected gain 0.7"),
        "{screen}"
    );
}

/// The text inside the pane titled `title` (its rows joined by spaces, so that a sentence the
/// pane wraps reads whole).
fn pane_text(screen: &str, title: &str) -> String {
    let rows: Vec<Vec<char>> = screen.lines().map(|row| row.chars().collect()).collect();
    // A pane has a light border, the focused one a heavy border.
    let markers: Vec<Vec<char>> = ["╭", "┏"]
        .map(|corner| format!("{corner} {title}").chars().collect())
        .to_vec();
    for (top, row) in rows.iter().enumerate() {
        let Some(left) = markers.iter().find_map(|marker| {
            row.windows(marker.len())
                .position(|w| w == marker.as_slice())
        }) else {
            continue;
        };
        let Some(right) = (left + 1..row.len()).find(|&column| matches!(row[column], '╮' | '┓'))
        else {
            continue;
        };
        let mut words = Vec::new();
        for inside in &rows[top + 1..] {
            if matches!(inside.get(left), Some('╰' | '┗')) || inside.len() <= right {
                break;
            }
            words.push(
                inside[left + 1..right]
                    .iter()
                    .collect::<String>()
                    .trim()
                    .to_string(),
            );
        }
        return words.join(" ");
    }
    panic!("no pane {title}\n{screen}");
}

/// The hoisting lesson: each hoist says in words which node takes the place of which node
/// around it and how much shorter the text gets; the tree marks both nodes before, and the
/// hoisted node in its new place after.
#[test]
#[cfg_attr(
    not(feature = "lang-c"),
    ignore = "needs the C grammar (cargo feature lang-c)"
)]
fn the_hoist_in_words() {
    let mut h = harness("hello-hoist", 160, 45);
    h.step_until(CandidateKind::Hoist, Outcome::NotInteresting, 40);
    let screen = h.screen();
    let words = pane_text(&screen, "Configuration");
    assert!(
        words.contains(
            "hoist the identifier at line 1 into the place of the enclosing \
             function_declarator: 3 bytes fewer: passes → put back"
        ),
        "{screen}"
    );
    let tree = pane_text(&screen, "Tree");
    assert!(
        tree.contains("function_declarator 6B [replaced]"),
        "{screen}"
    );
    assert!(
        tree.contains("identifier `main` 4B [replaces it]"),
        "{screen}"
    );
    h.step_until(CandidateKind::Hoist, Outcome::Interesting, 40);
    let screen = h.screen();
    let words = pane_text(&screen, "Configuration");
    // 68 bytes to 45: the outer block's text minus the inner one's, and the indentation the
    // hoisted block no longer needs.
    assert!(
        words.contains(
            "hoist the compound_statement at line 2 into the place of the enclosing \
             compound_statement: 23 bytes fewer: still fails → kept"
        ),
        "{screen}"
    );
    let tree = pane_text(&screen, "Tree");
    assert!(
        tree.contains("compound_statement 33B [hoisted here: was compound_statement]"),
        "after the hoist the tree marks the hoisted block in its new place\n{screen}"
    );
    insta::assert_snapshot!("hoist_in_words_160x45", screen);
}

/// HDD level by level: the Configuration pane names the level, the tree's depth, how many
/// nodes the level has, and the configuration by the kinds of its nodes.
#[test]
#[cfg_attr(
    not(feature = "lang-c"),
    ignore = "needs the C grammar (cargo feature lang-c)"
)]
fn hdd_level_by_level() {
    let mut h = harness("hdd-levels", 160, 45);
    h.step(1);
    let screen = h.screen();
    let words = pane_text(&screen, "Configuration");
    // The root alone first: its empty configuration fails.
    assert!(
        words.contains("level 0 of depth 9 · 1 node · prune"),
        "{screen}"
    );
    assert!(words.contains("c = {translation_unit}"), "{screen}");
    h.step(2);
    let screen = h.screen();
    let words = pane_text(&screen, "Configuration");
    assert!(
        words.contains("level 1 of depth 9 · 3 nodes · prune"),
        "{screen}"
    );
    // (The kinds of the level's nodes, `c = {function_definition ×3}`, are the first line the
    // pane gives up when it is short, as here.)
    insta::assert_snapshot!("hdd_level_1_160x45", screen);
    // Level 1 keeps `square` and `main`; the next level is their parts.
    h.step_until_event(
        |event| matches!(event, Event::TreeNodes { depth: 2, .. }),
        40,
    );
    // The decision on level 1 stays on screen until the first candidate of level 2.
    let next = h.app.run_model().last_step + 1;
    h.step(next);
    let screen = h.screen();
    let words = pane_text(&screen, "Configuration");
    assert!(
        words.contains("level 2 of depth 9 · 4 nodes · prune"),
        "{screen}"
    );
    assert!(
        !pane_text(&screen, "Test case").contains("unused"),
        "{screen}"
    );
    insta::assert_snapshot!("hdd_level_2_160x45", screen);
}

/// `s` in a schedule skips the stage running and the round goes on with the next one (the run
/// does not end).
#[test]
#[cfg_attr(
    not(feature = "lang-c"),
    ignore = "needs the C grammar (cargo feature lang-c)"
)]
fn skipping_a_stage_of_a_schedule_goes_on_with_the_next() {
    let mut h = scheduled_hello(160, 45);
    h.step_until_event(
        |event| matches!(event, Event::StageStarted { stage, .. } if stage == "replace"),
        300,
    );
    h.key(KeyCode::Char('s'));
    let mut seen = Vec::new();
    h.settle(|event| {
        match event {
            Event::StageSkipped { stage, reason } => {
                seen.push(format!("skipped {stage}: {reason}"))
            }
            Event::StageStarted { stage, .. } => seen.push(format!("started {stage}")),
            _ => {}
        }
        matches!(event, Event::StageStarted { stage, .. } if stage == "inline")
    });
    // `inline` finds nothing to do here; `ddmin line` is where the engine waits next.
    assert_eq!(
        seen,
        [
            "skipped replace: skipped by the user",
            "started inline",
            "started ddmin line"
        ],
        "the next stages of the round run"
    );
    let screen = h.screen();
    assert!(
        screen.contains("skipped the stage replace: skipped by the user"),
        "{screen}"
    );
    assert!(!h.done, "the run goes on");
    let next = h.app.run_model().last_step + 1;
    h.step(next);
    assert_eq!(h.app.run_model().stage, "ddmin line");
    assert!(!h.done);
}

/// With two jobs a window holds two steps of CDD: the heat strip shows the beliefs of the step
/// whose candidate the step line names (the one judged last), not the window's first.
#[test]
fn the_heat_strip_follows_the_step_judged_last_with_two_jobs() {
    use whittle_core::observe::events::{Action, BeliefStep, Candidate};
    use whittle_core::params::BeliefModel;
    // The model: two steps told, judged in the other order.
    let told = |index: u32, chosen: [bool; 4]| {
        Event::Beliefs(BeliefStep {
            model: BeliefModel::Cdd,
            step: index,
            len: 4,
            values: vec![index as f32; 4],
            settled: vec![false; 4],
            chosen: chosen.to_vec(),
            size: 2,
            gain: 0.5,
            gains: vec![(2, 0.5)],
            spans: Vec::new(),
        })
    };
    let candidate = |index: u32| Candidate {
        kind: CandidateKind::LeastLikely,
        index,
        n: 2,
    };
    let started = |step: u64, index: u32| Event::TestStarted {
        step,
        candidate: candidate(index),
        removed: Vec::new(),
        replacements: Vec::new(),
        size: 2,
    };
    let judged = |step: u64, index: u32| Event::CandidateJudged {
        step,
        candidate: candidate(index),
        size: 2,
        preview: None,
        removed: Vec::new(),
        action: Action::Test,
        outcome: Outcome::NotInteresting,
        status: None,
        duration: Duration::ZERO,
        node: None,
    };
    let mut model = whittle::tui::RunModel::new(8);
    let now = Instant::now();
    let shown = |model: &whittle::tui::RunModel| model.view.beliefs.as_ref().map(|b| b.step);
    model.apply(told(0, [true, true, false, false]), now, Duration::ZERO);
    model.apply(told(1, [false, false, true, true]), now, Duration::ZERO);
    model.apply(started(1, 0), now, Duration::ZERO);
    assert_eq!(shown(&model), Some(0));
    model.apply(started(2, 1), now, Duration::ZERO);
    assert_eq!(shown(&model), Some(1));
    model.apply(judged(2, 1), now, Duration::ZERO);
    assert_eq!(shown(&model), Some(1));
    model.apply(judged(1, 0), now, Duration::ZERO);
    assert_eq!(shown(&model), Some(0));
    // The next window (after both failed) starts at step 2: its first is announced.
    model.apply(told(2, [true, false, false, false]), now, Duration::ZERO);
    model.apply(told(3, [false, true, false, false]), now, Duration::ZERO);
    model.apply(judged(3, 3), now, Duration::ZERO);
    assert_eq!(shown(&model), Some(3));

    // A real run with two jobs: the marks under the strip are those of the step shown.
    let mut h = harness_with("cdd-vs-ddmin", 160, 45, 2);
    for step in 1..=4 {
        h.step(step);
        let screen = h.screen();
        let current = h
            .app
            .run_model()
            .current
            .clone()
            .expect("a candidate is shown");
        let step_shown = h.app.run_model().view.beliefs.as_ref().map(|b| b.step);
        assert_eq!(step_shown, Some(current.candidate.index), "{screen}");
        // Steps 0 and 1 remove a..d, then e..h; step 2 a and b (interesting); the window
        // after it starts at step 3, on the six lines left: c and d.
        let (lines, marks) = match current.candidate.index {
            0 => ("8 lines", "││   ^^^^     "),
            1 => ("8 lines", "││       ^^^^ "),
            2 => ("8 lines", "││   ^^       "),
            _ => ("6 lines", "││   ^^       "),
        };
        assert!(
            screen.contains(&format!("CDD · {lines}")) && screen.contains(marks),
            "step {step}: {marks:?}\n{screen}"
        );
    }
}

/// The lesson `cdd-vs-ddmin` side by side: ddmin (left) and CDD (right) on the same eight
/// lines with the same test, `n` stepping both; each column counts its tests, shows its best,
/// its round or heat strip, and its steps. CDD ends after 9 tests, ddmin after 15.
#[test]
fn ddmin_and_cdd_side_by_side() {
    use whittle::tui::side_by_side::SideBySide;
    let example = examples()
        .into_iter()
        .find(|e| e.name == "cdd-vs-ddmin")
        .expect("the example exists");
    let options = || SessionOptions {
        exit_when_done: false,
        start_in_step_mode: true,
        start_paused: false,
    };
    let rival = example
        .start_rival(options())
        .expect("the lesson has a rival")
        .unwrap();
    let session = example.start(options()).unwrap();
    let sessions = [&rival, &session];
    let mut view = SideBySide::new(
        "demo cdd-vs-ddmin".into(),
        [
            (rival.snapshot().pipeline, rival.commands()),
            (session.snapshot().pipeline, session.commands()),
        ],
        example.input,
        Theme::named("dark", false).unwrap(),
    );
    let pump = |view: &mut SideBySide| {
        for (column, session) in sessions.iter().enumerate() {
            while let Ok(event) = session.events().try_recv() {
                view.on_engine_event(column, event);
            }
            view.set_best(column, session.snapshot().best);
        }
    };
    // Both wait for their first step once the input is checked.
    let waiting = |session: &Session| {
        let snapshot = session.snapshot();
        snapshot.parked || matches!(snapshot.state, RunState::Done)
    };
    let deadline = Instant::now() + PATIENCE;
    while !sessions
        .iter()
        .all(|s| waiting(s) && s.snapshot().state != RunState::Checking)
    {
        assert!(Instant::now() < deadline, "the input was not checked");
        std::thread::sleep(Duration::from_millis(2));
    }
    pump(&mut view);
    let mut terminal = Terminal::new(TestBackend::new(120, 34)).unwrap();
    let mut screen_at_step_4 = String::new();
    for step in 1..=40u64 {
        if view.is_over() {
            break;
        }
        let before: Vec<usize> = (0..2).map(|c| view.model(c).log.len()).collect();
        let over: Vec<bool> = (0..2).map(|c| view.model(c).ending.is_some()).collect();
        view.on_key(KeyEvent::new(KeyCode::Char('n'), KeyModifiers::NONE));
        let deadline = Instant::now() + PATIENCE;
        loop {
            pump(&mut view);
            let settled = (0..2).all(|c| {
                over[c]
                    || view.model(c).ending.is_some()
                    || (view.model(c).log.len() > before[c] && waiting(sessions[c]))
            });
            if settled {
                break;
            }
            assert!(Instant::now() < deadline, "step {step} did not settle");
            std::thread::sleep(Duration::from_millis(2));
        }
        pump(&mut view);
        if step == 4 {
            terminal.draw(|frame| view.draw(frame)).unwrap();
            screen_at_step_4 = terminal.backend().to_string();
        }
    }
    terminal.draw(|frame| view.draw(frame)).unwrap();
    let screen = terminal.backend().to_string();
    assert!(view.is_over(), "both runs end\n{screen}");
    assert_eq!(view.counts(0).0, 15, "ddmin's tests");
    assert_eq!(view.counts(1).0, 9, "CDD's tests");
    assert_eq!(&*session.snapshot().best, b"c\nh\n");
    assert_eq!(&*rival.snapshot().best, b"c\nh\n");
    // Four steps in: each column shows its own four, ddmin its round, CDD its counters (on
    // the six lines left after its third step removed a and b).
    for wanted in [
        " ddmin:line ",
        " cdd:line ",
        "ddmin round 1: 8 lines in 2 chunks",
        "CDD · 6 lines · heat: failed removals each was in",
        "   4 ∇2/2    a⏎b⏎c⏎d⏎",
        "   4 −2 lea… e⏎f⏎g⏎h⏎",
    ] {
        assert!(
            screen_at_step_4.contains(wanted),
            "{wanted}\n{screen_at_step_4}"
        );
    }
    assert!(screen.contains("15 tests"), "{screen}");
    assert!(screen.contains("9 tests"), "{screen}");
    assert!(screen.contains("done"), "{screen}");
    insta::assert_snapshot!("side_by_side_step_4", screen_at_step_4);
    insta::assert_snapshot!("side_by_side_done", screen);
    // On 80×24 both columns and the keys still show.
    let mut small = Terminal::new(TestBackend::new(80, 24)).unwrap();
    small.draw(|frame| view.draw(frame)).unwrap();
    let screen = small.backend().to_string();
    assert!(
        screen.contains("15 tests") && screen.contains("9 tests"),
        "{screen}"
    );
    assert!(screen.contains("n step both"), "{screen}");
}
