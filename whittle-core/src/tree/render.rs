//! The unparser: writes the text of a tree under committed edits plus a candidate, keeping the
//! input's whitespace. Where removed material makes two tokens meet, it keeps the whitespace on
//! one side of the removal (a line break when either side has one), a newline when the removed
//! region had one and no whitespace is left, else a space between two word characters. The
//! rendering methods of [`TreeState`] are here: the state of the edits knows nothing of how it
//! is written.

use super::arena::{NodeId, Tree, flags};
use super::language::needs_space;
use super::state::{KEPT, REMOVED, TreeEdits, TreeState};

/// Removed material since the last text written.
#[derive(Debug, Clone, Copy)]
struct Gap {
    /// The whitespace before the removed material.
    lead: (u32, u32),
    newline: bool,
}

impl Gap {
    fn merge(first: Option<Gap>, second: Option<Gap>) -> Option<Gap> {
        match (first, second) {
            (Some(a), Some(b)) => Some(Gap {
                lead: a.lead,
                newline: a.newline || b.newline,
            }),
            (a, b) => a.or(b),
        }
    }
}

/// A list separator held back until an element follows it.
#[derive(Debug, Clone, Copy)]
struct PendingSeparator {
    token: NodeId,
    gap_before: Option<Gap>,
}

/// A node whose children are being written.
#[derive(Debug, Clone, Copy)]
struct Frame {
    /// The place (the node of the unedited tree) and the node shown there.
    place: NodeId,
    node: NodeId,
    next: u32,
    end: u32,
    list: bool,
    /// Pieces written when the current list segment started.
    mark: u64,
    /// Whether the current list segment has elements.
    segment_has_elements: bool,
    /// The dedent in force before this frame (a hoisted node moves left by the difference of
    /// indentation between its line and its place's line).
    outer_dedent: u32,
}

pub(crate) struct Renderer<'a> {
    tree: &'a Tree,
    source: &'a [u8],
    committed: &'a [u32],
    touched: &'a [bool],
    /// Copy untouched subtrees as one piece of input (off: visit every token).
    whole_subtrees: bool,
    removed: &'a [NodeId],
    removed_at: usize,
    hoisted: &'a [(NodeId, NodeId)],
    hoisted_at: usize,
    out: &'a mut Vec<u8>,
    gap: Option<Gap>,
    pending: Option<PendingSeparator>,
    /// The whitespace of a hoisting's place, used before the first token of the hoisted node,
    /// with the dedent in force at that place (the hoisted node's own dedent applies only to
    /// the line breaks inside it).
    place_trivia: Option<((u32, u32), u32)>,
    /// Columns removed from the indentation of every line break written (inside hoisted nodes).
    dedent: u32,
    /// Source end of the last piece written (`u32::MAX` before the first).
    last_end: u32,
    pieces: u64,
    stack: Vec<Frame>,
    /// Where each piece went, when a [`Layout`] is wanted.
    layout: Option<Vec<Piece>>,
}

/// One piece of the rendering: input bytes `source` copied (or, `replaced`, printed as a
/// replacement) to `out` of the output.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Piece {
    out: (usize, usize),
    source: (u32, u32),
    replaced: bool,
}

/// Where the input bytes of a tree ended up in one rendering: for displays, which need the
/// byte ranges of nodes in a text the tree was not parsed from (the current best under the
/// committed edits).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Layout {
    /// In output order; their source ranges increase too (a rendering never reorders).
    pieces: Vec<Piece>,
}

impl Layout {
    /// The bytes of the rendering that input bytes `start..end` became (the whole replacement
    /// when they were replaced), or `None` when none of them was written.
    pub fn locate(&self, start: usize, end: usize) -> Option<std::ops::Range<usize>> {
        if start >= end {
            return None;
        }
        let first = self
            .pieces
            .partition_point(|piece| piece.source.1 as usize <= start);
        let piece = self.pieces.get(first)?;
        if piece.source.0 as usize >= end {
            return None;
        }
        let from = match piece.replaced {
            false if start > piece.source.0 as usize => {
                piece.out.0 + (start - piece.source.0 as usize)
            }
            _ => piece.out.0,
        };
        let last = self
            .pieces
            .partition_point(|piece| (piece.source.0 as usize) < end)
            .checked_sub(1)?;
        let piece = self.pieces[last];
        let to = match piece.replaced {
            false if end < piece.source.1 as usize => piece.out.0 + (end - piece.source.0 as usize),
            _ => piece.out.1,
        };
        Some(from..to.max(from))
    }
}

