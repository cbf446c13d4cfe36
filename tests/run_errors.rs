//! whittle's own failures and odd arguments: a full disk under the scratch directory is reported
//! as whittle's error (not the test's), timeouts of 0 or of astronomic length, and the slips of
//! writing a test command (no `--`, a command quoted as one word, a file named relative to the
//! directory whittle starts in).

mod common;

use std::process::Command;
use std::time::Duration;

use common::safety::{Work, exited, in_mount_namespace, run_within, text};

const MINUTE: Duration = Duration::from_secs(60);

/// `whittle ARGS` with a tmpfs of `size` mounted over the scratch root, in a mount namespace of
/// its own (as root directly, else in a user namespace).
fn whittle_on_small_disk(work: &Work, size: &str, args: &[&str]) -> Command {
    let setup = format!(
        "mount -t tmpfs -o size={size} whittle-test {tmp} || exit 97",
        tmp = work.tmp().display()
    );
    in_mount_namespace(work, &setup, env!("CARGO_BIN_EXE_whittle"), args)
}

#[test]
fn a_full_scratch_disk_before_the_first_test_is_whittle_s_error() {
    let work = Work::new();
    // Larger than the disk: the candidate cannot be written.
    let input = work.file("in.txt", "x".repeat(300_000));
    let test = work.script("t.sh", "exit 0");
    let output = run_within(
        &mut whittle_on_small_disk(
            &work,
            "64k",
            &[
                "reduce",
                input.to_str().unwrap(),
                "--no-tui",
                "--",
                test.to_str().unwrap(),
            ],
        ),
        MINUTE,
    );
    let stderr = text(&output.stderr);
    assert_ne!(output.status.code(), Some(97), "cannot mount a tmpfs here");
    assert_eq!(output.status.code(), Some(1), "{stderr}");
    assert!(stderr.contains("No space left on device"), "{stderr}");
    assert!(stderr.contains("not of the test"), "{stderr}");
    assert!(!stderr.contains("fix the test"), "{stderr}");
    assert!(!stderr.contains("not interesting"), "{stderr}");
    assert!(!work.path("in.whittled.txt").exists());
}

#[test]
fn a_scratch_disk_that_fills_up_mid_run_stops_with_whittle_s_error_and_keeps_the_best() {
    let work = Work::new();
    let text_in: String = (0..400).map(|i| format!("line {i:04}\n")).collect();
    let input = work.file("in.txt", &text_in);
    // The 4th run fills the scratch disk (and keeps its own candidate's space taken, by a hard
    // link, so that removing its run directory frees nothing): later candidates cannot be
    // written.
    let test = work.script(
        "fill.sh",
        &format!(
            "echo run >> {runs}\nif [ \"$(wc -l < {runs})\" -eq 4 ]; then\n\
             ln \"$1\" \"$TMPDIR/pinned\"; head -c 4000000 /dev/zero > \"$TMPDIR/fill\"\nfi\n\
             grep -q 'line 0123$' \"$1\"",
            runs = work.path("runs").display()
        ),
    );
    let output = run_within(
        &mut whittle_on_small_disk(
            &work,
            "1m",
            &[
                "reduce",
                input.to_str().unwrap(),
                "--no-tui",
                "-j",
                "1",
                // The test counts its runs: the input is checked once.
                "--assume-deterministic",
                "--",
                test.to_str().unwrap(),
            ],
        ),
        MINUTE,
    );
    let stderr = text(&output.stderr);
    let stdout = text(&output.stdout);
    assert_ne!(output.status.code(), Some(97), "cannot mount a tmpfs here");
    assert_eq!(output.status.code(), Some(1), "{stderr}");
    assert!(stderr.contains("No space left on device"), "{stderr}");
    assert!(stderr.contains("not of the test"), "{stderr}");
    assert!(stdout.contains("stopped by an error"), "{stdout}");
    assert!(!stdout.contains("result:"), "{stdout}");
    let best = std::fs::read_to_string(work.path("in.whittled.txt")).unwrap();
    assert!(best.contains("line 0123\n"), "the output is interesting");
    assert!(best.len() < text_in.len(), "a reduction was kept");
}

