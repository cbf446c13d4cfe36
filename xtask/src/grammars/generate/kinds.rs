//! The tables per node kind: Φ of each kind (rules, aliases, external tokens, the overlay), the
//! further short spellings of token kinds, the short forms that keep some fields, and the
//! named kinds with no Φ.

use std::collections::BTreeMap;

use super::Generator;
use super::forms::Form;
use super::grammar_json::{Grammar, NodeType, Rule, transparent};
use super::profile::GeneratedTable;
use super::spelling::better;
use super::text::{self, kind_key};

/// How many further texts of a token kind the table lists besides Φ.
const ALTERNATIVES: usize = 1;

/// The named aliases of the grammar: what each renames, and the kind it names.
pub(super) fn aliases(grammar: &Grammar) -> Vec<(&Rule, String)> {
    let mut aliases: Vec<(&Rule, String)> = Vec::new();
    for (_, rule) in &grammar.rules {
        collect_aliases(rule, &mut aliases);
    }
    aliases
}

/// Φ per kind: visible rules, aliases (the alias takes the Φ of what it renames), visible
/// external tokens from the overlay; the overlay has the last word on any kind.
pub(super) fn kind_phi<'a>(
    generator: &mut Generator<'a>,
    aliases: &[(&'a Rule, String)],
) -> BTreeMap<String, String> {
    let input = generator.input;
    let grammar = input.grammar;
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
    for (content, key) in aliases {
        let text = generator.eval(content, false);
        offer(&mut kind_phi, key.clone(), text);
    }
    for (key, text) in input.overlay {
        // Hidden symbols of the overlay only feed the fixed point; they are no node kinds.
        if !generator.is_hidden_symbol(key) {
            kind_phi.insert(key.clone(), text.clone());
        }
    }
    kind_phi
}

/// The table's Φ: every kind's, but an anonymous kind's own text.
pub(super) fn phi_table(kind_phi: &BTreeMap<String, String>, table: &mut GeneratedTable) {
    for (key, text) in kind_phi {
        // An anonymous kind derives its own text unless an alias renamed something else to it.
        if key.starts_with('"') && text::kind_key_text(key).as_deref() == Some(text.as_str()) {
            continue;
        }
        table.phi.insert(key.clone(), text.clone());
    }
}

/// Further short spellings of token kinds (a number `1` besides `0`), except the grammar's
/// word token: its spellings are names, which differ by what they refer to, not by value.
pub(super) fn token_alternatives(generator: &Generator<'_>, table: &mut GeneratedTable) {
    let input = generator.input;
    let grammar = input.grammar;
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
}

/// Short forms of each visible rule that keep some of its fields (a C function definition's
/// `type` and `declarator` make a declaration: a prototype).
pub(super) fn short_forms(generator: &mut Generator<'_>, table: &mut GeneratedTable) {
    let grammar = generator.input.grammar;
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
}

/// The named kinds of `node-types.json` that have no Φ.
pub(super) fn unknown_kinds(
    node_types: &[NodeType],
    kind_phi: &BTreeMap<String, String>,
    table: &mut GeneratedTable,
) {
    for node_type in node_types {
        if !node_type.subtypes.is_empty() {
            continue;
        }
        let key = kind_key(&node_type.kind, node_type.named);
        if node_type.named && !kind_phi.contains_key(&key) {
            table.unknown.insert(key);
        }
    }
}

/// Collects the aliases under `rule` that name a kind.
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
        transparent!(content)
        | Rule::Repeat { content }
        | Rule::Repeat1 { content }
        | Rule::Token { content }
        | Rule::ImmediateToken { content } => collect_aliases(content, out),
        Rule::Blank | Rule::Pattern { .. } | Rule::String { .. } | Rule::Symbol { .. } => {}
    }
}