enum State {
    Kept,
    Removed,
    Hoisted(NodeId),
}

impl<'a> Renderer<'a> {
    pub(crate) fn new(
        state: &'a TreeState,
        candidate: &'a TreeEdits,
        out: &'a mut Vec<u8>,
    ) -> Self {
        out.clear();
        let tree = &**state.tree();
        Renderer {
            tree,
            source: tree.source(),
            committed: &state.state,
            touched: &state.touched,
            whole_subtrees: true,
            removed: candidate.removed(),
            removed_at: 0,
            hoisted: candidate.hoisted(),
            hoisted_at: 0,
            out,
            gap: None,
            pending: None,
            place_trivia: None,
            dedent: 0,
            last_end: u32::MAX,
            pieces: 0,
            stack: Vec::with_capacity(64),
            layout: None,
        }
    }

    /// Renders, recording where every piece goes.
    pub(crate) fn run_with_layout(mut self) -> Layout {
        self.layout = Some(Vec::new());
        let mut pieces = Vec::new();
        self.run_into(&mut pieces);
        Layout { pieces }
    }

    /// Visits every token instead of copying untouched subtrees.
    pub(crate) fn token_by_token(mut self) -> Self {
        self.whole_subtrees = false;
        self
    }

    /// Whether neither the committed edits nor the candidate touch the subtree of `id` (to be
    /// asked before [`Renderer::state`] of `id`).
    fn untouched(&mut self, id: NodeId) -> bool {
        if self.touched[id.index()] {
            return false;
        }
        let end = self.tree.node(id).subtree_end;
        while self.removed_at < self.removed.len() && self.removed[self.removed_at] < id {
            self.removed_at += 1;
        }
        if self.removed.get(self.removed_at).is_some_and(|r| r.0 < end) {
            return false;
        }
        while self.hoisted_at < self.hoisted.len() && self.hoisted[self.hoisted_at].0 < id {
            self.hoisted_at += 1;
        }
        self.hoisted
            .get(self.hoisted_at)
            .is_none_or(|h| h.0.0 >= end)
    }

    /// The state of a node; nodes are asked about in increasing id order, so the candidate's
    /// sorted lists are walked once.
    fn state(&mut self, id: NodeId) -> State {
        while self.removed_at < self.removed.len() && self.removed[self.removed_at] < id {
            self.removed_at += 1;
        }
        if self.removed.get(self.removed_at) == Some(&id) {
            return State::Removed;
        }
        while self.hoisted_at < self.hoisted.len() && self.hoisted[self.hoisted_at].0 < id {
            self.hoisted_at += 1;
        }
        if let Some(&(node, target)) = self.hoisted.get(self.hoisted_at)
            && node == id
        {
            return State::Hoisted(target);
        }
        match self.committed[id.index()] {
            KEPT => State::Kept,
            REMOVED => State::Removed,
            target => State::Hoisted(NodeId(target)),
        }
    }

    pub(crate) fn run(self) {
        self.run_into(&mut Vec::new());
    }

    fn run_into(mut self, layout: &mut Vec<Piece>) {
        self.visit(self.tree.root());
        while let Some(frame) = self.stack.last_mut() {
            if frame.next < frame.end {
                let child = NodeId(frame.next);
                frame.next = self.tree.node(child).subtree_end;
                let list = frame.list;
                if list && self.list_child(child) {
                    continue;
                }
                self.visit(child);
            } else {
                let frame = *frame;
                if frame.list {
                    self.end_run();
                }
                self.stack.pop();
                if frame.place != frame.node {
                    self.dedent = frame.outer_dedent;
                    self.leave_hoisted(frame.place, frame.node);
                }
            }
        }
        self.finish();
        if let Some(pieces) = self.layout.take() {
            *layout = pieces;
        }
    }

