//! The rules of `ARCHITECTURE.md` hold:
//! - the layers of the section "Layers": every module is listed exactly once, and a module uses
//!   (by any `crate::` path) only modules listed before it. The core's `foundations` are its
//!   top-level modules, each other layer of the core is the folder of `whittle-core/src` with
//!   its name, and the `front ends` are the modules of the whittle crate (`src/`);
//! - the crate boundary: whittle-core depends on no terminal, UI or command-line crate (its
//!   `Cargo.toml` and `cargo tree`), names none in its code and derives nothing of clap, and
//!   only its `tree/` names tree-sitter;
//! - the engine never reaches up: the core neither depends on nor names the whittle crate;
//! - every path ARCHITECTURE.md names exists;
//! - only the front ends print.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

/// The crates a core must not depend on: terminals, UIs and command lines.
const UI_CRATES: [&str; 8] = [
    "ratatui",
    "crossterm",
    "termion",
    "termwiz",
    "clap",
    "indicatif",
    "tui-tree-widget",
    "syntect",
];

/// The layer of the core's top-level modules, and the one of the whittle crate's modules.
const FOUNDATIONS: &str = "foundations";
const FRONT_ENDS: &str = "front ends";

fn project() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn core_src() -> PathBuf {
    project().join("whittle-core/src")
}

fn front_src() -> PathBuf {
    project().join("src")
}

fn read(path: &Path) -> String {
    std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// The layers of `ARCHITECTURE.md`, in order: the lines `name: module module ...` of the first
/// `text` block after the heading `## Layers`.
fn layers() -> Vec<(String, Vec<String>)> {
    let architecture = read(&project().join("ARCHITECTURE.md"));
    let section = architecture
        .split("\n## Layers\n")
        .nth(1)
        .expect("ARCHITECTURE.md has a section `## Layers`");
    let block = section
        .split("```text\n")
        .nth(1)
        .and_then(|rest| rest.split("```").next())
        .expect("the section `## Layers` has a ```text block");
    block
        .lines()
        .filter(|line| !line.trim().is_empty())
        .map(|line| {
            let (name, modules) = line
                .split_once(':')
                .unwrap_or_else(|| panic!("a layer is `name: modules`, not `{line}`"));
            let modules = modules.split_whitespace().map(str::to_owned).collect();
            (name.trim().to_owned(), modules)
        })
        .collect()
}

/// The folder layers of the core: every layer but the foundations and the front ends.
fn folder_layers(layers: &[(String, Vec<String>)]) -> BTreeSet<String> {
    layers
        .iter()
        .map(|(name, _)| name.clone())
        .filter(|name| name != FOUNDATIONS && name != FRONT_ENDS)
        .collect()
}

/// The modules a `lib.rs` or `mod.rs` declares.
fn declared_modules(source: &str) -> BTreeSet<String> {
    source
        .lines()
        .filter_map(|line| {
            let line = line.trim();
            let rest = line
                .strip_prefix("pub mod ")
                .or_else(|| line.strip_prefix("mod "))?;
            Some(rest.trim_end_matches(';').trim().to_owned())
        })
        .collect()
}

/// Every `.rs` file under `dir`, sorted.
fn rust_files(dir: &Path) -> Vec<PathBuf> {
    fn walk(dir: &Path, out: &mut Vec<PathBuf>) {
        for entry in std::fs::read_dir(dir).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                walk(&path, out);
            } else if path.extension().is_some_and(|e| e == "rs") {
                out.push(path);
            }
        }
    }
    let mut out = Vec::new();
    walk(dir, &mut out);
    out.sort();
    out
}

fn shown(file: &Path) -> String {
    file.strip_prefix(project()).unwrap().display().to_string()
}

