//! The chunk sweep: a configuration reduced from its end towards its start by removing runs of
//! units, the run doubled after each removal and halved after each failure, repeated until a
//! sweep removes nothing (so the result is 1-minimal). Once a run failed and a shorter one at
//! the same end passed, the units between them hold one that is needed: the next runs halve
//! that stretch (a binary search for its last needed unit) instead of doubling across it. Not
//! an algorithm of the papers: it spends no tests growing a granularity, which pays where few
//! units stay and they depend on each other (definitions used by what follows them), where
//! ddmin's coarse complements all fail.
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
    /// The position from which the units before `end` hold one known to be needed.
    needed_from: Option<usize>,
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
        let next = Next::after(&self.removals, i, self.needed_from);
        if next.end == 0 && !self.repeats {
            // The sweep ends: the caller judges next.
            let left = [&self.config[..accepted.start], &self.config[accepted.end..]];
            return self.domain.render_after(&left, out);
        }
        match kept_after(self.config.len(), accepted, &next) {
            Some(kept) => {
                let parts: Vec<&[UnitId]> = kept.into_iter().map(|k| &self.config[k]).collect();
                self.domain.render(&parts, out);
                true
            }
            None => false,
        }
    }
}

/// Where a sweep goes on after a window accepted one of its removals.
#[derive(Debug, PartialEq)]
struct Next {
    /// The next window's runs end here.
    end: usize,
    /// Its first run.
    run: usize,
    /// Its first run removes what the last window's first did, doubled: likely interesting.
    doubling: bool,
    /// Units from here up to `end` hold one known to be needed.
    needed_from: Option<usize>,
}

impl Next {
    /// After `removals[first]` was accepted (the removals of a window, see
    /// [`window_removals`]), `needed_from` being what the window knew. When a longer run at the
    /// same end failed before it, the units between the two starts hold a needed one: the next
    /// run is half of that stretch, not the accepted run doubled (which would hold it all and
    /// fail). A stretch of one unit is that needed unit: the sweep goes on before it.
    fn after(removals: &[Range<usize>], first: usize, needed_from: Option<usize>) -> Next {
        let removed = &removals[first];
        let end = removed.start;
        let is_run = removed.end == removals[0].end;
        let needed_from = match first {
            _ if !is_run => None,
            0 => needed_from.filter(|&from| from < end),
            _ => Some(removals[first - 1].start),
        };
        match needed_from {
            Some(from) if end - from >= 2 => Next {
                end,
                run: (end - from) / 2,
                doubling: false,
                needed_from,
            },
            Some(from) => Next {
                end: from,
                run: 1,
                doubling: false,
                needed_from: None,
            },
            None => Next {
                end,
                run: removed.len() * 2,
                doubling: first == 0,
                needed_from: None,
            },
        }
    }

    /// The first removal of the next window, if the sweep has units left before `end`.
    fn first_removal(&self) -> Option<Range<usize>> {
        (self.end > 0).then(|| self.end - self.run.clamp(1, self.end)..self.end)
    }
}

/// The positions of a configuration of `len` units that the first candidate the sweep judges
/// after accepting the removal of `accepted` keeps (ranges, in order): without `accepted` and
/// without the next window's first removal (see [`Next`]), or, when the sweep reached the
/// start, without the last unit left (the next sweep's first removal, when sweeps repeat).
/// `None` when nothing is judged next (nothing is left).
fn kept_after(len: usize, accepted: &Range<usize>, next: &Next) -> Option<Vec<Range<usize>>> {
    let Some(removal) = next.first_removal() else {
        let mut kept = vec![0..accepted.start, accepted.end..len];
        let last = kept.iter_mut().rev().find(|part| part.start < part.end)?;
        last.end -= 1;
        return Some(kept);
    };
    Some(vec![
        0..removal.start,
        removal.end..accepted.start,
        accepted.end..len,
    ])
}

/// Sweeps `units` (whose rendering the caller knows to be interesting) until a sweep removes
/// nothing, and returns the units left: removing any one of them alone is not interesting.
/// The tester's current best follows every accepted removal, so an early stop loses nothing.
pub fn sweep(
    domain: &dyn Domain,
    units: Vec<UnitId>,
    tester: &mut Tester,
) -> Result<Vec<UnitId>, Stop> {
    sweeps(domain, units, tester, true, None).map(Swept::kept)
}

/// One sweep over `units` from its end to its start: the units left (not 1-minimal when a
/// removal made an earlier-tested unit removable; for callers that repeat to a fixed point).
pub fn sweep_pass(
    domain: &dyn Domain,
    units: Vec<UnitId>,
    tester: &mut Tester,
) -> Result<Vec<UnitId>, Stop> {
    sweeps(domain, units, tester, false, None).map(Swept::kept)
}

/// How a patient sweep ([`sweep_patiently`]) ended: the units left, and whether it paused
/// before reaching the start.
#[derive(Debug, PartialEq, Eq)]
pub enum Swept {
    Done(Vec<UnitId>),
    Paused(Vec<UnitId>),
}