    /// Handles separators and run boundaries of a list; returns whether the child is done.
    ///
    /// A list's children are segments of elements between separators. A segment whose elements
    /// were all removed takes one separator with it: the one after it, or for the last segment
    /// of a run the one before it. A separator waits (pending) until the segment after it is
    /// known to print something; untouched lists print exactly as in the input.
    fn list_child(&mut self, child: NodeId) -> bool {
        let child_flags = self.tree.node(child).flags;
        if child_flags & flags::SEPARATOR != 0 {
            if matches!(self.state(child), State::Removed) {
                self.skip(child);
                return true;
            }
            if self.segment_removed() {
                self.skip(child);
            } else {
                self.flush_pending();
                self.pending = Some(PendingSeparator {
                    token: child,
                    gap_before: self.gap.take(),
                });
            }
            self.start_segment();
            return true;
        }
        if child_flags & flags::ELEMENT == 0 {
            // A bracket, keyword or other non-element ends the run of elements.
            self.end_run();
            self.visit(child);
            self.start_segment();
            return true;
        }
        if let Some(frame) = self.stack.last_mut() {
            frame.segment_has_elements = true;
        }
        false
    }

    /// Whether the current segment had elements and none of them printed anything.
    fn segment_removed(&self) -> bool {
        self.stack
            .last()
            .is_some_and(|frame| frame.segment_has_elements && self.pieces == frame.mark)
    }

    fn start_segment(&mut self) {
        let pieces = self.pieces;
        if let Some(frame) = self.stack.last_mut() {
            frame.segment_has_elements = false;
            frame.mark = pieces;
        }
    }

    /// At the end of a run of list elements: a removed last segment takes the separator before
    /// it; otherwise that separator stays.
    fn end_run(&mut self) {
        if self.segment_removed() {
            self.drop_pending();
        } else {
            self.flush_pending();
        }
    }

    /// Writes or opens the node at `place`, following its hoistings.
    fn visit(&mut self, place: NodeId) {
        if self.whole_subtrees && self.dedent == 0 && self.untouched(place) {
            // Unedited: the input bytes from the first token to the last, as one piece.
            let data = self.tree.node(place);
            self.emit(place, data.start, data.end, None);
            return;
        }
        let mut node = place;
        loop {
            match self.state(node) {
                State::Kept => break,
                State::Removed => {
                    if self.tree.replacement(node).is_some() {
                        self.removed_node(place, node);
                        return;
                    }
                    break;
                }
                State::Hoisted(target) => {
                    if target == node || !self.tree.is_descendant(node, target) {
                        break;
                    }
                    node = target;
                }
            }
        }
        if node != place && self.place_trivia.is_none() {
            let place_node = self.tree.node(place);
            self.place_trivia = Some(((place_node.trivia_start, place_node.start), self.dedent));
        }
        let data = self.tree.node(node);
        if data.flags & flags::TOKEN != 0 {
            self.emit(node, data.start, data.end, None);
            if node != place {
                self.leave_hoisted(place, node);
            }
        } else {
            let outer_dedent = self.dedent;
            if node != place {
                let (from, to) = (self.tree.node(node).start, self.tree.node(place).start);
                self.dedent += line_indentation(self.source, from)
                    .saturating_sub(line_indentation(self.source, to));
            }
            self.stack.push(Frame {
                place,
                node,
                next: node.0 + 1,
                end: data.subtree_end,
                list: data.flags & flags::LIST != 0,
                mark: self.pieces,
                segment_has_elements: false,
                outer_dedent,
            });
        }
    }

    /// After a hoisted node: the rest of its place is skipped.
    fn leave_hoisted(&mut self, place: NodeId, node: NodeId) {
        if let Some((lead, _)) = self.place_trivia.take() {
            // The hoisted node wrote nothing: the whole place is gone.
            let newline = self.tree.node(place).flags & flags::NEWLINE != 0;
            self.gap = Gap::merge(self.gap, Some(Gap { lead, newline }));
            return;
        }
        let place_data = self.tree.node(place);
        let node_data = self.tree.node(node);
        if node_data.subtree_end < place_data.subtree_end && node_data.end < place_data.end {
            let next = self.tree.node(NodeId(node_data.subtree_end));
            let newline =
                self.source[node_data.end as usize..place_data.end as usize].contains(&b'\n');
            self.add_gap(Gap {
                lead: (node_data.end, next.start.max(node_data.end)),
                newline,
            });
        }
    }

    /// Writes what a removed node prints: nothing when its place may be empty, else its
    /// replacement in the place's whitespace.
    fn removed_node(&mut self, place: NodeId, node: NodeId) {
        let replacement = self.tree.replacement(node).unwrap_or(b"");
        if self.tree.is_phi_empty(place) || replacement.is_empty() {
            self.skip(place);
            return;
        }
        let place_data = self.tree.node(place);
        self.emit(place, place_data.start, place_data.end, Some(replacement));
    }

