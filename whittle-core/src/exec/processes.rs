//! The test commands' processes: the registry of running process groups, cancellation that no
//! test can slip past, and (on Linux) adopting and killing what tests leave running.
//!
//! Every test command is started by [`CancelToken::spawn`], which checks the token and records
//! the new process group under the token's lock, the one [`CancelToken::cancel`] takes: a test
//! either sees the cancellation before it starts, or is recorded before the cancellation looks
//! for it. There is no moment in which a test runs out of reach of its token.
//!
//! Processes that leave their group (`setsid`, double forks) are out of reach of a group kill.
//! With [`adopt_orphans`] whittle becomes a *child subreaper* (Linux): whatever a test leaves
//! behind is re-parented to whittle when its parent dies, and is killed (and reaped) whenever no
//! test is running, and once more at the end ([`kill_orphans`]).

use std::collections::BTreeSet;
use std::io;
use std::process::{Child, Command};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, PoisonError, RwLock, Weak};
use std::time::{Duration, Instant};

use nix::sys::signal::{Signal, kill, killpg};
use nix::unistd::Pid;

/// The process groups of the test commands running right now.
struct Registry {
    groups: BTreeSet<i32>,
    /// When orphans were last looked for, and how long that took.
    last_sweep: Option<(Instant, Duration)>,
}

static REGISTRY: Mutex<Registry> = Mutex::new(Registry {
    groups: BTreeSet::new(),
    last_sweep: None,
});

/// Sweeps for orphans are at least this many times their own duration apart.
const SWEEP_SHARE: u32 = 50;

/// Whether this process adopts orphans (see [`adopt_orphans`]).
static ADOPTING: AtomicBool = AtomicBool::new(false);

/// Held (shared) while a test starts and is registered, and (exclusively) while orphans are
/// looked for: a sweep never sees a test that has started but is not registered yet, and tests
/// still start side by side.
static STARTING: RwLock<()> = RwLock::new(());

fn registry() -> MutexGuard<'static, Registry> {
    REGISTRY.lock().unwrap_or_else(PoisonError::into_inner)
}

/// Kills a process group with SIGKILL; a group that is already gone is no error.
pub fn kill_group(pgid: i32) {
    let _ = killpg(Pid::from_raw(pgid), Signal::SIGKILL);
}

/// Asks a process group to end with SIGTERM (a test's cleanup may run); a group that is
/// already gone is no error.
pub fn terminate_group(pgid: i32) {
    signal_group(pgid, Signal::SIGTERM);
}

/// Sends `signal` to a process group; a group that is already gone is no error.
fn signal_group(pgid: i32, signal: Signal) {
    let _ = killpg(Pid::from_raw(pgid), signal);
}

/// Lets another thread stop running tests: a cancelled token kills the process groups started
/// through it and refuses to start new ones. Tokens form a tree: cancelling one cancels every
/// token made from it by [`CancelToken::child`] (the session's stop token is the root of the
/// tokens of single runs).
#[derive(Clone, Debug, Default)]
pub struct CancelToken(Arc<TokenState>);

#[derive(Debug, Default)]
struct TokenState {
    inner: Mutex<TokenInner>,
}

#[derive(Debug, Default)]
struct TokenInner {
    cancelled: bool,
    /// The process groups started through this token, with the signal that stops each.
    groups: Vec<(i32, Signal)>,
    children: Vec<Weak<TokenState>>,
}

impl TokenState {
    fn lock(&self) -> MutexGuard<'_, TokenInner> {
        self.inner.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

impl CancelToken {
    pub fn new() -> Self {
        Self::default()
    }

    /// A token that is cancelled with this one (or on its own). A child of a cancelled token
    /// starts cancelled.
    pub fn child(&self) -> CancelToken {
        let child = CancelToken::new();
        let mut inner = self.0.lock();
        if inner.cancelled {
            child.0.lock().cancelled = true;
        } else {
            inner.children.retain(|weak| weak.strong_count() > 0);
            inner.children.push(Arc::downgrade(&child.0));
        }
        child
    }

    /// Cancels this token and its children: their process groups are killed, and no test
    /// starts through them any more.
    pub fn cancel(&self) {
        let children = {
            let mut inner = self.0.lock();
            inner.cancelled = true;
            for &(pgid, signal) in &inner.groups {
                signal_group(pgid, signal);
            }
            std::mem::take(&mut inner.children)
        };
        for child in children.iter().filter_map(Weak::upgrade) {
            CancelToken(child).cancel();
        }
    }

    pub fn is_cancelled(&self) -> bool {
        self.0.lock().cancelled
    }

    /// Starts `command` (which must make its own process group) unless the token is cancelled
    /// (then `None`). The group is registered before any lock is released, so a cancellation
    /// either prevents the start or finds the group. A cancellation sends the group SIGTERM
    /// (its cleanup may run); whoever waits for it sees the cancellation and kills the group
    /// when it has not ended within a grace.
    pub fn spawn(&self, command: &mut Command) -> Option<io::Result<Child>> {
        self.spawn_stopped_by(command, Signal::SIGTERM)
    }

    /// Like [`CancelToken::spawn`], but a cancellation sends `signal` to the group: for a
    /// launcher (`srun`) that must be asked to cancel what it launched elsewhere, which a
    /// SIGKILL would leave running. Whoever waits for it sees the cancellation and insists
    /// until it ends.
    pub fn spawn_stopped_by(
        &self,
        command: &mut Command,
        signal: Signal,
    ) -> Option<io::Result<Child>> {
        let mut inner = self.0.lock();
        if inner.cancelled {
            return None;
        }
        let _starting = STARTING.read().unwrap_or_else(PoisonError::into_inner);
        let child = command.spawn();
        if let Ok(child) = &child {
            let pgid = child.id() as i32;
            registry().groups.insert(pgid);
            inner.groups.push((pgid, signal));
        }
        Some(child)
    }

