//! What the tester tells of each reduction it accepts: an [`Improvement`], given to the
//! [`ImprovementSink`] (the file job writes it to the output, a session keeps its history).

use crate::observe::events::{Branch, Candidate, Event};

/// A reduction that was just accepted.
pub struct Improvement<'a> {
    /// The best test case before.
    pub previous: &'a [u8],
    /// The new best test case.
    pub content: &'a [u8],
    pub branch: Branch,
    pub candidate: Candidate,
    /// Tests run so far.
    pub tests: u64,
}

/// Receives each new best test case (e.g. to write it to disk and keep the history); what it
/// has to report (a write that failed, say) it gives to the second argument, which sends it
/// with the tester's events.
pub type ImprovementSink = Box<dyn FnMut(&Improvement<'_>, &dyn Fn(Event)) + Send>;
