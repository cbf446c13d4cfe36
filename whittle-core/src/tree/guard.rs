//! The syntax guard: re-parses a candidate and rejects it when it has syntax errors (ERROR or
//! MISSING nodes) that the current best input does not have, so the interestingness test is not
//! run on text that cannot be what the user wants.

use std::collections::{HashSet, VecDeque};
use std::ops::Range;
use std::sync::{Arc, Mutex};

use anyhow::Context as _;

use super::language::Language;
use super::names::NameIndex;

/// Counts ERROR and MISSING nodes of a parse, visiting only subtrees that contain errors.
pub fn count_syntax_errors(tree: &tree_sitter::Tree) -> usize {
    let root = tree.root_node();
    if !root.has_error() {
        return 0;
    }
    let mut count = 0;
    let mut cursor = root.walk();
    let mut descend = true;
    loop {
        let node = cursor.node();
        if descend {
            if node.is_error() || node.is_missing() {
                count += 1;
            }
            if node.has_error() && cursor.goto_first_child() {
                continue;
            }
        }
        if cursor.goto_next_sibling() {
            descend = true;
            continue;
        }
        if !cursor.goto_parent() {
            break;
        }
        descend = false;
    }
    count
}

/// Parsers of one language shared by threads: each parse borrows one (or makes a new one).
pub struct ParserPool {
    language: tree_sitter::Language,
    idle: Mutex<Vec<tree_sitter::Parser>>,
}

impl ParserPool {
    /// A pool for `language` (fails when the language is not compiled in).
    pub fn new(language: &'static Language) -> anyhow::Result<ParserPool> {
        let grammar = language.grammar()?;
        let mut parser = tree_sitter::Parser::new();
        parser
            .set_language(&grammar)
            .with_context(|| format!("cannot load the {} grammar", language.name()))?;
        Ok(ParserPool {
            language: grammar,
            idle: Mutex::new(vec![parser]),
        })
    }

    /// Parses `text`, `None` when tree-sitter gives up.
    pub fn parse(&self, text: &[u8]) -> Option<tree_sitter::Tree> {
        self.parse_reusing(text, None)
    }

    /// Parses `text`, reusing what it can of `old`, the tree of an earlier text already edited
    /// to match `text` (`Tree::edit`); `None` when tree-sitter gives up.
    pub fn parse_reusing(
        &self,
        text: &[u8],
        old: Option<&tree_sitter::Tree>,
    ) -> Option<tree_sitter::Tree> {
        let parser = self.idle.lock().ok().and_then(|mut idle| idle.pop());
        let mut parser = match parser {
            Some(parser) => parser,
            None => {
                let mut parser = tree_sitter::Parser::new();
                parser.set_language(&self.language).ok()?;
                parser
            }
        };
        let tree = parser.parse(text, old);
        if let Ok(mut idle) = self.idle.lock() {
            idle.push(parser);
        }
        tree
    }

    /// ERROR and MISSING nodes in the parse of `text` (`usize::MAX` when it cannot be parsed).
    pub fn syntax_errors(&self, text: &[u8]) -> usize {
        self.parse(text)
            .map_or(usize::MAX, |tree| count_syntax_errors(&tree))
    }
}

/// How many of the latest admitted candidates the guard remembers with their parse: a
/// candidate that is accepted is one of them (the ones of its window), so the new best needs no
/// parse of its own.
const REMEMBERED_CANDIDATES: usize = 8;

/// A text with its parse and the number of syntax errors in it.
#[derive(Clone)]
struct Parsed {
    text: Arc<[u8]>,
    tree: Option<tree_sitter::Tree>,
    errors: usize,
}

/// The current best: parsed, or made the best since and parsed only when a candidate needs it
/// (while the guard is asked about few candidates, most bests are never parsed).
struct Best {
    parsed: Parsed,
    pending: Option<Arc<[u8]>>,
    /// The declared names of `parsed`, once asked for.
    names: Option<Arc<NameIndex>>,
}

