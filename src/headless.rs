//! Headless mode: a progress bar on stderr when it is a terminal, plain log lines otherwise, the
//! engine's warnings, and the final report. It consumes the engine's events like the UI does.

use std::io::IsTerminal;
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use crossbeam_channel::Receiver;
use indicatif::{ProgressBar, ProgressStyle};

use crate::console::errln;
use whittle_core::observe::events::{Action, Event};
use whittle_core::observe::forecast::Course;
use whittle_core::observe::stats::Stats;

/// The line a warning or notice of the engine is printed as (`None` for other events).
pub fn message_line(event: &Event) -> Option<String> {
    match event {
        Event::Warning { message } => Some(format!("whittle: warning: {message}")),
        Event::Notice { message } => Some(format!("whittle: {message}")),
        _ => None,
    }
}

/// Prints the engine's warnings and notices until the channel closes (after the UI, which
/// showed the earlier ones).
pub fn spawn_messages(events: Receiver<Event>) -> JoinHandle<()> {
    std::thread::Builder::new()
        .name("whittle-messages".into())
        .spawn(move || {
            for event in events {
                if let Some(line) = message_line(&event) {
                    errln!("{line}");
                }
            }
        })
        .unwrap_or_else(|_| std::thread::spawn(|| {}))
}

/// Shows progress from the engine's events until the channel closes, and prints the
/// engine's warnings and notices; `jobs` tests run at once (for the estimate of the time left).
pub fn spawn_progress(events: Receiver<Event>, input_size: usize, jobs: usize) -> JoinHandle<()> {
    let interactive = std::io::stderr().is_terminal();
    std::thread::Builder::new()
        .name("whittle-progress".into())
        .spawn(move || {
            let progress = Progress::new(input_size, jobs);
            if interactive {
                progress_bar(events, progress)
            } else {
                log_lines(events, progress)
            }
        })
        .unwrap_or_else(|_| std::thread::spawn(|| {}))
}

struct Progress {
    input_size: usize,
    size: usize,
    tests: u64,
    cached: u64,
    n: usize,
    stage: String,
    /// Where a schedule is and the time it likely needs still.
    course: Course,
    jobs: usize,
    started: Instant,
}

impl Progress {
    fn new(input_size: usize, jobs: usize) -> Progress {
        Progress {
            input_size,
            size: input_size,
            tests: 0,
            cached: 0,
            n: 0,
            stage: String::new(),
            course: Course::new(input_size as u64),
            jobs,
            started: Instant::now(),
        }
    }

    fn update(&mut self, event: &Event) -> bool {
        self.course.apply(event, self.started.elapsed());
        match event {
            Event::StageStarted { stage, .. } => {
                self.stage = stage.clone();
                true
            }
            Event::Round { n, .. } => {
                self.n = *n;
                false
            }
            Event::CandidateJudged {
                action, candidate, ..
            } => {
                match action {
                    Action::Test if candidate.is_check() => {}
                    Action::Test => self.tests += 1,
                    Action::Cache => self.cached += 1,
                    Action::Guard | Action::Recall | Action::Names => {}
                }
                false
            }
            Event::Accepted { size, .. } => {
                self.size = *size;
                true
            }
            _ => false,
        }
    }

    fn line(&self) -> String {
        let percent = if self.input_size == 0 {
            100.0
        } else {
            100.0 * self.size as f64 / self.input_size as f64
        };
        let course = self
            .course
            .summary(self.jobs)
            .map(|summary| format!(" · {summary}"))
            .unwrap_or_default();
        format!(
            "[{}] {} bytes ({percent:.1}%) · {} tests · {} cached · n={}{course}",
            if self.stage.is_empty() {
                "checking"
            } else {
                &self.stage
            },
            self.size,
            self.tests,
            self.cached,
            self.n
        )
    }
}

fn progress_bar(events: Receiver<Event>, mut progress: Progress) {
    let bar = ProgressBar::new_spinner();
    bar.set_style(
        ProgressStyle::with_template("{spinner} {elapsed_precise} {msg}")
            .unwrap_or_else(|_| ProgressStyle::default_spinner()),
    );
    bar.enable_steady_tick(Duration::from_millis(120));
    for event in events {
        if let Some(line) = message_line(&event) {
            bar.suspend(|| errln!("{line}"));
        }
        progress.update(&event);
        bar.set_message(progress.line());
    }
    bar.finish_and_clear();
}

