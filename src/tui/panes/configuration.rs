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
use whittle_core::observe::events::{Action, Branch, CandidateKind, TreePhase};
use whittle_core::outcome::Outcome;
use whittle_core::text::describe::ellipsize;

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

pub fn action_word(action: Action) -> &'static str {
    match action {
        Action::Test => "test",
        Action::Cache => "cache",
        Action::Guard => "guard",
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
                format!(" {} ({})", outcome_word(outcome), action_word(action)),
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

/// `1 line`, `3 lines`.
fn count_of(count: usize, units: &str) -> String {
    if count == 1 {
        format!("1 {}", units.strip_suffix('s').unwrap_or(units))
    } else {
        format!("{count} {units}")
    }
}

/// The current step in plain words, for whoever does not read Δ and ∇: what the candidate
/// does, and what its outcome means (✗: the test still fails, so the change is kept; ✓: the
/// test passes, so the change is put back), e.g. `removing 2 nodes at line 124: still fails →
/// kept removed`.
pub fn plain_reading(view: &View, current: &CandidateView) -> String {
    let (what, removal) = change_in_words(view, current);
    let outcome = outcome_in_words(view, current, removal);
    if outcome.is_empty() {
        what
    } else {
        format!("{what}: {outcome}")
    }
}

/// What the candidate changes, in words, and whether a kept change is a removal.
fn change_in_words(view: &View, current: &CandidateView) -> (String, bool) {
    let shown = &view.run.view;
    let units = unit_word(shown_stage(view), shown.tree_set.is_some());
    let candidate = current.candidate;
    let chunk_size = shown
        .round
        .as_ref()
        .filter(|round| round.n == candidate.n as usize)
        .and_then(|round| round.chunks.get(candidate.index as usize))
        .map(|&size| count_of(size as usize, units));
    let first = match candidate.kind {
        CandidateKind::Hoist => current.removed.first(),
        _ => current.removed.iter().find(|range| !range.is_empty()),
    };
    let at = first
        .and_then(|range| view.position(current.version, range.start))
        .map(|(line, _)| format!(" at line {line}"))
        .unwrap_or_default();
    let part = |prefix: &str| match &chunk_size {
        Some(size) => format!(
            "{prefix} {size} (part {} of {})",
            candidate.index + 1,
            candidate.n
        ),
        None => format!("{prefix} part {} of {}", candidate.index + 1, candidate.n),
    };
    match candidate.kind {
        CandidateKind::Subset => (
            format!("{}{at}, removing the rest", part("keeping only")),
            true,
        ),
        CandidateKind::Complement => (format!("{}{at}", part("removing")), true),
        CandidateKind::Combination => (format!("removing several parts at once{at}"), true),
        CandidateKind::Sweep => (
            format!("removing {}{at}", count_of(candidate.n as usize, units)),
            true,
        ),
        CandidateKind::LeastLikely => (least_likely_in_words(view, current, units), true),
        CandidateKind::EmptyConfig => (format!("removing every remaining node{at}"), true),
        CandidateKind::Hoist => (hoist_in_words(view, current), false),
        CandidateKind::Replace | CandidateKind::Reshape => {
            (format!("replacing a node{at} by a shorter text"), false)
        }
        CandidateKind::Lift => (format!("replacing a node{at} by one inside it"), false),
        CandidateKind::Edit => edit_in_words(view, current, &at),
        CandidateKind::Manual => (format!("your edit{at}"), false),
        CandidateKind::Initial => ("checking that the input fails the test".into(), false),
        CandidateKind::Empty => ("checking that an empty file passes the test".into(), false),
    }
}

/// A hoist in words: which node takes the place of which node around it, and how much shorter
/// the text gets (the text of the node replaced minus the text of the one hoisted), e.g.
/// `hoist the compound_statement at line 2 into the place of the enclosing if_statement: 9
/// bytes fewer`.
fn hoist_in_words(view: &View, current: &CandidateView) -> String {
    let (hoisted, ancestor) = match view.hoist_nodes {
        Some(nodes) => (
            format!("the {}", nodes.hoisted),
            format!("the enclosing {}", nodes.ancestor),
        ),
        None => ("a node".to_string(), "a node enclosing it".to_string()),
    };
    let [before, _] = &current.removed[..] else {
        return format!("hoisting {hoisted} into the place of {ancestor}");
    };
    let at = view
        .position(current.version, before.end)
        .map(|(line, _)| format!(" at line {line}"))
        .unwrap_or_default();
    // The candidate's size against the best it was made from: the text of the node replaced
    // minus the text of the one hoisted (and the indentation the unparser takes off).
    let fewer = view
        .best_of(current.version)
        .map(|best| {
            let fewer = best.len().saturating_sub(current.size);
            format!(": {} fewer", count_of(fewer, "bytes"))
        })
        .unwrap_or_default();
    format!("hoist {hoisted}{at} into the place of {ancestor}{fewer}")
}

/// A candidate of ProbDD's least likely units, in words (`units`: what its units are called).
fn least_likely_in_words(view: &View, current: &CandidateView, units: &str) -> String {
    let shown = &view.run.view;
    let candidate = current.candidate;
    let gain = shown
        .beliefs
        .as_ref()
        .filter(|beliefs| beliefs.size == candidate.n as usize)
        .map(|beliefs| format!(", expected gain {:.1}", beliefs.gain))
        .unwrap_or_default();
    let what = match candidate.n {
        1 => format!(
            "the least likely {}",
            units.strip_suffix('s').unwrap_or(units)
        ),
        n => format!("the {n} least likely {units}"),
    };
    format!("removing {what}{gain}")
}

/// An edit of a text stage, in words (`at`: where it is, or nothing), and whether it is a
/// removal.
fn edit_in_words(view: &View, current: &CandidateView, at: &str) -> (String, bool) {
    match (shown_stage(view), &view.what_it_does(current, 48)[..]) {
        ("unbind", _) => (
            format!("removing a name with every statement that mentions it{at}"),
            true,
        ),
        ("typedefs", _) => (
            format!("inlining a type alias into its uses and removing it{at}"),
            false,
        ),
        ("conditions", _) => (format!("replacing a statement{at} by its condition"), false),
        ("declarations", _) => (
            format!("replacing a function's body{at} by `;` (a declaration)"),
            false,
        ),
        ("spans", _) => (format!("removing a run of tokens{at}"), true),
        ("runs", _) => (
            format!("removing a run of tokens{at} that may end inside a statement"),
            true,
        ),
        ("declarators", _) => (
            format!("merging two declarations{at}, or dropping a declarator's initializer"),
            false,
        ),
        ("constructors", _) => (
            format!(
                "removing a class's constructors or parameter{at} with the arguments of every construction"
            ),
            true,
        ),
        ("templates", _) => (
            format!("removing an unused template parameter{at} with its argument at every use"),
            true,
        ),
        ("receivers", _) => (
            format!("turning a type's methods{at} into functions and removing the type"),
            true,
        ),
        ("zeros", _) => (
            format!("replacing a call{at} by the zero value of its type"),
            false,
        ),
        (_, [change]) => (format!("replacing {change}{at}"), false),
        _ => (format!("removing text{at}"), true),
    }
}

/// What the outcome of the candidate means (empty for a check's verdict, which the check's
/// own words tell); `removal`: the change is a removal.
fn outcome_in_words(view: &View, current: &CandidateView, removal: bool) -> &'static str {
    let shown = &view.run.view;
    let candidate = current.candidate;
    let outcome = match current.verdict.map(|(outcome, _)| outcome) {
        None => "testing…",
        Some(_) if candidate.is_check() => "",
        Some(Outcome::Interesting) => {
            let taken_elsewhere = shown
                .decision
                .as_ref()
                .and_then(|decision| decision.candidate)
                .is_some_and(|decided| decided != candidate);
            match (taken_elsewhere, removal) {
                (true, _) => "still fails, but another candidate was taken",
                (false, true) => "still fails → kept removed",
                (false, false) => "still fails → kept",
            }
        }
        Some(Outcome::NotInteresting) if candidate.kind == CandidateKind::LeastLikely => {
            "passes → put back, now believed more likely needed"
        }
        Some(Outcome::NotInteresting) => "passes → put back",
        Some(Outcome::Unresolved) => "no answer (timeout or error) → put back",
    };
    match (candidate.kind, current.verdict.map(|(o, _)| o)) {
        (CandidateKind::Initial, Some(Outcome::Interesting)) => "it fails, as it should",
        (CandidateKind::Empty, Some(Outcome::NotInteresting)) => "it passes, as it should",
        (CandidateKind::Initial | CandidateKind::Empty, Some(_)) => "unexpected",
        _ => outcome,
    }
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
