//! The reductions of a batch as one Slurm array job: a script per task, `sbatch --array`, and
//! the tasks followed (`squeue`, their exit files) until the last ends; `scancel` on a stop.

use std::ffi::OsString;
use std::fs;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use super::progress::Progress;
use super::summary::{Status, Summary, summarize};
use super::{BatchArgs, Item, exit_path, log_path, reduce_args, shell_quote, stats_path};
use crate::console::errln;

/// Runs the reductions as one Slurm array job (`sbatch --array`), each task a `whittle
/// reduce`, and waits for them.
pub(super) fn run_slurm(
    args: &BatchArgs,
    items: &[Item],
    work: &Path,
    progress: &Progress,
) -> anyhow::Result<Vec<Summary>> {
    errln!(
        "whittle: checking that a Slurm node sees the work directory {}",
        work.display()
    );
    let executor = whittle_core::exec::slurm::SlurmExecutor::connect(
        &whittle_core::exec::slurm::SlurmOptions::default(),
        work,
    )?;
    let whittle = executor.step_program().to_path_buf();
    let array = write_scripts(args, items, work, &whittle)?;
    let job = submit(args, items, work, &array)?;
    errln!("whittle: submitted array job {job} ({} tasks)", items.len());
    let stopping = Arc::new(AtomicBool::new(false));
    let _on_signal = whittle_core::exec::signals::on_signal({
        let stopping = stopping.clone();
        move || stopping.store(true, Ordering::SeqCst)
    });
    let started = Instant::now();
    let mut summaries: Vec<Option<Summary>> = vec![None; items.len()];
    let mut cancelled = false;
    loop {
        if stopping.load(Ordering::SeqCst) && !cancelled {
            cancelled = true;
            // The tasks get SIGTERM: each reduction writes its best result and ends.
            let _ = Command::new(std::env::var_os("WHITTLE_SCANCEL").unwrap_or("scancel".into()))
                .arg(&job)
                .stdin(Stdio::null())
                .status();
        }
        let alive = job_alive(&job);
        collect_finished(work, items, &mut summaries, progress, alive);
        if !alive {
            break;
        }
        std::thread::sleep(Duration::from_millis(500));
    }
    // A shared file system may show the last status files a moment late.
    for wait in [200, 1000, 2000] {
        if summaries.iter().all(Option::is_some) {
            break;
        }
        std::thread::sleep(Duration::from_millis(wait));
        collect_finished(work, items, &mut summaries, progress, false);
    }
    let elapsed = started.elapsed().as_secs_f64();
    Ok(items
        .iter()
        .zip(summaries)
        .map(|(item, summary)| {
            summary.unwrap_or_else(|| lost(work, item, &job, elapsed, cancelled, progress))
        })
        .collect())
}

/// Writes the script of each array task, and the array job's own script (returned).
fn write_scripts(
    args: &BatchArgs,
    items: &[Item],
    work: &Path,
    whittle: &Path,
) -> anyhow::Result<PathBuf> {
    for item in items {
        let script = task_script(whittle, &reduce_args(args, work, item), work, item);
        let path = work.join(format!("task-{}.sh", item.index));
        fs::write(&path, script)
            .map_err(|e| anyhow::anyhow!("cannot write {}: {e}", path.display()))?;
        let _ = fs::remove_file(exit_path(work, item));
        let _ = fs::remove_file(stats_path(work, item));
    }
    let array = work.join("array.sh");
    fs::write(
        &array,
        format!(
            "#!/bin/sh\n# One reduction of a whittle batch per array task.\nexec sh {}/task-\"$SLURM_ARRAY_TASK_ID\".sh\n",
            String::from_utf8_lossy(&shell_quote(work.as_os_str()))
        ),
    )?;
    Ok(array)
}

/// Submits the array job and returns its id.
fn submit(args: &BatchArgs, items: &[Item], work: &Path, array: &Path) -> anyhow::Result<String> {
    let mut range = format!("0-{}", items.len() - 1);
    if let Some(at_once) = args.reductions {
        range.push_str(&format!("%{at_once}"));
    }
    let mut sbatch = Command::new(std::env::var_os("WHITTLE_SBATCH").unwrap_or("sbatch".into()));
    sbatch
        .arg("--parsable")
        .arg(format!("--array={range}"))
        .arg("--job-name=whittle-batch")
        .arg("--ntasks=1")
        .arg(format!("--cpus-per-task={}", args.jobs))
        .arg(format!("--output={}/slurm-%A_%a.out", work.display()))
        .arg(format!("--chdir={}", work.display()))
        .args(&args.sbatch_arg)
        .arg(array)
        .stdin(Stdio::null());
    let submitted = sbatch
        .output()
        .map_err(|e| anyhow::anyhow!("cannot run sbatch: {e}"))?;
    if !submitted.status.success() {
        anyhow::bail!(
            "sbatch refused the array job: {}",
            String::from_utf8_lossy(&submitted.stderr).trim()
        );
    }
    let job = String::from_utf8_lossy(&submitted.stdout)
        .trim()
        .split(';')
        .next()
        .unwrap_or_default()
        .to_owned();
    if job.is_empty() {
        anyhow::bail!("sbatch did not say which job it submitted");
    }
    Ok(job)
}

