//! Tests run ahead: while a window leaves workers idle, they test the candidates the algorithm
//! expects to judge next (should every candidate before them fail), and keep the verdicts until
//! the algorithm asks for those candidates.
//!
//! A window may also test ahead on the other branch (its branch prediction): when the
//! algorithm's recent verdicts predict that a candidate under test is interesting, a free worker
//! tests the candidate the algorithm judges next should that one be accepted. That test and its
//! verdict outlive the acceptance (one, see [`RunAhead::accepted`]).
//!
//! The algorithm's course does not change: a candidate's outcome comes from its own test either
//! way, only earlier (the oracle is assumed to be deterministic, as every cache assumes). What
//! changes is the count of tests: a test run ahead whose candidate never comes (because a
//! reduction came first) is wasted.

use crossbeam_channel::{Receiver, Sender};

use crate::exec::oracle::{CancelToken, Verdict};

/// At most this many verdicts wait to be claimed (each holds a whole candidate): past it, the
/// older ones, of lookaheads the algorithm did not follow, go.
const MAX_UNCLAIMED: usize = 32;

/// Candidates an algorithm expects to judge after the current ones, in the order it would judge
/// them if none of the current ones is interesting. Rendered only when a worker is free.
pub trait Lookahead: Send + Sync {
    fn len(&self) -> usize;

    fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Writes candidate `i` into `out` (which is empty).
    fn render(&self, i: usize, out: &mut Vec<u8>);
}

/// The lookahead in use, the tests run ahead that are under way, and the verdicts of those
/// that ended, waiting to be claimed.
pub(crate) struct RunAhead {
    source: Option<Box<dyn Lookahead>>,
    /// The next candidate of `source` to consider.
    next: usize,
    /// Verdicts with their candidates (a handful at a time: a window's idle workers). Found by
    /// comparing: every candidate the tester judges is looked up, and a comparison stops at
    /// the length where hashing would read the whole candidate.
    verdicts: Vec<(Vec<u8>, Verdict)>,
    /// Tests under way: their candidates and how to cancel them.
    in_flight: Vec<(Vec<u8>, CancelToken)>,
    /// The candidate tested on the prediction that the one the window judges is accepted (under
    /// way or among `verdicts`): it outlives that acceptance.
    speculation: Option<Vec<u8>>,
    done_tx: Sender<(Vec<u8>, Verdict)>,
    done_rx: Receiver<(Vec<u8>, Verdict)>,
}

impl Default for RunAhead {
    fn default() -> Self {
        let (done_tx, done_rx) = crossbeam_channel::unbounded();
        RunAhead {
            source: None,
            next: 0,
            verdicts: Vec::new(),
            in_flight: Vec::new(),
            speculation: None,
            done_tx,
            done_rx,
        }
    }
}

impl RunAhead {
    /// Replaces the lookahead; tests under way go on and verdicts stay claimable.
    pub fn set(&mut self, source: Option<Box<dyn Lookahead>>) {
        self.source = source;
        self.next = 0;
    }

    /// Whether a candidate may still be taken.
    pub fn has_next(&self) -> bool {
        self.source
            .as_ref()
            .is_some_and(|source| self.next < source.len())
    }

    /// The next candidate neither tested nor under test for which `worth` holds.
    pub fn take_next(&mut self, mut worth: impl FnMut(&[u8]) -> bool) -> Option<Vec<u8>> {
        let source = self.source.as_ref()?;
        while self.next < source.len() {
            let mut content = Vec::new();
            source.render(self.next, &mut content);
            self.next += 1;
            if !self.verdicts.iter().any(|(tested, _)| *tested == content)
                && !self.is_in_flight(&content)
                && worth(&content)
            {
                return Some(content);
            }
        }
        None
    }

    /// A test of `content` started; its verdict is to be sent to [`RunAhead::results`].
    pub fn started(&mut self, content: Vec<u8>, token: CancelToken) -> Sender<(Vec<u8>, Verdict)> {
        self.in_flight.push((content, token));
        self.done_tx.clone()
    }

    /// Where the tests under way send their candidates and verdicts.
    pub fn results(&self) -> Receiver<(Vec<u8>, Verdict)> {
        self.done_rx.clone()
    }

    /// Tests under way.
    pub fn in_flight(&self) -> usize {
        self.in_flight.len()
    }

