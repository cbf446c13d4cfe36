//! Beyond the papers, in the `-sweep` variants: every comment of the tree removed in one test
//! before a stage's first walk. Real code is often half comments and a test rarely needs one;
//! the sweeps remove them too, but those beside needed nodes one at a time, late, and a run
//! whose tests take seconds holds them for minutes. When the test needs a comment, the one
//! test fails and the walk goes on as before.

use std::ops::Range;
use std::sync::Arc;

use crate::exec::cache::UnitId;
use crate::observe::events::{Branch, Candidate, CandidateKind};
use crate::testing::control::Stop;
use crate::testing::tester::{CandidateSource, Tester, WindowPolicy};
use crate::tree::{NodeId, TreeEdits, TreeState, is_comment_kind};

use super::pinned_nodes::PinnedNodes;

/// Fewer comments than this are left to the sweeps (one comment is one unit of a sweep).
const FEWEST_COMMENTS: usize = 2;

/// The one candidate: the tree without its comments.
struct CommentsWindow<'a> {
    state: &'a TreeState,
    edits: TreeEdits,
    /// Where the comments are in the current best, when a display wants to know.
    spans: Vec<Range<usize>>,
}

impl CandidateSource for CommentsWindow<'_> {
    fn len(&self) -> usize {
        1
    }

    fn candidate(&self, _: usize) -> Candidate {
        Candidate {
            kind: CandidateKind::Comments,
            index: 0,
            n: self.edits.removed().len() as u32,
        }
    }

    fn config(&self, _: usize) -> Option<Vec<&[UnitId]>> {
        None
    }

    fn render(&self, _: usize, out: &mut Vec<u8>) {
        self.state.render_into(&self.edits, out);
    }

    fn removed_spans(&self, _: usize) -> Vec<Range<usize>> {
        self.spans.clone()
    }
}

/// The comments of the current tree that may go: visible, removable, no pinned node among them,
/// and not a `#!` line at the very start (a script the test runs by its name needs it; the
/// sweeps remove it when it is not needed).
fn comments(state: &TreeState, pins: &PinnedNodes) -> Vec<NodeId> {
    let tree = state.tree();
    tree.ids()
        .filter(|&id| tree.is_extra(id) && is_comment_kind(tree.kind(id)))
        .filter(|&id| state.visible(id) == Some(id) && state.is_removable(id))
        .filter(|&id| !pins.protects(id))
        .filter(|&id| !(tree.byte_range(id).start == 0 && tree.text(id).starts_with(b"#!")))
        .collect()
}

/// Tries the current tree without its comments (when it has at least [`FEWEST_COMMENTS`]) in
/// one test; accepted, the removal is committed to `shared`.
pub(super) fn remove_comments(
    tester: &mut Tester,
    shared: &mut Arc<TreeState>,
    pins: &PinnedNodes,
) -> Result<(), Stop> {
    let state: &TreeState = shared;
    let removed = comments(state, pins);
    if removed.len() < FEWEST_COMMENTS {
        return Ok(());
    }
    let spans = if tester.wants_spans() {
        let layout = state.layout(&TreeEdits::new());
        (removed.iter())
            .filter_map(|&id| state.span_in(&layout, id))
            .collect()
    } else {
        Vec::new()
    };
    let window = CommentsWindow {
        state,
        edits: TreeEdits::removing(removed),
        spans,
    };
    if tester
        .run_window(&window, WindowPolicy::FirstInOrder)?
        .is_empty()
    {
        return Ok(());
    }
    tester.accept_from(&window, 0, Branch::Comments);
    let edits = window.edits;
    Arc::make_mut(shared).commit(&edits);
    debug_assert_eq!(shared.text(), tester.best(), "the tree follows the best");
    Ok(())
}
