//! Syntax highlighting of the test case with syntect, coloured by the palette: syntect scopes are
//! mapped onto the palette's syntax categories, and the result is kept per version of the best
//! so that a frame only re-highlights when the text changed (and not more often than the
//! highlighting itself can afford).

use std::ops::Range;
use std::str::FromStr;
use std::sync::OnceLock;
use std::time::Instant;

use syntect::highlighting::{
    Color as SyntectColor, HighlightIterator, HighlightState, Highlighter, ScopeSelectors,
    StyleModifier, Theme as SyntectTheme, ThemeItem, ThemeSettings,
};
use syntect::parsing::{ParseState, ScopeStack, SyntaxReference, SyntaxSet};

use super::theme::{SYNTAX_SCOPES, SyntaxCategory};
use super::throttle::Throttle;

/// Texts larger than this are shown without highlighting.
const MAX_HIGHLIGHTED_BYTES: usize = 512 * 1024;

fn syntax_set() -> &'static SyntaxSet {
    static SET: OnceLock<SyntaxSet> = OnceLock::new();
    SET.get_or_init(SyntaxSet::load_defaults_newlines)
}

/// A syntect theme whose colours encode the palette's categories (red channel = index + 1).
fn category_theme() -> &'static SyntectTheme {
    static THEME: OnceLock<SyntectTheme> = OnceLock::new();
    THEME.get_or_init(|| {
        let scopes = SYNTAX_SCOPES
            .iter()
            .enumerate()
            .filter_map(|(index, (_, selectors))| {
                Some(ThemeItem {
                    scope: ScopeSelectors::from_str(selectors).ok()?,
                    style: StyleModifier {
                        foreground: Some(SyntectColor {
                            r: index as u8 + 1,
                            g: 0,
                            b: 0,
                            a: 255,
                        }),
                        background: None,
                        font_style: None,
                    },
                })
            })
            .collect();
        SyntectTheme {
            name: Some("whittle palette".into()),
            author: None,
            settings: ThemeSettings {
                foreground: Some(SyntectColor {
                    r: 0,
                    g: 0,
                    b: 0,
                    a: 255,
                }),
                ..ThemeSettings::default()
            },
            scopes,
        }
    })
}

/// One highlighted span of a line: bytes of the line and their category.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct HighlightSpan {
    pub bytes: Range<usize>,
    pub category: Option<SyntaxCategory>,
}

/// The syntax of a language name or file extension, if syntect knows it.
pub fn find_syntax(
    syntax_name: Option<&str>,
    extension: Option<&str>,
) -> Option<&'static SyntaxReference> {
    let set = syntax_set();
    syntax_name
        .and_then(|name| set.find_syntax_by_name(name))
        .or_else(|| extension.and_then(|ext| set.find_syntax_by_extension(ext)))
}

/// Highlights `text` line by line: for each line (without its newline) the spans by category.
pub fn highlight_lines(text: &str, syntax: &'static SyntaxReference) -> Vec<Vec<HighlightSpan>> {
    let set = syntax_set();
    let highlighter = Highlighter::new(category_theme());
    let mut parse_state = ParseState::new(syntax);
    let mut highlight_state = HighlightState::new(&highlighter, ScopeStack::new());
    let mut lines = Vec::new();
    for line in text.split_inclusive('\n') {
        let mut spans = Vec::new();
        let Ok(ops) = parse_state.parse_line(line, set) else {
            lines.push(vec![HighlightSpan {
                bytes: 0..line.trim_end_matches('\n').len(),
                category: None,
            }]);
            continue;
        };
        let content_len = line.trim_end_matches('\n').len();
        let mut offset = 0;
        for (style, piece) in HighlightIterator::new(&mut highlight_state, &ops, line, &highlighter)
        {
            let start = offset;
            offset += piece.len();
            let end = offset.min(content_len);
            if start >= end {
                continue;
            }
            let index = style.foreground.r as usize;
            let category = index
                .checked_sub(1)
                .and_then(|i| SYNTAX_SCOPES.get(i))
                .map(|(category, _)| *category);
            spans.push(HighlightSpan {
                bytes: start..end,
                category,
            });
        }
        lines.push(spans);
    }
    lines
}

/// Highlighted lines of the best, recomputed when its version changes.
pub struct HighlightCache {
    syntax: Option<&'static SyntaxReference>,
    version: Option<u64>,
    lines: Vec<Vec<HighlightSpan>>,
    /// Spaces out highlighting runs by their cost.
    throttle: Throttle,
}

impl HighlightCache {
    pub fn new(syntax: Option<&'static SyntaxReference>) -> Self {
        HighlightCache {
            syntax,
            version: None,
            lines: Vec::new(),
            throttle: Throttle::default(),
        }
    }

    /// The highlighted lines of `text` (version `version`), or `None` while they are not
    /// ready (no syntax, too large, or highlighted too recently to afford another run).
    pub fn lines(&mut self, version: u64, text: &[u8]) -> Option<&[Vec<HighlightSpan>]> {
        let syntax = self.syntax?;
        if self.version != Some(version) {
            if text.len() > MAX_HIGHLIGHTED_BYTES {
                return None;
            }
            let text = std::str::from_utf8(text).ok()?;
            // Spend at most a tenth of the time on highlighting.
            if self.throttle.too_soon(Instant::now()) {
                return None;
            }
            self.lines = self.throttle.run(|| highlight_lines(text, syntax));
            self.version = Some(version);
        }
        Some(&self.lines)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn c_keywords_strings_and_numbers_get_their_categories() {
        let syntax = find_syntax(Some("C"), None).expect("syntect knows C");
        let lines = highlight_lines("int main() {\n  return \"x\" + 42;\n}\n", syntax);
        assert_eq!(lines.len(), 3);
        let category_of = |line: usize, text: &str, source: &str| {
            let start = source.find(text).unwrap();
            lines[line]
                .iter()
                .find(|span| span.bytes.start <= start && start < span.bytes.end)
                .and_then(|span| span.category)
        };
        assert_eq!(
            category_of(0, "int", "int main() {"),
            Some(SyntaxCategory::Type)
        );
        assert_eq!(
            category_of(1, "return", "  return \"x\" + 42;"),
            Some(SyntaxCategory::Keyword)
        );
        assert_eq!(
            category_of(1, "42", "  return \"x\" + 42;"),
            Some(SyntaxCategory::Number)
        );
        assert_eq!(
            category_of(1, "x", "  return \"x\" + 42;"),
            Some(SyntaxCategory::String)
        );
    }
}
