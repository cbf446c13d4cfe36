//! The UI's state and behaviour, independent of any terminal: engine events and snapshots come
//! in, keys and mouse events steer it (sending commands to the session), and [`App::draw`]
//! renders a frame. Tests drive it headless and render it to ratatui's `TestBackend`.

use std::path::PathBuf;
use std::sync::Arc;
use std::time::Instant;

use ratatui::Frame;
use ratatui::crossterm::event::{
    Event as TerminalEvent, KeyCode, KeyEvent, KeyEventKind, KeyModifiers, MouseButton, MouseEvent,
    MouseEventKind,
};
use ratatui::layout::{Position, Rect};

use super::clock::Clock;
use super::highlight::{HighlightCache, find_syntax};
use super::model::RunModel;
use super::theme::Theme;
use super::throttle::Throttle;
use super::tree_pane::{Selection, TreePane, line_starts};
use crate::engine::{Command, CommandSender, Edit, PinTarget, Snapshot};
use crate::events::Event;
use crate::params::SplitFactor;
use crate::pipeline::{PipelineInfo, catalogue};
use crate::tree::{Language, NodeId};

/// Largest finite split factor the `+` key reaches before ∞.
const MAX_FINITE_SPLIT: u32 = 16;
/// Most jobs the `J` key asks for.
const MAX_JOBS: usize = 64;

/// The panes of the screen.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Pane {
    Tree,
    TestCase,
    Configuration,
    Statistics,
    Chart,
    Output,
    History,
}

impl Pane {
    /// The panes Tab moves through, in order.
    pub const FOCUS_ORDER: [Pane; 4] = [Pane::Tree, Pane::TestCase, Pane::History, Pane::Output];
}

/// A window over the panes.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Overlay {
    Help,
    /// The pipeline picker with the highlighted entry.
    Picker {
        selected: usize,
    },
    /// Descendants of `node` to hoist it to.
    Hoist {
        version: u64,
        node: NodeId,
        choices: Vec<(NodeId, String)>,
        selected: usize,
    },
}

/// How the UI was asked to start.
pub struct AppOptions {
    pub theme: Theme,
    /// How the input is named in the header.
    pub input_name: String,
    pub clock: Arc<dyn Clock>,
    /// Leave as soon as the run ends.
    pub exit_when_done: bool,
    /// The language of the input (for the tree and highlighting).
    pub language: Option<&'static Language>,
    /// The input's file extension, to find a highlighting syntax when the language is unknown.
    pub extension: Option<String>,
}

/// Why the UI ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum QuitReason {
    /// The user quit (q, Ctrl-C).
    User,
    /// The run ended and the UI was asked to leave then.
    Finished,
    /// A signal asked the process to end.
    Signal,
}

/// Where each pane was drawn, for the mouse.
#[derive(Clone, Debug, Default)]
pub struct PaneAreas {
    pub panes: Vec<(Pane, Rect)>,
}

impl PaneAreas {
    pub fn at(&self, column: u16, row: u16) -> Option<(Pane, Rect)> {
        self.panes
            .iter()
            .find(|(_, area)| area.contains(Position { x: column, y: row }))
            .copied()
    }

    pub fn area(&self, pane: Pane) -> Option<Rect> {
        self.panes.iter().find(|(p, _)| *p == pane).map(|(_, a)| *a)
    }
}

/// Sizes of the test case measured once per version.
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
            lines: crate::atoms::line_count(text),
            nonws: crate::atoms::non_whitespace_chars(text),
        }
    }
}

/// A line diff between two versions of the best.
pub struct DiffView {
    pub from: u64,
    pub to: u64,
    pub lines: Vec<(similar::ChangeTag, String)>,
    /// The first line that changed.
    pub first_change: usize,
}

