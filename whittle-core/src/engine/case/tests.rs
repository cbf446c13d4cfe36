//! Tests of reducing a case of several files.

use super::*;
use crate::exec::oracle::predicate;

mod turns;

fn file(path: &str, content: &str) -> CaseFile {
    CaseFile::regular(path, content.as_bytes())
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
        test_text: Vec::new(),
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
        test_text: Vec::new(),
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

/// A SQL file the grammar misreads throughout (SQLite's triggers) is reduced as text in every
/// session, also once the parts it misread are gone: the file as the case gave it decides.
#[cfg(feature = "lang-sql")]
#[test]
fn a_misread_sql_file_is_reduced_as_text_in_every_session() {
    let triggers = "CREATE TRIGGER t AFTER INSERT ON a BEGIN DELETE FROM a; END;\n".repeat(5);
    let mut job = coupled_job(None);
    job.settings.algorithm = None;
    job.input = vec![
        file("a.sql", &format!("SELECT 1;\n{triggers}")),
        file("b.sql", "SELECT 2;\n"),
    ];
    let language = |file: &CaseFile| job.plan_for(file).and_then(|plan| plan.language_name);
    assert_eq!(language(&job.input[0]), None);
    assert_eq!(language(&file("a.sql", "SELECT 1;\n")), None, "later");
    assert_eq!(language(&job.input[1]).as_deref(), Some("sql"));
}

/// A file's second session on the same set with its recall held (other files still change)
/// leaves its token sweep out: no test of it runs, the recall counts it as held back (so the
/// case runs the file again without the hold), and the stages' `skipped` figures still add up
/// to what the recall skipped.
#[test]
fn a_held_session_leaves_the_token_sweeps_out() {
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
            Arc::default(),
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
    let tokens_tests = |stats: &Stats| -> u64 {
        let tokens = stats.stages.iter().filter(|stage| stage.name == "tokens");
        tokens.map(|stage| stage.tests).sum()
    };
    assert!(
        tokens_tests(&first.stats) > 0,
        "not held: the token sweep ran"
    );
    let mut recall = first.recall;
    recall.hold(true);
    let (all_skipped, held_back) = (recall.all_skipped(), recall.held_back());
    let second = session(&files, recall);
    assert!(
        second.recall.held_back() > held_back,
        "the token sweep was left out for the hold"
    );
    assert_eq!(tokens_tests(&second.stats), 0);
    let per_stage: u64 = second.stats.stages.iter().map(|stage| stage.skipped).sum();
    assert_eq!(
        per_stage,
        second.recall.all_skipped() - all_skipped,
        "every skip is a stage's"
    );
}

/// A file's first session in a case of several files scouts: only the schedule's first stage
/// runs (the line pass; the token sweep waits), and what it left out counts as held back, so
/// that the case runs the file again.
#[test]
fn a_scouting_session_runs_only_the_schedule_s_first_stage() {
    let job = coupled_job(None);
    let oracle: Arc<dyn Oracle> = Arc::new(coupled_files_oracle(Arc::default()));
    let plan = job.plan_for(&job.input[0]).expect("a.txt is text");
    let tests_of = |stats: &Stats, name: &str| -> u64 {
        let runs = stats.stages.iter().filter(|stage| stage.name == name);
        runs.map(|stage| stage.tests).sum()
    };
    for scouting in [false, true] {
        let mut recall = Recall::default();
        recall.scout(scouting);
        let session = job
            .reduce_file(
                &oracle,
                &Arc::new(CaseMemo::default()),
                &job.input,
                0,
                1,
                &plan,
                &Arc::new(Mutex::new(Pins::default())),
                recall,
                Arc::default(),
                0,
                &Stats::default(),
                Instant::now(),
                &CaseStop::default(),
            )
            .expect("a session");
        assert!(tests_of(&session.stats, "ddmin line") > 0);
        assert_eq!(tests_of(&session.stats, "tokens") == 0, scouting);
        assert_eq!(session.recall.held_back() > 0, scouting);
    }
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

/// The files phase takes complements only, the smallest files first: two empty files that
/// can go go together in one test, and the two files the test needs cost one test each.
#[test]
fn the_files_phase_tries_the_smallest_files_first_and_together() {
    let oracle = predicate("a.txt and b.txt", |candidate: &[u8]| {
        bundle::decode(candidate).is_ok_and(|files| {
            let has = |path: &str| files.iter().any(|f| f.path == std::path::Path::new(path));
            has("a.txt") && has("b.txt")
        })
    });
    let job = CaseJob {
        input: vec![
            file("a.txt", "aaaa\n"),
            file("c.txt", ""),
            file("b.txt", "bbbb\n"),
            file("d.txt", ""),
        ],
        ..coupled_job(None)
    };
    let finished = job
        .run(Arc::new(oracle), &CaseStop::default())
        .expect("the input is interesting");
    let left: Vec<&std::path::Path> = finished.result.iter().map(|f| f.path.as_path()).collect();
    assert_eq!(left, ["a.txt", "b.txt"]);
    // Round 1: c.txt and d.txt go in one test, a.txt and b.txt stay (a test each); round 2
    // (both emptied by their sessions): a test each again.
    assert_eq!(finished.file_removal_tests, 3 + 2);
}

/// A module loader for the tests below: interesting while `main.js` holds `BUG`, `alpha.js`
/// holds `A`, and every file that a file requires (`require('./x')`) exists; `needs` must
/// exist too (the test uses it itself).
fn loader(needs: &'static [&'static str]) -> impl Fn(&[u8]) -> bool + Send + Sync + 'static {
    move |candidate: &[u8]| {
        let Ok(files) = bundle::decode(candidate) else {
            return false;
        };
        let get = |path: &str| {
            files
                .iter()
                .find(|f| f.path == std::path::Path::new(path))
                .map(|f| String::from_utf8_lossy(&f.content).into_owned())
        };
        let (Some(main), Some(alpha)) = (get("main.js"), get("alpha.js")) else {
            return false;
        };
        let required = files.iter().all(|file| {
            String::from_utf8_lossy(&file.content)
                .split("require('./")
                .skip(1)
                .filter_map(|rest| rest.split_once("')"))
                .all(|(name, _)| get(&format!("{name}.js")).is_some())
        });
        required
            && main.contains("BUG")
            && alpha.contains('A')
            && needs.iter().all(|path| get(path).is_some())
    }
}

