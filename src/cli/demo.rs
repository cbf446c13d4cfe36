//! `whittle demo`: runs a built-in example ([`whittle_core::engine::demo`]) in the UI, or prints
//! each candidate and the result.

use std::io::IsTerminal;
use std::sync::Arc;

use super::{DemoArgs, EXIT_ERROR, EXIT_USAGE};
use crate::console::{StdoutError, errln, outln};
use whittle_core::engine::demo::{Example, examples};
use whittle_core::engine::session::SessionOptions;
use whittle_core::observe::events::Event;

/// `whittle demo`: runs an example and prints each candidate and the result.
pub fn run(args: &DemoArgs) -> anyhow::Result<i32> {
    let examples = examples();
    if args.list {
        for example in &examples {
            outln!("{:<12} {}", example.name, example.description)?;
        }
        outln!("\nrun one with `whittle demo --example NAME`")?;
        return Ok(0);
    }
    let Some(example) = examples.into_iter().find(|e| e.name == args.example) else {
        errln!(
            "whittle: no example named `{}` (see `whittle demo --list`)",
            args.example
        );
        return Ok(EXIT_USAGE);
    };
    if !args.no_tui && std::io::stdout().is_terminal() {
        return run_in_tui(example, &args.theme);
    }
    outln!("whittle demo: {}", example.description)?;
    outln!("input:\n{}", String::from_utf8_lossy(example.input))?;

    let options = SessionOptions {
        exit_when_done: true,
        start_in_step_mode: false,
        start_paused: false,
    };
    let session = example.start(options)?;
    let events = session.events().clone();
    let printer = std::thread::spawn(move || print_steps(events));
    let report = session.wait()?;
    // A printer that panicked said so already.
    let printed = printer.join().unwrap_or(Ok(()));
    if let Some(failure) = report.failure {
        errln!("whittle: {failure}");
        return Ok(EXIT_ERROR);
    }
    printed?;
    outln!(
        "\nresult:\n{}",
        String::from_utf8_lossy(&report.finished.result)
    )?;
    outln!("{}", crate::headless::report(&report.finished.stats))?;
    Ok(0)
}

/// Opens the UI on an example in step mode: nothing is tested until `n` (or space). An example
/// with a rival pipeline opens both runs side by side.
fn run_in_tui(example: Example, theme: &str) -> anyhow::Result<i32> {
    let theme = match crate::tui::Theme::from_environment(theme) {
        Ok(theme) => theme,
        Err(error) => {
            errln!("whittle: {error}");
            return Ok(EXIT_USAGE);
        }
    };
    if let Some(rival) = example.start_rival(step_mode()) {
        return run_side_by_side(&example, rival?, theme);
    }
    let session = example.start(step_mode())?;
    let language = session.language();
    let app = crate::tui::App::new(
        session.commands(),
        crate::tui::AppOptions {
            theme,
            input_name: format!("demo {}", example.name),
            clock: Arc::new(crate::tui::SystemClock),
            exit_when_done: false,
            language,
            extension: None,
        },
    );
    let (_, _, app) = crate::tui::terminal::run(&session, app)?;
    let result = app.snapshot().best.clone();
    drop(session);
    outln!(
        "whittle demo {}: the best result when you left:\n{}",
        example.name,
        String::from_utf8_lossy(&result)
    )?;
    Ok(0)
}

/// A session that waits for a step before each candidate, and for the user at the end.
fn step_mode() -> SessionOptions {
    SessionOptions {
        exit_when_done: false,
        start_in_step_mode: true,
        start_paused: false,
    }
}

/// Opens the example and its rival (`rival`, on the left) side by side in step mode.
fn run_side_by_side(
    example: &Example,
    rival: whittle_core::engine::session::Session,
    theme: crate::tui::Theme,
) -> anyhow::Result<i32> {
    let session = example.start(step_mode())?;
    let title = format!(
        "demo {}: the same input and test, {} and {} side by side",
        example.name,
        rival.snapshot().pipeline,
        session.snapshot().pipeline
    );
    let view = crate::tui::side_by_side::SideBySide::new(
        title,
        [
            (rival.snapshot().pipeline, rival.commands()),
            (session.snapshot().pipeline, session.commands()),
        ],
        example.input,
        theme,
    );
    crate::tui::side_by_side::run([&rival, &session], view)?;
    for (name, run) in [("left", &rival), ("right", &session)] {
        outln!(
            "whittle demo {} ({name}, {}): the best result when you left:\n{}",
            example.name,
            run.snapshot().pipeline,
            String::from_utf8_lossy(&run.snapshot().best)
        )?;
    }
    Ok(0)
}

/// Prints each step of the example as the events come. When stdout fails, the rest of the
/// events are drained (the session must not wait for a reader) and the failure is returned.
fn print_steps(events: crossbeam_channel::Receiver<Event>) -> Result<(), StdoutError> {
    let printed = print_events(&events);
    for _ in events {}
    printed
}

fn print_events(events: &crossbeam_channel::Receiver<Event>) -> Result<(), StdoutError> {
    outln!(
        "{:>5}  {:<12} {:<24} {:<6} outcome",
        "step",
        "candidate",
        "content",
        "action"
    )?;
    for event in events {
        match event {
            Event::Round { n, len, .. } => outln!("       -- {len} units in {n} chunks")?,
            Event::CandidateJudged {
                step,
                candidate,
                action,
                outcome,
                preview,
                ..
            } => outln!(
                "{step:>5}  {:<12} {:<24} {:<6} {} {}",
                candidate.describe(),
                preview.map_or_else(|| "…".to_string(), |p| format!("{p:?}")),
                action.word(),
                outcome.symbol(),
                outcome
            )?,
            Event::Accepted { size, branch, .. } => {
                outln!("       => {} ({size} bytes)", branch.describe())?
            }
            event @ (Event::Warning { .. } | Event::Notice { .. }) => {
                if let Some(line) = crate::headless::message_line(&event) {
                    errln!("{line}");
                }
            }
            _ => {}
        }
    }
    Ok(())
}