/// The code of a Rust file: comments left out, string and character literals emptied (`""`,
/// `' '`), so that what remains are the paths and macros the code uses.
fn code_only(source: &str) -> String {
    let bytes = source.as_bytes();
    let mut out = String::with_capacity(source.len());
    let mut i = 0;
    while i < bytes.len() {
        let rest = &bytes[i..];
        let after_ident = i > 0 && is_ident_byte(bytes[i - 1]);
        if rest.starts_with(b"//") {
            while i < bytes.len() && bytes[i] != b'\n' {
                i += 1;
            }
        } else if rest.starts_with(b"/*") {
            let mut depth = 0;
            while i < bytes.len() {
                if bytes[i..].starts_with(b"/*") {
                    depth += 1;
                    i += 2;
                } else if bytes[i..].starts_with(b"*/") {
                    depth -= 1;
                    i += 2;
                    if depth == 0 {
                        break;
                    }
                } else {
                    i += 1;
                }
            }
        } else if let Some(hashes) = raw_string_start(rest).filter(|_| !after_ident) {
            // r"...", r#"..."#: no escapes; ends at a quote followed by as many hashes.
            i += 2 + hashes;
            let end: Vec<u8> = std::iter::once(b'"')
                .chain(std::iter::repeat_n(b'#', hashes))
                .collect();
            while i < bytes.len() && !bytes[i..].starts_with(&end) {
                i += 1;
            }
            i += end.len();
            out.push_str("\"\"");
        } else if bytes[i] == b'"' {
            i += 1;
            while i < bytes.len() && bytes[i] != b'"' {
                i += if bytes[i] == b'\\' { 2 } else { 1 };
            }
            i += 1;
            out.push_str("\"\"");
        } else if bytes[i] == b'\'' {
            // A character literal ('x', '\n', '\u{1F600}', 'é'), or a lifetime or label.
            let literal_end = if bytes.get(i + 1) == Some(&b'\\') {
                bytes[i + 2..]
                    .iter()
                    .position(|&b| b == b'\'')
                    .map(|at| i + 2 + at + 1)
            } else {
                source[i + 1..]
                    .chars()
                    .next()
                    .map(|c| i + 1 + c.len_utf8())
                    .filter(|&end| bytes.get(end) == Some(&b'\''))
                    .map(|end| end + 1)
            };
            match literal_end {
                Some(end) => {
                    out.push_str("' '");
                    i = end;
                }
                None => {
                    out.push('\'');
                    i += 1;
                }
            }
        } else {
            let c = source[i..].chars().next().unwrap();
            out.push(c);
            i += c.len_utf8();
        }
    }
    out
}

/// How many `#` a raw string starting here has (`r"`: 0, `r#"`: 1), if one starts here.
fn raw_string_start(rest: &[u8]) -> Option<usize> {
    let hashes = rest.get(1..)?.iter().take_while(|&&b| b == b'#').count();
    (rest[0] == b'r' && rest.get(1 + hashes) == Some(&b'"')).then_some(hashes)
}

fn is_ident_byte(byte: u8) -> bool {
    byte.is_ascii_alphanumeric() || byte == b'_'
}

/// The paths of a use-tree or path starting at `code[*at..]` (after `crate::`), each as its
/// first segments up to two: `{a, b::{c, d}}` gives `[a]`, `[b, c]`, `[b, d]`.
fn use_tree(code: &str, at: &mut usize, prefix: Vec<String>, out: &mut BTreeSet<Vec<String>>) {
    let bytes = code.as_bytes();
    let skip_space = |at: &mut usize| {
        while *at < bytes.len() && bytes[*at].is_ascii_whitespace() {
            *at += 1;
        }
    };
    let mut prefix = prefix;
    loop {
        skip_space(at);
        if bytes.get(*at) == Some(&b'{') {
            *at += 1;
            loop {
                skip_space(at);
                match bytes.get(*at) {
                    None => return,
                    Some(b'}') => {
                        *at += 1;
                        return;
                    }
                    Some(b',') => *at += 1,
                    Some(_) => {
                        let before = *at;
                        use_tree(code, at, prefix.clone(), out);
                        if *at == before {
                            *at += 1;
                        }
                    }
                }
            }
        }
        let start = *at;
        while *at < bytes.len() && is_ident_byte(bytes[*at]) {
            *at += 1;
        }
        let segment = &code[start..*at];
        if !segment.is_empty() && segment != "self" && prefix.len() < 2 {
            prefix.push(segment.to_owned());
        }
        if segment.is_empty() || !code[*at..].starts_with("::") {
            if !prefix.is_empty() {
                out.insert(prefix);
            }
            return;
        }
        *at += 2;
    }
}

