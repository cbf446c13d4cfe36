//! The interestingness test: a trait with an in-process predicate and the user's command, which
//! runs in a fresh private directory inside its own process group, killed whole on timeout or
//! cancellation.

use std::collections::BTreeSet;
use std::ffi::OsString;
use std::fs::{self, File};
use std::io::{Read, Seek, SeekFrom};
use std::os::unix::process::{CommandExt, ExitStatusExt};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::{Duration, Instant};

use nix::sys::signal::{Signal, killpg};
use nix::unistd::Pid;
use serde::Serialize;
use wait_timeout::ChildExt;

use crate::outcome::Outcome;

/// How much of a test's output is kept (its tail).
pub const OUTPUT_TAIL_BYTES: u64 = 4096;

/// How a test run ended.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum TestStatus {
    /// The command exited with this code.
    Exited(i32),
    /// The command was killed by this signal (a crash of the test itself).
    Signaled(i32),
    /// The command ran past the timeout; its process group was killed.
    TimedOut,
    /// The run was cancelled (another candidate won its window, or the user stopped).
    Cancelled,
    /// The command could not be started.
    SpawnFailed(String),
    /// An in-process predicate decided.
    Predicate,
}

impl std::fmt::Display for TestStatus {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            TestStatus::Exited(code) => write!(f, "exit status {code}"),
            TestStatus::Signaled(signal) => write!(f, "killed by signal {signal}"),
            TestStatus::TimedOut => f.write_str("timed out"),
            TestStatus::Cancelled => f.write_str("cancelled"),
            TestStatus::SpawnFailed(why) => write!(f, "could not start: {why}"),
            TestStatus::Predicate => f.write_str("in-process predicate"),
        }
    }
}

/// The result of one test run.
#[derive(Clone, Debug)]
pub struct Verdict {
    pub outcome: Outcome,
    pub status: TestStatus,
    pub duration: Duration,
    /// The last [`OUTPUT_TAIL_BYTES`] of what the command printed (stdout and stderr together).
    pub output_tail: Option<String>,
}

/// The interestingness test. Implementations must be callable from several threads at once.
pub trait Oracle: Send + Sync {
    /// Judges one candidate. A cancelled run returns [`TestStatus::Cancelled`] promptly.
    fn judge(&self, candidate: &[u8], cancel: &CancelToken) -> Verdict;

    /// One line saying what the test is, for reports.
    fn describe(&self) -> String;
}

/// A test function in the same process: tests, benchmarks and the demo use it.
pub struct PredicateOracle<F> {
    predicate: F,
    name: String,
}

impl<F: Fn(&[u8]) -> Outcome + Send + Sync> PredicateOracle<F> {
    pub fn new(name: impl Into<String>, predicate: F) -> Self {
        PredicateOracle {
            predicate,
            name: name.into(),
        }
    }
}

/// An in-process oracle from a yes/no predicate (yes = interesting).
pub fn predicate(
    name: impl Into<String>,
    is_interesting: impl Fn(&[u8]) -> bool + Send + Sync,
) -> PredicateOracle<impl Fn(&[u8]) -> Outcome + Send + Sync> {
    PredicateOracle::new(name, move |candidate: &[u8]| {
        if is_interesting(candidate) {
            Outcome::Interesting
        } else {
            Outcome::NotInteresting
        }
    })
}

impl<F: Fn(&[u8]) -> Outcome + Send + Sync> Oracle for PredicateOracle<F> {
    fn judge(&self, candidate: &[u8], _cancel: &CancelToken) -> Verdict {
        let start = Instant::now();
        let outcome = (self.predicate)(candidate);
        Verdict {
            outcome,
            status: TestStatus::Predicate,
            duration: start.elapsed(),
            output_tail: None,
        }
    }

    fn describe(&self) -> String {
        self.name.clone()
    }
}

/// Process groups of the test commands running right now, so that all of them can be killed at
/// once (Ctrl-C, SIGTERM, quitting the UI).
static RUNNING_GROUPS: Mutex<BTreeSet<i32>> = Mutex::new(BTreeSet::new());

