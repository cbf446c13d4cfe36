//! The Statistics pane (sizes, tests and their rate over running time, checks, cache, time),
//! the per-stage table (tests, bytes removed, time of each stage, as C-Vise lists its passes)
//! and the steps table (the last candidates judged, as the dissertation's Table 4.1 lists
//! them). The wide layout shows all three in one pane; the compact one has a tab for each.

use std::collections::VecDeque;
use std::time::Duration;

use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::Paragraph;

use super::{Pane, View, short_candidate};
use crate::tui::model::Judged;
use crate::tui::theme::Theme;
use crate::tui::widgets::{block, clock_time, human_bytes, percent};
use whittle_core::engine::case::CaseView;
use whittle_core::text::describe::ellipsize;

/// A label of the pane's number lines, padded to their column.
fn label(theme: &Theme, text: &str) -> Span<'static> {
    Span::styled(format!("{text:<9}"), theme.muted)
}

/// A number line: its label and its value.
fn row(theme: &Theme, name: &str, text: String) -> Line<'static> {
    Line::from(vec![label(theme, name), Span::styled(text, theme.base)])
}

/// The number lines of the pane.
fn numbers(view: &View) -> Vec<Line<'static>> {
    let theme = view.theme;
    let stats = view.stats;
    let replay = view.replay.is_some();
    let rate = if view.running.as_secs_f64() > 0.0 {
        format!("{:.1}/s", stats.tests as f64 / view.running.as_secs_f64())
    } else {
        "–/s".into()
    };
    let since = view
        .run
        .last_reduction
        .map(|at| clock_time(view.now.saturating_duration_since(at)))
        .unwrap_or_else(|| "–".into());
    let size_line = |name: &str, from: usize, to: usize| {
        Line::from(vec![
            label(theme, name),
            Span::styled(format!("{from} → {to} "), theme.base),
            Span::styled(percent(to, from), theme.accent),
        ])
    };
    // The most telling first: a small screen shows the first ones.
    let mut lines = Vec::new();
    if let Some(case) = &view.snapshot.case {
        lines.push(size_line(
            "case",
            case.start_bytes(),
            case_bytes(view, case),
        ));
    }
    lines.extend([
        size_line("bytes", view.input.bytes, view.best.bytes),
        size_line("lines", view.input.lines, view.best.lines),
        size_line("non-ws", view.input.nonws, view.best.nonws),
        Line::from(vec![
            label(theme, "tests"),
            Span::styled(format!("{} · {rate} · ", stats.tests), theme.base),
            Span::styled(
                percent(stats.interesting_tests as usize, stats.tests as usize),
                theme.interesting,
            ),
            Span::styled(" ✗", theme.interesting),
        ]),
    ]);
    lines.extend(counter_lines(view));
    if !replay {
        lines.push(row(theme, "reduced", format!("{since} ago")));
    }
    lines
}

/// The number lines of the cache, the checks, what was skipped or run in parallel, the rounds
/// and the time. A replay shows "–" for what its trace does not record until its end.
fn counter_lines(view: &View) -> [Line<'static>; 8] {
    let theme = view.theme;
    let stats = view.stats;
    let cache = &stats.cache;
    let unrecorded = view.replay.is_some() && view.run.final_stats.is_none();
    let unknown = |known: u64| unrecorded_or(unrecorded, || known.to_string());
    [
        row(
            theme,
            "cache",
            format!("{} lookups · {} hits", unknown(cache.lookups), cache.hits()),
        ),
        Line::from(vec![
            label(theme, "hits"),
            Span::styled(format!("✗ {}  ", cache.hits_interesting), theme.interesting),
            Span::styled(format!("✓ {}  ", cache.hits_not), theme.not_interesting),
            Span::styled(format!("? {}", cache.hits_unresolved), theme.unresolved),
        ]),
        row(
            theme,
            "checks",
            format!("{} · {} oracle runs", stats.checks, stats.oracle_runs),
        ),
        row(
            theme,
            "entries",
            format!(
                "{} · {} · {} evicted",
                unknown(cache.entries),
                unrecorded_or(unrecorded, || human_bytes(cache.bytes as usize)),
                unknown(cache.evictions)
            ),
        ),
        row(theme, "skipped", skipped(stats)),
        // Before the parallel row: a short pane shows timeouts rather than cancelled tests.
        row(
            theme,
            "rounds",
            format!("{} · timeouts {}", stats.iterations, stats.timeouts),
        ),
        row(
            theme,
            "parallel",
            format!(
                "cancelled {} · wasted {}{}",
                unknown(stats.cancelled),
                unknown(stats.wasted),
                // Tests run ahead (last: a narrow pane cuts them first).
                if stats.ahead > 0 {
                    format!(" · ahead {}", stats.ahead)
                } else {
                    String::new()
                }
            ),
        ),
        row(
            theme,
            "time",
            format!(
                "{} running · {} accepted",
                clock_time(view.running),
                stats.accepted
            ),
        ),
    ]
}

