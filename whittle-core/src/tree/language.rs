//! The languages whittle parses: their profiles (embedded in the binary), the tree-sitter grammar
//! when its cargo feature is compiled in, and the per-kind tables the tree builder reads.

use std::collections::{HashMap, HashSet};
use std::path::Path;
use std::sync::OnceLock;

use anyhow::{Context as _, bail};

use super::profile::{GeneratedTable, Presence, Profile};
use super::text::{is_word_byte, parse_kind_key};

/// A dense node-kind index: tree-sitter's kind id (canonical: one id per name and namedness),
/// or one of the kinds the tree layer adds.
pub type KindId = u16;

/// Static description of a supported language (what the binary knows without parsing anything).
struct Entry {
    feature: &'static str,
    profile: &'static str,
    generated: Option<&'static str>,
    grammar: Option<fn() -> tree_sitter::Language>,
}

macro_rules! entry {
    ($file:literal, $feature:literal, $grammar:expr) => {
        Entry {
            feature: $feature,
            profile: include_str!(concat!("../../../grammars/", $file, ".toml")),
            generated: {
                #[cfg(feature = $feature)]
                {
                    Some(include_str!(concat!(
                        "../../../grammars/",
                        $file,
                        ".generated.toml"
                    )))
                }
                #[cfg(not(feature = $feature))]
                {
                    None
                }
            },
            grammar: {
                #[cfg(feature = $feature)]
                {
                    Some($grammar)
                }
                #[cfg(not(feature = $feature))]
                {
                    None
                }
            },
        }
    };
}

fn entries() -> Vec<Entry> {
    vec![
        entry!("c", "lang-c", || tree_sitter_c::LANGUAGE.into()),
        entry!("cpp", "lang-cpp", || tree_sitter_cpp::LANGUAGE.into()),
        entry!("javascript", "lang-javascript", || {
            tree_sitter_javascript::LANGUAGE.into()
        }),
        entry!("typescript", "lang-typescript", || {
            tree_sitter_typescript::LANGUAGE_TYPESCRIPT.into()
        }),
        entry!("tsx", "lang-typescript", || {
            tree_sitter_typescript::LANGUAGE_TSX.into()
        }),
        entry!("json", "lang-json", || tree_sitter_json::LANGUAGE.into()),
        entry!("python", "lang-python", || tree_sitter_python::LANGUAGE
            .into()),
        entry!("rust", "lang-rust", || tree_sitter_rust::LANGUAGE.into()),
        entry!("java", "lang-java", || tree_sitter_java::LANGUAGE.into()),
        entry!("html", "lang-html", || tree_sitter_html::LANGUAGE.into()),
        entry!("css", "lang-css", || tree_sitter_css::LANGUAGE.into()),
        entry!("go", "lang-go", || tree_sitter_go::LANGUAGE.into()),
        entry!("bash", "lang-bash", || tree_sitter_bash::LANGUAGE.into()),
        entry!("ruby", "lang-ruby", || tree_sitter_ruby::LANGUAGE.into()),
        entry!("php", "lang-php", || tree_sitter_php::LANGUAGE_PHP.into()),
        entry!("csharp", "lang-csharp", || tree_sitter_c_sharp::LANGUAGE
            .into()),
        entry!("kotlin", "lang-kotlin", || tree_sitter_kotlin_ng::LANGUAGE
            .into()),
        entry!("scala", "lang-scala", || tree_sitter_scala::LANGUAGE.into()),
        entry!("lua", "lang-lua", || tree_sitter_lua::LANGUAGE.into()),
        entry!("swift", "lang-swift", || tree_sitter_swift::LANGUAGE.into()),
        entry!("ocaml", "lang-ocaml", || tree_sitter_ocaml::LANGUAGE_OCAML
            .into()),
        entry!("ocaml_interface", "lang-ocaml", || {
            tree_sitter_ocaml::LANGUAGE_OCAML_INTERFACE.into()
        }),
        entry!("haskell", "lang-haskell", || tree_sitter_haskell::LANGUAGE
            .into()),
        entry!("elixir", "lang-elixir", || tree_sitter_elixir::LANGUAGE
            .into()),
        entry!("sql", "lang-sql", || tree_sitter_sequel::LANGUAGE.into()),
    ]
}

