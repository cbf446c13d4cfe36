//! Edits of the current best and the driver every text stage shares: a stage proposes edits (byte
//! ranges replaced by new text) in the order to try them; the driver judges them through the
//! tester in windows, accepts the first interesting one, asks the stage again on the new best and
//! resumes where it was, and repeats whole rounds until one accepts nothing. At the end no single
//! edit the stage proposes on the result is interesting (the stage's 1-minimality). With greedy
//! windows, when several edits of a window are interesting their union is tried too (one more
//! test for several edits at once), as GreeDDy does with complements.

use std::collections::HashSet;
use std::ops::Range;

use crate::algorithms::pins::Pins;
use crate::observe::events::{Branch, Candidate, CandidateKind, Event};
use crate::testing::control::Stop;
use crate::testing::recall::signature;
use crate::testing::tester::{CandidateSource, Tester, WindowPolicy};

/// Byte ranges of a text, each with the text that replaces it.
pub type Changes = Vec<(Range<usize>, Vec<u8>)>;

/// One candidate of a text stage: byte ranges of the current best replaced by new text.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Edit {
    /// The replaced ranges, sorted and disjoint, each with its new text.
    pub changes: Changes,
    /// Where the edit falls in its stage's order within a round (non-decreasing in the order
    /// the stage lists its edits).
    pub order: u64,
    /// Where the round resumes after this edit was accepted: the first edit of the new best
    /// with an `order` at least this is tried next.
    pub resume: u64,
    /// An identity that survives other edits (0: none). An edit whose identity failed earlier
    /// in the round is not tried again in that round.
    pub identity: u64,
}

impl Edit {
    /// Deletes one range.
    pub fn delete(range: Range<usize>, order: u64) -> Edit {
        Edit::replace(vec![(range, Vec::new())], order)
    }

    /// Replaces ranges (sorted, disjoint) by new texts.
    pub fn replace(changes: Changes, order: u64) -> Edit {
        Edit {
            changes,
            order,
            resume: order,
            identity: 0,
        }
    }

    pub fn with_resume(mut self, resume: u64) -> Edit {
        self.resume = resume;
        self
    }

    pub fn with_identity(mut self, identity: u64) -> Edit {
        self.identity = identity;
        self
    }

    /// Writes `text` with the edit applied into `out`.
    pub fn apply(&self, text: &[u8], out: &mut Vec<u8>) {
        let mut at = 0;
        for (range, new) in &self.changes {
            out.extend_from_slice(&text[at..range.start]);
            out.extend_from_slice(new);
            at = range.end;
        }
        out.extend_from_slice(&text[at..]);
    }

    /// How many bytes the edit removes (negative when it grows the text).
    pub fn saving(&self) -> isize {
        self.changes
            .iter()
            .map(|(range, new)| range.len() as isize - new.len() as isize)
            .sum()
    }

    /// Whether the edit changes nothing.
    pub fn is_noop(&self, text: &[u8]) -> bool {
        self.changes
            .iter()
            .all(|(range, new)| text.get(range.clone()) == Some(new.as_slice()))
    }

    /// Whether the edit changes pinned bytes. An insertion at the very edge of a pin does not.
    pub fn touches(&self, pins: &Pins) -> bool {
        self.changes.iter().any(|(range, _)| {
            if range.is_empty() {
                pins.ranges()
                    .iter()
                    .any(|pin| pin.start < range.start && range.start < pin.end)
            } else {
                pins.touches(range.clone())
            }
        })
    }

    fn is_well_formed(&self, len: usize) -> bool {
        let mut at = 0;
        self.changes.iter().all(|(range, _)| {
            let ok = at <= range.start && range.start <= range.end && range.end <= len;
            at = range.end;
            ok
        })
    }
}

/// Order keys for positional stages: a byte position and a variant (0-3) at that position.
pub fn position_order(position: usize, variant: u64) -> u64 {
    ((position as u64) << 2) | (variant & 3)
}

