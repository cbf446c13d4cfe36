//! Token-window deletion: delete 1 to 3 adjacent tokens (C-Vise's rm-toks-N, shrinkray's short
//! deletions over lexemes). At every token, windows are tried from the widest; a round costs
//! at most three tests per token, and after a deletion the scan resumes at the same place.
//! When every bracket of the text has its partner, a window that would leave one alone is not
//! tried (the `brackets` stage removes pairs); a text with a lone bracket gets every window.
//! A long run of one punctuation byte repeated (a file of NUL bytes, a line of `=`) is first cut
//! by halves from its start, and inside it only the windows whose result differs are proposed.
//! A string or comment is one token, but the words inside one that stays (the test reads it: a
//! message, a doc comment, a pragma) are deleted by windows of 1 to 3 as well, after the
//! literal's own windows; never a word after a backslash (an escape) or one touching the
//! literal's ends (its quotes, its prefix).

use std::ops::Range;

use super::edit::{Edit, EditRequest, EditStage, deletion, position_order};
use super::lexer::{Syntax, Token, TokenKind, bracket_pairs, is_word_byte, lex};
use crate::testing::control::Stop;

/// Runs of at least this many adjacent identical punctuation tokens are long: ordinary code
/// has none outside its strings and comments.
const LONG_RUN: usize = 16;

/// The token-window deletion stage.
pub struct TokenWindows {
    pub syntax: Syntax,
    /// The widest window (1 to 3).
    pub widest: usize,
}

impl TokenWindows {
    pub fn new(syntax: Syntax) -> TokenWindows {
        TokenWindows { syntax, widest: 3 }
    }
}

impl EditStage for TokenWindows {
    fn name(&self) -> &'static str {
        "tokens"
    }

    fn edits_for(&self, text: &[u8], request: &EditRequest<'_>) -> Result<Vec<Edit>, Stop> {
        let tokens = lex(text, self.syntax);
        request.check_stop()?;
        let widest = self.widest.clamp(1, 3);
        let partner = bracket_partners(text, &tokens);
        // Whether deleting the tokens `inside` would leave a bracket without its partner
        // (where every bracket has one).
        let leaves_lone_bracket = |inside: Range<usize>| {
            partner.as_ref().is_some_and(|partner| {
                inside
                    .clone()
                    .any(|t| partner[t].is_some_and(|p| !inside.contains(&p)))
            })
        };
        let runs = long_runs(text, &tokens);
        let mut runs = runs.iter().peekable();
        // The first token with an edit at `request.from` or later (its last is the narrowest
        // window's).
        let last_variant = (widest - 1) as u64;
        // Where a token's last edit is: at its start, or at the last word inside it.
        let last_edit_at = |token: &Token| {
            inner_words(text, token)
                .last()
                .map_or(token.start, |word| word.start)
        };
        let first = tokens.partition_point(|token| {
            position_order(last_edit_at(token), last_variant) < request.from
        });
        let mut edits = Vec::new();
        for (i, token) in tokens.iter().enumerate().skip(first) {
            request.work()?;
            if request.is_full(edits.len()) {
                break;
            }
            while runs.next_if(|run| run.end <= i).is_some() {}
            let run = runs.peek().filter(|run| run.contains(&i));
            if let Some(run) = run
                && run.start == i
            {
                // Halves of the run from its start: a run of n bytes loses most of what it can
                // in about log(n) tests, not n/3.
                let mut size = run.len();
                while size > widest {
                    if !leaves_lone_bracket(i..i + size) {
                        edits.push(window(text, token.start..tokens[i + size - 1].end, 0));
                    }
                    size /= 2;
                }
            }
            for width in (1..=widest).rev() {
                let Some(last) = tokens.get(i + width - 1) else {
                    continue;
                };
                // Inside a run, a window that starts past its second token and stops short of
                // its last deletes the same bytes as the window of that width at its second
                // token: the same candidate, proposed there once.
                if run.is_some_and(|run| i >= run.start + 2 && i + width < run.end) {
                    continue;
                }
                if leaves_lone_bracket(i..i + width) {
                    continue;
                }
                edits.push(window(text, token.start..last.end, (widest - width) as u64));
            }
            word_windows(text, &inner_words(text, token), widest, &mut edits);
        }
        Ok(edits)
    }
}

/// The deletion of `range` (a window starting at its start), ordered at that position with
/// `variant`; after it is accepted the scan resumes there.
fn window(text: &[u8], range: Range<usize>, variant: u64) -> Edit {
    let start = range.start;
    Edit::replace(vec![deletion(text, range)], position_order(start, variant))
        .with_resume(position_order(start, 0))
}