/// An input of a grammar of several dialects with fewer syntax errors than one in this many
/// bytes is read with the grammar (see [`Language::reads_as_text`]).
pub const BYTES_PER_STRAY_ERROR: usize = 2048;

/// What [`Language::detect`] found of a file.
#[derive(Clone, Copy, Debug)]
pub enum Detected {
    /// Its language, read with the grammar.
    Grammar(&'static Language),
    /// Its language by name, in a dialect the grammar misreads: reduced as text.
    AsText(&'static Language),
    /// No language: reduced as text.
    Unknown,
}

impl Detected {
    /// The language to read the file in, if any.
    pub fn grammar(self) -> Option<&'static Language> {
        match self {
            Detected::Grammar(language) => Some(language),
            Detected::AsText(_) | Detected::Unknown => None,
        }
    }
}

/// A language whittle knows about. Only languages whose feature is compiled in can parse.
pub struct Language {
    profile: Profile,
    feature: &'static str,
    generated_source: Option<&'static str>,
    grammar: Option<fn() -> tree_sitter::Language>,
    tables: OnceLock<Result<KindTables, String>>,
}

impl std::fmt::Debug for Language {
    fn fmt(&self, formatter: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        formatter
            .debug_struct("Language")
            .field("name", &self.profile.name)
            .finish_non_exhaustive()
    }
}

/// The program a `#!` line at the start of `text` runs, without its directory and trailing
/// version (`#!/usr/bin/env -S python3.12 -u` gives `python`), lower case.
fn shebang_interpreter(text: &[u8]) -> Option<String> {
    let line = text.strip_prefix(b"#!")?;
    let line = &line[..line.iter().position(|&b| b == b'\n').unwrap_or(line.len())];
    let line = std::str::from_utf8(line).ok()?;
    let mut words = line.split_whitespace();
    let mut program = words.next()?;
    if program.rsplit('/').next() == Some("env") {
        program = words.find(|word| !word.starts_with('-') && !word.contains('='))?;
    }
    let name = program.rsplit('/').next()?;
    let name = name.trim_end_matches(|c: char| c.is_ascii_digit() || c == '.');
    (!name.is_empty()).then(|| name.to_ascii_lowercase())
}

/// All known languages, in a fixed order.
pub fn languages() -> &'static [Language] {
    static LANGUAGES: OnceLock<Vec<Language>> = OnceLock::new();
    LANGUAGES.get_or_init(|| {
        entries()
            .into_iter()
            .filter_map(|entry| {
                // The profiles are part of the binary and checked by the tests; a broken one
                // would only hide its language.
                let profile = Profile::from_toml(entry.profile).ok()?;
                Some(Language {
                    profile,
                    feature: entry.feature,
                    generated_source: entry.generated,
                    grammar: entry.grammar,
                    tables: OnceLock::new(),
                })
            })
            .collect()
    })
}

