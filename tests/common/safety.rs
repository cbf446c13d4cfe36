//! Helpers of the tests of data safety, stops and resources: a private work directory with its
//! own scratch directory (TMPDIR), test scripts, processes and what they left behind.

use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output, Stdio};
use std::time::{Duration, Instant};

/// A directory for one test: the input, the test script and the outputs go in it, and whittle's
/// scratch directory goes in its `tmp` (so that whatever whittle leaves there is seen).
pub struct Work {
    pub dir: tempfile::TempDir,
}

impl Work {
    pub fn new() -> Work {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir(dir.path().join("tmp")).unwrap();
        Work { dir }
    }

    pub fn path(&self, name: &str) -> PathBuf {
        self.dir.path().join(name)
    }

    /// Writes a file and returns its path.
    pub fn file(&self, name: &str, content: impl AsRef<[u8]>) -> PathBuf {
        let path = self.path(name);
        std::fs::write(&path, content).unwrap();
        path
    }

    /// Writes an executable `sh` script.
    pub fn script(&self, name: &str, body: &str) -> PathBuf {
        super::cli::write_script(self.dir.path(), name, body)
    }

    /// The bytes of a file of this directory.
    pub fn read(&self, name: &str) -> Vec<u8> {
        std::fs::read(self.path(name)).unwrap()
    }

    /// The text of a file of this directory.
    pub fn read_string(&self, name: &str) -> String {
        std::fs::read_to_string(self.path(name)).unwrap()
    }

    /// A JSON file of this directory (`--stats-json`, a batch summary).
    pub fn json(&self, name: &str) -> serde_json::Value {
        serde_json::from_slice(&self.read(name)).unwrap()
    }

    /// Copies the files of a folder of the repository's `examples/` into this directory.
    pub fn copy_example(&self, name: &str) {
        let source = Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("examples")
            .join(name);
        for entry in std::fs::read_dir(&source).unwrap() {
            let entry = entry.unwrap();
            std::fs::copy(
                entry.path(),
                self.path(&entry.file_name().to_string_lossy()),
            )
            .unwrap();
        }
    }

    /// whittle's scratch root for this test.
    pub fn tmp(&self) -> PathBuf {
        self.path("tmp")
    }

    /// What is left in the scratch root.
    pub fn scratch_left(&self) -> Vec<PathBuf> {
        std::fs::read_dir(self.tmp())
            .unwrap()
            .map(|entry| entry.unwrap().path())
            .collect()
    }

    /// `whittle ARGS` in this directory, with its scratch root here, headless.
    pub fn whittle(&self, args: &[&str]) -> Command {
        let mut command = Command::new(env!("CARGO_BIN_EXE_whittle"));
        command
            .args(args)
            .current_dir(self.dir.path())
            .env("TMPDIR", self.tmp())
            .stdin(Stdio::null());
        command
    }

    /// `whittle reduce INPUT --no-tui OPTIONS -- TEST`.
    pub fn reduce(&self, input: &Path, options: &[&str], test: &Path) -> Command {
        self.whittle(&reduce_args(input, options, test))
    }

    /// [`Work::reduce`] run to its end, failing the test after `limit`.
    pub fn reduce_within(
        &self,
        input: &Path,
        options: &[&str],
        test: &Path,
        limit: Duration,
    ) -> Output {
        run_within(&mut self.reduce(input, options, test), limit)
    }

    /// [`Work::reduce`] without the privileges that let root ignore permission bits (see
    /// [`Work::whittle_unprivileged`]).
    pub fn reduce_unprivileged(&self, input: &Path, options: &[&str], test: &Path) -> Command {
        self.whittle_unprivileged(&reduce_args(input, options, test))
    }

