//! Which children of a kind may be absent or repeated, and its separated lists: a walk over
//! each visible rule (and named alias), through the hidden rules it uses.

use std::collections::{BTreeMap, BTreeSet};

use super::Generator;
use super::grammar_json::{Rule, transparent};
use super::profile::{ChildPresence, GeneratedTable, Presence};
use super::text::kind_key;

/// Per token, the kinds paired with it.
type TokenPairs = BTreeMap<String, BTreeSet<String>>;

/// Children that may be absent or repeated, per parent kind (visible rules and named aliases),
/// and the separated lists.
pub(super) fn child_presence<'a>(
    generator: &mut Generator<'a>,
    aliases: &[(&'a Rule, String)],
    table: &mut GeneratedTable,
) {
    let mut merged: BTreeMap<String, BTreeMap<String, Presence>> = BTreeMap::new();
    // Per parent kind, the pairs of a kind and the token after it, and before it.
    let mut merged_pairs: BTreeMap<String, (TokenPairs, TokenPairs)> = BTreeMap::new();
    for (parent, body) in parents(generator, aliases) {
        let mut walk = ChildWalk {
            generator: &mut *generator,
            presence: BTreeMap::new(),
            separators: BTreeSet::new(),
            elements: BTreeSet::new(),
            in_element: 0,
            terminated: BTreeMap::new(),
            introduced: BTreeMap::new(),
            expanding: Vec::new(),
        };
        walk.walk(body, Presence::Required);
        let ChildWalk {
            presence,
            separators,
            elements,
            terminated,
            introduced,
            ..
        } = walk;
        let (all_terminated, all_introduced) = merged_pairs.entry(parent.clone()).or_default();
        for (all, found) in [(all_terminated, terminated), (all_introduced, introduced)] {
            for (token, kinds) in found {
                all.entry(token).or_default().extend(kinds);
            }
        }
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
        let (terminated, introduced) = merged_pairs.remove(&parent).unwrap_or_default();
        let mut presence = ChildPresence {
            terminated,
            introduced,
            ..ChildPresence::default()
        };
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
    table.children.retain(|_, presence| {
        !presence.optional.is_empty()
            || !presence.repeated.is_empty()
            || !presence.terminated.is_empty()
            || !presence.introduced.is_empty()
    });
}

/// The kinds whose children are walked, each with its rule: the visible rules, and the named
/// aliases with the rule of the symbol they rename.
fn parents<'a>(
    generator: &Generator<'a>,
    aliases: &[(&'a Rule, String)],
) -> Vec<(String, &'a Rule)> {
    let grammar = generator.input.grammar;
    let mut parents: Vec<(String, &Rule)> = Vec::new();
    for (name, rule) in &grammar.rules {
        if !generator.is_hidden_symbol(name) {
            parents.push((kind_key(name, true), rule));
        }
    }
    for (content, key) in aliases {
        let body = match content.unwrap_transparent() {
            Rule::Symbol { name } => match generator.rules.get(name.as_str()) {
                Some(rule) => *rule,
                None => continue,
            },
            other => other,
        };
        parents.push((key.clone(), body));
    }
    parents
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
    /// Per token, the kinds that may go together with the token after them.
    terminated: TokenPairs,
    /// Per token, the kinds that may go together with the token before them.
    introduced: TokenPairs,
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
            Rule::Symbol { name } => self.walk_symbol(name, presence),
            transparent!(content) => self.walk(content, presence),
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
                let inner = if nullable {
                    Presence::Optional
                } else {
                    presence
                };
                // Each alternative apart: a kind repeated in one and required in another is
                // repeated (a node with several of them took the alternative that repeats it).
                let outer = std::mem::take(&mut self.presence);
                let mut alternatives: BTreeMap<String, Presence> = BTreeMap::new();
                for member in members {
                    self.walk(member, inner);
                    for (key, found) in std::mem::take(&mut self.presence) {
                        alternatives
                            .entry(key)
                            .and_modify(|known| *known = across_alternatives(*known, found))
                            .or_insert(found);
                    }
                }
                self.presence = outer;
                for (key, found) in alternatives {
                    let entry = self.presence.entry(key).or_insert(found);
                    *entry = (*entry).max(found);
                }
            }
            Rule::Seq { members } => self.walk_sequence(members, presence),
        }
    }

    /// A hidden symbol is walked through (once on each path); a visible one is a child.
    fn walk_symbol(&mut self, name: &'a str, presence: Presence) {
        if self.generator.is_hidden_symbol(name) {
            if self.expanding.contains(&name) {
                return;
            }
            if let Some(body) = self.generator.rules.get(name).copied() {
                self.expanding.push(name);
                self.walk(body, presence);
                self.expanding.pop();
            }
        } else {
            self.record(kind_key(name, true), presence);
        }
    }

    /// An optional pair of an element and a token (`seq(type, ';')` in a repetition,
    /// `optional(seq(':', type))`): the element is required beside its token, and the pair may
    /// go (`terminated` or `introduced` by the token). Whether `members` were such a pair.
    fn walk_pair(&mut self, members: &'a [Rule]) -> bool {
        let [first, second] = members else {
            return false;
        };
        let (element, token, after) = match (first.as_literal(), second.as_literal()) {
            (None, Some(token)) if !self.is_separator(first, 0) => (first, token, true),
            (Some(token), None) if !self.is_separator(second, 0) => (second, token, false),
            _ => return false,
        };
        if token.is_empty() {
            return false;
        }
        let outer = std::mem::take(&mut self.presence);
        self.walk(element, Presence::Required);
        let found = std::mem::replace(&mut self.presence, outer);
        let kinds: Vec<String> = found
            .keys()
            .filter(|key| !key.starts_with('"'))
            .cloned()
            .collect();
        if !kinds.is_empty() {
            let pairs = if after {
                &mut self.terminated
            } else {
                &mut self.introduced
            };
            pairs.entry(token.to_string()).or_default().extend(kinds);
        }
        for (key, presence) in found {
            self.record(key, presence);
        }
        self.record(kind_key(token, false), Presence::Required);
        true
    }

    /// A member of a sequence has the sequence's presence when every other member may produce
    /// no child, else it is required; the first element of a list that a later member repeats
    /// is repeated.
    fn walk_sequence(&mut self, members: &'a [Rule], presence: Presence) {
        if presence == Presence::Optional && self.walk_pair(members) {
            return;
        }
        let nullable: Vec<bool> = members
            .iter()
            .map(|m| self.generator.produces_no_child(m))
            .collect();
        for (index, member) in members.iter().enumerate() {
            let others_nullable = nullable.iter().enumerate().all(|(j, &n)| j == index || n);
            let mut inner = if others_nullable {
                presence
            } else {
                Presence::Required
            };
            if self.repeats_in_sequence(members, index) {
                inner = if others_nullable && presence == Presence::Optional {
                    Presence::Optional
                } else {
                    Presence::Repeated
                };
            }
            self.walk(member, inner);
        }
    }

    /// The body of a repetition: a two-member sequence of a separator (a token, or a choice of
    /// tokens) and an element is a separated list, whose separators the unparser drops together
    /// with the elements.
    fn walk_repeated(&mut self, content: &'a Rule, presence: Presence) {
        if let Rule::Choice { members } = content.unwrap_transparent()
            && (members
                .iter()
                .any(|member| self.separated_pair(member).is_some())
                || !members
                    .iter()
                    .any(|member| self.generator.produces_no_child(member)))
        {
            for member in members {
                self.walk_repeated(member, presence);
            }
            return;
        }
        if let Some((at, separators)) = self.separated_pair(content)
            && let Rule::Seq { members } = content.unwrap_transparent()
        {
            for separator in separators {
                self.record(kind_key(&separator, false), Presence::Required);
                self.separators.insert(separator);
            }
            self.in_element += 1;
            self.walk(&members[1 - at], presence);
            self.in_element -= 1;
            return;
        }
        // An element with a terminator that makes only anonymous tokens (a choice of `;` and a
        // newline, a scanner's token): the element goes with its repetition, the terminator
        // stays (it may stand alone).
        if let Rule::Seq { members } = content.unwrap_transparent()
            && let [element, terminator] = &members[..]
            && !self.is_separator(element, 0)
            && self.is_separator(terminator, 0)
        {
            self.walk(element, presence);
            self.walk(terminator, Presence::Required);
            return;
        }
        self.walk(content, presence);
    }
}

