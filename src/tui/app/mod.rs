//! The UI's state and behaviour, independent of any terminal: engine events (or a replay's)
//! and snapshots come in, keys and mouse events steer it (sending commands to the session, or
//! moving the replay), and [`App::draw`] lays out the panes and renders a frame. Tests drive
//! it headless and render it to ratatui's `TestBackend`.

use std::collections::VecDeque;
use std::ops::Range;
use std::sync::Arc;
use std::time::{Duration, Instant};

use ratatui::Frame;
use ratatui::crossterm::event::{
    Event as TerminalEvent, KeyCode, KeyEvent, KeyEventKind, KeyModifiers, MouseButton, MouseEvent,
    MouseEventKind,
};
use ratatui::layout::Position;
use ratatui::text::{Line, Span};
use ratatui::widgets::Paragraph;

use super::clock::Clock;
use super::highlight::{HighlightCache, find_syntax};
use super::layout::{self, Screen};
use super::model::{Ending, Notice, RunModel};
use super::overlays::picker::Picker;
use super::overlays::{self, Overlay};
use super::panes::history::HistoryPane;
use super::panes::output::OutputPane;
use super::panes::test_case::TestCasePane;
use super::panes::tree::{Selection, TreePane, line_starts};
use super::panes::{self, Measures, Pane, ReplayStatus, View};
use super::source::{ReplaySource, Source};
use super::theme::Theme;
use whittle_core::engine::pipeline::catalogue;
use whittle_core::engine::replay::Replay;
use whittle_core::engine::session::{Command, CommandSender, ManualEdit, PinTarget, Snapshot};
use whittle_core::observe::events::Event;
use whittle_core::params::SplitFactor;
use whittle_core::tree::Language;

/// Largest finite split factor the `+` key reaches before ∞.
const MAX_FINITE_SPLIT: u32 = 16;
/// Most jobs the `J` key asks for.
const MAX_JOBS: usize = 64;
/// How many earlier bests are kept to name candidates made from them.
const RECENT_BESTS: usize = 4;

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

/// The whole UI state.
pub struct App {
    source: Source,
    clock: Arc<dyn Clock>,
    theme: Theme,
    input_name: String,
    exit_when_done: bool,
    started: Instant,
    snapshot: Snapshot,
    run: RunModel,
    /// Bests of the last versions seen, newest last.
    recent: VecDeque<(u64, Arc<[u8]>)>,
    picker: Picker,
    focus: Pane,
    overlay: Option<Overlay>,
    help_scroll: usize,
    /// The tab the compact layout's deck shows.
    deck: Pane,
    tree: TreePane,
    text: TestCasePane,
    output: OutputPane,
    history: HistoryPane,
    input_measures: Measures,
    best_measures: (u64, Measures),
    /// Where the lines of the best start, for its version.
    line_index: Arc<Vec<usize>>,
    /// Where everything was drawn, for the mouse.
    screen: Screen,
    replay_status: Option<ReplayStatus>,
    quit: Option<QuitReason>,
}

impl App {
    /// A UI over the session that `link` steers.
    pub fn new(link: CommandSender, options: AppOptions) -> App {
        let snapshot = link.snapshot();
        App::with_source(Source::Live(link), snapshot, options)
    }

    /// A UI over a recorded run.
    pub fn replay(replay: Replay, options: AppOptions) -> App {
        let mut source = ReplaySource::new(replay);
        let run = RunModel::new(source.replay.input.len());
        let snapshot = source.snapshot(&run);
        let mut app = App::with_source(Source::Replay(Box::new(source)), snapshot, options);
        app.jump_to(0);
        app
    }

    fn with_source(source: Source, snapshot: Snapshot, options: AppOptions) -> App {
        let now = options.clock.now();
        let syntax = find_syntax(
            options.language.map(Language::syntect_syntax),
            options.extension.as_deref(),
        );
        let input_measures = Measures::of(&snapshot.best);
        let tree_available = options.language.is_some_and(Language::is_available);
        App {
            source,
            started: now,
            clock: options.clock,
            theme: options.theme,
            input_name: options.input_name,
            exit_when_done: options.exit_when_done,
            run: RunModel::new(snapshot.input_size),
            recent: VecDeque::new(),
            picker: Picker::new(catalogue(tree_available), tree_available),
            focus: Pane::Tree,
            overlay: None,
            help_scroll: 0,
            deck: Pane::Steps,
            tree: TreePane::new(options.language),
            text: TestCasePane::new(HighlightCache::new(syntax)),
            output: OutputPane::default(),
            history: HistoryPane::default(),
            best_measures: (snapshot.version, input_measures),
            input_measures,
            line_index: Arc::new(line_starts(&snapshot.best)),
            screen: Screen::default(),
            replay_status: None,
            quit: None,
            snapshot,
        }
    }

