//! What runs a test and keeps its verdict: the test commands' processes and the signals that stop
//! them, the oracle and its executors (this machine, Slurm), the confirmation of a flaky test's
//! verdicts by repeated runs, and the outcome caches.

pub mod cache;
pub mod confirm;
pub mod oracle;
pub mod processes;
pub mod signals;
pub mod slurm;
