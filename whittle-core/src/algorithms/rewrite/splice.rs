//! Splices: one edit of the current best, the bytes of a node replaced by a text. The text is
//! a literal (laid out like a removed node's Φ: its further lines at the indentation of the line
//! it starts on) or another span of the best moved into the node's place (its further lines moved
//! left by the indentation it gains, as hoisting does); a space keeps words apart where the
//! splice would join two of them.

use std::ops::Range;
use std::sync::Arc;

use crate::tree::{line_indentation, needs_space, write_indented};

/// What takes the place of the spliced bytes.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum SpliceText {
    /// A text of the grammar (laid out at the indentation of the line it starts on).
    Literal(Arc<[u8]>),
    /// The bytes `from` of the same text (a descendant moved into the place of an ancestor).
    Moved(Range<usize>),
    /// A text written as it is (made of the node's own parts, which keep their layout).
    Verbatim(Arc<[u8]>),
}

/// The bytes `range` of a text become `text`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Splice {
    pub range: Range<usize>,
    pub text: SpliceText,
}

impl Splice {
    /// Writes `source` with the splice applied into `out` (cleared first).
    pub fn render_into(&self, source: &[u8], out: &mut Vec<u8>) {
        out.clear();
        out.reserve(source.len());
        let (start, end) = (self.range.start, self.range.end);
        out.extend_from_slice(&source[..start]);
        let inserted_at = out.len();
        match &self.text {
            SpliceText::Literal(text) => {
                if needs_space(out.last().copied(), text.first().copied()) {
                    out.push(b' ');
                }
                write_indented(out, text);
            }
            SpliceText::Verbatim(text) => {
                if needs_space(out.last().copied(), text.first().copied()) {
                    out.push(b' ');
                }
                out.extend_from_slice(text);
            }
            SpliceText::Moved(from) => {
                let first = source.get(from.start).copied();
                if needs_space(out.last().copied(), first) {
                    out.push(b' ');
                }
                let dedent = line_indentation(source, from.start as u32)
                    .saturating_sub(line_indentation(source, start as u32));
                write_dedented(out, &source[from.clone()], dedent as usize);
            }
        }
        let last = if out.len() > inserted_at {
            out.last().copied()
        } else {
            source[..start].last().copied()
        };
        if needs_space(last, source.get(end).copied()) {
            out.push(b' ');
        }
        out.extend_from_slice(&source[end..]);
    }

    /// The text with the splice applied.
    pub fn render(&self, source: &[u8]) -> Vec<u8> {
        let mut out = Vec::new();
        self.render_into(source, &mut out);
        out
    }
}

/// Appends `text`, taking up to `dedent` spaces or tabs off the start of each line after the
/// first (the first line starts where the text is put).
fn write_dedented(out: &mut Vec<u8>, text: &[u8], dedent: usize) {
    if dedent == 0 {
        out.extend_from_slice(text);
        return;
    }
    for (index, line) in text.split(|&byte| byte == b'\n').enumerate() {
        if index == 0 {
            out.extend_from_slice(line);
            continue;
        }
        out.push(b'\n');
        let indentation = line
            .iter()
            .take(dedent)
            .take_while(|&&byte| byte == b' ' || byte == b'\t')
            .count();
        out.extend_from_slice(&line[indentation..]);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn literal(range: Range<usize>, text: &str) -> Splice {
        Splice {
            range,
            text: SpliceText::Literal(text.as_bytes().into()),
        }
    }

    #[test]
    fn literals_keep_words_apart() {
        let source = b"return f(x);";
        assert_eq!(literal(7..11, "0").render(source), b"return 0;");
        assert_eq!(literal(0..6, "A").render(b"return(x);"), b"A(x);");
        assert_eq!(literal(6..9, "A").render(b"return(x)y"), b"return A y");
    }

    #[test]
    fn moved_text_is_dedented_by_the_indentation_it_gains() {
        let source = b"def A():\n    if A:\n        pass\n    else\n";
        let splice = Splice {
            range: 0..source.len() - 1,
            text: SpliceText::Moved(13..source.len() - 1),
        };
        assert_eq!(
            String::from_utf8(splice.render(source)).unwrap(),
            "if A:\n    pass\nelse\n"
        );
    }

    #[test]
    fn multi_line_literals_take_the_indentation_of_their_line() {
        let source = b"if x:\n    a = 1\n";
        assert_eq!(
            literal(10..15, "A\nB").render(source),
            b"if x:\n    A\n    B\n"
        );
    }
}
