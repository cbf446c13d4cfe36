//! The reductions of a batch on this machine: `--reductions` at once, each a `whittle reduce`
//! child in its own process group, stopped together on Ctrl-C or SIGTERM.

use std::collections::VecDeque;
use std::fs;
use std::os::unix::process::{CommandExt, ExitStatusExt};
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::{Duration, Instant};

use nix::sys::signal::{Signal, killpg};
use nix::unistd::Pid;

use super::progress::Progress;
use super::summary::{Summary, not_started, summarize};
use super::{BatchArgs, Item, log_path, reduce_args, stats_path};
use crate::cli::EXIT_INTERRUPTED;

/// A running local reduction.
struct Running {
    item: Item,
    child: Child,
    started: Instant,
}

/// Runs the reductions on this machine, `--reductions` at once, each `whittle reduce` in its
/// own process group (a stop reaches each once; each ends when this process dies).
pub(super) fn run_local(
    args: &BatchArgs,
    items: &[Item],
    work: &Path,
    whittle: &Path,
    progress: &Progress,
) -> Vec<Summary> {
    let at_once = args.reductions.unwrap_or_else(|| {
        let cpus = std::thread::available_parallelism().map_or(1, |n| n.get());
        (cpus / args.jobs.max(1)).max(1)
    });
    let stopping = Arc::new(AtomicBool::new(false));
    // The process groups of the running reductions: a stop signals them under this lock, and
    // none starts after a stop (it is taken to start one).
    let groups: Arc<Mutex<Vec<i32>>> = Arc::default();
    let _on_signal = whittle_core::exec::signals::on_signal({
        let (stopping, groups) = (stopping.clone(), groups.clone());
        move || {
            let groups = groups.lock().unwrap_or_else(PoisonError::into_inner);
            stopping.store(true, Ordering::SeqCst);
            for &pgid in groups.iter() {
                let _ = killpg(Pid::from_raw(pgid), Signal::SIGTERM);
            }
        }
    });
    let mut pending: VecDeque<&Item> = items.iter().collect();
    let mut running: Vec<Running> = Vec::new();
    let mut summaries: Vec<Option<Summary>> = vec![None; items.len()];
    loop {
        while running.len() < at_once
            && let Some(item) = pending.front().copied()
        {
            let mut groups_now = groups.lock().unwrap_or_else(PoisonError::into_inner);
            if stopping.load(Ordering::SeqCst) {
                break;
            }
            pending.pop_front();
            match spawn_reduction(args, work, whittle, item) {
                Ok(child) => {
                    groups_now.push(child.id() as i32);
                    running.push(Running {
                        item: item.clone(),
                        child,
                        started: Instant::now(),
                    });
                }
                Err(error) => {
                    drop(groups_now);
                    let mut summary = summarize(work, item, None, 0.0);
                    summary.detail = Some(format!("cannot start whittle: {error}"));
                    progress.finished(&summary, running.len());
                    summaries[item.index] = Some(summary);
                }
            }
        }
        progress.running(running.len());
        if running.is_empty() {
            break;
        }
        std::thread::sleep(Duration::from_millis(50));
        running = reap(running, work, &groups, progress, &mut summaries);
    }
    items
        .iter()
        .zip(summaries)
        .map(|(item, summary)| summary.unwrap_or_else(|| not_started(work, item)))
        .collect()
}

/// Looks at the running reductions: those that ended are summarized (and their process groups
/// forgotten); the others are returned.
fn reap(
    running: Vec<Running>,
    work: &Path,
    groups: &Mutex<Vec<i32>>,
    progress: &Progress,
    summaries: &mut [Option<Summary>],
) -> Vec<Running> {
    let mut still = Vec::new();
    for mut reduction in running {
        match reduction.child.try_wait() {
            Ok(None) => still.push(reduction),
            Ok(Some(status)) => {
                let pgid = reduction.child.id() as i32;
                groups
                    .lock()
                    .unwrap_or_else(PoisonError::into_inner)
                    .retain(|&g| g != pgid);
                let exit = status
                    .code()
                    .or_else(|| status.signal().map(|signal| 128 + signal));
                let summary = summarize(
                    work,
                    &reduction.item,
                    exit,
                    reduction.started.elapsed().as_secs_f64(),
                );
                progress.finished(&summary, still.len());
                summaries[reduction.item.index] = Some(summary);
            }
            Err(_) => still.push(reduction),
        }
    }
    still
}

fn spawn_reduction(
    args: &BatchArgs,
    work: &Path,
    whittle: &Path,
    item: &Item,
) -> std::io::Result<Child> {
    let log = fs::File::create(log_path(work, item))?;
    let log_err = log.try_clone()?;
    let _ = fs::remove_file(stats_path(work, item));
    let mut command = Command::new(whittle);
    command
        .args(reduce_args(args, work, item))
        .stdin(Stdio::null())
        .stdout(log)
        .stderr(log_err)
        .process_group(0);
    #[cfg(target_os = "linux")]
    {
        let parent = nix::unistd::getpid();
        // SAFETY: only async-signal-safe calls (prctl, getppid, _exit) between fork and exec.
        unsafe {
            command.pre_exec(move || {
                // The reduction ends (as on Ctrl-C: its best result written) when this process
                // dies; and at once when it died already.
                nix::sys::prctl::set_pdeathsig(Signal::SIGTERM).map_err(std::io::Error::from)?;
                if nix::unistd::getppid() != parent {
                    nix::libc::_exit(EXIT_INTERRUPTED);
                }
                Ok(())
            });
        }
    }
    command.spawn()
}
