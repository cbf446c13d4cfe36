//! The chunk sweep: a configuration reduced from its end towards its start by removing runs of
//! units, the run doubled after each removal and halved after each failure, repeated until a
//! sweep removes nothing (so the result is 1-minimal). Not an algorithm of the papers: it spends
//! no tests growing a granularity, which pays where few units stay and they depend on each other
//! (definitions used by what follows them), where ddmin's coarse complements all fail.
//!
//! [`sweep_pass`] is a single sweep, for callers that repeat to their own fixed point (HDD's
//! walks run again while they remove something: a walk that removes nothing is 1-minimal for
//! every configuration it pruned).
//!
//! Works on any [`Domain`], like ddmin; a window holds the run and its halves, then the single
//! units before it, judged first-in-order, so the result does not depend on the number of jobs.

use std::ops::Range;

use crate::algorithms::dd::{Domain, merged_spans};
use crate::exec::cache::UnitId;
use crate::observe::events::{Branch, Candidate, CandidateKind};
use crate::testing::control::Stop;
use crate::testing::tester::{CandidateSource, Tester, WindowPolicy};

/// At most this many single units before a failed run are judged in the same window.
const SINGLES_PER_WINDOW: usize = 16;

/// The removals one window judges, in order: each a range of positions in the configuration.
fn window_removals(end: usize, run: usize) -> Vec<Range<usize>> {
    let mut removals = Vec::new();
    let mut length = run.clamp(1, end.max(1));
    loop {
        removals.push(end - length..end);
        if length == 1 {
            break;
        }
        length /= 2;
    }
    // Should every run fail, the unit before `end` stays: then each single unit before it.
    let singles = (end - 1).min(SINGLES_PER_WINDOW);
    removals.extend((1..=singles).map(|back| end - 1 - back..end - back));
    removals
}

/// The candidates of the first window a sweep judges on `len` units: for each, the positions
/// of the units it keeps (none below one unit). Lets a walk foresee its first tests.
pub fn first_window(len: usize) -> Vec<Vec<Range<usize>>> {
    if len == 0 {
        return Vec::new();
    }
    window_removals(len, 1)
        .into_iter()
        .map(|removed| vec![0..removed.start, removed.end..len])
        .collect()
}

/// One window of a sweep.
struct SweepWindow<'a> {
    domain: &'a dyn Domain,
    config: &'a [UnitId],
    removals: Vec<Range<usize>>,
    /// The bytes of the configuration's units in the current best (for displays).
    spans: Option<&'a [Range<usize>]>,
    /// The last window accepted its first removal (the run doubles): its first is likely
    /// interesting too.
    doubling: bool,
    /// Most recent tests passed (see [`Tester::expects_interesting`]): the first removal is
    /// likely interesting too.
    expecting: bool,
    /// The sweeps go on until one removes nothing (else the caller judges what comes next).
    repeats: bool,
}

impl SweepWindow<'_> {
    fn parts(&self, i: usize) -> Vec<&[UnitId]> {
        let removed = &self.removals[i];
        vec![&self.config[..removed.start], &self.config[removed.end..]]
    }
}

impl CandidateSource for SweepWindow<'_> {
    fn len(&self) -> usize {
        self.removals.len()
    }

    fn candidate(&self, i: usize) -> Candidate {
        let removed = &self.removals[i];
        Candidate {
            kind: CandidateKind::Sweep,
            index: removed.start as u32,
            n: removed.len() as u32,
        }
    }

    fn config(&self, i: usize) -> Option<Vec<&[UnitId]>> {
        Some(self.parts(i))
    }

    fn render(&self, i: usize, out: &mut Vec<u8>) {
        self.domain.render(&self.parts(i), out);
    }

    fn removed_spans(&self, i: usize) -> Vec<Range<usize>> {
        self.spans
            .map(|spans| merged_spans(spans[self.removals[i].clone()].iter()))
            .unwrap_or_default()
    }

    fn predicted_interesting(&self) -> Option<usize> {
        (self.doubling || self.expecting).then_some(0)
    }

    fn render_after_accepting(&self, i: usize, out: &mut Vec<u8>) -> bool {
        let accepted = &self.removals[i];
        if accepted.start == 0 && !self.repeats {
            // The sweep ends: the caller judges next.
            return self
                .domain
                .render_after(&[&self.config[accepted.end..]], out);
        }
        match kept_after(self.config.len(), accepted) {
            Some([before, after]) => {
                let parts = [&self.config[before], &self.config[after]];
                self.domain.render(&parts, out);
                true
            }
            None => false,
        }
    }
}

