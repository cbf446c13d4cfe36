//! Helpers shared by the integration tests: in-process reductions of integer configurations
//! and the built-in examples as sessions (here), a private work directory with its scripts and
//! processes (`safety`), campaigns of `whittle batch` (`batch`) and the inputs of the tree tests
//! (`tree`), in-process reductions of a text (`job`), the binary run in a plain directory (`cli`), the terminal UI drawn on a test terminal (`tui`), a case of several files with the UI over it (`case`). Every test binary declares `mod common;` and uses what it needs of it.
#![allow(dead_code)]

pub mod batch;
pub mod case;
pub mod cli;
pub mod job;
pub mod safety;
pub mod tree;
pub mod tui;

/// How long a test waits at most for the engine to settle or the tree to be parsed (generous:
/// the machine may be loaded).
pub const PATIENCE: std::time::Duration = std::time::Duration::from_secs(60);

/// The events a session sends on `events` until one satisfies `until` (that one included);
/// panics with the events so far when none does within [`PATIENCE`].
pub fn events_until(
    events: &crossbeam_channel::Receiver<whittle_core::observe::events::Event>,
    mut until: impl FnMut(&whittle_core::observe::events::Event) -> bool,
) -> Vec<whittle_core::observe::events::Event> {
    let deadline = std::time::Instant::now() + PATIENCE;
    let mut seen = Vec::new();
    loop {
        let left = deadline.saturating_duration_since(std::time::Instant::now());
        let event = events
            .recv_timeout(left)
            .unwrap_or_else(|_| panic!("no such event within {PATIENCE:?}; got {seen:?}"));
        let done = until(&event);
        seen.push(event);
        if done {
            return seen;
        }
    }
}

use std::sync::Arc;

use whittle_core::algorithms::dd::{self, TextDomain};
use whittle_core::engine::demo::{Example, examples};
use whittle_core::engine::session::SessionOptions;
use whittle_core::exec::cache::{CachePolicy, UnitId};
use whittle_core::exec::oracle::predicate;
use whittle_core::observe::stats::Stats;
use whittle_core::params::{DdOptions, Knobs, ParallelMode, SplitFactor};
use whittle_core::testing::control::Control;
use whittle_core::testing::tester::Tester;
use whittle_core::text::atoms::{self, AtomKind};

/// A configuration of integers as a test case: one number per line.
pub fn encode(values: &[i64]) -> Vec<u8> {
    values
        .iter()
        .map(|v| format!("{v}\n"))
        .collect::<String>()
        .into_bytes()
}

/// The integers of a test case made by [`encode`] (or a subset of its lines).
pub fn decode(content: &[u8]) -> Vec<i64> {
    std::str::from_utf8(content)
        .expect("test cases of integers are UTF-8")
        .lines()
        .map(|line| line.parse().expect("one integer per line"))
        .collect()
}

/// What one in-process ddmin run produced.
pub struct Run {
    pub result: Vec<i64>,
    pub stats: Stats,
    /// Every configuration the predicate was asked about, in order.
    pub tested: Vec<Vec<i64>>,
}

/// Runs one ddmin (no fixed point) over `values` with line units and an in-process predicate
/// on the decoded integers.
pub fn ddmin_ints(
    values: &[i64],
    interesting: impl Fn(&[i64]) -> bool + Send + Sync + 'static,
    options: DdOptions,
    knobs: Knobs,
    cache: CachePolicy,
) -> Run {
    reduce_ints(
        values,
        interesting,
        knobs,
        cache,
        |domain, units, tester| dd::ddmin(domain, units, tester, &options).map(drop),
    )
}

/// Runs chunk sweeps (to their fixed point) over `values` like [`ddmin_ints`].
pub fn sweep_ints(
    values: &[i64],
    interesting: impl Fn(&[i64]) -> bool + Send + Sync + 'static,
    knobs: Knobs,
    cache: CachePolicy,
) -> Run {
    reduce_ints(
        values,
        interesting,
        knobs,
        cache,
        |domain, units, tester| {
            whittle_core::algorithms::sweep::sweep(domain, units, tester).map(drop)
        },
    )
}

