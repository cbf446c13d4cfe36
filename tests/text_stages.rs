//! The text stages (tokens, brackets, rename) and schedules on small inputs per language: exact
//! results, still interesting, and 1-minimal for the stage (no single edit the stage proposes on
//! the result is interesting); pins are never edited; parallel windows give the sequential
//! result. Tests that read a language's strings or keywords need its grammar (cargo feature).

use std::sync::Arc;

use whittle_core::algorithms::passes::brackets::BalancedRegions;
use whittle_core::algorithms::passes::rename::Rename;
use whittle_core::algorithms::passes::tokens::TokenWindows;
use whittle_core::algorithms::passes::{EditOptions, EditStage, Syntax, TextStage};
use whittle_core::algorithms::pins::Pins;
use whittle_core::engine::pipeline::{Settings, run_pipeline};
use whittle_core::exec::cache::CachePolicy;
use whittle_core::exec::oracle::{Oracle, predicate};
use whittle_core::observe::stats::Stats;
use whittle_core::params::Knobs;
use whittle_core::testing::control::Control;
use whittle_core::testing::tester::Tester;
use whittle_core::tree::Language;

type Predicate = Arc<dyn Fn(&str) -> bool + Send + Sync>;

/// Runs `pipeline` on `input` with an in-process test; returns the result and the statistics.
fn reduce(
    input: &str,
    pipeline: &str,
    language: Option<&str>,
    jobs: usize,
    interesting: Predicate,
) -> (String, Stats) {
    let check = interesting.clone();
    let oracle = predicate("test", move |c: &[u8]| {
        std::str::from_utf8(c).is_ok_and(|text| check(text))
    });
    assert!(interesting(input), "the input must be interesting");
    let mut tester = tester_on(input, oracle, jobs);
    let settings = Settings {
        algorithm: Some(pipeline.parse().unwrap()),
        language: language.map(str::to_owned),
        jobs,
        ..Settings::default()
    };
    run_pipeline(
        &mut tester,
        &settings,
        Arc::new(|_: &Arc<whittle_core::tree::Tree>| Vec::new()),
    )
    .unwrap();
    let result = String::from_utf8(tester.best().to_vec()).unwrap();
    assert!(
        interesting(&result),
        "the result must be interesting: {result:?}"
    );
    (result, tester.stats())
}

/// A tester whose best is `input`, judging with `oracle`, `jobs` tests at once.
fn tester_on(input: &str, oracle: impl Oracle + 'static, jobs: usize) -> Tester {
    let mut tester = Tester::new(
        Arc::new(oracle),
        CachePolicy::recommended(),
        Arc::new(Control::new(Knobs {
            jobs,
            ..Knobs::default()
        })),
    );
    tester.adopt_jobs().unwrap();
    tester.set_inline_below(None);
    tester.set_best(input.as_bytes().to_vec());
    tester
}

/// Whether no single edit `stage` proposes on `text` is interesting.
fn one_minimal(stage: &dyn EditStage, text: &str, interesting: &Predicate) -> bool {
    stage.edits(text.as_bytes(), 0).iter().all(|edit| {
        let mut out = Vec::new();
        edit.apply(text.as_bytes(), &mut out);
        out == text.as_bytes() || !std::str::from_utf8(&out).is_ok_and(|t| interesting(t))
    })
}

/// Reduces `input` with `pipeline` and checks that the result is `expected` and 1-minimal for
/// `stage`; returns the statistics.
fn assert_reduces_to(
    input: &str,
    pipeline: &str,
    language: Option<&str>,
    jobs: usize,
    interesting: &Predicate,
    stage: &dyn EditStage,
    expected: &str,
) -> Stats {
    let (result, stats) = reduce(input, pipeline, language, jobs, interesting.clone());
    assert_eq!(result, expected, "{pipeline} with {jobs} jobs");
    assert!(
        one_minimal(stage, &result, interesting),
        "{pipeline} with {jobs} jobs: {result:?}"
    );
    stats
}

