//! Hierarchical reduction: the papers' hoisting examples, the JSON examples of the reference
//! tool, 1-tree-minimality and 1-maximality of hoisting on random JSON documents, pins, and every
//! pipeline of Table 7.1 on a C and a JSON input (the sweeps' comment and docstring steps:
//! `comments_first.rs`).

mod common;

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use common::job::{reduce, settings, text};
use whittle_core::algorithms::hdd::PinSource;
use whittle_core::engine::job::Job;
use whittle_core::engine::pipeline::Settings;
use whittle_core::engine::pipeline::{run_pipeline, table_7_1};
use whittle_core::exec::oracle::{CommandOracle, Oracle, predicate};
use whittle_core::text::atoms::non_whitespace_chars;
use whittle_core::tree::{Language, NodeId, Preprocess, Tree, TreeEdits, TreeState};

/// A folder of the repository's `examples/`.
fn example(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("examples")
        .join(name)
}

fn command_oracle(example_dir: &Path, input_name: &str) -> Arc<dyn Oracle> {
    let command = vec![example_dir.join("oracle.sh").into_os_string()];
    Arc::new(CommandOracle::new(&command, &example_dir.join(input_name), None).unwrap())
}

fn nonws(text: &[u8]) -> usize {
    non_whitespace_chars(text)
}

const HOISTING_PIPELINES: [&str; 14] = [
    "hoist+hdd",
    "hddh",
    "hoist+hddh",
    "hoistr+hddr",
    "hddhr",
    "hoistr+hddhr",
    "coarse-hoist+coarse-hdd",
    "coarse-hoist+coarse-hddh",
    "coarse-hoistr+coarse-hddr",
    "coarse-hoistr+coarse-hddhr",
    "hoist",
    "hoistr",
    "hddhr-sweep",
    "coarse-hddhr-sweep",
];

/// Figures 7.1-7.2: HDD keeps the `if (1) { }` wrapper, every pipeline with hoisting drops it.
#[test]
#[cfg_attr(
    not(feature = "lang-c"),
    ignore = "needs the C grammar (cargo feature lang-c)"
)]
fn hello_world_needs_hoisting() {
    let dir = example("hello-hoist-c");
    let input = std::fs::read(dir.join("hello.c")).unwrap();
    let expected = std::fs::read(dir.join("expected-hoist.c")).unwrap();
    let oracle = command_oracle(&dir, "hello.c");

    let (hdd, _) = reduce(&input, settings("c", "hdd"), oracle.clone());
    assert!(text(&hdd).contains("if (1)"), "{}", text(&hdd));
    assert!(text(&hdd).contains("printf"), "{}", text(&hdd));

    for pipeline in HOISTING_PIPELINES {
        let (result, _) = reduce(&input, settings("c", pipeline), oracle.clone());
        assert!(
            !text(&result).contains("if"),
            "{pipeline}: {}",
            text(&result)
        );
        assert!(
            nonws(&result) <= nonws(&expected),
            "{pipeline}: {} non-whitespace characters:\n{}",
            nonws(&result),
            text(&result)
        );
        assert!(oracle_says(&oracle, &result), "{pipeline}");
    }
}

fn oracle_says(oracle: &Arc<dyn Oracle>, candidate: &[u8]) -> bool {
    oracle
        .judge(candidate, &whittle_core::exec::oracle::CancelToken::new())
        .outcome
        .is_interesting()
}

/// Figures 5.1-5.3: HDD* is no larger than DDMIN* on lines.
#[test]
#[cfg_attr(
    not(feature = "lang-c"),
    ignore = "needs the C grammar (cargo feature lang-c)"
)]
fn sumprod_hdd_is_no_larger_than_ddmin_star() {
    let dir = example("sumprod-c");
    let input = std::fs::read(dir.join("sumprod.c")).unwrap();
    let ddmin_star = std::fs::read(dir.join("expected-ddmin-star.c")).unwrap();
    let oracle = command_oracle(&dir, "sumprod.c");
    let mut settings = settings("c", "hdd");
    settings.jobs = 2;
    let (result, stats) = reduce(&input, settings, oracle.clone());
    assert!(oracle_says(&oracle, &result), "{}", text(&result));
    assert!(
        nonws(&result) <= nonws(&ddmin_star),
        "{} > {}:\n{}",
        nonws(&result),
        nonws(&ddmin_star),
        text(&result)
    );
    assert!(stats.tests > 0);
}

