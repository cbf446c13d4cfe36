//! What the user does by hand to the current best: pins, proposed edits (bytes, lines, nodes,
//! hoists), restarts from history and undos.

use std::ops::Range;
use std::sync::Arc;

use crate::engine::pipeline::{Pins, line_range};
use crate::observe::events::{Branch, Candidate, CandidateKind, Event};
use crate::outcome::Outcome;
use crate::testing::tester::Tester;
use crate::tree::{self, NodeId, Preprocess};

use super::engine::Engine;
use super::{ManualEdit, PinTarget, lock};

/// A proposed edit made concrete on the current best.
pub(super) struct EditedCandidate {
    pub(super) content: Vec<u8>,
    /// The candidate's index (the node, or the first byte removed).
    pub(super) index: u32,
    /// What it removes or replaces of the current best (for displays).
    pub(super) removed: Vec<Range<usize>>,
    /// In words, with the node's kind, text and place.
    pub(super) description: String,
}

impl EditedCandidate {
    /// The candidate as events name it: a hoist, or another manual edit.
    pub(super) fn candidate(&self, edit: &ManualEdit) -> Candidate {
        let kind = match edit {
            ManualEdit::Hoist { .. } => CandidateKind::Hoist,
            _ => CandidateKind::Manual,
        };
        Candidate {
            kind,
            index: self.index,
            n: 1,
        }
    }

    /// Whether it leaves the pinned text of `best` (its `pins`) as it is.
    pub(super) fn keeps(&self, pins: &Pins, best: &[u8]) -> bool {
        pins.is_empty() || {
            let mapped = pins.map_through(best, &self.content);
            pins.intact_in(best, &self.content, &mapped)
        }
    }
}

impl Engine {
    /// Pins (or unpins) what `target` denotes, resolved once (a node target parses the best).
    pub(super) fn pin(&self, tester: &Tester, target: &PinTarget, pin: bool) {
        match self.resolve(tester, target) {
            None => self.reject(tester, "pin", "the target is not part of the current best"),
            Some(range) if pin => self.change_pins(tester, |pins| pins.add(range)),
            Some(range) => self.change_pins(tester, |pins| pins.remove(range)),
        }
    }

    pub(super) fn change_pins(&self, tester: &Tester, change: impl FnOnce(&mut Pins)) {
        let ranges = {
            let mut pins = lock(&self.pins);
            change(&mut pins);
            pins.ranges().to_vec()
        };
        self.update_snapshot(|s| s.pins = ranges.clone());
        tester.emit(Event::PinsChanged { pins: ranges });
    }

    /// The tree of the current best, if the language is known and `version` is current.
    pub(super) fn current_tree(&self, version: u64, best: &[u8]) -> Option<Arc<tree::Tree>> {
        let language = self.language?;
        if lock(&self.shared.snapshot).version != version {
            return None;
        }
        tree::parse(language, best.to_vec(), Preprocess::default()).ok()
    }

    /// The byte range of the current best a target denotes.
    pub(super) fn resolve(&self, tester: &Tester, target: &PinTarget) -> Option<Range<usize>> {
        let best = tester.best();
        resolve(best, &|version| self.current_tree(version, best), target)
    }

    /// The candidate an edit makes of the current best (see [`edited`]).
    pub(super) fn edited(&self, tester: &Tester, edit: &ManualEdit) -> Option<EditedCandidate> {
        let best = tester.best();
        edited(best, &|version| self.current_tree(version, best), edit)
    }

    /// Tests a proposed edit; keeps it when the oracle finds it interesting. Returns whether it
    /// was accepted.
    pub(super) fn propose(&mut self, tester: &mut Tester, edit: &ManualEdit) -> bool {
        let Some(edited) = self.edited(tester, edit) else {
            self.reject(
                tester,
                "propose",
                "the edit does not apply to the current best",
            );
            return false;
        };
        if !edited.keeps(&lock(&self.pins), tester.best()) {
            self.reject(tester, "propose", "the edit would change pinned text");
            return false;
        }
        let candidate = edited.candidate(edit);
        let before = lock(&self.history).len().saturating_sub(1);
        let accepted = match tester.judge_manual(candidate, &edited.content, edited.removed.clone())
        {
            Ok((Outcome::Interesting, _)) => {
                tester.accept(edited.content, None, Branch::Manual, candidate);
                true
            }
            _ => false,
        };
        if accepted {
            self.undo
                .push((before, format!("the edit “{}”", edited.description)));
        }
        tester.emit(Event::ManualEdit {
            description: edited.description,
            accepted,
            step: tester.steps(),
        });
        accepted
    }

    pub(super) fn restart_from(&self, tester: &mut Tester, index: usize, text: Vec<u8>) {
        let size = text.len();
        self.move_to(tester, text);
        tester.emit(Event::Restarted { from: index, size });
    }

