//! Edits of trees: rendering removals (with list separators and whitespace joins) and hoistings,
//! committing candidates, listing the current tree, hoisting candidates, preprocessing, and the
//! syntax guard.

mod common;

use std::sync::Arc;

use whittle_core::tree::{
    Language, NodeId, NodeState, Preprocess, SyntaxGuard, Tree, TreeEdits, TreeState,
};

fn tree_of(language: &str, text: &str, preprocess: Preprocess) -> Arc<Tree> {
    let language = Language::by_name(language).unwrap();
    whittle_core::tree::parse(language, text.as_bytes().to_vec(), preprocess).unwrap()
}

/// The node of `kind` whose text is `text`.
fn find(tree: &Tree, kind: &str, text: &str) -> NodeId {
    tree.ids()
        .find(|&id| tree.kind(id) == kind && tree.text(id) == text.as_bytes())
        .unwrap_or_else(|| panic!("no {kind} {text:?}"))
}

fn render(state: &TreeState, candidate: &TreeEdits) -> String {
    String::from_utf8(state.render(candidate)).unwrap()
}

#[test]
fn types_are_send_and_sync() {
    fn assert_send_sync<T: Send + Sync>() {}
    assert_send_sync::<Tree>();
    assert_send_sync::<TreeState>();
    assert_send_sync::<TreeEdits>();
    assert_send_sync::<SyntaxGuard>();
}

#[test]
#[cfg_attr(
    not(feature = "lang-json"),
    ignore = "needs the JSON grammar (cargo feature lang-json)"
)]
fn list_removals_take_their_separators() {
    let tree = tree_of("json", "[1, 2, 3]", Preprocess::default());
    let state = TreeState::new(tree.clone());
    let element = |text: &str| find(&tree, "number", text);
    let cases: &[(&[&str], &str)] = &[
        (&["1"], "[2, 3]"),
        (&["2"], "[1, 3]"),
        (&["3"], "[1, 2]"),
        (&["1", "2"], "[3]"),
        (&["2", "3"], "[1]"),
        (&["1", "3"], "[2]"),
        (&["1", "2", "3"], "[]"),
    ];
    for &(removed, expected) in cases {
        let candidate = TreeEdits::removing(removed.iter().map(|text| element(text)));
        assert_eq!(render(&state, &candidate), expected, "removing {removed:?}");
    }
}

#[test]
#[cfg_attr(
    not(feature = "lang-json"),
    ignore = "needs the JSON grammar (cargo feature lang-json)"
)]
fn list_removals_keep_line_layout() {
    let text = "{\n  \"a\": 1,\n  \"b\": 2,\n  \"c\": 3\n}\n";
    let tree = tree_of("json", text, Preprocess::default());
    let state = TreeState::new(tree.clone());
    let pair = |key: &str| {
        find(
            &tree,
            "pair",
            &format!("\"{key}\": {}", (key.as_bytes()[0] - b'a' + 1)),
        )
    };
    assert_eq!(
        render(&state, &TreeEdits::removing([pair("c")])),
        "{\n  \"a\": 1,\n  \"b\": 2\n}\n"
    );
    assert_eq!(
        render(&state, &TreeEdits::removing([pair("a")])),
        "{\n  \"b\": 2,\n  \"c\": 3\n}\n"
    );
    assert_eq!(
        render(&state, &TreeEdits::removing([pair("b")])),
        "{\n  \"a\": 1,\n  \"c\": 3\n}\n"
    );
    assert_eq!(
        render(
            &state,
            &TreeEdits::removing([pair("a"), pair("b"), pair("c")])
        ),
        "{\n}\n"
    );
}

#[test]
#[cfg_attr(
    not(feature = "lang-javascript"),
    ignore = "needs the JavaScript grammar (cargo feature lang-javascript)"
)]
fn trailing_separators_and_holes_survive() {
    let tree = tree_of("javascript", "f([1, , 3,]);\n", Preprocess::default());
    let state = TreeState::new(tree.clone());
    assert_eq!(state.text(), b"f([1, , 3,]);\n");
    let three = find(&tree, "number", "3");
    assert_eq!(
        render(&state, &TreeEdits::removing([three])),
        "f([1, ,]);\n"
    );
}

