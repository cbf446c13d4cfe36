//! `whittle replay TRACE`: a recorded run in the UI (stepped forwards and backwards, played),
//! or its steps printed when there is no terminal.

use std::io::IsTerminal;
use std::sync::Arc;

use super::ReplayArgs;
use crate::console::{StdoutError, errln, outln};
use crate::tui::{App, AppOptions, SystemClock, Theme};
use whittle_core::engine::replay::Replay;
use whittle_core::observe::events::Event;

/// Runs the command; returns the exit code.
pub fn run(args: &ReplayArgs) -> anyhow::Result<i32> {
    let replay = match Replay::open(&args.trace) {
        Ok(replay) => replay,
        Err(error) => {
            errln!("whittle: {error:#}");
            return Ok(super::EXIT_USAGE);
        }
    };
    if let Some(cut) = replay.cut() {
        errln!(
            "whittle: the trace's line {} was cut ({} bytes of it were written before the run \
             was killed or the disk filled up); replaying the {} complete steps before it",
            cut.line,
            cut.bytes,
            replay.len()
        );
    }
    if args.no_tui || !std::io::stdout().is_terminal() {
        print_steps(&replay, args.at)?;
        return Ok(0);
    }
    let theme = match Theme::from_environment(&args.theme) {
        Ok(theme) => theme,
        Err(error) => {
            errln!("whittle: {error}");
            return Ok(super::EXIT_USAGE);
        }
    };
    let language = replay.language();
    let extension = std::path::Path::new(&replay.header.input_name)
        .extension()
        .map(|e| e.to_string_lossy().into_owned());
    let start = args.at.map(|step| replay.position_of_step(step));
    let input_name = format!("replay of {}", replay.header.input_name);
    let mut app = App::replay(
        replay,
        AppOptions {
            theme,
            input_name,
            clock: Arc::new(SystemClock),
            exit_when_done: false,
            language,
            extension,
        },
    );
    if let Some(position) = start {
        app.jump_to(position);
    }
    if let Some(speed) = args.play {
        app.play(speed);
    }
    crate::tui::terminal::run_alone(app)?;
    Ok(0)
}

/// The steps of a replay as lines of text, from step `from` on.
fn print_steps(replay: &Replay, from: Option<u64>) -> Result<(), StdoutError> {
    outln!(
        "replay of {} ({} bytes), pipeline {}, {} steps",
        replay.header.input_name,
        replay.input.len(),
        replay.header.pipeline,
        replay.last_step()
    )?;
    // The outcomes' symbols, as the help window explains them.
    use whittle_core::outcome::Outcome;
    let outcomes = [
        Outcome::Interesting,
        Outcome::NotInteresting,
        Outcome::Unresolved,
    ]
    .map(Outcome::symbol);
    let legend: Vec<String> = crate::tui::NOTATION
        .iter()
        .filter(|(symbol, _)| outcomes.contains(symbol))
        .map(|(symbol, meaning)| format!("{symbol} {meaning}"))
        .collect();
    outln!("({})", legend.join("; "))?;
    let first = from.map_or(0, |step| replay.position_of_step(step).saturating_sub(1));
    for (event, _) in replay.events_upto(replay.len()) {
        match event {
            Event::StageStarted { stage, .. } => outln!("-- stage {stage}")?,
            Event::CandidateJudged {
                step,
                candidate,
                size,
                action,
                outcome,
                ..
            } if step as usize > first || (step == 0 && first == 0) => outln!(
                "{step:>5}  {:<16} {size:>8} B  {:<6} {}",
                candidate.describe(),
                action.word(),
                outcome.symbol()
            )?,
            Event::Accepted { size, branch, .. } => {
                outln!("       => {} ({size} bytes)", branch.describe())?
            }
            _ => {}
        }
    }
    if replay.cut().is_some() {
        outln!("(the trace ends with a cut line: the run went on past what was recorded)")?;
    } else if !replay.is_complete() {
        outln!("(the trace ends before the run did)")?;
    }
    Ok(())
}
