//! Palettes of the terminal UI: the TOML files under `themes/` (embedded in the binary), parsed
//! into ratatui styles for panes, node states and syntax highlighting. `NO_COLOR` turns every
//! colour off and leaves only bold, dim, reversed and crossed-out text.

use std::str::FromStr;

use ratatui::style::{Color, Modifier, Style};
use serde::Deserialize;

/// The embedded palettes, by name.
const EMBEDDED: &[(&str, &str)] = &[
    ("dark", include_str!("../../themes/dark.toml")),
    ("light", include_str!("../../themes/light.toml")),
    (
        "high-contrast",
        include_str!("../../themes/high-contrast.toml"),
    ),
];

/// The palette used when none is chosen.
pub const DEFAULT_THEME: &str = "dark";

/// The names of the embedded palettes.
pub fn theme_names() -> Vec<&'static str> {
    EMBEDDED.iter().map(|(name, _)| *name).collect()
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct ThemeFile {
    name: String,
    ui: UiColours,
    state: StateColours,
    syntax: SyntaxColours,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct UiColours {
    background: String,
    text: String,
    muted: String,
    border: String,
    focus: String,
    title: String,
    accent: String,
    selection: String,
    header: String,
    warning: String,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct StateColours {
    interesting: String,
    not_interesting: String,
    unresolved: String,
    cache: String,
    candidate: String,
    pinned: String,
    unremovable: String,
    chunk_a: String,
    chunk_b: String,
    chunk_test: String,
    chart: String,
    mark: String,
}

/// Colours of syntax categories; syntect scopes map onto them.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct SyntaxColours {
    keyword: String,
    #[serde(rename = "type")]
    type_name: String,
    function: String,
    string: String,
    number: String,
    constant: String,
    comment: String,
    operator: String,
    punctuation: String,
    variable: String,
}

impl SyntaxColours {
    /// The colour of each syntax category.
    fn colours(&self) -> anyhow::Result<Vec<(SyntaxCategory, Color)>> {
        [
            (SyntaxCategory::Keyword, &self.keyword),
            (SyntaxCategory::Type, &self.type_name),
            (SyntaxCategory::Function, &self.function),
            (SyntaxCategory::String, &self.string),
            (SyntaxCategory::Number, &self.number),
            (SyntaxCategory::Constant, &self.constant),
            (SyntaxCategory::Comment, &self.comment),
            (SyntaxCategory::Operator, &self.operator),
            (SyntaxCategory::Punctuation, &self.punctuation),
            (SyntaxCategory::Variable, &self.variable),
        ]
        .into_iter()
        .map(|(category, value)| Ok((category, colour(value, "a syntax colour")?)))
        .collect()
    }
}

/// The syntax categories a palette colours, with the syntect scope selectors of each.
pub const SYNTAX_SCOPES: &[(SyntaxCategory, &str)] = &[
    (
        SyntaxCategory::Comment,
        "comment, punctuation.definition.comment",
    ),
    (SyntaxCategory::String, "string, constant.character"),
    (SyntaxCategory::Number, "constant.numeric"),
    (
        SyntaxCategory::Constant,
        "constant.language, constant.other, support.constant, variable.language",
    ),
    (
        SyntaxCategory::Keyword,
        "keyword, storage.modifier, keyword.control, meta.preprocessor, keyword.other",
    ),
    (
        SyntaxCategory::Type,
        "storage.type, entity.name.type, support.type, entity.name.class, entity.name.struct",
    ),
    (
        SyntaxCategory::Function,
        "entity.name.function, support.function, meta.function-call variable.function",
    ),
    (SyntaxCategory::Operator, "keyword.operator"),
    (SyntaxCategory::Punctuation, "punctuation"),
    (SyntaxCategory::Variable, "variable, entity.name.tag"),
];

/// A category of source text with its own colour.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SyntaxCategory {
    Keyword,
    Type,
    Function,
    String,
    Number,
    Constant,
    Comment,
    Operator,
    Punctuation,
    Variable,
}

