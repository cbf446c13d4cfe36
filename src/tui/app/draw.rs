//! Drawing a frame: the layout for the screen's size, the view every pane reads, then the
//! header, the panes, the compact layout's tabs, the footer and the overlay on top.

use std::ops::Range;
use std::sync::Arc;

use ratatui::Frame;
use ratatui::text::{Line, Span};
use ratatui::widgets::Paragraph;

use super::App;
use crate::tui::layout::{self, Deck};
use crate::tui::overlays::{self, Overlay};
use crate::tui::panes::{self, HoistKept, HoistNodes, Pane, View};
use whittle_core::observe::events::CandidateKind;
use whittle_core::outcome::Outcome;

impl App {
    /// Draws a frame.
    pub fn draw(&mut self, frame: &mut Frame) {
        let files = self.snapshot.case.as_ref().map_or(0, panes::files::height);
        self.screen = layout::compute(frame.area(), self.tree.percent, self.deck, files);
        // On a small screen the focus stays on what is shown.
        if self.screen.area(self.focus).is_none() {
            self.focus = Pane::TestCase;
        }
        let screen = self.screen.clone();
        let removed = self.removed_from_best();
        let hoist = self.hoisting(&removed);
        let hoist_kept = self.hoist_kept();
        let stats = self.snapshot.stats.clone();
        let recent: Vec<(u64, Arc<[u8]>)> = self.recent.iter().cloned().collect();
        let parsed = self.tree.parsed(self.snapshot.version);
        let view = View {
            theme: &self.theme,
            snapshot: &self.snapshot,
            run: &self.run,
            stats: &stats,
            lines: &self.line_index,
            input: self.input_measures,
            best: self.best_measures.1,
            now: self.now(),
            running: self.running(),
            removed: &removed,
            hoist,
            hoist_nodes: self.hoist_nodes.as_ref().filter(|nodes| {
                self.run
                    .current
                    .as_ref()
                    .is_some_and(|c| c.step == nodes.step)
            }),
            hoist_kept,
            focus: self.focus,
            replay: self.replay_status.as_ref(),
            tree: parsed.as_deref(),
            recent: &recent,
        };
        panes::header::draw(&view, &self.input_name, frame, screen.header);
        for (pane, area) in &screen.panes {
            let area = *area;
            match pane {
                Pane::Tree => self.tree.draw(&view, frame, area),
                Pane::TestCase => self.text.draw(&view, frame, area),
                Pane::Configuration => panes::configuration::draw(&view, frame, area),
                Pane::Statistics if !screen.is_compact() => {
                    panes::statistics::draw(&view, frame, area)
                }
                Pane::Statistics | Pane::Steps | Pane::Stages => {
                    panes::statistics::draw_tab(&view, *pane, frame, area)
                }
                Pane::Chart => panes::chart::draw(&view, frame, area),
                Pane::Output => self.output.draw(&view, frame, area),
                Pane::History => self.history.draw(&view, frame, area),
                Pane::Files => self.files.draw(&view, frame, area),
            }
        }
        if let Some(deck) = &screen.deck {
            draw_deck_tabs(&view, deck, frame);
        }
        panes::footer::draw(&view, frame, screen.footer);
        self.draw_overlay(&view, frame);
    }

    /// What the candidate removes from the best shown (nothing when it was made from
    /// another version of the best).
    fn removed_from_best(&self) -> Vec<Range<usize>> {
        match &self.run.current {
            Some(current)
                if current.version == self.snapshot.version
                    && self.run.version == self.snapshot.version =>
            {
                let len = self.snapshot.best.len();
                let mut ranges: Vec<Range<usize>> = current
                    .removed
                    .iter()
                    .filter(|r| r.start < r.end && r.start < len)
                    .map(|r| r.start..r.end.min(len))
                    .collect();
                ranges.sort_by_key(|r| r.start);
                ranges
            }
            _ => Vec::new(),
        }
    }

