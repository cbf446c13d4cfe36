//! Word normalisation: rename every occurrence of a word (an identifier-like run of the text, in
//! code, strings and comments alike) to the shortest name the text does not use, merge two short
//! names into one (which merges the bindings they name), replace every occurrence of a number by
//! `0` or `1`, empty every occurrence of a string literal, and replace a single occurrence of a
//! word of two or more letters by `0` or `1` (a name or keyword standing for a value; a
//! one-letter word as a constant saves nothing, and where the grammar takes a value there the
//! `replace` stage proposes `0`). One test per candidate; the candidates are ranked by the bytes
//! they save. Words the language reserves (its keywords) are never renamed, though a single
//! occurrence may become `0` or `1`.

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

/// A candidate before it is built: what it replaces (indices into the text's words and
/// literals) and the bytes it saves. A large text has many (a constant at every occurrence of
/// every word, a merge of every short name into every shorter one): only those of the batch
/// asked for are built into edits.
#[derive(Clone, Copy)]
struct Proposal {
    saving: isize,
    target: Proposed,
}

#[derive(Clone, Copy)]
enum Proposed {
    /// Every occurrence of word `word` to the fresh name.
    Fresh { word: usize },
    /// Every occurrence of word `word` to short name `into` (an index into the words).
    Merge { word: usize, into: usize },
    /// Every occurrence of literal `literal` to its replacement `replacement`.
    Literal { literal: usize, replacement: usize },
    /// Occurrence `occurrence` of word `word` to `0` (`one` false) or `1`.
    Constant {
        word: usize,
        occurrence: usize,
        one: bool,
    },
}

/// The bytes saved by replacing `occurrences` of a text `old` bytes long by one `new` long.
fn saving(occurrences: &[Range<usize>], old: usize, new: usize) -> isize {
    occurrences.len() as isize * (old as isize - new as isize)
}

/// What the stage's candidates are made of on one text.
struct Material<'t> {
    words: Vec<(Vec<u8>, Vec<Range<usize>>)>,
    literals: Vec<(Literal<'t>, Vec<Range<usize>>)>,
    fresh: Option<Vec<u8>>,
}

impl Material<'_> {
    /// The candidates, most bytes saved first (ties in the order made: fresh names, merges,
    /// literals, constants), every one an [`Edit`] once [`Material::edit`] builds it.
    fn proposals(
        &self,
        reserved: &HashSet<Vec<u8>>,
        request: &EditRequest<'_>,
    ) -> Result<Vec<Proposal>, Stop> {
        let words = &self.words;
        let renamable = |word: &[u8]| !reserved.contains(word);
        let mut proposals = Vec::new();
        if let Some(fresh) = &self.fresh {
            for (word, (text, occurrences)) in words.iter().enumerate() {
                request.work()?;
                if renamable(text) && fresh.len() < text.len() {
                    let saving = saving(occurrences, text.len(), fresh.len());
                    proposals.push(Proposal {
                        saving,
                        target: Proposed::Fresh { word },
                    });
                }
            }
        }
        proposals.extend(self.merges(&renamable, request)?);
        for (literal, ((kind, text), occurrences)) in self.literals.iter().enumerate() {
            for (replacement, (_, new)) in literal_replacements(*kind, text).iter().enumerate() {
                let saving = saving(occurrences, text.len(), new.len());
                proposals.push(Proposal {
                    saving,
                    target: Proposed::Literal {
                        literal,
                        replacement,
                    },
                });
            }
        }
        // A one-letter word as a constant saves nothing: on the final texts of eleven tasks
        // these were a third of the stage's tests, for no result changed
        // (`docs/benchmarks.md` section 21).
        for (word, (text, occurrences)) in words.iter().enumerate() {
            if text.len() < 2 {
                continue;
            }
            request.work_on(occurrences.len())?;
            for occurrence in 0..occurrences.len() {
                for one in [false, true] {
                    let saving = text.len() as isize - 1;
                    proposals.push(Proposal {
                        saving,
                        target: Proposed::Constant {
                            word,
                            occurrence,
                            one,
                        },
                    });
                }
            }
        }
        // Stable: ties keep the order made.
        proposals.sort_by_key(|proposal| std::cmp::Reverse(proposal.saving));
        Ok(proposals)
    }

    /// Every short name merged into every shorter one (see [`MERGE_LENGTH`]), shortest first.
    fn merges(
        &self,
        renamable: &dyn Fn(&[u8]) -> bool,
        request: &EditRequest<'_>,
    ) -> Result<Vec<Proposal>, Stop> {
        let words = &self.words;
        let mut proposals = Vec::new();
        let mut short: Vec<usize> = (0..words.len())
            .filter(|&word| words[word].0.len() <= MERGE_LENGTH && renamable(&words[word].0))
            .collect();
        short.sort_by_key(|&word| shortlex(&words[word].0));
        for (word, (text, occurrences)) in words.iter().enumerate() {
            if text.len() > MERGE_LENGTH || !renamable(text) {
                continue;
            }
            for &into in short
                .iter()
                .take_while(|&&into| shortlex(&words[into].0) < shortlex(text))
            {
                request.work()?;
                proposals.push(Proposal {
                    saving: saving(occurrences, text.len(), words[into].0.len()),
                    target: Proposed::Merge { word, into },
                });
            }
        }
        Ok(proposals)
    }

    /// The edit of `proposal`, at `order`: every edit resumes the round from its start, where
    /// the stage ranks its candidates on the new text again.
    fn edit(&self, proposal: &Proposal, order: u64) -> Edit {
        let words = &self.words;
        let (target, occurrences, new): (Target<'_>, &[Range<usize>], Vec<u8>) =
            match proposal.target {
                Proposed::Fresh { word } => {
                    let fresh = self.fresh.as_deref().unwrap_or_default();
                    (
                        Target::Fresh(&words[word].0, fresh),
                        &words[word].1,
                        fresh.to_vec(),
                    )
                }
                Proposed::Merge { word, into } => {
                    let into = &words[into].0;
                    (
                        Target::Merge(&words[word].0, into),
                        &words[word].1,
                        into.to_vec(),
                    )
                }
                Proposed::Literal {
                    literal,
                    replacement,
                } => {
                    let ((kind, text), occurrences) = &self.literals[literal];
                    let (target, new) = literal_replacements(*kind, text).swap_remove(replacement);
                    (target, occurrences, new)
                }
                Proposed::Constant {
                    word,
                    occurrence,
                    one,
                } => {
                    let constant: &[u8] = if one { b"1" } else { b"0" };
                    let (text, occurrences) = &words[word];
                    (
                        Target::Constant(text, occurrence, constant),
                        std::slice::from_ref(&occurrences[occurrence]),
                        constant.to_vec(),
                    )
                }
            };
        let changes: Changes = occurrences
            .iter()
            .map(|range| (range.clone(), new.to_vec()))
            .collect();
        Edit::replace(changes, order)
            .with_resume(0)
            .with_identity(identity(&target))
    }
}

