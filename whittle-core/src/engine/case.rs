//! A test case of several files (a directory, or files given together) reduced as one: first
//! the files that can go go (ddmin over whole files, each removal a test), then each remaining
//! file is reduced with the pipeline of its own language while the others stay as they are
//! (written beside it in every run), in rounds over the files until a round changes none.
//! This is the order of C-Vise and shrinkray.
//!
//! Every candidate is a [`bundle`] of the whole set, so that the tester's cache, the
//! confirmation of flaky verdicts and the whole-set memo ([`CaseMemo`]) are keyed on all the
//! files; the oracle lays a bundle out in its run directory ([`CaseLayout`]). Binary files
//! (NUL bytes or invalid UTF-8) are only kept or removed whole, unless [`BinaryFiles::Lines`].
//!
//! [`CaseLayout`]: crate::exec::oracle::CaseLayout

use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::{Arc, Mutex, PoisonError};
use std::time::{Duration, Instant};

use crossbeam_channel::Sender;
use serde::Serialize;

use crate::algorithms::dd::{self, Domain};
use crate::bundle::{self, CaseDirectory, CaseFile};
use crate::engine::pipeline::{PipelineStages, Plan, Settings, StageContext, run_all_stages};
use crate::exec::cache::{UnitId, sha3_256};
use crate::exec::oracle::{Oracle, Verdict};
use crate::exec::processes::CancelToken;
use crate::observe::events::Event;
use crate::observe::stats::Stats;
use crate::observe::trace::{TraceHeader, TraceWriter};
use crate::outcome::Outcome;
use crate::testing::control::{Control, Stop};
use crate::testing::tester::{Limits, Tester};
use crate::text::atoms::AtomKind;

/// The name of the stage that removes whole files (ddmin over the files).
pub const FILES_STAGE: &str = "ddmin files";

/// What becomes of files that are not text (NUL bytes, or not UTF-8).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum BinaryFiles {
    /// Kept whole or removed whole: never cut.
    #[default]
    Keep,
    /// Reduced by ddmin over lines (byte lines: the result is a selection of the file's lines).
    Lines,
}

/// A reduction of several files as one test case.
pub struct CaseJob {
    /// The files as given (never written).
    pub input: Vec<CaseFile>,
    /// Start from these instead (an earlier run's result, with `--resume`).
    pub start: Option<Vec<CaseFile>>,
    /// The settings of every file; `language` set means every file is parsed in it, else each
    /// file's language comes from its name and first line.
    pub settings: Settings,
    pub binary: BinaryFiles,
    /// Where the result goes, as a whole directory.
    pub output: Option<Arc<CaseDirectory>>,
    /// The engine's events (the tester's, and [`Event::FileStarted`] for each file's turn).
    pub events: Option<Sender<Event>>,
    /// A directory to write one replayable trace per file session into
    /// (`<round>-<index>-<name>.trace`).
    pub trace_dir: Option<PathBuf>,
    /// The test command, for the traces' headers.
    pub command: Option<String>,
}

/// What a run of a [`CaseJob`] did to one file of the input.
#[derive(Clone, Debug, Default, Serialize)]
pub struct FileReport {
    /// Its path in the case.
    pub path: String,
    pub input_bytes: u64,
    /// Its size in the result (`None`: the file was removed).
    pub output_bytes: Option<u64>,
    /// Not text: kept or removed whole (or reduced as lines when asked).
    pub binary: bool,
    /// The language its pipeline parsed it in.
    pub language: Option<String>,
    /// The pipeline its sessions ran.
    pub pipeline: Option<String>,
    /// How many times it was reduced (once per round it took part in).
    pub sessions: u32,
    /// Tests run while it was being reduced.
    pub tests: u64,
    /// Tests whose verdict came from the whole-set memo (no test ran).
    pub memo_hits: u64,
    pub accepted: u64,
    pub seconds: f64,
}

/// How a [`CaseJob`] ended.
pub struct CaseFinished {
    pub result: Vec<CaseFile>,
    /// The whole run: sizes are the sum of the files' contents.
    pub stats: Stats,
    /// One per input file, in the input's order.
    pub files: Vec<FileReport>,
    /// Tests of the files phase (ddmin over whole files).
    pub file_removal_tests: u64,
    /// Rounds over the files (the last changed nothing, unless the run stopped).
    pub rounds: u32,
    pub stopped: Option<Stop>,
}

