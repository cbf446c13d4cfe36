//! The interestingness test: a trait with an in-process predicate and the user's command, which
//! runs in a fresh private directory inside its own process group, killed whole on timeout or
//! cancellation. How the command runs is an [`Executor`]: on this machine ([`LocalExecutor`]) or
//! as a Slurm job step ([`crate::exec::slurm::SlurmExecutor`]).

use std::ffi::{OsStr, OsString};
use std::fs::{self, File};
use std::io::{Read, Write};
use std::os::unix::ffi::OsStrExt;
use std::os::unix::fs::{DirBuilderExt, OpenOptionsExt, PermissionsExt};
use std::os::unix::process::{CommandExt, ExitStatusExt};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Mutex, PoisonError};
use std::time::{Duration, Instant};

use serde::{Deserialize, Serialize};
use wait_timeout::ChildExt;

use crate::exec::processes::kill_group;
pub use crate::exec::processes::{CancelToken, kill_all_running};
use crate::outcome::Outcome;

/// How much of a test's output is kept (its tail).
pub const OUTPUT_TAIL_BYTES: u64 = 64 * 1024;

/// How a test run ended.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
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
    /// whittle could not prepare the run (write the candidate in its scratch directory): an
    /// error of whittle's environment, not of the test.
    ScratchFailed(String),
    /// The run ended without a verdict for a reason outside the test: a job step the scheduler
    /// killed (time limit, preemption), a node that failed, a launcher that could not start
    /// the step. Unresolved, and never cached: the candidate is tested again when it comes up
    /// again.
    Lost(String),
    /// An in-process predicate decided.
    Predicate,
}

impl TestStatus {
    /// What a run of the user's command that ended this way says about the candidate: exit
    /// status 0 is interesting, any other exit status is not, the rest is unresolved.
    pub fn command_outcome(&self) -> Outcome {
        match self {
            TestStatus::Exited(0) => Outcome::Interesting,
            TestStatus::Exited(_) => Outcome::NotInteresting,
            _ => Outcome::Unresolved,
        }
    }
}

impl std::fmt::Display for TestStatus {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            TestStatus::Exited(code) => write!(f, "exit status {code}"),
            TestStatus::Signaled(signal) => write!(f, "killed by signal {signal}"),
            TestStatus::TimedOut => f.write_str("timed out"),
            TestStatus::Cancelled => f.write_str("cancelled"),
            TestStatus::SpawnFailed(why) => write!(f, "could not start: {why}"),
            TestStatus::ScratchFailed(why) => f.write_str(why),
            TestStatus::Lost(why) => write!(f, "lost ({why})"),
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
    /// The machine the test ran on, when it ran elsewhere (the Slurm node).
    pub node: Option<String>,
}

/// The interestingness test. Implementations must be callable from several threads at once.
pub trait Oracle: Send + Sync {
    /// Judges one candidate. A cancelled run returns [`TestStatus::Cancelled`] promptly.
    fn judge(&self, candidate: &[u8], cancel: &CancelToken) -> Verdict;

    /// One line saying what the test is, for reports.
    fn describe(&self) -> String;

    /// The time limit of one test, if there is one.
    fn timeout(&self) -> Option<Duration> {
        None
    }

    /// Told how long the input's own check took: an oracle that fits its timeout to the test
    /// sets it now (see [`TimeoutFit`]) and returns how; others return `None`.
    fn fit_timeout(&self, check: Duration) -> Option<TimeoutFit> {
        let _ = check;
        None
    }

    /// What went wrong around the tests since the last call, that the user should know (a run
    /// directory that could not be removed, say). The tester reports these as warnings.
    fn take_warnings(&self) -> Vec<String> {
        Vec::new()
    }

    /// The most tests that may run at once (the cap of the testing window).
    fn max_jobs(&self) -> usize {
        crate::params::max_jobs()
    }
}

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
/// into a bounded tail, the group killed when the test ends, at the timeout and on
/// cancellation.
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
        let mut tail = OutputTail::default();
        let waited = wait_reading(&mut child, &mut output, deadline, &mut tail);
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
        tail.drain(&mut output);
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