const JSON_DOCUMENT: &str = "{\n  \"foo\": \"bar\",\n  \"baz\": [\n    6,\n    7,\n    12,\n    31,\n    77,\n    87\n  ]\n}\n";

/// "Valid JSON whose loaded value, printed, contains `needle`".
fn json_mentioning(needle: &'static str) -> impl Fn(&[u8]) -> bool + Send + Sync + Clone {
    move |candidate: &[u8]| {
        serde_json::from_slice::<serde_json::Value>(candidate)
            .is_ok_and(|value| value.to_string().contains(needle))
    }
}

/// The reference tool's HDD results on the JSON example, and hoisting's for 87.
#[test]
#[cfg_attr(
    not(feature = "lang-json"),
    ignore = "needs the JSON grammar (cargo feature lang-json)"
)]
fn json_examples_match_the_reference_sizes() {
    let cases = [
        ("foo", "{\"foo\":0}"),
        ("bar", "{\"\":\"bar\"}"),
        ("baz", "{\"\":0,\"baz\":0}"),
        ("87", "{\"\":0,\"\":[0,87]}"),
    ];
    for (needle, reference) in cases {
        let interesting = json_mentioning(needle);
        let oracle = Arc::new(predicate(needle, interesting.clone()));
        let (result, _) = reduce(JSON_DOCUMENT.as_bytes(), settings("json", "hdd"), oracle);
        assert!(interesting(&result), "{needle}: {}", text(&result));
        assert!(
            nonws(&result) <= nonws(reference.as_bytes()),
            "{needle}: {} is larger than {reference}",
            text(&result)
        );
    }
    let interesting = json_mentioning("87");
    for pipeline in HOISTING_PIPELINES
        .iter()
        .filter(|p| !p.starts_with("coarse"))
    {
        let oracle = Arc::new(predicate("87", interesting.clone()));
        let (result, _) = reduce(JSON_DOCUMENT.as_bytes(), settings("json", pipeline), oracle);
        assert!(interesting(&result), "{pipeline}: {}", text(&result));
        assert!(
            nonws(&result) <= nonws(b"[0,87]"),
            "{pipeline}: {} is larger than [0,87]",
            text(&result)
        );
    }
}

/// Table 7.1: every pipeline runs on a JSON input and returns an interesting result.
#[test]
#[cfg_attr(
    not(feature = "lang-json"),
    ignore = "needs the JSON grammar (cargo feature lang-json)"
)]
fn every_table_7_1_pipeline_gives_an_interesting_result_on_json() {
    let pipelines = table_7_1();
    assert_eq!(pipelines.len(), 16);
    let interesting = json_mentioning("87");
    for pipeline in &pipelines {
        let oracle = Arc::new(predicate("87", interesting.clone()));
        let settings = settings("json", &pipeline.to_string());
        let (result, stats) = reduce(JSON_DOCUMENT.as_bytes(), settings, oracle);
        assert!(interesting(&result), "{pipeline}: {}", text(&result));
        assert!(result.len() < JSON_DOCUMENT.len(), "{pipeline}");
        assert_eq!(stats.algorithm, pipeline.to_string());
    }
}

/// Table 7.1: every pipeline runs on a C input and returns an interesting result.
#[test]
#[cfg_attr(
    not(feature = "lang-c"),
    ignore = "needs the C grammar (cargo feature lang-c)"
)]
fn every_table_7_1_pipeline_gives_an_interesting_result_on_c() {
    let pipelines = table_7_1();
    assert_eq!(pipelines.len(), 16);
    // gcc accepts the program and it still calls printf with the message.
    let dir = tempfile::tempdir().unwrap();
    let input_path = dir.path().join("hello.c");
    std::fs::copy(example("hello-hoist-c").join("hello.c"), &input_path).unwrap();
    let script = dir.path().join("test.sh");
    std::fs::write(
        &script,
        "#!/bin/sh\ngcc -fsyntax-only -w -x c \"$1\" 2>/dev/null && grep -q 'printf(\"Hello' \"$1\"\n",
    )
    .unwrap();
    {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&script, std::fs::Permissions::from_mode(0o755)).unwrap();
    }
    let command = vec![script.into_os_string()];
    let oracle: Arc<dyn Oracle> =
        Arc::new(CommandOracle::new(&command, &input_path, None).unwrap());
    let input = std::fs::read(&input_path).unwrap();
    for pipeline in &pipelines {
        let mut settings = settings("c", &pipeline.to_string());
        settings.jobs = 2;
        let (result, _) = reduce(&input, settings, oracle.clone());
        assert!(
            oracle_says(&oracle, &result),
            "{pipeline}: {}",
            text(&result)
        );
        assert!(result.len() < input.len(), "{pipeline}");
    }
}

