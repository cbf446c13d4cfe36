//! Flaky tests: an oracle around the user's test that replays the input's check, re-tests an
//! interesting verdict now and then, notices when the test judges one file two ways, and from
//! then on confirms every interesting verdict by repeated runs, so that what is accepted (and
//! written) is what the test says again and again. With several jobs the input's check runs
//! once before the reduction starts, and its later runs wait for a worker nothing else needs
//! ([`Oracle::idle_work`]), or are made in the course of a later judgement if none comes soon
//! ([`WAIT_JUDGEMENTS`]). A spot check holds its verdict back until it agrees: a verdict
//! accepted on a lucky run could end the reduction (an empty file) before any re-run.

use std::collections::{HashSet, VecDeque};
use std::hash::{DefaultHasher, Hash, Hasher};
use std::sync::atomic::{AtomicBool, AtomicU32, AtomicU64, Ordering};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use crate::exec::oracle::{IdleWork, Oracle, TestStatus, TimeoutFit, Verdict};
use crate::exec::processes::CancelToken;
use crate::outcome::Outcome;

/// Runs per interesting verdict once the test has been found flaky (without `--confirm`).
pub const CONFIRM_WHEN_FLAKY: u32 = 3;
/// Runs of the input's check (without `--assume-deterministic`).
pub const CHECK_RUNS: u32 = 3;
/// Every this many interesting verdicts (the first among them), one is re-tested once.
pub const SPOT_CHECK_EVERY: u64 = 8;
/// A re-run waits for an idle worker through at most this many judgements per job: the last of
/// them makes it before its own run.
pub const WAIT_JUDGEMENTS: u64 = 4;
/// At most this many interesting files are remembered (to notice one judged otherwise later).
const REMEMBERED: usize = 1 << 16;

/// How hard flakiness is looked for.
#[derive(Clone, Copy, Debug)]
pub struct Policy {
    /// Runs of the input's check (1: once).
    pub check_runs: u32,
    /// Runs per interesting verdict from the start (`--confirm N`), if given.
    pub confirm: Option<u32>,
    /// Re-test one interesting verdict in this many (0: never).
    pub spot_every: u64,
    /// The tests that run at once: with two or more, the input's check runs once before the
    /// reduction starts and its later runs wait for idle workers.
    pub jobs: usize,
}

impl Policy {
    /// `--confirm` and `--assume-deterministic` as given.
    pub fn new(confirm: Option<u32>, assume_deterministic: bool) -> Policy {
        if assume_deterministic {
            Policy {
                check_runs: 1,
                confirm: None,
                spot_every: 0,
                jobs: 1,
            }
        } else {
            Policy {
                check_runs: CHECK_RUNS,
                confirm,
                spot_every: SPOT_CHECK_EVERY,
                jobs: 1,
            }
        }
    }

    /// The same, with `jobs` tests at once.
    pub fn with_jobs(self, jobs: usize) -> Policy {
        Policy {
            jobs: jobs.max(1),
            ..self
        }
    }
}

/// What was seen of the test's flakiness, for the report and `--stats-json`.
#[derive(Clone, Debug, Default, serde::Serialize)]
pub struct Flakiness {
    /// The test judged a file two ways.
    pub flaky: bool,
    /// The first disagreement, in words.
    pub first_disagreement: Option<String>,
    /// How many times verdicts disagreed.
    pub disagreements: u64,
    /// Runs per interesting verdict at the end.
    pub confirm_runs: u32,
    /// Runs made to replay, re-test or confirm (not counted among the tests).
    pub extra_runs: u64,
}

/// The user's test, judged with care for flakiness (see the module's documentation).
pub struct Confirming(Arc<Confirmer>);

