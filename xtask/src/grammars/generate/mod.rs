//! Generation of a language's minimal-replacement table from its `grammar.json`: Φ (the shortest
//! text deriving each node kind, by a fixed point over the rules), the child positions that may
//! be empty, the separated lists and the supertypes.

use std::collections::{BTreeMap, BTreeSet, HashMap};

use super::grammar_json::{Grammar, NodeType, Rule};
use super::profile::{ChildPresence, GeneratedTable, Presence};
use super::shortest::{char_order, shortest_match, shortest_matches};
use super::text::{is_word_byte, kind_key};

/// Inputs of the generator besides the grammar: hand-written replacements for symbols the
/// grammar cannot describe (external-scanner tokens) or whose computed Φ is not usable.
pub struct GeneratorInput<'a> {
    pub language: &'a str,
    pub source: &'a str,
    pub grammar: &'a Grammar,
    pub node_types: &'a [NodeType],
    pub overlay: &'a BTreeMap<String, String>,
}

/// How many further texts of a token kind the table lists besides Φ.
const ALTERNATIVES: usize = 1;

/// How many short forms the table lists per kind (and keeps per rule while deriving them).
const FORMS: usize = 8;

/// A piece of a short form: text, or the place of a field to be filled with the node's own.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Piece {
    Text(String),
    Slot(String),
}

/// A short form of a rule and its cost: its text's length plus Φ of each slot's content.
#[derive(Debug, Clone)]
struct Form {
    pieces: Vec<Piece>,
    cost: usize,
}

impl Form {
    fn text(text: String) -> Form {
        Form {
            cost: text.len(),
            pieces: vec![Piece::Text(text)],
        }
    }

    /// This form followed by `other`, texts joined as Φ joins them.
    fn then(&self, other: &Form) -> Form {
        let mut pieces = self.pieces.clone();
        for piece in &other.pieces {
            match (pieces.last_mut(), piece) {
                (Some(Piece::Text(left)), Piece::Text(right)) => join(left, right, false),
                (_, piece) => pieces.push(piece.clone()),
            }
        }
        Form {
            pieces,
            cost: self.cost + other.cost,
        }
    }

    /// The slots in order.
    fn slots(&self) -> BTreeSet<String> {
        self.pieces
            .iter()
            .filter_map(|piece| match piece {
                Piece::Slot(name) => Some(name.clone()),
                Piece::Text(_) => None,
            })
            .collect()
    }

    /// Text and slot names alternating, starting and ending with a text (as the table stores
    /// them).
    fn alternating(&self) -> Vec<String> {
        let mut out = vec![String::new()];
        for piece in &self.pieces {
            match piece {
                Piece::Text(text) => {
                    if let Some(last) = out.last_mut() {
                        last.push_str(text);
                    }
                }
                Piece::Slot(name) => {
                    out.push(name.clone());
                    out.push(String::new());
                }
            }
        }
        out
    }
}

/// The cheapest form per set of slots, at most [`FORMS`] of them (the cheapest).
type Forms = BTreeMap<BTreeSet<String>, Form>;

fn offer_form(forms: &mut Forms, form: Form) {
    let slots = form.slots();
    match forms.get(&slots) {
        Some(known) if known.cost <= form.cost => {}
        _ => {
            forms.insert(slots, form);
        }
    }
}

fn keep_cheapest(forms: Forms) -> Forms {
    let mut all: Vec<(BTreeSet<String>, Form)> = forms.into_iter().collect();
    all.sort_by_key(|(slots, form)| (form.cost, slots.len()));
    all.truncate(FORMS);
    all.into_iter().collect()
}

/// The order of [`better`] as a sort key.
fn text_key(text: &str) -> (usize, Vec<(usize, u32)>) {
    (text.len(), text.chars().map(char_order).collect())
}

/// Orders candidate texts: shorter first, then lexicographically smaller, comparing characters
/// in the readable order of [`char_order`] (letters before digits before punctuation), which
/// prefers `A.A` to `0.A` (where `0.` would lex as a number).
fn better(candidate: &str, current: Option<&String>) -> bool {
    match current {
        None => true,
        Some(current) => text_key(candidate) < text_key(current),
    }
}

