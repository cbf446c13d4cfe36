//! The screen: the layout of the panes (it adapts to the terminal from 100×30 up, and the tree
//! pane's width can be changed) and the drawing of each pane and overlay.

use std::time::Duration;

use ratatui::Frame;
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::style::{Modifier, Style};
use ratatui::symbols::Marker;
use ratatui::text::{Line, Span, Text};
use ratatui::widgets::{
    Axis, Block, BorderType, Borders, Chart, Clear, Dataset, GraphType, Paragraph, Wrap,
};
use tui_tree_widget::Tree as TreeWidget;

use super::app::{App, Overlay, Pane, history_first_row};
use super::model::{Ending, Round};
use super::theme::Theme;
use super::tree_pane::{line_starts, marked_style, marks_of};
use super::widgets::{ellipsize, partition_strip, text_lines};
use crate::engine::RunState;
use crate::events::{Action, Branch, CandidateKind};

/// Every key, for the help overlay and the footer.
pub const KEYS: &[(&str, &str)] = &[
    ("space", "pause / resume (leaves step mode)"),
    ("n", "one step: test one more candidate, then wait"),
    (
        "p",
        "pin / unpin the selected node or line (kept in every candidate)",
    ),
    (
        "r",
        "propose removing the selected node or line (the test decides)",
    ),
    (
        "h",
        "propose hoisting the selected node: pick the descendant",
    ),
    ("a", "switch the algorithm / pipeline"),
    ("+ / -", "split factor ν up / down (next granularity step)"),
    ("J / j", "more / fewer jobs (next testing window)"),
    ("s", "skip the current stage of the pipeline"),
    ("d", "diff view: the previous best against the current one"),
    ("f", "follow the candidate under test again"),
    ("u", "tree pane: parse tree / lines"),
    ("[ / ]", "narrower / wider tree pane"),
    ("Tab / S-Tab", "next / previous pane"),
    (
        "↑ ↓ PgUp PgDn",
        "move inside the focused pane (Home / End too)",
    ),
    ("← → Enter", "tree: close / open a node"),
    (
        "Enter",
        "history: view the selected entry (Esc: back to live)",
    ),
    ("R", "restart from the selected history entry"),
    ("mouse", "click to focus and select, wheel to scroll"),
    ("?", "this help"),
    ("q", "quit (the best result is already on disk)"),
];

fn block<'a>(title: impl Into<Line<'a>>, focused: bool, theme: &Theme) -> Block<'a> {
    Block::default()
        .borders(Borders::ALL)
        .border_type(if focused {
            BorderType::Thick
        } else {
            BorderType::Rounded
        })
        .border_style(if focused {
            theme.border_focused
        } else {
            theme.border
        })
        .title(title)
        .title_style(theme.title)
        .style(theme.base)
}

fn human_bytes(bytes: usize) -> String {
    if bytes < 10_000 {
        format!("{bytes} B")
    } else if bytes < 10_000_000 {
        format!("{:.1} KB", bytes as f64 / 1000.0)
    } else {
        format!("{:.1} MB", bytes as f64 / 1e6)
    }
}

fn percent(part: usize, whole: usize) -> String {
    if whole == 0 {
        "–".into()
    } else {
        format!("{:.1}%", 100.0 * part as f64 / whole as f64)
    }
}

fn clock_time(duration: Duration) -> String {
    let secs = duration.as_secs();
    if secs >= 3600 {
        format!("{}:{:02}:{:02}", secs / 3600, secs / 60 % 60, secs % 60)
    } else {
        format!("{}:{:02}", secs / 60, secs % 60)
    }
}

/// Where the panes go on a screen of `area`.
struct Areas {
    header: Rect,
    tree: Rect,
    text: Rect,
    config: Rect,
    stats: Rect,
    chart: Rect,
    output: Rect,
    history: Rect,
    footer: Rect,
}

fn layout(area: Rect, tree_percent: u16) -> Areas {
    let [header, body, footer] = Layout::vertical([
        Constraint::Length(1),
        Constraint::Fill(1),
        Constraint::Length(1),
    ])
    .areas(area);
    let right_width = (area.width * 30 / 100).clamp(36, 64);
    let [left, right] =
        Layout::horizontal([Constraint::Fill(1), Constraint::Length(right_width)]).areas(body);
    let config_height = if body.height >= 40 { 17 } else { 14 };
    let [config, stats] =
        Layout::vertical([Constraint::Length(config_height), Constraint::Fill(1)]).areas(right);
    let bottom_height = (body.height * 35 / 100).max(9);
    let [top, bottom] =
        Layout::vertical([Constraint::Fill(1), Constraint::Length(bottom_height)]).areas(left);
    let tree_width = (area.width as u32 * tree_percent as u32 / 100) as u16;
    let [tree, text] =
        Layout::horizontal([Constraint::Length(tree_width.max(16)), Constraint::Fill(1)])
            .areas(top);
    let [chart, output, history] = Layout::horizontal([
        Constraint::Percentage(40),
        Constraint::Percentage(30),
        Constraint::Percentage(30),
    ])
    .areas(bottom);
    Areas {
        header,
        tree,
        text,
        config,
        stats,
        chart,
        output,
        history,
        footer,
    }
}

