//! The `-sweep` variants' first tests of a stage run: every comment removed at once, then every
//! docstring emptied at once, and what stays when the test needs one of them.

mod common;

use std::sync::{Arc, Mutex};

use common::job::{reduce, settings, text};
use whittle_core::exec::oracle::predicate;

/// The C input of the comment tests: five comments around three declarations, two needed.
const COMMENTED_C: &str = "/* header one */\n/* header two */\nint keep1; // note a\n\
// note b KEEP\nint drop1;\n/* note c */\nint keep2; /* note d */\n";

/// Python with docstrings: the module's, a function's and a class's, a string written as a
/// comment, a function whose body is only its docstring, and an f-string statement (it runs
/// code).
const DOCUMENTED_PYTHON: &str = r#""""Module doc."""
import os

def f(x):
    """Doc of f."""
    return x + 1

def g():
    """Only a docstring: the body needs it."""

class C:
    """Doc of C."""
    y = 2
    "A string as a comment."
    f"{print('runs')}"
"#;

/// Reduces `input` in `language` with `pipeline`, interesting while it holds every `needed`
/// text: the result's words and the words of every text the test was asked about, in order
/// (the input, the empty file, then the pipeline's own).
fn reduce_asking(
    language: &str,
    pipeline: &str,
    input: &str,
    needed: &'static [&'static str],
) -> (Vec<String>, Vec<Vec<String>>) {
    let asked = Arc::new(Mutex::new(Vec::new()));
    let log = Arc::clone(&asked);
    let oracle = predicate("needed words", move |c: &[u8]| {
        let candidate = text(c);
        let interesting = needed.iter().all(|word| candidate.contains(word));
        log.lock().unwrap().push(words(&candidate));
        interesting
    });
    let (result, _) = reduce(
        input.as_bytes(),
        settings(language, pipeline),
        Arc::new(oracle),
    );
    let asked = asked.lock().unwrap().clone();
    (words(&text(&result)), asked)
}

fn words(text: &str) -> Vec<String> {
    text.split_whitespace().map(str::to_owned).collect()
}

/// The `-sweep` variants try the tree without its comments first, in one test; the papers'
/// HDD^r does not.
#[test]
#[cfg_attr(
    not(feature = "lang-c"),
    ignore = "needs the C grammar (cargo feature lang-c)"
)]
fn sweeps_remove_every_comment_in_their_first_test() {
    let needed = &["keep1", "keep2"];
    let (result, asked) = reduce_asking("c", "hddhr-sweep", COMMENTED_C, needed);
    assert_eq!(result, words("int keep1; int keep2;"));
    let without_comments = words("int keep1; int drop1; int keep2;");
    assert_eq!(asked[2], without_comments);
    let (_, asked) = reduce_asking("c", "hddhr", COMMENTED_C, needed);
    assert_ne!(
        asked[2], without_comments,
        "HDD^r as the papers give it has no such step"
    );
}

/// A comment the test needs stays (the one test fails, the walk removes the others in its
/// sweeps): the result is 1-minimal all the same.
#[test]
#[cfg_attr(
    not(feature = "lang-c"),
    ignore = "needs the C grammar (cargo feature lang-c)"
)]
fn a_comment_the_test_needs_stays_and_the_others_go() {
    let (result, _) = reduce_asking("c", "hddhr-sweep", COMMENTED_C, &["keep1", "KEEP"]);
    assert_eq!(result, words("int keep1; // note b KEEP"));
}

/// A script's `#!` line is not among the comments removed at once (a test that runs the script
/// by its name needs it); the other comments go in that one test.
#[test]
#[cfg_attr(
    not(feature = "lang-python"),
    ignore = "needs the Python grammar (cargo feature lang-python)"
)]
fn the_comments_removed_at_once_leave_a_scripts_first_line() {
    let input = "#!/usr/bin/env python3\n# one\nx = 1  # two\ny = 2\n";
    let (result, asked) = reduce_asking("python", "hddhr-sweep", input, &["#!", "x"]);
    assert_eq!(result, words("#!/usr/bin/env python3 x = 1"));
    assert_eq!(asked[2], words("#!/usr/bin/env python3 x = 1 y = 2"));
}

/// Haskell's documentation comments (`-- |`, kind `haddock`) are comments too: the one test
/// removes them with the others.
#[test]
#[cfg_attr(
    not(feature = "lang-haskell"),
    ignore = "needs the Haskell grammar (cargo feature lang-haskell)"
)]
fn the_comments_removed_at_once_include_haskells_documentation() {
    let input = "-- | The answer.\nanswer :: Int\nanswer = 42 -- why\n\n-- | Unused.\nother = 1\n";
    let (_, asked) = reduce_asking("haskell", "hddhr-sweep", input, &["answer = 42"]);
    assert_eq!(asked[2], words("answer :: Int answer = 42 other = 1"));
}

/// The `-sweep` variants try the tree with its docstrings emptied in one test (after the
/// comments'): every statement that is only a string keeps its quotes (a body that is only its
/// docstring stays valid) and loses its text, but the f-string, which runs code.
#[test]
#[cfg_attr(
    not(feature = "lang-python"),
    ignore = "needs the Python grammar (cargo feature lang-python)"
)]
fn sweeps_empty_every_docstring_in_one_test() {
    let needed = &["x + 1", "y = 2"];
    let (result, asked) = reduce_asking("python", "hddhr-sweep", DOCUMENTED_PYTHON, needed);
    assert_eq!(result, words("def f(): return x + 1 class C: y = 2"));
    let emptied = r#""""""" import os def f(x): """""" return x + 1 def g(): """"""
        class C: """""" y = 2 "" f"{print('runs')}""#;
    assert_eq!(asked[2], words(emptied));
}

/// A docstring the test needs keeps its text (the one test that empties them all fails; the
/// sweeps then empty or remove the others one at a time).
#[test]
#[cfg_attr(
    not(feature = "lang-python"),
    ignore = "needs the Python grammar (cargo feature lang-python)"
)]
fn a_docstring_the_test_needs_keeps_its_text() {
    let needed = &["x + 1", "Doc of f."];
    let (result, _) = reduce_asking("python", "hddhr-sweep", DOCUMENTED_PYTHON, needed);
    assert_eq!(result, words(r#"def f(): """Doc of f.""" return x + 1"#));
}
