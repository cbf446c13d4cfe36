//! The rewrite stages `replace` and `lift`: exact results on small inputs in C, Python,
//! JavaScript, JSON, Java and SQL, each still interesting and 1-minimal for its stage (no single
//! candidate of the stage on the result is interesting); pinned text stays; two jobs give the
//! sequential result; pipelines name the stages.

mod common;

use std::sync::Arc;

use whittle_core::algorithms::hdd::PinSource;
use whittle_core::algorithms::rewrite::{Rewrite, candidate_texts};
use whittle_core::engine::job::Job;
use whittle_core::engine::pipeline::{Pipeline, Settings, Stage, run_pipeline};
use whittle_core::exec::oracle::predicate;
use whittle_core::observe::stats::Stats;
use whittle_core::tree::{Language, NodeId, ParserPool, Preprocess, Tree};

type Predicate = Arc<dyn Fn(&[u8]) -> bool + Send + Sync>;

fn language(name: &str) -> &'static Language {
    Language::by_name(name).unwrap()
}

/// Whether `text` parses in `language` without syntax errors.
fn parses(language_name: &str, text: &[u8]) -> bool {
    ParserPool::new(language(language_name))
        .unwrap()
        .syntax_errors(text)
        == 0
}

/// Whether `word` occurs in `text` as a whole word.
fn has_word(text: &str, word: &str) -> bool {
    text.split(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
        .any(|part| part == word)
}

/// Reduces `input` with `pipeline`; returns the result and the statistics.
fn reduce(
    language_name: &str,
    pipeline: &str,
    input: &str,
    interesting: &Predicate,
    jobs: usize,
) -> (String, Stats) {
    let settings = Settings {
        algorithm: Some(pipeline.parse().expect("a valid pipeline")),
        language: Some(language_name.to_owned()),
        jobs,
        ..Settings::default()
    };
    let job = Job::new(input.as_bytes().to_vec(), settings);
    let test = Arc::clone(interesting);
    let oracle = Arc::new(predicate("test", move |c: &[u8]| test(c)));
    let mut tester = job.tester(oracle).unwrap();
    let finished = job.run(&mut tester).expect("the input is interesting");
    assert!(finished.stopped.is_none(), "{:?}", finished.stopped);
    (String::from_utf8(finished.result).unwrap(), finished.stats)
}

/// The result is interesting, and no candidate of the stage on it that the syntax guard admits
/// is interesting.
fn assert_minimal(language_name: &str, rewrite: Rewrite, result: &str, interesting: &Predicate) {
    assert!(
        interesting(result.as_bytes()),
        "not interesting: {result:?}"
    );
    let tree = whittle_core::tree::parse(
        language(language_name),
        result.as_bytes().to_vec(),
        Preprocess::none(),
    )
    .unwrap();
    let errors = ParserPool::new(language(language_name))
        .unwrap()
        .syntax_errors(result.as_bytes());
    let pool = ParserPool::new(language(language_name)).unwrap();
    for candidate in candidate_texts(rewrite, &tree) {
        let admitted = pool.syntax_errors(&candidate) <= errors;
        assert!(
            !(admitted && interesting(&candidate)),
            "{rewrite} of {result:?} is not 1-minimal: {:?} is interesting",
            String::from_utf8_lossy(&candidate)
        );
    }
}

/// Runs `rewrite` alone on `input` and checks the exact result and its 1-minimality.
fn check_stage(
    language_name: &str,
    rewrite: Rewrite,
    input: &str,
    interesting: Predicate,
    expected: &str,
) {
    if !common::tree::available(language_name) {
        return;
    }
    let (result, stats) = reduce(language_name, rewrite.name(), input, &interesting, 1);
    assert_eq!(result, expected, "{rewrite} on {language_name}");
    assert_minimal(language_name, rewrite, &result, &interesting);
    assert!(stats.tests > 0);
    let (parallel, _) = reduce(language_name, rewrite.name(), input, &interesting, 2);
    assert_eq!(parallel, expected, "{rewrite} with two jobs");
}

/// A C compiler as far as these tests need one: the text parses, and the fresh names a
/// replacement may bring (`A`, `B`) are undeclared, so they are errors.
fn c_like(required: &'static [&'static str]) -> Predicate {
    Arc::new(move |candidate: &[u8]| {
        let text = String::from_utf8_lossy(candidate);
        parses("c", candidate)
            && !has_word(&text, "A")
            && !has_word(&text, "B")
            && required.iter().all(|needle| text.contains(needle))
    })
}

