//! `whittle slurm-step`: what runs one test on a Slurm node for `--executor slurm` (not for
//! people); the run itself is the core's `exec::slurm::run_step`.

use std::ffi::OsString;
use std::path::PathBuf;

use clap::Args;

use crate::console::errln;

/// The arguments of `whittle slurm-step` (what runs on the node; not for people).
#[derive(Debug, Args)]
pub struct SlurmStepArgs {
    /// Where to write how the test ended (JSON).
    #[arg(long, value_name = "PATH")]
    pub status: PathBuf,
    /// The run directory: the test's working directory.
    #[arg(long, value_name = "DIR")]
    pub dir: Option<PathBuf>,
    /// Kill the test after SECS seconds.
    #[arg(long, value_name = "SECS")]
    pub timeout: Option<f64>,
    /// Open this file (the candidate) as the test's standard input.
    #[arg(long, value_name = "PATH")]
    pub stdin: Option<PathBuf>,
    /// Cap the test's address space at BYTES.
    #[arg(long, value_name = "BYTES")]
    pub memory_limit: Option<u64>,
    /// Only read this file and write its content as the status's output (the check of the
    /// scratch directory).
    #[arg(long, value_name = "PATH")]
    pub probe: Option<PathBuf>,
    /// The test and its arguments.
    #[arg(last = true, value_name = "TEST")]
    pub command: Vec<OsString>,
}

/// Runs the test of `args` and writes how it ended; the exit status of `whittle slurm-step`.
pub fn run(args: &SlurmStepArgs) -> i32 {
    let end = whittle_core::exec::slurm::run_step(&whittle_core::exec::slurm::StepArgs {
        status: args.status.clone(),
        dir: args.dir.clone(),
        timeout: args.timeout,
        stdin: args.stdin.clone(),
        memory_limit: args.memory_limit,
        probe: args.probe.clone(),
        command: args.command.clone(),
    });
    if let Some(message) = end.message {
        errln!("whittle slurm-step: {message}");
    }
    end.code
}
