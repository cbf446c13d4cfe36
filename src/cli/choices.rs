//! The engine's choices on the command line: value parsers that offer the names the core gives
//! each choice (`ALL`, `name`, `FromStr`) with the help the command line shows for them (the
//! core knows nothing of clap).

use clap::builder::{PossibleValue, PossibleValuesParser, TypedValueParser};
use whittle_core::exec::cache::CacheKind;
use whittle_core::params::{Direction, ParallelMode, ReduceOrder, SplitStyle};

/// A value parser of one of the core's choices: every value of `all` under its `name`, with its
/// `help` (`None`: the name says enough).
fn choice<T>(
    all: &'static [T],
    name: fn(T) -> &'static str,
    help: fn(T) -> Option<&'static str>,
) -> impl TypedValueParser<Value = T>
where
    T: Copy + Send + Sync + 'static,
{
    let possible: Vec<PossibleValue> = all
        .iter()
        .map(|&value| {
            let possible = PossibleValue::new(name(value));
            match help(value) {
                Some(help) => possible.help(help),
                None => possible,
            }
        })
        .collect();
    PossibleValuesParser::new(possible).map(move |given: String| {
        all.iter()
            .copied()
            .find(|&value| name(value) == given)
            .unwrap_or_else(|| unreachable!("clap accepts only the names offered"))
    })
}

/// `--split`.
pub fn split_style() -> impl TypedValueParser<Value = SplitStyle> {
    choice(SplitStyle::ALL, SplitStyle::name, |style| {
        Some(match style {
            SplitStyle::Zeller => {
                "Zeller's: chunk i takes (L - start) / (n - i) of what is left; 30 into 4 gives \
                 7,7,8,8"
            }
            SplitStyle::Balanced => "Chunk i is config[L·i/n .. L·(i+1)/n]",
        })
    })
}

/// `--order`.
pub fn reduce_order() -> impl TypedValueParser<Value = ReduceOrder> {
    choice(ReduceOrder::ALL, ReduceOrder::name, |_| None)
}

/// `--subset-order`, `--complement-order`.
pub fn direction() -> impl TypedValueParser<Value = Direction> {
    choice(Direction::ALL, Direction::name, |_| None)
}

/// `--cache`.
pub fn cache_kind() -> impl TypedValueParser<Value = CacheKind> {
    choice(CacheKind::ALL, CacheKind::name, |kind| {
        Some(match kind {
            CacheKind::None => "No cache: every candidate is tested",
            CacheKind::Config => {
                "Zeller's trie over unit ids; valid within one universe of units (one pass, one \
                 tree level)"
            }
            CacheKind::Content => "The serialized candidate as key",
            CacheKind::Hash => {
                "The SHA3-256 digest of the candidate as key, its size as value (Proposal 3)"
            }
        })
    })
}

/// `--parallel`.
pub fn parallel_mode() -> impl TypedValueParser<Value = ParallelMode> {
    choice(ParallelMode::ALL, ParallelMode::name, |mode| {
        Some(match mode {
            ParallelMode::First => {
                "The first interesting candidate to finish wins; the other running tests are \
                 killed"
            }
            ParallelMode::Stable => {
                "Wait for the window and take the interesting candidate first in iteration \
                 order: the result equals the sequential one"
            }
            ParallelMode::Combined => {
                "Subsets and complements in one window, stabilised like `stable`"
            }
            ParallelMode::Greedy => {
                "GreeDDy: several interesting complements in a window are removed together"
            }
        })
    })
}
