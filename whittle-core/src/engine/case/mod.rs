//! A test case of several files (a directory, or files given together) reduced as one: first
//! the files that can go go (ddmin over whole files, each removal a test; in the first round
//! over those that no other file names), then each remaining
//! file is reduced with the pipeline of its own language while the others stay as they are
//! (written beside it in every run), in rounds over the files until a round changes none.
//! This is the order of C-Vise and shrinkray. A file's first session runs only its schedule's
//! first stage (the coarse tree walk, or the line pass): the large removals of every file come
//! before any file's finer stages. While other files still change, a file's session
//! leaves out the stages that sweep every token and skips the edits that failed before (its
//! recall is held); once a round of such sessions changes nothing, a round of full sessions
//! settles the set. In the first round an OCaml interface beside its implementation, then a
//! file that names most of the others (an index of the package), take their turns first;
//! later, the files whose latest session removed the most.
//!
//! Every candidate is a [`bundle`] of the whole set, so that the tester's cache, the
//! confirmation of flaky verdicts and the whole-set memo ([`CaseMemo`]) are keyed on all the
//! files; the oracle lays a bundle out in its run directory ([`CaseLayout`]). Binary files
//! (NUL bytes or invalid UTF-8) are only kept or removed whole, unless [`BinaryFiles::Lines`].
//!
//! [`CaseLayout`]: crate::exec::oracle::CaseLayout

use std::collections::HashMap;
use std::ops::Range;
use std::path::PathBuf;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::{Duration, Instant};

use crossbeam_channel::Sender;
use serde::Serialize;

use crate::algorithms::dd::{self, Domain};
use crate::bundle::{self, CaseDirectory, CaseFile};
use crate::engine::pipeline::{
    Pins, PipelineStages, Plan, Settings, StageContext, Stages, TrialRecord,
};
use crate::exec::cache::{UnitId, sha3_256};
use crate::exec::oracle::{Oracle, Verdict};
use crate::exec::processes::CancelToken;
use crate::observe::events::Event;
use crate::observe::stats::{CourseFrame, CoursePoint, StageStats, Stats, course_moment_after};
use crate::observe::trace::{TraceHeader, TraceWriter};
use crate::outcome::Outcome;
use crate::testing::control::{Control, Stop};
use crate::testing::recall::Recall;
use crate::testing::tester::{Improvement, Limits, Spent, Tester};
use crate::text::atoms::AtomKind;

mod files_phase;
mod memo;
mod mentions;
mod retest;
mod run;
mod shared_names;
mod steering;

pub use crate::observe::events::FILES_STAGE;

pub use steering::{CaseSteering, CaseView, FileRow, FileState, SteeredFile};

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
    /// The test's own text (its command and the scripts it runs): a file it names is never
    /// taken for one no file uses (see [`mentions`]).
    pub test_text: Vec<u8>,
    /// A front end that steers the run (`None`: it runs on its own).
    pub steering: Option<Arc<dyn CaseSteering>>,
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
    /// A symbolic link: never reduced, removed only whole.
    pub link: bool,
    /// The language its pipeline parsed it in.
    pub language: Option<String>,
    /// The pipeline its sessions ran.
    pub pipeline: Option<String>,
    /// How many times it was reduced (once per round it took part in).
    pub sessions: u32,
    /// Tests run while it was being reduced (real runs: memo hits apart).
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
    /// Candidates whose verdict came from the whole-set memo: no test ran, and they are not
    /// among the tests of `stats`.
    pub memo_hits: u64,
    /// Rounds over the files (the last changed nothing, unless the run stopped).
    pub rounds: u32,
    pub stopped: Option<Stop>,
    /// A set failed its re-test (a flaky test): the run went back to the newest earlier set
    /// that passed and on from there (`went_on`), or, at the end, the result is that set when
    /// one passed.
    pub flaky: Option<Flaky>,
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

pub use memo::CaseMemo;
use memo::{FileInCase, FilesDomain, lock};

/// Why a case could not be reduced.
pub use crate::engine::job::StartError;

use crate::engine::job::{Flaky, kept_for_fallback};