/// [`assert_reduces_to`] for the `tokens` stage alone on C.
fn assert_tokens_on_c_reduce_to(
    input: &str,
    jobs: usize,
    interesting: &Predicate,
    expected: &str,
) -> Stats {
    let stage = TokenWindows::new(Syntax::CLike);
    assert_reduces_to(
        input,
        "tokens",
        Some("c"),
        jobs,
        interesting,
        &stage,
        expected,
    )
}

fn language(name: &str) -> Option<&'static Language> {
    Language::by_name(name).ok().filter(|l| l.is_available())
}

/// The rename stage for Python.
fn python_rename() -> Rename<'static> {
    Rename {
        syntax: Syntax::Python,
        language: language("python"),
    }
}

#[test]
#[cfg_attr(
    not(feature = "lang-c"),
    ignore = "needs the C grammar (cargo feature lang-c)"
)]
fn tokens_on_c() {
    let input = "int add(int a, int b) {\n    return a + b;\n}\n";
    let interesting: Predicate = Arc::new(|t: &str| t.contains("return") && t.contains('+'));
    // The braces go only together (the `brackets` stage), never one alone.
    let result = "{\n    return +\n}\n";
    for jobs in [1, 2] {
        let stats = assert_tokens_on_c_reduce_to(input, jobs, &interesting, result);
        assert_eq!(stats.stages.len(), 1);
        assert_eq!(stats.stages[0].name, "tokens");
        assert_eq!(
            stats.stages[0].bytes_removed,
            (input.len() - result.len()) as u64
        );
    }
}

#[test]
#[cfg_attr(
    not(feature = "lang-c"),
    ignore = "needs the C grammar (cargo feature lang-c)"
)]
fn tokens_keep_strings_and_comments_whole() {
    // A comment and a string literal are single tokens: deleting a window never splits one
    // (the windows of words inside one keep its delimiters).
    let input = "x = \"a b c\"; /* keep me */ y = 1;\n";
    let interesting: Predicate = Arc::new(|t: &str| {
        t.matches('"').count().is_multiple_of(2)
            && t.contains("/*") == t.contains("*/")
            && t.contains('y')
    });
    assert_tokens_on_c_reduce_to(input, 1, &interesting, "y\n");
}

/// A comment the test needs (a doc comment, a pragma) stays, and loses the words it does not
/// need, one window of words at a time.
#[test]
#[cfg_attr(
    not(feature = "lang-c"),
    ignore = "needs the C grammar (cargo feature lang-c)"
)]
fn tokens_delete_the_words_of_a_comment_the_test_needs() {
    let input = "int x; /* Establish a new connection, or fail */ int y;\n";
    let interesting: Predicate = Arc::new(|t: &str| {
        t.find("/*")
            .zip(t.find("*/"))
            .is_some_and(|(open, close)| open < close && t[open..close].contains("Establish"))
    });
    for jobs in [1, 2] {
        assert_tokens_on_c_reduce_to(input, jobs, &interesting, "/* Establish, */\n");
    }
}

#[test]
fn tokens_on_plain_text() {
    let input = "the quick brown fox jumps over the lazy dog\n";
    let interesting: Predicate = Arc::new(|t: &str| t.contains("fox") && t.contains("dog"));
    assert_reduces_to(
        input,
        "tokens",
        None,
        2,
        &interesting,
        &TokenWindows::new(Syntax::Plain),
        "fox dog\n",
    );
}

/// Balanced brackets, as a test for the bracket stage: every `(`, `[`, `{` closed in order.
fn balanced(text: &str) -> bool {
    let mut stack = Vec::new();
    for c in text.chars() {
        match c {
            '(' | '[' | '{' => stack.push(c),
            ')' | ']' | '}' => {
                let open = match c {
                    ')' => '(',
                    ']' => '[',
                    _ => '{',
                };
                if stack.pop() != Some(open) {
                    return false;
                }
            }
            _ => {}
        }
    }
    stack.is_empty()
}

