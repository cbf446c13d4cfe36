//! `whittle batch` on this machine: a directory of inputs, a manifest of inputs and tests,
//! reductions that fail beside others that do not, refusals before anything runs, and a stop.

mod common;

use std::time::Duration;

use std::path::PathBuf;
use std::process::Child;

use common::batch::{batch_args, batch_inputs, check_batch_summary, statuses, summary};
use common::safety::{Work, all_ended, exited, pids_in, run_within, text, wait_until};

/// The input every hanging batch reduces; `hang.sh` finds it (and only it) interesting.
const FOUR_LINES: &str = "a\nb\nc\nd\n";

/// Starts `whittle batch` over `count` inputs in `in/`, two reductions at once, with a test
/// that hangs on every candidate smaller than the input and records the process ids of its
/// sleeps (returned); returns once both reductions are testing.
fn start_hanging_batch(work: &Work, count: usize) -> (Child, PathBuf) {
    std::fs::create_dir(work.path("in")).unwrap();
    for i in 0..count {
        work.file(&format!("in/c{i}.txt"), FOUR_LINES);
    }
    let pids = work.path("pids");
    work.script(
        "hang.sh",
        &format!(
            "[ \"$(wc -l < \"$1\")\" -ge 4 ] && exit 0\nsleep 3000 & echo $! >> {}\nwait",
            pids.display()
        ),
    );
    let child = common::safety::spawn_piped(
        &mut work.whittle(&batch_args(&["--reductions", "2"], "./hang.sh")),
    );
    assert!(
        wait_until(Duration::from_secs(60), || pids_in(&pids).len() >= 2),
        "the reductions did not start testing"
    );
    (child, pids)
}

/// 20 inputs, 5 of them not interesting, 4 reductions at once: every input gets its line in
/// the summary (table and JSON), the results are right, the inputs untouched; exit 1 because
/// some inputs were not interesting.
#[test]
fn a_batch_of_twenty_inputs_gives_the_right_summary() {
    let work = Work::new();
    let inputs = batch_inputs(&work);
    let out = run_within(
        &mut work.whittle(&batch_args(
            &["--reductions", "4", "--summary-json", "summary.json"],
            "./needle.sh",
        )),
        Duration::from_secs(300),
    );
    exited(&out, 1);
    check_batch_summary(&work, &inputs, "local");
    assert_eq!(
        work.read("summary.json"),
        work.read("campaign/summary.json")
    );
    let table = text(&out.stdout);
    assert!(table.starts_with("input "), "{table}");
    assert!(
        table.contains(
            "20 reductions: 15 reduced, 0 unchanged, 0 stopped by a limit, 5 not interesting"
        ),
        "{table}"
    );
    assert!(table.contains("in/case03.txt"), "{table}");
    let stderr = text(&out.stderr);
    assert!(stderr.contains("[20/20]"), "{stderr}");
    // Each reduction's log is kept.
    assert!(
        work.read_string("campaign/0.log").contains("result: "),
        "the log of a reduction"
    );
}

/// A manifest gives each input its own test (an argument list, or a shell command), and its
/// own output; one reduction is refused (its output exists) and the others go on; results
/// beside the inputs by default.
#[test]
fn a_manifest_mixes_tests_and_a_refused_reduction_does_not_stop_the_others() {
    let work = Work::new();
    std::fs::create_dir(work.path("cases")).unwrap();
    work.file("cases/one.txt", "x\ny\nkeep\nz\n");
    work.file("cases/two.txt", "p\nq\nr\n");
    work.file("cases/three.txt", "m\nn\n");
    // An earlier result of three.txt: whittle reduce refuses to start over it.
    work.file("cases/three.whittled.txt", "n\n");
    work.script("keep.sh", "grep -q keep \"$1\"");
    work.file(
        "cases/manifest.jsonl",
        concat!(
            "# inputs and their tests\n",
            "{\"input\": \"one.txt\", \"test\": [\"../keep.sh\"]}\n",
            "\n",
            "{\"input\": \"two.txt\", \"test\": \"grep -q q \\\"$1\\\"\", \"output\": \"two-reduced.txt\"}\n",
            "{\"input\": \"three.txt\", \"test\": \"grep -q n \\\"$1\\\"\"}\n",
        ),
    );
    let out = run_within(
        &mut work.whittle(&[
            "batch",
            "--manifest",
            "cases/manifest.jsonl",
            "--work-dir",
            "campaign",
            "--reductions",
            "1",
        ]),
        Duration::from_secs(120),
    );
    exited(&out, 1);
    assert_eq!(work.read_string("cases/one.whittled.txt"), "keep");
    assert_eq!(work.read_string("cases/two-reduced.txt"), "q");
    assert_eq!(
        work.read_string("cases/three.whittled.txt"),
        "n\n",
        "the existing result is left as it was"
    );
    let summary = summary(&work);
    assert_eq!(statuses(&summary), ["reduced", "reduced", "refused"]);
    let refused = &summary["reductions"][2];
    assert!(
        refused["detail"].as_str().unwrap().contains("--resume"),
        "{refused}"
    );
}

