//! Word normalisation: rename every occurrence of a word (an identifier-like run of the text, in
//! code, strings and comments alike) to the shortest name the text does not use, merge two short
//! names into one (which merges the bindings they name), replace every occurrence of a number by
//! `0` or `1`, empty every occurrence of a string literal, and replace a single occurrence of a
//! word by `0` or `1` (a name or keyword standing for a value). One test per candidate; the
//! candidates are ranked by the bytes they save. Words the language reserves (its keywords) are
//! never renamed, though a single occurrence may become `0` or `1`.

use std::collections::hash_map::DefaultHasher;
use std::collections::{BTreeMap, HashSet};
use std::hash::{Hash, Hasher};
use std::ops::Range;

use super::edit::{Changes, Edit, EditRequest, EditStage};
use super::lexer::{Syntax, TokenKind, is_word_byte, lex, starts_word};
use crate::testing::control::Stop;

/// Names at most this long take part in merges (fresh renaming makes every binding it can
/// rename this short, long names that stay are mostly the language's or a library's).
const MERGE_LENGTH: usize = 2;

/// The word normalisation stage.
pub struct Rename<'a> {
    pub syntax: Syntax,
    /// The input's language: words its parse uses as keywords are never renamed.
    pub language: Option<&'a crate::tree::Language>,
}

/// What a candidate replaces, for ranking and identity.
#[derive(Hash)]
enum Target<'a> {
    Fresh(&'a [u8], &'a [u8]),
    Merge(&'a [u8], &'a [u8]),
    Number(&'a [u8], &'a [u8]),
    Empty(&'a [u8]),
    /// Occurrence `k` of a word replaced by a constant.
    Constant(&'a [u8], usize, &'a [u8]),
}

/// A literal: its kind of token and its text.
type Literal<'a> = (TokenKind, &'a [u8]);

/// The literals of a text (numbers and strings) and where each occurs, in order of first
/// occurrence.
fn literal_occurrences(text: &[u8], syntax: Syntax) -> Vec<(Literal<'_>, Vec<Range<usize>>)> {
    let tokens = lex(text, syntax);
    let mut literals: BTreeMap<Literal<'_>, Vec<Range<usize>>> = BTreeMap::new();
    let mut first_seen: Vec<Literal<'_>> = Vec::new();
    for token in &tokens {
        if !matches!(token.kind, TokenKind::Number | TokenKind::Str) {
            continue;
        }
        let key = (token.kind, &text[token.range()]);
        literals
            .entry(key)
            .or_insert_with(|| {
                first_seen.push(key);
                Vec::new()
            })
            .push(token.range());
    }
    first_seen
        .into_iter()
        .map(|key| (key, literals.remove(&key).unwrap_or_default()))
        .collect()
}

/// What a literal may become: a number 0 or 1 (when shorter in shortlex order), a quoted string
/// empty.
fn literal_replacements(kind: TokenKind, literal: &[u8]) -> Vec<(Target<'_>, Vec<u8>)> {
    if kind == TokenKind::Number {
        return [&b"0"[..], b"1"]
            .into_iter()
            .filter(|small| shortlex(small) < shortlex(literal))
            .map(|small| (Target::Number(literal, small), small.to_vec()))
            .collect();
    }
    let quote = literal[0];
    // Quoted strings only: a regular expression literal `/x/` has no empty form.
    let closed =
        b"\"'`".contains(&quote) && literal.len() >= 2 && literal[literal.len() - 1] == quote;
    if closed && literal.len() > 2 {
        vec![(Target::Empty(literal), vec![quote, quote])]
    } else {
        Vec::new()
    }
}

/// The words of a text and where each occurs, in order of first occurrence.
pub fn word_occurrences(text: &[u8]) -> Vec<(Vec<u8>, Vec<Range<usize>>)> {
    let mut index: BTreeMap<&[u8], usize> = BTreeMap::new();
    let mut words: Vec<(Vec<u8>, Vec<Range<usize>>)> = Vec::new();
    let mut i = 0;
    while i < text.len() {
        if !is_word_byte(text[i]) {
            i += 1;
            continue;
        }
        let start = i;
        while i < text.len() && is_word_byte(text[i]) {
            i += 1;
        }
        if !starts_word(text[start]) {
            continue;
        }
        let word = &text[start..i];
        let at = *index.entry(word).or_insert_with(|| {
            words.push((word.to_vec(), Vec::new()));
            words.len() - 1
        });
        words[at].1.push(start..i);
    }
    words
}

/// Shortlex order: shorter first, then bytewise.
fn shortlex(word: &[u8]) -> (usize, &[u8]) {
    (word.len(), word)
}

/// The names tried as fresh names, in order: one lowercase letter, one uppercase letter, then
/// two lowercase letters, and so on.
fn fresh_names() -> impl Iterator<Item = Vec<u8>> {
    let lower = || (b'a'..=b'z').map(|b| vec![b]);
    let upper = (b'A'..=b'Z').map(|b| vec![b]);
    let pairs = (b'a'..=b'z').flat_map(|a| (b'a'..=b'z').map(move |b| vec![a, b]));
    let triples = (b'a'..=b'z')
        .flat_map(|a| (b'a'..=b'z').flat_map(move |b| (b'a'..=b'z').map(move |c| vec![a, b, c])));
    lower().chain(upper).chain(pairs).chain(triples)
}

fn identity(target: &Target<'_>) -> u64 {
    let mut hasher = DefaultHasher::new();
    target.hash(&mut hasher);
    hasher.finish() | 1
}

