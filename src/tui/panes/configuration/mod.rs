//! The Configuration pane: where the run is (stage, fixed-point pass, tree set, ddmin round),
//! the partition of the round with the outcome of each Δi and ∇i, the candidate under test,
//! how far the round got and a bound on what is left, and the definition's branch taken.
//! When the pane is short, the least important lines give way first.

use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::Paragraph;

use super::View;
use crate::tui::model::{CandidateView, ConfigView, Decision, Round, TreeSet};
use crate::tui::widgets::{block, clock_time, human_bytes, partition_strip};
use whittle_core::observe::events::{Branch, CandidateKind, TreePhase};
use whittle_core::outcome::Outcome;
use whittle_core::text::describe::{ellipsize, ellipsize_path};

mod words;
use words::*;

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

/// TMIN^χ's rule, for hoisting phases.
const HOIST_RULES: &[(Branch, &str, &str)] = &[
    (
        Branch::Hoist,
        "hoist",
        "a node's χ ✗ → it takes the node's place",
    ),
    (
        Branch::Done,
        "1-maximal",
        "no χ of any node ✗: the set is done",
    ),
];

pub fn outcome_word(outcome: Outcome) -> &'static str {
    match outcome {
        Outcome::Interesting => "interesting",
        Outcome::NotInteresting => "not interesting",
        Outcome::Unresolved => "unresolved",
    }
}

/// Lines that stay or go together, with how much they matter (0 most).
struct Section {
    priority: u8,
    lines: Vec<Line<'static>>,
}

/// What ddmin's units are in a stage (`ddmin line` works on lines).
fn unit_word(stage: &str, tree: bool) -> &'static str {
    if tree {
        return "nodes";
    }
    match stage.rsplit(' ').next() {
        Some("line") => "lines",
        Some("char") => "chars",
        Some("token") => "tokens",
        _ => "units",
    }
}

/// Candidates ddmin judges at most from this round on if nothing more is interesting: the rest
/// of the round, then a round at every finer granularity up to one unit per chunk.
pub fn worst_case_left(round: &Round) -> usize {
    let per_chunk = if round.n == 0 {
        0
    } else {
        round.candidates.div_ceil(round.n)
    };
    let mut left = round.candidates.saturating_sub(round.judged);
    let mut n = round.n;
    while n < round.len {
        let next = round.nu.grow(n, round.len);
        if next <= n {
            break;
        }
        n = next;
        left += per_chunk * n;
    }
    left
}

pub fn draw(view: &View, frame: &mut Frame, area: Rect) {
    let width = area.width.saturating_sub(2) as usize;
    let height = area.height.saturating_sub(2) as usize;
    let mut sections = sections(view, width);
    // Drop the least important sections until the rest fits.
    loop {
        let total: usize = sections.iter().map(|s| s.lines.len()).sum();
        if total <= height {
            break;
        }
        let Some(worst) = sections
            .iter()
            .enumerate()
            .max_by_key(|(index, section)| (section.priority, *index))
            .map(|(index, _)| index)
        else {
            break;
        };
        if sections[worst].priority == 0 {
            break;
        }
        sections.remove(worst);
    }
    let lines: Vec<Line> = sections.into_iter().flat_map(|s| s.lines).collect();
    frame.render_widget(
        Paragraph::new(lines).block(block(
            " Configuration ",
            view.focus == super::Pane::Configuration,
            view.theme,
        )),
        area,
    );
}

/// The pane's sections, in the order they are drawn.
fn sections(view: &View, width: usize) -> Vec<Section> {
    if shown_stage(view).is_empty()
        && let Some(lines) = done_case_file(view, width)
    {
        return vec![Section::new(0, lines)];
    }
    let shown = &view.run.view;
    // Phases other than pruning run no ddmin: no partition, no ddmin formula.
    let phase = shown.tree_set.as_ref().map(|set| set.phase);
    let hoisting = phase.is_some_and(|phase| phase != TreePhase::Prune);
    let mut sections = Vec::new();
    place_sections(view, width, hoisting, &mut sections);
    candidate_sections(view, width, &mut sections);
    if let Some(round) = shown.round.as_ref().filter(|r| !hoisting && r.len >= 2) {
        sections.push(Section::new(3, vec![progress_line(view, round, width)]));
    }
    rule_sections(view, width, phase, &mut sections);
    sections
}

impl Section {
    fn new(priority: u8, lines: Vec<Line<'static>>) -> Section {
        Section { priority, lines }
    }
}

