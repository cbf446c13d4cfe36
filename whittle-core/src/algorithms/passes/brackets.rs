//! Balanced regions: for every matched `(...)`, `[...]` and `{...}` (matched on tokens, so
//! brackets in strings and comments do not count), delete the region with its brackets, hollow
//! it (keep the brackets, drop what is inside) or lift its contents (drop the brackets alone).
//! Regions are visited by their opening bracket, outer before inner. A region at the top of a
//! chain of at least [`DEEP_CHAIN`] regions each first inside the one before (`(a (b (c ...`,
//! `[[[...]]]`) is also replaced by a region down the chain, the deepest first, then 2^k levels
//! down, farther first: a chain of thousands goes in a few tests, where lifting takes one test
//! a level. Where a name is followed
//! by a parenthesised list in several places (a function's definition and its calls), the k-th
//! comma-separated element of every such list is also deleted at once, counted from the start
//! and, when the lists differ in length (a method's `self`), from the end: a parameter goes
//! with its arguments, which no deletion of one place can do.

use std::collections::{HashMap, HashSet};
use std::ops::Range;

use super::edit::{Changes, Edit, EditRequest, EditStage, deletion, position_order};
use super::lexer::{BracketPair, Syntax, Token, TokenKind, bracket_pairs, lex};
use crate::testing::control::Stop;

/// The balanced-region stage.
pub struct BalancedRegions<'a> {
    pub syntax: Syntax,
    /// The input's language: a keyword before a `(` (`if`, `while`) is not a name whose lists
    /// lose elements together.
    pub language: Option<&'a crate::tree::Language>,
}

impl EditStage for BalancedRegions<'_> {
    fn name(&self) -> &'static str {
        "brackets"
    }

    fn edits_for(&self, text: &[u8], request: &EditRequest<'_>) -> Result<Vec<Edit>, Stop> {
        let tokens = lex(text, self.syntax);
        request.check_stop()?;
        let pairs = bracket_pairs(text, &tokens);
        let mut joint = JointDeletions::new(text, &tokens, &pairs, self.language);
        let chains = chain_lengths(&pairs);
        // The bottom of the chain the last jumps went down: its index and its text's hash.
        let mut bottom: Option<(usize, u64)> = None;
        let first =
            pairs.partition_point(|pair| position_order(tokens[pair.open].start, 3) < request.from);
        let mut edits = Vec::new();
        for (index, pair) in pairs.iter().enumerate().skip(first) {
            request.work()?;
            if request.is_full(edits.len()) {
                break;
            }
            let open = &tokens[pair.open];
            let close = &tokens[pair.close];
            let resume = position_order(open.start, 0);
            let order = |variant| position_order(open.start, variant);
            let (whole, new) = deletion(text, open.start..close.end);
            edits.push(Edit::replace(vec![(whole, new)], order(0)).with_resume(resume));
            let inside = open.end..close.start;
            if text[inside.clone()]
                .iter()
                .any(|b| !b.is_ascii_whitespace())
            {
                edits.push(Edit::delete(inside, order(1)).with_resume(resume));
            }
            let jumps = chain_jumps(chains[index]);
            if let Some(&deepest) = jumps.first() {
                // A jump that failed from a region higher up the same chain is not tried again
                // in the round: named by the chain's bottom and how far it goes (the deepest:
                // by the bottom alone). Where the chain's depth is what the test needs, every
                // jump of every region would fail. The regions of a chain share its bottom:
                // its text is read once.
                let bottom_index = index + deepest;
                let bottom_hash = match bottom {
                    Some((at, hash)) if at == bottom_index => hash,
                    _ => {
                        let region = &pairs[bottom_index];
                        let region = &text[tokens[region.open].start..tokens[region.close].end];
                        let hash = super::nodes::identity_of("brackets", region);
                        bottom = Some((bottom_index, hash));
                        hash
                    }
                };
                for down in jumps {
                    let inner = &pairs[index + down];
                    let changes = vec![
                        (open.start..tokens[inner.open].start, Vec::new()),
                        (tokens[inner.close].end..close.end, Vec::new()),
                    ];
                    let levels = if down == deepest { 0 } else { down as u64 };
                    let mut key = levels.to_le_bytes().to_vec();
                    key.extend_from_slice(&bottom_hash.to_le_bytes());
                    edits.push(
                        Edit::replace(changes, order(2))
                            .with_resume(resume)
                            .with_identity(super::nodes::identity_of("brackets", &key)),
                    );
                }
            }
            let glue = |range: std::ops::Range<usize>| {
                let glued = range.start > 0
                    && range.end < text.len()
                    && super::lexer::is_word_byte(text[range.start - 1])
                    && super::lexer::is_word_byte(text[range.end]);
                (range, if glued { b" ".to_vec() } else { Vec::new() })
            };
            edits.push(
                Edit::replace(vec![glue(open.range()), glue(close.range())], order(2))
                    .with_resume(resume),
            );
            for changes in joint.starting_at(pair, request)? {
                edits.push(Edit::replace(changes, order(3)).with_resume(resume));
            }
        }
        Ok(edits)
    }
}