    pub fn is_in_flight(&self, content: &[u8]) -> bool {
        self.in_flight.iter().any(|(running, _)| running == content)
    }

    /// A test ended: with a verdict to keep, or without (`None`: cancelled, lost). Returns how
    /// many unclaimed verdicts were dropped to make room (see [`MAX_UNCLAIMED`]).
    pub fn finished(&mut self, content: Vec<u8>, verdict: Option<Verdict>) -> usize {
        if let Some(at) = self
            .in_flight
            .iter()
            .position(|(running, _)| *running == content)
        {
            self.in_flight.swap_remove(at);
        }
        let Some(verdict) = verdict else {
            return 0;
        };
        let dropped = if self.verdicts.len() >= MAX_UNCLAIMED {
            std::mem::take(&mut self.verdicts).len()
        } else {
            0
        };
        self.verdicts.push((content, verdict));
        dropped
    }

    /// The verdict of a test run ahead on `content`, which is no longer kept.
    pub fn claim(&mut self, content: &[u8]) -> Option<Verdict> {
        let at = self
            .verdicts
            .iter()
            .position(|(tested, _)| tested == content)?;
        if self.speculation.as_deref() == Some(content) {
            self.speculation = None;
        }
        Some(self.verdicts.swap_remove(at).1)
    }

    /// Verdicts waiting to be claimed.
    pub fn unclaimed(&self) -> usize {
        self.verdicts.len()
    }

    /// Forgets the lookahead and the verdicts not claimed, and cancels the tests under way
    /// (the stage ended or stops: the candidates expected next are others). Returns how many
    /// verdicts went unclaimed.
    pub fn clear(&mut self) -> usize {
        self.speculation = None;
        self.accepted()
    }

    /// Whether the speculative test ended and found its candidate interesting: the candidate
    /// it was made for, which keeps more, most likely is too.
    pub fn speculation_passed(&self) -> bool {
        self.speculation.as_ref().is_some_and(|content| {
            self.verdicts
                .iter()
                .any(|(tested, verdict)| tested == content && verdict.outcome.is_interesting())
        })
    }

    /// Whether a speculative test is under way or waits to be claimed.
    pub fn is_speculating(&self) -> bool {
        self.speculation.is_some()
    }

    /// A test of `content` starts on the prediction that the candidate the window judges now
    /// is accepted; its verdict is to be sent to [`RunAhead::results`].
    pub fn speculate(
        &mut self,
        content: Vec<u8>,
        token: CancelToken,
    ) -> Sender<(Vec<u8>, Verdict)> {
        self.speculation = Some(content.clone());
        self.started(content, token)
    }

    /// The prediction failed (the candidate it was made for is not interesting): the
    /// speculative test under way is cancelled and forgotten; one that ended keeps its
    /// verdict as an ordinary test run ahead.
    pub fn mispredicted(&mut self) {
        let Some(content) = self.speculation.take() else {
            return;
        };
        if let Some(at) = self
            .in_flight
            .iter()
            .position(|(running, _)| *running == content)
        {
            self.in_flight.swap_remove(at).1.cancel();
        }
    }

    /// A candidate was accepted: the current best changed, so the candidates expected next are
    /// others. Forgets the lookahead and the verdicts not claimed and cancels the tests under
    /// way, except the speculation (made for the candidate accepted), which becomes an ordinary
    /// test run ahead. Returns how many verdicts went unclaimed.
    pub fn accepted(&mut self) -> usize {
        self.set(None);
        let kept = self.speculation.take();
        let kept = kept.as_deref();
        self.in_flight.retain(|(running, token)| {
            let keep = Some(running.as_slice()) == kept;
            if !keep {
                token.cancel();
            }
            keep
        });
        let before = self.verdicts.len();
        self.verdicts
            .retain(|(tested, _)| Some(tested.as_slice()) == kept);
        before - self.verdicts.len()
    }
}