/// The stage the pane shows: the one of the round shown, else the snapshot's.
fn shown_stage<'a>(view: &'a View<'_>) -> &'a str {
    let shown = &view.run.view;
    if shown.stage.is_empty() {
        view.snapshot.stage.as_str()
    } else {
        shown.stage.as_str()
    }
}

/// Where the run is: the stage and its fixed-point pass, the tree set, the ddmin round with its
/// partition, and the testing window.
fn place_sections(view: &View, width: usize, hoisting: bool, sections: &mut Vec<Section>) {
    let theme = view.theme;
    let snapshot = view.snapshot;
    let shown = &view.run.view;
    let stage = shown_stage(view);
    let stage_count = snapshot.stage_count.max(1);
    let pass = if shown.pass > 0 {
        format!(" · pass {}", shown.pass)
    } else {
        String::new()
    };
    let stage_line = Line::from(vec![
        Span::styled(
            if stage.is_empty() {
                "(not started)".to_string()
            } else {
                stage.to_owned()
            },
            theme.title,
        ),
        Span::styled(
            ellipsize(
                &format!("{}{pass}", stage_place(shown, stage_count)),
                width.saturating_sub(stage.len()),
            ),
            theme.muted,
        ),
    ]);
    sections.push(Section::new(0, vec![stage_line]));
    if let Some(set) = &shown.tree_set {
        sections.push(Section::new(2, tree_set_lines(view, set, width)));
        if matches!(set.phase, TreePhase::Prune | TreePhase::Hoist) {
            // The first to go when the pane is short.
            sections.push(Section::new(6, tree_set_kinds(view, set, width)));
        }
    }
    let nu = snapshot.split_factor;
    match (&shown.round, hoisting) {
        (Some(round), false) => {
            let units = unit_word(stage, shown.tree_set.is_some());
            sections.push(Section::new(1, vec![round_line(view, round, units, width)]));
            sections.push(Section::new(1, partition_lines(view, round, width)));
        }
        (None, false) if shown.beliefs.is_some() => {
            if let Some(beliefs) = &shown.beliefs {
                let units = unit_word(stage, shown.tree_set.is_some());
                sections.push(Section::new(
                    1,
                    super::beliefs::belief_lines(beliefs, units, width, theme),
                ));
            }
        }
        (None, false) if shown.tree_set.is_none() => sections.push(Section::new(
            1,
            vec![Line::from(vec![
                Span::styled("no ddmin round yet · ", theme.muted),
                Span::styled(format!("ν = {nu}"), theme.accent),
            ])],
        )),
        _ => {}
    }
    let jobs = format!(
        "jobs {} · {}",
        snapshot.jobs,
        format!("{:?}", snapshot.parallel).to_lowercase()
    );
    sections.push(Section::new(5, vec![Line::styled(jobs, theme.muted)]));
}

/// A case of several files that is done, showing a file none of whose stages ran since it was
/// shown: its pipeline, done, and how to show another.
fn done_case_file(view: &View, width: usize) -> Option<Vec<Line<'static>>> {
    let snapshot = view.snapshot;
    let case = snapshot.case.as_ref()?;
    if snapshot.state != whittle_core::engine::session::RunState::Done {
        return None;
    }
    let path = &case.files.get(case.current?)?.path;
    let theme = view.theme;
    Some(vec![
        Line::from(vec![
            Span::styled(ellipsize(&snapshot.pipeline, width), theme.title),
            Span::styled(
                ellipsize(" · done", width.saturating_sub(snapshot.pipeline.len())),
                theme.muted,
            ),
        ]),
        Line::styled(
            ellipsize(
                &format!(
                    "the pipeline of {}",
                    ellipsize_path(path, width.saturating_sub(16))
                ),
                width,
            ),
            theme.muted,
        ),
        Line::styled(
            ellipsize("Files: ⏎ or a click shows another file", width),
            theme.muted,
        ),
    ])
}

/// The ddmin round: its number, the granularity n of the length in `units`, and ν (shorter
/// words when the pane is narrow).
fn round_line(view: &View, round: &Round, units: &str, width: usize) -> Line<'static> {
    let theme = view.theme;
    let nu = view.snapshot.split_factor;
    let long = format!(
        "ddmin round {} · n = {} of {} {units} · ν = {nu}",
        round.round, round.n, round.len
    );
    let (title, of) = if long.chars().count() <= width {
        (
            format!("ddmin round {} · ", round.round),
            format!(" of {} {units} · ", round.len),
        )
    } else {
        (
            format!("round {} · ", round.round),
            format!(" of {} · ", round.len),
        )
    };
    Line::from(vec![
        Span::styled(title, theme.muted),
        Span::styled(format!("n = {}", round.n), theme.accent),
        Span::styled(of, theme.muted),
        Span::styled(format!("ν = {nu}"), theme.accent),
    ])
}

