//! The chunk sweep: a configuration reduced from its end towards its start by removing runs of
//! units, the run doubled after each removal and halved after each failure, repeated until a
//! sweep removes nothing (so the result is 1-minimal). Not an algorithm of the papers: it spends
//! no tests growing a granularity, which pays where few units stay and they depend on each other
//! (definitions used by what follows them), where ddmin's coarse complements all fail.
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
        self.doubling.then_some(0)
    }

    fn render_after_accepting(&self, i: usize, out: &mut Vec<u8>) -> bool {
        match kept_after(self.config.len(), &self.removals[i]) {
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
/// sweep's first removal). `None` when nothing is judged next (nothing is left).
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
    let mut config = units;
    loop {
        let before = config.len();
        sweep_once(domain, &mut config, tester)?;
        if config.len() == before || config.is_empty() {
            tester.note_branch(Branch::Done, config.len());
            return Ok(config);
        }
    }
}

/// One sweep from the end of `config` to its start.
fn sweep_once(
    domain: &dyn Domain,
    config: &mut Vec<UnitId>,
    tester: &mut Tester,
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
    use super::*;

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
}