/// Draws the whole screen.
pub fn draw(app: &mut App, frame: &mut Frame) {
    let areas = layout(frame.area(), app.tree_percent);
    app.areas.panes = vec![
        (Pane::Tree, areas.tree),
        (Pane::TestCase, areas.text),
        (Pane::Configuration, areas.config),
        (Pane::Statistics, areas.stats),
        (Pane::Chart, areas.chart),
        (Pane::Output, areas.output),
        (Pane::History, areas.history),
    ];
    draw_header(app, frame, areas.header);
    draw_tree(app, frame, areas.tree);
    draw_text(app, frame, areas.text);
    draw_configuration(app, frame, areas.config);
    draw_statistics(app, frame, areas.stats);
    draw_chart(app, frame, areas.chart);
    draw_output(app, frame, areas.output);
    draw_history(app, frame, areas.history);
    draw_footer(app, frame, areas.footer);
    match app.overlay.clone() {
        Some(Overlay::Help) => draw_help(app, frame),
        Some(Overlay::Picker { selected }) => draw_picker(app, frame, selected),
        Some(Overlay::Hoist {
            choices, selected, ..
        }) => draw_hoist(app, frame, &choices, selected),
        None => {}
    }
}

/// What the run is doing, in one phrase.
fn state_label(app: &App) -> (String, Style) {
    let theme = &app.theme;
    let snapshot = &app.snapshot;
    if let RunState::Failed(message) = &snapshot.state {
        return (format!("FAILED: {message}"), theme.warning);
    }
    match &app.run.ending {
        Some(Ending::Done) => {
            return (
                "DONE".into(),
                theme.not_interesting.add_modifier(Modifier::BOLD),
            );
        }
        Some(Ending::Stopped(reason)) => return (format!("STOPPED ({reason})"), theme.warning),
        Some(Ending::Failed(message)) => return (format!("FAILED: {message}"), theme.warning),
        None => {}
    }
    if snapshot.state == RunState::Checking && !snapshot.paused {
        return ("CHECKING THE INPUT".into(), theme.accent);
    }
    if snapshot.step_mode {
        return ("STEP MODE · n: next step · space: run".into(), theme.accent);
    }
    if snapshot.paused {
        if snapshot.parked {
            return ("PAUSED · space: resume".into(), theme.accent);
        }
        return ("PAUSING (running tests finish)".into(), theme.accent);
    }
    (
        "RUNNING".into(),
        theme.not_interesting.add_modifier(Modifier::BOLD),
    )
}

fn draw_header(app: &App, frame: &mut Frame, area: Rect) {
    let theme = &app.theme;
    let (state, state_style) = state_label(app);
    let language = app
        .snapshot
        .language
        .map(|l| format!(" ({l})"))
        .unwrap_or_default();
    let output = app
        .snapshot
        .output
        .as_ref()
        .and_then(|path| path.file_name())
        .map(|name| format!(" → {}", name.to_string_lossy()))
        .unwrap_or_default();
    let mut spans = vec![
        Span::styled(" whittle ", theme.header.add_modifier(Modifier::BOLD)),
        Span::styled(
            format!(" {}{language}{output} ", app.input_name),
            theme.header,
        ),
        Span::styled(format!(" {} ", app.snapshot.pipeline), theme.header),
        Span::styled(
            format!(" {state} "),
            state_style.patch(theme.header).add_modifier(Modifier::BOLD),
        ),
        Span::styled(format!(" step {} ", app.run.last_step), theme.header),
    ];
    if let Some(notice) = &app.run.notice {
        let style = if notice.warning {
            theme.warning
        } else {
            theme.accent
        };
        spans.push(Span::styled(
            format!(" {} ", notice.text),
            style.patch(theme.header),
        ));
    }
    frame.render_widget(Paragraph::new(Line::from(spans)).style(theme.header), area);
}

fn draw_footer(app: &App, frame: &mut Frame, area: Rect) {
    let theme = &app.theme;
    let keys = [
        ("␣", "pause"),
        ("n", "step"),
        ("p", "pin"),
        ("r", "remove"),
        ("h", "hoist"),
        ("a", "algorithm"),
        ("+-", "ν"),
        ("jJ", "jobs"),
        ("s", "skip"),
        ("d", "diff"),
        ("Tab", "pane"),
        ("?", "help"),
        ("q", "quit"),
    ];
    let mut spans = Vec::new();
    for (key, what) in keys {
        spans.push(Span::styled(format!(" {key}"), theme.accent));
        spans.push(Span::styled(format!(" {what}"), theme.muted));
    }
    spans.push(Span::raw(" "));
    if let Some(path) = &app.snapshot.output {
        spans.push(Span::styled(
            format!("│ output: {}", path.display()),
            theme.muted,
        ));
    }
    frame.render_widget(Paragraph::new(Line::from(spans)).style(theme.base), area);
}

