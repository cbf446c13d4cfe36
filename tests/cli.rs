//! End-to-end tests through the `whittle` binary: real test commands, files on disk, processes.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

fn whittle() -> Command {
    Command::new(env!("CARGO_BIN_EXE_whittle"))
}

/// Copies a folder of the repository's `examples/` into a fresh directory.
fn example(name: &str) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let source = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("examples")
        .join(name);
    for entry in std::fs::read_dir(&source).unwrap() {
        let entry = entry.unwrap();
        std::fs::copy(entry.path(), dir.path().join(entry.file_name())).unwrap();
    }
    dir
}

fn write_script(dir: &Path, name: &str, body: &str) -> PathBuf {
    use std::os::unix::fs::PermissionsExt;
    let path = dir.join(name);
    std::fs::write(&path, format!("#!/bin/sh\n{body}\n")).unwrap();
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).unwrap();
    path
}

fn pid_alive(pid: i32) -> bool {
    nix::sys::signal::kill(nix::unistd::Pid::from_raw(pid), None).is_ok()
        && !std::fs::read_to_string(format!("/proc/{pid}/stat"))
            .is_ok_and(|stat| stat.split_whitespace().nth(2) == Some("Z"))
}

fn pids_in(file: &Path) -> Vec<i32> {
    std::fs::read_to_string(file)
        .unwrap_or_default()
        .lines()
        .filter_map(|line| line.trim().parse().ok())
        .collect()
}

#[test]
fn sumprod_gives_the_papers_ddmin_and_ddmin_star_results() {
    let dir = example("sumprod-c");
    let input = dir.path().join("sumprod.c");
    let original = std::fs::read(&input).unwrap();
    for (extra, expected) in [
        (Some("--no-fixpoint"), "expected-ddmin.c"),
        (None, "expected-ddmin-star.c"),
    ] {
        let output = dir.path().join(format!("out-{expected}"));
        let status = whittle()
            .arg("reduce")
            .arg(&input)
            .args([
                "-a",
                "ddmin",
                "--atoms",
                "line",
                "--order",
                "subsets-first",
                "-o",
            ])
            .arg(&output)
            .args(extra)
            .args(["--", "./oracle.sh"])
            .current_dir(dir.path())
            .output()
            .unwrap();
        assert!(status.status.success(), "{status:?}");
        assert_eq!(
            std::fs::read_to_string(&output).unwrap(),
            std::fs::read_to_string(dir.path().join(expected)).unwrap(),
            "{expected}"
        );
    }
    assert_eq!(
        std::fs::read(&input).unwrap(),
        original,
        "the input is never modified"
    );
}

/// The README's example as it is written there: `--atoms line` without `-a` runs ddmin over
/// lines even though the input's language is known, and gives the papers' DDMIN* result
/// (DDMIN's with `--no-fixpoint`).
#[test]
fn atoms_without_an_algorithm_give_the_papers_ddmin_results_on_sumprod() {
    let dir = example("sumprod-c");
    for (extra, expected) in [
        (None, "expected-ddmin-star.c"),
        (Some("--no-fixpoint"), "expected-ddmin.c"),
    ] {
        let output = dir.path().join(format!("out-{expected}"));
        let stats = dir.path().join(format!("{expected}.json"));
        let status = whittle()
            .args(["reduce", "sumprod.c", "--atoms", "line", "-o"])
            .arg(&output)
            .args(extra)
            .arg("--stats-json")
            .arg(&stats)
            .args(["--", "./oracle.sh"])
            .current_dir(dir.path())
            .output()
            .unwrap();
        assert!(status.status.success(), "{status:?}");
        assert_eq!(
            std::fs::read_to_string(&output).unwrap(),
            std::fs::read_to_string(dir.path().join(expected)).unwrap(),
            "{expected}"
        );
        let stats: serde_json::Value =
            serde_json::from_slice(&std::fs::read(&stats).unwrap()).unwrap();
        assert_eq!(stats["algorithm"], "ddmin", "{stats}");
        assert_eq!(stats["guard_skips"], 0, "{stats}");
    }
}