/// The positions of a configuration of `len` units that the first candidate the sweep judges
/// after accepting the removal of `accepted` keeps (as two ranges, in order): without
/// `accepted` and without the next window's first removal (the run doubled, ending where
/// `accepted` started), or, when `accepted` reached the start, without the last unit (the next
/// sweep's first removal, when sweeps repeat). `None` when nothing is judged next (nothing is
/// left).
fn kept_after(len: usize, accepted: &Range<usize>) -> Option<[Range<usize>; 2]> {
    if accepted.start > 0 {
        let next_run = (2 * accepted.len()).min(accepted.start);
        return Some([0..accepted.start - next_run, accepted.end..len]);
    }
    (accepted.end < len).then(|| [accepted.end..len - 1, len..len])
}

/// Sweeps `units` (whose rendering the caller knows to be interesting) until a sweep removes
/// nothing, and returns the units left: removing any one of them alone is not interesting.
/// The tester's current best follows every accepted removal, so an early stop loses nothing.
pub fn sweep(
    domain: &dyn Domain,
    units: Vec<UnitId>,
    tester: &mut Tester,
) -> Result<Vec<UnitId>, Stop> {
    sweeps(domain, units, tester, true)
}

/// One sweep over `units` from its end to its start: the units left (not 1-minimal when a
/// removal made an earlier-tested unit removable; for callers that repeat to a fixed point).
pub fn sweep_pass(
    domain: &dyn Domain,
    units: Vec<UnitId>,
    tester: &mut Tester,
) -> Result<Vec<UnitId>, Stop> {
    sweeps(domain, units, tester, false)
}

/// Sweeps `units` once, or `until_none_removes`.
fn sweeps(
    domain: &dyn Domain,
    units: Vec<UnitId>,
    tester: &mut Tester,
    until_none_removes: bool,
) -> Result<Vec<UnitId>, Stop> {
    let mut config = units;
    loop {
        let before = config.len();
        sweep_once(domain, &mut config, tester, until_none_removes)?;
        if !until_none_removes || config.len() == before || config.is_empty() {
            tester.note_branch(Branch::Done, config.len());
            return Ok(config);
        }
        // In a schedule's stage run, the next sweep skips what failed in the earlier ones
        // with the same neighbourhood (see `crate::testing::recall`).
        tester.recall_mut().next_pass();
    }
}

