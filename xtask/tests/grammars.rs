//! `cargo xtask grammars --check` passes on the committed tables.

use std::process::Command;

#[test]
fn grammars_check_passes() {
    let output = Command::new(env!("CARGO_BIN_EXE_xtask"))
        .args(["grammars", "--check"])
        .output()
        .expect("running xtask");
    let out = String::from_utf8_lossy(&output.stdout);
    let err = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(0), "{out}{err}");
    assert!(out.contains("up to date"), "{out}");
}
