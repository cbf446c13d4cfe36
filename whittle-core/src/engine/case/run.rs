//! One run of a case job: the files phase, each file's session, the rounds and the end.

use std::path::{Path, PathBuf};

use super::mentions;
use super::shared_names::SharedNames;
use super::*;
use crate::engine::pipeline::Pipeline;
use crate::observe::events::{Branch, Candidate};

/// One run of a [`CaseJob`]: the set of files as it is now and what the rounds over it have
/// counted so far. A front end that steers it can change a file (an edit, a restart), its
/// pins or its pipeline once the run is done, and have it reduce the set again.
pub struct CaseRun<'a> {
    pub(super) job: &'a CaseJob,
    pub(super) oracle: Arc<dyn Oracle>,
    pub(super) stop: &'a CaseStop,
    pub(super) started: Instant,
    pub(super) memo: Arc<CaseMemo>,
    pub(super) total: Stats,
    pub(super) reports: Vec<FileReport>,
    pub(super) view: CaseView,
    pub(super) current: Vec<CaseFile>,
    /// The sets accepted, newest last: what a flaky final set falls back to.
    pub(super) earlier: EarlierSets,
    pub(super) stopped: Option<Stop>,
    /// The tester that checked the start, until the files phase takes it over.
    pub(super) files_tester: Option<Tester>,
    pub(super) file_removal_tests: u64,
    pub(super) memo_hits: u64,
    /// The pins of each file, kept across its sessions (only a front end sets them).
    pub(super) pins: HashMap<PathBuf, Arc<Mutex<Pins>>>,
    /// The set the files phase last ended on: it has nothing to find there again.
    pub(super) files_settled: Option<[u8; 32]>,
    pub(super) rounds: u32,
    /// The set of files as it was when each file's session last ended at its fixed point:
    /// a file whose set has not changed since has nothing left to find.
    pub(super) settled: HashMap<PathBuf, [u8; 32]>,
    /// The sessions of this round skip what failed before in the file's sessions, in every
    /// round of their schedules (its recall is held): other files change meanwhile, but most
    /// of those edits fail again. From the first round on, until a round changes nothing.
    pub(super) holding: bool,
    /// The set as it was when each file's last held session ended: nothing to find there
    /// again until the round that settles.
    pub(super) held_settled: HashMap<PathBuf, [u8; 32]>,
    /// What each file's sessions remember of the edits that failed, kept across rounds.
    pub(super) recalls: HashMap<PathBuf, Recall>,
    /// What the sessions of each language's files found of their syntax guard's trial (see
    /// [`TrialRecord`]): one test, so one trial per language, not one per session.
    pub(super) guard_trials: HashMap<String, Arc<TrialRecord>>,
    /// Steps taken so far by every tester of the run: each new one numbers its steps on.
    pub(super) steps: u64,
    /// The pipelines the front end chose for files (the others run their language's).
    pub(super) pipelines: HashMap<PathBuf, Pipeline>,
    /// The bytes each file's latest session removed: the files whose latest session removed
    /// the most take their turns first.
    pub(super) last_removed: HashMap<PathBuf, usize>,
    /// The names the files give each other (their first turns' order, their name checks).
    pub(super) shared_names: SharedNames,
    /// The set was re-tested once the test was found flaky.
    pub(super) flaky_rechecked: bool,
    /// What the latest re-test that sent the run back found (its `went_on` set).
    pub(super) flaky: Option<Flaky>,
    /// How many times the run went back to an earlier set.
    pub(super) gone_back: u32,
    /// The set that last passed a re-test: the end need not test it again.
    pub(super) confirmed: Option<[u8; 32]>,
}