/// The shortest chain of regions, each first inside the one before, whose top is replaced by a
/// region down the chain.
const DEEP_CHAIN: usize = 8;

/// For each region (in `pairs`' order), how many regions its chain has: itself, the first
/// region inside it, the first inside that one, and so on. The first region inside a region is
/// the next in `pairs`' order when it lies inside, so a chain is a run of consecutive indices.
fn chain_lengths(pairs: &[BracketPair]) -> Vec<usize> {
    let mut lengths = vec![1; pairs.len()];
    for index in (0..pairs.len().saturating_sub(1)).rev() {
        if pairs[index + 1].close < pairs[index].close {
            lengths[index] = 1 + lengths[index + 1];
        }
    }
    lengths
}

/// How many levels down a chain of `length` regions its top is replaced: to the deepest, then
/// 2^k levels, farther first, down to 2 (none for a chain shorter than [`DEEP_CHAIN`]).
fn chain_jumps(length: usize) -> Vec<usize> {
    if length < DEEP_CHAIN {
        return Vec::new();
    }
    let deepest = length - 1;
    let mut jumps = vec![deepest];
    let mut down = 1usize << (usize::BITS - 1 - deepest.leading_zeros());
    while down >= 2 {
        if down < deepest {
            jumps.push(down);
        }
        down /= 2;
    }
    jumps
}

/// The elements of a parenthesised list: the token ranges between its top-level commas (none
/// for an empty list), and the commas' token indices.
fn list_elements(
    text: &[u8],
    tokens: &[Token],
    pair: &BracketPair,
) -> (Vec<Range<usize>>, Vec<usize>) {
    let mut depth = 0usize;
    let mut commas = Vec::new();
    for (index, token) in tokens
        .iter()
        .enumerate()
        .take(pair.close)
        .skip(pair.open + 1)
    {
        if token.kind != TokenKind::Punct {
            continue;
        }
        match text[token.start] {
            b'(' | b'[' | b'{' => depth += 1,
            b')' | b']' | b'}' => depth = depth.saturating_sub(1),
            b',' if depth == 0 => commas.push(index),
            _ => {}
        }
    }
    if pair.open + 1 == pair.close {
        return (Vec::new(), Vec::new());
    }
    let mut bounds = vec![pair.open];
    bounds.extend(&commas);
    bounds.push(pair.close);
    let elements = bounds.windows(2).map(|w| w[0] + 1..w[1]).collect();
    (elements, commas)
}

