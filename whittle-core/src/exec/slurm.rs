//! Tests as Slurm job steps: the Slurm [`Executor`] (each test one `srun` step, in the current
//! allocation or as a job of its own), the check that the scratch directory is shared with the
//! compute nodes, and the small program that runs a test on the node (`whittle slurm-step`).
//!
//! A step runs `whittle slurm-step`, which runs the test exactly as the local executor does
//! (its own process group, the timeout, the bounded output tail, orphans killed) and writes
//! how it ended into a status file beside the run directory. Only that file says what the test
//! did: `srun`'s own exit status mixes the test's with Slurm's failures (a missing program
//! exits 2, a task killed by the scheduler 137, a working directory the node cannot see runs
//! the task in `/tmp` instead). A step without a status file is [`TestStatus::Lost`]:
//! unresolved, never cached.
//!
//! Cancelling a step: `srun` answers SIGTERM by cancelling its step ("forcing job
//! termination"), but it ignores signals in a moment of its start-up, so the cancel is sent
//! again every [`CANCEL_REPEAT`] until `srun` ends; after [`CANCEL_GRACE`] `srun` is killed and
//! the step cancelled by name through `scancel`. When the oracle closes, the steps and jobs of
//! this run that are still known to Slurm are cancelled too.

use std::ffi::{OsStr, OsString};
use std::fs;
use std::io::Read;
use std::os::unix::fs::PermissionsExt;
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use nix::sys::signal::{Signal, killpg};
use nix::unistd::Pid;
use serde::{Deserialize, Serialize};

use crate::exec::oracle::{
    CancelToken, Execution, Executor, LocalExecutor, OutputReader, OutputTail, Run, TestStatus,
};
use crate::exec::processes::kill_group;

/// How often a cancelled `srun` is told again to cancel its step.
const CANCEL_REPEAT: Duration = Duration::from_millis(100);
/// How long a cancelled `srun` may take to end before it is killed and its step cancelled
/// through the controller.
const CANCEL_GRACE: Duration = Duration::from_secs(10);
/// The most tests that run at once as steps: they run elsewhere, so the machine's CPUs do not
/// bound them; each costs one `srun` process here.
pub const MAX_STEPS: usize = 1024;
/// Exit status of `whittle slurm-step` when it wrote no status (the run is lost).
const STEP_FAILED: i32 = 125;

/// The allocation whittle runs in (`salloc`, `sbatch`), from Slurm's environment variables.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Allocation {
    pub job_id: String,
    /// How many tasks it holds (`SLURM_NTASKS`, else its CPUs).
    pub tasks: usize,
    /// Memory of one CPU, in MB, when the job asked for memory (steps get a share of it
    /// instead of all of it, which would let only one run at a time).
    pub mem_per_cpu: Option<u64>,
}

impl Allocation {
    /// The allocation described by the environment, if any.
    pub fn from_env() -> Option<Allocation> {
        Self::from_vars(|name| std::env::var(name).ok())
    }

    /// The allocation described by variables `var` looks up.
    pub fn from_vars(var: impl Fn(&str) -> Option<String>) -> Option<Allocation> {
        let job_id = var("SLURM_JOB_ID")
            .or_else(|| var("SLURM_JOBID"))
            .filter(|id| !id.trim().is_empty())?;
        let number = |name: &str| var(name).and_then(|v| v.trim().parse::<u64>().ok());
        let cpus = var("SLURM_JOB_CPUS_PER_NODE")
            .and_then(|v| cpus_per_node_total(&v))
            .or_else(|| number("SLURM_CPUS_ON_NODE"));
        let tasks = number("SLURM_NTASKS")
            .or_else(|| number("SLURM_NPROCS"))
            .or(cpus)
            .unwrap_or(1)
            .max(1);
        let cpus_on_node = number("SLURM_CPUS_ON_NODE").or_else(|| {
            var("SLURM_JOB_CPUS_PER_NODE").and_then(|v| {
                v.split(',')
                    .next()
                    .and_then(|first| first.split('(').next())
                    .and_then(|n| n.trim().parse().ok())
            })
        });
        let mem_per_cpu = number("SLURM_MEM_PER_CPU").or_else(|| {
            let per_node = number("SLURM_MEM_PER_NODE")?;
            Some(per_node / cpus_on_node.unwrap_or(1).max(1))
        });
        Some(Allocation {
            job_id: job_id.trim().to_owned(),
            tasks: usize::try_from(tasks).unwrap_or(usize::MAX),
            mem_per_cpu: mem_per_cpu.filter(|&mb| mb > 0),
        })
    }
}

