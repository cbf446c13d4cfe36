//! The tree pipelines through the `whittle` binary: `whittle algorithms`, `-a`, `--language`,
//! `--no-syntax-guard`, the default pipeline (SQL in an unknown dialect as text), and clear
//! errors.

mod common;

use std::path::Path;

use common::cli::{whittle, write_script};

fn stats(path: &Path) -> serde_json::Value {
    serde_json::from_slice(&std::fs::read(path).unwrap()).unwrap()
}

/// Writes `in.json` (an object with a string and an array of numbers) and its test `t.sh`:
/// interesting while `87` and `baz` are there.
fn json_task(dir: &Path) {
    std::fs::write(
        dir.join("in.json"),
        "{\n  \"foo\": \"bar\",\n  \"baz\": [\n    6,\n    7,\n    12,\n    31,\n    77,\n    87\n  ]\n}\n",
    )
    .unwrap();
    write_script(dir, "t.sh", "grep -q 87 \"$1\" && grep -q baz \"$1\"");
}

/// `whittle reduce in.json --no-tui -j 1 OPTIONS --stats-json STATS -- ./t.sh`, which must
/// succeed: its statistics and the text of `output`.
fn reduce_json(
    dir: &Path,
    options: &[&str],
    stats_name: &str,
    output: &str,
) -> (serde_json::Value, String) {
    let mut args = vec!["reduce", "in.json", "--no-tui", "-j", "1"];
    args.extend_from_slice(options);
    args.extend_from_slice(&["--stats-json", stats_name, "--", "./t.sh"]);
    let run = whittle(&args, dir);
    assert!(run.status.success(), "{run:?}");
    (
        stats(&dir.join(stats_name)),
        std::fs::read_to_string(dir.join(output)).unwrap(),
    )
}

#[test]
fn algorithms_lists_every_algorithm_and_table_7_1() {
    let dir = tempfile::tempdir().unwrap();
    let output = whittle(&["algorithms"], dir.path());
    assert!(output.status.success());
    let out = String::from_utf8(output.stdout).unwrap();
    for algorithm in whittle_core::algorithms::hdd::Algorithm::all() {
        let line = out
            .lines()
            .find(|line| {
                line.trim_start()
                    .starts_with(&format!("{} ", algorithm.name()))
            })
            .unwrap_or_else(|| panic!("{algorithm} missing:\n{out}"));
        assert!(line.contains(algorithm.figure()), "{line}");
    }
    for pipeline in whittle_core::engine::pipeline::table_7_1() {
        assert!(
            out.lines()
                .any(|line| line.trim_start().starts_with(&format!("{pipeline} "))),
            "{pipeline} missing:\n{out}"
        );
    }
    assert!(out.contains("Hoist* + HDDH*"), "{out}");
    // Laid out for 80 columns: titles in a column wide enough for the longest, what each does
    // below it, and the default pipeline broken after its `+`s.
    for line in out.lines() {
        assert!(line.chars().count() <= 80, "{line}\n{out}");
    }
    assert!(
        out.contains("  coarse-hddhr-probdd  Coarse HDDH^r* with ProbDD  Wang et al. 2021\n"),
        "{out}"
    );
    let default: String = out
        .lines()
        .skip_while(|line| !line.starts_with("Default when"))
        .skip(1)
        .take_while(|line| line.starts_with("  "))
        .map(str::trim)
        .collect();
    assert_eq!(
        default,
        whittle_core::engine::pipeline::DEFAULT_TREE_PIPELINE,
        "{out}"
    );
}

#[test]
fn bad_pipelines_and_languages_are_usage_errors() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("in.txt"), "1\n2\n").unwrap();
    std::fs::write(dir.path().join("in.json"), "[1, 2]\n").unwrap();
    write_script(dir.path(), "t.sh", "grep -q 1 \"$1\"");
    let cases: [(&[&str], &str); 4] = [
        (
            &["reduce", "in.txt", "-a", "hdd", "--", "./t.sh"],
            "input's language is unknown",
        ),
        (
            &["reduce", "in.json", "-a", "hdd+prune", "--", "./t.sh"],
            "unknown algorithm `prune`",
        ),
        (
            &["reduce", "in.json", "--language", "klingon", "--", "./t.sh"],
            "unknown language `klingon`",
        ),
        (&["reduce", "in.json", "-a", "", "--", "./t.sh"], "empty"),
    ];
    for (args, message) in cases {
        let output = whittle(args, dir.path());
        let err = String::from_utf8_lossy(&output.stderr);
        assert_eq!(output.status.code(), Some(2), "{args:?}: {err}");
        assert!(err.contains(message), "{args:?}: {err}");
    }
    // A text file reduces with ddmin by default; `--language` makes it a tree input.
    let output = whittle(
        &["reduce", "in.txt", "--no-tui", "-j", "1", "--", "./t.sh"],
        dir.path(),
    );
    assert!(output.status.success(), "{output:?}");
}