/// `ranges` in order, those that start inside an earlier one left out (they go with it): the
/// ranges left do not overlap.
pub fn outermost(mut ranges: Vec<Range<usize>>) -> Vec<Range<usize>> {
    ranges.sort_by_key(|range| (range.start, std::cmp::Reverse(range.end)));
    let mut outer: Vec<Range<usize>> = Vec::new();
    for range in ranges {
        if outer.last().is_none_or(|last| range.start >= last.end) {
            outer.push(range);
        }
    }
    outer
}

/// How to delete `range`: grown over the spaces and tabs after it (or, when there are none,
/// before it), so that no stray blank stays; over its whole line (terminator included) when
/// nothing else is on that line; and replaced by a single space when the deletion would glue
/// two words together.
pub fn deletion(text: &[u8], range: Range<usize>) -> (Range<usize>, Vec<u8>) {
    let horizontal = |b: &u8| *b == b' ' || *b == b'\t' || *b == b'\r';
    // Only the blanks right around the range are read (never the rest of its line), so that a
    // deletion costs the same on a line of megabytes as on a short one.
    let before = text[..range.start]
        .iter()
        .rev()
        .take_while(|b| horizontal(b))
        .count();
    let after = text[range.end..]
        .iter()
        .take_while(|b| horizontal(b))
        .count();
    let (blank_start, blank_end) = (range.start - before, range.end + after);
    let alone_on_line = (blank_start == 0 || text[blank_start - 1] == b'\n')
        && (blank_end == text.len() || text[blank_end] == b'\n');
    if alone_on_line {
        let (line_start, line_end) = (blank_start, blank_end);
        return if line_end < text.len() {
            (line_start..line_end + 1, Vec::new())
        } else {
            (line_start.saturating_sub(1)..line_end, Vec::new())
        };
    }
    let (start, end) = if after > 0 {
        (range.start, blank_end)
    } else {
        (blank_start, range.end)
    };
    let glued = start > 0
        && end < text.len()
        && super::lexer::is_word_byte(text[start - 1])
        && super::lexer::is_word_byte(text[end]);
    let new = if glued { b" ".to_vec() } else { Vec::new() };
    (start..end, new)
}

/// How many edits a round asks a stage for at once: the edits of a file of ordinary size come
/// in one batch, and a line of megabytes is not turned into millions of edits before its first
/// test.
pub const EDITS_PER_BATCH: usize = 1 << 16;

/// Units of work (tokens, regions, words) between two questions whether the run must stop.
const WORK_BETWEEN_STOP_CHECKS: u32 = 1024;

fn never_stop() -> Result<(), Stop> {
    Ok(())
}

/// What a round asks of a stage: its edits from an order on, how many make a batch, and the
/// question whether the run must stop, asked as the stage works.
pub struct EditRequest<'a> {
    /// The smallest `order` wanted.
    pub from: u64,
    /// A stage ordered by position may stop at the end of the position at which it has this
    /// many edits: a round that finds nothing interesting among them asks again past the
    /// last. A stage that stops early has at least this many.
    pub batch: usize,
    stop: &'a dyn Fn() -> Result<(), Stop>,
    work: std::cell::Cell<u32>,
}

impl<'a> EditRequest<'a> {
    pub fn new(from: u64, batch: usize, stop: &'a dyn Fn() -> Result<(), Stop>) -> Self {
        EditRequest {
            from,
            batch: batch.max(1),
            stop,
            work: std::cell::Cell::new(0),
        }
    }