/// The total of `SLURM_JOB_CPUS_PER_NODE` (`4(x2),2` is 4 + 4 + 2).
pub fn cpus_per_node_total(value: &str) -> Option<u64> {
    let mut total: u64 = 0;
    for part in value.split(',') {
        let part = part.trim();
        let (count, repeat) = match part.split_once("(x") {
            Some((count, rest)) => (count, rest.strip_suffix(')')?.parse::<u64>().ok()?),
            None => (part, 1),
        };
        total = total.checked_add(count.parse::<u64>().ok()?.checked_mul(repeat)?)?;
    }
    (total > 0).then_some(total)
}

/// What the user chose for the Slurm executor.
#[derive(Clone, Debug, Default)]
pub struct SlurmOptions {
    /// Extra arguments for every `srun` (a partition, an account, `--cpus-per-task`...).
    pub srun_args: Vec<OsString>,
}

/// The programs of Slurm's client whittle uses (`WHITTLE_SRUN`, `WHITTLE_SQUEUE` and
/// `WHITTLE_SCANCEL` replace them, for sites that wrap them).
fn client(name: &str) -> OsString {
    std::env::var_os(format!("WHITTLE_{}", name.to_uppercase())).unwrap_or_else(|| name.into())
}

/// The default testing window with the Slurm executor: the allocation's tasks, or (tests as
/// jobs of their own) the CPUs of this machine.
pub fn default_jobs() -> usize {
    match Allocation::from_env() {
        Some(allocation) => allocation.tasks.min(MAX_STEPS),
        None => std::thread::available_parallelism().map_or(1, |n| n.get()),
    }
}

/// Runs each test as a Slurm job step (see the module's documentation).
pub struct SlurmExecutor {
    srun: OsString,
    /// The whittle that runs on the node (`whittle slurm-step`).
    step_program: PathBuf,
    allocation: Option<Allocation>,
    srun_args: Vec<OsString>,
    /// Steps are named `<name>.<run>`: cancelling a step by name and the sweep at the end
    /// find them so.
    name: String,
    /// The node that answered the check of the scratch directory.
    probe_node: String,
}

/// What `whittle slurm-step` writes beside the run directory.
#[derive(Debug, Serialize, Deserialize)]
struct StepReport {
    status: TestStatus,
    output_tail: Option<String>,
    node: String,
}

impl SlurmExecutor {
    /// Prepares to run tests as steps with their run directories in `scratch`, and checks
    /// with one step that a node reads a file written there (and can run whittle; when it
    /// cannot run this whittle from where it is, a copy in `scratch` is used). Refuses when
    /// Slurm's commands are missing or the node does not see the directory.
    pub fn connect(options: &SlurmOptions, scratch: &Path) -> anyhow::Result<SlurmExecutor> {
        let srun = client("srun");
        which(&srun).ok_or_else(|| {
            anyhow::anyhow!(
                "--executor slurm needs Slurm's `{}` on PATH (and squeue, scancel)",
                srun.to_string_lossy()
            )
        })?;
        let step_program = std::env::current_exe()
            .map_err(|e| anyhow::anyhow!("cannot find whittle's own program: {e}"))?;
        let name = scratch
            .file_name()
            .map_or_else(|| "whittle".into(), |n| n.to_string_lossy().into_owned());
        let mut executor = SlurmExecutor {
            srun,
            step_program,
            allocation: Allocation::from_env(),
            srun_args: options.srun_args.clone(),
            name,
            probe_node: String::new(),
        };
        let token = CancelToken::new();
        let _stop = crate::exec::signals::on_signal({
            let token = token.clone();
            move || token.cancel()
        });
        let first = match executor.probe(scratch, &token) {
            Ok(node) => {
                executor.probe_node = node;
                return Ok(executor);
            }
            Err(why) => why,
        };
        if token.is_cancelled() {
            anyhow::bail!("stopped while checking the scratch directory on a Slurm node");
        }
        // Can a node read the directory at all? Then it is whittle's program it cannot run
        // from where it is: a copy in the shared directory will do.
        if let Err(why) = executor.probe_with_cat(scratch, &token) {
            anyhow::bail!(
                "the scratch directory {} is not shared with the Slurm nodes: a step could not \
                 read a file written there ({why}); give --scratch-dir a directory on a file \
                 system the nodes share (the current directory is the default)",
                scratch.display()
            );
        }
        let copy = scratch.join(".whittle-step");
        fs::copy(&executor.step_program, &copy)
            .and_then(|_| fs::set_permissions(&copy, fs::Permissions::from_mode(0o700)))
            .map_err(|e| anyhow::anyhow!("cannot copy whittle into {}: {e}", copy.display()))?;
        executor.step_program = copy;
        match executor.probe(scratch, &token) {
            Ok(node) => {
                executor.probe_node = node;
                Ok(executor)
            }
            Err(why) => anyhow::bail!(
                "a Slurm step cannot run whittle ({}), nor a copy of it in the scratch \
                 directory ({why})",
                first
            ),
        }
    }