#[test]
#[cfg_attr(
    not(feature = "lang-javascript"),
    ignore = "needs the JavaScript grammar (cargo feature lang-javascript)"
)]
fn brackets_on_javascript() {
    let input = "f({a: [1, 2], b: (3)}, g(4), \"(\")\n";
    // The call of g must stay, inside the call of f, with its argument in parentheses.
    let interesting: Predicate = Arc::new(|t: &str| {
        let code: String = t.split('"').step_by(2).collect();
        balanced(&code) && t.contains("f(") && t.contains("g(4)")
    });
    let stage = BalancedRegions {
        syntax: Syntax::JavaScript,
        language: None,
    };
    for jobs in [1, 2] {
        assert_reduces_to(
            input,
            "brackets",
            Some("javascript"),
            jobs,
            &interesting,
            &stage,
            "f(, g(4), \"(\")\n",
        );
    }
}

#[test]
#[cfg_attr(
    not(feature = "lang-json"),
    ignore = "needs the JSON grammar (cargo feature lang-json)"
)]
fn brackets_hollow_and_lift_on_json() {
    let input = "{\"k\": [[1, 2], {\"x\": 3}], \"v\": 7}\n";
    // A JSON-like shape test: an object holding 7, brackets balanced.
    let interesting: Predicate =
        Arc::new(|t: &str| balanced(t) && t.trim_start().starts_with('{') && t.contains('7'));
    let stage = BalancedRegions {
        syntax: Syntax::Json,
        language: None,
    };
    assert_reduces_to(
        input,
        "brackets",
        Some("json"),
        1,
        &interesting,
        &stage,
        "{\"k\":, \"v\": 7}\n",
    );
}

/// Expressions nested 2,000 deep (an S-expression, a language without a grammar here): the
/// top is replaced by a region down the chain, a few tests where lifting took one a level; and
/// where the test needs the depth, the result keeps exactly the levels it needs.
#[test]
fn brackets_go_down_a_deep_chain() {
    let depth = 2000;
    let input: String = (0..depth).map(|i| format!("(f{i} ")).collect::<String>()
        + "(bad 42)"
        + &")".repeat(depth)
        + "\n";
    let stage = BalancedRegions {
        syntax: Syntax::CLike,
        language: None,
    };
    let needle: Predicate = Arc::new(|t: &str| balanced(t) && t.contains("(bad 42)"));
    for jobs in [1, 2] {
        let stats = assert_reduces_to(
            input.as_str(),
            "brackets",
            None,
            jobs,
            &needle,
            &stage,
            "(bad 42)\n",
        );
        assert!(stats.tests < 20, "{jobs} jobs: {} tests", stats.tests);
    }
    let deep = |t: &str| {
        let mut level = 0usize;
        let mut deepest = 0;
        for c in t.chars() {
            match c {
                '(' => level += 1,
                ')' => level = level.saturating_sub(1),
                _ => {}
            }
            deepest = deepest.max(level);
        }
        deepest
    };
    let input: String = "(f ".repeat(100) + "(bad 42)" + &")".repeat(100) + "\n";
    let needs_depth: Predicate =
        Arc::new(move |t: &str| balanced(t) && t.contains("(bad 42)") && deep(t) >= 30);
    let (result, _) = reduce(&input, "brackets", None, 1, needs_depth.clone());
    assert_eq!(deep(&result), 30, "{result}");
    assert!(one_minimal(&stage, &result, &needs_depth), "{result}");
}

/// The comma-separated elements of the first `(...)` after `name(` in `text` (no nesting).
fn first_list<'t>(text: &'t str, name: &str) -> Option<Vec<&'t str>> {
    let start = text.find(&format!("{name}("))? + name.len() + 1;
    let end = start + text[start..].find(')')?;
    let inside = text[start..end].trim();
    Some(if inside.is_empty() {
        Vec::new()
    } else {
        inside.split(',').map(str::trim).collect()
    })
}

