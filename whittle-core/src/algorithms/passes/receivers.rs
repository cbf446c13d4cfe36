//! `receivers`: the methods of a type become functions and the type's declaration goes, in one
//! edit: `type S struct{}; func (s *S) f() {…}` becomes `func f() {…}`. Deleting the type alone
//! leaves its methods without a receiver type and deleting a receiver alone leaves two
//! declarations of one name (Go refuses both); together they go. Read from the grammar: a
//! method's `receiver` field, the type named in it (through a pointer), and the type's
//! declaration (a spec with that `name` and a `type`).

use std::collections::HashMap;

use super::edit::{Changes, Edit, EditRequest, EditStage, deletion, position_order};
use super::nodes::{enclosing_unit, identity_of, is_name, merged, text_of, with_parsed_nodes};
use crate::testing::control::Stop;
use crate::tree::Language;
use crate::tree::syntax::{Node, visit_preorder};

/// The receiver stage for one language (it needs the parse tree).
pub struct RemoveReceivers<'a> {
    pub language: &'a Language,
}

impl EditStage for RemoveReceivers<'_> {
    fn name(&self) -> &'static str {
        "receivers"
    }

    fn edits_for(&self, text: &[u8], request: &EditRequest<'_>) -> Result<Vec<Edit>, Stop> {
        with_parsed_nodes(self.language, text, request, |nodes| {
            // Each receiver type's methods' receivers, types in the order of their first method.
            let mut order: Vec<&[u8]> = Vec::new();
            let mut receivers: HashMap<&[u8], Vec<Node<'_>>> = HashMap::new();
            let mut declarations: HashMap<&[u8], Node<'_>> = HashMap::new();
            for &node in nodes {
                request.work()?;
                if let Some(receiver) = node.child_by_field_name("receiver") {
                    let Some(name) = receiver_type(receiver) else {
                        continue;
                    };
                    let list = receivers.entry(text_of(name, text)).or_default();
                    if list.is_empty() {
                        order.push(text_of(name, text));
                    }
                    list.push(receiver);
                } else if node.kind().ends_with("_spec")
                    && node.child_by_field_name("type").is_some()
                    && let Some(name) = node.child_by_field_name("name").filter(|n| is_name(*n))
                    && let Some(unit) = enclosing_unit(node)
                {
                    declarations.insert(text_of(name, text), unit);
                }
            }
            let mut edits = Vec::new();
            for name in order {
                request.work()?;
                let (Some(declaration), Some(list)) = (declarations.get(name), receivers.get(name))
                else {
                    continue;
                };
                let at = position_order(list[0].start_byte(), 0);
                if at < request.from {
                    continue;
                }
                if request.is_full(edits.len()) {
                    break;
                }
                let mut changes: Changes = list
                    .iter()
                    .map(|receiver| deletion(text, receiver.byte_range()))
                    .collect();
                changes.push(deletion(text, declaration.byte_range()));
                edits.push(
                    Edit::replace(merged(changes), at)
                        .with_resume(at)
                        .with_identity(identity_of("receivers", name)),
                );
            }
            Ok(edits)
        })
    }
}

/// The type a receiver (`(s *Server)`, `(Server)`) names: its first name leaf of a type kind.
fn receiver_type(receiver: Node<'_>) -> Option<Node<'_>> {
    let mut found = None;
    let _ = visit_preorder(receiver, |node| {
        if is_name(node) && node.kind().contains("type") {
            found = Some(node);
            return Err(());
        }
        Ok(())
    });
    found
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::algorithms::passes::edit::rendered_edits_in;

    #[test]
    #[cfg_attr(
        not(feature = "lang-go"),
        ignore = "needs the Go grammar (cargo feature lang-go)"
    )]
    fn go_methods_become_functions_and_their_type_goes() {
        // From golang/example's outyet (the go-build-struct-literal task), cut down.
        let text = "package main\n\ntype Server struct {\n\turl string\n}\n\nfunc (s *Server) poll() {\n}\n\nfunc (s Server) ServeHTTP() {\n\tpoll()\n}\n";
        assert_eq!(
            rendered_edits_in("go", text, |language| RemoveReceivers { language }),
            ["package main\n\n\nfunc poll() {\n}\n\nfunc ServeHTTP() {\n\tpoll()\n}\n"]
        );
    }
}