#[test]
#[cfg_attr(
    not(feature = "lang-c"),
    ignore = "needs the C grammar (cargo feature lang-c)"
)]
fn declarator_lists_keep_their_type() {
    let tree = tree_of(
        "c",
        "struct s { int x, y; };\nint a = 1, b;\n",
        Preprocess::default(),
    );
    let state = TreeState::new(tree.clone());
    let x = find(&tree, "field_identifier", "x");
    assert_eq!(
        render(&state, &TreeEdits::removing([x])),
        "struct s { int y; };\nint a = 1, b;\n"
    );
    let b = find(&tree, "identifier", "b");
    assert_eq!(
        render(&state, &TreeEdits::removing([b])),
        "struct s { int x, y; };\nint a = 1;\n"
    );
}

#[test]
#[cfg_attr(
    not(feature = "lang-c"),
    ignore = "needs the C grammar (cargo feature lang-c)"
)]
fn removals_join_tokens_sensibly() {
    let tree = tree_of("c", "int a;\nint b;\n\nint c;\n", Preprocess::default());
    let state = TreeState::new(tree.clone());
    let b = find(&tree, "declaration", "int b;");
    assert_eq!(
        render(&state, &TreeEdits::removing([b])),
        "int a;\n\nint c;\n"
    );
    let a = find(&tree, "declaration", "int a;");
    assert_eq!(render(&state, &TreeEdits::removing([a, b])), "int c;\n");

    // Two words made adjacent by a removal keep a space between them.
    let tree = tree_of("c", "unsigned/*c*/int x;", Preprocess::default());
    let state = TreeState::new(tree.clone());
    let comment = find(&tree, "comment", "/*c*/");
    assert_eq!(
        render(&state, &TreeEdits::removing([comment])),
        "unsigned int x;"
    );

    // A removed region that held a line break leaves one.
    let tree = tree_of("c", "x = 1;/*a\nb*/y = 2;", Preprocess::default());
    let state = TreeState::new(tree.clone());
    let comment = find(&tree, "comment", "/*a\nb*/");
    assert_eq!(
        render(&state, &TreeEdits::removing([comment])),
        "x = 1;\ny = 2;"
    );
}

#[test]
#[cfg_attr(
    not(feature = "lang-c"),
    ignore = "needs the C grammar (cargo feature lang-c)"
)]
fn removal_prints_phi_when_the_position_is_required() {
    let tree = tree_of(
        "c",
        "int f(void) {\n    if (x > 1) {\n        g();\n    }\n}\n",
        Preprocess::default(),
    );
    let state = TreeState::new(tree.clone());
    // The place takes any expression: the shortest one, not the shortest binary expression.
    let condition = find(&tree, "binary_expression", "x > 1");
    assert!(!tree.is_phi_empty(condition));
    assert_eq!(
        render(&state, &TreeEdits::removing([condition])),
        "int f(void) {\n    if (0) {\n        g();\n    }\n}\n"
    );
    // The body takes any statement: the empty one.
    let body = find(&tree, "compound_statement", "{\n        g();\n    }");
    assert_eq!(
        render(&state, &TreeEdits::removing([body])),
        "int f(void) {\n    if (x > 1) ;\n}\n"
    );
}

