//! The files phase of a case: ddmin over whole files (complements only, the largest files
//! first), each removal a test of the whole set, recorded as a stage of its own; in the first
//! round only over the files that no other file names, or large ones (a small file others name
//! is likely needed until they change), after one test without them all; between the files'
//! sessions, the same over the files a session left unused.

use std::collections::HashSet;
use std::path::{Path, PathBuf};

use super::mentions;
use super::run::CaseRun;
use super::*;
use crate::observe::events::{Branch, Candidate, CandidateKind};

impl CaseRun<'_> {
    /// Which files of the set are pinned: they stay in every set (a symbolic link goes whole
    /// like any file).
    fn pinned(&self) -> Vec<bool> {
        self.current
            .iter()
            .map(|file| {
                self.pins
                    .get(&file.path)
                    .is_some_and(|pins| !lock(pins).is_empty())
            })
            .collect()
    }

    /// The rows of the files no longer in the set show them removed.
    fn rows_of_removed_files(&mut self) {
        for row in &mut self.view.files {
            if !self
                .current
                .iter()
                .any(|file| file.path.to_str() == Some(&row.path))
            {
                row.state = FileState::Removed;
                row.bytes = 0;
            }
        }
        self.job.show(&self.view);
    }

    /// The files phase: ddmin over whole files, unless one file is left or the set is the one
    /// the phase last ended on. In the first round, only over the files that no other file
    /// (nor the test) names or that are large ([`deferred`]), again while that removes some: a
    /// file that others name goes once they no longer do (see
    /// [`CaseRun::remove_unused_files`]), or in the next round's phase.
    /// Whether it removed a file.
    pub(super) fn remove_files(&mut self) -> Result<bool, StartError> {
        let whole = sha3_256(&bundle::encode(&self.current));
        if self.current.len() <= 1 || self.files_settled == Some(whole) {
            self.drop_files_tester();
            return Ok(false);
        }
        let mut left_alone = deferred(&self.current, &self.job.test_text);
        if self.rounds > 1 || !left_alone.contains(&true) {
            let tester = self.take_files_tester()?;
            let phase = self.files_phase(tester, "000-files", None)?;
            if phase.finished {
                self.files_settled = Some(sha3_256(&bundle::encode(&self.current)));
            }
            return Ok(phase.changed);
        }
        let mut changed = false;
        let mut tried: HashSet<PathBuf> = HashSet::new();
        loop {
            let pinned = self.pinned();
            let considered: Vec<usize> = (0..self.current.len())
                .filter(|&at| !left_alone[at] && !pinned[at])
                .collect();
            let fresh = considered
                .iter()
                .any(|&at| !tried.contains(&self.current[at].path));
            if self.current.len() <= 1 || !fresh {
                self.drop_files_tester();
                return Ok(changed);
            }
            tried.extend(considered.iter().map(|&at| self.current[at].path.clone()));
            let tester = self.take_files_tester()?;
            // One test without them all first, then ddmin over them (which never tries
            // removing the last one alone).
            let phase = self.files_phase(tester, "000-files", Some(&considered))?;
            changed |= phase.changed;
            if !phase.changed || !phase.finished || self.stopped.is_some() {
                return Ok(changed);
            }
            left_alone = deferred(&self.current, &self.job.test_text);
        }
    }

    /// The tester kept for the first files phase (it checked the input), else a fresh one.
    fn take_files_tester(&mut self) -> Result<(Tester, Option<Arc<FileInCase>>), StartError> {
        match self.files_tester.take() {
            Some(tester) => Ok((tester, None)),
            None => self.files_phase_tester(),
        }
    }

    /// The statistics of the tester kept for the files phase, when it does not run.
    fn drop_files_tester(&mut self) {
        if let Some(tester) = self.files_tester.take() {
            add_stats(&mut self.total, &tester.stats());
        }
    }

    /// The files phase with `tester` (and the memo it judges through, to count its hits),
    /// traced as `trace_name`, over the files at `unused` of the set (one test without them all
    /// first) or over every file. Whether files went, and whether the
    /// phase ran to its end.
    fn files_phase(
        &mut self,
        (mut tester, memo): (Tester, Option<Arc<FileInCase>>),
        trace_name: &str,
        unused: Option<&[usize]>,
    ) -> Result<PhaseEnd, StartError> {
        let job = self.job;
        self.view.removing_files = true;
        self.view.current = None;
        job.show(&self.view);
        match job.files_trace(self.rounds, trace_name, tester.best()) {
            Ok(trace) => tester.set_trace(trace),
            Err(error) => {
                self.stopped = Some(Stop::Failed(format!("--trace: {error:#}")));
                return Ok(PhaseEnd::default());
            }
        }
        if let Some(steering) = &job.steering {
            steering.tester_started(&mut tester);
        }
        tester.arm_flaky_recheck();
        tester.continue_course(super::set_course_frame(&self.total, self.started));
        let pinned = self.pinned();
        let (left, stopped) = job
            .remove_files(&mut tester, &self.current, &pinned, unused)
            .map_err(|error| {
                StartError::Stopped(Stop::Failed(format!("a bundle of the case: {error}")))
            })?;
        // Cut short to re-test the set (the test was just found flaky): the caller does.
        let finished = stopped != Some(Stop::Recheck);
        self.stopped = stopped.filter(|_| finished);
        let changed = left.len() < self.current.len();
        if changed {
            self.current = left;
            remember(&mut self.earlier, &self.current);
        }
        let file_stats = tester.stats();
        self.total.course.extend_from_slice(tester.course_noted());
        self.steps = tester.steps();
        tester.end_trace();
        self.memo_hits += memo.map_or(0, |memo| memo.memo_hits.load(Ordering::Relaxed));
        self.file_removal_tests += file_stats.tests;
        add_stats(&mut self.total, &file_stats);
        self.view.removing_files = false;
        self.rows_of_removed_files();
        Ok(PhaseEnd { changed, finished })
    }

    /// After the session of the file at `path` changed it from `before`: the files it named
    /// and names no more, that no other file names now (and what only they name), go in one
    /// test, else those that can by ddmin over them (an entry point that stopped using most of
    /// a package leaves it unused: a test removes it, not a session of each file; see
    /// [`mentions::left_unused`]). Whether files went.
    pub(super) fn remove_unused_files(&mut self, path: &Path, before: &[u8]) -> bool {
        let Some(index) = self.current.iter().position(|file| file.path == path) else {
            return false;
        };
        let unused = mentions::left_unused(
            &self.current,
            index,
            before,
            &self.pinned(),
            &self.job.test_text,
        );
        if unused.is_empty() {
            return false;
        }
        let name = format!(
            "{:03}-{}.unused",
            index + 1,
            path.display().to_string().replace('/', "_")
        );
        let removed = self
            .files_phase_tester()
            .and_then(|tester| self.files_phase(tester, &name, Some(&unused)))
            .map(|phase| phase.changed);
        removed.unwrap_or_else(|error| {
            self.stopped = Some(match error {
                StartError::Stopped(stop) => stop,
                other => Stop::Failed(other.to_string()),
            });
            false
        })
    }

    /// A fresh tester of the files phase over the current set, judging through the whole-set
    /// memo (returned to count its hits).
    pub(super) fn files_phase_tester(
        &self,
    ) -> Result<(Tester, Option<Arc<FileInCase>>), StartError> {
        let in_case = Arc::new(FileInCase {
            inner: self.oracle.clone(),
            files: Vec::new(),
            index: None,
            memo: self.memo.clone(),
            memo_hits: Default::default(),
        });
        let memo: Arc<dyn Oracle> = in_case.clone();
        let limits = self.job.session_limits(&self.total, self.started);
        let mut tester = self
            .job
            .tester(memo, &self.job.settings.resolve(), limits, self.stop)
            .map_err(|error| StartError::Stopped(Stop::Failed(error.to_string())))?;
        tester.set_best(bundle::encode(&self.current));
        tester.continue_steps(self.steps);
        Ok((tester, Some(in_case)))
    }
}