/// Caps the address space of the process `command` starts (and of its children) at `bytes`.
fn limit_address_space(command: &mut Command, bytes: u64) {
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

/// How a timeout is fitted to the time the input's own check took, so that a candidate that
/// never ends costs little more than a good one.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TimeoutFit {
    /// Five times the check plus half a second: the half second covers the start-up jitter of
    /// short tests, the factor parallel tests slowing each other and the spread of long ones.
    Generous,
    /// Three times the check plus a tenth of a second (`--fast`): a candidate that is
    /// interesting but much slower than the input may be taken for one that hangs, which costs
    /// a reduction, never the result.
    Tight,
}

impl TimeoutFit {
    /// The timeout for a test whose check of the input took `check`.
    pub fn fit(self, check: Duration) -> Duration {
        match self {
            TimeoutFit::Generous => check * 5 + Duration::from_millis(500),
            TimeoutFit::Tight => check * 3 + Duration::from_millis(100),
        }
    }

    /// The rule, for reports.
    pub fn describe(self) -> &'static str {
        match self {
            TimeoutFit::Generous => "5x the input's check + 0.5s",
            TimeoutFit::Tight => "3x the input's check + 0.1s",
        }
    }
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
            node: None,
        }
    }

    fn describe(&self) -> String {
        self.name.clone()
    }
}

/// How a test command is given its candidate. In every case the candidate is in the test's
/// working directory under the input's file name.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum InputType {
    /// Its path as an argument (last, or in place of `{}`) and its bytes on standard input.
    #[default]
    All,
    /// Its path as an argument only (standard input is empty).
    Arg,
    /// Only the file in the working directory: no argument is added, standard input is empty.
    Name,
    /// Only its bytes on standard input: no argument is added.
    Stdin,
}

impl InputType {
    fn passes_path(self) -> bool {
        matches!(self, InputType::All | InputType::Arg)
    }

    fn feeds_stdin(self) -> bool {
        matches!(self, InputType::All | InputType::Stdin)
    }

    /// How the test gets the candidate, for messages (`the file NAME in its working
    /// directory, ...`).
    pub fn describe(self, file_name: &str) -> String {
        let file = format!("the file {file_name} in its working directory");
        match self {
            InputType::All => format!("{file}, its path as an argument and its bytes on stdin"),
            InputType::Arg => format!("{file} and its path as an argument (stdin empty)"),
            InputType::Name => format!("{file} only (no argument, stdin empty)"),
            InputType::Stdin => format!("its bytes on stdin (no argument; also {file})"),
        }
    }
}

/// The user's test command.
///
/// Each run gets a fresh directory inside a private scratch directory (mode 0700; candidates are
/// 0600, whatever the umask); the candidate is written there under the input's file name, the
/// command runs with that directory as its working directory and the candidate's absolute path
/// as its last argument (or in place of an argument that is exactly `{}`). Exit status 0 means
/// interesting. What the command prints (stdout and stderr) goes through a pipe of which only
/// the last [`OUTPUT_TAIL_BYTES`] are kept. The command runs through an [`Executor`]
/// ([`LocalExecutor`] unless [`CommandOracle::with_executor`] says otherwise).
pub struct CommandOracle {
    program: OsString,
    args: Vec<OsString>,
    file_name: OsString,
    timeout: Mutex<Option<Duration>>,
    /// Without a timeout of its own, fit one to the input's check this way.
    fits_timeout: Option<TimeoutFit>,
    scratch: PathBuf,
    next_run: AtomicU64,
    /// Whether a run directory could not be removed (warned about once).
    cleanup_warned: AtomicBool,
    executor: Box<dyn Executor>,
    /// Warnings not taken yet (see [`Oracle::take_warnings`]).
    warnings: Mutex<Vec<String>>,
    /// The scratch directory is gone (see [`CommandOracle::close`]).
    closed: AtomicBool,
    input_type: InputType,
    /// The address-space limit of each test, in bytes.
    memory_limit: Option<u64>,
    /// Candidates are bundles of several files laid out this way (see [`CaseLayout`]).
    case_layout: Option<CaseLayout>,
}

