//! ddmin over blocks of lines (`ddmin:block`), the structure of texts without a grammar: a
//! module of functions goes to what one of them needs in a few tests where lines alone cannot
//! go anywhere, the default pipeline for such texts does the same, a block goes with the blocks
//! that use what it defines (unless names may stay undefined), and on random nested texts the
//! result keeps what the test needs and no block of any level that it does not.

mod common;

use std::collections::BTreeSet;
use std::ops::Range;
use std::sync::Arc;

use common::job::{reduce, text};
use proptest::prelude::*;
use whittle_core::algorithms::blocks;
use whittle_core::engine::pipeline::Settings;
use whittle_core::exec::oracle::predicate;

/// Settings of a reduction of a text without a language with `pipeline` (the default if none).
fn settings(pipeline: Option<&str>) -> Settings {
    Settings {
        algorithm: pipeline.map(|name| name.parse().expect("a valid pipeline")),
        jobs: 1,
        ..Settings::default()
    }
}

/// A module in the manner of LLVM's: functions `0..functions`, each calling the one before it
/// and reading its own metadata line, and the metadata lines `metadata`; function 7 holds the
/// bug.
fn module(functions: usize, metadata: Range<usize>) -> String {
    module_calling(functions, metadata, |k| k - 1)
}

/// [`module`] with function `k` (from 1) calling function `callee(k)`.
fn module_calling(functions: usize, metadata: Range<usize>, callee: fn(usize) -> usize) -> String {
    let mut out = String::from("target triple = \"x86_64\"\n\n");
    for k in 0..functions {
        out.push_str(&format!("define i32 @f{k}() {{\n"));
        if k > 0 {
            out.push_str(&format!("  %1 = call i32 @f{}(), !m !{k}\n", callee(k)));
        }
        if k == 7 {
            out.push_str("  bug\n");
        }
        let value = if k > 0 { "%1" } else { "0" };
        out.push_str(&format!("  ret i32 {value}\n}}\n\n"));
    }
    for k in metadata {
        out.push_str(&format!("!{k} = !{{}}\n"));
    }
    out
}

/// The module's test, a small verifier: functions (a header, calls, the bug, a return, `}`)
/// and metadata lines; every function called and every metadata line read is defined; a
/// function returns `%1` only after a call defines it (as in LLVM's numbered values, a line
/// that defines one cannot go while another reads it); the bug is inside a function.
fn well_formed_with_bug(text: &str) -> bool {
    let (mut inside, mut value, mut returned, mut bug) = (false, false, false, false);
    let mut needs = Vec::new();
    for line in text.lines() {
        if !inside {
            let item = line.is_empty()
                || line == "target triple = \"x86_64\""
                || (line.starts_with('!') && line.ends_with(" = !{}"));
            inside = line.starts_with("define i32 @f") && line.ends_with("() {");
            (value, returned) = (false, false);
            if !(item || inside) {
                return false;
            }
        } else if line == "}" {
            inside = false;
            if !returned {
                return false;
            }
        } else if let Some(call) = line.strip_prefix("  %1 = call i32 @") {
            let (callee, metadata) = call.split_once("(), !m !").unwrap_or(("?", "?"));
            needs.push(format!("define i32 @{callee}() {{"));
            needs.push(format!("!{metadata} = !{{}}"));
            value = true;
        } else if line == "  bug" {
            bug = true;
        } else if line == "  ret i32 0" || (line == "  ret i32 %1" && value) {
            returned = true;
        } else {
            return false;
        }
    }
    bug && !inside
        && needs
            .iter()
            .all(|need| text.lines().any(|line| line == need))
}

/// What the bug needs: functions 0 to 7 and the metadata they read (the target line goes).
fn needed() -> String {
    module(8, 1..8).replacen("target triple = \"x86_64\"\n\n", "", 1)
}

