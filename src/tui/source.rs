//! Where the UI's run comes from: a live session (steered with commands) or a recorded one (a
//! replay, moved forwards and backwards, played at a chosen speed).

use std::sync::Arc;
use std::time::{Duration, Instant};

use super::model::RunModel;
use super::panes::ReplayStatus;
use whittle_core::engine::replay::{Replay, TimedEvent};
use whittle_core::engine::session::{CommandSender, RunState, Snapshot};

/// The speeds a replay plays at, in steps a second.
pub const SPEEDS: [f64; 9] = [0.5, 1.0, 2.0, 5.0, 10.0, 20.0, 50.0, 100.0, 500.0];

/// A replay and where it stands.
pub struct ReplaySource {
    pub replay: Replay,
    pub position: usize,
    /// Playing at `SPEEDS[speed]`.
    pub playing: bool,
    pub speed: usize,
    /// When the last step was played.
    last_played: Option<Instant>,
    /// The best at the position, cached per version.
    best: (u64, Arc<[u8]>),
}

impl ReplaySource {
    pub fn new(replay: Replay) -> ReplaySource {
        let best = (replay.version_at(0), replay.best_at(0));
        ReplaySource {
            replay,
            position: 0,
            playing: false,
            speed: 2,
            last_played: None,
            best,
        }
    }

    pub fn status(&self) -> ReplayStatus {
        ReplayStatus {
            position: self.position,
            len: self.replay.len(),
            step: self.replay.step_at(self.position),
            last_step: self.replay.last_step(),
            playing: self.playing.then_some(SPEEDS[self.speed]),
            complete: self.replay.is_complete(),
            cut: self.replay.cut().is_some(),
        }
    }

    /// Starts or stops playing.
    pub fn toggle_play(&mut self, now: Instant) {
        self.playing = !self.playing && self.position < self.replay.len();
        self.last_played = Some(now);
    }

    /// Plays faster (or slower).
    pub fn change_speed(&mut self, faster: bool) {
        self.speed = if faster {
            (self.speed + 1).min(SPEEDS.len() - 1)
        } else {
            self.speed.saturating_sub(1)
        };
    }

    /// How many steps are due by `now` while playing.
    pub fn due_steps(&mut self, now: Instant) -> usize {
        if !self.playing {
            return 0;
        }
        let last = *self.last_played.get_or_insert(now);
        let interval = Duration::from_secs_f64(1.0 / SPEEDS[self.speed]);
        let due =
            (now.saturating_duration_since(last).as_secs_f64() / interval.as_secs_f64()) as usize;
        if due > 0 {
            self.last_played = Some(last + interval * due as u32);
        }
        due
    }

    /// How long until the next step is due while playing.
    pub fn next_due(&self, now: Instant) -> Option<Duration> {
        let last = self.last_played.filter(|_| self.playing)?;
        let interval = Duration::from_secs_f64(1.0 / SPEEDS[self.speed]);
        Some((last + interval).saturating_duration_since(now))
    }

    /// The events that take the replay one step forward (none at the end).
    pub fn step_forward(&mut self) -> Vec<TimedEvent> {
        if self.position >= self.replay.len() {
            self.playing = false;
            return Vec::new();
        }
        let events = self.replay.events_step(self.position);
        self.position += 1;
        if self.position >= self.replay.len() {
            self.playing = false;
        }
        events
    }

    /// Moves to `position`; returns every event shown there (to fold into a fresh model).
    pub fn jump(&mut self, position: usize) -> Vec<TimedEvent> {
        self.position = position.min(self.replay.len());
        self.replay.events_upto(self.position)
    }

    /// Running time into the recorded run at the current position.
    pub fn time(&self) -> Duration {
        self.replay.time_at(self.position)
    }

    /// What the screen shows at the current position, as the engine's snapshot would say it.
    pub fn snapshot(&mut self, run: &RunModel) -> Snapshot {
        let version = self.replay.version_at(self.position);
        if self.best.0 != version {
            self.best = (version, self.replay.best_at(self.position));
        }
        let header = &self.replay.header;
        let state = match &run.ending {
            Some(super::model::Ending::Done) => RunState::Done,
            Some(super::model::Ending::Stopped(reason)) => RunState::Stopped(reason.clone()),
            Some(super::model::Ending::Failed(message)) => RunState::Failed(message.clone()),
            None => RunState::Running,
        };
        Snapshot {
            state,
            paused: !self.playing,
            step_mode: !self.playing,
            parked: true,
            parked_time: Duration::ZERO,
            best: self.best.1.clone(),
            version,
            input_size: self.replay.input.len(),
            pipeline: run
                .pipeline
                .clone()
                .unwrap_or_else(|| header.pipeline.clone()),
            stage: run.stage.clone(),
            stage_index: run.view.stage_index,
            stage_count: header.stage_count.max(1),
            split_factor: run
                .split_factor
                .or_else(|| header.split_factor.parse().ok())
                .unwrap_or(whittle_core::params::SplitFactor::Finite(2)),
            jobs: header.jobs.max(1),
            parallel: whittle_core::params::ParallelMode::ALL
                .iter()
                .copied()
                .find(|mode| mode.name().eq_ignore_ascii_case(&header.parallel))
                .unwrap_or(whittle_core::params::ParallelMode::Stable),
            plan_version: run.plan_version,
            pins: run.pins.clone(),
            history: self.replay.history_at(self.position),
            stats: run.derived_stats(),
            output: header.output.as_ref().map(Into::into),
            language: self.replay.language().map(|language| language.name()),
            case: None,
        }
    }
}

/// The run the UI shows.
pub enum Source {
    Live(CommandSender),
    Replay(Box<ReplaySource>),
}

impl Source {
    pub fn replay(&self) -> Option<&ReplaySource> {
        match self {
            Source::Replay(replay) => Some(replay),
            Source::Live(_) => None,
        }
    }

    pub fn replay_mut(&mut self) -> Option<&mut ReplaySource> {
        match self {
            Source::Replay(replay) => Some(replay),
            Source::Live(_) => None,
        }
    }

    /// The text of history entry `index`.
    pub fn history_text(&self, index: usize) -> Option<Vec<u8>> {
        match self {
            Source::Live(link) => link.history_text(index),
            Source::Replay(replay) => replay.replay.history_text(index),
        }
    }
}
