//! The minimal replacements Φ: spot checks of the generated tables, and on the fixtures the share
//! of nodes whose Φ (spliced in alone) or whose removal (as the reduction does it) re-parses
//! without new syntax errors.

mod common;

use whittle_core::tree::check::{CheckReport, phi_check, removal_check};
use whittle_core::tree::{Language, NodeId, Preprocess, Tree};

fn phi_of_kind(language: &str, kind: &str) -> Option<String> {
    let table = Language::by_name(language).ok()?.generated_table().ok()?;
    table.phi.get(kind).cloned()
}

#[test]
#[cfg_attr(
    not(feature = "lang-c"),
    ignore = "needs the C grammar (cargo feature lang-c)"
)]
fn phi_spot_checks_c() {
    assert_eq!(
        phi_of_kind("c", "compound_statement").as_deref(),
        Some("{}")
    );
    assert_eq!(
        phi_of_kind("c", "expression_statement").as_deref(),
        Some(";")
    );
    assert_eq!(phi_of_kind("c", "identifier").as_deref(), Some("A"));
    assert_eq!(phi_of_kind("c", "number_literal").as_deref(), Some("0"));
    assert_eq!(phi_of_kind("c", "string_literal").as_deref(), Some("\"\""));
    assert_eq!(phi_of_kind("c", "if_statement").as_deref(), Some("if(A);"));
}

#[test]
#[cfg_attr(
    not(feature = "lang-json"),
    ignore = "needs the JSON grammar (cargo feature lang-json)"
)]
fn phi_spot_checks_json() {
    assert_eq!(phi_of_kind("json", "object").as_deref(), Some("{}"));
    assert_eq!(phi_of_kind("json", "array").as_deref(), Some("[]"));
    assert_eq!(phi_of_kind("json", "string").as_deref(), Some("\"\""));
    assert_eq!(phi_of_kind("json", "pair").as_deref(), Some("\"\":0"));
}

#[test]
#[cfg_attr(
    not(feature = "lang-python"),
    ignore = "needs the Python grammar (cargo feature lang-python)"
)]
fn phi_spot_checks_python() {
    assert_eq!(
        phi_of_kind("python", "pass_statement").as_deref(),
        Some("pass")
    );
}

#[test]
#[cfg_attr(
    not(feature = "lang-javascript"),
    ignore = "needs the JavaScript grammar (cargo feature lang-javascript)"
)]
fn phi_spot_checks_javascript() {
    assert_eq!(
        phi_of_kind("javascript", "statement_block").as_deref(),
        Some("{}")
    );
    assert_eq!(
        phi_of_kind("javascript", "arguments").as_deref(),
        Some("()")
    );
}

#[test]
#[cfg_attr(
    not(feature = "lang-bash"),
    ignore = "needs the Bash grammar (cargo feature lang-bash)"
)]
fn phi_spot_checks_bash() {
    // Words need blanks between them and Bash refuses an empty list of commands.
    assert_eq!(
        phi_of_kind("bash", "if_statement").as_deref(),
        Some("if A;then A;fi")
    );
    assert_eq!(
        phi_of_kind("bash", "compound_statement").as_deref(),
        Some("{ A;}")
    );
    assert_eq!(
        phi_of_kind("bash", "simple_expansion").as_deref(),
        Some("$A")
    );
}