/// Outputs that would collide, or land on an input, are refused before anything runs.
#[test]
fn colliding_outputs_are_refused_before_anything_runs() {
    let work = Work::new();
    std::fs::create_dir_all(work.path("a")).unwrap();
    std::fs::create_dir_all(work.path("b")).unwrap();
    work.file("a/x.txt", "1\n");
    work.file("b/x.txt", "2\n");
    work.script("t.sh", "exit 0");
    work.file(
        "same.jsonl",
        "{\"input\": \"a/x.txt\"}\n{\"input\": \"b/x.txt\"}\n",
    );
    // The batch is refused (exit 2) for the reason `why` says.
    let refused = |args: &[&str], why: &str| {
        let out = run_within(&mut work.whittle(args), Duration::from_secs(60));
        let stderr = exited(&out, 2);
        assert!(stderr.contains(why), "{stderr}");
    };
    refused(
        &[
            "batch",
            "--manifest",
            "same.jsonl",
            "-o",
            "out",
            "--work-dir",
            "campaign",
            "--",
            "./t.sh",
        ],
        "would both be reduced into",
    );
    work.file(
        "over.jsonl",
        "{\"input\": \"a/x.txt\", \"output\": \"b/x.txt\"}\n{\"input\": \"b/x.txt\", \"output\": \"b/y.txt\"}\n",
    );
    refused(
        &[
            "batch",
            "--manifest",
            "over.jsonl",
            "--work-dir",
            "campaign",
            "--",
            "./t.sh",
        ],
        "never writes its inputs",
    );
    assert_eq!(work.read("a/x.txt"), b"1\n");
    assert_eq!(work.read("b/x.txt"), b"2\n");
    assert!(!work.path("out/x.txt").exists());
}

/// SIGTERM to a batch whose reductions hang: each running reduction is stopped (its best
/// result written), the ones not started are said so, exit 130, no test left running.
#[test]
fn a_stopped_batch_stops_its_reductions_and_says_which_never_started() {
    let work = Work::new();
    let (mut child, pids) = start_hanging_batch(&work, 4);
    common::safety::signal(child.id() as i32, nix::sys::signal::Signal::SIGTERM);
    assert!(
        common::safety::wait_within(&mut child, Duration::from_secs(30)).is_some(),
        "the batch ends soon after SIGTERM"
    );
    let out = child.wait_with_output().unwrap();
    exited(&out, 130);
    assert_eq!(
        statuses(&summary(&work)),
        ["stopped", "stopped", "not_started", "not_started"]
    );
    for i in 0..2 {
        // Stopped after the input was checked: the output holds it, complete.
        assert_eq!(work.read_string(&format!("out/c{i}.txt")), FOUR_LINES);
    }
    assert!(
        all_ended(&pids_in(&pids), Duration::from_secs(10)),
        "tests left running"
    );
}

/// A batch killed outright (SIGKILL, no chance to clean up): its reductions get SIGTERM from
/// the kernel (the parent-death signal) and stop with their tests, writing their outputs.
#[test]
fn the_reductions_of_a_killed_batch_stop_too() {
    let work = Work::new();
    let (mut child, pids) = start_hanging_batch(&work, 2);
    common::safety::signal(child.id() as i32, nix::sys::signal::Signal::SIGKILL);
    let _ = child.wait();
    assert!(
        all_ended(&pids_in(&pids), Duration::from_secs(20)),
        "tests left running"
    );
    for i in 0..2 {
        assert!(
            wait_until(Duration::from_secs(20), || !work
                .path(&format!("out/.c{i}.txt.whittle.lock"))
                .exists()),
            "reduction {i} did not end"
        );
        assert_eq!(work.read_string(&format!("out/c{i}.txt")), FOUR_LINES);
    }
}
