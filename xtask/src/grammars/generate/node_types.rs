//! The tables read from `node-types.json`: the named kinds each field of a kind accepts, and
//! the concrete kinds of each supertype.

use std::collections::{BTreeMap, BTreeSet, HashMap};

use super::grammar_json::NodeType;
use super::profile::GeneratedTable;
use super::text::kind_key;

/// Places: the named kinds each field (or the field-less children) of a kind accepts.
pub(super) fn places(node_types: &[NodeType], table: &mut GeneratedTable) {
    for node_type in node_types {
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
}

/// Supertypes with their concrete kinds (nested supertypes expanded).
pub(super) fn supertypes(node_types: &[NodeType], table: &mut GeneratedTable) {
    let declared: HashMap<&str, &NodeType> = node_types
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
}