/// The paths a source names through `crate::`, each as its first two segments at most.
fn crate_paths(code: &str) -> BTreeSet<Vec<String>> {
    let bytes = code.as_bytes();
    let mut found = BTreeSet::new();
    let mut from = 0;
    while let Some(found_at) = code[from..].find("crate::") {
        let start = from + found_at;
        from = start + "crate::".len();
        if start > 0 && (is_ident_byte(bytes[start - 1]) || bytes[start - 1] == b'$') {
            continue;
        }
        let mut at = from;
        use_tree(code, &mut at, Vec::new(), &mut found);
    }
    found
}

/// Whether `code` names the crate `name` (written with `_` for `-`): a path through it
/// (`name::...`), `use name` or `extern crate name`. A field or variable of the same name is
/// not the crate.
fn names_crate(code: &str, name: &str) -> bool {
    let bytes = code.as_bytes();
    code.match_indices(name).any(|(at, _)| {
        let end = at + name.len();
        if (at > 0 && is_ident_byte(bytes[at - 1]))
            || bytes.get(end).is_some_and(|&b| is_ident_byte(b))
        {
            return false;
        }
        let before = code[..at].trim_end();
        code[end..].trim_start().starts_with("::")
            || before.ends_with("use")
            || before.ends_with("extern crate")
    })
}

/// Where a file sits: its layer and module (`None` for the `lib.rs`, `main.rs` and the
/// `mod.rs` of a folder layer, which only declare modules).
fn place_of(file: &Path, folders: &BTreeSet<String>) -> Option<(String, String)> {
    let (relative, front) = match file.strip_prefix(core_src()) {
        Ok(relative) => (relative, false),
        Err(_) => (file.strip_prefix(front_src()).unwrap(), true),
    };
    let parts: Vec<String> = relative
        .components()
        .map(|c| {
            c.as_os_str()
                .to_string_lossy()
                .trim_end_matches(".rs")
                .to_owned()
        })
        .collect();
    let first = parts[0].clone();
    if matches!(first.as_str(), "lib" | "main") {
        return None;
    }
    if front {
        return Some((FRONT_ENDS.to_owned(), first));
    }
    if folders.contains(&first) {
        let module = parts.get(1)?.clone();
        return (module != "mod").then_some((first, module));
    }
    Some((FOUNDATIONS.to_owned(), first))
}

/// The layer and module a `crate::` path of a file in `layer` names (`None`: a folder layer
/// without a module).
fn module_named(
    path: &[String],
    layer: &str,
    folders: &BTreeSet<String>,
) -> Option<(String, String)> {
    if layer == FRONT_ENDS {
        return Some((FRONT_ENDS.to_owned(), path[0].clone()));
    }
    if folders.contains(&path[0]) {
        return Some((path[0].clone(), path.get(1)?.clone()));
    }
    Some((FOUNDATIONS.to_owned(), path[0].clone()))
}

#[test]
fn every_module_is_in_one_layer() {
    let layers = layers();
    let mut listed = BTreeSet::new();
    for (layer, modules) in &layers {
        for module in modules {
            assert!(
                listed.insert((layer.clone(), module.clone())),
                "`{module}` is listed twice in the layer `{layer}` of ARCHITECTURE.md"
            );
        }
    }
    let folders = folder_layers(&layers);
    let listed_in = |layer: &str| -> BTreeSet<String> {
        layers
            .iter()
            .filter(|(name, _)| name == layer)
            .flat_map(|(_, modules)| modules.iter().cloned())
            .collect()
    };
    let mut wrong = Vec::new();
    let mut compare = |what: String, declared: BTreeSet<String>, listed: BTreeSet<String>| {
        let unlisted: Vec<_> = declared.difference(&listed).collect();
        let undeclared: Vec<_> = listed.difference(&declared).collect();
        if !unlisted.is_empty() || !undeclared.is_empty() {
            wrong.push(format!(
                "{what}: declared but not listed {unlisted:?}, listed but not declared \
                 {undeclared:?}"
            ));
        }
    };
    let core_lib = declared_modules(&read(&core_src().join("lib.rs")));
    let mut core_top = listed_in(FOUNDATIONS);
    core_top.extend(folders.iter().cloned());
    compare(
        "whittle-core/src/lib.rs (the foundations and the folder layers)".into(),
        core_lib,
        core_top,
    );
    for folder in &folders {
        let index = core_src().join(folder).join("mod.rs");
        assert!(
            index.exists(),
            "the layer `{folder}` of ARCHITECTURE.md is a folder of whittle-core/src with a mod.rs"
        );
        compare(
            format!("whittle-core/src/{folder}/mod.rs"),
            declared_modules(&read(&index)),
            listed_in(folder),
        );
    }
    compare(
        "src/lib.rs (the front ends)".into(),
        declared_modules(&read(&front_src().join("lib.rs"))),
        listed_in(FRONT_ENDS),
    );
    assert!(
        wrong.is_empty(),
        "the modules and the layers of ARCHITECTURE.md differ (add a new module where its \
         imports allow):\n{}",
        wrong.join("\n")
    );
}

