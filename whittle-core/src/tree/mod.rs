//! Structured inputs: tree-sitter parse trees, grammar profiles with minimal replacements Φ,
//! the formatting-preserving unparser and the syntax guard.
//!
//! A [`Tree`] is built once per input ([`parse`]); its node ids follow document order. A
//! [`TreeState`] holds the committed edits (removals and hoistings) and lists the current tree
//! ([`TreeState::level`], [`TreeState::next_level`], [`TreeState::children`], hoisting
//! candidates [`TreeState::hoist_candidates`]). A [`TreeEdits`] describes edits to try: it is
//! rendered with [`TreeState::render_into`] without copying the tree and made permanent with
//! [`TreeState::commit`]. A [`SyntaxGuard`] rejects candidates that re-parse with new errors.
//!
//! How the input maps to the tree:
//! - Every input byte belongs to exactly one token (a leaf) or to the whitespace before a token
//!   (or after the last one). Text that no visible token covers (hidden tokens of a grammar,
//!   such as string contents in some grammars) becomes an unremovable `(hidden text)` leaf, so
//!   whitespace stays whitespace.
//! - Comments (tree-sitter extras) are nodes like any other; they may appear anywhere, so they
//!   are always Φ-empty and removable.
//! - ERROR nodes keep their content as children; they and everything inside them are Φ-empty,
//!   so the reduction can drop broken material. MISSING nodes have no bytes and are left out.
//!   The syntax guard compares error counts, so inputs that already have errors still reduce.
//! - A removed node prints nothing when its place may be empty (the grammar makes it optional
//!   or repeated there; the node is *Φ-empty*), else Φ of its kind (or, when the grammar gives
//!   none, the shortest text of that kind in the input).
//! - Children of list kinds (`a, b, c`) take a separator with them when they go.
//! - A child that the grammar pairs with a token beside it in an optional place (C's
//!   `struct S {};` at the top level, Rust's `-> T`, `: T` and `= v`) sits with that token under
//!   a synthetic, Φ-empty `(pair)` node, so both go together; a token and the child it
//!   introduces (`: T`) is a detail ([`Tree::is_detail`]) that the coarse variants leave alone.
//! - A companion (a node the profile says is no valid text without the siblings that define
//!   what it names) goes with the last of them in a pruning ([`Companions`]).
//! - Preprocessing ([`Preprocess`]) squeezes single-child chains, flattens recursive chains and
//!   marks nodes whose replacement is not shorter than their text as unremovable (this covers
//!   the text being equal to Φ).

mod arena;
mod build;
pub mod check;
mod companions;
mod guard;
mod language;
mod names;
pub mod profile;
mod render;
mod state;
pub mod syntax;
pub mod text;

use std::path::Path;
use std::sync::Arc;

pub use arena::{Children, NodeId, Preprocess, Tree};
pub use companions::Companions;
pub use guard::{Admission, ParserPool, SyntaxGuard, count_syntax_errors};
pub use language::{
    BYTES_PER_STRAY_ERROR, Detected, KindId, KindTables, Language, ShortForm, languages,
    needs_space,
};
pub use names::{DeclaredNames, NameIndex, is_member};
pub use render::Layout;
pub(crate) use render::{line_indentation, write_indented};
pub use state::{NodeState, TreeEdits, TreeState};

/// Whether nodes of `kind` are comments (`comment`, `line_comment`, `block_comment`, ...: the
/// grammars name them so, but Haskell's documentation comments, `haddock`).
pub fn is_comment_kind(kind: &str) -> bool {
    kind.contains("comment") || kind == "haddock"
}

/// Whether named leaves of `kind` are names: identifiers of any sort (`identifier`,
/// `type_identifier`, `field_identifier`, `package_identifier`, ...).
pub fn is_name_kind(kind: &str) -> bool {
    kind.ends_with("identifier")
}

/// Whether a name declares itself where it stands: it fills its parent's `name` or
/// `declarator` field, or the `left` or `pattern` field of an assignment or declaration
/// (`x = 1`, `let x = 1`).
pub fn declares(field: Option<&str>, parent_kind: Option<&str>) -> bool {
    match field {
        Some("name" | "declarator") => true,
        Some("left" | "pattern") => parent_kind
            .is_some_and(|kind| kind.contains("assignment") || kind.contains("declaration")),
        _ => false,
    }
}

/// Parses `source` in `language` into a tree, with the given preprocessing.
pub fn parse(
    language: &'static Language,
    source: Vec<u8>,
    preprocess: Preprocess,
) -> anyhow::Result<Arc<Tree>> {
    build::parse(language, source, preprocess).map(Arc::new)
}

/// Reads and parses a file; the language comes from `language`, else the file's extension or
/// `#!` line.
pub fn parse_file(
    path: &Path,
    language: Option<&str>,
    preprocess: Preprocess,
) -> anyhow::Result<Arc<Tree>> {
    let source =
        crate::output::read_regular_file(path, "", u32::MAX as u64).map_err(anyhow::Error::msg)?;
    let language = match language {
        Some(name) => Language::by_name(name)?,
        None => Language::for_file(path, &source)?,
    };
    parse(language, source, preprocess)
}
