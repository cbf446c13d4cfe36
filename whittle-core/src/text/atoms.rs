//! Atoms: how a text is cut into the units ddmin works on (lines, characters, tokens).

use std::fmt;
use std::str::FromStr;

use serde::Serialize;

/// The kind of unit a ddmin pass removes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum AtomKind {
    /// Lines, each with its terminator (`\n` or `\r\n`); a last line may lack one.
    Line,
    /// Unicode scalar values when the text is valid UTF-8, bytes otherwise.
    Char,
    /// A run of word characters, or a single other character, each with the whitespace before it.
    Token,
    /// Blocks of lines nested by brackets and indentation, level by level
    /// (`crate::algorithms::blocks`); cut alone, a text's lines.
    Block,
}

impl AtomKind {
    pub fn name(self) -> &'static str {
        match self {
            AtomKind::Line => "line",
            AtomKind::Char => "char",
            AtomKind::Token => "token",
            AtomKind::Block => "block",
        }
    }

    /// Parses a comma-separated list such as `line,char`.
    pub fn parse_list(list: &str) -> Result<Vec<AtomKind>, String> {
        let kinds = list
            .split(',')
            .map(|part| part.trim().parse())
            .collect::<Result<Vec<_>, _>>()?;
        if kinds.is_empty() {
            return Err("the list of atoms is empty".into());
        }
        Ok(kinds)
    }
}

impl fmt::Display for AtomKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for AtomKind {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s {
            "line" | "lines" => Ok(AtomKind::Line),
            "char" | "chars" | "character" | "characters" => Ok(AtomKind::Char),
            "token" | "tokens" => Ok(AtomKind::Token),
            "block" | "blocks" => Ok(AtomKind::Block),
            other => Err(format!(
                "unknown atom kind `{other}` (expected line, char, token or block)"
            )),
        }
    }
}

/// A unit of text: the byte range `start..end`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Span {
    pub start: u32,
    pub end: u32,
}

impl Span {
    pub fn len(self) -> usize {
        (self.end - self.start) as usize
    }

    pub fn is_empty(self) -> bool {
        self.start == self.end
    }

    pub fn range(self) -> std::ops::Range<usize> {
        self.start as usize..self.end as usize
    }
}

/// Cuts `text` into units of the given kind. The spans cover the text exactly, in order.
pub fn split(text: &[u8], kind: AtomKind) -> Vec<Span> {
    match kind {
        AtomKind::Line | AtomKind::Block => split_lines(text),
        AtomKind::Char => split_chars(text),
        AtomKind::Token => split_tokens(text),
    }
}

/// The span `start..end`.
pub fn span(start: usize, end: usize) -> Span {
    // Inputs larger than 4 GiB are rejected when they are read.
    Span {
        start: start as u32,
        end: end as u32,
    }
}

fn split_lines(text: &[u8]) -> Vec<Span> {
    let mut spans = Vec::with_capacity(text.len() / 32 + 1);
    let mut start = 0;
    for (i, &byte) in text.iter().enumerate() {
        if byte == b'\n' {
            spans.push(span(start, i + 1));
            start = i + 1;
        }
    }
    if start < text.len() {
        spans.push(span(start, text.len()));
    }
    spans
}

fn split_chars(text: &[u8]) -> Vec<Span> {
    match std::str::from_utf8(text) {
        Ok(s) => s
            .char_indices()
            .map(|(i, c)| span(i, i + c.len_utf8()))
            .collect(),
        Err(_) => (0..text.len()).map(|i| span(i, i + 1)).collect(),
    }
}

fn is_word_byte(byte: u8) -> bool {
    byte.is_ascii_alphanumeric() || byte == b'_' || byte >= 0x80
}

fn split_tokens(text: &[u8]) -> Vec<Span> {
    let mut spans: Vec<Span> = Vec::new();
    let mut i = 0;
    while i < text.len() {
        let start = i;
        while i < text.len() && text[i].is_ascii_whitespace() {
            i += 1;
        }
        if i == text.len() {
            // Trailing whitespace joins the last token, or stands alone in a blank text.
            match spans.last_mut() {
                Some(last) => *last = span(last.start as usize, i),
                None => spans.push(span(start, i)),
            }
            break;
        }
        if is_word_byte(text[i]) {
            while i < text.len() && is_word_byte(text[i]) {
                i += 1;
            }
        } else {
            i += 1;
        }
        spans.push(span(start, i));
    }
    spans
}