/// How a run directory holds a case of several files, when the candidates are bundles (see
/// [`crate::bundle`]). The test gets the path of the directory holding the case (never its
/// bytes on stdin); it runs in the run directory.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum CaseLayout {
    /// The files in a directory of this name inside the run directory (a directory input,
    /// under its own name): the test gets that directory's path.
    Directory(OsString),
    /// The files in the run directory itself, each under its name (several files given one by
    /// one, as C-Vise takes them): the test gets the run directory's path.
    Files,
}

impl CommandOracle {
    /// `command` is the program and its arguments; a program given as a relative path with a
    /// `/` is resolved against the current directory, since the test runs elsewhere.
    pub fn new(
        command: &[OsString],
        file_name: &Path,
        timeout: Option<Duration>,
    ) -> anyhow::Result<Self> {
        Self::new_in(command, file_name, timeout, None)
    }

    /// Like [`CommandOracle::new`], with the private scratch directory made inside
    /// `scratch_root` (default: the system's temporary directory).
    pub fn new_in(
        command: &[OsString],
        file_name: &Path,
        timeout: Option<Duration>,
        scratch_root: Option<&Path>,
    ) -> anyhow::Result<Self> {
        let (program, args) = command
            .split_first()
            .ok_or_else(|| anyhow::anyhow!("the test command is missing (give it after `--`)"))?;
        if timeout == Some(Duration::ZERO) {
            anyhow::bail!("a timeout of 0 seconds would stop every test before it starts");
        }
        let program = resolve_program(program)?;
        let file_name = file_name
            .file_name()
            .ok_or_else(|| anyhow::anyhow!("the input path has no file name"))?
            .to_os_string();
        let root = scratch_root.map_or_else(std::env::temp_dir, Path::to_path_buf);
        let scratch = tempfile::Builder::new()
            .prefix("whittle-")
            .permissions(fs::Permissions::from_mode(PRIVATE_DIR))
            .tempdir_in(&root)
            .map_err(|e| {
                anyhow::anyhow!(
                    "cannot create a scratch directory in {}: {e}",
                    root.display()
                )
            })?;
        // The umask may have taken bits away (even the owner's): set the mode exactly.
        fs::set_permissions(scratch.path(), fs::Permissions::from_mode(PRIVATE_DIR))?;
        Ok(CommandOracle {
            program,
            args: args.to_vec(),
            file_name,
            timeout: Mutex::new(timeout),
            fits_timeout: None,
            scratch: scratch.keep(),
            next_run: AtomicU64::new(0),
            cleanup_warned: AtomicBool::new(false),
            executor: Box::new(LocalExecutor),
            warnings: Mutex::new(Vec::new()),
            closed: AtomicBool::new(false),
            input_type: InputType::default(),
            memory_limit: None,
            case_layout: None,
        })
    }

    /// Gives the tests their candidate the way `input_type` says.
    pub fn with_input_type(mut self, input_type: InputType) -> Self {
        self.input_type = input_type;
        self
    }

    /// Caps the address space of each test process at `bytes`.
    pub fn with_memory_limit(mut self, bytes: Option<u64>) -> Self {
        self.memory_limit = bytes;
        self
    }

    /// Judges bundles of several files laid out as `layout` says instead of single files.
    pub fn with_case_layout(mut self, layout: CaseLayout) -> Self {
        self.case_layout = Some(layout);
        self
    }

    /// Where the tests run.
    pub fn executor(&self) -> &dyn Executor {
        self.executor.as_ref()
    }

    /// Runs the tests through `executor` instead of on this machine.
    pub fn with_executor(mut self, executor: Box<dyn Executor>) -> Self {
        self.executor = executor;
        self
    }