/// The candidate under test (or the last one judged): its name, what it does, its verdict and
/// the step in plain words.
fn candidate_sections(view: &View, width: usize, sections: &mut Vec<Section>) {
    let theme = view.theme;
    let Some(current) = &view.run.current else {
        sections.push(Section::new(
            0,
            vec![Line::styled("no candidate yet", theme.muted)],
        ));
        return;
    };
    let step = format!("step {} ", current.step);
    let content = view
        .run
        .current_preview()
        .filter(|p| p.chars().count() <= 16 && !p.contains('\n'))
        .map(|p| format!(" “{p}”"))
        .unwrap_or_else(|| format!(" · {}", human_bytes(current.size)));
    let name = view.describe(current, width.saturating_sub(step.chars().count()));
    // The size or content only when the name leaves room for it.
    let room = width.saturating_sub(step.chars().count() + name.chars().count());
    let content = if content.chars().count() <= room {
        content
    } else {
        String::new()
    };
    let mut lines = vec![Line::from(vec![
        Span::styled(step, theme.muted),
        Span::styled(name, theme.accent),
        Span::styled(content, theme.base),
    ])];
    for what in view.what_it_does(current, width.saturating_sub(2)) {
        lines.push(Line::styled(format!("  {what}"), theme.base));
    }
    sections.push(Section::new(0, lines));
    let verdict = match current.verdict {
        None => Line::styled("  testing…", theme.accent),
        Some((outcome, action)) => Line::from(vec![
            Span::styled(format!("  {}", outcome.symbol()), theme.outcome(outcome)),
            Span::styled(
                format!(" {} ({})", outcome_word(outcome), action.word()),
                theme.outcome(outcome),
            ),
        ]),
    };
    sections.push(Section::new(0, vec![verdict]));
    // Where room is short, ddmin's rules and the jobs line stay before it.
    sections.push(Section::new(
        5,
        wrap_words(&plain_reading(view, current), width)
            .into_iter()
            .map(|line| Line::styled(line, theme.base))
            .collect(),
    ));
}

/// The definition, with the branch taken, and the decision in words.
fn rule_sections(view: &View, width: usize, phase: Option<TreePhase>, sections: &mut Vec<Section>) {
    let theme = view.theme;
    let shown = &view.run.view;
    let hoisting = phase.is_some_and(|phase| phase != TreePhase::Prune);
    let rules = match phase {
        None | Some(TreePhase::Prune) => FORMULA,
        Some(TreePhase::Hoist) => HOIST_RULES,
        #[allow(unreachable_patterns)] // phases of other tree stages have no rule listed
        Some(_) => &[],
    };
    let trivial = shown.round.as_ref().is_some_and(|round| round.len < 2);
    let taken = shown
        .decision
        .as_ref()
        .filter(|_| !trivial)
        .map(|decision| decision.branch);
    let show_rules = width >= 50;
    let (formula, formula_shown) = formula_lines(view, rules, taken, show_rules, width);
    if (shown.round.is_some() && !trivial) || hoisting {
        sections.push(Section::new(4, formula));
    }
    match (&shown.decision, taken) {
        (Some(decision), Some(_)) if formula_shown && show_rules => sections.push(Section::new(
            2,
            vec![Line::styled(
                format!(
                    "  {}",
                    decision_detail(view, decision, width.saturating_sub(2))
                ),
                theme.accent,
            )],
        )),
        (Some(decision), _) if !formula_shown && !trivial => sections.push(Section::new(
            2,
            vec![Line::styled(
                ellipsize(
                    &format!(
                        "▶ {} · {}",
                        decision.branch.describe(),
                        decision_detail(view, decision, width)
                    ),
                    width,
                ),
                theme.accent,
            )],
        )),
        _ => {}
    }
    if trivial && !hoisting {
        sections.push(Section::new(
            2,
            vec![Line::styled(
                "one unit: ddmin has nothing to split (no test)",
                theme.muted,
            )],
        ));
    }
}

