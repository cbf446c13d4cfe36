//! The terminal UI in a real terminal: `whittle reduce` on the sumprod example inside tmux,
//! driven with `send-keys` and read with `capture-pane`. The panes appear, space pauses (and
//! the test count stops), `n` steps, `q` quits within a second, the output is complete and the
//! terminal is restored. And the hoisting lesson, replayed from a trace forwards and backwards.
//! Needs tmux, so it is ignored by default: `cargo test -- --ignored` runs it (the CI script
//! does where tmux is installed).

use std::path::Path;
use std::process::Command;
use std::time::{Duration, Instant};

/// Generous waits: the machine may be loaded.
const PATIENCE: Duration = Duration::from_secs(90);

/// Prints the terminal's line discipline settings that matter (`icanon`, `echo`, or their
/// negations), one a line: a shell runs it after whittle to show the terminal was restored.
const PRINT_TERMINAL_SETTINGS: &str =
    "stty -a | tr ' ;' '\\n\\n' | grep -x -e icanon -e -icanon -e echo -e -echo";

struct Tmux {
    socket: String,
}

impl Tmux {
    /// A tmux server of its own (socket `NAME-PID`) with a 120x36 session `whittle` running
    /// `script` in `sh`.
    fn start(name: &str, script: &str) -> Tmux {
        Tmux::start_sized(name, script, (120, 36))
    }

    /// Like [`Tmux::start`], on a terminal of `(columns, rows)`.
    fn start_sized(name: &str, script: &str, (columns, rows): (u16, u16)) -> Tmux {
        let tmux = Tmux {
            socket: format!("{name}-{}", std::process::id()),
        };
        let (columns, rows) = (columns.to_string(), rows.to_string());
        tmux.run(&[
            "new-session",
            "-d",
            "-s",
            "whittle",
            "-x",
            &columns,
            "-y",
            &rows,
            "sh",
            "-c",
            script,
        ]);
        tmux
    }

    fn run(&self, args: &[&str]) -> String {
        let output = Command::new("tmux")
            .arg("-L")
            .arg(&self.socket)
            .args(args)
            .output()
            .expect("tmux runs");
        String::from_utf8_lossy(&output.stdout).into_owned()
    }

    fn capture(&self) -> String {
        self.run(&["capture-pane", "-p", "-t", "whittle"])
    }

    fn keys(&self, keys: &str) {
        self.run(&["send-keys", "-t", "whittle", keys]);
    }

    /// Polls the screen until `ready` holds; panics with the screen after `PATIENCE`.
    fn wait_for(&self, what: &str, ready: impl Fn(&str) -> bool) -> String {
        let deadline = Instant::now() + PATIENCE;
        loop {
            let screen = self.capture();
            if ready(&screen) {
                return screen;
            }
            assert!(
                Instant::now() < deadline,
                "timed out waiting for {what}; the screen:\n{screen}"
            );
            std::thread::sleep(Duration::from_millis(50));
        }
    }

    fn assert_alternate_screen_left(&self) {
        assert_eq!(
            self.run(&["display-message", "-p", "-t", "whittle", "#{alternate_on}"])
                .trim(),
            "0",
            "the alternate screen was left"
        );
    }
}

impl Drop for Tmux {
    fn drop(&mut self) {
        let _ = Command::new("tmux")
            .args(["-L", &self.socket, "kill-server"])
            .output();
    }
}

fn available(tool: &str) -> bool {
    Command::new("sh")
        .args(["-c", &format!("command -v {tool}")])
        .output()
        .is_ok_and(|o| o.status.success())
}

/// Fails unless tmux and gcc (the sumprod example's test compiles C) are installed.
fn require_tmux_and_gcc() {
    assert!(available("tmux"), "tmux is not installed");
    assert!(
        available("gcc"),
        "gcc is not installed (the sumprod example's test compiles C)"
    );
}