    /// The UI's idea of now: the clock, or in a replay the recorded run's time.
    fn now(&self) -> Instant {
        match self.source.replay() {
            Some(replay) => self.started + replay.time(),
            None => self.clock.now(),
        }
    }

    /// The run's time without its pauses.
    fn running(&self) -> Duration {
        match self.source.replay() {
            Some(replay) => replay.time(),
            // Once the run ended its clock stands still.
            None if self.run.ending.is_some() => self.run.ended_after,
            None => self
                .clock
                .now()
                .saturating_duration_since(self.started)
                .saturating_sub(self.snapshot.parked_time),
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
        let running = now
            .saturating_duration_since(self.started)
            .saturating_sub(self.snapshot.parked_time);
        self.run.apply(event, now, running);
        if self.exit_when_done && self.run.ending.is_some() && self.quit.is_none() {
            self.quit = Some(QuitReason::Finished);
        }
    }

    /// A signal (SIGTERM, SIGINT) asked the process to end.
    pub fn on_signal(&mut self) {
        if let Source::Live(link) = &self.source {
            link.send(Command::Stop);
        }
        self.quit = Some(QuitReason::Signal);
    }

    /// The engine's event channel closed: nothing more will happen.
    pub fn on_engine_closed(&mut self) {
        if self.source.replay().is_some() {
            return;
        }
        if self.run.ending.is_none() {
            self.run.ending = Some(Ending::Stopped("the engine ended".into()));
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

    pub fn overlay(&self) -> Option<&Overlay> {
        self.overlay.as_ref()
    }

    /// Whether the tree pane shows the parse of the current best (it may lag a version
    /// behind while re-parsing would take more than a tenth of the time).
    pub fn tree_is_current(&self) -> bool {
        !self.tree.has_language() || self.tree.parsed(self.snapshot.version).is_some()
    }

    /// Where a replay stands (`None` for a live run).
    pub fn replay_status(&self) -> Option<&ReplayStatus> {
        self.replay_status.as_ref()
    }

    /// Plays a replay at about `steps_per_second` (the nearest speed offered).
    pub fn play(&mut self, steps_per_second: f64) {
        let now = self.clock.now();
        if let Some(replay) = self.source.replay_mut() {
            replay.speed = super::source::SPEEDS
                .iter()
                .enumerate()
                .min_by(|a, b| {
                    (a.1 - steps_per_second)
                        .abs()
                        .total_cmp(&(b.1 - steps_per_second).abs())
                })
                .map_or(2, |(index, _)| index);
            if !replay.playing {
                replay.toggle_play(now);
            }
            self.replay_status = Some(replay.status());
        }
    }

    /// How soon the UI wants to draw again on its own (a replay that plays).
    pub fn wake_within(&self) -> Option<Duration> {
        self.source.replay()?.next_due(self.clock.now())
    }

    /// Per-frame work: a fresh snapshot (playing a replay on), the tree re-parsed when the best
    /// changed, the cursor moved to the candidate under test.
    pub fn refresh(&mut self) {
        let clock_now = self.clock.now();
        let due = self
            .source
            .replay_mut()
            .map_or(0, |replay| replay.due_steps(clock_now));
        for _ in 0..due {
            self.step_replay();
        }
        let snapshot = match &mut self.source {
            Source::Live(link) => link.snapshot(),
            Source::Replay(replay) => {
                self.replay_status = Some(replay.status());
                replay.snapshot(&self.run)
            }
        };
        if snapshot.version != self.snapshot.version {
            let previous = (self.snapshot.version, self.snapshot.best.clone());
            self.text.best_changed(previous.0, previous.1.clone());
            self.recent.retain(|(version, _)| *version != previous.0);
            self.recent.push_back(previous);
            while self.recent.len() > RECENT_BESTS {
                self.recent.pop_front();
            }
        }
        self.snapshot = snapshot;
        if self.best_measures.0 != self.snapshot.version {
            self.best_measures = (self.snapshot.version, Measures::of(&self.snapshot.best));
            self.line_index = Arc::new(line_starts(&self.snapshot.best));
        }
        self.tree
            .refresh(self.snapshot.version, &self.snapshot.best);
        if let Some(current) = &self.run.current
            && current.version == self.snapshot.version
        {
            let (step, removed) = (current.step, current.removed.clone());
            let removed: Vec<Range<usize>> =
                removed.into_iter().filter(|r| !r.is_empty()).collect();
            self.tree.follow_candidate(step, &removed, &self.line_index);
        }
        self.history.refresh(self.snapshot.history.len());
    }

    /// Handles a terminal event (key, mouse, resize).
    pub fn on_terminal_event(&mut self, event: TerminalEvent) {
        match event {
            TerminalEvent::Key(key) => self.on_key(key),
            TerminalEvent::Mouse(mouse) => self.on_mouse(mouse),
            _ => {}
        }
    }

    /// Sends a command to the live session.
    fn send(&self, command: Command) {
        if let Source::Live(link) = &self.source {
            link.send(command);
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
            self.quit = Some(QuitReason::User);
            return;
        }
        if self.overlay.is_some() {
            self.on_overlay_key(key);
            return;
        }
        if self.source.replay().is_some() && self.on_replay_key(key) {
            return;
        }
        match key.code {
            KeyCode::Char('q') => self.quit = Some(QuitReason::User),
            KeyCode::Char('?') => {
                self.overlay = Some(Overlay::Help);
                self.help_scroll = 0;
            }
            KeyCode::Char('d') => self.text.toggle_diff(),
            KeyCode::Char('f') => {
                self.tree.follow = true;
                self.text.follow = true;
                self.history.follow = true;
                self.notice("the cursor follows the candidate under test".into(), false);
            }
            KeyCode::Char('u') => {
                if self.tree.has_language() {
                    self.tree.lines_mode = !self.tree.lines_mode;
                }
            }
            KeyCode::Char('[') => self.tree.percent = self.tree.percent.saturating_sub(4).max(12),
            KeyCode::Char(']') => self.tree.percent = (self.tree.percent + 4).min(60),
            KeyCode::Char(digit @ '1'..='7') => {
                let index = digit as usize - '1' as usize;
                self.deck = Pane::DECK[index];
                if Pane::FOCUS_ORDER.contains(&self.deck) {
                    self.focus = self.deck;
                }
            }
            KeyCode::Tab => self.cycle_focus(true),
            KeyCode::BackTab => self.cycle_focus(false),
            KeyCode::Esc => self.text.back(),
            KeyCode::Enter if self.focus == Pane::History => self.view_history(),
            _ if self.source.replay().is_some() => self.on_pane_key(key),
            _ => self.on_live_key(key),
        }
    }

    /// The keys that steer a live session.
    fn on_live_key(&mut self, key: KeyEvent) {
        match key.code {
            KeyCode::Char(' ') => {
                if self.snapshot.paused {
                    self.send(Command::Resume);
                    self.snapshot.paused = false;
                    self.snapshot.step_mode = false;
                } else {
                    self.send(Command::Pause);
                    self.snapshot.paused = true;
                }
            }
            KeyCode::Char('n') => {
                self.send(Command::Step);
                self.snapshot.paused = true;
                self.snapshot.step_mode = true;
            }
            KeyCode::Char('p') => self.toggle_pin(),
            KeyCode::Char('a') => self.open_picker(),
            KeyCode::Char('+') | KeyCode::Char('=') => self.change_split_factor(true),
            KeyCode::Char('-') | KeyCode::Char('_') => self.change_split_factor(false),
            KeyCode::Char('j') => self.change_jobs(false),
            KeyCode::Char('J') => self.change_jobs(true),
            KeyCode::Char('r') => self.propose_removal(),
            KeyCode::Char('h') => self.open_hoist(),
            KeyCode::Char('z') => {
                self.send(Command::Undo);
                self.notice(
                    "undoing the last kept manual edit or restart…".into(),
                    false,
                );
            }
            KeyCode::Char('s') => {
                self.send(Command::SkipStage);
                let last = self.snapshot.stage_index + 1 >= self.snapshot.stage_count;
                let said = if last {
                    "skipping the last stage: the reduction ends with the best so far \
                     (a: run an algorithm on it again)"
                } else {
                    "skipping the current stage"
                };
                self.notice(said.into(), false);
            }
            KeyCode::Char('R') => self.restart_from_history(),
            _ => self.on_pane_key(key),
        }
    }

    /// The keys that move a replay; false when the key is not one of them.
    fn on_replay_key(&mut self, key: KeyEvent) -> bool {
        let now = self.clock.now();
        let Some(replay) = self.source.replay_mut() else {
            return false;
        };
        match key.code {
            KeyCode::Char('n') | KeyCode::Right => {
                replay.playing = false;
                self.step_replay();
            }
            KeyCode::Char('b') | KeyCode::Left => {
                replay.playing = false;
                let position = replay.position.saturating_sub(1);
                self.jump_to(position);
            }
            KeyCode::Char(' ') => replay.toggle_play(now),
            KeyCode::Char('+') | KeyCode::Char('=') => replay.change_speed(true),
            KeyCode::Char('-') | KeyCode::Char('_') => replay.change_speed(false),
            KeyCode::Home => {
                replay.playing = false;
                self.jump_to(0);
            }
            KeyCode::End => {
                replay.playing = false;
                let last = replay.replay.len();
                self.jump_to(last);
            }
            KeyCode::Char('g') => {
                replay.playing = false;
                self.overlay = Some(Overlay::GoTo {
                    input: String::new(),
                });
            }
            KeyCode::Char('p' | 'r' | 'h' | 'a' | 's' | 'R' | 'z' | 'j' | 'J') => {
                self.notice(
                    "this is a replay: it shows what was recorded and changes nothing".into(),
                    true,
                );
            }
            _ => return false,
        }
        true
    }

    /// One step forward in a replay.
    fn step_replay(&mut self) {
        let Some(replay) = self.source.replay_mut() else {
            return;
        };
        let events = replay.step_forward();
        self.fold_replayed(events);
    }

    /// Moves a replay to `position`, rebuilding what the screen knows from the start.
    pub fn jump_to(&mut self, position: usize) {
        let Some(replay) = self.source.replay_mut() else {
            return;
        };
        let input_size = replay.replay.input.len();
        if position == replay.position + 1 {
            self.step_replay();
            return;
        }
        let events = replay.jump(position);
        let notice = self.run.notice.take();
        self.run = RunModel::new(input_size);
        self.fold_replayed(events);
        if self.run.notice.is_none() {
            self.run.notice = notice;
        }
        self.tree.follow = true;
        self.text.follow = true;
    }

    fn fold_replayed(&mut self, events: Vec<whittle_core::engine::replay::TimedEvent>) {
        for (event, seconds) in events {
            let running = Duration::from_secs_f64(seconds.max(0.0));
            self.run.apply(event, self.started + running, running);
        }
        if let Some(replay) = self.source.replay() {
            self.replay_status = Some(replay.status());
        }
    }

    fn notice(&mut self, text: String, warning: bool) {
        self.run.notice = Some(Notice {
            text,
            warning,
            at: self.now(),
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
        // The compact layout shows the focused pane's tab (the test case and the
        // Configuration pane are always on screen).
        if Pane::DECK.contains(&self.focus) {
            self.deck = self.focus;
        }
    }

    fn change_split_factor(&mut self, up: bool) {
        let next = match (self.snapshot.split_factor, up) {
            (SplitFactor::Finite(nu), true) if nu >= MAX_FINITE_SPLIT => SplitFactor::Infinite,
            (SplitFactor::Finite(nu), true) => SplitFactor::Finite(nu + 1),
            (SplitFactor::Finite(nu), false) => SplitFactor::Finite(nu.saturating_sub(1).max(2)),
            (SplitFactor::Infinite, true) => SplitFactor::Infinite,
            (SplitFactor::Infinite, false) => SplitFactor::Finite(MAX_FINITE_SPLIT),
        };
        self.send(Command::SetSplitFactor(next));
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
        self.send(Command::SetJobs(next));
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
        let (line, column) =
            whittle_core::text::describe::line_column(&self.snapshot.best, bytes.start);
        if pinned {
            self.send(Command::Unpin(target));
            self.notice(format!("unpinning what is at {line}:{column}"), false);
        } else {
            self.send(Command::Pin(target));
            self.notice(format!("pinning what is at {line}:{column}"), false);
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
            Selection::Node { version, node, .. } => ManualEdit::RemoveNode { version, node },
            Selection::Line { line, .. } => ManualEdit::RemoveLines(line..line + 1),
        };
        self.send(Command::Propose(edit));
        self.notice("testing the proposed removal…".into(), false);
    }

    fn open_picker(&mut self) {
        self.picker.reset();
        // The running pipeline: its own entry, else the longest entry it starts with (`hddr`
        // runs: `hddr`, not `hdd`).
        let running = self.snapshot.pipeline.as_str();
        let catalogue = &self.picker.catalogue;
        let selected = catalogue
            .iter()
            .position(|p| p.name == running)
            .or_else(|| {
                catalogue
                    .iter()
                    .enumerate()
                    .filter(|(_, p)| running.starts_with(&p.name))
                    .max_by_key(|(_, p)| p.name.len())
                    .map(|(index, _)| index)
            })
            .unwrap_or(0);
        self.overlay = Some(Overlay::Picker { selected });
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
        let Some(entry) = self.snapshot.history.get(self.history.cursor) else {
            self.notice("there is no history entry to restart from".into(), true);
            return;
        };
        let index = entry.index;
        self.send(Command::RestartFrom(index));
        self.text.viewing = None;
        self.history.follow = true;
        self.notice(
            format!("restarting from history #{index} (the output keeps the smallest result)"),
            false,
        );
    }

    fn view_history(&mut self) {
        let Some(entry) = self.snapshot.history.get(self.history.cursor) else {
            return;
        };
        let index = entry.index;
        match self.source.history_text(index) {
            Some(text) => self.text.view_history(index, Arc::from(text)),
            None => self.notice(format!("history #{index} is not available"), true),
        }
    }

    fn on_overlay_key(&mut self, key: KeyEvent) {
        let Some(overlay) = self.overlay.as_mut() else {
            return;
        };
        match overlay {
            Overlay::Help => match key.code {
                KeyCode::Up => self.help_scroll = self.help_scroll.saturating_sub(1),
                KeyCode::Down => self.help_scroll += 1,
                KeyCode::Esc | KeyCode::Char('?') | KeyCode::Char('q') | KeyCode::Enter => {
                    self.overlay = None
                }
                _ => {}
            },
            Overlay::Picker { selected } => {
                let count = self.picker.matching().len();
                match key.code {
                    KeyCode::Up => {
                        *selected = selected.saturating_sub(1);
                        self.picker.moved = true;
                    }
                    KeyCode::Down => {
                        *selected = (*selected + 1).min(count.saturating_sub(1));
                        self.picker.moved = true;
                    }
                    KeyCode::PageUp => {
                        *selected = selected.saturating_sub(10);
                        self.picker.moved = true;
                    }
                    KeyCode::PageDown => {
                        *selected = (*selected + 10).min(count.saturating_sub(1));
                        self.picker.moved = true;
                    }
                    KeyCode::Tab => {
                        self.picker.complete();
                        *selected = 0;
                    }
                    KeyCode::Backspace => {
                        self.picker.backspace();
                        *selected = 0;
                    }
                    KeyCode::Char(c) if !c.is_whitespace() && !c.is_control() => {
                        self.picker.type_char(c);
                        *selected = 0;
                    }
                    KeyCode::Enter => match self.picker.choice(*selected) {
                        Ok(name) => {
                            self.overlay = None;
                            self.send(Command::SwitchAlgorithm(name.clone()));
                            self.notice(format!("switching to {name}"), false);
                        }
                        Err(error) => self.picker.error = Some(error),
                    },
                    KeyCode::Esc => self.overlay = None,
                    _ => {}
                }
            }
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
                    let edit = choices
                        .get(*selected)
                        .map(|(descendant, _)| ManualEdit::Hoist {
                            version: *version,
                            node: *node,
                            descendant: *descendant,
                        });
                    self.overlay = None;
                    if let Some(edit) = edit {
                        self.send(Command::Propose(edit));
                        self.notice("testing the proposed hoisting…".into(), false);
                    }
                }
                KeyCode::Esc | KeyCode::Char('h') | KeyCode::Char('q') => self.overlay = None,
                _ => {}
            },
            Overlay::GoTo { input } => match key.code {
                KeyCode::Char(digit @ '0'..='9') if input.len() < 12 => input.push(digit),
                KeyCode::Backspace => {
                    input.pop();
                }
                KeyCode::Enter => {
                    let step = input.parse::<u64>().ok();
                    self.overlay = None;
                    if let Some(step) = step
                        && let Some(replay) = self.source.replay()
                    {
                        let position = replay.replay.position_of_step(step);
                        self.jump_to(position);
                    }
                }
                KeyCode::Esc | KeyCode::Char('q') => self.overlay = None,
                _ => {}
            },
        }
    }

    /// Height of a pane's inside, for page moves.
    fn page(&self, pane: Pane) -> usize {
        self.screen
            .area(pane)
            .map_or(10, |area| area.height.saturating_sub(2).max(1) as usize)
    }

    fn on_pane_key(&mut self, key: KeyEvent) {
        let page = self.page(self.focus);
        match self.focus {
            Pane::Tree => {
                let lines = self.best_measures.1.lines;
                self.tree.on_key(key, page, lines);
            }
            Pane::TestCase => {
                self.text.on_key(key.code, page);
            }
            Pane::Output => {
                self.output.on_key(key.code, page);
            }
            Pane::History => {
                let len = self.snapshot.history.len();
                self.history.on_key(key.code, page, len);
            }
            _ => {}
        }
    }

    fn on_mouse(&mut self, mouse: MouseEvent) {
        if let MouseEventKind::Down(MouseButton::Left) = mouse.kind
            && let Some(tab) = self.screen.tab_at(mouse.column, mouse.row)
        {
            self.deck = tab;
            if Pane::FOCUS_ORDER.contains(&tab) {
                self.focus = tab;
            }
            return;
        }
        let Some((pane, area)) = self.screen.pane_at(mouse.column, mouse.row) else {
            return;
        };
        let height = area.height.saturating_sub(2) as usize;
        match mouse.kind {
            MouseEventKind::Down(MouseButton::Left) => {
                if Pane::FOCUS_ORDER.contains(&pane) {
                    self.focus = pane;
                }
                let row = mouse.row.saturating_sub(area.y + 1) as usize;
                match pane {
                    Pane::Tree => self
                        .tree
                        .on_click(Position::new(mouse.column, mouse.row), row),
                    Pane::History => {
                        let len = self.snapshot.history.len();
                        self.history.on_click(row, height, len);
                    }
                    _ => {}
                }
            }
            MouseEventKind::ScrollDown | MouseEventKind::ScrollUp => {
                let down = mouse.kind == MouseEventKind::ScrollDown;
                let code = if down { KeyCode::Down } else { KeyCode::Up };
                match pane {
                    Pane::Tree => {
                        let lines = self.best_measures.1.lines;
                        self.tree.on_scroll(down, height, lines);
                    }
                    Pane::TestCase => self.text.on_scroll(down),
                    Pane::Output => {
                        self.output.on_key(code, height);
                    }
                    Pane::History => {
                        let len = self.snapshot.history.len();
                        self.history.on_key(code, height, len);
                    }
                    _ => {}
                }
            }
            _ => {}
        }
    }

    /// Draws a frame.
    pub fn draw(&mut self, frame: &mut Frame) {
        self.screen = layout::compute(frame.area(), self.tree.percent, self.deck);
        // On a small screen the focus stays on what is shown.
        if self.screen.area(self.focus).is_none() {
            self.focus = Pane::TestCase;
        }
        let screen = self.screen.clone();
        // What the candidate removes from the best shown (nothing when it was made from
        // another version of the best).
        let removed: Vec<Range<usize>> = match &self.run.current {
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
        };
        let hoist = match &self.run.current {
            Some(current)
                if current.candidate.kind
                    == whittle_core::observe::events::CandidateKind::Hoist
                    && !removed.is_empty() =>
            {
                match current.removed[..] {
                    [ref before, ref after] if before.start <= after.end => {
                        Some((before.start..after.end, before.end..after.start))
                    }
                    _ => None,
                }
            }
            _ => None,
        };
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
            }
        }
        if let Some(deck) = &screen.deck {
            let mut spans = Vec::new();
            for (index, pane) in Pane::DECK.iter().enumerate() {
                let style = if *pane == deck.pane {
                    view.theme.selection
                } else {
                    view.theme.muted
                };
                if index > 0 {
                    spans.push(Span::styled("│", view.theme.border));
                }
                spans.push(Span::styled(layout::tab_label(index, *pane), style));
            }
            frame.render_widget(
                Paragraph::new(Line::from(spans)).style(view.theme.base),
                deck.bar,
            );
        }
        panes::footer::draw(&view, frame, screen.footer);
        match &self.overlay {
            Some(Overlay::Help) => overlays::help::draw(&view, self.help_scroll, frame),
            Some(Overlay::Picker { selected }) => self.picker.draw(&view, *selected, frame),
            Some(Overlay::Hoist {
                choices, selected, ..
            }) => overlays::hoist::draw(&view, choices, *selected, frame),
            Some(Overlay::GoTo { input }) => overlays::goto::draw(&view, input, frame),
            None => {}
        }
    }
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
            assert_eq!(
                measures.nonws,
                whittle_core::text::atoms::non_whitespace_chars(text)
            );
            assert_eq!(measures.lines, whittle_core::text::atoms::line_count(text));
        }
    }
}