impl Swept {
    /// The units left, paused or not.
    pub fn kept(self) -> Vec<UnitId> {
        match self {
            Swept::Done(kept) | Swept::Paused(kept) => kept,
        }
    }
}

/// Like [`sweep_pass`] or [`sweep`] (`repeats`), except that with `patience`, on a
/// configuration of `patience.long` units or more, the first sweep pauses once it has run
/// `patience.tests` tests and removed fewer than half of the units it went past: most of the
/// configuration is likely needed while something else stays (definitions used elsewhere), and
/// the caller may reduce that first and come back.
pub fn sweep_patiently(
    domain: &dyn Domain,
    units: Vec<UnitId>,
    tester: &mut Tester,
    repeats: bool,
    patience: Option<Patience>,
) -> Result<Swept, Stop> {
    sweeps(domain, units, tester, repeats, patience)
}

/// When a sweep pauses (see [`sweep_patiently`]).
#[derive(Clone, Copy, Debug)]
pub struct Patience {
    /// Configurations of fewer units are swept whole.
    pub long: usize,
    /// The tests a sweep runs before it may pause.
    pub tests: u64,
}

/// Sweeps `units` once, or `until_none_removes`; the first sweep with `patience` when the
/// configuration is long enough for it.
fn sweeps(
    domain: &dyn Domain,
    units: Vec<UnitId>,
    tester: &mut Tester,
    until_none_removes: bool,
    patience: Option<Patience>,
) -> Result<Swept, Stop> {
    let mut config = units;
    let mut patience = patience.filter(|patience| config.len() >= patience.long);
    loop {
        let before = config.len();
        if !sweep_once(
            domain,
            &mut config,
            tester,
            until_none_removes,
            patience.take(),
        )? {
            return Ok(Swept::Paused(config));
        }
        if !until_none_removes || config.len() == before || config.is_empty() {
            tester.note_branch(Branch::Done, config.len());
            return Ok(Swept::Done(config));
        }
        // In a schedule's stage run, the next sweep skips what failed in the earlier ones
        // with the same neighbourhood (see `crate::testing::recall`).
        tester.recall_mut().next_pass();
    }
}

