//! Tests of reducing a case of several files.

use super::*;
use crate::exec::oracle::predicate;

fn file(path: &str, content: &str) -> CaseFile {
    CaseFile {
        path: PathBuf::from(path),
        mode: 0o644,
        content: content.as_bytes().to_vec(),
    }
}

#[test]
fn tests_count_the_runs_of_the_test_and_memo_hits_apart() {
    let runs = Arc::new(AtomicU64::new(0));
    let counted = runs.clone();
    let oracle = predicate("a in a.txt, b in b.txt", move |candidate: &[u8]| {
        counted.fetch_add(1, Ordering::Relaxed);
        let Ok(files) = bundle::decode(candidate) else {
            return false;
        };
        let has = |path: &str, text: &[u8]| {
            files.iter().any(|f| {
                f.path.as_path() == std::path::Path::new(path)
                    && f.content.windows(text.len()).any(|w| w == text)
            })
        };
        has("a.txt", b"aa") && has("b.txt", b"bb")
    });
    let job = CaseJob {
        input: vec![
            file("a.txt", "x aa y\nz\n"),
            file("b.txt", "q bb r\ns\n"),
            file("c.txt", "c\n"),
        ],
        start: None,
        settings: Settings {
            jobs: 1,
            parallel: Some(crate::params::ParallelMode::Stable),
            ..Settings::default()
        },
        binary: BinaryFiles::Keep,
        output: None,
        events: None,
        trace_dir: None,
        command: None,
        steering: None,
    };
    let finished = job.run(Arc::new(oracle), &CaseStop::default()).unwrap();
    let stats = &finished.stats;
    // Every run of the test is a test, a check or the final re-test: memo hits are none.
    assert_eq!(stats.tests + stats.checks + 1, runs.load(Ordering::Relaxed));
    let per_file: u64 = finished.files.iter().map(|f| f.tests).sum();
    assert_eq!(stats.tests, per_file + finished.file_removal_tests);
    // The per-stage rows count runs too (the files phase is a stage of its own).
    let per_stage: u64 = stats.stages.iter().map(|stage| stage.tests).sum();
    assert_eq!(per_stage, stats.tests);
}

#[test]
fn a_memo_hit_runs_no_test_and_is_no_test() {
    let runs = Arc::new(AtomicU64::new(0));
    let counted = runs.clone();
    let inner = predicate("never", move |_: &[u8]| {
        counted.fetch_add(1, Ordering::Relaxed);
        false
    });
    let files = vec![file("a.txt", "a\n"), file("b.txt", "b\n")];
    let in_case = FileInCase {
        inner: Arc::new(inner),
        files,
        index: Some(0),
        memo: Arc::default(),
        memo_hits: AtomicU64::new(0),
    };
    let cancel = CancelToken::new();
    let remembered: Vec<bool> = (0..3)
        .map(|_| {
            let verdict = in_case.judge(b"x", &cancel);
            assert_eq!(verdict.outcome, Outcome::NotInteresting);
            verdict.remembered
        })
        .collect();
    // The first verdict is a run's; the tester counts the others as cache hits.
    assert_eq!(remembered, [false, true, true]);
    assert_eq!(runs.load(Ordering::Relaxed), 1);
    assert_eq!(in_case.memo_hits.load(Ordering::Relaxed), 2);
}

/// a.txt must hold `keep` and every other word of b.txt; b.txt must hold `need`: a.txt's words go
/// only once b.txt lost them, in a later round.
fn coupled_files_oracle(runs: Arc<AtomicU64>) -> impl Oracle {
    predicate(
        "a.txt has keep and b.txt's words",
        move |candidate: &[u8]| {
            runs.fetch_add(1, Ordering::Relaxed);
            let Ok(files) = bundle::decode(candidate) else {
                return false;
            };
            let text = |path: &str| {
                files
                    .iter()
                    .find(|f| f.path.as_path() == std::path::Path::new(path))
                    .map(|f| String::from_utf8_lossy(&f.content).into_owned())
            };
            let (Some(a), Some(b)) = (text("a.txt"), text("b.txt")) else {
                return false;
            };
            let words: Vec<&str> = a.split_whitespace().collect();
            words.contains(&"keep")
                && b.contains("need")
                && b.split(|c: char| !c.is_ascii_alphanumeric())
                    .filter(|word| !word.is_empty() && *word != "need")
                    .all(|word| words.contains(&word))
        },
    )
}