impl DiffView {
    /// The line diff from one version of the best to another.
    fn between(from: (u64, &[u8]), to: (u64, &[u8])) -> Self {
        let old = String::from_utf8_lossy(from.1);
        let new = String::from_utf8_lossy(to.1);
        let diff = similar::TextDiff::from_lines(old.as_ref(), new.as_ref());
        let lines: Vec<(similar::ChangeTag, String)> = diff
            .iter_all_changes()
            .map(|change| {
                (
                    change.tag(),
                    change.value().trim_end_matches('\n').replace('\t', "    "),
                )
            })
            .collect();
        let first_change = lines
            .iter()
            .position(|(tag, _)| *tag != similar::ChangeTag::Equal)
            .unwrap_or(0);
        DiffView {
            from: from.0,
            to: to.0,
            lines,
            first_change,
        }
    }
}

/// The whole UI state.
pub struct App {
    pub(crate) link: CommandSender,
    pub(crate) clock: Arc<dyn Clock>,
    pub(crate) theme: Theme,
    pub(crate) input_name: String,
    pub(crate) exit_when_done: bool,
    pub(crate) started: Instant,
    pub(crate) snapshot: Snapshot,
    pub(crate) run: RunModel,
    pub(crate) tree: TreePane,
    pub(crate) highlight: HighlightCache,
    pub(crate) catalogue: Vec<PipelineInfo>,
    pub(crate) focus: Pane,
    pub(crate) overlay: Option<Overlay>,
    /// First line shown in the test case pane, and whether it follows the candidate.
    pub(crate) text_scroll: usize,
    pub(crate) text_follow: bool,
    pub(crate) diff: bool,
    /// The best shown before the current one (version, text), for the diff.
    pub(crate) previous_best: Option<(u64, Arc<[u8]>)>,
    pub(crate) history_cursor: usize,
    pub(crate) history_follow: bool,
    /// A history entry shown instead of the live best.
    pub(crate) viewing: Option<(usize, Arc<[u8]>)>,
    pub(crate) output_scroll: usize,
    /// Width of the tree pane in percent of the screen.
    pub(crate) tree_percent: u16,
    pub(crate) input_measures: Measures,
    pub(crate) best_measures: (u64, Measures),
    pub(crate) areas: PaneAreas,
    /// Where the lines of the best start, for its version.
    pub(crate) line_index: Arc<Vec<usize>>,
    /// The diff shown by `d`, recomputed when the best changes (as often as it can afford).
    pub(crate) diff_cache: Option<DiffView>,
    diff_throttle: Throttle,
    pub(crate) quit: Option<QuitReason>,
    pub(crate) frames: u64,
}

impl App {
    /// A UI over the session that `link` steers.
    pub fn new(link: CommandSender, options: AppOptions) -> App {
        let snapshot = link.snapshot();
        let now = options.clock.now();
        let syntax = find_syntax(
            options.language.map(Language::syntect_syntax),
            options.extension.as_deref(),
        );
        let input_measures = Measures::of(&snapshot.best);
        App {
            link,
            started: now,
            clock: options.clock,
            theme: options.theme,
            input_name: options.input_name,
            exit_when_done: options.exit_when_done,
            run: RunModel::new(snapshot.input_size),
            tree: TreePane::new(options.language),
            highlight: HighlightCache::new(syntax),
            catalogue: catalogue(options.language.is_some_and(Language::is_available)),
            focus: Pane::Tree,
            overlay: None,
            text_scroll: 0,
            text_follow: true,
            diff: false,
            previous_best: None,
            history_cursor: 0,
            history_follow: true,
            viewing: None,
            output_scroll: 0,
            tree_percent: 24,
            best_measures: (snapshot.version, input_measures),
            input_measures,
            areas: PaneAreas::default(),
            line_index: Arc::new(line_starts(&snapshot.best)),
            diff_cache: None,
            diff_throttle: Throttle::default(),
            quit: None,
            frames: 0,
            snapshot,
        }
    }

