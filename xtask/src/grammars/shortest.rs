//! The shortest string a tree-sitter regular expression (`PATTERN` rule) matches.
//!
//! Ties between strings of equal length go to the lexicographically smallest one, except that a
//! character class prefers a letter, then a digit, `_`, other printable ASCII, and only then
//! whitespace, control or non-ASCII characters, so that generated replacements stay readable.

use regex_syntax::hir::{Class, Hir, HirKind};

/// The shortest string matched by `pattern` (tree-sitter/JavaScript regex syntax with optional
/// `flags` such as `i`), or `None` when the pattern matches nothing or cannot be parsed.
///
/// A case-insensitive pattern keeps the case it is written in (`/echo/i` gives `echo`, not
/// `ECHO`): what the pattern matches as written it also matches ignoring case, and no shorter.
pub fn shortest_match(pattern: &str, flags: Option<&str>) -> Option<String> {
    if let Some(as_written) = case_as_written(flags)
        && let Some(text) = shortest_match(pattern, as_written.as_deref())
    {
        return Some(text);
    }
    let hir = parse_pattern(pattern, flags)?;
    let bytes = shortest_of(&hir)?;
    String::from_utf8(bytes).ok()
}

/// The `k` first strings matched by `pattern` in the order of [`shortest_match`] (shorter first,
/// then by the preference of their characters), among those that repeat each repetition at most
/// once more than its minimum; fewer when there are fewer, none when the pattern cannot be
/// parsed. A case-insensitive pattern gives those of its case as written, as far as there are.
pub fn shortest_matches(pattern: &str, flags: Option<&str>, k: usize) -> Vec<String> {
    if let Some(as_written) = case_as_written(flags) {
        let matches = shortest_matches(pattern, as_written.as_deref(), k);
        if !matches.is_empty() {
            return matches;
        }
    }
    let Some(hir) = parse_pattern(pattern, flags) else {
        return Vec::new();
    };
    first_matches(&hir, k)
        .into_iter()
        .filter_map(|bytes| String::from_utf8(bytes).ok())
        .collect()
}

/// For flags that ignore case, the same flags without `i` (`Some(None)` when none are left);
/// `None` for flags that keep case.
fn case_as_written(flags: Option<&str>) -> Option<Option<String>> {
    let flags = flags.filter(|flags| flags.contains('i'))?;
    let rest = flags.replace('i', "");
    Some((!rest.is_empty()).then_some(rest))
}

/// Parses a tree-sitter pattern with `regex-syntax`, adapting the few JavaScript-only escapes.
fn parse_pattern(pattern: &str, flags: Option<&str>) -> Option<Hir> {
    let mut builder = regex_syntax::ParserBuilder::new();
    builder.case_insensitive(flags.is_some_and(|flags| flags.contains('i')));
    if let Ok(hir) = builder.build().parse(pattern) {
        return Some(hir);
    }
    let adapted = adapt_javascript_syntax(pattern);
    builder.build().parse(&adapted).ok()
}

/// Rewrites JavaScript regex spellings that `regex-syntax` rejects: `\/`, `[^]`, `\uXXXX`
/// surrogate-free escapes and superfluous escapes of ordinary characters.
fn adapt_javascript_syntax(pattern: &str) -> String {
    let mut out = String::with_capacity(pattern.len() + 8);
    let mut chars = pattern.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '\\' => match chars.next() {
                Some(next) if next.is_ascii_alphanumeric() => {
                    out.push('\\');
                    out.push(next);
                }
                Some(next) => {
                    if regex_syntax::is_meta_character(next) {
                        out.push('\\');
                    }
                    out.push(next);
                }
                None => out.push_str("\\\\"),
            },
            '[' if pattern_rest_starts_with(&mut chars, "^]") => {
                chars.next();
                chars.next();
                out.push_str("(?s:.)");
            }
            _ => out.push(c),
        }
    }
    out
}

fn pattern_rest_starts_with(
    chars: &mut std::iter::Peekable<std::str::Chars<'_>>,
    prefix: &str,
) -> bool {
    let rest: String = chars.clone().take(prefix.len()).collect();
    rest == prefix
}