impl Drop for RunAhead {
    /// Tests run ahead that are under way are of no use any more.
    fn drop(&mut self) {
        self.clear();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::exec::oracle::TestStatus;
    use crate::outcome::Outcome;

    struct Words(Vec<&'static str>);

    impl Lookahead for Words {
        fn len(&self) -> usize {
            self.0.len()
        }

        fn render(&self, i: usize, out: &mut Vec<u8>) {
            out.extend_from_slice(self.0[i].as_bytes());
        }
    }

    fn verdict(outcome: Outcome) -> Verdict {
        Verdict {
            outcome,
            status: TestStatus::Exited(0),
            duration: std::time::Duration::ZERO,
            output_tail: None,
            node: None,
            remembered: false,
            timeout_reruns: 0,
        }
    }

    #[test]
    fn candidates_come_once_in_order_and_verdicts_are_claimed_once() {
        let mut ahead = RunAhead::default();
        ahead.set(Some(Box::new(Words(vec!["a", "b", "a", "c"]))));
        let first = ahead.take_next(|_| true).unwrap();
        assert_eq!(first, b"a");
        let token = CancelToken::default();
        ahead.started(first.clone(), token.clone());
        assert!(ahead.is_in_flight(b"a"));
        // "b" is not worth a test; "a" is under test already.
        let third = ahead.take_next(|c| c != b"b").unwrap();
        assert_eq!(third, b"c");
        ahead.started(third.clone(), CancelToken::default());
        assert!(!ahead.has_next());
        assert_eq!(ahead.in_flight(), 2);
        ahead.finished(first, Some(verdict(Outcome::NotInteresting)));
        ahead.finished(third, None);
        assert_eq!(ahead.in_flight(), 0);
        assert_eq!(ahead.claim(b"c").map(|v| v.outcome), None);
        assert_eq!(
            ahead.claim(b"a").map(|v| v.outcome),
            Some(Outcome::NotInteresting)
        );
        assert_eq!(ahead.claim(b"a").map(|v| v.outcome), None);
        // A new lookahead starts from its first candidate; clearing cancels what runs.
        ahead.set(Some(Box::new(Words(vec!["d", "e"]))));
        let d = ahead.take_next(|_| true).unwrap();
        ahead.finished(d, Some(verdict(Outcome::Interesting)));
        let e = ahead.take_next(|_| true).unwrap();
        let running = CancelToken::default();
        ahead.started(e, running.clone());
        assert_eq!(ahead.clear(), 1);
        assert!(running.is_cancelled());
        assert!(ahead.claim(b"d").is_none());
        assert!(!ahead.has_next());
    }

    #[test]
    fn a_speculation_outlives_one_acceptance_and_a_failed_prediction_cancels_it() {
        let mut ahead = RunAhead::default();
        ahead.set(Some(Box::new(Words(vec!["ahead"]))));
        let looked = ahead.take_next(|_| true).unwrap();
        let looked_token = CancelToken::default();
        ahead.started(looked, looked_token.clone());
        let speculated = CancelToken::default();
        ahead.speculate(b"next".to_vec(), speculated.clone());
        assert!(ahead.is_speculating());
        // The acceptance cancels the test run ahead, not the speculation, which becomes an
        // ordinary test run ahead: the next acceptance cancels it.
        assert_eq!(ahead.accepted(), 0);
        assert!(looked_token.is_cancelled() && !speculated.is_cancelled());
        assert!(!ahead.is_speculating() && ahead.is_in_flight(b"next"));
        ahead.finished(b"next".to_vec(), Some(verdict(Outcome::Interesting)));
        assert_eq!(ahead.accepted(), 1);
        assert!(ahead.claim(b"next").is_none());
        // A failed prediction cancels the test under way at once.
        let failed = CancelToken::default();
        ahead.speculate(b"other".to_vec(), failed.clone());
        ahead.mispredicted();
        assert!(failed.is_cancelled());
        assert!(!ahead.is_speculating() && ahead.in_flight() == 0);
    }

    #[test]
    fn unclaimed_verdicts_are_bounded() {
        let mut ahead = RunAhead::default();
        let verdicts = (0..MAX_UNCLAIMED).map(|i| i.to_string().into_bytes());
        for content in verdicts {
            assert_eq!(
                ahead.finished(content, Some(verdict(Outcome::NotInteresting))),
                0
            );
        }
        assert_eq!(ahead.unclaimed(), MAX_UNCLAIMED);
        let dropped = ahead.finished(b"last".to_vec(), Some(verdict(Outcome::Interesting)));
        assert_eq!(dropped, MAX_UNCLAIMED);
        assert_eq!(ahead.unclaimed(), 1);
        assert!(ahead.claim(b"last").is_some());
    }
}
