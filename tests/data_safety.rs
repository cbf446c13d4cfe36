//! Nothing lost: output paths checked before the first test, no two paths of a run on the same
//! file, existing results never replaced by something larger, one run per output, only regular
//! files replaced, and a result that cannot be written kept and written later (or elsewhere).
//! Real processes and a real file system throughout.

mod common;

use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::time::Duration;

use common::safety::{
    Work, exited, lines, mkfifo, needle_task, run_within, runs, slow_needle_task, spawn_piped,
    text, wait_until,
};

const MINUTE: Duration = Duration::from_secs(60);

/// An input of 40 lines in `in.txt`, an empty directory `out`, and a test that wants `line 17`
/// and first, at the runs of `chmods`, gives `out` the modes there: `(run, mode)`.
fn task_that_changes_out(work: &Work, chmods: &[(usize, &str)]) -> (PathBuf, PathBuf) {
    let input = work.file("in.txt", lines(40));
    let out_dir = work.path("out");
    std::fs::create_dir(&out_dir).unwrap();
    let runs = work.path("runs");
    let mut script = format!(
        "echo run >> {runs}\nn=$(wc -l < {runs})\n",
        runs = runs.display()
    );
    for (run, mode) in chmods {
        script += &format!(
            "[ \"$n\" -eq {run} ] && chmod {mode} {}\n",
            out_dir.display()
        );
    }
    script += "grep -q 'line 17$' \"$1\"";
    (input, work.script("test.sh", &script))
}

/// `whittle reduce in.txt --no-tui OPTIONS -- TEST` in `work`, run to its end (a minute at most).
fn reduce_in_txt(work: &Work, options: &[&str], test: &Path) -> std::process::Output {
    work.reduce_within(Path::new("in.txt"), options, test, MINUTE)
}

// Item 1: output paths that cannot be written are refused before the first test.

#[test]
fn unwritable_output_paths_are_refused_before_the_first_test() {
    let work = Work::new();
    let (input, test) = needle_task(&work);
    std::fs::create_dir(work.path("a-directory")).unwrap();
    let cases: Vec<(Vec<&str>, &str)> = vec![
        (vec!["-o", "missing/out.txt"], "missing"),
        (vec!["-o", "a-directory"], "is a directory"),
        (vec!["-o", "in.txt/out.txt"], "not a directory"),
        (vec!["--stats-json", "missing/stats.json"], "missing"),
        (vec!["--stats-json", "a-directory"], "is a directory"),
        (vec!["--trace", "missing/trace.jsonl"], "missing"),
        (vec!["--trace", "a-directory"], "trace"),
    ];
    for (extra, says) in cases {
        let output = reduce_in_txt(&work, &extra, &test);
        let stderr = text(&output.stderr);
        assert_eq!(output.status.code(), Some(2), "{extra:?}: {stderr}");
        assert!(stderr.contains(says), "{extra:?}: {stderr}");
        assert!(
            !text(&output.stdout).contains("result:"),
            "{extra:?}: no result line"
        );
        assert_eq!(runs(&work), 0, "{extra:?}: no test ran");
        assert!(work.scratch_left().is_empty(), "{extra:?}");
    }
    assert_eq!(std::fs::read(&input).unwrap(), lines(40).as_bytes());
}

#[test]
fn an_output_directory_without_write_permission_is_refused_before_the_first_test() {
    let work = Work::new();
    let (_, test) = needle_task(&work);
    let locked = work.path("locked");
    std::fs::create_dir(&locked).unwrap();
    std::fs::set_permissions(&locked, std::fs::Permissions::from_mode(0o555)).unwrap();
    for extra in [["-o", "locked/out.txt"], ["--stats-json", "locked/s.json"]] {
        let output = run_within(
            &mut work.reduce_unprivileged(Path::new("in.txt"), &extra, &test),
            MINUTE,
        );
        let stderr = text(&output.stderr);
        assert_eq!(output.status.code(), Some(2), "{extra:?}: {stderr}");
        assert!(stderr.contains("cannot write in"), "{extra:?}: {stderr}");
        assert_eq!(runs(&work), 0, "{extra:?}: no test ran");
    }
    std::fs::set_permissions(&locked, std::fs::Permissions::from_mode(0o755)).unwrap();
}

