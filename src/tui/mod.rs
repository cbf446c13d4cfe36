//! The terminal UI: watch, understand and steer a live reduction.
//!
//! [`App`] holds everything shown and reacts to keys, mouse and engine events without a
//! terminal (tests render it to ratatui's `TestBackend`); [`terminal::run`] puts it on the real
//! terminal with one loop over one channel of terminal and engine events. The panes are laid
//! out in `ui`, drawn with the helpers in `widgets`, coloured by a [`Theme`] from `themes/`,
//! with the test case highlighted by syntect (`highlight`) and the parse tree kept by
//! `tree_pane`. The engine knows nothing of this: the UI reads events and snapshots and sends
//! commands.

mod app;
mod clock;
mod highlight;
mod model;
pub mod terminal;
mod theme;
mod throttle;
mod tree_pane;
mod ui;
mod widgets;

pub use app::{App, AppOptions, Overlay, Pane, QuitReason};
pub use clock::{Clock, ManualClock, SystemClock};
pub use model::{Ending, RunModel};
pub use terminal::{LoopStats, Message, event_loop};
pub use theme::{DEFAULT_THEME, Theme, theme_names};
pub use ui::KEYS;