/// What [`Confirming`] knows and does, shared with the re-runs made on idle workers.
struct Confirmer {
    inner: Arc<dyn Oracle>,
    policy: Policy,
    /// Runs per interesting verdict right now.
    confirm: AtomicU32,
    /// The input's check has had its verdict.
    checked: AtomicBool,
    interesting: AtomicU64,
    /// Judgements started (the input's check included).
    judgements: AtomicU64,
    extra_runs: AtomicU64,
    disagreements: AtomicU64,
    /// Hashes of the files judged interesting.
    known: Mutex<HashSet<u64>>,
    /// Later runs of the input's check waiting for an idle worker, oldest first.
    waiting: Mutex<VecDeque<Rerun>>,
    first_disagreement: Mutex<Option<String>>,
    warnings: Mutex<Vec<String>>,
}

/// A later run of the input's check, to find out whether the test is flaky.
struct Rerun {
    content: Arc<[u8]>,
    /// When it was asked for, in judgements started.
    asked_at: u64,
}

fn lock<T>(mutex: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(PoisonError::into_inner)
}

fn hash(content: &[u8]) -> u64 {
    let mut hasher = DefaultHasher::new();
    content.hash(&mut hasher);
    hasher.finish()
}

/// A verdict that says nothing of the file: the run was stopped, lost, or never started.
fn inconclusive(verdict: &Verdict) -> bool {
    matches!(
        verdict.status,
        TestStatus::Cancelled
            | TestStatus::Lost(_)
            | TestStatus::ScratchFailed(_)
            | TestStatus::SpawnFailed(_)
    )
}

fn said(verdict: &Verdict) -> String {
    if verdict.outcome.is_interesting() {
        "interesting".into()
    } else {
        format!("not interesting ({})", verdict.status)
    }
}

impl Confirming {
    pub fn new(inner: Arc<dyn Oracle>, policy: Policy) -> Confirming {
        Confirming(Arc::new(Confirmer {
            inner,
            policy,
            confirm: AtomicU32::new(policy.confirm.unwrap_or(1)),
            checked: AtomicBool::new(false),
            interesting: AtomicU64::new(0),
            judgements: AtomicU64::new(0),
            extra_runs: AtomicU64::new(0),
            disagreements: AtomicU64::new(0),
            known: Mutex::new(HashSet::new()),
            waiting: Mutex::new(VecDeque::new()),
            first_disagreement: Mutex::new(None),
            warnings: Mutex::new(Vec::new()),
        }))
    }

    /// What was seen so far.
    pub fn flakiness(&self) -> Flakiness {
        let confirmer = &self.0;
        let first_disagreement = lock(&confirmer.first_disagreement).clone();
        Flakiness {
            flaky: first_disagreement.is_some(),
            first_disagreement,
            disagreements: confirmer.disagreements.load(Ordering::Relaxed),
            confirm_runs: confirmer.confirm.load(Ordering::Relaxed),
            extra_runs: confirmer.extra_runs.load(Ordering::Relaxed),
        }
    }
}

impl Confirmer {
    /// Whether the check's later runs wait for an idle worker: there are several, and the
    /// test may run on more than one at once.
    fn reruns_wait(&self) -> bool {
        self.policy.jobs > 1 && self.inner.max_jobs() > 1
    }

    /// One more run, counted as an extra run.
    fn again(&self, candidate: &[u8], cancel: &CancelToken) -> Verdict {
        self.extra_runs.fetch_add(1, Ordering::Relaxed);
        self.inner.judge(candidate, cancel)
    }

    /// The test judged a file of `size` bytes (`what`) `first`, then `then`.
    fn disagreed(&self, what: &str, size: usize, first: &str, then: &str) {
        self.disagreements.fetch_add(1, Ordering::Relaxed);
        let mut noted = lock(&self.first_disagreement);
        if noted.is_some() {
            return;
        }
        let text = format!("{what} ({size} bytes) was judged {first}, then {then}");
        let runs = match self.policy.confirm {
            Some(runs) => runs,
            None => {
                self.confirm.fetch_max(CONFIRM_WHEN_FLAKY, Ordering::SeqCst);
                CONFIRM_WHEN_FLAKY
            }
        };
        let from_now = if runs > 1 {
            format!("from now on an interesting verdict counts only when {runs} runs agree")
        } else {
            "each verdict is still taken from one run (--confirm 1)".into()
        };
        lock(&self.warnings).push(format!("the test is flaky: {text}; {from_now}"));
        *noted = Some(text);
    }