/// The one edit that turns `old` into `new`: the bytes between their common prefix and their
/// common suffix (for incremental parses: `Tree::edit`, then a parse with the edited tree).
pub(super) fn edit_between(old: &[u8], new: &[u8]) -> tree_sitter::InputEdit {
    let (prefix, suffix) = crate::text::atoms::common_ends(old, new);
    let old_end_byte = old.len() - suffix;
    let new_end_byte = new.len() - suffix;
    tree_sitter::InputEdit {
        start_byte: prefix,
        old_end_byte,
        new_end_byte,
        start_position: point_at(old, prefix),
        old_end_position: point_at(old, old_end_byte),
        new_end_position: point_at(new, new_end_byte),
    }
}

/// What the syntax guard found of a candidate.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Admission {
    /// It has no more syntax errors than the best: worth a test.
    pub admitted: bool,
    /// It leaves a name it uses undeclared (asked for, and admitted).
    pub undeclares: bool,
}

/// The edit from a base text to a candidate, and the base's tree so edited.
struct Edited {
    edit: tree_sitter::InputEdit,
    old: tree_sitter::Tree,
}

impl Edited {
    /// The bytes of the base and of the candidate (`new_len` bytes, parsed as `tree`) that
    /// differ in text or in the syntax around them: the one edit, widened to the ranges whose
    /// parse changed (`method A` of `func (A A) A()` is a function's name once the receiver
    /// goes).
    fn changed_ranges(
        &self,
        tree: &tree_sitter::Tree,
        new_len: usize,
    ) -> (Range<usize>, Range<usize>) {
        let edit = &self.edit;
        let mut new = edit.start_byte..edit.new_end_byte;
        for changed in self.old.changed_ranges(tree) {
            new.start = new.start.min(changed.start_byte);
            new.end = new.end.max(changed.end_byte).min(new_len);
        }
        // Before the edit both texts are the same; after it, the base's bytes are shifted.
        let old = new.start..new.end - edit.new_end_byte + edit.old_end_byte;
        (old, new)
    }
}

/// Row and byte column of byte `at` of `text`, as tree-sitter counts them.
fn point_at(text: &[u8], at: usize) -> tree_sitter::Point {
    let before = &text[..at];
    let row = before.iter().filter(|&&byte| byte == b'\n').count();
    let column = before
        .iter()
        .rposition(|&byte| byte == b'\n')
        .map_or(at, |newline| at - newline - 1);
    tree_sitter::Point { row, column }
}

/// Rejects candidates with more syntax errors than the current best. `Send + Sync`: one guard
/// serves all the threads testing candidates. A candidate is parsed incrementally from the
/// best's tree (tree-sitter reuses the subtrees outside the bytes it changes), which gives the
/// tree a parse from scratch gives, at a fraction of its cost.
pub struct SyntaxGuard {
    parsers: ParserPool,
    /// Whether every use of a name needs a declaration (see [`NameIndex::new`]).
    every_use: bool,
    /// Names used outside the text that only the text declares (see [`NameIndex::new`]).
    outside_uses: Option<Arc<HashSet<Box<[u8]>>>>,
    best: Mutex<Best>,
    /// The latest admitted candidates and their parses, newest last.
    admitted: Mutex<VecDeque<Parsed>>,
}

impl SyntaxGuard {
    /// A guard for `language` whose current best is `best`.
    pub fn new(language: &'static Language, best: &[u8]) -> anyhow::Result<SyntaxGuard> {
        let parsers = ParserPool::new(language)?;
        let tree = parsers.parse(best);
        let parsed = Parsed {
            text: best.into(),
            errors: tree.as_ref().map_or(usize::MAX, count_syntax_errors),
            tree,
        };
        Ok(SyntaxGuard {
            parsers,
            every_use: language.resolves_names_before_running(),
            outside_uses: None,
            best: Mutex::new(Best {
                parsed,
                pending: None,
                names: None,
            }),
            admitted: Mutex::new(VecDeque::with_capacity(REMEMBERED_CANDIDATES)),
        })
    }

    /// The same guard, whose name check counts `names` (declared in the text, used outside it:
    /// by the other files of a case) as used.
    pub fn with_outside_uses(self, names: Option<Arc<HashSet<Box<[u8]>>>>) -> SyntaxGuard {
        SyntaxGuard {
            outside_uses: names,
            ..self
        }
    }

