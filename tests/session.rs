//! The steerable session: pause, steps, pins, switches, proposals, restarts, with in-process
//! tests, deterministic settings.

use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use whittle_core::exec::cache::{CacheKind, CachePolicy};
use whittle_core::text::atoms::AtomKind;

use whittle_core::engine::job::Job;
use whittle_core::engine::pipeline::{Pipeline, Settings};
use whittle_core::engine::session::{Command, ManualEdit, PinTarget, Session, SessionOptions};
use whittle_core::exec::oracle::predicate;
use whittle_core::observe::events::{Action, Event};
use whittle_core::params::{DdOptions, Direction, ReduceOrder, SplitFactor};

type Seen = Arc<Mutex<Vec<Vec<u8>>>>;

/// Settings whose pipeline is ddmin over `atoms`.
fn settings(atoms: &[AtomKind]) -> Settings {
    Settings {
        atoms: atoms.to_vec(),
        jobs: 1,
        algorithm: Some(Pipeline::ddmin()),
        ..Settings::default()
    }
}

fn options(step_mode: bool, exit_when_done: bool) -> SessionOptions {
    SessionOptions {
        exit_when_done,
        start_in_step_mode: step_mode,
        start_paused: false,
    }
}

/// Starts a session whose test is `interesting`, logging every candidate it sees.
fn start(
    input: &[u8],
    settings: Settings,
    options: SessionOptions,
    delay: Duration,
    interesting: impl Fn(&[u8]) -> bool + Send + Sync + 'static,
) -> (Session, Seen) {
    let seen: Seen = Arc::default();
    let log = seen.clone();
    let oracle = predicate("test", move |candidate: &[u8]| {
        log.lock().unwrap().push(candidate.to_vec());
        std::thread::sleep(delay);
        interesting(candidate)
    });
    let job = Job::new(input.to_vec(), settings);
    let session =
        Session::start_with(job, Arc::new(oracle), options, |t| t.set_inline_below(None)).unwrap();
    (session, seen)
}

/// Events received within `wait`.
fn drain(session: &Session, wait: Duration) -> Vec<Event> {
    let deadline = Instant::now() + wait;
    let mut events = Vec::new();
    while let Some(left) = deadline.checked_duration_since(Instant::now()) {
        match session.events().recv_timeout(left) {
            Ok(event) => events.push(event),
            Err(crossbeam_channel::RecvTimeoutError::Timeout) => break,
            Err(crossbeam_channel::RecvTimeoutError::Disconnected) => {
                std::thread::sleep(left);
                break;
            }
        }
    }
    events
}

/// Events until the pipeline is done (or the session ends).
fn until_done(session: &Session) -> Vec<Event> {
    let mut events = Vec::new();
    while let Ok(event) = session.events().recv_timeout(Duration::from_secs(60)) {
        let done = matches!(
            event,
            Event::Done { .. } | Event::Stopped { .. } | Event::Failed { .. }
        );
        events.push(event);
        if done {
            break;
        }
    }
    events
}

fn tests_started(events: &[Event]) -> usize {
    events
        .iter()
        .filter(|e| matches!(e, Event::TestStarted { .. }))
        .count()
}

fn lines(n: usize) -> Vec<u8> {
    (0..n)
        .map(|i| format!("line {i}\n"))
        .collect::<String>()
        .into_bytes()
}

fn contains(haystack: &[u8], needle: &str) -> bool {
    haystack
        .windows(needle.len())
        .any(|window| window == needle.as_bytes())
}

