//! How each reduction of a batch ended (from its exit status, log and statistics), and the
//! summary of the campaign: a table on stdout, `summary.json` in the work directory.

use std::fs;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use super::{BatchArgs, Item, log_path, stats_path};
use crate::cli::{EXIT_ERROR, EXIT_INTERRUPTED, EXIT_USAGE, ExecutorKind};
use crate::console::{Report, errln};

/// How one reduction ended, as the summary shows it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Status {
    /// The result is smaller than the input.
    Reduced,
    /// The reduction ran to its end and found nothing smaller.
    Unchanged,
    /// A limit (`--limit-time`, `--limit-tests`) stopped it; the output holds its best result.
    Limit,
    /// The test does not find the input interesting: nothing was reduced.
    NotInteresting,
    /// whittle refused to start (a bad argument, an existing output...): see the log.
    Refused,
    /// Stopped by a signal (Ctrl-C, `scancel`); the output holds its best result.
    Stopped,
    /// It failed (an error of whittle's environment, a crash, a lost array task): see the log.
    Failed,
    /// The campaign was stopped before it started.
    NotStarted,
}

impl Status {
    pub(super) fn as_str(&self) -> &'static str {
        match self {
            Status::Reduced => "reduced",
            Status::Unchanged => "unchanged",
            Status::Limit => "limit",
            Status::NotInteresting => "not interesting",
            Status::Refused => "refused",
            Status::Stopped => "stopped",
            Status::Failed => "failed",
            Status::NotStarted => "not started",
        }
    }

    /// Whether the reduction ran as asked (whatever it found).
    pub(super) fn is_success(&self) -> bool {
        matches!(self, Status::Reduced | Status::Unchanged | Status::Limit)
    }
}

/// One line of the summary.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Summary {
    pub input: PathBuf,
    pub output: PathBuf,
    pub status: Status,
    /// The input's size in bytes.
    pub size_before: u64,
    /// The result's size in bytes (when the reduction got as far as a result).
    pub size_after: Option<u64>,
    /// The algorithm's tests (as `whittle reduce` counts them).
    pub tests: Option<u64>,
    pub seconds: f64,
    /// `whittle reduce`'s exit status.
    pub exit_code: Option<i32>,
    /// What went wrong, when something did (a line of the log).
    pub detail: Option<String>,
    /// The reduction's own output (its log).
    pub log: PathBuf,
}

/// The JSON summary of a campaign.
#[derive(Debug, Serialize, Deserialize)]
pub struct BatchSummary {
    pub executor: String,
    pub work_dir: PathBuf,
    pub reductions: Vec<Summary>,
}

/// Prints the table, writes the JSON summary (in the work directory, and to `--summary-json`)
/// and returns the exit code of the campaign.
pub(super) fn report(
    args: &BatchArgs,
    work_dir: PathBuf,
    summaries: Vec<Summary>,
) -> anyhow::Result<i32> {
    let summary = BatchSummary {
        executor: match args.executor {
            ExecutorKind::Local => "local".into(),
            ExecutorKind::Slurm => "slurm".into(),
        },
        work_dir: work_dir.clone(),
        reductions: summaries,
    };
    // The summary files are written whatever becomes of stdout (`| head`, a full disk).
    let mut stdout = Report::new();
    stdout.text(&table(&summary.reductions));
    let json = serde_json::to_vec_pretty(&summary)?;
    let mut code = 0;
    let mut written = Vec::new();
    for path in std::iter::once(work_dir.join("summary.json")).chain(args.summary_json.clone()) {
        match whittle_core::output::write_atomically(&path, &json, Some(0o644)) {
            Ok(()) => written.push(path.display().to_string()),
            Err(error) => {
                errln!(
                    "whittle: error: cannot write the summary to {}: {error}",
                    path.display()
                );
                code = EXIT_ERROR;
            }
        }
    }
    if !written.is_empty() {
        errln!("whittle: summary in {}", written.join(" and "));
    }
    if whittle_core::exec::signals::received() > 0 {
        code = EXIT_INTERRUPTED;
    } else if summary.reductions.iter().any(|s| !s.status.is_success()) {
        code = EXIT_ERROR;
    }
    Ok(crate::cli::with_stdout(stdout, code))
}

/// The size of an input: a file's bytes, or the bytes of a directory's files (a case of
/// several files, measured as `whittle reduce` measures it).
fn input_size(input: &Path) -> u64 {
    if input.is_dir() {
        whittle_core::bundle::read_case(input, u32::MAX as u64)
            .map_or(0, |files| whittle_core::bundle::content_size(&files) as u64)
    } else {
        fs::metadata(input).map_or(0, |m| m.len())
    }
}

/// What `whittle reduce --stats-json` wrote, as far as the summary needs it.
#[derive(Deserialize)]
struct ReduceStats {
    tests: u64,
    output_bytes: u64,
    wall_seconds: f64,
    stopped: Option<String>,
}