/// A small deterministic random generator (SplitMix64).
struct Random(u64);

impl Random {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
}

/// A random JSON value of at most `depth` levels, pretty-printed over several lines.
fn random_json(random: &mut Random, depth: u32) -> serde_json::Value {
    use serde_json::Value;
    let words = ["a", "bb", "key", "zz", "x1", "q"];
    let leaf = |random: &mut Random| match random.below(5) {
        0 => Value::from(random.below(1000)),
        1 => Value::from(words[random.below(words.len() as u64) as usize]),
        2 => Value::Bool(random.below(2) == 0),
        3 => Value::Null,
        _ => Value::from(format!("s{}", random.below(50))),
    };
    if depth == 0 || random.below(4) == 0 {
        return leaf(random);
    }
    let len = random.below(5);
    if random.below(2) == 0 {
        Value::Array((0..len).map(|_| random_json(random, depth - 1)).collect())
    } else {
        let mut map = serde_json::Map::new();
        for i in 0..len {
            let key = format!("{}{i}", words[random.below(words.len() as u64) as usize]);
            map.insert(key, random_json(random, depth - 1));
        }
        Value::Object(map)
    }
}

/// A random in-process test: valid JSON whose printed value contains some of the input's words
/// (a conjunction of one or two needles, or a disjunction).
#[derive(Clone)]
struct RandomTest {
    needles: Vec<String>,
    all: bool,
}

impl RandomTest {
    fn new(random: &mut Random, document: &str) -> Option<RandomTest> {
        let words: Vec<String> = document
            .split(|c: char| !c.is_ascii_alphanumeric())
            .filter(|w| !w.is_empty())
            .map(str::to_owned)
            .collect();
        if words.is_empty() {
            return None;
        }
        let count = 1 + random.below(2) as usize;
        let needles = (0..count)
            .map(|_| words[random.below(words.len() as u64) as usize].clone())
            .collect();
        Some(RandomTest {
            needles,
            all: random.below(3) != 0,
        })
    }

    fn is_interesting(&self, candidate: &[u8]) -> bool {
        let Ok(value) = serde_json::from_slice::<serde_json::Value>(candidate) else {
            return false;
        };
        let printed = value.to_string();
        if self.all {
            self.needles.iter().all(|n| printed.contains(n.as_str()))
        } else {
            self.needles.iter().any(|n| printed.contains(n.as_str()))
        }
    }
}

fn parse_json(text: &[u8]) -> Arc<Tree> {
    let language = Language::by_name("json").unwrap();
    whittle_core::tree::parse(language, text.to_vec(), Preprocess::default()).unwrap()
}

/// Nodes whose single removal keeps the result interesting (there should be none after HDD*).
fn removable_nodes_that_could_go(result: &[u8], test: &RandomTest) -> Vec<String> {
    let tree = parse_json(result);
    let state = TreeState::new(tree.clone());
    tree.ids()
        .filter(|&id| state.is_removable(id))
        .filter_map(|id| {
            let candidate = state.render(&TreeEdits::removing([id]));
            (candidate.len() < result.len() && test.is_interesting(&candidate))
                .then(|| format!("{} {:?}", tree.kind(id), text(tree.text(id))))
        })
        .collect()
}

/// Hoists that keep the result interesting (there should be none after Hoist*).
fn hoists_that_apply(result: &[u8], test: &RandomTest) -> Vec<String> {
    let tree = parse_json(result);
    let state = TreeState::new(tree.clone());
    let mut found = Vec::new();
    for id in tree.ids() {
        for (target, _) in state.hoist_candidates(id) {
            let candidate = state.render(&TreeEdits::hoisting(id, target));
            if candidate.len() < result.len() && test.is_interesting(&candidate) {
                found.push(format!(
                    "{:?} -> {:?}",
                    text(tree.text(id)),
                    text(tree.text(target))
                ));
            }
        }
    }
    found
}