/// Shortest match as bytes; `None` when the expression matches nothing.
fn shortest_of(hir: &Hir) -> Option<Vec<u8>> {
    match hir.kind() {
        HirKind::Empty | HirKind::Look(_) => Some(Vec::new()),
        HirKind::Literal(literal) => Some(literal.0.to_vec()),
        HirKind::Class(class) => preferred_class_member(class),
        HirKind::Repetition(repetition) => {
            let one = shortest_of(&repetition.sub);
            if repetition.min == 0 {
                return Some(Vec::new());
            }
            let one = one?;
            Some(one.repeat(repetition.min as usize))
        }
        HirKind::Capture(capture) => shortest_of(&capture.sub),
        HirKind::Concat(parts) => {
            let mut out = Vec::new();
            for part in parts {
                out.extend(shortest_of(part)?);
            }
            Some(out)
        }
        HirKind::Alternation(alternatives) => {
            alternatives.iter().filter_map(shortest_of).min_by(|a, b| {
                a.len()
                    .cmp(&b.len())
                    .then_with(|| preference_key(a).cmp(&preference_key(b)))
            })
        }
    }
}

/// Sorts matches shortest first, then by the preference of their characters, without
/// duplicates, keeping the first `k`.
fn keep_first(mut matches: Vec<Vec<u8>>, k: usize) -> Vec<Vec<u8>> {
    matches.sort_by(|a, b| {
        a.len()
            .cmp(&b.len())
            .then_with(|| preference_key(a).cmp(&preference_key(b)))
    });
    matches.dedup();
    matches.truncate(k);
    matches
}

/// The first `k` matches of each part joined in order, keeping the first `k` of the products.
fn concatenate(left: &[Vec<u8>], right: &[Vec<u8>], k: usize) -> Vec<Vec<u8>> {
    let mut out = Vec::with_capacity(left.len() * right.len());
    for a in left {
        for b in right {
            let mut joined = a.clone();
            joined.extend_from_slice(b);
            out.push(joined);
        }
    }
    keep_first(out, k)
}

/// The first `k` matches of an expression (see [`shortest_matches`]).
fn first_matches(hir: &Hir, k: usize) -> Vec<Vec<u8>> {
    match hir.kind() {
        HirKind::Empty | HirKind::Look(_) => vec![Vec::new()],
        HirKind::Literal(literal) => vec![literal.0.to_vec()],
        HirKind::Class(class) => class_members(class, k),
        HirKind::Capture(capture) => first_matches(&capture.sub, k),
        HirKind::Concat(parts) => parts.iter().fold(vec![Vec::new()], |acc, part| {
            concatenate(&acc, &first_matches(part, k), k)
        }),
        HirKind::Alternation(alternatives) => keep_first(
            alternatives
                .iter()
                .flat_map(|alternative| first_matches(alternative, k))
                .collect(),
            k,
        ),
        HirKind::Repetition(repetition) => {
            let one = first_matches(&repetition.sub, k);
            let times =
                |count: u32| (0..count).fold(vec![Vec::new()], |acc, _| concatenate(&acc, &one, k));
            let mut out = times(repetition.min);
            if repetition.max.is_none_or(|max| max > repetition.min) {
                out.extend(times(repetition.min + 1));
            }
            keep_first(out, k)
        }
    }
}

/// The first `k` members of a class in the preference order.
fn class_members(class: &Class, k: usize) -> Vec<Vec<u8>> {
    let (ranges, unicode): (Vec<(u32, u32)>, bool) = match class {
        Class::Unicode(unicode) => (
            unicode
                .iter()
                .map(|range| (range.start() as u32, range.end() as u32))
                .collect(),
            true,
        ),
        Class::Bytes(bytes) => (
            bytes
                .iter()
                .map(|range| (u32::from(range.start()), u32::from(range.end())))
                .collect(),
            false,
        ),
    };
    let mut out = Vec::new();
    for group in PREFERENCE {
        for &(low, high) in *group {
            for &(start, end) in &ranges {
                let (from, to) = (start.max(low), end.min(high));
                let mut c = from;
                while c <= to && out.len() < k * 4 {
                    if unicode {
                        if let Some(ch) = char::from_u32(c) {
                            out.push(ch.to_string().into_bytes());
                        }
                    } else if let Ok(byte) = u8::try_from(c) {
                        out.push(vec![byte]);
                    }
                    c += 1;
                }
            }
        }
        if out.len() >= k {
            break;
        }
    }
    keep_first(out, k)
}