fn loader_job() -> CaseJob {
    CaseJob {
        input: vec![
            file("alpha.js", "A\n"),
            file("beta.js", "require('./gamma')\nB\n"),
            file("gamma.js", "C\n"),
            file(
                "main.js",
                "require('./alpha')\nrequire('./beta')\nrequire('./delta')\nBUG\n",
            ),
            file("delta.js", "D\n"),
        ],
        ..coupled_job(None)
    }
}

/// `main.js`'s session stops requiring the other files (the test loads alpha.js itself):
/// nothing names them now (nor gamma.js, which only beta.js named). The test without all four
/// fails; ddmin over them removes beta.js, gamma.js and delta.js before their turns, so they
/// have no sessions of their own.
#[test]
fn files_a_session_left_unused_go_before_their_turns() {
    let oracle = predicate("a loader", loader(&[]));
    let finished = loader_job()
        .run(Arc::new(oracle), &CaseStop::default())
        .expect("the input is interesting");
    let left: Vec<&std::path::Path> = finished.result.iter().map(|f| f.path.as_path()).collect();
    assert_eq!(left, ["alpha.js", "main.js"]);
    let sessions = |path: &str| {
        finished
            .files
            .iter()
            .find(|report| report.path == path)
            .map(|report| report.sessions)
    };
    assert!(sessions("main.js") >= Some(1));
    assert_eq!(
        (
            sessions("beta.js"),
            sessions("gamma.js"),
            sessions("delta.js")
        ),
        (Some(0), Some(0), Some(0))
    );
}

/// The files a session left unused that the test still needs (it uses delta.js itself) stay.
#[test]
fn unused_files_the_test_needs_stay() {
    let oracle = predicate("a loader that needs delta.js", loader(&["delta.js"]));
    let finished = loader_job()
        .run(Arc::new(oracle), &CaseStop::default())
        .expect("the input is interesting");
    let left: Vec<&std::path::Path> = finished.result.iter().map(|f| f.path.as_path()).collect();
    assert_eq!(left, ["alpha.js", "main.js", "delta.js"]);
}