/// Concatenates two derivations, keeping them apart with one space where two word characters
/// would otherwise merge into one token.
fn join(left: &mut String, right: &str, glued: bool) {
    if !glued
        && let (Some(&last), Some(&first)) = (left.as_bytes().last(), right.as_bytes().first())
        && is_word_byte(last)
        && is_word_byte(first)
    {
        left.push(' ');
    }
    left.push_str(right);
}

struct Generator<'a> {
    input: &'a GeneratorInput<'a>,
    rules: BTreeMap<&'a str, &'a Rule>,
    hidden: BTreeSet<&'a str>,
    externals: BTreeSet<&'a str>,
    phi: HashMap<&'a str, String>,
    pattern_cache: HashMap<(&'a str, Option<&'a str>), Option<String>>,
    child_nullable: HashMap<&'a str, bool>,
}

impl<'a> Generator<'a> {
    fn new(input: &'a GeneratorInput<'a>) -> Self {
        let grammar = input.grammar;
        let rules = grammar.rule_map();
        let mut hidden: BTreeSet<&str> = rules
            .keys()
            .copied()
            .filter(|name| name.starts_with('_'))
            .collect();
        hidden.extend(grammar.supertypes.iter().map(String::as_str));
        hidden.extend(grammar.inline.iter().map(String::as_str));
        let externals = grammar
            .externals
            .iter()
            .filter_map(|rule| match rule {
                Rule::Symbol { name } => Some(name.as_str()),
                _ => None,
            })
            .collect();
        Generator {
            input,
            rules,
            hidden,
            externals,
            phi: HashMap::new(),
            pattern_cache: HashMap::new(),
            child_nullable: HashMap::new(),
        }
    }

    fn is_hidden_symbol(&self, name: &str) -> bool {
        self.hidden.contains(name) || (name.starts_with('_') && self.externals.contains(name))
    }

    /// Φ of a symbol as currently known: the overlay first, then the rule's fixed-point value.
    fn symbol_phi(&self, name: &str) -> Option<String> {
        if let Some(text) = self.input.overlay.get(name) {
            return Some(text.clone());
        }
        self.phi.get(name).cloned()
    }

    fn pattern(&mut self, value: &'a str, flags: Option<&'a str>) -> Option<String> {
        self.pattern_cache
            .entry((value, flags))
            .or_insert_with(|| shortest_match(value, flags))
            .clone()
    }

    /// The shortest text derived by `rule` given the current symbol values.
    fn eval(&mut self, rule: &'a Rule, in_token: bool) -> Option<String> {
        match rule {
            Rule::Blank | Rule::Repeat { .. } => Some(String::new()),
            Rule::String { value } => Some(value.clone()),
            Rule::Pattern { value, flags } => self.pattern(value, flags.as_deref()),
            Rule::Symbol { name } => self.symbol_phi(name),
            Rule::Alias { content, .. }
            | Rule::Field { content, .. }
            | Rule::Prec { content }
            | Rule::PrecDynamic { content }
            | Rule::PrecLeft { content }
            | Rule::PrecRight { content }
            | Rule::Reserved { content }
            | Rule::Repeat1 { content } => self.eval(content, in_token),
            Rule::Token { content } | Rule::ImmediateToken { content } => self.eval(content, true),
            Rule::Choice { members } => {
                let mut best: Option<String> = None;
                for member in members {
                    if let Some(text) = self.eval(member, in_token)
                        && better(&text, best.as_ref())
                    {
                        best = Some(text);
                    }
                }
                best
            }
            Rule::Seq { members } => {
                let mut out = String::new();
                for member in members {
                    let text = self.eval(member, in_token)?;
                    let glued = in_token
                        || matches!(member.unwrap_transparent(), Rule::ImmediateToken { .. });
                    join(&mut out, &text, glued);
                }
                Some(out)
            }
        }
    }