    /// Folds an engine event in (O(1): nothing is drawn or parsed here).
    pub fn on_engine_event(&mut self, event: Event) {
        // The frequent events need no time; reading the clock would cost more than folding.
        let now = match event {
            Event::TestStarted { .. } | Event::CandidateJudged { .. } | Event::Round { .. } => {
                self.started
            }
            _ => self.clock.now(),
        };
        self.run.apply(event, now);
        if self.exit_when_done && self.run.ending.is_some() && self.quit.is_none() {
            self.quit = Some(QuitReason::Finished);
        }
    }

    /// A signal (SIGTERM, SIGINT) asked the process to end.
    pub fn on_signal(&mut self) {
        self.link.send(Command::Stop);
        self.quit = Some(QuitReason::Signal);
    }

    /// The engine's event channel closed: nothing more will happen.
    pub fn on_engine_closed(&mut self) {
        if self.run.ending.is_none() {
            self.run.ending = Some(super::model::Ending::Stopped("the engine ended".into()));
        }
        if self.exit_when_done && self.quit.is_none() {
            self.quit = Some(QuitReason::Finished);
        }
    }

    pub fn quit_reason(&self) -> Option<QuitReason> {
        self.quit
    }

    pub fn should_quit(&self) -> bool {
        self.quit.is_some()
    }

    /// The latest snapshot (as of the last [`App::refresh`]).
    pub fn snapshot(&self) -> &Snapshot {
        &self.snapshot
    }

    pub fn run_model(&self) -> &RunModel {
        &self.run
    }

    pub fn focus(&self) -> Pane {
        self.focus
    }

    pub fn overlay(&self) -> Option<&Overlay> {
        self.overlay.as_ref()
    }

    pub fn frames_drawn(&self) -> u64 {
        self.frames
    }

    /// Per-frame work: a fresh snapshot, the tree re-parsed when the best changed, the cursor
    /// moved to the candidate under test.
    pub fn refresh(&mut self) {
        let snapshot = self.link.snapshot();
        if snapshot.version != self.snapshot.version {
            self.previous_best = Some((self.snapshot.version, self.snapshot.best.clone()));
        }
        self.snapshot = snapshot;
        if self.best_measures.0 != self.snapshot.version {
            self.best_measures = (self.snapshot.version, Measures::of(&self.snapshot.best));
            self.line_index = Arc::new(line_starts(&self.snapshot.best));
        }
        self.tree
            .refresh(self.snapshot.version, &self.snapshot.best);
        if let Some(current) = &self.run.current {
            let (step, removed) = (current.step, current.removed.clone());
            self.tree.follow_candidate(step, &removed, &self.line_index);
        }
        if self.history_follow {
            self.history_cursor = self.snapshot.history.len().saturating_sub(1);
        }
    }

    /// Brings the diff view up to date with the current and the previous best, unless the last
    /// diff was made so recently that another would take more than a tenth of the time.
    pub(crate) fn update_diff(&mut self) {
        let Some((from, previous)) = &self.previous_best else {
            return;
        };
        let to = self.snapshot.version;
        if self
            .diff_cache
            .as_ref()
            .is_some_and(|d| d.from == *from && d.to == to)
        {
            return;
        }
        if self.diff_cache.is_some() && self.diff_throttle.too_soon(Instant::now()) {
            return;
        }
        let best = &self.snapshot.best;
        let view = self
            .diff_throttle
            .run(|| DiffView::between((*from, previous), (to, best)));
        self.diff_cache = Some(view);
    }

    /// Handles a terminal event (key, mouse, resize).
    pub fn on_terminal_event(&mut self, event: TerminalEvent) {
        match event {
            TerminalEvent::Key(key) => self.on_key(key),
            TerminalEvent::Mouse(mouse) => self.on_mouse(mouse),
            _ => {}
        }
    }

