//! The parameters of a reduction that every layer reads: ddmin's split factor ν, how a
//! configuration is split, the order and directions of its reduce steps, how a window of
//! parallel tests is decided, and the knobs that may change while a reduction runs (their
//! starting values: once a run starts, its `Control` owns them).

use serde::Serialize;

/// The split factor ν of ddmin^ν: a number ≥ 2, or infinity (finest granularity at once).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, serde::Deserialize)]
pub enum SplitFactor {
    Finite(u32),
    Infinite,
}

impl SplitFactor {
    /// min(len, n·ν): the granularity after splitting `n` chunks further, capped at `len`.
    pub fn grow(self, n: usize, len: usize) -> usize {
        match self {
            SplitFactor::Finite(nu) => n.saturating_mul(nu as usize).min(len),
            SplitFactor::Infinite => len,
        }
    }
}

impl std::fmt::Display for SplitFactor {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            SplitFactor::Finite(nu) => write!(f, "{nu}"),
            SplitFactor::Infinite => f.write_str("inf"),
        }
    }
}

impl std::str::FromStr for SplitFactor {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        if matches!(s, "inf" | "infinity" | "∞") {
            return Ok(SplitFactor::Infinite);
        }
        match s.parse::<u32>() {
            Ok(nu) if nu >= 2 => Ok(SplitFactor::Finite(nu)),
            _ => Err(format!(
                "the split factor must be an integer ≥ 2 or `inf`, not `{s}`"
            )),
        }
    }
}

/// Which reduce steps are tried, in which order.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum ReduceOrder {
    SubsetsFirst,
    ComplementsFirst,
    ComplementsOnly,
}

/// In which order the chunks of a partition are visited.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Direction {
    Forward,
    Backward,
}

/// How a configuration is cut into n chunks.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum SplitStyle {
    /// Zeller's: chunk i takes (L - start) / (n - i) of what is left; 30 into 4 gives 7,7,8,8.
    Zeller,
    /// Chunk i is config[L·i/n .. L·(i+1)/n].
    Balanced,
}

/// How a round's candidates are spread over the testing window.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum ParallelMode {
    /// The first interesting candidate to finish wins; the other running tests are killed.
    First,
    /// Wait for the window and take the interesting candidate first in iteration order: the
    /// result equals the sequential one.
    Stable,
    /// Subsets and complements in one window, stabilised like `stable`.
    Combined,
    /// GreeDDy: several interesting complements in a window are removed together.
    Greedy,
}

/// The words of a choice: every value in order, the name each has on the command line and in
/// reports (its `Display`), and `FromStr` for those names.
macro_rules! named_values {
    ($type:ident { $($variant:ident = $name:literal),+ $(,)? }) => {
        impl $type {
            /// Every value, in the order the command line lists them.
            pub const ALL: &'static [$type] = &[$($type::$variant),+];

            /// The name on the command line and in reports.
            pub fn name(self) -> &'static str {
                match self {
                    $($type::$variant => $name),+
                }
            }
        }

        impl ::std::fmt::Display for $type {
            fn fmt(&self, f: &mut ::std::fmt::Formatter<'_>) -> ::std::fmt::Result {
                f.write_str(self.name())
            }
        }

        impl ::std::str::FromStr for $type {
            type Err = String;

            fn from_str(s: &str) -> Result<Self, Self::Err> {
                $type::ALL
                    .iter()
                    .copied()
                    .find(|value| value.name() == s)
                    .ok_or_else(|| format!("unknown {} `{s}`", stringify!($type)))
            }
        }
    };
}
pub(crate) use named_values;

named_values!(ReduceOrder {
    SubsetsFirst = "subsets-first",
    ComplementsFirst = "complements-first",
    ComplementsOnly = "complements-only",
});
named_values!(Direction {
    Forward = "forward",
    Backward = "backward",
});
named_values!(SplitStyle {
    Zeller = "zeller",
    Balanced = "balanced",
});
named_values!(ParallelMode {
    First = "first",
    Stable = "stable",
    Combined = "combined",
    Greedy = "greedy",
});

/// What a probabilistic list minimizer believes of each unit: ProbDD's probability of being
/// needed (Wang et al. 2021) or CDD's counter of failed removals (Zhang et al. 2025).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum BeliefModel {
    ProbDd,
    Cdd,
}
named_values!(BeliefModel {
    ProbDd = "probdd",
    Cdd = "cdd",
});

