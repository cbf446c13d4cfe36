//! What the steering promises: a restart or an undo only moves where the engine works (the
//! output keeps the smallest result found), manual edits and restarts can be undone, edits are
//! described in words, one step with two jobs judges one candidate, and tree stages tell what
//! their candidates remove.

mod common;

use std::path::Path;
use std::sync::Arc;
use std::time::{Duration, Instant};

use whittle_core::engine::job::Job;
use whittle_core::engine::pipeline::Settings;
use whittle_core::engine::session::{Command, ManualEdit, RunState, Session, SessionOptions};
use whittle_core::exec::oracle::{Oracle, predicate};
use whittle_core::observe::events::{CandidateKind, Event};
use whittle_core::text::atoms::AtomKind;
use whittle_core::tree::{Language, Tree};

use common::{PATIENCE, demo_example, events_until, session_options};

fn text_settings(jobs: usize) -> Settings {
    Settings {
        atoms: vec![AtomKind::Line],
        jobs,
        ..Settings::default()
    }
}

/// The test of the sessions on lines: interesting while lines 3 and 7 are there.
fn lines_3_and_7() -> impl Oracle {
    predicate("lines 3 and 7", |candidate: &[u8]| {
        let text = String::from_utf8_lossy(candidate);
        text.contains("line 3\n") && text.contains("line 7\n")
    })
}

/// A session on `input` (lines) whose test wants lines 3 and 7, writing to `output`.
fn start(input: &[u8], output: Option<&Path>, jobs: usize, step_mode: bool) -> Session {
    let settings = text_settings(jobs);
    let mut job = Job::new(input.to_vec(), settings);
    if let Some(output) = output {
        job = job.writing_to(Arc::new(whittle_core::output::ResultFile::new(
            output, None,
        )));
    }
    let options = session_options(false, step_mode);
    Session::start_with(job, Arc::new(lines_3_and_7()), options, |t| {
        t.set_inline_below(None)
    })
    .unwrap()
}

/// The tree of the session's best test case now, and the version it belongs to.
fn best_tree(session: &Session, language: Option<&'static Language>) -> (Arc<Tree>, u64) {
    let snapshot = session.snapshot();
    let tree = whittle_core::tree::parse(
        language.unwrap(),
        snapshot.best.to_vec(),
        whittle_core::tree::Preprocess::default(),
    )
    .unwrap();
    (tree, snapshot.version)
}

/// The description of the manual edit the last of `events` reports.
fn manual_edit_description(events: &[Event]) -> &str {
    let Some(Event::ManualEdit { description, .. }) = events.last() else {
        unreachable!()
    };
    description
}

fn lines(n: usize) -> Vec<u8> {
    (0..n)
        .map(|i| format!("line {i}\n"))
        .collect::<String>()
        .into_bytes()
}

/// Waits until the engine waits at its checkpoint (or is done).
fn until_parked(session: &Session) {
    let deadline = Instant::now() + PATIENCE;
    loop {
        let snapshot = session.snapshot();
        if snapshot.parked || snapshot.state == RunState::Done {
            return;
        }
        assert!(Instant::now() < deadline, "the engine did not park");
        std::thread::sleep(Duration::from_millis(2));
    }
}