    /// The input's check: when its first run says interesting, it is run `check_runs` times
    /// in all; interesting when any run says so (the reduction then goes on confirming). With
    /// several jobs the runs after the first wait for idle workers and the first decides for
    /// now. A check that fails at once is reported at once (a hanging test costs one timeout).
    fn check(&self, candidate: &[u8], cancel: &CancelToken, first: Verdict) -> Verdict {
        if !first.outcome.is_interesting() {
            return first;
        }
        // The runs after the first get the timeout fitted to the first (without --timeout none
        // is set yet): a test that hangs from its second run on costs a timeout, not the run.
        // The tester fits it again to the slowest run once the check is over.
        if self.policy.check_runs > 1 {
            let _ = self.inner.fit_timeout(first.duration);
        }
        let later = self.policy.check_runs.saturating_sub(1);
        if self.reruns_wait() {
            let content: Arc<[u8]> = Arc::from(candidate);
            for _ in 0..later {
                self.ask_rerun(Arc::clone(&content));
            }
            self.remember(candidate);
            return first;
        }
        let mut verdicts = vec![first];
        for _ in 0..later {
            if cancel.is_cancelled() {
                break;
            }
            let verdict = self.again(candidate, cancel);
            if inconclusive(&verdict) {
                return verdict;
            }
            verdicts.push(verdict);
        }
        self.conclude_check(candidate, verdicts)
    }

    /// The verdict of the check's runs, one after another.
    fn conclude_check(&self, candidate: &[u8], verdicts: Vec<Verdict>) -> Verdict {
        let yes = verdicts
            .iter()
            .filter(|v| v.outcome.is_interesting())
            .count();
        if yes > 0 && yes < verdicts.len() {
            let (a, b) = (
                &verdicts[0],
                verdicts.iter().find(|v| v.outcome != verdicts[0].outcome),
            );
            if let Some(b) = b {
                let what = format!(
                    "the input's check (run {} times: interesting {yes} times)",
                    verdicts.len()
                );
                self.disagreed(&what, candidate.len(), &said(a), &said(b));
            }
        }
        // The slowest run is the one the timeout is fitted to.
        let slowest = verdicts
            .iter()
            .map(|v| v.duration)
            .max()
            .unwrap_or_default();
        let mut chosen = verdicts
            .iter()
            .find(|v| v.outcome.is_interesting())
            .unwrap_or(&verdicts[0])
            .clone();
        chosen.duration = slowest;
        if chosen.outcome.is_interesting() {
            self.remember(candidate);
        }
        chosen
    }

    fn remember(&self, candidate: &[u8]) {
        let mut known = lock(&self.known);
        if known.len() < REMEMBERED {
            known.insert(hash(candidate));
        }
    }

    /// Asks for one more run of the input's check (`content`).
    fn ask_rerun(&self, content: Arc<[u8]>) {
        let asked_at = self.judgements.load(Ordering::Relaxed);
        lock(&self.waiting).push_back(Rerun { content, asked_at });
    }

    /// Makes a later run of the input's check: not interesting now, the test is flaky. One
    /// stopped or lost on the way waits again, first.
    fn rerun(&self, rerun: Rerun, cancel: &CancelToken) {
        let verdict = self.again(&rerun.content, cancel);
        if inconclusive(&verdict) {
            lock(&self.waiting).push_front(rerun);
        } else if !verdict.outcome.is_interesting() {
            let what = "the input (run again for its check)";
            self.disagreed(what, rerun.content.len(), "interesting", &said(&verdict));
        }
    }