    /// The whittle program the steps run (this one, or its copy in the scratch directory).
    pub fn step_program(&self) -> &Path {
        &self.step_program
    }

    /// The node that ran the check at the start.
    pub fn probe_node(&self) -> &str {
        &self.probe_node
    }

    /// The allocation the steps run in (`None`: each test is a job of its own).
    pub fn allocation(&self) -> Option<&Allocation> {
        self.allocation.as_ref()
    }

    /// `srun` with the options every step gets; the step's program follows.
    fn srun_command(&self, name: &str, dir: &Path, timeout: Option<Duration>) -> Command {
        let mut command = Command::new(&self.srun);
        command
            .arg("--ntasks=1")
            .arg("--nodes=1")
            .arg("--quiet")
            .arg(format!("--job-name={name}"))
            .arg(format_arg("--chdir=", dir.as_os_str()));
        if let Some(allocation) = &self.allocation {
            // Without --exact a step takes every CPU of the allocation: steps would run one
            // at a time.
            command.arg("--exact");
            if let Some(mb) = allocation.mem_per_cpu {
                command.arg(format!("--mem-per-cpu={mb}"));
            }
        }
        if let Some(timeout) = timeout {
            // A safety net: whittle slurm-step kills the test at its timeout; Slurm's limit
            // (whole minutes) ends a step that outlives it anyway.
            let minutes = timeout.as_secs().div_ceil(60).saturating_add(1);
            command.arg(format!("--time={minutes}"));
        }
        command.args(&self.srun_args);
        command.stdin(Stdio::null()).process_group(0);
        command
    }

    /// The step name of run `index`.
    fn step_name(&self, index: u64) -> String {
        format!("{}.{index}", self.name)
    }