#[test]
#[cfg_attr(
    not(feature = "lang-json"),
    ignore = "needs the JSON grammar (cargo feature lang-json)"
)]
fn json_removal_prints_phi_or_nothing() {
    let language = Language::by_name("json").unwrap();
    let tree = whittle_core::tree::parse(
        language,
        br#"{"a": [1, 2], "b": {"c": 3}}"#.to_vec(),
        Preprocess::default(),
    )
    .unwrap();
    let find = |kind: &str, text: &str| {
        tree.ids()
            .find(|&id| tree.kind(id) == kind && tree.text(id) == text.as_bytes())
            .unwrap()
    };
    // A pair sits in a list: removing it prints nothing (and takes a comma with it).
    let pair = find("pair", r#""a": [1, 2]"#);
    assert!(tree.is_phi_empty(pair));
    assert_eq!(tree.replacement(pair), Some(&b""[..]));
    // A pair's value is required: removing it prints the shortest value its place allows (Φ of
    // the `_value` supertype, which tree-sitter hides), not just the shortest object.
    let value = find("object", r#"{"c": 3}"#);
    assert!(!tree.is_phi_empty(value));
    assert_eq!(tree.replacement(value), Some(&b"0"[..]));
    // A key must stay a string.
    let key = find("string", r#""b""#);
    assert_eq!(tree.replacement(key), Some(&b"\"\""[..]));
    // A number equal in length to Φ is never worth removing.
    let number = find("number", "1");
    assert!(tree.is_phi_empty(number), "array elements may go");
    let key = find("string_content", "c");
    assert!(!tree.is_removable(key), "\"c\" is no longer than Φ \"A\"");
}

#[test]
#[cfg_attr(
    not(feature = "lang-rust"),
    ignore = "needs the Rust grammar (cargo feature lang-rust)"
)]
fn list_elements_beside_their_separators_may_go_where_another_form_needs_them() {
    // Rust's array is `[x; n]` or a list `[a, b, c]`: the grammar's table calls its
    // expressions required (the first form needs them); in a list they may go.
    let language = Language::by_name("rust").unwrap();
    let source =
        b"const T: &[(&str, char)] = &[(\"a\", 'b'), (\"c\", 'd')];\nconst Z: [u8; 4] = [7; 4];\n";
    let tree = whittle_core::tree::parse(language, source.to_vec(), Preprocess::default()).unwrap();
    let find = |kind: &str, text: &str| {
        tree.ids()
            .find(|&id| tree.kind(id) == kind && tree.text(id) == text.as_bytes())
            .unwrap_or_else(|| panic!("no {kind} {text}"))
    };
    for element in [r#"("a", 'b')"#, r#"("c", 'd')"#] {
        let tuple = find("tuple_expression", element);
        assert!(tree.is_phi_empty(tuple), "{element} may go");
    }
    // `[7; 4]` took the other form: its element and length stay.
    let repeat = find("array_expression", "[7; 4]");
    let operands: Vec<NodeId> = tree
        .children(repeat)
        .filter(|&child| tree.kind(child) == "integer_literal")
        .collect();
    assert_eq!(operands.len(), 2);
    for operand in operands {
        assert!(!tree.is_phi_empty(operand));
    }
}

fn report(label: &str, report: &CheckReport, tree: &Tree) -> String {
    let mut out = format!(
        "{label}: {}/{} ({:.1}%)",
        report.valid,
        report.tried,
        100.0 * report.ratio()
    );
    for &id in report.invalid.iter().take(12) {
        out.push_str(&format!(
            "\n    {} {:?} {:?}",
            tree.kind(id),
            tree.byte_range(id),
            String::from_utf8_lossy(&tree.text(id)[..tree.text(id).len().min(40)])
        ));
    }
    out
}

/// Runs `check` on every fixture of the languages and asserts the overall share of valid edits.
fn assert_share(
    languages: &[&str],
    minimum: f64,
    what: &str,
    check: impl Fn(&std::sync::Arc<Tree>) -> CheckReport,
) {
    for &language in languages {
        let fixtures = common::tree::fixtures_of(language);
        if !common::tree::available(language) {
            continue;
        }
        assert!(!fixtures.is_empty(), "no fixtures for {language}");
        let (mut valid, mut tried) = (0, 0);
        let mut details = Vec::new();
        for (path, lang) in fixtures {
            let tree = common::tree::parse(&path, lang, Preprocess::default());
            let result = check(&tree);
            valid += result.valid;
            tried += result.tried;
            details.push(report(&path.display().to_string(), &result, &tree));
        }
        let share = if tried == 0 {
            1.0
        } else {
            valid as f64 / tried as f64
        };
        println!("{what} {language}: {valid}/{tried} ({:.1}%)", share * 100.0);
        assert!(tried > 0, "{what} {language}: nothing tried");
        assert!(
            share >= minimum,
            "{what} {language}: {:.1}% < {:.0}%\n{}",
            share * 100.0,
            minimum * 100.0,
            details.join("\n")
        );
    }
}

#[test]
fn phi_splices_parse() {
    assert_share(
        &[
            "c",
            "javascript",
            "json",
            "python",
            "rust",
            "java",
            "go",
            "bash",
            "ruby",
            "php",
            "csharp",
            "kotlin",
            "scala",
            "lua",
            "swift",
            "ocaml",
            "ocaml_interface",
            "haskell",
            "elixir",
            "sql",
        ],
        0.95,
        "phi-valid",
        |tree| phi_check(tree).unwrap(),
    );
}

#[test]
fn single_removals_parse() {
    assert_share(
        &[
            "c",
            "json",
            "javascript",
            "bash",
            "ruby",
            "php",
            "csharp",
            "kotlin",
            "scala",
            "lua",
            "swift",
            "ocaml",
            "ocaml_interface",
            "haskell",
            "elixir",
            "sql",
        ],
        0.95,
        "removal-valid",
        |tree| removal_check(tree).unwrap(),
    );
}

/// The tree of `source` in `language`, preprocessed as the reduction does it.
fn parsed(language: &str, source: &str) -> std::sync::Arc<Tree> {
    let language = Language::by_name(language).unwrap();
    whittle_core::tree::parse(language, source.as_bytes().to_vec(), Preprocess::default()).unwrap()
}

/// Each child of `kind` among the parse of `source` in `language`: its text and whether
/// removing it prints nothing.
fn children_phi_empty(language: &str, source: &str, kind: &str) -> Vec<(String, bool)> {
    let tree = parsed(language, source);
    let parent = tree.ids().find(|&id| tree.kind(id) == kind).unwrap();
    let children = tree.children(parent).filter(|&child| tree.is_named(child));
    texts_and(&tree, children, |child| tree.is_phi_empty(child))
}

/// Each of `nodes`' text, with what `flag` says of the node.
fn texts_and(
    tree: &Tree,
    nodes: impl Iterator<Item = NodeId>,
    flag: impl Fn(NodeId) -> bool,
) -> Vec<(String, bool)> {
    nodes
        .map(|node| {
            (
                String::from_utf8_lossy(tree.text(node)).into_owned(),
                flag(node),
            )
        })
        .collect()
}

/// A list written `x (separator x)*` whose separator is a choice of tokens (Go's newline or
/// `;`, Lua's `,` or `;`) or a scanner's layout token (Haskell's): its elements go without a
/// trace while one stays, like those of any other list (and a separator goes with them).
#[test]
#[cfg_attr(
    not(all(feature = "lang-go", feature = "lang-haskell", feature = "lang-lua")),
    ignore = "needs the Go, Haskell and Lua grammars (cargo features lang-go, lang-haskell, lang-lua)"
)]
fn elements_of_lists_with_separator_choices_may_go() {
    let lua = "local t = {a = 1; b = 2, 3}\n";
    assert_eq!(
        children_phi_empty("lua", lua, "table_constructor"),
        [
            ("a = 1".into(), true),
            ("b = 2".into(), true),
            ("3".into(), true)
        ]
    );
    let tree = parsed("lua", lua);
    let separators: Vec<&[u8]> = tree
        .ids()
        .filter(|&id| tree.is_list_separator(id))
        .map(|id| tree.text(id))
        .collect();
    assert_eq!(separators, [&b";"[..], b","]);
    let go = "package main\n\nfunc main() {\n\tx := 1\n\tprintln(x)\n}\n";
    assert_eq!(
        children_phi_empty("go", go, "statement_list"),
        [("x := 1".into(), true), ("println(x)".into(), true)]
    );
    let haskell = "module M where\nf :: Int\nf = 1\n";
    assert_eq!(
        children_phi_empty("haskell", haskell, "declarations"),
        [("f :: Int".into(), true), ("f = 1".into(), true)]
    );
}