/// The presence of a kind that two alternatives of a choice give: the most restrictive, but
/// repeated where one repeats it and the other requires it.
fn across_alternatives(a: Presence, b: Presence) -> Presence {
    match (a, b) {
        (Presence::Repeated, Presence::Required) | (Presence::Required, Presence::Repeated) => {
            Presence::Repeated
        }
        _ => a.max(b),
    }
}

impl ChildWalk<'_, '_> {
    /// Whether member `index` of a sequence is the first element of a list whose further elements a
    /// later member repeats (`x (sep x)*`, `x x*`, `x (sep (x | y))*`, where a separator is any
    /// rule that makes no named child: `;`, a choice of separators, a scanner's layout token).
    fn repeats_in_sequence(&self, members: &[Rule], index: usize) -> bool {
        let element = members[index].unwrap_transparent();
        let covers = |rule: &Rule| {
            let rule = rule.unwrap_transparent();
            rule == element
                || matches!(rule, Rule::Choice { members } if members
                    .iter()
                    .any(|member| member.unwrap_transparent() == element))
        };
        members.iter().enumerate().any(|(j, other)| {
            j != index
                && match other.unwrap_transparent() {
                    Rule::Repeat { content } | Rule::Repeat1 { content } => {
                        let content = content.unwrap_transparent();
                        if content == element {
                            return true;
                        }
                        match content {
                            Rule::Seq { members: pair } => {
                                pair.iter().enumerate().any(|(k, part)| {
                                    covers(part)
                                        && pair.iter().enumerate().all(|(m, separator)| {
                                            m == k || self.is_separator(separator, 0)
                                        })
                                })
                            }
                            _ => false,
                        }
                    }
                    _ => false,
                }
        })
    }

