//! Several files as one test case through the `whittle` binary: a header and a source with a
//! C-Vise-style test, a Python package whose result needs one line of two files and drops the
//! third, a directory with a binary file left intact, `--resume`, and the checks of the paths.

mod common;

use std::path::Path;
use std::process::Command;

use common::cli::{whittle, write_script};

fn read(path: &Path) -> String {
    std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// The names of the files in a directory, sorted.
fn names(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .map(|entry| entry.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    names
}

const HEADER: &str = "#ifndef BUG_H\n#define BUG_H\nstruct point { int x; int y; };\nint area(struct point a, struct point b);\nstatic inline int twice(int v) { return 2 * v; }\nint crash(int depth);\n#define LIMIT 100\n#endif\n";
const SOURCE: &str = "#include <stdio.h>\n#include \"bug.h\"\n\nint area(struct point a, struct point b) {\n    return (b.x - a.x) * (b.y - a.y);\n}\n\nint main(void) {\n    struct point p = { 1, 2 }, q = { 3, 4 };\n    printf(\"%d\\n\", area(p, q));\n    printf(\"%d\\n\", twice(LIMIT));\n    return crash(3);\n}\n";

/// `bug.c` and `bug.h`, and a test in C-Vise's style: no argument, the files read by name in
/// the working directory.
fn c_task(dir: &Path) {
    std::fs::write(dir.join("bug.h"), HEADER).unwrap();
    std::fs::write(dir.join("bug.c"), SOURCE).unwrap();
    write_script(
        dir,
        "test.sh",
        "grep -q 'int crash(int' bug.h && grep -q 'crash(3)' bug.c && grep -q '#include \"bug.h\"' bug.c",
    );
}

#[test]
#[cfg_attr(
    not(feature = "lang-c"),
    ignore = "needs the C grammar (cargo feature lang-c): the sizes are the C pipeline's"
)]
fn a_header_and_a_source_are_reduced_together_with_a_c_vise_style_test() {
    let dir = tempfile::tempdir().unwrap();
    c_task(dir.path());
    for input_type in ["all", "name"] {
        let out = format!("out-{input_type}");
        let run = whittle(
            &[
                "reduce",
                "bug.c",
                "bug.h",
                "--no-tui",
                "-j",
                "2",
                "--input-type",
                input_type,
                "-o",
                &out,
                "--",
                "./test.sh",
            ],
            dir.path(),
        );
        assert!(run.status.success(), "{run:?}");
        let result = dir.path().join(&out);
        assert_eq!(names(&result), ["bug.c", "bug.h"]);
        let source = read(&result.join("bug.c"));
        let header = read(&result.join("bug.h"));
        assert!(source.contains("crash(3)") && source.contains("#include \"bug.h\""));
        assert!(header.contains("int crash(int"), "{header}");
        assert!(
            source.len() < 40 && header.len() < 20,
            "{source:?} {header:?}"
        );
    }
    // The inputs are never written.
    assert_eq!(read(&dir.path().join("bug.h")), HEADER);
    assert_eq!(read(&dir.path().join("bug.c")), SOURCE);
}

/// A package of three modules; the test imports it and calls one function, so the result
/// needs one line of `__init__.py` and one of `core.py`, and no `util.py` (which the input's
/// `__init__.py` imports).
fn python_task(dir: &Path) {
    let package = dir.join("pkg");
    std::fs::create_dir(&package).unwrap();
    std::fs::write(
        package.join("__init__.py"),
        "\"\"\"A package.\"\"\"\nfrom . import util\nfrom .core import target, helper\n\nVERSION = util.version()\n__all__ = [\"target\", \"helper\"]\n",
    )
    .unwrap();
    std::fs::write(
        package.join("core.py"),
        "import os\n\ndef helper(x):\n    return x + 1\n\ndef target(): return 42\n\nclass Unused:\n    def method(self):\n        return os.getcwd()\n",
    )
    .unwrap();
    std::fs::write(
        package.join("util.py"),
        "def version():\n    return \"1.0\"\n\ndef other():\n    return [1, 2, 3]\n",
    )
    .unwrap();
    // The test gets the package's path; it imports it from its parent directory.
    write_script(
        dir,
        "test.sh",
        "cd \"$(dirname \"$1\")\" && python3 -c 'import pkg; assert pkg.target() == 42' 2>/dev/null",
    );
}

