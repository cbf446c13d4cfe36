//! Rewrite stages: tree edits beyond pruning and hoisting, each a named pipeline stage run to
//! its fixed point. `replace` puts a shorter text the grammar allows at a node's place instead
//! of the node; `lift` replaces a node by one of its named descendants whatever its kind;
//! `reshape` gives a node the short form of another kind, made of the node's own fields;
//! `rewrite` offers the candidates of all three for each node, fewest characters first.
//!
//! They work on tree-sitter's parse of the current best as it is (no squeezed chains, so a
//! statement that is one keyword keeps its kind), which they take again after every accepted
//! edit: a candidate is a [`Splice`] of the current best (a node's bytes become a text), so it
//! reports exactly the bytes it replaces. Every candidate has fewer non-whitespace characters
//! than the text it replaces, so each edit shrinks the test case. The nodes are visited in
//! document order and the candidates of a node in the stage's order; the candidates of all
//! nodes, from where the last edit was made and wrapping around, form one lazy window (so they
//! run in parallel with `--jobs` and the first interesting one in order wins). A stage ends after
//! a whole round without an edit: no single candidate of the result is interesting (1-minimal in
//! the stage's own sense). With `--no-fixpoint` it stops at the end of the text instead of
//! wrapping.

mod lift;
mod measure;
mod replace;
mod reshape;
mod splice;

use std::fmt;
use std::str::FromStr;
use std::sync::Arc;

pub use splice::{Splice, SpliceText};

use crate::algorithms::hdd::{PinnedNodes, TreeContext, parse_best};
use crate::exec::cache::UnitId;
use crate::observe::events::{Branch, Candidate, CandidateKind, Event, TreePhase};
use crate::testing::control::Stop;
use crate::testing::recall::signature;
use crate::testing::tester::{CandidateSource, Tester, WindowPolicy};
use crate::tree::{NodeId, Preprocess, Tree};

/// A rewrite stage.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Rewrite {
    /// A node becomes a shorter text its place allows (the shortest texts of the kinds of its
    /// supertype there, and further short spellings of literals).
    Replace,
    /// A node becomes one of its named descendants (two levels down; deeper, of its own kind or
    /// of a kind its place takes).
    Lift,
    /// A node becomes the short form of another kind its place allows, made of its own fields.
    Reshape,
    /// The three together: each node's candidates of all of them, fewest characters first.
    All,
}

impl Rewrite {
    /// Every rewrite stage, in the order `whittle algorithms` lists them.
    pub fn all() -> [Rewrite; 4] {
        [
            Rewrite::Replace,
            Rewrite::Lift,
            Rewrite::Reshape,
            Rewrite::All,
        ]
    }

    /// The name used on the command line.
    pub fn name(self) -> &'static str {
        match self {
            Rewrite::Replace => "replace",
            Rewrite::Lift => "lift",
            Rewrite::Reshape => "reshape",
            Rewrite::All => "rewrite",
        }
    }

    /// A title in the style of the papers' names.
    pub fn title(self) -> &'static str {
        match self {
            Rewrite::Replace => "Replace*",
            Rewrite::Lift => "Lift*",
            Rewrite::Reshape => "Reshape*",
            Rewrite::All => "Rewrite*",
        }
    }

    /// One line on what it does.
    pub fn description(self) -> &'static str {
        match self {
            Rewrite::Replace => {
                "a node becomes the shortest texts its place allows for its supertype (an \
                 expression 0 or 1, a C type int, a statement ;)"
            }
            Rewrite::Lift => {
                "a node becomes a named descendant of any kind up to two levels down (or at any \
                 depth of its own kind or of a kind its place takes), largest gain first"
            }
            Rewrite::Reshape => {
                "a node becomes the short form of another kind its place allows, made of its own \
                 fields (a C function a prototype, a JS function an arrow function)"
            }
            Rewrite::All => {
                "replace, lift and reshape as one stage: the candidates of each node from all \
                 three, fewest characters first"
            }
        }
    }

    /// The kind of candidate an edit of this stage is (the combined stage makes no edit of
    /// its own: each comes from one of the three).
    fn kind(self) -> CandidateKind {
        match self {
            Rewrite::Replace => CandidateKind::Replace,
            Rewrite::Lift => CandidateKind::Lift,
            Rewrite::Reshape | Rewrite::All => CandidateKind::Reshape,
        }
    }

    /// The branch an accepted edit of this stage takes (see [`Rewrite::kind`]).
    fn branch(self) -> Branch {
        match self {
            Rewrite::Replace => Branch::Replace,
            Rewrite::Lift => Branch::Lift,
            Rewrite::Reshape | Rewrite::All => Branch::Reshape,
        }
    }

    fn phase(self) -> TreePhase {
        match self {
            Rewrite::Replace => TreePhase::Replace,
            Rewrite::Lift => TreePhase::Lift,
            Rewrite::Reshape => TreePhase::Reshape,
            Rewrite::All => TreePhase::Rewrite,
        }
    }
}