/// A parsed palette: every style the panes use.
#[derive(Clone, Debug)]
pub struct Theme {
    pub name: String,
    /// Colours are off (`NO_COLOR`): styles carry modifiers only.
    pub monochrome: bool,
    pub base: Style,
    pub muted: Style,
    pub border: Style,
    pub border_focused: Style,
    pub title: Style,
    pub accent: Style,
    pub selection: Style,
    pub header: Style,
    pub warning: Style,
    pub interesting: Style,
    pub not_interesting: Style,
    pub unresolved: Style,
    pub cache: Style,
    /// Text the candidate under test removes.
    pub candidate: Style,
    pub pinned: Style,
    pub unremovable: Style,
    pub chunk_a: Style,
    pub chunk_b: Style,
    pub chunk_test: Style,
    pub chart: Style,
    pub mark: Style,
    syntax: Vec<(SyntaxCategory, Color)>,
}

fn colour(value: &str, what: &str) -> anyhow::Result<Color> {
    Color::from_str(value.trim()).map_err(|_| {
        anyhow::anyhow!("the colour `{value}` of {what} is not a colour name or #rrggbb")
    })
}

/// The backgrounds of the chunks a ddmin partition shows, alternating, and of the one under
/// test (reversed and dimmed or bold when monochrome).
fn chunk_styles(file: &ThemeFile, monochrome: bool) -> anyhow::Result<[Style; 3]> {
    if monochrome {
        return Ok([
            Style::new(),
            Style::new().add_modifier(Modifier::DIM | Modifier::REVERSED),
            Style::new().add_modifier(Modifier::REVERSED | Modifier::BOLD),
        ]);
    }
    let text = colour(&file.ui.text, "ui.text")?;
    let state = &file.state;
    Ok([
        Style::new()
            .bg(colour(&state.chunk_a, "state.chunk_a")?)
            .fg(text),
        Style::new()
            .bg(colour(&state.chunk_b, "state.chunk_b")?)
            .fg(text),
        Style::new()
            .bg(colour(&state.chunk_test, "state.chunk_test")?)
            .fg(Color::Black)
            .add_modifier(Modifier::BOLD),
    ])
}

impl Theme {
    /// Text the candidate under test puts in (a text stage's new text, after what it
    /// replaces): the accent, underlined.
    pub fn inserted(&self) -> Style {
        self.accent.add_modifier(Modifier::UNDERLINED)
    }

    /// The embedded palette called `name`; `monochrome` drops every colour.
    pub fn named(name: &str, monochrome: bool) -> anyhow::Result<Theme> {
        let Some((_, text)) = EMBEDDED.iter().find(|(n, _)| *n == name) else {
            anyhow::bail!(
                "there is no theme called `{name}` (the themes are: {})",
                theme_names().join(", ")
            );
        };
        Theme::from_toml(text, monochrome)
    }

    /// The palette the environment asks for: `name`, and no colour when `NO_COLOR` is set to
    /// anything but the empty string.
    pub fn from_environment(name: &str) -> anyhow::Result<Theme> {
        let no_color = std::env::var_os("NO_COLOR").is_some_and(|value| !value.is_empty());
        Theme::named(name, no_color)
    }

