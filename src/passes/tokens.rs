//! Token-window deletion: delete 1 to 3 adjacent tokens (C-Vise's rm-toks-N, shrinkray's short
//! deletions over lexemes). At every token, windows are tried from the widest; a round costs
//! at most three tests per token, and after a deletion the scan resumes at the same place.

use super::edit::{Edit, EditStage, deletion, position_order};
use super::lexer::{Syntax, lex};

/// The token-window deletion stage.
pub struct TokenWindows {
    pub syntax: Syntax,
    /// The widest window (1 to 3).
    pub widest: usize,
}

impl TokenWindows {
    pub fn new(syntax: Syntax) -> TokenWindows {
        TokenWindows { syntax, widest: 3 }
    }
}

impl EditStage for TokenWindows {
    fn name(&self) -> &'static str {
        "tokens"
    }

    fn edits(&self, text: &[u8], from: u64) -> Vec<Edit> {
        let tokens = lex(text, self.syntax);
        let widest = self.widest.clamp(1, 3);
        let mut edits = Vec::new();
        for (i, token) in tokens.iter().enumerate() {
            let resume = position_order(token.start, 0);
            if position_order(token.start, 3) < from {
                continue;
            }
            for width in (1..=widest).rev() {
                let Some(last) = tokens.get(i + width - 1) else {
                    continue;
                };
                let order = position_order(token.start, (widest - width) as u64);
                let (range, new) = deletion(text, token.start..last.end);
                edits.push(Edit::replace(vec![(range, new)], order).with_resume(resume));
            }
        }
        edits
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn windows_from_the_widest() {
        let stage = TokenWindows::new(Syntax::CLike);
        let text = b"a = b;";
        let rendered: Vec<String> = stage
            .edits(text, 0)
            .iter()
            .map(|edit| {
                let mut out = Vec::new();
                edit.apply(text, &mut out);
                String::from_utf8(out).unwrap()
            })
            .collect();
        assert_eq!(
            rendered,
            [";", "b;", "= b;", "a", "a;", "a b;", "a =", "a =;", "a = b"]
        );
    }
}
