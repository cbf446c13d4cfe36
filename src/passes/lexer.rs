//! A small lexer shared by the text stages: words, numbers, string literals, comments and single
//! punctuation characters, with the string and comment syntax of a family of languages (so that
//! brackets inside strings and comments are not matched). Whitespace is not a token. The lexer
//! never fails: an unterminated string ends at the end of its line (or of the text for
//! multi-line forms), an unterminated block comment at the end of the text.

use std::ops::Range;

/// What a token is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum TokenKind {
    /// An identifier-like word: a letter or `_` (or `$`, or a non-ASCII byte) followed by word
    /// bytes.
    Word,
    /// A number: a digit followed by word bytes, with `.` between digits (`0x1F`, `1.5e3`, `10u`).
    Number,
    /// A string or character literal, quotes included.
    Str,
    Comment,
    /// One character that is none of the above (`(`, `;`, `+`, ...).
    Punct,
}

/// One token: its kind and byte range.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Token {
    pub kind: TokenKind,
    pub start: usize,
    pub end: usize,
}

impl Token {
    pub fn range(&self) -> Range<usize> {
        self.start..self.end
    }
}

/// The string and comment syntax of a family of languages.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Syntax {
    /// Plain text: no strings, no comments.
    Plain,
    /// `//` and `/* */` comments; `"..."`, `'...'` and `` `...` `` strings with backslash escapes
    /// (C, C++, Java, JavaScript, TypeScript, Rust, Go, CSS).
    CLike,
    /// `#` comments; `'...'`, `"..."` and triple-quoted strings (Python).
    Python,
    /// `"..."` strings only (JSON).
    Json,
}

impl Syntax {
    /// The syntax of a language by its name (`whittle languages`); plain text when unknown.
    pub fn for_language(name: Option<&str>) -> Syntax {
        match name {
            Some("python") => Syntax::Python,
            Some("json") => Syntax::Json,
            Some(
                "c" | "cpp" | "javascript" | "typescript" | "tsx" | "rust" | "java" | "go" | "css",
            ) => Syntax::CLike,
            _ => Syntax::Plain,
        }
    }
}

/// Whether a byte continues a word or number.
pub fn is_word_byte(byte: u8) -> bool {
    byte.is_ascii_alphanumeric() || byte == b'_' || byte == b'$' || byte >= 0x80
}

/// Whether a byte may start a word.
pub fn starts_word(byte: u8) -> bool {
    byte.is_ascii_alphabetic() || byte == b'_' || byte == b'$' || byte >= 0x80
}

/// Cuts `text` into tokens.
pub fn lex(text: &[u8], syntax: Syntax) -> Vec<Token> {
    let mut tokens = Vec::with_capacity(text.len() / 3 + 1);
    let mut i = 0;
    while i < text.len() {
        let byte = text[i];
        if byte.is_ascii_whitespace() {
            i += 1;
            continue;
        }
        let start = i;
        let kind = if let Some(end) = comment_end(text, i, syntax) {
            i = end;
            TokenKind::Comment
        } else if let Some(end) = string_end(text, i, syntax) {
            i = end;
            TokenKind::Str
        } else if starts_word(byte) {
            i = word_end(text, i);
            TokenKind::Word
        } else if byte.is_ascii_digit() {
            i = number_end(text, i);
            TokenKind::Number
        } else {
            i += 1;
            TokenKind::Punct
        };
        tokens.push(Token {
            kind,
            start,
            end: i,
        });
    }
    tokens
}

fn word_end(text: &[u8], mut i: usize) -> usize {
    while i < text.len() && is_word_byte(text[i]) {
        i += 1;
    }
    i
}

fn number_end(text: &[u8], mut i: usize) -> usize {
    loop {
        i = word_end(text, i);
        let decimal = text.get(i) == Some(&b'.') && text.get(i + 1).is_some_and(u8::is_ascii_digit);
        if !decimal {
            return i;
        }
        i += 1;
    }
}

/// Where the comment starting at `i` ends, if one starts there.
fn comment_end(text: &[u8], i: usize, syntax: Syntax) -> Option<usize> {
    let rest = &text[i..];
    match syntax {
        Syntax::CLike if rest.starts_with(b"//") => Some(line_end(text, i)),
        Syntax::CLike if rest.starts_with(b"/*") => Some(
            find(text, i + 2, b"*/")
                .map(|at| at + 2)
                .unwrap_or(text.len()),
        ),
        Syntax::Python if rest.starts_with(b"#") => Some(line_end(text, i)),
        _ => None,
    }
}

