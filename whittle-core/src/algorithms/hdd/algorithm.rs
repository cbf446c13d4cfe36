//! The hierarchical algorithms by name: how each walks the tree, which nodes it considers, and
//! whether it prunes, hoists, or both.

use std::fmt;
use std::str::FromStr;

use crate::params::BeliefModel;

/// How an algorithm walks the tree.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Traversal {
    /// Level by level from the root (HDD, Fig. 2.2a): one configuration per level.
    Levels,
    /// A breadth-first queue of nodes (HDD^r, Fig. 2.2b): one configuration per node's children.
    Recursive,
}

/// One hierarchical reduction algorithm (each run to its fixed point unless told otherwise).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Algorithm {
    pub traversal: Traversal,
    /// Only Φ-empty nodes (whose removal prints nothing) are considered (Fig. 2.3, 7.7c-d).
    pub coarse: bool,
    /// ddmin prunes the nodes of each configuration (removed nodes print Φ).
    pub prune: bool,
    /// TMIN^χ hoists the (kept) nodes of each configuration to compatible descendants.
    pub hoist: bool,
    /// What prunes each configuration: ddmin (the papers'), or a chunk sweep, ProbDD or CDD.
    pub pruner: Pruner,
}

/// The list minimizer that prunes each configuration of nodes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Pruner {
    /// ddmin^ν ([`crate::algorithms::dd`]).
    Ddmin,
    /// Chunk sweeps ([`crate::algorithms::sweep`]; not an algorithm of the papers).
    Sweep,
    /// ProbDD or CDD ([`crate::algorithms::probdd`]).
    Belief(BeliefModel),
}

struct Entry {
    name: &'static str,
    title: &'static str,
    figure: &'static str,
    algorithm: Algorithm,
    description: &'static str,
}

const fn algorithm(traversal: Traversal, coarse: bool, prune: bool, hoist: bool) -> Algorithm {
    Algorithm {
        traversal,
        coarse,
        prune,
        hoist,
        pruner: Pruner::Ddmin,
    }
}

const fn sweeping(algorithm: Algorithm) -> Algorithm {
    pruned_by(algorithm, Pruner::Sweep)
}

const fn pruned_by(algorithm: Algorithm, pruner: Pruner) -> Algorithm {
    Algorithm {
        pruner,
        ..algorithm
    }
}

const fn probdd(algorithm: Algorithm) -> Algorithm {
    pruned_by(algorithm, Pruner::Belief(BeliefModel::ProbDd))
}

const fn cdd(algorithm: Algorithm) -> Algorithm {
    pruned_by(algorithm, Pruner::Belief(BeliefModel::Cdd))
}

use Traversal::{Levels, Recursive};

