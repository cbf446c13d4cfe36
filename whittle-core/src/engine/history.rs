//! The history of a session: every accepted reduction, restorable to restart from it. Texts are
//! stored as deltas against the previous entry, with a full copy every few entries.

use std::sync::Arc;
use std::time::Duration;

use serde::Serialize;

use crate::observe::events::Branch;
use crate::text::delta::Delta;

/// Every this many entries the full text is kept, bounding the cost of restoring one.
const KEYFRAME_EVERY: usize = 32;

/// One accepted reduction, as shown to the user.
#[derive(Clone, Debug, Serialize)]
pub struct HistoryEntry {
    pub index: usize,
    /// Time since the session started.
    pub elapsed: Duration,
    /// Tests run when it was accepted.
    pub tests: u64,
    pub size: usize,
    pub branch: Branch,
    /// The stage of the pipeline that made it.
    pub stage: String,
}

struct Stored {
    entry: HistoryEntry,
    keyframe: Option<Arc<[u8]>>,
    delta: Delta,
}

/// Accepted states, oldest first. Entry 0 is the input.
#[derive(Default)]
pub struct History {
    entries: Vec<Stored>,
    last: Arc<[u8]>,
}

impl History {
    pub fn len(&self) -> usize {
        self.entries.len()
    }

    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// Records a new state; returns its entry.
    pub fn push(&mut self, mut entry: HistoryEntry, text: &[u8]) -> HistoryEntry {
        entry.index = self.entries.len();
        let delta = Delta::between(&self.last, text);
        let keyframe = entry
            .index
            .is_multiple_of(KEYFRAME_EVERY)
            .then(|| Arc::from(text));
        self.last = Arc::from(text);
        self.entries.push(Stored {
            entry: entry.clone(),
            keyframe,
            delta,
        });
        entry
    }

    pub fn entries(&self) -> impl Iterator<Item = &HistoryEntry> {
        self.entries.iter().map(|stored| &stored.entry)
    }

    pub fn entry(&self, index: usize) -> Option<&HistoryEntry> {
        self.entries.get(index).map(|stored| &stored.entry)
    }

    /// The text of entry `index`.
    pub fn text(&self, index: usize) -> Option<Vec<u8>> {
        if index >= self.entries.len() {
            return None;
        }
        let base = (0..=index)
            .rev()
            .find(|&i| self.entries[i].keyframe.is_some())?;
        let mut text = self.entries[base].keyframe.as_deref()?.to_vec();
        for stored in &self.entries[base + 1..=index] {
            text = stored.delta.apply(&text).ok()?;
        }
        Some(text)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn entry() -> HistoryEntry {
        HistoryEntry {
            index: 0,
            elapsed: Duration::ZERO,
            tests: 0,
            size: 0,
            branch: Branch::Manual,
            stage: String::new(),
        }
    }

    #[test]
    fn every_state_is_restored_exactly() {
        let mut history = History::default();
        let mut texts = Vec::new();
        let mut text: Vec<u8> = (0..200u8).collect();
        for i in 0..100usize {
            history.push(entry(), &text);
            texts.push(text.clone());
            // Remove a byte here and there, sometimes insert a replacement.
            let at = (i * 7) % text.len().max(1);
            text.remove(at);
            if i % 5 == 0 {
                text.insert(at / 2, b'#');
            }
        }
        for (i, expected) in texts.iter().enumerate() {
            assert_eq!(history.text(i).as_ref(), Some(expected), "entry {i}");
        }
        assert_eq!(history.text(100), None);
    }
}