    /// Makes `best` the reference: its syntax errors are the ones candidates may keep. A best
    /// that is a candidate admitted lately is not parsed again; another is parsed when the
    /// guard is next asked.
    pub fn rebase(&self, best: &[u8]) {
        let known = self.admitted.lock().ok().and_then(|admitted| {
            admitted
                .iter()
                .rev()
                .find(|parsed| &*parsed.text == best)
                .cloned()
        });
        if let Ok(mut current) = self.best.lock() {
            current.names = None;
            match known {
                Some(parsed) => {
                    current.parsed = parsed;
                    current.pending = None;
                }
                None => current.pending = Some(best.into()),
            }
        }
    }

    /// Syntax errors of the current best.
    pub fn best_errors(&self) -> usize {
        self.settled_best(false)
            .map_or(usize::MAX, |(best, _)| best.errors)
    }

    /// The current best with its parse (parsed now if it was not yet) and, `with_names` when it
    /// parses, its declared names (listed now if they were not yet).
    fn settled_best(&self, with_names: bool) -> Option<(Parsed, Option<Arc<NameIndex>>)> {
        let mut best = self.best.lock().ok()?;
        if let Some(text) = best.pending.take() {
            let (tree, errors) = self.parse_from(Some(&best.parsed), &text);
            best.parsed = Parsed { text, tree, errors };
            best.names = None;
        }
        let Best { parsed, names, .. } = &mut *best;
        let names = match &parsed.tree {
            Some(tree) if with_names => Some(Arc::clone(names.get_or_insert_with(|| {
                let outside = self.outside_uses.as_deref();
                Arc::new(NameIndex::new(tree, &parsed.text, self.every_use, outside))
            }))),
            _ => None,
        };
        Some((parsed.clone(), names))
    }

    /// The parse of `text`, from the tree of `base` when it has one, and its syntax errors.
    fn parse_from(&self, base: Option<&Parsed>, text: &[u8]) -> (Option<tree_sitter::Tree>, usize) {
        let (tree, errors, _) = self.parse_edited(base, text);
        (tree, errors)
    }

    /// Like [`SyntaxGuard::parse_from`], also giving the edit from `base`'s text to `text` and
    /// `base`'s tree so edited (when `base` has a tree).
    fn parse_edited(
        &self,
        base: Option<&Parsed>,
        text: &[u8],
    ) -> (Option<tree_sitter::Tree>, usize, Option<Edited>) {
        let (tree, edited) = match base {
            Some(Parsed {
                text: base_text,
                tree: Some(tree),
                ..
            }) => {
                let edit = edit_between(base_text, text);
                let mut old = tree.clone();
                old.edit(&edit);
                let tree = self.parsers.parse_reusing(text, Some(&old));
                (tree, Some(Edited { edit, old }))
            }
            _ => (self.parsers.parse(text), None),
        };
        let errors = tree.as_ref().map_or(usize::MAX, count_syntax_errors);
        debug_assert_eq!(
            errors,
            self.parsers.syntax_errors(text),
            "the incremental parse counts other syntax errors than a parse from scratch: {:?}",
            String::from_utf8_lossy(text)
        );
        (tree, errors, edited)
    }

    /// Whether `candidate` is worth testing: its parse has no more ERROR/MISSING nodes than the
    /// current best's. Only an admitted candidate is remembered (its text copied).
    pub fn admits(&self, candidate: &[u8]) -> bool {
        self.judge(candidate, false).admitted
    }

    /// Whether `candidate` is admitted ([`SyntaxGuard::admits`]) and, with `check_names`, whether
    /// an admitted candidate declares no longer a name that it still uses where the current
    /// best declares it (see [`NameIndex`]; false when either does not parse). One parse serves
    /// both.
    pub fn judge(&self, candidate: &[u8], check_names: bool) -> Admission {
        let (best, names) = self.settled_best(check_names).unzip();
        let names = names.flatten();
        let (tree, errors, edited) = self.parse_edited(best.as_ref(), candidate);
        let admitted = errors <= best.as_ref().map_or(usize::MAX, |best| best.errors);
        let undeclares = admitted
            && match (&names, &tree, &edited) {
                (Some(names), Some(tree), Some(edited)) => {
                    let (old, new) = edited.changed_ranges(tree, candidate.len());
                    names.undeclares(old, tree, candidate, new)
                }
                _ => false,
            };
        if admitted && let Ok(mut remembered) = self.admitted.lock() {
            if remembered.len() == REMEMBERED_CANDIDATES {
                remembered.pop_front();
            }
            remembered.push_back(Parsed {
                text: candidate.into(),
                tree,
                errors,
            });
        }
        Admission {
            admitted,
            undeclares,
        }
    }