#[test]
fn a_write_that_fails_mid_run_is_kept_in_memory_and_written_when_it_can_be() {
    let work = Work::new();
    // From its 3rd run the test makes the output's directory read-only, from its 12th writable
    // again: the improvements in between cannot be written.
    let (input, test) = task_that_changes_out(&work, &[(3, "555"), (12, "755")]);
    // The runs are counted: the input is checked once.
    let options = ["-j", "1", "--assume-deterministic", "-o", "out/result.txt"];
    let output = run_within(
        &mut work.reduce_unprivileged(&input, &options, &test),
        MINUTE,
    );
    let stderr = exited(&output, 0);
    assert!(stderr.contains("cannot write"), "{stderr}");
    assert!(stderr.contains("kept in memory"), "{stderr}");
    assert!(stderr.contains("written again"), "{stderr}");
    assert_eq!(work.read_string("out/result.txt"), "line 17");
    assert!(text(&output.stdout).contains("result: out/result.txt"));
}

#[test]
fn a_result_that_cannot_be_written_at_the_end_is_saved_elsewhere_and_no_false_result_line() {
    let work = Work::new();
    // After the input check the output's directory stays read-only.
    let (input, test) = task_that_changes_out(&work, &[(2, "555")]);
    let out_dir = work.path("out");
    // The runs are counted: the input is checked once.
    let options = ["-j", "1", "--assume-deterministic", "-o", "out/result.txt"];
    let output = run_within(
        &mut work.reduce_unprivileged(&input, &options, &test),
        MINUTE,
    );
    std::fs::set_permissions(&out_dir, std::fs::Permissions::from_mode(0o755)).unwrap();
    let stderr = text(&output.stderr);
    let stdout = text(&output.stdout);
    assert_eq!(output.status.code(), Some(1), "{stderr}");
    assert!(
        !stdout.contains("result: out/result.txt"),
        "no result line naming a file that does not hold the result: {stdout}"
    );
    assert!(stderr.contains("cannot write the result"), "{stderr}");
    // The input is what the output holds; the result went elsewhere and says where.
    assert_eq!(work.read("out/result.txt"), std::fs::read(&input).unwrap());
    let saved = stderr
        .lines()
        .find_map(|line| line.split(" was saved to ").nth(1))
        .and_then(|rest| rest.strip_suffix(" instead."))
        .unwrap_or_else(|| panic!("where the result went: {stderr}"));
    assert_eq!(std::fs::read_to_string(saved).unwrap(), "line 17");
    let result_line = stdout.lines().find(|l| l.starts_with("result: ")).unwrap();
    assert_eq!(result_line, format!("result: {saved}"));
}

// Item 2: no two paths of a run name the same file.

#[test]
fn paths_naming_the_same_file_are_refused_and_the_input_is_untouched() {
    let work = Work::new();
    let (input, test) = needle_task(&work);
    let original = std::fs::read(&input).unwrap();
    std::fs::hard_link(&input, work.path("hard-link.txt")).unwrap();
    std::os::unix::fs::symlink(&input, work.path("soft-link.txt")).unwrap();
    let cases: Vec<Vec<&str>> = vec![
        vec!["--trace", "in.txt"],
        vec!["--stats-json", "in.txt"],
        vec!["--stats-json", "hard-link.txt"],
        vec!["--trace", "soft-link.txt"],
        vec!["-o", "soft-link.txt"],
        vec!["-o", "./hard-link.txt"],
        vec!["-o", "out.txt", "--stats-json", "out.txt"],
        vec!["-o", "out.txt", "--trace", "./out.txt"],
        vec!["--stats-json", "s.json", "--trace", "s.json"],
    ];
    for extra in cases {
        let output = reduce_in_txt(&work, &extra, &test);
        let stderr = text(&output.stderr);
        assert_eq!(output.status.code(), Some(2), "{extra:?}: {stderr}");
        assert!(stderr.contains("the same file"), "{extra:?}: {stderr}");
        assert_eq!(std::fs::read(&input).unwrap(), original, "{extra:?}");
        assert_eq!(runs(&work), 0, "{extra:?}");
        for name in ["out.txt", "s.json", "in.whittled.txt"] {
            assert!(!work.path(name).exists(), "{extra:?}: {name}");
        }
    }
}

// Item 3: an existing output is never replaced by something larger; one run per output.