/// Where the string literal starting at `i` ends, if one starts there.
fn string_end(text: &[u8], i: usize, syntax: Syntax) -> Option<usize> {
    let quote = text[i];
    let quotes: &[u8] = match syntax {
        Syntax::Plain => b"",
        Syntax::CLike => b"\"'`",
        Syntax::Python => b"\"'",
        Syntax::Json => b"\"",
    };
    if !quotes.contains(&quote) {
        return None;
    }
    if syntax == Syntax::Python && text[i..].starts_with(&[quote; 3]) {
        let close = [quote; 3];
        let mut j = i + 3;
        while j < text.len() {
            if text[j] == b'\\' {
                j += 2;
            } else if text[j..].starts_with(&close) {
                return Some(j + 3);
            } else {
                j += 1;
            }
        }
        return Some(text.len());
    }
    // Template literals may span lines; other strings end at the end of their line at the latest.
    let multiline = quote == b'`';
    let mut j = i + 1;
    while j < text.len() {
        match text[j] {
            b'\\' => j += 2,
            b'\n' if !multiline => return Some(j),
            byte if byte == quote => return Some(j + 1),
            _ => j += 1,
        }
    }
    Some(text.len())
}

fn line_end(text: &[u8], i: usize) -> usize {
    text[i..]
        .iter()
        .position(|&b| b == b'\n')
        .map_or(text.len(), |at| i + at)
}

fn find(text: &[u8], from: usize, needle: &[u8]) -> Option<usize> {
    text.get(from..)?
        .windows(needle.len())
        .position(|window| window == needle)
        .map(|at| from + at)
}

/// A matched pair of brackets: the token indices of the opening and the closing bracket.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct BracketPair {
    pub open: usize,
    pub close: usize,
}

/// The matched `()`, `[]` and `{}` pairs among `tokens`, ordered by their opening bracket.
/// A closing bracket that matches no open one is ignored; one that matches an open bracket
/// below the top of the stack closes it and drops the unmatched ones above.
pub fn bracket_pairs(text: &[u8], tokens: &[Token]) -> Vec<BracketPair> {
    let mut pairs = Vec::new();
    let mut stack: Vec<(u8, usize)> = Vec::new();
    for (index, token) in tokens.iter().enumerate() {
        if token.kind != TokenKind::Punct {
            continue;
        }
        match text[token.start] {
            open @ (b'(' | b'[' | b'{') => stack.push((open, index)),
            close @ (b')' | b']' | b'}') => {
                let open = match close {
                    b')' => b'(',
                    b']' => b'[',
                    _ => b'{',
                };
                if let Some(depth) = stack.iter().rposition(|&(byte, _)| byte == open) {
                    pairs.push(BracketPair {
                        open: stack[depth].1,
                        close: index,
                    });
                    stack.truncate(depth);
                }
            }
            _ => {}
        }
    }
    pairs.sort_by_key(|pair| pair.open);
    pairs
}

#[cfg(test)]
mod tests {
    use super::*;

    fn kinds(text: &str, syntax: Syntax) -> Vec<(TokenKind, &str)> {
        lex(text.as_bytes(), syntax)
            .into_iter()
            .map(|t| (t.kind, &text[t.range()]))
            .collect()
    }

    #[test]
    fn c_tokens() {
        use TokenKind::*;
        assert_eq!(
            kinds("int x=0x1F; // c\ns=\"a)\\\"\"/*x*/+1.5;", Syntax::CLike),
            [
                (Word, "int"),
                (Word, "x"),
                (Punct, "="),
                (Number, "0x1F"),
                (Punct, ";"),
                (Comment, "// c"),
                (Word, "s"),
                (Punct, "="),
                (Str, "\"a)\\\"\""),
                (Comment, "/*x*/"),
                (Punct, "+"),
                (Number, "1.5"),
                (Punct, ";"),
            ]
        );
    }

    #[test]
    fn python_strings_and_comments() {
        use TokenKind::*;
        assert_eq!(
            kinds("x = '''a\n(b''' # (\ny = 'c", Syntax::Python),
            [
                (Word, "x"),
                (Punct, "="),
                (Str, "'''a\n(b'''"),
                (Comment, "# ("),
                (Word, "y"),
                (Punct, "="),
                (Str, "'c"),
            ]
        );
    }

    #[test]
    fn plain_text_has_no_strings() {
        use TokenKind::*;
        assert_eq!(
            kinds("don't (x)", Syntax::Plain),
            [
                (Word, "don"),
                (Punct, "'"),
                (Word, "t"),
                (Punct, "("),
                (Word, "x"),
                (Punct, ")")
            ]
        );
    }

    #[test]
    fn brackets_skip_strings_and_unmatched_closers() {
        let text = b"f(a, \")\", [b]) } {";
        let tokens = lex(text, Syntax::CLike);
        let pairs: Vec<(usize, usize)> = bracket_pairs(text, &tokens)
            .into_iter()
            .map(|p| (tokens[p.open].start, tokens[p.close].start))
            .collect();
        assert_eq!(pairs, [(1, 13), (10, 12)]);
    }
}