fn running_groups() -> std::sync::MutexGuard<'static, BTreeSet<i32>> {
    RUNNING_GROUPS
        .lock()
        .unwrap_or_else(PoisonError::into_inner)
}

fn kill_group(pgid: i32) {
    // ESRCH (the group is already gone) is the normal case after a clean exit.
    let _ = killpg(Pid::from_raw(pgid), Signal::SIGKILL);
}

/// Kills the process groups of every test command that is running. Returns how many there were.
pub fn kill_all_running() -> usize {
    let groups = running_groups();
    for &pgid in groups.iter() {
        kill_group(pgid);
    }
    groups.len()
}

/// How many test commands are running right now.
pub fn running_count() -> usize {
    running_groups().len()
}

/// Lets another thread stop a running test: the flag is set and the test's process group killed.
#[derive(Clone, Debug, Default)]
pub struct CancelToken(Arc<CancelState>);

#[derive(Debug, Default)]
struct CancelState {
    cancelled: AtomicBool,
    group: Mutex<Option<i32>>,
}

impl CancelToken {
    pub fn new() -> Self {
        Self::default()
    }

    pub fn cancel(&self) {
        self.0.cancelled.store(true, Ordering::SeqCst);
        let group = self.0.group.lock().unwrap_or_else(PoisonError::into_inner);
        if let Some(pgid) = *group {
            kill_group(pgid);
        }
    }

    pub fn is_cancelled(&self) -> bool {
        self.0.cancelled.load(Ordering::SeqCst)
    }

    /// Records the process group of the run; kills it at once if the run was already cancelled.
    fn attach(&self, pgid: i32) {
        let mut group = self.0.group.lock().unwrap_or_else(PoisonError::into_inner);
        *group = Some(pgid);
        if self.is_cancelled() {
            kill_group(pgid);
        }
    }

    fn detach(&self) {
        *self.0.group.lock().unwrap_or_else(PoisonError::into_inner) = None;
    }
}

/// The user's test command.
///
/// Each run gets a fresh directory inside a private scratch directory; the candidate is written
/// there under the input's file name, the command runs with that directory as its working
/// directory and the candidate's absolute path as its last argument (or in place of an argument
/// that is exactly `{}`). Exit status 0 means interesting.
pub struct CommandOracle {
    program: OsString,
    args: Vec<OsString>,
    file_name: OsString,
    timeout: Option<Duration>,
    scratch: tempfile::TempDir,
    next_run: AtomicU64,
}

impl CommandOracle {
    /// `command` is the program and its arguments; a program given as a relative path with a
    /// `/` is resolved against the current directory, since the test runs elsewhere.
    pub fn new(
        command: &[OsString],
        file_name: &Path,
        timeout: Option<Duration>,
    ) -> anyhow::Result<Self> {
        let (program, args) = command
            .split_first()
            .ok_or_else(|| anyhow::anyhow!("the test command is missing (give it after `--`)"))?;
        let program = resolve_program(program)?;
        let file_name = file_name
            .file_name()
            .ok_or_else(|| anyhow::anyhow!("the input path has no file name"))?
            .to_os_string();
        let scratch = tempfile::Builder::new()
            .prefix("whittle-")
            .tempdir()
            .map_err(|e| anyhow::anyhow!("cannot create a scratch directory: {e}"))?;
        Ok(CommandOracle {
            program,
            args: args.to_vec(),
            file_name,
            timeout,
            scratch,
            next_run: AtomicU64::new(0),
        })
    }

    /// The private directory the runs happen in (removed when the oracle is dropped).
    pub fn scratch_dir(&self) -> &Path {
        self.scratch.path()
    }

    fn run(&self, candidate: &[u8], cancel: &CancelToken) -> std::io::Result<Verdict> {
        let run = self.next_run.fetch_add(1, Ordering::Relaxed);
        let dir = self.scratch.path().join(format!("run{run}"));
        let output_path = self.scratch.path().join(format!("run{run}.out"));
        let result = self.run_in(&dir, &output_path, candidate, cancel);
        let _ = fs::remove_dir_all(&dir);
        let _ = fs::remove_file(&output_path);
        result
    }