/// The removable `(pair)` nodes of the parse of `source`: their texts, and whether each is a
/// detail (which the coarse variants leave alone).
fn pairs(language: &str, source: &str) -> Vec<(String, bool)> {
    let tree = parsed(language, source);
    let pairs = tree
        .ids()
        .filter(|&id| tree.kind(id) == "(pair)" && tree.is_phi_empty(id));
    texts_and(&tree, pairs, |pair| tree.is_detail(pair))
}

/// A child that the grammar pairs with a token in an optional place goes together with it: a
/// C++ class and its `;` at the top level (`seq(type, ';')` repeated), a Rust return type and
/// its `->`, a binding's type and its `:`, its value and its `=` (`optional(seq('->', type))`;
/// such a token and the child it introduces are details, for the fine variants only).
#[test]
#[cfg_attr(
    not(all(feature = "lang-cpp", feature = "lang-rust")),
    ignore = "needs the C++ and Rust grammars (cargo features lang-cpp, lang-rust)"
)]
fn a_child_and_the_token_the_grammar_pairs_it_with_go_together() {
    assert_eq!(
        pairs("cpp", "class D {};\nstruct E { int x; };\nint main() {}\n"),
        [
            ("class D {};".into(), false),
            ("struct E { int x; };".into(), false)
        ]
    );
    assert_eq!(
        pairs("rust", "fn f(x: u8) -> i32 { let y: u8 = 1; 0 }\n"),
        [
            ("-> i32".into(), true),
            (": u8".into(), true),
            ("= 1".into(), true)
        ]
    );
    // Without preprocessing the tree mirrors tree-sitter's.
    let language = Language::by_name("cpp").unwrap();
    let tree =
        whittle_core::tree::parse(language, b"class D {};".to_vec(), Preprocess::none()).unwrap();
    assert!(tree.ids().all(|id| tree.kind(id) != "(pair)"));
}
