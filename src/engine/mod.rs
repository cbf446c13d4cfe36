//! The steerable engine: a [`Session`] runs a pipeline of stages on a background thread and takes
//! commands (pause, step, pin, switch, propose, restart, stop) while it runs.

mod history;
mod session;

pub use history::{History, HistoryEntry};
pub use session::{
    Command, CommandSender, Edit, PinTarget, RunState, Session, SessionOptions, SessionReport,
    Snapshot,
};