#[test]
#[ignore = "starts python3 several hundred times: a minute or two"]
fn a_python_package_keeps_one_line_of_two_files_and_drops_the_third() {
    let dir = tempfile::tempdir().unwrap();
    python_task(dir.path());
    let run = whittle(
        &[
            "reduce",
            "pkg",
            "--no-tui",
            "-j",
            "2",
            "--stats-json",
            "stats.json",
            "--",
            "./test.sh",
        ],
        dir.path(),
    );
    assert!(run.status.success(), "{run:?}");
    let result = dir.path().join("pkg.whittled");
    assert_eq!(names(&result), ["__init__.py", "core.py"], "util.py goes");
    let init = read(&result.join("__init__.py"));
    let core = read(&result.join("core.py"));
    assert_eq!(init.trim_end().lines().count(), 1, "{init:?}");
    assert_eq!(core.trim_end().lines().count(), 1, "{core:?}");
    assert!(
        init.contains("target") && core.contains("42"),
        "{init:?} {core:?}"
    );
    let stats: serde_json::Value =
        serde_json::from_slice(&std::fs::read(dir.path().join("stats.json")).unwrap()).unwrap();
    let files = stats["case"]["files"].as_array().unwrap();
    assert_eq!(files.len(), 3);
    let util = files.iter().find(|f| f["path"] == "util.py").unwrap();
    assert!(util["output_bytes"].is_null(), "{util}");
    let core_stats = files.iter().find(|f| f["path"] == "core.py").unwrap();
    assert_eq!(core_stats["language"], "python");
    assert_eq!(core_stats["output_bytes"], core.len());
    assert_eq!(stats["output_bytes"], (init.len() + core.len()) as u64);
    assert!(stats["tests"].as_u64().unwrap() > 0);
    // The input is never written.
    assert_eq!(
        names(&dir.path().join("pkg")),
        ["__init__.py", "core.py", "util.py"]
    );
}

#[test]
fn a_binary_file_of_a_directory_is_left_intact() {
    let dir = tempfile::tempdir().unwrap();
    let case = dir.path().join("case");
    std::fs::create_dir_all(case.join("assets")).unwrap();
    let binary: Vec<u8> = (0..=255u8).cycle().take(600).collect();
    std::fs::write(case.join("assets/blob.bin"), &binary).unwrap();
    std::fs::write(
        case.join("notes.txt"),
        "line one\nkeep this line\nline three\nline four\n",
    )
    .unwrap();
    // The test would accept any blob at all: only whittle's rule keeps it whole.
    write_script(
        dir.path(),
        "test.sh",
        "test -s \"$1/assets/blob.bin\" && grep -q keep \"$1/notes.txt\"",
    );
    let run = whittle(
        &["reduce", "case", "--no-tui", "--", "./test.sh"],
        dir.path(),
    );
    assert!(run.status.success(), "{run:?}");
    let result = dir.path().join("case.whittled");
    assert_eq!(
        std::fs::read(result.join("assets/blob.bin")).unwrap(),
        binary
    );
    assert_eq!(read(&result.join("notes.txt")), "keep");
    let stdout = String::from_utf8_lossy(&run.stdout);
    assert!(stdout.contains("binary: kept whole"), "{stdout}");
}