    /// Handles a key.
    pub fn on_key(&mut self, key: KeyEvent) {
        if key.kind == KeyEventKind::Release {
            return;
        }
        if key.modifiers.contains(KeyModifiers::CONTROL)
            && matches!(key.code, KeyCode::Char('c') | KeyCode::Char('q'))
        {
            self.quit_now();
            return;
        }
        if self.overlay.is_some() {
            self.on_overlay_key(key);
            return;
        }
        match key.code {
            KeyCode::Char('q') => self.quit_now(),
            KeyCode::Char(' ') => {
                if self.snapshot.paused {
                    self.link.send(Command::Resume);
                    self.snapshot.paused = false;
                    self.snapshot.step_mode = false;
                } else {
                    self.link.send(Command::Pause);
                    self.snapshot.paused = true;
                }
            }
            KeyCode::Char('n') => {
                self.link.send(Command::Step);
                self.snapshot.paused = true;
                self.snapshot.step_mode = true;
            }
            KeyCode::Char('p') => self.toggle_pin(),
            KeyCode::Char('a') => {
                let selected = self
                    .catalogue
                    .iter()
                    .position(|p| self.snapshot.pipeline.starts_with(&p.name))
                    .unwrap_or(0);
                self.overlay = Some(Overlay::Picker { selected });
            }
            KeyCode::Char('+') | KeyCode::Char('=') => self.change_split_factor(true),
            KeyCode::Char('-') | KeyCode::Char('_') => self.change_split_factor(false),
            KeyCode::Char('j') => self.change_jobs(false),
            KeyCode::Char('J') => self.change_jobs(true),
            KeyCode::Char('r') => self.propose_removal(),
            KeyCode::Char('h') => self.open_hoist(),
            KeyCode::Char('s') => {
                self.link.send(Command::SkipStage);
                self.notice("skipping the current stage".into(), false);
            }
            KeyCode::Char('d') => {
                self.diff = !self.diff;
                self.text_scroll = 0;
            }
            KeyCode::Char('?') => self.overlay = Some(Overlay::Help),
            KeyCode::Char('f') => {
                self.tree.follow = true;
                self.text_follow = true;
                self.history_follow = true;
                self.notice("the cursor follows the candidate under test".into(), false);
            }
            KeyCode::Char('u') => {
                if self.tree.has_language() {
                    self.tree.lines_mode = !self.tree.lines_mode;
                }
            }
            KeyCode::Char('[') => self.tree_percent = self.tree_percent.saturating_sub(4).max(12),
            KeyCode::Char(']') => self.tree_percent = (self.tree_percent + 4).min(60),
            KeyCode::Char('R') => self.restart_from_history(),
            KeyCode::Tab => self.cycle_focus(true),
            KeyCode::BackTab => self.cycle_focus(false),
            KeyCode::Esc => {
                if self.viewing.take().is_none() {
                    self.diff = false;
                }
            }
            _ => self.on_pane_key(key),
        }
    }

    fn quit_now(&mut self) {
        self.quit = Some(QuitReason::User);
    }

    fn notice(&mut self, text: String, warning: bool) {
        self.run.notice = Some(super::model::Notice {
            text,
            warning,
            at: self.clock.now(),
        });
    }

    fn cycle_focus(&mut self, forward: bool) {
        let order = Pane::FOCUS_ORDER;
        let position = order.iter().position(|p| *p == self.focus).unwrap_or(0);
        let next = if forward {
            (position + 1) % order.len()
        } else {
            (position + order.len() - 1) % order.len()
        };
        self.focus = order[next];
    }

    fn change_split_factor(&mut self, up: bool) {
        let next = match (self.snapshot.split_factor, up) {
            (SplitFactor::Finite(nu), true) if nu >= MAX_FINITE_SPLIT => SplitFactor::Infinite,
            (SplitFactor::Finite(nu), true) => SplitFactor::Finite(nu + 1),
            (SplitFactor::Finite(nu), false) => SplitFactor::Finite(nu.saturating_sub(1).max(2)),
            (SplitFactor::Infinite, true) => SplitFactor::Infinite,
            (SplitFactor::Infinite, false) => SplitFactor::Finite(MAX_FINITE_SPLIT),
        };
        self.link.send(Command::SetSplitFactor(next));
        self.snapshot.split_factor = next;
        self.notice(
            format!("split factor ν = {next} from the next granularity step"),
            false,
        );
    }