    /// Runs `srun` (made by [`SlurmExecutor::srun_command`]) to its end, reading its output;
    /// a cancellation is passed on to the step (see the module's documentation).
    fn launch(
        &self,
        mut command: Command,
        name: &str,
        cancel: &CancelToken,
    ) -> std::io::Result<Option<Launched>> {
        let (mut output, writer) = std::io::pipe()?;
        let stderr = writer.try_clone()?;
        command.stdout(writer).stderr(stderr);
        let spawned = cancel.spawn_stopped_by(&mut command, Signal::SIGTERM);
        drop(command);
        let mut child = match spawned {
            None => return Ok(None),
            Some(Ok(child)) => child,
            Some(Err(error)) => {
                return Ok(Some(Launched {
                    exit: Err(format!(
                        "cannot start {}: {error}",
                        self.srun.to_string_lossy()
                    )),
                    tail: OutputTail::default(),
                }));
            }
        };
        let pgid = child.id() as i32;
        let mut reader = OutputReader::new();
        let mut cancelling: Option<Instant> = None;
        let waited = loop {
            match reader.wait(
                &mut child,
                &mut output,
                Some(Instant::now() + CANCEL_REPEAT),
            ) {
                Ok(Some(status)) => break Ok(status),
                Ok(None) => {}
                Err(error) => {
                    // Never leave the step behind, whatever happened here.
                    let _ = killpg(Pid::from_raw(pgid), Signal::SIGTERM);
                    let _ = child.wait();
                    self.cancel_named(name);
                    break Err(error);
                }
            }
            if cancel.is_cancelled() {
                let since = *cancelling.get_or_insert_with(Instant::now);
                if since.elapsed() < CANCEL_GRACE {
                    let _ = killpg(Pid::from_raw(pgid), Signal::SIGTERM);
                } else {
                    kill_group(pgid);
                    let status = child.wait();
                    self.cancel_named(name);
                    break status;
                }
            }
        };
        let tail = reader.finish(&mut output);
        cancel.finished(pgid);
        let status = waited?;
        let exit = match (
            status.code(),
            std::os::unix::process::ExitStatusExt::signal(&status),
        ) {
            (Some(code), _) => Ok(code),
            (None, signal) => Err(format!("srun was killed by signal {}", signal.unwrap_or(0))),
        };
        Ok(Some(Launched { exit, tail }))
    }

    /// Runs the check of the scratch directory: a step reads a file written there and
    /// writes what it read into another. Returns the node's name.
    fn probe(&self, scratch: &Path, cancel: &CancelToken) -> Result<String, String> {
        let token = probe_token();
        let probe = scratch.join(".whittle-probe");
        let status = scratch.join(".whittle-probe.status");
        fs::write(&probe, &token).map_err(|e| format!("cannot write {}: {e}", probe.display()))?;
        let _ = fs::remove_file(&status);
        let name = format!("{}.probe", self.name);
        let mut command = self.srun_command(&name, scratch, None);
        command
            .arg(&self.step_program)
            .arg("slurm-step")
            .arg("--status")
            .arg(&status)
            .arg("--probe")
            .arg(&probe);
        let launched = self.launch(command, &name, cancel);
        let report = read_report(&status, true);
        let _ = fs::remove_file(&probe);
        let _ = fs::remove_file(&status);
        let launched = match launched {
            Ok(Some(launched)) => launched,
            Ok(None) => return Err("stopped".into()),
            Err(error) => return Err(error.to_string()),
        };
        match report {
            Some(report) if report.output_tail.as_deref() == Some(token.as_str()) => {
                Ok(report.node)
            }
            Some(report) => Err(format!(
                "node {} read something else in {}",
                report.node,
                probe.display()
            )),
            None => Err(launched.failure()),
        }
    }

    /// The simplest check that a node reads a file of the scratch directory: `cat` in a step.
    fn probe_with_cat(&self, scratch: &Path, cancel: &CancelToken) -> Result<(), String> {
        let token = probe_token();
        let probe = scratch.join(".whittle-probe");
        fs::write(&probe, &token).map_err(|e| format!("cannot write {}: {e}", probe.display()))?;
        let name = format!("{}.probe", self.name);
        let mut command = self.srun_command(&name, scratch, None);
        command.arg("cat").arg(&probe);
        let launched = self.launch(command, &name, cancel);
        let _ = fs::remove_file(&probe);
        match launched {
            Ok(Some(launched)) if launched.exit == Ok(0) && launched.tail.text() == token => Ok(()),
            Ok(Some(launched)) => Err(launched.failure()),
            Ok(None) => Err("stopped".into()),
            Err(error) => Err(error.to_string()),
        }
    }

    /// The ids of the steps (in the allocation) or jobs (of their own) of this run that Slurm
    /// still knows, named `prefix` or starting with `prefix.`.
    fn known_to_slurm(&self, prefix: &str) -> Vec<String> {
        let mut squeue = Command::new(client("squeue"));
        squeue.arg("--noheader").arg("--format=%i %j");
        match &self.allocation {
            Some(allocation) => squeue
                .arg("--steps")
                .arg(format!("--jobs={}", allocation.job_id)),
            None => squeue.arg("--me"),
        };
        let Ok(listed) = squeue.stdin(Stdio::null()).stderr(Stdio::null()).output() else {
            return Vec::new();
        };
        String::from_utf8_lossy(&listed.stdout)
            .lines()
            .filter_map(|line| line.trim().split_once(' '))
            .filter(|(_, name)| {
                name.trim() == prefix
                    || name
                        .trim()
                        .strip_prefix(prefix)
                        .is_some_and(|rest| rest.starts_with('.'))
            })
            .map(|(id, _)| id.to_owned())
            .collect()
    }

