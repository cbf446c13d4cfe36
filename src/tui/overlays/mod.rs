//! Windows over the panes: the keys (help), the pipeline picker (choose or type a pipeline,
//! with completion), the hoist chooser (a descendant of the selected node) and, in a replay,
//! the step to go to.

pub mod goto;
pub mod help;
pub mod hoist;
pub mod picker;

use whittle_core::tree::NodeId;

/// A window over the panes.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Overlay {
    Help,
    /// The pipeline picker with the highlighted entry (of those matching what was typed; see
    /// [`picker::Picker`]).
    Picker {
        selected: usize,
    },
    /// Descendants of `node` to hoist it to.
    Hoist {
        version: u64,
        node: NodeId,
        choices: Vec<(NodeId, String)>,
        selected: usize,
    },
    /// A replay's "go to step": the digits typed.
    GoTo {
        input: String,
    },
}
