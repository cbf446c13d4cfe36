//! The order of the files' turns in a round (`CaseRun::turns`).

use super::*;

/// Among the files not reduced yet, those that name at least half of the other files of the
/// set (their imports) take their turns first, the most first: the entry point before what it
/// uses; the others in the set's order.
#[test]
fn files_that_use_others_take_their_turns_first() {
    let job = CaseJob {
        input: vec![
            file("util.js", "module.exports = 1\n"),
            file("lib.js", "require('./util')\n"),
            file("other.js", "// the lib of main\n"),
            file("main.js", "require('./lib'); require('./util.js')\n"),
        ],
        ..coupled_job(None)
    };
    let oracle = predicate("anything", |_: &[u8]| true);
    let stop = CaseStop::default();
    let mut run = job.start(Arc::new(oracle), &stop).expect("interesting");
    assert_eq!(run.turns(), [3, 0, 1, 2]);
}

/// An OCaml interface takes its turn before its implementation (which must define all it declares).
#[cfg(feature = "lang-ocaml")]
#[test]
fn an_interface_takes_its_turn_before_its_implementation() {
    let input = vec![file("a.ml", "let x = 1\n"), file("a.mli", "val x : int\n")];
    let job = CaseJob {
        input,
        ..coupled_job(None)
    };
    let (oracle, stop) = (predicate("anything", |_: &[u8]| true), CaseStop::default());
    let mut run = job.start(Arc::new(oracle), &stop).unwrap();
    assert_eq!(run.turns(), [1, 0]);
}

/// The files whose latest session removed the most take their turns first; a file not reduced
/// yet goes before them all, ties in the set's order.
#[test]
fn files_take_their_turns_by_what_their_latest_session_removed() {
    let job = CaseJob {
        input: vec![
            file("a.txt", "a\n"),
            file("b.txt", "b\n"),
            file("c.txt", "c\n"),
            file("d.txt", "d\n"),
        ],
        ..coupled_job(None)
    };
    let oracle = predicate("anything", |_: &[u8]| true);
    let stop = CaseStop::default();
    let mut run = job.start(Arc::new(oracle), &stop).expect("interesting");
    assert_eq!(
        run.turns(),
        [0, 1, 2, 3],
        "none reduced yet: the set's order"
    );
    run.last_removed.insert(PathBuf::from("a.txt"), 3);
    run.last_removed.insert(PathBuf::from("b.txt"), 40);
    run.last_removed.insert(PathBuf::from("d.txt"), 3);
    assert_eq!(run.turns(), [2, 1, 0, 3]);
}

/// In a Go package the files that use what the others declare take their turns first: the
/// file whose declarations another file uses goes after it (its declarations can go only once
/// their uses went), the one used by two files last; a file without a grammar keeps its place.
#[cfg(feature = "lang-go")]
#[test]
fn files_whose_declarations_others_use_take_their_turns_last() {
    let job = CaseJob {
        input: vec![
            file("c.go", "package p\nfunc C() {}\n"),
            file("b.go", "package p\nfunc B() { C() }\n"),
            file("notes.txt", "B C\n"),
            file("a.go", "package p\nfunc A() { B(); C() }\n"),
        ],
        ..coupled_job(None)
    };
    let (oracle, stop) = (predicate("anything", |_: &[u8]| true), CaseStop::default());
    let mut run = job.start(Arc::new(oracle), &stop).expect("interesting");
    assert_eq!(run.turns(), [2, 3, 1, 0]);
}
