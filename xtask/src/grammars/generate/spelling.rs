//! How derived texts compare (shorter, then in a readable order of characters) and join (a
//! space where two words would merge).

use super::shortest::char_order;
use super::text::is_word_byte;

/// The order of [`better`] as a sort key.
pub(super) fn text_key(text: &str) -> (usize, Vec<(usize, u32)>) {
    (text.len(), text.chars().map(char_order).collect())
}

/// Orders candidate texts: shorter first, then lexicographically smaller, comparing characters
/// in the readable order of [`char_order`] (letters before digits before punctuation), which
/// prefers `A.A` to `0.A` (where `0.` would lex as a number).
pub(super) fn better(candidate: &str, current: Option<&String>) -> bool {
    match current {
        None => true,
        Some(current) => text_key(candidate) < text_key(current),
    }
}

/// Concatenates two derivations, keeping them apart with one space where two word characters
/// would otherwise merge into one token.
pub(super) fn join(left: &mut String, right: &str, glued: bool) {
    if !glued
        && let (Some(&last), Some(&first)) = (left.as_bytes().last(), right.as_bytes().first())
        && is_word_byte(last)
        && is_word_byte(first)
    {
        left.push(' ');
    }
    left.push_str(right);
}
