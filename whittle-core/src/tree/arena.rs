//! The arena tree over a parsed input: rule nodes and token leaves in document (preorder) order,
//! with the byte ranges, Φ-emptiness and removability the reduction algorithms read.

use std::ops::Range;

use super::language::{KindId, KindTables, Language};

/// A node of a [`Tree`]: a small integer. Ids follow document order (preorder), so a node's
/// subtree is the id range `node..subtree_end(node)` and a descendant always has a larger id.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct NodeId(pub(crate) u32);

impl NodeId {
    /// The id as an index (`0..tree.len()`).
    pub fn index(self) -> usize {
        self.0 as usize
    }

    /// The id of an index; the caller keeps it below `tree.len()`.
    pub fn from_index(index: usize) -> NodeId {
        NodeId(u32::try_from(index).unwrap_or(u32::MAX))
    }
}

impl std::fmt::Display for NodeId {
    fn fmt(&self, formatter: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(formatter, "#{}", self.0)
    }
}

pub(crate) mod flags {
    /// A leaf: its text is input bytes.
    pub const TOKEN: u16 = 1 << 0;
    /// A named kind (not a literal token).
    pub const NAMED: u16 = 1 << 1;
    /// A tree-sitter extra (comment): may appear anywhere.
    pub const EXTRA: u16 = 1 << 2;
    /// Removing the node prints nothing (its position may be empty).
    pub const PHI_EMPTY: u16 = 1 << 3;
    /// Removing the node would not shorten the text: never worth trying.
    pub const UNREMOVABLE: u16 = 1 << 4;
    /// The node's text or its leading whitespace contains a newline.
    pub const NEWLINE: u16 = 1 << 5;
    /// The node's children form a separated list.
    pub const LIST: u16 = 1 << 6;
    /// A separator token of a list.
    pub const SEPARATOR: u16 = 1 << 7;
    /// An element of a list (other children of a list end a run of elements).
    pub const ELEMENT: u16 = 1 << 8;
    /// A node the tree layer made (flattened rest, hidden text).
    pub const SYNTHETIC: u16 = 1 << 9;
    /// A tree-sitter ERROR node or a node inside one.
    pub const IN_ERROR: u16 = 1 << 10;
    /// A detail the coarse variants leave alone: a token and the child it introduces (`: T`).
    pub const DETAIL: u16 = 1 << 11;
}

/// Sentinels of [`Node::replacement`].
pub(crate) const REPLACEMENT_EMPTY: u32 = u32::MAX;
pub(crate) const REPLACEMENT_NONE: u32 = u32::MAX - 1;

#[derive(Debug, Clone, Copy)]
pub(crate) struct Node {
    /// Start of the whitespace before the node's first token.
    pub trivia_start: u32,
    /// Start of the first token's text.
    pub start: u32,
    /// End of the last token's text.
    pub end: u32,
    /// One past the last id of the subtree.
    pub subtree_end: u32,
    pub parent: u32,
    pub depth: u32,
    /// Index into [`Tree::replacements`] or one of the sentinels.
    pub replacement: u32,
    pub kind: KindId,
    pub flags: u16,
    /// The field of the parent the node fills (tree-sitter field id; 0: none).
    pub field: u16,
}

/// Which preprocessing steps run while the tree is built.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Preprocess {
    /// Collapse a node with a single child into that child when both print the same replacement.
    pub squeeze: bool,
    /// Rewrite left/right recursive chains of one kind (`(a + b) + c`) into one node whose
    /// recursive parts are removable (`a`, `+ b`, `+ c`).
    pub flatten: bool,
    /// Mark nodes whose replacement would not shorten the text as unremovable.
    pub mark_unremovable: bool,
    /// Put a child and the token the grammar pairs it with in an optional place (`struct S {}`
    /// and its `;`, `:` and a type) under one removable node.
    pub pair: bool,
}

impl Default for Preprocess {
    fn default() -> Self {
        Preprocess {
            squeeze: true,
            flatten: true,
            mark_unremovable: true,
            pair: true,
        }
    }
}

impl Preprocess {
    /// No preprocessing: the tree mirrors tree-sitter's.
    pub fn none() -> Preprocess {
        Preprocess {
            squeeze: false,
            flatten: false,
            mark_unremovable: false,
            pair: false,
        }
    }
}

/// An input parsed into an immutable arena tree. Edits live in [`super::TreeState`].
pub struct Tree {
    pub(crate) language: &'static Language,
    pub(crate) tables: &'static KindTables,
    pub(crate) source: Box<[u8]>,
    pub(crate) nodes: Vec<Node>,
    /// Start of the whitespace after the last token.
    pub(crate) tail_start: u32,
    pub(crate) replacements: Vec<Box<[u8]>>,
    pub(crate) input_errors: usize,
    pub(crate) preprocess: Preprocess,
}

impl std::fmt::Debug for Tree {
    fn fmt(&self, formatter: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        formatter
            .debug_struct("Tree")
            .field("language", &self.language.name())
            .field("nodes", &self.nodes.len())
            .field("bytes", &self.source.len())
            .finish_non_exhaustive()
    }
}

