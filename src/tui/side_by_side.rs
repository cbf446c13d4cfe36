//! Two runs of the same input with the same test, side by side (the lesson `cdd-vs-ddmin`:
//! ddmin and CDD on eight lines). Each column shows its pipeline, the tests it ran, its best so
//! far, where it is (ddmin's round, ProbDD's or CDD's heat strip) and the steps it judged with
//! their outcomes. `n` steps both runs, `1` and `2` one of them, space runs both to the end.

use std::sync::Arc;
use std::time::{Duration, Instant};

use ratatui::Frame;
use ratatui::crossterm::event::{
    self, Event as TerminalEvent, KeyCode, KeyEvent, KeyEventKind, KeyModifiers,
};
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::text::{Line, Span};
use ratatui::widgets::Paragraph;
use whittle_core::engine::session::{Command, CommandSender, Session};
use whittle_core::observe::events::Event;
use whittle_core::text::describe::ellipsize;

use super::model::{Ending, RunModel};
use super::panes::beliefs::belief_lines;
use super::panes::statistics::step_table;
use super::theme::Theme;
use super::widgets::{block, human_bytes};

/// How often the loop looks for keys and events when nothing comes.
const POLL: Duration = Duration::from_millis(30);

/// One of the two runs: its pipeline, what its events told, its best.
struct Column {
    pipeline: String,
    commands: CommandSender,
    model: RunModel,
    best: Arc<[u8]>,
}

impl Column {
    fn is_over(&self) -> bool {
        self.model.ending.is_some()
    }

    /// Tests run and answers the cache gave, as the events counted them.
    fn counts(&self) -> (u64, u64) {
        let counters = &self.model.counters;
        let hits = counters.cache_interesting + counters.cache_not + counters.cache_unresolved;
        (self.model.tests, hits)
    }
}

/// The two runs and what the screen shows of them.
pub struct SideBySide {
    title: String,
    columns: [Column; 2],
    theme: Theme,
    started: Instant,
    quit: bool,
}

impl SideBySide {
    /// The view of two runs of `input` (each a pipeline and the commands that steer it),
    /// titled `title`.
    pub fn new(
        title: String,
        runs: [(String, CommandSender); 2],
        input: &[u8],
        theme: Theme,
    ) -> Self {
        let best: Arc<[u8]> = input.into();
        let columns = runs.map(|(pipeline, commands)| Column {
            pipeline,
            commands,
            model: RunModel::new(input.len()),
            best: best.clone(),
        });
        SideBySide {
            title,
            columns,
            theme,
            started: Instant::now(),
            quit: false,
        }
    }

    /// An event of run `column` (0: left, 1: right).
    pub fn on_engine_event(&mut self, column: usize, event: Event) {
        let running = self.started.elapsed();
        if let Some(run) = self.columns.get_mut(column) {
            run.model.apply(event, Instant::now(), running);
        }
    }

    /// The best of run `column` as its session's snapshot tells it.
    pub fn set_best(&mut self, column: usize, best: Arc<[u8]>) {
        if let Some(run) = self.columns.get_mut(column) {
            run.best = best;
        }
    }

    /// The tests run `column` ran and the answers its cache gave.
    pub fn counts(&self, column: usize) -> (u64, u64) {
        self.columns[column].counts()
    }

    /// What the events of run `column` told.
    pub fn model(&self, column: usize) -> &RunModel {
        &self.columns[column].model
    }

    /// Whether both runs are over.
    pub fn is_over(&self) -> bool {
        self.columns.iter().all(Column::is_over)
    }

    pub fn should_quit(&self) -> bool {
        self.quit
    }

    pub fn on_key(&mut self, key: KeyEvent) {
        let step = |run: &Column| {
            if !run.is_over() {
                run.commands.send(Command::Step);
            }
        };
        match key.code {
            KeyCode::Char('q') | KeyCode::Esc => self.quit = true,
            KeyCode::Char('c') if key.modifiers.contains(KeyModifiers::CONTROL) => self.quit = true,
            KeyCode::Char('n') => self.columns.iter().for_each(step),
            KeyCode::Char('1') => step(&self.columns[0]),
            KeyCode::Char('2') => step(&self.columns[1]),
            KeyCode::Char(' ') => {
                for run in &self.columns {
                    run.commands.send(Command::Resume);
                }
            }
            _ => {}
        }
    }

