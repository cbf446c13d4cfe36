//! The terminal UI without a terminal: an `App` driven by keys and by the events of a real
//! session, rendered to ratatui's `TestBackend`, with snapshots of its screens. The clock is a
//! manual one and the tests run with one job, so every screen is reproducible.

mod common;

use std::time::{Duration, Instant};

use ratatui::crossterm::event::{KeyCode, KeyModifiers};
use whittle::tui::Overlay;
use whittle_core::observe::events::{CandidateKind, Event};
use whittle_core::outcome::Outcome;

use common::tui::{Harness, SIZES, harness, harness_on, harness_with};

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
    // Past ddmin:char, ddmin:token, ddmin:block and the three ProbDD and CDD passes.
    for _ in 0..7 {
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
                screen.contains("Size/time 10% 45 B 25% 45 B 50% 45 B"),
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
        screen.contains("│2     printfa(\"Hello world!\\n\");"),
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
        timeout_reruns: 0,
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

/// The test of [`the_screen_counts_the_runs_after_a_timeout`]: line 3 must stay; every
/// candidate of an odd number of lines timed out once before its verdict (as a command's test
/// does under a derived timeout that grew meanwhile), which is one more test.
struct RerunsAfterTimeouts;

impl whittle_core::exec::oracle::Oracle for RerunsAfterTimeouts {
    fn judge(
        &self,
        candidate: &[u8],
        _: &whittle_core::exec::processes::CancelToken,
    ) -> whittle_core::exec::oracle::Verdict {
        let text = String::from_utf8_lossy(candidate);
        let interesting = text.contains("line 3\n");
        whittle_core::exec::oracle::Verdict {
            outcome: if interesting {
                Outcome::Interesting
            } else {
                Outcome::NotInteresting
            },
            status: whittle_core::exec::oracle::TestStatus::Exited(i32::from(!interesting)),
            duration: Duration::from_millis(1),
            output_tail: None,
            node: None,
            remembered: false,
            timeout_reruns: u32::from(text.lines().count() % 2 == 1),
        }
    }

    fn describe(&self) -> String {
        "line 3 (odd sizes rerun after a timeout)".into()
    }
}

/// The screen's test count (the chart, the stage table, the rate) is the statistics' (what
/// `--stats-json` writes as `tests`): a test that ran again after a timeout counts each run.
#[test]
fn the_screen_counts_the_runs_after_a_timeout() {
    let input: String = (1..=9).map(|n| format!("line {n}\n")).collect();
    let settings = whittle_core::engine::pipeline::Settings {
        atoms: vec![whittle_core::text::atoms::AtomKind::Line],
        jobs: 1,
        ..whittle_core::engine::pipeline::Settings::default()
    };
    let dir = tempfile::tempdir().unwrap();
    let trace_path = dir.path().join("run.jsonl");
    let header = whittle_core::observe::trace::TraceHeader {
        input_name: "nine lines".into(),
        pipeline: settings.resolve().pipeline.to_string(),
        jobs: 1,
        ..Default::default()
    };
    let trace =
        whittle_core::observe::trace::TraceWriter::for_run(&trace_path, header, input.as_bytes())
            .unwrap();
    let job = whittle_core::engine::job::Job::new(input.into_bytes(), settings);
    let session = whittle_core::engine::session::Session::start_with(
        job,
        std::sync::Arc::new(RerunsAfterTimeouts),
        common::session_options(true, false),
        |tester| tester.set_trace(Some(trace)),
    )
    .unwrap();
    let mut app = whittle::tui::App::new(
        session.commands(),
        whittle::tui::AppOptions {
            theme: whittle::tui::Theme::named("dark", false).unwrap(),
            input_name: "nine lines".into(),
            clock: std::sync::Arc::new(whittle::tui::ManualClock::new()),
            exit_when_done: false,
            language: None,
            extension: None,
        },
    );
    let events = session.events().clone();
    let report = session.wait().unwrap();
    for event in events.try_iter() {
        app.on_engine_event(event);
    }
    let stats = &report.finished.stats;
    assert!(stats.timeout_reruns > 0, "the run had reruns: {stats:?}");
    let model = app.run_model();
    assert_eq!(
        model.tests, stats.tests,
        "the screen's count is the statistics'"
    );
    let per_stage: u64 = model
        .stage_rows(Duration::ZERO)
        .iter()
        .map(|row| row.tests)
        .sum();
    assert_eq!(per_stage, stats.tests, "the stage table's too");
    assert_eq!(model.derived_stats().tests, stats.tests);
    // The trace keeps the reruns: a replay counts them too.
    let replay = whittle_core::engine::replay::Replay::open(&trace_path).unwrap();
    let replayed: u64 = replay
        .events_upto(replay.len())
        .iter()
        .filter_map(|(event, _)| match event {
            Event::CandidateJudged {
                candidate,
                action: whittle_core::observe::events::Action::Test,
                timeout_reruns,
                ..
            } if !candidate.is_check() => Some(1 + u64::from(*timeout_reruns)),
            _ => None,
        })
        .sum();
    assert_eq!(replayed, stats.tests, "the replay's count is the run's");
}
