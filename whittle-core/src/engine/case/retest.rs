//! A case's set re-tested past every cache when its test turns out flaky and when the rounds
//! are done; when it fails, the run goes back to an earlier set that passes and on from there.

use super::run::CaseRun;
use super::*;
use crate::engine::job::MAX_GOING_BACK;

impl CaseRun<'_> {
    /// Once the test has been found flaky, the set now is re-tested (its interesting verdict
    /// confirmed by several runs): a set accepted on a lucky run holds back every candidate
    /// made from it. See [`CaseRun::retest_or_go_back`]. Once per run, as soon as the phase or
    /// session that found it flaky stops for it ([`Stop::Recheck`]: their testers are armed)
    /// or ends. Whether the rounds must go on: the set changed, or the phase or session it cut
    /// short has not reached its fixed point.
    pub(super) fn recheck_when_flaky(&mut self) -> bool {
        if self.flaky_rechecked || self.stopped.is_some() || !self.oracle.found_flaky() {
            return false;
        }
        self.flaky_rechecked = true;
        self.retest_or_go_back();
        self.stopped.is_none()
    }

    /// When the rounds are done: the set is re-tested (a flaky test may have let a set through
    /// that does not reproduce), and when the run went back, the rounds go on from there (at
    /// most [`MAX_GOING_BACK`] times a run). Whether they go on.
    pub(super) fn retest_at_the_end(&mut self) -> bool {
        if self.stopped.is_some() || self.gone_back >= MAX_GOING_BACK {
            return false;
        }
        self.retest_or_go_back()
    }

    /// Re-tests the set now, bypassing the caches (as at the end, [`CaseJob::confirm_result`]).
    /// When it fails, the run goes back to the newest earlier set that passes and goes on from
    /// there; the memo of whole sets forgets the verdicts of single runs. Whether it went back.
    fn retest_or_go_back(&mut self) -> bool {
        match self.confirm_result() {
            Ok(None) => {
                self.confirmed = Some(sha3_256(&bundle::encode(&self.current)));
                false
            }
            Ok(Some(mut flaky)) if flaky.fell_back => {
                flaky.went_on = true;
                self.flaky = Some(flaky);
                self.gone_back += 1;
                self.confirmed = Some(sha3_256(&bundle::encode(&self.current)));
                // The sets accepted after the one that passes are not to fall back to.
                if let Some(at) = self
                    .earlier
                    .iter()
                    .position(|(_, set)| *set == self.current)
                {
                    self.earlier.truncate(at + 1);
                }
                self.memo = Arc::new(CaseMemo::default());
                self.rows_follow_the_set();
                self.job.show(&self.view);
                true
            }
            Ok(Some(_)) => false,
            Err(stop) => {
                self.stopped = Some(stop);
                false
            }
        }
    }

    /// The set re-tested past every cache ([`CaseJob::confirm_result`]): what a flaky test
    /// made of it, and where the run went back to.
    pub(super) fn confirm_result(&mut self) -> Result<Option<Flaky>, Stop> {
        self.job.confirm_result(
            &self.oracle,
            &mut self.current,
            &self.earlier,
            &mut self.total,
            self.started,
            self.stop,
        )
    }
}