/// The candidates judged without a test: rejected by the syntax guard, recalled as failed
/// before in a neighbourhood of the same shape, or leaving a used name undeclared (once there
/// are any); and, once there are any, those tested without asking the guard (its parses of a
/// large text cost more than the tests it saved).
fn skipped(stats: &whittle_core::observe::stats::Stats) -> String {
    let mut judged = format!(
        "guard {} · recall {}",
        stats.guard_skips, stats.recall_skips
    );
    if stats.names_skips > 0 {
        judged.push_str(&format!(" · names {}", stats.names_skips));
    }
    match stats.guard_passed_over {
        0 => judged,
        unasked => format!("{judged} · guard not asked {unasked}"),
    }
}

/// "–" for a number a replay's trace does not record (`unrecorded`), else the number.
fn unrecorded_or(unrecorded: bool, known: impl FnOnce() -> String) -> String {
    if unrecorded {
        "–".to_string()
    } else {
        known()
    }
}

/// The bytes of the whole case now: the file being reduced at its best, the others as the
/// case last told.
fn case_bytes(view: &View, case: &CaseView) -> usize {
    case.files
        .iter()
        .enumerate()
        .map(|(row, file)| {
            if Some(row) == case.current {
                view.best.bytes
            } else {
                file.bytes
            }
        })
        .sum()
}

/// The per-stage table: a header and one row per stage.
fn stage_lines(view: &View, width: usize) -> Vec<Line<'static>> {
    let theme = view.theme;
    let rows = view.run.stage_rows(view.running);
    let name_width = width.saturating_sub(27).clamp(6, 20);
    let mut lines = vec![Line::styled(
        format!(
            "{:<name_width$} {:>6} {:>9} {:>8}",
            "stage", "tests", "removed", "time"
        ),
        theme.title,
    )];
    // A stage that ran no test and removed nothing (skipped at once, or its result was known)
    // has no row, unless it is the one running.
    let running =
        |row: &crate::tui::model::StageRow| row.name == view.run.stage && view.run.ending.is_none();
    for row in rows
        .into_iter()
        .filter(|row| row.tests > 0 || row.bytes_removed > 0 || running(row))
    {
        let style = if row.name == view.run.stage && view.run.ending.is_none() {
            theme.accent
        } else {
            theme.base
        };
        lines.push(Line::styled(
            format!(
                "{:<name_width$} {:>6} {:>9} {:>8}",
                ellipsize(&row.name, name_width),
                row.tests,
                human_bytes(row.bytes_removed as usize),
                clock_time_precise(row.time)
            ),
            style,
        ));
    }
    lines
}

/// Seconds with a decimal under a minute.
fn clock_time_precise(time: Duration) -> String {
    if time.as_secs() < 60 {
        format!("{:.1}s", time.as_secs_f64())
    } else {
        clock_time(time)
    }
}

/// The steps table: a header and the last `rows - 1` candidates judged.
fn step_lines(view: &View, rows: usize, width: usize) -> Vec<Line<'static>> {
    step_table(&view.run.log, rows, width, view.theme, |judged| {
        judged
            .at
            .and_then(|offset| view.position(judged.version, offset))
    })
}

