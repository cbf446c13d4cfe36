//! How a test command runs: the [`Executor`] trait, one run as it gets it, how it ended, and
//! the [`LocalExecutor`] (a process group on this machine, its output read into a bounded tail).

use std::ffi::OsString;
use std::fs::File;
use std::io::Read;
use std::os::unix::process::{CommandExt, ExitStatusExt};
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use wait_timeout::ChildExt;

use crate::exec::processes::CancelToken;
use crate::exec::processes::{kill_group, terminate_group};

use super::{OUTPUT_TAIL_BYTES, TestStatus};

/// How the user's command runs once its candidate is in place: where, how it is stopped, and
/// what is known of how it ended. Implementations must be callable from several threads at
/// once.
pub trait Executor: Send + Sync {
    /// Runs `run.argv` in `run.dir` (it holds the candidate) until it ends, its timeout passes
    /// or `cancel` is cancelled, and says how it ended. Every process the run starts is gone
    /// when this returns. An error is whittle's own (no pipe, say), never the test's.
    fn execute(&self, run: &Run<'_>, cancel: &CancelToken) -> std::io::Result<Execution>;

    /// Where tests run, for reports (`on this machine`, `as Slurm job steps ...`).
    fn describe(&self) -> String;

    /// The most tests that may run at once through this executor.
    fn max_jobs(&self) -> usize {
        crate::params::max_jobs()
    }

    /// The oracle is done: nothing the executor started may be left running anywhere. Returns
    /// what the user should know of it (what had to be cancelled).
    fn close(&self) -> Option<String> {
        None
    }
}

/// One run of the test command, as an [`Executor`] gets it.
pub struct Run<'a> {
    /// The program and its arguments (the candidate's path among them).
    pub argv: &'a [OsString],
    /// The run directory: the working directory, holding the candidate.
    pub dir: &'a Path,
    /// Kill the run after this long; it is then [`TestStatus::TimedOut`].
    pub timeout: Option<Duration>,
    /// The run's number within the oracle (names it where the executor needs names).
    pub index: u64,
    /// A file to open as the test's standard input (the candidate), else `/dev/null`.
    pub stdin: Option<&'a Path>,
    /// The most address space each test process may take, in bytes (`RLIMIT_AS`).
    pub memory_limit: Option<u64>,
}

/// How an [`Executor`]'s run ended.
pub struct Execution {
    pub status: TestStatus,
    /// The last [`OUTPUT_TAIL_BYTES`] of what the command printed.
    pub output_tail: Option<String>,
    /// The machine it ran on, when that is not this one.
    pub node: Option<String>,
}

/// Runs tests on this machine: each in its own process group, its output read through a pipe
/// into a bounded tail, the group killed when the test ends; at the timeout and on
/// cancellation the group gets SIGTERM first and [`STOP_GRACE`] to end.
#[derive(Clone, Copy, Debug, Default)]
pub struct LocalExecutor;

impl Executor for LocalExecutor {
    fn execute(&self, run: &Run<'_>, cancel: &CancelToken) -> std::io::Result<Execution> {
        let start = Instant::now();
        let (program, args) = run
            .argv
            .split_first()
            .ok_or_else(|| std::io::Error::other("no program to run"))?;
        let (mut output, writer) = std::io::pipe()?;
        let stderr = writer.try_clone()?;
        let stdin = match run.stdin {
            Some(path) => Stdio::from(File::open(path)?),
            None => Stdio::null(),
        };
        let mut command = Command::new(program);
        command
            .args(args)
            .current_dir(run.dir)
            .stdin(stdin)
            .stdout(writer)
            .stderr(stderr)
            .process_group(0);
        if let Some(bytes) = run.memory_limit {
            limit_address_space(&mut command, bytes);
        }

        let spawned = cancel.spawn(&mut command);
        // The command holds the pipe's writing ends: they must close here, or the pipe never
        // ends.
        drop(command);
        let mut child = match spawned {
            None => return Ok(Execution::without_output(TestStatus::Cancelled)),
            Some(Ok(child)) => child,
            Some(Err(error)) => {
                return Ok(Execution::without_output(TestStatus::SpawnFailed(
                    error.to_string(),
                )));
            }
        };
        let pgid = child.id() as i32;
        let deadline = run.timeout.and_then(|limit| start.checked_add(limit));
        let mut reader = OutputReader::new();
        let (status, timed_out) =
            wait_or_stop(&mut child, &mut output, deadline, cancel, &mut reader);
        // Whatever the test left running in its group goes too.
        kill_group(pgid);
        let tail = reader.finish(&mut output);
        cancel.finished(pgid);
        let status = status?;
        let status = if cancel.is_cancelled() {
            TestStatus::Cancelled
        } else if timed_out {
            TestStatus::TimedOut
        } else if let Some(code) = status.code() {
            TestStatus::Exited(code)
        } else {
            TestStatus::Signaled(status.signal().unwrap_or(0))
        };
        Ok(Execution {
            status,
            output_tail: Some(tail.text()),
            node: None,
        })
    }