#[test]
fn pause_stops_tests_and_step_runs_exactly_one() {
    let settings = Settings {
        cache: CachePolicy {
            kind: CacheKind::None,
            ..CachePolicy::recommended()
        },
        ..settings(&[AtomKind::Line])
    };
    let (session, _) = start(
        &lines(200),
        settings,
        options(false, true),
        Duration::from_millis(2),
        |c| contains(c, "line 17\n") && contains(c, "line 123\n"),
    );
    let mut started = 0;
    while started < 5 {
        started += tests_started(&drain(&session, Duration::from_millis(20)));
    }
    session.send(Command::Pause);
    drain(&session, Duration::from_millis(100));
    let paused = drain(&session, Duration::from_millis(300));
    assert_eq!(tests_started(&paused), 0, "no test starts while paused");
    assert!(session.snapshot().paused);

    session.send(Command::Step);
    let stepped = drain(&session, Duration::from_millis(300));
    assert_eq!(tests_started(&stepped), 1, "a step runs exactly one test");
    session.send(Command::Step);
    session.send(Command::Step);
    let stepped = drain(&session, Duration::from_millis(300));
    assert_eq!(tests_started(&stepped), 2);

    session.send(Command::Resume);
    until_done(&session);
    let report = session.wait().unwrap();
    assert_eq!(report.finished.result, b"line 17\nline 123\n");
}

#[test]
fn pinned_lines_are_in_every_candidate_and_in_the_result() {
    let mut input = lines(40);
    input.extend_from_slice(b"PINNED\n");
    input.extend_from_slice(&lines(10));
    let (session, seen) = start(
        &input,
        settings(&[AtomKind::Line, AtomKind::Char]),
        options(true, true),
        Duration::ZERO,
        |c| contains(c, "line 7\n"),
    );
    // The checks of the input run without a step; the pin arrives before step 1.
    drain(&session, Duration::from_millis(200));
    assert!(session.snapshot().parked);
    let checks = seen.lock().unwrap().len();
    assert_eq!(checks, 2, "the input and the empty file");
    session.send(Command::Pin(PinTarget::Lines(40..41)));
    session.send(Command::Resume);
    let events = until_done(&session);
    assert!(
        events
            .iter()
            .any(|e| matches!(e, Event::PinsChanged { .. }))
    );
    let report = session.wait().unwrap();
    let seen = seen.lock().unwrap();
    assert!(seen.len() > checks + 20);
    for candidate in &seen[checks..] {
        assert!(
            contains(candidate, "PINNED\n"),
            "{}",
            String::from_utf8_lossy(candidate)
        );
    }
    assert!(contains(&report.finished.result, "PINNED\n"));
    assert!(contains(&report.finished.result, "line 7"));
    assert!(
        report.finished.result.len() < 20,
        "{:?}",
        String::from_utf8_lossy(&report.finished.result)
    );
}

#[test]
#[cfg_attr(
    not(feature = "lang-json"),
    ignore = "needs the JSON grammar (cargo feature lang-json)"
)]
fn pinned_nodes_are_kept() {
    use whittle_core::tree::{self, Language, Preprocess};
    let input = b"{\n  \"a\": [1, 2, 3],\n  \"keep\": {\"deep\": true},\n  \"x\": 42\n}\n".to_vec();
    let language = Language::by_name("json").unwrap();
    let parsed = tree::parse(language, input.clone(), Preprocess::default()).unwrap();
    let node = parsed
        .ids()
        .find(|&n| parsed.kind(n) == "pair" && parsed.text(n).starts_with(b"\"keep\""))
        .unwrap();
    // ddmin over lines and characters, on a JSON input whose nodes can be pinned.
    let settings = Settings {
        algorithm: Some(Pipeline::ddmin()),
        language: Some(language.name().into()),
        ..settings(&[AtomKind::Line, AtomKind::Char])
    };
    let (session, seen) = start(&input, settings, options(true, true), Duration::ZERO, |c| {
        serde_json::from_slice::<serde_json::Value>(c).is_ok_and(|v| v.to_string().contains("42"))
    });
    // The checks of the input run without a step; the pin arrives before step 1.
    drain(&session, Duration::from_millis(200));
    assert!(session.snapshot().parked);
    let checks = seen.lock().unwrap().len();
    assert_eq!(checks, 2, "the input and the empty file");
    session.send(Command::Pin(PinTarget::Node { version: 0, node }));
    session.send(Command::Resume);
    until_done(&session);
    let report = session.wait().unwrap();
    let seen = seen.lock().unwrap();
    assert!(seen.len() > checks + 5);
    for candidate in &seen[checks..] {
        assert!(contains(candidate, "\"keep\": {\"deep\": true}"));
    }
    let result = String::from_utf8(report.finished.result).unwrap();
    assert!(
        result.contains("\"keep\": {\"deep\": true}") && result.contains("42"),
        "{result}"
    );
}