/// How a files phase ended: whether files went, and whether it ran to its end (a phase cut
/// short to re-test the set has not settled it).
#[derive(Default)]
struct PhaseEnd {
    changed: bool,
    finished: bool,
}

impl CaseJob {
    /// The files phase: ddmin over the files of `files` that are not pinned (those stay),
    /// recorded as a stage of its own in the statistics. With `unused` (files that a session
    /// left unused), only those: first one test without them all, and when it fails, ddmin
    /// over them alone. Returns the files left (the best, decoded once) and why the phase
    /// stopped early, if it did; an error is a best that is not a bundle.
    pub(super) fn remove_files(
        &self,
        tester: &mut Tester,
        files: &[CaseFile],
        pinned: &[bool],
        unused: Option<&[usize]>,
    ) -> Result<(Vec<CaseFile>, Option<Stop>), String> {
        tester.emit(Event::StageStarted {
            stage: FILES_STAGE.into(),
            index: 0,
            scheduled: None,
        });
        let started = tester.running_time();
        let tests = tester.stats().tests;
        let (bytes, nonws) = set_sizes(files);
        let stopped = match unused {
            None => self.files_ddmin(tester, files, pinned),
            Some(unused) => match without_all(tester, files, unused) {
                Ok(true) => None,
                Ok(false) => {
                    let stay: Vec<bool> = (0..files.len())
                        .map(|at| pinned[at] || !unused.contains(&at))
                        .collect();
                    self.files_ddmin(tester, files, &stay)
                }
                Err(stop) => Some(stop),
            },
        };
        let left = bundle::decode(tester.best());
        let (bytes_after, nonws_after) = set_sizes(left.as_deref().unwrap_or_default());
        let run = StageStats {
            tests: tester.stats().tests - tests,
            bytes_removed: bytes.saturating_sub(bytes_after),
            nonws_removed: nonws.saturating_sub(nonws_after),
            seconds: tester.running_time().saturating_sub(started).as_secs_f64(),
            ..StageStats::default()
        };
        tester.stats_mut().record_stage(FILES_STAGE, run);
        left.map(|left| (left, stopped))
    }