    /// ERROR and MISSING nodes in the parse of `text`.
    pub fn syntax_errors(&self, text: &[u8]) -> usize {
        self.parsers.syntax_errors(text)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn json() -> &'static Language {
        Language::by_name("json").expect("json is compiled in")
    }

    /// A guard on JSON whose current best is `best`.
    fn json_guard(best: &[u8]) -> SyntaxGuard {
        SyntaxGuard::new(json(), best).expect("guard")
    }

    #[test]
    #[cfg_attr(
        not(feature = "lang-json"),
        ignore = "needs the JSON grammar (cargo feature lang-json)"
    )]
    fn a_best_taken_from_the_admitted_candidates_keeps_its_own_errors() {
        let guard = json_guard(br#"{"a": [1, 2,], "b": 3}"#);
        assert_eq!(guard.best_errors(), 1);
        let fixed = br#"{"a": [1, 2], "b": 3}"#;
        assert!(guard.admits(fixed));
        guard.rebase(fixed);
        assert_eq!(guard.best_errors(), 0);
        let broken = br#"{"a": [1, 2], "b": }"#;
        assert!(!guard.admits(broken));
        // A text the guard has not admitted is parsed: its errors are its own.
        guard.rebase(broken);
        assert_eq!(guard.best_errors(), guard.syntax_errors(broken));
        assert!(guard.best_errors() > 0);
    }

    #[test]
    fn the_edit_between_two_texts_spans_what_differs() {
        let edit = edit_between(b"ab\ncdef\ngh", b"ab\ncXf\ngh");
        assert_eq!(
            (edit.start_byte, edit.old_end_byte, edit.new_end_byte),
            (4, 6, 5)
        );
        assert_eq!(
            (
                edit.start_position,
                edit.old_end_position,
                edit.new_end_position
            ),
            (
                tree_sitter::Point { row: 1, column: 1 },
                tree_sitter::Point { row: 1, column: 3 },
                tree_sitter::Point { row: 1, column: 2 },
            )
        );
        let same = edit_between(b"abc", b"abc");
        assert_eq!(
            (same.start_byte, same.old_end_byte, same.new_end_byte),
            (3, 3, 3)
        );
        // A repeated byte at the seam belongs to the prefix, never to both.
        let cut = edit_between(b"aaa", b"aa");
        assert_eq!(
            (cut.start_byte, cut.old_end_byte, cut.new_end_byte),
            (2, 3, 2)
        );
    }

    #[test]
    #[cfg_attr(
        not(feature = "lang-json"),
        ignore = "needs the JSON grammar (cargo feature lang-json)"
    )]
    fn incremental_parses_count_the_errors_a_parse_from_scratch_counts() {
        let guard = json_guard(br#"{"a": [1, 2, 3], "b": {"c": null}, "d": "e"}"#);
        let fresh = ParserPool::new(json()).expect("parser");
        for candidate in [
            &br#"{"a": [1, 3], "b": {"c": null}, "d": "e"}"#[..],
            br#"{"a": [1, 2, 3], "b": {"c": }, "d": "e"}"#,
            br#"{"a": [1, 2, 3], "b": {"c": null}, "d": "e""#,
            br#"{"a": [1, 2, 3] "d": "e"}"#,
            br#"{"b": {"c": null}}"#,
            b"",
        ] {
            assert_eq!(
                guard
                    .parse_from(
                        guard.settled_best(false).map(|(best, _)| best).as_ref(),
                        candidate
                    )
                    .1,
                fresh.syntax_errors(candidate),
                "{}",
                String::from_utf8_lossy(candidate)
            );
        }
    }
}
