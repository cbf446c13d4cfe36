//! The model of a tree-sitter `src/grammar.json` file (the rules a grammar crate was generated
//! from), as read by the generator of the minimal-replacement tables.

use std::collections::BTreeMap;

use serde::Deserialize;

/// The rules that only wrap another one without changing what it derives (field names,
/// precedences, reserved-word contexts), as one pattern that binds the wrapped rule to `$content`.
macro_rules! transparent {
    ($content:ident) => {
        $crate::grammars::grammar_json::Rule::Field {
            content: $content,
            ..
        } | $crate::grammars::grammar_json::Rule::Prec { content: $content }
            | $crate::grammars::grammar_json::Rule::PrecDynamic { content: $content }
            | $crate::grammars::grammar_json::Rule::PrecLeft { content: $content }
            | $crate::grammars::grammar_json::Rule::PrecRight { content: $content }
            | $crate::grammars::grammar_json::Rule::Reserved { content: $content }
    };
}
pub(crate) use transparent;

/// One rule expression of a tree-sitter grammar.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(tag = "type")]
pub enum Rule {
    #[serde(rename = "ALIAS")]
    Alias {
        content: Box<Rule>,
        named: bool,
        value: String,
    },
    #[serde(rename = "BLANK")]
    Blank,
    #[serde(rename = "CHOICE")]
    Choice { members: Vec<Rule> },
    #[serde(rename = "FIELD")]
    Field { name: String, content: Box<Rule> },
    #[serde(rename = "IMMEDIATE_TOKEN")]
    ImmediateToken { content: Box<Rule> },
    #[serde(rename = "PATTERN")]
    Pattern {
        value: String,
        #[serde(default)]
        flags: Option<String>,
    },
    #[serde(rename = "PREC")]
    Prec { content: Box<Rule> },
    #[serde(rename = "PREC_DYNAMIC")]
    PrecDynamic { content: Box<Rule> },
    #[serde(rename = "PREC_LEFT")]
    PrecLeft { content: Box<Rule> },
    #[serde(rename = "PREC_RIGHT")]
    PrecRight { content: Box<Rule> },
    #[serde(rename = "REPEAT")]
    Repeat { content: Box<Rule> },
    #[serde(rename = "REPEAT1")]
    Repeat1 { content: Box<Rule> },
    #[serde(rename = "RESERVED")]
    Reserved { content: Box<Rule> },
    #[serde(rename = "SEQ")]
    Seq { members: Vec<Rule> },
    #[serde(rename = "STRING")]
    String { value: String },
    #[serde(rename = "SYMBOL")]
    Symbol { name: String },
    #[serde(rename = "TOKEN")]
    Token { content: Box<Rule> },
}

impl Rule {
    /// The content of a rule that only wraps another one without changing what it derives
    /// (field names, precedences, reserved-word contexts).
    pub fn unwrap_transparent(&self) -> &Rule {
        match self {
            transparent!(content) => content.unwrap_transparent(),
            other => other,
        }
    }

    /// The literal text when the rule is a plain string token (possibly wrapped in `token()`).
    pub fn as_literal(&self) -> Option<&str> {
        match self.unwrap_transparent() {
            Rule::String { value } => Some(value),
            Rule::Token { content } | Rule::ImmediateToken { content } => content.as_literal(),
            _ => None,
        }
    }
}

/// A whole `grammar.json`.
#[derive(Debug, Clone, Deserialize)]
pub struct Grammar {
    pub name: String,
    /// Rules in file order (the first one is the start rule).
    #[serde(deserialize_with = "ordered_rules")]
    pub rules: Vec<(String, Rule)>,
    #[serde(default)]
    pub extras: Vec<Rule>,
    #[serde(default)]
    pub externals: Vec<Rule>,
    #[serde(default)]
    pub inline: Vec<String>,
    #[serde(default)]
    pub supertypes: Vec<String>,
    #[serde(default)]
    pub word: Option<String>,
}

/// Keeps the rules in the order of the file (serde_json's map would sort them).
fn ordered_rules<'de, D>(deserializer: D) -> Result<Vec<(String, Rule)>, D::Error>
where
    D: serde::Deserializer<'de>,
{
    struct RulesVisitor;
    impl<'de> serde::de::Visitor<'de> for RulesVisitor {
        type Value = Vec<(String, Rule)>;
        fn expecting(&self, formatter: &mut std::fmt::Formatter) -> std::fmt::Result {
            formatter.write_str("a map of rule names to rules")
        }
        fn visit_map<A: serde::de::MapAccess<'de>>(
            self,
            mut map: A,
        ) -> Result<Self::Value, A::Error> {
            let mut rules = Vec::new();
            while let Some((name, rule)) = map.next_entry::<String, Rule>()? {
                rules.push((name, rule));
            }
            Ok(rules)
        }
    }
    deserializer.deserialize_map(RulesVisitor)
}

impl Grammar {
    /// Parses the text of a `grammar.json`.
    pub fn from_json(text: &str) -> anyhow::Result<Grammar> {
        Ok(serde_json::from_str(text)?)
    }

    /// The rules by name.
    pub fn rule_map(&self) -> BTreeMap<&str, &Rule> {
        self.rules
            .iter()
            .map(|(name, rule)| (name.as_str(), rule))
            .collect()
    }
}

/// One entry of a grammar crate's `node-types.json`.
#[derive(Debug, Clone, Deserialize)]
pub struct NodeType {
    #[serde(rename = "type")]
    pub kind: String,
    pub named: bool,
    #[serde(default)]
    pub subtypes: Vec<NodeTypeRef>,
    /// The kinds allowed in each field.
    #[serde(default)]
    pub fields: BTreeMap<String, NodeTypeChildren>,
    /// The named kinds allowed as children outside any field.
    #[serde(default)]
    pub children: Option<NodeTypeChildren>,
}

/// The kinds allowed at one place (a field, or the children outside fields) of a node kind.
#[derive(Debug, Clone, Deserialize)]
pub struct NodeTypeChildren {
    #[serde(default)]
    pub types: Vec<NodeTypeRef>,
}

/// A reference to a node kind inside `node-types.json`.
#[derive(Debug, Clone, Deserialize)]
pub struct NodeTypeRef {
    #[serde(rename = "type")]
    pub kind: String,
    pub named: bool,
}

/// Parses the text of a `node-types.json`.
pub fn parse_node_types(text: &str) -> anyhow::Result<Vec<NodeType>> {
    Ok(serde_json::from_str(text)?)
}