#[test]
fn a_stopped_run_resumes_from_its_result_directory() {
    let dir = tempfile::tempdir().unwrap();
    c_task(dir.path());
    let args = ["reduce", "bug.c", "bug.h", "--no-tui", "-j", "1"];
    let first = whittle(
        &[
            &args[..],
            &["--limit-tests", "12", "--stats-json", "stats.json"],
            &["--", "./test.sh"],
        ]
        .concat(),
        dir.path(),
    );
    assert!(first.status.success(), "{first:?}");
    // The stop names the limit as given, not what was left of it for the last file's session.
    let said = format!(
        "{}{}",
        String::from_utf8_lossy(&first.stdout),
        String::from_utf8_lossy(&first.stderr)
    );
    assert!(said.contains("the limit of 12 tests was reached"), "{said}");
    let stats: serde_json::Value =
        serde_json::from_str(&read(&dir.path().join("stats.json"))).unwrap();
    assert!(stats["tests"].as_u64().unwrap() <= 12, "{stats}");
    assert!(
        stats["effective_parallelism"].as_f64().unwrap() > 0.0,
        "{stats}"
    );
    let result = dir.path().join("bug.whittled");
    let partial = read(&result.join("bug.c")).len() + read(&result.join("bug.h")).len();
    assert!(partial < SOURCE.len() + HEADER.len());
    // An existing result is not replaced without being told how.
    let refused = whittle(&[&args[..], &["--", "./test.sh"]].concat(), dir.path());
    assert_eq!(refused.status.code(), Some(2), "{refused:?}");
    assert!(String::from_utf8_lossy(&refused.stderr).contains("--resume"));
    let resumed = whittle(
        &[&args[..], &["--resume", "--", "./test.sh"]].concat(),
        dir.path(),
    );
    assert!(resumed.status.success(), "{resumed:?}");
    assert!(String::from_utf8_lossy(&resumed.stderr).contains("resuming from"));
    let done = read(&result.join("bug.c")).len() + read(&result.join("bug.h")).len();
    assert!(done < partial, "{done} < {partial}");
    // No lock file or temporary directory is left beside the result.
    let leftovers: Vec<String> = names(dir.path())
        .into_iter()
        .filter(|name| name.starts_with('.'))
        .collect();
    assert!(leftovers.is_empty(), "{leftovers:?}");
}

#[test]
fn outputs_that_would_touch_the_inputs_are_refused() {
    let dir = tempfile::tempdir().unwrap();
    python_task(dir.path());
    for output in ["pkg", "pkg/inside"] {
        let run = whittle(
            &["reduce", "pkg", "--no-tui", "-o", output, "--", "./test.sh"],
            dir.path(),
        );
        assert_eq!(run.status.code(), Some(2), "{run:?}");
    }
    std::fs::write(dir.path().join("a.txt"), "a").unwrap();
    std::fs::create_dir(dir.path().join("sub")).unwrap();
    std::fs::write(dir.path().join("sub/a.txt"), "b").unwrap();
    let twins = whittle(
        &[
            "reduce",
            "a.txt",
            "sub/a.txt",
            "--no-tui",
            "--",
            "./test.sh",
        ],
        dir.path(),
    );
    assert_eq!(twins.status.code(), Some(2), "{twins:?}");
    assert!(String::from_utf8_lossy(&twins.stderr).contains("two inputs are named a.txt"));
    assert_eq!(
        names(&dir.path().join("pkg")),
        ["__init__.py", "core.py", "util.py"]
    );
}