/// The mock examples A-D of Hodován & Kiss 2016 (Tables 1-3) through the binary, with shell
/// tests: `--stats-json` reports the published tests, cache hits and iterations (the same
/// numbers `tests/paper_examples.rs` asserts in-process), and the two checks of the input apart.
#[test]
fn mock_examples_give_the_published_test_counts_through_the_cli() {
    // Each test reads the candidate's numbers (one a line) into `s` and exits 0 (interesting)
    // when the example's condition holds.
    // (tests, cache hits, iterations) for subsets first, complements first, complements only.
    type Counts = [(u64, u64, u64); 3];
    let examples: [(&str, Vec<i64>, &str, Counts); 4] = [
        (
            "A",
            (1..=8).collect(),
            "exit !((5 in s) && (8 in s) && ((2 in s) || !(7 in s)))",
            [(22, 22, 8), (17, 5, 8), (14, 1, 8)],
        ),
        (
            "B",
            (1..=8).collect(),
            "for (x = 1; x <= 8; x++) if (!(x in s)) exit 1",
            [(26, 2, 3), (26, 2, 3), (14, 0, 3)],
        ),
        (
            "C",
            (1..=8).collect(),
            "n = split(\"1 2 3 4 6 8\", w, \" \"); for (i = 1; i <= n; i++) if (!(w[i] in s)) exit 1",
            [(30, 16, 5), (28, 3, 5), (18, 1, 5)],
        ),
        (
            "D",
            (0..100).collect(),
            "for (x = 0; x < 100; x += 2) if (!(x in s)) exit 1",
            [(472, 3237, 57), (422, 16, 57), (276, 0, 57)],
        ),
    ];
    let dir = tempfile::tempdir().unwrap();
    for (name, input, condition, counts) in examples {
        let input_path = dir.path().join(format!("{name}.txt"));
        let text: String = input.iter().map(|v| format!("{v}\n")).collect();
        std::fs::write(&input_path, &text).unwrap();
        let test = write_script(
            dir.path(),
            &format!("{name}.sh"),
            &format!("exec awk '{{ s[$0] = 1 }} END {{ {condition} }}' \"$1\""),
        );
        for (order, (tests, hits, iterations)) in
            ["subsets-first", "complements-first", "complements-only"]
                .into_iter()
                .zip(counts)
        {
            let stats_path = dir.path().join(format!("{name}-{order}.json"));
            let output_path = dir.path().join(format!("{name}-{order}.out"));
            let output = whittle()
                .arg("reduce")
                .arg(&input_path)
                .args(["-a", "ddmin", "--atoms", "line", "--no-fixpoint"])
                .args(["--order", order, "--split-factor", "2", "--split", "zeller"])
                .args(["--cache", "config", "--cache-fail", "--no-cache-evict"])
                .args(["-j", "1", "--no-tui", "-o"])
                .arg(&output_path)
                .arg("--stats-json")
                .arg(&stats_path)
                .arg("--")
                .arg(&test)
                .output()
                .unwrap();
            assert!(output.status.success(), "{name} {order}: {output:?}");
            let stats: serde_json::Value =
                serde_json::from_slice(&std::fs::read(&stats_path).unwrap()).unwrap();
            let count = |key: &str| stats[key].as_u64().unwrap();
            assert_eq!(
                (count("tests"), count("cache_hits"), count("iterations")),
                (tests, hits, iterations),
                "example {name} with {order}: {stats}"
            );
            assert_eq!(count("checks"), 2, "{name} {order}: {stats}");
            assert_eq!(count("oracle_runs"), tests + 2, "{name} {order}: {stats}");
            let report = String::from_utf8_lossy(&output.stdout);
            assert!(
                report.contains(&format!("tests: {tests} (")),
                "{name} {order}: {report}"
            );
            assert!(
                report.contains(&format!("oracle runs: {} (", tests + 2)),
                "{name} {order}: {report}"
            );
        }
    }
}