    /// Every edit from `from` on, in one batch, never stopped.
    pub fn all(from: u64) -> EditRequest<'static> {
        EditRequest::new(from, usize::MAX, &never_stop)
    }

    /// Whether `edits` edits fill the batch.
    pub fn is_full(&self, edits: usize) -> bool {
        edits >= self.batch
    }

    /// Counts one unit of work (a token, a region, a word); every so often asks whether the run
    /// must stop, and returns why if it must.
    pub fn work(&self) -> Result<(), Stop> {
        self.work_on(1)
    }

    /// Counts `units` units of work (see [`EditRequest::work`]).
    pub fn work_on(&self, units: usize) -> Result<(), Stop> {
        let before = self.work.get();
        let units = u32::try_from(units).unwrap_or(u32::MAX);
        let after = before.wrapping_add(units);
        self.work.set(after);
        let crossed = units >= WORK_BETWEEN_STOP_CHECKS
            || before / WORK_BETWEEN_STOP_CHECKS != after / WORK_BETWEEN_STOP_CHECKS;
        if crossed { (self.stop)() } else { Ok(()) }
    }

    /// Asks now whether the run must stop (before or after a long piece of work).
    pub fn check_stop(&self) -> Result<(), Stop> {
        (self.stop)()
    }
}

/// A text stage: proposes the edits of the current best, in the order to try them.
pub trait EditStage {
    /// The stage's name (as `-a` takes it).
    fn name(&self) -> &'static str;

