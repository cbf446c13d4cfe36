//! Tests written for other reducers, and tests that misbehave: C-Vise scripts that read the
//! file by name, stdin-only tests, flaky tests, tests that accept everything or need too much
//! memory; and the completion script and man page made from the command line's definitions.

mod common;

use std::process::Command;
use std::time::Duration;

use common::safety::{Work, exited, text};

const LIMIT: Duration = Duration::from_secs(120);

#[test]
fn a_c_vise_script_that_reads_bug_c_by_name_keeps_working() {
    let work = Work::new();
    let input = work.file("bug.c", "int a;\nint keep;\nint b;\nint c;\n");
    // C-Vise style: no argument is used; the file is `bug.c` in the working directory.
    let test = work.script("interesting.sh", "grep -q 'keep' bug.c");
    let output = work.reduce_within(&input, &["-j", "2"], &test, LIMIT);
    exited(&output, 0);
    let result = work.read_string("bug.whittled.c");
    assert!(result.contains("keep") && result.len() < 12, "{result:?}");
}

#[test]
fn with_input_type_name_the_test_gets_no_argument() {
    let work = Work::new();
    let input = work.file("bug.c", "int a;\nint keep;\nint b;\n");
    let test = work.script("interesting.sh", "[ $# -eq 0 ] && grep -q 'keep' bug.c");
    let output = work.reduce_within(&input, &["--input-type", "name"], &test, LIMIT);
    exited(&output, 0);
    assert!(work.read_string("bug.whittled.c").contains("keep"));
}

/// The numbers 1 to 1000, one a line.
fn numbers() -> String {
    (1..=1000).map(|n| format!("{n}\n")).collect()
}

#[test]
fn a_stdin_only_test_reduces_with_input_type_all_and_stdin() {
    for (input_type, guard) in [("all", "[ $# -eq 1 ]"), ("stdin", "[ $# -eq 0 ]")] {
        let work = Work::new();
        let input = work.file("numbers.txt", numbers());
        // Reads stdin only (an argument, when there is one, is ignored).
        let test = work.script("stdin.sh", &format!("{guard} && grep -qx 500"));
        let output = work.reduce_within(
            &input,
            &["--input-type", input_type, "-j", "4"],
            &test,
            LIMIT,
        );
        assert_eq!(
            output.status.code(),
            Some(0),
            "{input_type}: {}",
            text(&output.stderr)
        );
        let result = work.read_string("numbers.whittled.txt");
        assert_eq!(result.trim(), "500", "{input_type}");
    }
}

#[test]
fn a_test_with_the_path_as_argument_sees_an_empty_stdin_with_input_type_arg() {
    let work = Work::new();
    let input = work.file("in.txt", "a\nkeep\nb\n");
    // Interesting when stdin is empty and the file named by the argument holds `keep`.
    let test = work.script(
        "arg.sh",
        "[ -z \"$(cat)\" ] && [ $# -eq 1 ] && grep -q keep \"$1\"",
    );
    let output = work.reduce_within(&input, &["--input-type", "arg"], &test, LIMIT);
    exited(&output, 0);
    assert_eq!(work.read_string("in.whittled.txt"), "keep");
}

#[test]
fn a_failed_input_check_says_how_the_test_got_its_input() {
    let work = Work::new();
    let input = work.file("bug.c", "int a;\n");
    let test = work.script("fails.sh", "echo looking at bug.c; exit 1");
    let output = work.reduce_within(&input, &["--input-type", "stdin"], &test, LIMIT);
    let stderr = exited(&output, 2);
    assert!(stderr.contains("is not interesting"), "{stderr}");
    assert!(
        stderr.contains("the test was given its bytes on stdin"),
        "{stderr}"
    );
    assert!(stderr.contains("looking at bug.c"), "{stderr}");
}

/// A flaky test: whether the file holds `keep`, except that its runs are numbered (in the file
/// `counter`) and run 5k+2 says "not interesting" whatever the file, run 5k+4 "interesting".
fn flaky_test(work: &Work) -> std::path::PathBuf {
    work.script(
        "flaky.sh",
        &format!(
            "counter={counter}\nn=$(( $(cat \"$counter\" 2>/dev/null || echo 0) + 1 ))\n\
             echo $n > \"$counter\"\n\
             case $(( n % 5 )) in 2) exit 1;; 4) exit 0;; esac\n\
             grep -q keep \"$1\"",
            counter = work.path("counter").display()
        ),
    )
}