impl<'a> CaseRun<'a> {
    pub(super) fn new(job: &'a CaseJob, oracle: Arc<dyn Oracle>, stop: &'a CaseStop) -> Self {
        let started = Instant::now();
        let reports = job
            .input
            .iter()
            .map(|file| FileReport {
                path: file.path.display().to_string(),
                input_bytes: file.content.len() as u64,
                binary: !file.is_text(),
                link: file.is_link(),
                ..FileReport::default()
            })
            .collect();
        CaseRun {
            job,
            oracle,
            stop,
            started,
            memo: Arc::new(CaseMemo::default()),
            total: Stats::default(),
            reports,
            view: job.initial_view(),
            current: job.start_files().to_vec(),
            earlier: Vec::new(),
            stopped: None,
            files_tester: None,
            file_removal_tests: 0,
            memo_hits: 0,
            pins: HashMap::new(),
            files_settled: None,
            rounds: 0,
            settled: HashMap::new(),
            holding: true,
            held_settled: HashMap::new(),
            recalls: HashMap::new(),
            guard_trials: HashMap::new(),
            steps: 0,
            pipelines: HashMap::new(),
            last_removed: HashMap::new(),
            shared_names: SharedNames::default(),
            flaky_rechecked: false,
            flaky: None,
            gone_back: 0,
            confirmed: None,
        }
    }

    /// Rounds over the files until a round changes nothing (or the run stops): the files that
    /// can go go, then each file is reduced with the others fixed. The files' sessions skip
    /// what failed before until a round changes nothing; then a round that skips nothing
    /// settles the set.
    pub fn reduce(&mut self) -> Result<(), StartError> {
        while self.stopped.is_none() {
            self.start_round();
            let mut changed = self.remove_files()?;
            changed |= self.recheck_when_flaky();
            if self.stopped.is_some() {
                break;
            }
            changed |= self.reduce_each_file();
            if !self.next_round(changed) {
                if self.retest_at_the_end() {
                    self.holding = true;
                    continue;
                }
                break;
            }
        }
        Ok(())
    }

    /// After [`CaseRun::finish`], the run goes on: the next [`CaseRun::reduce`] holds each
    /// file's recall again from its first round, with the memo and the recalls kept.
    pub fn go_on(&mut self) {
        self.stopped = None;
        self.holding = true;
    }

    /// Tests run so far by every tester of the run.
    pub fn tests(&self) -> u64 {
        self.total.tests
    }

    /// Steps taken so far by every tester of the run.
    pub fn steps(&self) -> u64 {
        self.steps
    }

    /// The files of the set now, in order.
    pub fn files(&self) -> &[CaseFile] {
        &self.current
    }

    /// The content of the file at `path` now (`None`: not in the set).
    pub fn file(&self, path: &Path) -> Option<&[u8]> {
        self.current
            .iter()
            .find(|file| file.path == path)
            .map(|file| file.content.as_slice())
    }

    /// The plan of the sessions of the file at `path` (`None`: not in the set, or left as it
    /// is: a link, a binary file).
    pub fn plan_of(&self, path: &Path) -> Option<Plan> {
        let file = self.current.iter().find(|file| file.path == path)?;
        let plan = self.job.plan_for(file)?;
        Some(match self.pipelines.get(path) {
            Some(pipeline) => plan.with_pipeline(pipeline.clone()),
            None => plan,
        })
    }

    /// The pins of the file at `path`, kept across its sessions.
    pub fn pins(&mut self, path: &Path) -> Arc<Mutex<Pins>> {
        self.pins.entry(path.to_path_buf()).or_default().clone()
    }

    /// The file at `path` has to be reduced again, though the set did not change (its pins or
    /// its pipeline did).
    pub fn unsettle(&mut self, path: &Path) {
        self.settled.remove(path);
        self.held_settled.remove(path);
        // Its next turn comes first, as a file's not reduced yet.
        self.last_removed.remove(path);
    }