const ENTRIES: [Entry; 24] = [
    Entry {
        name: "hdd",
        title: "HDD*",
        figure: "Fig. 2.2a",
        algorithm: algorithm(Levels, false, true, false),
        description: "ddmin over the nodes of each level, root to leaves; removed nodes print Φ",
    },
    Entry {
        name: "hddr",
        title: "HDD^r*",
        figure: "Fig. 2.2b",
        algorithm: algorithm(Recursive, false, true, false),
        description: "ddmin over the children of each node, breadth first",
    },
    Entry {
        name: "coarse-hdd",
        title: "Coarse HDD*",
        figure: "Fig. 2.3a",
        algorithm: algorithm(Levels, true, true, false),
        description: "HDD on the Φ-empty nodes only: fewer tests, larger results",
    },
    Entry {
        name: "coarse-hddr",
        title: "Coarse HDD^r*",
        figure: "Fig. 2.3b",
        algorithm: algorithm(Recursive, true, true, false),
        description: "HDD^r on the Φ-empty children only: the fewest tests",
    },
    Entry {
        name: "hoist",
        title: "Hoist*",
        figure: "Fig. 7.7a",
        algorithm: algorithm(Levels, false, false, true),
        description: "TMIN^χ on each level: replace nodes by compatible descendants, farthest first",
    },
    Entry {
        name: "hoistr",
        title: "Hoist^r*",
        figure: "Fig. 7.7b",
        algorithm: algorithm(Recursive, false, false, true),
        description: "TMIN^χ on the children of each node, breadth first",
    },
    Entry {
        name: "coarse-hoist",
        title: "Coarse Hoist*",
        figure: "Fig. 7.7c",
        algorithm: algorithm(Levels, true, false, true),
        description: "Hoist on the Φ-empty nodes only",
    },
    Entry {
        name: "coarse-hoistr",
        title: "Coarse Hoist^r*",
        figure: "Fig. 7.7d",
        algorithm: algorithm(Recursive, true, false, true),
        description: "Hoist^r on the Φ-empty children only",
    },
    Entry {
        name: "hddh",
        title: "HDDH*",
        figure: "Fig. 7.8",
        algorithm: algorithm(Levels, false, true, true),
        description: "per level, ddmin pruning, then TMIN^χ on the nodes kept",
    },
    Entry {
        name: "hddhr",
        title: "HDDH^r*",
        figure: "Fig. 7.8 with 2.2b",
        algorithm: algorithm(Recursive, false, true, true),
        description: "per node, ddmin over its children, then TMIN^χ on the children kept",
    },
    Entry {
        name: "coarse-hddh",
        title: "Coarse HDDH*",
        figure: "Fig. 7.8 with 2.3a, 7.7c",
        algorithm: algorithm(Levels, true, true, true),
        description: "HDDH on the Φ-empty nodes only",
    },
    Entry {
        name: "coarse-hddhr",
        title: "Coarse HDDH^r*",
        figure: "Fig. 7.8 with 2.3b, 7.7d",
        algorithm: algorithm(Recursive, true, true, true),
        description: "HDDH^r on the Φ-empty children only",
    },
    Entry {
        name: "hddr-sweep",
        title: "HDD^r* sweeps",
        figure: "not in the papers",
        algorithm: sweeping(algorithm(Recursive, false, true, false)),
        description: "HDD^r pruning each node's children by chunk sweeps instead of ddmin",
    },
    Entry {
        name: "hddhr-sweep",
        title: "HDDH^r* sweeps",
        figure: "not in the papers",
        algorithm: sweeping(algorithm(Recursive, false, true, true)),
        description: "HDDH^r pruning each node's children by chunk sweeps instead of ddmin",
    },
    Entry {
        name: "coarse-hddr-sweep",
        title: "Coarse HDD^r* sweeps",
        figure: "not in the papers",
        algorithm: sweeping(algorithm(Recursive, true, true, false)),
        description: "Coarse HDD^r pruning each node's children by chunk sweeps instead of ddmin",
    },
    Entry {
        name: "coarse-hddhr-sweep",
        title: "Coarse HDDH^r* sweeps",
        figure: "not in the papers",
        algorithm: sweeping(algorithm(Recursive, true, true, true)),
        description: "Coarse HDDH^r pruning each node's children by chunk sweeps instead of ddmin",
    },
    Entry {
        name: "hdd-probdd",
        title: "HDD* with ProbDD",
        figure: "Wang et al. 2021",
        algorithm: probdd(algorithm(Levels, false, true, false)),
        description: "HDD pruning each level by ProbDD (a probability per node) instead of ddmin",
    },
    Entry {
        name: "hdd-cdd",
        title: "HDD* with CDD",
        figure: "Zhang et al. 2025",
        algorithm: cdd(algorithm(Levels, false, true, false)),
        description: "HDD pruning each level by CDD (a counter per node) instead of ddmin",
    },
    Entry {
        name: "hddr-probdd",
        title: "HDD^r* with ProbDD",
        figure: "Wang et al. 2021",
        algorithm: probdd(algorithm(Recursive, false, true, false)),
        description: "HDD^r pruning each node's children by ProbDD instead of ddmin",
    },
    Entry {
        name: "hddr-cdd",
        title: "HDD^r* with CDD",
        figure: "Zhang et al. 2025",
        algorithm: cdd(algorithm(Recursive, false, true, false)),
        description: "HDD^r pruning each node's children by CDD instead of ddmin",
    },
    Entry {
        name: "hddhr-probdd",
        title: "HDDH^r* with ProbDD",
        figure: "Wang et al. 2021",
        algorithm: probdd(algorithm(Recursive, false, true, true)),
        description: "HDDH^r pruning each node's children by ProbDD instead of ddmin",
    },
    Entry {
        name: "hddhr-cdd",
        title: "HDDH^r* with CDD",
        figure: "Zhang et al. 2025",
        algorithm: cdd(algorithm(Recursive, false, true, true)),
        description: "HDDH^r pruning each node's children by CDD instead of ddmin",
    },
    Entry {
        name: "coarse-hddhr-probdd",
        title: "Coarse HDDH^r* with ProbDD",
        figure: "Wang et al. 2021",
        algorithm: probdd(algorithm(Recursive, true, true, true)),
        description: "Coarse HDDH^r pruning each node's children by ProbDD instead of ddmin",
    },
    Entry {
        name: "coarse-hddhr-cdd",
        title: "Coarse HDDH^r* with CDD",
        figure: "Zhang et al. 2025",
        algorithm: cdd(algorithm(Recursive, true, true, true)),
        description: "Coarse HDDH^r pruning each node's children by CDD instead of ddmin",
    },
];

