//! Nothing leaked: the scratch directory is private whatever the umask, what a test leaves in it
//! is removed even when it made it unreadable, a test's output is kept only as a bounded tail,
//! processes a test leaves behind (daemons out of its process group) do not outlive it, and a
//! test stopped early has time to remove what it made.
//! Real processes, a real file system.

mod common;

use std::time::{Duration, Instant};

use common::safety::{
    Work, disk_usage, lines, pids_in, proc_status, run_within, spawn_piped, survivors, text,
    wait_until,
};

const MINUTE: Duration = Duration::from_secs(60);

// Item 9: scratch directories 0700, candidates 0600, whatever the umask.

#[test]
fn scratch_directories_and_candidates_are_private_whatever_the_umask() {
    let work = Work::new();
    let input = work.file("in.txt", lines(4));
    let modes = work.path("modes");
    let test = work.script(
        "modes.sh",
        &format!(
            "echo \"$(stat -c %a ..) $(stat -c %a .) $(stat -c %a \"$1\")\" >> {}\n\
             grep -q 'line 2$' \"$1\"",
            modes.display()
        ),
    );
    for umask in ["000", "022", "077", "277"] {
        let _ = std::fs::remove_file(&modes);
        let _ = std::fs::remove_file(work.path("in.whittled.txt"));
        let script = format!(
            "umask {umask}; exec \"$0\" reduce {} --no-tui -j 1 -- {}",
            input.display(),
            test.display()
        );
        let mut command = std::process::Command::new("sh");
        command
            .args(["-c", &script, env!("CARGO_BIN_EXE_whittle")])
            .env("TMPDIR", work.tmp())
            .current_dir(work.dir.path());
        let output = run_within(&mut command, MINUTE);
        assert!(output.status.success(), "umask {umask}: {output:?}");
        let seen = std::fs::read_to_string(&modes).unwrap();
        assert!(seen.lines().count() > 2);
        for line in seen.lines() {
            assert_eq!(
                line, "700 700 600",
                "umask {umask}: scratch root, run directory, candidate"
            );
        }
        assert!(work.scratch_left().is_empty());
    }
}

// Item 10: a run directory made unremovable by the test is still removed.

#[test]
fn directories_a_test_made_unreadable_are_removed() {
    let work = Work::new();
    let input = work.file("in.txt", lines(6));
    let test = work.script(
        "lock-up.sh",
        "mkdir -p locked/inner && echo secret > locked/inner/file && chmod 000 locked/inner \
         && chmod 000 locked\n\
         mkdir -p ../sibling-junk/deep && chmod 000 ../sibling-junk\n\
         chmod 500 .\n\
         grep -q 'line 3$' \"$1\"",
    );
    let output = run_within(
        &mut work.reduce_unprivileged(&input, &["-j", "2"], &test),
        MINUTE,
    );
    let stderr = text(&output.stderr);
    assert!(output.status.success(), "{stderr}");
    assert_eq!(
        std::fs::read_to_string(work.path("in.whittled.txt")).unwrap(),
        "line 3"
    );
    assert!(
        work.scratch_left().is_empty(),
        "left behind: {:?}",
        work.scratch_left()
    );
    assert!(!stderr.contains("cannot remove"), "{stderr}");
}

// Item 11: a test's output is kept as a bounded tail, without deadlock.

#[test]
fn a_flood_of_test_output_keeps_memory_and_disk_bounded() {
    let work = Work::new();
    let input = work.file("in.txt", lines(3));
    // Each test prints 256 MB (stdout and stderr), then decides.
    let test = work.script(
        "flood.sh",
        "head -c 134217728 /dev/zero | tr '\\0' y\n\
         head -c 134217728 /dev/zero | tr '\\0' n >&2\n\
         echo THE-END\n\
         grep -q 'line 1$' \"$1\"",
    );
    let mut child = spawn_piped(&mut work.reduce(&input, &["-j", "1", "--atoms", "line"], &test));
    let pid = child.id() as i32;
    let (mut peak_rss_kb, mut peak_disk) = (0, 0);
    let start = Instant::now();
    while child.try_wait().unwrap().is_none() {
        assert!(start.elapsed() < Duration::from_secs(120), "whittle hangs");
        if let Some(kb) = proc_status(pid, "VmHWM") {
            peak_rss_kb = peak_rss_kb.max(kb);
        }
        peak_disk = peak_disk.max(disk_usage(&work.tmp()));
        std::thread::sleep(Duration::from_millis(20));
    }
    let output = child.wait_with_output().unwrap();
    assert!(output.status.success(), "{}", text(&output.stderr));
    assert_eq!(
        std::fs::read_to_string(work.path("in.whittled.txt")).unwrap(),
        "line 1\n"
    );
    assert!(
        peak_rss_kb < 100 * 1024,
        "whittle's memory peaked at {peak_rss_kb} kB"
    );
    assert!(
        peak_disk < 1024 * 1024,
        "the scratch directory held {peak_disk} bytes"
    );
}

