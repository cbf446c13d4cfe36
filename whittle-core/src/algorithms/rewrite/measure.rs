//! The size the rewrite stages shrink: non-whitespace characters (UTF-8 lead bytes that are not
//! ASCII whitespace), counted over any range of a text in constant time from prefix sums.

use std::ops::Range;

/// Whether a byte starts a character that is not ASCII whitespace.
fn counts(byte: u8) -> bool {
    !(byte.is_ascii_whitespace() || byte == 0x0b || (0x80..0xc0).contains(&byte))
}

/// Non-whitespace characters of `text`.
pub fn chars(text: &[u8]) -> usize {
    text.iter().filter(|&&byte| counts(byte)).count()
}

/// Non-whitespace characters before each offset of a text.
pub struct CharCounts {
    before: Vec<u32>,
}

impl CharCounts {
    pub fn new(text: &[u8]) -> CharCounts {
        let mut before = Vec::with_capacity(text.len() + 1);
        let mut count = 0u32;
        before.push(0);
        for &byte in text {
            count += u32::from(counts(byte));
            before.push(count);
        }
        CharCounts { before }
    }

    /// Non-whitespace characters of the bytes `range`.
    pub fn of(&self, range: Range<usize>) -> usize {
        (self.before[range.end] - self.before[range.start]) as usize
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ranges_count_like_whole_texts() {
        let text = "a b\n\tcé ∂ x".as_bytes();
        let counts = CharCounts::new(text);
        assert_eq!(chars(text), 6);
        assert_eq!(counts.of(0..text.len()), 6);
        assert_eq!(counts.of(2..5), 1);
    }
}
