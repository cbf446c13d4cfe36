//! The import direction of `ARCHITECTURE.md` holds: every `crate::` path in `src/` names a module
//! listed before the module it appears in (the layers of the section "Layers"), and every module
//! of `src/lib.rs` is listed there exactly once.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

fn project() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// The layers of `ARCHITECTURE.md`, in order: the lines `name: module module ...` of the first
/// `text` block after the heading `## Layers`.
fn layers(architecture: &str) -> Vec<(String, Vec<String>)> {
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

/// The top-level modules `src/lib.rs` declares.
fn declared_modules(lib: &str) -> BTreeSet<String> {
    lib.lines()
        .filter_map(|line| {
            let line = line.trim();
            let rest = line
                .strip_prefix("pub mod ")
                .or_else(|| line.strip_prefix("mod "))?;
            Some(rest.trim_end_matches(';').trim().to_owned())
        })
        .collect()
}

/// Every `.rs` file under `dir`.
fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            rust_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

/// The text of a Rust file without its comments (strings and characters are kept as they are).
fn without_comments(source: &str) -> String {
    let bytes = source.as_bytes();
    let mut out = String::with_capacity(source.len());
    let mut i = 0;
    while i < bytes.len() {
        match bytes[i] {
            b'/' if bytes.get(i + 1) == Some(&b'/') => {
                while i < bytes.len() && bytes[i] != b'\n' {
                    i += 1;
                }
            }
            b'/' if bytes.get(i + 1) == Some(&b'*') => {
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
            }
            b'"' => {
                let start = i;
                i += 1;
                while i < bytes.len() && bytes[i] != b'"' {
                    i += if bytes[i] == b'\\' { 2 } else { 1 };
                }
                i += 1;
                out.push_str(&source[start..i.min(bytes.len())]);
            }
            _ => {
                let start = i;
                i += 1;
                while i < bytes.len() && !matches!(bytes[i], b'/' | b'"') {
                    i += 1;
                }
                out.push_str(&source[start..i]);
            }
        }
    }
    out
}

fn is_ident_byte(byte: u8) -> bool {
    byte.is_ascii_alphanumeric() || byte == b'_'
}

/// The top-level modules a source names through `crate::` paths, grouped ones
/// (`crate::{a, b::c}`) included.
fn crate_paths(code: &str) -> BTreeSet<String> {
    let bytes = code.as_bytes();
    let mut found = BTreeSet::new();
    let mut from = 0;
    while let Some(at) = code[from..].find("crate::") {
        let start = from + at;
        from = start + "crate::".len();
        if start > 0 && (is_ident_byte(bytes[start - 1]) || bytes[start - 1] == b'$') {
            continue;
        }
        let rest = &code[from..];
        if let Some(group) = rest.strip_prefix('{') {
            // The first segment of each item of the group, at the group's own depth.
            let mut depth = 0;
            let mut item_start = true;
            for (i, c) in group.char_indices() {
                match c {
                    '{' => depth += 1,
                    '}' if depth == 0 => break,
                    '}' => depth -= 1,
                    ',' if depth == 0 => item_start = true,
                    c if item_start && depth == 0 && (c.is_alphanumeric() || c == '_') => {
                        let name: String = group[i..]
                            .chars()
                            .take_while(|c| c.is_alphanumeric() || *c == '_')
                            .collect();
                        found.insert(name);
                        item_start = false;
                    }
                    _ => {}
                }
            }
        } else {
            let name: String = rest
                .chars()
                .take_while(|c| c.is_alphanumeric() || *c == '_')
                .collect();
            if !name.is_empty() {
                found.insert(name);
            }
        }
    }
    found
}

/// The top-level module a file of `src/` belongs to (`None` for `lib.rs` and `main.rs`).
fn module_of(src: &Path, file: &Path) -> Option<String> {
    let relative = file.strip_prefix(src).unwrap();
    let first = relative.components().next()?.as_os_str().to_string_lossy();
    let name = first.trim_end_matches(".rs");
    (!matches!(name, "lib" | "main")).then(|| name.to_owned())
}

#[test]
fn every_module_is_in_one_layer() {
    let architecture = std::fs::read_to_string(project().join("ARCHITECTURE.md")).unwrap();
    let lib = std::fs::read_to_string(project().join("src/lib.rs")).unwrap();
    let mut listed = BTreeSet::new();
    for module in layers(&architecture).into_iter().flat_map(|(_, m)| m) {
        assert!(
            listed.insert(module.clone()),
            "`{module}` is listed twice in the layers of ARCHITECTURE.md"
        );
    }
    let declared = declared_modules(&lib);
    let unlisted: Vec<_> = declared.difference(&listed).collect();
    let undeclared: Vec<_> = listed.difference(&declared).collect();
    assert!(
        unlisted.is_empty(),
        "modules of src/lib.rs missing from the layers of ARCHITECTURE.md (add each where its \
         imports allow): {unlisted:?}"
    );
    assert!(
        undeclared.is_empty(),
        "the layers of ARCHITECTURE.md list modules src/lib.rs does not declare: {undeclared:?}"
    );
}

#[test]
fn modules_import_only_from_modules_listed_before_them() {
    let architecture = std::fs::read_to_string(project().join("ARCHITECTURE.md")).unwrap();
    let order: Vec<(String, String)> = layers(&architecture)
        .into_iter()
        .flat_map(|(layer, modules)| modules.into_iter().map(move |m| (m, layer.clone())))
        .collect();
    let rank = |module: &str| order.iter().position(|(m, _)| m == module);
    let src = project().join("src");
    let mut files = Vec::new();
    rust_files(&src, &mut files);
    files.sort();
    let mut upward = Vec::new();
    for file in &files {
        let Some(module) = module_of(&src, file) else {
            continue;
        };
        let Some(own) = rank(&module) else {
            // Reported by `every_module_is_in_one_layer`.
            continue;
        };
        let code = without_comments(&std::fs::read_to_string(file).unwrap());
        for used in crate_paths(&code) {
            if used == module {
                continue;
            }
            match rank(&used) {
                Some(theirs) if theirs < own => {}
                Some(theirs) => upward.push(format!(
                    "{} ({} layer) uses crate::{used} ({} layer), listed after it",
                    file.strip_prefix(project()).unwrap().display(),
                    order[own].1,
                    order[theirs].1
                )),
                None => upward.push(format!(
                    "{} uses crate::{used}, which is in no layer",
                    file.strip_prefix(project()).unwrap().display()
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

#[test]
fn the_checker_sees_grouped_paths_and_skips_comments() {
    let code = without_comments(
        "use crate::{a::B, c, d::{e, f}};\n// crate::commented\nlet s = \"//\"; crate::g::h();\n\
         /* crate::blocked */ $crate::macro_path",
    );
    let found: Vec<String> = crate_paths(&code).into_iter().collect();
    assert_eq!(found, ["a", "c", "d", "g"]);
}