    fn run_in(
        &self,
        dir: &Path,
        output_path: &Path,
        candidate: &[u8],
        cancel: &CancelToken,
    ) -> std::io::Result<Verdict> {
        fs::create_dir(dir)?;
        let candidate_path = dir.join(&self.file_name);
        fs::write(&candidate_path, candidate)?;
        let mut output = File::options()
            .create_new(true)
            .read(true)
            .write(true)
            .open(output_path)?;

        let mut command = Command::new(&self.program);
        let mut substituted = false;
        for arg in &self.args {
            if arg == "{}" {
                command.arg(&candidate_path);
                substituted = true;
            } else {
                command.arg(arg);
            }
        }
        if !substituted {
            command.arg(&candidate_path);
        }
        command
            .current_dir(dir)
            .stdin(Stdio::null())
            .stdout(output.try_clone()?)
            .stderr(output.try_clone()?)
            .process_group(0);

        let start = Instant::now();
        if cancel.is_cancelled() {
            return Ok(cancelled(start));
        }
        let mut child = match command.spawn() {
            Ok(child) => child,
            Err(error) => {
                return Ok(Verdict {
                    outcome: Outcome::Unresolved,
                    status: TestStatus::SpawnFailed(error.to_string()),
                    duration: start.elapsed(),
                    output_tail: None,
                });
            }
        };
        let pgid = child.id() as i32;
        running_groups().insert(pgid);
        cancel.attach(pgid);

        let waited = match self.timeout {
            Some(limit) => child.wait_timeout(limit),
            None => child.wait().map(Some),
        };
        let (status, timed_out) = match waited {
            Ok(Some(status)) => (Ok(status), false),
            Ok(None) => {
                kill_group(pgid);
                (child.wait(), true)
            }
            Err(error) => {
                kill_group(pgid);
                let _ = child.wait();
                (Err(error), false)
            }
        };
        // Whatever the test left running in its group goes too.
        kill_group(pgid);
        cancel.detach();
        running_groups().remove(&pgid);
        let duration = start.elapsed();
        let status = status?;

        let (outcome, status) = if cancel.is_cancelled() {
            (Outcome::Unresolved, TestStatus::Cancelled)
        } else if timed_out {
            (Outcome::Unresolved, TestStatus::TimedOut)
        } else if let Some(code) = status.code() {
            let outcome = if code == 0 {
                Outcome::Interesting
            } else {
                Outcome::NotInteresting
            };
            (outcome, TestStatus::Exited(code))
        } else {
            (
                Outcome::Unresolved,
                TestStatus::Signaled(status.signal().unwrap_or(0)),
            )
        };
        Ok(Verdict {
            outcome,
            status,
            duration,
            output_tail: read_tail(&mut output).ok(),
        })
    }
}

fn cancelled(start: Instant) -> Verdict {
    Verdict {
        outcome: Outcome::Unresolved,
        status: TestStatus::Cancelled,
        duration: start.elapsed(),
        output_tail: None,
    }
}

impl Oracle for CommandOracle {
    fn judge(&self, candidate: &[u8], cancel: &CancelToken) -> Verdict {
        let start = Instant::now();
        self.run(candidate, cancel).unwrap_or_else(|error| Verdict {
            outcome: Outcome::Unresolved,
            status: TestStatus::SpawnFailed(format!("scratch directory: {error}")),
            duration: start.elapsed(),
            output_tail: None,
        })
    }

    fn describe(&self) -> String {
        std::iter::once(&self.program)
            .chain(&self.args)
            .map(|arg| arg.to_string_lossy())
            .collect::<Vec<_>>()
            .join(" ")
    }
}

fn resolve_program(program: &OsString) -> anyhow::Result<OsString> {
    let path = Path::new(program);
    if path.is_absolute() || !program.to_string_lossy().contains('/') {
        return Ok(program.clone());
    }
    let absolute: PathBuf = std::env::current_dir()?.join(path);
    if !absolute.exists() {
        anyhow::bail!("the test command `{}` does not exist", path.display());
    }
    Ok(absolute.into_os_string())
}

