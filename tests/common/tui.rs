//! Helpers of the tests of the terminal UI: an app drawn on a test terminal, and a session of a
//! built-in example stepped through it (`Harness`).

use std::sync::Arc;
use std::time::{Duration, Instant};

use super::PATIENCE;

use ratatui::Terminal;
use ratatui::backend::TestBackend;
use ratatui::crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use ratatui::style::Modifier;
use whittle::tui::{App, AppOptions, ManualClock, Theme};
use whittle_core::engine::demo::examples;
use whittle_core::engine::job::Job;
use whittle_core::engine::session::{RunState, Session, SessionOptions};
use whittle_core::observe::events::{CandidateKind, Event};
use whittle_core::outcome::Outcome;

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

/// A session of a built-in example in step mode and an app over it, drawn on a test terminal.
pub struct Harness {
    pub session: Session,
    pub app: App,
    pub terminal: Terminal<TestBackend>,
    /// The session's `Done` event was fed to the app.
    pub done: bool,
}

/// A session on the built-in example `name`, in step mode, and an app over it.
pub fn harness(name: &str, width: u16, height: u16) -> Harness {
    harness_with(name, width, height, 1)
}

/// Like [`harness`], with `jobs` tests at once (on the pool even though the example's tests
/// are fast).
pub fn harness_with(name: &str, width: u16, height: u16, jobs: usize) -> Harness {
    harness_on(name, width, height, |settings| settings.jobs = jobs)
}

/// Like [`harness`], with the example's settings changed by `change`.
pub fn harness_on(
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
    pub fn feed(&mut self, event: Event) {
        if matches!(event, Event::Done { .. }) {
            self.done = true;
        }
        self.app.on_engine_event(event);
    }

    /// Feeds events until `seen` accepted one and the engine waits (or is done), then the rest.
    pub fn settle(&mut self, mut seen: impl FnMut(&Event) -> bool) {
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
    pub fn through_preflight(&mut self) {
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

    pub fn key(&mut self, code: KeyCode) {
        self.app.on_key(KeyEvent::new(code, KeyModifiers::NONE));
    }

    /// Presses `n` and waits for step `step` to be judged.
    pub fn step(&mut self, step: u64) {
        self.key(KeyCode::Char('n'));
        self.settle(|event| matches!(event, Event::CandidateJudged { step: s, .. } if *s == step));
    }

    pub fn screen(&mut self) -> String {
        draw_current(&mut self.app, &mut self.terminal)
    }

    /// The text drawn struck through (what the candidate removes), in screen order.
    pub fn struck_through(&self) -> String {
        let buffer = self.terminal.backend().buffer();
        buffer
            .content()
            .iter()
            .filter(|cell| cell.modifier.contains(Modifier::CROSSED_OUT))
            .map(|cell| cell.symbol())
            .collect()
    }

    /// The text drawn as put in (a text stage's new text: bold and underlined), in screen order.
    pub fn inserted(&self) -> String {
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
    pub fn step_until_event(&mut self, mut wanted: impl FnMut(&Event) -> bool, limit: u64) {
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
    pub fn step_until(&mut self, kind: CandidateKind, outcome: Outcome, limit: u64) -> u64 {
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
pub const SIZES: [(u16, u16); 2] = [(160, 45), (80, 24)];

/// The line of the screen with the tree cursor (`>`), if any.
pub fn selected_line(screen: &str) -> Option<&str> {
    // Each line of the rendered buffer is quoted.
    screen
        .lines()
        .find(|line| line.trim_start_matches('"').starts_with("┃>"))
}

/// The text inside the pane titled `title` (its rows joined by spaces, so that a sentence the
/// pane wraps reads whole).
pub fn pane_text(screen: &str, title: &str) -> String {
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