#[test]
#[cfg_attr(
    not(feature = "lang-python"),
    ignore = "needs the Python grammar (cargo feature lang-python)"
)]
fn python_removals_keep_indentation() {
    let text = "def f(x):\n    if x:\n        a = 1\n        b = 2\n    return x\n";
    let tree = tree_of("python", text, Preprocess::default());
    let state = TreeState::new(tree.clone());
    let b = find(&tree, "expression_statement", "b = 2");
    assert_eq!(
        render(&state, &TreeEdits::removing([b])),
        "def f(x):\n    if x:\n        a = 1\n    return x\n"
    );
    let a = find(&tree, "expression_statement", "a = 1");
    assert_eq!(
        render(&state, &TreeEdits::removing([a])),
        "def f(x):\n    if x:\n        b = 2\n    return x\n"
    );
    let block = find(&tree, "block", "a = 1\n        b = 2");
    assert_eq!(
        render(&state, &TreeEdits::removing([block])),
        "def f(x):\n    if x:\n        pass\n    return x\n"
    );
}

#[test]
#[cfg_attr(
    not(feature = "lang-c"),
    ignore = "needs the C grammar (cargo feature lang-c)"
)]
fn hoisting_moves_a_descendant_into_place() {
    let hello = "int main() {\n    if (1) {\n        printf(\"Hello world!\\n\");\n    }\n}\n";
    let tree = tree_of("c", hello, Preprocess::default());
    let state = TreeState::new(tree.clone());
    let body = tree
        .ids()
        .find(|&id| tree.kind(id) == "compound_statement")
        .unwrap();
    let inner = find(
        &tree,
        "compound_statement",
        "{\n        printf(\"Hello world!\\n\");\n    }",
    );
    let candidates = state.hoist_candidates(body);
    assert!(
        candidates.iter().any(|&(node, _)| node == inner),
        "{candidates:?}"
    );
    // The hoisted block moves left by the indentation it gained.
    assert_eq!(
        render(&state, &TreeEdits::hoisting(body, inner)),
        "int main() {\n    printf(\"Hello world!\\n\");\n}\n"
    );
    let if_statement = tree
        .ids()
        .find(|&id| tree.kind(id) == "if_statement")
        .unwrap();
    assert!(
        tree.compatible(if_statement, inner),
        "statements share a supertype"
    );
    assert_eq!(
        render(&state, &TreeEdits::hoisting(if_statement, inner)),
        "int main() {\n    {\n        printf(\"Hello world!\\n\");\n    }\n}\n"
    );
}

#[test]
#[cfg_attr(
    not(feature = "lang-java"),
    ignore = "needs the Java grammar (cargo feature lang-java)"
)]
fn hoisting_an_argument_into_a_call() {
    let tree = tree_of(
        "java",
        "class A { void m() { String a = f(\"3\", g(args[0])); } }",
        Preprocess::default(),
    );
    let state = TreeState::new(tree.clone());
    let outer = find(&tree, "method_invocation", "f(\"3\", g(args[0]))");
    let inner = find(&tree, "method_invocation", "g(args[0])");
    let candidates = state.hoist_candidates(outer);
    assert!(
        candidates.iter().any(|&(node, _)| node == inner),
        "{candidates:?}"
    );
    assert_eq!(
        render(&state, &TreeEdits::hoisting(outer, inner)),
        "class A { void m() { String a = g(args[0]); } }"
    );
}

/// A node hoisted into an indented place keeps the place's indentation on its first line; its
/// other lines move left by the difference of the two lines' indentations (also after a
/// removed sibling, whose whitespace the place's replaces).
#[test]
#[cfg_attr(
    not(feature = "lang-json"),
    ignore = "needs the JSON grammar (cargo feature lang-json)"
)]
fn a_hoisted_node_keeps_its_place_s_indentation() {
    let text = "[\n  {\n    \"x\": 0\n  },\n  {\n    \"meta\": {\n      \"a\": 1\n    }\n  }\n]\n";
    let tree = tree_of("json", text, Preprocess::default());
    let state = TreeState::new(tree.clone());
    let first = find(&tree, "object", "{\n    \"x\": 0\n  }");
    let item = find(
        &tree,
        "object",
        "{\n    \"meta\": {\n      \"a\": 1\n    }\n  }",
    );
    let meta = find(&tree, "object", "{\n      \"a\": 1\n    }");
    assert_eq!(
        render(&state, &TreeEdits::hoisting(item, meta)),
        "[\n  {\n    \"x\": 0\n  },\n  {\n    \"a\": 1\n  }\n]\n"
    );
    let mut both = TreeEdits::removing([first]);
    both.hoist(item, meta);
    assert_eq!(render(&state, &both), "[\n  {\n    \"a\": 1\n  }\n]\n");
}