/// One sweep from the end of `config` to its start.
fn sweep_once(
    domain: &dyn Domain,
    config: &mut Vec<UnitId>,
    tester: &mut Tester,
    repeats: bool,
) -> Result<(), Stop> {
    let mut end = config.len();
    let mut run = 1;
    let mut doubling = false;
    while end > 0 {
        let spans = tester
            .wants_spans()
            .then(|| domain.unit_spans(config))
            .flatten();
        let window = SweepWindow {
            domain,
            config,
            removals: window_removals(end, run),
            spans: spans.as_deref(),
            doubling,
            expecting: tester.expects_interesting(),
            repeats,
        };
        let found = tester.run_window(&window, WindowPolicy::FirstInOrder)?;
        let Some(&first) = found.first() else {
            // Every run and every single unit of the window stays: go on before the lowest.
            end = window
                .removals
                .iter()
                .map(|removed| removed.start)
                .min()
                .unwrap_or(0);
            run = 1;
            doubling = false;
            continue;
        };
        doubling = first == 0;
        let removed = window.removals[first].clone();
        tester.accept_from(&window, first, Branch::Sweep);
        drop(window);
        config.drain(removed.clone());
        run = removed.len() * 2;
        end = removed.start;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;
    use std::sync::atomic::{AtomicU64, Ordering};
    use std::time::Duration;

    use super::*;
    use crate::exec::cache::CachePolicy;
    use crate::exec::oracle::predicate;
    use crate::observe::events::Event;
    use crate::observe::stats::Stats;
    use crate::outcome::Outcome;
    use crate::params::Knobs;
    use crate::testing::control::Control;

    /// Units are the bytes of a text, rendered in order.
    struct Bytes(Vec<u8>);

    impl Domain for Bytes {
        fn render(&self, parts: &[&[UnitId]], out: &mut Vec<u8>) {
            for &unit in parts.iter().copied().flatten() {
                out.push(self.0[unit as usize]);
            }
        }
    }

    /// What one sweep did: the units left, the candidates judged by step (content and
    /// outcome), those accepted, the statistics and how many times the oracle ran.
    struct Course {
        kept: Vec<UnitId>,
        judged: Vec<(String, Outcome)>,
        accepted: Vec<usize>,
        stats: Stats,
        runs: u64,
    }

    /// Sweeps `text` with `jobs` workers (testing ahead and speculating when `ahead`);
    /// `interesting` is the (deterministic) test, which takes `delay` of the candidate.
    fn sweep_with(
        text: &[u8],
        jobs: usize,
        ahead: bool,
        delay: impl Fn(&[u8]) -> Duration + Send + Sync + 'static,
        interesting: impl Fn(&[u8]) -> bool + Send + Sync + 'static,
    ) -> Course {
        let runs = Arc::new(AtomicU64::new(0));
        let counted = Arc::clone(&runs);
        let oracle = predicate("deterministic", move |candidate: &[u8]| {
            counted.fetch_add(1, Ordering::Relaxed);
            std::thread::sleep(delay(candidate));
            interesting(candidate)
        });
        let control = Arc::new(Control::new(Knobs {
            jobs,
            ..Knobs::default()
        }));
        let mut tester = Tester::new(Arc::new(oracle), CachePolicy::recommended(), control);
        tester.adopt_jobs().unwrap();
        tester.set_inline_below(None);
        tester.set_lookahead_enabled(ahead);
        let (events, received) = crossbeam_channel::unbounded();
        tester.set_events(Some(events));
        tester.set_best(text.to_vec());
        let domain = Bytes(text.to_vec());
        let units = (0..text.len() as UnitId).collect();
        let kept = sweep(&domain, units, &mut tester).unwrap();
        let stats = tester.stats();
        drop(tester);
        let mut course = Course {
            kept,
            judged: Vec::new(),
            accepted: Vec::new(),
            stats,
            runs: runs.load(Ordering::Relaxed),
        };
        let mut judged = Vec::new();
        for event in received.iter() {
            match event {
                Event::CandidateJudged {
                    step,
                    preview,
                    outcome,
                    ..
                } => judged.push((step, preview.unwrap_or_default(), outcome)),
                Event::Accepted { size, .. } => course.accepted.push(size),
                _ => {}
            }
        }
        // In the order the algorithm came to them (tests of a window end in any order).
        judged.sort_by_key(|(step, _, _)| *step);
        course.judged = judged
            .into_iter()
            .map(|(_, content, outcome)| (content, outcome))
            .collect();
        course
    }

    /// Whether `part` is `whole` with some elements left out (in order).
    fn is_subsequence<T: PartialEq>(part: &[T], whole: &[T]) -> bool {
        let mut rest = whole.iter();
        part.iter().all(|wanted| rest.any(|seen| seen == wanted))
    }

    /// A deterministic test that is not monotone: the needed bytes stay, and some candidates
    /// fail anyway (by a hash of their content), so predictions fail too.
    fn needs(needed: Vec<u8>, salt: u64) -> impl Fn(&[u8]) -> bool + Send + Sync + 'static {
        move |candidate: &[u8]| {
            let hash = candidate.iter().fold(salt, |hash, &byte| {
                (hash ^ u64::from(byte)).wrapping_mul(0x100_0000_01b3)
            });
            needed.iter().all(|byte| candidate.contains(byte)) && hash % 5 != 0
        }
    }

    #[test]
    fn two_workers_judge_the_sequential_course_and_find_the_sequential_result() {
        let mut rng = fastrand::Rng::with_seed(7);
        let alphabet: Vec<u8> = (b'!'..=b'~').collect();
        for round in 0..12 {
            let len = rng.usize(4..48);
            let mut text = alphabet.clone();
            rng.shuffle(&mut text);
            text.truncate(len);
            let needed: Vec<u8> = text.iter().copied().filter(|_| rng.u8(..) < 40).collect();
            let salt = rng.u64(..);
            let micros = rng.u64(0..400);
            let delay = move |_: &[u8]| Duration::from_micros(micros);
            let sequential = sweep_with(&text, 1, true, delay, needs(needed.clone(), salt));
            let again = sweep_with(&text, 1, true, delay, needs(needed.clone(), salt));
            let parallel = sweep_with(&text, 2, true, delay, needs(needed, salt));
            assert_eq!(sequential.judged, again.judged, "round {round}");
            assert_eq!(parallel.kept, sequential.kept, "round {round}");
            assert_eq!(parallel.accepted, sequential.accepted, "round {round}");
            assert!(
                is_subsequence(&sequential.judged, &parallel.judged),
                "round {round}: {:?} against {:?}",
                sequential.judged,
                parallel.judged
            );
            // Every test of two workers is one the sequential sweep ran, or is counted as
            // wasted or cancelled; the one test the second worker may still be running ahead
            // when the sweep ends is not counted (it cannot be stopped in this process, and its
            // verdict is never collected).
            let stats = &parallel.stats;
            assert!(
                (stats.tests..=stats.tests + 1).contains(&parallel.runs),
                "round {round}: {} tests counted, {} runs",
                stats.tests,
                parallel.runs
            );
            assert_eq!(
                stats.tests,
                sequential.stats.tests + stats.wasted + stats.cancelled,
                "round {round}: {stats:?}"
            );
        }
    }

    #[test]
    fn speculating_on_removals_that_pass_saves_the_tests_of_the_halved_runs() {
        // Only the first byte is needed: after the first removal every run doubles and passes
        // until the whole rest goes at once. Shorter candidates take longer, so that a
        // speculative test (of a shorter candidate) ends after the one it was made for.
        let text: Vec<u8> = (b'A'..=b'Z').chain(b'a'..=b'z').collect();
        let needed = |candidate: &[u8]| candidate.first() == Some(&b'A');
        let delay = |candidate: &[u8]| Duration::from_millis(64 - candidate.len() as u64);
        let sequential = sweep_with(&text, 1, true, delay, needed);
        let speculating = sweep_with(&text, 2, true, delay, needed);
        let halving = sweep_with(&text, 2, false, delay, needed);
        for parallel in [&speculating, &halving] {
            assert_eq!(parallel.kept, [0]);
            assert_eq!(parallel.accepted, sequential.accepted);
            assert!(is_subsequence(&sequential.judged, &parallel.judged));
            let stats = &parallel.stats;
            assert_eq!(stats.tests, parallel.runs);
            assert_eq!(
                stats.tests,
                sequential.stats.tests + stats.wasted + stats.cancelled,
                "{stats:?}"
            );
        }
        assert_eq!(halving.stats.speculated, 0);
        // The runs of 2, 4, 8 and 16 units pass: their windows speculate on the next run
        // instead of testing the halved run beside it (on an idle machine 4 speculations and 3
        // tests fewer; the counts depend on which test ends first, so only the direction is
        // asserted here: `docs/benchmarks.md` section 4 has the measured figures).
        assert!(speculating.stats.speculated >= 1, "{:?}", speculating.stats);
        assert!(
            speculating.stats.tests <= halving.stats.tests,
            "{:?} against {:?}",
            speculating.stats,
            halving.stats
        );
        // Shorter candidates take less time: a speculative test ends first, and when it passes
        // the window waits for the candidate it was made for rather than test the halved run.
        let quick = |candidate: &[u8]| Duration::from_millis(2 + candidate.len() as u64);
        let speculating = sweep_with(&text, 2, true, quick, needed);
        let halving = sweep_with(&text, 2, false, quick, needed);
        assert_eq!(speculating.kept, [0]);
        assert!(is_subsequence(&sequential.judged, &speculating.judged));
        assert!(
            speculating.stats.tests <= halving.stats.tests,
            "{:?} against {:?}",
            speculating.stats,
            halving.stats
        );
    }

    #[test]
    fn a_window_halves_the_run_then_tries_the_units_before_it() {
        assert_eq!(
            window_removals(10, 4),
            vec![
                6..10,
                8..10,
                9..10,
                8..9,
                7..8,
                6..7,
                5..6,
                4..5,
                3..4,
                2..3,
                1..2,
                0..1
            ]
        );
        assert_eq!(window_removals(3, 8), vec![0..3, 2..3, 1..2, 0..1]);
        assert_eq!(window_removals(1, 1), vec![0..1]);
        assert_eq!(first_window(2), vec![vec![0..1, 2..2], vec![0..0, 1..2]]);
    }

    #[test]
    fn after_a_removal_comes_the_doubled_run_before_it_or_the_next_sweep() {
        // 6..10 removed: the next window removes 8 units before 6 (all six there).
        assert_eq!(kept_after(12, &(6..10)), Some([0..0, 10..12]));
        assert_eq!(kept_after(40, &(30..32)), Some([0..26, 32..40]));
        // The removal reached the start: the next sweep removes the last unit left.
        assert_eq!(kept_after(10, &(0..4)), Some([4..9, 10..10]));
        assert_eq!(kept_after(10, &(0..10)), None);
    }
}