/// Adds the deletions of 1 to `widest` adjacent `words` (inside one literal) to `edits`, from
/// the widest at each word.
fn word_windows(text: &[u8], words: &[Range<usize>], widest: usize, edits: &mut Vec<Edit>) {
    for (w, word) in words.iter().enumerate() {
        for width in (1..=widest).rev() {
            if let Some(last) = words.get(w + width - 1) {
                edits.push(window(text, word.start..last.end, (widest - width) as u64));
            }
        }
    }
}

/// The words inside a string or comment token that its windows may delete: runs of word bytes
/// that do not follow a backslash and touch neither the token's start nor (but in a comment,
/// which ends in a word only when it runs to the end of its line) its end.
fn inner_words(text: &[u8], token: &Token) -> Vec<Range<usize>> {
    if !matches!(token.kind, TokenKind::Str | TokenKind::Comment) || token.end - token.start < 3 {
        return Vec::new();
    }
    let ends_inside = |end: usize| end < token.end || token.kind == TokenKind::Comment;
    let mut words = Vec::new();
    let mut i = token.start + 1;
    while i < token.end {
        if !is_word_byte(text[i]) {
            i += 1;
            continue;
        }
        let start = i;
        while i < token.end && is_word_byte(text[i]) {
            i += 1;
        }
        if text[start - 1] != b'\\' && !is_word_byte(text[start - 1]) && ends_inside(i) {
            words.push(start..i);
        }
    }
    words
}

/// The long runs of `tokens` (see [`LONG_RUN`]): the index ranges of adjacent punctuation
/// tokens of one byte each, all the same byte, at least [`LONG_RUN`] of them.
fn long_runs(text: &[u8], tokens: &[Token]) -> Vec<Range<usize>> {
    let mut runs = Vec::new();
    let mut start = 0;
    for i in 1..=tokens.len() {
        let continues = tokens.get(i).is_some_and(|token| {
            let first = &tokens[start];
            first.kind == TokenKind::Punct
                && token.kind == TokenKind::Punct
                && token.start == tokens[i - 1].end
                && text[token.start] == text[first.start]
        });
        if !continues {
            if i - start >= LONG_RUN && tokens[start].kind == TokenKind::Punct {
                runs.push(start..i);
            }
            start = i;
        }
    }
    runs
}