/// The branches of `rules`, the one `taken` marked: with room (`show_rules`) each with its rule,
/// else the taken one with the detail of the decision. Also whether the taken branch is among
/// them.
fn formula_lines(
    view: &View,
    rules: &[(Branch, &str, &str)],
    taken: Option<Branch>,
    show_rules: bool,
    width: usize,
) -> (Vec<Line<'static>>, bool) {
    let theme = view.theme;
    let mut formula = Vec::new();
    let mut formula_shown = false;
    for (branch, name, rule) in rules {
        let is_taken = taken == Some(*branch);
        formula_shown |= is_taken;
        let (marker, style) = if is_taken {
            ("▶ ", theme.accent)
        } else {
            ("  ", theme.muted)
        };
        let detail = match &view.run.view.decision {
            Some(decision) if is_taken && !show_rules => {
                format!("· {}", decision_detail(view, decision, width))
            }
            _ => String::new(),
        };
        // With room, the rule beside each branch; without, the detail of the one taken.
        let name = if show_rules {
            format!("{name:<21}")
        } else {
            format!("{name} ")
        };
        let indent = 2 + name.chars().count();
        let rest = width.saturating_sub(indent);
        let rule_style = if is_taken { theme.base } else { theme.muted };
        // A rule too long for the line goes on below its start, not cut.
        let mut parts = if show_rules {
            wrap_words(rule, rest).into_iter()
        } else {
            vec![ellipsize(&detail, rest)].into_iter()
        };
        formula.push(Line::from(vec![
            Span::styled(marker, theme.accent),
            Span::styled(name, style),
            Span::styled(parts.next().unwrap_or_default(), rule_style),
        ]));
        for more in parts {
            formula.push(Line::styled(format!("{:indent$}{more}", ""), rule_style));
        }
    }
    (formula, formula_shown)
}

/// Where the stage is in the whole run: `stage 2 of 3`, or in a schedule `stage 3 of 9 ·
/// round 2` (the rounds of `(a+b+c)*`, which reruns its stages until none changes anything;
/// the third a round runs, in the order of the round).
fn stage_place(shown: &ConfigView, stage_count: usize) -> String {
    match shown.scheduled {
        Some(place) => format!(
            " · stage {} of {} · round {}",
            place.position + 1,
            place.of,
            place.round
        ),
        // A pipeline of one stage: nothing to tell.
        None if stage_count <= 1 => String::new(),
        None => format!(" · stage {} of {stage_count}", shown.stage_index + 1),
    }
}

/// `text` in lines of at most `width` columns, broken between words (a word longer than the
/// line is cut).
fn wrap_words(text: &str, width: usize) -> Vec<String> {
    let width = width.max(1);
    whittle_core::text::wrap::wrap_words(text, width)
        .into_iter()
        .map(|line| ellipsize(&line, width))
        .collect()
}

/// The tree set in words: the level or the parent, how many nodes, and the phase (wrapped:
/// nothing of it is cut).
fn tree_set_lines(view: &View, set: &TreeSet, width: usize) -> Vec<Line<'static>> {
    let theme = view.theme;
    let phase = format!("{:?}", set.phase).to_lowercase();
    let nodes = if set.nodes == 1 {
        "1 node".to_string()
    } else {
        format!("{} nodes", set.nodes)
    };
    let place = match &set.parent_span {
        Some(span) if set.recursive => {
            // The parent by its kind when the UI has the parse, else by its code.
            let parent = match view.kind_at(set.version, span) {
                Some(kind) => kind.to_string(),
                None => view
                    .best_of(set.version)
                    .and_then(|best| best.get(span.clone()))
                    .map(|text| format!("`{}`", whittle_core::text::describe::snippet(text, 18)))
                    .unwrap_or_default(),
            };
            let at = view
                .position(set.version, span.start)
                .map(|(line, column)| format!(" at {line}:{column}"))
                .unwrap_or_default();
            format!("{nodes}: children of {parent}{at}")
        }
        _ => match set.levels {
            // The tree's depth: its deepest node's (the root's is 0).
            Some(levels) => format!("level {} of depth {} · {nodes}", set.depth, levels - 1),
            None => format!("level {} · {nodes}", set.depth),
        },
    };
    let hoisted = if set.phase == TreePhase::Hoist && set.hoisted > 0 {
        format!(" · {} hoisted", set.hoisted)
    } else {
        String::new()
    };
    wrap_words(&format!("{place} · {phase}{hoisted}"), width)
        .into_iter()
        .map(|line| Line::styled(line, theme.muted))
        .collect()
}

