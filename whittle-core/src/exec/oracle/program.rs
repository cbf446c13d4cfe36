//! The checks of a test's program before any run: that it exists, may be executed, and that a
//! script's `#!` line names an interpreter that does; what a failure to start it means.

use std::ffi::{OsStr, OsString};
use std::fs::{self, File};
use std::io::Read;
use std::os::unix::ffi::OsStrExt;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};

/// Why the test's program cannot be started, found before any run from what `execve` would
/// meet: a program that is not there, a directory, a file without execute permission, a
/// name that is not on `PATH`, a script whose `#!` line names no interpreter that exists.
/// The message says what is wrong, why (the system's error) and how to fix it.
pub fn check_program(program: &OsStr) -> Result<(), String> {
    let shown = Path::new(program).display().to_string();
    let path = if program.as_bytes().contains(&b'/') {
        PathBuf::from(program)
    } else {
        find_on_path(program, &shown)?
    };
    check_executable(&path, &shown)?;
    check_interpreter(&path, &shown)
}

/// The file a program name without `/` runs: the first executable file of that name in the
/// directories of `PATH`.
pub(super) fn find_on_path(program: &OsStr, shown: &str) -> Result<PathBuf, String> {
    let search = std::env::var_os("PATH").unwrap_or_else(|| "/bin:/usr/bin".into());
    let mut not_executable = None;
    for dir in std::env::split_paths(&search) {
        let candidate = dir.join(program);
        if fs::metadata(&candidate).is_ok_and(|m| m.is_file()) {
            if is_executable(&candidate).is_ok() {
                return Ok(candidate);
            }
            not_executable.get_or_insert(candidate);
        }
    }
    if let Some(candidate) = not_executable {
        // `execvp` tries it all the same (and fails with EACCES): say what it meets.
        return Ok(candidate);
    }
    let here = Path::new(program);
    if fs::metadata(here).is_ok_and(|m| m.is_file()) {
        return Err(format!(
            "`{shown}` is not on PATH (a name without `/` is looked for there only); to run \
             the file {shown} of the current directory, write it `./{shown}`"
        ));
    }
    Err(format!(
        "`{shown}` is not on PATH (and names no file of the current directory); install \
         it, or give its path{}",
        words_in_one(shown)
    ))
}

/// When `program` holds spaces (a command and its arguments quoted as one word), how to give
/// them instead; else nothing.
fn words_in_one(program: &str) -> String {
    let words: Vec<&str> = program.split_whitespace().collect();
    if words.len() < 2 {
        return String::new();
    }
    format!(
        "; `{program}` is one word with spaces in it: give the command and its arguments as \
         separate words after `--`, without quotes: `-- {}`",
        words.join(" ")
    )
}

/// Whether the file at `path` may be executed by this process (`access(X_OK)`).
pub(super) fn is_executable(path: &Path) -> std::io::Result<()> {
    nix::unistd::access(path, nix::unistd::AccessFlags::X_OK).map_err(std::io::Error::from)
}

pub(super) fn check_executable(path: &Path, shown: &str) -> Result<(), String> {
    let metadata = fs::metadata(path).map_err(|error| {
        if error.kind() == std::io::ErrorKind::NotFound {
            format!(
                "`{shown}` does not exist ({error}); check the test command's path{}",
                words_in_one(shown)
            )
        } else {
            format!("`{shown}` cannot be used: {error}; check the test command's path")
        }
    })?;
    if metadata.is_dir() {
        return Err(format!(
            "`{shown}` is a directory, not a program; give the path of the test script or \
             program in it"
        ));
    }
    if !metadata.is_file() {
        return Err(format!(
            "`{shown}` is not a regular file, so it cannot be run; give the path of the test \
             script or program"
        ));
    }
    if let Err(error) = is_executable(path) {
        let fix = if metadata.permissions().mode() & 0o111 == 0 {
            format!("make it executable: chmod +x {shown}")
        } else {
            format!("check its permissions (ls -l {shown}): this user may not execute it")
        };
        return Err(format!(
            "`{shown}` is not executable: {error}; {fix} (or run it through its \
             interpreter, e.g. `-- sh {shown}`)"
        ));
    }
    Ok(())
}

/// Checks the interpreter a script's `#!` line names: it must exist and be executable, and
/// one run through `env` must be on `PATH`.
pub(super) fn check_interpreter(path: &Path, shown: &str) -> Result<(), String> {
    let mut head = Vec::new();
    if let Ok(file) = File::open(path) {
        let _ = file.take(256).read_to_end(&mut head);
    }
    let Some(line) = head.strip_prefix(b"#!") else {
        return Ok(());
    };
    let line = line.split(|&b| b == b'\n').next().unwrap_or_default();
    let line = String::from_utf8_lossy(line);
    let mut words = line.split([' ', '\t']).filter(|word| !word.is_empty());
    let Some(interpreter) = words.next() else {
        return Err(format!(
            "`{shown}` starts with `#!` but names no interpreter; fix its `#!` line (e.g. \
             `#!/bin/sh`)"
        ));
    };
    if line.ends_with('\r') {
        let last = line.split([' ', '\t']).next_back().unwrap_or_default();
        return Err(format!(
            "the `#!` line of `{shown}` ends with a carriage return (Windows line ends), so \
             `{}` is looked for, which does not exist; convert its line ends: sed -i \
             's/\\r$//' {shown}",
            last.escape_debug()
        ));
    }
    let shebang = format!("#!{}", line.trim_end());
    if let Err(error) = fs::metadata(interpreter) {
        return Err(format!(
            "`{shown}` starts with `{shebang}`, but {interpreter} cannot be used: {error}; \
             fix its `#!` line"
        ));
    }
    if let Err(error) = is_executable(Path::new(interpreter)) {
        return Err(format!(
            "`{shown}` starts with `{shebang}`, but {interpreter} is not executable: {error}; \
             fix its `#!` line"
        ));
    }
    if Path::new(interpreter).file_name() == Some(OsStr::new("env"))
        && let Some(program) = words.next()
        && !program.starts_with('-')
        && !program.contains('=')
        && find_on_path(OsStr::new(program), program).is_err()
    {
        return Err(format!(
            "`{shown}` starts with `{shebang}`, but {program} is not on PATH; install it, \
             or fix its `#!` line"
        ));
    }
    Ok(())
}

/// What to tell of a test that could not be started (`why`: the system's error): what
/// [`check_program`] finds now, else what such an error means.
pub fn explain_spawn_failure(program: &OsStr, why: &str) -> String {
    if let Err(found) = check_program(program) {
        return found;
    }
    let shown = Path::new(program).display();
    if why.contains("os error 8") {
        format!(
            "`{shown}` is neither a program for this machine nor a script that starts with a \
             `#!` line; if it is a script, make its first line name its interpreter (e.g. \
             `#!/bin/sh`)"
        )
    } else {
        format!(
            "check that `{shown}` is an executable program or script (chmod +x), that a file \
             of the current directory is written with `./`, and that a script's `#!` line \
             names an interpreter that exists"
        )
    }
}

pub(super) fn resolve_program(program: &OsString) -> anyhow::Result<OsString> {
    let path = Path::new(program);
    if path.is_absolute() || !program.to_string_lossy().contains('/') {
        return Ok(program.clone());
    }
    let absolute: PathBuf = std::env::current_dir()?.join(path);
    if !absolute.exists() {
        anyhow::bail!(
            "the test command `{}` does not exist{}",
            path.display(),
            words_in_one(&program.to_string_lossy())
        );
    }
    Ok(absolute.into_os_string())
}
