//! Clean stops: a signal at any moment ends whittle (no test slips past a stop), the time limit
//! kills running tests, stops during the input check say so, limits say what is on disk, and
//! the testing window is bounded. Real processes and real signals.

mod common;

use std::process::Stdio;
use std::time::{Duration, Instant};

use common::safety::{
    Work, exited, lines, pids_in, proc_status, run_within, signal, spawn_piped, survivors, text,
    wait_until, wait_within,
};
use nix::sys::signal::Signal;

const MINUTE: Duration = Duration::from_secs(60);

/// A small deterministic generator for the delays of the trials (no dependency needed).
fn delays(count: usize, max_micros: u64) -> Vec<Duration> {
    let mut state: u64 = 0x9e37_79b9_7f4a_7c15;
    (0..count)
        .map(|_| {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            Duration::from_micros(state % max_micros)
        })
        .collect()
}

// Item 5: a stop requested while tests start is never missed.

#[test]
fn sigterm_in_the_first_milliseconds_always_ends_whittle_and_leaves_nothing() {
    let work = Work::new();
    let input = work.file("in.txt", lines(8));
    let pids = work.path("pids");
    // Every test hangs (no --timeout): only the stop can end them.
    let test = work.script(
        "hang.sh",
        &format!("echo $$ >> {}\nexec sleep 600", pids.display()),
    );
    let trials = 40;
    let mut hangs = 0;
    for delay in delays(trials, 40_000) {
        let mut child = work
            .reduce(&input, &["-j", "2", "-o", "out.txt"], &test)
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        std::thread::sleep(delay);
        signal(child.id() as i32, Signal::SIGTERM);
        match wait_within(&mut child, Duration::from_secs(10)) {
            Some(status) => {
                // Either whittle handled the signal (130), or it came before whittle had
                // started at all (then it had created nothing).
                assert!(
                    status.code() == Some(130) || status.code().is_none(),
                    "{status:?} after {delay:?}"
                );
            }
            None => {
                hangs += 1;
                signal(child.id() as i32, Signal::SIGKILL);
                let _ = child.wait();
            }
        }
        assert!(
            work.scratch_left().is_empty(),
            "scratch left after {delay:?}: {:?}",
            work.scratch_left()
        );
        assert!(!work.path(".out.txt.whittle.lock").exists());
    }
    assert_eq!(hangs, 0, "whittle hung in {hangs} of {trials} trials");
    assert_eq!(survivors(&pids_in(&pids)), Vec::<i32>::new());
}

// Item 6: the time limit kills a test that runs.

#[test]
fn the_time_limit_kills_a_test_that_hangs() {
    let work = Work::new();
    let input = work.file("in.txt", lines(20));
    let pids = work.path("pids");
    // The input check passes at once; every later test hangs.
    let test = work.script(
        "hang-later.sh",
        &format!(
            "echo $$ >> {p}\n[ -e {seen} ] && exec sleep 600\ntouch {seen}\nexit 0",
            p = pids.display(),
            seen = work.path("seen").display()
        ),
    );
    let start = Instant::now();
    let output = run_within(
        // The input's check is run again with the timeout fitted to its first run: the second
        // run hangs until that timeout, not for good.
        // The limit leaves the input's first check time even on a loaded machine.
        &mut work.reduce(&input, &["-j", "2", "--limit-time", "4"], &test),
        MINUTE,
    );
    let took = start.elapsed();
    let stdout = text(&output.stdout);
    exited(&output, 0);
    assert!(took < Duration::from_secs(20), "{took:?}");
    assert!(stdout.contains("time limit of 4s"), "{stdout}");
    assert!(stdout.contains("the input, unchanged"), "{stdout}");
    assert_eq!(
        std::fs::read(work.path("in.whittled.txt")).unwrap(),
        lines(20).as_bytes()
    );
    let pids = pids_in(&pids);
    assert!(pids.len() >= 2, "the hanging tests ran");
    assert_eq!(survivors(&pids), Vec::<i32>::new());
    assert!(work.scratch_left().is_empty());
}

// Item 7: stops during the input check, early signals, and limits of nothing.