/// 1-tree-minimality of HDD* and 1-maximality of Hoist* on random documents and tests.
#[test]
#[cfg_attr(
    not(feature = "lang-json"),
    ignore = "needs the JSON grammar (cargo feature lang-json)"
)]
fn hdd_is_one_tree_minimal_and_hoist_one_maximal_on_random_json() {
    let mut random = Random(0x5eed);
    let mut checked = 0;
    while checked < 60 {
        let value = random_json(&mut random, 4);
        let document = serde_json::to_string_pretty(&value).unwrap();
        let Some(test) = RandomTest::new(&mut random, &document) else {
            continue;
        };
        if !test.is_interesting(document.as_bytes()) {
            continue;
        }
        checked += 1;
        for (pipeline, check) in [
            (
                "hdd",
                removable_nodes_that_could_go as fn(&[u8], &RandomTest) -> Vec<String>,
            ),
            ("hoist", hoists_that_apply),
            ("hddh", removable_nodes_that_could_go),
            ("hddr", removable_nodes_that_could_go),
            ("hddr-sweep", removable_nodes_that_could_go),
            ("hddhr-sweep", removable_nodes_that_could_go),
        ] {
            let oracle = {
                let test = test.clone();
                Arc::new(predicate("random", move |c: &[u8]| test.is_interesting(c)))
            };
            let mut settings = settings("json", pipeline);
            settings.jobs = 1 + (checked % 2);
            let (result, _) = reduce(document.as_bytes(), settings, oracle);
            assert!(
                test.is_interesting(&result),
                "{pipeline} on {document}: {}",
                text(&result)
            );
            let left = check(&result, &test);
            assert!(
                left.is_empty(),
                "{pipeline} on {document} (needles {:?}, all: {}): {} still reduces by {left:?}",
                test.needles,
                test.all,
                text(&result)
            );
        }
    }
}