    /// Parses a palette file.
    pub fn from_toml(text: &str, monochrome: bool) -> anyhow::Result<Theme> {
        let file: ThemeFile =
            toml::from_str(text).map_err(|e| anyhow::anyhow!("a theme file is invalid: {e}"))?;
        let ui = &file.ui;
        let st = &file.state;
        let fg = |value: &str, what: &str| -> anyhow::Result<Style> {
            Ok(if monochrome {
                Style::new()
            } else {
                Style::new().fg(colour(value, what)?)
            })
        };
        let bg = |value: &str, what: &str| -> anyhow::Result<Style> {
            Ok(if monochrome {
                Style::new()
            } else {
                Style::new().bg(colour(value, what)?)
            })
        };
        let background = colour(&ui.background, "ui.background")?;
        let base = if monochrome {
            Style::new()
        } else {
            Style::new().fg(colour(&ui.text, "ui.text")?).bg(background)
        };
        let syntax = file.syntax.colours()?;
        let modifier = |style: Style, m: Modifier| style.add_modifier(m);
        let [chunk_a, chunk_b, chunk_test] = chunk_styles(&file, monochrome)?;
        Ok(Theme {
            name: file.name,
            monochrome,
            base,
            muted: modifier(
                fg(&ui.muted, "ui.muted")?,
                if monochrome {
                    Modifier::DIM
                } else {
                    Modifier::empty()
                },
            ),
            border: fg(&ui.border, "ui.border")?,
            border_focused: modifier(fg(&ui.focus, "ui.focus")?, Modifier::BOLD),
            title: modifier(fg(&ui.title, "ui.title")?, Modifier::BOLD),
            accent: modifier(fg(&ui.accent, "ui.accent")?, Modifier::BOLD),
            selection: if monochrome {
                Style::new().add_modifier(Modifier::REVERSED)
            } else {
                bg(&ui.selection, "ui.selection")?
            },
            header: if monochrome {
                Style::new().add_modifier(Modifier::REVERSED)
            } else {
                bg(&ui.header, "ui.header")?.fg(colour(&ui.title, "ui.title")?)
            },
            warning: modifier(fg(&ui.warning, "ui.warning")?, Modifier::BOLD),
            interesting: modifier(fg(&st.interesting, "state.interesting")?, Modifier::BOLD),
            not_interesting: fg(&st.not_interesting, "state.not_interesting")?,
            unresolved: fg(&st.unresolved, "state.unresolved")?,
            cache: fg(&st.cache, "state.cache")?,
            candidate: modifier(
                fg(&st.candidate, "state.candidate")?,
                Modifier::CROSSED_OUT | Modifier::DIM,
            ),
            pinned: modifier(fg(&st.pinned, "state.pinned")?, Modifier::UNDERLINED),
            unremovable: modifier(fg(&st.unremovable, "state.unremovable")?, Modifier::DIM),
            chunk_a,
            chunk_b,
            chunk_test,
            chart: fg(&st.chart, "state.chart")?,
            mark: fg(&st.mark, "state.mark")?,
            syntax,
        })
    }

    /// The colour of a syntax category (none when monochrome).
    pub fn syntax_colour(&self, category: SyntaxCategory) -> Option<Color> {
        if self.monochrome {
            return None;
        }
        self.syntax
            .iter()
            .find(|(c, _)| *c == category)
            .map(|(_, colour)| *colour)
    }

    /// The style of an outcome symbol.
    pub fn outcome(&self, outcome: whittle_core::outcome::Outcome) -> Style {
        match outcome {
            whittle_core::outcome::Outcome::Interesting => self.interesting,
            whittle_core::outcome::Outcome::NotInteresting => self.not_interesting,
            whittle_core::outcome::Outcome::Unresolved => self.unresolved,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_embedded_theme_parses() {
        for name in theme_names() {
            let theme = Theme::named(name, false).unwrap();
            assert_eq!(theme.name, name);
            assert!(theme.syntax_colour(SyntaxCategory::Keyword).is_some());
        }
    }

    #[test]
    fn monochrome_has_no_colour() {
        let theme = Theme::named("dark", true).unwrap();
        assert_eq!(theme.base, Style::new());
        assert_eq!(theme.syntax_colour(SyntaxCategory::String), None);
        assert!(theme.candidate.add_modifier.contains(Modifier::CROSSED_OUT));
    }

    #[test]
    fn unknown_theme_names_the_known_ones() {
        let error = Theme::named("neon", false).unwrap_err().to_string();
        assert!(error.contains("dark"), "{error}");
    }
}
