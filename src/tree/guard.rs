//! The syntax guard: re-parses a candidate and rejects it when it has syntax errors (ERROR or
//! MISSING nodes) that the current best input does not have, so the interestingness test is not
//! run on text that cannot be what the user wants.

use std::collections::VecDeque;
use std::sync::Mutex;
use std::sync::atomic::{AtomicUsize, Ordering};

use anyhow::Context as _;

use super::language::Language;

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
        let parser = self.idle.lock().ok().and_then(|mut idle| idle.pop());
        let mut parser = match parser {
            Some(parser) => parser,
            None => {
                let mut parser = tree_sitter::Parser::new();
                parser.set_language(&self.language).ok()?;
                parser
            }
        };
        let tree = parser.parse(text, None);
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

/// How many of the latest admitted candidates the guard remembers with their syntax errors: a
/// candidate that is accepted is one of them (the ones of its window), so the new best needs no
/// parse of its own.
const REMEMBERED_CANDIDATES: usize = 8;

/// Rejects candidates with more syntax errors than the current best. `Send + Sync`: one guard
/// serves all the threads testing candidates.
pub struct SyntaxGuard {
    parsers: ParserPool,
    best_errors: AtomicUsize,
    /// The latest admitted candidates and their syntax errors, newest last.
    admitted: Mutex<VecDeque<(Vec<u8>, usize)>>,
}

impl SyntaxGuard {
    /// A guard for `language` whose current best is `best`.
    pub fn new(language: &'static Language, best: &[u8]) -> anyhow::Result<SyntaxGuard> {
        let guard = SyntaxGuard {
            parsers: ParserPool::new(language)?,
            best_errors: AtomicUsize::new(usize::MAX),
            admitted: Mutex::new(VecDeque::with_capacity(REMEMBERED_CANDIDATES)),
        };
        guard.rebase(best);
        Ok(guard)
    }

    /// Makes `best` the reference: its syntax errors are the ones candidates may keep. A best
    /// that is a candidate admitted lately is not parsed again.
    pub fn rebase(&self, best: &[u8]) {
        let known = self.admitted.lock().ok().and_then(|admitted| {
            admitted
                .iter()
                .rev()
                .find(|(text, _)| text.as_slice() == best)
                .map(|&(_, errors)| errors)
        });
        let errors = known.unwrap_or_else(|| self.parsers.syntax_errors(best));
        self.best_errors.store(errors, Ordering::Relaxed);
    }

    /// Syntax errors of the current best.
    pub fn best_errors(&self) -> usize {
        self.best_errors.load(Ordering::Relaxed)
    }

    /// Whether `candidate` is worth testing: its parse has no more ERROR/MISSING nodes than the
    /// current best's.
    pub fn admits(&self, candidate: &[u8]) -> bool {
        let errors = self.parsers.syntax_errors(candidate);
        let admitted = errors <= self.best_errors();
        if admitted && let Ok(mut remembered) = self.admitted.lock() {
            if remembered.len() == REMEMBERED_CANDIDATES {
                remembered.pop_front();
            }
            remembered.push_back((candidate.to_vec(), errors));
        }
        admitted
    }

    /// ERROR and MISSING nodes in the parse of `text`.
    pub fn syntax_errors(&self, text: &[u8]) -> usize {
        self.parsers.syntax_errors(text)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_best_taken_from_the_admitted_candidates_keeps_its_own_errors() {
        let json = Language::by_name("json").expect("json is compiled in");
        let guard = SyntaxGuard::new(json, br#"{"a": [1, 2,], "b": 3}"#).expect("guard");
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
}
