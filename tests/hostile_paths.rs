//! Paths a careful or hostile user gives: special files as the input or a record, records onto
//! the test's own files or another run's output, and traces cut by a killed run. Real processes
//! and a real file system throughout.

mod common;

use std::path::Path;
use std::time::{Duration, Instant};

use common::safety::{
    Work, exited, lines, mkfifo, needle_task, run_within, spawn_piped, text, wait_until,
};

const MINUTE: Duration = Duration::from_secs(60);

/// The lock files left in the work directory.
fn locks_left(work: &Work) -> Vec<String> {
    std::fs::read_dir(work.path("."))
        .unwrap()
        .map(|entry| entry.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|name| name.ends_with(".whittle.lock"))
        .collect()
}

#[test]
fn a_fifo_as_the_input_or_a_record_is_refused_at_once() {
    let work = Work::new();
    let (_, test) = needle_task(&work);
    mkfifo(&work.path("fifo"));
    // No reader or writer ever comes: an `open` of the FIFO would block for good.
    let cases: [(&[&str], &str); 3] = [
        (
            &["reduce", "fifo", "-o", "out.txt"],
            "the input fifo is a FIFO",
        ),
        (
            &["reduce", "in.txt", "--trace", "fifo"],
            "--trace fifo is a FIFO",
        ),
        (
            &["reduce", "in.txt", "--stats-json", "fifo"],
            "--stats-json fifo is a FIFO",
        ),
    ];
    for (args, expected) in cases {
        let mut all: Vec<&str> = args.to_vec();
        all.extend(["--no-tui", "--", test.to_str().unwrap()]);
        let started = Instant::now();
        let output = run_within(&mut work.whittle(&all), MINUTE);
        let stderr = text(&output.stderr);
        assert!(
            started.elapsed() < Duration::from_secs(2),
            "{args:?} took {:?}",
            started.elapsed()
        );
        assert_eq!(output.status.code(), Some(2), "{args:?}: {stderr}");
        assert!(stderr.contains(expected), "{args:?}: {stderr}");
        assert!(stderr.contains("not a regular file"), "{stderr}");
        assert!(locks_left(&work).is_empty(), "{:?}", locks_left(&work));
        assert!(!work.path("out.txt").exists());
    }
    for args in [&["replay", "fifo", "--no-tui"][..], &["tree", "fifo"]] {
        let started = Instant::now();
        let output = run_within(&mut work.whittle(args), MINUTE);
        assert!(started.elapsed() < Duration::from_secs(2), "{args:?}");
        assert_ne!(output.status.code(), Some(0), "{args:?}");
        assert!(text(&output.stderr).contains("FIFO"), "{args:?}");
    }
}

#[test]
fn records_are_never_written_onto_the_test() {
    let work = Work::new();
    let (_, test) = needle_task(&work);
    let script = std::fs::read(&test).unwrap();
    let data = work.file("data.txt", "what the test reads\n");
    for (option, target, expected) in [
        ("--trace", "test.sh", "is the program"),
        ("--stats-json", "test.sh", "is the program"),
        ("-o", "data.txt", "is the file"),
    ] {
        // With --force, which lets records replace other files, too.
        for force in [&[][..], &["--force"]] {
            let mut args = vec!["reduce", "in.txt", option, target, "--no-tui"];
            args.extend(force);
            args.extend(["--", "./test.sh", data.to_str().unwrap()]);
            let output = run_within(&mut work.whittle(&args), MINUTE);
            let stderr = text(&output.stderr);
            assert_eq!(output.status.code(), Some(2), "{args:?}: {stderr}");
            assert!(stderr.contains(expected), "{args:?}: {stderr}");
            assert!(stderr.contains("of the test command"), "{stderr}");
        }
    }
    assert_eq!(std::fs::read(&test).unwrap(), script);
    assert_eq!(std::fs::read(&data).unwrap(), b"what the test reads\n");
}

#[test]
fn records_replace_only_earlier_records_unless_forced() {
    let work = Work::new();
    let (_, test) = needle_task(&work);
    let notes = work.file("notes.txt", "my notes\n");
    for option in ["--trace", "--stats-json"] {
        let output = work.reduce_within(Path::new("in.txt"), &[option, "notes.txt"], &test, MINUTE);
        let stderr = text(&output.stderr);
        assert_eq!(output.status.code(), Some(2), "{option}: {stderr}");
        assert!(stderr.contains("is not"), "{stderr}");
        assert!(stderr.contains("--force"), "{stderr}");
        assert_eq!(std::fs::read(&notes).unwrap(), b"my notes\n");
    }
    // What an earlier run wrote is replaced by the next one.
    for round in 0..2 {
        let output = work.reduce_within(
            Path::new("in.txt"),
            &[
                "--trace",
                "t.jsonl",
                "--stats-json",
                "s.json",
                "-o",
                &format!("out{round}.txt"),
            ],
            &test,
            MINUTE,
        );
        exited(&output, 0);
    }
    assert!(work.json("s.json")["output_bytes"].as_u64() < Some(10));
    // --force replaces anything.
    let output = work.reduce_within(
        Path::new("in.txt"),
        &["--trace", "notes.txt", "--force", "-o", "out2.txt"],
        &test,
        MINUTE,
    );
    exited(&output, 0);
    assert!(
        work.read_string("notes.txt")
            .starts_with("{\"whittle_trace\":")
    );
}