/// A fresh directory with the sumprod example's input and test.
fn sumprod_dir() -> tempfile::TempDir {
    let example = Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/sumprod-c");
    let dir = tempfile::tempdir().unwrap();
    for file in ["sumprod.c", "oracle.sh"] {
        std::fs::copy(example.join(file), dir.path().join(file)).unwrap();
    }
    dir
}

/// Asserts that raw mode is off in the terminal settings printed on `screen`.
fn assert_raw_mode_off(screen: &str) {
    assert!(
        screen.contains("icanon") && !screen.contains("-icanon"),
        "raw mode is off\n{screen}"
    );
}

/// The test count shown once it holds still for half a second (at most ten seconds), starting
/// from `shown`.
fn settled_tests(tmux: &Tmux, mut shown: u64) -> u64 {
    for _ in 0..20 {
        std::thread::sleep(Duration::from_millis(500));
        match tests_shown(&tmux.capture()) {
            Some(now) if now != shown => shown = now,
            _ => break,
        }
    }
    shown
}

/// The number after "tests" in the statistics pane.
fn tests_shown(screen: &str) -> Option<u64> {
    screen.lines().find_map(|line| {
        let at = line.find("│tests")?;
        line[at + "│tests".len()..]
            .split_whitespace()
            .next()?
            .parse()
            .ok()
    })
}

/// The step number in the header.
fn step_shown(screen: &str) -> Option<u64> {
    let header = screen.lines().next()?;
    let at = header.rfind(" step ")?;
    header[at + 6..].split_whitespace().next()?.parse().ok()
}

#[test]
#[ignore = "needs tmux"]
fn reduce_in_a_real_terminal() {
    require_tmux_and_gcc();
    let dir = sumprod_dir();
    let output = dir.path().join("result.c");
    let script = format!(
        "cd '{dir}' && '{bin}' reduce sumprod.c -o result.c -j 2 -- sh '{dir}/oracle.sh'; \
         echo EXIT=$?; {PRINT_TERMINAL_SETTINGS}; sleep 600",
        dir = dir.path().display(),
        bin = env!("CARGO_BIN_EXE_whittle"),
    );
    let tmux = Tmux::start("whittle-test", &script);

    // The panes appear and tests run.
    let screen = tmux.wait_for("the panes and a first test", |s| {
        [
            "Tree",
            "Test case",
            "Configuration",
            "Statistics",
            "Size over tests",
            "Test output",
            "History",
        ]
        .iter()
        .all(|title| s.contains(title))
            && tests_shown(s).is_some_and(|t| t > 2)
    });
    assert!(screen.contains("RUNNING"), "{screen}");
    assert!(screen.contains("int"), "the test case is shown:\n{screen}");

    // Space pauses: the screen says so and the test count stops (the tests under way when
    // the pause came still finish and are counted; none starts after them).
    tmux.keys("Space");
    let screen = tmux.wait_for("PAUSED", |s| s.contains("PAUSED"));
    let paused_tests = settled_tests(&tmux, tests_shown(&screen).unwrap());
    std::thread::sleep(Duration::from_millis(1500));
    let screen = tmux.capture();
    assert!(screen.contains("PAUSED"), "{screen}");
    assert_eq!(
        tests_shown(&screen),
        Some(paused_tests),
        "no test runs while paused\n{screen}"
    );
    let step = step_shown(&screen).unwrap();

    // n runs exactly one more step.
    tmux.keys("n");
    let screen = tmux.wait_for("one step", |s| {
        s.contains("STEP MODE") && step_shown(s).is_some_and(|n| n > step)
    });
    std::thread::sleep(Duration::from_millis(800));
    let screen_after = tmux.capture();
    assert_eq!(
        step_shown(&screen_after),
        Some(step + 1),
        "one step\n{screen}\n{screen_after}"
    );

    // q quits within a second; the terminal is back and the output complete.
    let asked = Instant::now();
    tmux.keys("q");
    tmux.wait_for("the shell after quitting", |s| s.contains("EXIT="));
    let quit_after = asked.elapsed();
    // Then the terminal settings the shell printed after whittle.
    let screen = tmux.wait_for("the terminal settings", |s| {
        let after = s.split("EXIT=").nth(1).unwrap_or("");
        after.contains("icanon") && after.contains("echo")
    });
    assert!(
        quit_after < Duration::from_secs(1) + Duration::from_millis(300),
        "quitting took {quit_after:?}"
    );
    eprintln!("q to exit: {quit_after:?}");
    assert!(screen.contains("EXIT=130"), "a stop on request\n{screen}");
    assert!(screen.contains("the best result so far is in"), "{screen}");
    assert_raw_mode_off(&screen);
    assert!(
        screen.contains("echo") && !screen.contains("-echo"),
        "echo is on\n{screen}"
    );
    tmux.assert_alternate_screen_left();
    let result = std::fs::read(&output).unwrap();
    let input = std::fs::read(dir.path().join("sumprod.c")).unwrap();
    assert!(result.len() <= input.len());
    let verdict = Command::new("sh")
        .arg(dir.path().join("oracle.sh"))
        .arg(&output)
        .current_dir(dir.path())
        .status()
        .unwrap();
    assert!(verdict.success(), "the output is complete and interesting");
}