#[test]
fn brackets_delete_a_parameter_with_its_arguments() {
    let input = "def area(w, h, unit):\n    return w * h\nprint(area(2, 3, \"m\"))\nprint(area(4, 5, \"cm\"))\n";
    // A Python-like check: both calls pass as many arguments as `area` takes, `w` and `h` are
    // among its parameters and the body uses them.
    let interesting: Predicate = Arc::new(|t: &str| {
        let Some(params) = first_list(t, "def area") else {
            return false;
        };
        let calls: Vec<&str> = t
            .match_indices("print(area(")
            .map(|(at, _)| &t[at + 6..])
            .collect();
        calls.len() == 2
            && calls
                .iter()
                .all(|call| first_list(call, "area").is_some_and(|args| args.len() == params.len()))
            && params.contains(&"w")
            && params.contains(&"h")
            && t.contains("return w * h")
    });
    // As text (no language): the stage needs no grammar.
    let stage = BalancedRegions {
        syntax: Syntax::Plain,
        language: None,
    };
    assert_reduces_to(
        input,
        "brackets",
        None,
        1,
        &interesting,
        &stage,
        "def area(w, h):\n    return w * h\nprint(area(2, 3))\nprint(area(4, 5))\n",
    );
}

/// The text with its words numbered by first occurrence (keywords kept), so that two texts
/// compare equal when one is a consistent renaming of the other.
fn alpha_shape(text: &str, keywords: &[&str]) -> Vec<String> {
    let mut names: Vec<String> = Vec::new();
    let mut shape = Vec::new();
    let mut word = String::new();
    let mut flush = |word: &mut String, shape: &mut Vec<String>| {
        if word.is_empty() {
            return;
        }
        if keywords.contains(&word.as_str()) || word.starts_with(|c: char| c.is_ascii_digit()) {
            shape.push(word.clone());
        } else {
            let index = names.iter().position(|n| n == word).unwrap_or_else(|| {
                names.push(word.clone());
                names.len() - 1
            });
            shape.push(format!("#{index}"));
        }
        word.clear();
    };
    for c in text.chars() {
        if c.is_alphanumeric() || c == '_' {
            word.push(c);
        } else {
            flush(&mut word, &mut shape);
            if !c.is_whitespace() {
                shape.push(c.to_string());
            }
        }
    }
    flush(&mut word, &mut shape);
    shape
}

#[test]
#[cfg_attr(
    not(feature = "lang-python"),
    ignore = "needs the Python grammar (cargo feature lang-python)"
)]
fn rename_on_python_keeps_bindings_apart() {
    let input = "def compute_total(values):\n    total = 10\n    for value in values:\n        total += value\n    return total\n";
    let keywords = ["def", "for", "in", "return"];
    let original = alpha_shape(input, &keywords);
    // Interesting while the program is a consistent renaming of the input (numbers may change).
    let interesting: Predicate = Arc::new(move |t: &str| {
        let shape = alpha_shape(t, &keywords);
        shape.len() == original.len()
            && shape.iter().zip(&original).all(|(a, b)| {
                a == b
                    || (a.starts_with(|c: char| c.is_ascii_digit())
                        && b.starts_with(|c: char| c.is_ascii_digit()))
            })
    });
    assert_reduces_to(
        input,
        "rename",
        Some("python"),
        2,
        &interesting,
        &python_rename(),
        "def a(c):\n    b = 0\n    for d in c:\n        b += d\n    return b\n",
    );
}