#[test]
fn modules_import_only_from_modules_listed_before_them() {
    let layers = layers();
    let folders = folder_layers(&layers);
    let order: Vec<(String, String)> = layers
        .iter()
        .flat_map(|(layer, modules)| modules.iter().map(move |m| (layer.clone(), m.clone())))
        .collect();
    let rank = |place: &(String, String)| order.iter().position(|listed| listed == place);
    let mut upward = Vec::new();
    for file in rust_files(&core_src())
        .into_iter()
        .chain(rust_files(&front_src()))
    {
        let Some(place) = place_of(&file, &folders) else {
            continue;
        };
        let Some(own) = rank(&place) else {
            // Reported by `every_module_is_in_one_layer`.
            continue;
        };
        let code = code_only(&read(&file));
        for path in crate_paths(&code) {
            let written = format!("crate::{}", path.join("::"));
            let Some(used) = module_named(&path, &place.0, &folders) else {
                upward.push(format!(
                    "{} uses {written}, which names no module of the layer",
                    shown(&file)
                ));
                continue;
            };
            if used == place {
                continue;
            }
            match rank(&used) {
                Some(theirs) if theirs < own => {}
                Some(theirs) => upward.push(format!(
                    "{} ({} layer) uses {written} ({} layer), listed after it",
                    shown(&file),
                    order[own].0,
                    order[theirs].0
                )),
                None => upward.push(format!(
                    "{} uses {written}, which is in no layer",
                    shown(&file)
                )),
            }
        }
    }
    assert!(
        upward.is_empty(),
        "imports against the layers of ARCHITECTURE.md (a module uses only modules listed \
         before it):\n{}",
        upward.join("\n")
    );
}

/// The sections of a Cargo manifest that a package's build depends on (`[dependencies]`,
/// `[build-dependencies]` and their per-target forms), with the names of the crates in them.
fn normal_dependencies(manifest: &str) -> BTreeSet<String> {
    let mut names = BTreeSet::new();
    let mut in_section = false;
    for line in manifest.lines().map(str::trim) {
        if let Some(header) = line.strip_prefix('[') {
            let header = header.trim_end_matches(']');
            let table = header.rsplit_once('.').map_or(header, |(before, _)| before);
            let kind = |name: &str| name == "dependencies" || name == "build-dependencies";
            if kind(header) || kind(header.rsplit('.').next().unwrap_or(header)) {
                in_section = true;
            } else if kind(table.rsplit('.').next().unwrap_or(table)) {
                // `[dependencies.NAME]`: one crate as a table.
                names.insert(
                    header
                        .rsplit('.')
                        .next()
                        .unwrap()
                        .trim_matches('"')
                        .to_owned(),
                );
                in_section = false;
            } else {
                in_section = false;
            }
        } else if in_section
            && let Some((name, _)) = line.split_once('=')
            && !line.starts_with('#')
        {
            names.insert(name.trim().trim_matches('"').to_owned());
        }
    }
    names
}

#[test]
fn the_core_depends_on_no_terminal_ui_or_command_line_crate() {
    let manifest = read(&project().join("whittle-core/Cargo.toml"));
    let dependencies = normal_dependencies(&manifest);
    assert!(
        dependencies.contains("tree-sitter"),
        "the manifest's dependencies are read: {dependencies:?}"
    );
    let forbidden: Vec<&&str> = UI_CRATES
        .iter()
        .filter(|name| dependencies.contains(**name))
        .collect();
    assert!(
        forbidden.is_empty(),
        "whittle-core/Cargo.toml depends on {forbidden:?}: the terminal, the UI and the command \
         line belong to the whittle crate"
    );
}

