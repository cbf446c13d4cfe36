//! Building the arena tree from tree-sitter's concrete syntax tree, with the preprocessing
//! (squeeze of single-child chains, flattening of recursive chains, unremovable marks).

use std::collections::HashMap;

use anyhow::{Context as _, bail};

use super::arena::{Node, NodeId, Preprocess, REPLACEMENT_EMPTY, REPLACEMENT_NONE, Tree, flags};
use super::language::{KindId, KindTables, Language, ListTable, synthetic};
use super::profile::Presence;

/// A node under construction; its children are `pool[first..first + count]`.
#[derive(Debug, Clone, Copy)]
struct Raw {
    trivia_start: u32,
    start: u32,
    end: u32,
    first: u32,
    count: u32,
    kind: KindId,
    flags: u16,
    field: u16,
}

/// A tree-sitter node whose children are being built.
struct Frame {
    kind: KindId,
    flags: u16,
    field: u16,
    end: u32,
    /// Where this node's children start on the builder's stack of finished nodes.
    base: usize,
}

struct Builder<'s> {
    tables: &'static KindTables,
    source: &'s [u8],
    options: Preprocess,
    raws: Vec<Raw>,
    pool: Vec<u32>,
    /// Finished nodes waiting for their parent to finish.
    finished: Vec<u32>,
    /// End of the last token: everything before it belongs to a token or its whitespace.
    position: u32,
    input_errors: usize,
}

/// Parses `source` and builds its tree.
pub fn parse(
    language: &'static Language,
    source: Vec<u8>,
    options: Preprocess,
) -> anyhow::Result<Tree> {
    let tables = language.tables()?;
    let mut parser = tree_sitter::Parser::new();
    parser
        .set_language(tables.grammar())
        .with_context(|| format!("cannot load the {} grammar", language.name()))?;
    let syntax_tree = parser
        .parse(&source, None)
        .context("tree-sitter gave up parsing the input")?;
    from_syntax_tree(language, source, &syntax_tree, options)
}

/// Builds the tree of `source` from tree-sitter's parse of it.
pub fn from_syntax_tree(
    language: &'static Language,
    source: Vec<u8>,
    syntax_tree: &tree_sitter::Tree,
    options: Preprocess,
) -> anyhow::Result<Tree> {
    let tables = language.tables()?;
    if u32::try_from(source.len()).is_err() || source.len() >= (u32::MAX - 2) as usize {
        bail!(
            "input too large for a tree ({} bytes; the limit is 4 GiB)",
            source.len()
        );
    }
    let mut builder = Builder {
        tables,
        source: &source,
        options,
        raws: Vec::new(),
        pool: Vec::new(),
        finished: Vec::new(),
        position: 0,
        input_errors: 0,
    };
    let root = builder.walk(syntax_tree);
    let tail_start = builder.position;
    let Builder {
        raws,
        pool,
        input_errors,
        ..
    } = builder;
    let nodes = freeze(&raws, &pool, root);
    let mut tree = Tree {
        language,
        tables,
        source: source.into_boxed_slice(),
        nodes,
        tail_start,
        replacements: Vec::new(),
        input_errors,
        preprocess: options,
    };
    assign_replacements(&mut tree);
    Ok(tree)
}

/// The field id of the cursor's node in its parent (0: none).
fn field_of(cursor: &tree_sitter::TreeCursor<'_>) -> u16 {
    cursor.field_id().map_or(0, |id| id.get())
}

fn has_non_whitespace(bytes: &[u8]) -> bool {
    bytes.iter().any(|byte| !byte.is_ascii_whitespace())
}