#[test]
fn replace_gives_types_the_shortest_primitive_type() {
    check_stage(
        "c",
        Rewrite::Replace,
        "typedef unsigned long size;\nsize f(size n) { return n; }\n",
        c_like(&["f(", " n)", "return n"]),
        "typedef int size;\nint f(int n) { return n; }\n",
    );
}

#[test]
fn replace_tries_one_where_zero_is_a_null_pointer() {
    let interesting: Predicate = {
        let base = c_like(&["int *p, int k"]);
        Arc::new(move |candidate: &[u8]| {
            let text = String::from_utf8_lossy(candidate);
            let call = text.split("return g(").nth(1).unwrap_or("");
            base(candidate) && call.contains(", ") && !call.starts_with('0')
        })
    };
    check_stage(
        "c",
        Rewrite::Replace,
        "int g(int *p, int k);\nint h(void) { return g(pointer, 12345 + offset); }\n",
        interesting,
        "int g(int *p, int k);\nint h() { return g(1, 0); }\n",
    );
}

#[test]
fn replace_shortens_statements_expressions_and_strings() {
    check_stage(
        "javascript",
        Rewrite::Replace,
        "if (ready(config)) { start(\"server\", 8080); }\nlog(\"done\");\n",
        Arc::new(|candidate: &[u8]| {
            let text = String::from_utf8_lossy(candidate);
            parses("javascript", candidate) && text.contains("if (") && text.contains("log(\"")
        }),
        "if (A) ;\nlog(\"\");\n",
    );
}

#[test]
fn replace_in_python_keeps_blocks_valid() {
    check_stage(
        "python",
        Rewrite::Replace,
        "def area(width, height):\n    result = width * height\n    return result\n",
        Arc::new(|candidate: &[u8]| {
            let text = String::from_utf8_lossy(candidate);
            parses("python", candidate) && text.contains("def ") && text.contains("return ")
        }),
        "def A():\n    A\n    return 0\n",
    );
}

#[test]
fn replace_in_json_and_java() {
    check_stage(
        "json",
        Rewrite::Replace,
        "{\"name\": \"whittle\", \"size\": 12345, \"tags\": [\"a\", \"b\"]}\n",
        Arc::new(|candidate: &[u8]| {
            parses("json", candidate) && String::from_utf8_lossy(candidate).contains("\"size\"")
        }),
        "{\"\":0, \"size\": 0, \"\":0}\n",
    );
    check_stage(
        "java",
        Rewrite::Replace,
        "class Main { long total(long count) { return count * 1000; } }\n",
        Arc::new(|candidate: &[u8]| {
            let text = String::from_utf8_lossy(candidate);
            parses("java", candidate)
                && !has_word(&text, "A")
                && text.contains("class Main")
                && text.contains("total(")
                && text.contains("return ")
        }),
        "class Main { int total() { return 0; } }\n",
    );
}

/// A bare `else` after an `if` at the same indentation: the syntax error to keep.
fn bare_else() -> Predicate {
    Arc::new(|candidate: &[u8]| {
        let text = String::from_utf8_lossy(candidate);
        let lines: Vec<&str> = text.lines().collect();
        lines.iter().enumerate().any(|(i, line)| {
            let indent = line.len() - line.trim_start().len();
            line.trim_start().starts_with("if ")
                && lines[i + 1..].iter().any(|later| {
                    later.len() - later.trim_start().len() == indent && later.trim() == "else"
                })
        })
    })
}

#[test]
fn lift_hoists_a_python_block_and_reindents_it() {
    check_stage(
        "python",
        Rewrite::Lift,
        "def check(value):\n    if value:\n        pass\n    else\n",
        bare_else(),
        "if value:\n    pass\nelse\n",
    );
}

#[test]
fn lift_drops_wrappers_of_any_kind() {
    check_stage(
        "javascript",
        Rewrite::Lift,
        "var handler = { get: function () { return compute(1, 2); } };\n",
        Arc::new(|candidate: &[u8]| {
            parses("javascript", candidate)
                && String::from_utf8_lossy(candidate).contains("compute(")
        }),
        "compute(1, 2)\n",
    );
    check_stage(
        "c",
        Rewrite::Lift,
        "int main(void) { if (ready) { run(1); } }\n",
        c_like(&["main(", "run(1)"]),
        "int main(void) { run(1); }\n",
    );
}

