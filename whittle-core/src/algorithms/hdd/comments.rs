//! Beyond the papers, in the `-sweep` variants: every comment of the tree removed in one test
//! before a stage's first walk, then every docstring emptied in another. Real code is often
//! half comments and docstrings and a test rarely needs one; the sweeps remove them too, but
//! those beside needed nodes one at a time, late, and a run whose tests take seconds holds them
//! for minutes. When the test needs one of them, its one test fails and the walk goes on as
//! before.

use std::ops::Range;
use std::sync::Arc;

use crate::exec::cache::UnitId;
use crate::observe::events::{Branch, Candidate, CandidateKind};
use crate::testing::control::Stop;
use crate::testing::tester::{CandidateSource, Tester, WindowPolicy};
use crate::tree::{NodeId, TreeEdits, TreeState, is_comment_kind};

use super::pinned_nodes::PinnedNodes;

/// Fewer comments (or docstrings) than this are left to the sweeps (one is one unit of a sweep).
const FEWEST: usize = 2;

/// The one candidate: the tree without its comments, or with its docstrings emptied.
struct AllAtOnce<'a> {
    kind: CandidateKind,
    /// How many comments or docstrings.
    count: usize,
    state: &'a TreeState,
    edits: TreeEdits,
    /// Where the text it removes is in the current best, when a display wants to know.
    spans: Vec<Range<usize>>,
}

impl CandidateSource for AllAtOnce<'_> {
    fn len(&self) -> usize {
        1
    }

    fn candidate(&self, _: usize) -> Candidate {
        Candidate {
            kind: self.kind,
            index: 0,
            n: self.count as u32,
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

/// The strings of the current tree's docstrings that hold text (see
/// [`crate::tree::profile::Docstrings`]): statements that hold one string and no code inside it.
/// Each is emptied, not removed: its quotes stay, and a statement that does nothing is what
/// keeps a block valid until the sweeps remove its other statements (an empty block is no valid
/// text).
fn docstrings(state: &TreeState, pins: &PinnedNodes) -> Vec<NodeId> {
    let tree = state.tree();
    let Some(shape) = tree.language().profile().docstrings.as_ref() else {
        return Vec::new();
    };
    let lone_string = |statement: NodeId| {
        let mut inside = (tree.children(statement))
            .filter(|&child| tree.is_named(child) && !is_comment_kind(tree.kind(child)));
        match (inside.next(), inside.next()) {
            (Some(string), None) if shape.strings.iter().any(|kind| kind == tree.kind(string)) => {
                Some(string)
            }
            _ => None,
        }
    };
    let runs_code = |string: NodeId| {
        (string.index()..tree.subtree_end(string).index()).any(|index| {
            let kind = tree.kind(NodeId::from_index(index));
            shape.except_holding.iter().any(|held| held == kind)
        })
    };
    (tree.ids())
        .filter(|&id| tree.kind(id) == shape.statement && state.visible(id) == Some(id))
        .filter_map(lone_string)
        .filter(|&string| state.visible(string) == Some(string) && !runs_code(string))
        .filter(|&string| !pins.protects(string))
        .filter(|&string| text_of(state, string).next().is_some())
        .collect()
}

/// The text inside a string (what emptying it removes): its children but the quotes.
fn text_of(state: &TreeState, string: NodeId) -> impl Iterator<Item = NodeId> + '_ {
    let tree = state.tree();
    (tree.children(string))
        .filter(|&child| state.visible(child) == Some(child) && state.is_removable(child))
        .filter(|&child| !tree.byte_range(child).is_empty())
}

/// Tries the current tree without its comments, then with its docstrings emptied, each in one
/// test (when there are at least [`FEWEST`]); accepted, a removal is committed to `shared`.
pub(super) fn remove_comments_and_empty_docstrings(
    tester: &mut Tester,
    shared: &mut Arc<TreeState>,
    pins: &PinnedNodes,
) -> Result<(), Stop> {
    let removed = comments(shared, pins);
    let count = removed.len();
    remove_all(
        tester,
        shared,
        removed,
        count,
        CandidateKind::Comments,
        Branch::Comments,
    )?;
    let docstrings = docstrings(shared, pins);
    let removed = (docstrings.iter())
        .flat_map(|&string| text_of(shared, string))
        .collect();
    let count = docstrings.len();
    remove_all(
        tester,
        shared,
        removed,
        count,
        CandidateKind::Docstrings,
        Branch::Docstrings,
    )
}

/// Tries the current tree without `removed` in one test (when they are parts of at least
/// [`FEWEST`] comments or docstrings, `count`); accepted, the removal is committed to `shared`.
fn remove_all(
    tester: &mut Tester,
    shared: &mut Arc<TreeState>,
    removed: Vec<NodeId>,
    count: usize,
    kind: CandidateKind,
    branch: Branch,
) -> Result<(), Stop> {
    if count < FEWEST {
        return Ok(());
    }
    let state: &TreeState = shared;
    let spans = if tester.wants_spans() {
        let layout = state.layout(&TreeEdits::new());
        (removed.iter())
            .filter_map(|&id| state.span_in(&layout, id))
            .collect()
    } else {
        Vec::new()
    };
    let window = AllAtOnce {
        kind,
        count,
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
    tester.accept_from(&window, 0, branch);
    let edits = window.edits;
    Arc::make_mut(shared).commit(&edits);
    debug_assert_eq!(shared.text(), tester.best(), "the tree follows the best");
    Ok(())
}