/// Byte ranges the current candidate removes (sorted), clamped to the best.
fn removed_ranges(app: &App) -> Vec<std::ops::Range<usize>> {
    let len = app.snapshot.best.len();
    let mut ranges: Vec<_> = app
        .run
        .current
        .as_ref()
        .filter(|c| c.verdict.is_none() || app.snapshot.paused)
        .map(|c| {
            c.removed
                .iter()
                .filter(|r| r.start < len)
                .map(|r| r.start..r.end.min(len))
                .collect()
        })
        .unwrap_or_default();
    ranges.sort_by_key(|r| r.start);
    ranges
}

fn draw_tree(app: &mut App, frame: &mut Frame, area: Rect) {
    let focused = app.focus == Pane::Tree;
    let removed = removed_ranges(app);
    let theme = app.theme.clone();
    let follow = if app.tree.follow { " · follow" } else { "" };
    if let Some(tree) = app.tree.tree().cloned() {
        let stale = if app.tree.tree_version() != app.snapshot.version {
            " · …"
        } else {
            ""
        };
        let title = format!(" Tree {}{follow}{stale} ", tree.len());
        let items = app.tree.items(&theme, &app.snapshot.pins, &removed);
        match TreeWidget::new(&items) {
            Ok(widget) => {
                let widget = widget
                    .block(block(title, focused, &theme))
                    .highlight_style(theme.selection.add_modifier(Modifier::BOLD))
                    .highlight_symbol(">")
                    .node_closed_symbol("▸ ")
                    .node_open_symbol("▾ ")
                    .node_no_children_symbol("  ");
                frame.render_stateful_widget(widget, area, &mut app.tree.state);
            }
            Err(error) => frame.render_widget(
                Paragraph::new(error.to_string()).block(block(title, focused, &theme)),
                area,
            ),
        }
        return;
    }
    // Lines as units.
    let best = app.snapshot.best.clone();
    let starts = app.line_index.clone();
    let height = area.height.saturating_sub(2) as usize;
    let cursor = app.tree.line_cursor.min(starts.len().saturating_sub(1));
    app.tree.line_cursor = cursor;
    if cursor < app.tree.line_offset {
        app.tree.line_offset = cursor;
    } else if height > 0 && cursor >= app.tree.line_offset + height {
        app.tree.line_offset = cursor + 1 - height;
    }
    let number_width = starts.len().to_string().len();
    let mut lines = Vec::new();
    for (index, &start) in starts
        .iter()
        .enumerate()
        .skip(app.tree.line_offset)
        .take(height)
    {
        let end = starts.get(index + 1).copied().unwrap_or(best.len());
        let marks = marks_of(&(start..end), &app.snapshot.pins, &removed);
        let text = String::from_utf8_lossy(&best[start..end]);
        let text = text.trim_end_matches('\n').replace('\t', "    ");
        let mut style = marked_style(theme.base, marks, &theme);
        if index == cursor {
            style = style.patch(theme.selection);
        }
        let mut spans = vec![Span::styled(
            format!("{:>number_width$} ", index + 1),
            theme.muted,
        )];
        spans.push(Span::styled(
            if marks.pinned {
                "⚑"
            } else if marks.removed {
                "✂"
            } else {
                " "
            },
            if marks.pinned {
                theme.pinned
            } else {
                theme.accent
            },
        ));
        spans.push(Span::styled(format!(" {text}"), style));
        lines.push(Line::from(spans));
    }
    let title = format!(" Lines · {}{follow} ", starts.len());
    frame.render_widget(
        Paragraph::new(lines).block(block(title, focused, &theme)),
        area,
    );
}

/// Which chunk of the current round each line of the best belongs to, when the round's units
/// are the best's lines (a line pass without pins).
fn line_chunks(app: &App, line_count: usize) -> Option<Vec<usize>> {
    let round = app.run.round.as_ref()?;
    if !app.run.stage.contains("line") || !app.snapshot.pins.is_empty() || round.chunks.is_empty() {
        return None;
    }
    let total: u32 = round.chunks.iter().sum();
    if total as usize != line_count || round.len != line_count {
        return None;
    }
    let mut owners = Vec::with_capacity(line_count);
    for (chunk, &count) in round.chunks.iter().enumerate() {
        owners.extend(std::iter::repeat_n(chunk, count as usize));
    }
    Some(owners)
}