#[test]
#[cfg_attr(
    not(feature = "lang-python"),
    ignore = "needs the Python grammar (cargo feature lang-python)"
)]
fn rename_merges_names_and_empties_strings() {
    // Three lines: two assignments to names, then `print(` of a name.
    let input = "alpha = 'some text'\nbeta = alpha\nprint(beta, 'some text', 42)\n";
    let interesting: Predicate = Arc::new(|t: &str| {
        let lines: Vec<&str> = t.lines().collect();
        let named = |s: &str| s.starts_with(|c: char| c.is_ascii_alphabetic());
        lines.len() == 3
            && named(lines[0])
            && named(lines[1])
            && lines[2].strip_prefix("print(").is_some_and(named)
    });
    // `beta` merged into `alpha` (both renamed to one letter first); the second assignment's
    // value stays `a` (a one-letter word to a constant saves nothing: `replace` proposes `0`
    // where the grammar takes a value).
    assert_reduces_to(
        input,
        "rename",
        Some("python"),
        1,
        &interesting,
        &python_rename(),
        "a = ''\na = a\nprint(a, '', 0)\n",
    );
}

#[test]
#[cfg_attr(
    not(feature = "lang-c"),
    ignore = "needs the C grammar (cargo feature lang-c)"
)]
fn pinned_bytes_are_never_edited() {
    let input = "if x:\n    keep_this_name(other_name, [12345]);\n";
    // `inline` has no function to inline here: it has its own test below.
    for stage in TextStage::ALL
        .into_iter()
        .filter(|&stage| stage != TextStage::Inline)
    {
        let oracle = predicate("has a parenthesis", |c: &[u8]| c.contains(&b'('));
        let mut tester = tester_on(input, oracle, 2);
        let mut pins = Pins::default();
        pins.add(10..25);
        stage
            .run(
                &mut tester,
                language("c"),
                &|| pins.clone(),
                EditOptions {
                    fixpoint: true,
                    greedy: true,
                },
            )
            .unwrap();
        let result = String::from_utf8(tester.best().to_vec()).unwrap();
        assert!(result.contains("keep_this_name("), "{stage}: {result}");
        // The stages over any tokens find something besides the pin; the others need a
        // construct (a statement run, a binding, an alias, a definition, a condition) that is
        // not here outside the pinned bytes.
        let over_any_tokens = [
            TextStage::Tokens,
            TextStage::Brackets,
            TextStage::Rename,
            TextStage::Indent,
        ];
        if over_any_tokens.contains(&stage) {
            assert!(result.len() < input.len(), "{stage}: {result}");
        }
    }
}

#[test]
#[cfg_attr(
    not(feature = "lang-c"),
    ignore = "needs the C grammar (cargo feature lang-c)"
)]
fn a_schedule_ends_at_a_global_fixed_point() {
    let input = "int main(void) {\n    int counter = (1 + 2);\n    if (counter) { return counter; }\n    return 0;\n}\n";
    // Interesting while a `return` of a parenthesised-free name that is declared remains.
    let interesting: Predicate =
        Arc::new(|t: &str| balanced(t) && t.contains("return") && t.contains("if"));
    let (result, stats) = reduce(
        input,
        "(brackets+tokens+rename)*",
        Some("c"),
        2,
        interesting.clone(),
    );
    assert_eq!(result, "    if\n    return\n\n");
    assert_one_minimal_for_c_like_stages("c", &result, &interesting);
    let names: Vec<&str> = stats.stages.iter().map(|s| s.name.as_str()).collect();
    assert_eq!(names, ["brackets", "tokens", "rename"]);
    let removed: u64 = stats.stages.iter().map(|s| s.bytes_removed).sum();
    assert_eq!(removed, (input.len() - result.len()) as u64);
}

/// No single edit of `brackets`, `tokens` or `rename` (for C) of `result` is interesting.
fn assert_one_minimal_for_c_like_stages(name: &str, result: &str, interesting: &Predicate) {
    let language = language(name);
    let stages: [Box<dyn EditStage>; 3] = [
        Box::new(BalancedRegions {
            syntax: Syntax::CLike,
            language,
        }),
        Box::new(TokenWindows::new(Syntax::CLike)),
        Box::new(Rename {
            syntax: Syntax::CLike,
            language,
        }),
    ];
    for stage in &stages {
        assert!(
            one_minimal(stage.as_ref(), result, interesting),
            "{} on {result:?}",
            stage.name()
        );
    }
}