impl fmt::Display for Rewrite {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for Rewrite {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Rewrite::all()
            .into_iter()
            .find(|rewrite| rewrite.name() == s)
            .ok_or_else(|| format!("unknown rewrite stage `{s}`"))
    }
}

/// One candidate of a rewrite stage: a splice of the current best at a node.
struct NodeRewrite {
    /// The stage that made it (never [`Rewrite::All`]).
    rewrite: Rewrite,
    node: NodeId,
    /// Which candidate of the node: the rank of a replacement text (from 1), or the id of the
    /// descendant a lift puts in the node's place.
    detail: u32,
    splice: Splice,
}

impl NodeRewrite {
    /// Non-whitespace characters of the text that takes the node's place.
    fn chars(&self, round: &Round) -> usize {
        match &self.splice.text {
            SpliceText::Literal(text) | SpliceText::Verbatim(text) => measure::chars(text),
            SpliceText::Moved(from) => round.chars.of(from.clone()),
        }
    }
}

/// The edits of one round, judged in order.
struct RewriteWindow<'a> {
    best: &'a [u8],
    edits: &'a [NodeRewrite],
    /// The recall's signature of each edit (empty when nothing is noted).
    signatures: &'a [u64],
}

impl CandidateSource for RewriteWindow<'_> {
    fn len(&self) -> usize {
        self.edits.len()
    }

    fn recall_signature(&self, i: usize) -> Option<u64> {
        self.signatures.get(i).copied()
    }

    fn candidate(&self, i: usize) -> Candidate {
        let edit = &self.edits[i];
        Candidate {
            kind: edit.rewrite.kind(),
            index: edit.node.index() as u32,
            n: edit.detail,
        }
    }

    fn config(&self, _: usize) -> Option<Vec<&[UnitId]>> {
        None
    }

    fn render(&self, i: usize, out: &mut Vec<u8>) {
        self.edits[i].splice.render_into(self.best, out);
    }

    fn removed_spans(&self, i: usize) -> Vec<std::ops::Range<usize>> {
        vec![self.edits[i].splice.range.clone()]
    }
}

/// The nodes of a round in document order: from the first node starting at `cursor` or later to
/// the end, then (when `wrap`) from the start.
fn round_order(tree: &Tree, cursor: usize, wrap: bool) -> Vec<NodeId> {
    let ids: Vec<NodeId> = tree.ids().collect();
    let from = ids.partition_point(|&id| tree.byte_range(id).start < cursor);
    let mut order = ids[from..].to_vec();
    if wrap {
        order.extend_from_slice(&ids[..from]);
    }
    order
}

/// One parse of the current best with what the candidates of its nodes need.
pub(crate) struct Round {
    pub tree: Arc<Tree>,
    pub pins: PinnedNodes,
    pub chars: measure::CharCounts,
}

impl Round {
    fn new(tree: Arc<Tree>, pins: PinnedNodes) -> Round {
        let chars = measure::CharCounts::new(tree.source());
        Round { tree, pins, chars }
    }

    /// Non-whitespace characters of a node's text.
    pub fn chars_of(&self, node: NodeId) -> usize {
        self.chars.of(self.tree.byte_range(node))
    }
}

/// The candidates of one node.
fn edits_of(
    rewrite: Rewrite,
    round: &Round,
    texts: &mut replace::PlaceTexts,
    node: NodeId,
    out: &mut Vec<NodeRewrite>,
) {
    let (tree, pins) = (&*round.tree, &round.pins);
    let range = tree.byte_range(node);
    match rewrite {
        Rewrite::All => {
            let from = out.len();
            for one in [Rewrite::Lift, Rewrite::Reshape, Rewrite::Replace] {
                edits_of(one, round, texts, node, out);
            }
            out[from..].sort_by_key(|edit| edit.chars(round));
        }
        Rewrite::Replace | Rewrite::Reshape => {
            if pins.protects(node) {
                return;
            }
            let replacements: Vec<SpliceText> = if let Rewrite::Replace = rewrite {
                let literals = texts.candidates(round, node).into_iter();
                literals.map(SpliceText::Literal).collect()
            } else {
                let shapes = reshape::candidates(round, node).into_iter();
                shapes
                    .map(|text| SpliceText::Verbatim(text.into()))
                    .collect()
            };
            let ranked = replacements.into_iter().enumerate();
            out.extend(ranked.map(|(rank, text)| NodeRewrite {
                rewrite,
                node,
                detail: rank as u32 + 1,
                splice: Splice {
                    range: range.clone(),
                    text,
                },
            }));
        }
        Rewrite::Lift => {
            for target in lift::targets(round, node) {
                out.push(NodeRewrite {
                    rewrite,
                    node,
                    detail: target.index() as u32,
                    splice: Splice {
                        range: range.clone(),
                        text: SpliceText::Moved(tree.byte_range(target)),
                    },
                });
            }
        }
    }
}