fn draw_text(app: &mut App, frame: &mut Frame, area: Rect) {
    let focused = app.focus == Pane::TestCase;
    let theme = app.theme.clone();
    let height = area.height.saturating_sub(2) as usize;
    if app.diff {
        draw_diff(app, frame, area, focused, height);
        return;
    }
    let (text, version, title) = match &app.viewing {
        Some((index, text)) => (
            text.clone(),
            u64::MAX - *index as u64,
            format!(
                " Test case · history #{index} · {} · Esc: back to live ",
                human_bytes(text.len())
            ),
        ),
        None => (
            app.snapshot.best.clone(),
            app.snapshot.version,
            format!(
                " Test case {} · {} lines · v{} ",
                human_bytes(app.snapshot.best.len()),
                app.best_measures.1.lines,
                app.snapshot.version
            ),
        ),
    };
    let live = app.viewing.is_none();
    let removed = if live {
        removed_ranges(app)
    } else {
        Vec::new()
    };
    let pins = if live {
        app.snapshot.pins.clone()
    } else {
        Vec::new()
    };
    let starts = if live {
        app.line_index.clone()
    } else {
        std::sync::Arc::new(line_starts(&text))
    };
    // Follow the candidate: its first removed line a third of the way down.
    if app.text_follow
        && let Some(first) = removed.first()
    {
        let line = starts
            .partition_point(|&start| start <= first.start)
            .saturating_sub(1);
        if line < app.text_scroll || line >= app.text_scroll + height.max(1) {
            app.text_scroll = line.saturating_sub(height / 3);
        }
    }
    app.text_scroll = app.text_scroll.min(starts.len().saturating_sub(1));
    let chunks = if live {
        line_chunks(app, starts.len())
    } else {
        None
    };
    let under_test = app.run.current.as_ref().and_then(|c| {
        matches!(
            c.candidate.kind,
            CandidateKind::Subset | CandidateKind::Complement
        )
        .then_some(c.candidate.index as usize)
    });
    let highlighted = if live {
        app.highlight.lines(version, &text)
    } else {
        None
    };
    let lines = text_lines(
        &text,
        &starts,
        app.text_scroll,
        height,
        highlighted,
        &removed,
        &pins,
        chunks.as_deref(),
        under_test,
        &theme,
    );
    frame.render_widget(
        Paragraph::new(lines).block(block(title, focused, &theme)),
        area,
    );
}

fn draw_diff(app: &mut App, frame: &mut Frame, area: Rect, focused: bool, height: usize) {
    app.update_diff();
    let theme = &app.theme;
    let (title, lines): (String, Vec<Line>) = match &app.diff_cache {
        None => (
            " Diff · no earlier best yet · d: back ".to_string(),
            vec![Line::styled("the best has not changed yet", theme.muted)],
        ),
        Some(diff) => {
            if app.text_follow {
                app.text_scroll = diff.first_change.saturating_sub(height / 3);
            }
            app.text_scroll = app.text_scroll.min(diff.lines.len().saturating_sub(1));
            let lines = diff
                .lines
                .iter()
                .skip(app.text_scroll)
                .take(height)
                .map(|(tag, text)| {
                    let (sign, style) = match tag {
                        similar::ChangeTag::Delete => ("-", theme.interesting),
                        similar::ChangeTag::Insert => ("+", theme.not_interesting),
                        similar::ChangeTag::Equal => (" ", theme.muted),
                    };
                    Line::styled(format!("{sign} {text}"), style)
                })
                .collect();
            (
                format!(" Diff · version {} → {} · d: back ", diff.from, diff.to),
                lines,
            )
        }
    };
    frame.render_widget(
        Paragraph::new(lines).block(block(title, focused, theme)),
        area,
    );
}

fn outcome_word(outcome: crate::outcome::Outcome) -> &'static str {
    match outcome {
        crate::outcome::Outcome::Interesting => "interesting",
        crate::outcome::Outcome::NotInteresting => "not interesting",
        crate::outcome::Outcome::Unresolved => "unresolved",
    }
}

fn action_word(action: Action) -> &'static str {
    match action {
        Action::Test => "test",
        Action::Cache => "cache",
        Action::Guard => "guard",
    }
}

/// The formula of ddmin's branches, with the one taken marked.
const FORMULA: &[(Branch, &str, &str)] = &[
    (
        Branch::ReduceToSubset,
        "reduce to subset",
        "Δi ✗ → ddmin(Δi, 2)",
    ),
    (
        Branch::ReduceToComplement,
        "reduce to complement",
        "∇i ✗ → ddmin(∇i, max(n−1, 2))",
    ),
    (
        Branch::IncreaseGranularity,
        "increase granularity",
        "n < |c| → ddmin(c, min(|c|, ν·n))",
    ),
    (Branch::Done, "done", "n = |c|: c is 1-minimal"),
];

