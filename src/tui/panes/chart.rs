//! The size chart: the best's size over the tests run (like the dissertation's Fig 5.4), with
//! a mark where each stage and fixed-point pass began; beside it, in a schedule, the size over
//! running time (`course.rs`). For a case of several files it is the whole set's size, with a
//! mark where each file's turn began.

use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::symbols::Marker;
use ratatui::text::Span;
use ratatui::widgets::{Axis, Chart, Dataset, GraphType};

use super::{Pane, View};
use crate::tui::model::ChartMark;
use crate::tui::theme::Theme;
use crate::tui::widgets::{block, human_bytes};

pub fn draw(view: &View, frame: &mut Frame, area: Rect) {
    let area = super::course::beside_curve(view, frame, area);
    match &view.run.case {
        Some(case) => draw_series(
            view,
            &case.sizes,
            &case.marks,
            " Whole case: size over tests · ┆ file ",
            frame,
            area,
        ),
        None => draw_series(
            view,
            &view.run.sizes,
            &view.run.marks,
            " Size over tests · ┆ stage/pass ",
            frame,
            area,
        ),
    }
}

fn draw_series(
    view: &View,
    sizes: &[(u64, usize)],
    marks: &[ChartMark],
    title: &str,
    frame: &mut Frame,
    area: Rect,
) {
    let theme = view.theme;
    let run = view.run;
    let tests_now = run.tests.max(1);
    let mut points: Vec<(f64, f64)> = Vec::with_capacity(sizes.len() * 2 + 1);
    for (i, &(tests, size)) in sizes.iter().enumerate() {
        if i > 0 {
            points.push((tests as f64, sizes[i - 1].1 as f64));
        }
        points.push((tests as f64, size as f64));
    }
    if let Some(&(_, last)) = sizes.last() {
        points.push((tests_now as f64, last as f64));
    }
    // From the smallest size to the largest.
    let top = sizes.iter().map(|(_, s)| *s).max().unwrap_or(1).max(1) as f64;
    let low = sizes.iter().map(|(_, s)| *s).min().unwrap_or(0) as f64;
    let bottom = (low - (top - low) * 0.05).max(0.0).floor();
    let marks: Vec<[(f64, f64); 2]> = marks
        .iter()
        .filter(|m| m.tests > 0)
        .map(|m| [(m.tests as f64, bottom), (m.tests as f64, top)])
        .collect();
    let chart = Chart::new(size_datasets(&marks, &points, theme))
        .block(block(title, view.focus == Pane::Chart, theme))
        .x_axis(
            Axis::default()
                .bounds([0.0, tests_now as f64])
                .labels(vec![Span::raw("0"), Span::raw(format!("{tests_now}"))])
                .style(theme.muted),
        )
        .y_axis(size_axis(bottom, top, theme))
        .legend_position(None);
    frame.render_widget(chart, area);
}

/// The lines of a size chart: each of `marks` (a vertical line) in the marks' style, then the
/// curve through `points`.
pub(super) fn size_datasets<'a>(
    marks: &'a [[(f64, f64); 2]],
    points: &'a [(f64, f64)],
    theme: &Theme,
) -> Vec<Dataset<'a>> {
    let line = |data: &'a [(f64, f64)], style: ratatui::style::Style| {
        Dataset::default()
            .marker(Marker::Braille)
            .graph_type(GraphType::Line)
            .style(style)
            .data(data)
    };
    let mut datasets: Vec<Dataset<'a>> = marks.iter().map(|mark| line(mark, theme.mark)).collect();
    datasets.push(line(points, theme.chart));
    datasets
}

/// The vertical axis of a size chart: bytes from `bottom` to `top`.
pub(super) fn size_axis(bottom: f64, top: f64, theme: &Theme) -> Axis<'static> {
    Axis::default()
        .bounds([bottom, top])
        .labels(vec![
            Span::raw(human_bytes(bottom as usize)),
            Span::raw(human_bytes(top as usize)),
        ])
        .style(theme.muted)
}