    /// The first `k` texts a rule of strings and patterns derives, in the order of [`better`];
    /// `None` when the rule refers to another symbol.
    fn first_texts(&self, rule: &'a Rule, k: usize) -> Option<Vec<String>> {
        let keep_first = |mut texts: Vec<String>| {
            texts.sort_by_key(|text| text_key(text));
            texts.dedup();
            texts.truncate(k);
            texts
        };
        match rule {
            Rule::Blank | Rule::Repeat { .. } => Some(vec![String::new()]),
            Rule::String { value } => Some(vec![value.clone()]),
            Rule::Pattern { value, flags } => Some(shortest_matches(value, flags.as_deref(), k)),
            Rule::Symbol { .. } => None,
            Rule::Alias { content, .. }
            | Rule::Field { content, .. }
            | Rule::Prec { content }
            | Rule::PrecDynamic { content }
            | Rule::PrecLeft { content }
            | Rule::PrecRight { content }
            | Rule::Reserved { content }
            | Rule::Repeat1 { content }
            | Rule::Token { content }
            | Rule::ImmediateToken { content } => self.first_texts(content, k),
            Rule::Choice { members } => {
                let mut texts = Vec::new();
                for member in members {
                    texts.extend(self.first_texts(member, k)?);
                }
                Some(keep_first(texts))
            }
            Rule::Seq { members } => {
                let mut texts = vec![String::new()];
                for member in members {
                    let parts = self.first_texts(member, k)?;
                    let mut joined = Vec::with_capacity(texts.len() * parts.len());
                    for left in &texts {
                        for right in &parts {
                            joined.push(format!("{left}{right}"));
                        }
                    }
                    texts = keep_first(joined);
                }
                Some(texts)
            }
        }
    }

    /// The short forms of a rule: per set of fields, the cheapest derivation with those fields
    /// as slots (Φ elsewhere). Hidden rules are expanded (once on each path); `None` when some
    /// part has no Φ.
    fn forms(&mut self, rule: &'a Rule, expanding: &mut Vec<&'a str>) -> Option<Forms> {
        let single = |form: Form| -> Forms { std::iter::once((BTreeSet::new(), form)).collect() };
        match rule {
            Rule::Blank | Rule::Repeat { .. } => Some(single(Form::text(String::new()))),
            Rule::String { .. }
            | Rule::Pattern { .. }
            | Rule::Token { .. }
            | Rule::ImmediateToken { .. }
            | Rule::Alias { .. } => self.eval(rule, false).map(|text| single(Form::text(text))),
            Rule::Symbol { name } => {
                let expand = self.is_hidden_symbol(name) && !expanding.contains(&name.as_str());
                match self.rules.get(name.as_str()).copied() {
                    Some(body) if expand => {
                        expanding.push(name);
                        let forms = self.forms(body, expanding);
                        expanding.pop();
                        forms
                    }
                    _ => self.symbol_phi(name).map(|text| single(Form::text(text))),
                }
            }
            Rule::Field { name, content } => {
                let phi = self.eval(content, false)?;
                let mut forms = Forms::new();
                offer_form(
                    &mut forms,
                    Form {
                        pieces: vec![Piece::Slot(name.clone())],
                        cost: phi.len(),
                    },
                );
                if phi.is_empty() {
                    offer_form(&mut forms, Form::text(String::new()));
                }
                Some(forms)
            }
            Rule::Prec { content }
            | Rule::PrecDynamic { content }
            | Rule::PrecLeft { content }
            | Rule::PrecRight { content }
            | Rule::Reserved { content }
            | Rule::Repeat1 { content } => self.forms(content, expanding),
            Rule::Choice { members } => {
                let mut forms = Forms::new();
                for member in members {
                    if let Some(member_forms) = self.forms(member, expanding) {
                        for form in member_forms.into_values() {
                            offer_form(&mut forms, form);
                        }
                    }
                }
                (!forms.is_empty()).then(|| keep_cheapest(forms))
            }
            Rule::Seq { members } => {
                let mut forms = single(Form::text(String::new()));
                for member in members {
                    let next = self.forms(member, expanding)?;
                    let mut joined = Forms::new();
                    for left in forms.values() {
                        for right in next.values() {
                            offer_form(&mut joined, left.then(right));
                        }
                    }
                    forms = keep_cheapest(joined);
                }
                Some(forms)
            }
        }
    }

