//! Hostile use: stdout closed or full, stderr full, a full disk under the outputs, and the
//! messages of mistakes people make (a test that cannot be started, a manifest's shell test,
//! bad arguments for a batch's reductions, a misspelt algorithm or theme, an output through a
//! symbolic link or with a long name, a lock left by a killed run, `--limit-tests` with
//! parallel tests). Real processes and a real file system throughout.

mod common;

use std::os::unix::fs::PermissionsExt;
use std::os::unix::process::ExitStatusExt;
use std::path::PathBuf;
use std::process::{Command, ExitStatus, Output, Stdio};
use std::time::Duration;

use common::safety::{
    Work, exited, in_mount_namespace, lines, needle_task, run_within, runs, slow_needle_task, text,
    wait_until,
};

const MINUTE: Duration = Duration::from_secs(60);

/// `whittle reduce in.txt --no-tui OPTIONS -- TEST` in `work`, run to its end.
fn reduce_in_txt(work: &Work, options: &[&str], test: &str) -> Output {
    let mut args = vec!["reduce", "in.txt", "--no-tui"];
    args.extend(options);
    args.extend(["--", test]);
    run_within(&mut work.whittle(&args), MINUTE)
}

/// Runs `command` with its stdout a pipe whose reading end is closed before it starts (as
/// `| head -1` leaves it), stderr captured.
fn run_into_closed_pipe(command: &mut Command) -> (ExitStatus, String) {
    let (reader, writer) = std::io::pipe().unwrap();
    drop(reader);
    let child = command
        .stdout(writer)
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    // The command holds the writing end: only the child may keep it open.
    command.stdout(Stdio::null());
    let output = child.wait_with_output().unwrap();
    (output.status, text(&output.stderr))
}

/// Ended as Unix tools end on a closed pipe: exit status 0, or killed by SIGPIPE.
fn ended_quietly(status: ExitStatus) -> bool {
    status.code() == Some(0) || status.signal() == Some(nix::libc::SIGPIPE)
}

/// Runs `command` with its stdout `/dev/full`, stderr captured.
fn run_into_full_stdout(command: &mut Command) -> (ExitStatus, String) {
    let full = std::fs::OpenOptions::new()
        .write(true)
        .open("/dev/full")
        .unwrap();
    let output = command
        .stdout(full)
        .stderr(Stdio::piped())
        .output()
        .unwrap();
    (output.status, text(&output.stderr))
}

// Item 4: a closed or full stdout, a full stderr.

#[test]
fn a_reduction_whose_stdout_closes_ends_cleanly_with_its_result_written() {
    let work = Work::new();
    let (input, test) = needle_task(&work);
    let (status, stderr) =
        run_into_closed_pipe(&mut work.reduce(&input, &["-j", "2", "-o", "out.txt"], &test));
    assert!(ended_quietly(status), "{status:?}: {stderr}");
    assert!(!stderr.contains("panicked"), "{stderr}");
    assert!(!stderr.contains("error"), "{stderr}");
    assert_eq!(work.read_string("out.txt"), "line 17");
    assert!(!work.path(".out.txt.whittle.lock").exists());
    assert!(
        work.scratch_left().is_empty(),
        "{:?} left in the scratch root",
        work.scratch_left()
    );
}

#[test]
fn listings_into_a_closed_pipe_end_quietly() {
    let work = Work::new();
    let (input, test) = needle_task(&work);
    let traced = work.reduce_within(
        &input,
        &["-o", "out.txt", "--trace", "run.trace"],
        &test,
        MINUTE,
    );
    assert!(traced.status.success(), "{}", text(&traced.stderr));
    for args in [
        &["languages"][..],
        &["algorithms"],
        &["demo", "--list"],
        &["demo", "--no-tui"],
        &["replay", "run.trace", "--no-tui"],
    ] {
        let (status, stderr) = run_into_closed_pipe(&mut work.whittle(args));
        assert!(ended_quietly(status), "{args:?}: {status:?}: {stderr}");
        assert!(!stderr.contains("panicked"), "{args:?}: {stderr}");
        assert!(!stderr.contains("error"), "{args:?}: {stderr}");
    }
}