    /// The engine works on `text` from now on (a history entry); the output file keeps the
    /// smallest result found.
    pub(super) fn move_to(&self, tester: &mut Tester, text: Vec<u8>) {
        {
            let mut pins = lock(&self.pins);
            if !pins.is_empty() {
                *pins = pins.map_through(tester.best(), &text);
            }
        }
        tester.set_best(text.clone());
        self.record_history(tester, Branch::Restart, &text);
        let pins = lock(&self.pins).ranges().to_vec();
        self.update_snapshot(|s| {
            s.best = Arc::from(text.as_slice());
            s.version += 1;
            s.pins = pins;
        });
    }
}

/// The tree of the current best, when a node target's version is current and the language
/// known.
pub(super) type TreeOf<'a> = &'a dyn Fn(u64) -> Option<Arc<tree::Tree>>;

/// The byte range of `best` a target denotes (`tree_of` as for [`edited`]).
pub(super) fn resolve(
    best: &[u8],
    tree_of: TreeOf<'_>,
    target: &PinTarget,
) -> Option<Range<usize>> {
    let range = match target {
        PinTarget::Bytes(range) => range.clone(),
        PinTarget::Lines(lines) => line_range(best, lines.clone()),
        PinTarget::Node { version, node } => {
            let tree = tree_of(*version)?;
            if node.index() >= tree.len() {
                return None;
            }
            tree.byte_range(*node)
        }
    };
    (range.start <= range.end && range.end <= best.len()).then_some(range)
}

/// The candidate an edit makes of `best`, with what it removes and its description;
/// `tree_of` parses `best` when the version a node edit names is current.
pub(super) fn edited(
    best: &[u8],
    tree_of: TreeOf<'_>,
    edit: &ManualEdit,
) -> Option<EditedCandidate> {
    use crate::text::describe::{line_column, snippet};
    let at = |offset: usize| {
        let (line, column) = line_column(best, offset);
        format!("{line}:{column}")
    };
    let cut = |range: Range<usize>, description: String| {
        (range.start < range.end && range.end <= best.len()).then(|| {
            let mut content = best[..range.start].to_vec();
            content.extend_from_slice(&best[range.end..]);
            EditedCandidate {
                content,
                index: range.start as u32,
                removed: vec![range],
                description,
            }
        })
    };
    match edit {
        ManualEdit::RemoveBytes(range) => {
            let text = best.get(range.clone())?;
            cut(
                range.clone(),
                format!("remove `{}` at {}", snippet(text, 24), at(range.start)),
            )
        }
        ManualEdit::RemoveLines(lines) => {
            let description = if lines.len() == 1 {
                format!("remove line {}", lines.start + 1)
            } else {
                format!("remove lines {}-{}", lines.start + 1, lines.end)
            };
            cut(line_range(best, lines.clone()), description)
        }
        ManualEdit::RemoveNode { version, node } => node_removed(tree_of(*version)?, *node, &at),
        ManualEdit::Hoist {
            version,
            node,
            descendant,
        } => node_hoisted(tree_of(*version)?, *node, *descendant, &at),
    }
}

/// The candidate without `node` (its minimal replacement Φ printed in its place).
fn node_removed(
    tree: Arc<tree::Tree>,
    node: NodeId,
    at: &dyn Fn(usize) -> String,
) -> Option<EditedCandidate> {
    use crate::text::describe::snippet;
    if node.index() >= tree.len() {
        return None;
    }
    let range = tree.byte_range(node);
    let becomes = match tree.replacement(node) {
        Some(phi) if !phi.is_empty() && !tree.is_phi_empty(node) => {
            format!(" → `{}`", snippet(phi, 16))
        }
        _ => String::new(),
    };
    let description = format!(
        "remove {} `{}` at {}{becomes}",
        tree.kind(node),
        snippet(tree.text(node), 24),
        at(range.start)
    );
    let state = tree::TreeState::new(tree);
    let candidate = tree::TreeEdits::removing([node]);
    Some(EditedCandidate {
        content: state.render(&candidate),
        index: node.index() as u32,
        removed: vec![range],
        description,
    })
}

/// The candidate with `node` replaced by its `descendant`.
fn node_hoisted(
    tree: Arc<tree::Tree>,
    node: NodeId,
    descendant: NodeId,
    at: &dyn Fn(usize) -> String,
) -> Option<EditedCandidate> {
    use crate::text::describe::snippet;
    if node.index() >= tree.len()
        || descendant.index() >= tree.len()
        || !tree.is_descendant(node, descendant)
    {
        return None;
    }
    let (outer, inner) = (tree.byte_range(node), tree.byte_range(descendant));
    let description = format!(
        "hoist `{}` → `{}` at {}",
        snippet(tree.text(node), 24),
        snippet(tree.text(descendant), 24),
        at(outer.start)
    );
    let state = tree::TreeState::new(tree);
    let candidate = tree::TreeEdits::hoisting(node, descendant);
    Some(EditedCandidate {
        content: state.render(&candidate),
        index: node.index() as u32,
        removed: vec![outer.start..inner.start, inner.end..outer.end],
        description,
    })
}