#[test]
fn a_flaky_test_is_found_out_and_its_result_reproduces_on_20_reruns() {
    let work = Work::new();
    let input = work.file("in.txt", "a\nb\nkeep\nc\nd\ne\nf\ng\nh\n");
    let test = flaky_test(&work);
    let output = work.reduce_within(
        &input,
        &["-j", "1", "--stats-json", "stats.json"],
        &test,
        LIMIT,
    );
    let stderr = exited(&output, 0);
    assert!(stderr.contains("the test is flaky"), "{stderr}");
    assert!(text(&output.stdout).contains("flaky test: yes"));
    let stats = work.json("stats.json");
    assert_eq!(stats["flakiness"]["flaky"], true, "{stats}");
    assert_eq!(stats["flakiness"]["confirm_runs"], 3, "{stats}");
    let result = work.read_string("in.whittled.txt");
    assert!(result.contains("keep"), "{result:?}");
    assert!(result.len() < 18, "something was reduced: {result:?}");
    // Rerun on the result: only the runs that are wrong by design (one in five) fail.
    std::fs::write(work.path("result.txt"), &result).unwrap();
    let passed = (0..20)
        .filter(|_| {
            Command::new(&test)
                .arg(work.path("result.txt"))
                .status()
                .unwrap()
                .success()
        })
        .count();
    assert_eq!(passed, 16, "{result:?}");
}

#[test]
fn confirm_given_explicitly_applies_from_the_start() {
    let work = Work::new();
    let input = work.file("in.txt", "a\nkeep\nb\n");
    let test = work.script("steady.sh", "grep -q keep \"$1\"");
    let output = work.reduce_within(
        &input,
        &["-j", "1", "--confirm", "4", "--stats-json", "s.json"],
        &test,
        LIMIT,
    );
    exited(&output, 0);
    let stats = work.json("s.json");
    assert_eq!(stats["flakiness"]["flaky"], false);
    assert_eq!(stats["flakiness"]["confirm_runs"], 4);
    // The input's check is replayed twice; every interesting verdict is run 3 more times.
    assert!(
        stats["flakiness"]["extra_runs"].as_u64().unwrap() >= 2 + 3,
        "{stats}"
    );
    assert_eq!(work.read_string("in.whittled.txt"), "keep");
}

#[test]
fn assume_deterministic_runs_the_input_check_once() {
    let work = Work::new();
    let input = work.file("in.txt", "a\nkeep\nb\n");
    let test = work.script("steady.sh", "grep -q keep \"$1\"");
    let output = work.reduce_within(
        &input,
        &["--assume-deterministic", "--stats-json", "s.json"],
        &test,
        LIMIT,
    );
    exited(&output, 0);
    assert_eq!(work.json("s.json")["flakiness"]["extra_runs"], 0);
}

#[test]
fn a_test_that_accepts_everything_is_reported_and_the_output_written() {
    let work = Work::new();
    let input = work.file("in.txt", "a\nb\nc\n");
    let test = work.script("yes.sh", "exit 0");
    let output = work.reduce_within(&input, &[], &test, LIMIT);
    let stderr = exited(&output, 3);
    assert!(
        stderr.contains("the test probably accepts too much"),
        "{stderr}"
    );
    assert_eq!(work.read("in.whittled.txt"), b"");
    let output = work.reduce_within(&input, &["--force", "--allow-trivial"], &test, LIMIT);
    exited(&output, 0);
}

#[test]
fn memory_limit_makes_a_test_that_allocates_a_lot_fail() {
    let work = Work::new();
    let input = work.file("in.txt", "a\n");
    // dd allocates its 256 MiB block.
    let test = work.script(
        "big.sh",
        "dd if=/dev/zero of=/dev/null bs=256M count=1 2>&1 || { echo allocation failed; exit 1; }",
    );
    let output = work.reduce_within(&input, &["--memory-limit", "64"], &test, LIMIT);
    let stderr = exited(&output, 2);
    assert!(stderr.contains("is not interesting"), "{stderr}");
    assert!(stderr.contains("allocation failed"), "{stderr}");
    // Without the limit the same test passes (the result is trivial, and that is allowed).
    let output = work.reduce_within(&input, &["--allow-trivial"], &test, LIMIT);
    exited(&output, 0);
}

#[test]
fn completions_and_the_man_page_come_from_the_command_line() {
    let work = Work::new();
    let bash = work.whittle(&["completions", "bash"]).output().unwrap();
    assert!(bash.status.success());
    let script = text(&bash.stdout);
    assert!(script.contains("reduce"), "{script}");
    assert!(script.contains("--input-type"));
    let zsh = work.whittle(&["completions", "zsh"]).output().unwrap();
    assert!(zsh.status.success() && text(&zsh.stdout).contains("#compdef whittle"));
    let man = work.whittle(&["man"]).output().unwrap();
    assert!(man.status.success());
    let page = text(&man.stdout);
    assert!(
        page.starts_with(".ie") || page.contains(".TH whittle"),
        "{page}"
    );
    assert!(page.contains("WHITTLE REDUCE"), "{page}");
    assert!(page.contains("memory\\-limit"), "{page}");
    let bad = work.whittle(&["completions", "cmd"]).output().unwrap();
    assert_eq!(bad.status.code(), Some(2));
}
