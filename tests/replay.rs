//! Replays of recorded runs: a trace written for a run holds what the screen needs, the replay
//! shows every step as the live run showed it, forwards and backwards, goes to a step and
//! plays at a chosen speed; `whittle replay` opens it (or prints its steps).

mod common;

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::Arc;
use std::time::{Duration, Instant};

use ratatui::Terminal;
use ratatui::backend::TestBackend;
use ratatui::crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use whittle::tui::{App, AppOptions, ManualClock, Theme};
use whittle_core::engine::job::Job;
use whittle_core::engine::replay::Replay;
use whittle_core::engine::session::Session;
use whittle_core::observe::events::Event;
use whittle_core::observe::trace::{TraceHeader, TraceWriter};

use common::tui::draw_current;
use common::{PATIENCE, demo_example, session_options};

/// Runs the built-in example `name` to its end with a replayable trace in `dir`; returns the
/// trace's path and the events of the run.
fn record(name: &str, dir: &Path) -> (PathBuf, Vec<Event>) {
    let example = demo_example(name);
    let path = dir.join(format!("{name}.jsonl"));
    let plan = example.settings.resolve();
    let header = TraceHeader {
        input_name: name.to_string(),
        pipeline: plan.pipeline.to_string(),
        language: plan.language.map(|l| l.name().to_string()),
        jobs: 1,
        stage_count: 1,
        ..TraceHeader::default()
    };
    let trace = TraceWriter::for_run(&path, header, example.input).unwrap();
    let job = Job::new(example.input.to_vec(), example.settings.clone());
    let options = session_options(true, false);
    let session = Session::start_with(job, (example.oracle)(), options, move |t| {
        t.set_trace(Some(trace))
    })
    .unwrap();
    let events: Vec<Event> = session.events().iter().collect();
    session.wait().unwrap();
    (path, events)
}

/// The options of the screens of these tests: dark, named `replay`, on `clock`.
fn app_options(
    clock: &ManualClock,
    language: Option<&'static whittle_core::tree::Language>,
) -> AppOptions {
    AppOptions {
        theme: Theme::named("dark", false).unwrap(),
        input_name: "replay".into(),
        clock: Arc::new(clock.clone()),
        exit_when_done: false,
        language,
        extension: None,
    }
}

struct Screen {
    app: App,
    terminal: Terminal<TestBackend>,
}

impl Screen {
    fn open(trace: &Path, width: u16, height: u16, clock: &ManualClock) -> Screen {
        let replay = Replay::open(trace).unwrap();
        let language = replay.language();
        let app = App::replay(replay, app_options(clock, language));
        Screen {
            app,
            terminal: Terminal::new(TestBackend::new(width, height)).unwrap(),
        }
    }

    fn key(&mut self, code: KeyCode) {
        self.app.on_key(KeyEvent::new(code, KeyModifiers::NONE));
    }

    fn draw(&mut self) -> String {
        draw_current(&mut self.app, &mut self.terminal)
    }

    fn position(&self) -> usize {
        self.app.replay_status().unwrap().position
    }
}

/// The lines of the pane titled `title` (its box, borders included).
fn pane(screen: &str, title: &str) -> Vec<String> {
    let lines: Vec<Vec<char>> = screen
        .lines()
        .map(|line| line.trim_matches('"').chars().collect())
        .collect();
    let (top, left) = lines
        .iter()
        .enumerate()
        .find_map(|(row, line)| {
            let text: String = line.iter().collect();
            let at = text.find(title)?;
            Some((row, text[..at].chars().count().saturating_sub(2)))
        })
        .unwrap_or_else(|| panic!("no pane {title}\n{screen}"));
    let width = lines[top][left..]
        .iter()
        .skip(1)
        .position(|c| matches!(c, '╮' | '┓'))
        .map_or(0, |at| at + 2);
    lines[top..]
        .iter()
        .take_while(|line| line.len() > left)
        .map(|line| line[left..(left + width).min(line.len())].iter().collect())
        .scan(false, |ended, line: String| {
            if *ended {
                return None;
            }
            *ended = line.starts_with('╰') || line.starts_with('┗');
            Some(line)
        })
        .collect()
}