fn is_char_one_minimal(result: &[u8], interesting: &dyn Fn(&[u8]) -> bool) -> bool {
    let text = std::str::from_utf8(result).unwrap();
    text.char_indices().all(|(i, c)| {
        let mut smaller = text[..i].to_string();
        smaller.push_str(&text[i + c.len_utf8()..]);
        !interesting(smaller.as_bytes())
    })
}

#[test]
fn switching_the_split_factor_mid_run_takes_effect_at_the_next_granularity_step() {
    let test =
        |c: &[u8]| contains(c, "line 3\n") && contains(c, "line 77\n") && contains(c, "line 150\n");
    let (session, _) = start(
        &lines(300),
        settings(&[AtomKind::Line, AtomKind::Char]),
        options(false, true),
        Duration::from_micros(300),
        test,
    );
    let mut before = drain(&session, Duration::from_millis(30));
    session.send(Command::SetSplitFactor(SplitFactor::Finite(8)));
    before.extend(until_done(&session));
    let report = session.wait().unwrap();
    let nus: Vec<SplitFactor> = before
        .iter()
        .filter_map(|e| match e {
            Event::Round { nu, .. } => Some(*nu),
            _ => None,
        })
        .collect();
    assert_eq!(nus.first(), Some(&SplitFactor::Finite(2)));
    assert_eq!(nus.last(), Some(&SplitFactor::Finite(8)));
    assert!(test(&report.finished.result));
    assert!(is_char_one_minimal(&report.finished.result, &test));
}

#[test]
fn switching_the_pipeline_restarts_from_the_current_best() {
    let test = |c: &[u8]| contains(c, "line 3\n") && contains(c, "line 77\n");
    let (session, _) = start(
        &lines(300),
        settings(&[AtomKind::Line]),
        options(true, true),
        Duration::ZERO,
        test,
    );
    for _ in 0..20 {
        session.send(Command::Step);
    }
    let mut judged = 0;
    while judged < 20 {
        judged += drain(&session, Duration::from_millis(50))
            .iter()
            .filter(|e| matches!(e, Event::CandidateJudged { .. }))
            .count();
    }
    session.send(Command::SwitchAlgorithm("ddmin:char".into()));
    session.send(Command::Resume);
    let events = until_done(&session);
    let report = session.wait().unwrap();
    let switched = events
        .iter()
        .position(|e| matches!(e, Event::Switched { .. }))
        .expect("the switch is reported");
    let stage_after = events[switched..].iter().find_map(|e| match e {
        Event::StageStarted { stage, .. } => Some(stage.clone()),
        _ => None,
    });
    assert_eq!(stage_after.as_deref(), Some("ddmin char"));
    assert!(test(&report.finished.result));
    assert!(is_char_one_minimal(&report.finished.result, &test));
    assert!(report.finished.stats.tests > 0);
}

#[test]
fn proposed_edits_are_kept_only_when_interesting() {
    let input = b"keep 1\ndrop 2\nkeep 3\n";
    let (session, _) = start(
        input,
        settings(&[AtomKind::Line]),
        options(true, false),
        Duration::ZERO,
        |c| contains(c, "keep 1") && contains(c, "keep 3"),
    );
    // The checks of the input run without a step; the engine then waits for step 1.
    drain(&session, Duration::from_millis(200));
    assert!(session.snapshot().parked);
    session.send(Command::Propose(ManualEdit::RemoveLines(0..1)));
    let rejected = drain(&session, Duration::from_millis(300));
    assert!(rejected.iter().any(|e| matches!(
        e,
        Event::ManualEdit {
            accepted: false,
            ..
        }
    )));
    assert_eq!(
        &*session.snapshot().best,
        input,
        "a rejected edit changes nothing"
    );

    session.send(Command::Propose(ManualEdit::RemoveLines(1..2)));
    let accepted = drain(&session, Duration::from_millis(300));
    assert!(
        accepted
            .iter()
            .any(|e| matches!(e, Event::ManualEdit { accepted: true, .. }))
    );
    let snapshot = session.snapshot();
    assert_eq!(&*snapshot.best, b"keep 1\nkeep 3\n");
    let last = snapshot.history.last().unwrap();
    assert_eq!(last.branch, whittle_core::observe::events::Branch::Manual);
    session.send(Command::Stop);
    let report = session.wait().unwrap();
    assert_eq!(report.finished.result, b"keep 1\nkeep 3\n");
}