impl Language {
    /// Finds a language by its name (case-insensitive).
    pub fn by_name(name: &str) -> anyhow::Result<&'static Language> {
        let wanted = name.trim().to_ascii_lowercase();
        let found = languages()
            .iter()
            .find(|language| language.profile.name == wanted);
        match found {
            Some(language) => Ok(language),
            None => {
                let known: Vec<&str> = languages().iter().map(Language::name).collect();
                bail!("unknown language `{name}` (known: {})", known.join(", "))
            }
        }
    }

    /// Finds the language of a file by its extension.
    pub fn for_path(path: &Path) -> anyhow::Result<&'static Language> {
        let extension = path
            .extension()
            .and_then(|extension| extension.to_str())
            .map(str::to_ascii_lowercase)
            .with_context(|| {
                format!(
                    "cannot tell the language of {} (no file extension); use --language",
                    path.display()
                )
            })?;
        languages()
            .iter()
            .find(|language| language.profile.extensions.contains(&extension))
            .with_context(|| {
                format!(
                    "no language for the extension `.{extension}` of {}; use --language",
                    path.display()
                )
            })
    }

    /// Finds the language of a file by its extension, else (no known extension) by the
    /// interpreter its `#!` line runs (`#!/usr/bin/env python3` is Python). `text` is the file.
    pub fn for_file(path: &Path, text: &[u8]) -> anyhow::Result<&'static Language> {
        Language::for_path(path).or_else(|by_extension| {
            let interpreter = shebang_interpreter(text).ok_or(by_extension)?;
            languages()
                .iter()
                .find(|language| language.profile.interpreters.contains(&interpreter))
                .with_context(|| {
                    format!(
                        "no language for the interpreter `{interpreter}` of {}; use --language",
                        path.display()
                    )
                })
        })
    }

    pub fn name(&self) -> &str {
        &self.profile.name
    }

    pub fn title(&self) -> &str {
        &self.profile.title
    }

    /// Whether the syntax guard judges text stages' edits in the likely rounds of a schedule
    /// (see [`Profile::guard_text_edits`]).
    pub fn guards_text_edits(&self) -> bool {
        self.profile.guard_text_edits
    }

    /// How a file nobody named the language of is read: its language found by its name or the
    /// `#!` line in `head`, unless that language's grammar reads several dialects as one and
    /// misreads the file's `content` throughout ([`Language::reads_as_text`]; `content` is
    /// asked for only then).
    pub fn detect<'a>(
        path: &Path,
        head: &[u8],
        content: impl FnOnce() -> std::borrow::Cow<'a, [u8]>,
    ) -> Detected {
        match Language::for_file(path, head) {
            Err(_) => Detected::Unknown,
            Ok(language)
                if language.profile.text_when_unparsed && language.reads_as_text(&content()) =>
            {
                Detected::AsText(language)
            }
            Ok(language) => Detected::Grammar(language),
        }
    }

    /// Whether `text`, found to be in this language by its file's name, is better reduced as
    /// text: the grammar reads several dialects as one and misreads `text` throughout, with a
    /// syntax error in every [`BYTES_PER_STRAY_ERROR`] bytes or more (see
    /// [`Profile::text_when_unparsed`]); a stray error or two leave it to the grammar.
    pub fn reads_as_text(&'static self, text: &[u8]) -> bool {
        self.profile.text_when_unparsed
            && super::ParserPool::new(self).is_ok_and(|parsers| {
                parsers
                    .syntax_errors(text)
                    .saturating_mul(BYTES_PER_STRAY_ERROR)
                    >= text.len()
            })
    }

    /// Whether every use of a name needs a declaration, run or not (see
    /// [`Profile::names_resolved_before_running`]).
    pub fn resolves_names_before_running(&self) -> bool {
        self.profile.names_resolved_before_running
    }

    pub fn extensions(&self) -> &[String] {
        &self.profile.extensions
    }

    /// The syntax name for highlighting (Sublime/syntect naming).
    pub fn syntect_syntax(&self) -> &str {
        &self.profile.syntect
    }

    /// The cargo feature that compiles this language in.
    pub fn feature(&self) -> &'static str {
        self.feature
    }

    pub fn profile(&self) -> &Profile {
        &self.profile
    }

    /// Whether this binary can parse the language.
    pub fn is_available(&self) -> bool {
        self.grammar.is_some()
    }

    /// The tree-sitter grammar, or an error naming the feature to enable.
    pub fn grammar(&self) -> anyhow::Result<tree_sitter::Language> {
        match self.grammar {
            Some(grammar) => Ok(grammar()),
            None => bail!(
                "language `{}` is not compiled into this binary (cargo feature `{}`)",
                self.name(),
                self.feature
            ),
        }
    }

    /// The embedded generated table (Φ, optional children, lists, supertypes).
    pub fn generated_table(&self) -> anyhow::Result<GeneratedTable> {
        let Some(source) = self.generated_source else {
            bail!(
                "language `{}` is not compiled into this binary (cargo feature `{}`)",
                self.name(),
                self.feature
            );
        };
        GeneratedTable::from_toml(source)
            .with_context(|| format!("grammar table of `{}`", self.name()))
    }

    /// The per-kind tables used to build trees.
    pub fn tables(&self) -> anyhow::Result<&KindTables> {
        let tables = self
            .tables
            .get_or_init(|| KindTables::load(self).map_err(|error| format!("{error:#}")));
        match tables {
            Ok(tables) => Ok(tables),
            Err(error) => bail!("{error}"),
        }
    }
}