/// Every candidate of a rewrite stage on `tree` (parsed with [`Preprocess::none`], nothing
/// pinned), rendered, in the order the stage tries them from the start of the text: what a
/// final round judges, so a result is 1-minimal for the stage when none of them is interesting.
pub fn candidate_texts(rewrite: Rewrite, tree: &Arc<Tree>) -> Vec<Vec<u8>> {
    let round = Round::new(Arc::clone(tree), PinnedNodes::new(tree, Vec::new()));
    let mut texts = replace::PlaceTexts::default();
    let mut edits = Vec::new();
    for node in round_order(tree, 0, false) {
        edits_of(rewrite, &round, &mut texts, node, &mut edits);
    }
    edits
        .iter()
        .map(|edit| edit.splice.render(tree.source()))
        .collect()
}

/// Runs a rewrite stage on the tester's current best until a whole round finds no edit (with
/// `context.fixpoint` off: until the end of the text). The tester's best is the result; an early
/// stop loses nothing.
pub fn run(
    tester: &mut Tester,
    rewrite: Rewrite,
    context: &TreeContext<'_>,
    stage: &str,
) -> Result<(), Stop> {
    let mut texts = replace::PlaceTexts::default();
    let mut cursor = 0;
    for iteration in 1.. {
        tester.emit(Event::FixpointIteration {
            stage: stage.to_owned(),
            iteration,
        });
        let Some(tree) = parse_best(tester, context.language, Preprocess::none(), stage) else {
            return Ok(());
        };
        let pins = PinnedNodes::new(&tree, context.pins.pinned_nodes(&tree));
        let round = Round::new(Arc::clone(&tree), pins);
        let mut edits = Vec::new();
        let mut nodes = Vec::new();
        for node in round_order(&tree, cursor, context.fixpoint) {
            let before = edits.len();
            edits_of(rewrite, &round, &mut texts, node, &mut edits);
            if edits.len() > before {
                nodes.push(node.index() as u32);
            }
        }
        let best = tree.source();
        let signatures = tester.recall_mut().retain_untried(&mut edits, |edit| {
            let splice = &edit.splice;
            let new: &[u8] = match &splice.text {
                SpliceText::Literal(text) | SpliceText::Verbatim(text) => text.as_ref(),
                SpliceText::Moved(from) => &best[from.clone()],
            };
            signature(stage, best, [(splice.range.clone(), new)])
        });
        if edits.is_empty() {
            break;
        }
        show_nodes(tester, &tree, rewrite, stage, nodes);
        let window = RewriteWindow {
            best,
            edits: &edits,
            signatures: &signatures,
        };
        let found = tester.run_window(&window, WindowPolicy::FirstInOrder)?;
        let Some(&i) = found.first() else {
            break;
        };
        let mut content = Vec::new();
        window.render(i, &mut content);
        tester.accept(
            content,
            None,
            edits[i].rewrite.branch(),
            window.candidate(i),
        );
        cursor = edits[i].splice.range.start;
    }
    Ok(())
}

/// Shows the nodes of a round with candidates (`nodes`, indices into `tree`, the parse of the
/// current best: its ranges are where the nodes are).
fn show_nodes(tester: &mut Tester, tree: &Tree, rewrite: Rewrite, stage: &str, nodes: Vec<u32>) {
    let spans = if tester.wants_spans() {
        nodes
            .iter()
            .map(|&node| tree.byte_range(NodeId::from_index(node as usize)))
            .collect()
    } else {
        Vec::new()
    };
    tester.emit(Event::TreeNodes {
        stage: stage.to_owned(),
        depth: 0,
        parent: None,
        phase: rewrite.phase(),
        nodes,
        spans,
        parent_span: None,
        levels: None,
    });
}
