//! Token-window deletion: delete 1 to 3 adjacent tokens (C-Vise's rm-toks-N, shrinkray's short
//! deletions over lexemes). At every token, windows are tried from the widest; a round costs
//! at most three tests per token, and after a deletion the scan resumes at the same place.
//! When every bracket of the text has its partner, a window that would leave one alone is not
//! tried (the `brackets` stage removes pairs); a text with a lone bracket gets every window.

use super::edit::{Edit, EditStage, deletion, position_order};
use super::lexer::{Syntax, TokenKind, bracket_pairs, lex};

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
        let partner = bracket_partners(text, &tokens);
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
                if let Some(partner) = &partner {
                    let inside = i..i + width;
                    let lone = inside
                        .clone()
                        .any(|t| partner[t].is_some_and(|p| !inside.contains(&p)));
                    if lone {
                        continue;
                    }
                }
                let order = position_order(token.start, (widest - width) as u64);
                let (range, new) = deletion(text, token.start..last.end);
                edits.push(Edit::replace(vec![(range, new)], order).with_resume(resume));
            }
        }
        edits
    }
}

/// For each token, the index of its partner bracket, when every bracket of the text has one;
/// `None` when some bracket has none.
fn bracket_partners(text: &[u8], tokens: &[super::lexer::Token]) -> Option<Vec<Option<usize>>> {
    let pairs = bracket_pairs(text, tokens);
    let brackets = tokens
        .iter()
        .filter(|t| t.kind == TokenKind::Punct && b"()[]{}".contains(&text[t.start]))
        .count();
    if brackets != 2 * pairs.len() {
        return None;
    }
    let mut partner = vec![None; tokens.len()];
    for pair in pairs {
        partner[pair.open] = Some(pair.close);
        partner[pair.close] = Some(pair.open);
    }
    Some(partner)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::algorithms::passes::edit::rendered_edits;

    #[test]
    fn windows_from_the_widest() {
        let stage = TokenWindows::new(Syntax::CLike);
        let text = b"a = b;";
        let rendered: Vec<String> = rendered_edits(&stage, text);
        assert_eq!(
            rendered,
            [";", "b;", "= b;", "a", "a;", "a b;", "a =", "a =;", "a = b"]
        );
    }

    #[test]
    fn lone_brackets_only_where_some_already_are() {
        let edits = |text: &str| -> Vec<String> {
            rendered_edits(&TokenWindows::new(Syntax::CLike), text.as_bytes())
        };
        assert_eq!(edits("f(x)"), ["(x)", "f", "f()"]);
        // With a lone `(` already, every window is tried.
        assert_eq!(edits("f(x"), ["", "x", "(x", "f", "f x", "f("]);
    }
}