impl EditStage for Rename<'_> {
    fn name(&self) -> &'static str {
        "rename"
    }

    /// The candidates ranked by the bytes they save; the `order` of each is its rank, so a
    /// batch builds only the edits it holds (on a large text there are millions).
    fn edits_for(&self, text: &[u8], request: &EditRequest<'_>) -> Result<Vec<Edit>, Stop> {
        let words = word_occurrences(text);
        request.check_stop()?;
        let reserved = super::reserved_words_for(self.language, text, request)?;
        let used: HashSet<&[u8]> = words.iter().map(|(word, _)| word.as_slice()).collect();
        let fresh =
            fresh_names().find(|name| !used.contains(name.as_slice()) && !reserved.contains(name));
        let material = Material {
            literals: literal_occurrences(text, self.syntax),
            words,
            fresh,
        };
        let proposals = material.proposals(&reserved, request)?;
        let from = usize::try_from(request.from).unwrap_or(usize::MAX);
        let mut edits = Vec::new();
        for (rank, proposal) in proposals.iter().enumerate().skip(from) {
            if request.is_full(edits.len()) {
                break;
            }
            request.work()?;
            edits.push(material.edit(proposal, rank as u64));
        }
        Ok(edits)
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
                // (Nothing saved, `b` to a constant, is not proposed.)
                "int count = 42; int b = count + \"a\";",
                "int count = 42; int b = count + \"b\";",
                "int count = 0; int b = count + \"xy\";",
                "int count = 1; int b = count + \"xy\";",
                "int count = 42; int b = count + \"0\";",
                "int count = 42; int b = count + \"1\";",
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

    #[test]
    fn a_batch_builds_only_its_edits_and_batches_make_the_whole() {
        let stage = Rename {
            syntax: Syntax::CLike,
            language: None,
        };
        let text = b"int count = 42; int b = count + \"xy\"; b = a;";
        let all = stage.edits(text, 0);
        assert!(all.len() > 7, "{all:#?}");
        let stop = || Ok(());
        let mut batched = Vec::new();
        let mut from = 0;
        loop {
            let batch = stage
                .edits_for(text, &EditRequest::new(from, 3, &stop))
                .unwrap();
            assert!(batch.len() <= 3);
            let Some(last) = batch.last() else { break };
            from = last.order + 1;
            batched.extend(batch);
        }
        assert_eq!(batched, all);
        // The orders are the ranks, and every edit starts the round again where it was accepted.
        let orders: Vec<u64> = all.iter().map(|edit| edit.order).collect();
        assert_eq!(orders, (0..all.len() as u64).collect::<Vec<_>>());
        assert!(all.iter().all(|edit| edit.resume == 0));
    }
}