impl Builder<'_> {
    fn walk(&mut self, syntax_tree: &tree_sitter::Tree) -> u32 {
        let mut cursor = syntax_tree.walk();
        let root = cursor.node();
        let root_end = self.source.len() as u32;
        let mut frames = vec![self.open_frame(&root, 0, root_end)];
        if root.is_error() || root.is_missing() {
            self.input_errors += 1;
        }
        let mut descend = true;
        'walk: loop {
            if descend {
                if cursor.goto_first_child() {
                    descend = self.enter(&cursor.node(), field_of(&cursor), &mut frames);
                    continue;
                }
                // A node without children after all: it is complete.
                if self.finish_top(&mut frames) {
                    break 'walk;
                }
            }
            // The cursor is on a complete node; its parent's frame is on top.
            loop {
                if cursor.goto_next_sibling() {
                    descend = self.enter(&cursor.node(), field_of(&cursor), &mut frames);
                    continue 'walk;
                }
                cursor.goto_parent();
                if self.finish_top(&mut frames) {
                    break 'walk;
                }
            }
        }
        let root = self.finished.pop().unwrap_or(0);
        self.squeeze_root(root)
    }

    /// Finishes the node on top of the frame stack; returns whether it was the root.
    fn finish_top(&mut self, frames: &mut Vec<Frame>) -> bool {
        let Some(frame) = frames.pop() else {
            return true;
        };
        let id = self.finish(frame, frames.last());
        self.finished.push(id);
        frames.is_empty()
    }

    fn open_frame(&mut self, node: &tree_sitter::Node<'_>, field: u16, end: u32) -> Frame {
        let mut frame_flags = 0;
        if node.is_named() {
            frame_flags |= flags::NAMED;
        }
        if node.is_extra() {
            frame_flags |= flags::EXTRA;
        }
        let kind = self.tables.kind_of(node);
        if kind == synthetic::ERROR {
            frame_flags |= flags::IN_ERROR;
        }
        Frame {
            kind,
            flags: frame_flags,
            field,
            end,
            base: self.finished.len(),
        }
    }

    /// Starts a node; returns whether its children are to be visited.
    fn enter(&mut self, node: &tree_sitter::Node<'_>, field: u16, frames: &mut Vec<Frame>) -> bool {
        if node.is_error() || node.is_missing() {
            self.input_errors += 1;
        }
        if node.is_missing() {
            // A token tree-sitter assumed but the input lacks: no bytes, nothing to keep.
            return false;
        }
        let start = node.start_byte() as u32;
        self.hidden_text_until(start);
        if node.child_count() == 0 {
            let id = self.token(node, field);
            self.finished.push(id);
            return false;
        }
        let end = (node.end_byte() as u32).max(self.position);
        let mut frame = self.open_frame(node, field, end);
        if frames
            .last()
            .is_some_and(|parent| parent.flags & flags::IN_ERROR != 0)
        {
            frame.flags |= flags::IN_ERROR;
        }
        frames.push(frame);
        true
    }

    /// Turns input text that no visible token covers (a hidden token of the grammar) into a
    /// leaf of the node being built; whitespace stays the trivia of the next token.
    fn hidden_text_until(&mut self, until: u32) {
        if until <= self.position {
            return;
        }
        let gap = &self.source[self.position as usize..until as usize];
        if !has_non_whitespace(gap) {
            return;
        }
        let leading = gap
            .iter()
            .take_while(|byte| byte.is_ascii_whitespace())
            .count() as u32;
        let trailing = gap
            .iter()
            .rev()
            .take_while(|byte| byte.is_ascii_whitespace())
            .count() as u32;
        let trivia_start = self.position;
        let start = self.position + leading;
        let end = until - trailing;
        let id = self.push_raw(Raw {
            trivia_start,
            start,
            end,
            first: 0,
            count: 0,
            kind: synthetic::HIDDEN_TEXT,
            flags: flags::TOKEN | flags::SYNTHETIC | flags::NAMED,
            field: 0,
        });
        self.position = end;
        self.finished.push(id);
    }

    fn token(&mut self, node: &tree_sitter::Node<'_>, field: u16) -> u32 {
        let start = (node.start_byte() as u32).max(self.position);
        let end = (node.end_byte() as u32).max(start);
        let mut token_flags = flags::TOKEN;
        if node.is_named() {
            token_flags |= flags::NAMED;
        }
        if node.is_extra() {
            token_flags |= flags::EXTRA;
        }
        let kind = self.tables.kind_of(node);
        if kind == synthetic::ERROR {
            token_flags |= flags::IN_ERROR;
        }
        let raw = Raw {
            trivia_start: self.position,
            start,
            end,
            first: 0,
            count: 0,
            kind,
            flags: token_flags,
            field,
        };
        self.position = end;
        self.push_raw(raw)
    }

    fn push_raw(&mut self, mut raw: Raw) -> u32 {
        let covered = &self.source[raw.trivia_start as usize..raw.end as usize];
        if covered.contains(&b'\n') {
            raw.flags |= flags::NEWLINE;
        }
        self.raws.push(raw);
        (self.raws.len() - 1) as u32
    }

    /// Completes a node: its children's emptiness, list marks, squeeze and flattening.
    fn finish(&mut self, frame: Frame, parent: Option<&Frame>) -> u32 {
        self.hidden_text_until(frame.end);
        let mut children: Vec<u32> = self.finished.split_off(frame.base);
        let in_error = frame.flags & flags::IN_ERROR != 0
            || parent.is_some_and(|p| p.flags & flags::IN_ERROR != 0);
        self.mark_children(frame.kind, in_error, &children);
        if self.options.pair && !in_error && children.len() > 1 {
            children = self.paired(frame.kind, children);
        }
        if self.options.squeeze {
            for child in &mut children {
                *child = self.squeezed(*child);
            }
        }
        if self.options.flatten && frame.kind != synthetic::ERROR && children.len() > 1 {
            children = self.flattened(frame.kind, children);
        }
        let mut node_flags = frame.flags;
        if self.mark_list(frame.kind, &children) {
            node_flags |= flags::LIST;
        }
        if in_error {
            node_flags |= flags::IN_ERROR;
        }
        self.internal(frame.kind, node_flags, frame.field, &children)
    }

    /// Makes an internal node over `children` (a zero-width leaf when there are none).
    fn internal(&mut self, kind: KindId, mut node_flags: u16, field: u16, children: &[u32]) -> u32 {
        let (trivia_start, start, end) = match (children.first(), children.last()) {
            (Some(&first), Some(&last)) => {
                let (first, last) = (self.raws[first as usize], self.raws[last as usize]);
                (first.trivia_start, first.start, last.end)
            }
            _ => {
                node_flags |= flags::TOKEN;
                (self.position, self.position, self.position)
            }
        };
        if children
            .iter()
            .any(|&child| self.raws[child as usize].flags & flags::NEWLINE != 0)
        {
            node_flags |= flags::NEWLINE;
        }
        let first = self.pool.len() as u32;
        self.pool.extend_from_slice(children);
        self.raws.push(Raw {
            trivia_start,
            start,
            end,
            first,
            count: children.len() as u32,
            kind,
            flags: node_flags,
            field,
        });
        (self.raws.len() - 1) as u32
    }

    /// Marks which children may be left out of a node of kind `parent`.
    fn mark_children(&mut self, parent: KindId, in_error: bool, children: &[u32]) {
        let in_list = self.list_elements(parent, children);
        let mut repeated = Vec::new();
        for (index, &child) in children.iter().enumerate() {
            let raw = &mut self.raws[child as usize];
            let presence =
                if in_error || raw.flags & flags::EXTRA != 0 || raw.kind == synthetic::ERROR {
                    Presence::Optional
                } else if raw.kind == synthetic::HIDDEN_TEXT {
                    Presence::Required
                } else if in_list.get(index).copied().unwrap_or(false) {
                    self.tables
                        .presence(parent, raw.kind)
                        .min(Presence::Repeated)
                } else {
                    self.tables.presence(parent, raw.kind)
                };
            match presence {
                Presence::Optional => raw.flags |= flags::PHI_EMPTY,
                Presence::Repeated => repeated.push(child),
                Presence::Required => {}
            }
        }
        if repeated.len() > 1 {
            for child in repeated {
                self.raws[child as usize].flags |= flags::PHI_EMPTY;
            }
        }
    }

    /// Which children are elements of a separated list of `parent` beside one of its
    /// separators (comments aside); empty when `parent` is no list. Such an element may go with
    /// its separator while another stays, even where the grammar's table calls the kind
    /// required because another form of the parent needs it (Rust's `[x; n]` beside
    /// `[a, b, c]`): the separator shows which form the node took.
    fn list_elements(&self, parent: KindId, children: &[u32]) -> Vec<bool> {
        let Some(list) = self.tables.list(parent) else {
            return Vec::new();
        };
        let raws: Vec<&Raw> = children
            .iter()
            .map(|&child| &self.raws[child as usize])
            .collect();
        let mut beside = vec![false; raws.len()];
        // Forwards, then backwards: an element right after a separator, comments aside.
        let mut mark = |order: &mut dyn Iterator<Item = usize>| {
            let mut after_separator = false;
            for index in order {
                let raw = raws[index];
                if raw.flags & flags::EXTRA != 0 {
                    continue;
                }
                beside[index] |= after_separator && self.is_list_element_kind(list, raw);
                after_separator = self.is_list_separator(list, raw);
            }
        };
        mark(&mut (0..raws.len()));
        mark(&mut (0..raws.len()).rev());
        beside
    }

    /// Whether `raw` is one of `list`'s separator tokens.
    fn is_list_separator(&self, list: &ListTable, raw: &Raw) -> bool {
        raw.flags & (flags::TOKEN | flags::NAMED) == flags::TOKEN
            && list
                .separators
                .iter()
                .any(|separator| **separator == self.source[raw.start as usize..raw.end as usize])
    }

    /// Whether `raw` is of one of `list`'s element kinds (any node but a token when it names
    /// none).
    fn is_list_element_kind(&self, list: &ListTable, raw: &Raw) -> bool {
        if list.elements.is_empty() {
            raw.flags & (flags::TOKEN | flags::NAMED) != flags::TOKEN
        } else {
            list.elements.contains(&raw.kind)
        }
    }

    /// Puts each child that the grammar pairs with the token beside it (in an optional place)
    /// under a removable `(pair)` node with that token; a list's separators stay the list's.
    fn paired(&mut self, parent: KindId, children: Vec<u32>) -> Vec<u32> {
        let separators = self.tables.list(parent).map(|list| &list.separators[..]);
        let is_token = |raw: &Raw, text: &[u8], source: &[u8]| {
            raw.flags & (flags::TOKEN | flags::NAMED | flags::EXTRA) == flags::TOKEN
                && &source[raw.start as usize..raw.end as usize] == text
                && !separators.is_some_and(|separators| separators.iter().any(|s| **s == *text))
        };
        let mut out = Vec::with_capacity(children.len());
        let mut index = 0;
        while index < children.len() {
            let child = children[index];
            let raw = self.raws[child as usize];
            let paired = self
                .tables
                .paired_tokens(parent, raw.kind)
                .iter()
                .find_map(|token| {
                    let neighbour = if token.after {
                        children.get(index + 1)
                    } else {
                        index.checked_sub(1).and_then(|before| children.get(before))
                    }?;
                    // The token before was pushed already: it must still be the last one out.
                    if !token.after && out.last() != Some(neighbour) {
                        return None;
                    }
                    is_token(&self.raws[*neighbour as usize], &token.text, self.source)
                        .then_some((*neighbour, token.after))
                });
            // The pair's child is squeezed here: the caller squeezes only direct children.
            let element = if paired.is_some() && self.options.squeeze {
                self.squeezed(child)
            } else {
                child
            };
            match paired {
                Some((token, true)) => {
                    let pair = self.pair_node(&[element, token], 0);
                    out.push(pair);
                    index += 2;
                }
                Some((token, false)) => {
                    out.pop();
                    let pair = self.pair_node(&[token, element], flags::DETAIL);
                    out.push(pair);
                    index += 1;
                }
                None => {
                    out.push(child);
                    index += 1;
                }
            }
        }
        out
    }

    /// A removable `(pair)` node over a child and its token, with `extra` flags.
    fn pair_node(&mut self, children: &[u32], extra: u16) -> u32 {
        self.internal(
            synthetic::PAIR,
            flags::SYNTHETIC | flags::PHI_EMPTY | flags::NAMED | extra,
            0,
            children,
        )
    }

    /// Marks the separators and elements of a list node; returns whether it has separators.
    fn mark_list(&mut self, parent: KindId, children: &[u32]) -> bool {
        let Some(list) = self.tables.list(parent) else {
            return false;
        };
        let mut any = false;
        for &child in children {
            let raw = self.raws[child as usize];
            let mark = if self.is_list_separator(list, &raw) {
                any = true;
                flags::SEPARATOR
            } else if raw.flags & (flags::EXTRA | flags::SYNTHETIC) != 0
                || raw.kind == synthetic::ERROR
                || self.is_list_element_kind(list, &raw)
            {
                flags::ELEMENT
            } else {
                0
            };
            self.raws[child as usize].flags |= mark;
        }
        any
    }

    /// The node that stands for `id` after squeezing single-child chains whose members print
    /// the same replacement.
    fn squeezed(&mut self, id: u32) -> u32 {
        let raw = self.raws[id as usize];
        if raw.count != 1 || raw.flags & flags::TOKEN != 0 {
            return id;
        }
        let child = self.pool[raw.first as usize];
        let child_raw = self.raws[child as usize];
        if !self.same_replacement(&raw, &child_raw) {
            return id;
        }
        // The child takes the parent's place (its field and, printing the same, its emptiness).
        self.raws[child as usize].flags |= raw.flags & flags::PHI_EMPTY;
        self.raws[child as usize].field = raw.field;
        child
    }

    /// What a node prints when removed, as far as the grammar tables know.
    fn replacement_of(&self, raw: &Raw) -> Option<&[u8]> {
        if raw.flags & flags::PHI_EMPTY != 0 {
            Some(b"")
        } else {
            self.tables.phi(raw.kind)
        }
    }

    fn same_replacement(&self, a: &Raw, b: &Raw) -> bool {
        match (self.replacement_of(a), self.replacement_of(b)) {
            (Some(pa), Some(pb)) => pa == pb,
            _ => false,
        }
    }

    fn squeeze_root(&mut self, root: u32) -> u32 {
        if !self.options.squeeze {
            return root;
        }
        let mut current = root;
        loop {
            let raw = self.raws[current as usize];
            if raw.count != 1 || raw.flags & flags::TOKEN != 0 {
                return current;
            }
            let child = self.pool[raw.first as usize];
            if !self.same_replacement(&raw, &self.raws[child as usize]) {
                return current;
            }
            current = child;
        }
    }

    /// Flattens left recursion `K(K(x, y), z)` into `K(x, y, (rest z))` and right recursion
    /// `K(x, K(y, z))` into `K((rest x), y, z)`; the rests may be left out.
    fn flattened(&mut self, kind: KindId, children: Vec<u32>) -> Vec<u32> {
        let recursive = |raw: &Raw| {
            raw.kind == kind && raw.flags & (flags::TOKEN | flags::SYNTHETIC) == 0 && raw.count > 0
        };
        let first = self.raws[children[0] as usize];
        let last = self.raws[children[children.len() - 1] as usize];
        if recursive(&first) {
            let mut out: Vec<u32> =
                self.pool[first.first as usize..(first.first + first.count) as usize].to_vec();
            let rest = self.internal(
                synthetic::REST,
                flags::SYNTHETIC | flags::PHI_EMPTY | flags::NAMED,
                0,
                &children[1..],
            );
            out.push(rest);
            out
        } else if recursive(&last) {
            let rest = self.internal(
                synthetic::REST,
                flags::SYNTHETIC | flags::PHI_EMPTY | flags::NAMED,
                0,
                &children[..children.len() - 1],
            );
            let mut out = vec![rest];
            out.extend_from_slice(
                &self.pool[last.first as usize..(last.first + last.count) as usize],
            );
            out
        } else {
            children
        }
    }
}

