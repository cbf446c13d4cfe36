//! The UI's state and behaviour, independent of any terminal: engine events (or a replay's)
//! and snapshots come in, keys and mouse events steer it (sending commands to the session, or
//! moving the replay), and [`App::draw`] lays out the panes and renders a frame. Tests drive
//! it headless and render it to ratatui's `TestBackend`.
//!
//! This module holds the state, its construction and the per-frame refresh; the keys shared by
//! every run are in `keys`, a live session's in `steering`, a replay's in `replay_control`, an
//! overlay's in `overlay_keys`; `mouse` handles the mouse and `draw` renders a frame.

mod case;
mod draw;
mod keys;
mod mouse;
mod overlay_keys;
mod replay_control;
mod steering;

use std::collections::VecDeque;
use std::ops::Range;
use std::sync::Arc;
use std::time::{Duration, Instant};

use ratatui::crossterm::event::Event as TerminalEvent;

use super::clock::Clock;
use super::highlight::{HighlightCache, find_syntax};
use super::layout::Screen;
use super::model::{Ending, Notice, RunModel};
use super::overlays::Overlay;
use super::overlays::picker::Picker;
use super::panes::files::FilesPane;
use super::panes::history::HistoryPane;
use super::panes::output::OutputPane;
use super::panes::test_case::TestCasePane;
use super::panes::tree::{TreePane, line_starts};
use super::panes::{HoistNodes, Measures, Pane, ReplayStatus};
use super::source::{ReplaySource, Source};
use super::theme::Theme;
use whittle_core::engine::pipeline::catalogue;
use whittle_core::engine::replay::Replay;
use whittle_core::engine::session::{Command, CommandSender, Snapshot};
use whittle_core::observe::events::Event;
use whittle_core::tree::Language;

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
    files: FilesPane,
    input_measures: Measures,
    best_measures: (u64, Measures),
    /// Where the lines of the best start, for its version.
    line_index: Arc<Vec<usize>>,
    /// Where everything was drawn, for the mouse.
    screen: Screen,
    replay_status: Option<ReplayStatus>,
    /// The nodes of the hoist under test or last judged, by kind.
    hoist_nodes: Option<HoistNodes>,
    quit: Option<QuitReason>,
    /// A case of several files: its name, and the turn (round, file) the panes show.
    case_name: String,
    case_turn: Option<(u32, Option<usize>)>,
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
            case_name: options.input_name.clone(),
            case_turn: None,
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
            files: FilesPane::default(),
            best_measures: (snapshot.version, input_measures),
            input_measures,
            line_index: Arc::new(line_starts(&snapshot.best)),
            screen: Screen::default(),
            replay_status: None,
            hoist_nodes: None,
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
        self.follow_case_file();
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
        self.name_hoist();
        self.history.refresh(self.snapshot.history.len());
        if let Some(case) = &self.snapshot.case {
            self.files.refresh(case);
        }
    }

    /// Handles a terminal event (key, mouse, resize).
    pub fn on_terminal_event(&mut self, event: TerminalEvent) {
        match event {
            TerminalEvent::Key(key) => self.on_key(key),
            TerminalEvent::Mouse(mouse) => self.on_mouse(mouse),
            _ => {}
        }
    }

    /// Sends a command to the live session; what a case of several files cannot do is said in
    /// the footer instead (then it returns false).
    fn send(&mut self, command: Command) -> bool {
        if let Some(reason) = self.case_refuses(&command) {
            self.notice(reason.into(), true);
            return false;
        }
        if let Source::Live(link) = &self.source {
            link.send(command);
        }
        true
    }

    /// Shows `text` in the footer (as a warning or not).
    fn notice(&mut self, text: String, warning: bool) {
        self.run.notice = Some(Notice {
            text,
            warning,
            at: self.now(),
        });
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