#[test]
fn restarts_and_undos_only_move_where_the_engine_works() {
    let dir = tempfile::tempdir().unwrap();
    let output = dir.path().join("out.txt");
    let session = start(&lines(10), Some(&output), 1, false);
    events_until(session.events(), |e| matches!(e, Event::Done { .. }));
    let smallest = std::fs::read(&output).unwrap();
    assert_eq!(smallest, b"line 3\nline 7\n");
    let entries = session.snapshot().history.len();

    // Back to the input: the engine reduces it again, the output keeps the smallest result.
    session.send(Command::RestartFrom(0));
    let events = events_until(session.events(), |e| matches!(e, Event::Done { .. }));
    assert!(
        events
            .iter()
            .any(|e| matches!(e, Event::Restarted { from: 0, size: 70 }))
    );
    let accepted: Vec<usize> = events
        .iter()
        .filter_map(|e| match e {
            Event::Accepted { size, .. } => Some(*size),
            _ => None,
        })
        .collect();
    assert!(
        accepted.iter().any(|&size| size > smallest.len()),
        "the run went through larger results again: {accepted:?}"
    );
    assert_eq!(std::fs::read(&output).unwrap(), smallest);

    // Undo the restart: the engine is back at the result it had before it.
    session.send(Command::Undo);
    let events = events_until(session.events(), |e| matches!(e, Event::Undone { .. }));
    let Some(Event::Undone { what, to, size }) = events.last() else {
        unreachable!()
    };
    assert_eq!(*to, entries - 1, "back to the entry before the restart");
    assert_eq!(*size, smallest.len());
    assert!(what.contains("restart from #0"), "{what}");
    events_until(session.events(), |e| matches!(e, Event::Done { .. }));
    assert_eq!(&*session.snapshot().best, smallest.as_slice());
    assert_eq!(std::fs::read(&output).unwrap(), smallest);

    // Nothing more to undo.
    session.send(Command::Undo);
    let events = events_until(session.events(), |e| {
        matches!(e, Event::CommandRejected { .. })
    });
    assert!(matches!(
        events.last(),
        Some(Event::CommandRejected { command, .. }) if command == "undo"
    ));
}

#[test]
fn a_kept_manual_edit_can_be_undone_and_is_described_in_words() {
    let session = start(&lines(10), None, 1, true);
    until_parked(&session);
    session.send(Command::Propose(ManualEdit::RemoveLines(0..2)));
    let events = events_until(session.events(), |e| matches!(e, Event::ManualEdit { .. }));
    let Some(Event::ManualEdit {
        description,
        accepted,
        ..
    }) = events.last()
    else {
        unreachable!()
    };
    assert!(*accepted);
    assert_eq!(description, "remove lines 1-2");
    // The judged candidate tells what it removes.
    let removed = events.iter().find_map(|e| match e {
        Event::CandidateJudged {
            candidate, removed, ..
        } if candidate.kind == CandidateKind::Manual => Some(removed.clone()),
        _ => None,
    });
    assert_eq!(removed, Some(vec![std::ops::Range { start: 0, end: 14 }]));
    until_parked(&session);
    assert_eq!(session.snapshot().best.len(), 70 - 14);
    session.send(Command::Undo);
    let events = events_until(session.events(), |e| matches!(e, Event::Undone { .. }));
    assert!(matches!(
        events.last(),
        Some(Event::Undone { what, size: 70, .. }) if what.contains("remove lines 1-2")
    ));
    until_parked(&session);
    assert_eq!(&*session.snapshot().best, lines(10).as_slice());
}

#[test]
#[cfg_attr(
    not(feature = "lang-json"),
    ignore = "needs the JSON grammar (cargo feature lang-json)"
)]
fn node_edits_are_named_by_kind_text_and_place() {
    let session = demo_example("json-87")
        .start(session_options(false, true))
        .unwrap();
    let language = session.language();
    until_parked(&session);
    let (tree, version) = best_tree(&session, language);
    let pair = tree
        .ids()
        .find(|&id| tree.kind(id) == "pair" && tree.text(id).starts_with(b"\"foo\""))
        .unwrap();
    session.send(Command::Propose(ManualEdit::RemoveNode {
        version,
        node: pair,
    }));
    let events = events_until(session.events(), |e| matches!(e, Event::ManualEdit { .. }));
    assert_eq!(
        manual_edit_description(&events),
        "remove pair `\"foo\": \"bar\"` at 2:3"
    );
    // The pair went (the rest still mentions 87): hoist the array's 87 in the new best.
    until_parked(&session);
    let (tree, version) = best_tree(&session, language);
    let array = tree.ids().find(|&id| tree.kind(id) == "array").unwrap();
    let number = tree
        .ids()
        .find(|&id| tree.kind(id) == "number" && tree.text(id) == b"87")
        .unwrap();
    session.send(Command::Propose(ManualEdit::Hoist {
        version,
        node: array,
        descendant: number,
    }));
    let events = events_until(session.events(), |e| matches!(e, Event::ManualEdit { .. }));
    assert_eq!(
        manual_edit_description(&events),
        "hoist `[ 6, 7, 12, 31, 77, 87 ]` → `87` at 2:10"
    );
    for event in &events {
        let text = format!("{event:?}");
        assert!(!text.contains("NodeId"), "{text}");
    }
}