#[test]
fn the_end_of_a_large_output_is_what_is_shown() {
    let work = Work::new();
    let input = work.file("in.txt", lines(3));
    let test = work.script(
        "noisy-failure.sh",
        "head -c 1000000 /dev/zero | tr '\\0' x\necho\necho 'the real reason' >&2\nexit 3",
    );
    let output = work.reduce_within(&input, &[], &test, MINUTE);
    let stderr = text(&output.stderr);
    assert_eq!(output.status.code(), Some(2));
    assert!(stderr.contains("exit status 3"), "{stderr}");
    assert!(stderr.contains("the real reason"), "{stderr}");
    assert!(stderr.len() < 64 * 1024, "only a tail is shown");
}

// Item 12: what a test leaves running outside its process group does not outlive it.

#[test]
fn daemons_a_test_leaves_behind_are_killed() {
    let work = Work::new();
    let input = work.file("in.txt", lines(8));
    let daemons = work.path("daemons");
    let alive_counts = work.path("alive");
    // Every test starts two daemons that escape its process group (a new session, and a
    // double fork), and counts how many daemons of earlier tests are still alive.
    let test = work.script(
        "daemons.sh",
        &format!(
            "alive=0\nfor pid in $(cat {d} 2>/dev/null); do state=$(cut -d' ' -f3 \
             /proc/$pid/stat 2>/dev/null); [ -n \"$state\" ] && [ \"$state\" != Z ] && \
             alive=$((alive+1)); done\necho $alive >> {a}\n\
             setsid sleep 600 > /dev/null 2>&1 < /dev/null &\necho $! >> {d}\n\
             (setsid sh -c 'echo $$ >> {d}; exec sleep 600' > /dev/null 2>&1 < /dev/null &)\n\
             sleep 0.5\n\
             grep -q 'line 5$' \"$1\"",
            d = daemons.display(),
            a = alive_counts.display()
        ),
    );
    let output = work.reduce_within(&input, &["-j", "1", "--atoms", "line"], &test, MINUTE);
    assert!(output.status.success(), "{}", text(&output.stderr));
    assert!(wait_until(Duration::from_secs(5), || pids_in(&daemons)
        .len()
        >= 4));
    let started = pids_in(&daemons);
    assert_eq!(
        survivors(&started),
        Vec::<i32>::new(),
        "daemons outlived whittle"
    );
    // While whittle ran, daemons did not pile up: they are swept between tests (no more often
    // than their cost allows, so a loaded machine sweeps less often: each test here takes half
    // a second, fifty sweeps of 10 ms), not only at the end.
    let most_alive = pids_in(&alive_counts).into_iter().max().unwrap_or(0);
    assert!(
        most_alive as usize <= (started.len() / 2).max(4),
        "{most_alive} of {} daemons of earlier tests were alive at once",
        started.len()
    );
}

// A test stopped before its end (its timeout, a test run ahead that is no longer needed) gets
// SIGTERM and a grace: a bash script's `trap ... EXIT` removes its temporary directory.

#[test]
fn temporary_directories_of_tests_stopped_early_are_removed_by_their_traps() {
    let work = Work::new();
    let input = work.file("in.txt", lines(12));
    let temporaries = work.path("temporaries");
    std::fs::create_dir(&temporaries).unwrap();
    let started = work.path("started");
    // Candidates without line 5 hang until the timeout; at -j 2 tests run ahead are cancelled.
    let test = work.script(
        "cleaning.sh",
        &format!(
            "exec bash -c 'd=$(mktemp -d -p {t}) || exit 2\n\
             trap \"rm -rf $d\" EXIT\n\
             echo >> {s}\n\
             cp \"$1\" $d/c\n\
             grep -q \"line 5$\" $d/c || sleep 30\n\
             grep -q \"line 5$\" $d/c' bash \"$1\"",
            t = temporaries.display(),
            s = started.display()
        ),
    );
    let output = work.reduce_within(
        &input,
        &["-j", "2", "--atoms", "line", "--timeout", "0.5"],
        &test,
        MINUTE,
    );
    assert!(output.status.success(), "{}", text(&output.stderr));
    assert_eq!(work.read_string("in.whittled.txt"), "line 5\n");
    let runs = std::fs::read_to_string(&started).unwrap().lines().count();
    assert!(runs > 5, "only {runs} tests ran");
    let left: Vec<_> = std::fs::read_dir(&temporaries).unwrap().collect();
    assert!(
        left.is_empty(),
        "{} of {runs} tests left their directory",
        left.len()
    );
}