/// The steps table of `log`: a header and the last `rows - 1` candidates judged, each placed
/// by `at` (its line and column, when known).
pub fn step_table(
    log: &VecDeque<Judged>,
    rows: usize,
    width: usize,
    theme: &Theme,
    at: impl Fn(&Judged) -> Option<(usize, usize)>,
) -> Vec<Line<'static>> {
    let content_width = width.saturating_sub(26).clamp(6, 40);
    let mut lines = vec![Line::styled(
        format!(
            "{:>4} {:<7} {:<content_width$} {:<5} out",
            "step", "cand.", "content", "how"
        ),
        theme.title,
    )];
    let shown = log.len().min(rows.saturating_sub(1));
    for judged in log.iter().skip(log.len() - shown) {
        let content = judged
            .preview
            .as_ref()
            .map(|p| ellipsize(&p.replace('\n', "⏎"), content_width))
            .unwrap_or_else(|| human_bytes(judged.size));
        let at = at(judged);
        lines.push(Line::from(vec![
            Span::styled(format!("{:>4} ", judged.step), theme.muted),
            Span::styled(
                format!("{:<7} ", short_candidate(&judged.candidate, at)),
                theme.accent,
            ),
            Span::styled(
                format!("{}{} ", content, pad(&content, content_width)),
                theme.base,
            ),
            Span::styled(format!("{:<5} ", judged.action.word()), theme.muted),
            Span::styled(judged.outcome.symbol(), theme.outcome(judged.outcome)),
        ]));
    }
    lines
}

/// Spaces that fill `text` up to `width` columns.
fn pad(text: &str, width: usize) -> String {
    use unicode_width::UnicodeWidthStr;
    " ".repeat(width.saturating_sub(text.width()))
}

/// The wide layout's pane: numbers, stages (when there are several) and the steps table.
pub fn draw(view: &View, frame: &mut Frame, area: Rect) {
    let width = area.width.saturating_sub(2) as usize;
    let height = area.height.saturating_sub(2) as usize;
    let mut lines = numbers(view);
    let stages = if view.snapshot.stage_count > 1 || view.run.stages.len() > 1 {
        stage_lines(view, width)
    } else {
        Vec::new()
    };
    // The course of a schedule: at least where it is and the stage running, more when the
    // stage table still fits.
    let course_rows = height
        .saturating_sub(lines.len() + stages.len() + 3)
        .clamp(2, 6);
    lines.extend(super::course::lines(view, width, course_rows));
    if !stages.is_empty() && lines.len() + stages.len() + 3 <= height {
        lines.extend(stages);
    }
    let room = height.saturating_sub(lines.len());
    if room >= 2 {
        lines.extend(step_lines(view, room, width));
    }
    frame.render_widget(
        Paragraph::new(lines).block(block(
            " Statistics ",
            view.focus == Pane::Statistics,
            view.theme,
        )),
        area,
    );
}

/// The compact layout's tabs.
pub fn draw_tab(view: &View, pane: Pane, frame: &mut Frame, area: Rect) {
    let width = area.width.saturating_sub(2) as usize;
    let height = area.height.saturating_sub(2) as usize;
    let title = format!(" {} ", pane.title());
    let frame_block = block(title, view.focus == pane, view.theme);
    let lines = match pane {
        Pane::Steps => step_lines(view, height, width),
        Pane::Stages => {
            let mut lines = super::course::lines(view, width, height.div_ceil(2));
            lines.extend(stage_lines(view, width));
            lines
        }
        _ => {
            // Two columns when they fit, so that the cache lines are on screen too.
            let numbers = numbers(view);
            if width >= 70 && numbers.len() > height {
                let inner = frame_block.inner(area);
                frame.render_widget(frame_block, area);
                let half = height;
                let [left, right] = ratatui::layout::Layout::horizontal([
                    ratatui::layout::Constraint::Percentage(50),
                    ratatui::layout::Constraint::Percentage(50),
                ])
                .areas(inner);
                let mut numbers = numbers;
                let second = numbers.split_off(half);
                frame.render_widget(Paragraph::new(numbers), left);
                frame.render_widget(Paragraph::new(second), right);
                return;
            }
            numbers
        }
    };
    frame.render_widget(Paragraph::new(lines).block(frame_block), area);
}

#[cfg(test)]
mod tests {
    use whittle_core::observe::stats::Stats;

    use super::skipped;

    #[test]
    fn the_name_checks_and_the_candidates_tested_without_asking_the_guard_show_once_there_are_any()
    {
        let mut stats = Stats {
            guard_skips: 68,
            recall_skips: 3,
            ..Stats::default()
        };
        assert_eq!(skipped(&stats), "guard 68 · recall 3");
        stats.guard_passed_over = 273;
        assert_eq!(skipped(&stats), "guard 68 · recall 3 · guard not asked 273");
        stats.names_skips = 12;
        assert_eq!(
            skipped(&stats),
            "guard 68 · recall 3 · names 12 · guard not asked 273"
        );
    }
}
