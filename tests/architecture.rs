//! The rules of `ARCHITECTURE.md` hold: every `crate::` path in `src/` names a module listed
//! before the module it appears in (the layers of the section "Layers"), every module of
//! `src/lib.rs` is listed there exactly once, and only the front ends print.

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
        let code = code_only(&std::fs::read_to_string(file).unwrap());
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
    let architecture = std::fs::read_to_string(project().join("ARCHITECTURE.md")).unwrap();
    let layers = layers(&architecture);
    let front_ends: BTreeSet<String> = layers
        .iter()
        .find(|(name, _)| name == "front ends")
        .expect("a layer named `front ends`")
        .1
        .iter()
        .cloned()
        .collect();
    let src = project().join("src");
    let mut files = Vec::new();
    rust_files(&src, &mut files);
    files.sort();
    let mut printing = Vec::new();
    for file in &files {
        let Some(module) = module_of(&src, file) else {
            continue;
        };
        if front_ends.contains(&module) {
            continue;
        }
        let code = code_only(&std::fs::read_to_string(file).unwrap());
        for mac in prints(&code) {
            printing.push(format!(
                "{} uses {mac}",
                file.strip_prefix(project()).unwrap().display()
            ));
        }
    }
    assert!(
        printing.is_empty(),
        "only the front ends print (the engine reports through events, e.g. Event::Warning):\n{}",
        printing.join("\n")
    );
}

#[test]
fn the_checker_sees_grouped_paths_and_skips_comments() {
    let code = code_only(
        "use crate::{a::B, c, d::{e, f}};\n// crate::commented\nlet s = \"//\"; crate::g::h();\n\
         /* crate::blocked */ $crate::macro_path; let q = '\"'; crate::i::j(\"crate::k\");\n\
         let r = r#\"crate::l \"quoted\" \"#; fn f<'a>(x: &'a str) { crate::m::n(x, '\\'') }",
    );
    let found: Vec<String> = crate_paths(&code).into_iter().collect();
    assert_eq!(found, ["a", "c", "d", "g", "i", "m"]);
    assert_eq!(
        prints(&code_only(
            "eprintln!(\"x\"); // println!\nlet s = \"dbg!(1)\";"
        )),
        ["eprintln!"]
    );
}