    fn change_jobs(&mut self, up: bool) {
        let jobs = self.snapshot.jobs;
        let next = if up {
            (jobs + 1).min(MAX_JOBS)
        } else {
            jobs.saturating_sub(1).max(1)
        };
        self.link.send(Command::SetJobs(next));
        self.snapshot.jobs = next;
        self.notice(format!("{next} job(s) from the next testing window"), false);
    }

    fn selection(&self) -> Option<Selection> {
        self.tree.selection(&self.snapshot.best, &self.line_index)
    }

    fn toggle_pin(&mut self) {
        let Some(selection) = self.selection() else {
            self.notice(
                "select a node or line in the tree pane to pin it".into(),
                true,
            );
            return;
        };
        let bytes = selection.bytes();
        let pinned = self
            .snapshot
            .pins
            .iter()
            .any(|pin| pin.start < bytes.end && bytes.start < pin.end);
        let target = match &selection {
            Selection::Node { version, node, .. } => PinTarget::Node {
                version: *version,
                node: *node,
            },
            Selection::Line { line, .. } => PinTarget::Lines(*line..*line + 1),
        };
        if pinned {
            self.link.send(Command::Unpin(target));
            self.notice(
                format!("unpinning bytes {}..{}", bytes.start, bytes.end),
                false,
            );
        } else {
            self.link.send(Command::Pin(target));
            self.notice(
                format!("pinning bytes {}..{}", bytes.start, bytes.end),
                false,
            );
        }
    }

    fn propose_removal(&mut self) {
        let Some(selection) = self.selection() else {
            self.notice(
                "select a node or line in the tree pane to remove it".into(),
                true,
            );
            return;
        };
        let edit = match selection {
            Selection::Node { version, node, .. } => Edit::RemoveNode { version, node },
            Selection::Line { line, .. } => Edit::RemoveLines(line..line + 1),
        };
        self.link.send(Command::Propose(edit));
        self.notice("testing the proposed removal…".into(), false);
    }

    fn open_hoist(&mut self) {
        let Some(Selection::Node { version, node, .. }) = self.selection() else {
            self.notice(
                "hoisting needs a node of the parse tree selected".into(),
                true,
            );
            return;
        };
        let choices = self.tree.hoist_choices();
        if choices.is_empty() {
            self.notice(
                "the selected node has no named descendant to hoist".into(),
                true,
            );
            return;
        }
        self.overlay = Some(Overlay::Hoist {
            version,
            node,
            choices,
            selected: 0,
        });
    }

    fn restart_from_history(&mut self) {
        let Some(entry) = self.snapshot.history.get(self.history_cursor) else {
            self.notice("there is no history entry to restart from".into(), true);
            return;
        };
        let index = entry.index;
        self.link.send(Command::RestartFrom(index));
        self.viewing = None;
        self.history_follow = true;
        self.notice(format!("restarting from history #{index}"), false);
    }

