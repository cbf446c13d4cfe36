//! The terminal runner: raw mode, alternate screen and mouse capture (restored on every exit
//! path, panics included), and the single loop that owns one channel of terminal and engine
//! events and redraws at most every [`FRAME_INTERVAL`].

use std::io::{Stdout, Write};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use crossbeam_channel::{Receiver, RecvTimeoutError, Sender};
use ratatui::Terminal;
use ratatui::backend::{Backend, CrosstermBackend};
use ratatui::crossterm::event::{
    self, DisableMouseCapture, EnableMouseCapture, Event as TerminalEvent,
};
use ratatui::crossterm::execute;
use ratatui::crossterm::terminal::{
    EnterAlternateScreen, LeaveAlternateScreen, disable_raw_mode, enable_raw_mode,
};

use super::app::{App, QuitReason};
use whittle_core::engine::session::{CommandSender, Session};
use whittle_core::observe::events::Event;

/// The shortest time between two frames (about 30 frames a second).
pub const FRAME_INTERVAL: Duration = Duration::from_millis(33);
/// With nothing happening, the screen is still redrawn this often (clocks, statistics).
pub const IDLE_REDRAW: Duration = Duration::from_millis(250);
/// Engine events forwarded in one message, at most.
const BATCH: usize = 4096;
/// How long engine events gather before they are forwarded (well under a frame).
const GATHER: Duration = Duration::from_millis(2);

/// What the loop receives.
pub enum Message {
    /// A key, mouse or resize event, and when it was read.
    Terminal(TerminalEvent, Instant),
    /// Engine events, in order.
    Engine(Vec<Event>),
    /// The engine's event channel closed.
    EngineClosed,
    /// SIGINT / SIGTERM / SIGHUP.
    Signal,
}

/// What the loop measured.
#[derive(Clone, Debug, Default)]
pub struct LoopStats {
    pub frames: u64,
    pub engine_events: u64,
    /// Time from reading each key to the end of the frame that showed its effect.
    pub key_latencies: Vec<Duration>,
    pub duration: Duration,
    /// Time spent refreshing and drawing frames.
    pub frame_time: Duration,
    /// Time spent folding messages in.
    pub handling_time: Duration,
}

impl LoopStats {
    pub fn frames_per_second(&self) -> f64 {
        self.frames as f64 / self.duration.as_secs_f64().max(1e-9)
    }

    pub fn max_key_latency(&self) -> Option<Duration> {
        self.key_latencies.iter().max().copied()
    }

    pub fn mean_key_latency(&self) -> Option<Duration> {
        (!self.key_latencies.is_empty())
            .then(|| self.key_latencies.iter().sum::<Duration>() / self.key_latencies.len() as u32)
    }
}

/// Forwards the engine's events into the loop's channel, in batches.
pub fn forward_engine_events(events: Receiver<Event>, to: Sender<Message>) {
    std::thread::Builder::new()
        .name("whittle-ui-events".into())
        .spawn(move || {
            while let Ok(first) = events.recv() {
                let mut batch = Vec::with_capacity(256);
                batch.push(first);
                batch.extend(events.try_iter().take(BATCH - 1));
                let full = batch.len() == BATCH;
                if to.send(Message::Engine(batch)).is_err() {
                    return;
                }
                // Let events gather: the engine then rarely has to wake this thread (a system
                // call per event when it sends faster than it is read one by one).
                if !full {
                    std::thread::sleep(GATHER);
                }
            }
            let _ = to.send(Message::EngineClosed);
        })
        .ok();
}