#[test]
fn an_input_that_is_not_interesting_exits_2_and_writes_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("in.txt");
    std::fs::write(&input, "hello\n").unwrap();
    let test = write_script(dir.path(), "test.sh", "echo 'no such bug here' >&2; exit 3");
    let output = whittle()
        .arg("reduce")
        .arg(&input)
        .arg("--")
        .arg(&test)
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(stderr.contains("exit status 3"), "{stderr}");
    assert!(stderr.contains("no such bug here"), "{stderr}");
    assert!(!dir.path().join("in.whittled.txt").exists());
    assert_eq!(std::fs::read(&input).unwrap(), b"hello\n");
}

#[test]
fn a_hanging_test_is_killed_at_the_timeout_with_its_children() {
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("in.txt");
    std::fs::write(&input, "a\nb\n").unwrap();
    let pids = dir.path().join("pids");
    let test = write_script(
        dir.path(),
        "hang.sh",
        &format!(
            "echo $$ >> {p}\nsleep 60 &\necho $! >> {p}\nsleep 60",
            p = pids.display()
        ),
    );
    let start = Instant::now();
    let output = whittle()
        .arg("reduce")
        .arg(&input)
        .args(["--timeout", "0.5", "--"])
        .arg(&test)
        .output()
        .unwrap();
    assert!(start.elapsed() < Duration::from_secs(20));
    assert_eq!(
        output.status.code(),
        Some(2),
        "a timed-out input is not interesting"
    );
    assert!(String::from_utf8_lossy(&output.stderr).contains("timed out"));
    let pids = pids_in(&pids);
    assert_eq!(pids.len(), 2, "the test and its child ran");
    std::thread::sleep(Duration::from_millis(100));
    for pid in pids {
        assert!(!pid_alive(pid), "process {pid} survived the timeout");
    }
}

#[test]
fn without_a_timeout_a_hanging_candidate_costs_half_a_second() {
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("in.txt");
    std::fs::write(&input, "keep\nstop\na\nb\n").unwrap();
    let stats = dir.path().join("stats.json");
    // Candidates without `stop` never end.
    let test = write_script(
        dir.path(),
        "t.sh",
        "grep -q keep \"$1\" || exit 1\ngrep -q stop \"$1\" || sleep 600\nexit 0",
    );
    let start = Instant::now();
    let output = whittle()
        .arg("reduce")
        .arg(&input)
        .args([
            "--fast",
            "--atoms",
            "line",
            "-j",
            "1",
            "--no-tui",
            "--stats-json",
        ])
        .arg(&stats)
        .arg("--")
        .arg(&test)
        .output()
        .unwrap();
    assert!(output.status.success(), "{output:?}");
    assert!(start.elapsed() < Duration::from_secs(60));
    assert_eq!(
        std::fs::read_to_string(dir.path().join("in.whittled.txt")).unwrap(),
        "keep\nstop\n"
    );
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(stdout.contains("5x the input's check"), "{stdout}");
    let stats: serde_json::Value = serde_json::from_slice(&std::fs::read(&stats).unwrap()).unwrap();
    assert!(stats["timeouts"].as_u64().unwrap() > 0, "{stats}");
    assert_eq!(stats["timeout_derived"], true);
    let timeout = stats["timeout_seconds"].as_f64().unwrap();
    assert!((0.5..5.0).contains(&timeout), "{stats}");
}

#[test]
fn empty_interesting_file_warns() {
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("in.txt");
    std::fs::write(&input, "a\nb\n").unwrap();
    let output = whittle()
        .arg("reduce")
        .arg(&input)
        .args(["--", "true"])
        .output()
        .unwrap();
    assert!(output.status.success());
    assert!(String::from_utf8_lossy(&output.stderr).contains("too permissive"));
    assert_eq!(
        std::fs::read(dir.path().join("in.whittled.txt")).unwrap(),
        b""
    );
}