    /// ddmin over the files: a command of the front end that interrupts it is applied and
    /// ddmin starts again from the best.
    fn files_ddmin(
        &self,
        tester: &mut Tester,
        files: &[CaseFile],
        pinned: &[bool],
    ) -> Option<Stop> {
        loop {
            let now = match bundle::decode(tester.best()) {
                Ok(now) => now,
                Err(error) => return Some(Stop::Failed(format!("a bundle of the case: {error}"))),
            };
            let kept: Vec<bool> = now
                .iter()
                .map(|file| {
                    files
                        .iter()
                        .position(|f| f.path == file.path)
                        .is_some_and(|at| pinned[at])
                })
                .collect();
            let domain = FilesDomain {
                files: &now,
                kept: &kept,
            };
            tester.begin_universe();
            // Complements only, the last first (ddmin's options in a schedule): a bug in
            // several files needs several, so a subset of them alone is rarely interesting.
            let dd = self.settings.scheduled_dd;
            match dd::ddmin(&domain, files_order(&now, &kept), tester, &dd) {
                Ok(_) => return None,
                Err(Stop::Switched) => {
                    let Some(steering) = &self.steering else {
                        return Some(Stop::Switched);
                    };
                    tester.control().clear_switch();
                    if let Err(stop) = steering.steer(tester, None, 0, FILES_STAGE) {
                        return Some(stop);
                    }
                }
                Err(stop) => return Some(stop),
            }
        }
    }
}

/// Which files of `files` the first round's files phase leaves alone: those another file or
/// the test (`test_text`) names, unless one holds a tenth of the set's bytes or more (a test
/// is worth trying on such a file even so: a module the test finds elsewhere once it is gone).
fn deferred(files: &[CaseFile], test_text: &[u8]) -> Vec<bool> {
    /// A named file this share of the set's bytes or larger is tried all the same.
    const LARGE_SHARE: usize = 10;
    let total: usize = files.iter().map(|file| file.content.len()).sum();
    mentions::named_by_others(files, test_text)
        .into_iter()
        .zip(files)
        .map(|(named, file)| named && file.content.len() * LARGE_SHARE < total)
        .collect()
}

/// The files of `files` that are not `kept`, as ddmin's units: the largest first, so that
/// complements taken from the end try the smallest files first: after a round the files that
/// their sessions emptied or nearly emptied are the likely ones to go, and they go together
/// (ties in the set's order).
fn files_order(files: &[CaseFile], kept: &[bool]) -> Vec<UnitId> {
    let mut units: Vec<UnitId> = (0..files.len() as UnitId)
        .filter(|&unit| !kept[unit as usize])
        .collect();
    units.sort_by_key(|&unit| std::cmp::Reverse(files[unit as usize].content.len()));
    units
}

/// One test of the set `files` without the files at `unused` (a [`CandidateKind::Unused`]
/// candidate), accepted when interesting. Whether it was.
fn without_all(tester: &mut Tester, files: &[CaseFile], unused: &[usize]) -> Result<bool, Stop> {
    let left: Vec<CaseFile> = files
        .iter()
        .enumerate()
        .filter(|(at, _)| !unused.contains(at))
        .map(|(_, file)| file.clone())
        .collect();
    let content = bundle::encode(&left);
    let candidate = Candidate {
        kind: CandidateKind::Unused,
        index: 0,
        n: unused.len() as u32,
    };
    let (outcome, _) = tester.judge_single_removing(candidate, &content, Vec::new())?;
    let interesting = outcome == Outcome::Interesting;
    if interesting {
        tester.accept(content, None, Branch::ReduceToComplement, candidate);
    }
    Ok(interesting)
}