#[test]
fn records_are_never_written_onto_another_runs_output() {
    let work = Work::new();
    work.file("in.txt", lines(40));
    let slow = work.script("slow.sh", "sleep 0.5\ngrep -q 'line 17$' \"$1\"");
    let mut first = spawn_piped(&mut work.reduce(
        Path::new("in.txt"),
        &["-o", "busy.txt", "--timeout", "30"],
        &slow,
    ));
    assert!(
        wait_until(MINUTE, || work.path(".busy.txt.whittle.lock").exists()
            && work.path("busy.txt").exists()),
        "the first run takes its lock"
    );
    let (_, test) = needle_task(&work);
    for option in ["--trace", "--stats-json"] {
        let output = work.reduce_within(
            Path::new("in.txt"),
            &[option, "busy.txt", "--force"],
            &test,
            MINUTE,
        );
        let stderr = text(&output.stderr);
        assert_eq!(output.status.code(), Some(2), "{option}: {stderr}");
        assert!(stderr.contains("another whittle run"), "{stderr}");
    }
    common::safety::signal(first.id() as i32, nix::sys::signal::Signal::SIGTERM);
    let _ = first.wait();
    // The first run's result is still a result, not a record.
    assert!(
        work.read_string("busy.txt").contains("line 17"),
        "{}",
        work.read_string("busy.txt")
    );
}

#[test]
fn a_trace_cut_mid_line_replays_its_whole_lines() {
    let work = Work::new();
    let (_, test) = needle_task(&work);
    let output = work.reduce_within(
        Path::new("in.txt"),
        &["--trace", "t.jsonl", "-j", "1"],
        &test,
        MINUTE,
    );
    exited(&output, 0);
    let whole = work.read("t.jsonl");
    let whole_lines = whole.iter().filter(|&&b| b == b'\n').count();
    // Cut in the middle of the line before the end line (as SIGKILL or a full disk would).
    let starts: Vec<usize> = std::iter::once(0)
        .chain(
            whole
                .iter()
                .enumerate()
                .filter(|&(_, &b)| b == b'\n')
                .map(|(i, _)| i + 1),
        )
        .collect();
    let line = whole_lines - 2;
    let cut_at = (starts[line] + starts[line + 1]) / 2;
    work.file("cut.jsonl", &whole[..cut_at]);
    let output = run_within(
        &mut work.whittle(&["replay", "cut.jsonl", "--no-tui"]),
        MINUTE,
    );
    let (stdout, stderr) = (text(&output.stdout), text(&output.stderr));
    assert_eq!(output.status.code(), Some(0), "{stderr}");
    assert!(
        stderr.contains(&format!("line {} was cut", line + 1)),
        "{stderr}"
    );
    assert!(stdout.contains("cut line"), "{stdout}");
    // The complete replay has the steps of the cut one, and more.
    let full = run_within(
        &mut work.whittle(&["replay", "t.jsonl", "--no-tui"]),
        MINUTE,
    );
    let full_steps = text(&full.stdout);
    let cut_steps: Vec<&str> = stdout
        .lines()
        .skip(1)
        .filter(|l| !l.starts_with('('))
        .collect();
    assert!(!cut_steps.is_empty());
    for step in &cut_steps {
        assert!(full_steps.contains(step), "{step}");
    }
    // A trace cut inside its header holds nothing to replay, and says so.
    work.file("header.jsonl", &whole[..starts[1] / 2]);
    let output = run_within(
        &mut work.whittle(&["replay", "header.jsonl", "--no-tui"]),
        MINUTE,
    );
    assert_eq!(output.status.code(), Some(2));
    assert!(text(&output.stderr).contains("cut while its header"));
}

/// The output, the trace's last accepted candidate and `--stats-json` name the same result,
/// also when the last accepted reduction keeps the size (a one-letter name renamed to another).
#[test]
fn the_output_is_the_last_accepted_candidate_of_its_size() {
    let work = Work::new();
    // `rename` renames the identifiers of a JSON-free text: `z` and `y` become `a` and `b`
    // (same sizes); the test wants two words on the first line.
    let input = work.file("in.txt", "z y\n");
    let test = work.script(
        "two.sh",
        "read a b rest < \"$1\" && [ -n \"$b\" ] && [ -z \"$rest\" ]",
    );
    let output = work.reduce_within(
        &input,
        &[
            "-a",
            "rename",
            "--trace",
            "t.jsonl",
            "--stats-json",
            "s.json",
            "-j",
            "1",
        ],
        &test,
        MINUTE,
    );
    exited(&output, 0);
    let result = work.read("in.whittled.txt");
    assert_eq!(result.len(), 4, "{}", text(&result));
    assert_ne!(
        result, b"z y\n",
        "a same-size rename was accepted and written"
    );
    let accepted_sha = work
        .read_string("t.jsonl")
        .lines()
        .filter_map(|line| serde_json::from_str::<serde_json::Value>(line).ok())
        .filter(|line| line["step"].is_u64() && line["outcome"] == "interesting")
        .rfind(|line| line["step"].as_u64() != Some(0))
        .map(|line| line["content_sha3"].as_str().unwrap().to_owned())
        .expect("an accepted candidate");
    let end_sha = work
        .read_string("t.jsonl")
        .lines()
        .filter_map(|line| serde_json::from_str::<serde_json::Value>(line).ok())
        .find(|line| line["end"] == true)
        .map(|line| line["content_sha3"].as_str().unwrap().to_owned())
        .expect("the end line");
    let file_sha = sha3_hex(&result);
    assert_eq!(file_sha, accepted_sha);
    assert_eq!(file_sha, end_sha);
    assert_eq!(work.json("s.json")["output_bytes"], 4);
}

fn sha3_hex(bytes: &[u8]) -> String {
    whittle_core::exec::cache::sha3_hex(bytes)
}