/// Stops a [`CaseJob`] from another thread (Ctrl-C): the session running now stops at its next
/// checkpoint and no other starts.
#[derive(Clone, Default)]
pub struct CaseStop {
    state: Arc<Mutex<StopState>>,
}

/// The stop asked for (the first wins) and the control of the session running now.
type StopState = (Option<Stop>, Option<Arc<Control>>);

impl CaseStop {
    pub fn request(&self, stop: Stop) {
        let mut state = self.state.lock().unwrap_or_else(PoisonError::into_inner);
        if let Some(control) = &state.1 {
            control.request_stop(stop.clone());
        }
        state.0.get_or_insert(stop);
    }

    fn requested(&self) -> Option<Stop> {
        self.state
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .0
            .clone()
    }

    /// The control of the session that runs now (stopped at once when a stop came first).
    fn running(&self, control: Arc<Control>) {
        let mut state = self.state.lock().unwrap_or_else(PoisonError::into_inner);
        if let Some(stop) = &state.0 {
            control.request_stop(stop.clone());
        }
        state.1 = Some(control);
    }
}

/// Verdicts on whole sets of files, by the hash of their bundle: a file's candidate met again
/// with the other files as they were then is not tested again, across sessions and rounds.
#[derive(Default)]
pub struct CaseMemo {
    verdicts: Mutex<HashMap<[u8; 32], Verdict>>,
}

impl CaseMemo {
    fn get(&self, bundle: &[u8]) -> Option<Verdict> {
        let verdicts = self.verdicts.lock().unwrap_or_else(PoisonError::into_inner);
        verdicts.get(&sha3_256(bundle)).cloned()
    }

    fn put(&self, bundle: &[u8], verdict: &Verdict) {
        if matches!(verdict.outcome, Outcome::NotInteresting) {
            let mut verdicts = self.verdicts.lock().unwrap_or_else(PoisonError::into_inner);
            verdicts.insert(
                sha3_256(bundle),
                Verdict {
                    output_tail: None,
                    duration: Duration::ZERO,
                    ..verdict.clone()
                },
            );
        }
    }
}

/// The oracle a file's session judges its candidates with: the candidate in place of file
/// `index`, the other files as they are, judged as one bundle.
struct FileInCase {
    inner: Arc<dyn Oracle>,
    files: Vec<CaseFile>,
    /// `None`: the candidates are bundles of the whole set already.
    index: Option<usize>,
    memo: Arc<CaseMemo>,
    memo_hits: std::sync::atomic::AtomicU64,
}

impl FileInCase {
    fn bundle_with(&self, candidate: &[u8]) -> Vec<u8> {
        let Some(index) = self.index else {
            return candidate.to_vec();
        };
        let mut out = bundle::empty();
        for (i, file) in self.files.iter().enumerate() {
            let content = if i == index { candidate } else { &file.content };
            bundle::push_file(&mut out, &file.path, file.mode, content);
        }
        out
    }
}

impl Oracle for FileInCase {
    fn judge(&self, candidate: &[u8], cancel: &CancelToken) -> Verdict {
        let whole = self.bundle_with(candidate);
        if let Some(verdict) = self.memo.get(&whole) {
            self.memo_hits
                .fetch_add(1, std::sync::atomic::Ordering::Relaxed);
            return verdict;
        }
        let verdict = self.inner.judge(&whole, cancel);
        self.memo.put(&whole, &verdict);
        verdict
    }

    fn describe(&self) -> String {
        self.inner.describe()
    }

    fn timeout(&self) -> Option<Duration> {
        self.inner.timeout()
    }

    fn fit_timeout(&self, check: Duration) -> Option<crate::exec::oracle::TimeoutFit> {
        self.inner.fit_timeout(check)
    }

    fn take_warnings(&self) -> Vec<String> {
        self.inner.take_warnings()
    }

    fn max_jobs(&self) -> usize {
        self.inner.max_jobs()
    }
}

/// The units of the files phase: whole files, rendered as the bundle of those kept.
struct FilesDomain<'a> {
    files: &'a [CaseFile],
}

impl Domain for FilesDomain<'_> {
    fn render(&self, parts: &[&[UnitId]], out: &mut Vec<u8>) {
        out.extend_from_slice(&bundle::empty());
        for &unit in parts.iter().flat_map(|part| part.iter()) {
            let file = &self.files[unit as usize];
            bundle::push_file(out, &file.path, file.mode, &file.content);
        }
    }
}

