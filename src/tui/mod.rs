//! The terminal UI: watch, understand and steer a live reduction, or replay a recorded one.
//!
//! [`App`] holds everything shown and reacts to keys, mouse and events without a terminal
//! (tests render it to ratatui's `TestBackend`); [`terminal::run`] puts it on the real
//! terminal with one loop over one channel of terminal and engine events. The run comes from a
//! `source` (a live session steered with commands, or a replay of a trace); its events are
//! folded into the `model`; `layout` places the panes (a deck of tabs on small screens); each
//! pane of `panes` draws itself and keeps its own state, the `overlays` (help, pipeline
//! picker, hoist chooser, go to step) float above them; `widgets` has the shared drawing
//! helpers, coloured by a [`Theme`] from `themes/`, with the test case highlighted by syntect
//! (`highlight`). `side_by_side` shows two runs of one input in two columns (a lesson that
//! compares two algorithms). The engine knows nothing of this: the UI reads events and snapshots and
//! sends commands.

mod app;
mod clock;
mod highlight;
mod layout;
mod model;
mod overlays;
mod panes;
pub mod side_by_side;
mod source;
pub mod terminal;
mod theme;
mod throttle;
mod widgets;

pub use app::{App, AppOptions, QuitReason};
pub use clock::{Clock, ManualClock, SystemClock};
pub use model::{Ending, RunModel};
pub use overlays::Overlay;
pub use overlays::help::{KEYS, NOTATION, REPLAY_KEYS};
pub use panes::{Pane, ReplayStatus};
pub use terminal::{LoopStats, Message, event_loop};
pub use theme::{DEFAULT_THEME, Theme, theme_names};