#[test]
#[cfg_attr(
    not(feature = "lang-json"),
    ignore = "needs the JSON grammar (cargo feature lang-json)"
)]
fn commits_match_candidates_and_update_listings() {
    let text = "{\"a\": [1, 2, 3], \"b\": {\"c\": [4]}, \"d\": null}";
    let tree = tree_of("json", text, Preprocess::default());
    let mut state = TreeState::new(tree.clone());
    let root = state.root().unwrap();
    assert_eq!(state.level(0), vec![root]);
    let pairs: Vec<NodeId> = state
        .level(1)
        .into_iter()
        .filter(|&id| tree.kind(id) == "pair")
        .collect();
    assert_eq!(pairs.len(), 3);

    let candidate = TreeEdits::removing([pairs[2]]);
    let rendered = state.render(&candidate);
    state.commit(&candidate);
    assert_eq!(state.text(), rendered);
    assert_eq!(state.node_state(pairs[2]), NodeState::Removed);
    assert!(
        !state.level(1).contains(&pairs[2]),
        "removed nodes are not listed"
    );
    assert!(!state.children(root).contains(&pairs[2]));

    // Hoist the value of "b" ({"c": [4]}) to its inner array: the place now shows the array.
    let object_b = find(&tree, "object", "{\"c\": [4]}");
    let array_4 = find(&tree, "array", "[4]");
    assert!(
        state
            .hoist_candidates(object_b)
            .iter()
            .any(|&(node, _)| node == array_4)
    );
    let candidate = TreeEdits::hoisting(object_b, array_4);
    let rendered = String::from_utf8(state.render(&candidate)).unwrap();
    assert_eq!(rendered, "{\"a\": [1, 2, 3], \"b\": [4]}");
    state.commit(&candidate);
    assert_eq!(state.text(), rendered.as_bytes());
    assert_eq!(state.visible(object_b), Some(array_4));
    assert_eq!(state.children(object_b), state.children(array_4));
    assert_eq!(state.place_of(array_4), object_b);
    let pair_b = state
        .level(1)
        .into_iter()
        .find(|&id| tree.text(id).starts_with(b"\"b\""))
        .unwrap();
    assert!(
        state.children(pair_b).contains(&array_4),
        "the hoisted node sits at its place's depth"
    );

    assert_eq!(state.next_level(&state.level(1)), state.level(2));
    assert_eq!(state.next_level(&state.level(2)), state.level(3));

    // Further candidates build on the committed state.
    let one = find(&tree, "number", "1");
    let three = find(&tree, "number", "3");
    assert_eq!(
        String::from_utf8(state.render(&TreeEdits::removing([one, three]))).unwrap(),
        "{\"a\": [2], \"b\": [4]}"
    );
    let mut combined = TreeEdits::removing([one]);
    combined.hoist(pairs[0], pairs[0]);
    assert_eq!(
        String::from_utf8(state.render(&combined)).unwrap(),
        "{\"a\": [2, 3], \"b\": [4]}"
    );
}

#[test]
#[cfg_attr(
    not(feature = "lang-json"),
    ignore = "needs the JSON grammar (cargo feature lang-json)"
)]
fn rendering_in_parallel_gives_the_sequential_result() {
    let (path, language) = common::tree::fixtures_of("json")
        .into_iter()
        .next()
        .expect("a JSON fixture");
    let tree = common::tree::parse(&path, language, Preprocess::default());
    let state = TreeState::new(tree.clone());
    let removable: Vec<NodeId> = tree.ids().filter(|&id| tree.is_removable(id)).collect();
    let candidates: Vec<TreeEdits> = removable
        .chunks(7)
        .map(|chunk| TreeEdits::removing(chunk.iter().copied()))
        .collect();
    let sequential: Vec<Vec<u8>> = candidates.iter().map(|c| state.render(c)).collect();
    let parallel: Vec<Vec<u8>> = std::thread::scope(|scope| {
        let handles: Vec<_> = candidates
            .iter()
            .map(|c| scope.spawn(|| state.render(c)))
            .collect();
        handles.into_iter().map(|h| h.join().unwrap()).collect()
    });
    assert_eq!(sequential, parallel);
}

