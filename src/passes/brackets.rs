//! Balanced regions: for every matched `(...)`, `[...]` and `{...}` (matched on tokens, so
//! brackets in strings and comments do not count), delete the region with its brackets, hollow
//! it (keep the brackets, drop what is inside) or lift its contents (drop the brackets alone).
//! Regions are visited by their opening bracket, outer before inner.

use super::edit::{Edit, EditStage, deletion, position_order};
use super::lexer::{Syntax, bracket_pairs, lex};

/// The balanced-region stage.
pub struct BalancedRegions {
    pub syntax: Syntax,
}

impl EditStage for BalancedRegions {
    fn name(&self) -> &'static str {
        "brackets"
    }

    fn edits(&self, text: &[u8], from: u64) -> Vec<Edit> {
        let tokens = lex(text, self.syntax);
        let mut edits = Vec::new();
        for pair in bracket_pairs(text, &tokens) {
            let open = &tokens[pair.open];
            let close = &tokens[pair.close];
            if position_order(open.start, 3) < from {
                continue;
            }
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
        }
        edits
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::passes::edit::rendered_edits;

    #[test]
    fn delete_hollow_lift_outer_first() {
        let stage = BalancedRegions {
            syntax: Syntax::CLike,
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
}
