//! One long line (minified JSON of a megabyte) through the text stages with real processes: a
//! time limit ends the run within seconds of it, and so does Ctrl-C, though every accepted
//! deletion makes the stage work out its candidates on the whole line again. A stage whose
//! candidate generation is quadratic in the length of a line takes minutes here before its
//! first test.

mod common;

use std::time::{Duration, Instant};

use common::safety::{Work, pids_in, signal, spawn_piped, text, wait_until, wait_within};
use nix::sys::signal::Signal;

const MINUTE: Duration = Duration::from_secs(60);

/// A JSON array of small objects on one line, about `bytes` long.
fn one_line_json(bytes: usize) -> String {
    let mut text = String::from("[");
    let mut i = 0u64;
    while text.len() < bytes {
        text.push_str(&format!("{{\"k{i}\": [{}.5, \"abc\", null]}}, ", i % 97));
        i += 1;
    }
    text.push_str("{}]\n");
    text
}

/// `--limit-time 2` on a one-line input of a megabyte ends well within 15 s (a debug build) for
/// the token and bracket stages, with the time limit as the reason. The input is named as text:
/// what is timed is the stages, not the parse that checks a JSON input's syntax first.
#[test]
fn a_time_limit_ends_text_stages_on_a_long_line_within_seconds() {
    let work = Work::new();
    let input = work.file("big.txt", one_line_json(1 << 20));
    let test = work.script("keeps-k17.sh", "grep -q k17 \"$1\"");
    for stage in ["tokens", "brackets"] {
        let start = Instant::now();
        let output = work.reduce_within(
            &input,
            &["-a", stage, "--limit-time", "2", "--force"],
            &test,
            MINUTE,
        );
        let took = start.elapsed();
        let said = format!("{}{}", text(&output.stdout), text(&output.stderr));
        // On a loaded machine a debug build may reach the limit while it still checks the
        // input: the bound on the time is what is asserted.
        assert!(said.contains("time limit of 2s"), "{stage}: {said}");
        assert!(took < Duration::from_secs(15), "{stage}: {took:?}");
        // What is on disk, if anything, is the input or a smaller candidate that passed.
        if let Ok(result) = std::fs::read(work.path("big.whittled.txt")) {
            assert!(result.len() <= input.metadata().unwrap().len() as usize);
            assert!(String::from_utf8_lossy(&result).contains("k17"));
        }
    }
}

/// Ctrl-C while the token stage works through a long line ends whittle within seconds.
#[test]
fn ctrl_c_on_a_long_line_takes_effect_within_seconds() {
    let work = Work::new();
    let input = work.file("big.json", one_line_json(1 << 20));
    let pids = work.path("pids");
    let test = work.script(
        "keeps-k17.sh",
        &format!("echo $$ >> {}\ngrep -q k17 \"$1\"", pids.display()),
    );
    let mut child = spawn_piped(&mut work.reduce(&input, &["-a", "tokens"], &test));
    // The input's checks, and some candidates of the stage.
    assert!(wait_until(MINUTE, || pids_in(&pids).len() >= 5));
    let signalled = Instant::now();
    signal(child.id() as i32, Signal::SIGINT);
    let status = wait_within(&mut child, Duration::from_secs(10));
    assert!(status.is_some(), "whittle still runs 10 s after Ctrl-C");
    let took = signalled.elapsed();
    let output = child.wait_with_output().unwrap();
    assert!(
        text(&output.stdout).contains("stopped on request"),
        "{}",
        text(&output.stdout)
    );
    assert!(took < Duration::from_secs(5), "{took:?}");
}