#[test]
fn restart_from_an_earlier_state_reaches_an_interesting_result_again() {
    let test = |c: &[u8]| contains(c, "line 5\n") && contains(c, "line 9\n");
    let (session, _) = start(
        &lines(64),
        settings(&[AtomKind::Line]),
        options(false, false),
        Duration::ZERO,
        test,
    );
    until_done(&session);
    let history = session.snapshot().history;
    assert!(history.len() > 3);
    session.send(Command::RestartFrom(1));
    let events = until_done(&session);
    assert!(
        events
            .iter()
            .any(|e| matches!(e, Event::Restarted { from: 1, .. }))
    );
    let snapshot = session.snapshot();
    assert!(
        snapshot
            .history
            .iter()
            .any(|entry| entry.branch == whittle_core::observe::events::Branch::Restart)
    );
    session.send(Command::Stop);
    let report = session.wait().unwrap();
    assert!(test(&report.finished.result));
    assert_eq!(report.finished.result, b"line 5\nline 9\n");
}

#[test]
fn table_4_1_walks_through_one_event_per_step() {
    let settings = Settings {
        atoms: vec![AtomKind::Char],
        dd: DdOptions {
            order: ReduceOrder::ComplementsOnly,
            complement_direction: Direction::Backward,
            ..DdOptions::default()
        },
        fixpoint: false,
        cache: CachePolicy {
            kind: CacheKind::Content,
            store_interesting: false,
            evict_larger: true,
        },
        ..settings(&[AtomKind::Char])
    };
    let (session, _) = start(
        b"12345",
        settings,
        options(true, true),
        Duration::ZERO,
        |c| c.contains(&b'2') && c.contains(&b'4'),
    );
    let judged = |events: &[Event]| -> Vec<(String, Action, bool)> {
        events
            .iter()
            .filter_map(|e| match e {
                Event::CandidateJudged {
                    preview,
                    action,
                    outcome,
                    ..
                } => Some((
                    preview.clone().unwrap_or_default(),
                    *action,
                    outcome.is_interesting(),
                )),
                _ => None,
            })
            .collect()
    };
    // The preflight checks, the input and the empty file, run without a step: step 1 is the
    // table's first row.
    let preflight = judged(&drain(&session, Duration::from_millis(300)));
    assert_eq!(
        preflight,
        [
            ("12345".to_string(), Action::Test, true),
            (String::new(), Action::Test, false)
        ]
    );
    let table = [
        ("12", Action::Test, false),
        ("345", Action::Test, false),
        ("123", Action::Test, false),
        ("1245", Action::Test, true),
        ("145", Action::Test, false),
        ("245", Action::Test, true),
        ("2", Action::Test, false),
        ("45", Action::Test, false),
        ("24", Action::Test, true),
        ("2", Action::Cache, false),
        ("4", Action::Test, false),
    ];
    for (number, (content, action, interesting)) in table.iter().enumerate() {
        assert!(
            drain(&session, Duration::from_millis(50))
                .iter()
                .all(|e| !matches!(e, Event::CandidateJudged { .. }))
        );
        session.send(Command::Step);
        let step = judged(&drain(&session, Duration::from_millis(200)));
        assert_eq!(
            step,
            [(content.to_string(), *action, *interesting)],
            "step {}",
            number + 1
        );
    }
    until_done(&session);
    let report = session.wait().unwrap();
    assert_eq!(report.finished.result, b"24");
}