fn draw_configuration(app: &App, frame: &mut Frame, area: Rect) {
    let theme = &app.theme;
    let snapshot = &app.snapshot;
    let inner_width = area.width.saturating_sub(2) as usize;
    let mut lines = Vec::new();
    let stage = if app.run.stage.is_empty() {
        snapshot.stage.clone()
    } else {
        app.run.stage.clone()
    };
    let stage_count = snapshot.stage_count.max(1);
    lines.push(Line::from(vec![
        Span::styled(
            if stage.is_empty() {
                "(not started)".to_string()
            } else {
                stage
            },
            theme.title,
        ),
        Span::styled(
            format!(
                " · stage {}/{stage_count} · iter {}",
                app.run.stage_index + 1,
                app.run.fixpoint_iteration
            ),
            theme.muted,
        ),
    ]));
    let nu = snapshot.split_factor;
    let parallel = format!("{:?}", snapshot.parallel).to_lowercase();
    match &app.run.round {
        Some(round) => {
            lines.push(Line::from(vec![
                Span::styled(format!("round {} · ", round.iteration), theme.muted),
                Span::styled(format!("n = {}", round.n), theme.accent),
                Span::styled(format!(" of {} · ", round.len), theme.muted),
                Span::styled(format!("ν = {nu}"), theme.accent),
            ]));
        }
        None => lines.push(Line::from(vec![
            Span::styled("no ddmin round yet · ", theme.muted),
            Span::styled(format!("ν = {nu}"), theme.accent),
        ])),
    }
    let level = match &app.run.tree_level {
        None => "level –".to_string(),
        Some(level) => {
            let phase = match level.phase {
                crate::events::TreePhase::Prune => "prune",
                crate::events::TreePhase::Hoist => "hoist",
                crate::events::TreePhase::Replace => "replace",
                crate::events::TreePhase::Lift => "lift",
                crate::events::TreePhase::Reshape => "reshape",
                crate::events::TreePhase::Rewrite => "rewrite",
            };
            match level.parent {
                None => format!("level {} · {} nodes · {phase}", level.depth, level.nodes),
                Some(parent) => format!(
                    "depth {} · {} children of node {parent} · {phase}",
                    level.depth, level.nodes
                ),
            }
        }
    };
    lines.push(Line::styled(
        format!("jobs {} · {parallel} · {level}", snapshot.jobs),
        theme.muted,
    ));
    if let Some(round) = &app.run.round {
        lines.extend(partition_lines(app, round, inner_width));
    }
    // The candidate under test (or the last one judged).
    match &app.run.current {
        Some(current) => {
            let name = current.candidate.describe();
            let content = app
                .run
                .current_preview()
                .filter(|p| p.chars().count() <= 16 && !p.contains('\n'))
                .map(|p| format!(" “{p}”"))
                .unwrap_or_else(|| format!(" {}", human_bytes(current.size)));
            lines.push(Line::from(vec![
                Span::styled(format!("step {} ", current.step), theme.muted),
                Span::styled(name, theme.accent),
                Span::styled(content, theme.base),
            ]));
            lines.push(match current.verdict {
                None => Line::styled("  testing…", theme.accent),
                Some((outcome, action)) => Line::from(vec![
                    Span::styled(format!("  {}", outcome.symbol()), theme.outcome(outcome)),
                    Span::styled(
                        format!(" {} ({})", outcome_word(outcome), action_word(action)),
                        theme.outcome(outcome),
                    ),
                ]),
            });
        }
        None => lines.push(Line::styled("no candidate yet", theme.muted)),
    }
    // The formula, with the branch taken.
    let taken = app.run.branch.as_ref().map(|(branch, _)| *branch);
    let mut formula_shown = false;
    let show_rules = inner_width >= 54;
    for (branch, name, rule) in FORMULA {
        let is_taken = taken == Some(*branch);
        formula_shown |= is_taken;
        let (marker, style) = if is_taken {
            ("▶ ", theme.accent)
        } else {
            ("  ", theme.muted)
        };
        let detail = match &app.run.branch {
            Some((_, detail)) if is_taken && !show_rules => format!("· {detail}"),
            _ => String::new(),
        };
        lines.push(Line::from(vec![
            Span::styled(marker, theme.accent),
            Span::styled(format!("{name:<21}"), style),
            Span::styled(
                if show_rules { rule.to_string() } else { detail },
                if is_taken { theme.base } else { theme.muted },
            ),
        ]));
    }
    match &app.run.branch {
        Some((_, detail)) if formula_shown && show_rules => {
            lines.push(Line::styled(format!("  {detail}"), theme.accent));
        }
        Some((branch, detail)) if !formula_shown => {
            lines.push(Line::styled(
                format!("▶ {} · {detail}", branch.describe()),
                theme.accent,
            ));
        }
        _ => {}
    }
    frame.render_widget(
        Paragraph::new(lines).block(block(" Configuration ", false, theme)),
        area,
    );
}

/// The partition strip (Δ1..Δn as bars sized by their units) and the outcome rows.
fn partition_lines(app: &App, round: &Round, width: usize) -> Vec<Line<'static>> {
    let theme = &app.theme;
    let under_test = app.run.current.as_ref().and_then(|c| {
        (c.candidate.n as usize == round.n
            && matches!(
                c.candidate.kind,
                CandidateKind::Subset | CandidateKind::Complement
            ))
        .then_some((c.candidate.index as usize, c.candidate.kind))
    });
    if round.chunks.is_empty() {
        return vec![Line::styled(
            format!("{} chunks: too many to draw", round.n),
            theme.muted,
        )];
    }
    partition_strip(round, width.saturating_sub(3), under_test, theme)
}

