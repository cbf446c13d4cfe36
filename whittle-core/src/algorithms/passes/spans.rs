//! `spans`: a run of tokens of any length is deleted at once, across statements and without
//! regard to the tree (shrinkray's `delete_byte_spans` and block deletion over tokens):
//! `{ if (n < 1) return 1; if (n == 1) return 0; return n; }` loses its three statements in one
//! test. Every run keeps the text's brackets balanced (it removes as many of each opening
//! bracket as of its closing one) and ends where a statement ends (before a token that follows
//! `;`, `{` or `}` or starts a line, or at the end): the likely runs, from [`SHORTEST`] tokens
//! (shorter ones are the `tokens` stage's) to [`LONGEST`]. The `runs` stage (`aligned` off)
//! tries the balanced runs that end inside a statement instead (those `spans` leaves).
//!
//! Each stage tries only the longest of its runs at each token: the shorter ones are left to
//! the runs at the tokens after it, to `tokens` and to the tree stages. They cost tests for
//! nothing on every task measured (`docs/benchmarks.md` sections 19 and 21): all of `spans`'
//! runs at a token cost js-node-proxy-gopd 839 tests, the longest 790; the three longest of
//! `runs`' cost rust-rustc-borrow 2058, the longest 1704, the same results.

use super::edit::{Edit, EditRequest, EditStage, deletion, position_order};
use super::lexer::{Syntax, TokenKind, lex};
use crate::testing::control::Stop;

/// The longest run, in tokens.
pub const LONGEST: usize = 64;

/// The shortest run, in tokens (shorter ones are the `tokens` stage's).
pub const SHORTEST: usize = 4;

/// The token-span deletion stage.
pub struct TokenSpans {
    pub syntax: Syntax,
    /// Only runs that end where a statement ends (`spans`); else only the others (`runs`).
    pub aligned: bool,
}