    /// The file at `path` runs `pipeline` from now on; the plan, or why it cannot.
    pub fn switch_pipeline(&mut self, path: &Path, pipeline: Pipeline) -> Result<Plan, String> {
        let file = self
            .current
            .iter()
            .find(|file| file.path == path)
            .ok_or("the file is not in the set any more")?;
        let plan = self
            .job
            .plan_for(file)
            .ok_or("the file is kept as it is (a link, or not text)")?
            .with_pipeline(pipeline.clone());
        plan.check()?;
        self.pipelines.insert(path.to_path_buf(), pipeline);
        self.unsettle(path);
        Ok(plan)
    }

    /// The set becomes `files` (an earlier set the front end goes back to), offered to the
    /// result directory: it keeps the smallest set the run has seen, so a larger one is not
    /// written.
    pub fn set_files(&mut self, files: Vec<CaseFile>) {
        self.current = files;
        remember(&mut self.earlier, &self.current);
        self.rows_follow_the_set();
        if let Some(output) = &self.job.output
            && let Some(notice) = output.write(&self.current)
            && let Some(events) = &self.job.events
        {
            let _ = events.send(notice.into());
        }
        self.job.show(&self.view);
    }

    /// The file rows of the view follow the set once the run is done: each file's size now,
    /// done, or removed.
    pub(super) fn rows_follow_the_set(&mut self) {
        for row in &mut self.view.files {
            let now = self
                .current
                .iter()
                .find(|file| file.path.to_str() == Some(&row.path));
            row.bytes = now.map_or(0, |file| file.content.len());
            row.state = if now.is_some() {
                FileState::Done
            } else {
                FileState::Removed
            };
        }
    }

    /// Tests the set with the file at `path` made `content` (an edit the front end proposes,
    /// `candidate` removing `removed` of the file): kept, written and reported as an accepted
    /// step of the file when interesting. Whether it was kept.
    pub fn propose(
        &mut self,
        path: &Path,
        candidate: Candidate,
        content: Vec<u8>,
        removed: Vec<Range<usize>>,
    ) -> anyhow::Result<bool> {
        let job = self.job;
        let index = self
            .current
            .iter()
            .position(|file| file.path == path)
            .ok_or_else(|| anyhow::anyhow!("the file is not in the set any more"))?;
        let plan = self
            .plan_of(path)
            .ok_or_else(|| anyhow::anyhow!("the file is kept as it is"))?;
        let pins = self.pins(path);
        let in_case = Arc::new(FileInCase {
            inner: self.oracle.clone(),
            files: self.current.clone(),
            index: Some(index),
            memo: self.memo.clone(),
            memo_hits: Default::default(),
        });
        let limits = job.session_limits(&self.total, self.started);
        let mut tester = job.tester(in_case.clone(), &plan, limits, self.stop)?;
        job.write_improvements(&mut tester, &self.current, index, &pins);
        tester.set_best(self.current[index].content.clone());
        tester.continue_steps(self.steps);
        if let Some(steering) = &job.steering {
            steering.tester_started(&mut tester);
        }
        let accepted = matches!(
            tester.judge_manual(candidate, &content, removed),
            Ok((Outcome::Interesting, _))
        );
        if accepted {
            tester.accept(content.clone(), None, Branch::Manual, candidate);
            self.current[index].content = content;
            remember(&mut self.earlier, &self.current);
            self.rows_follow_the_set();
            job.show(&self.view);
        }
        self.steps = tester.steps();
        self.memo_hits += in_case.memo_hits.load(Ordering::Relaxed);
        add_stats(&mut self.total, &tester.stats());
        Ok(accepted)
    }

    /// Whether another round follows one that `changed` the set (or not): after a change the
    /// next round's sessions skip what failed before (as the first round's do); after a round
    /// of such sessions that changed nothing, one that skips nothing settles the set (a fixed
    /// point of every file's pipeline: the sessions' candidates met before on the same set
    /// are the memo's); after that, the run is done.
    pub(super) fn next_round(&mut self, changed: bool) -> bool {
        if changed {
            self.holding = true;
            true
        } else if self.holding {
            self.holding = false;
            true
        } else {
            false
        }
    }