    fn on_overlay_key(&mut self, key: KeyEvent) {
        let catalogue_len = self.catalogue.len();
        let Some(overlay) = self.overlay.as_mut() else {
            return;
        };
        match overlay {
            Overlay::Help => {
                if matches!(
                    key.code,
                    KeyCode::Esc | KeyCode::Char('?') | KeyCode::Char('q') | KeyCode::Enter
                ) {
                    self.overlay = None;
                }
            }
            Overlay::Picker { selected } => match key.code {
                KeyCode::Up | KeyCode::Char('k') => *selected = selected.saturating_sub(1),
                KeyCode::Down | KeyCode::Char('j') => {
                    *selected = (*selected + 1).min(catalogue_len.saturating_sub(1))
                }
                KeyCode::PageUp => *selected = selected.saturating_sub(10),
                KeyCode::PageDown => {
                    *selected = (*selected + 10).min(catalogue_len.saturating_sub(1))
                }
                KeyCode::Enter => {
                    let index = *selected;
                    self.overlay = None;
                    if let Some(pipeline) = self.catalogue.get(index) {
                        let name = pipeline.name.clone();
                        self.link.send(Command::SwitchAlgorithm(name.clone()));
                        self.notice(format!("switching to {name}"), false);
                    }
                }
                KeyCode::Esc | KeyCode::Char('a') | KeyCode::Char('q') => self.overlay = None,
                _ => {}
            },
            Overlay::Hoist {
                version,
                node,
                choices,
                selected,
            } => match key.code {
                KeyCode::Up | KeyCode::Char('k') => *selected = selected.saturating_sub(1),
                KeyCode::Down | KeyCode::Char('j') => {
                    *selected = (*selected + 1).min(choices.len().saturating_sub(1))
                }
                KeyCode::PageUp => *selected = selected.saturating_sub(10),
                KeyCode::PageDown => {
                    *selected = (*selected + 10).min(choices.len().saturating_sub(1))
                }
                KeyCode::Enter => {
                    let edit = choices.get(*selected).map(|(descendant, _)| Edit::Hoist {
                        version: *version,
                        node: *node,
                        descendant: *descendant,
                    });
                    self.overlay = None;
                    if let Some(edit) = edit {
                        self.link.send(Command::Propose(edit));
                        self.notice("testing the proposed hoisting…".into(), false);
                    }
                }
                KeyCode::Esc | KeyCode::Char('h') | KeyCode::Char('q') => self.overlay = None,
                _ => {}
            },
        }
    }

    /// Height of a pane's inside, for page moves.
    fn page(&self, pane: Pane) -> usize {
        self.areas
            .area(pane)
            .map_or(10, |area| area.height.saturating_sub(2).max(1) as usize)
    }

    fn on_pane_key(&mut self, key: KeyEvent) {
        match self.focus {
            Pane::Tree => self.tree_key(key),
            Pane::TestCase => {
                let page = self.page(Pane::TestCase);
                if let Some(scroll) = scrolled(self.text_scroll, key.code, page) {
                    self.text_scroll = scroll;
                    self.text_follow = false;
                }
            }
            Pane::Output => {
                let page = self.page(Pane::Output);
                if let Some(scroll) = scrolled(self.output_scroll, key.code, page) {
                    self.output_scroll = scroll;
                }
            }
            Pane::History => self.history_key(key),
            _ => {}
        }
    }

    fn tree_key(&mut self, key: KeyEvent) {
        if self.tree.tree().is_none() {
            let lines = self.best_measures.1.lines.max(1);
            let page = self.page(Pane::Tree);
            if let Some(line) = scrolled(self.tree.line_cursor, key.code, page) {
                self.tree.line_cursor = line.min(lines - 1);
                self.tree.user_moved();
            }
            return;
        }
        let page = self.page(Pane::Tree);
        let state = &mut self.tree.state;
        let moved = match key.code {
            KeyCode::Up => state.key_up(),
            KeyCode::Down => state.key_down(),
            KeyCode::Left => state.key_left(),
            KeyCode::Right => state.key_right(),
            KeyCode::Enter => state.toggle_selected(),
            KeyCode::PageUp => {
                state.select_relative(|current| current.map_or(0, |c| c.saturating_sub(page)))
            }
            KeyCode::PageDown => {
                state.select_relative(|current| current.map_or(0, |c| c.saturating_add(page)))
            }
            KeyCode::Home => state.select_first(),
            KeyCode::End => state.select_last(),
            _ => false,
        };
        if moved {
            self.tree.user_moved();
        }
    }

    fn history_key(&mut self, key: KeyEvent) {
        let len = self.snapshot.history.len();
        if len == 0 {
            return;
        }
        if key.code == KeyCode::Enter {
            self.view_history(self.history_cursor);
            return;
        }
        let page = self.page(Pane::History);
        if let Some(cursor) = scrolled(self.history_cursor, key.code, page) {
            self.history_cursor = cursor.min(len - 1);
            self.history_follow = false;
        }
    }