#[test]
#[cfg_attr(
    not(all(feature = "lang-c", feature = "lang-json")),
    ignore = "needs the C and JSON grammars (cargo features lang-c, lang-json)"
)]
fn preprocessing_squeezes_flattens_and_marks() {
    let tree = tree_of("json", "{\"a\": 1}", Preprocess::default());
    assert_eq!(
        tree.kind(tree.root()),
        "object",
        "the document's single child takes its place"
    );
    let plain = tree_of("json", "{\"a\": 1}", Preprocess::none());
    assert_eq!(plain.kind(plain.root()), "document");

    let one = find(&tree, "number", "1");
    assert!(!tree.is_removable(one), "`1` is no longer than Φ `0`");
    assert!(plain.is_removable(find(&plain, "number", "1")));

    let source = "int f() { return a + b + c; }";
    let tree = tree_of("c", source, Preprocess::default());
    let sum = find(&tree, "binary_expression", "a + b + c");
    let kinds: Vec<&str> = tree.children(sum).map(|child| tree.kind(child)).collect();
    assert_eq!(kinds, ["identifier", "+", "identifier", "(rest)"]);
    let rest = tree.children(sum).last().unwrap();
    assert!(tree.is_phi_empty(rest));
    let state = TreeState::new(tree.clone());
    assert_eq!(
        render(&state, &TreeEdits::removing([rest])),
        "int f() { return a + b; }"
    );
    let plain = tree_of("c", source, Preprocess::none());
    let sum = find(&plain, "binary_expression", "a + b + c");
    let kinds: Vec<&str> = plain.children(sum).map(|child| plain.kind(child)).collect();
    assert_eq!(kinds, ["binary_expression", "+", "identifier"]);
}

#[test]
#[cfg_attr(
    not(feature = "lang-c"),
    ignore = "needs the C grammar (cargo feature lang-c)"
)]
fn syntax_guard_rejects_new_errors_only() {
    let c = Language::by_name("c").unwrap();
    let guard = SyntaxGuard::new(c, b"int main(void) { return 0; }").unwrap();
    assert_eq!(guard.best_errors(), 0);
    assert!(guard.admits(b"int main(void) { }"));
    assert!(guard.admits(b""));
    assert!(!guard.admits(b"int main(void) { return 0; "));
    assert!(!guard.admits(b"int main(void) { return (0; }"));
    std::thread::scope(|scope| {
        for _ in 0..4 {
            scope.spawn(|| {
                for _ in 0..20 {
                    assert!(guard.admits(b"int x;"));
                    assert!(!guard.admits(b"int x = (((;"));
                }
            });
        }
    });
    guard.rebase(b"int main(void) { return (0; }");
    assert!(guard.best_errors() > 0);
    assert!(guard.admits(b"int main(void) { return (0; }"));
    assert!(!guard.admits(b"int main(void) { return (0; } }} int ("));
}

