//! The panes of the screen, one file each with its own state: what they show is read from a
//! [`View`] of the run (snapshot, events folded into the model, the best's line index), what
//! they do with keys stays inside them or comes back as an [`Action`] for the app.

pub mod beliefs;
pub mod chart;
pub mod configuration;
pub mod course;
pub mod files;
pub mod footer;
pub mod header;
pub mod history;
pub mod output;
pub mod statistics;
pub mod test_case;
pub mod tree;

use std::ops::Range;
use std::time::{Duration, Instant};

use super::model::{CandidateView, RunModel};
use super::theme::Theme;
use whittle_core::engine::session::Snapshot;
use whittle_core::observe::events::{Candidate, CandidateKind};
use whittle_core::observe::stats::Stats;
use whittle_core::text::describe::{line_column, snippet};

/// The panes of the screen.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Pane {
    Tree,
    TestCase,
    Configuration,
    Statistics,
    /// The table of the last candidates judged (on its own in the compact layout).
    Steps,
    /// The per-stage statistics (on their own in the compact layout).
    Stages,
    Chart,
    Output,
    History,
    /// The file list of a case of several files.
    Files,
}

impl Pane {
    /// The panes that take the focus, in the order Tab moves through them: every pane of the
    /// screen; the file list (the last) only for a case of several files.
    pub const FOCUS_ORDER: [Pane; 8] = [
        Pane::Tree,
        Pane::TestCase,
        Pane::History,
        Pane::Output,
        Pane::Configuration,
        Pane::Statistics,
        Pane::Chart,
        Pane::Files,
    ];

    /// The panes Tab moves through, with the file list when there is one.
    pub fn focus_order(files: bool) -> &'static [Pane] {
        let panes = Pane::FOCUS_ORDER.len() - usize::from(!files);
        &Pane::FOCUS_ORDER[..panes]
    }

    /// The tabs of the compact layout's deck, in the order of their number keys; the file list
    /// (the last) is a tab only for a case of several files.
    const DECK_TABS: [Pane; 8] = [
        Pane::Steps,
        Pane::Statistics,
        Pane::Stages,
        Pane::Tree,
        Pane::History,
        Pane::Output,
        Pane::Chart,
        Pane::Files,
    ];

    /// The deck's tabs, with the file list when there is one.
    pub fn deck(files: bool) -> &'static [Pane] {
        let tabs = Pane::DECK_TABS.len() - usize::from(!files);
        &Pane::DECK_TABS[..tabs]
    }

    pub fn title(self) -> &'static str {
        match self {
            Pane::Tree => "Tree",
            Pane::TestCase => "Test case",
            Pane::Configuration => "Configuration",
            Pane::Statistics => "Statistics",
            Pane::Steps => "Steps",
            Pane::Stages => "Stages",
            Pane::Chart => "Chart",
            Pane::Output => "Output",
            Pane::History => "History",
            Pane::Files => "Files",
        }
    }
}

/// Sizes of a test case.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Measures {
    pub bytes: usize,
    pub lines: usize,
    pub nonws: usize,
}

impl Measures {
    pub fn of(text: &[u8]) -> Measures {
        Measures {
            bytes: text.len(),
            lines: whittle_core::text::atoms::line_count(text),
            nonws: whittle_core::text::atoms::non_whitespace_chars(text),
        }
    }
}

/// The nodes of a hoist by kind, named in the parse of the best it was made on.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct HoistNodes {
    /// The step of the candidate.
    pub step: u64,
    /// The node replaced.
    pub ancestor: String,
    /// The descendant that takes its place.
    pub hoisted: String,
}

/// A hoist that was kept, in the best it made: where the hoisted node starts now (the place of
/// the node it replaced; its length may differ, the unparser indents it anew), its kind, and
/// the kind of the node it replaced.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct HoistKept {
    pub start: usize,
    pub hoisted: String,
    pub ancestor: String,
}

/// Where a replay stands, for the header and the footer.
#[derive(Clone, Debug, PartialEq)]
pub struct ReplayStatus {
    pub position: usize,
    pub len: usize,
    pub step: u64,
    pub last_step: u64,
    /// Steps a second while playing.
    pub playing: Option<f64>,
    pub complete: bool,
    /// The trace's last line was cut (the recorded run was killed while writing it).
    pub cut: bool,
}

