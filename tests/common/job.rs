//! In-process reductions of a text in a named language with a named pipeline, one test at a
//! time, as the tree tests run them.

use std::sync::Arc;

use whittle_core::engine::job::Job;
use whittle_core::engine::pipeline::Settings;
use whittle_core::exec::oracle::Oracle;
use whittle_core::observe::stats::Stats;

/// The settings of a reduction of `language` text with `pipeline`, one test at a time.
pub fn settings(language: &str, pipeline: &str) -> Settings {
    Settings {
        algorithm: Some(pipeline.parse().expect("a valid pipeline")),
        language: Some(language.to_owned()),
        jobs: 1,
        ..Settings::default()
    }
}

/// Reduces `input` with `settings` and `oracle`; returns the result and the statistics.
pub fn reduce(input: &[u8], settings: Settings, oracle: Arc<dyn Oracle>) -> (Vec<u8>, Stats) {
    let job = Job::new(input.to_vec(), settings);
    let mut tester = job.tester(oracle).unwrap();
    let finished = job.run(&mut tester).expect("the input is interesting");
    assert!(finished.stopped.is_none(), "{:?}", finished.stopped);
    (finished.result, finished.stats)
}

/// The text of `bytes` (invalid UTF-8 replaced).
pub fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}