#[test]
fn each_file_session_writes_a_trace_that_replays() {
    let dir = tempfile::tempdir().unwrap();
    c_task(dir.path());
    let run = whittle(
        &[
            "reduce",
            "bug.c",
            "bug.h",
            "--no-tui",
            "-j",
            "1",
            "--trace",
            "traces",
            "--",
            "./test.sh",
        ],
        dir.path(),
    );
    assert!(run.status.success(), "{run:?}");
    let traces = names(&dir.path().join("traces"));
    assert!(
        traces.contains(&"01-001-bug.c.trace".to_string()),
        "{traces:?}"
    );
    assert!(
        traces.contains(&"01-002-bug.h.trace".to_string()),
        "{traces:?}"
    );
    // The files phase has a trace of its own: its test case is the whole set as a bundle, its
    // steps sets of whole files (complements: each removes files). (Not in the first round
    // here: each file names the other, or the test does.)
    let phase = traces
        .iter()
        .find(|name| name.ends_with("-000-files.trace"))
        .unwrap_or_else(|| panic!("{traces:?}"));
    let files = whittle(
        &["replay", &format!("traces/{phase}"), "--no-tui"],
        dir.path(),
    );
    assert!(files.status.success(), "{files:?}");
    let steps = String::from_utf8_lossy(&files.stdout);
    assert!(steps.contains("pipeline ddmin files"), "{steps}");
    assert!(steps.contains("∇1/2"), "{steps}");
    assert!(!steps.contains("the trace ends before"), "{steps}");
    let replay = whittle(
        &["replay", "traces/01-002-bug.h.trace", "--no-tui"],
        dir.path(),
    );
    assert!(replay.status.success(), "{replay:?}");
    let steps = String::from_utf8_lossy(&replay.stdout);
    assert!(steps.contains("test"), "{steps}");
    // The trace of the header's last session ends on the header as it is in the result.
    let header = read(&dir.path().join("bug.whittled/bug.h"));
    let last = traces
        .iter()
        .filter(|name| name.ends_with("-002-bug.h.trace"))
        .max()
        .expect("a session of bug.h");
    let trace = read(&dir.path().join("traces").join(last));
    let end: serde_json::Value = serde_json::from_str(trace.lines().last().unwrap()).unwrap();
    assert_eq!(end["end"], true);
    assert_eq!(
        end["content_sha3"].as_str().unwrap(),
        whittle_core::exec::cache::sha3_hex(header.as_bytes())
    );
}

#[test]
fn a_set_that_fails_its_re_test_at_the_end_sends_the_run_back_to_one_that_passes() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("a.txt"), "x\nneedle\ny\n").unwrap();
    std::fs::write(dir.path().join("b.txt"), "other\n").unwrap();
    let state = dir.path().join("state");
    std::fs::create_dir(&state).unwrap();
    // A flaky test: `needle` alone (6 bytes, the smallest answer) passes the first time and
    // fails every time after, by a counter kept outside the run directory.
    write_script(
        dir.path(),
        "test.sh",
        &format!(
            "grep -q needle a.txt || exit 1\n\
             if [ \"$(wc -c < a.txt)\" -le 6 ]; then\n\
               n=$(cat '{state}/count' 2>/dev/null || echo 0); n=$((n+1)); echo $n > '{state}/count'\n\
               [ $n -le 1 ] || exit 1\n\
             fi\n\
             exit 0",
            state = state.display()
        ),
    );
    let run = whittle(
        &[
            "reduce",
            "a.txt",
            "b.txt",
            "--no-tui",
            "-j",
            "1",
            "--assume-deterministic",
            "--stats-json",
            "stats.json",
            "-o",
            "out",
            "--",
            "./test.sh",
        ],
        dir.path(),
    );
    let stderr = String::from_utf8_lossy(&run.stderr);
    assert!(run.status.success(), "{run:?}");
    assert!(
        stderr.contains(
            "the set of files the run was on then (6 bytes) failed its re-test (exit status 1); \
             the run went back to the newest earlier set that passed and went on from there"
        ),
        "{stderr}"
    );
    // The rounds went on from the set before the last, and their result reproduces.
    assert_eq!(names(&dir.path().join("out")), ["a.txt"]);
    let result = read(&dir.path().join("out/a.txt"));
    assert!(result.contains("needle") && result.len() > 6, "{result:?}");
    let count: u32 = read(&state.join("count")).trim().parse().unwrap();
    assert!(
        count >= 2,
        "the smallest set ran once in the reduction, once in the re-test: {count}"
    );
    let rerun = Command::new(dir.path().join("test.sh"))
        .current_dir(dir.path().join("out"))
        .status()
        .unwrap();
    assert!(rerun.success());
    let stats: serde_json::Value =
        serde_json::from_str(&read(&dir.path().join("stats.json"))).unwrap();
    assert_eq!(stats["flakiness"]["flaky"], true, "{stats}");
}

