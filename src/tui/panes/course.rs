//! The course of a scheduled run (`(a+b+c)*`, the default pipelines): where the schedule is
//! (`round 2 · stage 3 of 9`), the time left for the whole run (`ETA ~4m10s`, an estimate),
//! what each stage left in the round will likely cost and why it runs there; and the
//! time-to-size curve, the best's bytes over running time with its sizes at 10, 25 and 50 %
//! of the time so far. The Statistics pane and the Stages tab show the lines, the Chart pane
//! the curve beside its size over tests (a stage that never ran to its end is guessed, marked
//! `?`). The estimates come from
//! `whittle_core::observe::forecast`; this file only draws them.

use ratatui::Frame;
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Axis, Chart};

use super::{Pane, View};
use crate::tui::widgets::{block, clock_time, human_bytes};
use whittle_core::observe::forecast::{
    Course, Placement, guessed_tests, likely_tests, short_duration,
};
use whittle_core::text::describe::ellipsize;

/// The moments of the run (fractions of its running time so far) the curve marks.
pub const MOMENTS: [f64; 3] = [0.10, 0.25, 0.50];

/// The course in at most `rows` lines of `width` columns: the summary line, then the stages
/// left in the round (the running one first) with their likely tests and time and why they
/// run there. Nothing outside a schedule or once the run ended.
pub fn lines(view: &View, width: usize, rows: usize) -> Vec<Line<'static>> {
    let theme = view.theme;
    let course = &view.run.course;
    if view.run.ending.is_some() || rows == 0 {
        return Vec::new();
    }
    let jobs = view.snapshot.jobs.max(1);
    let Some(summary) = course.summary(jobs) else {
        return Vec::new();
    };
    let mut lines = vec![Line::styled(ellipsize(&summary, width), theme.title)];
    let Some(position) = course.position() else {
        return lines;
    };
    let mean = course.mean_test_seconds();
    let size = course.scheduled_size();
    // The stage running, then those still to run (a stage whose result is known runs only if
    // the text changes before its turn: counted, not listed).
    let left: Vec<_> = position.plan.stages[position.running..]
        .iter()
        .enumerate()
        .filter(|&(offset, stage)| offset == 0 || stage.why != Placement::Known)
        .map(|(_, stage)| stage)
        .collect();
    let known = position.plan.stages.len() - position.running - left.len();
    // The stage running first, then the line of what is not listed, then more stages.
    let room = rows - 1;
    let rest_line = usize::from(known > 0 || left.len() > room);
    let shown = left
        .len()
        .min(room.saturating_sub(rest_line).max(room.min(1)));
    let name_width = width.saturating_sub(30).clamp(6, 24);
    for (offset, stage) in left.iter().take(shown).enumerate() {
        let running = offset == 0;
        // A stage that never ran to its end is guessed at a test a line (marked `?`).
        let (likely, guessed) = match likely_tests(stage, size) {
            Some(tests) => (tests, ""),
            None => (guessed_tests(position.plan, size), "?"),
        };
        let tests = if running {
            (likely - position.tests_so_far as f64).max(0.0)
        } else {
            likely
        };
        let seconds = tests * mean / jobs as f64;
        let time = if tests < 0.5 {
            "–".to_owned()
        } else if seconds < 1.0 {
            format!("<1s{guessed}")
        } else {
            format!("~{}{guessed}", short_duration(seconds))
        };
        let tests = format!("~{tests:.0} t{guessed}");
        let text = format!(
            "{}{:<name_width$} {:>8} {:>7} {}",
            if running { "▸ " } else { "  " },
            ellipsize(&stage.name, name_width),
            tests,
            time,
            stage.why.words()
        );
        let style = if running { theme.accent } else { theme.base };
        lines.push(Line::styled(ellipsize(&text, width), style));
    }
    let mut rest = Vec::new();
    if shown < left.len() {
        rest.push(format!("{} more", left.len() - shown));
    }
    if known > 0 {
        rest.push(format!("{known} known (run if the text changes)"));
    }
    if !rest.is_empty() && lines.len() < rows {
        lines.push(Line::styled(
            ellipsize(&format!("  + {}", rest.join(", ")), width),
            theme.muted,
        ));
    }
    lines
}

