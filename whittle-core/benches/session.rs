//! The cost of steering: the same ddmin run with a zero-cost in-process test, bare (no events),
//! with events consumed by another thread, and inside a full engine session (choke point,
//! events, snapshot statistics, history); the same for a tree stage (HDD^r), whose events also
//! tell where each candidate's nodes are; and how soon a pause takes effect when each test takes
//! 20 ms.

use std::hint::black_box;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use whittle_core::algorithms::dd::{self, TextDomain};
use whittle_core::engine::job::Job;
use whittle_core::engine::pipeline::{Pipeline, Settings};
use whittle_core::engine::session::{Command, Session, SessionOptions};
use whittle_core::exec::cache::{CachePolicy, UnitId};
use whittle_core::exec::oracle::{Oracle, predicate};
use whittle_core::params::{DdOptions, Knobs};
use whittle_core::testing::control::Control;
use whittle_core::testing::tester::Tester;
use whittle_core::text::atoms::{self, AtomKind};

const UNITS: usize = 2_000;

fn input() -> Vec<u8> {
    (0..UNITS)
        .map(|i| {
            if i % 50 == 0 {
                format!("keep {i:05}\n")
            } else {
                format!("line {i:05}\n")
            }
        })
        .collect::<String>()
        .into_bytes()
}

fn needed() -> usize {
    UNITS.div_ceil(50)
}

fn is_interesting(candidate: &[u8]) -> bool {
    candidate
        .split(|&b| b == b'\n')
        .filter(|line| line.first() == Some(&b'k'))
        .count()
        == needed()
}

fn settings() -> Settings {
    Settings {
        atoms: vec![AtomKind::Line],
        fixpoint: false,
        jobs: 1,
        cache: CachePolicy::recommended(),
        ..Settings::default()
    }
}

/// A tester of `oracle` whose best is `text`; with `events`, a thread drains its event channel.
fn drained_tester(
    oracle: Arc<dyn Oracle>,
    text: &[u8],
    events: bool,
) -> (Tester, Option<std::thread::JoinHandle<usize>>) {
    let control = Arc::new(Control::new(Knobs::default()));
    let mut tester = Tester::new(oracle, CachePolicy::recommended(), control);
    let drain = events.then(|| {
        let (tx, rx) = crossbeam_channel::unbounded();
        tester.set_events(Some(tx));
        std::thread::spawn(move || rx.iter().count())
    });
    tester.set_best(text.to_vec());
    (tester, drain)
}

/// The tests `tester` ran, once the thread draining its events (if any) has seen them all.
fn tests_run(tester: Tester, drain: Option<std::thread::JoinHandle<usize>>) -> u64 {
    let tests = tester.stats().tests;
    drop(tester);
    if let Some(drain) = drain {
        black_box(drain.join().expect("drain thread"));
    }
    tests
}

/// ddmin with the bare tester; with `events`, a thread drains the event channel.
fn bare(text: &[u8], events: bool) -> u64 {
    let oracle = predicate("keep lines", is_interesting);
    let (mut tester, drain) = drained_tester(Arc::new(oracle), text, events);
    let domain = TextDomain::new(text, atoms::split(text, AtomKind::Line));
    let units: Vec<UnitId> = (0..domain.unit_count() as UnitId).collect();
    black_box(dd::ddmin(&domain, units, &mut tester, &DdOptions::default()).expect("no stop"));
    tests_run(tester, drain)
}

/// Starts a ddmin session on `text` with `settings` and `oracle`.
fn start_session(text: &[u8], settings: Settings, oracle: Arc<dyn Oracle>) -> Session {
    let settings = Settings {
        algorithm: Some(Pipeline::ddmin()),
        ..settings
    };
    let job = Job::new(text.to_vec(), settings);
    let options = SessionOptions {
        exit_when_done: true,
        start_in_step_mode: false,
        start_paused: false,
    };
    Session::start(job, oracle, options).expect("session")
}

/// The same reduction in a session (preflight checks included), events drained.
fn session(text: &[u8]) -> u64 {
    let oracle = Arc::new(predicate("keep lines", is_interesting));
    let session = start_session(text, settings(), oracle);
    let events = session.events().clone();
    let drain = std::thread::spawn(move || events.iter().count());
    let report = session.wait().expect("engine");
    black_box(drain.join().expect("drain thread"));
    report.finished.stats.tests
}

/// Starts a session whose test takes `test_time` and counts its calls in `calls`.
fn slow_session(text: &[u8], test_time: Duration, calls: Arc<AtomicUsize>) -> Session {
    let settings = Settings {
        cache: CachePolicy {
            kind: whittle_core::exec::cache::CacheKind::None,
            ..CachePolicy::recommended()
        },
        ..settings()
    };
    let oracle = Arc::new(predicate("slow keep lines", move |candidate: &[u8]| {
        calls.fetch_add(1, Ordering::SeqCst);
        std::thread::sleep(test_time);
        is_interesting(candidate)
    }));
    start_session(text, settings, oracle)
}