    fn view_history(&mut self, cursor: usize) {
        let Some(entry) = self.snapshot.history.get(cursor) else {
            return;
        };
        let index = entry.index;
        match self.link.history_text(index) {
            Some(text) => {
                self.viewing = Some((index, Arc::from(text)));
                self.text_scroll = 0;
                self.text_follow = false;
            }
            None => self.notice(format!("history #{index} is not available"), true),
        }
    }

    fn on_mouse(&mut self, mouse: MouseEvent) {
        let Some((pane, area)) = self.areas.at(mouse.column, mouse.row) else {
            return;
        };
        match mouse.kind {
            MouseEventKind::Down(MouseButton::Left) => {
                if Pane::FOCUS_ORDER.contains(&pane) {
                    self.focus = pane;
                }
                let row = mouse.row.saturating_sub(area.y + 1) as usize;
                match pane {
                    Pane::Tree => {
                        if self.tree.tree().is_some() {
                            if self
                                .tree
                                .state
                                .click_at(Position::new(mouse.column, mouse.row))
                            {
                                self.tree.user_moved();
                            }
                        } else {
                            self.tree.line_cursor = self.tree.line_offset + row;
                            self.tree.user_moved();
                        }
                    }
                    Pane::History => {
                        let first = history_first_row(
                            self.history_cursor,
                            self.snapshot.history.len(),
                            area.height.saturating_sub(2) as usize,
                        );
                        let clicked = first + row;
                        if clicked < self.snapshot.history.len() {
                            self.history_cursor = clicked;
                            self.history_follow = false;
                        }
                    }
                    _ => {}
                }
            }
            MouseEventKind::ScrollDown | MouseEventKind::ScrollUp => {
                let down = mouse.kind == MouseEventKind::ScrollDown;
                let code = if down { KeyCode::Down } else { KeyCode::Up };
                match pane {
                    Pane::Tree if self.tree.tree().is_some() => {
                        if down {
                            self.tree.state.scroll_down(3);
                        } else {
                            self.tree.state.scroll_up(3);
                        }
                        self.tree.user_moved();
                    }
                    Pane::TestCase => {
                        self.text_scroll = if down {
                            self.text_scroll + 3
                        } else {
                            self.text_scroll.saturating_sub(3)
                        };
                        self.text_follow = false;
                    }
                    Pane::Output | Pane::History | Pane::Tree => {
                        let previous = self.focus;
                        self.focus = pane;
                        self.on_pane_key(KeyEvent::new(code, KeyModifiers::NONE));
                        self.focus = previous;
                    }
                    _ => {}
                }
            }
            _ => {}
        }
    }

    /// Draws a frame.
    pub fn draw(&mut self, frame: &mut Frame) {
        self.frames += 1;
        super::ui::draw(self, frame);
    }

    /// The output file, if the run writes one.
    pub fn output_path(&self) -> Option<&PathBuf> {
        self.snapshot.output.as_ref()
    }
}

/// A cursor or scroll position moved by a navigation key, if it is one.
fn scrolled(position: usize, code: KeyCode, page: usize) -> Option<usize> {
    Some(match code {
        KeyCode::Up => position.saturating_sub(1),
        KeyCode::Down => position + 1,
        KeyCode::PageUp => position.saturating_sub(page),
        KeyCode::PageDown => position + page,
        KeyCode::Home => 0,
        KeyCode::End => usize::MAX / 2,
        _ => return None,
    })
}

/// The first history row shown so that the cursor is visible.
pub(crate) fn history_first_row(cursor: usize, len: usize, height: usize) -> usize {
    if height == 0 || len <= height {
        return 0;
    }
    cursor.saturating_sub(height - 1).min(len - height)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn measures_agree_with_the_engine_s_size_measures() {
        for text in [
            &b"a b\tc\x0b\x0cd\r\n"[..],
            "é ü\u{a0}x\n".as_bytes(),
            b"",
            b"x",
        ] {
            let measures = Measures::of(text);
            assert_eq!(measures.nonws, crate::atoms::non_whitespace_chars(text));
            assert_eq!(measures.lines, crate::atoms::line_count(text));
        }
    }
}