#[test]
fn the_trace_holds_the_run() {
    let dir = tempfile::tempdir().unwrap();
    let (path, events) = record("table-4.1", dir.path());
    let replay = Replay::open(&path).unwrap();
    let judged = events
        .iter()
        .filter(|e| matches!(e, Event::CandidateJudged { step, .. } if *step > 0))
        .count();
    assert_eq!(replay.len(), judged, "one position per step");
    assert_eq!(replay.last_step(), 11);
    assert!(replay.is_complete());
    assert_eq!(&*replay.best_at(replay.len()), b"24");
    assert_eq!(&*replay.best_at(0), b"12345");
    // Step 4 reduced "12345" to "1245": the best changes at position 4.
    assert_eq!(&*replay.best_at(3), b"12345");
    assert_eq!(&*replay.best_at(4), b"1245");
    let history = replay.history_at(replay.len());
    let sizes: Vec<usize> = history.iter().map(|entry| entry.size).collect();
    assert_eq!(sizes, [5, 4, 3, 2]);
    // Every event of the run is in the replay, in order (the engine's test starts aside).
    // Floating-point statistics are compared by their counts (JSON keeps them to the last
    // bit or so).
    let counts = |event: &Event| match event {
        Event::Done { stats } | Event::Stopped { stats, .. } => Some(format!(
            "end: {} tests, {} checks, {} accepted, {} rounds",
            stats.tests, stats.checks, stats.accepted, stats.iterations
        )),
        _ => None,
    };
    let replayed: Vec<String> = replay
        .events_upto(replay.len())
        .into_iter()
        .map(|(event, _)| counts(&event).unwrap_or_else(|| format!("{event:?}")))
        .collect();
    let live: Vec<String> = events
        .iter()
        .filter(|e| !matches!(e, Event::TestStarted { .. }))
        .map(|event| {
            let mut event = event.clone();
            // The trace keeps no test status or node of a candidate, and its duration in seconds.
            if let Event::CandidateJudged {
                status,
                duration,
                node,
                ..
            } = &mut event
            {
                *status = None;
                *duration = Duration::from_secs_f64(duration.as_secs_f64());
                *node = None;
            }
            counts(&event).unwrap_or_else(|| format!("{event:?}"))
        })
        .collect();
    assert_eq!(replayed.len(), live.len());
    for (replayed, live) in replayed.iter().zip(&live) {
        // Durations are written in seconds (f64): compare all but them.
        let strip = |text: &str| text.split("duration").next().unwrap_or("").to_string();
        assert_eq!(strip(replayed), strip(live));
    }
}

/// Every screen of the replay is the same whether it is reached forwards or backwards, and
/// its Configuration pane is the one the live run showed at that step.
#[test]
fn replays_step_forwards_and_backwards_alike() {
    let dir = tempfile::tempdir().unwrap();
    let (path, _) = record("table-4.1", dir.path());
    let clock = ManualClock::new();
    let mut screen = Screen::open(&path, 120, 36, &clock);
    let len = screen.app.replay_status().unwrap().len;
    let mut forwards = vec![screen.draw()];
    for position in 1..=len {
        screen.key(KeyCode::Char('n'));
        assert_eq!(screen.position(), position);
        forwards.push(screen.draw());
    }
    // n at the end stays there.
    screen.key(KeyCode::Right);
    assert_eq!(screen.position(), len);
    for position in (0..len).rev() {
        if position % 2 == 0 {
            screen.key(KeyCode::Char('b'));
        } else {
            screen.key(KeyCode::Left);
        }
        assert_eq!(screen.position(), position);
        let drawn = screen.draw();
        for title in ["Configuration", "Test case", "History", "Statistics"] {
            assert_eq!(
                pane(&drawn, title),
                pane(&forwards[position], title),
                "{title} at position {position}"
            );
        }
    }
    // Step 4, as the live run showed it: the ✗ with the partition it was decided on.
    let step_4 = &forwards[4];
    assert!(step_4.contains("REPLAY"), "{step_4}");
    assert!(step_4.contains("step 4 of 11"), "{step_4}");
    assert!(step_4.contains("step 4 ∇3/4 “1245”"), "{step_4}");
    assert!(step_4.contains("▶ reduce to complement"), "{step_4}");
    let config = pane(step_4, "Configuration").join("\n");
    insta::assert_snapshot!("replay_step_4_configuration", config);
    let end = &forwards[len];
    assert!(end.contains("DONE") || end.contains("the end"), "{end}");
    assert!(end.contains("1 24"), "the result\n{end}");
}