/// With two jobs, each step judges exactly one candidate and reports it before the next step.
#[test]
fn one_step_with_two_jobs_is_one_candidate_judged() {
    let session = start(&lines(16), None, 2, true);
    until_parked(&session);
    while session.events().try_recv().is_ok() {}
    for step in 1..=12u64 {
        session.send(Command::Step);
        let events = events_until(
            session.events(),
            |e| matches!(e, Event::CandidateJudged { step: s, .. } if *s == step),
        );
        until_parked(&session);
        let mut more: Vec<Event> = session.events().try_iter().collect();
        more.extend(events);
        let judged = more
            .iter()
            .filter(|e| matches!(e, Event::CandidateJudged { .. }))
            .count();
        let started = more
            .iter()
            .filter(|e| matches!(e, Event::TestStarted { .. }))
            .count();
        assert_eq!(judged, 1, "step {step}: {more:?}");
        assert!(started <= 1, "step {step}: {more:?}");
    }
}

#[test]
#[cfg_attr(
    not(feature = "lang-c"),
    ignore = "needs the C grammar (cargo feature lang-c)"
)]
fn tree_candidates_report_what_they_remove() {
    let example = demo_example("hello-hoist");
    let session = example.start(session_options(true, false)).unwrap();
    let events: Vec<Event> = session.events().iter().collect();
    let report = session.wait().unwrap();
    assert_eq!(
        String::from_utf8_lossy(&report.finished.result),
        String::from_utf8_lossy(include_bytes!("../examples/hello-hoist-c/expected-hoist.c"))
    );
    let mut best = example.input.to_vec();
    let mut stage = String::new();
    let mut checked = 0;
    let mut hoists = 0;
    for event in &events {
        match event {
            Event::StageStarted { stage: name, .. } => stage = name.clone(),
            Event::CandidateJudged {
                candidate,
                removed,
                preview,
                ..
            } if stage == "hddhr" && !candidate.is_check() => {
                assert!(!removed.is_empty(), "{candidate:?} says what it removes");
                let mut previous_end = 0;
                for range in removed {
                    assert!(range.start >= previous_end && range.end <= best.len());
                    previous_end = range.end;
                }
                if candidate.kind == CandidateKind::Hoist {
                    hoists += 1;
                    // Two spans around the descendant, which the candidate keeps.
                    let [before, after] = &removed[..] else {
                        panic!("{removed:?}")
                    };
                    // (A hoisted node moves left with its place: whitespace aside.)
                    let solid = |text: &[u8]| -> String {
                        String::from_utf8_lossy(text)
                            .chars()
                            .filter(|c| !c.is_whitespace())
                            .collect()
                    };
                    let descendant = solid(&best[before.end..after.start]);
                    let preview = solid(preview.as_deref().unwrap().as_bytes());
                    assert!(
                        preview.contains(&descendant),
                        "{preview:?} keeps {descendant:?}"
                    );
                }
                checked += 1;
            }
            Event::Accepted { .. } | Event::Restarted { .. } => {
                // The candidate accepted is the new best; follow it through the previews.
                if let Some(Event::CandidateJudged {
                    preview: Some(p), ..
                }) = events
                    .iter()
                    .take_while(|e| !std::ptr::eq(*e, event))
                    .filter(|e| {
                        matches!(e, Event::CandidateJudged { outcome, .. } if outcome.is_interesting())
                    })
                    .last()
                {
                    best = p.as_bytes().to_vec();
                }
            }
            _ => {}
        }
    }
    assert!(checked > 20, "{checked} candidates checked");
    assert!(hoists > 2, "{hoists} hoists checked");
}

