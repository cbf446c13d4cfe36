//! Blocks: a text read as a tree of lines without a grammar, for ddmin level by level (as HDD
//! does on a parse tree). A line that opens brackets closed on a later line heads a block of
//! the lines up to the closing one (`define ... {` to `}`; a line that closes one block and
//! opens the next, `} else {`, joins them); a line heads the lines indented deeper right after
//! it (a label and its instructions, a YAML key and its values) and the line after them at its
//! own indentation that ends the block with a word (`end`, `fi`). Level 0 is the blocks at the
//! top, level k those inside the ones of level k - 1; a unit is a block with everything in it
//! and the blank lines after it, and what the level does not remove (the lines that head and
//! close the blocks around it) stays in every candidate.

use crate::exec::cache::UnitId;
use crate::text::atoms::{self, AtomKind, Span, span};

use super::passes::lexer::{Syntax, bracket_pairs, lex};

/// Levels past this are left to the passes after `ddmin:block` (each level costs a pass over
/// the text and at least one test; blocks nested this deep are rare outside generated text).
pub const MAX_DEPTH: usize = 64;

/// One level of a text's blocks: spans covering the whole text, in order, and those among them
/// that stay in every candidate (the rest are the level's blocks).
#[derive(Debug, PartialEq, Eq)]
pub struct Level {
    pub spans: Vec<Span>,
    pub fixed: Vec<UnitId>,
}

/// A block: its first and last line (blank lines after it aside) and its depth (0 at the top).
#[derive(Clone, Copy, Debug)]
struct Block {
    first: usize,
    last: usize,
    depth: usize,
}

/// What a block still open while the lines are read waits for to end.
#[derive(Clone, Copy, Debug)]
enum Until {
    /// The closing line of its brackets.
    Line(usize),
    /// A line indented no deeper than its own (this many columns).
    Dedent(usize),
}

/// The blocks of depth `depth` in `text`, or `None` when there are none, or when no block holds
/// more than its line (a flat text: its lines are its blocks, which `ddmin:line` reduces as
/// well).
pub fn level(text: &[u8], depth: usize) -> Option<Level> {
    let lines = atoms::split(text, AtomKind::Line);
    let blocks = blocks(text, &lines);
    if blocks.iter().all(|block| block.last == block.first) {
        return None;
    }
    // Each span with whether it stays.
    let mut parts: Vec<(Span, bool)> = Vec::new();
    let mut at = 0usize;
    for block in blocks.iter().filter(|block| block.depth == depth) {
        let start = lines[block.first].start as usize;
        let mut end_line = block.last + 1;
        while end_line < lines.len() && is_blank(&text[lines[end_line].range()]) {
            end_line += 1;
        }
        let end = lines
            .get(end_line)
            .map_or(text.len(), |line| line.start as usize);
        if start > at {
            parts.push((span(at, start), true));
        }
        parts.push((span(start, end), false));
        at = end;
    }
    if parts.is_empty() {
        return None;
    }
    if at < text.len() {
        parts.push((span(at, text.len()), true));
    }
    let fixed = (0..parts.len() as UnitId)
        .filter(|&unit| parts[unit as usize].1)
        .collect();
    let spans = parts.into_iter().map(|(span, _)| span).collect();
    Some(Level { spans, fixed })
}

fn is_blank(line: &[u8]) -> bool {
    line.iter().all(u8::is_ascii_whitespace)
}

/// Whether a line starts with a word that ends a block in the languages that close blocks with
/// words (`end`, `END IF`, `endmodule`, `fi`, `done`, `esac`).
fn is_end_line(line: &[u8]) -> bool {
    let text = line.trim_ascii_start();
    let word_length = text
        .iter()
        .take_while(|byte| byte.is_ascii_alphanumeric() || **byte == b'_')
        .count();
    let word = text[..word_length].to_ascii_lowercase();
    match &word[..] {
        b"end" | b"fi" | b"done" | b"esac" => true,
        // `endmodule`, `endif`, `end_function`: nothing but punctuation or a comment after.
        _ => {
            word.starts_with(b"end")
                && text[word_length..]
                    .trim_ascii()
                    .first()
                    .is_none_or(|byte| matches!(byte, b';' | b':' | b'/' | b'#' | b'!' | b'-'))
        }
    }
}

/// The columns of a line's indentation (a tab to the next multiple of 8).
fn indentation(line: &[u8]) -> usize {
    let mut columns = 0;
    for &byte in line {
        match byte {
            b' ' => columns += 1,
            b'\t' => columns = (columns / 8 + 1) * 8,
            _ => break,
        }
    }
    columns
}