#[test]
fn nothing_the_core_builds_on_pulls_in_a_terminal_ui_or_command_line_crate() {
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
    let output = std::process::Command::new(cargo)
        .args(["tree", "--offline", "-p", "whittle-core", "-e", "normal"])
        .args(["--prefix", "none", "--format", "{p}"])
        .current_dir(project())
        .output()
        .expect("cargo runs");
    assert!(
        output.status.success(),
        "cargo tree failed: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    let tree = String::from_utf8_lossy(&output.stdout);
    let crates: BTreeSet<&str> = tree
        .lines()
        .filter_map(|line| line.split_whitespace().next())
        .collect();
    assert!(
        crates.contains("tree-sitter"),
        "cargo tree lists: {crates:?}"
    );
    let forbidden: Vec<&&str> = UI_CRATES.iter().filter(|c| crates.contains(**c)).collect();
    assert!(
        forbidden.is_empty(),
        "whittle-core pulls in {forbidden:?} (cargo tree -p whittle-core -e normal -i NAME \
         tells through what)"
    );
}

#[test]
fn the_core_names_no_terminal_ui_or_command_line_crate_and_derives_nothing_of_clap() {
    let mut wrong = Vec::new();
    for file in rust_files(&core_src()) {
        let code = code_only(&read(&file));
        for name in UI_CRATES {
            if names_crate(&code, &name.replace('-', "_")) {
                wrong.push(format!("{} names {name}", shown(&file)));
            }
        }
        for derive in code.split("derive(").skip(1) {
            let list = derive.split(')').next().unwrap_or("");
            for clap in ["Parser", "Args", "Subcommand", "ValueEnum"] {
                if list
                    .split(',')
                    .any(|item| item.trim().rsplit("::").next() == Some(clap))
                {
                    wrong.push(format!("{} derives {clap}", shown(&file)));
                }
            }
        }
        for attribute in ["#[arg(", "#[command(", "#[value(", "#[clap("] {
            if code.contains(attribute) {
                wrong.push(format!(
                    "{} has clap's attribute {attribute}...)]",
                    shown(&file)
                ));
            }
        }
    }
    assert!(
        wrong.is_empty(),
        "the core knows nothing of terminals, UIs and command lines (the whittle crate turns \
         its choices into options: src/cli/choices.rs):\n{}",
        wrong.join("\n")
    );
}

/// The engine never reaches up into its front ends: the core neither depends on the whittle
/// crate nor names it (the compiler refuses the cycle only once someone adds the dependency).
#[test]
fn the_core_names_no_front_end() {
    let manifest = read(&project().join("whittle-core/Cargo.toml"));
    assert!(
        !normal_dependencies(&manifest).contains("whittle"),
        "whittle-core/Cargo.toml depends on the whittle crate"
    );
    let naming: Vec<String> = rust_files(&core_src())
        .into_iter()
        .filter(|file| names_crate(&code_only(&read(file)), "whittle"))
        .map(|file| shown(&file))
        .collect();
    assert!(
        naming.is_empty(),
        "the core names the whittle crate (its cli, tui, console or headless): {naming:?}"
    );
}

/// Every file and folder `ARCHITECTURE.md` names in backquotes exists: from the project's root,
/// or as the end of a path under it (`passes/mod.rs`). `NAME` stands for a name to choose.
#[test]
fn every_path_the_architecture_names_exists() {
    let architecture = read(&project().join("ARCHITECTURE.md"));
    let mut known: BTreeSet<String> = BTreeSet::new();
    for top in [
        "src",
        "whittle-core",
        "tests",
        "docs",
        "grammars",
        "xtask",
        "examples",
    ] {
        fn walk(dir: &Path, root: &Path, out: &mut BTreeSet<String>) {
            for entry in std::fs::read_dir(dir).unwrap() {
                let path = entry.unwrap().path();
                out.insert(path.strip_prefix(root).unwrap().display().to_string());
                if path.is_dir() && !path.ends_with("target") {
                    walk(&path, root, out);
                }
            }
        }
        walk(&project().join(top), &project(), &mut known);
    }
    let named: Vec<&str> = architecture
        .split('`')
        .skip(1)
        .step_by(2)
        .filter(|quoted| !quoted.contains(char::is_whitespace) && !quoted.contains("NAME"))
        .filter(|quoted| {
            quoted.contains('/')
                || [".rs", ".toml", ".md"]
                    .iter()
                    .any(|end| quoted.ends_with(end))
        })
        .collect();
    assert!(
        named.contains(&"whittle-core/src/tree/language.rs"),
        "the paths are read: {named:?}"
    );
    let missing: Vec<&&str> = named
        .iter()
        .filter(|path| {
            let path = path.trim_end_matches('/');
            !project().join(path).exists()
                && !known.iter().any(|k| k.ends_with(&format!("/{path}")))
        })
        .collect();
    assert!(
        missing.is_empty(),
        "ARCHITECTURE.md names what is not in the tree: {missing:?}"
    );
}

#[test]
fn only_the_tree_module_names_tree_sitter() {
    let tree = core_src().join("tree");
    let naming: Vec<String> = rust_files(&core_src())
        .into_iter()
        .chain(rust_files(&front_src()))
        .filter(|file| !file.starts_with(&tree))
        .filter(|file| names_crate(&code_only(&read(file)), "tree_sitter"))
        .map(|file| shown(&file))
        .collect();
    assert!(
        naming.is_empty(),
        "only whittle-core/src/tree/ names tree-sitter (what else needs its parse goes through \
         tree::syntax): {naming:?}"
    );
}

/// The macros that write to the terminal, where they are used outside `front ends`.
fn prints(code: &str) -> Vec<&'static str> {
    ["print!", "println!", "eprint!", "eprintln!", "dbg!"]
        .into_iter()
        .filter(|mac| {
            code.match_indices(mac)
                .any(|(at, _)| at == 0 || !is_ident_byte(code.as_bytes()[at - 1]))
        })
        .collect()
}