fn draw_statistics(app: &App, frame: &mut Frame, area: Rect) {
    let theme = &app.theme;
    let stats = &app.snapshot.stats;
    let input = app.input_measures;
    let now_measures = app.best_measures.1;
    let now = app.clock.now();
    let elapsed = now.saturating_duration_since(app.started);
    let rate = if elapsed.as_secs_f64() > 0.0 {
        format!("{:.1}/s", stats.tests as f64 / elapsed.as_secs_f64())
    } else {
        "–/s".into()
    };
    let since = app
        .run
        .last_reduction
        .map(|at| clock_time(now.saturating_duration_since(at)))
        .unwrap_or_else(|| "–".into());
    let label = |text: &str| Span::styled(format!("{text:<9}"), theme.muted);
    let value = |text: String| Span::styled(text, theme.base);
    let size_line = |name: &str, from: usize, to: usize| {
        Line::from(vec![
            label(name),
            value(format!("{from} → {to} ")),
            Span::styled(percent(to, from), theme.accent),
        ])
    };
    let cache = &stats.cache;
    let mut lines = vec![
        size_line("bytes", input.bytes, now_measures.bytes),
        size_line("lines", input.lines, now_measures.lines),
        size_line("non-ws", input.nonws, now_measures.nonws),
        Line::from(vec![
            label("tests"),
            value(format!("{} · {rate} · ", stats.tests)),
            Span::styled(
                percent(stats.interesting_tests as usize, stats.tests as usize),
                theme.interesting,
            ),
            Span::styled(" ✗", theme.interesting),
        ]),
        Line::from(vec![
            label("checks"),
            value(format!(
                "{} · {} oracle runs",
                stats.checks, stats.oracle_runs
            )),
        ]),
        Line::from(vec![
            label("cache"),
            value(format!("{} lookups · {} hits", cache.lookups, cache.hits())),
        ]),
        Line::from(vec![
            label("hits"),
            Span::styled(format!("✗ {}  ", cache.hits_interesting), theme.interesting),
            Span::styled(format!("✓ {}  ", cache.hits_not), theme.not_interesting),
            Span::styled(format!("? {}", cache.hits_unresolved), theme.unresolved),
        ]),
        Line::from(vec![
            label("entries"),
            value(format!(
                "{} · {} · {} evicted",
                cache.entries,
                human_bytes(cache.bytes as usize),
                cache.evictions
            )),
        ]),
        Line::from(vec![
            label("skipped"),
            value(format!(
                "guard {} · timeouts {}",
                stats.guard_skips, stats.timeouts
            )),
        ]),
        Line::from(vec![
            label("parallel"),
            value(format!(
                "cancelled {} · wasted {}",
                stats.cancelled, stats.wasted
            )),
        ]),
        Line::from(vec![
            label("elapsed"),
            value(format!(
                "{} · {} accepted",
                clock_time(elapsed),
                stats.accepted
            )),
        ]),
        Line::from(vec![label("reduced"), value(format!("{since} ago"))]),
    ];
    // The most recent candidates, as the dissertation's Table 4.1 lists them.
    let room = (area.height as usize).saturating_sub(2 + lines.len() + 1);
    if room >= 2 {
        lines.push(Line::styled(
            format!(
                "{:>4} {:<7} {:<10} {:<5} out",
                "step", "cand.", "content", "how"
            ),
            theme.title,
        ));
        let shown = app.run.log.len().min(room - 1);
        for judged in app.run.log.iter().skip(app.run.log.len() - shown) {
            let content = judged
                .preview
                .as_ref()
                .map(|p| ellipsize(&p.replace('\n', "⏎"), 10))
                .unwrap_or_else(|| human_bytes(judged.size));
            lines.push(Line::from(vec![
                Span::styled(format!("{:>4} ", judged.step), theme.muted),
                Span::styled(
                    format!("{:<7} ", short_candidate(&judged.candidate)),
                    theme.accent,
                ),
                Span::styled(format!("{content:<10} "), theme.base),
                Span::styled(format!("{:<5} ", action_word(judged.action)), theme.muted),
                Span::styled(judged.outcome.symbol(), theme.outcome(judged.outcome)),
            ]));
        }
    }
    frame.render_widget(
        Paragraph::new(lines).block(block(" Statistics ", false, theme)),
        area,
    );
}