/// A short form of a kind: texts and fields alternating, `texts[i]` before `fields[i]` (so
/// `texts` has one more element). A C declaration `type declarator;` keeps the `type` and
/// `declarator` of a function definition.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ShortForm {
    pub texts: Vec<Box<[u8]>>,
    /// tree-sitter field ids.
    pub fields: Vec<u16>,
}

impl ShortForm {
    /// From the table's spelling (texts and field names alternating); `None` when a field is
    /// not one of the grammar's.
    fn from_alternating(grammar: &tree_sitter::Language, parts: &[String]) -> Option<ShortForm> {
        let mut form = ShortForm {
            texts: Vec::new(),
            fields: Vec::new(),
        };
        for (index, part) in parts.iter().enumerate() {
            if index % 2 == 0 {
                form.texts.push(part.as_bytes().into());
            } else {
                form.fields.push(grammar.field_id_for_name(part)?.get());
            }
        }
        (form.texts.len() == form.fields.len() + 1).then_some(form)
    }
}

/// How the children of a list kind are told apart.
#[derive(Debug, Clone, Default)]
pub struct ListTable {
    /// Separator token texts.
    pub separators: Vec<Box<[u8]>>,
    /// Element kinds; empty means every named child.
    pub elements: HashSet<KindId>,
}

/// Kinds the tree layer adds to a grammar's own.
pub mod synthetic {
    use super::KindId;
    /// tree-sitter's ERROR nodes.
    pub const ERROR: KindId = u16::MAX;
    /// The rest of a flattened recursive node (`a + b + c` becomes `a`, `+ b`, `+ c`).
    pub const REST: KindId = u16::MAX - 1;
    /// Input text covered by no visible token (hidden tokens of the grammar).
    pub const HIDDEN_TEXT: KindId = u16::MAX - 2;
    /// A child and the token the grammar pairs it with (`struct S {}` and its `;`, `:` and a
    /// type), which may go together.
    pub const PAIR: KindId = u16::MAX - 3;
}

/// A token the grammar pairs with a child kind, and on which side of it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PairedToken {
    pub text: Box<[u8]>,
    /// The token follows the child (`;`), else it precedes it (`:`).
    pub after: bool,
}

/// The per-kind tables of one language, indexed by [`KindId`].
pub struct KindTables {
    grammar: tree_sitter::Language,
    names: Vec<String>,
    named: Vec<bool>,
    canonical: Vec<KindId>,
    phi: Vec<Option<Box<[u8]>>>,
    alternatives: Vec<Vec<Box<[u8]>>>,
    forms: Vec<Vec<ShortForm>>,
    presence: HashMap<(KindId, KindId), Presence>,
    lists: HashMap<KindId, ListTable>,
    supertypes_of: Vec<Vec<u16>>,
    supertype_names: Vec<String>,
    unremovable: Vec<bool>,
    /// (parent kind, child kind) → the tokens the child may go with.
    pairs: HashMap<(KindId, KindId), Vec<PairedToken>>,
    /// Companion kind → the kinds of the siblings that define what it names.
    definers: HashMap<KindId, Vec<KindId>>,
    /// (parent kind, field id or 0 for children outside fields) → the kinds allowed there.
    places: HashMap<(KindId, u16), HashSet<KindId>>,
}

impl std::fmt::Debug for KindTables {
    fn fmt(&self, formatter: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        formatter
            .debug_struct("KindTables")
            .field("kinds", &self.names.len())
            .finish_non_exhaustive()
    }
}