#[test]
#[cfg_attr(
    not(feature = "lang-json"),
    ignore = "needs the JSON grammar (cargo feature lang-json)"
)]
fn the_fast_default_for_known_languages_is_the_tree_pipeline_with_the_guard() {
    let dir = tempfile::tempdir().unwrap();
    json_task(dir.path());
    let run = |extra: &[&str], stats_name: &str| {
        // Each run starts afresh (whittle refuses to start over an earlier result).
        let _ = std::fs::remove_file(dir.path().join("in.whittled.json"));
        reduce_json(dir.path(), extra, stats_name, "in.whittled.json")
    };
    let (guarded, result) = run(&["--fast"], "guarded.json");
    assert_eq!(
        guarded["algorithm"],
        whittle_core::engine::pipeline::FAST_TREE_PIPELINE
    );
    assert!(guarded["guard_skips"].as_u64().unwrap() > 0, "{guarded}");
    assert_eq!(
        result.split_whitespace().collect::<String>(),
        r#"{"baz":87}"#,
        "{result}"
    );

    let (unguarded, _) = run(&["--fast", "--no-syntax-guard"], "unguarded.json");
    assert_eq!(unguarded["guard_skips"], 0);
    assert!(unguarded["tests"].as_u64() > guarded["tests"].as_u64());

    let (ddmin, _) = run(&["-a", "ddmin"], "ddmin.json");
    assert_eq!(ddmin["algorithm"], "ddmin");
    assert_eq!(ddmin["guard_skips"], 0);

    // The default reruns the tree, lines and the text stages to a global fixed point: the
    // test only greps, so the braces and the colon go too.
    let (default, result) = run(&[], "default.json");
    assert_eq!(
        default["algorithm"],
        whittle_core::engine::pipeline::DEFAULT_TREE_PIPELINE
    );
    assert_eq!(result.split_whitespace().collect::<String>(), r#""baz"87"#);
    let stages: Vec<&str> = default["stages"]
        .as_array()
        .unwrap()
        .iter()
        .map(|stage| stage["name"].as_str().unwrap())
        .collect();
    assert_eq!(
        stages,
        [
            "coarse-hddhr-sweep",
            "hddhr-sweep",
            "unbind",
            "variables",
            "typedefs",
            "declarations",
            "declarators",
            "constructors",
            "templates",
            "zeros",
            "receivers",
            "conditions",
            "replace",
            "reshape",
            "lift",
            "inline",
            "ddmin line",
            "brackets",
            "tokens",
            "rename",
            "indent",
            "runs"
        ]
    );

    std::fs::rename(dir.path().join("in.json"), dir.path().join("in.data")).unwrap();
    let output = whittle(
        &[
            "reduce",
            "in.data",
            "--no-tui",
            "-j",
            "1",
            "--language",
            "JSON",
            "-a",
            "hoist",
            "-o",
            "out.data",
            "--",
            "./t.sh",
        ],
        dir.path(),
    );
    assert!(output.status.success(), "{output:?}");
    let hoisted = std::fs::read_to_string(dir.path().join("out.data")).unwrap();
    assert!(hoisted.contains("\"baz\": 87\n"), "{hoisted}");
    assert!(
        hoisted.contains("\"foo\": \"bar\""),
        "hoisting removes nothing: {hoisted}"
    );
}

/// `--atoms` without `-a` means ddmin over those atoms, also for a known language; with `-a`
/// the pipeline named there runs.
#[test]
#[cfg_attr(
    not(feature = "lang-json"),
    ignore = "needs the JSON grammar (cargo feature lang-json)"
)]
fn atoms_without_an_algorithm_mean_ddmin_over_them() {
    let dir = tempfile::tempdir().unwrap();
    json_task(dir.path());
    let run = |extra: &[&str], name: &str| {
        let output_name = format!("{name}.out");
        let options = [&["-o", &output_name][..], extra].concat();
        reduce_json(
            dir.path(),
            &options,
            &format!("{name}.stats.json"),
            &output_name,
        )
    };
    let (lines, result) = run(&["--atoms", "line"], "lines");
    assert_eq!(lines["algorithm"], "ddmin", "{lines}");
    assert_eq!(lines["guard_skips"], 0, "{lines}");
    assert_eq!(result, "  \"baz\": [\n    87\n");

    let (chars, result) = run(&["--atoms", "char"], "chars");
    assert_eq!(chars["algorithm"], "ddmin", "{chars}");
    assert_eq!(result, "baz87");

    let (hdd, _) = run(&["-a", "hdd", "--atoms", "line"], "hdd");
    assert_eq!(hdd["algorithm"], "hdd", "{hdd}");
}

