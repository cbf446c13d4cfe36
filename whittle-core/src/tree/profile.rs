//! Grammar profiles: the hand-written part (`grammars/<lang>.toml`: name, extensions, syntax
//! name for highlighting, list kinds, replacement overlay) and the generated table
//! (`grammars/<lang>.generated.toml`: Φ, optional child positions, separated lists, supertypes).

use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write as _;

use anyhow::Context as _;
use serde::Deserialize;

use super::text::{toml_key, toml_string};

/// The hand-written profile of a language.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Profile {
    /// The name used with `--language`.
    pub name: String,
    /// A human-readable name.
    pub title: String,
    /// File extensions (without the dot) that select this language.
    pub extensions: Vec<String>,
    /// Interpreters (the program a `#!` line runs, version digits left out) whose scripts are
    /// in this language, for files without a known extension.
    #[serde(default)]
    pub interpreters: Vec<String>,
    /// For a language of interfaces, the language of the implementations it constrains: a file
    /// of the same path but its extension in that language must define everything the
    /// interface declares (OCaml's `x.mli` and `x.ml`), so a case reduces the interface first.
    #[serde(default)]
    pub constrains: Option<String>,
    /// The syntax name used for highlighting (a Sublime/syntect syntax name).
    pub syntect: String,
    /// The grammar crate the language comes from and, for crates holding several grammars, the
    /// directory of this grammar inside the crate.
    pub grammar_crate: String,
    #[serde(default)]
    pub grammar_dir: Option<String>,
    /// List kinds in addition to the generated ones.
    #[serde(default)]
    pub lists: BTreeMap<String, ListKind>,
    /// Kinds never removed on their own (delimiters whose text must match a partner, such as
    /// the quotes that open and close a string).
    #[serde(default)]
    pub unremovable: Vec<String>,
    /// Companion kinds: a node of a key's kind names (in its `name` field) what its siblings
    /// of the listed kinds define, and is no valid text without them (a Haskell type signature
    /// and its function's equations). A removal that takes every such sibling takes the node.
    #[serde(default)]
    pub companions: BTreeMap<String, Vec<String>>,
    /// Hand-written replacements: for external-scanner tokens the grammar cannot describe, and
    /// for kinds whose computed Φ does not parse in context. Keys are symbol names or kind keys.
    #[serde(default)]
    pub overlay: BTreeMap<String, String>,
    /// Whether the syntax guard judges the text stages' edits in the schedule's rounds that try
    /// what is likely to pass (it always judges the tree stages'). Off where the compilers
    /// accept much that the grammar rejects (C and C++: implicit int, a declaration without its
    /// `;`, macros): there the edits it rejects would wait for the settling round although the
    /// test accepts many of them.
    #[serde(default = "yes")]
    pub guard_text_edits: bool,
    /// Whether the language's compilers reject a use of an undeclared name wherever it stands
    /// (C, Go, Java, Rust, TypeScript's checker, ...): then every use counts for the name check
    /// (`names.rs`). Elsewhere (JavaScript, Python, ...) an undeclared name fails only when its
    /// code runs, so only uses outside functions count.
    #[serde(default)]
    pub names_resolved_before_running: bool,
    /// Whether the grammar reads several dialects as one (SQL's), so that an input it parses
    /// with errors throughout is in a dialect it does not know: the language found by a file's
    /// extension then leaves such an input to the text pipeline (`--language` keeps the grammar;
    /// see `Language::reads_as_text`).
    #[serde(default)]
    pub text_when_unparsed: bool,
    /// Statements that are nothing but a string (Python's docstrings): the tree sweeps empty
    /// them all in one test, as they remove the comments in one.
    #[serde(default)]
    pub docstrings: Option<Docstrings>,
}

/// The shape of a statement that is only a string, written for readers.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Docstrings {
    /// The statement's kind.
    pub statement: String,
    /// The kinds of its one named child that make it a docstring.
    pub strings: Vec<String>,
    /// Kinds that, inside the string, run code (an f-string's interpolations): a string holding
    /// one is no docstring.
    #[serde(default)]
    pub except_holding: Vec<String>,
}

fn yes() -> bool {
    true
}

impl Profile {
    /// Parses a profile's TOML text.
    pub fn from_toml(text: &str) -> anyhow::Result<Profile> {
        toml::from_str(text).context("invalid grammar profile")
    }
}

/// How freely a child kind may be left out of its parent.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Presence {
    /// The position is optional or repeated (zero or more): removing the child is always valid.
    Optional,
    /// The position is repeated one or more times: removing the child is valid while a sibling
    /// of the same position remains.
    Repeated,
    /// The grammar needs the child where it is.
    Required,
}