    /// Like [`Work::whittle`], but without the privileges that let root ignore permission bits
    /// (when the tests run as root), so that unreadable and unwritable directories are what
    /// they are for everyone else.
    pub fn whittle_unprivileged(&self, args: &[&str]) -> Command {
        if !is_root() {
            return self.whittle(args);
        }
        let mut command = Command::new("setpriv");
        command
            .args([
                "--bounding-set",
                "-dac_override,-dac_read_search",
                "--inh-caps",
                "-all",
            ])
            .arg(env!("CARGO_BIN_EXE_whittle"))
            .args(args)
            .current_dir(self.dir.path())
            .env("TMPDIR", self.tmp())
            .stdin(Stdio::null());
        command
    }
}

fn reduce_args<'a>(input: &'a Path, options: &[&'a str], test: &'a Path) -> Vec<&'a str> {
    let mut args = vec!["reduce", input.to_str().unwrap(), "--no-tui"];
    args.extend(options);
    args.extend(["--", test.to_str().unwrap()]);
    args
}

/// An input of 40 lines in `in.txt` of which the test (`test.sh`) wants `line 17`; the test
/// writes a line to `runs` and the candidate's size to `sizes` at each run.
pub fn needle_task(work: &Work) -> (PathBuf, PathBuf) {
    let input = work.file("in.txt", lines(40));
    let test = work.script(
        "test.sh",
        &format!(
            "echo run >> {runs}\nwc -c < \"$1\" >> {sizes}\ngrep -q 'line 17$' \"$1\"",
            runs = work.path("runs").display(),
            sizes = work.path("sizes").display()
        ),
    );
    (input, test)
}

/// An input of 40 lines in `in.txt`, and a test (`slow.sh`) that takes `seconds`, wants
/// `line 17` and records its process id (a line per run) in `runs`.
pub fn slow_needle_task(work: &Work, seconds: &str) -> (PathBuf, PathBuf) {
    let input = work.file("in.txt", lines(40));
    let test = work.script(
        "slow.sh",
        &format!(
            "echo $$ >> {runs}\nsleep {seconds}\ngrep -q 'line 17$' \"$1\"",
            runs = work.path("runs").display()
        ),
    );
    (input, test)
}

/// How many runs of the test the file `runs` records (a line each).
pub fn runs(work: &Work) -> usize {
    std::fs::read_to_string(work.path("runs"))
        .unwrap_or_default()
        .lines()
        .count()
}

/// Makes a FIFO at `path` (no reader or writer ever comes: an `open` of it would block).
pub fn mkfifo(path: &Path) {
    nix::unistd::mkfifo(path, nix::sys::stat::Mode::from_bits_truncate(0o600)).unwrap();
}

/// `n` numbered lines: `line 0` to `line n-1`.
pub fn lines(n: usize) -> String {
    (0..n).map(|i| format!("line {i}\n")).collect()
}

/// Starts a command with its stdout and stderr piped.
pub fn spawn_piped(command: &mut Command) -> Child {
    command
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap()
}

/// `program ARGS`, started by `sh -c` after `setup` (shell commands that mount what the test
/// needs and `exit 97` when they cannot), in a mount namespace of its own (as root directly,
/// else in a user namespace), in `work`'s directory with its scratch root as `TMPDIR` and
/// nothing on stdin.
pub fn in_mount_namespace(work: &Work, setup: &str, program: &str, args: &[&str]) -> Command {
    let mut script = format!("{setup}; exec \"$0\"");
    for arg in args {
        script.push_str(&format!(" '{arg}'"));
    }
    let mut command = Command::new("unshare");
    if !is_root() {
        command.arg("-r");
    }
    command
        .args(["-m", "sh", "-c", &script, program])
        .current_dir(work.dir.path())
        .env("TMPDIR", work.tmp())
        .stdin(Stdio::null());
    command
}

/// Whether the tests run as root (the effective user id in `/proc/self/status`).
pub fn is_root() -> bool {
    std::fs::read_to_string("/proc/self/status")
        .unwrap_or_default()
        .lines()
        .find(|line| line.starts_with("Uid:"))
        .and_then(|line| line.split_whitespace().nth(2).map(|uid| uid == "0"))
        .unwrap_or(false)
}