    pub fn draw(&self, frame: &mut Frame) {
        let theme = &self.theme;
        let [header, body, footer] = Layout::vertical([
            Constraint::Length(1),
            Constraint::Min(3),
            Constraint::Length(1),
        ])
        .areas(frame.area());
        frame.render_widget(
            Paragraph::new(Line::from(vec![
                Span::styled(" whittle ", theme.header),
                Span::styled(format!(" {}", self.title), theme.base),
            ])),
            header,
        );
        let [left, right] =
            Layout::horizontal([Constraint::Percentage(50), Constraint::Percentage(50)])
                .areas(body);
        for (run, area) in self.columns.iter().zip([left, right]) {
            self.draw_column(run, frame, area);
        }
        frame.render_widget(
            Paragraph::new(Line::styled(
                " n step both · 1 step the left · 2 step the right · space run both · q quit",
                theme.muted,
            )),
            footer,
        );
    }

    fn draw_column(&self, run: &Column, frame: &mut Frame, area: Rect) {
        let theme = &self.theme;
        let width = area.width.saturating_sub(2) as usize;
        let height = area.height.saturating_sub(2) as usize;
        let (tests, hits) = run.counts();
        let state = match &run.model.ending {
            Some(Ending::Done) => "done".to_string(),
            Some(Ending::Stopped(reason)) => format!("stopped: {reason}"),
            Some(Ending::Failed(message)) => format!("failed: {message}"),
            None => "step mode".to_string(),
        };
        let mut lines = vec![Line::from(vec![
            Span::styled(format!("{tests} tests"), theme.accent),
            Span::styled(
                format!(
                    " · {hits} from the cache · {} · {state}",
                    human_bytes(run.best.len())
                ),
                theme.muted,
            ),
        ])];
        let best = String::from_utf8_lossy(&run.best).replace('\n', "⏎");
        lines.push(Line::from(vec![
            Span::styled("best ", theme.muted),
            Span::styled(ellipsize(&best, width.saturating_sub(5)), theme.base),
        ]));
        lines.extend(where_it_is(&run.model, width, theme));
        lines.push(Line::default());
        let rows = height.saturating_sub(lines.len());
        if rows > 0 {
            lines.extend(step_table(&run.model.log, rows, width, theme, |_| None));
        }
        frame.render_widget(
            Paragraph::new(lines).block(block(format!(" {} ", run.pipeline), false, theme)),
            area,
        );
    }
}

/// Where a run is: ProbDD's or CDD's beliefs, or ddmin's round.
fn where_it_is(model: &RunModel, width: usize, theme: &Theme) -> Vec<Line<'static>> {
    if let Some(beliefs) = &model.view.beliefs {
        return belief_lines(beliefs, "lines", width, theme);
    }
    match &model.view.round {
        Some(round) => vec![Line::styled(
            format!(
                "ddmin round {}: {} lines in {} chunks",
                round.round, round.len, round.n
            ),
            theme.base,
        )],
        None => Vec::new(),
    }
}

/// Runs the view on this terminal over `sessions` (left, right) until the user quits.
pub fn run(sessions: [&Session; 2], mut view: SideBySide) -> anyhow::Result<SideBySide> {
    if let Err(error) = whittle_core::exec::signals::install() {
        crate::console::errln!("whittle: warning: cannot handle signals: {error}");
    }
    let _stop_on_signal = {
        let commands: Vec<CommandSender> = sessions.iter().map(|s| s.commands()).collect();
        whittle_core::exec::signals::on_signal(move || {
            for commands in &commands {
                commands.send(Command::Stop);
            }
        })
    };
    let (mut terminal, guard) = super::terminal::take_terminal()?;
    let result = (|| -> anyhow::Result<()> {
        while !view.should_quit() && whittle_core::exec::signals::received() == 0 {
            for (column, session) in sessions.iter().enumerate() {
                while let Ok(event) = session.events().try_recv() {
                    view.on_engine_event(column, event);
                }
                view.set_best(column, session.snapshot().best);
            }
            terminal.draw(|frame| view.draw(frame))?;
            if event::poll(POLL)?
                && let TerminalEvent::Key(key) = event::read()?
                && key.kind != KeyEventKind::Release
            {
                view.on_key(key);
            }
        }
        Ok(())
    })();
    for session in sessions {
        session.commands().send(Command::Stop);
    }
    drop(guard);
    result.map(|()| view)
}
