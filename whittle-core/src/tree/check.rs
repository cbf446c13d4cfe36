//! Quality checks of the grammar tables on a concrete input: splicing each node's Φ in alone
//! (`whittle tree --phi-check`) and removing each node alone, re-parsing to see whether new
//! syntax errors appear.

use std::sync::Arc;

use anyhow::Context as _;

use super::arena::{NodeId, Tree};
use super::guard::{count_syntax_errors, edit_between};
use super::language::needs_space;
use super::render::write_indented;
use super::state::{TreeEdits, TreeState};

/// Re-parses edited versions of one text incrementally (only the changed region is re-lexed).
pub struct Reparser {
    parser: tree_sitter::Parser,
    base: tree_sitter::Tree,
    base_text: Vec<u8>,
    base_errors: usize,
}

impl Reparser {
    /// Parses the base text.
    pub fn new(tree: &Tree) -> anyhow::Result<Reparser> {
        let mut parser = tree_sitter::Parser::new();
        parser
            .set_language(tree.tables().grammar())
            .context("cannot load the grammar")?;
        let base_text = tree.source().to_vec();
        let base = parser
            .parse(&base_text, None)
            .context("tree-sitter gave up parsing the input")?;
        let base_errors = count_syntax_errors(&base);
        Ok(Reparser {
            parser,
            base,
            base_text,
            base_errors,
        })
    }

    /// Syntax errors (ERROR and MISSING nodes) of the base text.
    pub fn base_errors(&self) -> usize {
        self.base_errors
    }

    /// Syntax errors of `text`, an edit of the base text.
    pub fn errors(&mut self, text: &[u8]) -> usize {
        let mut edited = self.base.clone();
        edited.edit(&edit_between(&self.base_text, text));
        match self.parser.parse(text, Some(&edited)) {
            Some(tree) => count_syntax_errors(&tree),
            None => usize::MAX,
        }
    }
}

/// The outcome of splicing replacements in one at a time.
#[derive(Debug, Clone, Default)]
pub struct CheckReport {
    /// Nodes tried.
    pub tried: usize,
    /// Nodes whose edit parsed without new syntax errors.
    pub valid: usize,
    /// The nodes whose edit brought new syntax errors.
    pub invalid: Vec<NodeId>,
}

impl CheckReport {
    /// Counts the edit of one node: `valid` when it parsed without new syntax errors.
    fn count(&mut self, id: NodeId, valid: bool) {
        self.tried += 1;
        if valid {
            self.valid += 1;
        } else {
            self.invalid.push(id);
        }
    }

    /// `valid / tried` (1 when nothing was tried).
    pub fn ratio(&self) -> f64 {
        if self.tried == 0 {
            1.0
        } else {
            self.valid as f64 / self.tried as f64
        }
    }
}

/// The input with `range` replaced by `text`, a space kept where two words would merge.
pub fn splice(source: &[u8], range: std::ops::Range<usize>, text: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(source.len() + text.len() + 2);
    out.extend_from_slice(&source[..range.start]);
    if needs_space(out.last().copied(), text.first().copied()) {
        out.push(b' ');
    }
    write_indented(&mut out, text);
    let rest = &source[range.end..];
    let last = out.last().copied();
    if needs_space(last, rest.first().copied()) {
        out.push(b' ');
    }
    out.extend_from_slice(rest);
    out
}

/// Splices Φ of each node's kind in place of the node, alone, for every node whose text differs
/// from its Φ; counts the splices that parse without new syntax errors.
pub fn phi_check(tree: &Tree) -> anyhow::Result<CheckReport> {
    let mut reparser = Reparser::new(tree)?;
    let base_errors = reparser.base_errors();
    let mut report = CheckReport::default();
    for id in tree.ids() {
        let Some(phi) = tree.phi(id) else {
            continue;
        };
        if tree.is_synthetic(id)
            || phi == tree.text(id)
            || tree.tables().is_unremovable_kind(tree.kind_id(id))
        {
            continue;
        }
        let text = splice(tree.source(), tree.byte_range(id), phi);
        report.count(id, reparser.errors(&text) <= base_errors);
    }
    Ok(report)
}

/// Removes each removable node alone (as the reduction would: Φ-empty nodes vanish with their
/// list separators, others print their replacement) and counts the results that parse without
/// new syntax errors.
pub fn removal_check(tree: &Arc<Tree>) -> anyhow::Result<CheckReport> {
    let mut reparser = Reparser::new(tree)?;
    let base_errors = reparser.base_errors();
    let state = TreeState::new(Arc::clone(tree));
    let mut report = CheckReport::default();
    let mut text = Vec::new();
    for id in tree.ids() {
        if !tree.is_removable(id) {
            continue;
        }
        state.render_into(&TreeEdits::removing([id]), &mut text);
        report.count(id, reparser.errors(&text) <= base_errors);
    }
    Ok(report)
}