#[test]
fn a_module_goes_to_the_functions_the_bug_needs_by_blocks_and_not_by_lines() {
    let input = module(30, 0..30);
    let oracle = module_oracle;
    assert!(well_formed_with_bug(&input) && well_formed_with_bug(&needed()));
    let (by_blocks, stats) = reduce(input.as_bytes(), settings(Some("ddmin:block")), oracle());
    assert_eq!(text(&by_blocks), needed());
    // Lines alone find no smaller result, in more than twice the tests: most chunks of lines
    // cut a function or leave a name undefined.
    let (by_lines, line_stats) = reduce(input.as_bytes(), settings(Some("ddmin:line")), oracle());
    assert!(by_lines.len() >= by_blocks.len() && line_stats.oracle_runs > 2 * stats.oracle_runs);
    let (by_default, _) = reduce(input.as_bytes(), settings(None), oracle());
    // The default goes on from there: the rest of the text stages make the function call itself.
    assert_eq!(
        text(&by_default),
        "define i32 @f6() {\n  %1 = call i32 @f6(), !m !0\n  bug\n  ret i32 %1\n}\n!0 = !{}"
    );
}

/// The test of [`module`]s.
fn module_oracle() -> Arc<dyn whittle_core::exec::oracle::Oracle> {
    Arc::new(predicate("module", |c: &[u8]| {
        well_formed_with_bug(&text(c))
    }))
}

#[test]
fn a_block_goes_with_the_blocks_that_use_what_it_defines() {
    // Each function calls its parent in a binary heap and reads its own metadata line, all at
    // the end: a function goes only with the functions that call it, and theirs.
    let input = module_calling(150, 0..150, |k| (k - 1) / 2);
    let (result, stats) = reduce(
        input.as_bytes(),
        settings(Some("ddmin:block")),
        module_oracle(),
    );
    let function = |k: usize, callee: usize| {
        format!(
            "define i32 @f{k}() {{\n  %1 = call i32 @f{callee}(), !m !{k}\n  ret i32 %1\n}}\n\n"
        )
    };
    let expected = format!(
        "define i32 @f0() {{\n  ret i32 0\n}}\n\n{}{}{}!1 = !{{}}\n!3 = !{{}}\n!7 = !{{}}\n",
        function(1, 0),
        function(3, 1),
        function(7, 3).replace("  ret", "  bug\n  ret")
    );
    assert_eq!(text(&result), expected);
    // ddmin over the blocks without their uses: 465 tests.
    assert!(stats.oracle_runs <= 200, "{}", stats.oracle_runs);
}

#[test]
fn where_a_name_goes_without_its_definition_definitions_go_alone() {
    // Rules naming variables, as in make: a rule needs none of them defined.
    let mut input = String::new();
    for k in 0..40 {
        input.push_str(&format!("V{k} = {k}\n"));
    }
    for k in 0..40 {
        input.push_str(&format!("t{k}: $(V{k}) $(V{})\n\techo {k}\n", (k + 1) % 40));
    }
    let oracle = Arc::new(predicate("rule", |c: &[u8]| {
        text(c).lines().any(|line| line.starts_with("t17:"))
    }));
    let (result, stats) = reduce(input.as_bytes(), settings(Some("ddmin:block")), oracle);
    assert_eq!(text(&result), "t17: $(V17) $(V18)\n");
    // Two definitions removed alone settle it: 15 tests, where ddmin without the uses takes
    // 13 and with them 34.
    assert!(stats.oracle_runs <= 20, "{}", stats.oracle_runs);
}

/// A random nested text: blocks in braces, blocks by indentation and lines, each line named
/// uniquely (`n0`, `n1`, ...).
fn nested(depth: u32) -> impl Strategy<Value = Vec<Node>> {
    let leaf = Just(Node::Line).boxed();
    let node = leaf.prop_recursive(depth, 24, 4, |inner| {
        prop_oneof![
            Just(Node::Line),
            prop::collection::vec(inner.clone(), 1..4).prop_map(Node::Braces),
            prop::collection::vec(inner, 1..4).prop_map(Node::Indented),
        ]
    });
    prop::collection::vec(node, 1..6)
}