#[test]
fn ctrl_c_during_the_input_check_says_stopped_and_exits_130() {
    let work = Work::new();
    let input = work.file("in.txt", lines(5));
    let pids = work.path("pids");
    let test = work.script(
        "slow-check.sh",
        &format!("echo $$ >> {}\nexec sleep 600", pids.display()),
    );
    let mut child = spawn_piped(&mut work.reduce(&input, &[], &test));
    assert!(wait_until(Duration::from_secs(20), || !pids_in(&pids).is_empty()));
    signal(child.id() as i32, Signal::SIGINT);
    assert!(wait_within(&mut child, Duration::from_secs(10)).is_some());
    let output = child.wait_with_output().unwrap();
    let stderr = exited(&output, 130);
    assert!(
        stderr.contains("stopped before the input was checked"),
        "{stderr}"
    );
    assert!(!stderr.contains("fix the test"), "{stderr}");
    assert!(!stderr.contains("not interesting"), "{stderr}");
    assert!(stderr.contains("nothing was written"), "{stderr}");
    assert!(!work.path("in.whittled.txt").exists());
    assert_eq!(survivors(&pids_in(&pids)), Vec::<i32>::new());
    assert!(work.scratch_left().is_empty());
}

#[test]
fn limits_of_zero_or_one_test_exit_0_and_say_what_is_on_disk() {
    let work = Work::new();
    let input = work.file("in.txt", lines(10));
    let test = work.script("t.sh", "grep -q 'line 3$' \"$1\"");
    let run = |limit: &[&str]| {
        let _ = std::fs::remove_file(work.path("in.whittled.txt"));
        // Blocks and lines: the fast default for text.
        let mut args = vec![
            "reduce",
            input.to_str().unwrap(),
            "--no-tui",
            "-j",
            "1",
            "--fast",
        ];
        args.extend(limit);
        args.extend(["--", test.to_str().unwrap()]);
        run_within(&mut work.whittle(&args), MINUTE)
    };
    for limit in [["--limit-tests", "0"], ["--limit-time", "0"]] {
        let output = run(&limit);
        let stderr = text(&output.stderr);
        assert_eq!(output.status.code(), Some(0), "{limit:?}: {stderr}");
        assert!(
            stderr.contains("nothing was written"),
            "{limit:?}: {stderr}"
        );
        assert!(!work.path("in.whittled.txt").exists(), "{limit:?}");
        assert!(!text(&output.stdout).contains("result:"), "{limit:?}");
    }
    let output = run(&["--limit-tests", "1"]);
    let stdout = text(&output.stdout);
    exited(&output, 0);
    assert!(stdout.contains("limit of 1 tests"), "{stdout}");
    assert!(stdout.contains("in.whittled.txt"), "{stdout}");
    assert!(!text(&output.stderr).contains("nothing was written"));
    // One test of the algorithm (the checks of the input do not count): its first subset,
    // the first five lines, is interesting and is what the output holds.
    assert_eq!(
        std::fs::read(work.path("in.whittled.txt")).unwrap(),
        lines(5).as_bytes()
    );
    assert!(work.scratch_left().is_empty());
}

// Item 8: the testing window is bounded.

#[test]
fn a_huge_jobs_value_is_capped_with_a_warning_and_threads_stay_within_it() {
    let work = Work::new();
    let input = work.file("in.txt", lines(64));
    let test = work.script("slow.sh", "sleep 0.05\ngrep -q 'line 42$' \"$1\"");
    let mut child =
        spawn_piped(&mut work.reduce(&input, &["--atoms", "line", "-j", "200000"], &test));
    let pid = child.id() as i32;
    let mut most_threads = 0;
    let start = Instant::now();
    while child.try_wait().unwrap().is_none() && start.elapsed() < MINUTE {
        if let Some(threads) = proc_status(pid, "Threads") {
            most_threads = most_threads.max(threads);
        }
        std::thread::sleep(Duration::from_millis(10));
    }
    let output = child.wait_with_output().unwrap();
    let stderr = text(&output.stderr);
    assert!(output.status.success(), "{stderr}");
    let cap = common::safety::max_jobs();
    assert!(
        stderr.contains(&format!("using -j {cap}")),
        "a warning names the cap: {stderr}"
    );
    // The pool's threads, the engine, progress, signals, timers: a few more than the window.
    assert!(
        most_threads as usize <= cap + 8,
        "{most_threads} threads for a window of {cap}"
    );
    assert_eq!(
        std::fs::read_to_string(work.path("in.whittled.txt")).unwrap(),
        "line 42\n"
    );
}
