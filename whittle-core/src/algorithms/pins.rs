//! Pins: parts of the current best the user wants kept intact. They are byte ranges of the
//! current best, carried over every accepted reduction (the pinned text is never edited, so it
//! is found again in the new best).

use std::ops::Range;

use similar::{Algorithm, DiffOp, capture_diff_slices_deadline};

use crate::exec::cache::UnitId;
use crate::text::atoms::Span;

/// The pinned byte ranges of the current best, sorted and disjoint.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Pins {
    ranges: Vec<Range<usize>>,
}

impl Pins {
    pub fn is_empty(&self) -> bool {
        self.ranges.is_empty()
    }

    pub fn ranges(&self) -> &[Range<usize>] {
        &self.ranges
    }

    /// Pins `range` (merged with overlapping or touching pins).
    pub fn add(&mut self, range: Range<usize>) {
        if range.is_empty() {
            return;
        }
        self.ranges.push(range);
        self.normalize();
    }

    /// Unpins every byte of `range`.
    pub fn remove(&mut self, range: Range<usize>) {
        let mut kept = Vec::with_capacity(self.ranges.len() + 1);
        for pin in self.ranges.drain(..) {
            if pin.end <= range.start || pin.start >= range.end {
                kept.push(pin);
                continue;
            }
            if pin.start < range.start {
                kept.push(pin.start..range.start);
            }
            if range.end < pin.end {
                kept.push(range.end..pin.end);
            }
        }
        self.ranges = kept;
    }

    pub fn clear(&mut self) {
        self.ranges.clear();
    }

    fn normalize(&mut self) {
        self.ranges.sort_by_key(|r| (r.start, r.end));
        let mut merged: Vec<Range<usize>> = Vec::with_capacity(self.ranges.len());
        for range in self.ranges.drain(..) {
            match merged.last_mut() {
                Some(last) if range.start <= last.end => last.end = last.end.max(range.end),
                _ => merged.push(range),
            }
        }
        self.ranges = merged;
    }

    /// Whether `range` overlaps a pin.
    pub fn touches(&self, range: Range<usize>) -> bool {
        self.ranges
            .iter()
            .any(|pin| pin.start < range.end && range.start < pin.end)
    }

    /// The units (of a text cut into `spans`) that overlap a pin: they stay in every candidate.
    pub fn pinned_units(&self, spans: &[Span]) -> Vec<UnitId> {
        if self.ranges.is_empty() {
            return Vec::new();
        }
        spans
            .iter()
            .enumerate()
            .filter(|(_, span)| self.touches(span.range()))
            .map(|(unit, _)| unit as UnitId)
            .collect()
    }

    /// Whether every pin of `old` appears intact in `new` at the position `map_through` found.
    pub fn intact_in(&self, old: &[u8], new: &[u8], mapped: &Pins) -> bool {
        self.ranges.len() == mapped.ranges.len()
            && self
                .ranges
                .iter()
                .zip(&mapped.ranges)
                .all(|(a, b)| new.get(b.clone()) == old.get(a.clone()))
    }

    /// The pins of `new`, given that they were the pins of `old` and the pinned text was not
    /// edited. A whole-text diff predicts where each pin went; the pinned text is then looked
    /// for at that position, or at the nearest place after the previous pin where it occurs.
    /// Pins whose text cannot be found are dropped.
    pub fn map_through(&self, old: &[u8], new: &[u8]) -> Pins {
        if self.ranges.is_empty() {
            return Pins::default();
        }
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(2);
        let ops = capture_diff_slices_deadline(Algorithm::Myers, old, new, Some(deadline));
        let predict = |offset: usize| -> usize {
            for op in &ops {
                let (old_index, new_index, old_len) = match *op {
                    DiffOp::Equal {
                        old_index,
                        new_index,
                        len,
                    } => (old_index, new_index, len),
                    DiffOp::Delete {
                        old_index,
                        new_index,
                        old_len,
                    } => (old_index, new_index, old_len),
                    DiffOp::Insert { .. } => continue,
                    DiffOp::Replace {
                        old_index,
                        new_index,
                        old_len,
                        ..
                    } => (old_index, new_index, old_len),
                };
                if offset < old_index + old_len {
                    return match op {
                        DiffOp::Equal { .. } => new_index + (offset - old_index),
                        _ => new_index,
                    };
                }
            }
            new.len()
        };
        let mut mapped = Vec::new();
        let mut floor = 0;
        for pin in &self.ranges {
            let text = &old[pin.clone()];
            if let Some(at) = find_nearest(new, text, floor, predict(pin.start)) {
                mapped.push(at..at + text.len());
                floor = at + text.len();
            }
        }
        Pins { ranges: mapped }
    }
}

/// The occurrence of `needle` in `haystack[floor..]` nearest to `predicted`.
fn find_nearest(haystack: &[u8], needle: &[u8], floor: usize, predicted: usize) -> Option<usize> {
    let fits = |at: usize| haystack.get(at..at + needle.len()) == Some(needle);
    let predicted = predicted.max(floor);
    if fits(predicted) {
        return Some(predicted);
    }
    let last = haystack.len().checked_sub(needle.len())?;
    (1..=last.max(predicted)).find_map(|distance| {
        let after = predicted + distance;
        let before = predicted.checked_sub(distance).filter(|&b| b >= floor);
        [before, Some(after)]
            .into_iter()
            .flatten()
            .find(|&at| at <= last && fits(at))
    })
}

/// Byte range of lines `lines` (0-based, end exclusive) of `text`.
pub fn line_range(text: &[u8], lines: Range<usize>) -> Range<usize> {
    let spans = crate::text::atoms::split(text, crate::text::atoms::AtomKind::Line);
    let start = spans
        .get(lines.start)
        .map_or(text.len(), |s| s.start as usize);
    let end = if lines.end == 0 {
        start
    } else {
        spans
            .get(lines.end - 1)
            .map_or(text.len(), |s| s.end as usize)
    };
    start..end.max(start)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pins_merge_and_split() {
        let mut pins = Pins::default();
        pins.add(5..8);
        pins.add(1..3);
        pins.add(7..10);
        assert_eq!(pins.ranges(), [1..3, 5..10]);
        pins.remove(6..7);
        assert_eq!(pins.ranges(), [1..3, 5..6, 7..10]);
    }

    #[test]
    fn pins_follow_their_text_through_removals() {
        let old = b"aaa\nKEEP\nbbb\nccc\nTOO\n";
        let new = b"KEEP\nccc\nTOO\n";
        let mut pins = Pins::default();
        pins.add(4..9);
        pins.add(17..21);
        let mapped = pins.map_through(old, new);
        assert_eq!(mapped.ranges(), [0..5, 9..13]);
        assert!(pins.intact_in(old, new, &mapped));
    }

    #[test]
    fn pinned_units_are_those_overlapping_a_pin() {
        let text = b"a\nbb\nc\n";
        let spans = crate::text::atoms::split(text, crate::text::atoms::AtomKind::Line);
        let mut pins = Pins::default();
        pins.add(line_range(text, 1..2));
        assert_eq!(pins.ranges(), &[Range { start: 2, end: 5 }]);
        assert_eq!(pins.pinned_units(&spans), [1]);
    }
}
