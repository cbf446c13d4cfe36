//! Engine benchmarks with in-process, zero-cost tests: ddmin over 10^3, 10^4 and 10^5 line units
//! keeping 1% of them (spread over the input), so the engine's cost per test and its growth with
//! the input size are visible; and the parallel window's overhead against the sequential path.

use std::hint::black_box;
use std::sync::Arc;

use criterion::{BenchmarkId, Criterion, Throughput, criterion_group, criterion_main};
use whittle_core::algorithms::dd::{self, TextDomain};
use whittle_core::exec::cache::{CacheKind, CachePolicy, UnitId};
use whittle_core::exec::oracle::predicate;
use whittle_core::params::{DdOptions, Knobs, ParallelMode, SplitFactor};
use whittle_core::testing::control::Control;
use whittle_core::testing::tester::Tester;
use whittle_core::text::atoms::{self, AtomKind};

/// `units` lines; every 100th (a `keep` line) is needed. Returns the text and how many are needed.
fn input(units: usize) -> (Vec<u8>, usize) {
    let text: String = (0..units)
        .map(|i| {
            if i % 100 == 0 {
                format!("keep {i:06}\n")
            } else {
                format!("line {i:06}\n")
            }
        })
        .collect();
    (text.into_bytes(), units.div_ceil(100))
}

/// Runs ddmin once; returns the number of tests.
fn run(text: &[u8], needed: usize, cache: CacheKind, jobs: usize, parallel: ParallelMode) -> u64 {
    run_with(text, needed, cache, jobs, parallel, true)
}

/// Like [`run`]; `adaptive` lets the tester run windows of trivial tests inline.
fn run_with(
    text: &[u8],
    needed: usize,
    cache: CacheKind,
    jobs: usize,
    parallel: ParallelMode,
    adaptive: bool,
) -> u64 {
    // Candidates are subsequences of the input's lines, so counting the `keep` lines suffices;
    // the check is one linear scan, cheaper than any real test.
    let oracle = predicate("contains the needed lines", move |candidate: &[u8]| {
        candidate
            .split(|&b| b == b'\n')
            .filter(|line| line.first() == Some(&b'k'))
            .count()
            == needed
    });
    let policy = CachePolicy {
        kind: cache,
        ..CachePolicy::recommended()
    };
    let mut tester = Tester::new(
        Arc::new(oracle),
        policy,
        Arc::new(Control::new(Knobs {
            split_factor: SplitFactor::Finite(2),
            jobs,
            parallel,
        })),
    );
    tester.adopt_jobs().expect("thread pool");
    if !adaptive {
        tester.set_inline_below(None);
    }
    tester.set_best(text.to_vec());
    let domain = TextDomain::new(text, atoms::split(text, AtomKind::Line));
    let units: Vec<UnitId> = (0..domain.unit_count() as UnitId).collect();
    let result = dd::ddmin(&domain, units, &mut tester, &DdOptions::default()).expect("no stop");
    black_box(result);
    tester.stats().tests
}

fn ddmin_scaling(c: &mut Criterion) {
    let mut group = c.benchmark_group("ddmin");
    group.sample_size(10);
    group.warm_up_time(std::time::Duration::from_millis(500));
    for units in [1_000usize, 10_000] {
        let (text, needed) = input(units);
        for cache in [CacheKind::None, CacheKind::Hash] {
            let tests = run(&text, needed, cache, 1, ParallelMode::Stable);
            eprintln!("ddmin over {units} units, cache {cache}: {tests} tests per run");
            group.throughput(Throughput::Elements(tests));
            group.bench_with_input(
                BenchmarkId::new(format!("cache-{cache}"), units),
                &units,
                |b, _| b.iter(|| run(&text, needed, cache, 1, ParallelMode::Stable)),
            );
        }
    }
    group.finish();
    // 10^5 units take minutes per run: measured once, outside criterion's repetitions.
    let units = 100_000;
    let (text, needed) = input(units);
    for cache in [CacheKind::None, CacheKind::Hash] {
        let start = std::time::Instant::now();
        let tests = run(&text, needed, cache, 1, ParallelMode::Stable);
        let elapsed = start.elapsed();
        eprintln!(
            "ddmin/cache-{cache}/{units} (single run): {tests} tests in {:.1}s, {:.0} tests/s, {:.1} µs per test",
            elapsed.as_secs_f64(),
            tests as f64 / elapsed.as_secs_f64(),
            elapsed.as_secs_f64() * 1e6 / tests as f64
        );
    }
}

fn parallel_overhead(c: &mut Criterion) {
    let mut group = c.benchmark_group("window");
    group.sample_size(10);
    let (text, needed) = input(2_000);
    for (jobs, mode, adaptive) in [
        (1, ParallelMode::Stable, false),
        (2, ParallelMode::Stable, false),
        (2, ParallelMode::First, false),
        (2, ParallelMode::Greedy, false),
        (2, ParallelMode::Stable, true),
    ] {
        let tests = run_with(&text, needed, CacheKind::Hash, jobs, mode, adaptive);
        let name = if jobs == 1 {
            "sequential".to_string()
        } else if adaptive {
            format!("{mode}-j{jobs}-adaptive")
        } else {
            format!("{mode}-j{jobs}-pool")
        };
        group.throughput(Throughput::Elements(tests));
        group.bench_function(name, |b| {
            b.iter(|| run_with(&text, needed, CacheKind::Hash, jobs, mode, adaptive))
        });
    }
    group.finish();
}

criterion_group!(benches, ddmin_scaling, parallel_overhead);
criterion_main!(benches);