/// A kind whose children form a separated list (`a, b, c`).
#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ListKind {
    /// The separator tokens.
    pub separators: BTreeSet<String>,
    /// The kinds of the elements (empty: every named child); other children end a run of
    /// elements (brackets, keywords, a type before a list of declarators).
    #[serde(default)]
    pub elements: BTreeSet<String>,
}

/// Children of one parent kind that may be left out.
#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct ChildPresence {
    pub optional: BTreeSet<String>,
    pub repeated: BTreeSet<String>,
    /// Per token (`;`), the kinds that, followed by it, may be left out together with it (C's
    /// `struct S {};` at the top level: the grammar's `seq(type, ';')` repeated).
    pub terminated: BTreeMap<String, BTreeSet<String>>,
    /// Per token (`:`), the kinds that, after it, may be left out together with it (the
    /// grammar's `optional(seq(':', type))`).
    pub introduced: BTreeMap<String, BTreeSet<String>>,
}

/// The generated table of one language (the machine-written part of its profile).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct GeneratedTable {
    pub language: String,
    pub source: String,
    /// Φ by kind key (named kinds by name, anonymous kinds as a quoted string); anonymous kinds
    /// whose Φ is their own text are left out.
    pub phi: BTreeMap<String, String>,
    /// Further short texts of token kinds besides Φ, in order (a number `1` besides `0`).
    pub alternatives: BTreeMap<String, Vec<String>>,
    /// Short forms of kinds that keep some of their fields: texts and field names alternating
    /// (starting and ending with a text), cheapest first.
    pub forms: BTreeMap<String, Vec<Vec<String>>>,
    /// Kinds of `node-types.json` for which no Φ could be computed.
    pub unknown: BTreeSet<String>,
    pub children: BTreeMap<String, ChildPresence>,
    /// Parent kinds whose children form separated lists.
    pub lists: BTreeMap<String, ListKind>,
    /// Declared supertypes and the concrete kinds they stand for.
    pub supertypes: BTreeMap<String, BTreeSet<String>>,
    /// Per parent kind and field (`*`: children outside fields), the named kinds allowed there
    /// (supertype names stand for their kinds): where a hoisted node may go.
    pub places: BTreeMap<String, BTreeMap<String, BTreeSet<String>>>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct GeneratedFile {
    language: String,
    grammar: String,
    #[serde(default)]
    unknown: BTreeSet<String>,
    #[serde(default)]
    phi: BTreeMap<String, String>,
    #[serde(default)]
    alternatives: BTreeMap<String, Vec<String>>,
    #[serde(default)]
    forms: BTreeMap<String, Vec<Vec<String>>>,
    #[serde(default)]
    children: BTreeMap<String, ChildPresence>,
    #[serde(default)]
    lists: BTreeMap<String, ListKind>,
    #[serde(default)]
    supertypes: BTreeMap<String, BTreeSet<String>>,
    #[serde(default)]
    places: BTreeMap<String, BTreeMap<String, BTreeSet<String>>>,
}

impl GeneratedTable {
    /// Parses a generated table's TOML text.
    pub fn from_toml(text: &str) -> anyhow::Result<GeneratedTable> {
        let file: GeneratedFile =
            toml::from_str(text).context("invalid generated grammar table")?;
        Ok(GeneratedTable {
            language: file.language,
            source: file.grammar,
            phi: file.phi,
            alternatives: file.alternatives,
            forms: file.forms,
            unknown: file.unknown,
            children: file.children,
            lists: file.lists,
            supertypes: file.supertypes,
            places: file.places,
        })
    }

    /// The TOML text of the table, in a stable layout (one entry per line, sorted keys).
    pub fn to_toml(&self) -> String {
        let mut out = String::new();
        let _ = writeln!(
            out,
            "# Generated by `whittle grammars --generate` from {}.",
            self.source
        );
        let _ = writeln!(
            out,
            "# Do not edit: put corrections in the `[overlay]` of {}.toml.",
            self.language
        );
        let _ = writeln!(out);
        let _ = writeln!(out, "language = {}", toml_string(&self.language));
        let _ = writeln!(out, "grammar = {}", toml_string(&self.source));
        let _ = writeln!(
            out,
            "# Named kinds without a computed Φ (their replacement falls back to the"
        );
        let _ = writeln!(out, "# shortest text of the same kind in the input).");
        let _ = writeln!(out, "unknown = {}", toml_set(&self.unknown));
        self.write_texts(&mut out);
        self.write_structure(&mut out);
        out
    }