/// The options of ProbDD and CDD (see [`crate::algorithms::probdd`]).
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct BeliefOptions {
    /// Every unit's probability of being needed before the first test (p₀; both papers' artifacts
    /// start at 0.1 for ProbDD, Perses at 0.25 for both).
    pub initial_probability: f64,
    /// ProbDD leaves a unit alone once its probability reaches this (the artifacts' 0.8; a unit
    /// whose removal alone failed is at 1).
    pub threshold: f64,
    /// Ties between equally likely units: `None` breaks them by position (the first first),
    /// `Some(seed)` by a shuffle drawn from the seed (the artifacts' random mode).
    pub seed: Option<u64>,
    /// After the search, one pass of single-unit removals, so that the result is 1-minimal on
    /// monotone tests as ddmin's is (neither paper guarantees it).
    pub final_check: bool,
}

impl Default for BeliefOptions {
    fn default() -> Self {
        BeliefOptions {
            initial_probability: 0.1,
            threshold: 0.8,
            seed: None,
            final_check: false,
        }
    }
}

/// The settings of ddmin that stay fixed during a run (the split factor ν and the parallel mode
/// are [`Knobs`], read live from the tester's control).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct DdOptions {
    pub order: ReduceOrder,
    pub subset_direction: Direction,
    pub complement_direction: Direction,
    pub split: SplitStyle,
}

impl Default for DdOptions {
    fn default() -> Self {
        DdOptions {
            order: ReduceOrder::SubsetsFirst,
            subset_direction: Direction::Forward,
            complement_direction: Direction::Forward,
            split: SplitStyle::Zeller,
        }
    }
}

impl DdOptions {
    /// The defaults inside a schedule: complements only, the last first (in most files a part
    /// is used after it is defined, so removing the users first frees what they used within
    /// the same round).
    pub fn scheduled() -> Self {
        DdOptions {
            order: ReduceOrder::ComplementsOnly,
            complement_direction: Direction::Backward,
            ..DdOptions::default()
        }
    }
}

/// The most tests that run at once: four per CPU, at least 8 and at most 1024. More only adds
/// threads and processes that compete for the same CPUs.
pub fn max_jobs() -> usize {
    let cpus = std::thread::available_parallelism().map_or(1, |n| n.get());
    cpus.saturating_mul(4).clamp(8, 1024)
}

/// What the user may change while a reduction runs (the UI's keys, a session's commands). The
/// settings carry their starting values; a running reduction's `Control` is their one owner,
/// and the algorithms and the tester read them from it: ν at the next granularity step, the
/// parallel mode at the next round, the testing window at the next window.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct Knobs {
    /// The split factor ν of ddmin^ν.
    pub split_factor: SplitFactor,
    /// How many tests run at once (the testing window): from 1 to [`max_jobs`].
    pub jobs: usize,
    /// How a window of parallel tests is decided.
    pub parallel: ParallelMode,
}

impl Default for Knobs {
    fn default() -> Self {
        Knobs {
            split_factor: SplitFactor::Finite(2),
            jobs: 1,
            parallel: ParallelMode::Stable,
        }
    }
}

/// A live switch of a knob: the plan of the running reduction gets a new version. The plan
/// resolved from the settings is version 0; each switch that changes a value adds one.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, serde::Deserialize)]
pub struct PlanChange {
    /// The plan's version after the switch.
    pub version: u64,
    /// What changed, in words (`split factor 2 → 4`).
    pub change: String,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn split_factor_parses_and_grows() {
        assert_eq!("inf".parse::<SplitFactor>(), Ok(SplitFactor::Infinite));
        assert_eq!("3".parse::<SplitFactor>(), Ok(SplitFactor::Finite(3)));
        assert!("1".parse::<SplitFactor>().is_err());
        assert_eq!(SplitFactor::Finite(2).grow(4, 5), 5);
        assert_eq!(SplitFactor::Finite(3).grow(2, 100), 6);
        assert_eq!(SplitFactor::Infinite.grow(2, 100), 100);
    }

    fn names<T: std::fmt::Display>(all: &[T]) -> Vec<String> {
        all.iter().map(T::to_string).collect()
    }

    #[test]
    fn keywords_keep_their_spellings() {
        assert_eq!(
            names(ReduceOrder::ALL),
            ["subsets-first", "complements-first", "complements-only"]
        );
        assert_eq!(names(Direction::ALL), ["forward", "backward"]);
        assert_eq!(names(SplitStyle::ALL), ["zeller", "balanced"]);
        assert_eq!(
            names(ParallelMode::ALL),
            ["first", "stable", "combined", "greedy"]
        );
        assert_eq!(
            "complements-only".parse::<ReduceOrder>(),
            Ok(ReduceOrder::ComplementsOnly)
        );
        assert!("fastest".parse::<ParallelMode>().is_err());
    }
}