/// Runs the loop until the app quits: folds every message in, and draws when something
/// changed and the last frame is at least [`FRAME_INTERVAL`] old.
pub fn event_loop<B: Backend>(
    terminal: &mut Terminal<B>,
    app: &mut App,
    messages: &Receiver<Message>,
) -> anyhow::Result<LoopStats>
where
    B::Error: Send + Sync + 'static,
{
    let started = Instant::now();
    let mut stats = LoopStats::default();
    let mut last_draw: Option<Instant> = None;
    let mut dirty = true;
    let mut pending_keys: Vec<Instant> = Vec::new();
    loop {
        let now = Instant::now();
        let due = last_draw.map_or(now, |at| at + FRAME_INTERVAL);
        let mut timeout = if dirty {
            due.saturating_duration_since(now)
        } else {
            last_draw.map_or(Duration::ZERO, |at| {
                (at + IDLE_REDRAW).saturating_duration_since(now)
            })
        };
        // A replay that plays wants its next step on time.
        if let Some(wake) = app.wake_within() {
            timeout = timeout.min(wake.max(FRAME_INTERVAL / 4));
        }
        match messages.recv_timeout(timeout) {
            Ok(message) => {
                let handling = Instant::now();
                handle(app, message, &mut stats, &mut pending_keys);
                dirty = true;
                // Take whatever else is waiting, but not past the next frame.
                let deadline = due.max(Instant::now());
                while Instant::now() < deadline {
                    match messages.try_recv() {
                        Ok(message) => handle(app, message, &mut stats, &mut pending_keys),
                        Err(_) => break,
                    }
                    if app.should_quit() {
                        break;
                    }
                }
                stats.handling_time += handling.elapsed();
            }
            Err(RecvTimeoutError::Timeout) => dirty = true,
            Err(RecvTimeoutError::Disconnected) if app.replay_status().is_some() => dirty = true,
            Err(RecvTimeoutError::Disconnected) => break,
        }
        if app.should_quit() {
            break;
        }
        let now = Instant::now();
        if dirty && last_draw.is_none_or(|at| now >= at + FRAME_INTERVAL) {
            app.refresh();
            terminal.draw(|frame| app.draw(frame))?;
            let drawn = Instant::now();
            stats.frame_time += drawn - now;
            stats.frames += 1;
            stats.key_latencies.extend(
                pending_keys
                    .drain(..)
                    .map(|at| drawn.saturating_duration_since(at)),
            );
            last_draw = Some(now);
            dirty = false;
        }
    }
    stats.duration = started.elapsed();
    Ok(stats)
}

fn handle(app: &mut App, message: Message, stats: &mut LoopStats, pending_keys: &mut Vec<Instant>) {
    match message {
        Message::Terminal(event, at) => {
            if matches!(event, TerminalEvent::Key(_)) {
                pending_keys.push(at);
            }
            app.on_terminal_event(event);
        }
        Message::Engine(events) => {
            stats.engine_events += events.len() as u64;
            for event in events {
                app.on_engine_event(event);
            }
        }
        Message::EngineClosed => app.on_engine_closed(),
        Message::Signal => app.on_signal(),
    }
}

/// Whether this process has the terminal in raw mode on the alternate screen.
static TERMINAL_TAKEN: AtomicBool = AtomicBool::new(false);

/// Puts the terminal back as it was (idempotent).
pub fn restore_terminal() {
    if TERMINAL_TAKEN.swap(false, Ordering::SeqCst) {
        let mut stdout = std::io::stdout();
        let _ = execute!(
            stdout,
            DisableMouseCapture,
            LeaveAlternateScreen,
            ratatui::crossterm::cursor::Show
        );
        let _ = disable_raw_mode();
        let _ = stdout.flush();
    }
}

/// Restores the terminal when dropped (early returns and unwinding).
pub(crate) struct TerminalGuard;

impl Drop for TerminalGuard {
    fn drop(&mut self) {
        restore_terminal();
    }
}

/// Puts the terminal in raw mode on the alternate screen with mouse capture, until the guard
/// is dropped.
pub(crate) fn take_terminal() -> anyhow::Result<(Terminal<CrosstermBackend<Stdout>>, TerminalGuard)>
{
    // A panic anywhere restores the terminal before the message is printed.
    static HOOK: std::sync::Once = std::sync::Once::new();
    HOOK.call_once(|| {
        let previous = std::panic::take_hook();
        std::panic::set_hook(Box::new(move |info| {
            restore_terminal();
            previous(info);
        }));
    });
    enable_raw_mode()?;
    TERMINAL_TAKEN.store(true, Ordering::SeqCst);
    let guard = TerminalGuard;
    let mut stdout = std::io::stdout();
    execute!(stdout, EnterAlternateScreen, EnableMouseCapture)?;
    let mut terminal = Terminal::new(CrosstermBackend::new(stdout))?;
    terminal.clear()?;
    Ok((terminal, guard))
}

