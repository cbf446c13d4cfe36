//! Unparsing an unedited tree gives the input back byte for byte, for every language's fixtures,
//! the examples and the benchmark inputs, with and without preprocessing; the tokens and their whitespace
//! cover the input exactly.

mod common;

use whittle_core::tree::{Preprocess, Tree, TreeEdits, TreeState};

fn assert_tokens_tile_input(tree: &Tree, label: &str) {
    let mut rebuilt = Vec::with_capacity(tree.source().len());
    for id in tree.ids().filter(|&id| tree.is_token(id)) {
        let trivia = tree.leading_trivia(id);
        assert!(
            trivia.iter().all(u8::is_ascii_whitespace),
            "{label}: the whitespace before {} {:?} holds text {:?}",
            tree.kind(id),
            tree.byte_range(id),
            String::from_utf8_lossy(trivia)
        );
        rebuilt.extend_from_slice(trivia);
        rebuilt.extend_from_slice(tree.text(id));
    }
    rebuilt.extend_from_slice(tree.trailing_trivia());
    assert!(
        rebuilt == tree.source(),
        "{label}: tokens and whitespace do not tile the input"
    );
}

fn assert_structure(tree: &Tree, label: &str) {
    for id in tree.ids() {
        if let Some(parent) = tree.parent(id) {
            assert!(parent < id, "{label}: parent after child");
            assert!(tree.is_descendant(parent, id));
            assert_eq!(tree.depth(id), tree.depth(parent) + 1, "{label}: depth");
            assert!(
                tree.children(parent).any(|child| child == id),
                "{label}: child not listed"
            );
        } else {
            assert_eq!(id, tree.root(), "{label}: only the root has no parent");
        }
        let range = tree.byte_range(id);
        for child in tree.children(id) {
            let inner = tree.byte_range(child);
            assert!(
                range.start <= inner.start && inner.end <= range.end,
                "{label}: child outside parent"
            );
        }
    }
}

fn check(path: &std::path::Path, language: &'static whittle_core::tree::Language) {
    for preprocess in [Preprocess::default(), Preprocess::none()] {
        let tree = common::tree::parse(path, language, preprocess);
        let label = format!("{} ({preprocess:?})", path.display());
        assert_tokens_tile_input(&tree, &label);
        assert_structure(&tree, &label);
        let state = TreeState::new(tree.clone());
        assert!(
            state.text() == tree.source(),
            "{label}: unparse differs from the input"
        );
        let mut text = Vec::new();
        state.render_token_by_token_into(&TreeEdits::new(), &mut text);
        assert!(
            text == tree.source(),
            "{label}: token-by-token unparse differs from the input"
        );
    }
}

#[test]
fn fixtures_round_trip() {
    let fixtures = common::tree::fixtures();
    let languages: std::collections::BTreeSet<&str> =
        fixtures.iter().map(|(_, l)| l.name()).collect();
    let expected = whittle_core::tree::languages()
        .iter()
        .filter(|l| l.is_available())
        .count();
    assert_eq!(
        languages.len(),
        expected,
        "every compiled-in language has fixtures: {languages:?}"
    );
    for (path, language) in fixtures {
        check(&path, language);
    }
}

#[test]
#[cfg_attr(
    not(all(feature = "lang-c", feature = "lang-java")),
    ignore = "needs the C and Java grammars (cargo features lang-c, lang-java)"
)]
fn example_inputs_round_trip() {
    let inputs = common::tree::example_inputs();
    let count = |extension: &str| {
        inputs
            .iter()
            .filter(|(path, _)| path.extension().is_some_and(|e| e == extension))
            .count()
    };
    assert!(count("c") >= 5, "the C examples: {inputs:?}");
    assert!(count("java") >= 1, "the Java example: {inputs:?}");
    for (path, language) in inputs {
        check(&path, language);
    }
}

/// The inputs of the benchmark tasks, which are not part of the repository: run with
/// `WHITTLE_BENCH_DIR=<a folder of task folders> cargo test -- --ignored`.
#[test]
#[ignore = "needs the benchmark tasks: set WHITTLE_BENCH_DIR to their folder"]
fn benchmark_inputs_round_trip() {
    let dir = std::env::var_os("WHITTLE_BENCH_DIR")
        .expect("WHITTLE_BENCH_DIR names the folder of the benchmark tasks");
    let inputs = common::tree::parsable_files(std::path::Path::new(&dir));
    assert!(
        !inputs.is_empty(),
        "no input in a language this build parses under {}",
        std::path::Path::new(&dir).display()
    );
    for (path, language) in inputs {
        check(&path, language);
    }
}

#[test]
fn odd_inputs_round_trip() {
    let cases: &[(&str, &[u8])] = &[
        ("c", b""),
        ("c", b"   \n\t "),
        ("c", b"\n\nint x;\n\n\n"),
        ("c", b"int main( { return 0 }}}"),
        ("c", b"/* only a comment */"),
        ("c", b"\xef\xbb\xbfint \xff\xfe x;"),
        ("json", b"[1,2,,3]"),
        ("json", b"{\"a\":1}trailing garbage"),
        ("json", b"\"unterminated"),
    ];
    for &(name, input) in cases {
        if !common::tree::available(name) {
            continue;
        }
        let language = whittle_core::tree::Language::by_name(name).unwrap();
        for preprocess in [Preprocess::default(), Preprocess::none()] {
            let tree = whittle_core::tree::parse(language, input.to_vec(), preprocess).unwrap();
            let label = format!("{name} {:?}", String::from_utf8_lossy(input));
            assert_tokens_tile_input(&tree, &label);
            assert_structure(&tree, &label);
            let state = TreeState::new(tree.clone());
            assert_eq!(state.text(), input, "{label}");
            let mut text = Vec::new();
            state.render_token_by_token_into(&TreeEdits::new(), &mut text);
            assert_eq!(text, input, "{label}");
        }
    }
}