/// What every pane may read while it draws.
pub struct View<'a> {
    pub theme: &'a Theme,
    pub snapshot: &'a Snapshot,
    pub run: &'a RunModel,
    /// The statistics shown (the engine's, or in a replay those the events tell).
    pub stats: &'a Stats,
    /// Where the lines of the best start.
    pub lines: &'a [usize],
    pub input: Measures,
    pub best: Measures,
    pub now: Instant,
    /// The run's time without its pauses.
    pub running: Duration,
    /// What the candidate removes from the best (sorted; empty when it does not apply to the
    /// best shown).
    pub removed: &'a [Range<usize>],
    /// When the candidate is a hoist: the node's bytes and its descendant's (in the best shown).
    pub hoist: Option<(Range<usize>, Range<usize>)>,
    /// When the candidate is a hoist: its nodes by kind.
    pub hoist_nodes: Option<&'a HoistNodes>,
    /// When the candidate is a hoist that was kept: where the hoisted node is in the best shown.
    pub hoist_kept: Option<HoistKept>,
    pub focus: Pane,
    pub replay: Option<&'a ReplayStatus>,
    /// The parse tree of the best shown, when the language is known and it is parsed.
    pub tree: Option<&'a whittle_core::tree::Tree>,
    /// The bests of the last few versions the UI saw (candidates are named in the text they
    /// were made from, which may be a version behind).
    pub recent: &'a [(u64, std::sync::Arc<[u8]>)],
}

impl View<'_> {
    /// The best of `version`, when the UI saw it.
    pub fn best_of(&self, version: u64) -> Option<&[u8]> {
        if version == self.snapshot.version {
            return Some(&self.snapshot.best);
        }
        self.recent
            .iter()
            .find(|(v, _)| *v == version)
            .map(|(_, text)| &text[..])
    }

    /// The kind of the node that spans exactly `span` of the best of `version` (the outermost
    /// one), when the UI has that parse.
    pub fn kind_at(&self, version: u64, span: &Range<usize>) -> Option<&str> {
        let tree = self.tree.filter(|_| version == self.snapshot.version)?;
        tree::kind_spanning(tree, span)
    }

    /// `line:column` of byte `offset` of the best of `version`.
    pub fn position(&self, version: u64, offset: usize) -> Option<(usize, usize)> {
        self.best_of(version).map(|best| line_column(best, offset))
    }

    /// The candidate in a few words, as wide as `width`: Δ3/8 and ∇2/4 as the papers write
    /// them, tree candidates by what they are and where (`hoist at 2:5`), with, for those,
    /// what they do in a second part ([`View::what_it_does`]).
    pub fn describe(&self, candidate: &CandidateView, width: usize) -> String {
        let first = match candidate.candidate.kind {
            CandidateKind::Hoist => candidate.removed.first(),
            _ => candidate.removed.iter().find(|r| !r.is_empty()),
        };
        let at = first
            .and_then(|range| self.position(candidate.version, range.start))
            .map(|(line, column)| format!(" at {line}:{column}"))
            .unwrap_or_default();
        let described = match candidate.candidate.kind {
            CandidateKind::Hoist => format!("hoist{at}"),
            CandidateKind::Replace | CandidateKind::Lift | CandidateKind::Reshape => {
                format!("{}{at}", candidate.candidate.describe())
            }
            CandidateKind::EmptyConfig => format!("empty configuration{at}"),
            CandidateKind::Initial => "the input (a check)".into(),
            CandidateKind::Empty => "the empty file (a check)".into(),
            _ => candidate.candidate.describe(),
        };
        whittle_core::text::describe::ellipsize(&described, width)
    }

    /// What a tree candidate does, in code, in lines as wide as `width`: `` `if (1) {...}` →
    /// `printf(...);` `` for a hoist (on two lines when one would elide too much), `` remove
    /// `x = 1;` `` for the empty configuration.
    pub fn what_it_does(&self, candidate: &CandidateView, width: usize) -> Vec<String> {
        let Some(best) = self.best_of(candidate.version) else {
            return Vec::new();
        };
        let text = |range: &Range<usize>, width| {
            best.get(range.clone())
                .map(|bytes| snippet(bytes, width))
                .unwrap_or_default()
        };
        let fit = |make: &dyn Fn(usize) -> String, least: usize| {
            [48, 40, 32, 26, 20, 16, 12, 8]
                .into_iter()
                .filter(|&w| w >= least)
                .map(make)
                .find(|line| line.chars().count() <= width)
        };
        match (candidate.candidate.kind, &candidate.removed[..]) {
            (CandidateKind::Hoist, [before, after]) if before.start <= after.end => {
                let outer = before.start..after.end;
                let inner = before.end..after.start;
                let one_line = |w| format!("`{}` → `{}`", text(&outer, w), text(&inner, w));
                if let Some(line) = fit(&one_line, 16) {
                    return vec![line];
                }
                let room = width.saturating_sub(4);
                vec![
                    format!("`{}`", text(&outer, room)),
                    format!("→ `{}`", text(&inner, room.saturating_sub(2))),
                ]
            }
            (CandidateKind::EmptyConfig | CandidateKind::Manual, [node, ..]) => {
                let line = |w| format!("remove `{}`", text(node, w));
                vec![
                    fit(&line, 0).unwrap_or_else(|| {
                        whittle_core::text::describe::ellipsize(&line(6), width)
                    }),
                ]
            }
            (CandidateKind::Edit, [first, ..]) if !candidate.replacements.is_empty() => {
                vec![self.edit_in_words(best, candidate, first, width)]
            }
            (CandidateKind::Replace | CandidateKind::Lift | CandidateKind::Reshape, [node, ..]) => {
                let line = |w| format!("`{}` becomes shorter", text(node, w));
                vec![
                    fit(&line, 0).unwrap_or_else(|| {
                        whittle_core::text::describe::ellipsize(&line(6), width)
                    }),
                ]
            }
            _ => Vec::new(),
        }
    }
}