#[test]
fn a_full_stdout_is_one_clear_error_and_the_result_is_written() {
    let work = Work::new();
    let (input, test) = needle_task(&work);
    let (status, stderr) =
        run_into_full_stdout(&mut work.reduce(&input, &["-o", "out.txt"], &test));
    assert_eq!(status.code(), Some(1), "{stderr}");
    assert!(!stderr.contains("panicked"), "{stderr}");
    assert_eq!(
        stderr
            .matches("cannot write to the standard output (/dev/full): No space left on device")
            .count(),
        1,
        "{stderr}"
    );
    assert_eq!(work.read_string("out.txt"), "line 17");
    assert!(!work.path(".out.txt.whittle.lock").exists());
    for args in [&["languages"][..], &["demo", "--no-tui"]] {
        let (status, stderr) = run_into_full_stdout(&mut work.whittle(args));
        assert_eq!(status.code(), Some(1), "{args:?}: {stderr}");
        assert!(!stderr.contains("panicked"), "{args:?}: {stderr}");
        assert!(
            stderr.contains("cannot write to the standard output (/dev/full)"),
            "{args:?}: {stderr}"
        );
    }
}

#[test]
fn a_full_stderr_changes_nothing() {
    let work = Work::new();
    let (input, test) = needle_task(&work);
    let full = std::fs::OpenOptions::new()
        .write(true)
        .open("/dev/full")
        .unwrap();
    let output = work
        .reduce(&input, &["-o", "out.txt"], &test)
        .stdout(Stdio::piped())
        .stderr(full)
        .output()
        .unwrap();
    let stdout = text(&output.stdout);
    assert!(output.status.success(), "{:?}: {stdout}", output.status);
    assert!(stdout.contains("result: out.txt"), "{stdout}");
    assert_eq!(work.read_string("out.txt"), "line 17");
}

/// `PROGRAM ARGS` in `work` with a full tmpfs mounted over `work/full` (holding an empty
/// directory `out`), in a mount namespace of its own (as root directly, else in a user
/// namespace). Exit status 97: no tmpfs here.
fn on_a_full_disk(work: &Work, program: &str, args: &[&str]) -> Command {
    let full = work.path("full");
    std::fs::create_dir_all(&full).unwrap();
    let setup = format!(
        "mount -t tmpfs -o size=16k whittle-test {full} || exit 97; \
         mkdir {full}/out; head -c 1000000 /dev/zero > {full}/fill 2>/dev/null",
        full = full.display()
    );
    in_mount_namespace(work, &setup, program, args)
}

