//! Block lifting by indentation: a line is deleted and the block indented under it (the lines
//! after it that are blank or indented deeper) moves left to the line's own indentation. This is
//! hoisting for languages whose blocks are their indentation (Python), done on the text, so it
//! also works where the parser gives up (a file with syntax errors).

use super::edit::{Edit, EditRequest, EditStage, position_order};
use crate::testing::control::Stop;

/// The block-lifting stage.
pub struct LiftBlocks;

/// A line of the text: where it starts, where its content starts and where it ends (after its
/// terminator, if any).
struct Line {
    start: usize,
    content: usize,
    end: usize,
}

impl Line {
    fn indent(&self) -> usize {
        self.content - self.start
    }
}

fn lines(text: &[u8]) -> Vec<Line> {
    let mut lines = Vec::new();
    let mut start = 0;
    while start < text.len() {
        let end = text[start..]
            .iter()
            .position(|&b| b == b'\n')
            .map_or(text.len(), |at| start + at + 1);
        let content = start
            + text[start..end]
                .iter()
                .take_while(|&&b| b == b' ' || b == b'\t')
                .count();
        lines.push(Line {
            start,
            content,
            end,
        });
        start = end;
    }
    lines
}

impl EditStage for LiftBlocks {
    fn name(&self) -> &'static str {
        "indent"
    }

    fn edits_for(&self, text: &[u8], request: &EditRequest<'_>) -> Result<Vec<Edit>, Stop> {
        let lines = lines(text);
        request.check_stop()?;
        let blank = |line: &Line| {
            text[line.content..line.end]
                .iter()
                .all(u8::is_ascii_whitespace)
        };
        let mut edits = Vec::new();
        let first = lines.partition_point(|line| position_order(line.start, 0) < request.from);
        for (i, header) in lines.iter().enumerate().skip(first) {
            request.work()?;
            if request.is_full(edits.len()) {
                break;
            }
            let order = position_order(header.start, 0);
            if blank(header) {
                continue;
            }
            let block: Vec<&Line> = lines[i + 1..]
                .iter()
                .take_while(|line| blank(line) || line.indent() > header.indent())
                .collect();
            request.work_on(block.len())?;
            let Some(depth) = block
                .iter()
                .filter(|line| !blank(line))
                .map(|line| line.indent())
                .min()
            else {
                continue;
            };
            let shift = depth - header.indent();
            let mut changes = vec![(header.start..header.end, Vec::new())];
            changes.extend(
                block
                    .iter()
                    .filter(|line| !blank(line))
                    .map(|line| (line.start..line.start + shift, Vec::new())),
            );
            edits.push(Edit::replace(changes, order));
        }
        Ok(edits)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::algorithms::passes::edit::rendered_edits;

    #[test]
    fn a_header_goes_and_its_block_moves_left() {
        let text = b"def f():\n    if x:\n\n        pass\n    else\ny = 1\n";
        let rendered: Vec<String> = rendered_edits(&LiftBlocks, text);
        assert_eq!(
            rendered,
            [
                "if x:\n\n    pass\nelse\ny = 1\n",
                "def f():\n\n    pass\n    else\ny = 1\n",
            ]
        );
    }
}
