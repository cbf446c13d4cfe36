//! ProbDD and CDD: the worked examples of the papers' artifact (the Perses list minimizer tests,
//! eight elements a..h with p₀ = 0.25) step by step, with every probability and counter update;
//! and on random monotone tests, an interesting result, 1-minimal with the final check, the
//! same whatever the number of jobs.

mod common;

use common::{belief_ints, ddmin_ints, is_one_minimal, knobs};
use proptest::prelude::*;
use whittle_core::algorithms::probdd::{Belief, Beliefs};
use whittle_core::exec::cache::{CacheKind, CachePolicy, UnitId};
use whittle_core::params::{BeliefModel, BeliefOptions, DdOptions, ParallelMode, SplitFactor};

const LETTERS: &[u8] = b"abcdefgh";

fn options(p0: f64) -> BeliefOptions {
    BeliefOptions {
        initial_probability: p0,
        ..BeliefOptions::default()
    }
}

/// Letters of units.
fn word(units: impl IntoIterator<Item = UnitId>) -> String {
    units
        .into_iter()
        .map(|unit| LETTERS[unit as usize] as char)
        .collect()
}

/// One step of a search on a..h as the tests below write it: the units removed, whether that
/// was interesting, and the beliefs after it (of the units left, in order).
#[derive(Debug, PartialEq)]
struct Step {
    removed: String,
    interesting: bool,
    after: Vec<Belief>,
}

/// Runs the search on a..h by hand: the test is "keeps every letter of `needed`".
fn steps(model: BeliefModel, needed: &str) -> (Vec<Step>, String) {
    let mut state = Beliefs::new(model, options(0.25), (0..8).collect());
    let mut steps = Vec::new();
    while let Some(choice) = state.choose() {
        let removed = word(choice.removed.iter().map(|&i| state.config()[i]));
        let interesting = needed.chars().all(|c| !removed.contains(c));
        if interesting {
            state.removed(&choice);
        } else {
            state.failed(&choice);
        }
        steps.push(Step {
            removed,
            interesting,
            after: state.beliefs().to_vec(),
        });
    }
    (steps, word(state.config().iter().copied()))
}

fn close(a: &[Belief], b: &[Belief]) -> bool {
    a.len() == b.len()
        && a.iter().zip(b).all(|pair| match pair {
            (Belief::Probability(x), Belief::Probability(y)) => (x - y).abs() < 1e-9,
            (x, y) => x == y,
        })
}

#[test]
fn probdd_on_the_worked_example_removes_and_raises_as_the_paper_says() {
    // p₀ = 0.25: E(3) = E(4) = 1.2656, a tie, so four go first. A failed prefix of four raises
    // each to 0.25 / (1 − 0.75⁴); of two at 0.3657, to 0.3657 / (1 − 0.6343²); alone, to 1.
    let four = 0.25 / (1.0 - 0.75f64.powi(4));
    let two = four / (1.0 - (1.0 - four).powi(2));
    let p = Belief::Probability;
    let (steps, result) = steps(BeliefModel::ProbDd, "ch");
    let expected = [
        (
            "abcd",
            false,
            vec![p(four); 4]
                .into_iter()
                .chain(vec![p(0.25); 4])
                .collect(),
        ),
        ("efgh", false, vec![p(four); 8]),
        ("ab", true, vec![p(four); 6]),
        (
            "cd",
            false,
            vec![p(two), p(two), p(four), p(four), p(four), p(four)],
        ),
        (
            "ef",
            true,
            vec![p(two); 2]
                .into_iter()
                .chain(vec![p(four); 2])
                .collect(),
        ),
        ("gh", false, vec![p(two); 4]),
        ("c", false, vec![p(1.0), p(two), p(two), p(two)]),
        ("d", true, vec![p(1.0), p(two), p(two)]),
        ("g", true, vec![p(1.0), p(two)]),
        ("h", false, vec![p(1.0), p(1.0)]),
    ];
    assert_eq!(steps.len(), expected.len(), "{steps:#?}");
    for (step, (removed, interesting, after)) in steps.iter().zip(expected) {
        assert_eq!(step.removed, removed, "{steps:#?}");
        assert_eq!(step.interesting, interesting, "{removed}");
        let after: Vec<Belief> = after;
        assert!(
            close(&step.after, &after),
            "{removed}: {:?} != {after:?}",
            step.after
        );
    }
    assert_eq!(result, "ch");
}

#[test]
fn cdd_on_the_worked_example_counts_as_the_paper_says() {
    let c = Belief::Counter;
    let (steps, result) = steps(BeliefModel::Cdd, "acef");
    let expected: [(&str, bool, Vec<Belief>); 12] = [
        ("abcd", false, [vec![c(1); 4], vec![c(0); 4]].concat()),
        ("efgh", false, vec![c(1); 8]),
        // Counter 1: p = 0.25 / (1 − 1/e) = 0.3955, size 2.
        ("ab", false, [vec![c(2); 2], vec![c(1); 6]].concat()),
        ("cd", false, [vec![c(2); 4], vec![c(1); 4]].concat()),
        ("ef", false, [vec![c(2); 6], vec![c(1); 2]].concat()),
        ("gh", true, vec![c(2); 6]),
        // Counter 2: p = 0.6257, size 1; a failure alone settles the unit.
        ("a", false, [vec![c(3)], vec![c(2); 5]].concat()),
        ("b", true, [vec![c(3)], vec![c(2); 4]].concat()),
        ("c", false, [vec![c(3); 2], vec![c(2); 3]].concat()),
        ("d", true, [vec![c(3); 2], vec![c(2); 2]].concat()),
        ("e", false, [vec![c(3); 3], vec![c(2)]].concat()),
        ("f", false, vec![c(3); 4]),
    ];
    assert_eq!(steps.len(), expected.len(), "{steps:#?}");
    for (step, (removed, interesting, after)) in steps.iter().zip(expected) {
        assert_eq!(
            (step.removed.as_str(), step.interesting, &step.after),
            (removed, interesting, &after)
        );
    }
    assert_eq!(result, "acef");
}