    /// A new round: every file still in the set waits for its turn.
    pub(super) fn start_round(&mut self) {
        self.rounds += 1;
        self.view.round = self.rounds;
        for row in &mut self.view.files {
            if row.state != FileState::Removed {
                row.state = FileState::Waiting;
            }
        }
    }

    /// Each file's session in turn ([`CaseRun::turns`]), the others fixed; a file whose set has
    /// not changed since its last fixed point is skipped. Whether a file changed.
    pub(super) fn reduce_each_file(&mut self) -> bool {
        let mut changed = false;
        let turns: Vec<PathBuf> = (self.turns().into_iter())
            .map(|index| self.current[index].path.clone())
            .collect();
        for path in turns {
            if let Some(stop) = self.job.stop_requested(self.stop) {
                self.stopped = Some(stop);
                break;
            }
            // Gone meanwhile, unused.
            let Some(index) = self.current.iter().position(|file| file.path == path) else {
                continue;
            };
            let before = self.current[index].content.clone();
            match self.reduce_one_file(index) {
                Ok(file_changed) => {
                    changed |= file_changed;
                    if file_changed && self.stopped.is_none() {
                        changed |= self.remove_unused_files(&path, &before);
                    }
                    changed |= self.recheck_when_flaky();
                }
                Err(error) => {
                    self.stopped = Some(Stop::Failed(error.to_string()));
                    break;
                }
            }
            if self.stopped.is_some() {
                break;
            }
        }
        changed
    }

    /// How many files of the set have sessions (the others are links or kept whole).
    fn reducible_files(&self) -> usize {
        self.current
            .iter()
            .filter(|file| self.plan_of(&file.path).is_some())
            .count()
    }

    /// The order of the files' turns in a round: the files not reduced yet first, among them
    /// first the interfaces that constrain an implementation in the set (an OCaml `.mli`), then
    /// those that name at least half of the other files of the set (see [`mentions`]), the
    /// most first, then by how many of their names the others use (see [`SharedNames`]: a
    /// package's file whose declarations the others use can lose them only after their uses
    /// went), the fewest first; then the files whose latest session removed the most; ties in
    /// the set's order. A file that names most of the others is what uses them (an `index.js`
    /// that re-exports a package, a package's `__init__.py`, a source beside its header):
    /// reduced first, it stops using what the test does not need, which then goes whole in a
    /// test instead of being reduced in a session of its own. (Only those: ordering every
    /// file by what it names puts the files used by all others last, where a bug that is
    /// reached from anywhere is found sooner when they go first.) A file whose latest session
    /// removed little is near its fixed point: its turn comes once the files still shrinking
    /// have changed the set, so that its session runs on a set closer to the final one (in
    /// the round that settles, sessions that still change something go before those that try
    /// everything again for nothing).
    ///
    /// [`mentions`]: super::mentions
    pub(super) fn turns(&mut self) -> Vec<usize> {
        let mut order: Vec<usize> = (0..self.current.len()).collect();
        let others = self.current.len().saturating_sub(1);
        let named = mentions::named_counts(&self.current);
        let interfaces = mentions::constraining_interfaces(&self.current);
        let first_turns =
            (self.current.iter()).any(|file| !self.last_removed.contains_key(&file.path));
        let relied_on = if first_turns {
            self.shared_names.relied_on_counts(&self.current)
        } else {
            Vec::new()
        };
        order.sort_by_key(
            |&index| match self.last_removed.get(&self.current[index].path) {
                None => {
                    let named = named[index];
                    let uses_most = named > 0 && 2 * named >= others;
                    let named_first = usize::MAX - if uses_most { named } else { 0 };
                    (1, !interfaces[index], named_first, relied_on[index])
                }
                Some(&removed) => (2, false, usize::MAX - removed, 0),
            },
        );
        order
    }

