//! The `whittle` binary run in a plain directory (the tests of the tree pipelines and of several
//! files keep their files in a temporary directory of their own).

use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

/// `whittle ARGS` in `dir`, run to its end with no input on stdin.
pub fn whittle(args: &[&str], dir: &Path) -> Output {
    Command::new(env!("CARGO_BIN_EXE_whittle"))
        .args(args)
        .current_dir(dir)
        .stdin(Stdio::null())
        .output()
        .unwrap()
}

/// Writes the executable `sh` script `name` in `dir` and returns its path.
pub fn write_script(dir: &Path, name: &str, body: &str) -> PathBuf {
    use std::os::unix::fs::PermissionsExt;
    let path = dir.join(name);
    std::fs::write(&path, format!("#!/bin/sh\n{body}\n")).unwrap();
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).unwrap();
    path
}
