//! The lessons of the terminal UI, screen by screen: hoisting through the tree and in words, a
//! tree stage's candidate, HDD level by level, CDD's beliefs as a heat strip and CDD beside
//! ddmin. The same harness as `tui_screens.rs` (a manual clock, one job unless said), so every
//! screen is reproducible.

mod common;

use std::time::{Duration, Instant};

use ratatui::Terminal;
use ratatui::backend::TestBackend;
use ratatui::crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use whittle::tui::{Overlay, Theme};
use whittle_core::engine::demo::examples;
use whittle_core::engine::session::{RunState, Session, SessionOptions};
use whittle_core::observe::events::{CandidateKind, Event};
use whittle_core::outcome::Outcome;

use common::PATIENCE;
use common::tui::{SIZES, harness, harness_with, pane_text, selected_line};

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
        timeout_reruns: 0,
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