    /// The oldest re-run if it has waited for an idle worker long enough: it is made now.
    fn overdue_rerun(&self, judgement: u64) -> Option<Rerun> {
        let patience = WAIT_JUDGEMENTS * self.policy.jobs as u64;
        let mut waiting = lock(&self.waiting);
        let oldest = waiting.front()?;
        (judgement + 1 >= oldest.asked_at + patience)
            .then(|| waiting.pop_front())
            .flatten()
    }

    fn judge(&self, candidate: &[u8], cancel: &CancelToken) -> Verdict {
        let judgement = self.judgements.fetch_add(1, Ordering::Relaxed);
        if let Some(rerun) = self.overdue_rerun(judgement) {
            self.rerun(rerun, cancel);
        }
        let verdict = self.inner.judge(candidate, cancel);
        if inconclusive(&verdict) {
            return verdict;
        }
        if !self.checked.swap(true, Ordering::SeqCst) {
            return self.check(candidate, cancel, verdict);
        }
        let known = lock(&self.known).contains(&hash(candidate));
        if !verdict.outcome.is_interesting() {
            if known && verdict.outcome == Outcome::NotInteresting {
                self.disagreed("a file", candidate.len(), "interesting", &said(&verdict));
            }
            return verdict;
        }
        let seen = self.interesting.fetch_add(1, Ordering::Relaxed);
        let mut runs = self.confirm.load(Ordering::Relaxed);
        if runs <= 1
            && !known
            && self.policy.spot_every > 0
            && seen.is_multiple_of(self.policy.spot_every)
        {
            runs = 2;
        }
        for _ in 1..runs {
            let again = self.again(candidate, cancel);
            if inconclusive(&again) {
                return again;
            }
            if !again.outcome.is_interesting() {
                self.disagreed("a file", candidate.len(), "interesting", &said(&again));
                return again;
            }
        }
        self.remember(candidate);
        verdict
    }
}

impl Oracle for Confirming {
    fn found_flaky(&self) -> bool {
        // Asked at every candidate's checkpoint while a re-test waits for it: no lock.
        self.0.disagreements.load(Ordering::Relaxed) > 0
    }

    fn judge(&self, candidate: &[u8], cancel: &CancelToken) -> Verdict {
        self.0.judge(candidate, cancel)
    }

    fn idle_work(&self) -> Option<IdleWork> {
        let rerun = lock(&self.0.waiting).pop_front()?;
        let confirmer = Arc::clone(&self.0);
        Some(Box::new(move |cancel: &CancelToken| {
            confirmer.rerun(rerun, cancel)
        }))
    }

    fn describe(&self) -> String {
        self.0.inner.describe()
    }

    fn timeout(&self) -> Option<Duration> {
        self.0.inner.timeout()
    }

    fn fit_timeout(&self, check: Duration) -> Option<TimeoutFit> {
        self.0.inner.fit_timeout(check)
    }

    fn take_warnings(&self) -> Vec<String> {
        let mut warnings = self.0.inner.take_warnings();
        warnings.append(&mut lock(&self.0.warnings));
        warnings
    }

