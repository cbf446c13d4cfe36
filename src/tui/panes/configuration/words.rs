//! The current step in plain words, for whoever does not read Δ and ∇: what the candidate
//! does (a removal, a hoist, a text stage's edit, the least likely units) and what its outcome
//! means.

use super::*;

/// `1 line`, `3 lines`.
pub(super) fn count_of(count: usize, units: &str) -> String {
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
pub(super) fn change_in_words(view: &View, current: &CandidateView) -> (String, bool) {
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
        CandidateKind::Unused => (
            format!(
                "removing {} that no file in use names any more",
                count_of(candidate.n as usize, "files")
            ),
            true,
        ),
        CandidateKind::Comments => (
            format!(
                "removing all {} at once",
                count_of(candidate.n as usize, "comments")
            ),
            true,
        ),
        CandidateKind::Docstrings => (
            format!(
                "emptying all {} at once",
                count_of(candidate.n as usize, "docstrings")
            ),
            true,
        ),
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
pub(super) fn hoist_in_words(view: &View, current: &CandidateView) -> String {
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
pub(super) fn least_likely_in_words(view: &View, current: &CandidateView, units: &str) -> String {
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
pub(super) fn edit_in_words(view: &View, current: &CandidateView, at: &str) -> (String, bool) {
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
pub(super) fn outcome_in_words(
    view: &View,
    current: &CandidateView,
    removal: bool,
) -> &'static str {
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
