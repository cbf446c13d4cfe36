//! `zeros`: a call becomes the zero value of the type it returns, where the language spells
//! zero values (Go): `make(map[string]int)` becomes `map[string]int{}`, `count(xs)` of a `func
//! count(…) int` declared in the file becomes `0`, one returning a `string` `""`, a `bool`
//! `false`, a pointer, slice, map, channel, function, interface or `error` `nil`, a named type
//! `T` `T{}`. Replacing an expression by `0` (the `replace` stage) fails where the type is not a
//! number; this keeps the type. The call's result type is read from the grammar's `result`
//! field of the function or method of that name.

use std::collections::HashMap;

use super::edit::{Edit, EditRequest, EditStage};
use super::nodes::{edits_by_node, elements, is_name, text_of, with_parsed_nodes};
use crate::testing::control::Stop;
use crate::tree::Language;
use crate::tree::syntax::Node;

/// The zero-value stage for one language (it needs the parse tree; only Go has zero values).
pub struct ZeroValues<'a> {
    pub language: &'a Language,
}

impl EditStage for ZeroValues<'_> {
    fn name(&self) -> &'static str {
        "zeros"
    }

    fn edits_for(&self, text: &[u8], request: &EditRequest<'_>) -> Result<Vec<Edit>, Stop> {
        if self.language.name() != "go" {
            return Ok(Vec::new());
        }
        with_parsed_nodes(self.language, text, request, |nodes| {
            // The single result type of each function and method, by name.
            let mut results: HashMap<&[u8], Option<Node<'_>>> = HashMap::new();
            for &node in nodes {
                request.work()?;
                let (Some(name), Some(result)) = (
                    node.child_by_field_name("name"),
                    node.child_by_field_name("result"),
                ) else {
                    continue;
                };
                if !node.kind().contains("function") && !node.kind().contains("method") {
                    continue;
                }
                // Two functions (methods of two types) of one name: no type known.
                results
                    .entry(text_of(name, text))
                    .and_modify(|known| *known = None)
                    .or_insert(Some(result));
            }
            edits_by_node(nodes, request, |node, at| {
                if node.kind() != "call_expression" {
                    return None;
                }
                let function = node.child_by_field_name("function")?;
                let callee = match function.child_by_field_name("field") {
                    Some(field) => field,
                    None => function,
                };
                if !is_name(callee) {
                    return None;
                }
                let zero = if text_of(callee, text) == b"make" {
                    let arguments = node.child_by_field_name("arguments")?;
                    let made = *elements(arguments).first()?;
                    composite_zero(made, text)?
                } else {
                    zero_value((*results.get(text_of(callee, text))?)?, text)?
                };
                let own = text_of(node, text);
                let chars = |t: &[u8]| t.iter().filter(|b| !b.is_ascii_whitespace()).count();
                (chars(&zero) < chars(own))
                    .then(|| Edit::replace(vec![(node.byte_range(), zero)], at).with_resume(at))
            })
        })
    }
}

/// The zero value of a map or slice type as a composite literal (`map[K]V{}`).
fn composite_zero(made: Node<'_>, text: &[u8]) -> Option<Vec<u8>> {
    if !matches!(made.kind(), "map_type" | "slice_type") {
        return None;
    }
    let mut zero = text_of(made, text).to_vec();
    zero.extend_from_slice(b"{}");
    Some(zero)
}

/// Go's zero value of the type `ty` (a result type as the grammar parses it).
fn zero_value(ty: Node<'_>, text: &[u8]) -> Option<Vec<u8>> {
    let spelled = text_of(ty, text);
    let zero: &[u8] = match ty.kind() {
        "pointer_type" | "slice_type" | "map_type" | "channel_type" | "function_type"
        | "interface_type" => b"nil",
        "type_identifier" => match spelled {
            b"string" => b"\"\"",
            b"bool" => b"false",
            b"error" | b"any" => b"nil",
            b"byte" | b"rune" | b"uintptr" => b"0",
            _ if [b"int".as_slice(), b"uint", b"float", b"complex"]
                .iter()
                .any(|number| spelled.starts_with(number)) =>
            {
                b"0"
            }
            _ => {
                let mut zero = spelled.to_vec();
                zero.extend_from_slice(b"{}");
                return Some(zero);
            }
        },
        _ => return None,
    };
    Some(zero.to_vec())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::algorithms::passes::edit::rendered_edits_in;

    fn zeroed(text: &str) -> Vec<String> {
        rendered_edits_in("go", text, |language| ZeroValues { language })
    }

    #[test]
    #[cfg_attr(
        not(feature = "lang-go"),
        ignore = "needs the Go grammar (cargo feature lang-go)"
    )]
    fn go_calls_become_the_zero_value_of_their_type() {
        // From golang/example's outyet (the go-build-struct-literal task), cut down.
        let text = "package main\n\ntype Server struct{ url string }\n\nfunc NewServer(url string) *Server { return nil }\n\nfunc isTagged(url string) bool { return false }\n\nfunc label(s *Server) string { return s.url }\n\nfunc main() {\n\ts := NewServer(\"go\")\n\tok := isTagged(label(s))\n\tm := make(map[string]int)\n\t_, _ = ok, m\n}\n";
        let edits = zeroed(text);
        let body = |edit: &String| edit.split("func main() {\n").nth(1).unwrap().to_owned();
        let bodies: Vec<String> = edits.iter().map(body).collect();
        assert_eq!(
            bodies,
            [
                "\ts := nil\n\tok := isTagged(label(s))\n\tm := make(map[string]int)\n\t_, _ = ok, m\n}\n",
                "\ts := NewServer(\"go\")\n\tok := false\n\tm := make(map[string]int)\n\t_, _ = ok, m\n}\n",
                "\ts := NewServer(\"go\")\n\tok := isTagged(\"\")\n\tm := make(map[string]int)\n\t_, _ = ok, m\n}\n",
                "\ts := NewServer(\"go\")\n\tok := isTagged(label(s))\n\tm := map[string]int{}\n\t_, _ = ok, m\n}\n",
            ]
        );
    }
}