/// A test found flaky: `lucky` (a set accepted on a lucky run) fails its re-test, every other
/// set holding `need` in a.txt passes.
struct FoundFlaky(Box<dyn Oracle>);

impl FoundFlaky {
    fn new(lucky: Vec<u8>) -> Self {
        FoundFlaky(Box::new(predicate(
            "found flaky",
            move |candidate: &[u8]| {
                candidate != lucky.as_slice()
                    && bundle::decode(candidate).is_ok_and(|files| {
                        files.iter().any(|f| {
                            f.path == std::path::Path::new("a.txt")
                                && f.content.starts_with(b"need")
                        })
                    })
            },
        )))
    }
}

impl Oracle for FoundFlaky {
    fn judge(&self, candidate: &[u8], cancel: &CancelToken) -> Verdict {
        self.0.judge(candidate, cancel)
    }

    fn describe(&self) -> String {
        self.0.describe()
    }

    fn found_flaky(&self) -> bool {
        true
    }
}

/// Once the test is found flaky, the set the run is on is re-tested: a set accepted on a lucky
/// run fails, and the run goes back to the newest earlier set that passes, and on from there.
#[test]
fn a_set_accepted_on_a_lucky_run_is_left_once_the_test_is_found_flaky() {
    let job = CaseJob {
        input: vec![file("a.txt", "need\nmore\n"), file("b.txt", "b\n")],
        ..coupled_job(None)
    };
    let good = vec![file("a.txt", "need\n"), file("b.txt", "b\n")];
    let lucky = vec![file("a.txt", "need\n")];
    let oracle = Arc::new(FoundFlaky::new(bundle::encode(&lucky)));
    let stop = CaseStop::default();
    let mut run = job.start(oracle, &stop).expect("interesting");
    for set in [&good, &lucky] {
        run.current = set.clone();
        remember(&mut run.earlier, &run.current);
    }
    assert!(run.recheck_when_flaky(), "the run went back");
    assert_eq!(run.current, good);
    assert!(!run.recheck_when_flaky(), "once per run");
    let finished = run.finish();
    let back = finished.flaky.expect("went back");
    assert!(back.went_on);
    assert_eq!(back.unconfirmed_size, bundle::content_size(&lucky));
    assert!(back.fell_back);
    assert_eq!(finished.result, good);
}

/// The newest sets are all kept, older ones thinned out, so that they reach far back.
#[test]
fn earlier_sets_are_kept_newest_all_and_older_ever_sparser() {
    let mut earlier = Vec::new();
    for i in 0..100 {
        remember(&mut earlier, &[file("a.txt", &i.to_string())]);
    }
    let kept: Vec<usize> = earlier
        .iter()
        .map(|(_, set)| {
            String::from_utf8_lossy(&set[0].content)
                .parse()
                .expect("a number")
        })
        .collect();
    let lookback = crate::engine::job::FLAKY_LOOKBACK as usize;
    assert!(kept.len() <= 2 * lookback, "{kept:?}");
    assert_eq!(
        kept[kept.len() - lookback..],
        [92, 93, 94, 95, 96, 97, 98, 99]
    );
    assert!(kept[0] < 50, "the oldest kept reaches back: {kept:?}");
    assert!(kept.windows(2).all(|w| w[0] < w[1]), "{kept:?}");
    // Every older octave keeps a set.
    for back in [8, 16, 32] {
        assert!(
            kept.iter()
                .any(|&i| (99 - i) >= back && (99 - i) < 2 * back),
            "{back}: {kept:?}"
        );
    }
}

/// What [`LuckyInA`] saw: every set it judged (with its verdict), and which was lucky.
#[derive(Default)]
struct LuckyRuns {
    calls: Vec<(Vec<u8>, bool)>,
    lucky: Option<usize>,
}

/// Interesting while a.txt holds `keep` and `anchor`, except that the first set whose a.txt
/// is over 2000 bytes without `anchor` is interesting once (a lucky run); the test tells it
/// is flaky five runs later.
struct LuckyInA {
    test: Box<dyn Oracle>,
    runs: Arc<Mutex<LuckyRuns>>,
}

