//! The units of a text (lines, characters, tokens, blocks) as a ddmin [`Domain`]: candidates
//! keep the pinned units, and a unit goes with the units that use it when it is given them.

use std::ops::Range;

use crate::exec::cache::UnitId;
use crate::text::atoms::Span;

use super::Domain;

/// Line, character, token and block units of a text.
#[derive(Clone)]
pub struct TextDomain<'a> {
    text: &'a [u8],
    spans: Vec<Span>,
    /// Units that are never removed: rendered into every candidate.
    pinned: Vec<UnitId>,
    /// For each unit, the units that use it and go when it goes (empty: none do).
    users: Vec<Vec<UnitId>>,
}

impl<'a> TextDomain<'a> {
    pub fn new(text: &'a [u8], spans: Vec<Span>) -> Self {
        TextDomain {
            text,
            spans,
            pinned: Vec::new(),
            users: Vec::new(),
        }
    }

    /// Each unit's users (see [`crate::algorithms::references`]): a candidate without a unit
    /// lacks its users too, and theirs.
    pub fn with_users(mut self, users: Vec<Vec<UnitId>>) -> Self {
        self.users = users;
        self
    }

    /// The units that use `unit` (none without [`TextDomain::with_users`]).
    pub fn users_of(&self, unit: UnitId) -> &[UnitId] {
        self.users.get(unit as usize).map_or(&[], Vec::as_slice)
    }

    /// Units that stay in every candidate (they must not be among the units given to ddmin).
    pub fn with_pinned(mut self, mut pinned: Vec<UnitId>) -> Self {
        pinned.sort_unstable();
        pinned.dedup();
        self.pinned = pinned;
        self
    }

    /// Which units the rendering of the configuration made of `parts` holds: its units but
    /// those that use, directly or through others, a unit it lacks (pinned units stay).
    fn holds(&self, parts: &[&[UnitId]]) -> Vec<bool> {
        let mut held = vec![false; self.spans.len()];
        for &unit in self
            .pinned
            .iter()
            .chain(parts.iter().flat_map(|part| part.iter()))
        {
            held[unit as usize] = true;
        }
        let mut gone: Vec<UnitId> = (0..self.spans.len() as UnitId)
            .filter(|&unit| !held[unit as usize])
            .collect();
        while let Some(unit) = gone.pop() {
            for &user in &self.users[unit as usize] {
                if held[user as usize] && self.pinned.binary_search(&user).is_err() {
                    held[user as usize] = false;
                    gone.push(user);
                }
            }
        }
        held
    }

    pub fn unit_count(&self) -> usize {
        self.spans.len()
    }

    pub fn span(&self, unit: UnitId) -> Span {
        self.spans[unit as usize]
    }
}

impl Domain for TextDomain<'_> {
    fn unit_spans(&self, config: &[UnitId]) -> Option<Vec<Range<usize>>> {
        let mut spans = Vec::with_capacity(config.len());
        let mut pinned = self.pinned.iter().copied().peekable();
        let mut at = 0;
        for &unit in config {
            while let Some(p) = pinned.next_if(|&p| p < unit) {
                at += self.spans[p as usize].len();
            }
            let len = self.spans[unit as usize].len();
            spans.push(at..at + len);
            at += len;
        }
        Some(spans)
    }

    fn has_users(&self) -> bool {
        !self.users.is_empty()
    }

    fn held(&self, config: &[UnitId]) -> Option<Vec<UnitId>> {
        if self.users.is_empty() {
            return None;
        }
        let held = self.holds(&[config]);
        let kept: Vec<UnitId> = config
            .iter()
            .copied()
            .filter(|&unit| held[unit as usize])
            .collect();
        (kept.len() < config.len()).then_some(kept)
    }

    fn render(&self, parts: &[&[UnitId]], out: &mut Vec<u8>) {
        let units = parts.iter().flat_map(|part| part.iter().copied());
        if self.users.is_empty() {
            self.render_units(units, out);
        } else {
            let held = self.holds(parts);
            self.render_units(units.filter(|&unit| held[unit as usize]), out);
        }
    }
}

impl TextDomain<'_> {
    /// Writes `units` (in order) with the pinned units in place.
    fn render_units(&self, units: impl Iterator<Item = UnitId>, out: &mut Vec<u8>) {
        let mut pinned = self.pinned.iter().copied().peekable();
        let mut run: Option<(usize, usize)> = None;
        let mut emit = |unit: UnitId, out: &mut Vec<u8>| {
            let span = self.spans[unit as usize];
            let (start, end) = (span.start as usize, span.end as usize);
            match &mut run {
                Some((_, run_end)) if *run_end == start => *run_end = end,
                _ => {
                    if let Some((s, e)) = run.replace((start, end)) {
                        out.extend_from_slice(&self.text[s..e]);
                    }
                }
            }
        };
        for unit in units {
            while let Some(&p) = pinned.peek().filter(|&&p| p < unit) {
                emit(p, out);
                pinned.next();
            }
            emit(unit, out);
        }
        for p in pinned {
            emit(p, out);
        }
        if let Some((s, e)) = run {
            out.extend_from_slice(&self.text[s..e]);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_unit_goes_with_its_users_and_theirs_but_not_with_pinned_ones() {
        let text = b"abcdef";
        let spans = (0..6)
            .map(|at| crate::text::atoms::span(at, at + 1))
            .collect();
        // b is used by d, d by e and f; f is pinned.
        let users = vec![vec![], vec![3], vec![], vec![4, 5], vec![], vec![]];
        let domain = TextDomain::new(text, spans)
            .with_users(users)
            .with_pinned(vec![5]);
        let mut out = Vec::new();
        domain.render(&[&[0], &[2, 3, 4]], &mut out);
        assert_eq!(out, b"acf");
        assert_eq!(domain.held(&[0, 2, 3, 4]), Some(vec![0, 2]));
        assert_eq!(domain.held(&[0, 1, 2, 3, 4]), None);
        out.clear();
        domain.render(&[&[1, 2, 3, 4]], &mut out);
        assert_eq!(out, b"bcdef");
    }

    #[test]
    fn text_domain_renders_pins_in_place() {
        let text = b"a\nb\nc\nd\n";
        let domain = TextDomain::new(
            text,
            crate::text::atoms::split(text, crate::text::atoms::AtomKind::Line),
        )
        .with_pinned(vec![1]);
        let mut out = Vec::new();
        domain.render(&[&[0], &[3]], &mut out);
        assert_eq!(out, b"a\nb\nd\n");
        out.clear();
        domain.render(&[], &mut out);
        assert_eq!(out, b"b\n");
    }
}