    /// Skips a node entirely (its whitespace and text).
    fn skip(&mut self, id: NodeId) {
        let data = self.tree.node(id);
        self.add_gap(Gap {
            lead: (data.trivia_start, data.start),
            newline: data.flags & flags::NEWLINE != 0,
        });
    }

    fn add_gap(&mut self, mut gap: Gap) {
        if let Some((lead, _)) = self.place_trivia.take() {
            gap.lead = lead;
        }
        self.gap = Gap::merge(self.gap, Some(gap));
    }

    fn drop_pending(&mut self) {
        if let Some(pending) = self.pending.take() {
            let data = self.tree.node(pending.token);
            let separator = Gap {
                lead: (data.trivia_start, data.start),
                newline: data.flags & flags::NEWLINE != 0,
            };
            let after = self.gap.take();
            self.gap = Gap::merge(Gap::merge(pending.gap_before, Some(separator)), after);
        }
    }

    fn flush_pending(&mut self) {
        if let Some(pending) = self.pending.take() {
            let after = self.gap.take();
            self.gap = pending.gap_before;
            let data = self.tree.node(pending.token);
            let (start, end) = (data.start, data.end);
            let trivia = (data.trivia_start, data.start);
            self.write_piece(trivia, start, end, None);
            self.gap = Gap::merge(self.gap, after);
        }
    }

    /// Writes a piece: the token `id`'s text (`replacement` `None`) or a replacement for the
    /// node `id` spanning `start..end` of the input.
    fn emit(&mut self, id: NodeId, start: u32, end: u32, replacement: Option<&[u8]>) {
        if self.pending.is_some() {
            self.flush_pending();
        }
        let data = self.tree.node(id);
        let (trivia, dedent) = self
            .place_trivia
            .take()
            .unwrap_or(((data.trivia_start, data.start), self.dedent));
        let inner = std::mem::replace(&mut self.dedent, dedent);
        self.write_piece(trivia, start, end, replacement);
        self.dedent = inner;
    }

    fn write_piece(
        &mut self,
        trivia: (u32, u32),
        start: u32,
        end: u32,
        replacement: Option<&[u8]>,
    ) {
        let text: &[u8] = match replacement {
            Some(text) => text,
            None => &self.source[start as usize..end as usize],
        };
        let gap = self.gap.take();
        let mut whitespace = trivia;
        if let Some(gap) = gap {
            // Before the first text, keep the input's own leading whitespace.
            whitespace = if self.out.is_empty() {
                gap.lead
            } else {
                choose_whitespace(self.source, gap.lead, trivia)
            };
        }
        let whitespace_bytes = &self.source[whitespace.0 as usize..whitespace.1 as usize];
        if whitespace_bytes.is_empty() && !self.out.is_empty() {
            if gap.is_some_and(|gap| gap.newline) {
                self.out.push(b'\n');
            } else if needs_space(self.out.last().copied(), text.first().copied()) {
                // Word characters that were side by side in the input lexed fine there.
                let glued_in_input = gap.is_none()
                    && self.last_end == start
                    && start > 0
                    && needs_space(
                        self.source.get(start as usize - 1).copied(),
                        self.source.get(start as usize).copied(),
                    );
                if !glued_in_input {
                    self.out.push(b' ');
                }
            }
        }
        self.write_whitespace(whitespace_bytes);
        let out_start = self.out.len();
        if replacement.is_some() {
            write_indented(self.out, text);
        } else {
            self.out.extend_from_slice(text);
        }
        if let Some(layout) = &mut self.layout {
            layout.push(Piece {
                out: (out_start, self.out.len()),
                source: (start, end),
                replaced: replacement.is_some(),
            });
        }
        self.last_end = end;
        self.pieces += 1;
    }

    /// Writes whitespace, taking the current dedent off the indentation after its last line break.
    fn write_whitespace(&mut self, whitespace: &[u8]) {
        if self.dedent == 0 {
            self.out.extend_from_slice(whitespace);
            return;
        }
        match whitespace.iter().rposition(|&byte| byte == b'\n') {
            Some(at) => {
                self.out.extend_from_slice(&whitespace[..=at]);
                let indentation = &whitespace[at + 1..];
                let removable = indentation
                    .iter()
                    .take_while(|&&b| b == b' ' || b == b'\t')
                    .count();
                let skip = removable.min(self.dedent as usize);
                self.out.extend_from_slice(&indentation[skip..]);
            }
            None => self.out.extend_from_slice(whitespace),
        }
    }

