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
    /// (C, C++, Java, Go, CSS).
    CLike,
    /// C-like, and a `/` where an operand is expected starts a regular expression literal
    /// (`/['"]+/g` is one token, its quotes and brackets do not count; JavaScript, TypeScript).
    JavaScript,
    /// C-like, and a `'` before a word not closed right after it is a lifetime or a loop label
    /// (`'a`, `'static`, one word token), not the start of a character literal (Rust).
    Rust,
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
            Some("javascript" | "typescript" | "tsx") => Syntax::JavaScript,
            Some("rust") => Syntax::Rust,
            Some("c" | "cpp" | "java" | "go" | "css") => Syntax::CLike,
            _ => Syntax::Plain,
        }
    }

    /// Whether the syntax has C's strings and comments.
    fn is_c_like(self) -> bool {
        matches!(self, Syntax::CLike | Syntax::JavaScript | Syntax::Rust)
    }
}

/// Whether a byte continues a word or number.
pub use crate::tree::text::is_word_byte;

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
        } else if let Some(end) = lifetime_end(text, i, syntax) {
            i = end;
            TokenKind::Word
        } else if let Some(end) = regex_end(text, i, syntax, tokens.last()) {
            i = end;
            TokenKind::Str
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

/// Where the Rust lifetime or label starting at `i` ends, if one starts there: a `'`, a word,
/// and no `'` right after the word (`'a'` is a character).
fn lifetime_end(text: &[u8], i: usize, syntax: Syntax) -> Option<usize> {
    if syntax != Syntax::Rust || text[i] != b'\'' {
        return None;
    }
    let first = *text.get(i + 1)?;
    if !(first.is_ascii_alphabetic() || first == b'_') {
        return None;
    }
    let end = word_end(text, i + 1);
    (text.get(end) != Some(&b'\'')).then_some(end)
}

/// Words after which a `/` starts a regular expression rather than dividing.
const BEFORE_REGEX: &[&[u8]] = &[
    b"return",
    b"typeof",
    b"instanceof",
    b"in",
    b"of",
    b"new",
    b"delete",
    b"void",
    b"throw",
    b"case",
    b"do",
    b"else",
    b"yield",
    b"await",
];

/// Where the JavaScript regular expression literal starting at `i` ends, if one starts there:
/// a `/` where an operand is expected (after an operator, an opening bracket, `,`, `;` or a
/// keyword such as `return`; not after a name, a number, a literal or a closing bracket), up to
/// the next `/` outside a `[...]` class on the same line, with its flags.
fn regex_end(text: &[u8], i: usize, syntax: Syntax, previous: Option<&Token>) -> Option<usize> {
    if syntax != Syntax::JavaScript || text[i] != b'/' {
        return None;
    }
    if matches!(text.get(i + 1), Some(b'/' | b'*')) {
        return None;
    }
    let operand_expected = match previous {
        None => true,
        Some(token) => match token.kind {
            TokenKind::Word => BEFORE_REGEX.contains(&&text[token.range()]),
            TokenKind::Number | TokenKind::Str => false,
            TokenKind::Comment => true,
            TokenKind::Punct => !matches!(text[token.start], b')' | b']' | b'}'),
        },
    };
    if !operand_expected {
        return None;
    }
    let mut class = false;
    let mut j = i + 1;
    while j < text.len() {
        match text[j] {
            b'\\' => j += 2,
            b'\n' => return None,
            b'[' => {
                class = true;
                j += 1;
            }
            b']' => {
                class = false;
                j += 1;
            }
            b'/' if !class => return Some(word_end(text, j + 1)),
            _ => j += 1,
        }
    }
    None
}

/// Where the comment starting at `i` ends, if one starts there.
fn comment_end(text: &[u8], i: usize, syntax: Syntax) -> Option<usize> {
    let rest = &text[i..];
    match syntax {
        _ if syntax.is_c_like() && rest.starts_with(b"//") => Some(line_end(text, i)),
        _ if syntax.is_c_like() && rest.starts_with(b"/*") => Some(
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
        Syntax::CLike | Syntax::JavaScript | Syntax::Rust => b"\"'`",
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
    fn rust_lifetimes_are_words_and_characters_strings() {
        use TokenKind::*;
        assert_eq!(
            kinds(
                "impl<'a> S<'a> { 'outer: loop { f('{', '\\'', '\u{e9}') } }",
                Syntax::Rust
            ),
            [
                (Word, "impl"),
                (Punct, "<"),
                (Word, "'a"),
                (Punct, ">"),
                (Word, "S"),
                (Punct, "<"),
                (Word, "'a"),
                (Punct, ">"),
                (Punct, "{"),
                (Word, "'outer"),
                (Punct, ":"),
                (Word, "loop"),
                (Punct, "{"),
                (Word, "f"),
                (Punct, "("),
                (Str, "'{'"),
                (Punct, ","),
                (Str, "'\\''"),
                (Punct, ","),
                (Str, "'\u{e9}'"),
                (Punct, ")"),
                (Punct, "}"),
                (Punct, "}"),
            ]
        );
        // In C a `'` always starts a character literal.
        assert_eq!(kinds("'a'", Syntax::CLike), [(Str, "'a'")]);
        assert_eq!(kinds("<'a>", Syntax::CLike), [(Punct, "<"), (Str, "'a>")]);
    }

    #[test]
    fn javascript_regular_expressions_are_literals() {
        use TokenKind::*;
        assert_eq!(
            kinds(
                "q = /^([\"'])\\/[/]/g; r = a / b / c; return /}/.test(s)",
                Syntax::JavaScript
            ),
            [
                (Word, "q"),
                (Punct, "="),
                (Str, "/^([\"'])\\/[/]/g"),
                (Punct, ";"),
                (Word, "r"),
                (Punct, "="),
                (Word, "a"),
                (Punct, "/"),
                (Word, "b"),
                (Punct, "/"),
                (Word, "c"),
                (Punct, ";"),
                (Word, "return"),
                (Str, "/}/"),
                (Punct, "."),
                (Word, "test"),
                (Punct, "("),
                (Word, "s"),
                (Punct, ")"),
            ]
        );
        // A `/` that has no closing `/` on its line is an operator; comments stay comments.
        assert_eq!(
            kinds("x = (/ 2\n) // c", Syntax::JavaScript),
            [
                (Word, "x"),
                (Punct, "="),
                (Punct, "("),
                (Punct, "/"),
                (Number, "2"),
                (Punct, ")"),
                (Comment, "// c"),
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