    /// Without a timeout given to [`CommandOracle::new`], the timeout is fitted to the time the
    /// input's check takes (see [`Oracle::fit_timeout`]), the way `fit` says.
    pub fn fitting_timeout(mut self, fit: TimeoutFit) -> Self {
        self.fits_timeout = self.timeout().is_none().then_some(fit);
        self
    }

    /// The private directory the runs happen in (removed when the oracle is dropped).
    pub fn scratch_dir(&self) -> &Path {
        &self.scratch
    }

    fn run(&self, candidate: &[u8], cancel: &CancelToken) -> Result<Verdict, ScratchError> {
        let run = self.next_run.fetch_add(1, Ordering::Relaxed);
        let dir = self.scratch.join(format!("run{run}"));
        let result = self.run_in(&dir, run, candidate, cancel);
        if let Err(error) = remove_tree(&dir)
            && !self.cleanup_warned.swap(true, Ordering::Relaxed)
        {
            self.warn(format!(
                "cannot remove the run directory {} the test left behind: {error}",
                dir.display()
            ));
        }
        result
    }

    fn warn(&self, message: String) {
        self.warnings
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .push(message);
    }

    /// Ends the oracle's work: makes the executor leave nothing running, kills what tests left
    /// running (they could still write into the scratch directory) and removes the scratch
    /// directory. Returns what the user should know: what the executor had to cancel, why the
    /// directory could not be removed. Runs after this fail (`ScratchFailed`). Dropping the oracle does the
    /// same, without saying what failed.
    pub fn close(&self) -> Result<(), String> {
        if self.closed.swap(true, Ordering::SeqCst) {
            return Ok(());
        }
        let executor_said = self.executor.close();
        crate::exec::processes::kill_orphans();
        let removed = remove_tree(&self.scratch).map_err(|error| {
            format!(
                "cannot remove the scratch directory {}: {error}",
                self.scratch.display()
            )
        });
        match (executor_said, removed) {
            (None, removed) => removed,
            (Some(said), Ok(())) => Err(said),
            (Some(said), Err(error)) => Err(format!("{said}; {error}")),
        }
    }

    /// Writes the candidate into a fresh run directory and returns its path.
    fn write_candidate(&self, dir: &Path, candidate: &[u8]) -> std::io::Result<PathBuf> {
        fs::DirBuilder::new().mode(PRIVATE_DIR).create(dir)?;
        fs::set_permissions(dir, fs::Permissions::from_mode(PRIVATE_DIR))?;
        if let Some(layout) = &self.case_layout {
            let files = crate::bundle::decode(candidate).map_err(std::io::Error::other)?;
            let root = match layout {
                CaseLayout::Directory(name) => {
                    let root = dir.join(name);
                    fs::DirBuilder::new().mode(PRIVATE_DIR).create(&root)?;
                    root
                }
                CaseLayout::Files => dir.to_path_buf(),
            };
            crate::bundle::write_into(&root, &files, Some(PRIVATE_FILE))?;
            return Ok(root);
        }
        let candidate_path = dir.join(&self.file_name);
        let mut file = File::options()
            .write(true)
            .create_new(true)
            .mode(PRIVATE_FILE)
            .open(&candidate_path)?;
        file.set_permissions(fs::Permissions::from_mode(PRIVATE_FILE))?;
        file.write_all(candidate)?;
        Ok(candidate_path)
    }

    fn run_in(
        &self,
        dir: &Path,
        index: u64,
        candidate: &[u8],
        cancel: &CancelToken,
    ) -> Result<Verdict, ScratchError> {
        let start = Instant::now();
        if cancel.is_cancelled() {
            return Ok(cancelled(start));
        }
        let scratch_error = |error| ScratchError {
            path: dir.to_path_buf(),
            error,
        };
        let candidate_path = self
            .write_candidate(dir, candidate)
            .map_err(scratch_error)?;
        let argv = self.argv(&candidate_path);
        let run = Run {
            argv: &argv,
            dir,
            timeout: self.timeout(),
            index,
            stdin: (self.input_type.feeds_stdin() && self.case_layout.is_none())
                .then_some(candidate_path.as_path()),
            memory_limit: self.memory_limit,
        };
        let execution = self.executor.execute(&run, cancel).map_err(scratch_error)?;
        let status = if cancel.is_cancelled() {
            TestStatus::Cancelled
        } else {
            execution.status
        };
        Ok(Verdict {
            outcome: status.command_outcome(),
            status,
            duration: start.elapsed(),
            output_tail: execution.output_tail,
            node: execution.node,
        })
    }