#[test]
fn the_live_run_and_its_replay_show_the_same_configuration() {
    let dir = tempfile::tempdir().unwrap();
    let (path, _) = record("table-4.1", dir.path());
    let clock = ManualClock::new();
    let mut replay = Screen::open(&path, 120, 36, &clock);
    // The same example live, in step mode.
    let session = demo_example("table-4.1")
        .start(session_options(false, true))
        .unwrap();
    let mut live = App::new(session.commands(), app_options(&clock, None));
    let mut terminal = Terminal::new(TestBackend::new(120, 36)).unwrap();
    let settle = |live: &mut App, step: u64| {
        let deadline = Instant::now() + PATIENCE;
        let mut seen = step == 0;
        loop {
            while let Ok(event) = session.events().try_recv() {
                seen |= matches!(&event, Event::CandidateJudged { step: s, .. } if *s == step);
                live.on_engine_event(event);
            }
            let snapshot = session.snapshot();
            if seen
                && (snapshot.parked
                    || snapshot.state == whittle_core::engine::session::RunState::Done)
            {
                break;
            }
            assert!(Instant::now() < deadline, "the engine did not settle");
            std::thread::sleep(Duration::from_millis(2));
        }
        while let Ok(event) = session.events().try_recv() {
            live.on_engine_event(event);
        }
    };
    settle(&mut live, 0);
    for step in 1..=11u64 {
        live.on_key(KeyEvent::new(KeyCode::Char('n'), KeyModifiers::NONE));
        settle(&mut live, step);
        live.refresh();
        terminal.draw(|frame| live.draw(frame)).unwrap();
        let live_screen = terminal.backend().to_string();
        replay.key(KeyCode::Char('n'));
        let replay_screen = replay.draw();
        // The replay knows the recorded run's time (and so an ETA); the live run here has a
        // clock that stands still.
        let without_eta = |lines: Vec<String>| -> Vec<String> {
            lines
                .into_iter()
                .map(|line| {
                    line.split(" · ET")
                        .next()
                        .unwrap_or("")
                        .trim_end()
                        .to_string()
                })
                .map(|line| line.trim_end_matches('│').trim_end().to_string())
                .collect()
        };
        assert_eq!(
            without_eta(pane(&replay_screen, "Configuration")),
            without_eta(pane(&live_screen, "Configuration")),
            "step {step}\n{live_screen}\n{replay_screen}"
        );
    }
}

#[test]
#[cfg_attr(
    not(feature = "lang-c"),
    ignore = "needs the C grammar (cargo feature lang-c)"
)]
fn replays_of_tree_stages_name_their_candidates() {
    let dir = tempfile::tempdir().unwrap();
    let (path, events) = record("hello-hoist", dir.path());
    let hoisted = events
        .iter()
        .find_map(|event| match event {
            Event::CandidateJudged {
                step,
                candidate,
                outcome,
                ..
            } if candidate.kind == whittle_core::observe::events::CandidateKind::Hoist
                && outcome.is_interesting() =>
            {
                Some(*step)
            }
            _ => None,
        })
        .expect("a hoist was kept");
    let clock = ManualClock::new();
    let mut screen = Screen::open(&path, 160, 45, &clock);
    // g, the step, Enter.
    screen.key(KeyCode::Char('g'));
    for digit in hoisted.to_string().chars() {
        screen.key(KeyCode::Char(digit));
    }
    screen.key(KeyCode::Enter);
    let drawn = screen.draw();
    assert!(
        drawn.contains(&format!("step {hoisted} hoist at 1:12")),
        "{drawn}"
    );
    assert!(
        drawn.contains("`{ if (1) {...} }` → `{ printf(...); }`"),
        "{drawn}"
    );
    // The step before: the first hoist tried, marked in the tree.
    screen.key(KeyCode::Char('b'));
    screen.key(KeyCode::Char(']'));
    screen.key(KeyCode::Char(']'));
    let drawn = screen.draw();
    assert!(drawn.contains("[replaced]"), "{drawn}");
    assert!(drawn.contains("[replaces it]"), "{drawn}");
    // Home and End.
    screen.key(KeyCode::End);
    assert_eq!(screen.position(), screen.app.replay_status().unwrap().len);
    screen.key(KeyCode::Home);
    assert_eq!(screen.position(), 0);
}