#[test]
fn only_the_front_ends_print() {
    let folders = folder_layers(&layers());
    let mut printing = Vec::new();
    for file in rust_files(&core_src())
        .into_iter()
        .chain(rust_files(&front_src()))
    {
        let printing_allowed =
            place_of(&file, &folders).is_some_and(|(layer, _)| layer == FRONT_ENDS);
        if printing_allowed {
            continue;
        }
        for mac in prints(&code_only(&read(&file))) {
            printing.push(format!("{} uses {mac}", shown(&file)));
        }
    }
    assert!(
        printing.is_empty(),
        "only the front ends print (the engine reports through events, e.g. Event::Warning):\n{}",
        printing.join("\n")
    );
}

#[test]
fn the_checkers_see_grouped_paths_and_skip_comments() {
    let code = code_only(
        "use crate::{a::B, c, d::{e, f}};\n// crate::commented\nlet s = \"//\"; crate::g::h();\n\
         /* crate::blocked */ $crate::macro_path; let q = '\"'; crate::i::j(\"crate::k\");\n\
         let r = r#\"crate::l \"quoted\" \"#; fn f<'a>(x: &'a str) { crate::m::n(x, '\\'') }\n\
         use crate::exec::{oracle::Oracle, cache::{self, CacheKind}}; use crate::tree::{self};",
    );
    let found: Vec<String> = crate_paths(&code).iter().map(|p| p.join("::")).collect();
    assert_eq!(
        found,
        [
            "a::B",
            "c",
            "d::e",
            "d::f",
            "exec::cache",
            "exec::oracle",
            "g::h",
            "i::j",
            "m::n",
            "tree"
        ]
    );
    assert_eq!(
        prints(&code_only(
            "eprintln!(\"x\"); // println!\nlet s = \"dbg!(1)\";"
        )),
        ["eprintln!"]
    );
    assert!(names_crate("use clap::Parser;", "clap"));
    assert!(names_crate("#[derive(clap::Args)]", "clap"));
    assert!(names_crate("extern crate clap;", "clap"));
    assert!(!names_crate(
        "let clapper = 1; pub syntect: String, x.syntect",
        "syntect"
    ));
    assert!(!names_crate(&code_only("// clap::Parser"), "clap"));
    let manifest = "[package]\nname = \"x\"\n[dependencies]\nserde = \"1\"\n# clap = \"4\"\n\
                    [dev-dependencies]\nclap = \"4\"\n[target.'cfg(unix)'.dependencies]\n\
                    nix = \"1\"\n[dependencies.ratatui]\nversion = \"1\"\n";
    assert_eq!(
        normal_dependencies(manifest)
            .into_iter()
            .collect::<Vec<_>>(),
        ["nix", "ratatui", "serde"]
    );
}
