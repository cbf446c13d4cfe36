//! ProbDD's and CDD's beliefs in the Configuration pane: a heat strip of every unit's
//! probability (or counter), the units the step removes marked under it, and the expected gain
//! of the step beside that of the sizes around it.

use ratatui::style::{Color, Style};
use ratatui::text::{Line, Span};
use whittle_core::observe::events::BeliefStep;
use whittle_core::params::BeliefModel;

use crate::tui::theme::Theme;

/// Shades from unlikely to certainly needed (readable without colour too).
const SHADES: [char; 5] = ['░', '▒', '▓', '█', '█'];

/// The heat of a cell in [0, 1]: ProbDD's probability, or CDD's counter against the largest
/// counter shown.
fn heats(step: &BeliefStep) -> Vec<f32> {
    match step.model {
        BeliefModel::ProbDd => step.values.iter().map(|&p| p.clamp(0.0, 1.0)).collect(),
        BeliefModel::Cdd => {
            let most = step.values.iter().copied().fold(1.0f32, f32::max);
            step.values.iter().map(|&r| r / most).collect()
        }
    }
}

/// Cool to hot: blue for the least likely, red for the surely needed.
fn heat_colour(heat: f32) -> Color {
    let hot = (heat * 255.0) as u8;
    Color::Rgb(hot, 64, 255 - hot)
}

/// The strip in `width` columns: per column the hottest of its cells, whether all of them stay,
/// whether the step removes one of them.
fn columns(step: &BeliefStep, width: usize) -> Vec<(f32, bool, bool)> {
    let cells = step.values.len();
    let width = width.clamp(1, cells.max(1));
    let heats = heats(step);
    (0..width)
        .map(|column| {
            let range = column * cells / width
                ..((column + 1) * cells / width).max(column * cells / width + 1);
            let range = range.start.min(cells)..range.end.min(cells);
            let heat = heats[range.clone()].iter().copied().fold(0.0, f32::max);
            let settled = step.settled[range.clone()].iter().all(|&s| s);
            let chosen = step.chosen[range].iter().any(|&c| c);
            (heat, settled, chosen)
        })
        .collect()
}

/// The lines of the beliefs section, `units` naming what the units are (`lines`, `nodes`).
pub fn belief_lines(
    step: &BeliefStep,
    units: &str,
    width: usize,
    theme: &Theme,
) -> Vec<Line<'static>> {
    let (title, what) = match step.model {
        BeliefModel::ProbDd => ("ProbDD", "probability each is needed"),
        BeliefModel::Cdd => ("CDD", "failed removals each was in"),
    };
    let settled = step.settled.iter().filter(|&&s| s).count();
    let mut lines = vec![Line::from(vec![
        Span::styled(format!("{title} · "), theme.muted),
        Span::styled(format!("{} {units}", step.len), theme.accent),
        Span::styled(format!(" · heat: {what}"), theme.muted),
    ])];
    let columns = columns(step, width.saturating_sub(3));
    let mut strip = vec![Span::styled("   ", theme.muted)];
    let mut marks = vec![Span::styled("   ", theme.muted)];
    for &(heat, stays, chosen) in &columns {
        let shade = SHADES[((heat * 4.0).round() as usize).min(4)];
        let style = if theme.monochrome {
            theme.base
        } else {
            Style::default().fg(heat_colour(heat))
        };
        strip.push(Span::styled(
            if stays { '▪' } else { shade }.to_string(),
            style,
        ));
        marks.push(Span::styled(if chosen { "^" } else { " " }, theme.accent));
    }
    lines.push(Line::from(strip));
    lines.push(Line::from(marks));
    let what = match step.size {
        1 => format!(
            "the least likely {}",
            units.strip_suffix('s').unwrap_or(units)
        ),
        n => format!("the {n} least likely {units}"),
    };
    lines.push(Line::from(vec![
        Span::styled(format!("remove {what}"), theme.base),
        Span::styled(format!(", expected gain {:.1}", step.gain), theme.accent),
        Span::styled(
            if settled > 0 {
                format!(" · {settled} stay")
            } else {
                String::new()
            },
            theme.muted,
        ),
    ]));
    let mut gains = vec![Span::styled("E(s): ", theme.muted)];
    for &(size, gain) in &step.gains {
        let text = format!("{size}:{gain:.2} ");
        let style = if size as usize == step.size {
            theme.accent
        } else {
            theme.muted
        };
        gains.push(Span::styled(text, style));
    }
    lines.push(Line::from(gains));
    lines
}

/// What a tree node's label tells of its belief: by the node's bytes in the current best, its
/// value and heat, or that it stays (built per frame from the step's unit spans).
pub fn node_beliefs(
    step: &BeliefStep,
) -> std::collections::HashMap<std::ops::Range<usize>, (String, f32)> {
    let heats = heats(step);
    step.spans
        .iter()
        .enumerate()
        .filter(|(i, _)| *i < step.values.len())
        .map(|(i, span)| {
            let label = match (step.settled[i], step.model) {
                (true, _) => " [stays]".to_string(),
                (false, BeliefModel::ProbDd) => format!(" [p {:.2}]", step.values[i]),
                (false, BeliefModel::Cdd) => format!(" [r {}]", step.values[i]),
            };
            (span.clone(), (label, heats[i]))
        })
        .collect()
}

/// The style of a belief label of heat `heat`.
pub fn heat_style(heat: f32, theme: &Theme) -> Style {
    if theme.monochrome {
        theme.muted
    } else {
        Style::default().fg(heat_colour(heat))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_wide_strip_takes_the_hottest_cell_of_each_column() {
        let step = BeliefStep {
            model: BeliefModel::Cdd,
            step: 0,
            len: 4,
            values: vec![0.0, 2.0, 1.0, 0.0],
            settled: vec![false, true, false, false],
            chosen: vec![true, false, false, false],
            size: 1,
            gain: 0.6,
            gains: vec![(1, 0.6)],
            spans: vec![0..2, 2..4, 4..6, 6..8],
        };
        let two = columns(&step, 2);
        assert_eq!(two, [(1.0, false, true), (0.5, false, false)]);
        assert_eq!(columns(&step, 80).len(), 4);
        let nodes = node_beliefs(&step);
        assert_eq!(nodes[&(0..2)], (" [r 0]".to_string(), 0.0));
        assert_eq!(nodes[&(2..4)].0, " [stays]");
    }
}