    /// A hoisting under test: the node's range and, inside it, the descendant's.
    fn hoisting(&self, removed: &[Range<usize>]) -> Option<(Range<usize>, Range<usize>)> {
        match &self.run.current {
            Some(current)
                if current.candidate.kind == CandidateKind::Hoist && !removed.is_empty() =>
            {
                hoist_spans(&current.removed)
            }
            _ => None,
        }
    }

    /// Names the nodes of the hoist under test or last judged by their kinds, once a step,
    /// in the parse of the best it was made on.
    pub(super) fn name_hoist(&mut self) {
        let Some(current) = &self.run.current else {
            return;
        };
        if current.candidate.kind != CandidateKind::Hoist
            || self
                .hoist_nodes
                .as_ref()
                .is_some_and(|n| n.step == current.step)
        {
            return;
        }
        let Some((outer, inner)) = hoist_spans(&current.removed) else {
            return;
        };
        let best = if current.version == self.snapshot.version {
            Some(self.snapshot.best.clone())
        } else {
            self.recent
                .iter()
                .find(|(version, _)| *version == current.version)
                .map(|(_, best)| best.clone())
        };
        let kinds = best.and_then(|best| {
            self.tree
                .kinds_spanning(current.version, &best, &[outer, inner])
        });
        if let Some([ancestor, hoisted]) = kinds.as_deref() {
            self.hoist_nodes = Some(HoistNodes {
                step: current.step,
                ancestor: ancestor.clone(),
                hoisted: hoisted.clone(),
            });
        }
    }

    /// The hoist just kept, in the best it made (the best shown is the one right after it).
    fn hoist_kept(&self) -> Option<HoistKept> {
        let current = self.run.current.as_ref()?;
        let kept = current.candidate.kind == CandidateKind::Hoist
            && matches!(current.verdict, Some((Outcome::Interesting, _)))
            && self.snapshot.version == current.version + 1;
        if !kept {
            return None;
        }
        let (outer, _) = hoist_spans(&current.removed)?;
        let nodes = self
            .hoist_nodes
            .as_ref()
            .filter(|nodes| nodes.step == current.step)?;
        Some(HoistKept {
            start: outer.start,
            hoisted: nodes.hoisted.clone(),
            ancestor: nodes.ancestor.clone(),
        })
    }

    /// The overlay on top, if one is open.
    fn draw_overlay(&self, view: &View, frame: &mut Frame) {
        match &self.overlay {
            Some(Overlay::Help) => overlays::help::draw(view, self.help_scroll, frame),
            Some(Overlay::Picker { selected }) => self.picker.draw(view, *selected, frame),
            Some(Overlay::Hoist {
                choices, selected, ..
            }) => overlays::hoist::draw(view, choices, *selected, frame),
            Some(Overlay::GoTo { input }) => overlays::goto::draw(view, input, frame),
            None => {}
        }
    }
}

/// A hoist's node and, inside it, the descendant that takes its place, from what it removes
/// (the text before the descendant and the text after it).
fn hoist_spans(removed: &[Range<usize>]) -> Option<(Range<usize>, Range<usize>)> {
    match removed {
        [before, after] if before.end <= after.start => {
            Some((before.start..after.end, before.end..after.start))
        }
        _ => None,
    }
}

/// The compact layout's bar of tabs, the one shown highlighted.
fn draw_deck_tabs(view: &View, deck: &Deck, frame: &mut Frame) {
    let mut spans = Vec::new();
    for (index, (pane, _)) in deck.tabs.iter().enumerate() {
        let style = if *pane == deck.pane {
            view.theme.selection
        } else {
            view.theme.muted
        };
        if index > 0 {
            spans.push(Span::styled("│", view.theme.border));
        }
        spans.push(Span::styled(
            layout::tab_label(index, *pane, deck.tight),
            style,
        ));
    }
    frame.render_widget(
        Paragraph::new(Line::from(spans)).style(view.theme.base),
        deck.bar,
    );
}