    /// Cancels through the controller whatever Slurm still knows of the steps named `prefix`
    /// (or `prefix.*`). Returns how many there were.
    fn cancel_named(&self, prefix: &str) -> usize {
        let ids = self.known_to_slurm(prefix);
        if !ids.is_empty() {
            let _ = Command::new(client("scancel"))
                .args(&ids)
                .stdin(Stdio::null())
                .stdout(Stdio::null())
                .stderr(Stdio::null())
                .status();
        }
        ids.len()
    }
}

/// An `srun` that ran: its exit code (or why it has none) and the tail of its output.
struct Launched {
    exit: Result<i32, String>,
    tail: OutputTail,
}

impl Launched {
    /// Why the step gave no status: `srun`'s exit and its last line.
    fn failure(&self) -> String {
        let text = self.tail.text();
        let last = text
            .lines()
            .rev()
            .find(|line| !line.trim().is_empty())
            .unwrap_or("no output");
        match &self.exit {
            Ok(code) => format!("srun exited with {code}: {last}"),
            Err(why) => format!("{why}: {last}"),
        }
    }
}

impl Executor for SlurmExecutor {
    fn execute(&self, run: &Run<'_>, cancel: &CancelToken) -> std::io::Result<Execution> {
        let status_path = status_path(run.dir);
        let name = self.step_name(run.index);
        let mut command = self.srun_command(&name, run.dir, run.timeout);
        command
            .arg(&self.step_program)
            .arg("slurm-step")
            .arg("--status")
            .arg(&status_path)
            .arg("--dir")
            .arg(run.dir);
        if let Some(timeout) = run.timeout {
            command.arg(format!("--timeout={}", timeout.as_secs_f64()));
        }
        if let Some(stdin) = run.stdin {
            command.arg("--stdin").arg(stdin);
        }
        if let Some(bytes) = run.memory_limit {
            command.arg(format!("--memory-limit={bytes}"));
        }
        command.arg("--").args(run.argv);
        let launched = self.launch(command, &name, cancel)?;
        let Some(launched) = launched else {
            return Ok(lost_or_cancelled(TestStatus::Cancelled, None));
        };
        let report = if cancel.is_cancelled() {
            None
        } else {
            // The step program exits 0 only after writing its status: give a slow shared file
            // system a moment to show it.
            read_report(&status_path, launched.exit == Ok(0))
        };
        let _ = fs::remove_file(&status_path);
        if cancel.is_cancelled() {
            return Ok(lost_or_cancelled(TestStatus::Cancelled, None));
        }
        Ok(match report {
            Some(report) => Execution {
                status: report.status,
                output_tail: report.output_tail,
                node: Some(report.node),
            },
            None => lost_or_cancelled(
                TestStatus::Lost(launched.failure()),
                Some(launched.tail.text()),
            ),
        })
    }

    fn describe(&self) -> String {
        match &self.allocation {
            Some(allocation) => format!(
                "as Slurm job steps in allocation {} ({} tasks)",
                allocation.job_id, allocation.tasks
            ),
            None => "as Slurm jobs of their own (no allocation: SLURM_JOB_ID is not set)".into(),
        }
    }

    fn max_jobs(&self) -> usize {
        MAX_STEPS
    }

    fn close(&self) -> Option<String> {
        let left = self.cancel_named(&self.name);
        (left > 0).then(|| format!("cancelled {left} Slurm step(s) of this run that were left"))
    }
}

fn lost_or_cancelled(status: TestStatus, output_tail: Option<String>) -> Execution {
    Execution {
        status,
        output_tail,
        node: None,
    }
}