#[test]
fn a_batch_on_a_full_disk_says_so_once() {
    let work = Work::new();
    let (_, test) = needle_task(&work);
    std::fs::create_dir(work.path("inputs")).unwrap();
    for i in 0..2 {
        work.file(&format!("inputs/c{i}.txt"), lines(40));
    }
    let output = run_within(
        &mut on_a_full_disk(
            &work,
            env!("CARGO_BIN_EXE_whittle"),
            &[
                "batch",
                "inputs",
                "--work-dir",
                "full/work",
                "-o",
                "full/out",
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
    assert!(!stderr.contains("panicked"), "{stderr}");
    assert!(!stdout.contains("101"), "{stdout}");
    assert_eq!(
        stderr.matches("cannot write the summary to").count(),
        1,
        "{stderr}"
    );
    assert!(
        stderr.contains("summary.json: No space left on device"),
        "{stderr}"
    );
    assert!(!stderr.contains("summary in"), "{stderr}");
    // What each reduction could not say, the summary does.
    assert_eq!(
        stdout
            .matches("could not be written (a full disk?)")
            .count(),
        2,
        "{stdout}"
    );
    // The namespace's tmpfs is gone with it: a lock file left there is not seen from here, so
    // the reductions' own words tell: none got the lock, none left its file.
    assert_eq!(runs(&work), 0);
}

#[test]
fn a_run_that_cannot_lock_on_a_full_disk_leaves_no_lock_file() {
    let work = Work::new();
    let (_, test) = needle_task(&work);
    // `ls` runs in the namespace, after whittle: what it lists is what whittle left.
    let script = work.script(
        "then-ls.sh",
        &format!(
            "\"$@\"; code=$?; ls -a {out} >&2; exit $code",
            out = work.path("full/out").display()
        ),
    );
    let output = run_within(
        &mut on_a_full_disk(
            &work,
            script.to_str().unwrap(),
            &[
                env!("CARGO_BIN_EXE_whittle"),
                "reduce",
                "in.txt",
                "--no-tui",
                "-o",
                "full/out/out.txt",
                "--",
                test.to_str().unwrap(),
            ],
        ),
        MINUTE,
    );
    let stderr = text(&output.stderr);
    assert_ne!(output.status.code(), Some(97), "cannot mount a tmpfs here");
    assert_eq!(output.status.code(), Some(2), "{stderr}");
    assert!(stderr.contains("cannot lock"), "{stderr}");
    assert!(stderr.contains("No space left on device"), "{stderr}");
    // What `ls -a` saw after whittle: the directory and nothing in it.
    assert!(stderr.ends_with(".\n..\n"), "{stderr}");
    assert!(
        !stderr.contains("whittle.lock\n"),
        "a lock file is left: {stderr}"
    );
    assert_eq!(runs(&work), 0);
}

// Item 6: clearer messages.

/// The test `name` cannot be started for the reason `why` says: the run is refused before any
/// test, nothing is written, and the message says so, why (`facts`) and how to fix it.
fn assert_cannot_start(work: &Work, test: &str, facts: &[&str]) {
    let output = reduce_in_txt(work, &["-o", "out.txt"], test);
    let stderr = text(&output.stderr);
    assert_eq!(output.status.code(), Some(2), "{test}: {stderr}");
    assert!(
        stderr.contains("the test cannot be started"),
        "{test}: {stderr}"
    );
    assert!(!stderr.contains("not interesting"), "{test}: {stderr}");
    for fact in facts {
        assert!(stderr.contains(fact), "{test}: `{fact}` not in {stderr}");
    }
    assert!(!work.path("out.txt").exists(), "{test}");
    assert!(!work.path(".out.txt.whittle.lock").exists(), "{test}");
    assert!(work.scratch_left().is_empty(), "{test}: a test ran");
}

#[test]
fn a_test_that_cannot_be_started_is_refused_with_why_and_the_fix() {
    let work = Work::new();
    let (_, test) = needle_task(&work);
    assert_cannot_start(&work, "test.sh", &["not on PATH", "`./test.sh`"]);
    assert_cannot_start(&work, "no-such-test", &["`no-such-test` is not on PATH"]);
    assert_cannot_start(&work, "./missing.sh", &["does not exist", "No such file"]);
    std::fs::create_dir(work.path("tests")).unwrap();
    assert_cannot_start(&work, "./tests", &["`./tests` is a directory"]);
    std::fs::set_permissions(&test, std::fs::Permissions::from_mode(0o644)).unwrap();
    assert_cannot_start(
        &work,
        "./test.sh",
        &["not executable", "Permission denied", "chmod +x ./test.sh"],
    );
    let bad = work.script("bad.sh", "exit 0");
    std::fs::write(&bad, "#!/no/such/sh\nexit 0\n").unwrap();
    assert_cannot_start(
        &work,
        "./bad.sh",
        &["#!/no/such/sh", "No such file", "fix its `#!` line"],
    );
    std::fs::write(&bad, "#!/bin/sh\r\nexit 0\r\n").unwrap();
    assert_cannot_start(&work, "./bad.sh", &["carriage return", "`/bin/sh\\r`"]);
    std::fs::write(&bad, "#!/usr/bin/env no-such-interpreter\nexit 0\n").unwrap();
    assert_cannot_start(&work, "./bad.sh", &["no-such-interpreter is not on PATH"]);
}

#[test]
fn a_script_without_a_shebang_line_is_said_to_need_one() {
    let work = Work::new();
    needle_task(&work);
    let test = work.script("plain.sh", "exit 0");
    std::fs::write(&test, "exit 0\n").unwrap();
    let output = reduce_in_txt(&work, &["-o", "out.txt"], "./plain.sh");
    let stderr = exited(&output, 2);
    assert!(stderr.contains("the test could not be started"), "{stderr}");
    assert!(stderr.contains("Exec format error"), "{stderr}");
    assert!(stderr.contains("`#!/bin/sh`"), "{stderr}");
    assert!(!stderr.contains("not interesting"), "{stderr}");
    assert!(!work.path("out.txt").exists());
}

/// A manifest in `work/cases` (beside its input and test), with `test` as its test.
fn manifest_with_test(work: &Work, test: &str) -> PathBuf {
    std::fs::create_dir_all(work.path("cases")).unwrap();
    work.file("cases/c.txt", lines(40));
    work.script("cases/check.sh", "grep -q 'line 17$' \"$1\"");
    let line = serde_json::json!({"input": "c.txt", "test": test, "output": "c.out"});
    work.file("cases/list.jsonl", format!("{line}\n"))
}

#[test]
fn a_manifest_s_shell_test_runs_the_program_beside_the_manifest() {
    let work = Work::new();
    let manifest = manifest_with_test(&work, "./check.sh \"$1\"");
    let args = [
        "batch",
        "--manifest",
        manifest.to_str().unwrap(),
        "--work-dir",
        "w",
    ];
    let output = run_within(&mut work.whittle(&args), MINUTE);
    let stdout = text(&output.stdout);
    assert!(output.status.success(), "{stdout}{}", text(&output.stderr));
    assert!(stdout.contains("1 reduced"), "{stdout}");
    assert_eq!(work.read_string("cases/c.out"), "line 17");
    // One that is not there is said before anything runs, with the manifest's line.
    // (The same manifest, rewritten.)
    manifest_with_test(&work, "./gone.sh \"$1\"");
    let output = run_within(&mut work.whittle(&args[..3]), MINUTE);
    let stderr = exited(&output, 2);
    assert!(stderr.contains("list.jsonl line 1"), "{stderr}");
    assert!(stderr.contains("cases/gone.sh` does not exist"), "{stderr}");
    let started = std::fs::read_dir(work.dir.path()).unwrap().any(|entry| {
        entry
            .unwrap()
            .file_name()
            .to_string_lossy()
            .starts_with("whittle-batch")
    });
    assert!(!started, "a work directory was made");
}

#[test]
fn bad_arguments_for_a_batch_s_reductions_are_refused_once_up_front() {
    let work = Work::new();
    let manifest = manifest_with_test(&work, "./check.sh \"$1\"");
    for (bad, said) in [
        ("--reduce-arg=--bogus", "'--bogus'"),
        ("--reduce-arg=--theme=foo", "no theme called `foo`"),
        ("--algorithm=hdd++ddmin", "empty stage"),
    ] {
        let output = run_within(
            &mut work.whittle(&[
                "batch",
                "--manifest",
                manifest.to_str().unwrap(),
                "--work-dir",
                "w",
                bad,
            ]),
            MINUTE,
        );
        let stderr = text(&output.stderr);
        assert_eq!(output.status.code(), Some(2), "{bad}: {stderr}");
        assert_eq!(stderr.lines().count(), 1, "{bad}: {stderr}");
        assert!(stderr.contains("refused"), "{bad}: {stderr}");
        assert!(stderr.contains(said), "{bad}: {stderr}");
        assert!(!work.path("w").exists(), "{bad}: the batch started");
    }
}

#[test]
fn a_misspelt_algorithm_is_told_what_is_wrong_and_every_stage_name() {
    let work = Work::new();
    let (_, test) = needle_task(&work);
    let test = test.to_str().unwrap();
    let output = reduce_in_txt(&work, &["-a", "hddd"], test);
    let stderr = exited(&output, 2);
    for name in whittle_core::engine::pipeline::named_stages()
        .iter()
        .map(|(name, _)| name)
    {
        assert!(
            stderr.contains(&format!(" {name},")) || stderr.contains(&format!(" {name};")),
            "{name}: {stderr}"
        );
    }
    for name in [
        "tokens", "brackets", "rename", "indent", "inline", "polish", "hdd", "ddmin",
    ] {
        assert!(stderr.contains(name), "{name}: {stderr}");
    }
    for (pipeline, said) in [
        ("hdd++ddmin", "empty stage between two `+`"),
        ("ddmin+", "ends with `+`"),
        ("+ddmin", "starts with `+`"),
        ("()*", "the schedule `()*` is empty"),
        ("(ddmin+)*", "`(ddmin+)*` ends with `+`"),
    ] {
        let output = reduce_in_txt(&work, &["-a", pipeline], test);
        let stderr = text(&output.stderr);
        assert_eq!(output.status.code(), Some(2), "{pipeline}: {stderr}");
        assert!(stderr.contains(said), "{pipeline}: {stderr}");
        assert!(!stderr.contains("``"), "{pipeline}: {stderr}");
    }
    assert_eq!(runs(&work), 0);
}

#[test]
fn an_output_through_a_symbolic_link_writes_and_locks_the_target() {
    let work = Work::new();
    let (_, test) = slow_needle_task(&work, "0.1");
    std::os::unix::fs::symlink("target.txt", work.path("link.txt")).unwrap();
    let test = test.to_str().unwrap();
    let mut first = work
        .whittle(&[
            "reduce", "in.txt", "--no-tui", "-j", "1", "-o", "link.txt", "--", test,
        ])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    assert!(wait_until(MINUTE, || work
        .path(".target.txt.whittle.lock")
        .exists()));
    // The same file by its own name is taken.
    let second = reduce_in_txt(&work, &["-o", "target.txt"], test);
    let stderr = exited(&second, 2);
    assert!(stderr.contains("another whittle run"), "{stderr}");
    assert!(stderr.contains(&first.id().to_string()), "{stderr}");
    let status = common::safety::wait_within(&mut first, MINUTE).expect("the first run ends");
    assert!(status.success());
    let link = std::fs::symlink_metadata(work.path("link.txt")).unwrap();
    assert!(link.file_type().is_symlink(), "the link was replaced");
    assert_eq!(work.read_string("target.txt"), "line 17");
    assert!(!work.path(".target.txt.whittle.lock").exists());
    assert!(!work.path(".link.txt.whittle.lock").exists());
}

#[test]
fn outputs_with_long_names_get_a_short_lock_file() {
    let work = Work::new();
    let (_, test) = needle_task(&work);
    for length in [238, 245, 251] {
        let name = format!("{}.txt", "n".repeat(length));
        let output = reduce_in_txt(&work, &["-o", &name], test.to_str().unwrap());
        let stderr = text(&output.stderr);
        assert!(output.status.success(), "{length}: {stderr}");
        assert_eq!(work.read_string(&name), "line 17", "{length}");
    }
    let left: Vec<_> = std::fs::read_dir(work.dir.path())
        .unwrap()
        .map(|entry| entry.unwrap().file_name())
        .filter(|name| name.to_string_lossy().contains("whittle"))
        .collect();
    assert!(left.is_empty(), "{left:?}");
}

/// Starts `reduce in.txt -j 1 -o out.txt -- TEST` and waits until it holds the output's lock;
/// returns the run and its lock file.
fn start_holding_the_lock(work: &Work, test: &str) -> (std::process::Child, PathBuf) {
    let run = work
        .whittle(&[
            "reduce", "in.txt", "--no-tui", "-j", "1", "-o", "out.txt", "--", test,
        ])
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let lock = work.path(".out.txt.whittle.lock");
    assert!(wait_until(MINUTE, || std::fs::read_to_string(&lock)
        .is_ok_and(|pid| pid == run.id().to_string())));
    (run, lock)
}

#[test]
fn a_refused_run_leaves_the_lock_file_of_the_run_that_holds_it() {
    let work = Work::new();
    let (_, test) = slow_needle_task(&work, "0.1");
    let test = test.to_str().unwrap();
    let (mut first, lock) = start_holding_the_lock(&work, test);
    let second = reduce_in_txt(&work, &["-o", "out.txt"], test);
    assert_eq!(second.status.code(), Some(2));
    assert_eq!(
        std::fs::read_to_string(&lock).unwrap(),
        first.id().to_string(),
        "the holder's lock file is left as it is"
    );
    assert!(common::safety::wait_within(&mut first, MINUTE).is_some_and(|s| s.success()));
    assert!(!lock.exists());
}

#[test]
fn the_test_limit_holds_exactly_with_parallel_tests() {
    for (jobs, limit) in [("2", 5), ("3", 7), ("4", 5)] {
        let work = Work::new();
        let (_, test) = slow_needle_task(&work, "0.05");
        let output = reduce_in_txt(
            &work,
            &[
                "-o",
                "out.txt",
                "-j",
                jobs,
                "--limit-tests",
                &limit.to_string(),
                "--stats-json",
                "stats.json",
                // Every run is counted: the input is checked once.
                "--assume-deterministic",
            ],
            test.to_str().unwrap(),
        );
        assert!(output.status.success(), "{}", text(&output.stderr));
        let stats = work.json("stats.json");
        assert_eq!(stats["tests"], limit, "-j {jobs}: {stats}");
        assert_eq!(stats["checks"], 2, "-j {jobs}: {stats}");
        // Every test of the algorithm and the two checks ran, and nothing more.
        assert_eq!(runs(&work) as u64, limit + 2, "-j {jobs}");
        assert!(text(&output.stdout).contains(&format!("tests: {limit} ")));
    }
}

#[test]
fn a_theme_that_does_not_exist_is_refused_without_the_ui_too() {
    let work = Work::new();
    let (_, test) = needle_task(&work);
    let output = reduce_in_txt(&work, &["--theme", "foo"], test.to_str().unwrap());
    let stderr = exited(&output, 2);
    assert!(stderr.contains("no theme called `foo`"), "{stderr}");
    assert!(stderr.contains("dark, light, high-contrast"), "{stderr}");
    assert_eq!(runs(&work), 0);
    for args in [
        &["demo", "--no-tui", "--theme", "foo"][..],
        &["replay", "run.trace", "--no-tui", "--theme", "foo"],
    ] {
        let output = run_within(&mut work.whittle(args), MINUTE);
        assert_eq!(output.status.code(), Some(2), "{args:?}");
        assert!(text(&output.stderr).contains("no theme called `foo`"));
    }
}

#[test]
fn a_stale_lock_of_a_killed_run_is_removed_and_said() {
    let work = Work::new();
    let (_, test) = slow_needle_task(&work, "0.2");
    let test = test.to_str().unwrap();
    let (mut killed, lock) = start_holding_the_lock(&work, test);
    let pid = killed.id();
    common::safety::signal(pid as i32, nix::sys::signal::Signal::SIGKILL);
    let _ = killed.wait();
    assert!(lock.exists(), "SIGKILL leaves the lock file");
    let (_, fast) = needle_task(&work);
    let output = reduce_in_txt(&work, &["-o", "out.txt", "--force"], fast.to_str().unwrap());
    let stderr = text(&output.stderr);
    assert!(output.status.success(), "{stderr}");
    assert!(
        stderr.contains(&format!(
            "a stale lock of process {pid}, which is gone, was removed"
        )),
        "{stderr}"
    );
    assert!(!lock.exists());
}