/// The reductions a trace records, in order: size, branch and candidate of each.
fn reductions(trace: &Path) -> Vec<serde_json::Value> {
    let text = std::fs::read_to_string(trace).unwrap();
    text.lines()
        .map(|line| serde_json::from_str::<serde_json::Value>(line).unwrap())
        .flat_map(|record| record["events"].as_array().cloned().unwrap_or_default())
        .filter(|event| event["event"] == "accepted")
        .map(|event| serde_json::json!([event["size"], event["branch"], event["candidate"]]))
        .collect()
}

/// `whittle reduce in.json --no-tui -a ALGORITHM -j JOBS -- ./t.sh` in `dir`, which must
/// succeed: its statistics, its result and its reductions.
fn reduce_json_with(
    dir: &Path,
    algorithm: &str,
    jobs: &str,
) -> (serde_json::Value, String, Vec<serde_json::Value>) {
    let name = format!("{algorithm}.{jobs}");
    let (output, stats, trace) = (
        format!("{name}.out"),
        format!("{name}.stats.json"),
        format!("{name}.trace"),
    );
    let run = whittle(
        &[
            "reduce",
            "in.json",
            "--no-tui",
            "-a",
            algorithm,
            "-j",
            jobs,
            "-o",
            &output,
            "--trace",
            &trace,
            "--stats-json",
            &stats,
            "--",
            "./t.sh",
        ],
        dir,
    );
    assert!(run.status.success(), "{run:?}");
    (
        self::stats(&dir.join(&stats)),
        std::fs::read_to_string(dir.join(&output)).unwrap(),
        reductions(&dir.join(&trace)),
    )
}

/// Idle workers test ahead what the walk judges next: with two workers and tests ahead, the
/// run makes the reductions the sequential run makes, in the same order, to the same result.
#[test]
#[cfg_attr(
    not(feature = "lang-json"),
    ignore = "needs the JSON grammar (cargo feature lang-json)"
)]
fn tests_run_ahead_change_no_reduction() {
    let dir = tempfile::tempdir().unwrap();
    let sample = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/json/sample.json");
    std::fs::copy(sample, dir.path().join("in.json")).unwrap();
    // A test slow enough that a window of one candidate leaves the other worker idle.
    write_script(
        dir.path(),
        "t.sh",
        "sleep 0.02; grep -q Turing \"$1\" && grep -q matrix \"$1\"",
    );
    // ddmin's windows, and a chunk sweep's.
    for algorithm in ["hddhr", "hddhr-sweep"] {
        let (sequential, sequential_result, sequential_reductions) =
            reduce_json_with(dir.path(), algorithm, "1");
        let (ahead, ahead_result, ahead_reductions) = reduce_json_with(dir.path(), algorithm, "2");
        assert_eq!(sequential["ahead"], 0, "{algorithm}: {sequential}");
        assert!(ahead["ahead"].as_u64().unwrap() > 0, "{algorithm}: {ahead}");
        assert!(sequential_reductions.len() > 3, "{sequential_reductions:?}");
        assert_eq!(ahead_reductions, sequential_reductions, "{algorithm}");
        assert_eq!(ahead_result, sequential_result, "{algorithm}");
    }
}

/// While most tests pass, the free worker tests what the walk judges should the set under test
/// go: the next set's first candidate with this set removed. In the coarse walk each key's
/// array is a set of one node (its one element) that goes, the eight sets one after another:
/// once most recent tests passed, each is tested beside the one before it. The run makes the
/// sequential run's reductions, to the same result.
#[test]
#[cfg_attr(
    not(feature = "lang-json"),
    ignore = "needs the JSON grammar (cargo feature lang-json)"
)]
fn while_sets_of_one_node_go_the_next_is_tested_beside_each() {
    let dir = tempfile::tempdir().unwrap();
    let keys: Vec<String> = (1..=8).map(|k| format!("\"key{k}\": [[{k}]]")).collect();
    std::fs::write(
        dir.path().join("in.json"),
        format!("{{{}}}\n", keys.join(", ")),
    )
    .unwrap();
    // A test slow enough that a window of one candidate leaves the other worker idle.
    let needs: Vec<String> = (1..=8).map(|k| format!("grep -q key{k} \"$1\"")).collect();
    write_script(
        dir.path(),
        "t.sh",
        &format!("sleep 0.05; {}", needs.join(" && ")),
    );
    let algorithm = "coarse-hddhr-sweep";
    let (sequential, sequential_result, sequential_reductions) =
        reduce_json_with(dir.path(), algorithm, "1");
    let (ahead, ahead_result, ahead_reductions) = reduce_json_with(dir.path(), algorithm, "2");
    assert_eq!(ahead_reductions, sequential_reductions);
    assert_eq!(ahead_result, sequential_result);
    assert!(
        sequential_result.contains("\"key8\": []"),
        "{sequential_result}"
    );
    assert_eq!(sequential["speculated"], 0, "{sequential}");
    assert!(ahead["speculated"].as_u64().unwrap() >= 2, "{ahead}");
}