#[test]
fn per_stage_statistics_are_reported() {
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("in.txt");
    std::fs::write(&input, lines(12)).unwrap();
    let stats = dir.path().join("stats.json");
    let output = std::process::Command::new(env!("CARGO_BIN_EXE_whittle"))
        .arg("reduce")
        .arg(&input)
        .arg("--stats-json")
        .arg(&stats)
        .args(["-j", "1", "--atoms", "line,char", "--"])
        .args(["grep", "-q", "line 7"])
        .output()
        .unwrap();
    assert!(output.status.success(), "{output:?}");
    let json: serde_json::Value = serde_json::from_slice(&std::fs::read(&stats).unwrap()).unwrap();
    let stages = json["stages"].as_array().unwrap();
    let names: Vec<&str> = stages.iter().map(|s| s["name"].as_str().unwrap()).collect();
    assert_eq!(names, ["ddmin line", "ddmin char"]);
    let tests: u64 = stages.iter().map(|s| s["tests"].as_u64().unwrap()).sum();
    assert_eq!(
        tests,
        json["tests"].as_u64().unwrap(),
        "every test in a stage"
    );
    let removed: u64 = stages
        .iter()
        .map(|s| s["bytes_removed"].as_u64().unwrap())
        .sum();
    assert_eq!(
        removed,
        json["input_bytes"].as_u64().unwrap() - json["output_bytes"].as_u64().unwrap()
    );
    assert!(stages.iter().all(|s| s["seconds"].as_f64().unwrap() >= 0.0));
    let report = String::from_utf8_lossy(&output.stdout);
    assert!(report.contains("ddmin line"), "{report}");
    assert!(report.contains("ddmin rounds (iterations)"), "{report}");
}

#[test]
fn step_and_paused_need_the_terminal_ui() {
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("in.txt");
    std::fs::write(&input, "a\n").unwrap();
    for flag in ["--step", "--paused"] {
        let output = std::process::Command::new(env!("CARGO_BIN_EXE_whittle"))
            .arg("reduce")
            .arg(&input)
            .args([flag, "--no-tui", "--", "true"])
            .output()
            .unwrap();
        assert_eq!(output.status.code(), Some(2), "{output:?}");
        assert!(String::from_utf8_lossy(&output.stderr).contains("terminal UI"));
        assert!(!dir.path().join("in.whittled.txt").exists());
    }
}

/// `--paused`: the input is checked, then nothing is tested until a step or a resume.
#[test]
fn a_session_started_paused_checks_the_input_then_waits() {
    let session = Session::start(
        Job::new(lines(10), text_settings(1)),
        Arc::new(lines_3_and_7()),
        SessionOptions {
            exit_when_done: false,
            start_in_step_mode: false,
            start_paused: true,
        },
    )
    .unwrap();
    until_parked(&session);
    std::thread::sleep(Duration::from_millis(100));
    let snapshot = session.snapshot();
    assert!(snapshot.paused && !snapshot.step_mode);
    assert_eq!(snapshot.state, RunState::Running);
    assert_eq!(snapshot.stats.checks, 2, "the input and the empty file");
    assert_eq!(snapshot.stats.tests, 0, "nothing else");
    session.send(Command::Step);
    events_until(session.events(), |e| {
        matches!(e, Event::CandidateJudged { step: 1, .. })
    });
    session.send(Command::Resume);
    events_until(session.events(), |e| matches!(e, Event::Done { .. }));
    assert_eq!(&*session.snapshot().best, b"line 3\nline 7\n");
}

/// After a restart in step mode every step judges one new candidate: step numbers go on one
/// by one and no step is judged twice.
#[test]
fn steps_after_a_restart_go_on_one_by_one() {
    let session = start(&lines(10), None, 1, true);
    until_parked(&session);
    let mut judged = Vec::new();
    let mut step = 0;
    let mut take_steps = |session: &Session, count: u64, judged: &mut Vec<u64>| {
        for _ in 0..count {
            step += 1;
            session.send(Command::Step);
            let wanted = step;
            let events = events_until(
                session.events(),
                |e| matches!(e, Event::CandidateJudged { step: s, .. } if *s == wanted),
            );
            judged.extend(events.iter().filter_map(|e| match e {
                Event::CandidateJudged { step, .. } if *step > 0 => Some(*step),
                _ => None,
            }));
            until_parked(session);
        }
    };
    take_steps(&session, 6, &mut judged);
    session.send(Command::RestartFrom(0));
    events_until(session.events(), |e| matches!(e, Event::Restarted { .. }));
    until_parked(&session);
    take_steps(&session, 6, &mut judged);
    let expected: Vec<u64> = (1..=12).collect();
    assert_eq!(judged, expected);
}

