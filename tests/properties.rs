//! Property tests: for random configurations and random monotone and non-monotone tests, ddmin
//! and the chunk sweep return an interesting, 1-minimal configuration, and every cache gives the
//! same result as none.

mod common;

use std::collections::hash_map::DefaultHasher;
use std::hash::{Hash, Hasher};

use common::{ddmin_ints, is_one_minimal, knobs, sweep_ints};
use proptest::prelude::*;
use whittle_core::exec::cache::{CacheKey, CacheKind, CachePolicy, OutcomeCache};
use whittle_core::outcome::Outcome;
use whittle_core::params::{DdOptions, Direction, ParallelMode, ReduceOrder, SplitFactor};

/// A random test over configurations of integers.
#[derive(Clone, Debug)]
enum RandomTest {
    /// Interesting iff one of the cores is contained (monotone).
    AnyCore(Vec<Vec<i64>>),
    /// Interesting iff a hash of the configuration falls under a threshold, or it is the input;
    /// never for the empty configuration (not monotone).
    Hashed {
        seed: u64,
        per_mille: u64,
        input: Vec<i64>,
    },
}

impl RandomTest {
    fn is_interesting(&self, config: &[i64]) -> bool {
        match self {
            RandomTest::AnyCore(cores) => cores
                .iter()
                .any(|core| core.iter().all(|x| config.contains(x))),
            RandomTest::Hashed {
                seed,
                per_mille,
                input,
            } => {
                if config.is_empty() {
                    return false;
                }
                if config == input.as_slice() {
                    return true;
                }
                let mut hasher = DefaultHasher::new();
                (seed, config).hash(&mut hasher);
                hasher.finish() % 1000 < *per_mille
            }
        }
    }
}

fn random_case() -> impl Strategy<Value = (Vec<i64>, RandomTest)> {
    (1usize..14).prop_flat_map(|len| {
        let input: Vec<i64> = (0..len as i64).collect();
        let cores = prop::collection::vec(prop::collection::vec(0..len as i64, 1..4), 1..3)
            .prop_map(RandomTest::AnyCore);
        let hashed = (any::<u64>(), 50u64..600).prop_map({
            let input = input.clone();
            move |(seed, per_mille)| RandomTest::Hashed {
                seed,
                per_mille,
                input: input.clone(),
            }
        });
        (Just(input), prop_oneof![cores, hashed])
    })
}

fn options() -> impl Strategy<Value = (DdOptions, SplitFactor)> {
    (
        prop_oneof![
            Just(ReduceOrder::SubsetsFirst),
            Just(ReduceOrder::ComplementsFirst),
            Just(ReduceOrder::ComplementsOnly)
        ],
        prop_oneof![Just(Direction::Forward), Just(Direction::Backward)],
        prop_oneof![Just(Direction::Forward), Just(Direction::Backward)],
        prop_oneof![
            Just(SplitFactor::Finite(2)),
            Just(SplitFactor::Finite(3)),
            Just(SplitFactor::Finite(5)),
            Just(SplitFactor::Infinite)
        ],
    )
        .prop_map(|(order, subsets, complements, nu)| {
            (
                DdOptions {
                    order,
                    subset_direction: subsets,
                    complement_direction: complements,
                    ..DdOptions::default()
                },
                nu,
            )
        })
}

const CACHES: [CachePolicy; 7] = [
    CachePolicy {
        kind: CacheKind::Config,
        store_interesting: true,
        evict_larger: false,
    },
    CachePolicy {
        kind: CacheKind::Config,
        store_interesting: false,
        evict_larger: true,
    },
    CachePolicy {
        kind: CacheKind::Content,
        store_interesting: true,
        evict_larger: false,
    },
    CachePolicy {
        kind: CacheKind::Content,
        store_interesting: false,
        evict_larger: true,
    },
    CachePolicy {
        kind: CacheKind::Hash,
        store_interesting: false,
        evict_larger: true,
    },
    CachePolicy {
        kind: CacheKind::Hash,
        store_interesting: true,
        evict_larger: false,
    },
    CachePolicy {
        kind: CacheKind::Hash,
        store_interesting: false,
        evict_larger: false,
    },
];

const NO_CACHE: CachePolicy = CachePolicy {
    kind: CacheKind::None,
    store_interesting: false,
    evict_larger: false,
};