/// Preference groups for the member of a character class, best first: letters, digits, `_`,
/// other printable ASCII, space, newline, other ASCII, then everything else.
const PREFERENCE: &[&[(u32, u32)]] = &[
    &[(0x41, 0x5a), (0x61, 0x7a)],
    &[(0x30, 0x39)],
    &[(0x5f, 0x5f)],
    &[(0x21, 0x7e)],
    &[(0x20, 0x20)],
    &[(0x0a, 0x0a)],
    &[(0x00, 0x7f)],
    &[(0x80, 0x10ffff)],
];

/// The preference group of a character (lower is better).
fn preference_group(c: u32) -> usize {
    PREFERENCE
        .iter()
        .position(|group| group.iter().any(|&(low, high)| low <= c && c <= high))
        .unwrap_or(PREFERENCE.len())
}

/// The readable order of characters: letters, digits, `_`, other printable ASCII, space,
/// newline, other ASCII, everything else; code point order within each group.
pub fn char_order(c: char) -> (usize, u32) {
    (preference_group(c as u32), c as u32)
}

/// Orders equally long alternatives by the preference of their characters.
fn preference_key(bytes: &[u8]) -> Vec<(usize, u32)> {
    String::from_utf8_lossy(bytes)
        .chars()
        .map(char_order)
        .collect()
}

/// The preferred member of a class given as inclusive code point ranges.
fn preferred_member(ranges: &[(u32, u32)]) -> Option<u32> {
    for group in PREFERENCE {
        let mut best: Option<u32> = None;
        for &(start, end) in ranges {
            for &(low, high) in *group {
                let candidate = start.max(low);
                if candidate <= end.min(high) && best.is_none_or(|b| candidate < b) {
                    best = Some(candidate);
                }
            }
        }
        if best.is_some() {
            return best;
        }
    }
    None
}

fn preferred_class_member(class: &Class) -> Option<Vec<u8>> {
    match class {
        Class::Unicode(unicode) => {
            let ranges: Vec<(u32, u32)> = unicode
                .iter()
                .map(|range| (range.start() as u32, range.end() as u32))
                .collect();
            let c = char::from_u32(preferred_member(&ranges)?)?;
            Some(c.to_string().into_bytes())
        }
        Class::Bytes(bytes) => {
            let ranges: Vec<(u32, u32)> = bytes
                .iter()
                .map(|range| (u32::from(range.start()), u32::from(range.end())))
                .collect();
            Some(vec![u8::try_from(preferred_member(&ranges)?).ok()?])
        }
    }
}

#[cfg(test)]
mod tests {
    use super::shortest_match;

    #[test]
    fn shortest_matches_of_typical_token_patterns() {
        assert_eq!(shortest_match(r"[a-zA-Z_]\w*", None).as_deref(), Some("A"));
        assert_eq!(shortest_match(r"\d+", None).as_deref(), Some("0"));
        assert_eq!(shortest_match(r"(abc|de)f?", None).as_deref(), Some("de"));
        assert_eq!(shortest_match(r"//.*", None).as_deref(), Some("//"));
        assert_eq!(shortest_match(r#"[^\\"\n]+"#, None).as_deref(), Some("A"));
        assert_eq!(shortest_match(r"\/[a-z]", None).as_deref(), Some("/a"));
        assert_eq!(shortest_match(r"x{3}", None).as_deref(), Some("xxx"));
        assert_eq!(shortest_match(r"\s", None).as_deref(), Some(" "));
        assert_eq!(shortest_match(r"[", None), None);
        // Ignoring case, as written.
        assert_eq!(shortest_match(r"echo", Some("i")).as_deref(), Some("echo"));
        assert_eq!(shortest_match(r"[a-z]+", Some("iu")).as_deref(), Some("a"));
    }

    #[test]
    fn first_matches_in_order() {
        use super::shortest_matches;
        assert_eq!(shortest_matches(r"\d+", None, 2), ["0", "1"]);
        assert_eq!(shortest_matches(r"[a-zA-Z_]\w*", None, 3), ["A", "B", "C"]);
        assert_eq!(
            shortest_matches(r"(abc|de)f?", None, 3),
            ["de", "abc", "def"]
        );
        assert_eq!(shortest_matches(r"x{3}", None, 2), ["xxx"]);
        assert_eq!(shortest_matches(r"-?[1-9]", None, 3), ["1", "2", "3"]);
        assert_eq!(shortest_matches(r"a*", None, 3), ["", "a"]);
        assert!(shortest_matches(r"[", None, 2).is_empty());
        assert_eq!(
            shortest_matches(r"true|false", Some("i"), 2),
            ["true", "false"]
        );
    }
}