/// Sends `Pause` while tests of 20 ms run and prints how long the engine took to stop testing,
/// and how many tests began after the command (at most the one running: none).
fn pause_latency(_: &mut Criterion) {
    let text = input();
    let test_time = Duration::from_millis(20);
    let mut latencies = Vec::new();
    let mut begun_after_pause = 0;
    for round in 0..20 {
        let calls = Arc::new(AtomicUsize::new(0));
        let session = slow_session(&text, test_time, Arc::clone(&calls));
        let events = session.events().clone();
        let drain = std::thread::spawn(move || events.iter().count());
        // Vary the moment of the pause across a test's duration.
        std::thread::sleep(Duration::from_millis(100 + 3 * round));
        let sent = Instant::now();
        let calls_at_pause = calls.load(Ordering::SeqCst);
        session.send(Command::Pause);
        while !session.snapshot().parked {
            std::thread::sleep(Duration::from_micros(200));
        }
        latencies.push(sent.elapsed());
        let calls_when_parked = calls.load(Ordering::SeqCst);
        std::thread::sleep(Duration::from_millis(200));
        assert_eq!(
            calls.load(Ordering::SeqCst),
            calls_when_parked,
            "a test ran while paused"
        );
        begun_after_pause += calls_when_parked - calls_at_pause;
        session.send(Command::Stop);
        drop(session.wait());
        drop(drain.join());
    }
    latencies.sort();
    eprintln!(
        "pause with {test_time:?} tests: parked after median {:.1?}, max {:.1?} over {} pauses; \
         tests begun after the command: {begun_after_pause}",
        latencies[latencies.len() / 2],
        latencies[latencies.len() - 1],
        latencies.len(),
    );
}

fn steering_overhead(c: &mut Criterion) {
    let text = input();
    let mut group = c.benchmark_group("steering");
    group.sample_size(20);
    let tests = bare(&text, false);
    group.throughput(Throughput::Elements(tests));
    group.bench_function("tester", |b| b.iter(|| bare(&text, false)));
    group.bench_function("tester+events", |b| b.iter(|| bare(&text, true)));
    group.bench_function("session", |b| b.iter(|| session(&text)));
    group.finish();
}

/// A JSON document of `objects` objects, one of which holds the marker the test wants.
#[cfg(feature = "lang-json")]
fn json_input(objects: usize) -> Vec<u8> {
    let items: Vec<String> = (0..objects)
        .map(|i| {
            let name = if i == objects / 2 { "keep" } else { "item" };
            format!("  {{\"name\": \"{name}\", \"id\": {i}, \"tags\": [1, 2, 3]}}")
        })
        .collect();
    format!("[\n{}\n]\n", items.join(",\n")).into_bytes()
}

/// HDD^r once over `text` with the bare tester; with `events`, a thread drains the events
/// (and the candidates tell where their nodes are).
#[cfg(feature = "lang-json")]
fn tree_run(text: &[u8], events: bool) -> u64 {
    use whittle_core::algorithms::hdd::{self, PinSource, TreeContext};
    struct NoPins;
    impl PinSource for NoPins {
        fn pinned_nodes(
            &self,
            _: &Arc<whittle_core::tree::Tree>,
        ) -> Vec<whittle_core::tree::NodeId> {
            Vec::new()
        }
    }
    let language = whittle_core::tree::Language::by_name("json").expect("json");
    let oracle = predicate("keeps the marker", |candidate: &[u8]| {
        candidate.windows(4).any(|window| window == b"keep")
    });
    let (mut tester, drain) = drained_tester(Arc::new(oracle), text, events);
    let context = TreeContext {
        language,
        dd: &DdOptions::default(),
        belief: &Default::default(),
        fixpoint: false,
        pins: &NoPins,
        keep_loop_control: false,
    };
    hdd::run(&mut tester, "hddr".parse().expect("hddr"), &context, "hddr").expect("no stop");
    tests_run(tester, drain)
}

#[cfg(feature = "lang-json")]
fn tree_steering_overhead(c: &mut Criterion) {
    let text = json_input(150);
    let mut group = c.benchmark_group("tree_steering");
    group.sample_size(10);
    let tests = tree_run(&text, false);
    assert_eq!(tests, tree_run(&text, true), "spans change no choice");
    group.throughput(Throughput::Elements(tests));
    group.bench_function("tester", |b| b.iter(|| tree_run(&text, false)));
    group.bench_function("tester+events+spans", |b| b.iter(|| tree_run(&text, true)));
    group.finish();
}

#[cfg(not(feature = "lang-json"))]
fn tree_steering_overhead(_: &mut Criterion) {}

criterion_group!(
    benches,
    steering_overhead,
    tree_steering_overhead,
    pause_latency
);
criterion_main!(benches);