/// The artifact's histories (after its check of the empty list) through the tester: each
/// configuration tested, in order, without a cache; with one, repeats are not tested again.
#[test]
fn the_tester_judges_the_artifacts_sequence() {
    let input: Vec<i64> = (0..8).collect();
    let letters = |config: &Vec<i64>| word(config.iter().map(|&v| v as UnitId));
    let needs = |wanted: &'static [i64]| move |c: &[i64]| wanted.iter().all(|w| c.contains(w));
    let no_cache = CachePolicy {
        kind: CacheKind::None,
        ..CachePolicy::recommended()
    };
    let sequential = knobs(SplitFactor::Finite(2), 1, ParallelMode::Stable);
    let cases: [(BeliefModel, &'static [i64], &[&str]); 3] = [
        (
            BeliefModel::ProbDd,
            &[2, 7],
            &[
                "efgh", "abcd", "cdefgh", "efgh", "cdgh", "cd", "dgh", "cgh", "ch", "c",
            ],
        ),
        (
            BeliefModel::Cdd,
            &[2, 3, 7],
            &[
                "efgh", "abcd", "cdefgh", "efgh", "cdgh", "cd", "dgh", "cgh", "cdh", "cd",
            ],
        ),
        (
            BeliefModel::Cdd,
            &[0, 2, 4, 5],
            &[
                "efgh", "abcd", "cdefgh", "abefgh", "abcdgh", "abcdef", "bcdef", "acdef", "adef",
                "acef", "acf", "ace",
            ],
        ),
    ];
    for (model, needed, history) in cases {
        let run = belief_ints(
            &input,
            needs(needed),
            model,
            options(0.25),
            sequential,
            no_cache,
        );
        let tested: Vec<String> = run.tested.iter().map(letters).collect();
        assert_eq!(tested, history, "{model} keeping {needed:?}");
        assert_eq!(run.result, needed);
        let cached = belief_ints(
            &input,
            needs(needed),
            model,
            options(0.25),
            sequential,
            CachePolicy::recommended(),
        );
        assert_eq!(cached.result, needed);
        assert!(cached.stats.tests <= run.stats.tests);
    }
}

/// The counts the `cdd-vs-ddmin` lesson states: CDD and ddmin on a..h keeping c and h.
#[test]
fn the_lessons_counts_hold() {
    let input: Vec<i64> = (0..8).collect();
    let test = |c: &[i64]| c.contains(&2) && c.contains(&7);
    let sequential = knobs(SplitFactor::Finite(2), 1, ParallelMode::Stable);
    let cdd = belief_ints(
        &input,
        test,
        BeliefModel::Cdd,
        options(0.25),
        sequential,
        CachePolicy::recommended(),
    );
    let ddmin = ddmin_ints(
        &input,
        test,
        DdOptions::default(),
        sequential,
        CachePolicy::recommended(),
    );
    assert_eq!(cdd.result, [2, 7]);
    assert_eq!(ddmin.result, [2, 7]);
    assert_eq!((cdd.stats.tests, ddmin.stats.tests), (9, 15));
}

/// A random monotone test: interesting iff one of the cores is kept.
fn any_core(cores: Vec<Vec<i64>>) -> impl Fn(&[i64]) -> bool + Clone + Send + Sync + 'static {
    move |config: &[i64]| {
        cores
            .iter()
            .any(|core| core.iter().all(|x| config.contains(x)))
    }
}

fn cores_strategy() -> impl Strategy<Value = (usize, Vec<Vec<i64>>)> {
    (2usize..60).prop_flat_map(|len| {
        let core = proptest::collection::vec(0..len as i64, 1..4);
        (Just(len), proptest::collection::vec(core, 1..3))
    })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(48))]

    #[test]
    fn results_are_interesting_and_one_minimal_with_the_check(
        (len, cores) in cores_strategy(),
        p0 in prop_oneof![Just(0.1), Just(0.25), 0.05f64..0.6],
        seed in proptest::option::of(any::<u64>()),
        jobs in 1usize..4,
    ) {
        let input: Vec<i64> = (0..len as i64).collect();
        let test = any_core(cores);
        for model in [BeliefModel::ProbDd, BeliefModel::Cdd] {
            for final_check in [false, true] {
                let options = BeliefOptions { initial_probability: p0, seed, final_check, ..BeliefOptions::default() };
                let run = belief_ints(
                    &input,
                    test.clone(),
                    model,
                    options,
                    knobs(SplitFactor::Finite(2), jobs, ParallelMode::Stable),
                    CachePolicy::recommended(),
                );
                prop_assert!(test(&run.result), "{model}: {:?}", run.result);
                if final_check {
                    prop_assert!(is_one_minimal(&run.result, &test), "{model}: {:?}", run.result);
                }
                // The window changes only the tests run, never the result.
                let sequential = belief_ints(
                    &input,
                    test.clone(),
                    model,
                    options,
                    knobs(SplitFactor::Finite(2), 1, ParallelMode::Stable),
                    CachePolicy::recommended(),
                );
                prop_assert_eq!(&run.result, &sequential.result);
            }
        }
    }
}