/// Both HDDH^r sweeps reduce the JSON `document` to `{"bad":42}` (the test: it parses and
/// mentions that pair) in fewer than `most` tests.
fn sweeps_find_bad_in_fewer_tests_than(document: &str, most: u64) {
    for pipeline in ["hddhr-sweep", "coarse-hddhr-sweep"] {
        let oracle = Arc::new(predicate("bad", json_mentioning(r#""bad":42"#)));
        let (result, stats) = reduce(document.as_bytes(), settings("json", pipeline), oracle);
        let compact: String = text(&result).split_whitespace().collect();
        assert_eq!(compact, r#"{"bad":42}"#, "{pipeline}");
        assert!(stats.tests < most, "{pipeline}: {} tests", stats.tests);
    }
}

/// A long list: the `-sweep` variants hoist a node with many hoists at its own turn, after its
/// children were pruned, instead of first trying each of its elements in its place (here
/// 1,500 tests before the one that holds the needle).
#[test]
#[cfg_attr(
    not(feature = "lang-json"),
    ignore = "needs the JSON grammar (cargo feature lang-json)"
)]
fn a_long_list_is_pruned_before_its_elements_are_hoisted() {
    let items: Vec<String> = (0..2000)
        .map(|i| {
            let inner = if i == 1500 { r#"{"bad": 42}"# } else { "2" };
            format!(r#"{{"id": {i}, "b": [1, {inner}]}}"#)
        })
        .collect();
    let document = format!(
        "{{\"version\": 3, \"items\": [\n{}\n]}}\n",
        items.join(",\n")
    );
    sweeps_find_bad_in_fewer_tests_than(&document, 300);
}

/// Definitions used elsewhere (a service model: 300 shapes, each used by one of 150
/// operations, one operation given a shape that is missing): the sweep over the shapes, which
/// the larger set takes first, removes little while the operations stay; it pauses, the
/// operations go, and the shapes go after them in long runs (110 tests; 1,566 when the shapes
/// were swept to their start first).
#[test]
#[cfg_attr(
    not(feature = "lang-json"),
    ignore = "needs the JSON grammar (cargo feature lang-json)"
)]
fn a_sweep_that_removes_little_pauses_while_smaller_sets_go() {
    let operations: Vec<String> = (0..150)
        .map(|i| {
            let shape = if i == 70 {
                "missing".to_owned()
            } else {
                format!("s{}", 2 * i)
            };
            format!(
                r#""op{i}": {{"input": "{shape}", "output": "s{}"}}"#,
                2 * i + 1
            )
        })
        .collect();
    let shapes: Vec<String> = (0..300)
        .map(|i| {
            format!(r#""s{i}": {{"type": "structure", "members": [{i}, "text of shape {i}"]}}"#)
        })
        .collect();
    let document = format!(
        "{{\"operations\": {{\n{}\n}},\n\"shapes\": {{\n{}\n}}}}\n",
        operations.join(",\n"),
        shapes.join(",\n")
    );
    // Interesting: valid JSON whose operations name only shapes it has, except `missing`.
    let oracle = Arc::new(predicate("missing shape", |c: &[u8]| {
        let Ok(value) = serde_json::from_slice::<serde_json::Value>(c) else {
            return false;
        };
        let shapes = value.get("shapes").and_then(|s| s.as_object());
        let Some(operations) = value.get("operations").and_then(|o| o.as_object()) else {
            return false;
        };
        let named = |name: &str| shapes.is_some_and(|shapes| shapes.contains_key(name));
        let mut missing = false;
        for operation in operations.values() {
            for key in ["input", "output"] {
                match operation.get(key).and_then(|n| n.as_str()) {
                    Some("missing") => missing = true,
                    Some(name) if !named(name) => return false,
                    _ => {}
                }
            }
        }
        missing
    }));
    let (result, stats) = reduce(document.as_bytes(), settings("json", "hddhr-sweep"), oracle);
    let compact: String = text(&result).split_whitespace().collect();
    assert!(compact.contains("missing"), "{compact}");
    assert!(compact.len() < 80, "{compact}");
    assert!(stats.tests < 300, "{} tests", stats.tests);
}

/// The hoists of a node that takes its own turn (a list of 40 needed words, each tried in the
/// list's place) wait for a walk that removes nothing else: they are tried once, on the final
/// text, not also in the walk that pruned the small list.
#[test]
#[cfg_attr(
    not(feature = "lang-json"),
    ignore = "needs the JSON grammar (cargo feature lang-json)"
)]
fn own_turn_hoists_wait_for_a_walk_that_removes_nothing_else() {
    let words: Vec<String> = (0..40).map(|i| format!("\"k{i}\"")).collect();
    let document = format!(
        "{{\"keep\": [{}], \"small\": [1, 2, 3, \"x\"]}}\n",
        words.join(", ")
    );
    let needed: Vec<String> = words.iter().cloned().chain(["\"x\"".to_owned()]).collect();
    let oracle = Arc::new(predicate("all words", move |c: &[u8]| {
        let candidate = String::from_utf8_lossy(c);
        serde_json::from_slice::<serde_json::Value>(c).is_ok()
            && needed.iter().all(|word| candidate.contains(word.as_str()))
    }));
    let (result, stats) = reduce(document.as_bytes(), settings("json", "hddhr-sweep"), oracle);
    let compact: String = text(&result).split_whitespace().collect();
    assert_eq!(
        compact,
        format!("{{\"\":[{}],\"\":\"x\"}}", words.join(","))
    );
    // 181 tests; 221 when each walk gives the list its own turn.
    assert!(stats.tests < 200, "{} tests", stats.tests);
}

/// Modules wrapped as a bundler does (`var m03 = wrap(() => { … })`) and used at the end: a
/// hoist of a module's statement to the block inside drops the only declaration of a name
/// still used, which the test (as a language that needs its names declared) rejects. The
/// `-sweep` variants leave such hoists to the walks after the first, once the modules' bodies
/// are pruned: no test sees a module's body without its declaration; the result is the same.
#[test]
#[cfg_attr(
    not(feature = "lang-javascript"),
    ignore = "needs the JavaScript grammar (cargo feature lang-javascript)"
)]
fn hoists_that_undeclare_a_used_name_wait_for_the_second_walk() {
    const MODULES: usize = 12;
    let mut program = String::new();
    for m in 0..MODULES {
        let body: Vec<String> = (0..6).map(|s| format!("f{m:02}_{s}(x + {s});")).collect();
        program += &format!("var m{m:02} = wrap(() => {{ {} }});\n", body.join(" "));
    }
    for m in 0..MODULES {
        program += &format!("use(m{m:02});\n");
    }
    let bodies_without_declaration = Arc::new(AtomicUsize::new(0));
    let seen = Arc::clone(&bodies_without_declaration);
    let oracle = Arc::new(predicate(
        "every used module declared",
        move |c: &[u8]| {
            let candidate = String::from_utf8_lossy(c);
            let declared = |m: usize| candidate.contains(&format!("var m{m:02}"));
            if (0..MODULES).any(|m| !declared(m) && candidate.contains(&format!("f{m:02}_"))) {
                seen.fetch_add(1, Ordering::Relaxed);
            }
            (0..MODULES).all(|m| candidate.contains(&format!("use(m{m:02})")) && declared(m))
        },
    ));
    let (result, stats) = reduce(
        program.as_bytes(),
        settings("javascript", "hddhr-sweep"),
        oracle,
    );
    let expected: String = (0..MODULES)
        .map(|m| format!("var m{m:02}\n"))
        .chain((0..MODULES).map(|m| format!("use(m{m:02})\n")))
        .collect();
    assert_eq!(text(&result), expected);
    // 12 such tests (one a module) and 226 in all when the first walk tries those hoists.
    assert_eq!(bodies_without_declaration.load(Ordering::Relaxed), 0);
    assert!(stats.tests < 226, "{} tests", stats.tests);
}