#[test]
fn lift_in_json_and_java() {
    check_stage(
        "json",
        Rewrite::Lift,
        "{\"outer\": {\"inner\": [1, {\"key\": \"0xf00c4004\"}]}}\n",
        Arc::new(|candidate: &[u8]| {
            parses("json", candidate) && String::from_utf8_lossy(candidate).contains("0xf00c4004")
        }),
        "\"0xf00c4004\"\n",
    );
    check_stage(
        "java",
        Rewrite::Lift,
        "class Main { void run() { synchronized (this) { work(); } } }\n",
        Arc::new(|candidate: &[u8]| {
            let text = String::from_utf8_lossy(candidate);
            parses("java", candidate)
                && text.contains("class Main")
                && text.contains("run()")
                && text.contains("work()")
        }),
        "class Main { void run() { work(); } }\n",
    );
}

/// A view's query becomes a statement of its own (a database reports an error in the query
/// at the statement, not only when the view is read), a column's type goes.
#[test]
fn lift_in_sql_puts_a_view_query_in_its_place() {
    check_stage(
        "sql",
        Rewrite::Lift,
        "CREATE TABLE a (id INTEGER);\nCREATE VIEW v AS SELECT id FROM a WHERE id > 1;\n",
        Arc::new(|candidate: &[u8]| {
            let text = String::from_utf8_lossy(candidate);
            parses("sql", candidate) && text.contains("CREATE TABLE") && text.contains("id > 1")
        }),
        "CREATE TABLE a (id);\nSELECT id FROM a WHERE id > 1;\n",
    );
}

/// Deeper than two levels, a node lifts to a node of a kind its place takes: the call inside a
/// subquery's condition becomes the column (SQLite reports an unknown function as it prepares
/// the statement); in C the call inside a cast inside a sum becomes the initializer.
#[test]
fn lift_reaches_a_node_of_a_kind_the_place_takes_at_any_depth() {
    check_stage(
        "sql",
        Rewrite::Lift,
        "SELECT (SELECT * FROM a WHERE nosuchfn());\n",
        Arc::new(|candidate: &[u8]| {
            let text = String::from_utf8_lossy(candidate);
            parses("sql", candidate) && text.starts_with("SELECT ") && text.contains("nosuchfn()")
        }),
        "SELECT nosuchfn()\n",
    );
    check_stage(
        "c",
        Rewrite::Lift,
        "int main(void) { int x = 1 + (int)(2 * bug(3)); }\n",
        c_like(&["main(void) { int x = ", "bug(3)"]),
        "int main(void) { int x = bug(3); }\n",
    );
}

