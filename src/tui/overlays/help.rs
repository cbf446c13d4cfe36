//! The help window: every key, the notation of the steps and outcomes, and where the result is.

use ratatui::Frame;
use ratatui::text::{Line, Span, Text};
use ratatui::widgets::{Clear, Paragraph};

use crate::tui::panes::View;
use crate::tui::widgets::{block, centered, overlay_area};

/// Every key of a live run, for the help window.
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
    ("z", "undo the last kept manual edit or restart"),
    ("a", "switch the algorithm / pipeline (choose or type one)"),
    ("+ / -", "split factor ν up / down (next granularity step)"),
    ("J / j", "more / fewer jobs (next testing window)"),
    (
        "s",
        "skip the stage running (a schedule goes on with the next)",
    ),
    ("d", "diff view: the previous best against the current one"),
    ("f", "follow the candidate under test again"),
    ("u", "tree pane: parse tree / lines"),
    ("[ / ]", "narrower / wider tree pane"),
    ("Tab / S-Tab", "next / previous pane"),
    (
        "1 … 7",
        "small screens: the tab below (steps, stats, stages, …)",
    ),
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
    (
        "Enter",
        "files (several files): show that file; p r h a R z apply to it",
    ),
    (
        "",
        "while the run goes on the panes follow the file being reduced and",
    ),
    (
        "",
        "show the one picked once it is done (a removed file cannot be shown)",
    ),
    (
        "mouse",
        "click to focus and select (a file's row shows it), wheel to scroll",
    ),
    ("?", "this help"),
    ("q", "quit (the best result is already on disk)"),
];

/// The keys of a replay.
pub const REPLAY_KEYS: &[(&str, &str)] = &[
    ("n / →", "next step: the next candidate judged"),
    ("b / ←", "step back"),
    ("space", "play / pause"),
    ("+ / -", "play faster / slower"),
    ("g", "go to a step (type its number, Enter)"),
    ("Home / End", "the first / the last step"),
    ("d", "diff view: the previous best against the current one"),
    ("f", "follow the candidate again"),
    ("u", "tree pane: parse tree / lines"),
    ("Tab / S-Tab", "next / previous pane"),
    ("1 … 7", "small screens: the tab below"),
    ("Enter", "history: view the selected entry (Esc: back)"),
    ("?", "this help"),
    ("q", "quit"),
];

/// Draws the help window; `scroll` lines of it are scrolled away.
/// What the symbols on screen mean, for the help window (the README's glossary says the same).
pub const NOTATION: &[(&str, &str)] = &[
    (
        "✗",
        "interesting: the test still fails (the papers' ✗); kept",
    ),
    (
        "✓",
        "not interesting: the test passes, the problem is gone; dropped",
    ),
    (
        "?",
        "unresolved: the test timed out or crashed, or was skipped",
    ),
    ("Δ3/8", "ddmin: keep only chunk 3 of 8 (a subset)"),
    ("∇3/8", "ddmin: remove chunk 3 of 8 (its complement)"),
    ("∇∪/8", "GreeDDy: remove several chunks of 8 at once"),
    ("−2@124", "sweep: remove 2 units, from unit 124 on"),
    (
        "−3 f",
        "several files: remove the 3 files no file in use names now",
    ),
    (
        "−12 //",
        "tree sweeps: remove all 12 comments at once (one test, first)",
    ),
    (
        "−5 \"\"",
        "tree sweeps: empty all 5 docstrings at once (one test, next)",
    ),
    (
        "χ7:12",
        "hoist: the node at line 7, column 12 becomes a descendant",
    ),
    (
        "ρ6:11",
        "replace: the node at line 6, column 11 becomes shorter text",
    ),
    (
        "λ / σ",
        "lift (to a descendant of another kind) / reshape (short form)",
    ),
    (
        "∅9:5",
        "remove every node of the tree set at line 9, column 5",
    ),
    (
        "edit 2/81",
        "a text stage's edit 2 of 81 (rename, tokens, brackets, …)",
    ),
    ("ν", "the split factor: ddmin first cuts into ν chunks"),
    (
        "Φ",
        "a node's minimal replacement (the grammar's): what stays",
    ),
    (
        "TMIN^χ",
        "hoisting's result: no node can become a descendant",
    ),
    (
        "[test]",
        "tree: the candidate removes this node (→ Φ: what stays)",
    ),
    ("[part]", "tree: the candidate removes a part of this node"),
    (
        "[replaced]",
        "tree: a hoist replaces this node ([replaces it]: by this)",
    ),
    (
        "[hoisted here]",
        "tree: a kept hoist put this node in the place of another",
    ),
    (
        "[fixed]",
        "tree: the grammar needs this node; never removed alone",
    ),
];

pub fn draw(view: &View, scroll: usize, frame: &mut Frame) {
    let theme = view.theme;
    let keys = if view.replay.is_some() {
        REPLAY_KEYS
    } else {
        KEYS
    };
    let mut lines: Vec<Line> = keys
        .iter()
        .map(|(key, what)| {
            Line::from(vec![
                Span::styled(format!(" {key:<15}"), theme.accent),
                Span::styled(what.to_string(), theme.base),
            ])
        })
        .collect();
    lines.push(Line::styled(" Notation", theme.accent));
    lines.extend(NOTATION.iter().map(|(symbol, meaning)| {
        Line::from(vec![
            Span::styled(format!(" {symbol:<15}"), theme.accent),
            Span::styled(meaning.to_string(), theme.base),
        ])
    }));
    lines.push(Line::styled(
        match (&view.snapshot.output, view.replay) {
            (_, Some(_)) => " a replay shows a recorded run: nothing is tested".to_string(),
            (Some(path), None) => {
                format!(" the best result so far is always in {}", path.display())
            }
            (None, None) => " this run writes no file".to_string(),
        },
        theme.muted,
    ));
    let area = centered(overlay_area(frame.area()), 88, lines.len() as u16 + 2);
    let room = area.height.saturating_sub(2) as usize;
    let scroll = scroll.min(lines.len().saturating_sub(room));
    let title = if lines.len() > room {
        " Keys · ↑ ↓ scroll · Esc closes "
    } else {
        " Keys · Esc closes "
    };
    frame.render_widget(Clear, area);
    frame.render_widget(
        Paragraph::new(Text::from(lines))
            .scroll((scroll as u16, 0))
            .block(block(title, true, theme)),
        area,
    );
}