impl KindTables {
    fn load(language: &Language) -> anyhow::Result<KindTables> {
        let grammar = language.grammar()?;
        let table = language.generated_table()?;
        let count = grammar.node_kind_count();
        let mut names = Vec::with_capacity(count);
        let mut named = Vec::with_capacity(count);
        let mut canonical = Vec::with_capacity(count);
        for id in 0..count {
            let id = u16::try_from(id).context("too many node kinds")?;
            let name = grammar.node_kind_for_id(id).unwrap_or("").to_string();
            let is_named = grammar.node_kind_is_named(id);
            let first = grammar.id_for_node_kind(&name, is_named);
            canonical.push(if first == 0 { id } else { first });
            names.push(name);
            named.push(is_named);
        }
        let mut tables = KindTables {
            grammar,
            names,
            named,
            canonical,
            phi: vec![None; count],
            alternatives: vec![Vec::new(); count],
            forms: (0..count).map(|_| Vec::new()).collect(),
            presence: HashMap::new(),
            lists: HashMap::new(),
            supertypes_of: vec![Vec::new(); count],
            supertype_names: Vec::new(),
            unremovable: vec![false; count],
            definers: HashMap::new(),
            pairs: HashMap::new(),
            places: HashMap::new(),
        };
        for id in 0..count {
            if !tables.named[id] {
                // An anonymous kind derives its own text.
                tables.phi[id] = Some(tables.names[id].as_bytes().into());
            }
        }
        tables.load_texts(&table, language);
        tables.load_structure(&table, language)?;
        tables.load_places(&table);
        Ok(tables)
    }

    /// Φ, the alternatives, the short forms and what may not be removed, from the generated
    /// table and the profile's overlay.
    fn load_texts(&mut self, table: &GeneratedTable, language: &Language) {
        let overlay = &language.profile.overlay;
        for (key, text) in table.phi.iter().chain(overlay.iter()) {
            for id in self.ids_for_key(key) {
                self.phi[usize::from(id)] = Some(text.as_bytes().into());
            }
        }
        for (key, texts) in &table.alternatives {
            if overlay.contains_key(key) {
                continue;
            }
            for id in self.ids_for_key(key) {
                self.alternatives[usize::from(id)] =
                    texts.iter().map(|text| text.as_bytes().into()).collect();
            }
        }
        for (key, forms) in &table.forms {
            let forms: Vec<ShortForm> = forms
                .iter()
                .filter_map(|form| ShortForm::from_alternating(&self.grammar, form))
                .collect();
            for id in self.ids_for_key(key) {
                self.forms[usize::from(id)] = forms.clone();
            }
        }
        for key in &language.profile.unremovable {
            for id in self.ids_for_key(key) {
                self.unremovable[usize::from(id)] = true;
            }
        }
        for (companion, definers) in &language.profile.companions {
            let definers: Vec<KindId> = definers
                .iter()
                .flat_map(|key| self.ids_for_key(key))
                .collect();
            for id in self.ids_for_key(companion) {
                self.definers.insert(id, definers.clone());
            }
        }
    }

    /// Which children may be missing, the separated lists and the supertypes.
    fn load_structure(
        &mut self,
        table: &GeneratedTable,
        language: &Language,
    ) -> anyhow::Result<()> {
        for (parent, children) in &table.children {
            for parent_id in self.ids_for_key(parent) {
                for (keys, presence) in [
                    (&children.optional, Presence::Optional),
                    (&children.repeated, Presence::Repeated),
                ] {
                    for key in keys {
                        for child_id in self.ids_for_key(key) {
                            self.presence.insert((parent_id, child_id), presence);
                        }
                    }
                }
                for (pairs, after) in [(&children.terminated, true), (&children.introduced, false)]
                {
                    for (token, kinds) in pairs {
                        let ids: Vec<KindId> =
                            kinds.iter().flat_map(|key| self.ids_for_key(key)).collect();
                        for child_id in ids {
                            self.pairs.entry((parent_id, child_id)).or_default().push(
                                PairedToken {
                                    text: token.as_bytes().into(),
                                    after,
                                },
                            );
                        }
                    }
                }
            }
        }
        for (parent, list) in table.lists.iter().chain(language.profile.lists.iter()) {
            for parent_id in self.ids_for_key(parent) {
                let mut entry = self.lists.remove(&parent_id).unwrap_or_default();
                for separator in &list.separators {
                    let separator: Box<[u8]> = separator.as_bytes().into();
                    if !entry.separators.contains(&separator) {
                        entry.separators.push(separator);
                    }
                }
                for key in &list.elements {
                    entry.elements.extend(self.ids_for_key(key));
                }
                self.lists.insert(parent_id, entry);
            }
        }
        for (index, (name, kinds)) in table.supertypes.iter().enumerate() {
            let index = u16::try_from(index).context("too many supertypes")?;
            self.supertype_names.push(name.clone());
            for key in kinds {
                for id in self.ids_for_key(key) {
                    self.supertypes_of[usize::from(id)].push(index);
                }
            }
        }
        Ok(())
    }