/// Where the step of run directory `dir` writes its status (beside it, not in it: the test
/// sees only its own files).
fn status_path(dir: &Path) -> PathBuf {
    let mut name = dir.file_name().unwrap_or(OsStr::new("run")).to_owned();
    name.push(".status");
    dir.with_file_name(name)
}

/// Reads a step's status file. When `expected` (the step said it wrote one), a missing file
/// is looked for again for about a second: a shared file system may show a file written on
/// another machine a moment late.
fn read_report(path: &Path, expected: bool) -> Option<StepReport> {
    let waits: &[u64] = if expected { &[0, 50, 200, 750] } else { &[0] };
    for &wait in waits {
        std::thread::sleep(Duration::from_millis(wait));
        let mut text = String::new();
        match fs::File::open(path).and_then(|mut file| file.read_to_string(&mut text)) {
            Ok(_) => return serde_json::from_str(&text).ok(),
            Err(error) if error.kind() == std::io::ErrorKind::NotFound => continue,
            Err(_) => return None,
        }
    }
    None
}

fn probe_token() -> String {
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos());
    format!("whittle probe {} {nanos}", std::process::id())
}

fn format_arg(prefix: &str, value: &OsStr) -> OsString {
    let mut arg = OsString::from(prefix);
    arg.push(value);
    arg
}

/// The path of `program` found on PATH (or itself, when it names a file).
fn which(program: &OsStr) -> Option<PathBuf> {
    let path = Path::new(program);
    if path.components().count() > 1 {
        return path.is_file().then(|| path.to_path_buf());
    }
    std::env::split_paths(&std::env::var_os("PATH")?)
        .map(|dir| dir.join(program))
        .find(|candidate| {
            candidate
                .metadata()
                .is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
        })
}

/// The name of this machine as Slurm calls it (`SLURMD_NODENAME`), else its host name.
fn node_name() -> String {
    std::env::var("SLURMD_NODENAME")
        .ok()
        .filter(|name| !name.is_empty())
        .or_else(|| {
            fs::read_to_string("/proc/sys/kernel/hostname")
                .ok()
                .map(|name| name.trim().to_owned())
        })
        .unwrap_or_else(|| "unknown".into())
}

/// The arguments of `whittle slurm-step` (what runs on the node; not for people).
#[derive(Debug)]
pub struct StepArgs {
    /// Where to write how the test ended (JSON).
    pub status: PathBuf,
    /// The run directory: the test's working directory.
    pub dir: Option<PathBuf>,
    /// Kill the test after SECS seconds.
    pub timeout: Option<f64>,
    /// Open this file (the candidate) as the test's standard input.
    pub stdin: Option<PathBuf>,
    /// Cap the test's address space at BYTES.
    pub memory_limit: Option<u64>,
    /// Only read this file and write its content as the status's output (the check of the
    /// scratch directory).
    pub probe: Option<PathBuf>,
    /// The test and its arguments.
    pub command: Vec<OsString>,
}

/// How `whittle slurm-step` ended: its exit status, and what to say on its stderr (which `srun`
/// passes back to whittle, where it explains a lost run).
pub struct StepEnd {
    pub code: i32,
    pub message: Option<String>,
}

impl StepEnd {
    fn failed(message: String) -> StepEnd {
        StepEnd {
            code: STEP_FAILED,
            message: Some(message),
        }
    }
}