    /// The edits of `text` whose `order` is at least `request.from`, sorted by `order` (the
    /// driver skips any others it is given); a stage ordered by position may stop after a
    /// batch (see [`EditRequest::batch`]). Ends early with the stop the request reports.
    fn edits_for(&self, text: &[u8], request: &EditRequest<'_>) -> Result<Vec<Edit>, Stop>;

    /// Every edit of `text` whose `order` is at least `from`, in one batch.
    fn edits(&self, text: &[u8], from: u64) -> Vec<Edit> {
        self.edits_for(text, &EditRequest::all(from))
            .unwrap_or_default()
    }
}

/// Every edit `stage` proposes on `text` from the start, applied: the candidates a round would
/// try, in order.
pub fn rendered_edits(stage: &dyn EditStage, text: &[u8]) -> Vec<String> {
    stage
        .edits(text, 0)
        .iter()
        .map(|edit| {
            let mut out = Vec::new();
            edit.apply(text, &mut out);
            String::from_utf8_lossy(&out).into_owned()
        })
        .collect()
}

/// [`rendered_edits`] of the stage `stage` makes for the language named `language`.
#[cfg(test)]
pub fn rendered_edits_in<S: EditStage>(
    language: &str,
    text: &str,
    stage: impl FnOnce(&'static crate::tree::Language) -> S,
) -> Vec<String> {
    let Ok(language) = crate::tree::Language::by_name(language) else {
        panic!("no language {language}");
    };
    rendered_edits(&stage(language), text.as_bytes())
}

/// How a text stage runs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct EditOptions {
    /// Rounds until one accepts nothing (else one round).
    pub fixpoint: bool,
    /// Several interesting edits of a window are tried together.
    pub greedy: bool,
}

/// Runs a text stage on the tester's current best to its fixed point (one round when
/// `fixpoint` is off). Edits that change pinned bytes (`pins` is asked before each window) are
/// never tried.
pub fn run_edit_stage(
    stage: &dyn EditStage,
    tester: &mut Tester,
    pins: &dyn Fn() -> Pins,
    options: EditOptions,
) -> Result<(), Stop> {
    for iteration in 1.. {
        tester.emit(Event::FixpointIteration {
            stage: stage.name().to_owned(),
            iteration,
        });
        if !run_round(stage, tester, pins, options.greedy, EDITS_PER_BATCH)? || !options.fixpoint {
            break;
        }
    }
    Ok(())
}

/// The union of `edits` as one edit, when their changes do not overlap.
fn union(edits: &[&Edit]) -> Option<Edit> {
    let mut changes: Changes = edits
        .iter()
        .flat_map(|edit| edit.changes.iter().cloned())
        .collect();
    changes.sort_by_key(|(range, _)| (range.start, range.end));
    let disjoint = changes
        .windows(2)
        .all(|pair| pair[0].0.end <= pair[1].0.start && !pair[1].0.is_empty());
    disjoint.then(|| {
        let first = edits[0];
        Edit {
            changes,
            ..first.clone()
        }
    })
}

/// One round: every edit of the stage tried once, asked for `batch` at a time. Returns whether
/// one was accepted.
fn run_round(
    stage: &dyn EditStage,
    tester: &mut Tester,
    pins: &dyn Fn() -> Pins,
    greedy: bool,
    batch: usize,
) -> Result<bool, Stop> {
    let mut from = 0;
    let mut failed: HashSet<u64> = HashSet::new();
    let mut progress = false;
    loop {
        let text = tester.best().to_vec();
        let (mut edits, next_batch) =
            edits_to_try(stage, tester, &text, &pins(), from, batch, &failed)?;
        let signatures = tester.recall_mut().retain_untried(&mut edits, |edit| {
            let changes = edit.changes.iter();
            signature(
                stage.name(),
                &text,
                changes.map(|(r, new)| (r.clone(), &new[..])),
            )
        });
        if edits.is_empty() {
            match next_batch {
                Some(next) => {
                    from = next;
                    continue;
                }
                None => return Ok(progress),
            }
        }
        let window = EditWindow {
            text: &text,
            edits: &edits,
            signatures: &signatures,
        };
        let policy = if greedy {
            WindowPolicy::AllInWindow
        } else {
            WindowPolicy::FirstInOrder
        };
        let found = tester.run_window(&window, policy)?;
        let Some(&chosen) = found.first() else {
            match next_batch {
                Some(next) => {
                    failed.extend(
                        edits
                            .iter()
                            .map(|edit| edit.identity)
                            .filter(|&identity| identity != 0),
                    );
                    from = next;
                    continue;
                }
                None => return Ok(progress),
            }
        };
        failed.extend(
            edits[..chosen]
                .iter()
                .map(|edit| edit.identity)
                .filter(|&identity| identity != 0),
        );
        progress = true;
        if found.len() > 1 && accept_union(tester, &text, &edits, &found)? {
            from = edits[chosen].resume;
            continue;
        }
        let mut content = Vec::with_capacity(text.len());
        window.render(chosen, &mut content);
        tester.accept(content, None, Branch::Edit, window.candidate(chosen));
        from = edits[chosen].resume;
    }
}

/// The edits the stage proposes from `from` on, `batch` at a time, that are worth a test: not
/// failed before in this round, well formed, changing something, touching no pin. Also where
/// the next batch starts, when the stage cut one (it has at least `batch` edits then).
fn edits_to_try(
    stage: &dyn EditStage,
    tester: &Tester,
    text: &[u8],
    pins: &Pins,
    from: u64,
    batch: usize,
    failed: &HashSet<u64>,
) -> Result<(Vec<Edit>, Option<u64>), Stop> {
    let proposed = {
        let stop = || tester.interruption();
        stage.edits_for(text, &EditRequest::new(from, batch, &stop))?
    };
    let wanted = proposed.iter().filter(|edit| edit.order >= from);
    let next_batch = wanted
        .clone()
        .map(|edit| edit.order)
        .max()
        .filter(|_| wanted.count() >= batch)
        .and_then(|last| last.checked_add(1));
    let edits: Vec<Edit> = proposed
        .into_iter()
        .filter(|edit| {
            edit.order >= from
                && (edit.identity == 0 || !failed.contains(&edit.identity))
                && edit.is_well_formed(text.len())
                && edit.saving() >= 0
                && !edit.is_noop(text)
                && !edit.touches(pins)
        })
        .collect();
    Ok((edits, next_batch))
}

/// Several edits of a greedy window were interesting (`found`, the first is the one chosen):
/// tries their union, and accepts it when it is interesting too. Returns whether it was.
fn accept_union(
    tester: &mut Tester,
    text: &[u8],
    edits: &[Edit],
    found: &[usize],
) -> Result<bool, Stop> {
    let together: Vec<&Edit> = found.iter().map(|&i| &edits[i]).collect();
    let Some(combined) = union(&together) else {
        return Ok(false);
    };
    let both = [combined];
    let window = EditWindow {
        text,
        edits: &both,
        signatures: &[],
    };
    if tester
        .run_window(&window, WindowPolicy::FirstInOrder)?
        .is_empty()
    {
        return Ok(false);
    }
    let mut content = Vec::with_capacity(text.len());
    window.render(0, &mut content);
    let candidate = Candidate {
        kind: CandidateKind::Combination,
        index: found[0] as u32,
        n: edits.len() as u32,
    };
    tester.accept(content, None, Branch::Edit, candidate);
    Ok(true)
}

/// The edits of one window as the tester's candidates.
pub struct EditWindow<'a> {
    pub text: &'a [u8],
    pub edits: &'a [Edit],
    /// The recall's signature of each edit (empty when nothing is noted).
    pub signatures: &'a [u64],
}

