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

/// How to delete `range`: grown over the spaces and tabs after it (or, when there are none,
/// before it), so that no stray blank stays; over its whole line (terminator included) when
/// nothing else is on that line; and replaced by a single space when the deletion would glue
/// two words together.
pub fn deletion(text: &[u8], range: Range<usize>) -> (Range<usize>, Vec<u8>) {
    let horizontal = |b: &u8| *b == b' ' || *b == b'\t' || *b == b'\r';
    let line_start = text[..range.start]
        .iter()
        .rposition(|&b| b == b'\n')
        .map_or(0, |at| at + 1);
    let line_end = text[range.end..]
        .iter()
        .position(|&b| b == b'\n')
        .map_or(text.len(), |at| range.end + at);
    if text[line_start..range.start].iter().all(horizontal)
        && text[range.end..line_end].iter().all(horizontal)
    {
        return if line_end < text.len() {
            (line_start..line_end + 1, Vec::new())
        } else {
            (line_start.saturating_sub(1)..line_end, Vec::new())
        };
    }
    let mut start = range.start;
    let mut end = range.end;
    let after = text[end..line_end]
        .iter()
        .take_while(|b| horizontal(b))
        .count();
    if after > 0 {
        end += after;
    } else {
        start -= text[line_start..start]
            .iter()
            .rev()
            .take_while(|b| horizontal(b))
            .count();
    }
    let glued = start > 0
        && end < text.len()
        && super::lexer::is_word_byte(text[start - 1])
        && super::lexer::is_word_byte(text[end]);
    let new = if glued { b" ".to_vec() } else { Vec::new() };
    (start..end, new)
}

/// A text stage: proposes the edits of the current best, in the order to try them.
pub trait EditStage {
    /// The stage's name (as `-a` takes it).
    fn name(&self) -> &'static str;

    /// The edits of `text` whose `order` is at least `from`, sorted by `order` (the driver
    /// skips any others it is given).
    fn edits(&self, text: &[u8], from: u64) -> Vec<Edit>;
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
        if !run_round(stage, tester, pins, options.greedy)? || !options.fixpoint {
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

/// One round: every edit of the stage tried once. Returns whether one was accepted.
fn run_round(
    stage: &dyn EditStage,
    tester: &mut Tester,
    pins: &dyn Fn() -> Pins,
    greedy: bool,
) -> Result<bool, Stop> {
    let mut from = 0;
    let mut failed: HashSet<u64> = HashSet::new();
    let mut progress = false;
    loop {
        let text = tester.best().to_vec();
        let pins = pins();
        let edits: Vec<Edit> = stage
            .edits(&text, from)
            .into_iter()
            .filter(|edit| {
                edit.order >= from
                    && (edit.identity == 0 || !failed.contains(&edit.identity))
                    && edit.is_well_formed(text.len())
                    && !edit.is_noop(&text)
                    && !edit.touches(&pins)
            })
            .collect();
        if edits.is_empty() {
            return Ok(progress);
        }
        let window = EditWindow {
            text: &text,
            edits: &edits,
        };
        let policy = if greedy {
            WindowPolicy::AllInWindow
        } else {
            WindowPolicy::FirstInOrder
        };
        let found = tester.run_window(&window, policy)?;
        let Some(&chosen) = found.first() else {
            return Ok(progress);
        };
        failed.extend(
            edits[..chosen]
                .iter()
                .map(|edit| edit.identity)
                .filter(|&identity| identity != 0),
        );
        progress = true;
        if found.len() > 1 {
            let together: Vec<&Edit> = found.iter().map(|&i| &edits[i]).collect();
            if let Some(combined) = union(&together) {
                let both = [combined];
                let window = EditWindow {
                    text: &text,
                    edits: &both,
                };
                if !tester
                    .run_window(&window, WindowPolicy::FirstInOrder)?
                    .is_empty()
                {
                    let mut content = Vec::with_capacity(text.len());
                    window.render(0, &mut content);
                    let candidate = Candidate {
                        kind: CandidateKind::Combination,
                        index: chosen as u32,
                        n: edits.len() as u32,
                    };
                    tester.accept(content, None, Branch::Edit, candidate);
                    from = edits[chosen].resume;
                    continue;
                }
            }
        }
        let mut content = Vec::with_capacity(text.len());
        window.render(chosen, &mut content);
        tester.accept(content, None, Branch::Edit, window.candidate(chosen));
        from = edits[chosen].resume;
    }
}

/// The edits of one window as the tester's candidates.
pub struct EditWindow<'a> {
    pub text: &'a [u8],
    pub edits: &'a [Edit],
}

impl CandidateSource for EditWindow<'_> {
    fn len(&self) -> usize {
        self.edits.len()
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
}

#[cfg(test)]
mod tests {
    use super::*;

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