/// The statistics at the end (and so `--stats-json`) tell the ν and parallel mode that ran
/// last, not those the run started with.
#[test]
fn the_final_statistics_tell_the_knobs_that_ran_last() {
    use whittle_core::params::{ParallelMode, SplitFactor};
    let session = start(&lines(10), None, 1, true);
    session.send(Command::SetSplitFactor(SplitFactor::Finite(3)));
    session.send(Command::SetParallelMode(ParallelMode::First));
    session.send(Command::Resume);
    let events = events_until(session.events(), |e| matches!(e, Event::Done { .. }));
    let Some(Event::Done { stats }) = events.last() else {
        panic!("the run ended without Done");
    };
    assert_eq!(stats.split_factor, SplitFactor::Finite(3).to_string());
    assert_eq!(stats.parallel_mode, ParallelMode::First.to_string());
    assert_ne!(
        ParallelMode::First.to_string(),
        text_settings(1).resolve().knobs.parallel.to_string(),
        "the test changes the mode"
    );
}

/// A live switch of ν and of the parallel mode makes new versions of the run's plan: the
/// engine reports each (an event the trace records, with the step it came after), and the
/// statistics (what `--stats-json` writes) list them and tell the values that ran last.
#[test]
fn live_switches_make_plan_versions_that_the_statistics_and_the_trace_tell() {
    use whittle_core::observe::trace::{Trace, TraceHeader, TraceWriter};
    use whittle_core::params::{ParallelMode, SplitFactor};
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("run.jsonl");
    let input = lines(10);
    let plan = text_settings(1).resolve();
    let started_with = plan.knobs.parallel;
    assert_ne!(
        started_with,
        ParallelMode::First,
        "the test changes the mode"
    );
    let header = TraceHeader {
        input_name: "lines".into(),
        pipeline: plan.pipeline.to_string(),
        jobs: 1,
        ..TraceHeader::default()
    };
    let trace = TraceWriter::for_run(&path, header, &input).unwrap();
    let job = Job::planned(input.clone(), plan);
    let options = session_options(false, true);
    let session = Session::start_with(job, Arc::new(lines_3_and_7()), options, |t| {
        t.set_inline_below(None);
        t.set_trace(Some(trace));
    })
    .unwrap();
    until_parked(&session);
    session.send(Command::Step);
    events_until(session.events(), |e| {
        matches!(e, Event::CandidateJudged { step: 1, .. })
    });
    until_parked(&session);
    assert_eq!(session.snapshot().plan_version, 0);
    session.send(Command::SetSplitFactor(SplitFactor::Finite(3)));
    session.send(Command::SetParallelMode(ParallelMode::First));
    assert_eq!(session.snapshot().plan_version, 2);
    session.send(Command::Resume);
    let events = events_until(session.events(), |e| matches!(e, Event::Done { .. }));
    let Some(Event::Done { stats }) = events.last() else {
        panic!("the run ended without Done");
    };
    let expected = [
        (1, "split factor 2 → 3".to_string()),
        (2, format!("parallel mode {started_with} → first")),
    ];
    let listed: Vec<(u64, String)> = stats
        .plan_changes
        .iter()
        .map(|change| (change.version, change.change.clone()))
        .collect();
    assert_eq!(listed, expected);
    assert_eq!(stats.split_factor, "3");
    assert_eq!(stats.parallel_mode, "first");
    let json = serde_json::to_value(stats).unwrap();
    assert_eq!(json["plan_changes"][1]["change"], expected[1].1.as_str());
    drop(session);
    let trace = Trace::read(&path).unwrap();
    let traced: Vec<(u64, String, u64)> = trace
        .candidates
        .iter()
        .flat_map(|candidate| &candidate.events)
        .filter_map(|recorded| match &recorded.event {
            Event::PlanChanged {
                version,
                change,
                step,
            } => Some((*version, change.clone(), *step)),
            _ => None,
        })
        .collect();
    let traced_changes: Vec<(u64, String)> = traced
        .iter()
        .map(|(version, change, _)| (*version, change.clone()))
        .collect();
    assert_eq!(traced_changes, expected);
    assert!(traced.iter().all(|(_, _, step)| *step == 1), "{traced:?}");
}