/// A chain of hoists (arrays nested 120 deep, as deep as the test's JSON parser goes): the
/// `-sweep` variants gallop down it, a few dozen tests where one a level took over 120.
#[test]
#[cfg_attr(
    not(feature = "lang-json"),
    ignore = "needs the JSON grammar (cargo feature lang-json)"
)]
fn a_chain_of_hoists_is_galloped_down() {
    let depth = 120;
    let document = format!(
        "{{\"a\": {}{{\"bad\": 42}}{}}}\n",
        "[".repeat(depth),
        "]".repeat(depth)
    );
    sweeps_find_bad_in_fewer_tests_than(&document, 40);
}

/// Nested arrays and objects with words at random depths: galloping down the chains of hoists
/// leaves HDDH^r's sweeps 1-tree-minimal and 1-maximal.
#[test]
#[cfg_attr(
    not(feature = "lang-json"),
    ignore = "needs the JSON grammar (cargo feature lang-json)"
)]
fn galloping_down_chains_keeps_hddhr_one_minimal_and_one_maximal() {
    let mut random = Random(0xc4a1);
    let mut checked = 0;
    while checked < 40 {
        let depth = 20 + random.below(100) as usize;
        let mut document = String::from("0");
        for level in 0..depth {
            document = match random.below(6) {
                0 => format!("[\"w{level}\", {document}]"),
                1 => format!("{{\"k{level}\": {document}}}"),
                2 => format!("[{document}, {level}]"),
                _ => format!("[{document}]"),
            };
        }
        let Some(test) = RandomTest::new(&mut random, &document) else {
            continue;
        };
        if !test.is_interesting(document.as_bytes()) {
            continue;
        }
        checked += 1;
        let oracle = {
            let test = test.clone();
            Arc::new(predicate("random", move |c: &[u8]| test.is_interesting(c)))
        };
        let mut settings = settings("json", "hddhr-sweep");
        settings.jobs = 1 + (checked % 2);
        let (result, _) = reduce(document.as_bytes(), settings, oracle);
        assert!(
            test.is_interesting(&result),
            "{document}: {}",
            text(&result)
        );
        let mut left = removable_nodes_that_could_go(&result, &test);
        left.extend(hoists_that_apply(&result, &test));
        assert!(
            left.is_empty(),
            "{document} (needles {:?}, all: {}): {} still reduces by {left:?}",
            test.needles,
            test.all,
            text(&result)
        );
    }
}

/// A pinned node survives pruning and hoisting.
#[test]
#[cfg_attr(
    not(feature = "lang-json"),
    ignore = "needs the JSON grammar (cargo feature lang-json)"
)]
fn pinned_nodes_are_kept() {
    let pins: Arc<dyn PinSource> = Arc::new(|tree: &Arc<Tree>| -> Vec<NodeId> {
        tree.ids()
            .filter(|&id| tree.kind(id) == "number" && tree.text(id) == b"31")
            .collect()
    });
    for pipeline in ["hdd", "hoist+hddh", "hddhr", "coarse-hoist+coarse-hdd"] {
        let job = Job::new(
            JSON_DOCUMENT.as_bytes().to_vec(),
            settings("json", pipeline),
        );
        let oracle = Arc::new(predicate("87", json_mentioning("87")));
        let mut tester = job.tester(oracle).unwrap();
        tester.set_best(job.input.clone());
        run_pipeline(&mut tester, &settings("json", pipeline), pins.clone()).unwrap();
        let result = text(tester.best());
        assert!(
            result.contains("31") && result.contains("87"),
            "{pipeline}: {result}"
        );
    }
}

