//! Text broken into lines of a given width in display columns, between words.

use unicode_width::UnicodeWidthStr;

/// `text` in lines of at most `width` display columns, broken at spaces; a word wider than
/// the line stays whole on a line of its own.
pub fn wrap_words(text: &str, width: usize) -> Vec<String> {
    wrap_pieces(text.split(' ').filter(|word| !word.is_empty()), " ", width)
}

/// `pieces` joined by `joint` in lines of at most `width` display columns, a line broken
/// between two pieces (the joint is left out there); a piece wider than the line stays whole.
pub fn wrap_pieces<'a>(
    pieces: impl IntoIterator<Item = &'a str>,
    joint: &str,
    width: usize,
) -> Vec<String> {
    let mut lines = Vec::new();
    let mut line = String::new();
    for piece in pieces {
        if !line.is_empty() && line.width() + joint.width() + piece.width() > width {
            lines.push(std::mem::take(&mut line));
        }
        if !line.is_empty() {
            line.push_str(joint);
        }
        line.push_str(piece);
    }
    lines.push(line);
    lines
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_break_between_words_within_the_width() {
        assert_eq!(
            wrap_words("the quick brown fox jumps", 10),
            ["the quick", "brown fox", "jumps"]
        );
        assert_eq!(
            wrap_words("a verylongword b", 4),
            ["a", "verylongword", "b"]
        );
        assert_eq!(wrap_words("", 8), [""]);
        assert_eq!(wrap_words("ΔΔΔ ∇∇∇", 7), ["ΔΔΔ ∇∇∇"]);
        assert_eq!(wrap_pieces(["a+", "bb+", "c"], "", 4), ["a+", "bb+c"]);
    }
}