    /// Where each kind may go (per parent kind and field): where hoisted nodes may go.
    fn load_places(&mut self, table: &GeneratedTable) {
        for (parent, fields) in &table.places {
            for parent_id in self.ids_for_key(parent) {
                for (field, kinds) in fields {
                    let field_id = if field == "*" {
                        0
                    } else {
                        match self.grammar.field_id_for_name(field) {
                            Some(id) => id.get(),
                            None => continue,
                        }
                    };
                    let mut allowed = HashSet::new();
                    for key in kinds {
                        match table.supertypes.get(key) {
                            Some(concrete) => {
                                for key in concrete {
                                    allowed.extend(self.ids_for_key(key));
                                }
                            }
                            None => allowed.extend(self.ids_for_key(key)),
                        }
                    }
                    self.places
                        .entry((parent_id, field_id))
                        .or_default()
                        .extend(allowed);
                }
            }
        }
    }

    /// Whether the grammar allows a node of kind `kind` in field `field` (0: outside fields) of
    /// a `parent` node; `None` when the grammar says nothing about that place.
    pub fn allows(&self, parent: KindId, field: u16, kind: KindId) -> Option<bool> {
        self.places
            .get(&(parent, field))
            .map(|allowed| allowed.contains(&kind))
    }

    /// The kinds the grammar allows in field `field` (0: outside fields) of a `parent` node;
    /// `None` when the grammar says nothing about that place.
    pub fn kinds_at(&self, parent: KindId, field: u16) -> Option<&HashSet<KindId>> {
        self.places.get(&(parent, field))
    }

    /// The shortest Φ (by length, then bytes) of the kinds allowed in field `field` of a
    /// `parent` node that are compatible with `kind` (the same kind, or one of its declared
    /// supertypes): what any node of `kind` at that place may be replaced with. `None` when the
    /// grammar says nothing about the place.
    pub fn shortest_phi_at(&self, parent: KindId, field: u16, kind: KindId) -> Option<&[u8]> {
        self.places
            .get(&(parent, field))?
            .iter()
            .filter(|&&allowed| self.compatible(kind, allowed))
            .filter_map(|&allowed| self.phi(allowed))
            .min_by(|a, b| (a.len(), *a).cmp(&(b.len(), *b)))
    }

    /// The canonical kind ids spelled by a profile key (none when the grammar lacks the kind).
    fn ids_for_key(&self, key: &str) -> Vec<KindId> {
        let (name, named) = parse_kind_key(key);
        let mut ids: Vec<KindId> = Vec::new();
        let id = self.grammar.id_for_node_kind(&name, named);
        if id != 0 {
            ids.push(self.canonical[usize::from(id)]);
        }
        ids
    }

    /// The canonical kind of a tree-sitter node.
    pub fn kind_of(&self, node: &tree_sitter::Node<'_>) -> KindId {
        if node.is_error() {
            return synthetic::ERROR;
        }
        let id = node.kind_id();
        self.canonical.get(usize::from(id)).copied().unwrap_or(id)
    }

