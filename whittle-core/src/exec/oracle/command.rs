//! The user's test command as an [`Oracle`]: how it is given its candidate, the private
//! scratch directory of its runs, and its verdicts.

use std::ffi::OsString;
use std::fs::{self, File};
use std::io::Write;
use std::os::unix::fs::{DirBuilderExt, OpenOptionsExt, PermissionsExt};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Mutex, PoisonError};
use std::time::{Duration, Instant};

use crate::exec::processes::CancelToken;
use crate::outcome::Outcome;

use super::program::resolve_program;

use super::{
    DerivedTimeout, Executor, LocalExecutor, Oracle, Run, TestStatus, TimeoutFit, Verdict,
};

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
    /// The timeout given (`--timeout`): never changed.
    timeout: Option<Duration>,
    /// Without a timeout of its own, the timeout fitted to the input's check and the recent
    /// runs (see [`CommandOracle::fitting_timeout`]).
    derived: Option<Mutex<DerivedTimeout>>,
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
            timeout,
            derived: None,
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

    /// Judges bundles of several files laid out as `layout` says instead of single files.
    pub fn with_case_layout(mut self, layout: CaseLayout) -> Self {
        self.case_layout = Some(layout);
        self
    }

    /// Caps the address space of each test process at `bytes`.
    pub fn with_memory_limit(mut self, bytes: Option<u64>) -> Self {
        self.memory_limit = bytes;
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
        self.derived = self
            .timeout
            .is_none()
            .then(|| Mutex::new(DerivedTimeout::new(fit)));
        self
    }

    /// The private directory the runs happen in (removed when the oracle is dropped).
    pub fn scratch_dir(&self) -> &Path {
        &self.scratch
    }

    fn run(
        &self,
        candidate: &[u8],
        timeout: Option<Duration>,
        cancel: &CancelToken,
    ) -> Result<Verdict, ScratchError> {
        let run = self.next_run.fetch_add(1, Ordering::Relaxed);
        let dir = self.scratch.join(format!("run{run}"));
        let result = self.run_in(&dir, run, candidate, timeout, cancel);
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
        timeout: Option<Duration>,
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
            timeout,
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
            remembered: false,
            timeout_reruns: 0,
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
pub(super) const PRIVATE_DIR: u32 = 0o700;
/// Mode of the candidate files.
pub(super) const PRIVATE_FILE: u32 = 0o600;

/// whittle could not prepare a run (write the candidate, make a pipe): its own failure, not
/// the test's.
pub(super) struct ScratchError {
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

pub(super) fn cancelled(start: Instant) -> Verdict {
    Verdict {
        outcome: Outcome::Unresolved,
        status: TestStatus::Cancelled,
        duration: start.elapsed(),
        output_tail: None,
        node: None,
        remembered: false,
        timeout_reruns: 0,
    }
}

impl CommandOracle {
    /// One run of the test under `timeout`; a run that ended with an exit status is noted
    /// for the derived timeout.
    fn run_once(
        &self,
        candidate: &[u8],
        timeout: Option<Duration>,
        cancel: &CancelToken,
    ) -> Verdict {
        let start = Instant::now();
        let verdict = self
            .run(candidate, timeout, cancel)
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
                remembered: false,
                timeout_reruns: 0,
            });
        if matches!(verdict.status, TestStatus::Exited(_))
            && let Some(mut derived) = self.derived()
        {
            derived.record(verdict.duration);
        }
        verdict
    }

    /// The derived timeout, when the timeout is fitted to the tests.
    fn derived(&self) -> Option<std::sync::MutexGuard<'_, DerivedTimeout>> {
        let derived = self.derived.as_ref()?;
        Some(derived.lock().unwrap_or_else(PoisonError::into_inner))
    }
}