/// Runs ProbDD or CDD (one search, no fixed point) over `values` like [`ddmin_ints`].
pub fn belief_ints(
    values: &[i64],
    interesting: impl Fn(&[i64]) -> bool + Send + Sync + 'static,
    model: whittle_core::params::BeliefModel,
    options: whittle_core::params::BeliefOptions,
    knobs: Knobs,
    cache: CachePolicy,
) -> Run {
    reduce_ints(
        values,
        interesting,
        knobs,
        cache,
        move |domain, units, tester| {
            whittle_core::algorithms::probdd::minimize(domain, units, tester, model, &options)
                .map(drop)
        },
    )
}

/// Runs `reduce` over `values` with line units and an in-process predicate on the decoded
/// integers.
fn reduce_ints(
    values: &[i64],
    interesting: impl Fn(&[i64]) -> bool + Send + Sync + 'static,
    knobs: Knobs,
    cache: CachePolicy,
    reduce: impl FnOnce(
        &TextDomain<'_>,
        Vec<UnitId>,
        &mut Tester,
    ) -> Result<(), whittle_core::testing::control::Stop>,
) -> Run {
    let tested = Arc::new(std::sync::Mutex::new(Vec::new()));
    let log = tested.clone();
    let oracle = predicate("ints", move |content: &[u8]| {
        let config = decode(content);
        let verdict = interesting(&config);
        log.lock().unwrap().push(config);
        verdict
    });
    let mut tester = Tester::new(Arc::new(oracle), cache, Arc::new(Control::new(knobs)));
    // Exercise the pool even though these tests are trivially fast.
    tester.set_inline_below(None);
    let input = encode(values);
    tester.set_best(input.clone());
    let domain = TextDomain::new(&input, atoms::split(&input, AtomKind::Line));
    let units: Vec<UnitId> = (0..values.len() as UnitId).collect();
    reduce(&domain, units, &mut tester).expect("no stop requested");
    let result = decode(tester.best());
    let stats = tester.stats();
    let tested = tested.lock().unwrap().clone();
    Run {
        result,
        stats,
        tested,
    }
}

/// Whether `result` is 1-minimal for `interesting`: removing any single element loses it.
pub fn is_one_minimal(result: &[i64], interesting: &dyn Fn(&[i64]) -> bool) -> bool {
    (0..result.len()).all(|i| {
        let mut smaller = result.to_vec();
        smaller.remove(i);
        !interesting(&smaller)
    })
}

/// The mock examples A-D of Hodován & Kiss 2016: input, test, expected 1-minimal result.
pub struct MockExample {
    pub name: &'static str,
    pub input: Vec<i64>,
    pub test: fn(&[i64]) -> bool,
    pub expected: Vec<i64>,
}

fn contains_all(config: &[i64], wanted: &[i64]) -> bool {
    wanted.iter().all(|w| config.contains(w))
}

pub fn mock_examples() -> Vec<MockExample> {
    vec![
        MockExample {
            name: "A",
            input: (1..=8).collect(),
            // Interesting iff not (7 ∈ c and 2 ∉ c) and {5, 8} ⊆ c.
            test: |c| (c.contains(&2) || !c.contains(&7)) && contains_all(c, &[5, 8]),
            expected: vec![5, 8],
        },
        MockExample {
            name: "B",
            input: (1..=8).collect(),
            test: |c| contains_all(c, &[1, 2, 3, 4, 5, 6, 7, 8]),
            expected: (1..=8).collect(),
        },
        MockExample {
            name: "C",
            input: (1..=8).collect(),
            test: |c| contains_all(c, &[1, 2, 3, 4, 6, 8]),
            expected: vec![1, 2, 3, 4, 6, 8],
        },
        MockExample {
            name: "D",
            input: (0..100).collect(),
            test: |c| (0..50).all(|x| c.contains(&(2 * x))),
            expected: (0..50).map(|x| 2 * x).collect(),
        },
    ]
}

/// The knobs of a run: split factor, testing window and parallel mode.
pub fn knobs(split_factor: SplitFactor, jobs: usize, parallel: ParallelMode) -> Knobs {
    Knobs {
        split_factor,
        jobs,
        parallel,
    }
}

/// The built-in example `name` (`whittle demo`).
pub fn demo_example(name: &str) -> Example {
    examples()
        .into_iter()
        .find(|e| e.name == name)
        .expect("the example exists")
}

/// How a session runs: to its end or waiting for commands, in step mode or not (never started
/// paused).
pub fn session_options(exit_when_done: bool, start_in_step_mode: bool) -> SessionOptions {
    SessionOptions {
        exit_when_done,
        start_in_step_mode,
        start_paused: false,
    }
}