    /// The program and its arguments for one run: the candidate's path replaces an argument
    /// that is exactly `{}`, or comes last.
    fn argv(&self, candidate_path: &Path) -> Vec<OsString> {
        let mut argv = vec![self.program.clone()];
        let mut substituted = false;
        for arg in &self.args {
            if arg == "{}" && self.input_type.passes_path() {
                argv.push(candidate_path.as_os_str().to_owned());
                substituted = true;
            } else {
                argv.push(arg.clone());
            }
        }
        if !substituted && self.input_type.passes_path() {
            argv.push(candidate_path.as_os_str().to_owned());
        }
        argv
    }
}

/// Mode of the scratch directory and of every run directory.
const PRIVATE_DIR: u32 = 0o700;
/// Mode of the candidate files.
const PRIVATE_FILE: u32 = 0o600;

/// whittle could not prepare a run (write the candidate, make a pipe): its own failure, not
/// the test's.
struct ScratchError {
    path: PathBuf,
    error: std::io::Error,
}

impl Drop for CommandOracle {
    fn drop(&mut self) {
        // Whoever needs to know whether this worked calls `close` first.
        let _ = self.close();
    }
}

/// Removes a directory tree that a test may have made hard to remove (directories without
/// read, write or search permission): on failure, gives every directory in it back to its owner
/// (0700) and tries again.
pub fn remove_tree(path: &Path) -> std::io::Result<()> {
    match fs::remove_dir_all(path) {
        Ok(()) => return Ok(()),
        Err(error) if error.kind() == std::io::ErrorKind::NotFound => return Ok(()),
        Err(_) => {}
    }
    let mut directories = vec![path.to_path_buf()];
    while let Some(dir) = directories.pop() {
        // Never follow symbolic links out of the tree.
        let Ok(metadata) = fs::symlink_metadata(&dir) else {
            continue;
        };
        if !metadata.is_dir() {
            continue;
        }
        let _ = fs::set_permissions(&dir, fs::Permissions::from_mode(PRIVATE_DIR));
        if let Ok(entries) = fs::read_dir(&dir) {
            directories.extend(
                entries
                    .flatten()
                    .filter(|entry| entry.file_type().is_ok_and(|kind| kind.is_dir()))
                    .map(|entry| entry.path()),
            );
        }
    }
    match fs::remove_dir_all(path) {
        Err(error) if error.kind() == std::io::ErrorKind::NotFound => Ok(()),
        result => result,
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

const READ_CHUNK: usize = 64 * 1024;

/// Whether the pipe has data or has ended, waiting at most `wait`.
fn readable(pipe: &std::io::PipeReader, wait: Duration) -> bool {
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

/// Waits for the child while reading its output into `tail`. Returns `None` at the deadline.
///
/// The pipe ends when every process holding it has ended; until then the child is looked at
/// between reads, at most 50 ms apart (sooner at first), since a background process of the test
/// may keep the pipe open after the test itself has ended.
pub(crate) fn wait_reading(
    child: &mut std::process::Child,
    pipe: &mut std::io::PipeReader,
    deadline: Option<Instant>,
    tail: &mut OutputTail,
) -> std::io::Result<Option<std::process::ExitStatus>> {
    let mut buffer = vec![0; READ_CHUNK];
    let mut pipe_open = true;
    let mut pause = Duration::from_millis(1);
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
        if !pipe_open {
            // Nothing can be printed any more: wait for the child alone.
            return match left {
                Some(left) => child.wait_timeout(left),
                None => child.wait().map(Some),
            };
        }
        let wait = left.map_or(pause, |left| left.min(pause));
        if readable(pipe, wait) {
            match pipe.read(&mut buffer) {
                Ok(0) => pipe_open = false,
                Ok(n) => {
                    tail.push(&buffer[..n]);
                    pause = Duration::from_millis(1);
                }
                Err(error) if error.kind() == std::io::ErrorKind::Interrupted => {}
                Err(_) => pipe_open = false,
            }
        } else {
            pause = (pause * 2).min(Duration::from_millis(50));
        }
    }
}

fn cancelled(start: Instant) -> Verdict {
    Verdict {
        outcome: Outcome::Unresolved,
        status: TestStatus::Cancelled,
        duration: start.elapsed(),
        output_tail: None,
        node: None,
    }
}

impl Oracle for CommandOracle {
    fn judge(&self, candidate: &[u8], cancel: &CancelToken) -> Verdict {
        let start = Instant::now();
        self.run(candidate, cancel)
            .unwrap_or_else(|failure| Verdict {
                outcome: Outcome::Unresolved,
                status: TestStatus::ScratchFailed(format!(
                    "cannot prepare the test in {}: {}",
                    failure.path.display(),
                    failure.error
                )),
                duration: start.elapsed(),
                output_tail: None,
                node: None,
            })
    }

    fn max_jobs(&self) -> usize {
        self.executor.max_jobs()
    }

    fn timeout(&self) -> Option<Duration> {
        *self.timeout.lock().unwrap_or_else(PoisonError::into_inner)
    }

    fn fit_timeout(&self, check: Duration) -> Option<TimeoutFit> {
        let fit = self.fits_timeout?;
        *self.timeout.lock().unwrap_or_else(PoisonError::into_inner) = Some(fit.fit(check));
        Some(fit)
    }

    fn take_warnings(&self) -> Vec<String> {
        std::mem::take(&mut *self.warnings.lock().unwrap_or_else(PoisonError::into_inner))
    }

    fn describe(&self) -> String {
        std::iter::once(&self.program)
            .chain(&self.args)
            .map(|arg| arg.to_string_lossy())
            .collect::<Vec<_>>()
            .join(" ")
    }
}

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
fn find_on_path(program: &OsStr, shown: &str) -> Result<PathBuf, String> {
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
         it, or give its path"
    ))
}