    /// The session of the file at `index` of the current set (none when it has nothing left to
    /// find). Whether it changed the file.
    pub(super) fn reduce_one_file(&mut self, index: usize) -> anyhow::Result<bool> {
        let job = self.job;
        let path = self.current[index].path.clone();
        let row = self
            .view
            .files
            .iter()
            .position(|row| Some(row.path.as_str()) == path.to_str());
        let whole = sha3_256(&bundle::encode(&self.current));
        let settled = self.settled.get(&path) == Some(&whole);
        // Held back on this very set: nothing to find until the round that settles, which
        // runs it again without the hold.
        let held = self.holding && self.held_settled.get(&path) == Some(&whole);
        let plan = if settled || held {
            None
        } else {
            self.plan_of(&path)
        };
        let Some(plan) = plan else {
            if !held {
                self.settled.insert(path, whole);
            }
            self.show_file(row, FileState::Done, None);
            return Ok(false);
        };
        let plan = plan.with_outside_uses(self.shared_names.used_only_from(&self.current, index));
        self.show_file(row, FileState::Reducing, None);
        let file_pins = self.pins.entry(path.clone()).or_default().clone();
        let recall = self.recall_for_session(&path);
        let (scouting, held_back) = (recall.scouting(), recall.held_back());
        let language = plan.language.map_or("", |language| language.name());
        let guard_trial = self.guard_trials.entry(language.to_owned()).or_default();
        let session = job.reduce_file(
            &self.oracle,
            &self.memo,
            &self.current,
            index,
            self.rounds,
            &plan,
            &file_pins,
            recall,
            guard_trial.clone(),
            self.steps,
            &self.total,
            self.started,
            self.stop,
        )?;
        add_stats(&mut self.total, &session.stats);
        self.total.course.extend_from_slice(&session.course);
        self.memo_hits += session.memo_hits;
        self.report_session(&path, &session, &plan);
        // A held session that left nothing out reached the file's fixed point.
        let left_out = match (session.recall.held_back() > held_back, scouting) {
            (false, _) => LeftOut::Nothing,
            (true, false) => LeftOut::ForTheHold,
            (true, true) => LeftOut::ToScout,
        };
        self.recalls.insert(path.clone(), session.recall);
        self.steps = session.steps;
        self.show_file(row, FileState::Done, Some(session.best.len()));
        let changed = session.best != self.current[index].content;
        self.last_removed.insert(
            path.clone(),
            self.current[index]
                .content
                .len()
                .saturating_sub(session.best.len()),
        );
        if changed {
            self.current[index].content = session.best;
            remember(&mut self.earlier, &self.current);
        }
        self.note_session_end(path, session.stopped, left_out);
        Ok(changed)
    }

    /// The recall of the file at `path` for its next session: held while other files still
    /// change (a file alone, the others kept as they are, has nothing to wait for), and
    /// scouting in the file's first session, so that the large removals of every file come
    /// before any file's finer stages.
    fn recall_for_session(&mut self, path: &std::path::Path) -> Recall {
        let mut recall = self.recalls.remove(path).unwrap_or_default();
        let others_change = self.holding && self.reducible_files() > 1;
        recall.hold(others_change);
        recall.scout(others_change && !self.last_removed.contains_key(path));
        recall
    }

    /// After a session of the file at `path`: unless it stopped, the set now is where the file
    /// reached its fixed point, or where its held session left edits out for the hold (one that
    /// left stages out to scout reached neither). One cut short to re-test the set (the test
    /// was just found flaky: the caller re-tests it) settles nothing.
    fn note_session_end(&mut self, path: PathBuf, stopped: Option<Stop>, left_out: LeftOut) {
        match stopped {
            Some(Stop::Recheck) => {}
            Some(stop) => self.stopped = Some(stop),
            None => {
                let now = sha3_256(&bundle::encode(&self.current));
                match left_out {
                    LeftOut::Nothing => self.settled.insert(path, now),
                    LeftOut::ForTheHold => self.held_settled.insert(path, now),
                    LeftOut::ToScout => None,
                };
            }
        }
    }