fn log_lines(events: Receiver<Event>, mut progress: Progress) {
    let mut last = Instant::now() - Duration::from_secs(10);
    let mut pending = false;
    for event in events {
        if let Some(line) = message_line(&event) {
            errln!("{line}");
        }
        let stage_change = matches!(event, Event::StageStarted { .. });
        pending |= progress.update(&event);
        if pending && (stage_change || last.elapsed() >= Duration::from_secs(1)) {
            errln!("whittle: {}", progress.line());
            last = Instant::now();
            pending = false;
        }
    }
    if pending {
        errln!("whittle: {}", progress.line());
    }
}

/// The short report printed at the end of a run.
pub fn report(stats: &Stats) -> String {
    let percent = |after: u64, before: u64| {
        if before == 0 {
            100.0
        } else {
            100.0 * after as f64 / before as f64
        }
    };
    let mut lines = vec![
        format!(
            "tests: {} ({} interesting), checks of the input: {}, oracle runs: {} ({} unresolved, {} timeouts)",
            stats.tests,
            stats.interesting_tests,
            stats.checks,
            stats.oracle_runs,
            stats.unresolved,
            stats.timeouts
        ),
        format!(
            "cache hits: {}, ddmin rounds (iterations): {}",
            stats.cache_hits, stats.iterations
        ),
        format!(
            "size: {} -> {} bytes ({:.1}%), {} -> {} lines, {} -> {} non-whitespace characters",
            stats.input_bytes,
            stats.output_bytes,
            percent(stats.output_bytes, stats.input_bytes),
            stats.input_lines,
            stats.output_lines,
            stats.input_nonws_chars,
            stats.output_nonws_chars
        ),
        format!(
            "time: {:.2}s wall, {:.2}s in tests ({} jobs, {} mode)",
            stats.wall_seconds, stats.test_seconds, stats.jobs, stats.parallel_mode
        ),
    ];
    if let Some(timeout) = stats.timeout_seconds {
        lines.push(match &stats.timeout_rule {
            Some(rule) => {
                format!("timeout: {timeout:.2}s per test at the end ({rule}; --timeout sets one)")
            }
            None => format!("timeout: {timeout:.2}s per test"),
        });
    }
    if stats.timeout_reruns > 0 {
        lines.push(format!(
            "timeout reruns: {} tests timed out while the tests ran slower and ran again under the grown timeout",
            stats.timeout_reruns
        ));
    }
    if stats.stages.len() > 1 {
        let removed: u64 = stats.stages.iter().map(|stage| stage.bytes_removed).sum();
        for stage in &stats.stages {
            lines.push(format!(
                "  {:<14} {:>3} runs {:>6} tests {:>8} bytes removed ({:>5.1}%) {:>8.1}s",
                stage.name,
                stage.runs,
                stage.tests,
                stage.bytes_removed,
                percent(stage.bytes_removed, removed.max(1)),
                stage.seconds
            ));
        }
    }
    lines.extend(skipped_lines(stats));
    lines.join("\n")
}

/// The report's lines on the candidates judged without a test and the tests run beside the
/// algorithm's (cancelled, ahead, wasted), once there are any.
fn skipped_lines(stats: &Stats) -> Vec<String> {
    let mut lines = Vec::new();
    if stats.guard_skips > 0
        || stats.recall_skips > 0
        || stats.names_skips > 0
        || stats.cancelled > 0
        || stats.ahead > 0
    {
        lines.push(format!(
            "guard skips: {}, recalled: {}, names left undeclared: {}, cancelled: {}, run ahead: {}, wasted: {}",
            stats.guard_skips,
            stats.recall_skips,
            stats.names_skips,
            stats.cancelled,
            stats.ahead,
            stats.wasted
        ));
    }
    if stats.guard_passed_over > 0 {
        lines.push(format!(
            "tested without asking the syntax guard: {} (its parses of this large text cost more \
             than the tests it saved)",
            stats.guard_passed_over
        ));
    }
    lines
}