#[test]
#[cfg_attr(
    not(feature = "lang-c"),
    ignore = "needs the C grammar (cargo feature lang-c)"
)]
fn the_fast_default_leaves_loop_control_alone() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("in.c"),
        "int main(void) {\n  int s = 0;\n  for (int i = 0; i < 10; i++) {\n    s += i;\n  }\n  return s;\n}\n",
    )
    .unwrap();
    // The test wants a loop and its body's statement: the condition and the update could go.
    write_script(
        dir.path(),
        "t.sh",
        "grep -q for \"$1\" && grep -q 's += i' \"$1\"",
    );
    let run = |options: &[&str], output: &str| {
        let mut args = vec!["reduce", "in.c", "--no-tui", "-j", "1", "-o", output];
        args.extend_from_slice(options);
        args.extend_from_slice(&["--", "./t.sh"]);
        let run = whittle(&args, dir.path());
        assert!(run.status.success(), "{run:?}");
        std::fs::read_to_string(dir.path().join(output)).unwrap()
    };
    let fast = run(&["--fast"], "fast.c");
    assert!(fast.contains("i < 10; i++"), "{fast}");
    let sweeps = run(&["-a", "hddhr-sweep"], "sweeps.c");
    assert!(!sweeps.contains("i < 10"), "{sweeps}");
    assert!(!sweeps.contains("i++"), "{sweeps}");
}

#[test]
#[cfg_attr(
    not(feature = "lang-json"),
    ignore = "needs the JSON grammar (cargo feature lang-json)"
)]
fn sweeps_reduce_the_json_example_as_ddmin_does_in_no_more_tests() {
    let dir = tempfile::tempdir().unwrap();
    json_task(dir.path());
    let run = |algorithm: &str| {
        let output = format!("{algorithm}.json");
        let stats_name = format!("{algorithm}.stats.json");
        let (stats, result) = reduce_json(
            dir.path(),
            &["-a", algorithm, "-o", &output],
            &stats_name,
            &output,
        );
        (
            stats["tests"].as_u64().unwrap(),
            result.split_whitespace().collect::<String>(),
        )
    };
    for (sweep, ddmin, expected) in [
        ("hddr-sweep", "hddr", r#"{"baz":[87]}"#),
        ("hddhr-sweep", "hddhr", r#"{"baz":87}"#),
    ] {
        let (sweep_tests, sweep_result) = run(sweep);
        let (ddmin_tests, ddmin_result) = run(ddmin);
        assert_eq!(sweep_result, expected, "{sweep}");
        assert_eq!(ddmin_result, expected, "{ddmin}");
        assert!(
            sweep_tests <= ddmin_tests,
            "{sweep} {sweep_tests}, {ddmin} {ddmin_tests}"
        );
    }
}

/// A `.sql` file in a dialect the SQL grammar misreads throughout is reduced as text (with a
/// note); `--language sql` keeps the grammar; a clean one is read with the grammar.
#[cfg(feature = "lang-sql")]
#[test]
fn a_sql_file_the_grammar_misreads_is_reduced_as_text() {
    let dir = tempfile::tempdir().unwrap();
    let trigger = "CREATE TRIGGER t AFTER INSERT ON a BEGIN DELETE FROM a; END;\n";
    let misread = format!("SELECT 1;\n{}", trigger.repeat(5));
    std::fs::write(dir.path().join("in.sql"), misread).unwrap();
    std::fs::write(dir.path().join("clean.sql"), "SELECT 1;\nSELECT 2;\n").unwrap();
    let reduce = |options: &[&str]| {
        let mut args = vec!["reduce", "--no-tui", "-j", "1"];
        args.extend_from_slice(options);
        args.extend_from_slice(&["--", "grep", "-q", "SELECT 1"]);
        let run = whittle(&args, dir.path());
        assert!(run.status.success(), "{run:?}");
        String::from_utf8_lossy(&run.stderr).to_string()
    };
    let stderr = reduce(&["in.sql"]);
    assert!(
        stderr.contains("finds syntax errors throughout"),
        "{stderr}"
    );
    assert!(stderr.contains("algorithm (ddmin:block"), "{stderr}");
    let stderr = reduce(&["in.sql", "--force", "--language", "sql"]);
    assert!(!stderr.contains("throughout"), "{stderr}");
    assert!(stderr.contains("algorithm (coarse-hddhr-sweep"), "{stderr}");
    let stderr = reduce(&["clean.sql"]);
    assert!(stderr.contains("algorithm (coarse-hddhr-sweep"), "{stderr}");
}