/// Why a case could not be reduced.
pub use crate::engine::job::StartError;

impl CaseJob {
    /// What the reduction starts from: the input, or what it resumes.
    pub fn start_files(&self) -> &[CaseFile] {
        self.start.as_deref().unwrap_or(&self.input)
    }

    /// Checks the starting set (it must be interesting), removes the files that can go, then
    /// reduces each file in rounds until a round changes nothing. `oracle` judges bundles.
    pub fn run(
        &self,
        oracle: Arc<dyn Oracle>,
        stop: &CaseStop,
    ) -> Result<CaseFinished, StartError> {
        let started = Instant::now();
        let memo = Arc::new(CaseMemo::default());
        let mut total = Stats::default();
        let mut reports: Vec<FileReport> = self
            .input
            .iter()
            .map(|file| FileReport {
                path: file.path.display().to_string(),
                input_bytes: file.content.len() as u64,
                binary: !file.is_text(),
                ..FileReport::default()
            })
            .collect();

        // The check of the whole set, then ddmin over whole files.
        let mut tester = self
            .tester(
                oracle.clone(),
                &self.settings.resolve(),
                Limits::default(),
                stop,
            )
            .map_err(|error| StartError::Stopped(Stop::Failed(error.to_string())))?;
        tester.set_limits(self.remaining_limits(&total, started));
        let start = bundle::encode(self.start_files());
        crate::engine::job::check_start(&mut tester, &start)?;
        let checked = tester.stats();
        total.timeout_derived = checked.timeout_derived;
        total.timeout_rule = checked.timeout_rule;
        total.timeout_seconds = checked.timeout_seconds;
        tester.set_best(start.clone());
        if self.start.is_none() {
            self.write_output(self.start_files(), &tester);
        }
        let mut current = self.start_files().to_vec();
        let mut stopped = None;
        let mut files_tester = Some(tester);
        let mut file_removal_tests = 0;
        // The set the files phase last ended on: it has nothing to find there again.
        let mut files_settled = None;
        // Rounds: the files that can go go, then each file is reduced with the others fixed;
        // again until a round changes nothing.
        let mut rounds = 0;
        // The set of files as it was when each file's session last ended at its fixed point:
        // a file whose set has not changed since has nothing left to find.
        let mut settled: HashMap<PathBuf, [u8; 32]> = HashMap::new();
        while stopped.is_none() {
            rounds += 1;
            let mut changed = false;
            let whole = sha3_256(&bundle::encode(&current));
            if current.len() > 1 && files_settled != Some(whole) {
                let mut tester = match files_tester.take() {
                    Some(tester) => tester,
                    None => {
                        let memo: Arc<dyn Oracle> = Arc::new(FileInCase {
                            inner: oracle.clone(),
                            files: Vec::new(),
                            index: None,
                            memo: memo.clone(),
                            memo_hits: Default::default(),
                        });
                        let limits = self.remaining_limits(&total, started);
                        let mut tester = self
                            .tester(memo, &self.settings.resolve(), limits, stop)
                            .map_err(|error| {
                                StartError::Stopped(Stop::Failed(error.to_string()))
                            })?;
                        tester.set_best(bundle::encode(&current));
                        tester
                    }
                };
                tester.emit(Event::StageStarted {
                    stage: FILES_STAGE.into(),
                    index: 0,
                    scheduled: None,
                });
                let domain = FilesDomain { files: &current };
                let units: Vec<UnitId> = (0..current.len() as UnitId).collect();
                tester.begin_universe();
                if let Err(stop) = dd::ddmin(&domain, units, &mut tester, &self.settings.dd) {
                    stopped = Some(stop);
                }
                let before = current.len();
                current = bundle::decode(tester.best()).map_err(|error| {
                    StartError::Stopped(Stop::Failed(format!("a bundle of the case: {error}")))
                })?;
                changed |= current.len() < before;
                let file_stats = tester.stats();
                file_removal_tests += file_stats.tests;
                add_stats(&mut total, &file_stats);
                files_settled = Some(sha3_256(&bundle::encode(&current)));
            } else if let Some(tester) = files_tester.take() {
                add_stats(&mut total, &tester.stats());
            }
            if stopped.is_some() {
                break;
            }
            for index in 0..current.len() {
                if let Some(stop) = stop.requested() {
                    stopped = Some(stop);
                    break;
                }
                let whole = sha3_256(&bundle::encode(&current));
                if settled.get(&current[index].path) == Some(&whole) {
                    continue;
                }
                let Some(plan) = self.plan_for(&current[index]) else {
                    settled.insert(current[index].path.clone(), whole);
                    continue;
                };
                let report = reports
                    .iter_mut()
                    .position(|r| Some(r.path.as_str()) == current[index].path.to_str())
                    .map(|at| &mut reports[at]);
                let session = self.reduce_file(
                    &oracle, &memo, &current, index, rounds, &plan, &total, started, stop,
                );
                let session = match session {
                    Ok(session) => session,
                    Err(error) => {
                        stopped = Some(Stop::Failed(error.to_string()));
                        break;
                    }
                };
                add_stats(&mut total, &session.stats);
                if let Some(report) = report {
                    report.sessions += 1;
                    report.tests += session.stats.tests;
                    report.memo_hits += session.memo_hits;
                    report.accepted += session.stats.accepted;
                    report.seconds += session.stats.wall_seconds;
                    report.language = plan.language_name.clone();
                    report.pipeline = Some(plan.pipeline.to_string());
                }
                if session.best != current[index].content {
                    current[index].content = session.best;
                    changed = true;
                }
                if let Some(stop) = session.stopped {
                    stopped = Some(stop);
                    break;
                }
                settled.insert(
                    current[index].path.clone(),
                    sha3_256(&bundle::encode(&current)),
                );
            }
            if !changed {
                break;
            }
        }

        for report in &mut reports {
            report.output_bytes = current
                .iter()
                .find(|file| file.path.to_str() == Some(report.path.as_str()))
                .map(|file| file.content.len() as u64);
        }
        let input_text: Vec<u8> = self.input.iter().flat_map(|f| f.content.clone()).collect();
        let output_text: Vec<u8> = current.iter().flat_map(|f| f.content.clone()).collect();
        crate::engine::job::fill_sizes(&mut total, &input_text, &output_text);
        total.wall_seconds = started.elapsed().as_secs_f64();
        total.jobs = self.settings.jobs;
        total.algorithm = "ddmin files, then each file's pipeline in rounds".into();
        total.stopped = stopped.as_ref().map(ToString::to_string);
        Ok(CaseFinished {
            result: current,
            stats: total,
            files: reports,
            file_removal_tests,
            rounds,
            stopped,
        })
    }