pub use run::CaseRun;

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
        let mut run = self.start(oracle, stop)?;
        run.reduce()?;
        Ok(run.finish())
    }

    /// Checks the starting set (it must be interesting): the run, ready for
    /// [`CaseRun::reduce`].
    pub fn start<'a>(
        &'a self,
        oracle: Arc<dyn Oracle>,
        stop: &'a CaseStop,
    ) -> Result<CaseRun<'a>, StartError> {
        let mut run = CaseRun::new(self, oracle, stop);
        let tester = self.checked_tester(&run.oracle, stop, &mut run.total, run.started)?;
        run.files_tester = Some(tester);
        Ok(run)
    }

    /// The tester of the files phase once it found the starting set interesting (and wrote it
    /// when it is the input); its timeout is the whole run's.
    fn checked_tester(
        &self,
        oracle: &Arc<dyn Oracle>,
        stop: &CaseStop,
        total: &mut Stats,
        started: Instant,
    ) -> Result<Tester, StartError> {
        let mut tester = self
            .tester(
                oracle.clone(),
                &self.settings.resolve(),
                Limits::default(),
                stop,
            )
            .map_err(|error| StartError::Stopped(Stop::Failed(error.to_string())))?;
        tester.set_limits(self.session_limits(total, started));
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
        if let Some(steering) = &self.steering {
            steering.checked();
        }
        Ok(tester)
    }

    /// Tests the final set once more, bypassing every cache. When it is not interesting any
    /// more the test is flaky: the earlier sets are re-tested, newest first (then the start),
    /// and the first that passes becomes the result (and is written).
    fn confirm_result(
        &self,
        oracle: &Arc<dyn Oracle>,
        current: &mut Vec<CaseFile>,
        earlier: &EarlierSets,
        total: &mut Stats,
        started: Instant,
        stop: &CaseStop,
    ) -> Result<Option<Flaky>, Stop> {
        let limits = self.session_limits(total, started);
        let mut tester = self
            .tester(oracle.clone(), &self.settings.resolve(), limits, stop)
            .map_err(|error| Stop::Failed(error.to_string()))?;
        tester.set_improvement_sink(None);
        let verdict = tester.retest(&bundle::encode(current.iter()));
        let result = match verdict {
            // A limit reached with the last step: the run is done, the re-test is skipped.
            Err(Stop::Limit(_)) => Ok(None),
            Err(stop) => Err(stop),
            Ok(verdict) if verdict.outcome == Outcome::Interesting => Ok(None),
            Ok(verdict) => {
                let mut flaky = Flaky {
                    unconfirmed_size: bundle::content_size(current),
                    status: verdict.status.to_string(),
                    fell_back: false,
                    went_on: false,
                };
                let start = self.start_files().to_vec();
                let unconfirmed = current.clone();
                let tried = earlier
                    .iter()
                    .rev()
                    .map(|(_, set)| set)
                    .chain(std::iter::once(&start))
                    .filter(|set| **set != unconfirmed);
                for set in tried {
                    match tester.retest(&bundle::encode(set.iter())) {
                        Err(Stop::Limit(_)) => break,
                        Err(stop) => return Err(stop),
                        Ok(verdict) if verdict.outcome == Outcome::Interesting => {
                            *current = set.clone();
                            // The set that passes is the result, larger or not.
                            if let Some(notice) = self
                                .output
                                .as_ref()
                                .and_then(|output| output.replace(current))
                            {
                                tester.emit(notice.into());
                            }
                            flaky.fell_back = true;
                            break;
                        }
                        Ok(_) => {}
                    }
                }
                tester.emit(Event::Flaky {
                    unconfirmed_size: flaky.unconfirmed_size,
                    status: flaky.status.clone(),
                    fell_back: flaky.fell_back,
                });
                Ok(Some(flaky))
            }
        };
        add_stats(total, &tester.stats());
        result
    }

    /// The list of files before the run: every file of the input, waiting.
    fn initial_view(&self) -> CaseView {
        let start = self.start_files();
        CaseView {
            round: 0,
            removing_files: false,
            current: None,
            files: self
                .input
                .iter()
                .map(|file| {
                    let now = start.iter().find(|f| f.path == file.path);
                    FileRow {
                        path: file.path.display().to_string(),
                        language: self.plan_for(file).and_then(|plan| plan.language_name),
                        binary: !file.is_text(),
                        link: file.is_link(),
                        start_bytes: file.content.len(),
                        bytes: now.map_or(0, |f| f.content.len()),
                        state: if now.is_some() {
                            FileState::Waiting
                        } else {
                            FileState::Removed
                        },
                    }
                })
                .collect(),
        }
    }

    /// Tells the front end where the set stands.
    fn show(&self, view: &CaseView) {
        if let Some(steering) = &self.steering {
            steering.case_changed(view);
        }
    }

    /// A stop asked for from outside: Ctrl-C, or the front end's control.
    fn stop_requested(&self, stop: &CaseStop) -> Option<Stop> {
        stop.requested().or_else(|| {
            self.steering
                .as_ref()
                .and_then(|steering| steering.control().stop_requested())
                .filter(|stop| *stop != Stop::Switched)
        })
    }

    /// The plan of one file's sessions (`None`: the file is left as it is).
    fn plan_for(&self, file: &CaseFile) -> Option<Plan> {
        if file.is_link() {
            return None;
        }
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
            // A dialect the grammar misreads is told by the file as the case gave it, so that
            // its pipeline stays the same across its sessions.
            let given = self.input.iter().find(|given| given.path == file.path);
            let content = || given.unwrap_or(file).content.as_slice().into();
            settings.language = crate::tree::Language::detect(&file.path, head, content)
                .grammar()
                .map(|language| language.name().to_owned());
        }
        Some(settings.resolve())
    }

    /// One session on file `index` of `files`, with what the file's earlier sessions
    /// remember of the edits that failed (`recall`, given back with the session's end) and
    /// what the sessions of its language found of the syntax guard (`guard_trial`), its
    /// steps numbered after the run's `steps` so far.
    #[allow(clippy::too_many_arguments)]
    fn reduce_file(
        &self,
        oracle: &Arc<dyn Oracle>,
        memo: &Arc<CaseMemo>,
        files: &[CaseFile],
        index: usize,
        round: u32,
        plan: &Plan,
        pins: &Arc<Mutex<Pins>>,
        recall: Recall,
        guard_trial: Arc<TrialRecord>,
        steps: u64,
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
            self.session_limits(total, started),
            stop,
        )?;
        tester.arm_flaky_recheck();
        self.write_improvements(&mut tester, files, index, pins);
        self.trace_file_session(&mut tester, file, round, index, plan)?;
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
        tester.continue_course(course_frame(files, index, total, started));
        *tester.recall_mut() = recall;
        tester.continue_steps(steps);
        if let Some(steering) = &self.steering {
            steering.tester_started(&mut tester);
            steering.file_started(&file.content, plan, lock(pins).ranges());
        }
        let stages = PipelineStages::sharing_trial(plan.clone(), guard_trial);
        let context = StageContext {
            pins: pins.clone(),
            node_pins: None,
        };
        let stopped = self.run_stages(&stages, &mut tester, &context, plan, pins);
        let best = tester.best().to_vec();
        let mut stats = tester.stats();
        crate::engine::job::fill_sizes(&mut stats, &file.content, &best);
        let memo_hits = in_case.memo_hits.load(Ordering::Relaxed);
        let recall = std::mem::take(tester.recall_mut());
        let steps = tester.steps();
        let course = tester.course_noted().to_vec();
        // The trace ends when its tester goes.
        drop(tester);
        Ok(FileSession {
            best,
            stats,
            stopped,
            memo_hits,
            recall,
            steps,
            course,
        })
    }

    /// Each improvement of a file's session: the whole set written to the output, the file's
    /// pins mapped onto it, the front end told.
    fn write_improvements(
        &self,
        tester: &mut Tester,
        files: &[CaseFile],
        index: usize,
        pins: &Arc<Mutex<Pins>>,
    ) {
        let output = self.output.clone();
        let files = files.to_vec();
        let pins = pins.clone();
        let steering = self.steering.clone();
        tester.set_improvement_sink(Some(Box::new(move |improvement, report| {
            if let Some(output) = &output {
                let mut now = files.clone();
                now[index].content = improvement.content.to_vec();
                if let Some(notice) = output.write(&now) {
                    report(notice.into());
                }
            }
            let mapped = {
                let mut pins = lock(&pins);
                if !pins.is_empty() {
                    *pins = pins.map_through(improvement.previous, improvement.content);
                }
                pins.ranges().to_vec()
            };
            if let Some(steering) = &steering {
                steering.accepted(improvement, &mapped);
            }
        })));
    }

    /// The trace of a file's session, when traces are asked for
    /// (`<round>-<index>-<name>.trace` in the trace directory).
    fn trace_file_session(
        &self,
        tester: &mut Tester,
        file: &CaseFile,
        round: u32,
        index: usize,
        plan: &Plan,
    ) -> anyhow::Result<()> {
        if let Some(dir) = &self.trace_dir {
            let name = file.path.display().to_string().replace('/', "_");
            let path = dir.join(format!("{round:02}-{:03}-{name}.trace", index + 1));
            let header = self.trace_header(file.path.display().to_string(), plan);
            tester.set_trace(Some(TraceWriter::for_run(&path, header, &file.content)?));
        }
        Ok(())
    }

    /// Runs the stages of a file's pipeline; a command of the front end that interrupts a
    /// stage is applied and the pipeline goes on where the front end says.
    fn run_stages(
        &self,
        stages: &PipelineStages,
        tester: &mut Tester,
        context: &StageContext,
        plan: &Plan,
        pins: &Mutex<Pins>,
    ) -> Option<Stop> {
        let mut first = 0;
        loop {
            let mut current = first;
            let mut run = || -> Result<(), Stop> {
                for index in first..stages.len() {
                    current = index;
                    let name = stages.name(index);
                    if let Some(steering) = &self.steering {
                        steering.stage_started(&name, index, stages.len());
                    }
                    tester.emit(Event::StageStarted {
                        stage: name,
                        index,
                        scheduled: None,
                    });
                    stages.run(index, tester, context)?;
                }
                Ok(())
            };
            match run() {
                Ok(()) => return None,
                Err(Stop::Switched) => {
                    let Some(steering) = &self.steering else {
                        return Some(Stop::Switched);
                    };
                    tester.control().clear_switch();
                    let file = SteeredFile {
                        language: plan.language,
                        pins,
                    };
                    match steering.steer(tester, Some(file), current, &stages.name(current)) {
                        Ok(next) if next < stages.len() => first = next,
                        Ok(_) => return None,
                        Err(stop) => return Some(stop),
                    }
                }
                Err(stop) => return Some(stop),
            }
        }
    }

    /// The header of a trace of a session with `plan` on `input_name`.
    fn trace_header(&self, input_name: String, plan: &Plan) -> TraceHeader {
        TraceHeader {
            input_name,
            pipeline: plan.pipeline.to_string(),
            language: plan.language_name.clone(),
            jobs: plan.knobs.jobs,
            parallel: plan.knobs.parallel.to_string(),
            split_factor: plan.knobs.split_factor.to_string(),
            stage_count: PipelineStages::stage_count(plan),
            command: self.command.clone(),
            output: self.output.as_ref().map(|o| o.path().display().to_string()),
            ..Default::default()
        }
    }

    /// The trace of round `round`'s files phase (`<round>-000-files.trace`, `name` `000-files`)
    /// or of a test without the unused files (`<round>-<index>-<file>.unused.trace`, after the
    /// session that made them unused): its test case is the bundle of the whole set (see
    /// [`bundle`]), each step a set of whole files.
    fn files_trace(
        &self,
        round: u32,
        name: &str,
        set: &[u8],
    ) -> anyhow::Result<Option<TraceWriter>> {
        let Some(dir) = &self.trace_dir else {
            return Ok(None);
        };
        let path = dir.join(format!("{round:02}-{name}.trace"));
        let mut header =
            self.trace_header("(the whole set of files)".into(), &self.settings.resolve());
        header.pipeline = FILES_STAGE.into();
        header.language = None;
        header.stage_count = 1;
        Ok(Some(TraceWriter::for_run(&path, header, set)?))
    }

    /// A tester with its own control (or the front end's), registered with `stop`, the settings' cache, window
    /// and limits, and the job's events.
    fn tester(
        &self,
        oracle: Arc<dyn Oracle>,
        plan: &Plan,
        limits: Limits,
        stop: &CaseStop,
    ) -> anyhow::Result<Tester> {
        let control = match &self.steering {
            Some(steering) => steering.control(),
            None => Arc::new(Control::with_max_jobs(plan.knobs, oracle.max_jobs())),
        };
        stop.running(control.clone());
        let mut tester = Tester::new(oracle, plan.cache, control);
        tester.set_cache_memory(plan.cache_memory);
        tester.set_lookahead_enabled(plan.lookahead);
        tester.adopt_jobs()?;
        tester.set_limits(limits);
        tester.set_events(self.events.clone());
        tester.stats_mut().parallel_mode = plan.knobs.parallel.to_string();
        tester.stats_mut().algorithm = plan.pipeline.to_string();
        // The files phase: its candidates are bundles, each accepted set is told in the
        // sizes of its files and written.
        let output = self.output.clone();
        tester.set_improvement_sink(Some(Box::new(move |improvement, report| {
            let Ok(files) = bundle::decode(improvement.content) else {
                return;
            };
            report(Event::FilesKept {
                files: files.len(),
                size: bundle::content_size(&files),
            });
            if let Some(notice) = output.as_ref().and_then(|output| output.write(&files)) {
                report(notice.into());
            }
        })));
        Ok(tester)
    }

    /// The run's limits for a session, with what the run spent before it.
    fn session_limits(&self, total: &Stats, started: Instant) -> Limits {
        Limits {
            spent: Spent {
                tests: total.tests,
                time: started.elapsed(),
            },
            ..self.settings.limits
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
    /// The file's recall, for its next session.
    recall: Recall,
    /// The run's steps so far, this session's included.
    steps: u64,
    /// The points of the case's course the session noted.
    course: Vec<CoursePoint>,
}

/// Where the course of a session of file `index` of `files` sits in the case's: from the
/// case's start (`started`), after the tests of `total`, at the moment after the last the
/// case noted, the other files' sizes added to the file's.
fn course_frame(files: &[CaseFile], index: usize, total: &Stats, started: Instant) -> CourseFrame {
    let (bytes, nonws_chars) = set_sizes(files);
    let (file_bytes, file_nonws) = set_sizes(&files[index..=index]);
    CourseFrame {
        bytes: bytes - file_bytes,
        nonws_chars: nonws_chars - file_nonws,
        sizes_of_best: |text| {
            let nonws = crate::text::atoms::non_whitespace_chars(text) as u64;
            (text.len() as u64, nonws)
        },
        ..set_course_frame(total, started)
    }
}

/// Where the course of a files phase sits in the case's: its best is the whole set (see
/// [`course_frame`]).
pub(super) fn set_course_frame(total: &Stats, started: Instant) -> CourseFrame {
    let noted = total.course.last().map_or(Duration::ZERO, |point| {
        Duration::from_secs_f64(point.seconds)
    });
    CourseFrame {
        started,
        next: course_moment_after(noted),
        tests: total.tests,
        bytes: 0,
        nonws_chars: 0,
        sizes_of_best: |set| set_sizes(&bundle::decode(set).unwrap_or_default()),
    }
}

/// The sets a run accepted, each with its number (the first 0), the newest last.
pub(super) type EarlierSets = Vec<(u64, Vec<CaseFile>)>;

/// Keeps `set` as the newest accepted set, and of the older ones those a flaky run would
/// fall back to ([`kept_for_fallback`]).
fn remember(earlier: &mut EarlierSets, set: &[CaseFile]) {
    let newest = earlier.last().map_or(0, |(number, _)| number + 1);
    earlier.push((newest, set.to_vec()));
    earlier.retain(|(number, _)| kept_for_fallback(newest, *number));
}

/// The bytes and non-whitespace characters of a set of files together.
fn set_sizes(files: &[CaseFile]) -> (u64, u64) {
    files.iter().fold((0, 0), |(bytes, nonws), file| {
        (
            bytes + file.content.len() as u64,
            nonws + crate::text::atoms::non_whitespace_chars(&file.content) as u64,
        )
    })
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
    total.timeout_reruns += part.timeout_reruns;
    if part.timeout_seconds.is_some() {
        total.timeout_seconds = part.timeout_seconds;
    }
    total.crashes += part.crashes;
    total.lost += part.lost;
    total.unresolved += part.unresolved;
    total.guard_skips += part.guard_skips;
    total.guard_passed_over += part.guard_passed_over;
    total.recall_skips += part.recall_skips;
    total.names_skips += part.names_skips;
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

#[cfg(test)]
mod tests;
