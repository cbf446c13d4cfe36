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

/// A pipeline the user can switch to.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PipelineInfo {
    /// What [`Command::SwitchAlgorithm`] takes.
    pub name: String,
    pub description: String,
}

/// The pipelines a session can switch to.
pub fn catalogue() -> Vec<PipelineInfo> {
    [
        ("ddmin", "ddmin over the --atoms passes (default lines, then characters), each to its fixed point"),
        ("ddmin:line", "ddmin over lines, to its fixed point (DDMIN*)"),
        ("ddmin:char", "ddmin over characters, to its fixed point"),
        ("ddmin:token", "ddmin over tokens (words and punctuation), to its fixed point"),
        ("ddmin:line,char", "lines, then characters (the two-pass DDMIN* of the dissertation, ch. 5)"),
    ]
    .into_iter()
    .map(|(name, description)| PipelineInfo {
        name: name.into(),
        description: description.into(),
    })
    .collect()
}

/// What a stage may need to know besides the current best (which the tester holds).
#[derive(Clone, Debug, Default)]
pub struct StageContext {
    /// Byte ranges of the current best that must stay intact in every candidate.
    pub pins: Pins,
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
