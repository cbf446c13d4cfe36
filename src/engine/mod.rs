//! The steerable engine: a [`Session`] runs a pipeline of stages on a background thread and takes
//! commands (pause, step, pin, switch, propose, restart, stop) while it runs.

mod history;
mod pins;
mod session;

pub use history::{History, HistoryEntry};
pub use pins::{Pins, line_range};
pub use session::{
    Command, CommandSender, Edit, PinTarget, RunState, Session, SessionOptions, SessionReport,
    Snapshot, StagesFactory,
};

use crate::control::Stop;
use crate::tester::Tester;

/// Pins shared between the session and the running stage: they follow every accepted reduction.
pub type SharedPins = std::sync::Arc<std::sync::Mutex<Pins>>;

/// What a stage may need to know besides the current best (which the tester holds).
#[derive(Clone, Default)]
pub struct StageContext {
    /// Byte ranges of the current best that must stay intact in every candidate (live: the
    /// session maps them through each accepted reduction).
    pub pins: SharedPins,
    /// Further nodes tree stages must keep, asked at each parse (for library users).
    pub node_pins: Option<std::sync::Arc<dyn crate::hdd::PinSource>>,
}

impl StageContext {
    /// The pinned byte ranges of the current best, now.
    pub fn current_pins(&self) -> Pins {
        self.pins
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .clone()
    }
}

/// A pipeline: stages run in order on the tester's current best. Each stage maps an interesting
/// test case to a smaller (or equal) interesting one, so any stage may be restarted or skipped.
pub trait Stages: Send {
    /// One line naming the pipeline.
    fn describe(&self) -> String;
    fn len(&self) -> usize;
    fn is_empty(&self) -> bool {
        self.len() == 0
    }
    fn name(&self, index: usize) -> String;
    /// Runs stage `index` to its end (its fixed point where it has one).
    fn run(&self, index: usize, tester: &mut Tester, context: &StageContext) -> Result<(), Stop>;
}