impl Algorithm {
    pub const HDD: Algorithm = ENTRIES[0].algorithm;
    pub const HDDR: Algorithm = ENTRIES[1].algorithm;
    pub const COARSE_HDD: Algorithm = ENTRIES[2].algorithm;
    pub const COARSE_HDDR: Algorithm = ENTRIES[3].algorithm;
    pub const HOIST: Algorithm = ENTRIES[4].algorithm;
    pub const HOISTR: Algorithm = ENTRIES[5].algorithm;
    pub const COARSE_HOIST: Algorithm = ENTRIES[6].algorithm;
    pub const COARSE_HOISTR: Algorithm = ENTRIES[7].algorithm;
    pub const HDDH: Algorithm = ENTRIES[8].algorithm;
    pub const HDDHR: Algorithm = ENTRIES[9].algorithm;
    pub const COARSE_HDDH: Algorithm = ENTRIES[10].algorithm;
    pub const COARSE_HDDHR: Algorithm = ENTRIES[11].algorithm;

    /// Every algorithm, in the order `whittle algorithms` lists them.
    pub fn all() -> impl Iterator<Item = Algorithm> {
        ENTRIES.iter().map(|entry| entry.algorithm)
    }

    fn entry(self) -> &'static Entry {
        ENTRIES
            .iter()
            .find(|entry| entry.algorithm == self)
            .unwrap_or(&ENTRIES[0])
    }

    /// The name used on the command line (`hdd`, `coarse-hoistr`, ...).
    pub fn name(self) -> &'static str {
        self.entry().name
    }

    /// The name the dissertation uses (`HDD^r*`, `Coarse HDDH*`, ...).
    pub fn title(self) -> &'static str {
        self.entry().title
    }

    /// The figure of the dissertation that defines it.
    pub fn figure(self) -> &'static str {
        self.entry().figure
    }

    /// One line on what it does.
    pub fn description(self) -> &'static str {
        self.entry().description
    }
}

impl fmt::Display for Algorithm {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for Algorithm {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        ENTRIES
            .iter()
            .find(|entry| entry.name == s)
            .map(|entry| entry.algorithm)
            .ok_or_else(|| {
                let names: Vec<&str> = ENTRIES.iter().map(|entry| entry.name).collect();
                format!(
                    "unknown algorithm `{s}` (expected ddmin or one of {})",
                    names.join(", ")
                )
            })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip_and_are_distinct() {
        let all: Vec<Algorithm> = Algorithm::all().collect();
        assert_eq!(all.len(), 24);
        for (i, a) in all.iter().enumerate() {
            assert_eq!(a.name().parse::<Algorithm>(), Ok(*a));
            assert!(all[i + 1..].iter().all(|b| b != a), "{a} twice");
        }
        assert_eq!(Algorithm::HDDHR.name(), "hddhr");
        assert!("hdd*".parse::<Algorithm>().is_err());
    }
}