/// One sweep from the end of `config` to its start; with `patience`, it pauses (`false`) once
/// it has run that many tests and removed fewer than half of the units it went past, with at
/// least half of `patience.long` units left before it. Whether it reached the start.
fn sweep_once(
    domain: &dyn Domain,
    config: &mut Vec<UnitId>,
    tester: &mut Tester,
    repeats: bool,
    patience: Option<Patience>,
) -> Result<bool, Stop> {
    let mut end = config.len();
    let mut run = 1;
    let mut doubling = false;
    let mut needed_from = None;
    let (units, tests) = (config.len(), tester.tests());
    while end > 0 {
        if let Some(patience) = patience {
            let removed = units - config.len();
            let went_past = removed + (config.len() - end);
            if tester.tests() - tests >= patience.tests
                && removed * 2 < went_past
                && end * 2 >= patience.long
            {
                return Ok(false);
            }
        }
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
            needed_from,
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
            needed_from = None;
            continue;
        };
        let next = Next::after(&window.removals, first, needed_from);
        let removed = window.removals[first].clone();
        tester.accept_from(&window, first, Branch::Sweep);
        drop(window);
        config.drain(removed);
        Next {
            end,
            run,
            doubling,
            needed_from,
        } = next;
    }
    Ok(true)
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

    /// A patient sweep over the bytes 0..`len` (one job) where the bytes of `needed` must stay:
    /// how it ended and how many tests it ran.
    fn sweep_patiently_over(len: u8, needed: fn(u8) -> bool) -> (Swept, u64) {
        let text: Vec<u8> = (0..len).collect();
        let oracle = predicate("needed bytes", move |candidate: &[u8]| {
            (0..len)
                .filter(|&byte| needed(byte))
                .all(|byte| candidate.contains(&byte))
        });
        let control = Arc::new(Control::new(Knobs::default()));
        let mut tester = Tester::new(Arc::new(oracle), CachePolicy::recommended(), control);
        tester.set_best(text.clone());
        let units = (0..UnitId::from(len)).collect();
        let patience = Patience {
            long: 64,
            tests: 32,
        };
        let swept =
            sweep_patiently(&Bytes(text), units, &mut tester, true, Some(patience)).unwrap();
        (swept, tester.stats().tests)
    }

    #[test]
    fn a_patient_sweep_pauses_where_it_removes_little_and_keeps_what_it_removed() {
        // Two bytes in three are needed: after 32 tests it has removed fewer than half.
        let needed = |byte: u8| !byte.is_multiple_of(3);
        let (swept, tests) = sweep_patiently_over(120, needed);
        let Swept::Paused(kept) = swept else {
            panic!("not paused: {swept:?}");
        };
        assert!((32..40).contains(&tests), "{tests} tests");
        assert!(kept.len() < 120, "what it removed stays removed");
        assert!(kept.len() > 80, "it did not reach the start");
        assert!(
            (0..120)
                .filter(|&b| needed(b))
                .all(|b| kept.contains(&UnitId::from(b)))
        );
    }

    #[test]
    fn a_patient_sweep_goes_on_where_it_removes_much_or_the_set_is_short() {
        let (swept, _) = sweep_patiently_over(120, |byte| byte == 5);
        assert_eq!(swept, Swept::Done(vec![5]));
        // Below the length that may pause, the sweep is whole: 1-minimal.
        let needed = |byte: u8| !byte.is_multiple_of(3);
        let (swept, _) = sweep_patiently_over(60, needed);
        let all: Vec<UnitId> = (0..60).filter(|&b| needed(b)).map(UnitId::from).collect();
        assert_eq!(swept, Swept::Done(all));
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

    /// What the sweep judges after accepting removal `first` of the window `(end, run)`, the
    /// window knowing `needed_from`, on `len` units: the next window and the units its first
    /// candidate keeps.
    fn after(
        len: usize,
        (end, run): (usize, usize),
        first: usize,
        needed_from: Option<usize>,
    ) -> (Next, Option<Vec<Range<usize>>>) {
        let removals = window_removals(end, run);
        let next = Next::after(&removals, first, needed_from);
        let kept = kept_after(len, &removals[first], &next);
        (next, kept)
    }

    #[test]
    fn after_a_removal_comes_the_doubled_run_before_it_or_the_next_sweep() {
        // 6..10 removed: the next window removes 8 units before 6 (all six there).
        let (next, kept) = after(12, (10, 4), 0, None);
        assert_eq!((next.end, next.run, next.doubling), (6, 8, true));
        assert_eq!(kept, Some(vec![0..0, 6..6, 10..12]));
        let (_, kept) = after(40, (32, 2), 0, None);
        assert_eq!(kept, Some(vec![0..26, 30..30, 32..40]));
        // The removal reached the start: the next sweep removes the last unit left.
        assert_eq!(after(10, (4, 4), 0, None).1, Some(vec![0..0, 4..9]));
        assert_eq!(after(10, (10, 16), 0, None).1, None);
    }

    #[test]
    fn after_a_failed_run_the_next_runs_halve_the_stretch_that_holds_a_needed_unit() {
        // Window at 40 of 16: 24..40 failed, 32..40 passed. 24..32 holds a needed unit: the
        // next run removes 28..32 (not the doubled 16..32, which holds all of 24..32).
        let (next, kept) = after(48, (40, 16), 1, None);
        assert_eq!(next.needed_from, Some(24));
        assert_eq!((next.end, next.run, next.doubling), (32, 4, false));
        assert_eq!(kept, Some(vec![0..28, 32..32, 40..48]));
        // It passed: 24..28 still holds it; then 26..28 passed: 24..26; then 25..26 passed: unit
        // 24 is the needed one (removing it alone is what failed first), and the sweep goes on
        // before it with a run of one.
        let (next, _) = after(48, (32, 4), 0, Some(24));
        assert_eq!((next.end, next.run, next.needed_from), (28, 2, Some(24)));
        let (next, _) = after(48, (28, 2), 0, Some(24));
        assert_eq!((next.end, next.run, next.needed_from), (26, 1, Some(24)));
        let (next, kept) = after(48, (26, 1), 0, Some(24));
        assert_eq!((next.end, next.run, next.needed_from), (24, 1, None));
        assert_eq!(kept, Some(vec![0..23, 24..25, 26..48]));
        // A single unit before a failed run of one passed: nothing is known below it.
        let (next, _) = after(48, (26, 1), 2, Some(24));
        assert_eq!((next.end, next.run, next.needed_from), (23, 2, None));
        // The stretch known to hold a needed unit is the first unit: the sweep ends there.
        let (next, kept) = after(4, (2, 2), 1, None);
        assert_eq!((next.end, next.needed_from), (0, None));
        assert_eq!(kept, Some(vec![0..1, 2..3]));
    }

    #[test]
    fn a_sweep_never_tests_a_run_that_holds_a_stretch_known_to_hold_a_needed_unit() {
        // One needed byte among 64, at 20, the test monotone: every failure is a candidate
        // without it. Finding it from the end takes the doubling runs 1..16 (passing) and 32
        // (failing), then a binary search over the 16 units below the last run that passed.
        let text: Vec<u8> = (0..64).collect();
        let course = sweep_with(
            &text,
            1,
            false,
            |_| Duration::ZERO,
            |c: &[u8]| c.contains(&20),
        );
        assert_eq!(course.kept, [20]);
        let failed: Vec<usize> = course
            .judged
            .iter()
            .filter(|(_, outcome)| *outcome == Outcome::NotInteresting)
            .map(|(content, _)| content.len())
            .collect();
        // The lengths of the failing candidates: the runs of 1, 2, 4, 8 and 16 at the end
        // passed, then 1..33 failed (1 left) and 17..33 (17 left); 25..33 passed, so 17..25
        // holds the needed unit: 21..25 passed (not the doubled 9..25, which holds it all),
        // then 19..21 failed (19 left) and 20..21 (20 left); 19 alone passed, the runs before
        // it passed; the last sweep over the needed unit alone (0 left).
        assert_eq!(failed, [1, 17, 19, 20, 0], "{:?}", course.judged);
        assert_eq!(course.runs, 17);
    }
}