    fn finish(&mut self) {
        self.drop_pending();
        let mut tail = (self.tree.tail_start, self.source.len() as u32);
        if let Some(gap) = self.gap.take() {
            tail = choose_whitespace(self.source, gap.lead, tail);
        }
        self.out
            .extend_from_slice(&self.source[tail.0 as usize..tail.1 as usize]);
    }
}

/// Of the whitespace before removed material and the whitespace after it, the one to keep: the
/// one with a line break (the next line's indentation first), else the shorter one.
fn choose_whitespace(source: &[u8], before: (u32, u32), after: (u32, u32)) -> (u32, u32) {
    let bytes = |range: (u32, u32)| &source[range.0 as usize..range.1 as usize];
    if bytes(after).contains(&b'\n') {
        return after;
    }
    if bytes(before).contains(&b'\n') {
        return before;
    }
    if before.1 - before.0 < after.1 - after.0 {
        before
    } else {
        after
    }
}

/// Appends a replacement text; its line breaks continue at the indentation of the line it
/// starts on (so that a multi-line replacement stays inside an indented block).
pub(crate) fn write_indented(out: &mut Vec<u8>, text: &[u8]) {
    if !text.contains(&b'\n') {
        out.extend_from_slice(text);
        return;
    }
    let line_start = out
        .iter()
        .rposition(|&byte| byte == b'\n')
        .map_or(0, |at| at + 1);
    let indentation_len = out[line_start..]
        .iter()
        .take_while(|&&byte| byte == b' ' || byte == b'\t')
        .count();
    let indentation: Vec<u8> = out[line_start..line_start + indentation_len].to_vec();
    for (index, line) in text.split(|&byte| byte == b'\n').enumerate() {
        if index > 0 {
            out.push(b'\n');
            if !line.is_empty() {
                out.extend_from_slice(&indentation);
            }
        }
        out.extend_from_slice(line);
    }
}

/// The indentation width (spaces and tabs) of the line holding `offset`.
pub(crate) fn line_indentation(source: &[u8], offset: u32) -> u32 {
    let offset = (offset as usize).min(source.len());
    let line_start = source[..offset]
        .iter()
        .rposition(|&byte| byte == b'\n')
        .map_or(0, |at| at + 1);
    source[line_start..offset]
        .iter()
        .take_while(|&&byte| byte == b' ' || byte == b'\t')
        .count() as u32
}

/// Rendering a tree under its committed edits (the unparser's entry points).
impl TreeState {
    /// Writes the text of the current tree plus `candidate` into `out` (cleared first). Linear
    /// in the size of the current tree; allocates nothing beyond `out` and a small stack.
    pub fn render_into(&self, candidate: &TreeEdits, out: &mut Vec<u8>) {
        Renderer::new(self, candidate, out).run();
    }

    /// Like [`TreeState::render_into`], but visiting every token instead of copying untouched
    /// subtrees whole (the same text, slower; for tests of the unparser).
    #[doc(hidden)]
    pub fn render_token_by_token_into(&self, candidate: &TreeEdits, out: &mut Vec<u8>) {
        Renderer::new(self, candidate, out).token_by_token().run();
    }

    /// The text of the current tree plus `candidate`.
    pub fn render(&self, candidate: &TreeEdits) -> Vec<u8> {
        let mut out = Vec::with_capacity(self.tree().source().len());
        self.render_into(candidate, &mut out);
        out
    }

    /// Renders the current tree plus `candidate` and tells where the input bytes went, so that
    /// displays can find nodes in that text ([`TreeState::span_in`]).
    pub fn layout(&self, candidate: &TreeEdits) -> Layout {
        let mut out = Vec::with_capacity(self.tree().source().len());
        Renderer::new(self, candidate, &mut out).run_with_layout()
    }

    /// The bytes the visible node `id` occupies in the rendering `layout` describes (`None`
    /// when it printed nothing there).
    pub fn span_in(&self, layout: &Layout, id: NodeId) -> Option<std::ops::Range<usize>> {
        let range = self.tree().byte_range(id);
        layout.locate(range.start, range.end)
    }

    /// The text of the current tree.
    pub fn text(&self) -> Vec<u8> {
        self.render(&TreeEdits::new())
    }
}