/// For each line, the last line a bracket opened on it closes on (the line itself if none).
/// Brackets inside double-quoted strings (most formats' strings) do not count.
fn bracket_reach(text: &[u8], lines: &[Span]) -> Vec<usize> {
    let tokens = lex(text, Syntax::Json);
    let line_of = |byte: usize| lines.partition_point(|line| line.start as usize <= byte) - 1;
    let mut reach: Vec<usize> = (0..lines.len()).collect();
    for pair in bracket_pairs(text, &tokens) {
        let open = line_of(tokens[pair.open].start);
        let close = line_of(tokens[pair.close].start);
        reach[open] = reach[open].max(close);
    }
    reach
}

/// Closes the open blocks whose brackets end before line `index` (at `previous`, the line
/// before it that is not blank) and the blocks inside the one they end on, which stays open
/// for its closing line.
fn close_brackets(
    index: usize,
    previous: usize,
    open: &mut Vec<(usize, Until)>,
    bracketed: &mut Vec<usize>,
    blocks: &mut [Block],
) {
    let mut closing = None;
    for &at in bracketed.iter().rev() {
        match open[at].1 {
            Until::Line(end) if end <= index => closing = Some(at),
            _ => break,
        }
    }
    if let Some(closing) = closing {
        let keep = match open[closing].1 {
            Until::Line(end) if end < index => closing,
            _ => closing + 1,
        };
        for (block, _) in open.drain(keep..) {
            blocks[block].last = previous;
        }
    }
    while bracketed.last().is_some_and(|&at| at >= open.len()) {
        bracketed.pop();
    }
}