#[test]
fn copying_untouched_subtrees_changes_nothing() {
    for (path, language) in common::tree::fixtures() {
        let tree = common::tree::parse(&path, language, Preprocess::default());
        let mut state = TreeState::new(tree.clone());
        let removable: Vec<NodeId> = tree.ids().filter(|&id| tree.is_removable(id)).collect();
        let hoists: Vec<(NodeId, NodeId)> = tree
            .ids()
            .filter_map(|id| {
                state
                    .hoist_candidates(id)
                    .first()
                    .map(|&(target, _)| (id, target))
            })
            .collect();
        let (mut fast, mut slow) = (Vec::new(), Vec::new());
        for round in 0..3 {
            for (step, offset) in [(3, 0), (5, 2), (11, 7), (29, 1)] {
                let mut candidate = TreeEdits::removing(
                    removable.iter().skip(offset + round).step_by(step).copied(),
                );
                if let Some(&(node, target)) = hoists.get(step + round) {
                    candidate.hoist(node, target);
                }
                state.render_into(&candidate, &mut fast);
                state.render_token_by_token_into(&candidate, &mut slow);
                assert!(
                    fast == slow,
                    "{}: round {round}, every {step}th from {offset}",
                    path.display()
                );
            }
            // Commit some edits and go on from there.
            let mut commit = TreeEdits::removing(removable.iter().skip(round).step_by(17).copied());
            if let Some(&(node, target)) = hoists.get(round * 3) {
                commit.hoist(node, target);
            }
            state.commit(&commit);
        }
    }
}

/// Where nodes are in the rendering of a state with committed edits: every visible node whose
/// subtree holds no edit shows its own text there, and hoisted nodes show theirs at their place.
#[test]
#[cfg_attr(
    not(feature = "lang-c"),
    ignore = "needs the C grammar (cargo feature lang-c)"
)]
fn layouts_find_nodes_in_the_edited_text() {
    let source = "int main() {\n    int x = 1;\n    if (1) {\n        printf(\"hi\");\n    }\n    return x;\n}\n";
    let tree = tree_of("c", source, Preprocess::default());
    let mut state = TreeState::new(tree.clone());
    let declaration = find(&tree, "declaration", "int x = 1;");
    let if_statement = tree
        .ids()
        .find(|&id| tree.kind(id) == "if_statement")
        .unwrap();
    let call = tree
        .ids()
        .find(|&id| tree.kind(id) == "expression_statement" && tree.text(id).starts_with(b"printf"))
        .unwrap();
    state.commit(&TreeEdits::removing([declaration]));
    state.commit(&TreeEdits::hoisting(if_statement, call));
    let text = state.text();
    let layout = state.layout(&TreeEdits::new());
    // Inside an edit: the removed declaration, the if statement around the call.
    let inside = |ancestor: NodeId, id: NodeId| id == ancestor || tree.is_descendant(ancestor, id);
    let edited =
        |id: NodeId| inside(declaration, id) || inside(if_statement, id) && !inside(call, id);
    let mut checked = 0;
    for id in tree.ids() {
        let Some(visible) = state.visible(id) else {
            continue;
        };
        if visible != id || tree.byte_range(id).is_empty() {
            continue;
        }
        let span = state.span_in(&layout, id);
        if tree.is_descendant(id, declaration) || tree.is_descendant(id, if_statement) {
            // Ancestors of an edit: their text changed, but they still start and end where
            // their first and last tokens are.
            let span = span.expect("an ancestor is written");
            assert!(span.start <= span.end && span.end <= text.len());
            continue;
        }
        if edited(id) {
            continue;
        }
        let span = span.unwrap_or_else(|| panic!("{} is written", tree.kind(id)));
        assert_eq!(&text[span], tree.text(id), "{}", tree.kind(id));
        checked += 1;
    }
    assert!(checked > 10, "{checked} nodes checked");
    // The hoisted call stands where the if statement stood.
    let span = state.span_in(&layout, call).unwrap();
    assert_eq!(&text[span.clone()], b"printf(\"hi\");");
    // At the if statement's indentation, after the removed declaration.
    assert_eq!(
        &text[..span.start],
        b"int main() {\n    " as &[u8],
        "{}",
        String::from_utf8_lossy(&text)
    );
    // An unedited state: every node is where the parse put it.
    let fresh = TreeState::new(tree.clone());
    let layout = fresh.layout(&TreeEdits::new());
    for id in tree.ids().filter(|&id| !tree.byte_range(id).is_empty()) {
        assert_eq!(fresh.span_in(&layout, id), Some(tree.byte_range(id)));
    }
}

