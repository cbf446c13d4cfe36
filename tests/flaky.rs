//! A flaky test (the same candidate judged differently): the result is re-tested the moment the
//! test is found flaky and at the end; when it fails, whittle says so loudly, goes back to the
//! last result that passes again and goes on from there.

mod common;

use std::time::Duration;

use common::safety::{Work, text};

#[test]
fn a_final_result_that_fails_its_re_test_sends_the_run_back_to_the_last_that_passed() {
    let work = Work::new();
    let input = work.file("in.txt", "a\nkeep\nb\nc\n");
    // Interesting while `keep` is there, except that a candidate shorter than 6 bytes is
    // interesting only the first time it is seen.
    let test = work.script(
        "flaky.sh",
        &format!(
            "seen={seen}\nh=$(cksum < \"$1\")\n\
             if grep -qxF \"$h\" \"$seen\" 2>/dev/null && [ \"$(wc -c < \"$1\")\" -lt 6 ]; then \
             exit 1; fi\n\
             echo \"$h\" >> \"$seen\"\ngrep -q keep \"$1\"",
            seen = work.path("seen").display()
        ),
    );
    let output = work.reduce_within(&input, &["-j", "1"], &test, Duration::from_secs(60));
    let stderr = text(&output.stderr);
    let stdout = text(&output.stdout);
    assert_eq!(output.status.code(), Some(0), "{stderr}");
    assert!(stderr.contains("WARNING: the test is flaky"), "{stderr}");
    assert!(
        stderr.contains(
            "the result then (4 bytes) was interesting before but not on its re-test (exit \
             status 1); the run went back to the last result that passed and went on reducing"
        ),
        "{stderr}"
    );
    let result = std::fs::read_to_string(work.path("in.whittled.txt")).unwrap();
    assert!(result.contains("keep"), "{result:?}");
    // What the run found from there, confirmed: it passes again.
    assert!(
        result.len() >= 6,
        "the result is one that passes again: {result:?}"
    );
    let rerun = std::process::Command::new(&test)
        .arg(work.path("in.whittled.txt"))
        .status()
        .unwrap();
    assert!(rerun.success(), "the result reproduces");
    assert!(result.len() < "a\nkeep\nb\nc\n".len(), "{result:?}");
    assert!(stdout.contains("result: "), "{stdout}");
}

#[test]
fn a_steady_test_confirms_its_result_quietly() {
    let work = Work::new();
    let input = work.file("in.txt", "a\nkeep\nb\nc\n");
    let test = work.script("steady.sh", "grep -q keep \"$1\"");
    let output = work.reduce_within(&input, &[], &test, Duration::from_secs(60));
    assert!(output.status.success());
    assert!(!text(&output.stderr).contains("flaky"));
    assert_eq!(
        std::fs::read_to_string(work.path("in.whittled.txt")).unwrap(),
        "keep"
    );
}

/// What the scripted flaky test saw: every run (the file, the verdict) and which was lucky.
#[derive(Default)]
struct Runs {
    calls: Vec<(Vec<u8>, bool)>,
    lucky: Option<usize>,
}

/// Interesting while the file holds `keep` and `anchor`, except that the first file over 2000
/// bytes without `anchor` is interesting once (a lucky run, judged by `test`); the test tells it
/// is flaky five runs later.
struct Lucky<T> {
    test: T,
    runs: std::sync::Arc<std::sync::Mutex<Runs>>,
}

/// Whether `haystack` holds `word`.
fn has(haystack: &[u8], word: &str) -> bool {
    haystack.windows(word.len()).any(|w| w == word.as_bytes())
}

/// The test of [`Lucky`], noting its runs in `runs`.
fn lucky_test(runs: std::sync::Arc<std::sync::Mutex<Runs>>) -> impl Fn(&[u8]) -> bool {
    move |candidate: &[u8]| {
        let mut runs = runs.lock().unwrap();
        let lucky = runs.lucky.is_none() && candidate.len() > 2000;
        let verdict = has(candidate, "keep") && (has(candidate, "anchor") || lucky);
        if verdict && !has(candidate, "anchor") {
            runs.lucky = Some(runs.calls.len());
        }
        runs.calls.push((candidate.to_vec(), verdict));
        verdict
    }
}

impl<T: whittle_core::exec::oracle::Oracle> whittle_core::exec::oracle::Oracle for Lucky<T> {
    fn judge(
        &self,
        candidate: &[u8],
        cancel: &whittle_core::exec::processes::CancelToken,
    ) -> whittle_core::exec::oracle::Verdict {
        self.test.judge(candidate, cancel)
    }

    fn describe(&self) -> String {
        "lucky".into()
    }

    fn found_flaky(&self) -> bool {
        let runs = self.runs.lock().unwrap();
        runs.lucky.is_some_and(|at| runs.calls.len() >= at + 5)
    }
}

/// Once the test is found flaky in the middle of a run, the result then is re-tested right away
/// (it may have been accepted on a lucky run, and every candidate made from it would fail), and
/// the run goes back to the last result that passes: it does not wait for the end.
#[test]
fn a_result_accepted_on_a_lucky_run_is_re_tested_once_the_test_is_found_flaky() {
    use whittle_core::engine::job::Job;
    use whittle_core::engine::pipeline::{Pipeline, Settings};
    use whittle_core::engine::session::{Session, SessionOptions};
    use whittle_core::text::atoms::AtomKind;

    let runs = std::sync::Arc::<std::sync::Mutex<Runs>>::default();
    let oracle = std::sync::Arc::new(Lucky {
        test: whittle_core::exec::oracle::predicate("lucky", lucky_test(runs.clone())),
        runs: runs.clone(),
    });
    let mut input = String::from("keep\n");
    for i in 0..400 {
        input.push_str(&format!("filler {i}\n"));
        if i == 300 {
            input.push_str("anchor\n");
        }
    }
    let settings = Settings {
        atoms: vec![AtomKind::Line],
        jobs: 1,
        algorithm: Some(Pipeline::ddmin()),
        ..Settings::default()
    };
    let options = SessionOptions {
        exit_when_done: true,
        start_in_step_mode: false,
        start_paused: false,
    };
    let job = Job::new(input.into_bytes(), settings);
    let session = Session::start_with(job, oracle, options, |t| t.set_inline_below(None)).unwrap();
    let report = session.wait().unwrap();
    let result = report.finished.result;
    assert!(has(&result, "keep") && has(&result, "anchor"), "{result:?}");
    let runs = runs.lock().unwrap();
    let lucky = runs.lucky.expect("a lucky run");
    let (accepted, _) = &runs.calls[lucky];
    assert!(
        runs.calls[lucky + 1..lucky + 5].iter().all(|(_, yes)| !yes),
        "nothing made from the lucky result passes"
    );
    assert_eq!(
        &runs.calls[lucky + 5].0,
        accepted,
        "the first run once the test is known flaky re-tests the result then"
    );
    let flaky = report.finished.flaky.expect("found flaky");
    assert!(flaky.fell_back && flaky.went_on, "{flaky:?}");
}