/// Text stages in a schedule skip what the syntax guard rejects and what failed before while
/// other stages still remove something; the round that settles tries all of it, so the result
/// is still 1-minimal for every stage, even where only an ungrammatical text is that small.
#[test]
#[cfg_attr(
    not(feature = "lang-java"),
    ignore = "needs the Java grammar (cargo feature lang-java)"
)]
fn a_guarded_schedule_still_ends_at_every_stages_fixed_point() {
    let input = "class A {\n    int f() {\n        int unused = 4;\n        return counter + 1;\n    }\n}\n";
    let interesting: Predicate = Arc::new(|t: &str| t.contains("return") && t.contains("counter"));
    for jobs in [1, 2] {
        let (result, stats) = reduce(
            input,
            "(hdd+brackets+tokens+rename)*",
            Some("java"),
            jobs,
            interesting.clone(),
        );
        assert_one_minimal_for_c_like_stages("java", &result, &interesting);
        // A statement outside a class: the guard alone would not let the stages get there.
        let parsers = whittle_core::tree::ParserPool::new(language("java").unwrap()).unwrap();
        assert!(parsers.syntax_errors(result.as_bytes()) > 0, "{result:?}");
        assert!(stats.guard_skips > 0);
        let tokens = stats.stages.iter().find(|s| s.name == "tokens").unwrap();
        assert!(tokens.skipped > 0, "{tokens:?}");
    }
}

/// C's compilers accept much that its grammar rejects: the text stages' edits go to the test
/// in every round (the guard still judges the tree stages'), and the result is 1-minimal for
/// every stage.
#[test]
#[cfg_attr(
    not(feature = "lang-c"),
    ignore = "needs the C grammar (cargo feature lang-c)"
)]
fn on_c_the_text_stages_leave_their_edits_to_the_test() {
    let input = "int f(void) {\n    int unused = 4;\n    return counter + 1;\n}\n";
    let interesting: Predicate = Arc::new(|t: &str| t.contains("return") && t.contains("counter"));
    for jobs in [1, 2] {
        let (result, stats) = reduce(
            input,
            "(hdd+brackets+tokens+rename)*",
            Some("c"),
            jobs,
            interesting.clone(),
        );
        assert_one_minimal_for_c_like_stages("c", &result, &interesting);
        // Smaller than what the grammar allows: the text stages' edits reached the test.
        assert_eq!(result, "    return counter\n\n");
        let parsers = whittle_core::tree::ParserPool::new(language("c").unwrap()).unwrap();
        assert!(parsers.syntax_errors(result.as_bytes()) > 0);
        let tokens = stats.stages.iter().find(|s| s.name == "tokens").unwrap();
        assert!(tokens.tests > 0, "{tokens:?}");
    }
}

#[test]
fn indent_lifts_python_blocks() {
    let input = "def run():\n    if ready:\n        go()\n    else\n";
    // An `if` with a deeper body, then a bare `else` at the `if`'s indentation.
    let interesting: Predicate = Arc::new(|t: &str| {
        let lines: Vec<&str> = t.lines().collect();
        let indent = |l: &str| l.len() - l.trim_start().len();
        lines.iter().enumerate().any(|(i, l)| {
            l.trim_start().starts_with("if ")
                && lines.get(i + 1).is_some_and(|b| indent(b) > indent(l))
                && lines
                    .get(i + 2)
                    .is_some_and(|e| e.trim() == "else" && indent(e) == indent(l))
        })
    });
    assert_reduces_to(
        input,
        "indent",
        Some("python"),
        1,
        &interesting,
        &whittle_core::algorithms::passes::indent::LiftBlocks,
        "if ready:\n    go()\nelse\n",
    );
}