    /// When `rule` is a separator and an element (either way round), where the separator is
    /// and its texts.
    fn separated_pair(&self, rule: &Rule) -> Option<(usize, Vec<String>)> {
        let Rule::Seq { members } = rule.unwrap_transparent() else {
            return None;
        };
        let [first, second] = &members[..] else {
            return None;
        };
        match (self.literals_of(first, 0), self.literals_of(second, 0)) {
            (Some(separators), None) => Some((0, separators)),
            (None, Some(separators)) => Some((1, separators)),
            _ => None,
        }
    }

    /// The texts of a rule that is a literal token or a choice of them (through hidden rules):
    /// a list's separators (`,`, or `,` and `;`).
    fn literals_of(&self, rule: &Rule, depth: usize) -> Option<Vec<String>> {
        /// Hidden rules followed this deep at most.
        const DEPTH: usize = 4;
        if let Some(literal) = rule.as_literal() {
            return (!literal.is_empty()).then(|| vec![literal.to_string()]);
        }
        match rule.unwrap_transparent() {
            Rule::Choice { members } => {
                let mut literals = Vec::new();
                for member in members {
                    literals.extend(self.literals_of(member, depth)?);
                }
                (!literals.is_empty()).then_some(literals)
            }
            Rule::Symbol { name } if self.generator.is_hidden_symbol(name) && depth < DEPTH => {
                let body = self.generator.rules.get(name.as_str())?;
                self.literals_of(body, depth + 1)
            }
            _ => None,
        }
    }

    /// Whether a rule makes only anonymous tokens (or nothing): a list's separator.
    fn is_separator(&self, rule: &Rule, depth: usize) -> bool {
        /// Hidden rules followed this deep at most (they may recurse).
        const DEPTH: usize = 8;
        match rule.unwrap_transparent() {
            Rule::Blank
            | Rule::String { .. }
            | Rule::Pattern { .. }
            | Rule::Token { .. }
            | Rule::ImmediateToken { .. } => true,
            Rule::Alias { named, .. } => !named,
            Rule::Repeat { content } | Rule::Repeat1 { content } => {
                self.is_separator(content, depth)
            }
            Rule::Choice { members } | Rule::Seq { members } => members
                .iter()
                .all(|member| self.is_separator(member, depth)),
            Rule::Symbol { name } => {
                if !self.generator.is_hidden_symbol(name) {
                    return false;
                }
                match self.generator.rules.get(name.as_str()) {
                    // A hidden token of the external scanner (a layout's `;`).
                    None => true,
                    Some(body) => depth < DEPTH && self.is_separator(body, depth + 1),
                }
            }
            _ => false,
        }
    }
}