/// The summary of an array task that left no exit status.
fn lost(
    work: &Path,
    item: &Item,
    job: &str,
    elapsed: f64,
    cancelled: bool,
    progress: &Progress,
) -> Summary {
    let mut summary = summarize(work, item, None, elapsed);
    summary.detail = Some(format!(
        "the array task ended without an exit status (cancelled before it started, \
         a failed node, its time limit?): see {}/slurm-{job}_{}.out",
        work.display(),
        item.index
    ));
    if cancelled && summary.tests.is_none() {
        summary.status = Status::NotStarted;
    }
    progress.finished(&summary, 0);
    summary
}

/// Reads the exit files of the tasks that ended since the last look.
fn collect_finished(
    work: &Path,
    items: &[Item],
    summaries: &mut [Option<Summary>],
    progress: &Progress,
    alive: bool,
) {
    for item in items {
        if summaries[item.index].is_some() {
            continue;
        }
        let Ok(text) = fs::read_to_string(exit_path(work, item)) else {
            continue;
        };
        let mut fields = text.split_whitespace();
        let code = fields.next().and_then(|c| c.parse::<i32>().ok());
        let seconds = fields
            .next()
            .and_then(|s| s.parse::<f64>().ok())
            .unwrap_or(0.0);
        let summary = summarize(work, item, code, seconds);
        let running = if alive { 1 } else { 0 };
        progress.finished(&summary, running);
        summaries[item.index] = Some(summary);
    }
    progress.running(summaries.iter().filter(|s| s.is_none()).count());
}

/// Whether Slurm still knows the job (some task pending or running).
fn job_alive(job: &str) -> bool {
    let listed = Command::new(std::env::var_os("WHITTLE_SQUEUE").unwrap_or("squeue".into()))
        .arg("--noheader")
        .arg("--format=%i")
        .arg(format!("--jobs={job}"))
        .stdin(Stdio::null())
        .stderr(Stdio::null())
        .output();
    match listed {
        Ok(listed) if listed.status.success() => !listed.stdout.trim_ascii().is_empty(),
        // squeue fails for a job that has left the controller's memory.
        Ok(_) => false,
        // No squeue: nothing can be followed.
        Err(_) => false,
    }
}

/// The script of one array task: runs the reduction, passes a stop (SIGTERM from `scancel` or
/// the time limit) on to it, and writes its exit status and time.
fn task_script(whittle: &Path, argv: &[OsString], work: &Path, item: &Item) -> Vec<u8> {
    let mut command = shell_quote(whittle.as_os_str());
    for arg in argv {
        command.push(b' ');
        command.extend(shell_quote(arg));
    }
    let log = shell_quote(log_path(work, item).as_os_str());
    let exit = shell_quote(exit_path(work, item).as_os_str());
    let exit_tmp = shell_quote(work.join(format!("{}.exit.tmp", item.index)).as_os_str());
    let mut script = format!(
        "#!/bin/sh\n# Reduction {} of a whittle batch.\nstart=$(date +%s)\n",
        item.index
    )
    .into_bytes();
    script.extend(command);
    script.extend(b" >");
    script.extend(&log);
    script.extend(b" 2>&1 </dev/null &\npid=$!\n");
    script.extend(b"trap 'kill -TERM $pid 2>/dev/null' TERM INT HUP\n");
    script.extend(b"wait $pid; code=$?\n");
    script.extend(b"while kill -0 $pid 2>/dev/null; do wait $pid; code=$?; done\n");
    script.extend(b"echo \"$code $(( $(date +%s) - start ))\" >");
    script.extend(&exit_tmp);
    script.extend(b" && mv ");
    script.extend(&exit_tmp);
    script.push(b' ');
    script.extend(&exit);
    script.extend(b"\nexit $code\n");
    script
}
