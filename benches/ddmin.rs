//! Engine benchmarks with in-process, zero-cost tests: ddmin over 10^3, 10^4 and 10^5 line units
//! keeping 1% of them (spread over the input), so the engine's cost per test and its growth with
//! the input size are visible; and the parallel window's overhead against the sequential path.

use std::hint::black_box;
use std::sync::Arc;

use criterion::{BenchmarkId, Criterion, Throughput, criterion_group, criterion_main};
use whittle::atoms::{self, AtomKind};
use whittle::cache::{CacheKind, CachePolicy, UnitId};
use whittle::control::{Control, SplitFactor};
use whittle::dd::{self, DdOptions, ParallelMode, TextDomain};
use whittle::oracle::predicate;
use whittle::tester::Tester;

/// `units` lines; every 100th is needed.
fn input(units: usize) -> (Vec<u8>, Vec<Vec<u8>>) {
    let text: String = (0..units).map(|i| format!("line {i:06}\n")).collect();
    let needed = (0..units)
        .step_by(100)
        .map(|i| format!("line {i:06}\n").into_bytes())
        .collect();
    (text.into_bytes(), needed)
}

/// Runs ddmin once; returns the number of tests.
fn run(
    text: &[u8],
    needed: &Arc<Vec<Vec<u8>>>,
    cache: CacheKind,
    jobs: usize,
    parallel: ParallelMode,
) -> u64 {
    let needed = Arc::clone(needed);
    let oracle = predicate("contains the needed lines", move |candidate: &[u8]| {
        // The needed lines are in order; check them with one forward scan.
        let mut rest = candidate;
        needed.iter().all(|line| match find(rest, line) {
            Some(at) => {
                rest = &rest[at + line.len()..];
                true
            }
            None => false,
        })
    });
    let policy = CachePolicy {
        kind: cache,
        ..CachePolicy::recommended()
    };
    let mut tester = Tester::new(
        Arc::new(oracle),
        policy,
        Arc::new(Control::new(SplitFactor::Finite(2))),
    );
    tester.set_jobs(jobs).expect("thread pool");
    tester.set_best(text.to_vec());
    let domain = TextDomain::new(text, atoms::split(text, AtomKind::Line));
    let units: Vec<UnitId> = (0..domain.unit_count() as UnitId).collect();
    let options = DdOptions {
        parallel,
        ..DdOptions::default()
    };
    let result = dd::ddmin(&domain, units, &mut tester, &options).expect("no stop");
    black_box(result);
    tester.stats().tests
}

fn find(haystack: &[u8], needle: &[u8]) -> Option<usize> {
    haystack.windows(needle.len()).position(|w| w == needle)
}

fn ddmin_scaling(c: &mut Criterion) {
    let mut group = c.benchmark_group("ddmin");
    group.sample_size(10);
    for units in [1_000usize, 10_000, 100_000] {
        let (text, needed) = input(units);
        let needed = Arc::new(needed);
        for cache in [CacheKind::None, CacheKind::Hash] {
            let tests = run(&text, &needed, cache, 1, ParallelMode::Stable);
            group.throughput(Throughput::Elements(tests));
            group.bench_with_input(
                BenchmarkId::new(format!("cache-{cache}"), units),
                &units,
                |b, _| b.iter(|| run(&text, &needed, cache, 1, ParallelMode::Stable)),
            );
        }
    }
    group.finish();
}

fn parallel_overhead(c: &mut Criterion) {
    let mut group = c.benchmark_group("window");
    group.sample_size(10);
    let (text, needed) = input(2_000);
    let needed = Arc::new(needed);
    for (jobs, mode) in [
        (1, ParallelMode::Stable),
        (2, ParallelMode::Stable),
        (2, ParallelMode::First),
        (2, ParallelMode::Greedy),
    ] {
        let tests = run(&text, &needed, CacheKind::Hash, jobs, mode);
        group.throughput(Throughput::Elements(tests));
        group.bench_function(format!("{mode}-j{jobs}"), |b| {
            b.iter(|| run(&text, &needed, CacheKind::Hash, jobs, mode))
        });
    }
    group.finish();
}

criterion_group!(benches, ddmin_scaling, parallel_overhead);
criterion_main!(benches);