#[test]
fn an_existing_result_is_refused_resumed_or_forced_but_never_replaced_by_the_input() {
    let work = Work::new();
    let (input, test) = needle_task(&work);
    let reduce = |extra: &[&str]| reduce_in_txt(&work, &[&["-j", "1"][..], extra].concat(), &test);
    let first = reduce(&[]);
    assert!(first.status.success(), "{}", text(&first.stderr));
    let result = work.path("in.whittled.txt");
    assert_eq!(std::fs::read_to_string(&result).unwrap(), "line 17");

    // A second run refuses to start over the result.
    let runs_before = runs(&work);
    let second = reduce(&[]);
    let stderr = exited(&second, 2);
    assert!(
        stderr.contains("--resume") && stderr.contains("--force"),
        "{stderr}"
    );
    assert_eq!(runs(&work), runs_before, "no test ran");
    assert_eq!(std::fs::read_to_string(&result).unwrap(), "line 17");

    // --resume starts from it (and says so).
    let resumed = reduce(&["--resume"]);
    let stderr = text(&resumed.stderr);
    assert!(resumed.status.success(), "{stderr}");
    assert!(stderr.contains("resuming from"), "{stderr}");
    // The test logs the size of every candidate: the resumed run tested nothing larger.
    let sizes: Vec<usize> = std::fs::read_to_string(work.path("sizes"))
        .unwrap()
        .lines()
        .map(|line| line.trim().parse().unwrap())
        .collect();
    let resumed_sizes = &sizes[runs_before..];
    assert_eq!(resumed_sizes.first(), Some(&"line 17".len()));
    assert!(resumed_sizes.iter().all(|&size| size <= "line 17".len()));
    assert_eq!(std::fs::read_to_string(&result).unwrap(), "line 17");

    // --force starts from the input but never puts the (larger) input in its place.
    let forced = reduce(&["--force"]);
    assert!(forced.status.success(), "{}", text(&forced.stderr));
    assert_eq!(std::fs::read_to_string(&result).unwrap(), "line 17");
    assert!(input.exists());
}

#[test]
fn ctrl_c_early_in_a_forced_or_resumed_run_leaves_the_smaller_result_in_place() {
    let work = Work::new();
    // Each test takes a while, so the stop comes in the middle of the first tests.
    let (input, test) = slow_needle_task(&work, "0.3");
    let result = work.file("in.whittled.txt", "line 17");
    for flag in ["--force", "--resume"] {
        let _ = std::fs::remove_file(work.path("runs"));
        let mut child = spawn_piped(&mut work.reduce(&input, &["-j", "2", flag], &test));
        // After the first check has passed, while later tests run.
        assert!(wait_until(Duration::from_secs(20), || runs(&work) >= 2));
        common::safety::signal(child.id() as i32, nix::sys::signal::Signal::SIGINT);
        let status = common::safety::wait_within(&mut child, Duration::from_secs(20))
            .expect("whittle ends after Ctrl-C");
        assert_eq!(status.code(), Some(130), "{flag}");
        assert_eq!(
            std::fs::read_to_string(&result).unwrap(),
            "line 17",
            "{flag}: the smaller result stays"
        );
    }
}

#[test]
fn a_second_run_on_the_same_output_is_refused_while_the_first_runs() {
    let work = Work::new();
    let (input, test) = slow_needle_task(&work, "0.2");
    let args = [
        "reduce",
        input.to_str().unwrap(),
        "--no-tui",
        "-j",
        "1",
        "-o",
        "shared.txt",
        "--",
        test.to_str().unwrap(),
    ];
    let mut first = work
        .whittle(&args)
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    assert!(wait_until(Duration::from_secs(20), || runs(&work) >= 2));
    let second = run_within(&mut work.whittle(&args), MINUTE);
    let stderr = exited(&second, 2);
    assert!(stderr.contains("another whittle run"), "{stderr}");
    assert!(stderr.contains("shared.txt"), "{stderr}");
    assert!(stderr.contains(&first.id().to_string()), "{stderr}");
    let status = common::safety::wait_within(&mut first, MINUTE).expect("the first run ends");
    assert!(status.success());
    assert_eq!(work.read_string("shared.txt"), "line 17");
    assert!(
        !work.path(".shared.txt.whittle.lock").exists(),
        "the lock file is removed at the end"
    );
}

// Item 4: only regular files are replaced.

#[test]
fn special_files_at_the_output_are_refused_and_left_alone() {
    let work = Work::new();
    let (_, test) = needle_task(&work);
    let fifo = work.path("fifo");
    mkfifo(&fifo);
    std::os::unix::fs::symlink("/dev/null", work.path("null-link")).unwrap();
    for target in ["fifo", "null-link"] {
        for option in ["-o", "--stats-json"] {
            let output = reduce_in_txt(&work, &[option, target], &test);
            let stderr = text(&output.stderr);
            assert_eq!(output.status.code(), Some(2), "{option} {target}: {stderr}");
            assert!(stderr.contains("not a regular file"), "{stderr}");
            assert_eq!(runs(&work), 0);
        }
    }
    use std::os::unix::fs::FileTypeExt;
    assert!(std::fs::metadata(&fifo).unwrap().file_type().is_fifo());
    assert!(
        std::fs::symlink_metadata(work.path("null-link"))
            .unwrap()
            .file_type()
            .is_symlink()
    );
    assert!(
        std::fs::metadata("/dev/null")
            .unwrap()
            .file_type()
            .is_char_device()
    );
}