    /// Runs the fixed point: every rule's value only improves, until nothing changes.
    fn compute_rule_phi(&mut self) {
        let rules: Vec<(&'a str, &'a Rule)> = self
            .input
            .grammar
            .rules
            .iter()
            .map(|(n, r)| (n.as_str(), r))
            .collect();
        loop {
            let mut changed = false;
            for &(name, rule) in &rules {
                if let Some(text) = self.eval(rule, false)
                    && better(&text, self.phi.get(name))
                {
                    self.phi.insert(name, text);
                    changed = true;
                }
            }
            if !changed {
                break;
            }
        }
    }

    /// Whether `rule` can derive no visible child node at all.
    fn produces_no_child(&mut self, rule: &'a Rule) -> bool {
        match rule {
            Rule::Blank | Rule::Repeat { .. } | Rule::Pattern { .. } => true,
            Rule::String { value } => value.is_empty(),
            Rule::Token { content } | Rule::ImmediateToken { content } => {
                content.as_literal().is_none_or(str::is_empty)
            }
            Rule::Alias { value, .. } => value.is_empty(),
            Rule::Symbol { name } => {
                if self.is_hidden_symbol(name) {
                    self.child_nullable
                        .get(name.as_str())
                        .copied()
                        .unwrap_or(false)
                } else {
                    false
                }
            }
            Rule::Field { content, .. }
            | Rule::Prec { content }
            | Rule::PrecDynamic { content }
            | Rule::PrecLeft { content }
            | Rule::PrecRight { content }
            | Rule::Reserved { content }
            | Rule::Repeat1 { content } => self.produces_no_child(content),
            Rule::Choice { members } => members.iter().any(|m| self.produces_no_child(m)),
            Rule::Seq { members } => members.iter().all(|m| self.produces_no_child(m)),
        }
    }

    fn compute_child_nullable(&mut self) {
        let hidden: Vec<&'a str> = self.hidden.iter().copied().collect();
        for name in self.externals.clone() {
            if name.starts_with('_') && !self.rules.contains_key(name) {
                self.child_nullable.insert(name, true);
            }
        }
        loop {
            let mut changed = false;
            for &name in &hidden {
                if self.child_nullable.get(name).copied().unwrap_or(false) {
                    continue;
                }
                if let Some(rule) = self.rules.get(name).copied()
                    && self.produces_no_child(rule)
                {
                    self.child_nullable.insert(name, true);
                    changed = true;
                }
            }
            if !changed {
                break;
            }
        }
    }
}

/// Collects, for one parent kind, the presence of every child kind and the list separators.
struct ChildWalk<'g, 'a> {
    generator: &'g mut Generator<'a>,
    presence: BTreeMap<String, Presence>,
    separators: BTreeSet<String>,
    /// Kinds met inside the element of a separated list.
    elements: BTreeSet<String>,
    /// Depth of separated-list elements being walked.
    in_element: usize,
    expanding: Vec<&'a str>,
}

