//! Short human names for parts of a test case: where a byte is (line:column) and a one-line
//! snippet of code with bracketed bodies elided (`if (1) {...}`), for edit descriptions and
//! displays. Display widths are counted as a terminal shows them.

use unicode_width::UnicodeWidthStr;

/// The 1-based line and column (in characters) of byte `offset` of `text`.
pub fn line_column(text: &[u8], offset: usize) -> (usize, usize) {
    let offset = offset.min(text.len());
    let before = &text[..offset];
    let line_start = before
        .iter()
        .rposition(|&byte| byte == b'\n')
        .map_or(0, |at| at + 1);
    let line = before.iter().filter(|&&byte| byte == b'\n').count() + 1;
    let column = String::from_utf8_lossy(&before[line_start..])
        .chars()
        .count()
        + 1;
    (line, column)
}

/// `text` cut to at most `width` terminal columns, ending in `…` when it was cut.
pub fn ellipsize(text: &str, width: usize) -> String {
    if text.width() <= width {
        return text.to_string();
    }
    if width == 0 {
        return String::new();
    }
    let mut cut = String::new();
    let mut used = 0;
    for ch in text.chars() {
        let w = unicode_width::UnicodeWidthChar::width(ch).unwrap_or(0);
        if used + w > width - 1 {
            break;
        }
        used += w;
        cut.push(ch);
    }
    cut.push('…');
    cut
}

/// A path cut to at most `width` terminal columns so that the file's name stays: the
/// directories go first, from the left, at a `/` (`…/atomic/Striped64.java`, then
/// `…Striped64.java`); a name too long for the room is cut at its end, as [`ellipsize`] does.
pub fn ellipsize_path(path: &str, width: usize) -> String {
    if path.width() <= width {
        return path.to_string();
    }
    let fits = |tail: &str| tail.width() < width;
    let name = path.rsplit('/').next().unwrap_or(path);
    let at_slash = path
        .char_indices()
        .find(|&(at, ch)| ch == '/' && at > 0 && fits(&path[at..]));
    match at_slash {
        Some((at, _)) => format!("…{}", &path[at..]),
        None if name.len() < path.len() && fits(name) => format!("…{name}"),
        None => ellipsize(name, width),
    }
}

/// Code on one line, at most `width` columns: whitespace collapsed, and when that is too long,
/// the insides of the innermost brackets elided first (`if (1) { printf(...); }`, then
/// `if (1) {...}`), then the rest cut with `…`.
pub fn snippet(text: &[u8], width: usize) -> String {
    let text = String::from_utf8_lossy(text);
    let flat = text.split_whitespace().collect::<Vec<_>>().join(" ");
    if flat.width() <= width {
        return flat;
    }
    let deepest = bracket_depth(&flat);
    let mut elided = flat;
    for keep in (0..deepest).rev() {
        elided = elide_deeper_than(&elided, keep);
        if elided.width() <= width {
            return elided;
        }
    }
    ellipsize(&elided, width)
}

/// How deep the brackets of `text` nest.
fn bracket_depth(text: &str) -> usize {
    let (mut depth, mut deepest) = (0usize, 0usize);
    for ch in text.chars() {
        if closing(ch).is_some() {
            depth += 1;
            deepest = deepest.max(depth);
        } else if matches!(ch, ')' | ']' | '}') {
            depth = depth.saturating_sub(1);
        }
    }
    deepest
}

/// Replaces the insides of the brackets opened `keep` levels deep (and everything deeper) by
/// `...`, where they are longer than that.
fn elide_deeper_than(text: &str, keep: usize) -> String {
    let chars: Vec<char> = text.chars().collect();
    let mut out = String::with_capacity(text.len());
    let mut depth = 0;
    let mut i = 0;
    while i < chars.len() {
        let ch = chars[i];
        out.push(ch);
        i += 1;
        if matches!(ch, ')' | ']' | '}') {
            depth = usize::saturating_sub(depth, 1);
            continue;
        }
        let Some(close) = closing(ch) else {
            continue;
        };
        depth += 1;
        if depth <= keep {
            continue;
        }
        // Find the matching bracket and elide what is inside.
        let mut nesting = 1;
        let mut j = i;
        while j < chars.len() && nesting > 0 {
            if chars[j] == ch {
                nesting += 1;
            } else if chars[j] == close {
                nesting -= 1;
            }
            j += 1;
        }
        let inner = if nesting == 0 { j - 1 - i } else { j - i };
        if inner > 3 {
            out.push_str("...");
            i += inner;
        }
    }
    out
}

fn closing(open: char) -> Option<char> {
    match open {
        '{' => Some('}'),
        '(' => Some(')'),
        '[' => Some(']'),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn positions_count_lines_and_characters() {
        let text = "ab\n  é x\n".as_bytes();
        assert_eq!(line_column(text, 0), (1, 1));
        assert_eq!(line_column(text, 3), (2, 1));
        // "é" is two bytes but one column.
        let x = text.iter().position(|&b| b == b'x').unwrap();
        assert_eq!(line_column(text, x), (2, 5));
    }

    #[test]
    fn ellipsize_counts_display_width() {
        assert_eq!(ellipsize("short", 7), "short");
        assert_eq!(ellipsize("exactly", 7), "exactly");
        assert_eq!(ellipsize("∇12/345", 6), "∇12/3…");
        assert_eq!(ellipsize("abc", 0), "");
        // Wide characters take two columns each.
        assert_eq!(ellipsize("日本語テキスト", 7), "日本語…");
        assert_eq!(ellipsize("日本語", 6), "日本語");
    }

    #[test]
    fn paths_keep_their_file_names() {
        let path = "java/util/concurrent/atomic/Striped64.java";
        assert_eq!(ellipsize_path(path, 60), path);
        assert_eq!(ellipsize_path(path, 30), "…/atomic/Striped64.java");
        assert_eq!(ellipsize_path(path, 26), "…/atomic/Striped64.java");
        assert_eq!(ellipsize_path(path, 16), "…/Striped64.java");
        assert_eq!(ellipsize_path(path, 15), "…Striped64.java");
        // Not even the name fits: it is cut at its end.
        assert_eq!(ellipsize_path(path, 8), "Striped…");
        assert_eq!(ellipsize_path("demo hello-world-hoist", 11), "demo hello…");
        assert_eq!(ellipsize_path(path, 1), "…");
        assert_eq!(ellipsize_path(path, 0), "");
        assert!((0..50).all(|width| ellipsize_path(path, width).width() <= width));
    }

    #[test]
    fn snippets_elide_bodies() {
        let code = b"if (1) {\n        printf(\"Hello world!\\n\");\n    }";
        assert_eq!(snippet(code, 40), "if (1) { printf(\"Hello world!\\n\"); }");
        assert_eq!(snippet(code, 30), "if (1) { printf(...); }");
        assert_eq!(snippet(code, 20), "if (1) {...}");
        assert_eq!(
            snippet(b"{ if (1) { printf(\"Hello world!\\n\"); } }", 18),
            "{ if (1) {...} }"
        );
        assert_eq!(snippet(b"printf(\"Hello world!\\n\");", 14), "printf(...);");
        assert_eq!(snippet(b"a_very_long_identifier_name", 10), "a_very_lo…");
    }
}