/// The default pipeline without a known language: the text schedule (with `--fast`, blocks
/// then ddmin).
#[test]
fn the_default_without_a_language_is_the_text_schedule() {
    let fast = Settings {
        fast: true,
        ..Settings::default()
    };
    assert_eq!(
        fast.resolve().pipeline.to_string(),
        whittle_core::engine::pipeline::FAST_TEXT_PIPELINE
    );
    let text = Settings::default().resolve().pipeline;
    assert_eq!(
        text.to_string(),
        whittle_core::engine::pipeline::DEFAULT_TEXT_PIPELINE
    );
    assert!(!text.needs_tree());
}

/// The default pipeline for a known language: a tree pipeline.
#[test]
#[cfg_attr(
    not(feature = "lang-json"),
    ignore = "needs the JSON grammar (cargo feature lang-json)"
)]
fn the_default_for_a_known_language_is_a_tree_pipeline() {
    let json = Settings {
        language: Some("json".into()),
        ..Settings::default()
    };
    assert!(json.resolve().pipeline.needs_tree());
}

/// Whether every Haskell type signature (`name :: type` at the line start) has an equation of
/// its name beside it, as GHC requires; the names of the orphans.
fn orphan_signatures(text: &str) -> Vec<String> {
    let lines: Vec<&str> = text.lines().collect();
    let defines = |name: &str| {
        lines.iter().any(|line| {
            line.strip_prefix(name)
                .is_some_and(|rest| rest.starts_with(' ') && !rest.trim_start().starts_with("::"))
        })
    };
    lines
        .iter()
        .filter_map(|line| line.split_once(" :: ").map(|(name, _)| name))
        .filter(|name| !defines(name))
        .map(str::to_owned)
        .collect()
}

/// A Haskell type signature goes with the last equation of its function (the profile's
/// companions): no candidate leaves a signature without its binding, which GHC rejects.
#[test]
#[cfg_attr(
    not(feature = "lang-haskell"),
    ignore = "needs the Haskell grammar (cargo feature lang-haskell)"
)]
fn a_signature_goes_with_its_function() {
    let mut input = String::from("module M where\n");
    for name in ["f", "g", "h", "k", "m", "n", "p", "q"] {
        input.push_str(&format!(
            "{name} :: Int -> Int\n{name} 0 = 1\n{name} x = x\n"
        ));
    }
    input.push_str("main :: IO ()\nmain = print (h 2)\n");
    let orphans = Arc::new(std::sync::Mutex::new(Vec::new()));
    let seen = Arc::clone(&orphans);
    let oracle = Arc::new(predicate("main uses h", move |candidate: &[u8]| {
        let text = String::from_utf8_lossy(candidate);
        let found = orphan_signatures(&text);
        let interesting =
            found.is_empty() && text.contains("main = print (h 2)") && text.contains("h x");
        seen.lock().unwrap().extend(found);
        interesting
    }));
    let (result, stats) = reduce(input.as_bytes(), settings("haskell", "hddhr-sweep"), oracle);
    let orphans = orphans.lock().unwrap();
    assert!(
        orphans.is_empty(),
        "candidates with orphan signatures: {orphans:?}"
    );
    assert_eq!(text(&result), "h x = x\nmain = print (h 2)\n");
    assert!(stats.tests > 0);
}

/// Coarse HDD prunes only what may leave nothing behind: a C struct with its `;` at the top
/// level is one such (a grammar pair), so it goes.
#[test]
#[cfg_attr(
    not(feature = "lang-c"),
    ignore = "needs the C grammar (cargo feature lang-c)"
)]
fn coarse_hdd_removes_a_struct_with_its_semicolon() {
    let input = "struct A { int x; };\nstruct B { int y; };\nint main(void) { return 0; }\n";
    let language = Language::by_name("c").unwrap();
    let oracle = Arc::new(predicate(
        "main, no syntax error",
        move |candidate: &[u8]| {
            let tree = whittle_core::tree::parse(language, candidate.to_vec(), Preprocess::none());
            tree.is_ok_and(|tree| tree.input_errors() == 0)
                && String::from_utf8_lossy(candidate).contains("int main(void)")
        },
    ));
    let (result, _) = reduce(input.as_bytes(), settings("c", "coarse-hdd"), oracle);
    assert_eq!(text(&result), "int main(void) { }\n");
}
