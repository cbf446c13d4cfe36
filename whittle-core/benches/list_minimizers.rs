//! Tests per list minimizer on random monotone tests with few essential elements (what the
//! ProbDD and CDD papers report): ddmin, the chunk sweep, ProbDD and CDD, with and without their
//! final single-unit pass, over lists of 100 and 1,000 lines of which 1 to 8 are needed. Counts
//! tests, not time: `cargo bench -p whittle-core --bench list_minimizers` prints the mean tests
//! and result sizes per setting (deterministic: the essential elements come from fixed seeds).

use std::sync::Arc;

use whittle_core::algorithms::dd::{self, TextDomain};
use whittle_core::algorithms::{probdd, sweep};
use whittle_core::exec::cache::{CachePolicy, UnitId};
use whittle_core::exec::oracle::predicate;
use whittle_core::params::{BeliefModel, BeliefOptions, DdOptions, Knobs};
use whittle_core::testing::control::Control;
use whittle_core::testing::tester::Tester;
use whittle_core::text::atoms::{self, AtomKind};

/// Random tests per setting.
const TRIALS: u64 = 30;

#[derive(Clone, Copy)]
enum Minimizer {
    Ddmin,
    Sweep,
    Belief(BeliefModel, bool),
}

impl Minimizer {
    fn name(self) -> String {
        match self {
            Minimizer::Ddmin => "ddmin".into(),
            Minimizer::Sweep => "sweep".into(),
            Minimizer::Belief(model, false) => model.to_string(),
            Minimizer::Belief(model, true) => format!("{model}+check"),
        }
    }
}

/// One reduction of `len` lines of which those in `needed` are essential (the test: all of them
/// are kept); returns the tests run and the lines left.
fn reduce(len: usize, needed: &[usize], minimizer: Minimizer) -> (u64, usize) {
    let text: String = (0..len).map(|i| format!("{i}\n")).collect();
    let wanted: Vec<String> = needed.iter().map(|i| i.to_string()).collect();
    let oracle = predicate("keeps the essential lines", move |candidate: &[u8]| {
        let lines: Vec<&[u8]> = candidate.split(|&b| b == b'\n').collect();
        wanted.iter().all(|w| lines.contains(&w.as_bytes()))
    });
    let control = Arc::new(Control::new(Knobs::default()));
    let mut tester = Tester::new(Arc::new(oracle), CachePolicy::recommended(), control);
    let text = text.into_bytes();
    tester.set_best(text.clone());
    let domain = TextDomain::new(&text, atoms::split(&text, AtomKind::Line));
    let units: Vec<UnitId> = (0..len as UnitId).collect();
    let result = match minimizer {
        Minimizer::Ddmin => dd::ddmin(&domain, units, &mut tester, &DdOptions::default()),
        Minimizer::Sweep => sweep::sweep(&domain, units, &mut tester),
        Minimizer::Belief(model, final_check) => {
            let options = BeliefOptions {
                final_check,
                ..BeliefOptions::default()
            };
            probdd::minimize(&domain, units, &mut tester, model, &options)
        }
    }
    .expect("no stop");
    (tester.stats().tests, result.len())
}

fn main() {
    // `cargo test --benches` runs this with `--bench` absent: one quick setting then.
    let quick = !std::env::args().any(|arg| arg == "--bench");
    let minimizers = [
        Minimizer::Ddmin,
        Minimizer::Sweep,
        Minimizer::Belief(BeliefModel::ProbDd, false),
        Minimizer::Belief(BeliefModel::Cdd, false),
        Minimizer::Belief(BeliefModel::ProbDd, true),
        Minimizer::Belief(BeliefModel::Cdd, true),
    ];
    let settings: &[(usize, usize)] = if quick {
        &[(100, 2)]
    } else {
        &[
            (100, 1),
            (100, 2),
            (100, 4),
            (100, 8),
            (1000, 1),
            (1000, 4),
            (1000, 8),
        ]
    };
    let trials = if quick { 2 } else { TRIALS };
    println!("mean tests (mean result size) over {trials} random sets of essential lines");
    print!("{:<14}", "lines/needed");
    for minimizer in minimizers {
        print!("{:>16}", minimizer.name());
    }
    println!();
    for &(len, k) in settings {
        print!("{:<14}", format!("{len}/{k}"));
        for minimizer in minimizers {
            let mut tests = 0;
            let mut sizes = 0;
            for trial in 0..trials {
                let mut rng = fastrand::Rng::with_seed(trial * 7919 + len as u64 + k as u64);
                let mut needed: Vec<usize> = (0..k).map(|_| rng.usize(0..len)).collect();
                needed.sort_unstable();
                needed.dedup();
                let (t, size) = reduce(len, &needed, minimizer);
                tests += t;
                sizes += size as u64;
            }
            let cell = format!(
                "{:.0} ({:.1})",
                tests as f64 / trials as f64,
                sizes as f64 / trials as f64
            );
            print!("{cell:>16}");
        }
        println!();
    }
}