impl LuckyInA {
    fn new(runs: Arc<Mutex<LuckyRuns>>) -> Self {
        let noted = runs.clone();
        let test = predicate("lucky in a.txt", move |candidate: &[u8]| {
            let has = |text: &[u8], word: &[u8]| text.windows(word.len()).any(|w| w == word);
            let files = bundle::decode(candidate).unwrap_or_default();
            let a = (files.iter())
                .find(|f| f.path == std::path::Path::new("a.txt"))
                .map_or(&[][..], |f| &f.content[..]);
            let mut runs = lock(&noted);
            let lucky = runs.lucky.is_none() && a.len() > 2000;
            let verdict = has(a, b"keep") && (has(a, b"anchor") || lucky);
            if verdict && !has(a, b"anchor") {
                runs.lucky = Some(runs.calls.len());
            }
            runs.calls.push((candidate.to_vec(), verdict));
            verdict
        });
        LuckyInA {
            test: Box::new(test),
            runs,
        }
    }
}

impl Oracle for LuckyInA {
    fn judge(&self, candidate: &[u8], cancel: &CancelToken) -> Verdict {
        self.test.judge(candidate, cancel)
    }

    fn describe(&self) -> String {
        "lucky in a.txt".into()
    }

    fn found_flaky(&self) -> bool {
        let runs = lock(&self.runs);
        runs.lucky.is_some_and(|at| runs.calls.len() >= at + 5)
    }
}

/// Once the test is found flaky in the middle of a file's session, the session stops and the
/// set is re-tested right away (as for one file), not when the session ends: every candidate
/// made from a set accepted on a lucky run fails. The run goes back to the set before it and
/// still ends at a set that holds `anchor`.
#[test]
fn a_file_session_stops_to_re_test_the_set_once_the_test_is_found_flaky() {
    let mut a = String::from("keep\n");
    for i in 0..400 {
        a.push_str(&format!("filler {i}\n"));
        if i == 300 {
            a.push_str("anchor\n");
        }
    }
    let job = CaseJob {
        input: vec![file("a.txt", &a), file("b.txt", "b\n")],
        settings: Settings {
            atoms: vec![crate::text::atoms::AtomKind::Line],
            algorithm: Some(crate::engine::pipeline::Pipeline::ddmin()),
            ..coupled_job(None).settings
        },
        ..coupled_job(None)
    };
    let runs = Arc::new(Mutex::new(LuckyRuns::default()));
    let finished = job
        .run(Arc::new(LuckyInA::new(runs.clone())), &CaseStop::default())
        .expect("interesting");
    let runs = lock(&runs);
    let lucky = runs.lucky.expect("a lucky run");
    assert!(
        runs.calls[lucky + 1..lucky + 5].iter().all(|(_, yes)| !yes),
        "nothing made from the lucky set passes"
    );
    assert!(
        runs.calls[lucky + 5].0 == runs.calls[lucky].0,
        "the first run once the test is known flaky re-tests the set then"
    );
    let back = finished.flaky.expect("found flaky");
    assert!(back.fell_back && back.went_on, "{back:?}");
    let a = &finished.result[0];
    assert!(
        a.content.starts_with(b"keep") && a.content.ends_with(b"anchor\n"),
        "{a:?}"
    );
}