#[test]
fn candidates_report_the_bytes_they_remove() {
    let settings = Settings {
        dd: DdOptions {
            order: ReduceOrder::ComplementsOnly,
            complement_direction: Direction::Backward,
            ..DdOptions::default()
        },
        fixpoint: false,
        ..settings(&[AtomKind::Char])
    };
    let (session, _) = start(
        b"12345",
        settings,
        options(false, true),
        Duration::ZERO,
        |c| c.contains(&b'2') && c.contains(&b'4'),
    );
    let events = until_done(&session);
    let removed: Vec<(String, Vec<std::ops::Range<usize>>)> = events
        .iter()
        .filter_map(|e| match e {
            Event::CandidateJudged {
                preview: Some(p),
                removed,
                step,
                ..
            } if *step > 0 => Some((p.clone(), removed.clone())),
            _ => None,
        })
        .collect();
    // "12" removes "345" from "12345"; "1245" removes "3"; "145" removes "2" of "1245".
    let span = |start, end| vec![std::ops::Range { start, end }];
    assert_eq!(removed[0], ("12".to_string(), span(2, 5)));
    assert_eq!(removed[3], ("1245".to_string(), span(2, 3)));
    assert_eq!(removed[4], ("145".to_string(), span(1, 2)));
}

#[test]
#[cfg_attr(
    not(feature = "lang-json"),
    ignore = "needs the JSON grammar (cargo feature lang-json)"
)]
fn switching_from_hdd_to_hoisting_mid_run_ends_tree_minimal() {
    use whittle_core::tree::{self, Language, Preprocess, TreeEdits, TreeState};
    let language = Language::by_name("json").unwrap();
    let input =
        br#"{"a": {"b": [1, 2, {"c": [3, 87, 4]}], "d": "x"}, "e": [5, [6, 7]], "f": null}"#;
    let test = |c: &[u8]| {
        serde_json::from_slice::<serde_json::Value>(c).is_ok_and(|v| v.to_string().contains("87"))
    };
    let settings = Settings {
        algorithm: Some("hdd".parse().unwrap()),
        language: Some("json".into()),
        ..settings(&[AtomKind::Line])
    };
    let (session, _) = start(input, settings, options(true, true), Duration::ZERO, test);
    for _ in 0..8 {
        session.send(Command::Step);
    }
    let mut judged = 0;
    while judged < 8 {
        let events = drain(&session, Duration::from_millis(50));
        assert!(!session.is_finished(), "{events:?}");
        judged += events
            .iter()
            .filter(|e| matches!(e, Event::CandidateJudged { .. }))
            .count();
    }
    session.send(Command::SwitchAlgorithm("hoist+hddh".into()));
    session.send(Command::Resume);
    let events = until_done(&session);
    let report = session.wait().unwrap();
    let switched = events
        .iter()
        .position(|e| matches!(e, Event::Switched { pipeline, .. } if pipeline == "hoist+hddh"))
        .expect("the switch is reported");
    let first_stage = events[switched..].iter().find_map(|e| match e {
        Event::StageStarted { stage, .. } => Some(stage.clone()),
        _ => None,
    });
    assert_eq!(first_stage.as_deref(), Some("hoist"));
    let result = report.finished.result;
    assert!(test(&result), "{}", String::from_utf8_lossy(&result));
    // 1-tree-minimal for hoist+hddh: no single removal and no single hoist keeps it interesting.
    let parsed = tree::parse(language, result.clone(), Preprocess::default()).unwrap();
    let state = TreeState::new(parsed.clone());
    for id in parsed.ids() {
        if state.is_removable(id) {
            let smaller = state.render(&TreeEdits::removing([id]));
            assert!(
                smaller.len() >= result.len() || !test(&smaller),
                "removing {id} keeps it"
            );
        }
        for (target, _) in state.hoist_candidates(id) {
            let smaller = state.render(&TreeEdits::hoisting(id, target));
            assert!(
                smaller.len() >= result.len() || !test(&smaller),
                "hoisting {id} keeps it"
            );
        }
    }
    assert!(result.len() <= 8, "{}", String::from_utf8_lossy(&result));
}