#[derive(Clone, Debug)]
enum Node {
    Line,
    Braces(Vec<Node>),
    Indented(Vec<Node>),
}

/// Writes `nodes` at `indent` columns, naming each line by a counter.
fn write(nodes: &[Node], indent: usize, count: &mut usize, out: &mut String) {
    for node in nodes {
        let name = format!("n{count}");
        *count += 1;
        let pad = " ".repeat(indent);
        match node {
            Node::Line => out.push_str(&format!("{pad}{name}\n")),
            Node::Braces(children) => {
                out.push_str(&format!("{pad}{name} {{\n"));
                write(children, indent + 2, count, out);
                out.push_str(&format!("{pad}}}\n"));
            }
            Node::Indented(children) => {
                out.push_str(&format!("{pad}{name}:\n"));
                write(children, indent + 2, count, out);
            }
        }
    }
}

/// The names of the lines of `text` (its words `nK`).
fn names(text: &str) -> BTreeSet<String> {
    text.split(|c: char| !c.is_ascii_alphanumeric())
        .filter(|word| word.starts_with('n') && word.len() > 1)
        .map(str::to_owned)
        .collect()
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(48))]

    #[test]
    fn blocks_keep_the_needed_lines_and_no_block_without_one(
        tree in nested(3),
        picks in prop::collection::vec(any::<prop::sample::Index>(), 1..4),
    ) {
        let mut input = String::new();
        write(&tree, 0, &mut 0, &mut input);
        let all: Vec<String> = names(&input).into_iter().collect();
        let needed: BTreeSet<String> = picks.iter().map(|pick| pick.get(&all).clone()).collect();
        let wanted = needed.clone();
        let oracle = Arc::new(predicate("names", move |c: &[u8]| {
            let have = names(&text(c));
            wanted.iter().all(|name| have.contains(name))
        }));
        let (result, _) = reduce(input.as_bytes(), settings(Some("ddmin:block")), oracle);
        let result = text(&result);
        let have = names(&result);
        prop_assert!(needed.iter().all(|name| have.contains(name)), "{result}");
        // Every block of every level of the result holds a needed line.
        for depth in 0.. {
            let Some(level) = blocks::level(result.as_bytes(), depth) else {
                break;
            };
            for (unit, span) in level.spans.iter().enumerate() {
                if level.fixed.contains(&(unit as u32)) {
                    continue;
                }
                let piece = &result[span.range()];
                prop_assert!(
                    names(piece).iter().any(|name| needed.contains(name)),
                    "level {depth}: `{piece}` could go from\n{result}"
                );
            }
        }
    }
}

#[test]
fn deep_nesting_costs_a_test_a_level_up_to_the_last_level_read() {
    let depth = 3000;
    let mut input = String::new();
    for i in 0..depth {
        input.push_str(&format!("a{i}{{\n"));
    }
    input.push_str(&"}\n".repeat(depth));
    let interesting = |needed: &'static str| {
        Arc::new(predicate("line", move |c: &[u8]| {
            text(c).lines().any(|line| line == needed)
        }))
    };
    // What is under the line needed goes at the level below it, in one test.
    let (result, stats) = reduce(
        input.as_bytes(),
        settings(Some("ddmin:block")),
        interesting("a3{"),
    );
    assert_eq!(text(&result), "a0{\na1{\na2{\na3{\n}\n}\n}\n}\n");
    assert!(stats.oracle_runs <= 8, "{}", stats.oracle_runs);
    // A line deeper than the levels read stays for the passes after, at a test a level.
    let (result, stats) = reduce(
        input.as_bytes(),
        settings(Some("ddmin:block")),
        interesting("a2999{"),
    );
    assert_eq!(result.len(), input.len());
    assert!(
        stats.oracle_runs <= blocks::MAX_DEPTH as u64 + 2,
        "{}",
        stats.oracle_runs
    );
}