#[test]
fn a_timeout_of_zero_is_refused_and_huge_ones_are_accepted() {
    let work = Work::new();
    let input = work.file("in.txt", "a\nkeep\nb\n");
    let test = work.script("t.sh", "grep -q keep \"$1\"");
    let run = |timeout: &str| {
        let _ = std::fs::remove_file(work.path("in.whittled.txt"));
        work.reduce_within(&input, &[&format!("--timeout={timeout}")], &test, MINUTE)
    };
    for zero in ["0", "0.0"] {
        let output = run(zero);
        let stderr = exited(&output, 2);
        assert!(stderr.contains("more than 0 seconds"), "{stderr}");
    }
    for bad in ["-1", "NaN"] {
        let output = run(bad);
        assert_eq!(output.status.code(), Some(2), "{bad}");
        assert!(text(&output.stderr).contains("non-negative"), "{bad}");
    }
    for huge in ["1e300", "inf", "18446744073709551616"] {
        let output = run(huge);
        assert!(output.status.success(), "{huge}: {}", text(&output.stderr));
        assert_eq!(
            std::fs::read_to_string(work.path("in.whittled.txt")).unwrap(),
            "keep"
        );
    }
}

#[test]
fn a_test_command_without_its_dashes_is_explained() {
    let work = Work::new();
    work.file("in.txt", "keep\n");
    work.script("t.sh", "grep -q keep \"$1\"");
    let output = run_within(&mut work.whittle(&["reduce", "in.txt", "./t.sh"]), MINUTE);
    let stderr = text(&output.stderr);
    assert_eq!(output.status.code(), Some(2), "{stderr}");
    assert!(
        stderr.contains("the test command goes after `--`"),
        "{stderr}"
    );
    assert!(
        stderr.contains("`./t.sh` was taken for another input"),
        "{stderr}"
    );
}

#[test]
fn a_test_command_quoted_as_one_word_is_explained() {
    let work = Work::new();
    work.file("in.txt", "keep\n");
    work.script("t.sh", "grep -q keep \"$1\"");
    let output = run_within(
        &mut work.whittle(&["reduce", "in.txt", "--no-tui", "--", "./t.sh -v"]),
        MINUTE,
    );
    let stderr = text(&output.stderr);
    assert_eq!(output.status.code(), Some(2), "{stderr}");
    assert!(
        stderr.contains("as separate words after `--`, without quotes: `-- ./t.sh -v`"),
        "{stderr}"
    );
}

#[test]
fn a_file_the_test_names_relative_to_here_is_pointed_out() {
    let work = Work::new();
    work.file("in.txt", "keep\n");
    work.file(
        "check.py",
        "import sys\nsys.exit(0 if 'keep' in open(sys.argv[1]).read() else 1)\n",
    );
    let output = run_within(
        &mut work.whittle(&["reduce", "in.txt", "--no-tui", "--", "python3", "check.py"]),
        MINUTE,
    );
    let stderr = text(&output.stderr);
    assert_eq!(output.status.code(), Some(2), "{stderr}");
    assert!(
        stderr.contains("the test runs in a fresh directory of its own, where `check.py`"),
        "{stderr}"
    );
    let absolute = work.path("check.py");
    let output = run_within(
        &mut work.whittle(&[
            "reduce",
            "in.txt",
            "--no-tui",
            "--",
            "python3",
            absolute.to_str().unwrap(),
        ]),
        MINUTE,
    );
    assert!(output.status.success(), "{}", text(&output.stderr));
}

/// A test that reads a file beside the input (here a module the input imports) fails in the
/// fresh directory it runs in: the note names that file, and not the test's own script.
#[test]
fn files_beside_the_input_that_the_test_may_need_are_pointed_out() {
    let work = Work::new();
    work.file("main.py", "import util\nutil.f()\n");
    work.file("util.py", "def f():\n    raise TypeError\n");
    work.file(".hidden", "");
    work.script("t.sh", "python3 main.py 2>&1 | grep -q TypeError");
    let output = run_within(
        &mut work.whittle(&["reduce", "main.py", "--no-tui", "--", "./t.sh"]),
        MINUTE,
    );
    let stderr = text(&output.stderr);
    assert_eq!(output.status.code(), Some(2), "{stderr}");
    assert!(
        stderr.contains(
            "the test runs in a fresh directory holding only `main.py`; the files beside the \
             input (util.py) are not there"
        ),
        "{stderr}"
    );
    assert!(
        stderr.contains("`whittle reduce main.py util.py -- ...`"),
        "{stderr}"
    );
    // Given with the input, the module is there.
    let output = run_within(
        &mut work.whittle(&["reduce", "main.py", "util.py", "--no-tui", "--", "./t.sh"]),
        MINUTE,
    );
    assert!(output.status.success(), "{}", text(&output.stderr));
}