/// Lays the finished nodes out in preorder.
fn freeze(raws: &[Raw], pool: &[u32], root: u32) -> Vec<Node> {
    let mut nodes: Vec<Node> = Vec::with_capacity(raws.len());
    // (raw id, parent node id, depth); children are pushed in reverse to pop in order.
    let mut stack: Vec<(u32, u32, u32)> = vec![(root, u32::MAX, 0)];
    // Preorder ids of the open ancestors, to close their subtree ranges.
    let mut open: Vec<usize> = Vec::new();
    while let Some((raw_id, parent, depth)) = stack.pop() {
        let raw = raws[raw_id as usize];
        while let Some(&top) = open.last() {
            if nodes[top].depth >= depth {
                nodes[top].subtree_end = nodes.len() as u32;
                open.pop();
            } else {
                break;
            }
        }
        let id = nodes.len();
        nodes.push(Node {
            trivia_start: raw.trivia_start,
            start: raw.start,
            end: raw.end,
            subtree_end: id as u32 + 1,
            parent,
            depth,
            replacement: REPLACEMENT_NONE,
            kind: raw.kind,
            flags: raw.flags,
            field: raw.field,
        });
        if raw.count > 0 {
            open.push(id);
            for &child in pool[raw.first as usize..(raw.first + raw.count) as usize]
                .iter()
                .rev()
            {
                stack.push((child, id as u32, depth + 1));
            }
        }
    }
    let total = nodes.len() as u32;
    for top in open {
        nodes[top].subtree_end = total;
    }
    nodes
}