    /// The name of a kind.
    pub fn kind_name(&self, kind: KindId) -> &str {
        match kind {
            synthetic::ERROR => "ERROR",
            synthetic::REST => "(rest)",
            synthetic::PAIR => "(pair)",
            synthetic::HIDDEN_TEXT => "(hidden text)",
            _ => self.names.get(usize::from(kind)).map_or("", String::as_str),
        }
    }

    /// Whether a kind is named (not a literal token).
    pub fn is_named(&self, kind: KindId) -> bool {
        match kind {
            synthetic::ERROR | synthetic::REST | synthetic::PAIR | synthetic::HIDDEN_TEXT => true,
            _ => self.named.get(usize::from(kind)).copied().unwrap_or(false),
        }
    }

    /// Φ of a kind from the grammar tables, if known.
    pub fn phi(&self, kind: KindId) -> Option<&[u8]> {
        match kind {
            synthetic::ERROR | synthetic::REST | synthetic::PAIR => Some(b""),
            synthetic::HIDDEN_TEXT => None,
            _ => self
                .phi
                .get(usize::from(kind))
                .and_then(|phi| phi.as_deref()),
        }
    }

    /// Further short texts of a token kind besides Φ, in order (a number `1` besides `0`).
    pub fn alternatives(&self, kind: KindId) -> &[Box<[u8]>] {
        self.alternatives
            .get(usize::from(kind))
            .map_or(&[], Vec::as_slice)
    }

    /// Short forms of a kind that keep some of its fields, cheapest first.
    pub fn forms(&self, kind: KindId) -> &[ShortForm] {
        self.forms.get(usize::from(kind)).map_or(&[], Vec::as_slice)
    }

    /// Whether the profile keeps nodes of this kind from being removed on their own.
    pub fn is_unremovable_kind(&self, kind: KindId) -> bool {
        self.unremovable
            .get(usize::from(kind))
            .copied()
            .unwrap_or(false)
    }

    /// For a companion kind, the kinds of the siblings that define what it names (empty for
    /// other kinds).
    pub fn definers_of(&self, kind: KindId) -> &[KindId] {
        self.definers.get(&kind).map_or(&[], Vec::as_slice)
    }

    /// The tokens a `child` of a `parent` may go with (the grammar's optional pairs).
    pub fn paired_tokens(&self, parent: KindId, child: KindId) -> &[PairedToken] {
        self.pairs.get(&(parent, child)).map_or(&[], Vec::as_slice)
    }

    /// How freely `child` may be left out of `parent`.
    pub fn presence(&self, parent: KindId, child: KindId) -> Presence {
        self.presence
            .get(&(parent, child))
            .copied()
            .unwrap_or(Presence::Required)
    }

    /// The list description of a kind (`None` when the kind is no list).
    pub fn list(&self, kind: KindId) -> Option<&ListTable> {
        self.lists.get(&kind)
    }

    /// Indices of the supertypes a kind belongs to.
    pub fn supertypes_of(&self, kind: KindId) -> &[u16] {
        self.supertypes_of
            .get(usize::from(kind))
            .map_or(&[], Vec::as_slice)
    }

    /// The name of a supertype index.
    pub fn supertype_name(&self, index: u16) -> &str {
        self.supertype_names
            .get(usize::from(index))
            .map_or("", String::as_str)
    }

    /// Hoisting compatibility: the same kind, or both kinds stand for one declared supertype.
    pub fn compatible(&self, a: KindId, b: KindId) -> bool {
        if a == b {
            return !matches!(
                a,
                synthetic::REST | synthetic::PAIR | synthetic::HIDDEN_TEXT
            );
        }
        let (sa, sb) = (self.supertypes_of(a), self.supertypes_of(b));
        sa.iter().any(|s| sb.contains(s))
    }

    /// The tree-sitter grammar.
    pub fn grammar(&self) -> &tree_sitter::Language {
        &self.grammar
    }
}

/// Whether joining `left` and `right` directly would merge two words into one.
pub fn needs_space(left: Option<u8>, right: Option<u8>) -> bool {
    matches!((left, right), (Some(l), Some(r)) if is_word_byte(l) && is_word_byte(r))
}
