//! Text stages on one long line (minified JSON and JavaScript of 400 KB): how long `tokens` and
//! `brackets` take to work out their first batch of candidates, and the engine's time from the
//! start of the stage to its first test (an in-process test that is never interesting, so the
//! run stops there with `--limit-tests 1`). Either must stay far under a second: a stage whose
//! candidate generation is quadratic in the length of a line takes minutes here.

use std::hint::black_box;
use std::sync::Arc;
use std::time::{Duration, Instant};

use criterion::{BenchmarkId, Criterion, criterion_group, criterion_main};
use whittle_core::algorithms::passes::brackets::BalancedRegions;
use whittle_core::algorithms::passes::edit::EDITS_PER_BATCH;
use whittle_core::algorithms::passes::tokens::TokenWindows;
use whittle_core::algorithms::passes::{EditOptions, EditRequest, EditStage, Syntax, TextStage};
use whittle_core::algorithms::pins::Pins;
use whittle_core::exec::cache::CachePolicy;
use whittle_core::exec::oracle::predicate;
use whittle_core::params::Knobs;
use whittle_core::testing::control::{Control, Stop};
use whittle_core::testing::tester::{Limits, Tester};

/// The size of each input.
const BYTES: usize = 400_000;

/// A JSON array of small objects on one line, `BYTES` long or a little more.
fn minified_json() -> Vec<u8> {
    let mut text = b"[".to_vec();
    let mut i = 0u64;
    while text.len() < BYTES {
        let value = (i.wrapping_mul(2_654_435_761) % 1_000_003) as f64 / 1_000_003.0;
        text.extend(format!("{{\"k{i}\": [{value}, \"abc\", null, {{\"n\": {i}}}]}}, ").bytes());
        i += 1;
    }
    text.extend(b"{}]\n");
    text
}

/// Minified JavaScript on one line: short names, calls, nested brackets, strings.
fn minified_javascript() -> Vec<u8> {
    let mut text = b"\"use strict\";".to_vec();
    let mut i = 0u64;
    while text.len() < BYTES {
        text.extend(
            format!(
                "function f{i}(a,b){{return a&&b?{{x:a,y:[b,1,\"s{i}\"]}}:g(b,a)}}\
                 var d{i}=f{i}(1,[2,3]),e{i}=g(d{i}.x,function(c){{return c+{i}}});"
            )
            .bytes(),
        );
        i += 1;
    }
    text.push(b'\n');
    text
}

fn never_stop() -> Result<(), Stop> {
    Ok(())
}

/// The stage's first batch of edits on `text`, as a round asks for it.
fn first_batch(stage: &dyn EditStage, text: &[u8]) -> usize {
    let request = EditRequest::new(0, EDITS_PER_BATCH, &never_stop);
    stage
        .edits_for(text, &request)
        .map(|edits| edits.len())
        .unwrap_or(0)
}

/// Runs the text stage on `text` until its first test (a test that is never interesting, and a
/// limit of one test); returns the time to that test and whether the stop was the limit.
fn time_to_first_test(stage: TextStage, text: &[u8], language: &str) -> Duration {
    let oracle = predicate("never interesting", |_: &[u8]| false);
    let mut tester = Tester::new(
        Arc::new(oracle),
        CachePolicy::recommended(),
        Arc::new(Control::new(Knobs {
            jobs: 1,
            ..Knobs::default()
        })),
    );
    tester.set_best(text.to_vec());
    tester.set_limits(Limits {
        tests: Some(1),
        ..Limits::default()
    });
    let language = whittle_core::tree::Language::by_name(language).ok();
    let start = Instant::now();
    let result = stage.run(
        &mut tester,
        language,
        &Pins::default,
        EditOptions {
            fixpoint: true,
            greedy: false,
        },
    );
    let elapsed = start.elapsed();
    assert!(
        matches!(result, Err(Stop::Limit(_))),
        "the stage ends at its limit of one test: {result:?}"
    );
    assert_eq!(tester.stats().tests, 1);
    elapsed
}

fn candidate_generation(c: &mut Criterion) {
    let inputs = [
        ("json", Syntax::Json, minified_json()),
        ("javascript", Syntax::JavaScript, minified_javascript()),
    ];
    let mut group = c.benchmark_group("long-line-first-batch");
    group.sample_size(10);
    group.warm_up_time(Duration::from_millis(500));
    for (name, syntax, text) in &inputs {
        let tokens = TokenWindows::new(*syntax);
        let language = whittle_core::tree::Language::by_name(name).ok();
        let brackets = BalancedRegions {
            syntax: *syntax,
            language,
        };
        let stages: [(&str, &dyn EditStage); 2] = [("tokens", &tokens), ("brackets", &brackets)];
        for (stage_name, stage) in stages {
            eprintln!(
                "{stage_name} on one line of {name} ({} bytes): {} edits in the first batch",
                text.len(),
                first_batch(stage, text)
            );
            group.bench_with_input(BenchmarkId::new(stage_name, name), text, |b, text| {
                b.iter(|| black_box(first_batch(stage, text)))
            });
        }
    }
    group.finish();

    let mut group = c.benchmark_group("long-line-first-test");
    group.sample_size(10);
    group.warm_up_time(Duration::from_millis(500));
    for (name, _, text) in &inputs {
        for stage in [TextStage::Tokens, TextStage::Brackets] {
            let once = time_to_first_test(stage, text, name);
            eprintln!(
                "{stage} on one line of {name} ({} bytes): first test after {:.3} s",
                text.len(),
                once.as_secs_f64()
            );
            group.bench_with_input(BenchmarkId::new(stage.name(), name), text, |b, text| {
                b.iter(|| time_to_first_test(stage, text, name))
            });
        }
    }
    group.finish();
}

criterion_group!(benches, candidate_generation);
criterion_main!(benches);