impl View<'_> {
    /// A text stage's replacement as old → new: `` `foo` → `a` (3 places) `` for a rename,
    /// `` `x + 0` → `x` `` for one replacement, the first one and how many more otherwise.
    fn edit_in_words(
        &self,
        best: &[u8],
        candidate: &CandidateView,
        first: &Range<usize>,
        width: usize,
    ) -> String {
        let old_of = |range: &Range<usize>| best.get(range.clone()).unwrap_or_default();
        let places = candidate.removed.len();
        let same = candidate
            .removed
            .iter()
            .zip(&candidate.replacements)
            .all(|(range, new)| {
                old_of(range) == old_of(first) && *new == candidate.replacements[0]
            });
        let more = match (places, same) {
            (1, _) => String::new(),
            (_, true) => format!(" ({places} places)"),
            (_, false) => format!(" (+{} more)", places - 1),
        };
        let new = &candidate.replacements[0];
        [40, 24, 16, 10, 6]
            .into_iter()
            .map(|w| {
                let new = if new.is_empty() {
                    "nothing".to_string()
                } else {
                    format!("`{}`", whittle_core::text::describe::ellipsize(new, w))
                };
                format!("`{}` → {new}{more}", snippet(old_of(first), w))
            })
            .find(|line| line.chars().count() <= width)
            .unwrap_or_else(|| {
                whittle_core::text::describe::ellipsize(&format!("→ `{new}`{more}"), width)
            })
    }
}

/// A candidate in at most seven columns, for the steps table: Δ3/8 and ∇2/4 as they are, a
/// hoist as χ and where it is (`χ2:5`), the empty configuration as ∅.
pub fn short_candidate(candidate: &Candidate, at: Option<(usize, usize)>) -> String {
    let place = at.map(|(line, column)| format!("{line}:{column}"));
    let text = match candidate.kind {
        CandidateKind::Hoist => format!("χ{}", place.unwrap_or_default()),
        CandidateKind::EmptyConfig => format!("∅{}", place.unwrap_or_default()),
        CandidateKind::Replace => format!("ρ{}", place.unwrap_or_default()),
        CandidateKind::Lift => format!("λ{}", place.unwrap_or_default()),
        CandidateKind::Reshape => format!("σ{}", place.unwrap_or_default()),
        CandidateKind::Manual => "manual".into(),
        CandidateKind::Combination => format!("∇∪/{}", candidate.n),
        CandidateKind::Unused => format!("−{} f", candidate.n),
        CandidateKind::Comments => format!("−{} //", candidate.n),
        CandidateKind::Docstrings => format!("−{} \"\"", candidate.n),
        _ => candidate.describe(),
    };
    whittle_core::text::describe::ellipsize(&text, 7)
}
