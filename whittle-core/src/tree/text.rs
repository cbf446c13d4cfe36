//! Small text helpers shared by the tree layer: word characters and the spelling of node kinds
//! in the grammar profiles.

/// Whether a byte belongs to an identifier-like word (two such bytes side by side would lex as
/// one token): ASCII letters, digits, `_`, `$` and every byte of a non-ASCII character.
pub fn is_word_byte(byte: u8) -> bool {
    byte.is_ascii_alphanumeric() || byte == b'_' || byte == b'$' || byte >= 0x80
}

/// How a node kind is written in a profile: named kinds by their name, anonymous kinds (literal
/// tokens) as a double-quoted string, so that `type` and `"type"` stay apart.
pub fn kind_key(name: &str, named: bool) -> String {
    if named {
        name.to_string()
    } else {
        serde_json::to_string(name).unwrap_or_else(|_| format!("\"{name}\""))
    }
}

/// The text of an anonymous kind key (`"("` gives `(`); `None` for a named kind.
pub fn kind_key_text(key: &str) -> Option<String> {
    if key.starts_with('"') {
        serde_json::from_str(key).ok()
    } else {
        None
    }
}

/// Splits a kind key into its name and whether it is named.
pub fn parse_kind_key(key: &str) -> (String, bool) {
    match kind_key_text(key) {
        Some(text) => (text, false),
        None => (key.to_string(), true),
    }
}

/// A TOML key or string: bare when it can be, else a basic string (JSON escapes are valid TOML).
pub fn toml_key(key: &str) -> String {
    if !key.is_empty()
        && key
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-')
    {
        key.to_string()
    } else {
        toml_string(key)
    }
}

/// A TOML basic string.
pub fn toml_string(text: &str) -> String {
    serde_json::to_string(text).unwrap_or_default()
}