/// The byte range deleting element `k` of a list: with the comma after it, or (the last of
/// several) with the comma before it; the whole inside of a one-element list.
fn element_deletion(
    tokens: &[Token],
    pair: &BracketPair,
    elements: &[Range<usize>],
    commas: &[usize],
    k: usize,
) -> Range<usize> {
    if elements.len() == 1 {
        return tokens[pair.open].end..tokens[pair.close].start;
    }
    let element = &elements[k];
    let start = if element.is_empty() {
        tokens[commas[k.min(commas.len() - 1)]].start
    } else {
        tokens[element.start].start
    };
    if k + 1 < elements.len() {
        let next = &elements[k + 1];
        let end = if next.is_empty() {
            tokens[pair.close].start
        } else {
            tokens[next.start].start
        };
        start..end
    } else {
        let comma = tokens[commas[k - 1]].start;
        let end = if element.is_empty() {
            tokens[commas[k - 1]].end
        } else {
            tokens[element.end - 1].end
        };
        comma..end
    }
}

/// The joint deletions of list elements: for each name (a word that is not a keyword) followed
/// by `(` in two places or more, and each k, the k-th element of every list deleted (from the
/// start, and from the end when the lists differ in length), where that changes two lists or
/// more. They are worked out name by name as the regions come (a batch of a long line reads
/// the lists of the names it reaches, and the parse for the keywords only when it reaches one).
struct JointDeletions<'t> {
    text: &'t [u8],
    tokens: &'t [Token],
    language: Option<&'t crate::tree::Language>,
    /// The lists of each name that has two or more, by the token index of its first `(`.
    lists: HashMap<usize, (&'t [u8], Vec<&'t BracketPair>)>,
    /// The words the language reserves, once a name needs them.
    reserved: Option<HashSet<Vec<u8>>>,
}

impl<'t> JointDeletions<'t> {
    fn new(
        text: &'t [u8],
        tokens: &'t [Token],
        pairs: &'t [BracketPair],
        language: Option<&'t crate::tree::Language>,
    ) -> Self {
        let mut by_name: HashMap<&[u8], Vec<&BracketPair>> = HashMap::new();
        for pair in pairs {
            if pair.open == 0 || text[tokens[pair.open].start] != b'(' {
                continue;
            }
            let name = &tokens[pair.open - 1];
            if name.kind == TokenKind::Word {
                by_name.entry(&text[name.range()]).or_default().push(pair);
            }
        }
        let lists = by_name
            .into_iter()
            .filter(|(_, lists)| lists.len() >= 2)
            .map(|(name, lists)| (lists[0].open, (name, lists)))
            .collect();
        JointDeletions {
            text,
            tokens,
            language,
            lists,
            reserved: None,
        }
    }