    /// The test of group `pgid` has ended and was waited for: its group is killed (whatever it
    /// left in it goes too) and forgotten. When no test runs any more, orphans are looked for.
    pub fn finished(&self, pgid: i32) {
        kill_group(pgid);
        self.0.lock().groups.retain(|&(g, _)| g != pgid);
        let idle = {
            let mut registry = registry();
            registry.groups.remove(&pgid);
            // A sweep reads all of /proc (a millisecond or two): keep it under a fiftieth of
            // the time.
            registry.groups.is_empty()
                && registry
                    .last_sweep
                    .is_none_or(|(at, took)| at.elapsed() >= took * SWEEP_SHARE)
        };
        if idle && ADOPTING.load(Ordering::Relaxed) {
            let _no_start = STARTING.write().unwrap_or_else(PoisonError::into_inner);
            let mut registry = registry();
            // A test may have started meanwhile: then this is no idle moment after all.
            if registry.groups.is_empty() {
                let started = Instant::now();
                sweep_orphans(&registry);
                registry.last_sweep = Some((started, started.elapsed()));
            }
        }
    }
}

/// Makes this process a child subreaper (Linux): descendants whose parent dies are re-parented
/// to it instead of to init, so that whittle can kill what tests leave running. Returns whether
/// that is in force.
pub fn adopt_orphans() -> bool {
    #[cfg(target_os = "linux")]
    {
        if nix::sys::prctl::set_child_subreaper(true).is_ok() {
            ADOPTING.store(true, Ordering::SeqCst);
            return true;
        }
    }
    false
}

/// Kills and reaps every adopted orphan, until none is left (or two seconds have passed).
/// Called when no test is running any more (at the end of a run). Returns how many were killed.
pub fn kill_orphans() -> usize {
    if !ADOPTING.load(Ordering::SeqCst) {
        return 0;
    }
    let deadline = Instant::now() + Duration::from_secs(2);
    let mut killed = 0;
    let mut quiet_rounds = 0;
    while quiet_rounds < 2 && Instant::now() < deadline {
        let found = {
            let _no_start = STARTING.write().unwrap_or_else(PoisonError::into_inner);
            sweep_orphans(&registry())
        };
        killed += found.killed;
        if found.killed == 0 && found.zombies == 0 {
            quiet_rounds += 1;
        } else {
            quiet_rounds = 0;
        }
        std::thread::sleep(Duration::from_millis(5));
    }
    killed
}

#[derive(Default)]
struct Sweep {
    killed: usize,
    zombies: usize,
}

/// Kills the children of this process that are not running tests (adopted orphans) and reaps
/// those that are dead. Runs while no test can start ([`STARTING`] held exclusively).
fn sweep_orphans(registry: &Registry) -> Sweep {
    let mut sweep = Sweep::default();
    let me = std::process::id() as i32;
    let Ok(entries) = std::fs::read_dir("/proc") else {
        return sweep;
    };
    for entry in entries.flatten() {
        let Some(pid) = entry
            .file_name()
            .to_str()
            .and_then(|s| s.parse::<i32>().ok())
        else {
            continue;
        };
        if registry.groups.contains(&pid) {
            continue;
        }
        let Some(stat) = ProcStat::read(pid) else {
            continue;
        };
        if stat.ppid != me {
            continue;
        }
        if stat.state == 'Z' {
            sweep.zombies += 1;
        } else {
            sweep.killed += 1;
            let _ = kill(Pid::from_raw(pid), Signal::SIGKILL);
            if stat.pgid == pid {
                kill_group(pid);
            }
        }
        // Reaps it if it is dead already; otherwise a later sweep does.
        let _ = nix::sys::wait::waitpid(
            Pid::from_raw(pid),
            Some(nix::sys::wait::WaitPidFlag::WNOHANG),
        );
    }
    sweep
}

/// The fields of `/proc/PID/stat` that matter here.
struct ProcStat {
    state: char,
    ppid: i32,
    pgid: i32,
}

impl ProcStat {
    fn read(pid: i32) -> Option<ProcStat> {
        let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
        // The command name is in parentheses and may contain anything: read after the last `)`.
        let rest = &stat[stat.rfind(')')? + 1..];
        let mut fields = rest.split_whitespace();
        let state = fields.next()?.chars().next()?;
        let ppid = fields.next()?.parse().ok()?;
        let pgid = fields.next()?.parse().ok()?;
        Some(ProcStat { state, ppid, pgid })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::unix::process::CommandExt;

    #[test]
    fn a_cancelled_parent_stops_children_made_before_and_after() {
        let root = CancelToken::new();
        let before = root.child();
        root.cancel();
        let after = root.child();
        assert!(before.is_cancelled());
        assert!(after.is_cancelled());
        let mut command = Command::new("true");
        command.process_group(0);
        assert!(after.spawn(&mut command).is_none(), "nothing starts");
    }

    #[test]
    fn cancelling_kills_a_registered_group() {
        let token = CancelToken::new().child();
        let mut command = Command::new("sleep");
        command.arg("30").process_group(0);
        let mut child = token.spawn(&mut command).unwrap().unwrap();
        let start = Instant::now();
        token.cancel();
        let status = child.wait().unwrap();
        assert!(!status.success());
        assert!(start.elapsed() < Duration::from_secs(5));
        token.finished(child.id() as i32);
    }
}