impl<'a> ChildWalk<'_, 'a> {
    fn record(&mut self, key: String, presence: Presence) {
        if self.in_element > 0 {
            self.elements.insert(key.clone());
        }
        let entry = self.presence.entry(key).or_insert(presence);
        *entry = (*entry).max(presence);
    }

    fn walk(&mut self, rule: &'a Rule, presence: Presence) {
        match rule {
            Rule::Blank | Rule::Pattern { .. } => {}
            Rule::String { value } => {
                if !value.is_empty() {
                    self.record(kind_key(value, false), presence);
                }
            }
            Rule::Token { content } | Rule::ImmediateToken { content } => {
                if let Some(literal) = content.as_literal()
                    && !literal.is_empty()
                {
                    self.record(kind_key(literal, false), presence);
                }
            }
            Rule::Alias { value, named, .. } => {
                if !value.is_empty() {
                    self.record(kind_key(value, *named), presence);
                }
            }
            Rule::Symbol { name } => {
                if self.generator.is_hidden_symbol(name) {
                    if self.expanding.contains(&name.as_str()) {
                        return;
                    }
                    if let Some(body) = self.generator.rules.get(name.as_str()).copied() {
                        self.expanding.push(name);
                        self.walk(body, presence);
                        self.expanding.pop();
                    }
                } else {
                    self.record(kind_key(name, true), presence);
                }
            }
            Rule::Field { content, .. }
            | Rule::Prec { content }
            | Rule::PrecDynamic { content }
            | Rule::PrecLeft { content }
            | Rule::PrecRight { content }
            | Rule::Reserved { content } => self.walk(content, presence),
            Rule::Repeat { content } => self.walk_repeated(content, Presence::Optional),
            Rule::Repeat1 { content } => {
                let inner = if presence == Presence::Optional {
                    Presence::Optional
                } else {
                    Presence::Repeated
                };
                self.walk_repeated(content, inner);
            }
            Rule::Choice { members } => {
                let nullable = members.iter().any(|m| self.generator.produces_no_child(m));
                for member in members {
                    self.walk(
                        member,
                        if nullable {
                            Presence::Optional
                        } else {
                            presence
                        },
                    );
                }
            }
            Rule::Seq { members } => {
                let nullable: Vec<bool> = members
                    .iter()
                    .map(|m| self.generator.produces_no_child(m))
                    .collect();
                for (index, member) in members.iter().enumerate() {
                    let others_nullable =
                        nullable.iter().enumerate().all(|(j, &n)| j == index || n);
                    let mut inner = if others_nullable {
                        presence
                    } else {
                        Presence::Required
                    };
                    if repeats_in_sequence(members, index) {
                        inner = if others_nullable && presence == Presence::Optional {
                            Presence::Optional
                        } else {
                            Presence::Repeated
                        };
                    }
                    self.walk(member, inner);
                }
            }
        }
    }

    /// The body of a repetition: a two-member sequence of a literal separator and an element is a
    /// separated list, whose separators the unparser drops together with the elements.
    fn walk_repeated(&mut self, content: &'a Rule, presence: Presence) {
        if let Rule::Choice { members } = content.unwrap_transparent()
            && members
                .iter()
                .any(|member| separated_pair(member).is_some())
        {
            for member in members {
                self.walk_repeated(member, presence);
            }
            return;
        }
        if let Rule::Seq { members } = content.unwrap_transparent()
            && members.len() == 2
        {
            let separator_at = match (members[0].as_literal(), members[1].as_literal()) {
                (Some(_), None) => Some(0),
                (None, Some(_)) => Some(1),
                _ => None,
            };
            if let Some(at) = separator_at
                && let Some(separator) = members[at].as_literal()
            {
                self.separators.insert(separator.to_string());
                self.record(kind_key(separator, false), Presence::Required);
                self.in_element += 1;
                self.walk(&members[1 - at], presence);
                self.in_element -= 1;
                return;
            }
        }
        self.walk(content, presence);
    }
}

/// The position of the separator when `rule` is a separator-and-element pair.
fn separated_pair(rule: &Rule) -> Option<usize> {
    match rule.unwrap_transparent() {
        Rule::Seq { members } if members.len() == 2 => {
            match (members[0].as_literal(), members[1].as_literal()) {
                (Some(_), None) => Some(0),
                (None, Some(_)) => Some(1),
                _ => None,
            }
        }
        _ => None,
    }
}

/// Whether member `index` of a sequence is the first element of a list whose further elements a
/// later member repeats (`x (sep x)*`, `x x*`).
fn repeats_in_sequence(members: &[Rule], index: usize) -> bool {
    let element = members[index].unwrap_transparent();
    members.iter().enumerate().any(|(j, other)| {
        j != index
            && match other.unwrap_transparent() {
                Rule::Repeat { content } | Rule::Repeat1 { content } => {
                    let content = content.unwrap_transparent();
                    if content == element {
                        return true;
                    }
                    match content {
                        Rule::Seq { members: pair } if pair.len() == 2 => {
                            (pair[0].as_literal().is_some()
                                && pair[1].unwrap_transparent() == element)
                                || (pair[1].as_literal().is_some()
                                    && pair[0].unwrap_transparent() == element)
                        }
                        _ => false,
                    }
                }
                _ => false,
            }
    })
}

