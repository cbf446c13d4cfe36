//! The papers' worked examples, reproduced exactly: mock examples A-D (Hodován & Kiss 2016,
//! Tables 1-3) and the dissertation's Table 4.1.

mod common;

use common::{ddmin_ints, is_one_minimal, knobs, mock_examples};
use whittle_core::exec::cache::{CacheKind, CachePolicy};
use whittle_core::params::{DdOptions, Knobs, ParallelMode, ReduceOrder, SplitFactor};

const ORDERS: [ReduceOrder; 3] = [
    ReduceOrder::SubsetsFirst,
    ReduceOrder::ComplementsFirst,
    ReduceOrder::ComplementsOnly,
];

#[test]
fn mock_examples_give_the_published_test_counts() {
    // (tests, cache hits, iterations) for subsets first, complements first, complements only.
    type Counts = (u64, u64, u64);
    let table: [(&str, [Counts; 3]); 4] = [
        ("A", [(22, 22, 8), (17, 5, 8), (14, 1, 8)]),
        ("B", [(26, 2, 3), (26, 2, 3), (14, 0, 3)]),
        ("C", [(30, 16, 5), (28, 3, 5), (18, 1, 5)]),
        ("D", [(472, 3237, 57), (422, 16, 57), (276, 0, 57)]),
    ];
    for example in mock_examples() {
        let (_, expected) = table
            .iter()
            .find(|(name, _)| *name == example.name)
            .unwrap();
        for (order, &(tests, hits, iterations)) in ORDERS.iter().zip(expected) {
            let run = ddmin_ints(
                &example.input,
                example.test,
                DdOptions {
                    order: *order,
                    ..DdOptions::default()
                },
                knobs(SplitFactor::Finite(2), 1, ParallelMode::Stable),
                CachePolicy::keep_everything(CacheKind::Config),
            );
            assert_eq!(run.result, example.expected, "{} {order}", example.name);
            assert_eq!(
                (run.stats.tests, run.stats.cache_hits, run.stats.iterations),
                (tests, hits, iterations),
                "example {} with {order}",
                example.name
            );
        }
    }
}

fn every_cache_policy() -> Vec<CachePolicy> {
    let mut policies = Vec::new();
    for kind in [
        CacheKind::None,
        CacheKind::Config,
        CacheKind::Content,
        CacheKind::Hash,
    ] {
        for store_interesting in [false, true] {
            for evict_larger in [false, true] {
                policies.push(CachePolicy {
                    kind,
                    store_interesting,
                    evict_larger,
                });
            }
        }
    }
    policies
}

#[test]
fn mock_examples_reach_their_one_minimal_result_under_every_setting() {
    let split_factors = [
        SplitFactor::Finite(2),
        SplitFactor::Finite(3),
        SplitFactor::Finite(4),
        SplitFactor::Infinite,
    ];
    for example in mock_examples() {
        for order in ORDERS {
            for nu in split_factors {
                for cache in every_cache_policy() {
                    let run = ddmin_ints(
                        &example.input,
                        example.test,
                        DdOptions {
                            order,
                            ..DdOptions::default()
                        },
                        knobs(nu, 1, ParallelMode::Stable),
                        cache,
                    );
                    assert_eq!(
                        run.result, example.expected,
                        "{} {order} ν={nu} {cache:?}",
                        example.name
                    );
                    assert!(is_one_minimal(&run.result, &example.test));
                }
            }
        }
    }
}

