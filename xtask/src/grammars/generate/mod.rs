//! Generation of a language's minimal-replacement table from its `grammar.json`: Φ (the shortest
//! text deriving each node kind, by a fixed point over the rules), the child positions that may
//! be empty, the separated lists and the supertypes.
//!
//! This module holds the `Generator`, which derives texts from the grammar's rules; `kinds`
//! makes the tables per node kind from them, `forms` the short forms that keep some fields,
//! `children` the children's presence and the separated lists, `node_types` the places and the
//! supertypes read from `node-types.json`; `spelling` orders and joins derived texts.

mod children;
mod forms;
mod kinds;
mod node_types;
mod spelling;

use std::collections::{BTreeMap, BTreeSet, HashMap};

// For the submodules' `super::grammar_json`, `super::profile`, `super::shortest` and
// `super::text`.
use super::{grammar_json, profile, shortest, text};

use forms::{Form, Forms, Piece, keep_cheapest, offer_form};
use grammar_json::{Grammar, NodeType, Rule, transparent};
use profile::GeneratedTable;
use shortest::{shortest_match, shortest_matches};
use spelling::{better, join, text_key};

/// Inputs of the generator besides the grammar: hand-written replacements for symbols the
/// grammar cannot describe (external-scanner tokens) or whose computed Φ is not usable.
pub struct GeneratorInput<'a> {
    pub language: &'a str,
    pub source: &'a str,
    pub grammar: &'a Grammar,
    pub node_types: &'a [NodeType],
    pub overlay: &'a BTreeMap<String, String>,
}

/// Computes the generated table of one language.
pub fn generate(input: &GeneratorInput<'_>) -> GeneratedTable {
    let mut generator = Generator::new(input);
    generator.compute_rule_phi();
    generator.compute_child_nullable();
    let aliases = kinds::aliases(input.grammar);
    let kind_phi = kinds::kind_phi(&mut generator, &aliases);
    let mut table = GeneratedTable {
        language: input.language.to_string(),
        source: input.source.to_string(),
        ..GeneratedTable::default()
    };
    kinds::phi_table(&kind_phi, &mut table);
    kinds::token_alternatives(&generator, &mut table);
    kinds::short_forms(&mut generator, &mut table);
    kinds::unknown_kinds(input.node_types, &kind_phi, &mut table);
    children::child_presence(&mut generator, &aliases, &mut table);
    node_types::places(input.node_types, &mut table);
    node_types::supertypes(input.node_types, &mut table);
    table
}

/// The grammar's rules with what is known of them: which symbols are hidden or external, Φ of
/// each rule (by a fixed point), which hidden rules may produce no child node.
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
            Rule::Alias { content, .. } | transparent!(content) | Rule::Repeat1 { content } => {
                self.eval(content, in_token)
            }
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
            | transparent!(content)
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
            transparent!(content) | Rule::Repeat1 { content } => self.produces_no_child(content),
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