/// The files of one language share their syntax guard's trial (one test, one trial): the
/// edits the grammar rejects that reach the test in the settling rounds are about
/// [`crate::engine::pipeline::TRIALS`] in all, not that many per file session. Every file of
/// six must stay a JSON object with `k`.
#[test]
#[cfg_attr(
    not(feature = "lang-json"),
    ignore = "needs the JSON grammar (cargo feature lang-json)"
)]
fn the_files_of_a_language_share_the_guard_s_trial() {
    let rejected = Arc::new(AtomicU64::new(0));
    let counted = rejected.clone();
    let oracle = predicate(
        "every file is a JSON object with k",
        move |candidate: &[u8]| {
            let files = bundle::decode(candidate).unwrap_or_default();
            let values: Vec<Option<serde_json::Value>> = (files.iter())
                .map(|f| serde_json::from_slice(&f.content).ok())
                .collect();
            if values.iter().any(Option::is_none) {
                counted.fetch_add(1, Ordering::Relaxed);
            }
            values.len() == 6
                && values
                    .iter()
                    .all(|v| v.as_ref().is_some_and(|v| v.get("k").is_some()))
        },
    );
    let json = r#"{"k": [10, 20, 30], "x": {"y": "zz", "w": [true, null]}, "v": 40}"#;
    let input: Vec<CaseFile> = (0..6).map(|i| file(&format!("{i}.json"), json)).collect();
    let job = CaseJob {
        input,
        settings: Settings {
            algorithm: None,
            ..coupled_job(None).settings
        },
        ..coupled_job(None)
    };
    let finished = job
        .run(Arc::new(oracle), &CaseStop::default())
        .expect("interesting");
    for f in &finished.result {
        assert_eq!(f.content, br#"{"k": 0}"#, "{f:?}");
    }
    let rejected = rejected.load(Ordering::Relaxed);
    // Each run on trial tests all it has, so the trial may end a run past TRIALS (57 here;
    // a trial per session tested 87).
    assert!(
        rejected <= 2 * crate::engine::pipeline::TRIALS,
        "{rejected} tested"
    );
}

/// The course of a case is the whole set's: noted by the file sessions at the run's moments
/// (the first after 1 s), after the tests before them, and ended by the result.
#[test]
fn a_case_notes_the_course_of_the_whole_set() {
    let oracle = predicate("keep in a.txt, b.txt there", |candidate: &[u8]| {
        std::thread::sleep(Duration::from_millis(100));
        let files = bundle::decode(candidate).unwrap_or_default();
        let has = |path: &str, word: &[u8]| {
            (files.iter()).any(|f| {
                f.path == std::path::Path::new(path)
                    && f.content.windows(word.len()).any(|w| w == word)
            })
        };
        has("a.txt", b"keep") && has("b.txt", b"b")
    });
    let mut a = String::new();
    for i in 0..60 {
        a.push_str(&format!("line {i}\n"));
        if i == 40 {
            a.push_str("keep\n");
        }
    }
    let job = CaseJob {
        input: vec![file("a.txt", &a), file("b.txt", "b\n")],
        ..coupled_job(None)
    };
    let finished = job
        .run(Arc::new(oracle), &CaseStop::default())
        .expect("interesting");
    let course = &finished.stats.course;
    let last = course.last().expect("the end");
    let size = bundle::content_size(&finished.result) as u64;
    assert_eq!((last.tests, last.bytes), (finished.stats.tests, size));
    assert!(course.len() >= 2, "{course:?}");
    assert_eq!(course[0].seconds, 1.0, "{course:?}");
    let input = bundle::content_size(&job.input) as u64;
    assert!(
        course[0].bytes < input && course[0].bytes >= size,
        "{course:?}"
    );
    assert!(
        course.windows(2).all(|w| w[0].seconds < w[1].seconds
            && w[0].tests <= w[1].tests
            && w[0].bytes >= w[1].bytes),
        "{course:?}"
    );
}

/// A moment that passes while files go whole is noted by the files phase, in the set's sizes
/// (not its bundle's): six files of which the test needs one, 400 ms a test.
#[test]
fn the_files_phase_notes_the_course_in_the_set_s_sizes() {
    let oracle = predicate("a.txt has keep", |candidate: &[u8]| {
        std::thread::sleep(Duration::from_millis(400));
        let files = bundle::decode(candidate).unwrap_or_default();
        (files.iter()).any(|f| f.path == std::path::Path::new("a.txt") && f.content == b"keep")
    });
    let mut input = vec![file("a.txt", "keep")];
    input.extend((1..6).map(|i| file(&format!("{i}.txt"), &"filler\n".repeat(i * 10))));
    let job = CaseJob {
        input,
        ..coupled_job(None)
    };
    let finished = job
        .run(Arc::new(oracle), &CaseStop::default())
        .expect("interesting");
    assert_eq!(finished.result, [file("a.txt", "keep")]);
    let course = &finished.stats.course;
    assert!(course.len() >= 2, "{course:?}");
    let input = bundle::content_size(&job.input) as u64;
    assert!(
        course
            .iter()
            .all(|point| point.bytes <= input && point.bytes >= 4),
        "{course:?}"
    );
    assert_eq!(course.last().map(|point| point.bytes), Some(4));
}