fn read_tail(file: &mut File) -> std::io::Result<String> {
    let len = file.seek(SeekFrom::End(0))?;
    file.seek(SeekFrom::Start(len.saturating_sub(OUTPUT_TAIL_BYTES)))?;
    let mut tail = Vec::new();
    file.read_to_end(&mut tail)?;
    Ok(String::from_utf8_lossy(&tail).into_owned())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sh(script: &str, timeout: Option<Duration>) -> CommandOracle {
        let command: Vec<OsString> = ["sh", "-c", script, "sh"]
            .iter()
            .map(|s| s.into())
            .collect();
        CommandOracle::new(&command, Path::new("input.txt"), timeout).unwrap()
    }

    #[test]
    fn exit_status_decides() {
        let oracle = sh("grep -q needle \"$1\"", None);
        let yes = oracle.judge(b"a needle here", &CancelToken::new());
        assert_eq!(yes.outcome, Outcome::Interesting);
        assert_eq!(yes.status, TestStatus::Exited(0));
        let no = oracle.judge(b"hay", &CancelToken::new());
        assert_eq!(no.outcome, Outcome::NotInteresting);
        assert_eq!(no.status, TestStatus::Exited(1));
    }

    #[test]
    fn candidate_has_the_input_name_in_the_working_directory() {
        let oracle = sh(
            "test \"$(basename \"$1\")\" = input.txt && test -f input.txt && echo seen",
            None,
        );
        let verdict = oracle.judge(b"x", &CancelToken::new());
        assert_eq!(verdict.outcome, Outcome::Interesting);
        assert_eq!(verdict.output_tail.as_deref(), Some("seen\n"));
    }

    #[test]
    fn placeholder_is_substituted() {
        let command: Vec<OsString> = ["sh", "-c", "test -f \"$1\" && test $# -eq 1", "sh", "{}"]
            .iter()
            .map(|s| s.into())
            .collect();
        let oracle = CommandOracle::new(&command, Path::new("a.c"), None).unwrap();
        assert_eq!(
            oracle.judge(b"", &CancelToken::new()).outcome,
            Outcome::Interesting
        );
    }

    #[test]
    fn timeout_kills_the_whole_group() {
        let oracle = sh(
            "sleep 30 & sleep 30; exit 0",
            Some(Duration::from_millis(200)),
        );
        let start = Instant::now();
        let verdict = oracle.judge(b"", &CancelToken::new());
        assert_eq!(verdict.status, TestStatus::TimedOut);
        assert_eq!(verdict.outcome, Outcome::Unresolved);
        assert!(start.elapsed() < Duration::from_secs(5));
        assert_eq!(std::fs::read_dir(oracle.scratch_dir()).unwrap().count(), 0);
    }

    #[test]
    fn a_signal_is_unresolved() {
        let oracle = sh("kill -9 $$", None);
        let verdict = oracle.judge(b"", &CancelToken::new());
        assert_eq!(verdict.status, TestStatus::Signaled(9));
        assert_eq!(verdict.outcome, Outcome::Unresolved);
    }

    #[test]
    fn cancellation_stops_a_running_test() {
        let oracle = Arc::new(sh("sleep 30", None));
        let token = CancelToken::new();
        let (o, t) = (oracle.clone(), token.clone());
        let runner = std::thread::spawn(move || o.judge(b"", &t));
        std::thread::sleep(Duration::from_millis(200));
        token.cancel();
        let verdict = runner.join().unwrap();
        assert_eq!(verdict.status, TestStatus::Cancelled);
    }

    #[test]
    fn missing_program_is_unresolved_not_a_panic() {
        let command: Vec<OsString> = vec!["/nonexistent/whittle-test".into()];
        let oracle = CommandOracle::new(&command, Path::new("a"), None).unwrap();
        let verdict = oracle.judge(b"", &CancelToken::new());
        assert!(matches!(verdict.status, TestStatus::SpawnFailed(_)));
    }
}
