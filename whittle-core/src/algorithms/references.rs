//! References between the blocks of a level, read from their words without a grammar: a block
//! whose first line defines a word (`@f` in `define i32 @f(`, `!5 = !{`, `CC = gcc`, `label:`)
//! that no other block's first line defines is used by every other block naming that word. A
//! block removed takes its users with it (in `ddmin:block`, where most of the most used blocks
//! cannot go alone), so definitions go with their uses instead of one failed test at a time.

use std::collections::HashMap;

use crate::exec::cache::UnitId;
use crate::text::atoms::Span;

/// For each unit of `spans`, the units that use it (ascending); `None` when no unit uses
/// another. Units in `fixed` (sorted) neither define nor use anything: they stay in every
/// candidate.
pub fn users(text: &[u8], spans: &[Span], fixed: &[UnitId]) -> Option<Vec<Vec<UnitId>>> {
    let free = |unit: &UnitId| fixed.binary_search(unit).is_err();
    let units: Vec<UnitId> = (0..spans.len() as UnitId).filter(free).collect();
    // Each word defined on a first line, and by which unit (`None`: by more than one).
    let mut definer: HashMap<&[u8], Option<UnitId>> = HashMap::new();
    for &unit in &units {
        let block = &text[spans[unit as usize].range()];
        let head = block
            .split(|&byte| byte == b'\n')
            .next()
            .unwrap_or_default();
        for word in definitions(head) {
            let slot = definer.entry(&head[word]).or_insert(Some(unit));
            if *slot != Some(unit) {
                *slot = None;
            }
        }
    }
    definer.retain(|_, unit| unit.is_some());
    if definer.is_empty() {
        return None;
    }
    let mut users = vec![Vec::new(); spans.len()];
    let mut any = false;
    for &unit in &units {
        let block = &text[spans[unit as usize].range()];
        for word in words(block) {
            if let Some(&Some(defining)) = definer.get(&block[word])
                && defining != unit
                && users[defining as usize].last() != Some(&unit)
            {
                users[defining as usize].push(unit);
                any = true;
            }
        }
    }
    any.then_some(users)
}

/// Whether `byte` continues a word (LLVM's names hold dots: `@llvm.memcpy.p0i8`).
fn is_word_byte(byte: u8) -> bool {
    byte.is_ascii_alphanumeric() || matches!(byte, b'_' | b'.')
}

/// The words of `text` as ranges: a run of letters, digits, `_` and `.` (dots at its end aside),
/// with the sigil before it when there is one (`@`, `%`, `!`, `#`: LLVM tells `@x` from `%x`);
/// a `$` is not part of a word (`$x` and `$(X)` name `x` and `X`, as defined in `x=1`, `X = 1`).
fn words(text: &[u8]) -> impl Iterator<Item = std::ops::Range<usize>> + '_ {
    let mut at = 0;
    std::iter::from_fn(move || {
        while at < text.len() {
            let start = at;
            let sigil = matches!(text[at], b'@' | b'%' | b'!' | b'#');
            let body = at + usize::from(sigil);
            let follows_word = start > 0 && is_word_byte(text[start - 1]);
            let length = text[body.min(text.len())..]
                .iter()
                .take_while(|&&byte| is_word_byte(byte))
                .count();
            if length == 0 || follows_word {
                at += 1;
                continue;
            }
            at = body + length;
            let mut end = at;
            while end > body && text[end - 1] == b'.' {
                end -= 1;
            }
            if end > body {
                return Some(start..end);
            }
        }
        None
    })
}

/// The words a block's first line defines: those outside double-quoted strings followed by
/// `=` (not `==`), `:` (not `::`) or right by `(` (`@f(`, not `void (`), numbers alone aside.
fn definitions(head: &[u8]) -> impl Iterator<Item = std::ops::Range<usize>> + '_ {
    let mut quotes = 0;
    let mut counted = 0;
    words(head).filter(move |word| {
        quotes += head[counted..word.start]
            .iter()
            .filter(|&&byte| byte == b'"')
            .count();
        counted = word.start;
        quotes % 2 == 0 && defines(head, word)
    })
}