fn coupled_job(start: Option<Vec<CaseFile>>) -> CaseJob {
    CaseJob {
        input: vec![
            file("a.txt", "keep alpha\nbeta\n"),
            file("b.txt", "need\nalpha\n"),
        ],
        start,
        settings: Settings {
            jobs: 1,
            parallel: Some(crate::params::ParallelMode::Stable),
            // Only stages that recall their failed edits, in a schedule.
            algorithm: Some("(ddmin:line+tokens)*".parse().expect("a pipeline")),
            ..Settings::default()
        },
        binary: BinaryFiles::Keep,
        output: None,
        events: None,
        trace_dir: None,
        command: None,
        steering: None,
    }
}

/// The files' sessions skip the edits that failed before (their recall is held): a.txt's
/// removal of `alpha` failed while b.txt had it, and is skipped in a.txt's later held session;
/// the round that skips nothing settles the set, so the result is a fixed point of every
/// file's pipeline and a run that starts from it removes nothing more.
#[test]
fn held_sessions_settle_into_a_fixed_point_of_every_file() {
    let runs = Arc::new(AtomicU64::new(0));
    let finished = coupled_job(None)
        .run(
            Arc::new(coupled_files_oracle(runs.clone())),
            &CaseStop::default(),
        )
        .unwrap();
    let result: Vec<String> = finished
        .result
        .iter()
        .map(|f| String::from_utf8_lossy(&f.content).into_owned())
        .collect();
    assert!(result[0].contains("keep") && result[1].contains("need"));
    assert!(
        !result[0].contains("alpha"),
        "a.txt lost alpha once b.txt had lost it, in a later round: {result:?}"
    );
    assert!(finished.rounds >= 3, "a held round and one that settles");
    let again = coupled_job(Some(finished.result.clone()))
        .run(Arc::new(coupled_files_oracle(runs)), &CaseStop::default())
        .unwrap();
    assert_eq!(again.result, finished.result, "nothing left to find");
    assert_eq!(again.stats.accepted, 0);
}

/// The per-stage `skipped` figure counts the edits a file's held recall skipped: a.txt's second
/// session on the same set skips in its schedule's settling round only because its recall is
/// held, and those skips are in its stages' rows.
#[test]
fn the_stages_count_what_a_held_recall_skips() {
    let job = coupled_job(None);
    let oracle: Arc<dyn Oracle> = Arc::new(coupled_files_oracle(Arc::default()));
    let memo = Arc::new(CaseMemo::default());
    let plan = job.plan_for(&job.input[0]).expect("a.txt is text");
    let pins = Arc::new(Mutex::new(Pins::default()));
    let stop = CaseStop::default();
    let session = |files: &[CaseFile], recall: Recall| {
        job.reduce_file(
            &oracle,
            &memo,
            files,
            0,
            1,
            &plan,
            &pins,
            recall,
            0,
            &Stats::default(),
            Instant::now(),
            &stop,
        )
        .expect("a session")
    };
    let first = session(&job.input, Recall::default());
    assert_eq!(first.recall.held_skipped(), 0);
    let mut files = job.input.clone();
    files[0].content = first.best;
    let mut recall = first.recall;
    recall.hold(true);
    let (skipped, held) = (recall.skipped(), recall.held_skipped());
    let second = session(&files, recall);
    let held_now = second.recall.held_skipped() - held;
    assert!(held_now > 0, "the settling round skipped for the hold");
    let per_stage: u64 = second.stats.stages.iter().map(|stage| stage.skipped).sum();
    assert_eq!(
        per_stage,
        second.recall.skipped() - skipped + held_now,
        "every skip is a stage's"
    );
}

/// A file held back on the set as it is now is skipped while the run holds, and that skip does
/// not make it settled: the round that settles runs its session without the hold.
#[test]
fn a_file_held_back_is_not_settled_by_a_held_round() {
    let job = coupled_job(None);
    let stop = CaseStop::default();
    let mut run = job
        .start(Arc::new(coupled_files_oracle(Arc::default())), &stop)
        .expect("the input is interesting");
    let whole = sha3_256(&bundle::encode(&run.current));
    run.held_settled.insert(run.current[0].path.clone(), whole);
    run.holding = true;
    run.reduce_one_file(0).expect("no session");
    assert_eq!(run.reports[0].sessions, 0, "held back on this set: skipped");
    run.holding = false;
    run.reduce_one_file(0).expect("a session");
    assert_eq!(run.reports[0].sessions, 1, "the round that settles runs it");
}
