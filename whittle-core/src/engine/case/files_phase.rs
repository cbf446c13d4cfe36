//! The files phase of a case: ddmin over whole files (complements only, the largest files
//! first), each removal a test of the whole set, recorded as a stage of its own; between the
//! files' sessions, the same over the files a session left unused, after one test without them
//! all.

use super::*;
use crate::observe::events::{Branch, Candidate, CandidateKind};

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