/// Runs a command to its end, failing the test after `limit`.
pub fn run_within(command: &mut Command, limit: Duration) -> Output {
    let child = command
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let pid = child.id() as i32;
    let (done, waited) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let _ = done.send(child.wait_with_output());
    });
    match waited.recv_timeout(limit) {
        Ok(output) => output.unwrap(),
        Err(_) => {
            signal(pid, nix::sys::signal::Signal::SIGKILL);
            panic!("whittle did not end within {limit:?}");
        }
    }
}

/// Waits for a spawned child up to `limit`; `None` if it is still running then.
pub fn wait_within(child: &mut Child, limit: Duration) -> Option<std::process::ExitStatus> {
    let deadline = Instant::now() + limit;
    loop {
        if let Some(status) = child.try_wait().unwrap() {
            return Some(status);
        }
        if Instant::now() >= deadline {
            return None;
        }
        std::thread::sleep(Duration::from_millis(5));
    }
}

pub fn signal(pid: i32, signal: nix::sys::signal::Signal) {
    let _ = nix::sys::signal::kill(nix::unistd::Pid::from_raw(pid), signal);
}

/// Whether a process is alive (zombies are dead).
pub fn pid_alive(pid: i32) -> bool {
    nix::sys::signal::kill(nix::unistd::Pid::from_raw(pid), None).is_ok()
        && !std::fs::read_to_string(format!("/proc/{pid}/stat")).is_ok_and(|stat| {
            stat.rsplit(')')
                .next()
                .and_then(|rest| rest.split_whitespace().next())
                == Some("Z")
        })
}

/// The process ids a test wrote into `file`, one a line.
pub fn pids_in(file: &Path) -> Vec<i32> {
    std::fs::read_to_string(file)
        .unwrap_or_default()
        .lines()
        .filter_map(|line| line.trim().parse().ok())
        .collect()
}

/// The processes of `pids` still alive a moment later.
pub fn survivors(pids: &[i32]) -> Vec<i32> {
    std::thread::sleep(Duration::from_millis(100));
    pids.iter().copied().filter(|&pid| pid_alive(pid)).collect()
}

/// Whether every process of `pids` has ended within `limit` (polling).
pub fn all_ended(pids: &[i32], limit: Duration) -> bool {
    wait_until(limit, || pids.iter().all(|&pid| !pid_alive(pid)))
}

/// Waits until `ready` holds (polling), up to `limit`.
pub fn wait_until(limit: Duration, mut ready: impl FnMut() -> bool) -> bool {
    let deadline = Instant::now() + limit;
    while Instant::now() < deadline {
        if ready() {
            return true;
        }
        std::thread::sleep(Duration::from_millis(5));
    }
    ready()
}

/// Asserts that the run of `output` exited with `code` (showing its stderr when it did not);
/// returns its stderr.
pub fn exited(output: &Output, code: i32) -> String {
    let stderr = text(&output.stderr);
    assert_eq!(output.status.code(), Some(code), "{stderr}");
    stderr
}

pub fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

/// A field of `/proc/PID/status` in kB (e.g. `VmHWM`), or a count (`Threads`).
pub fn proc_status(pid: i32, field: &str) -> Option<u64> {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).ok()?;
    status
        .lines()
        .find(|line| line.starts_with(&format!("{field}:")))?
        .split_whitespace()
        .nth(1)?
        .parse()
        .ok()
}

/// The size of everything under `path`, in bytes (what exists at the moment).
pub fn disk_usage(path: &Path) -> u64 {
    let mut total = 0;
    let mut stack = vec![path.to_path_buf()];
    while let Some(dir) = stack.pop() {
        let Ok(entries) = std::fs::read_dir(&dir) else {
            continue;
        };
        for entry in entries.flatten() {
            match entry.metadata() {
                Ok(metadata) if metadata.is_dir() => stack.push(entry.path()),
                Ok(metadata) => total += metadata.len(),
                Err(_) => {}
            }
        }
    }
    total
}

/// How many tests whittle runs at once at most on this machine (see `params::max_jobs`).
pub fn max_jobs() -> usize {
    whittle_core::params::max_jobs()
}