/// Records a run in the UI (`--trace`), then replays it in a real terminal: to the end, back
/// step by step (b and ←), to a step (g), forwards (n), playing (space), and out (q), the
/// terminal restored.
#[test]
#[ignore = "needs tmux"]
fn record_and_replay_backwards_in_a_real_terminal() {
    require_tmux_and_gcc();
    let dir = sumprod_dir();
    let trace = dir.path().join("run.jsonl");
    let script = format!(
        "cd '{dir}' && '{bin}' reduce sumprod.c -o result.c -j 1 --trace run.jsonl \
         --limit-tests 30 --exit-when-done -- sh '{dir}/oracle.sh'; echo RECORDED=$?; \
         '{bin}' replay run.jsonl; echo REPLAYED=$?; {PRINT_TERMINAL_SETTINGS}; sleep 600",
        dir = dir.path().display(),
        bin = env!("CARGO_BIN_EXE_whittle"),
    );
    let tmux = Tmux::start("whittle-replay", &script);
    // The run is recorded, then the replay opens at its start.
    let screen = tmux.wait_for("the replay", |s| s.contains("REPLAY"));
    assert!(
        screen.contains("step 0 of"),
        "the replay starts before the first step\n{screen}"
    );
    let lines = std::fs::read_to_string(&trace).unwrap();
    let steps = lines
        .lines()
        .filter_map(|line| serde_json::from_str::<serde_json::Value>(line).ok())
        .filter(|line| line["step"].as_u64().is_some_and(|step| step > 0))
        .count() as u64;
    assert!(steps > 10, "{steps} steps recorded");
    // End: the last step and the result.
    tmux.keys("End");
    let screen = tmux.wait_for("the last step", |s| s.contains("the end"));
    let last_step = step_shown(&screen).unwrap();
    assert_eq!(
        last_step, steps,
        "one job: the steps are the positions\n{screen}"
    );
    let result = std::fs::read_to_string(dir.path().join("result.c")).unwrap();
    let first_line = result.lines().next().unwrap();
    assert!(screen.contains(first_line), "the result is shown\n{screen}");
    // Backwards, one step at a time, with b and ←.
    let mut step = last_step;
    for key in ["b", "Left", "b", "Left", "b"] {
        tmux.keys(key);
        let screen = tmux.wait_for("a step back", |s| {
            step_shown(s).is_some_and(|shown| shown < step)
        });
        step = step_shown(&screen).unwrap();
    }
    assert!(step < last_step);
    assert_eq!(step, last_step - 5);
    // To step 5, then one forwards.
    for key in ["g", "5", "Enter"] {
        tmux.keys(key);
    }
    tmux.wait_for("step 5", |s| step_shown(s) == Some(5));
    tmux.keys("n");
    let screen = tmux.wait_for("step 6", |s| step_shown(s) == Some(6));
    assert!(screen.contains("Configuration"), "{screen}");
    // Space plays; space again pauses.
    tmux.keys("Space");
    tmux.wait_for("playing", |s| {
        s.contains("REPLAY ▶") && step_shown(s).is_some_and(|shown| shown > 7)
    });
    tmux.keys("Space");
    // q leaves the replay; the terminal is back.
    tmux.keys("q");
    let screen = tmux.wait_for("the shell after the replay", |s| {
        let after = s.split("REPLAYED=").nth(1).unwrap_or("");
        after.contains("icanon") && after.contains("echo")
    });
    assert!(
        screen.contains("RECORDED=0"),
        "a run stopped at its limit\n{screen}"
    );
    assert!(screen.contains("REPLAYED=0"), "{screen}");
    assert_raw_mode_off(&screen);
    tmux.assert_alternate_screen_left();
}