fn draw_chart(app: &App, frame: &mut Frame, area: Rect) {
    let theme = &app.theme;
    let run = &app.run;
    let tests_now = run.tests.max(1);
    let mut points: Vec<(f64, f64)> = Vec::with_capacity(run.sizes.len() * 2 + 1);
    for (i, &(tests, size)) in run.sizes.iter().enumerate() {
        if i > 0 {
            points.push((tests as f64, run.sizes[i - 1].1 as f64));
        }
        points.push((tests as f64, size as f64));
    }
    if let Some(&(_, last)) = run.sizes.last() {
        points.push((tests_now as f64, last as f64));
    }
    // Like the dissertation's Fig 5.4: from the smallest size to the largest.
    let top = run.sizes.iter().map(|(_, s)| *s).max().unwrap_or(1).max(1) as f64;
    let low = run.sizes.iter().map(|(_, s)| *s).min().unwrap_or(0) as f64;
    let bottom = (low - (top - low) * 0.05).max(0.0).floor();
    let marks: Vec<[(f64, f64); 2]> = run
        .marks
        .iter()
        .filter(|m| m.tests > 0)
        .map(|m| [(m.tests as f64, bottom), (m.tests as f64, top)])
        .collect();
    let mut datasets = Vec::new();
    for mark in &marks {
        datasets.push(
            Dataset::default()
                .marker(Marker::Braille)
                .graph_type(GraphType::Line)
                .style(theme.mark)
                .data(mark),
        );
    }
    datasets.push(
        Dataset::default()
            .marker(Marker::Braille)
            .graph_type(GraphType::Line)
            .style(theme.chart)
            .data(&points),
    );
    let title = " Size over tests · ┆ iteration/stage ";
    let chart = Chart::new(datasets)
        .block(block(title, false, theme))
        .x_axis(
            Axis::default()
                .bounds([0.0, tests_now as f64])
                .labels(vec![Span::raw("0"), Span::raw(format!("{tests_now}"))])
                .style(theme.muted),
        )
        .y_axis(
            Axis::default()
                .bounds([bottom, top])
                .labels(vec![
                    Span::raw(human_bytes(bottom as usize)),
                    Span::raw(human_bytes(top as usize)),
                ])
                .style(theme.muted),
        )
        .legend_position(None);
    frame.render_widget(chart, area);
}

fn draw_output(app: &App, frame: &mut Frame, area: Rect) {
    let theme = &app.theme;
    let focused = app.focus == Pane::Output;
    let height = area.height.saturating_sub(3) as usize;
    let (title, body) = match &app.run.last_output {
        None => (
            " Test output ".to_string(),
            vec![Line::styled(
                "no output yet (in-process tests print nothing)",
                theme.muted,
            )],
        ),
        Some((step, status, tail)) => {
            let all: Vec<&str> = tail.lines().collect();
            let end = all.len().saturating_sub(app.output_scroll.min(all.len()));
            let start = end.saturating_sub(height);
            let place = app
                .run
                .last_output_node
                .as_ref()
                .map_or_else(String::new, |node| format!(" · on {node}"));
            let mut body = vec![Line::styled(
                format!("step {step} · {status}{place}"),
                theme.accent,
            )];
            body.extend(
                all[start..end]
                    .iter()
                    .map(|l| Line::styled(l.replace('\t', "    "), theme.base)),
            );
            if all.is_empty() {
                body.push(Line::styled("(no output)", theme.muted));
            }
            (" Test output ".to_string(), body)
        }
    };
    frame.render_widget(
        Paragraph::new(body)
            .wrap(Wrap { trim: false })
            .block(block(title, focused, theme)),
        area,
    );
}

fn draw_history(app: &App, frame: &mut Frame, area: Rect) {
    let theme = &app.theme;
    let focused = app.focus == Pane::History;
    let history = &app.snapshot.history;
    let height = area.height.saturating_sub(2) as usize;
    let first = history_first_row(app.history_cursor, history.len(), height);
    let lines: Vec<Line> = history
        .iter()
        .enumerate()
        .skip(first)
        .take(height)
        .map(|(row, entry)| {
            let style = if row == app.history_cursor && focused {
                theme.selection
            } else {
                theme.base
            };
            Line::from(vec![
                Span::styled(format!("#{:<3}", entry.index), theme.muted.patch(style)),
                Span::styled(format!("{:>7} ", human_bytes(entry.size)), style),
                Span::styled(short_branch(entry.branch), style),
                Span::styled(format!(" t{}", entry.tests), theme.muted.patch(style)),
            ])
        })
        .collect();
    let title = if focused {
        format!(" History {} · ⏎ view · R restart ", history.len())
    } else {
        format!(" History {} ", history.len())
    };
    frame.render_widget(
        Paragraph::new(lines).block(block(title, focused, theme)),
        area,
    );
}

/// A candidate in at most seven columns, for the steps table: χ12 for a hoist of node 12 (the
/// papers' χ), Δ3/8 and ∇2/4 as they are.
fn short_candidate(candidate: &crate::events::Candidate) -> String {
    let text = match candidate.kind {
        CandidateKind::Hoist => format!("χ{}", candidate.index),
        CandidateKind::Replace => format!("ρ{}", candidate.index),
        CandidateKind::Lift => format!("λ{}", candidate.index),
        CandidateKind::Reshape => format!("σ{}", candidate.index),
        CandidateKind::Manual => "manual".into(),
        _ => candidate.describe(),
    };
    ellipsize(&text, 7)
}