#[test]
fn statistics_and_trace_are_written() {
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("in.txt");
    std::fs::write(&input, "a\nkeep\nb\nc\n").unwrap();
    let stats = dir.path().join("stats.json");
    let trace = dir.path().join("trace.jsonl");
    let output = whittle()
        .arg("reduce")
        .arg(&input)
        .arg("--stats-json")
        .arg(&stats)
        .arg("--trace")
        .arg(&trace)
        .args(["-j", "1", "--", "grep", "-q", "keep"])
        .output()
        .unwrap();
    assert!(output.status.success(), "{output:?}");
    assert_eq!(
        std::fs::read(dir.path().join("in.whittled.txt")).unwrap(),
        b"keep"
    );
    let stats: serde_json::Value = serde_json::from_slice(&std::fs::read(&stats).unwrap()).unwrap();
    for key in [
        "tests",
        "checks",
        "oracle_runs",
        "cache_hits",
        "iterations",
        "timeouts",
        "input_bytes",
        "output_bytes",
        "output_nonws_chars",
        "wall_seconds",
        "cache_peak_entries",
        "cache_peak_bytes",
    ] {
        assert!(stats.get(key).is_some(), "{key} missing from {stats}");
    }
    assert_eq!(stats["output_bytes"], 4);
    assert_eq!(stats["input_bytes"], 11);
    let lines = std::fs::read_to_string(&trace).unwrap();
    let judged: Vec<serde_json::Value> = lines
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let runs = judged.iter().filter(|l| l["action"] == "test").count() as u64;
    assert_eq!(runs, stats["oracle_runs"].as_u64().unwrap());
    let preflight = judged.iter().filter(|l| l["step"] == 0).count();
    assert_eq!(
        preflight, 2,
        "the input and the empty file are checked as step 0"
    );
    assert_eq!(stats["checks"], 2, "{stats}");
    let tests = judged
        .iter()
        .filter(|l| l["action"] == "test" && l["step"] != 0)
        .count() as u64;
    assert_eq!(tests, stats["tests"].as_u64().unwrap());
    assert_eq!(runs, tests + 2);
    assert!(
        judged
            .iter()
            .all(|l| l["content_sha3"].as_str().unwrap().len() == 64)
    );
}

#[test]
fn limits_stop_early_and_keep_the_best_result() {
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("in.txt");
    let text: String = (0..200).map(|i| format!("line {i}\n")).collect();
    std::fs::write(&input, &text).unwrap();
    let output = whittle()
        .arg("reduce")
        .arg(&input)
        .args([
            "--limit-tests",
            "10",
            "-j",
            "1",
            "--",
            "grep",
            "-q",
            "line 17$",
        ])
        .output()
        .unwrap();
    assert!(output.status.success(), "{output:?}");
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(stdout.contains("limit of 10 tests"), "{stdout}");
    let result = std::fs::read_to_string(dir.path().join("in.whittled.txt")).unwrap();
    assert!(result.contains("line 17\n") && result.len() < text.len());
}

#[test]
fn first_mode_cancels_losing_tests_and_leaves_nothing_behind() {
    let dir = tempfile::tempdir().unwrap();
    let scratch = tempfile::tempdir().unwrap();
    let input = dir.path().join("in.txt");
    std::fs::write(&input, "a\nb\nc\nkeep\nd\ne\nf\ng\n").unwrap();
    let pids = dir.path().join("pids");
    let stats = dir.path().join("stats.json");
    let test = write_script(
        dir.path(),
        "slow.sh",
        &format!(
            "sleep 60 &\necho $! >> {p}\ngrep -q keep \"$1\" && exit 0\nsleep 3\nexit 1",
            p = pids.display()
        ),
    );
    let output = whittle()
        .arg("reduce")
        .arg(&input)
        .args([
            "--fast",
            "--atoms",
            "line",
            "--parallel",
            "first",
            "-j",
            "4",
            "--stats-json",
        ])
        .arg(&stats)
        .arg("--")
        .arg(&test)
        .env("TMPDIR", scratch.path())
        .output()
        .unwrap();
    assert!(output.status.success(), "{output:?}");
    assert_eq!(
        std::fs::read(dir.path().join("in.whittled.txt")).unwrap(),
        b"keep\n"
    );
    let stats: serde_json::Value = serde_json::from_slice(&std::fs::read(&stats).unwrap()).unwrap();
    assert!(stats["cancelled"].as_u64().unwrap() > 0, "{stats}");
    std::thread::sleep(Duration::from_millis(100));
    let pids = pids_in(&pids);
    assert!(!pids.is_empty());
    for pid in pids {
        assert!(!pid_alive(pid), "process {pid} outlived its test");
    }
    assert_eq!(
        std::fs::read_dir(scratch.path()).unwrap().count(),
        0,
        "the scratch directory is removed"
    );
}