/// Reads terminal events into the channel until `stop` is set.
fn read_terminal(to: Sender<Message>, stop: Arc<AtomicBool>) {
    std::thread::Builder::new()
        .name("whittle-ui-input".into())
        .spawn(move || {
            while !stop.load(Ordering::Relaxed) {
                match event::poll(Duration::from_millis(50)) {
                    Ok(true) => match event::read() {
                        Ok(event) => {
                            if to.send(Message::Terminal(event, Instant::now())).is_err() {
                                return;
                            }
                        }
                        Err(_) => return,
                    },
                    Ok(false) => {}
                    Err(_) => return,
                }
            }
        })
        .ok();
}

/// Runs the UI on this terminal over `session` until the user quits (or the run ends, when
/// asked to leave then). The engine is told to stop when the UI ends; waiting for it is left to
/// the caller.
pub fn run(session: &Session, app: App) -> anyhow::Result<(QuitReason, LoopStats, App)> {
    run_with(session, app, |_| {})
}

/// Like [`run`]; `also` gets a sender into the loop's channel before it starts (to feed it
/// synthetic input, as the measurements do).
pub fn run_with(
    session: &Session,
    app: App,
    also: impl FnOnce(Sender<Message>),
) -> anyhow::Result<(QuitReason, LoopStats, App)> {
    run_loop(Some((session.commands(), session.events())), app, also)
}

/// Runs the UI on this terminal over a case of several files, as [`run`] does over a file.
pub fn run_case(
    session: &whittle_core::engine::session::CaseSession,
    app: App,
) -> anyhow::Result<(QuitReason, LoopStats, App)> {
    run_loop(Some((session.commands(), session.events())), app, |_| {})
}

/// Runs the UI on this terminal without a session (a replay) until the user quits.
pub fn run_alone(app: App) -> anyhow::Result<(QuitReason, LoopStats, App)> {
    run_loop(None, app, |_| {})
}

/// The loop over a live run steered through `live` (its commands and events), or over a
/// replay.
fn run_loop(
    live: Option<(CommandSender, &Receiver<Event>)>,
    mut app: App,
    also: impl FnOnce(Sender<Message>),
) -> anyhow::Result<(QuitReason, LoopStats, App)> {
    let (sender, messages) = crossbeam_channel::unbounded();
    also(sender.clone());
    if let Err(error) = whittle_core::exec::signals::install() {
        crate::console::errln!("whittle: warning: cannot handle signals: {error}");
    }
    let commands = live.as_ref().map(|(commands, _)| commands.clone());
    let _stop_on_signal = {
        let sender = sender.clone();
        let commands = commands.clone();
        whittle_core::exec::signals::on_signal(move || {
            if let Some(commands) = &commands {
                commands.send(whittle_core::engine::session::Command::Stop);
            }
            let _ = sender.send(Message::Signal);
        })
    };
    if let Some((_, events)) = live {
        forward_engine_events(events.clone(), sender.clone());
    }
    let stop_input = Arc::new(AtomicBool::new(false));
    let (mut terminal, guard) = take_terminal()?;
    read_terminal(sender, stop_input.clone());
    let result = event_loop(&mut terminal, &mut app, &messages);
    stop_input.store(true, Ordering::Relaxed);
    if let Some(commands) = commands {
        commands.send(whittle_core::engine::session::Command::Stop);
    }
    drop(guard);
    let stats = result?;
    let reason = app.quit_reason().unwrap_or(QuitReason::User);
    Ok((reason, stats, app))
}