/// Whether the file at `path` may be executed by this process (`access(X_OK)`).
fn is_executable(path: &Path) -> std::io::Result<()> {
    nix::unistd::access(path, nix::unistd::AccessFlags::X_OK).map_err(std::io::Error::from)
}

fn check_executable(path: &Path, shown: &str) -> Result<(), String> {
    let metadata = fs::metadata(path).map_err(|error| {
        if error.kind() == std::io::ErrorKind::NotFound {
            format!("`{shown}` does not exist ({error}); check the test command's path")
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
fn check_interpreter(path: &Path, shown: &str) -> Result<(), String> {
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

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Arc;

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
    fn the_timeout_fits_the_input_check_unless_one_was_given() {
        let check = Duration::from_millis(50);
        let fitting = sh("exit 0", None).fitting_timeout(TimeoutFit::Generous);
        assert_eq!(fitting.timeout(), None);
        assert_eq!(fitting.fit_timeout(check), Some(TimeoutFit::Generous));
        assert_eq!(fitting.timeout(), Some(Duration::from_millis(750)));
        let tight = sh("exit 0", None).fitting_timeout(TimeoutFit::Tight);
        assert_eq!(tight.fit_timeout(check), Some(TimeoutFit::Tight));
        assert_eq!(tight.timeout(), Some(Duration::from_millis(250)));
        let explicit =
            sh("exit 0", Some(Duration::from_secs(7))).fitting_timeout(TimeoutFit::Tight);
        assert_eq!(explicit.fit_timeout(check), None);
        assert_eq!(explicit.timeout(), Some(Duration::from_secs(7)));
        let plain = sh("exit 0", None);
        assert_eq!(plain.fit_timeout(check), None);
        assert_eq!(plain.timeout(), None);
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