impl Oracle for CommandOracle {
    /// Runs the test; one that timed out under a derived timeout the recent runs have since
    /// grown (the machine slowed down) runs once more under the grown timeout before it is
    /// judged unresolved.
    fn judge(&self, candidate: &[u8], cancel: &CancelToken) -> Verdict {
        let timeout = self.timeout();
        let verdict = self.run_once(candidate, timeout, cancel);
        let rerun_timeout = match (&verdict.status, timeout) {
            (TestStatus::TimedOut, Some(ran_with)) => self
                .derived()
                .and_then(|derived| derived.rerun_timeout(ran_with)),
            _ => None,
        };
        let Some(grown) = rerun_timeout else {
            return verdict;
        };
        let again = self.run_once(candidate, Some(grown), cancel);
        Verdict {
            duration: verdict.duration + again.duration,
            timeout_reruns: again.timeout_reruns + 1,
            ..again
        }
    }

    fn max_jobs(&self) -> usize {
        self.executor.max_jobs()
    }

    fn timeout(&self) -> Option<Duration> {
        self.timeout
            .or_else(|| self.derived().and_then(|derived| derived.current()))
    }

    fn fit_timeout(&self, check: Duration) -> Option<TimeoutFit> {
        let mut derived = self.derived()?;
        derived.check(check);
        Some(derived.fit())
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::exec::oracle::STOP_GRACE;
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

    /// A bash test that makes a temporary directory and removes it on exit (`trap ... EXIT`),
    /// which a SIGKILL would leave behind; `marker` names the directory.
    fn cleaning_test(marker: &Path, timeout: Option<Duration>) -> CommandOracle {
        // The trap first: once the marker exists, a stop runs it (made before the trap, a
        // stop between the two on a loaded machine left the marker).
        let script = format!(
            "trap 'rm -rf {m}' EXIT && mkdir {m} && sleep 30",
            m = marker.display()
        );
        let command: Vec<OsString> = ["bash", "-c", &script, "bash"]
            .iter()
            .map(|s| s.into())
            .collect();
        CommandOracle::new(&command, Path::new("input.txt"), timeout).unwrap()
    }

    fn wait_for(path: &Path) {
        let until = Instant::now() + Duration::from_secs(10);
        while !path.exists() && Instant::now() < until {
            std::thread::sleep(Duration::from_millis(10));
        }
        assert!(path.exists(), "the test never started");
    }

    #[test]
    fn a_test_stopped_at_its_timeout_removes_what_it_made() {
        let scratch = tempfile::tempdir().unwrap();
        let marker = scratch.path().join("made");
        let oracle = cleaning_test(&marker, Some(Duration::from_millis(300)));
        let verdict = oracle.judge(b"", &CancelToken::new());
        assert_eq!(verdict.status, TestStatus::TimedOut);
        assert!(!marker.exists(), "the test's trap did not run");
    }

    #[test]
    fn a_cancelled_test_removes_what_it_made() {
        let scratch = tempfile::tempdir().unwrap();
        let marker = scratch.path().join("made");
        let oracle = Arc::new(cleaning_test(&marker, None));
        let token = CancelToken::new();
        let (o, t) = (oracle.clone(), token.clone());
        let runner = std::thread::spawn(move || o.judge(b"", &t));
        wait_for(&marker);
        token.cancel();
        let verdict = runner.join().unwrap();
        assert_eq!(verdict.status, TestStatus::Cancelled);
        assert!(!marker.exists(), "the test's trap did not run");
    }

    #[test]
    fn a_test_that_ignores_sigterm_is_killed_after_the_grace() {
        let oracle = sh(
            "trap '' TERM; while :; do :; done",
            Some(Duration::from_millis(200)),
        );
        let start = Instant::now();
        let verdict = oracle.judge(b"", &CancelToken::new());
        assert_eq!(verdict.status, TestStatus::TimedOut);
        let took = start.elapsed();
        assert!(took >= STOP_GRACE, "killed before the grace: {took:?}");
        assert!(
            took < STOP_GRACE * 5,
            "not killed after the grace: {took:?}"
        );
    }

    #[test]
    fn missing_program_is_unresolved_not_a_panic() {
        let command: Vec<OsString> = vec!["/nonexistent/whittle-test".into()];
        let oracle = CommandOracle::new(&command, Path::new("a"), None).unwrap();
        let verdict = oracle.judge(b"", &CancelToken::new());
        assert!(matches!(verdict.status, TestStatus::SpawnFailed(_)));
    }
}
