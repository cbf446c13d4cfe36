//! The chunk sweep: exact tests on small configurations, the mock examples' 1-minimal results,
//! and fewer tests than ddmin where few units stay and they are far apart.

mod common;

use common::{ddmin_ints, is_one_minimal, knobs, mock_examples, sweep_ints};
use whittle_core::exec::cache::{CacheKind, CachePolicy};
use whittle_core::params::{DdOptions, ParallelMode, SplitFactor};

const NO_CACHE: CachePolicy = CachePolicy {
    kind: CacheKind::None,
    store_interesting: false,
    evict_larger: false,
};

fn sequential() -> whittle_core::params::Knobs {
    knobs(SplitFactor::Finite(2), 1, ParallelMode::Stable)
}

#[test]
fn a_sweep_doubles_runs_from_the_end_halves_them_on_failure_and_never_across_a_needed_unit() {
    let run = sweep_ints(
        &(0..8).collect::<Vec<_>>(),
        |c| c.contains(&2),
        sequential(),
        NO_CACHE,
    );
    assert_eq!(run.result, [2]);
    let expected: Vec<Vec<i64>> = vec![
        // Run 1 at the end, then 2, then 4 (which would take 2) and its half.
        vec![0, 1, 2, 3, 4, 5, 6],
        vec![0, 1, 2, 3, 4],
        vec![0],
        vec![0, 1, 2],
        // 1 and 2 hold a needed unit (4 failed, its half passed): the next run is half of
        // them (2 alone), not all 3 units left; it fails, and the single before it goes.
        vec![0, 1],
        vec![0, 2],
        vec![2],
        // The second sweep removes nothing: [2] is 1-minimal.
        vec![],
    ];
    assert_eq!(run.tested, expected);
}

#[test]
fn sweeps_find_the_mock_examples_one_minimal_results_with_any_number_of_jobs() {
    for example in mock_examples() {
        for jobs in [1, 2, 4] {
            let run = sweep_ints(
                &example.input,
                example.test,
                knobs(SplitFactor::Finite(2), jobs, ParallelMode::Stable),
                CachePolicy::recommended(),
            );
            assert_eq!(
                run.result, example.expected,
                "{} with {jobs} jobs",
                example.name
            );
            assert!(is_one_minimal(&run.result, &example.test));
        }
    }
}

#[test]
fn a_sweep_needs_fewer_tests_than_ddmin_when_units_depend_on_the_ones_before() {
    // Definitions used by what follows them: each unit but every seventh needs the one before,
    // so removing a unit is interesting only with the units after it in its chain gone, and
    // most of ddmin's complements cut a chain.
    let input: Vec<i64> = (0..128).collect();
    let wanted = [5i64, 40, 90, 127];
    let test = move |c: &[i64]| {
        wanted.iter().all(|w| c.contains(w))
            && c.iter().all(|&x| x % 7 == 0 || c.contains(&(x - 1)))
    };
    let expected = [
        0i64, 1, 2, 3, 4, 5, 35, 36, 37, 38, 39, 40, 84, 85, 86, 87, 88, 89, 90, 126, 127,
    ];
    let sweep = sweep_ints(&input, test, sequential(), CachePolicy::recommended());
    let ddmin = ddmin_ints(
        &input,
        test,
        DdOptions::scheduled(),
        sequential(),
        CachePolicy::recommended(),
    );
    assert_eq!(sweep.result, expected);
    assert_eq!(ddmin.result, expected);
    assert!(
        sweep.stats.tests * 2 < ddmin.stats.tests,
        "sweep {} tests, ddmin {}",
        sweep.stats.tests,
        ddmin.stats.tests
    );
}