#[test]
fn replays_play_at_the_chosen_speed() {
    let dir = tempfile::tempdir().unwrap();
    let (path, _) = record("table-4.1", dir.path());
    let clock = ManualClock::new();
    let mut screen = Screen::open(&path, 120, 36, &clock);
    screen.app.play(2.0);
    assert_eq!(screen.app.replay_status().unwrap().playing, Some(2.0));
    screen.draw();
    assert_eq!(screen.position(), 0);
    clock.advance(Duration::from_millis(1600));
    let drawn = screen.draw();
    assert_eq!(screen.position(), 3, "two steps a second for 1.6 s");
    assert!(drawn.contains("REPLAY ▶ 2 steps/s"), "{drawn}");
    // Faster: 5 steps a second.
    screen.key(KeyCode::Char('+'));
    clock.advance(Duration::from_millis(1000));
    screen.draw();
    assert_eq!(screen.position(), 8);
    // Space pauses.
    screen.key(KeyCode::Char(' '));
    clock.advance(Duration::from_secs(5));
    screen.draw();
    assert_eq!(screen.position(), 8);
    // Playing stops at the end.
    screen.key(KeyCode::Char(' '));
    clock.advance(Duration::from_secs(60));
    screen.draw();
    assert_eq!(screen.position(), 11);
    assert_eq!(screen.app.replay_status().unwrap().playing, None);
    // Keys that would change the run only say they cannot.
    screen.key(KeyCode::Char('p'));
    let drawn = screen.draw();
    assert!(drawn.contains("this is a replay"), "{drawn}");
}

fn whittle() -> Command {
    Command::new(env!("CARGO_BIN_EXE_whittle"))
}

#[test]
fn whittle_replay_prints_the_steps_of_a_recorded_run() {
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("in.txt");
    std::fs::write(&input, "a\nkeep\nb\nc\n").unwrap();
    let trace = dir.path().join("trace.jsonl");
    let output = whittle()
        .arg("reduce")
        .arg(&input)
        .arg("--trace")
        .arg(&trace)
        .args(["-j", "1", "--", "grep", "-q", "keep"])
        .output()
        .unwrap();
    assert!(output.status.success(), "{output:?}");
    let replayed = whittle()
        .arg("replay")
        .arg(&trace)
        .arg("--no-tui")
        .output()
        .unwrap();
    assert!(replayed.status.success(), "{replayed:?}");
    let text = String::from_utf8_lossy(&replayed.stdout);
    assert!(text.contains("replay of in.txt (11 bytes)"), "{text}");
    // The symbols of the outcomes are explained before the steps that use them.
    let legend = text.lines().nth(1).unwrap_or_default();
    assert!(
        legend.contains("✗ interesting") && legend.contains("✓ not interesting"),
        "{text}"
    );
    assert!(text.contains("-- stage ddmin line"), "{text}");
    assert!(text.contains("reduce to"), "{text}");
    let replay = Replay::open(&trace).unwrap();
    assert_eq!(
        &*replay.best_at(replay.len()),
        std::fs::read(dir.path().join("in.whittled.txt"))
            .unwrap()
            .as_slice()
    );
    // A trace cut short (the run was killed) still replays up to where it ends.
    let lines: Vec<String> = std::fs::read_to_string(&trace)
        .unwrap()
        .lines()
        .map(String::from)
        .collect();
    let cut = dir.path().join("cut.jsonl");
    std::fs::write(&cut, lines[..lines.len() - 2].join("\n")).unwrap();
    let replayed = whittle()
        .arg("replay")
        .arg(&cut)
        .arg("--no-tui")
        .output()
        .unwrap();
    assert!(replayed.status.success(), "{replayed:?}");
    assert!(
        String::from_utf8_lossy(&replayed.stdout).contains("the trace ends before the run did")
    );
    // A file that is no trace is refused with a clear message.
    let not_a_trace = dir.path().join("no.jsonl");
    std::fs::write(&not_a_trace, "{\"step\":1}\n").unwrap();
    let refused = whittle()
        .arg("replay")
        .arg(&not_a_trace)
        .arg("--no-tui")
        .output()
        .unwrap();
    assert_eq!(refused.status.code(), Some(2));
    assert!(
        String::from_utf8_lossy(&refused.stderr).contains("no replayable trace"),
        "{refused:?}"
    );
}