/// Computes the generated table of one language.
pub fn generate(input: &GeneratorInput<'_>) -> GeneratedTable {
    let mut generator = Generator::new(input);
    generator.compute_rule_phi();
    generator.compute_child_nullable();
    let grammar = input.grammar;

    // Φ per kind: visible rules, aliases (the alias takes the Φ of what it renames), visible
    // external tokens from the overlay; the overlay has the last word on any kind.
    let mut kind_phi: BTreeMap<String, String> = BTreeMap::new();
    let offer = |kind_phi: &mut BTreeMap<String, String>, key: String, text: Option<String>| {
        if let Some(text) = text
            && better(&text, kind_phi.get(&key))
        {
            kind_phi.insert(key, text);
        }
    };
    for (name, _) in &grammar.rules {
        if !generator.is_hidden_symbol(name) {
            let text = generator.symbol_phi(name);
            offer(&mut kind_phi, kind_key(name, true), text);
        }
    }
    for name in generator.externals.clone() {
        if !generator.is_hidden_symbol(name) {
            let text = input.overlay.get(name).cloned();
            offer(&mut kind_phi, kind_key(name, true), text);
        }
    }
    let mut aliases: Vec<(&Rule, String)> = Vec::new();
    for (_, rule) in &grammar.rules {
        collect_aliases(rule, &mut aliases);
    }
    for (content, key) in &aliases {
        let text = generator.eval(content, false);
        offer(&mut kind_phi, key.clone(), text);
    }
    for (key, text) in input.overlay {
        // Hidden symbols of the overlay only feed the fixed point; they are no node kinds.
        if !generator.is_hidden_symbol(key) {
            kind_phi.insert(key.clone(), text.clone());
        }
    }

    let mut table = GeneratedTable {
        language: input.language.to_string(),
        source: input.source.to_string(),
        ..GeneratedTable::default()
    };
    for (key, text) in &kind_phi {
        // An anonymous kind derives its own text unless an alias renamed something else to it.
        if key.starts_with('"') && super::text::kind_key_text(key).as_deref() == Some(text.as_str())
        {
            continue;
        }
        table.phi.insert(key.clone(), text.clone());
    }
    // Further short spellings of token kinds (a number `1` besides `0`), except the grammar's
    // word token: its spellings are names, which differ by what they refer to, not by value.
    for (name, rule) in &grammar.rules {
        let token = matches!(
            rule.unwrap_transparent(),
            Rule::Token { .. } | Rule::ImmediateToken { .. } | Rule::Pattern { .. }
        );
        if !token
            || generator.is_hidden_symbol(name)
            || grammar.word.as_deref() == Some(name.as_str())
            || input.overlay.contains_key(name)
        {
            continue;
        }
        let key = kind_key(name, true);
        let Some(texts) = generator.first_texts(rule, ALTERNATIVES + 1) else {
            continue;
        };
        let phi = table.phi.get(&key);
        let alternatives: Vec<String> = texts
            .into_iter()
            .filter(|text| !text.is_empty() && Some(text) != phi)
            .take(ALTERNATIVES)
            .collect();
        if !alternatives.is_empty() {
            table.alternatives.insert(key, alternatives);
        }
    }
    // Short forms of each visible rule that keep some of its fields (a C function definition's
    // `type` and `declarator` make a declaration: a prototype).
    for (name, rule) in &grammar.rules {
        if generator.is_hidden_symbol(name) {
            continue;
        }
        let Some(forms) = generator.forms(rule, &mut Vec::new()) else {
            continue;
        };
        let mut forms: Vec<Form> = forms
            .into_iter()
            .filter(|(slots, _)| !slots.is_empty())
            .map(|(_, form)| form)
            .collect();
        forms.sort_by_key(|form| form.cost);
        if !forms.is_empty() {
            table.forms.insert(
                kind_key(name, true),
                forms.iter().map(Form::alternating).collect(),
            );
        }
    }
    for node_type in input.node_types {
        if !node_type.subtypes.is_empty() {
            continue;
        }
        let key = kind_key(&node_type.kind, node_type.named);
        if node_type.named && !kind_phi.contains_key(&key) {
            table.unknown.insert(key);
        }
    }

    // Children that may be absent, per parent kind (visible rules and named aliases).
    let mut parents: Vec<(String, &Rule)> = Vec::new();
    for (name, rule) in &grammar.rules {
        if !generator.is_hidden_symbol(name) {
            parents.push((kind_key(name, true), rule));
        }
    }
    for (content, key) in &aliases {
        let body = match content.unwrap_transparent() {
            Rule::Symbol { name } => match generator.rules.get(name.as_str()) {
                Some(rule) => *rule,
                None => continue,
            },
            other => other,
        };
        parents.push((key.clone(), body));
    }
    let mut merged: BTreeMap<String, BTreeMap<String, Presence>> = BTreeMap::new();
    for (parent, body) in parents {
        let mut walk = ChildWalk {
            generator: &mut generator,
            presence: BTreeMap::new(),
            separators: BTreeSet::new(),
            elements: BTreeSet::new(),
            in_element: 0,
            expanding: Vec::new(),
        };
        walk.walk(body, Presence::Required);
        let ChildWalk {
            presence,
            separators,
            elements,
            ..
        } = walk;
        // A kind reached through several rules (aliases) keeps the most restrictive presence.
        let entry = merged.entry(parent.clone()).or_default();
        for (child, presence) in presence {
            let slot = entry.entry(child).or_insert(presence);
            *slot = (*slot).max(presence);
        }
        if !separators.is_empty() {
            let list = table.lists.entry(parent).or_default();
            list.separators.extend(separators);
            list.elements.extend(elements);
        }
    }
    for (parent, children) in merged {
        let mut presence = ChildPresence::default();
        for (child, how) in children {
            match how {
                Presence::Optional => {
                    presence.optional.insert(child);
                }
                Presence::Repeated => {
                    presence.repeated.insert(child);
                }
                Presence::Required => {}
            }
        }
        table.children.insert(parent, presence);
    }
    table
        .children
        .retain(|_, presence| !presence.optional.is_empty() || !presence.repeated.is_empty());

    // Places: the named kinds each field (or the field-less children) of a kind accepts.
    for node_type in input.node_types {
        if !node_type.subtypes.is_empty() || !node_type.named {
            continue;
        }
        let mut fields: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
        let places = node_type
            .fields
            .iter()
            .map(|(name, place)| (name.clone(), place))
            .chain(
                node_type
                    .children
                    .iter()
                    .map(|place| ("*".to_string(), place)),
            );
        for (name, place) in places {
            let kinds: BTreeSet<String> = place
                .types
                .iter()
                .filter(|kind| kind.named)
                .map(|kind| kind_key(&kind.kind, true))
                .collect();
            if !kinds.is_empty() {
                fields.insert(name, kinds);
            }
        }
        if !fields.is_empty() {
            table.places.insert(kind_key(&node_type.kind, true), fields);
        }
    }

    // Supertypes with their concrete kinds (nested supertypes expanded).
    let declared: HashMap<&str, &NodeType> = input
        .node_types
        .iter()
        .filter(|node_type| !node_type.subtypes.is_empty())
        .map(|node_type| (node_type.kind.as_str(), node_type))
        .collect();
    for (&name, node_type) in &declared {
        let mut concrete = BTreeSet::new();
        let mut stack: Vec<&NodeType> = vec![node_type];
        let mut seen = BTreeSet::new();
        while let Some(current) = stack.pop() {
            if !seen.insert(current.kind.as_str()) {
                continue;
            }
            for subtype in &current.subtypes {
                match declared.get(subtype.kind.as_str()) {
                    Some(nested) if subtype.named => stack.push(nested),
                    _ => {
                        concrete.insert(kind_key(&subtype.kind, subtype.named));
                    }
                }
            }
        }
        table.supertypes.insert(name.to_string(), concrete);
    }
    table
}

fn collect_aliases<'a>(rule: &'a Rule, out: &mut Vec<(&'a Rule, String)>) {
    match rule {
        Rule::Alias {
            content,
            named,
            value,
        } => {
            if !value.is_empty() {
                out.push((content, kind_key(value, *named)));
            }
            collect_aliases(content, out);
        }
        Rule::Choice { members } | Rule::Seq { members } => {
            for member in members {
                collect_aliases(member, out);
            }
        }
        Rule::Field { content, .. }
        | Rule::Prec { content }
        | Rule::PrecDynamic { content }
        | Rule::PrecLeft { content }
        | Rule::PrecRight { content }
        | Rule::Reserved { content }
        | Rule::Repeat { content }
        | Rule::Repeat1 { content }
        | Rule::Token { content }
        | Rule::ImmediateToken { content } => collect_aliases(content, out),
        Rule::Blank | Rule::Pattern { .. } | Rule::String { .. } | Rule::Symbol { .. } => {}
    }
}