/// Whether the word at `word` in the line `head` is where the line defines it.
fn defines(head: &[u8], word: &std::ops::Range<usize>) -> bool {
    if head[word.clone()].iter().all(u8::is_ascii_digit) {
        return false;
    }
    if head.get(word.end) == Some(&b'(') {
        return true;
    }
    let rest = head[word.end..].trim_ascii_start();
    match rest {
        [b'=', b'=', ..] | [b':', b':', ..] => false,
        [b'=' | b':', ..] => true,
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::text::atoms::{AtomKind, split};

    fn names(text: &[u8]) -> Vec<String> {
        words(text)
            .map(|word| String::from_utf8_lossy(&text[word]).into_owned())
            .collect()
    }

    /// The users of each line of `text` (each line a unit), none fixed.
    fn line_users(text: &str) -> Option<Vec<Vec<UnitId>>> {
        let spans = split(text.as_bytes(), AtomKind::Line);
        users(text.as_bytes(), &spans, &[])
    }

    #[test]
    fn words_keep_their_sigils_and_dots_but_not_a_dollar_or_a_last_dot() {
        assert_eq!(
            names(b"call void @llvm.memcpy.p0i8(%struct.T* %0) !tbaa !5, #3"),
            [
                "call",
                "void",
                "@llvm.memcpy.p0i8",
                "%struct.T",
                "%0",
                "!tbaa",
                "!5",
                "#3"
            ]
        );
        assert_eq!(names(b"$(CC) -o $x end."), ["CC", "o", "x", "end"]);
        assert_eq!(names(b"a@b"), ["a", "b"]);
    }

    #[test]
    fn a_definition_is_followed_by_an_assignment_a_colon_or_a_parenthesis() {
        let defined = |head: &[u8]| -> Vec<String> {
            definitions(head)
                .map(|word| String::from_utf8_lossy(&head[word]).into_owned())
                .collect()
        };
        assert_eq!(
            defined(b"x == y a::b 12: define void (i8*) @f(i32 %0) #0 { !5 = z:"),
            ["@f", "!5", "z"]
        );
        // Not inside strings.
        assert_eq!(defined(b"target layout = \"e-m:e\""), ["layout"]);
        assert_eq!(defined(b"@s = c\"a: b\" x:"), ["@s", "x"]);
        assert!(defined(b"print \"a: b\" x").is_empty());
    }

    #[test]
    fn a_block_naming_a_word_another_block_defines_uses_it() {
        let text = "!0 = !{!1}\n!1 = !{}\ndefine void @f() {\ncall @g, !0\ndefine void @g() {\n";
        // Line 0 uses !1 (line 1); line 3 uses @g (line 4) and !0 (line 0).
        assert_eq!(
            line_users(text),
            Some(vec![vec![3], vec![0], vec![], vec![], vec![3]])
        );
    }

    #[test]
    fn words_defined_by_two_blocks_define_nothing() {
        // Both `x = ` lines define x: neither is known as its definition.
        assert_eq!(line_users("x = 1\nx = 2\nprint x\n"), None);
        // A block naming only what it defines itself uses nothing.
        assert_eq!(line_users("f(n) = f(n)\ng = 1\n"), None);
    }

    #[test]
    fn fixed_units_neither_define_nor_use() {
        let text = b"CC = gcc\nall: $(CC)\nrun: all\n";
        let spans = split(text, AtomKind::Line);
        assert_eq!(
            users(text, &spans, &[]),
            Some(vec![vec![1], vec![2], vec![]])
        );
        assert_eq!(
            users(text, &spans, &[0]),
            Some(vec![vec![], vec![2], vec![]])
        );
    }
}