    fn describe(&self) -> String {
        "on this machine".into()
    }
}

/// How long a test stopped before its end (its timeout, a cancellation) has, after SIGTERM, to
/// remove what it made (a shell's `trap '...' EXIT`, a compiler's temporary files) before its
/// group is killed.
pub const STOP_GRACE: Duration = Duration::from_secs(1);

/// How often the wait for a test looks whether its run was cancelled (the cancellation itself
/// signals the group at once; this only bounds the grace).
const CANCEL_CHECK: Duration = Duration::from_millis(100);

/// Waits for the test while `reader` reads its output; at its deadline or once `cancel` is
/// cancelled, stops it ([`stop_gently`]). Returns its exit status and whether it timed out.
fn wait_or_stop(
    child: &mut std::process::Child,
    output: &mut std::io::PipeReader,
    deadline: Option<Instant>,
    cancel: &CancelToken,
    reader: &mut OutputReader,
) -> (std::io::Result<std::process::ExitStatus>, bool) {
    let pgid = child.id() as i32;
    loop {
        let check = Instant::now() + CANCEL_CHECK;
        let until = deadline.map_or(check, |deadline| deadline.min(check));
        match reader.wait(child, output, Some(until)) {
            Ok(Some(status)) => return (Ok(status), false),
            Ok(None) => {
                let timed_out = deadline.is_some_and(|deadline| Instant::now() >= deadline);
                if timed_out || cancel.is_cancelled() {
                    return (stop_gently(child, pgid, output, reader), timed_out);
                }
            }
            Err(error) => {
                kill_group(pgid);
                let _ = child.wait();
                return (Err(error), false);
            }
        }
    }
}

/// Stops a test that has to end now: SIGTERM to its group, then, when it has not ended within
/// [`STOP_GRACE`], SIGKILL.
fn stop_gently(
    child: &mut std::process::Child,
    pgid: i32,
    output: &mut std::io::PipeReader,
    reader: &mut OutputReader,
) -> std::io::Result<std::process::ExitStatus> {
    terminate_group(pgid);
    match reader.wait(child, output, Some(Instant::now() + STOP_GRACE)) {
        Ok(Some(status)) => Ok(status),
        _ => {
            kill_group(pgid);
            child.wait()
        }
    }
}

/// Caps the address space of the process `command` starts (and of its children) at `bytes`.
pub(super) fn limit_address_space(command: &mut Command, bytes: u64) {
    use nix::sys::resource::{Resource, setrlimit};
    // SAFETY: between fork and exec only `setrlimit`, a system call that is async-signal-safe,
    // runs; it allocates nothing.
    unsafe {
        command.pre_exec(move || {
            setrlimit(Resource::RLIMIT_AS, bytes, bytes).map_err(std::io::Error::from)
        });
    }
}

impl Execution {
    fn without_output(status: TestStatus) -> Self {
        Execution {
            status,
            output_tail: None,
            node: None,
        }
    }
}

/// The last [`OUTPUT_TAIL_BYTES`] of a test's output, without ever holding much more.
#[derive(Default)]
pub(crate) struct OutputTail {
    bytes: Vec<u8>,
}

impl OutputTail {
    pub(crate) fn push(&mut self, data: &[u8]) {
        let limit = OUTPUT_TAIL_BYTES as usize;
        if data.len() >= limit {
            self.bytes.clear();
            self.bytes.extend_from_slice(&data[data.len() - limit..]);
            return;
        }
        self.bytes.extend_from_slice(data);
        if self.bytes.len() > 2 * limit {
            self.bytes.drain(..self.bytes.len() - limit);
        }
    }