#[test]
#[cfg_attr(
    not(feature = "lang-c"),
    ignore = "needs the C grammar (cargo feature lang-c)"
)]
fn inline_on_c() {
    // Two helpers that only return an expression; `square` is also taken by address, so it
    // must stay; `mul` goes into both of its calls.
    let input = "int mul(int a, int b) { return a * b; }\nint square(int x) { return x * x; }\n\
                 int (*f)(int) = square;\nint main() {\n    int p = mul(2, 3);\n    return mul(p, square(p)) + 1;\n}\n";
    let interesting: Predicate =
        Arc::new(|t: &str| t.contains("main") && t.contains("+ 1") && t.contains("square"));
    let (result, stats) = reduce(input, "inline", Some("c"), 1, interesting.clone());
    assert_eq!(
        result,
        "int square(int x) { return x * x; }\nint (*f)(int) = square;\nint main() {\n    int p = (2 * 3);\n    return (p * (square(p))) + 1;\n}\n"
    );
    assert_eq!(stats.stages[0].name, "inline");
    assert_eq!(
        stats.tests, 1,
        "one edit for all the calls and the definition"
    );
    let Some(c) = language("c") else {
        return;
    };
    assert!(one_minimal(
        &whittle_core::algorithms::passes::inline::InlineCalls { language: c },
        &result,
        &interesting
    ));
}

#[test]
#[cfg_attr(
    not(feature = "lang-c"),
    ignore = "needs the C grammar (cargo feature lang-c)"
)]
fn inline_leaves_pinned_calls_alone() {
    let input = "int f(int a) { return a + 1; }\nint x = f(1);\nint y = f(2);\n";
    let run = |pins: Pins| {
        let oracle = predicate("has a plus", |c: &[u8]| c.contains(&b'+'));
        let mut tester = tester_on(input, oracle, 1);
        TextStage::Inline
            .run(
                &mut tester,
                language("c"),
                &|| pins.clone(),
                EditOptions {
                    fixpoint: true,
                    greedy: false,
                },
            )
            .unwrap();
        String::from_utf8(tester.best().to_vec()).unwrap()
    };
    assert_eq!(run(Pins::default()), "int x = (1 + 1);\nint y = (2 + 1);\n");
    let mut pins = Pins::default();
    let call = input.find("f(2)").unwrap();
    pins.add(call..call + 4);
    assert_eq!(run(pins), input, "a pinned call keeps its function");
}

#[test]
#[cfg_attr(
    not(feature = "lang-python"),
    ignore = "needs the Python grammar (cargo feature lang-python)"
)]
fn variables_on_python() {
    // `total` and `label` are bound once and read after: each goes into its read; `count` is
    // bound twice and stays; the test needs the sum, the label's text and a print.
    let input = "items = [3, 1, 2]\ncount = 0\ncount = len(items)\ntotal = sum(items)\n\
                 label = 'sum:'\nprint(label, total, count)\n";
    let interesting: Predicate = Arc::new(|t: &str| {
        ["print(", "sum(items)", "'sum:'", "count"]
            .iter()
            .all(|w| t.contains(w))
    });
    let (result, stats) = reduce(input, "variables", Some("python"), 1, interesting.clone());
    assert_eq!(
        result,
        "items = [3, 1, 2]\ncount = 0\ncount = len(items)\nprint('sum:', sum(items), count)\n"
    );
    assert_eq!(stats.stages[0].name, "variables");
    let Some(python) = language("python") else {
        return;
    };
    let stage = whittle_core::algorithms::passes::variables::InlineVariables { language: python };
    assert!(one_minimal(&stage, &result, &interesting));
}

/// A file of 4096 NUL bytes (one run of one punctuation byte) loses what it can by halves: a few
/// dozen tests, not one per three bytes.
#[test]
fn tokens_halve_a_run_of_nul_bytes() {
    let input = "\0".repeat(4096);
    let (result, stats) = reduce(
        &input,
        "tokens",
        None,
        1,
        Arc::new(|text: &str| text.len() >= 100),
    );
    assert_eq!(result.len(), 100);
    assert!(stats.tests < 60, "{} tests", stats.tests);
}