/// `whittle slurm-step`: runs one test on the node as the local executor would and writes how
/// it ended to `--status`. Exits 0 when the status was written.
pub fn run_step(args: &StepArgs) -> StepEnd {
    let node = node_name();
    let write = |report: &StepReport| -> StepEnd {
        let written = serde_json::to_vec(report)
            .map_err(std::io::Error::other)
            .and_then(|json| crate::output::write_atomically(&args.status, &json, Some(0o600)));
        match written {
            Ok(()) => StepEnd {
                code: 0,
                message: None,
            },
            Err(error) => StepEnd::failed(format!(
                "cannot write {} on node {node}: {error}",
                args.status.display()
            )),
        }
    };
    if let Some(probe) = &args.probe {
        return match fs::read_to_string(probe) {
            Ok(content) => write(&StepReport {
                status: TestStatus::Exited(0),
                output_tail: Some(content),
                node: node.clone(),
            }),
            Err(error) => StepEnd::failed(format!(
                "node {node} cannot read {}: {error}",
                probe.display()
            )),
        };
    }
    let Some(dir) = &args.dir else {
        return StepEnd::failed("--dir is missing".into());
    };
    if !dir.is_dir() {
        return StepEnd::failed(format!(
            "node {node} does not see the run directory {}",
            dir.display()
        ));
    }
    if args.command.is_empty() {
        return StepEnd::failed("the test command is missing".into());
    }
    let timeout = args
        .timeout
        .filter(|secs| secs.is_finite() && *secs > 0.0)
        .map(|secs| Duration::from_secs_f64(secs.min(1e10)));
    let _ = crate::exec::signals::install();
    crate::exec::processes::adopt_orphans();
    let token = CancelToken::new();
    let _stop = crate::exec::signals::on_signal({
        let token = token.clone();
        move || token.cancel()
    });
    let run = Run {
        argv: &args.command,
        dir,
        timeout,
        index: 0,
        stdin: args.stdin.as_deref(),
        memory_limit: args.memory_limit,
    };
    // What the test leaves outside its group is killed when it ends (the executor's sweep of
    // adopted orphans) and by Slurm when the step ends.
    let executed = LocalExecutor.execute(&run, &token);
    if crate::exec::signals::received() > 0 {
        // Slurm cancelled the step: there is no verdict to report.
        return StepEnd {
            code: 128 + Signal::SIGTERM as i32,
            message: Some(format!("the step was cancelled on node {node}")),
        };
    }
    match executed {
        Ok(execution) => write(&StepReport {
            status: execution.status,
            output_tail: execution.output_tail,
            node: node.clone(),
        }),
        Err(error) => StepEnd::failed(format!("cannot run the test on node {node}: {error}")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashMap;

    fn vars(pairs: &[(&str, &str)]) -> impl Fn(&str) -> Option<String> {
        let map: HashMap<String, String> = pairs
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect();
        move |name| map.get(name).cloned()
    }

    #[test]
    fn cpus_per_node_are_summed_with_repeats() {
        assert_eq!(cpus_per_node_total("4"), Some(4));
        assert_eq!(cpus_per_node_total("4(x2),2"), Some(10));
        assert_eq!(cpus_per_node_total("36(x16)"), Some(576));
        assert_eq!(cpus_per_node_total("x"), None);
        assert_eq!(cpus_per_node_total("4(x2"), None);
    }

    #[test]
    fn an_allocation_is_read_from_slurm_s_variables() {
        assert_eq!(Allocation::from_vars(vars(&[])), None);
        let tasks = Allocation::from_vars(vars(&[
            ("SLURM_JOB_ID", "42"),
            ("SLURM_NTASKS", "64"),
            ("SLURM_JOB_CPUS_PER_NODE", "32(x2)"),
        ]))
        .unwrap();
        assert_eq!(
            tasks,
            Allocation {
                job_id: "42".into(),
                tasks: 64,
                mem_per_cpu: None
            }
        );
        let cpus = Allocation::from_vars(vars(&[
            ("SLURM_JOB_ID", "7"),
            ("SLURM_JOB_CPUS_PER_NODE", "4(x2),2"),
            ("SLURM_MEM_PER_NODE", "8000"),
        ]))
        .unwrap();
        assert_eq!(cpus.tasks, 10);
        assert_eq!(cpus.mem_per_cpu, Some(2000));
        let per_cpu = Allocation::from_vars(vars(&[
            ("SLURM_JOBID", "8"),
            ("SLURM_CPUS_ON_NODE", "3"),
            ("SLURM_MEM_PER_CPU", "1500"),
        ]))
        .unwrap();
        assert_eq!((per_cpu.tasks, per_cpu.mem_per_cpu), (3, Some(1500)));
    }

    #[test]
    fn the_status_file_is_beside_the_run_directory() {
        assert_eq!(
            status_path(Path::new("/s/whittle-x/run17")),
            PathBuf::from("/s/whittle-x/run17.status")
        );
    }
}