#[test]
fn symbolic_links_of_a_directory_are_kept_as_links() {
    let dir = tempfile::tempdir().unwrap();
    let case = dir.path().join("case");
    std::fs::create_dir(&case).unwrap();
    std::fs::write(case.join("a.txt"), "one\nneedle\ntwo\n").unwrap();
    let outside = dir.path().join("outside.txt");
    std::fs::write(&outside, "not part of the case\n").unwrap();
    std::os::unix::fs::symlink("a.txt", case.join("alias.txt")).unwrap();
    std::os::unix::fs::symlink(&outside, case.join("outside-link")).unwrap();
    // The test reads a.txt through its alias.
    write_script(dir.path(), "test.sh", "grep -q needle \"$1/alias.txt\"");
    let run = whittle(
        &["reduce", "case", "--no-tui", "-o", "out", "--", "./test.sh"],
        dir.path(),
    );
    assert!(run.status.success(), "{run:?}");
    let stdout = String::from_utf8_lossy(&run.stdout);
    assert!(
        stdout.contains("alias.txt: 5 -> 5 bytes (a symbolic link: kept as it is)"),
        "{stdout}"
    );
    assert!(
        stdout
            .lines()
            .any(|line| line.starts_with("  outside-link: ") && line.contains("-> removed,")),
        "{stdout}"
    );
    let out = dir.path().join("out");
    // The link the test does not need goes whole, like a file.
    assert_eq!(names(&out), ["a.txt", "alias.txt"]);
    assert_eq!(
        std::fs::read_link(out.join("alias.txt")).unwrap(),
        Path::new("a.txt")
    );
    assert!(read(&out.join("a.txt")).len() < 10, "a.txt was reduced");
    assert_eq!(
        read(&outside),
        "not part of the case\n",
        "never written through"
    );
    // The input's links are untouched too.
    assert_eq!(
        std::fs::read_link(case.join("alias.txt")).unwrap(),
        Path::new("a.txt")
    );
}

#[test]
fn a_batch_takes_directories_as_cases() {
    let dir = tempfile::tempdir().unwrap();
    let cases = dir.path().join("cases");
    for (case, files) in [
        (
            "one",
            &[("a.txt", "x\nneedle\ny\n"), ("b.txt", "junk\n")][..],
        ),
        ("two", &[("c.txt", "needle\nz\n")][..]),
    ] {
        std::fs::create_dir_all(cases.join(case)).unwrap();
        for (name, text) in files {
            std::fs::write(cases.join(case).join(name), text).unwrap();
        }
    }
    // With --directories the files directly in DIR are no inputs.
    std::fs::write(cases.join("loose.txt"), "needle\n").unwrap();
    write_script(dir.path(), "test.sh", "grep -rq needle \"$1\"");
    let run = whittle(
        &[
            "batch",
            "cases",
            "--directories",
            "--work-dir",
            "campaign",
            "--summary-json",
            "summary.json",
            "--",
            "./test.sh",
        ],
        dir.path(),
    );
    assert!(run.status.success(), "{run:?}");
    let summary: serde_json::Value =
        serde_json::from_str(&read(&dir.path().join("summary.json"))).unwrap();
    let reductions = summary["reductions"].as_array().unwrap();
    let seen: Vec<(String, u64, String)> = reductions
        .iter()
        .map(|r| {
            (
                r["input"]
                    .as_str()
                    .unwrap()
                    .rsplit('/')
                    .next()
                    .unwrap()
                    .to_string(),
                r["size_before"].as_u64().unwrap(),
                r["status"].as_str().unwrap().to_string(),
            )
        })
        .collect();
    assert_eq!(
        seen,
        [
            ("one".to_string(), 16, "reduced".to_string()),
            ("two".to_string(), 9, "reduced".to_string()),
        ],
        "{summary}"
    );
    assert_eq!(names(&cases.join("one.whittled")), ["a.txt"]);
    assert_eq!(read(&cases.join("one.whittled/a.txt")), "needle");
    assert_eq!(read(&cases.join("two.whittled/c.txt")), "needle");
    assert!(!cases.join("loose.whittled.txt").exists());
    // A manifest's input may be a directory without the flag.
    std::fs::write(
        dir.path().join("manifest.jsonl"),
        "{\"input\": \"cases/two\", \"output\": \"two-out\"}\n",
    )
    .unwrap();
    let run = whittle(
        &[
            "batch",
            "--manifest",
            "manifest.jsonl",
            "--work-dir",
            "campaign2",
            "--",
            "./test.sh",
        ],
        dir.path(),
    );
    assert!(run.status.success(), "{run:?}");
    assert_eq!(read(&dir.path().join("two-out/c.txt")), "needle");
}