proptest! {
    #![proptest_config(ProptestConfig::with_cases(96))]

    #[test]
    fn result_is_interesting_one_minimal_and_independent_of_the_cache(
        (input, test) in random_case(),
        (options, nu) in options(),
    ) {
        prop_assume!(test.is_interesting(&input));
        let check = test.clone();
        let reference = ddmin_ints(&input, move |c| check.is_interesting(c), options, knobs(nu, 1, ParallelMode::Stable), NO_CACHE);
        prop_assert!(test.is_interesting(&reference.result));
        prop_assert!(is_one_minimal(&reference.result, &|c| test.is_interesting(c)));
        for cache in CACHES {
            let check = test.clone();
            let cached = ddmin_ints(&input, move |c| check.is_interesting(c), options, knobs(nu, 1, ParallelMode::Stable), cache);
            prop_assert_eq!(&cached.result, &reference.result, "cache {:?}", cache);
            prop_assert!(cached.stats.tests <= reference.stats.tests);
        }
    }

    #[test]
    fn sweeps_are_one_minimal_and_the_same_for_any_cache_and_number_of_jobs(
        (input, test) in random_case(),
        jobs in prop_oneof![Just(2usize), Just(3), Just(8)],
    ) {
        prop_assume!(test.is_interesting(&input));
        let nu = SplitFactor::Finite(2);
        let check = test.clone();
        let reference = sweep_ints(&input, move |c| check.is_interesting(c), knobs(nu, 1, ParallelMode::Stable), NO_CACHE);
        prop_assert!(test.is_interesting(&reference.result));
        prop_assert!(is_one_minimal(&reference.result, &|c| test.is_interesting(c)));
        let check = test.clone();
        let parallel = sweep_ints(&input, move |c| check.is_interesting(c), knobs(nu, jobs, ParallelMode::Greedy), CachePolicy::recommended());
        prop_assert_eq!(&parallel.result, &reference.result, "{} jobs", jobs);
    }

    #[test]
    fn parallel_modes_are_one_minimal_and_stable_ones_match_sequential(
        (input, test) in random_case(),
        (options, nu) in options(),
        jobs in prop_oneof![Just(2usize), Just(3), Just(8)],
    ) {
        prop_assume!(test.is_interesting(&input));
        let check = test.clone();
        let sequential = ddmin_ints(&input, move |c| check.is_interesting(c), options, knobs(nu, 1, ParallelMode::Stable), CachePolicy::recommended());
        for parallel in [ParallelMode::First, ParallelMode::Stable, ParallelMode::Combined, ParallelMode::Greedy] {
            let check = test.clone();
            let run = ddmin_ints(&input, move |c| check.is_interesting(c), options, knobs(nu, jobs, parallel), CachePolicy::recommended());
            prop_assert!(test.is_interesting(&run.result), "{}", parallel);
            prop_assert!(is_one_minimal(&run.result, &|c| test.is_interesting(c)), "{}", parallel);
            if matches!(parallel, ParallelMode::Stable | ParallelMode::Combined) {
                prop_assert_eq!(&run.result, &sequential.result, "{} with {} jobs", parallel, jobs);
            }
        }
    }

    /// The content caches answer exactly what they were told and not yet made to forget
    /// (Proposal 2's evictions on acceptance), whatever the sizes of the candidates (many of
    /// the same size, so the lookups that skip sizes no entry has are put to the test).
    #[test]
    fn content_caches_answer_what_they_hold(
        operations in prop::collection::vec((0u8..3, prop::collection::vec(0u8..2, 0..4)), 1..60),
    ) {
        for kind in [CacheKind::Content, CacheKind::Hash] {
            let mut cache = OutcomeCache::new(CachePolicy { kind, store_interesting: true, evict_larger: true });
            let mut model: std::collections::HashMap<Vec<u8>, Outcome> = Default::default();
            for (operation, content) in &operations {
                let key = CacheKey { config: &[], content: Some(content) };
                match operation {
                    0 => {
                        let outcome = if content.first() == Some(&1) { Outcome::Interesting } else { Outcome::NotInteresting };
                        cache.store(key, outcome);
                        model.insert(content.clone(), outcome);
                    }
                    1 => {
                        cache.accepted(key);
                        model.retain(|held, _| held.len() <= content.len());
                    }
                    _ => prop_assert_eq!(cache.lookup(key), model.get(content).copied(), "{:?}", kind),
                }
                prop_assert_eq!(cache.knows(content), model.contains_key(content), "{:?}", kind);
            }
        }
    }
}
