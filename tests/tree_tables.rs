//! Every embedded profile parses, languages are found by name and extension, and the generated
//! tables cover the grammars. (That the tables are what the grammar crates give now is checked
//! by `cargo xtask grammars --check` and the tests of `xtask/`.)

mod common;

use whittle_core::tree::languages;
use whittle_core::tree::profile::Profile;

#[test]
fn profiles_parse_and_name_their_files() {
    let dir = common::tree::project_dir().join("grammars");
    let mut names = Vec::new();
    for entry in std::fs::read_dir(&dir).unwrap() {
        let path = entry.unwrap().path();
        let file = path.file_name().unwrap().to_string_lossy().to_string();
        if let Some(name) = file.strip_suffix(".toml")
            && !name.ends_with(".generated")
        {
            let profile = Profile::from_toml(&std::fs::read_to_string(&path).unwrap()).unwrap();
            assert_eq!(profile.name, name);
            names.push(profile.name);
        }
    }
    names.sort();
    let mut known: Vec<String> = languages().iter().map(|l| l.name().to_string()).collect();
    known.sort();
    assert_eq!(names, known, "every profile is embedded");
}

#[test]
fn languages_are_found_by_name_and_extension() {
    use std::path::Path;
    use whittle_core::tree::Language;
    assert_eq!(Language::for_path(Path::new("a/b.c")).unwrap().name(), "c");
    assert_eq!(
        Language::for_path(Path::new("x.HPP")).unwrap().name(),
        "cpp"
    );
    assert_eq!(
        Language::for_path(Path::new("x.tsx")).unwrap().name(),
        "tsx"
    );
    assert_eq!(Language::by_name("JSON").unwrap().name(), "json");
    assert_eq!(
        Language::for_path(Path::new("bug.i")).unwrap().name(),
        "c",
        "preprocessed C"
    );
    assert_eq!(
        Language::for_path(Path::new("bug.ii")).unwrap().name(),
        "cpp"
    );
    assert!(Language::for_path(Path::new("x.unknown")).is_err());
    assert!(Language::for_path(Path::new("Makefile")).is_err());
    // Without a known extension, the `#!` line tells.
    let by_shebang = |text: &str| {
        Language::for_file(Path::new("script"), text.as_bytes()).map(|l| l.name().to_owned())
    };
    assert_eq!(
        by_shebang("#!/usr/bin/env python3\nprint(1)\n").unwrap(),
        "python"
    );
    assert_eq!(by_shebang("#!/usr/bin/python3.12 -u\n").unwrap(), "python");
    assert_eq!(
        by_shebang("#!/usr/bin/env -S node --stack-size=99\n").unwrap(),
        "javascript"
    );
    assert_eq!(
        Language::for_file(Path::new("t.js"), b"#!/usr/bin/env python\n")
            .unwrap()
            .name(),
        "javascript",
        "the extension comes first"
    );
    assert_eq!(by_shebang("#!/bin/sh\necho\n").unwrap(), "bash");
    assert_eq!(by_shebang("#!/usr/bin/env bash\n").unwrap(), "bash");
    assert_eq!(by_shebang("#!/usr/bin/ruby -w\n").unwrap(), "ruby");
    assert_eq!(by_shebang("#!/usr/bin/env php\n").unwrap(), "php");
    assert_eq!(by_shebang("#!/usr/bin/env scala\n").unwrap(), "scala");
    assert_eq!(by_shebang("#!/usr/bin/lua5.4\n").unwrap(), "lua");
    assert_eq!(by_shebang("#!/usr/bin/env ocaml\n").unwrap(), "ocaml");
    assert_eq!(by_shebang("#!/usr/bin/env runghc\n").unwrap(), "haskell");
    assert_eq!(by_shebang("#!/usr/bin/env elixir\n").unwrap(), "elixir");
    assert!(by_shebang("#!/usr/bin/awk -f\n").is_err());
    assert!(by_shebang("print(1)\n").is_err());
    assert!(by_shebang("#!\n").is_err());
    assert!(Language::by_name("cobol").is_err());
    for language in languages() {
        for extension in language.extensions() {
            let path = format!("file.{extension}");
            assert_eq!(
                Language::for_path(Path::new(&path)).unwrap().name(),
                language.name(),
                "{path}"
            );
        }
    }
}

/// SQL's grammar reads the dialects as one: a file it misreads throughout goes to the text
/// pipeline, a stray error does not; other grammars never leave a file to it.
#[test]
fn a_sql_file_in_an_unknown_dialect_reads_as_text() {
    use whittle_core::tree::{BYTES_PER_STRAY_ERROR, Language};
    let sql = Language::by_name("sql").unwrap();
    if !sql.is_available() {
        return;
    }
    let clean = "CREATE TABLE a (id INTEGER);\nSELECT id FROM a WHERE id > 1;\n".repeat(40);
    assert!(!sql.reads_as_text(clean.as_bytes()));
    let stray = format!("{clean}SELECT FROM WHERE;\n");
    assert!(stray.len() > BYTES_PER_STRAY_ERROR);
    assert!(!sql.reads_as_text(stray.as_bytes()), "one error in 2.9 KB");
    // SQLite's triggers, unknown to the grammar, in every other statement.
    let trigger = "CREATE TRIGGER t AFTER INSERT ON a BEGIN DELETE FROM a; END;\n";
    let dialect = format!("{}{}", clean, trigger.repeat(20));
    assert!(sql.reads_as_text(dialect.as_bytes()));
    let javascript = Language::by_name("javascript").unwrap();
    assert!(!javascript.reads_as_text(b"function ( {{{ ]]] ;;; )"));
}

#[test]
fn tables_cover_the_grammars() {
    for language in languages().iter().filter(|l| l.is_available()) {
        let table = language.generated_table().unwrap();
        assert!(
            table.phi.len() > 5,
            "{}: Φ table too small",
            language.name()
        );
        assert!(
            table.unknown.is_empty(),
            "{}: kinds without Φ: {:?}",
            language.name(),
            table.unknown
        );
        let tables = language.tables().unwrap();
        let grammar = tables.grammar();
        // Every named, visible kind of the grammar has a Φ (from the table or the overlay).
        for id in 0..grammar.node_kind_count() as u16 {
            if grammar.node_kind_is_named(id)
                && grammar.node_kind_is_visible(id)
                && !grammar.node_kind_is_supertype(id)
            {
                let name = grammar.node_kind_for_id(id).unwrap();
                let canonical = grammar.id_for_node_kind(name, true);
                assert!(
                    tables.phi(canonical).is_some(),
                    "{}: no Φ for {name}",
                    language.name()
                );
            }
        }
    }
}