#[test]
fn crashes_and_timeouts_in_a_parallel_window_are_unresolved() {
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("in.txt");
    std::fs::write(&input, "keep\na\nb\nc\nd\ne\n").unwrap();
    let stats = dir.path().join("stats.json");
    // Interesting while `keep` is there, except that three-line candidates die by a signal and
    // two-line ones hang: both happen in the first windows.
    let test = write_script(
        dir.path(),
        "t.sh",
        "lines=$(wc -l < \"$1\")\n\
         [ \"$lines\" -eq 3 ] && kill -9 $$\n\
         [ \"$lines\" -eq 2 ] && sleep 60\n\
         grep -q keep \"$1\"",
    );
    let start = Instant::now();
    let output = whittle()
        .arg("reduce")
        .arg(&input)
        .args([
            "--fast",
            "--atoms",
            "line",
            "--timeout",
            "1",
            "-j",
            "3",
            "--stats-json",
        ])
        .arg(&stats)
        .arg("--")
        .arg(&test)
        .output()
        .unwrap();
    assert!(output.status.success(), "{output:?}");
    assert!(start.elapsed() < Duration::from_secs(30));
    let result = std::fs::read_to_string(dir.path().join("in.whittled.txt")).unwrap();
    assert_eq!(result, "keep\n");
    let stats: serde_json::Value = serde_json::from_slice(&std::fs::read(&stats).unwrap()).unwrap();
    assert!(stats["timeouts"].as_u64().unwrap() > 0, "{stats}");
    assert!(stats["crashes"].as_u64().unwrap() > 0, "{stats}");
    assert_eq!(
        stats["unresolved"].as_u64().unwrap(),
        stats["timeouts"].as_u64().unwrap() + stats["crashes"].as_u64().unwrap()
    );
}

#[test]
fn sigterm_kills_the_running_tests_and_leaves_a_complete_output() {
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("in.txt");
    let text: String = (0..64).map(|i| format!("line {i}\n")).collect();
    std::fs::write(&input, &text).unwrap();
    let pids = dir.path().join("pids");
    let test = write_script(
        dir.path(),
        "slow.sh",
        &format!(
            "echo $$ >> {p}\nsleep 30 &\necho $! >> {p}\nsleep 0.2\ngrep -q 'line 42$' \"$1\"",
            p = pids.display()
        ),
    );
    let mut child = whittle()
        .arg("reduce")
        .arg(&input)
        .args(["-j", "2", "--"])
        .arg(&test)
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    // Let a few tests run, then ask it to stop.
    let deadline = Instant::now() + Duration::from_secs(20);
    while pids_in(&pids).len() < 10 && Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(50));
    }
    nix::sys::signal::kill(
        nix::unistd::Pid::from_raw(child.id() as i32),
        nix::sys::signal::Signal::SIGTERM,
    )
    .unwrap();
    let status = child.wait().unwrap();
    assert_eq!(status.code(), Some(130));
    std::thread::sleep(Duration::from_millis(100));
    for pid in pids_in(&pids) {
        assert!(!pid_alive(pid), "process {pid} survived SIGTERM");
    }
    let output = std::fs::read_to_string(dir.path().join("in.whittled.txt")).unwrap();
    assert!(
        output.contains("line 42\n"),
        "the output is an interesting test case"
    );
    assert!(output.len() <= text.len());
}
