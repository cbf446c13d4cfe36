//! `whittle tree` on very deeply nested input: no panic at any depth, the listing streamed (its
//! size grows with the depth, whittle's memory does not grow with the listing).

use std::io::{BufRead, BufReader};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// `[[[...]]]` nested `depth` levels deep.
fn nested_arrays(depth: usize) -> String {
    "[".repeat(depth) + &"]".repeat(depth)
}

/// Runs `whittle tree` on `text` as JSON; returns (exit code, lines printed, the last line,
/// whittle's peak memory in kB).
fn tree_of(text: &str) -> (Option<i32>, usize, String, u64) {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("deep.json");
    std::fs::write(&path, text).unwrap();
    let mut child = Command::new(env!("CARGO_BIN_EXE_whittle"))
        .arg("tree")
        .arg(&path)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let pid = child.id();
    let stdout = child.stdout.take().unwrap();
    // Count the listing as it comes, without keeping it.
    let reader = std::thread::spawn(move || {
        let mut count = 0;
        let mut last = String::new();
        for line in BufReader::new(stdout).lines() {
            last = line.unwrap();
            count += 1;
        }
        (count, last)
    });
    let mut peak_kb = 0;
    let start = Instant::now();
    while child.try_wait().unwrap().is_none() {
        assert!(
            start.elapsed() < Duration::from_secs(300),
            "whittle tree hangs"
        );
        if let Some(kb) = std::fs::read_to_string(format!("/proc/{pid}/status"))
            .ok()
            .and_then(|status| {
                let line = status.lines().find(|l| l.starts_with("VmHWM:"))?.to_owned();
                line.split_whitespace().nth(1)?.parse::<u64>().ok()
            })
        {
            peak_kb = peak_kb.max(kb);
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    let output = child.wait_with_output().unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(!stderr.contains("panicked"), "{stderr}");
    let (count, last) = reader.join().unwrap();
    (output.status.code(), count, last, peak_kb)
}

#[test]
#[cfg_attr(not(feature = "lang-json"), ignore = "built without the JSON grammar")]
fn tree_lists_json_nested_33_000_and_100_000_levels_deep() {
    for depth in [33_000, 100_000] {
        let (code, lines, summary, peak_kb) = tree_of(&nested_arrays(depth));
        assert_eq!(code, Some(0), "depth {depth}");
        // Each level is an array with its `[` and `]`.
        assert_eq!(lines, 3 * depth + 1, "depth {depth}");
        assert!(
            summary.starts_with(&format!("language: json, nodes: {}", 3 * depth)),
            "{summary}"
        );
        // The listing is hundreds of megabytes with full indentation; memory follows the tree.
        assert!(
            peak_kb < 256 * 1024,
            "depth {depth}: whittle tree used {peak_kb} kB"
        );
    }
}

#[test]
#[cfg_attr(not(feature = "lang-json"), ignore = "built without the JSON grammar")]
fn deep_lines_carry_their_depth_instead_of_more_indentation() {
    let (code, lines, _, _) = tree_of(&nested_arrays(150));
    assert_eq!(code, Some(0));
    assert_eq!(lines, 3 * 150 + 1);
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("deep.json");
    std::fs::write(&path, nested_arrays(150)).unwrap();
    let output = Command::new(env!("CARGO_BIN_EXE_whittle"))
        .arg("tree")
        .arg(&path)
        .output()
        .unwrap();
    let listing = String::from_utf8(output.stdout).unwrap();
    let deepest = listing
        .lines()
        .find(|line| line.contains("[depth 149] array"))
        .unwrap_or_else(|| panic!("{listing}"));
    assert!(deepest.starts_with(&" ".repeat(200)));
    assert!(!deepest.starts_with(&" ".repeat(201)));
}
