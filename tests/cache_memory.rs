//! The outcome cache stays within its memory limit (`--cache-memory`) on a large input whose
//! failing candidates would otherwise pile up, and the result is unchanged by the evictions.

mod common;

use std::time::Duration;

use common::safety::{Work, text};

#[test]
fn content_and_configuration_caches_stay_within_their_memory_limit() {
    let work = Work::new();
    // 30,000 lines of which the test needs the 300 multiples of 100: ddmin tests many large
    // complements that fail, and each is worth a cache entry.
    let input: String = (0..30_000).map(|i| format!("line {i:05}\n")).collect();
    let input_path = work.file("in.txt", &input);
    let test = work.script(
        "spread.sh",
        "exec awk '/^line [0-9]*00$/{c++} END{exit !(c>=300)}' \"$1\"",
    );
    for (cache, mib) in [("content", 1u64), ("config", 4)] {
        let stats = work.path(&format!("{cache}.json"));
        let output = work.reduce_within(
            &input_path,
            &[
                "-j",
                "1",
                "-a",
                "ddmin",
                "--atoms",
                "line",
                "--cache",
                cache,
                "--cache-fail",
                "--no-cache-evict",
                "--cache-memory",
                &mib.to_string(),
                "--limit-tests",
                "150",
                "-o",
                &format!("{cache}.out"),
                "--stats-json",
                stats.to_str().unwrap(),
            ],
            &test,
            Duration::from_secs(300),
        );
        assert!(output.status.success(), "{}", text(&output.stderr));
        let stats: serde_json::Value =
            serde_json::from_slice(&std::fs::read(&stats).unwrap()).unwrap();
        let peak = stats["cache_peak_bytes"].as_u64().unwrap();
        assert!(
            peak <= mib << 20,
            "{cache}: the cache peaked at {peak} bytes"
        );
        assert!(
            stats["cache"]["evictions"].as_u64().unwrap() > 0,
            "{cache}: {stats}"
        );
        assert!(stats["tests"].as_u64().unwrap() >= 150, "{stats}");
        let result = std::fs::read_to_string(work.path(&format!("{cache}.out"))).unwrap();
        assert_eq!(
            result.lines().filter(|line| line.ends_with("00")).count(),
            300,
            "{cache}: the output is interesting"
        );
    }
}