impl EditStage for TokenSpans {
    fn name(&self) -> &'static str {
        if self.aligned { "spans" } else { "runs" }
    }

    fn edits_for(&self, text: &[u8], request: &EditRequest<'_>) -> Result<Vec<Edit>, Stop> {
        let tokens = lex(text, self.syntax);
        request.check_stop()?;
        // What each token does to the depth of each bracket kind.
        let depth_change: Vec<[i32; 3]> = tokens
            .iter()
            .map(|token| {
                let mut change = [0; 3];
                if token.kind == TokenKind::Punct && token.end == token.start + 1 {
                    match text[token.start] {
                        b'(' => change[0] = 1,
                        b')' => change[0] = -1,
                        b'[' => change[1] = 1,
                        b']' => change[1] = -1,
                        b'{' => change[2] = 1,
                        b'}' => change[2] = -1,
                        _ => {}
                    }
                }
                change
            })
            .collect();
        // Whether a statement ends before token `j` (or `j` is the end).
        let ends_before = |j: usize| {
            j == tokens.len()
                || j > 0 && {
                    let before = &tokens[j - 1];
                    (before.end == before.start + 1 && b";{}".contains(&text[before.start]))
                        || text[before.end..tokens[j].start].contains(&b'\n')
                }
        };
        let mut edits = Vec::new();
        for (i, token) in tokens.iter().enumerate() {
            request.work()?;
            let at = position_order(token.start, 0);
            if at < request.from {
                continue;
            }
            if request.is_full(edits.len()) {
                break;
            }
            // The longest balanced run of the stage's kind from this token (its end).
            let mut balance = [0; 3];
            let mut longest = None;
            for j in i + 1..=(i + LONGEST).min(tokens.len()) {
                let change = depth_change[j - 1];
                for kind in 0..3 {
                    balance[kind] += change[kind];
                }
                if j - i >= SHORTEST && balance == [0; 3] && ends_before(j) == self.aligned {
                    longest = Some(j);
                }
            }
            if let Some(j) = longest {
                let (range, new) = deletion(text, token.start..tokens[j - 1].end);
                edits.push(Edit::replace(vec![(range, new)], at).with_resume(at));
            }
        }
        Ok(edits)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::algorithms::passes::edit::rendered_edits;

    fn applied(edit: &Edit, text: &str) -> String {
        let mut out = Vec::new();
        edit.apply(text.as_bytes(), &mut out);
        String::from_utf8_lossy(&out).into_owned()
    }

    #[test]
    fn a_run_across_statements_goes_at_once() {
        // From the LLVM test-suite's Stanford `Quicksort` (the shape of the C example).
        let text = "int f(int n) { if (n < 1) return 1; if (n == 1) return 0; return n; }";
        let edits = |aligned| {
            rendered_edits(
                &TokenSpans {
                    syntax: Syntax::for_language(Some("c")),
                    aligned,
                },
                text.as_bytes(),
            )
        };
        let (spans, runs) = (edits(true), edits(false));
        // Two statements in one run, the longest at the second `if`.
        assert!(
            spans.contains(&"int f(int n) { if (n < 1) return 1; }".to_owned()),
            "{spans:#?}"
        );
        // The whole body (the longest run at `{`'s successor) is the one tried there.
        let at_if = position_order(text.find("if").unwrap_or_default(), 0);
        let at_if: Vec<String> = TokenSpans {
            syntax: Syntax::for_language(Some("c")),
            aligned: true,
        }
        .edits(text.as_bytes(), 0)
        .iter()
        .filter(|edit| edit.order == at_if)
        .map(|edit| applied(edit, text))
        .collect();
        assert_eq!(at_if, ["int f(int n) { }"]);
        // A run from inside one statement into another is `runs`': at the first `1` the
        // longest, up to the last statement's `n` (the shorter ones there, such as the one
        // leaving `return n;`, are left to `tokens` and the tree stages).
        let across = "int f(int n) { if (n < 1) return; }".to_owned();
        assert!(runs.contains(&across), "{runs:#?}");
        assert!(!spans.contains(&across), "{spans:#?}");
        // Every run keeps every bracket with its partner.
        for edit in spans.iter().chain(&runs) {
            assert_eq!(
                edit.matches('(').count(),
                edit.matches(')').count(),
                "{edit}"
            );
            assert_eq!(
                edit.matches('{').count(),
                edit.matches('}').count(),
                "{edit}"
            );
        }
    }

    #[test]
    fn spans_tries_only_the_longest_run_at_each_token() {
        let text = "void f() { a(); b(); c(); d(); }";
        let stage = TokenSpans {
            syntax: Syntax::for_language(Some("c")),
            aligned: true,
        };
        let edits = stage.edits(text.as_bytes(), 0);
        let mut orders: Vec<u64> = edits.iter().map(|edit| edit.order).collect();
        orders.dedup();
        assert_eq!(orders.len(), edits.len(), "{edits:#?}");
        // At `a`: `a(); b(); c(); d();`, not `a(); b();` or `a(); b(); c();`.
        let at_a = position_order(text.find("a()").unwrap_or_default(), 0);
        let at_a: Vec<String> = edits
            .iter()
            .filter(|edit| edit.order == at_a)
            .map(|edit| applied(edit, text))
            .collect();
        assert_eq!(at_a, ["void f() { }"]);
    }

    #[test]
    fn runs_are_the_unaligned_ones_spans_leaves() {
        // From TheAlgorithms' dsu_union_rank.cpp: `d.unionSet(1, 2, 3)` keeps its call but
        // loses its last arguments and the next call, a run that ends inside a statement.
        let text = "void f() { d.unionSet(1, 2, 3); g(); }";
        let runs = |aligned| {
            rendered_edits(
                &TokenSpans {
                    syntax: Syntax::for_language(Some("cpp")),
                    aligned,
                },
                text.as_bytes(),
            )
        };
        let (spans, unaligned) = (runs(true), runs(false));
        // At `,` after `1` the longest: up to `g`'s `(` (as many `(` as `)` go).
        let inside = "void f() { d.unionSet(1); }".to_owned();
        assert!(!spans.contains(&inside), "{spans:#?}");
        assert!(unaligned.contains(&inside), "{unaligned:#?}");
        // `runs` leaves the statement-ending ones to `spans` (at `d` its longest, both calls).
        let statement = "void f() { }".to_owned();
        assert!(spans.contains(&statement), "{spans:#?}");
        assert!(!unaligned.contains(&statement), "{unaligned:#?}");
        // One at a token, the longest: at `d` (every run there takes the `d` with it) the run
        // up to `g`'s closing parenthesis, not the shorter `d.unionSet(1, 2, 3); g`.
        assert!(
            !unaligned.contains(&"void f() { (); }".to_owned()),
            "{unaligned:#?}"
        );
        let at_d: Vec<&String> = unaligned
            .iter()
            .filter(|edit| {
                edit.strip_prefix("void f() {")
                    .is_some_and(|rest| !rest.contains('d'))
            })
            .collect();
        assert_eq!(at_d, ["void f() {; }"]);
    }
}