/// The outermost nodes `Tree::in_loop_control` marks, by their text.
fn loop_controls(language: &str, text: &str) -> Vec<String> {
    let tree = tree_of(language, text, Preprocess::default());
    tree.ids()
        .filter(|&id| {
            tree.in_loop_control(id) && !tree.parent(id).is_some_and(|p| tree.in_loop_control(p))
        })
        .map(|id| String::from_utf8_lossy(tree.text(id)).into_owned())
        .collect()
}

#[test]
#[cfg_attr(
    not(feature = "lang-c"),
    ignore = "needs the C grammar (cargo feature lang-c)"
)]
fn loop_control_is_a_loops_condition_and_update_not_its_initializer_body_or_an_if() {
    let c = "int f(int n) { int s = 0; for (int i = 0; i < n; i++) s += i; \
             while (s > 3) s--; do s++; while (s < 2); if (s) return s; return 0; }";
    assert_eq!(
        loop_controls("c", c),
        ["i < n", "i++", "(s > 3)", "(s < 2)"]
    );
    if common::tree::available("javascript") {
        let js = "for (let i = 0; i < 3; i += 1) { f(i); } if (x) { y(); }";
        // The grammar puts the condition's `;` in the condition's field.
        assert_eq!(loop_controls("javascript", js), ["i < 3", ";", "i += 1"]);
    }
}

/// A hoisted block whose first statement is removed: the next statement takes the place's
/// whitespace, at the place's indentation.
#[test]
#[cfg_attr(
    not(feature = "lang-python"),
    ignore = "needs the Python grammar (cargo feature lang-python)"
)]
fn a_hoisted_block_without_its_first_statement_keeps_the_place_s_indentation() {
    let text = "def f():\n    x = 0\n    if x:\n        a = 1\n        b = 2\n    return x\n";
    let tree = tree_of("python", text, Preprocess::default());
    let state = TreeState::new(tree.clone());
    let branch = find(&tree, "if_statement", "if x:\n        a = 1\n        b = 2");
    let block = find(&tree, "block", "a = 1\n        b = 2");
    let first = find(&tree, "expression_statement", "a = 1");
    let mut edits = TreeEdits::hoisting(branch, block);
    assert_eq!(
        render(&state, &edits),
        "def f():\n    x = 0\n    a = 1\n    b = 2\n    return x\n"
    );
    edits.remove_all([first]);
    assert_eq!(
        render(&state, &edits),
        "def f():\n    x = 0\n    b = 2\n    return x\n"
    );
}

/// A node is in the current text unless a node on its way up is removed or hoisted to a node
/// that does not hold it.
#[test]
#[cfg_attr(
    not(feature = "lang-c"),
    ignore = "needs the C grammar (cargo feature lang-c)"
)]
fn a_node_is_shown_while_no_edit_above_it_drops_it() {
    let text = "int main() {\n    if (1) {\n        f(a);\n    }\n    g(b);\n}\n";
    let tree = tree_of("c", text, Preprocess::default());
    let body = find(&tree, "compound_statement", &text[11..text.len() - 1]);
    let block = find(&tree, "compound_statement", "{\n        f(a);\n    }");
    let a = find(&tree, "identifier", "a");
    let b = find(&tree, "identifier", "b");
    let mut state = TreeState::new(tree.clone());
    assert!(state.is_shown(a) && state.is_shown(b));
    state.commit(&TreeEdits::hoisting(body, block));
    assert_eq!(state.text(), b"int main() {\n    f(a);\n}\n");
    assert!(state.is_shown(a), "inside the hoisted block");
    assert!(!state.is_shown(b), "beside the hoisted block");
    state.commit(&TreeEdits::removing([find(
        &tree,
        "expression_statement",
        "f(a);",
    )]));
    assert!(!state.is_shown(a), "its statement is removed");
}