/// Draws the time-to-size curve beside (on wide areas) or below (on tall ones) the size over
/// tests when the run has a schedule; returns what is left for the size over tests.
pub fn beside_curve(view: &View, frame: &mut Frame, area: Rect) -> Rect {
    if view.run.course.plan.is_none() {
        return area;
    }
    let halves = |direction: Layout| {
        let [first, second] = direction
            .constraints([Constraint::Percentage(50), Constraint::Percentage(50)])
            .areas(area);
        (first, second)
    };
    let (left, right) = if area.width >= 72 {
        halves(Layout::horizontal([Constraint::Fill(1); 2]))
    } else if area.height >= 12 {
        halves(Layout::vertical([Constraint::Fill(1); 2]))
    } else {
        return area;
    };
    draw_curve(view, frame, right);
    left
}

/// The best's bytes over running time, with a mark at each of [`MOMENTS`] and the sizes then
/// in the title.
pub fn draw_curve(view: &View, frame: &mut Frame, area: Rect) {
    let theme = view.theme;
    let course = &view.run.course;
    let now = view
        .running
        .as_secs_f64()
        .max(course.curve.last().map_or(0.0, |p| p.0));
    let end = now.max(1.0);
    let points = curve_points(course, end);
    let top = course.curve.iter().map(|p| p.1).max().unwrap_or(1).max(1) as f64;
    let low = course.curve.iter().map(|p| p.1).min().unwrap_or(0) as f64;
    let bottom = (low - (top - low) * 0.05).max(0.0).floor();
    let marks: Vec<[(f64, f64); 2]> = MOMENTS
        .iter()
        .map(|fraction| [(end * fraction, bottom), (end * fraction, top)])
        .collect();
    let title = curve_title(course, now, area.width.saturating_sub(2) as usize);
    let chart = Chart::new(super::chart::size_datasets(&marks, &points, theme))
        .block(block(title, view.focus == Pane::Chart, theme))
        .x_axis(
            Axis::default()
                .bounds([0.0, end])
                .labels(vec![
                    Span::raw("0"),
                    Span::raw(clock_time(std::time::Duration::from_secs_f64(now))),
                ])
                .style(theme.muted),
        )
        .y_axis(super::chart::size_axis(bottom, top, theme))
        .legend_position(None);
    frame.render_widget(chart, area);
}

/// The steps of the best's size over running time, up to `end`.
fn curve_points(course: &Course, end: f64) -> Vec<(f64, f64)> {
    let mut points: Vec<(f64, f64)> = Vec::with_capacity(course.curve.len() * 2 + 1);
    for (index, &(seconds, size)) in course.curve.iter().enumerate() {
        if index > 0 {
            points.push((seconds, course.curve[index - 1].1 as f64));
        }
        points.push((seconds, size as f64));
    }
    points.push((end, course.size() as f64));
    points
}

/// The chart's title: the sizes at each of [`MOMENTS`] (`now` is the running time), as long a
/// form as fits in `room` characters.
fn curve_title(course: &Course, now: f64, room: usize) -> String {
    let sizes: Vec<String> = MOMENTS
        .iter()
        .map(|&fraction| {
            format!(
                "{:.0}% {}",
                fraction * 100.0,
                human_bytes(course.size_at(fraction, now) as usize)
            )
        })
        .collect();
    // The longest title that fits: the sizes at the marks matter more than the name.
    [
        format!(" Size over time · {} ", sizes.join(" · ")),
        format!(" Size/time {} ", sizes.join(" ")),
        format!(" {} ", sizes.join(" ")),
    ]
    .into_iter()
    .find(|title| title.chars().count() <= room)
    .unwrap_or_else(|| ellipsize(" Size over time ", room))
}