/// Iterator over the children of a node in the unedited tree.
#[derive(Debug, Clone)]
pub struct Children<'t> {
    tree: &'t Tree,
    next: u32,
    end: u32,
}

impl Iterator for Children<'_> {
    type Item = NodeId;
    fn next(&mut self) -> Option<NodeId> {
        if self.next >= self.end {
            return None;
        }
        let id = NodeId(self.next);
        self.next = self.tree.nodes[id.index()].subtree_end;
        Some(id)
    }
}

impl Tree {
    #[inline]
    pub(crate) fn node(&self, id: NodeId) -> &Node {
        &self.nodes[id.index()]
    }

    #[inline]
    pub(crate) fn has(&self, id: NodeId, flag: u16) -> bool {
        self.nodes[id.index()].flags & flag != 0
    }

    /// The language the tree was parsed with.
    pub fn language(&self) -> &'static Language {
        self.language
    }

    /// The input the tree was parsed from.
    pub fn source(&self) -> &[u8] {
        &self.source
    }

    /// The preprocessing the tree was built with.
    pub fn preprocess(&self) -> Preprocess {
        self.preprocess
    }

    /// Number of nodes.
    pub fn len(&self) -> usize {
        self.nodes.len()
    }

    /// Whether the tree has no node (never: there is always a root).
    pub fn is_empty(&self) -> bool {
        self.nodes.is_empty()
    }

    /// ERROR and MISSING nodes tree-sitter found in the input.
    pub fn input_errors(&self) -> usize {
        self.input_errors
    }

    /// The root node.
    pub fn root(&self) -> NodeId {
        NodeId(0)
    }

    /// All node ids in document order.
    pub fn ids(&self) -> impl Iterator<Item = NodeId> + use<> {
        (0..self.nodes.len() as u32).map(NodeId)
    }

    /// The node kind (a tree-sitter kind name, `ERROR`, or `(rest)` / `(hidden text)` for nodes
    /// the preprocessing made).
    pub fn kind(&self, id: NodeId) -> &str {
        self.tables.kind_name(self.node(id).kind)
    }

    /// The kind as a number (equal numbers are equal kinds).
    pub fn kind_id(&self, id: NodeId) -> KindId {
        self.node(id).kind
    }

    /// Whether the kind is named (a rule or named token) rather than a literal token.
    pub fn is_named(&self, id: NodeId) -> bool {
        self.has(id, flags::NAMED)
    }

    /// Whether the node is a leaf (a token: its text is input bytes).
    pub fn is_token(&self, id: NodeId) -> bool {
        self.has(id, flags::TOKEN)
    }

    /// Whether the node is an extra (a comment).
    pub fn is_extra(&self, id: NodeId) -> bool {
        self.has(id, flags::EXTRA)
    }

    /// Whether the node is an ERROR node of the input or inside one.
    pub fn is_in_error(&self, id: NodeId) -> bool {
        self.has(id, flags::IN_ERROR)
    }

    /// Whether the preprocessing made the node (a flattened rest or hidden text).
    pub fn is_synthetic(&self, id: NodeId) -> bool {
        self.has(id, flags::SYNTHETIC)
    }

    /// The bytes of the node's text (from its first token to its last, without the whitespace
    /// before the first token).
    pub fn byte_range(&self, id: NodeId) -> Range<usize> {
        let node = self.node(id);
        node.start as usize..node.end as usize
    }

    /// The node's text in the unedited input.
    pub fn text(&self, id: NodeId) -> &[u8] {
        &self.source[self.byte_range(id)]
    }

    /// The whitespace before the node's first token.
    pub fn leading_trivia(&self, id: NodeId) -> &[u8] {
        let node = self.node(id);
        &self.source[node.trivia_start as usize..node.start as usize]
    }

    /// The whitespace after the last token.
    pub fn trailing_trivia(&self) -> &[u8] {
        &self.source[self.tail_start as usize..]
    }

    /// The name of the field of its parent the node fills (`condition`), if any.
    pub fn field_name(&self, id: NodeId) -> Option<&'static str> {
        self.tables.grammar().field_name_for_id(self.node(id).field)
    }

    /// Whether the node is part of a loop's control: a loop's (`for`, `while`, `do`) condition,
    /// update or increment, or inside one. A candidate without them, or with them shortened,
    /// often never ends.
    pub fn in_loop_control(&self, id: NodeId) -> bool {
        let mut node = id;
        while let Some(parent) = self.parent(node) {
            if matches!(
                self.field_name(node),
                Some("condition" | "update" | "increment")
            ) && ["for", "while", "do_"]
                .iter()
                .any(|keyword| self.kind(parent).starts_with(keyword))
            {
                return true;
            }
            node = parent;
        }
        false
    }

    /// The parent in the unedited tree.
    pub fn parent(&self, id: NodeId) -> Option<NodeId> {
        let parent = self.node(id).parent;
        (parent != u32::MAX).then_some(NodeId(parent))
    }

    /// Depth in the unedited tree (the root has depth 0).
    pub fn depth(&self, id: NodeId) -> usize {
        self.node(id).depth as usize
    }

    /// The children in the unedited tree.
    pub fn children(&self, id: NodeId) -> Children<'_> {
        let node = self.node(id);
        Children {
            tree: self,
            next: id.0 + 1,
            end: node.subtree_end,
        }
    }

    /// One past the last id of the node's subtree.
    pub fn subtree_end(&self, id: NodeId) -> NodeId {
        NodeId(self.node(id).subtree_end)
    }

    /// Whether `descendant` is inside the subtree of `ancestor` (a node is its own descendant).
    pub fn is_descendant(&self, ancestor: NodeId, descendant: NodeId) -> bool {
        ancestor.0 <= descendant.0 && descendant.0 < self.node(ancestor).subtree_end
    }

    /// Whether removing the node prints nothing: its position in the parent may be empty
    /// (the nodes the coarse variants of HDD and hoisting work on).
    pub fn is_phi_empty(&self, id: NodeId) -> bool {
        self.has(id, flags::PHI_EMPTY) || self.replacement(id).is_some_and(<[u8]>::is_empty)
    }

    /// Whether the node is a detail that the coarse variants leave alone although it is
    /// Φ-empty: a token and the child it introduces (`: T`, `= v`).
    pub fn is_detail(&self, id: NodeId) -> bool {
        self.has(id, flags::DETAIL)
    }

    /// Whether removing the node is worth trying (its replacement is shorter than its text).
    pub fn is_removable(&self, id: NodeId) -> bool {
        !self.has(id, flags::UNREMOVABLE)
    }

    /// What a removed node prints: empty when the node is Φ-empty, else Φ of its kind (or the
    /// shortest text of the kind in the input); `None` when nothing is known (it prints itself).
    pub fn replacement(&self, id: NodeId) -> Option<&[u8]> {
        match self.node(id).replacement {
            REPLACEMENT_EMPTY => Some(b""),
            REPLACEMENT_NONE => None,
            index => self.replacements.get(index as usize).map(|text| &**text),
        }
    }

    /// Φ of the node's kind from the grammar tables (before the fallback to the input).
    pub fn phi(&self, id: NodeId) -> Option<&[u8]> {
        self.tables.phi(self.node(id).kind)
    }

    /// Compatibility of kinds: the same kind, or two kinds of one declared supertype. (Hoisting
    /// also asks whether the kind fits the place: see [`super::TreeState::can_hoist`].)
    pub fn compatible(&self, a: NodeId, b: NodeId) -> bool {
        self.tables.compatible(self.node(a).kind, self.node(b).kind)
    }

    /// Whether a node of `kind` may stand at `place` (the grammar allows the kind in the field of
    /// the parent that `place` fills; allowed when the grammar says nothing).
    pub fn fits_place(&self, place: NodeId, kind: KindId) -> bool {
        match self.grammar_parent(place) {
            Some(parent) => self
                .tables
                .allows(self.node(parent).kind, self.node(place).field, kind)
                .unwrap_or(true),
            None => true,
        }
    }

    /// The nearest ancestor that is no synthetic node (the parent as the grammar sees it).
    fn grammar_parent(&self, id: NodeId) -> Option<NodeId> {
        let mut parent = self.parent(id);
        while let Some(id) = parent {
            if !self.is_synthetic(id) {
                break;
            }
            parent = self.parent(id);
        }
        parent
    }

    /// The field of its parent the node fills (a tree-sitter field id; 0: none).
    pub fn field(&self, id: NodeId) -> u16 {
        self.node(id).field
    }

    /// The place a node fills as the grammar sees it: its parent's kind and the field (0: none);
    /// `None` for the root.
    pub fn place_key(&self, id: NodeId) -> Option<(KindId, u16)> {
        let parent = self.grammar_parent(id)?;
        Some((self.node(parent).kind, self.node(id).field))
    }

    /// The kinds the grammar allows where `place` stands (the field of its parent it fills);
    /// `None` for the root and when the grammar says nothing about the place.
    pub fn kinds_allowed_at(&self, place: NodeId) -> Option<&std::collections::HashSet<KindId>> {
        let parent = self.grammar_parent(place)?;
        self.tables
            .kinds_at(self.node(parent).kind, self.node(place).field)
    }

    /// Names of the declared supertypes the node's kind belongs to.
    pub fn supertypes(&self, id: NodeId) -> Vec<&str> {
        self.tables
            .supertypes_of(self.node(id).kind)
            .iter()
            .map(|&s| self.tables.supertype_name(s))
            .collect()
    }

    /// Whether the node is a separator of a separated list (dropped with the elements).
    pub fn is_list_separator(&self, id: NodeId) -> bool {
        self.has(id, flags::SEPARATOR)
    }

    /// The tables of the tree's language.
    pub fn tables(&self) -> &'static KindTables {
        self.tables
    }

    /// Heap bytes held by the tree (nodes, source and replacement texts).
    pub fn heap_bytes(&self) -> usize {
        self.nodes.capacity() * std::mem::size_of::<Node>()
            + self.source.len()
            + self
                .replacements
                .iter()
                .map(|text| text.len() + std::mem::size_of::<Box<[u8]>>())
                .sum::<usize>()
    }
}