/// In the first round, the files phase leaves alone a small file that another file names (it
/// is likely needed while that file is as it is): no set without `lib.txt` is tried before
/// `main.txt`, which names it, has had its session. The files that nothing names go at once,
/// and so does a large one that `main.txt` names but the test does not need (`big.txt`).
#[test]
fn the_first_files_phase_leaves_the_files_that_others_name() {
    let dir = tempfile::tempdir().unwrap();
    let case = dir.path().join("case");
    std::fs::create_dir(&case).unwrap();
    // Large beside `lib.txt` even once the others are gone, so `lib.txt` stays small.
    let main = format!("load ./lib\nload ./big\nbug\n{}", "noise\n".repeat(60));
    std::fs::write(case.join("main.txt"), &main).unwrap();
    std::fs::write(dir.path().join("original"), &main).unwrap();
    std::fs::write(case.join("lib.txt"), "the library\nof many lines\n").unwrap();
    std::fs::write(case.join("junk.txt"), "unused\n".repeat(20)).unwrap();
    std::fs::write(case.join("more.txt"), "unused too\n".repeat(30)).unwrap();
    std::fs::write(case.join("big.txt"), "large\n".repeat(200)).unwrap();
    let log = dir.path().join("log");
    write_script(
        dir.path(),
        "test.sh",
        &format!(
            "if [ -f \"$1/lib.txt\" ]; then l=lib; else l=nolib; fi\n\
             if [ -f \"$1/big.txt\" ]; then b=big; else b=nobig; fi\n\
             if cmp -s \"$1/main.txt\" {original}; then m=original; else m=edited; fi\n\
             echo \"$l $b $m\" >> {log}\n\
             grep -q bug \"$1/main.txt\" && grep -q ./lib \"$1/main.txt\" && [ -f \"$1/lib.txt\" ]",
            original = dir.path().join("original").display(),
            log = log.display(),
        ),
    );
    let run = whittle(
        &["reduce", "case", "--no-tui", "-j", "1", "--", "./test.sh"],
        dir.path(),
    );
    assert!(run.status.success(), "{run:?}");
    assert_eq!(
        names(&dir.path().join("case.whittled")),
        ["lib.txt", "main.txt"]
    );
    let log = read(&log);
    assert!(log.contains("nolib"), "a later phase tries it:\n{log}");
    assert!(!log.contains("nolib big original"), "{log}");
    assert!(!log.contains("nolib nobig original"), "{log}");
    assert!(
        log.contains("lib nobig original"),
        "big.txt goes at once:\n{log}"
    );
}
