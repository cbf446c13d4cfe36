//! A flaky test (the same candidate judged differently): the final result is re-tested once at
//! the end; when it fails, whittle says so loudly and keeps the last result that passes again.

mod common;

use std::time::Duration;

use common::safety::{Work, text};

#[test]
fn a_final_result_that_fails_its_re_test_sends_the_run_back_to_the_last_that_passed() {
    let work = Work::new();
    let input = work.file("in.txt", "a\nkeep\nb\nc\n");
    // Interesting while `keep` is there, except that a candidate shorter than 6 bytes is
    // interesting only the first time it is seen.
    let test = work.script(
        "flaky.sh",
        &format!(
            "seen={seen}\nh=$(cksum < \"$1\")\n\
             if grep -qxF \"$h\" \"$seen\" 2>/dev/null && [ \"$(wc -c < \"$1\")\" -lt 6 ]; then \
             exit 1; fi\n\
             echo \"$h\" >> \"$seen\"\ngrep -q keep \"$1\"",
            seen = work.path("seen").display()
        ),
    );
    let output = work.reduce_within(&input, &["-j", "1"], &test, Duration::from_secs(60));
    let stderr = text(&output.stderr);
    let stdout = text(&output.stdout);
    assert_eq!(output.status.code(), Some(0), "{stderr}");
    assert!(stderr.contains("WARNING: the test is flaky"), "{stderr}");
    assert!(
        stderr.contains(
            "the result then (4 bytes) was interesting before but not on its re-test (exit \
             status 1); the run went back to the last result that passed and went on reducing"
        ),
        "{stderr}"
    );
    let result = std::fs::read_to_string(work.path("in.whittled.txt")).unwrap();
    assert!(result.contains("keep"), "{result:?}");
    // What the run found from there, confirmed: it passes again.
    assert!(
        result.len() >= 6,
        "the result is one that passes again: {result:?}"
    );
    let rerun = std::process::Command::new(&test)
        .arg(work.path("in.whittled.txt"))
        .status()
        .unwrap();
    assert!(rerun.success(), "the result reproduces");
    assert!(result.len() < "a\nkeep\nb\nc\n".len(), "{result:?}");
    assert!(stdout.contains("result: "), "{stdout}");
}

#[test]
fn a_steady_test_confirms_its_result_quietly() {
    let work = Work::new();
    let input = work.file("in.txt", "a\nkeep\nb\nc\n");
    let test = work.script("steady.sh", "grep -q keep \"$1\"");
    let output = work.reduce_within(&input, &[], &test, Duration::from_secs(60));
    assert!(output.status.success());
    assert!(!text(&output.stderr).contains("flaky"));
    assert_eq!(
        std::fs::read_to_string(work.path("in.whittled.txt")).unwrap(),
        "keep"
    );
}