/// A header, a source and a file the test does not need, with a C-Vise-style test (no
/// argument, the files read by name).
fn several_files_dir() -> tempfile::TempDir {
    use std::os::unix::fs::PermissionsExt;
    let dir = tempfile::tempdir().unwrap();
    let files = [
        (
            "bug.h",
            "#ifndef BUG_H\n#define BUG_H\nint crash(int depth);\n#define LIMIT 100\n#endif\n",
        ),
        (
            "bug.c",
            "#include <stdio.h>\n#include \"bug.h\"\nint main(void) {\n    printf(\"%d\\n\", LIMIT);\n    return crash(3);\n}\n",
        ),
        ("notes.txt", "nothing to see\n"),
    ];
    for (name, text) in files {
        std::fs::write(dir.path().join(name), text).unwrap();
    }
    let test = dir.path().join("test.sh");
    std::fs::write(
        &test,
        "#!/bin/sh\nsleep 0.02\ngrep -q 'int crash(int' bug.h && grep -q 'crash(3)' bug.c\n",
    )
    .unwrap();
    std::fs::set_permissions(&test, std::fs::Permissions::from_mode(0o755)).unwrap();
    dir
}

#[test]
#[ignore = "needs tmux"]
fn several_files_in_a_real_terminal() {
    assert!(available("tmux"), "tmux is not installed");
    let dir = several_files_dir();
    let script = format!(
        "cd '{dir}' && '{bin}' reduce bug.c bug.h notes.txt --paused -o out -- ./test.sh; \
         echo EXIT=$?; {PRINT_TERMINAL_SETTINGS}; sleep 600",
        dir = dir.path().display(),
        bin = env!("CARGO_BIN_EXE_whittle"),
    );
    let tmux = Tmux::start("whittle-several", &script);

    // Paused after the check of the whole set: the file list shows every file waiting.
    let screen = tmux.wait_for("the file list, paused", |s| {
        s.contains("PAUSED") && s.contains("Files · round 1")
    });
    for name in ["bug.c", "bug.h", "notes.txt"] {
        let row = screen
            .lines()
            .skip(1)
            .find(|line| line.contains(name) && line.contains("waiting"))
            .unwrap_or_else(|| panic!("{name} waiting\n{screen}"));
        assert!(row.contains(" → "), "{row}");
    }
    assert!(screen.contains("Whole case: size over tests"), "{screen}");

    // n steps once; space runs to the end, where the file list says what became of each file.
    let step = step_shown(&screen).unwrap();
    tmux.keys("n");
    tmux.wait_for("one step", |s| step_shown(s).is_some_and(|n| n > step));
    tmux.keys("Space");
    let screen = tmux.wait_for("the end", |s| s.contains("DONE"));
    // The header names the file shown too: the rows are below it.
    let row = |name: &str| {
        screen
            .lines()
            .skip(1)
            .find(|line| line.contains(name) && line.contains(" → "))
            .unwrap_or_else(|| panic!("a row of {name}\n{screen}"))
            .to_string()
    };
    assert!(row("notes.txt").contains("removed"), "{screen}");
    assert!(row("bug.c").contains("done"), "{screen}");
    assert!(row("bug.h").contains("done"), "{screen}");

    // q leaves; the result directory holds the reduced set, and it is still interesting.
    tmux.keys("q");
    let screen = tmux.wait_for("the terminal settings", |s| {
        let after = s.split("EXIT=").nth(1).unwrap_or("");
        after.contains("icanon") && after.contains("echo")
    });
    assert!(screen.contains("EXIT=0"), "{screen}");
    assert_raw_mode_off(&screen);
    tmux.assert_alternate_screen_left();
    let out = dir.path().join("out");
    assert!(!out.join("notes.txt").exists());
    let header = std::fs::read_to_string(out.join("bug.h")).unwrap();
    let source = std::fs::read_to_string(out.join("bug.c")).unwrap();
    assert!(header.contains("int crash(int") && source.contains("crash(3)"));
    assert!(header.len() + source.len() < 60, "{header:?} {source:?}");
}