#[test]
fn table_4_1_sequence_is_reproduced_step_by_step() {
    use std::sync::Arc;
    use whittle_core::algorithms::dd::{self, TextDomain};
    use whittle_core::exec::oracle::predicate;
    use whittle_core::observe::trace::TraceWriter;
    use whittle_core::params::Direction;
    use whittle_core::testing::control::Control;
    use whittle_core::testing::tester::Tester;
    use whittle_core::text::atoms::{self, AtomKind};

    let expected = [
        ("12", "test", "not"),
        ("345", "test", "not"),
        ("123", "test", "not"),
        ("1245", "test", "interesting"),
        ("145", "test", "not"),
        ("245", "test", "interesting"),
        ("2", "test", "not"),
        ("45", "test", "not"),
        ("24", "test", "interesting"),
        ("2", "cache", "not"),
        ("4", "test", "not"),
    ];
    let oracle = predicate("2 and 4", |c: &[u8]| c.contains(&b'2') && c.contains(&b'4'));
    let control = Arc::new(Control::new(Knobs::default()));
    let mut tester = Tester::new(
        Arc::new(oracle),
        CachePolicy {
            kind: CacheKind::Content,
            store_interesting: false,
            evict_larger: true,
        },
        control,
    );
    let dir = tempfile::tempdir().unwrap();
    let trace_path = dir.path().join("trace.jsonl");
    tester.set_trace(Some(TraceWriter::create(&trace_path).unwrap()));
    let input = b"12345".to_vec();
    tester.set_best(input.clone());
    let domain = TextDomain::new(&input, atoms::split(&input, AtomKind::Char));
    let options = DdOptions {
        order: ReduceOrder::ComplementsOnly,
        complement_direction: Direction::Backward,
        ..DdOptions::default()
    };
    dd::ddmin(&domain, (0..5).collect(), &mut tester, &options).unwrap();
    assert_eq!(tester.best(), b"24");
    tester.set_trace(None);

    let trace = std::fs::read_to_string(&trace_path).unwrap();
    let lines: Vec<serde_json::Value> = trace
        .lines()
        .map(|line| serde_json::from_str(line).unwrap())
        .collect();
    assert_eq!(lines.len(), expected.len(), "{trace}");
    for (step, (line, (content, action, outcome))) in lines.iter().zip(expected).enumerate() {
        assert_eq!(line["step"], step as u64 + 1);
        assert_eq!(line["content"], content, "step {}", step + 1);
        assert_eq!(line["action"], action, "step {}", step + 1);
        assert_eq!(line["outcome"], outcome, "step {}", step + 1);
        assert_eq!(
            line["content_sha3"],
            whittle_core::exec::cache::sha3_hex(content.as_bytes())
        );
    }
}

#[test]
fn mock_examples_under_every_parallel_mode_and_window() {
    let modes = [
        ParallelMode::First,
        ParallelMode::Stable,
        ParallelMode::Combined,
        ParallelMode::Greedy,
    ];
    for example in mock_examples() {
        for order in ORDERS {
            let base = DdOptions {
                order,
                ..DdOptions::default()
            };
            let policy = CachePolicy::recommended();
            let sequential = ddmin_ints(
                &example.input,
                example.test,
                base,
                knobs(SplitFactor::Finite(2), 1, ParallelMode::Stable),
                policy,
            );
            for parallel in modes {
                for jobs in [1, 2, 3, 8] {
                    let run = ddmin_ints(
                        &example.input,
                        example.test,
                        base,
                        knobs(SplitFactor::Finite(2), jobs, parallel),
                        policy,
                    );
                    let label = format!("{} {order} {parallel} -j {jobs}", example.name);
                    assert!((example.test)(&run.result), "{label}");
                    assert!(is_one_minimal(&run.result, &example.test), "{label}");
                    if jobs == 1 {
                        assert_eq!(run.tested, sequential.tested, "{label}: -j 1 is sequential");
                        assert_eq!(run.stats.tests, sequential.stats.tests, "{label}");
                        assert_eq!(run.stats.cache_hits, sequential.stats.cache_hits, "{label}");
                    }
                    if matches!(parallel, ParallelMode::Stable | ParallelMode::Combined) {
                        assert_eq!(run.result, sequential.result, "{label}");
                    }
                    if matches!(parallel, ParallelMode::Stable | ParallelMode::Greedy) {
                        let again = ddmin_ints(
                            &example.input,
                            example.test,
                            base,
                            knobs(SplitFactor::Finite(2), jobs, parallel),
                            policy,
                        );
                        assert_eq!(again.result, run.result, "{label}: deterministic");
                    }
                }
            }
        }
    }
}

#[test]
fn greedy_needs_fewer_tests_than_stable_when_windows_hold_several_interesting_complements() {
    let d = mock_examples().into_iter().find(|e| e.name == "D").unwrap();
    let run = |parallel| {
        let options = DdOptions {
            order: ReduceOrder::ComplementsOnly,
            ..DdOptions::default()
        };
        ddmin_ints(
            &d.input,
            d.test,
            options,
            knobs(SplitFactor::Finite(2), 4, parallel),
            CachePolicy::recommended(),
        )
    };
    let stable = run(ParallelMode::Stable);
    let greedy = run(ParallelMode::Greedy);
    assert_eq!(greedy.result, d.expected);
    assert!(
        greedy.stats.tests < stable.stats.tests,
        "greedy {} vs stable {}",
        greedy.stats.tests,
        stable.stats.tests
    );
    assert!(greedy.stats.iterations < stable.stats.iterations);
}