    fn max_jobs(&self) -> usize {
        self.0.inner.max_jobs()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::AtomicUsize;

    /// Interesting when the content holds `x`, except that run number `flip` (from 0) says the
    /// opposite; a stopped run is counted as none.
    struct Flipping {
        runs: AtomicUsize,
        flip: usize,
    }

    impl Oracle for Flipping {
        fn judge(&self, candidate: &[u8], cancel: &CancelToken) -> Verdict {
            let (interesting, status) = if cancel.is_cancelled() {
                (false, TestStatus::Cancelled)
            } else {
                let run = self.runs.fetch_add(1, Ordering::SeqCst);
                let interesting = candidate.contains(&b'x') != (run == self.flip);
                (
                    interesting,
                    TestStatus::Exited(if interesting { 0 } else { 1 }),
                )
            };
            Verdict {
                outcome: if interesting {
                    Outcome::Interesting
                } else {
                    Outcome::NotInteresting
                },
                status,
                duration: Duration::ZERO,
                output_tail: None,
                node: None,
                remembered: false,
                timeout_reruns: 0,
            }
        }

        fn describe(&self) -> String {
            "flipping".into()
        }
    }

    fn flipping(flip: usize, policy: Policy) -> Confirming {
        Confirming::new(
            Arc::new(Flipping {
                runs: AtomicUsize::new(0),
                flip,
            }),
            policy,
        )
    }

    #[test]
    fn a_check_that_disagrees_turns_confirmation_on() {
        let oracle = flipping(1, Policy::new(None, false));
        let token = CancelToken::new();
        assert!(oracle.judge(b"x", &token).outcome.is_interesting());
        let flakiness = oracle.flakiness();
        assert!(flakiness.flaky);
        assert_eq!(flakiness.confirm_runs, CONFIRM_WHEN_FLAKY);
        assert_eq!(flakiness.extra_runs, 2);
        assert_eq!(oracle.take_warnings().len(), 1);
    }

    #[test]
    fn a_wrong_interesting_verdict_is_caught_by_the_spot_check() {
        // Run 3 (the first after the three runs of the check) wrongly says interesting.
        let oracle = flipping(3, Policy::new(None, false));
        let token = CancelToken::new();
        assert!(oracle.judge(b"x", &token).outcome.is_interesting());
        assert!(!oracle.flakiness().flaky);
        assert!(!oracle.judge(b"y", &token).outcome.is_interesting());
        assert!(oracle.flakiness().flaky);
    }

    /// Interesting always; each run takes a while and notes how many ran at once at most.
    #[derive(Default)]
    struct Overlapping {
        running: AtomicUsize,
        most: AtomicUsize,
    }

    impl Oracle for Overlapping {
        fn judge(&self, _: &[u8], _: &CancelToken) -> Verdict {
            let now = self.running.fetch_add(1, Ordering::SeqCst) + 1;
            self.most.fetch_max(now, Ordering::SeqCst);
            std::thread::sleep(Duration::from_millis(40));
            self.running.fetch_sub(1, Ordering::SeqCst);
            Verdict {
                outcome: Outcome::Interesting,
                status: TestStatus::Exited(0),
                duration: Duration::from_millis(40),
                output_tail: None,
                node: None,
                remembered: false,
                timeout_reruns: 0,
            }
        }

        fn describe(&self) -> String {
            "overlapping".into()
        }
    }

    #[test]
    fn with_one_job_the_checks_runs_go_one_after_another() {
        let inner = Arc::new(Overlapping::default());
        let oracle = Confirming::new(inner.clone(), Policy::new(None, false).with_jobs(1));
        assert!(
            oracle
                .judge(b"x", &CancelToken::new())
                .outcome
                .is_interesting()
        );
        assert_eq!(oracle.flakiness().extra_runs, 2);
        assert_eq!(inner.most.load(Ordering::SeqCst), 1);
        assert!(oracle.idle_work().is_none());
    }

    #[test]
    fn with_several_jobs_the_checks_later_runs_wait_for_idle_workers() {
        let inner = Arc::new(Overlapping::default());
        let oracle = Confirming::new(inner.clone(), Policy::new(None, false).with_jobs(2));
        assert!(
            oracle
                .judge(b"x", &CancelToken::new())
                .outcome
                .is_interesting()
        );
        assert_eq!(
            oracle.flakiness().extra_runs,
            0,
            "the first run decides for now"
        );
        let works: Vec<IdleWork> = std::iter::from_fn(|| oracle.idle_work()).collect();
        assert_eq!(works.len(), 2);
        std::thread::scope(|scope| {
            for work in works {
                scope.spawn(move || work(&CancelToken::new()));
            }
        });
        assert_eq!(oracle.flakiness().extra_runs, 2);
        assert_eq!(
            inner.most.load(Ordering::SeqCst),
            2,
            "on two idle workers at once"
        );
        assert!(!oracle.flakiness().flaky);
    }

    /// Runs every idle work the oracle has, one after another.
    fn run_idle_work(oracle: &Confirming) {
        while let Some(work) = oracle.idle_work() {
            work(&CancelToken::new());
        }
    }

    #[test]
    fn a_check_run_on_an_idle_worker_that_disagrees_turns_confirmation_on() {
        let oracle = flipping(1, Policy::new(None, false).with_jobs(2));
        let token = CancelToken::new();
        assert!(oracle.judge(b"x", &token).outcome.is_interesting());
        assert!(!oracle.found_flaky());
        run_idle_work(&oracle);
        let flakiness = oracle.flakiness();
        assert!(flakiness.flaky);
        assert_eq!(flakiness.confirm_runs, CONFIRM_WHEN_FLAKY);
        assert!(
            (flakiness.first_disagreement.as_deref())
                .is_some_and(|what| what.starts_with("the input (run again for its check)"))
        );
    }

    #[test]
    fn a_spot_check_holds_its_verdict_back_even_with_several_jobs() {
        // Runs 0-2: the check (two on idle workers); run 3 wrongly says interesting, and its
        // re-run (4) is made before the verdict is given.
        let oracle = flipping(3, Policy::new(None, false).with_jobs(2));
        let token = CancelToken::new();
        assert!(oracle.judge(b"x", &token).outcome.is_interesting());
        run_idle_work(&oracle);
        assert!(!oracle.judge(b"y", &token).outcome.is_interesting());
        assert!(oracle.found_flaky());
        assert_eq!(oracle.flakiness().extra_runs, 3);
    }

    #[test]
    fn a_rerun_no_idle_worker_takes_is_made_in_a_later_judgement() {
        let patience = WAIT_JUDGEMENTS * 2;
        // Run 0: the check; runs 1 to patience - 1: judgements of other files; then the re-run.
        let oracle = flipping(patience as usize, Policy::new(None, false).with_jobs(2));
        let token = CancelToken::new();
        assert!(oracle.judge(b"x", &token).outcome.is_interesting());
        for judged in 1..patience {
            assert!(!oracle.judge(b"", &token).outcome.is_interesting());
            assert_eq!(
                oracle.flakiness().extra_runs,
                0,
                "after {judged} judgements"
            );
        }
        // The next judgement makes the oldest re-run (which flips) before its own.
        assert!(!oracle.judge(b"", &token).outcome.is_interesting());
        let flakiness = oracle.flakiness();
        assert_eq!(flakiness.extra_runs, 1);
        assert!(flakiness.flaky);
    }

    #[test]
    fn a_stopped_rerun_waits_again() {
        let oracle = flipping(99, Policy::new(None, false).with_jobs(2));
        assert!(
            oracle
                .judge(b"x", &CancelToken::new())
                .outcome
                .is_interesting()
        );
        let stopped = CancelToken::new();
        stopped.cancel();
        let work = oracle.idle_work().expect("a re-run of the check");
        work(&stopped);
        assert_eq!(std::iter::from_fn(|| oracle.idle_work()).count(), 2);
    }

    #[test]
    fn assuming_determinism_runs_each_verdict_once() {
        let oracle = flipping(99, Policy::new(None, true));
        let token = CancelToken::new();
        assert!(oracle.judge(b"x", &token).outcome.is_interesting());
        assert!(oracle.judge(b"xx", &token).outcome.is_interesting());
        assert_eq!(oracle.flakiness().extra_runs, 0);
    }

    #[test]
    fn a_file_judged_otherwise_later_is_flaky() {
        let oracle = flipping(4, Policy::new(Some(1), false));
        let token = CancelToken::new();
        assert!(oracle.judge(b"x", &token).outcome.is_interesting());
        assert!(!oracle.flakiness().flaky);
        // Run 3: interesting, spot-checked by run 4, which flips.
        assert!(!oracle.judge(b"xy", &token).outcome.is_interesting());
        let flakiness = oracle.flakiness();
        assert!(flakiness.flaky);
        assert_eq!(
            flakiness.confirm_runs, 1,
            "--confirm 1 given explicitly stays"
        );
    }
}