    /// The sections of texts: Φ, the alternatives, the short forms.
    fn write_texts(&self, out: &mut String) {
        toml_section(
            out,
            &["Φ: the shortest text deriving each kind."],
            "phi",
            self.phi
                .iter()
                .map(|(kind, text)| format!("{} = {}", toml_key(kind), toml_string(text))),
        );
        toml_section(
            out,
            &["Further short texts of token kinds besides Φ (the grammar's word token aside)."],
            "alternatives",
            self.alternatives
                .iter()
                .map(|(kind, texts)| format!("{} = {}", toml_key(kind), list_of(texts))),
        );
        toml_section(
            out,
            &["Short forms that keep some fields of a kind: texts and field names alternating."],
            "forms",
            self.forms.iter().map(|(kind, forms)| {
                let forms: Vec<String> = forms.iter().map(|form| list_of(form)).collect();
                format!("{} = [{}]", toml_key(kind), forms.join(", "))
            }),
        );
    }

    /// The sections of structure: children that may be missing, lists, supertypes, places.
    fn write_structure(&self, out: &mut String) {
        toml_section(
            out,
            &[
                "Per parent kind, the child kinds whose position may be empty: `optional`",
                "(zero or more) always, `repeated` (one or more) while a sibling remains,",
                "`terminated` (per token) together with the token after them, `introduced`",
                "(per token) together with the token before them.",
            ],
            "children",
            self.children.iter().map(|(parent, presence)| {
                let mut parts = Vec::new();
                if !presence.optional.is_empty() {
                    parts.push(format!("optional = {}", toml_set(&presence.optional)));
                }
                if !presence.repeated.is_empty() {
                    parts.push(format!("repeated = {}", toml_set(&presence.repeated)));
                }
                for (name, pairs) in [
                    ("terminated", &presence.terminated),
                    ("introduced", &presence.introduced),
                ] {
                    if !pairs.is_empty() {
                        let pairs: Vec<String> = pairs
                            .iter()
                            .map(|(token, kinds)| {
                                format!("{} = {}", toml_key(token), toml_set(kinds))
                            })
                            .collect();
                        parts.push(format!("{name} = {{ {} }}", pairs.join(", ")));
                    }
                }
                format!("{} = {{ {} }}", toml_key(parent), parts.join(", "))
            }),
        );
        toml_section(
            out,
            &[
                "Parent kinds whose children form separated lists: the separators and the",
                "element kinds (other children end a run of elements).",
            ],
            "lists",
            self.lists.iter().map(|(parent, kind)| {
                format!(
                    "{} = {{ separators = {}, elements = {} }}",
                    toml_key(parent),
                    toml_set(&kind.separators),
                    toml_set(&kind.elements)
                )
            }),
        );
        toml_section(
            out,
            &["Declared supertypes and the concrete kinds they stand for."],
            "supertypes",
            self.supertypes
                .iter()
                .map(|(name, kinds)| format!("{} = {}", toml_key(name), toml_set(kinds))),
        );
        toml_section(
            out,
            &[
                "Per parent kind and field (`*`: children outside fields), the named kinds",
                "allowed there (supertypes stand for their kinds): where hoisted nodes may go.",
            ],
            "places",
            self.places.iter().map(|(parent, fields)| {
                let parts: Vec<String> = fields
                    .iter()
                    .map(|(field, kinds)| format!("{} = {}", toml_key(field), toml_set(kinds)))
                    .collect();
                format!("{} = {{ {} }}", toml_key(parent), parts.join(", "))
            }),
        );
    }
}

/// A set of names as a TOML array.
fn toml_set(items: &BTreeSet<String>) -> String {
    let quoted: Vec<String> = items.iter().map(|item| toml_string(item)).collect();
    format!("[{}]", quoted.join(", "))
}

/// A section of the table: an empty line, its comment, its name and its rows.
fn toml_section(
    out: &mut String,
    comment: &[&str],
    name: &str,
    rows: impl IntoIterator<Item = String>,
) {
    let _ = writeln!(out);
    for line in comment {
        let _ = writeln!(out, "# {line}");
    }
    let _ = writeln!(out, "[{name}]");
    for row in rows {
        let _ = writeln!(out, "{row}");
    }
}

/// A TOML array of strings.
fn list_of(items: &[String]) -> String {
    let quoted: Vec<String> = items.iter().map(|item| toml_string(item)).collect();
    format!("[{}]", quoted.join(", "))
}
