//! Measures the terminal UI against a zero-cost in-process test that produces events as fast
//! as the engine can: frames drawn per second, the delay from a key to the screen showing it,
//! and the engine's test rate with the UI on versus headless.
//!
//! Run it in a terminal (e.g. a tmux pane):
//! `cargo run --release --example tui_bench -- tui 2>tui.txt` and `... -- headless 2>h.txt`
//! (the results go to stderr; stdout is the UI).

use std::sync::Arc;
use std::time::{Duration, Instant};

use ratatui::crossterm::event::{Event as TerminalEvent, KeyCode, KeyEvent, KeyModifiers};
use whittle::tui::{App, AppOptions, Message, SystemClock, Theme};
use whittle_core::engine::job::Job;
use whittle_core::engine::pipeline::{Pipeline, Settings};
use whittle_core::engine::session::{Session, SessionOptions};
use whittle_core::exec::cache::{CacheKind, CachePolicy};
use whittle_core::exec::oracle::predicate;
use whittle_core::text::atoms::AtomKind;

/// The name, user and system CPU seconds in a `/proc/.../stat` line (Linux).
fn stat_seconds(stat: &str) -> Option<(String, f64, f64)> {
    let (head, rest) = stat.rsplit_once(')')?;
    let name = head.split_once('(').map_or("", |(_, n)| n).to_string();
    // Fields after the command name (which is in parentheses): utime and stime are 14 and 15.
    let fields: Vec<&str> = rest.split_whitespace().collect();
    let ticks = |i: usize| {
        fields
            .get(i)
            .and_then(|f| f.parse::<f64>().ok())
            .unwrap_or(0.0)
    };
    Some((name, ticks(11) / 100.0, ticks(12) / 100.0))
}

/// User and system CPU seconds of this process so far (Linux).
fn cpu_seconds() -> (f64, f64) {
    let stat = std::fs::read_to_string("/proc/self/stat").unwrap_or_default();
    stat_seconds(&stat).map_or((0.0, 0.0), |(_, user, system)| (user, system))
}

/// CPU seconds of each thread of this process (Linux), by name.
fn thread_cpu_seconds() -> Vec<(String, f64)> {
    let Ok(tasks) = std::fs::read_dir("/proc/self/task") else {
        return Vec::new();
    };
    tasks
        .flatten()
        .filter_map(|task| {
            let stat = std::fs::read_to_string(task.path().join("stat")).ok()?;
            let (name, user, system) = stat_seconds(&stat)?;
            Some((name, user + system))
        })
        .collect()
}

fn main() -> anyhow::Result<()> {
    let mode = std::env::args().nth(1).unwrap_or_else(|| "tui".into());
    let lines: usize = std::env::args()
        .nth(2)
        .and_then(|n| n.parse().ok())
        .unwrap_or(4000);
    // Interesting iff every 40th line is still there: ddmin needs many tests.
    let input: String = (0..lines).map(|i| format!("line {i}\n")).collect();
    let needed: Vec<String> = (0..lines)
        .step_by(40)
        .map(|i| format!("line {i}\n"))
        .collect();
    let oracle = predicate("every 40th line", move |c: &[u8]| {
        let text = std::str::from_utf8(c).unwrap_or("");
        needed.iter().all(|line| text.contains(line.as_str()))
    });
    let settings = Settings {
        atoms: vec![AtomKind::Line],
        jobs: 1,
        fixpoint: false,
        cache: CachePolicy {
            kind: CacheKind::None,
            ..CachePolicy::recommended()
        },
        ..Settings::default()
    };
    let settings = Settings {
        algorithm: Some(Pipeline::ddmin()),
        ..settings
    };
    let job = Job::new(input.into_bytes(), settings);
    let options = SessionOptions {
        exit_when_done: false,
        start_in_step_mode: false,
        start_paused: false,
    };
    // The key pressed every 100 ms: `d` (diff view on and off, the default) or another.
    let key_char = std::env::args()
        .nth(3)
        .and_then(|k| k.chars().next())
        .unwrap_or('d');
    let started = Instant::now();
    let session = Session::start(job, Arc::new(oracle), options)?;
    let mut loop_stats = None;
    if mode == "tui" {
        let app = App::new(
            session.commands(),
            AppOptions {
                theme: Theme::named("dark", false)?,
                input_name: "bench".into(),
                clock: Arc::new(SystemClock),
                exit_when_done: true,
                language: None,
                extension: None,
            },
        );
        // A key every 100 ms, stamped when "pressed".
        let (_, stats, _) = whittle::tui::terminal::run_with(&session, app, |sender| {
            std::thread::spawn(move || {
                loop {
                    std::thread::sleep(Duration::from_millis(100));
                    let key = KeyEvent::new(KeyCode::Char(key_char), KeyModifiers::NONE);
                    let message = Message::Terminal(TerminalEvent::Key(key), Instant::now());
                    if sender.send(message).is_err() {
                        return;
                    }
                }
            });
        })?;
        loop_stats = Some(stats);
    } else {
        // Headless: read the events as the progress display does, until the run is done.
        let mut tests = 0u64;
        for event in session.events().iter() {
            match event {
                whittle_core::observe::events::Event::CandidateJudged { .. } => tests += 1,
                whittle_core::observe::events::Event::Done { .. } => break,
                _ => {}
            }
        }
        eprintln!("headless: {tests} candidates read");
        session.send(whittle_core::engine::session::Command::Stop);
    }
    // The engine thread is still there (it was just told to stop).
    for (name, seconds) in thread_cpu_seconds() {
        eprintln!("thread {name}: {seconds:.2}s CPU");
    }
    let report = session.wait()?;
    let wall = started.elapsed();
    let (user, system) = cpu_seconds();
    eprintln!("process CPU time: {user:.2}s user + {system:.2}s system");
    let tests = report.finished.stats.tests;
    eprintln!(
        "mode {mode}: {tests} tests in {:.2}s = {:.0} tests/s (result {} bytes)",
        wall.as_secs_f64(),
        tests as f64 / wall.as_secs_f64(),
        report.finished.result.len()
    );
    if let Some(stats) = loop_stats {
        let mut latencies = stats.key_latencies.clone();
        latencies.sort();
        let median = latencies
            .get(latencies.len() / 2)
            .copied()
            .unwrap_or_default();
        eprintln!(
            "frames {} in {:.2}s = {:.1} fps; engine events {} ({:.0}/s); keys {}: median {:?}, mean {:?}, max {:?}",
            stats.frames,
            stats.duration.as_secs_f64(),
            stats.frames_per_second(),
            stats.engine_events,
            stats.engine_events as f64 / stats.duration.as_secs_f64(),
            latencies.len(),
            median,
            stats.mean_key_latency().unwrap_or_default(),
            stats.max_key_latency().unwrap_or_default(),
        );
        eprintln!(
            "frame (refresh + draw) {:?} on average; folding events in {:.2}s in all ({:.0} ns per event)",
            stats.frame_time / stats.frames.max(1) as u32,
            stats.handling_time.as_secs_f64(),
            stats.handling_time.as_nanos() as f64 / stats.engine_events.max(1) as f64,
        );
    }
    Ok(())
}