/// For each token, the index of its partner bracket, when every bracket of the text has one;
/// `None` when some bracket has none.
fn bracket_partners(text: &[u8], tokens: &[Token]) -> Option<Vec<Option<usize>>> {
    let pairs = bracket_pairs(text, tokens);
    let brackets = tokens
        .iter()
        .filter(|t| t.kind == TokenKind::Punct && b"()[]{}".contains(&text[t.start]))
        .count();
    if brackets != 2 * pairs.len() {
        return None;
    }
    let mut partner = vec![None; tokens.len()];
    for pair in pairs {
        partner[pair.open] = Some(pair.close);
        partner[pair.close] = Some(pair.open);
    }
    Some(partner)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::algorithms::passes::edit::rendered_edits;

    #[test]
    fn windows_from_the_widest() {
        let stage = TokenWindows::new(Syntax::CLike);
        let text = b"a = b;";
        let rendered: Vec<String> = rendered_edits(&stage, text);
        assert_eq!(
            rendered,
            [";", "b;", "= b;", "a", "a;", "a b;", "a =", "a =;", "a = b"]
        );
    }

    /// After a literal's own windows come those of the words inside it: not a word after a
    /// backslash, nor one touching a string's quotes; a line comment's last word is its own.
    #[test]
    fn words_inside_strings_and_comments_are_deleted_too() {
        let stage = TokenWindows::new(Syntax::CLike);
        let inside = |text: &str| -> Vec<String> {
            let all = rendered_edits(&stage, text.as_bytes());
            let literal = text.find(['"', '/']).unwrap_or(0);
            // The windows over the whole tokens delete the literal's first byte; these keep it.
            all.into_iter()
                .filter(|out| {
                    out.len() > literal && out[literal..].starts_with(&text[literal..literal + 1])
                })
                .filter(|out| out.starts_with(&text[..literal]))
                .collect()
        };
        assert_eq!(
            inside("f(\"a b c\")"),
            [
                "f(\"\")",
                "f(\"c\")",
                "f(\"b c\")",
                "f(\"a\")",
                "f(\"a c\")",
                "f(\"a b\")"
            ]
        );
        assert_eq!(inside("f(\"a\\nb\")"), ["f(\"\\nb\")"]);
        assert_eq!(inside("x // keep me"), ["x //", "x // me", "x // keep"]);
        assert_eq!(
            inside("x /* keep me */"),
            ["x /* */", "x /* me */", "x /* keep */"]
        );
    }

    #[test]
    fn lone_brackets_only_where_some_already_are() {
        let edits = |text: &str| -> Vec<String> {
            rendered_edits(&TokenWindows::new(Syntax::CLike), text.as_bytes())
        };
        assert_eq!(edits("f(x)"), ["(x)", "f", "f()"]);
        // With a lone `(` already, every window is tried.
        assert_eq!(edits("f(x"), ["", "x", "(x", "f", "f x", "f("]);
    }

    /// Every window of 1 to 3 tokens, applied: what the stage proposed before long runs.
    fn every_window(text: &[u8]) -> std::collections::BTreeSet<Vec<u8>> {
        let tokens = lex(text, Syntax::CLike);
        let mut windows = std::collections::BTreeSet::new();
        for i in 0..tokens.len() {
            for last in tokens.iter().skip(i).take(3) {
                let edit = Edit::replace(vec![deletion(text, tokens[i].start..last.end)], 0);
                let mut out = Vec::new();
                edit.apply(text, &mut out);
                windows.insert(out);
            }
        }
        windows
    }

    #[test]
    fn long_runs_are_halved_and_their_repeated_windows_proposed_once() {
        let text = format!("x = {};\ny", "\0".repeat(40));
        let stage = TokenWindows::new(Syntax::CLike);
        let rendered: Vec<Vec<u8>> = stage
            .edits(text.as_bytes(), 0)
            .iter()
            .map(|edit| {
                let mut out = Vec::new();
                edit.apply(text.as_bytes(), &mut out);
                out
            })
            .collect();
        let delete = |range: Range<usize>| {
            let edit = Edit::replace(vec![deletion(text.as_bytes(), range)], 0);
            let mut out = Vec::new();
            edit.apply(text.as_bytes(), &mut out);
            out
        };
        // After the windows of `x` and `=`: the whole run, its halves down to 5 bytes, then the
        // windows at the run's start.
        let at_run_start: Vec<Vec<u8>> = [40, 20, 10, 5, 3, 2, 1]
            .into_iter()
            .map(|n| delete(4..4 + n))
            .collect();
        assert_eq!(rendered[6..13], at_run_start);
        // Every window is still proposed, and the run's repeated ones only a few times.
        let distinct: std::collections::BTreeSet<Vec<u8>> = rendered.iter().cloned().collect();
        assert!(distinct.is_superset(&every_window(text.as_bytes())));
        assert_eq!(rendered.len(), 25);
        // Shorter runs get every window, as before.
        let short = format!("x = {};", "\0".repeat(LONG_RUN - 1));
        let windows = stage.edits(short.as_bytes(), 0).len();
        assert_eq!(windows, 3 * lex(short.as_bytes(), Syntax::CLike).len() - 3);
    }

    #[test]
    fn batches_end_between_tokens_and_the_next_starts_past_the_last() {
        let text = b"a b c d e f";
        let stage = TokenWindows::new(Syntax::CLike);
        let never = || Ok(());
        let first = stage
            .edits_for(text, &EditRequest::new(0, 4, &never))
            .unwrap();
        // Two tokens' windows (three each): the batch is full after the second.
        assert_eq!(first.len(), 6);
        let next = first.last().unwrap().order + 1;
        let rest = stage
            .edits_for(text, &EditRequest::new(next, usize::MAX, &never))
            .unwrap();
        let all = stage.edits(text, 0);
        assert_eq!([first, rest].concat(), all);
        // Batches that end among the words inside a comment resume there.
        let text = b"x /* a b c d */ y";
        let all = stage.edits(text, 0);
        for batch in 1..=all.len() {
            // As the driver asks: from past the last edit of the batch before, keeping the
            // edits at `from` or later.
            let mut from = 0;
            let mut batches = Vec::new();
            loop {
                let edits: Vec<Edit> = stage
                    .edits_for(text, &EditRequest::new(from, batch, &never))
                    .unwrap()
                    .into_iter()
                    .filter(|edit| edit.order >= from)
                    .collect();
                let Some(last) = edits.last() else { break };
                from = last.order + 1;
                batches.extend(edits);
            }
            assert_eq!(batches, all, "batches of {batch}");
        }
        // After a word's deletion the scan resumes at that word, inside the comment.
        let from = position_order(text.iter().position(|&b| b == b'c').unwrap(), 0);
        let resumed: Vec<Edit> = stage
            .edits(text, from)
            .into_iter()
            .filter(|edit| edit.order >= from)
            .collect();
        let expected: Vec<Edit> = all.into_iter().filter(|edit| edit.order >= from).collect();
        assert_eq!(resumed.len(), 3 + 1, "`c d`, `c`, `d`, and `y`");
        assert_eq!(resumed, expected);
    }

    #[test]
    fn a_stop_ends_the_work() {
        let text = "a ".repeat(5000);
        let stop = || Err(Stop::Requested);
        let stage = TokenWindows::new(Syntax::CLike);
        assert_eq!(
            stage.edits_for(text.as_bytes(), &EditRequest::new(0, usize::MAX, &stop)),
            Err(Stop::Requested)
        );
    }
}