/// The summary line of a reduction that ended with `exit` (`None`: no exit status is known)
/// after `seconds`.
pub(super) fn summarize(work: &Path, item: &Item, exit: Option<i32>, seconds: f64) -> Summary {
    let log = log_path(work, item);
    let stats: Option<ReduceStats> = fs::read(stats_path(work, item))
        .ok()
        .and_then(|json| serde_json::from_slice(&json).ok());
    let log_text = fs::read(&log)
        .map(|bytes| String::from_utf8_lossy(&bytes).into_owned())
        .unwrap_or_default();
    let last_message = log_text
        .lines()
        .rev()
        .find(|line| line.starts_with("whittle: "))
        .map(|line| line.trim_start_matches("whittle: ").to_owned());
    let size_before = input_size(&item.input);
    let (status, detail) = match (exit, &stats) {
        (Some(0), Some(stats)) if stats.stopped.is_some() => (Status::Limit, stats.stopped.clone()),
        (Some(0), Some(stats)) if stats.output_bytes < size_before => (Status::Reduced, None),
        (Some(0), Some(_)) => (Status::Unchanged, None),
        (Some(0), None) => (Status::Limit, last_message),
        (Some(EXIT_USAGE), _) if log_text.contains(" is not interesting") => (
            Status::NotInteresting,
            log_text
                .lines()
                .find(|line| line.contains(" is not interesting"))
                .map(|line| line.trim_start_matches("whittle: ").to_owned()),
        ),
        (Some(EXIT_USAGE), _) => (Status::Refused, last_message),
        (Some(EXIT_INTERRUPTED), _) => (Status::Stopped, None),
        (Some(code), _) => (
            Status::Failed,
            Some(last_message.unwrap_or_else(|| format!("exit status {code}"))),
        ),
        (None, _) => (
            Status::Failed,
            Some(last_message.unwrap_or_else(|| "ended without an exit status".into())),
        ),
    };
    // A reduction that said nothing although it did not succeed could not write its log.
    let detail = match detail {
        _ if !log_text.trim().is_empty() || status.is_success() || exit.is_none() => detail,
        Some(detail) => Some(format!(
            "{detail}; its log {} is empty: it could not be written (a full disk?)",
            log.display()
        )),
        None => Some(format!(
            "exit status {}; its log {} is empty: it could not be written (a full disk?)",
            exit.unwrap_or_default(),
            log.display()
        )),
    };
    Summary {
        input: item.input.clone(),
        output: item.output.clone(),
        size_after: stats.as_ref().map(|s| s.output_bytes),
        tests: stats.as_ref().map(|s| s.tests),
        seconds: stats.as_ref().map_or(seconds, |s| s.wall_seconds.max(0.0)),
        status,
        size_before,
        exit_code: exit,
        detail,
        log,
    }
}

pub(super) fn not_started(work: &Path, item: &Item) -> Summary {
    Summary {
        input: item.input.clone(),
        output: item.output.clone(),
        status: Status::NotStarted,
        size_before: input_size(&item.input),
        size_after: None,
        tests: None,
        seconds: 0.0,
        exit_code: None,
        detail: None,
        log: log_path(work, item),
    }
}

/// The summary as a table.
fn table(summaries: &[Summary]) -> String {
    let cwd = std::env::current_dir().unwrap_or_default();
    let rows: Vec<[String; 6]> = summaries
        .iter()
        .map(|s| {
            [
                s.input
                    .strip_prefix(&cwd)
                    .unwrap_or(&s.input)
                    .display()
                    .to_string(),
                s.size_before.to_string(),
                s.size_after.map_or("-".into(), |n| n.to_string()),
                s.tests.map_or("-".into(), |n| n.to_string()),
                format!("{:.1}s", s.seconds),
                match &s.detail {
                    Some(detail) => format!("{} ({detail})", s.status.as_str()),
                    None => s.status.as_str().into(),
                },
            ]
        })
        .collect();
    let header = ["input", "before", "after", "tests", "time", "status"];
    let width = |column: usize| {
        rows.iter()
            .map(|row| row[column].chars().count())
            .chain(std::iter::once(header[column].len()))
            .max()
            .unwrap_or(0)
    };
    let widths: Vec<usize> = (0..5).map(width).collect();
    let mut out = String::new();
    let mut line = |cells: [&str; 6]| {
        out.push_str(&format!("{:<w$}", cells[0], w = widths[0]));
        for (i, cell) in cells.iter().enumerate().take(5).skip(1) {
            out.push_str(&format!("  {:>w$}", cell, w = widths[i]));
        }
        out.push_str(&format!("  {}\n", cells[5]));
    };
    line(header);
    for row in &rows {
        line([&row[0], &row[1], &row[2], &row[3], &row[4], &row[5]]);
    }
    let count = |status: &Status| summaries.iter().filter(|s| &s.status == status).count();
    let before: u64 = summaries.iter().map(|s| s.size_before).sum();
    let after: u64 = summaries
        .iter()
        .map(|s| s.size_after.unwrap_or(s.size_before))
        .sum();
    out.push_str(&format!(
        "{} reductions: {} reduced, {} unchanged, {} stopped by a limit, {} not interesting, {} \
         refused, {} stopped, {} failed, {} not started; {before} -> {after} bytes in all\n",
        summaries.len(),
        count(&Status::Reduced),
        count(&Status::Unchanged),
        count(&Status::Limit),
        count(&Status::NotInteresting),
        count(&Status::Refused),
        count(&Status::Stopped),
        count(&Status::Failed),
        count(&Status::NotStarted),
    ));
    out
}