/// The hoisting lesson of the README (Fig 7.1), recorded with the example's real test and
/// replayed in a real terminal: forwards to the hoist that is not kept, then to the one that
/// is, and back again; at each point the step in words and the tree's marks are on screen.
#[test]
#[ignore = "needs tmux"]
fn the_hoisting_lesson_forwards_and_backwards() {
    require_tmux_and_gcc();
    let example = Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/hello-hoist-c");
    let dir = tempfile::tempdir().unwrap();
    for file in ["hello.c", "oracle.sh"] {
        std::fs::copy(example.join(file), dir.path().join(file)).unwrap();
    }
    let oracle = dir.path().join("oracle.sh");
    let recorded = Command::new(env!("CARGO_BIN_EXE_whittle"))
        .current_dir(dir.path())
        .args([
            "reduce",
            "hello.c",
            "-a",
            "hddhr+ddmin:line",
            "-j",
            "1",
            "--no-tui",
        ])
        .args(["-o", "result.c", "--trace", "lesson.jsonl", "--", "sh"])
        .arg(&oracle)
        .output()
        .unwrap();
    assert!(recorded.status.success(), "{recorded:?}");
    let script = format!(
        "cd '{dir}' && '{bin}' replay lesson.jsonl --at 5; sleep 600",
        dir = dir.path().display(),
        bin = env!("CARGO_BIN_EXE_whittle"),
    );
    let tmux = Tmux::start_sized("whittle-lesson", &script, (160, 45));
    tmux.wait_for("step 5", |s| step_shown(s) == Some(5));
    let not_kept = |s: &str| {
        step_shown(s) == Some(6)
            && s.contains("hoist the identifier at line 1 into the place of the")
            && s.contains("enclosing function_declarator: 3 bytes fewer: passes")
            && s.contains("[replaced]")
            && s.contains("[replaces it]")
    };
    tmux.keys("n");
    tmux.wait_for(
        "the first hoist (not kept) in words and in the tree",
        not_kept,
    );
    tmux.keys("n");
    let screen = tmux.wait_for("the kept hoist in words and in the tree", |s| {
        step_shown(s) == Some(7)
            && s.contains("hoist the compound_statement at line 2 into the")
            && s.contains("place of the enclosing compound_statement: 23 bytes")
            // The tree pane wraps the mark.
            && s.contains("33B [hoisted")
            && s.contains("here: was compound_statement]")
    });
    assert!(!screen.contains("[replaces it]"), "{screen}");
    tmux.keys("b");
    let screen = tmux.wait_for("the first hoist again, stepping back", not_kept);
    assert!(!screen.contains("[hoisted"), "{screen}");
    tmux.keys("q");
}