/// The index of `text` in the tree's replacement texts (added when new).
fn intern(tree: &mut Tree, by_text: &mut HashMap<Box<[u8]>, u32>, text: Box<[u8]>) -> u32 {
    if let Some(&slot) = by_text.get(&text) {
        return slot;
    }
    tree.replacements.push(text.clone());
    let slot = (tree.replacements.len() - 1) as u32;
    by_text.insert(text, slot);
    slot
}

/// The shortest replacement the grammar allows in the named field the node fills (see
/// [`KindTables::shortest_phi_at`]); `None` outside fields and for tokens (a keyword such as
/// C's `int` keeps its own kind's Φ rather than becoming an identifier).
fn place_phi(tree: &Tree, id: NodeId) -> Option<&'static [u8]> {
    let node = tree.node(id);
    if node.flags & (flags::SYNTHETIC | flags::TOKEN) != 0 {
        return None;
    }
    let mut parent = tree.parent(id);
    while let Some(p) = parent {
        if !tree.is_synthetic(p) {
            break;
        }
        parent = tree.parent(p);
    }
    tree.tables
        .shortest_phi_at(tree.node(parent?).kind, node.field, node.kind)
}

/// Sets every node's replacement (Φ-empty, Φ of its kind, or the shortest text of its kind in the
/// input) and the unremovable marks.
fn assign_replacements(tree: &mut Tree) {
    let mut by_kind: HashMap<KindId, u32> = HashMap::new();
    let mut fallback: HashMap<KindId, NodeId> = HashMap::new();
    for index in 0..tree.nodes.len() {
        let node = tree.nodes[index];
        if node.flags & flags::PHI_EMPTY != 0 || node.kind == synthetic::HIDDEN_TEXT {
            continue;
        }
        if tree.tables.phi(node.kind).is_none() {
            let text = &tree.source[node.start as usize..node.end as usize];
            let better = match fallback.get(&node.kind) {
                None => true,
                Some(best) => {
                    let best = tree.nodes[best.index()];
                    let best_text = &tree.source[best.start as usize..best.end as usize];
                    (text.len(), text) < (best_text.len(), best_text)
                }
            };
            if better {
                fallback.insert(node.kind, NodeId::from_index(index));
            }
        }
    }
    let mut by_text: HashMap<Box<[u8]>, u32> = HashMap::new();
    for index in 0..tree.nodes.len() {
        let node = tree.nodes[index];
        let replacement = if node.flags & flags::PHI_EMPTY != 0 {
            REPLACEMENT_EMPTY
        } else if node.kind == synthetic::HIDDEN_TEXT {
            REPLACEMENT_NONE
        } else {
            let slot = match by_kind.get(&node.kind) {
                Some(&slot) => Some(slot),
                None => {
                    let text: Option<Box<[u8]>> = match tree.tables.phi(node.kind) {
                        Some(phi) => Some(phi.into()),
                        None => fallback.get(&node.kind).map(|&best| tree.text(best).into()),
                    };
                    text.map(|text| {
                        let slot = intern(tree, &mut by_text, text);
                        by_kind.insert(node.kind, slot);
                        slot
                    })
                }
            };
            // A field that allows a whole supertype (JSON's `_value`, C's `expression`) takes the
            // shortest text of any compatible kind, as Φ of the hidden supertype rule would.
            let own_len = slot.map(|slot| tree.replacements[slot as usize].len());
            match place_phi(tree, NodeId::from_index(index)) {
                Some(phi) if own_len.is_none_or(|len| phi.len() < len) => {
                    let phi: Box<[u8]> = phi.into();
                    intern(tree, &mut by_text, phi)
                }
                _ => slot.unwrap_or(REPLACEMENT_NONE),
            }
        };
        tree.nodes[index].replacement = replacement;
    }
    for index in 0..tree.nodes.len() {
        let id = NodeId::from_index(index);
        let text_len = tree.byte_range(id).len();
        let unremovable = match tree.replacement(id) {
            None => true,
            Some(_) if tree.tables.is_unremovable_kind(tree.nodes[index].kind) => true,
            Some(replacement) => tree.preprocess.mark_unremovable && replacement.len() >= text_len,
        };
        if unremovable {
            tree.nodes[index].flags |= flags::UNREMOVABLE;
        }
    }
}