    /// The plan of one file's sessions (`None`: the file is left as it is).
    fn plan_for(&self, file: &CaseFile) -> Option<Plan> {
        let mut settings = self.settings.clone();
        if !file.is_text() {
            return match self.binary {
                BinaryFiles::Keep => None,
                BinaryFiles::Lines => {
                    settings.language = None;
                    settings.algorithm = Some(crate::engine::pipeline::Pipeline::ddmin());
                    settings.atoms = vec![AtomKind::Line];
                    Some(settings.resolve())
                }
            };
        }
        if settings.language.is_none() {
            let head = &file.content[..file.content.len().min(256)];
            settings.language = crate::tree::Language::for_file(&file.path, head)
                .ok()
                .map(|language| language.name().to_owned());
        }
        Some(settings.resolve())
    }

    /// One session on file `index` of `files`.
    #[allow(clippy::too_many_arguments)]
    fn reduce_file(
        &self,
        oracle: &Arc<dyn Oracle>,
        memo: &Arc<CaseMemo>,
        files: &[CaseFile],
        index: usize,
        round: u32,
        plan: &Plan,
        total: &Stats,
        started: Instant,
        stop: &CaseStop,
    ) -> anyhow::Result<FileSession> {
        let file = &files[index];
        let in_case = Arc::new(FileInCase {
            inner: oracle.clone(),
            files: files.to_vec(),
            index: Some(index),
            memo: memo.clone(),
            memo_hits: Default::default(),
        });
        let mut tester = self.tester(
            in_case.clone(),
            plan,
            self.remaining_limits(total, started),
            stop,
        )?;
        if let Some(output) = &self.output {
            let output = output.clone();
            let files = files.to_vec();
            tester.set_improvement_sink(Some(Box::new(move |improvement, report| {
                let mut now = files.clone();
                now[index].content = improvement.content.to_vec();
                if let Some(notice) = output.write(&now) {
                    report(notice.into());
                }
            })));
        }
        if let Some(dir) = &self.trace_dir {
            let name = file.path.display().to_string().replace('/', "_");
            let path = dir.join(format!("{round:02}-{:03}-{name}.trace", index + 1));
            let header = TraceHeader {
                input_name: file.path.display().to_string(),
                pipeline: plan.pipeline.to_string(),
                language: plan.language_name.clone(),
                jobs: plan.knobs.jobs,
                parallel: plan.knobs.parallel.to_string(),
                split_factor: plan.knobs.split_factor.to_string(),
                stage_count: crate::engine::pipeline::Stages::len(&PipelineStages::new(
                    plan.clone(),
                )),
                command: self.command.clone(),
                output: self.output.as_ref().map(|o| o.path().display().to_string()),
                ..Default::default()
            };
            tester.set_trace(Some(TraceWriter::for_run(&path, header, &file.content)?));
        }
        let others = bundle::content_size(files) - file.content.len();
        tester.emit(Event::FileStarted {
            path: file.path.display().to_string(),
            index,
            of: files.len(),
            round,
            size: file.content.len(),
            others,
        });
        tester.set_best(file.content.clone());
        let stages = PipelineStages::new(plan.clone());
        let stopped = run_all_stages(&stages, &mut tester, &StageContext::default()).err();
        let best = tester.best().to_vec();
        let mut stats = tester.stats();
        crate::engine::job::fill_sizes(&mut stats, &file.content, &best);
        // The trace ends when its tester goes.
        drop(tester);
        Ok(FileSession {
            best,
            stats,
            stopped,
            memo_hits: in_case.memo_hits.load(std::sync::atomic::Ordering::Relaxed),
        })
    }