/// The blocks of a text in document order (a block before the blocks inside it). Linear in
/// the lines however deep the nesting: each block is opened and closed once.
fn blocks(text: &[u8], lines: &[Span]) -> Vec<Block> {
    let reach = bracket_reach(text, lines);
    let mut blocks: Vec<Block> = Vec::new();
    // The open blocks, outermost first: an index into `blocks` and what ends it; where in it
    // the blocks that end with a bracket are (their ends never grow inwards).
    let mut open: Vec<(usize, Until)> = Vec::new();
    let mut bracketed: Vec<usize> = Vec::new();
    // The last line that is not blank before this one: where a block closed here ends.
    let mut previous = 0;
    for (index, line) in lines.iter().enumerate() {
        let line_text = &text[line.range()];
        if is_blank(line_text) {
            continue;
        }
        let columns = indentation(line_text);
        close_brackets(index, previous, &mut open, &mut bracketed, &mut blocks);
        let mut ended = false;
        while let Some(&(block, Until::Dedent(own))) = open.last() {
            if columns > own {
                break;
            }
            open.pop();
            // The line that ends an indented block (`end`, `fi`, `endmodule`) goes with it.
            ended = columns == own && previous > blocks[block].first && is_end_line(line_text);
            blocks[block].last = if ended { index } else { previous };
            if ended {
                break;
            }
        }
        previous = index;
        if ended {
            continue;
        }
        if let Some(&mut (block, Until::Line(ref mut end))) = open.last_mut()
            && *end == index
        {
            // The line that closes the block's brackets; it may open the next part (`} else {`).
            if reach[index] > index {
                *end = reach[index];
            } else {
                open.pop();
                bracketed.pop();
                blocks[block].last = index;
            }
            continue;
        }
        let until = if reach[index] > index {
            bracketed.push(open.len());
            Until::Line(reach[index])
        } else {
            Until::Dedent(columns)
        };
        open.push((blocks.len(), until));
        blocks.push(Block {
            first: index,
            last: index,
            depth: open.len() - 1,
        });
    }
    for (block, _) in open {
        blocks[block].last = previous;
    }
    blocks
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The units of a level as text, `|`-joined, fixed spans in brackets.
    fn show(text: &str, depth: usize) -> Option<String> {
        let level = level(text.as_bytes(), depth)?;
        let parts: Vec<String> = level
            .spans
            .iter()
            .enumerate()
            .map(|(unit, span)| {
                let piece = &text[span.range()];
                if level.fixed.contains(&(unit as UnitId)) {
                    format!("[{piece}]")
                } else {
                    piece.to_owned()
                }
            })
            .collect();
        Some(parts.join("|"))
    }

    const IR: &str = "@g = global i32 0\n\ndefine i32 @f(i32 %0) {\n  %2 = add i32 %0, 1\n  br label %3\n\n3:\n  ret i32 %2\n}\n\ndeclare void @h()\n";

    #[test]
    fn functions_are_blocks_at_the_top_and_labels_head_their_instructions() {
        assert_eq!(
            show(IR, 0).as_deref(),
            Some(
                "@g = global i32 0\n\n|define i32 @f(i32 %0) {\n  %2 = add i32 %0, 1\n  br label %3\n\n3:\n  ret i32 %2\n}\n\n|declare void @h()\n"
            )
        );
        assert_eq!(
            show(IR, 1).as_deref(),
            Some(
                "[@g = global i32 0\n\ndefine i32 @f(i32 %0) {\n]|  %2 = add i32 %0, 1\n|  br label %3\n\n|3:\n  ret i32 %2\n|[}\n\ndeclare void @h()\n]"
            )
        );
        assert_eq!(
            show(IR, 2).as_deref(),
            Some(
                "[@g = global i32 0\n\ndefine i32 @f(i32 %0) {\n  %2 = add i32 %0, 1\n  br label %3\n\n3:\n]|  ret i32 %2\n|[}\n\ndeclare void @h()\n]"
            )
        );
        assert_eq!(show(IR, 3), None);
    }

    #[test]
    fn a_line_that_closes_and_opens_joins_the_parts() {
        let text = "if (a) {\n  x;\n} else {\n  y;\n}\nz;\n";
        assert_eq!(
            show(text, 0).as_deref(),
            Some("if (a) {\n  x;\n} else {\n  y;\n}\n|z;\n")
        );
        assert_eq!(
            show(text, 1).as_deref(),
            Some("[if (a) {\n]|  x;\n|[} else {\n]|  y;\n|[}\nz;\n]")
        );
    }

    #[test]
    fn brackets_in_strings_do_not_count() {
        let text = "f {\n  print(\"}\")\n}\ng\n";
        assert_eq!(
            show(text, 0).as_deref(),
            Some("f {\n  print(\"}\")\n}\n|g\n")
        );
    }

    #[test]
    fn indentation_nests_without_brackets() {
        let text = "a:\n  b: 1\n  c:\n    d: 2\ne: 3\n";
        assert_eq!(
            show(text, 0).as_deref(),
            Some("a:\n  b: 1\n  c:\n    d: 2\n|e: 3\n")
        );
        assert_eq!(
            show(text, 1).as_deref(),
            Some("[a:\n]|  b: 1\n|  c:\n    d: 2\n|[e: 3\n]")
        );
        assert_eq!(
            show(text, 2).as_deref(),
            Some("[a:\n  b: 1\n  c:\n]|    d: 2\n|[e: 3\n]")
        );
    }

    #[test]
    fn a_closing_bracket_ends_the_indented_blocks_inside() {
        // The label's block ends at the function's `}` although `}` is not indented less.
        let text = "f {\nL:\n  x\n}\ng\n";
        assert_eq!(show(text, 0).as_deref(), Some("f {\nL:\n  x\n}\n|g\n"));
        assert_eq!(show(text, 1).as_deref(), Some("[f {\n]|L:\n  x\n|[}\ng\n]"));
    }

    #[test]
    fn a_word_that_ends_an_indented_block_goes_with_it() {
        let verilog = "module m(input a);\n  always @(a) begin\n    x <= 1;\n  end\nendmodule\nmodule n;\nendmodule\n";
        assert_eq!(
            show(verilog, 0).as_deref(),
            Some(
                "module m(input a);\n  always @(a) begin\n    x <= 1;\n  end\nendmodule\n|module n;\n|endmodule\n"
            )
        );
        assert_eq!(
            show(verilog, 1).as_deref(),
            Some(
                "[module m(input a);\n]|  always @(a) begin\n    x <= 1;\n  end\n|[endmodule\nmodule n;\nendmodule\n]"
            )
        );
        // A word that only starts with `end` is a line of its own.
        let python = "if x:\n    y\nendpoint = 3\n";
        assert_eq!(
            show(python, 0).as_deref(),
            Some("if x:\n    y\n|endpoint = 3\n")
        );
        let shell = "if true; then\n  echo\nfi\n";
        assert_eq!(
            show(shell, 0).as_deref(),
            Some("if true; then\n  echo\nfi\n")
        );
    }

    #[test]
    fn a_flat_text_has_no_blocks_and_the_levels_cover_the_text() {
        assert_eq!(show("a\nb\n\nc", 0), None);
        assert_eq!(
            show("a\nb\n\nc {\n}\n", 0).as_deref(),
            Some("a\n|b\n\n|c {\n}\n")
        );
        assert_eq!(show("", 0), None);
        assert_eq!(show("\n\n", 0), None);
    }
}