impl CandidateSource for EditWindow<'_> {
    fn len(&self) -> usize {
        self.edits.len()
    }

    fn recall_signature(&self, i: usize) -> Option<u64> {
        self.signatures.get(i).copied()
    }

    fn candidate(&self, i: usize) -> Candidate {
        Candidate {
            kind: CandidateKind::Edit,
            index: i as u32,
            n: self.edits.len() as u32,
        }
    }

    fn config(&self, _: usize) -> Option<Vec<&[crate::exec::cache::UnitId]>> {
        None
    }

    fn render(&self, i: usize, out: &mut Vec<u8>) {
        self.edits[i].apply(self.text, out);
    }

    fn removed_spans(&self, i: usize) -> Vec<Range<usize>> {
        self.edits[i]
            .changes
            .iter()
            .map(|(range, _)| range.clone())
            .filter(|range| !range.is_empty())
            .collect()
    }

    fn replacements(&self, i: usize) -> Vec<String> {
        let changes = self.edits[i].changes.iter();
        let replacing = changes.filter(|(range, _)| !range.is_empty());
        if replacing.clone().all(|(_, new)| new.is_empty()) {
            return Vec::new();
        }
        replacing
            .map(|(_, new)| crate::text::describe::snippet(new, 40))
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A window cut short (a stage on probation out of its budget) keeps what its tests
    /// learnt: the stage's next run, while the recall skips, does not test those edits again.
    #[test]
    fn a_window_cut_short_keeps_what_its_failed_tests_taught_the_recall() {
        use std::sync::Arc;
        use std::sync::atomic::{AtomicUsize, Ordering};

        use crate::algorithms::passes::lexer::Syntax;
        use crate::algorithms::passes::tokens::TokenWindows;
        use crate::exec::cache::CachePolicy;
        use crate::params::Knobs;
        use crate::testing::control::Control;

        let text = b"a = b;";
        let runs = Arc::new(AtomicUsize::new(0));
        let counted = Arc::clone(&runs);
        let oracle = crate::exec::oracle::predicate("the whole text", move |c: &[u8]| {
            counted.fetch_add(1, Ordering::SeqCst);
            c == text
        });
        let control = Arc::new(Control::new(Knobs::default()));
        let mut tester = Tester::new(Arc::new(oracle), CachePolicy::recommended(), control);
        tester.set_best(text.to_vec());
        let stage = TokenWindows::new(Syntax::CLike);
        let edits = stage.edits(text, 0).len();
        let options = EditOptions {
            fixpoint: true,
            greedy: false,
        };
        tester.recall_mut().start_run(true);
        tester.set_failure_budget(Some(3));
        let cut = run_edit_stage(&stage, &mut tester, &|| Pins::default(), options);
        assert!(matches!(cut, Err(Stop::Budget)), "{cut:?}");
        assert_eq!(runs.load(Ordering::SeqCst), 3);
        tester.set_failure_budget(None);
        tester.recall_mut().end_run();
        tester.recall_mut().start_run(true);
        run_edit_stage(&stage, &mut tester, &|| Pins::default(), options).unwrap();
        tester.recall_mut().end_run();
        assert_eq!(
            runs.load(Ordering::SeqCst),
            edits,
            "the 3 failed are skipped"
        );
        assert_eq!(tester.recall().skipped(), 3);
    }

    #[test]
    fn edits_apply_in_order() {
        let edit = Edit::replace(vec![(1..2, b"xy".to_vec()), (3..5, Vec::new())], 0);
        let mut out = Vec::new();
        edit.apply(b"abcdef", &mut out);
        assert_eq!(out, b"axycf");
        assert_eq!(edit.saving(), 1);
        assert!(!edit.is_noop(b"abcdef"));
        assert!(Edit::replace(vec![(1..2, b"b".to_vec())], 0).is_noop(b"abc"));
    }

    #[test]
    fn deletions_take_their_blanks() {
        assert_eq!(deletion(b"a b c", 2..3), (2..4, Vec::new()));
        assert_eq!(deletion(b"a b\nc", 2..3), (1..3, Vec::new()));
        assert_eq!(deletion(b"a+b", 1..2), (1..2, b" ".to_vec()));
        assert_eq!(deletion(b"(a)", 0..1), (0..1, Vec::new()));
        // A line left blank goes with its terminator (or, last, with the one before it).
        assert_eq!(deletion(b"a\n  b c \nd", 4..7), (2..9, Vec::new()));
        assert_eq!(deletion(b"a\n  b", 4..5), (1..5, Vec::new()));
        assert_eq!(deletion(b"b", 0..1), (0..1, Vec::new()));
    }

    #[test]
    fn unions_of_disjoint_edits() {
        let a = Edit::delete(4..6, 4);
        let b = Edit::replace(vec![(0..1, b"x".to_vec()), (8..9, Vec::new())], 0);
        let both = union(&[&a, &b]).unwrap();
        let mut out = Vec::new();
        both.apply(b"0123456789", &mut out);
        assert_eq!(out, b"x123679");
        assert_eq!(both.order, 4);
        assert!(union(&[&a, &Edit::delete(5..7, 5)]).is_none());
    }

    /// The candidates the token stage tests on `text` (to its fixed point, one test at a
    /// time), asked for `batch` edits at a time, and its result.
    fn tokens_in_batches(text: &str, batch: usize) -> (Vec<Vec<u8>>, Vec<u8>) {
        use std::sync::{Arc, Mutex};
        let tested = Arc::new(Mutex::new(Vec::new()));
        let seen = Arc::clone(&tested);
        let oracle = crate::exec::oracle::predicate("keeps b and d", move |candidate: &[u8]| {
            seen.lock().unwrap().push(candidate.to_vec());
            let words: Vec<&[u8]> = candidate.split(|&b| b == b' ').collect();
            words.contains(&&b"b"[..]) && words.contains(&&b"d"[..])
        });
        let control = crate::testing::control::Control::new(crate::params::Knobs {
            jobs: 1,
            ..crate::params::Knobs::default()
        });
        let mut tester = Tester::new(
            Arc::new(oracle),
            crate::exec::cache::CachePolicy::recommended(),
            Arc::new(control),
        );
        tester.set_best(text.as_bytes().to_vec());
        let stage = super::super::tokens::TokenWindows::new(super::super::Syntax::Plain);
        while run_round(&stage, &mut tester, &Pins::default, false, batch).unwrap() {}
        let tested = tested.lock().unwrap().clone();
        (tested, tester.best().to_vec())
    }

    #[test]
    fn batches_change_no_candidate_and_no_result() {
        let text = "a b c d e f g h i j";
        let whole = tokens_in_batches(text, usize::MAX);
        assert_eq!(whole.1, b"b d");
        for batch in [1, 2, 4, 7] {
            assert_eq!(tokens_in_batches(text, batch), whole, "batches of {batch}");
        }
    }

    #[test]
    fn pins_block_edits_that_change_them() {
        let mut pins = Pins::default();
        pins.add(2..4);
        assert!(Edit::delete(3..5, 0).touches(&pins));
        assert!(!Edit::delete(4..5, 0).touches(&pins));
        assert!(!Edit::replace(vec![(2..2, b"x".to_vec())], 0).touches(&pins));
        assert!(Edit::replace(vec![(3..3, b"x".to_vec())], 0).touches(&pins));
    }
}
