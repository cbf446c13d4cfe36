//! `replace`: a node becomes a shorter text the grammar allows where it stands. The texts are
//! Φ of every kind the place accepts that shares a supertype with the node's kind (a C type
//! name becomes `int`, an expression `0`, a statement `;`), and the further short spellings the
//! grammar gives such kinds (a number `1` when `0` does not do), shortest first; the texts of the
//! node's own kind are always tried (a string becomes `""`).

use std::collections::HashMap;
use std::sync::Arc;

use super::Round;
use super::measure::chars;
use crate::tree::{KindId, NodeId, Tree};

/// How many texts of the place are tried per node, shortest first (those of the node's own
/// kind come on top).
pub const MAX_TEXTS: usize = 2;

/// A place as the grammar sees it: the parent's kind and the field (`None` for the root).
type Place = Option<(KindId, u16)>;

/// The texts a node of a kind may become at a place, shortest first (by length, then bytes),
/// per (parent kind, field, node kind): the same for every tree of a language.
#[derive(Default)]
pub struct PlaceTexts {
    known: HashMap<(Place, KindId), Arc<Texts>>,
}

impl PlaceTexts {
    /// The replacement texts of `node` with fewer non-whitespace characters: the first [`MAX_TEXTS`] of its
    /// place, and those of its own kind (a string literal always tries `""`), shortest first.
    pub fn candidates(&mut self, round: &Round, node: NodeId) -> Vec<Arc<[u8]>> {
        let tree = &*round.tree;
        if !tree.is_named(node)
            || tree.is_synthetic(node)
            || tree.is_extra(node)
            || tree.byte_range(node).len() <= 1
        {
            return Vec::new();
        }
        let texts = self.texts(tree, node);
        let own_chars = round.chars_of(node);
        let shorter = |text: &&Arc<[u8]>| !text.is_empty() && chars(text) < own_chars;
        let mut out: Vec<Arc<[u8]>> = texts
            .place
            .iter()
            .filter(shorter)
            .take(MAX_TEXTS)
            .cloned()
            .collect();
        out.extend(texts.own.iter().filter(shorter).cloned());
        sort_texts(&mut out);
        out
    }

    fn texts(&mut self, tree: &Tree, node: NodeId) -> Arc<Texts> {
        let kind = tree.kind_id(node);
        let place = tree.place_key(node);
        if let Some(texts) = self.known.get(&(place, kind)) {
            return Arc::clone(texts);
        }
        let tables = tree.tables();
        let kind_texts = |kind: KindId| {
            tables
                .phi(kind)
                .into_iter()
                .chain(tables.alternatives(kind).iter().map(|text| &**text))
                .map(Arc::from)
        };
        let mut place_texts: Vec<Arc<[u8]>> = Vec::new();
        if let Some(allowed) = tree.kinds_allowed_at(node) {
            for &other in allowed {
                if tables.compatible(kind, other) {
                    place_texts.extend(kind_texts(other));
                }
            }
        }
        let mut own: Vec<Arc<[u8]>> = kind_texts(kind).collect();
        sort_texts(&mut place_texts);
        sort_texts(&mut own);
        let texts = Arc::new(Texts {
            place: place_texts,
            own,
        });
        self.known.insert((place, kind), Arc::clone(&texts));
        texts
    }
}

/// The texts of one kind at one place.
struct Texts {
    /// Of every kind the place allows that shares a supertype with the node's kind.
    place: Vec<Arc<[u8]>>,
    /// Of the node's own kind.
    own: Vec<Arc<[u8]>>,
}

/// Shortest first, then by bytes (digits before letters: `0` before `A`), without repeats.
fn sort_texts(texts: &mut Vec<Arc<[u8]>>) {
    texts.sort_by(|a, b| (a.len(), a).cmp(&(b.len(), b)));
    texts.dedup();
}
