//! The `whittle tree` and `whittle languages` commands.

use std::process::Command;

fn whittle(args: &[&str]) -> (i32, String, String) {
    let output = Command::new(env!("CARGO_BIN_EXE_whittle"))
        .args(args)
        .output()
        .unwrap();
    (
        output.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&output.stdout).to_string(),
        String::from_utf8_lossy(&output.stderr).to_string(),
    )
}

#[test]
#[cfg_attr(
    not(feature = "lang-json"),
    ignore = "needs the JSON grammar (cargo feature lang-json)"
)]
fn tree_prints_kinds_ranges_phi_and_removability() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("input.json");
    std::fs::write(&path, "{\"key\": [1, 22]}\n").unwrap();
    let (code, out, err) = whittle(&["tree", path.to_str().unwrap(), "--phi-check"]);
    assert_eq!(code, 0, "{err}");
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(lines[0], "object 0..16 Φ=\"\" removable Φ-empty <_value>");
    assert!(
        lines.contains(&"  pair 1..15 Φ=\"\" removable Φ-empty"),
        "{out}"
    );
    assert!(
        lines.contains(&"      number 9..10 \"1\" Φ=\"\" removable Φ-empty <_value>"),
        "{out}"
    );
    assert!(
        lines.contains(&"      \",\" 10..11 Φ=\",\" unremovable separator"),
        "{out}"
    );
    let last = lines.last().unwrap();
    let (valid, tried) = last
        .strip_prefix("phi-valid: ")
        .unwrap()
        .split_once('/')
        .unwrap();
    assert!(tried.parse::<usize>().unwrap() > 0);
    assert_eq!(valid, tried, "{out}");
}

#[test]
fn tree_reports_bad_input_clearly() {
    let (code, _, err) = whittle(&["tree", "/nonexistent/file.c"]);
    assert_eq!(code, 1);
    assert!(err.contains("cannot read /nonexistent/file.c"), "{err}");
    let (code, _, err) = whittle(&["tree", "Cargo.lock"]);
    assert_eq!(code, 1);
    assert!(
        err.contains("no language for the extension `.lock`"),
        "{err}"
    );
    let (code, _, err) = whittle(&["tree", "Cargo.toml", "--language", "klingon"]);
    assert_eq!(code, 1);
    assert!(err.contains("unknown language `klingon`"), "{err}");
}

#[test]
fn languages_lists_every_language() {
    let (code, out, _) = whittle(&["languages"]);
    assert_eq!(code, 0);
    for language in whittle_core::tree::languages() {
        let line = out
            .lines()
            .find(|line| line.starts_with(&format!("{} ", language.name())))
            .unwrap();
        assert!(line.contains(language.feature()), "{line}");
        assert!(
            line.ends_with(if language.is_available() {
                "yes"
            } else {
                "no (not compiled in)"
            }),
            "{line}"
        );
    }
}