/// The configuration of a tree set by the kinds of its nodes, runs of one kind counted:
/// `c = {function_definition ×2, declaration}` (when the UI has the parse the set was made on;
/// wrapped, nothing cut).
fn tree_set_kinds(view: &View, set: &TreeSet, width: usize) -> Vec<Line<'static>> {
    let mut runs: Vec<(&str, usize)> = Vec::new();
    for span in set.spans.iter() {
        let Some(kind) = view.kind_at(set.version, span) else {
            return Vec::new();
        };
        match runs.last_mut() {
            Some((last, count)) if *last == kind => *count += 1,
            _ => runs.push((kind, 1)),
        }
    }
    let mut named: Vec<String> = runs
        .iter()
        .map(|&(kind, count)| match count {
            1 => kind.to_string(),
            _ => format!("{kind} ×{count}"),
        })
        .collect();
    if set.nodes > set.spans.len() {
        named.push("…".into());
    }
    if named.is_empty() {
        return Vec::new();
    }
    let text = format!("c = {{{}}}", named.join(", "));
    wrap_words(&text, width)
        .into_iter()
        .map(|line| Line::styled(line, view.theme.muted))
        .collect()
}

/// How far the round got, what is left at most if nothing more is interesting, and when that
/// would be done at the rate measured.
fn progress_line(view: &View, round: &Round, width: usize) -> Line<'static> {
    let theme = view.theme;
    if view.run.view.decision.is_some() {
        return Line::styled(
            format!(
                "decided after {} of {} candidates",
                round.judged, round.candidates
            ),
            theme.muted,
        );
    }
    let left = worst_case_left(round);
    let rate = if view.running.as_secs_f64() > 0.0 {
        view.run.tests as f64 / view.running.as_secs_f64()
    } else {
        0.0
    };
    let eta = if rate > 0.0 && left > 0 {
        format!(
            " · ETA ≤ {}",
            clock_time(std::time::Duration::from_secs_f64(left as f64 / rate))
        )
    } else {
        String::new()
    };
    let judged = format!("{}/{} judged", round.judged, round.candidates);
    let rest = width.saturating_sub(judged.chars().count());
    Line::from(vec![
        Span::styled(judged, theme.accent),
        Span::styled(
            ellipsize(&format!(" · ≤ {left} more without ✗{eta}"), rest),
            theme.muted,
        ),
    ])
}

/// What a decision did: the candidate that decided it, or where the granularity goes.
fn decision_detail(view: &View, decision: &Decision, width: usize) -> String {
    match (decision.branch, decision.n) {
        (Branch::IncreaseGranularity, Some(n)) => format!("n → {n}"),
        (Branch::Done, Some(n)) => format!("1-minimal at n = {n}"),
        (_, Some(n)) => format!("n = {n}"),
        (branch, None) => {
            let Some(candidate) = decision.candidate else {
                return String::new();
            };
            let named = view
                .run
                .current
                .as_ref()
                .filter(|current| current.candidate == candidate)
                .map(|current| match &view.what_it_does(current, width)[..] {
                    [one] => one.clone(),
                    _ => view.describe(current, width.saturating_sub(2)),
                })
                .unwrap_or_else(|| candidate.describe());
            match (branch, candidate.kind) {
                (
                    Branch::ReduceToSubset | Branch::ReduceToComplement,
                    CandidateKind::Subset | CandidateKind::Complement,
                ) => format!("{named} ✗"),
                _ => named,
            }
        }
    }
}

/// The partition strip (Δ1..Δn as bars sized by their units) and the outcome rows.
fn partition_lines(view: &View, round: &Round, width: usize) -> Vec<Line<'static>> {
    let theme = view.theme;
    if round.len < 2 {
        return Vec::new();
    }
    let under_test = view.run.current.as_ref().and_then(|c| {
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

#[cfg(test)]
mod tests {
    use super::*;
    use whittle_core::params::SplitFactor;

    fn round(n: usize, len: usize, candidates: usize, judged: usize) -> Round {
        Round {
            round: 1,
            n,
            len,
            nu: SplitFactor::Finite(2),
            chunks: Vec::new(),
            candidates,
            judged,
            subset_outcomes: Vec::new(),
            complement_outcomes: Vec::new(),
        }
    }

    #[test]
    fn the_bound_counts_every_finer_round() {
        // Subsets and complements: 2 per chunk. n = 2 of 8: the rest of this round, then
        // rounds at 4 and 8 chunks.
        assert_eq!(worst_case_left(&round(2, 8, 4, 1)), 3 + 8 + 16);
        // Complements only, at the finest granularity: the rest of the round.
        assert_eq!(worst_case_left(&round(5, 5, 5, 2)), 3);
        // n = 3 of 5 doubles to 5 (capped at the length).
        assert_eq!(worst_case_left(&round(3, 5, 3, 0)), 3 + 5);
    }
}