    /// A tester with its own control (registered with `stop`), the settings' cache, window
    /// and limits, and the job's events.
    fn tester(
        &self,
        oracle: Arc<dyn Oracle>,
        plan: &Plan,
        limits: Limits,
        stop: &CaseStop,
    ) -> anyhow::Result<Tester> {
        let control = Arc::new(Control::with_max_jobs(plan.knobs, oracle.max_jobs()));
        stop.running(control.clone());
        let mut tester = Tester::new(oracle, plan.cache, control);
        tester.set_cache_memory(plan.cache_memory);
        tester.set_lookahead_enabled(plan.lookahead);
        tester.adopt_jobs()?;
        tester.set_limits(limits);
        tester.set_events(self.events.clone());
        tester.stats_mut().parallel_mode = plan.knobs.parallel.to_string();
        tester.stats_mut().algorithm = plan.pipeline.to_string();
        if let Some(output) = self.output.clone() {
            // The files phase: its candidates are bundles.
            tester.set_improvement_sink(Some(Box::new(move |improvement, report| {
                if let Ok(files) = bundle::decode(improvement.content)
                    && let Some(notice) = output.write(&files)
                {
                    report(notice.into());
                }
            })));
        }
        Ok(tester)
    }

    /// The limits left for a session after what the run has used.
    fn remaining_limits(&self, total: &Stats, started: Instant) -> Limits {
        let limits = self.settings.limits;
        Limits {
            tests: limits.tests.map(|n| n.saturating_sub(total.tests)),
            time: limits.time.map(|t| t.saturating_sub(started.elapsed())),
        }
    }

    fn write_output(&self, files: &[CaseFile], tester: &Tester) {
        if let Some(notice) = self.output.as_ref().and_then(|output| output.write(files)) {
            tester.emit(notice.into());
        }
    }
}

/// What one session on a file ended with.
struct FileSession {
    best: Vec<u8>,
    stats: Stats,
    stopped: Option<Stop>,
    memo_hits: u64,
}

/// Adds a session's counts to the run's.
fn add_stats(total: &mut Stats, part: &Stats) {
    total.tests += part.tests;
    total.checks += part.checks;
    total.oracle_runs += part.oracle_runs;
    total.interesting_tests += part.interesting_tests;
    total.cache_hits += part.cache_hits;
    total.iterations += part.iterations;
    total.timeouts += part.timeouts;
    total.crashes += part.crashes;
    total.lost += part.lost;
    total.unresolved += part.unresolved;
    total.guard_skips += part.guard_skips;
    total.cancelled += part.cancelled;
    total.wasted += part.wasted;
    total.ahead += part.ahead;
    total.test_seconds += part.test_seconds;
    total.accepted += part.accepted;
    total.parallel_mode.clone_from(&part.parallel_mode);
    total.split_factor.clone_from(&part.split_factor);
    for stage in &part.stages {
        total.record_stage(&stage.name, stage.clone());
    }
}