/// How many bytes `old` and `new` share at their start and, in what is left, at their end: `new`
/// is `old` with `old[prefix..old.len() - suffix]` replaced by `new[prefix..new.len() - suffix]`.
pub fn common_ends(old: &[u8], new: &[u8]) -> (usize, usize) {
    let prefix = old.iter().zip(new).take_while(|(a, b)| a == b).count();
    let room = old.len().min(new.len()) - prefix;
    let suffix = old
        .iter()
        .rev()
        .zip(new.iter().rev())
        .take(room)
        .take_while(|(a, b)| a == b)
        .count();
    (prefix, suffix)
}

/// Counts the characters of `text` that are not whitespace (the papers' size measure).
pub fn non_whitespace_chars(text: &[u8]) -> usize {
    if text.is_ascii() {
        // The usual case, byte by byte: the ASCII characters `char::is_whitespace` accepts.
        return text
            .iter()
            .filter(|&&b| !(b.is_ascii_whitespace() || b == 0x0b))
            .count();
    }
    match std::str::from_utf8(text) {
        Ok(s) => s.chars().filter(|c| !c.is_whitespace()).count(),
        Err(_) => text.iter().filter(|b| !b.is_ascii_whitespace()).count(),
    }
}

/// Counts lines the way editors do: a last line without terminator still counts.
pub fn line_count(text: &[u8]) -> usize {
    let newlines = text.iter().filter(|&&b| b == b'\n').count();
    newlines + usize::from(text.last().is_some_and(|&b| b != b'\n'))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pieces(text: &str, kind: AtomKind) -> Vec<&str> {
        split(text.as_bytes(), kind)
            .into_iter()
            .map(|s| &text[s.range()])
            .collect()
    }

    #[test]
    fn lines_keep_their_terminators() {
        assert_eq!(
            pieces("a\nbb\r\n\nc", AtomKind::Line),
            ["a\n", "bb\r\n", "\n", "c"]
        );
        assert_eq!(pieces("a\n", AtomKind::Line), ["a\n"]);
        assert!(pieces("", AtomKind::Line).is_empty());
    }

    #[test]
    fn chars_are_scalar_values_or_bytes() {
        assert_eq!(pieces("aé€", AtomKind::Char), ["a", "é", "€"]);
        let invalid = [b'a', 0xff, b'b'];
        assert_eq!(split(&invalid, AtomKind::Char).len(), 3);
    }

    #[test]
    fn tokens_carry_leading_whitespace() {
        assert_eq!(
            pieces("int x = a1+b;\n", AtomKind::Token),
            ["int", " x", " =", " a1", "+", "b", ";\n"]
        );
        assert_eq!(pieces("  ", AtomKind::Token), ["  "]);
    }

    #[test]
    fn spans_cover_the_text() {
        let text = "fn main() {\n    println!(\"hé\");\n}\n";
        for kind in [AtomKind::Line, AtomKind::Char, AtomKind::Token] {
            assert_eq!(pieces(text, kind).concat(), text, "{kind}");
        }
    }

    #[test]
    fn common_ends_leave_the_changed_middle() {
        assert_eq!(common_ends(b"abcXYdef", b"abcdef"), (3, 3));
        assert_eq!(common_ends(b"aaaa", b"aa"), (2, 0));
        assert_eq!(common_ends(b"abc", b"abc"), (3, 0));
        assert_eq!(common_ends(b"", b"xy"), (0, 0));
        assert_eq!(common_ends(b"xab", b"yab"), (0, 2));
    }

    #[test]
    fn sizes() {
        assert_eq!(non_whitespace_chars(b" a b\n c "), 3);
        assert_eq!(line_count(b"a\nb"), 2);
        assert_eq!(line_count(b"a\nb\n"), 2);
        assert_eq!(line_count(b""), 0);
    }

    #[test]
    fn parse_lists() {
        assert_eq!(
            AtomKind::parse_list("line,char").unwrap(),
            [AtomKind::Line, AtomKind::Char]
        );
        assert!(AtomKind::parse_list("line,word").is_err());
    }
}