    /// The joint deletions of the name whose first list is `pair`'s (none when it is no such
    /// list).
    fn starting_at(
        &mut self,
        pair: &BracketPair,
        request: &EditRequest<'_>,
    ) -> Result<Vec<Changes>, Stop> {
        let Some((name, lists)) = self.lists.remove(&pair.open) else {
            return Ok(Vec::new());
        };
        let reserved = match &mut self.reserved {
            Some(reserved) => reserved,
            none => none.insert(super::reserved_words_for(
                self.language,
                self.text,
                request,
            )?),
        };
        if reserved.contains(name) {
            return Ok(Vec::new());
        }
        let (text, tokens) = (self.text, self.tokens);
        let split: Vec<_> = lists
            .iter()
            .map(|pair| (*pair, list_elements(text, tokens, pair)))
            .collect();
        let longest = split.iter().map(|(_, (e, _))| e.len()).max().unwrap_or(0);
        let ragged = split.iter().any(|(_, (e, _))| e.len() != longest);
        let mut seen: HashSet<Vec<Range<usize>>> = HashSet::new();
        let ends: &[bool] = if ragged { &[false, true] } else { &[false] };
        let mut joint = Vec::new();
        for k in 0..longest {
            for &from_end in ends {
                request.work()?;
                let ranges: Vec<Range<usize>> = split
                    .iter()
                    .filter(|(_, (elements, _))| elements.len() > k)
                    .map(|(pair, (elements, commas))| {
                        let index = if from_end { elements.len() - 1 - k } else { k };
                        element_deletion(tokens, pair, elements, commas, index)
                    })
                    .filter(|range| !range.is_empty())
                    .collect();
                // A list nested in an element deleted here (`f(f(x))`) goes with that element.
                let ranges = super::edit::outermost(ranges);
                if ranges.len() < 2 || !seen.insert(ranges.clone()) {
                    continue;
                }
                joint.push(
                    ranges
                        .into_iter()
                        .map(|range| (range, Vec::new()))
                        .collect(),
                );
            }
        }
        Ok(joint)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::algorithms::passes::edit::rendered_edits;

    #[test]
    fn delete_hollow_lift_outer_first() {
        let stage = BalancedRegions {
            syntax: Syntax::CLike,
            language: None,
        };
        let text = b"f(a[1]) {}";
        let rendered: Vec<String> = rendered_edits(&stage, text);
        assert_eq!(
            rendered,
            [
                "f{}",
                "f() {}",
                "f a[1] {}",
                "f(a) {}",
                "f(a[]) {}",
                "f(a 1) {}",
                "f(a[1])",
                "f(a[1]) "
            ]
        );
    }

    #[test]
    fn a_deep_chain_is_replaced_by_a_region_down_it() {
        let stage = BalancedRegions {
            syntax: Syntax::CLike,
            language: None,
        };
        let text = "(a (b (c (d (e (f (g (h (x)))))))))";
        let rendered: Vec<String> = rendered_edits(&stage, text.as_bytes());
        // The top's edits: delete, hollow, then down the chain of 9: 8, 4 and 2 levels, then
        // lift.
        assert_eq!(
            rendered[..6],
            [
                "",
                "()",
                "(x)",
                "(e (f (g (h (x)))))",
                "(c (d (e (f (g (h (x)))))))",
                "a (b (c (d (e (f (g (h (x))))))))",
            ]
        );
        // The second region heads a chain of 8: 7, 4, 2 levels down.
        assert!(rendered.contains(&"(a (x))".to_owned()));
        assert!(rendered.contains(&"(a (f (g (h (x)))))".to_owned()));
        // A chain of 7 has no such edits.
        assert!(!rendered.iter().any(|r| r == "(a (b (x)))"));
        assert_eq!(chain_jumps(7), Vec::<usize>::new());
        assert_eq!(chain_jumps(8), [7, 4, 2]);
        assert_eq!(chain_jumps(9), [8, 4, 2]);
        assert_eq!(
            chain_jumps(3001),
            [3000, 2048, 1024, 512, 256, 128, 64, 32, 16, 8, 4, 2]
        );
    }

    /// The joint deletions a stage proposes (variant 3 of the positional order), applied.
    fn joint(text: &str) -> Vec<String> {
        let stage = BalancedRegions {
            syntax: Syntax::Python,
            language: None,
        };
        stage
            .edits(text.as_bytes(), 0)
            .iter()
            .filter(|edit| edit.order & 3 == 3)
            .map(|edit| {
                let mut out = Vec::new();
                edit.apply(text.as_bytes(), &mut out);
                String::from_utf8(out).unwrap()
            })
            .collect()
    }

    #[test]
    fn parameters_go_with_their_arguments() {
        assert_eq!(
            joint("def f(a, b):\n    g(a)\nf(1, (2, 3))\nf(4, 5)\n"),
            [
                "def f(b):\n    g(a)\nf((2, 3))\nf(5)\n",
                "def f(a):\n    g(a)\nf(1)\nf(4)\n",
            ]
        );
        // Lists of different lengths (a method's `self`) are also aligned at their ends.
        assert_eq!(
            joint("def m(self, x): pass\no.m(1)\n"),
            ["def m(x): pass\no.m()\n", "def m(self): pass\no.m()\n"]
        );
        // A list nested in an element deleted goes with it.
        assert_eq!(joint("f(f(f(1, 2), 3), 4)\n"), ["f(f(f(1)))\n"]);
        // One list alone, or a name whose lists are all empty, gives nothing.
        assert!(joint("f(1, 2)\ng()\ng()\n").is_empty());
    }
}
