//! The progress of a batch on stderr while its reductions run: a bar on a terminal, and a line
//! for each reduction that ends.

use std::io::IsTerminal;
use std::sync::{Mutex, PoisonError};
use std::time::Duration;

use indicatif::{ProgressBar, ProgressStyle};

use super::summary::{Status, Summary};
use crate::console::errln;

/// The progress line: a bar on a terminal, a line per finished reduction otherwise (and
/// always).
pub(super) struct Progress {
    bar: ProgressBar,
    total: usize,
    done: Mutex<Vec<Status>>,
}

impl Progress {
    pub(super) fn new(total: usize) -> Progress {
        let bar = if std::io::stderr().is_terminal() {
            let bar = ProgressBar::new(total as u64);
            if let Ok(style) = ProgressStyle::with_template(
                "{elapsed_precise} [{bar:30.cyan/blue}] {pos}/{len} {msg}",
            ) {
                bar.set_style(style.progress_chars("=> "));
            }
            bar.enable_steady_tick(Duration::from_millis(250));
            bar
        } else {
            ProgressBar::hidden()
        };
        Progress {
            bar,
            total,
            done: Mutex::new(Vec::new()),
        }
    }

    pub(super) fn running(&self, running: usize) {
        let done = self.done.lock().unwrap_or_else(PoisonError::into_inner);
        self.bar.set_message(Self::message(&done, running));
    }

    fn message(done: &[Status], running: usize) -> String {
        let count = |wanted: &[Status]| done.iter().filter(|s| wanted.contains(s)).count();
        format!(
            "{running} running · {} reduced · {} unchanged/limit · {} not interesting · {} failed",
            count(&[Status::Reduced]),
            count(&[Status::Unchanged, Status::Limit]),
            count(&[Status::NotInteresting]),
            count(&[
                Status::Refused,
                Status::Failed,
                Status::Stopped,
                Status::NotStarted
            ]),
        )
    }

    pub(super) fn finished(&self, summary: &Summary, running: usize) {
        let mut done = self.done.lock().unwrap_or_else(PoisonError::into_inner);
        done.push(summary.status.clone());
        let cwd = std::env::current_dir().unwrap_or_default();
        let line = format!(
            "whittle: [{}/{}] {}: {}{} ({:.1}s){}",
            done.len(),
            self.total,
            summary
                .input
                .strip_prefix(&cwd)
                .unwrap_or(&summary.input)
                .display(),
            summary.status.as_str(),
            match (summary.size_after, summary.tests) {
                (Some(after), Some(tests)) =>
                    format!(", {} -> {after} bytes, {tests} tests", summary.size_before),
                _ => String::new(),
            },
            summary.seconds,
            summary
                .detail
                .as_ref()
                .map_or_else(String::new, |d| format!(": {d}")),
        );
        self.bar.suspend(|| errln!("{line}"));
        self.bar.inc(1);
        self.bar.set_message(Self::message(&done, running));
    }

    pub(super) fn finish(&self) {
        self.bar.finish_and_clear();
    }
}
