//! The short forms of a rule: its text with some fields left as slots for the node's own
//! children, each with its cost; per set of slots only the cheapest is kept, and only the few
//! cheapest sets.

use std::collections::{BTreeMap, BTreeSet};

use super::spelling::join;

/// How many short forms the table lists per kind (and keeps per rule while deriving them).
const FORMS: usize = 8;

/// A piece of a short form: text, or the place of a field to be filled with the node's own.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) enum Piece {
    Text(String),
    Slot(String),
}

/// A short form of a rule and its cost: its text's length plus Φ of each slot's content.
#[derive(Debug, Clone)]
pub(super) struct Form {
    pub(super) pieces: Vec<Piece>,
    pub(super) cost: usize,
}

impl Form {
    pub(super) fn text(text: String) -> Form {
        Form {
            cost: text.len(),
            pieces: vec![Piece::Text(text)],
        }
    }

    /// This form followed by `other`, texts joined as Φ joins them.
    pub(super) fn then(&self, other: &Form) -> Form {
        let mut pieces = self.pieces.clone();
        for piece in &other.pieces {
            match (pieces.last_mut(), piece) {
                (Some(Piece::Text(left)), Piece::Text(right)) => join(left, right, false),
                (_, piece) => pieces.push(piece.clone()),
            }
        }
        Form {
            pieces,
            cost: self.cost + other.cost,
        }
    }

    /// The slots in order.
    fn slots(&self) -> BTreeSet<String> {
        self.pieces
            .iter()
            .filter_map(|piece| match piece {
                Piece::Slot(name) => Some(name.clone()),
                Piece::Text(_) => None,
            })
            .collect()
    }

    /// Text and slot names alternating, starting and ending with a text (as the table stores
    /// them).
    pub(super) fn alternating(&self) -> Vec<String> {
        let mut out = vec![String::new()];
        for piece in &self.pieces {
            match piece {
                Piece::Text(text) => {
                    if let Some(last) = out.last_mut() {
                        last.push_str(text);
                    }
                }
                Piece::Slot(name) => {
                    out.push(name.clone());
                    out.push(String::new());
                }
            }
        }
        out
    }
}

/// The cheapest form per set of slots, at most [`FORMS`] of them (the cheapest).
pub(super) type Forms = BTreeMap<BTreeSet<String>, Form>;

pub(super) fn offer_form(forms: &mut Forms, form: Form) {
    let slots = form.slots();
    match forms.get(&slots) {
        Some(known) if known.cost <= form.cost => {}
        _ => {
            forms.insert(slots, form);
        }
    }
}

pub(super) fn keep_cheapest(forms: Forms) -> Forms {
    let mut all: Vec<(BTreeSet<String>, Form)> = forms.into_iter().collect();
    all.sort_by_key(|(slots, form)| (form.cost, slots.len()));
    all.truncate(FORMS);
    all.into_iter().collect()
}