/// A branch in few words, for narrow lists.
fn short_branch(branch: Branch) -> &'static str {
    match branch {
        Branch::ReduceToSubset => "Δ subset",
        Branch::ReduceToComplement => "∇ complement",
        Branch::ReduceGreedily => "∇ greedy",
        Branch::IncreaseGranularity => "granularity",
        Branch::Done => "done",
        Branch::Hoist => "hoist",
        Branch::Replace => "replace",
        Branch::Lift => "lift",
        Branch::Reshape => "reshape",
        Branch::EmptyConfig => "empty level",
        Branch::Manual => "manual edit",
        Branch::Start => "input",
        Branch::Restart => "restart",
    }
}

fn centered(area: Rect, width: u16, height: u16) -> Rect {
    let width = width.min(area.width);
    let height = height.min(area.height);
    Rect {
        x: area.x + (area.width - width) / 2,
        y: area.y + (area.height - height) / 2,
        width,
        height,
    }
}

fn draw_help(app: &App, frame: &mut Frame) {
    let theme = &app.theme;
    let area = centered(frame.area(), 88, KEYS.len() as u16 + 5);
    let mut lines: Vec<Line> = KEYS
        .iter()
        .map(|(key, what)| {
            Line::from(vec![
                Span::styled(format!(" {key:<15}"), theme.accent),
                Span::styled(what.to_string(), theme.base),
            ])
        })
        .collect();
    lines.push(Line::styled(
        " ✗ interesting (kept the problem) · ✓ not interesting · ? unresolved",
        theme.muted,
    ));
    lines.push(Line::styled(
        match &app.snapshot.output {
            Some(path) => format!(" the best result so far is always in {}", path.display()),
            None => " this run writes no file".to_string(),
        },
        theme.muted,
    ));
    frame.render_widget(Clear, area);
    frame.render_widget(
        Paragraph::new(Text::from(lines)).block(block(" Keys · Esc closes ", true, theme)),
        area,
    );
}

fn draw_picker(app: &App, frame: &mut Frame, selected: usize) {
    let theme = &app.theme;
    let wanted = app.catalogue.len() as u16 + 5;
    let area = centered(
        frame.area(),
        100,
        wanted.min(frame.area().height.saturating_sub(2)),
    );
    let rows = area.height.saturating_sub(5) as usize;
    let first = history_first_row(selected, app.catalogue.len(), rows);
    let name_width = app
        .catalogue
        .iter()
        .map(|p| p.name.chars().count())
        .max()
        .unwrap_or(8)
        .min(28);
    let mut lines = Vec::new();
    for (index, pipeline) in app.catalogue.iter().enumerate().skip(first).take(rows) {
        let style = if index == selected {
            theme.selection.add_modifier(Modifier::BOLD)
        } else {
            theme.base
        };
        let marker = if index == selected { "▶ " } else { "  " };
        lines.push(Line::from(vec![
            Span::styled(marker, theme.accent),
            Span::styled(format!("{:<name_width$}  ", pipeline.name), style),
            Span::styled(pipeline.description.clone(), theme.muted),
        ]));
    }
    lines.push(Line::raw(""));
    lines.push(Line::styled(
        format!("now: {}", app.snapshot.pipeline),
        theme.muted,
    ));
    lines.push(Line::styled(
        "↑ ↓ choose · Enter switches (from the current best) · Esc cancels",
        theme.muted,
    ));
    let title = format!(" Algorithm · {}/{} ", selected + 1, app.catalogue.len());
    frame.render_widget(Clear, area);
    frame.render_widget(Paragraph::new(lines).block(block(title, true, theme)), area);
}

fn draw_hoist(
    app: &App,
    frame: &mut Frame,
    choices: &[(crate::tree::NodeId, String)],
    selected: usize,
) {
    let theme = &app.theme;
    let height = (choices.len() as u16 + 3).min(frame.area().height.saturating_sub(4));
    let area = centered(frame.area(), 80, height);
    let rows = height.saturating_sub(3) as usize;
    let first = history_first_row(selected, choices.len(), rows);
    let mut lines: Vec<Line> = choices
        .iter()
        .enumerate()
        .skip(first)
        .take(rows)
        .map(|(index, (_, label))| {
            let style = if index == selected {
                theme.selection
            } else {
                theme.base
            };
            Line::styled(format!(" {label}"), style)
        })
        .collect();
    lines.push(Line::styled(
        " Enter: replace the node by this descendant (the test decides) · Esc cancels",
        theme.muted,
    ));
    frame.render_widget(Clear, area);
    frame.render_widget(
        Paragraph::new(lines).block(block(" Hoist to… ", true, theme)),
        area,
    );
}