    /// Shows the file at `row` of the view in `state`, with its bytes now when they are given;
    /// the file reducing is the view's current one.
    fn show_file(&mut self, row: Option<usize>, state: FileState, bytes: Option<usize>) {
        if let Some(file) = row.map(|row| &mut self.view.files[row]) {
            file.state = state;
            if let Some(bytes) = bytes {
                file.bytes = bytes;
            }
        }
        self.view.current = if state == FileState::Reducing {
            row
        } else {
            None
        };
        self.job.show(&self.view);
    }

    /// The report of the file at `path` counts `session`, run with `plan`.
    fn report_session(&mut self, path: &std::path::Path, session: &FileSession, plan: &Plan) {
        if let Some(report) = self
            .reports
            .iter_mut()
            .find(|r| Some(r.path.as_str()) == path.to_str())
        {
            report.sessions += 1;
            report.tests += session.stats.tests;
            report.memo_hits += session.memo_hits;
            report.accepted += session.stats.accepted;
            report.seconds += session.stats.wall_seconds;
            report.language = plan.language_name.clone();
            report.pipeline = Some(plan.pipeline.to_string());
        }
    }

    /// The end: the result re-tested (unless the run stopped), the reports and the whole run's
    /// statistics filled in.
    /// The run can go on after it ([`CaseRun::go_on`]).
    pub fn finish(&mut self) -> CaseFinished {
        let job = self.job;
        self.view.current = None;
        self.view.removing_files = false;
        job.show(&self.view);
        // The result is tested once more: a flaky test may have let a set through that does
        // not reproduce.
        let mut flaky = self.flaky.clone();
        let confirmed = self.confirmed == Some(sha3_256(&bundle::encode(&self.current)));
        if self.stopped.is_none() && !confirmed {
            self.earlier.pop_if(|(_, set)| *set == self.current);
            match self.confirm_result() {
                Ok(found) => flaky = found.or(flaky),
                Err(stop) => self.stopped = Some(stop),
            }
            for row in &mut self.view.files {
                row.bytes = self
                    .current
                    .iter()
                    .find(|file| file.path.to_str() == Some(&row.path))
                    .map_or(0, |file| file.content.len());
            }
            job.show(&self.view);
        }
        for report in &mut self.reports {
            report.output_bytes = self
                .current
                .iter()
                .find(|file| file.path.to_str() == Some(report.path.as_str()))
                .map(|file| file.content.len() as u64);
        }
        let input_text: Vec<u8> = job.input.iter().flat_map(|f| f.content.clone()).collect();
        let output_text: Vec<u8> = self
            .current
            .iter()
            .flat_map(|f| f.content.clone())
            .collect();
        let mut total = self.total.clone();
        crate::engine::job::fill_sizes(&mut total, &input_text, &output_text);
        total.set_wall_seconds(self.started.elapsed().as_secs_f64());
        total.course.push(CoursePoint {
            seconds: total.wall_seconds,
            tests: total.tests,
            bytes: total.output_bytes,
            nonws_chars: total.output_nonws_chars,
        });
        total.jobs = job.settings.jobs;
        total.algorithm = "ddmin files, then each file's pipeline in rounds".into();
        total.stopped = self.stopped.as_ref().map(ToString::to_string);
        CaseFinished {
            result: self.current.clone(),
            stats: total,
            files: self.reports.clone(),
            file_removal_tests: self.file_removal_tests,
            memo_hits: self.memo_hits,
            rounds: self.rounds,
            stopped: self.stopped.clone(),
            flaky,
        }
    }
}

/// What a file session left out, which tells whether it reached the file's fixed point.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum LeftOut {
    /// Nothing: the file is at its fixed point on the set as it is now.
    Nothing,
    /// Edits or stages the held recall skipped: at a fixed point until the round that settles.
    ForTheHold,
    /// Stages a scouting session did not run: at no fixed point.
    ToScout,
}