impl EditStage for Rename<'_> {
    fn name(&self) -> &'static str {
        "rename"
    }

    fn edits_for(&self, text: &[u8], request: &EditRequest<'_>) -> Result<Vec<Edit>, Stop> {
        // Every edit is at order 0: the round asks for no others.
        if request.from > 0 {
            return Ok(Vec::new());
        }
        let words = word_occurrences(text);
        request.check_stop()?;
        let reserved = super::reserved_words_for(self.language, text, request)?;
        let used: HashSet<&[u8]> = words.iter().map(|(word, _)| word.as_slice()).collect();
        let fresh =
            fresh_names().find(|name| !used.contains(name.as_slice()) && !reserved.contains(name));
        // (saving, sequence, edit): sorted by saving, then by the order they were made.
        let mut ranked: Vec<(isize, usize, Edit)> = Vec::new();
        let mut push = |target: Target<'_>, occurrences: &[Range<usize>], new: &[u8]| {
            request.work_on(occurrences.len())?;
            let changes: Changes = occurrences
                .iter()
                .map(|range| (range.clone(), new.to_vec()))
                .collect();
            let edit = Edit::replace(changes, 0).with_identity(identity(&target));
            let sequence = ranked.len();
            ranked.push((edit.saving(), sequence, edit));
            Ok::<(), Stop>(())
        };
        let renamable = |word: &[u8]| !reserved.contains(word);
        for (word, occurrences) in &words {
            if !renamable(word) {
                continue;
            }
            if let Some(fresh) = &fresh
                && fresh.len() < word.len()
            {
                push(Target::Fresh(word, fresh), occurrences, fresh)?;
            }
        }
        let short: Vec<&[u8]> = words
            .iter()
            .map(|(word, _)| word.as_slice())
            .filter(|word| word.len() <= MERGE_LENGTH && renamable(word))
            .collect();
        for (word, occurrences) in &words {
            if word.len() > MERGE_LENGTH || !renamable(word) {
                continue;
            }
            let mut targets: Vec<&[u8]> = short
                .iter()
                .copied()
                .filter(|other| shortlex(other) < shortlex(word))
                .collect();
            targets.sort_by_key(|other| shortlex(other));
            for other in targets {
                push(Target::Merge(word, other), occurrences, other)?;
            }
        }
        for ((kind, literal), occurrences) in literal_occurrences(text, self.syntax) {
            for (target, new) in literal_replacements(kind, literal) {
                push(target, &occurrences, &new)?;
            }
        }
        for (word, occurrences) in &words {
            for (k, occurrence) in occurrences.iter().enumerate() {
                for constant in [&b"0"[..], b"1"] {
                    push(
                        Target::Constant(word, k, constant),
                        std::slice::from_ref(occurrence),
                        constant,
                    )?;
                }
            }
        }
        ranked.sort_by(|a, b| b.0.cmp(&a.0).then(a.1.cmp(&b.1)));
        Ok(ranked.into_iter().map(|(_, _, edit)| edit).collect())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::algorithms::passes::edit::rendered_edits;

    fn rendered(stage: &Rename, text: &str) -> Vec<String> {
        rendered_edits(stage, text.as_bytes())
    }

    #[test]
    fn words_in_code_and_strings() {
        let words: Vec<String> = word_occurrences(b"foo(\"foo\", 0x1f, foo2) // foo")
            .into_iter()
            .map(|(word, at)| format!("{}x{}", String::from_utf8(word).unwrap(), at.len()))
            .collect();
        assert_eq!(words, ["foox3", "foo2x1"]);
    }

    #[test]
    #[cfg_attr(
        not(feature = "lang-c"),
        ignore = "needs the C grammar (cargo feature lang-c)"
    )]
    fn candidates_ranked_by_saving() {
        let stage = Rename {
            syntax: Syntax::CLike,
            language: crate::tree::Language::by_name("c").ok(),
        };
        assert_eq!(
            rendered(&stage, "int count = 42; int b = count + \"xy\";"),
            [
                // `count` everywhere to the shortest unused name: saves 8 bytes.
                "int a = 42; int b = a + \"xy\";",
                // One occurrence of `count` to a constant: 4 bytes.
                "int 0 = 42; int b = count + \"xy\";",
                "int 1 = 42; int b = count + \"xy\";",
                "int count = 42; int b = 0 + \"xy\";",
                "int count = 42; int b = 1 + \"xy\";",
                // The string emptied: 2 bytes.
                "int count = 42; int b = count + \"\";",
                // 2 bytes: one occurrence of the keyword `int` to a constant.
                "0 count = 42; int b = count + \"xy\";",
                "1 count = 42; int b = count + \"xy\";",
                "int count = 42; 0 b = count + \"xy\";",
                "int count = 42; 1 b = count + \"xy\";",
                // 1 byte: the word in the string renamed, or merged into `b`; the number 42.
                "int count = 42; int b = count + \"a\";",
                "int count = 42; int b = count + \"b\";",
                "int count = 0; int b = count + \"xy\";",
                "int count = 1; int b = count + \"xy\";",
                "int count = 42; int b = count + \"0\";",
                "int count = 42; int b = count + \"1\";",
                // Nothing saved: `b` to a constant.
                "int count = 42; int 0 = count + \"xy\";",
                "int count = 42; int 1 = count + \"xy\";",
            ]
        );
    }

    #[test]
    fn short_names_merge() {
        let stage = Rename {
            syntax: Syntax::CLike,
            language: None,
        };
        let merges: Vec<String> = rendered(&stage, "b=a;c=b;")
            .into_iter()
            .filter(|text| !text.contains(['0', '1']))
            .collect();
        assert_eq!(merges, ["a=a;c=a;", "b=a;a=b;", "b=a;b=b;"]);
    }
}
