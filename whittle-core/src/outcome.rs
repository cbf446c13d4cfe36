//! The outcome of an interestingness test: the papers' ✗ (fail: interesting), ✓ (pass) and ? (unresolved).

use serde::{Deserialize, Serialize};

/// What the interestingness test said about one candidate.
///
/// The papers call an interesting candidate *failing* (✗) because it still shows the failure;
/// whittle names it for what it means to the user.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Outcome {
    /// The candidate still shows the problem (✗): reduction may continue from it.
    Interesting,
    /// The candidate does not show the problem (✓).
    #[serde(rename = "not")]
    NotInteresting,
    /// The test could not decide (?): it timed out, crashed, or the candidate was skipped.
    Unresolved,
}

impl Outcome {
    /// Whether reduction may continue from this candidate.
    pub fn is_interesting(self) -> bool {
        self == Outcome::Interesting
    }

    /// The papers' symbol: ✗, ✓ or ?.
    pub fn symbol(self) -> &'static str {
        match self {
            Outcome::Interesting => "✗",
            Outcome::NotInteresting => "✓",
            Outcome::Unresolved => "?",
        }
    }

    /// The word used in traces and statistics.
    pub fn as_str(self) -> &'static str {
        match self {
            Outcome::Interesting => "interesting",
            Outcome::NotInteresting => "not",
            Outcome::Unresolved => "unresolved",
        }
    }
}

impl std::fmt::Display for Outcome {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}