    /// Reads what is left in the pipe without waiting (the test has ended and its group was
    /// killed), for at most a moment.
    pub(crate) fn drain(&mut self, pipe: &mut std::io::PipeReader) {
        let until = Instant::now() + Duration::from_millis(100);
        let mut buffer = vec![0; READ_CHUNK];
        while Instant::now() < until && readable(pipe, Duration::ZERO) {
            match pipe.read(&mut buffer) {
                Ok(0) | Err(_) => break,
                Ok(n) => self.push(&buffer[..n]),
            }
        }
    }

    pub(crate) fn text(&self) -> String {
        let limit = OUTPUT_TAIL_BYTES as usize;
        let start = self.bytes.len().saturating_sub(limit);
        String::from_utf8_lossy(&self.bytes[start..]).into_owned()
    }
}

pub(super) const READ_CHUNK: usize = 64 * 1024;

/// Whether the pipe has data or has ended, waiting at most `wait`.
pub(super) fn readable(pipe: &std::io::PipeReader, wait: Duration) -> bool {
    use nix::poll::{PollFd, PollFlags, PollTimeout, poll};
    use std::os::fd::AsFd;
    let mut fds = [PollFd::new(pipe.as_fd(), PollFlags::POLLIN)];
    let millis = u16::try_from(wait.as_millis()).unwrap_or(u16::MAX);
    match poll(&mut fds, PollTimeout::from(millis)) {
        Ok(n) => n > 0,
        // EINTR: look again at the next turn.
        Err(_) => false,
    }
}

/// A test's output read while the test is waited for: the tail kept, and what the reading
/// carries from one wait to the next (its buffer, whether the pipe is open, the pause between
/// looks at the child), so that waiting in short turns (to look at a cancellation) costs what
/// one long wait does.
pub(crate) struct OutputReader {
    tail: OutputTail,
    buffer: Vec<u8>,
    pipe_open: bool,
    pause: Duration,
}

impl OutputReader {
    pub(crate) fn new() -> Self {
        OutputReader {
            tail: OutputTail::default(),
            buffer: vec![0; READ_CHUNK],
            pipe_open: true,
            pause: Duration::from_millis(1),
        }
    }

    /// Waits for the child while reading its output. Returns `None` at the deadline.
    ///
    /// The pipe ends when every process holding it has ended; until then the child is looked
    /// at between reads, at most 50 ms apart (sooner after output), since a background process
    /// of the test may keep the pipe open after the test itself has ended.
    pub(crate) fn wait(
        &mut self,
        child: &mut std::process::Child,
        pipe: &mut std::io::PipeReader,
        deadline: Option<Instant>,
    ) -> std::io::Result<Option<std::process::ExitStatus>> {
        loop {
            if let Some(status) = child.try_wait()? {
                return Ok(Some(status));
            }
            let left = match deadline {
                Some(deadline) => match deadline.checked_duration_since(Instant::now()) {
                    Some(left) if !left.is_zero() => Some(left),
                    _ => return Ok(None),
                },
                None => None,
            };
            if !self.pipe_open {
                // Nothing can be printed any more: wait for the child alone.
                return match left {
                    Some(left) => child.wait_timeout(left),
                    None => child.wait().map(Some),
                };
            }
            let wait = left.map_or(self.pause, |left| left.min(self.pause));
            if readable(pipe, wait) {
                match pipe.read(&mut self.buffer) {
                    Ok(0) => self.pipe_open = false,
                    Ok(n) => {
                        self.tail.push(&self.buffer[..n]);
                        self.pause = Duration::from_millis(1);
                    }
                    Err(error) if error.kind() == std::io::ErrorKind::Interrupted => {}
                    Err(_) => self.pipe_open = false,
                }
            } else {
                self.pause = (self.pause * 2).min(Duration::from_millis(50));
            }
        }
    }

    /// The tail, with what is left in the pipe (the test has ended and its group was killed).
    pub(crate) fn finish(mut self, pipe: &mut std::io::PipeReader) -> OutputTail {
        self.tail.drain(pipe);
        self.tail
    }
}