/// Pins the nodes whose text is the given text, and everything inside them (as a pinned byte
/// range of a session does).
struct PinText(&'static str);

impl PinSource for PinText {
    fn pinned_nodes(&self, tree: &Arc<Tree>) -> Vec<NodeId> {
        tree.ids()
            .filter(|&id| tree.text(id) == self.0.as_bytes())
            .flat_map(|id| (id.index()..tree.subtree_end(id).index()).map(NodeId::from_index))
            .collect()
    }
}

#[test]
fn pinned_nodes_are_never_edited() {
    if !common::tree::available("c") {
        return;
    }
    let input = "int g(long a, long b) { return a + b * 300; }\n";
    let interesting = c_like(&["g("]);
    for (stage, pinned) in [("replace", "b * 300"), ("lift", "b * 300")] {
        let settings = Settings {
            algorithm: Some(stage.parse().unwrap()),
            language: Some("c".into()),
            ..Settings::default()
        };
        let test = Arc::clone(&interesting);
        let oracle = Arc::new(predicate("test", move |c: &[u8]| test(c)));
        let job = Job::new(input.as_bytes().to_vec(), settings.clone());
        let mut tester = job.tester(oracle).unwrap();
        tester.set_best(input.as_bytes().to_vec());
        run_pipeline(&mut tester, &settings, Arc::new(PinText(pinned))).unwrap();
        let result = String::from_utf8(tester.best().to_vec()).unwrap();
        assert!(result.contains(pinned), "{stage}: {result:?}");
        assert!(
            result.len() < input.len(),
            "{stage} did nothing: {result:?}"
        );
    }
}

#[test]
fn stages_are_named_in_pipelines() {
    let pipeline: Pipeline = "hddhr+replace+lift+ddmin:line".parse().unwrap();
    assert_eq!(pipeline.stages()[1], Stage::Rewrite(Rewrite::Replace));
    assert_eq!(pipeline.stages()[2], Stage::Rewrite(Rewrite::Lift));
    assert!(pipeline.needs_tree());
    assert_eq!(pipeline.to_string(), "hddhr+replace+lift+ddmin:line");
    let listing = whittle_core::engine::pipeline::algorithms_listing();
    assert!(listing.contains("replace") && listing.contains("lift"));
    assert!(
        whittle_core::engine::pipeline::catalogue(true)
            .iter()
            .any(|entry| entry.name == "lift")
    );
    assert!(
        "hdd+lifts"
            .parse::<Pipeline>()
            .unwrap_err()
            .contains("lift")
    );
}

#[test]
fn reshape_makes_prototypes_and_arrow_functions() {
    check_stage(
        "c",
        Rewrite::Reshape,
        "int helper(int x) { return x * 2; }\nint main(void) { return helper(3); }\n",
        c_like(&["int helper(int x)", "int main(void)", "return helper(3)"]),
        "int helper(int x);\nint main(void) { return helper(3); }\n",
    );
    check_stage(
        "javascript",
        Rewrite::Reshape,
        "var twice = function (a) { return a * 2; };\n",
        Arc::new(|candidate: &[u8]| {
            parses("javascript", candidate)
                && String::from_utf8_lossy(candidate).contains("return a")
        }),
        "var twice = (a)=>{ return a * 2; };\n",
    );
}

#[test]
fn reshape_in_python_and_java() {
    check_stage(
        "python",
        Rewrite::Reshape,
        "def handler(event):\n    return event\n",
        Arc::new(|candidate: &[u8]| {
            let text = String::from_utf8_lossy(candidate);
            parses("python", candidate) && text.contains("handler") && text.contains("    return")
        }),
        "class handler:\n    return event\n",
    );
    // A method named like its class, as a constructor.
    check_stage(
        "java",
        Rewrite::Reshape,
        "class Main { void Main() { run(); } }\n",
        Arc::new(|candidate: &[u8]| {
            let text = String::from_utf8_lossy(candidate);
            parses("java", candidate) && text.contains("Main()") && text.contains("run();")
        }),
        "class Main { Main() { run(); } }\n",
    );
}

#[test]
fn rewrite_combines_the_three_stages() {
    check_stage(
        "javascript",
        Rewrite::All,
        "handler.trap = function () { return existent; };\n",
        Arc::new(|candidate: &[u8]| {
            let text = String::from_utf8_lossy(candidate);
            parses("javascript", candidate)
                && text.contains("handler.trap =")
                && text.contains("existent")
                && (text.contains("function") || text.contains("=>"))
        }),
        "handler.trap = ()=>existent\n",
    );
    check_stage(
        "python",
        Rewrite::All,
        "def check(value):\n    if value:\n        pass\n    else\n",
        bare_else(),
        "if A:A\nelse\n",
    );
}

#[test]
fn candidates_report_the_bytes_they_replace() {
    use whittle_core::observe::events::{CandidateKind, Event};
    if !common::tree::available("c") {
        return;
    }
    let input = "int f(void) { return compute(40 + 2); }\n";
    let settings = Settings {
        algorithm: Some("rewrite".parse().unwrap()),
        language: Some("c".into()),
        ..Settings::default()
    };
    let job = Job::new(input.as_bytes().to_vec(), settings);
    let interesting = c_like(&["int f(", "return compute("]);
    let oracle = Arc::new(predicate("test", move |c: &[u8]| interesting(c)));
    let mut tester = job.tester(oracle).unwrap();
    let (sender, receiver) = crossbeam_channel::unbounded();
    tester.set_events(Some(sender));
    let finished = job.run(&mut tester).unwrap();
    drop(tester);
    assert_eq!(
        String::from_utf8(finished.result).unwrap(),
        "int f() { return compute(); }\n"
    );
    // Sequentially, each interesting candidate becomes the best.
    let mut best = input.to_string();
    let mut judged = 0;
    for event in receiver.try_iter() {
        if let Event::CandidateJudged {
            candidate,
            removed,
            preview,
            outcome,
            ..
        } = event
            && matches!(
                candidate.kind,
                CandidateKind::Replace | CandidateKind::Lift | CandidateKind::Reshape
            )
        {
            // One range of the current best: the candidate is the best with that range changed.
            let [range] = &removed[..] else {
                panic!("{removed:?}")
            };
            let text = preview.unwrap();
            assert!(text.starts_with(&best[..range.start]), "{text:?} {range:?}");
            assert!(text.ends_with(&best[range.end..]), "{text:?} {range:?}");
            judged += 1;
            if outcome.is_interesting() {
                best = text;
            }
        }
    }
    assert!(judged > 3, "{judged}");
    assert_eq!(best, "int f() { return compute(); }\n");
}
