//! ddmin^ν: the minimizing Delta Debugging algorithm with a generalised split factor (Kiss 2020,
//! Algorithm 3), its reduce orders and iteration directions (Hodován & Kiss 2016), the parallel
//! testing windows (first, stable, combined) and GreeDDy (Vince 2024, Fig. 6.2).
//!
//! The algorithm works on unit ids; a [`Domain`] turns a configuration into a test case.

use std::ops::Range;

use crate::exec::cache::UnitId;
use crate::observe::events::{Branch, Candidate, CandidateKind};
use crate::params::{DdOptions, Direction, ParallelMode, ReduceOrder, SplitFactor, SplitStyle};
use crate::testing::control::Stop;
use crate::testing::tester::{CandidateSource, Tester, WindowPolicy};

mod text;

pub use text::TextDomain;

/// What the units are: renders configurations into test cases.
pub trait Domain: Sync {
    /// Writes the test case made of the units of `parts`, which are consecutive slices of one
    /// configuration (its units in order).
    fn render(&self, parts: &[&[UnitId]], out: &mut Vec<u8>);

    /// The bytes each unit of `config` occupies in the rendering of `config`, when the domain
    /// can tell. Displays use them to show which bytes of the current best (the rendering of
    /// the current configuration) a candidate removes.
    fn unit_spans(&self, config: &[UnitId]) -> Option<Vec<Range<usize>>> {
        let _ = config;
        None
    }

    /// Writes into `out` (which is empty) the candidate the caller judges first once its
    /// reduction of this configuration ends keeping the units of `kept` (consecutive slices,
    /// in order): the first candidate of the next configuration, for a test run ahead on the
    /// prediction that the reduction ends so. False when the domain does not know it.
    fn render_after(&self, kept: &[&[UnitId]], out: &mut Vec<u8>) -> bool {
        let _ = (kept, out);
        false
    }

    /// The units of `config` its rendering holds, when that is not all of them (a unit goes
    /// with a unit it uses that `config` lacks); `None` when it holds them all.
    fn held(&self, config: &[UnitId]) -> Option<Vec<UnitId>> {
        let _ = config;
        None
    }

    /// Whether some units go with others (see [`Domain::held`]).
    fn has_users(&self) -> bool {
        false
    }
}

/// Where units go with others, the bytes of the units of `config` (at `spans`, where they are
/// in the current best) that the rendering of the configuration made of `kept` lacks: the
/// units removed and those that went with them. `None` when units go alone.
fn lacking_spans(
    domain: &dyn Domain,
    config: &[UnitId],
    spans: &[Range<usize>],
    kept: &[&[UnitId]],
) -> Option<Vec<Range<usize>>> {
    if !domain.has_users() {
        return None;
    }
    let kept = kept.concat();
    let held = domain.held(&kept).unwrap_or(kept);
    let lacking = config
        .iter()
        .zip(spans)
        .filter(|(unit, _)| held.binary_search(unit).is_err())
        .map(|(_, span)| span);
    Some(merged_spans(lacking))
}

/// Chunk boundaries of a configuration of `len` units cut into `n` chunks (n + 1 offsets).
pub fn split_bounds(len: usize, n: usize, style: SplitStyle) -> Vec<usize> {
    let n = n.clamp(1, len.max(1));
    let mut bounds = Vec::with_capacity(n + 1);
    bounds.push(0);
    match style {
        SplitStyle::Zeller => {
            let mut start = 0;
            for i in 0..n {
                start += (len - start) / (n - i);
                bounds.push(start);
            }
        }
        SplitStyle::Balanced => bounds.extend((1..=n).map(|i| len * i / n)),
    }
    bounds
}

/// The rotating complement offset: where complement checks resume after a reduction. Kept as an
/// exact fraction because it is rescaled when the granularity grows.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Offset {
    num: u64,
    den: u64,
}

impl Offset {
    const ZERO: Offset = Offset { num: 0, den: 1 };

    fn at(index: usize) -> Self {
        Offset {
            num: index as u64,
            den: 1,
        }
    }

    fn floor(self) -> usize {
        (self.num / self.den) as usize
    }

    fn rescale(self, from: usize, to: usize) -> Self {
        let num = self.num * to as u64;
        let den = self.den * from as u64;
        let g = gcd(num, den).max(1);
        Offset {
            num: num / g,
            den: den / g,
        }
    }
}

fn gcd(mut a: u64, mut b: u64) -> u64 {
    while b != 0 {
        (a, b) = (b, a % b);
    }
    a
}

/// One of ddmin's reduce steps, a candidate of a round: keep only chunk k (Δk) or remove it (∇k).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum ReduceStep {
    Subset(usize),
    Complement(usize),
}

impl ReduceStep {
    /// The positions of the units this candidate keeps, as ranges in order (a complement's
    /// two may be empty), for a partition of `len` units at `bounds`.
    fn kept(self, bounds: &[usize], len: usize) -> Vec<Range<usize>> {
        match self {
            ReduceStep::Subset(k) => std::iter::once(bounds[k]..bounds[k + 1]).collect(),
            ReduceStep::Complement(k) => vec![0..bounds[k], bounds[k + 1]..len],
        }
    }
}

/// The candidates of ddmin's first window on `len` units (the first phase of its first round):
/// for each, the positions of the units it keeps. None below two units, where ddmin judges
/// nothing. Lets an algorithm that runs ddmin on a configuration foresee its first tests.
pub fn first_window(len: usize, nu: SplitFactor, options: &DdOptions) -> Vec<Vec<Range<usize>>> {
    if len < 2 {
        return Vec::new();
    }
    let bounds = split_bounds(len, nu.grow(1, len), options.split);
    let n = bounds.len() - 1;
    let steps = match options.order {
        ReduceOrder::SubsetsFirst => subset_steps(n, options.subset_direction),
        ReduceOrder::ComplementsFirst | ReduceOrder::ComplementsOnly => {
            complement_steps(n, options.complement_direction, Offset::ZERO)
        }
    };
    steps
        .into_iter()
        .map(|step| step.kept(&bounds, len))
        .collect()
}

/// The candidates of one window of a round.
struct RoundWindow<'a> {
    domain: &'a dyn Domain,
    config: &'a [UnitId],
    bounds: &'a [usize],
    steps: Vec<ReduceStep>,
    /// The bytes of the configuration's units in the current best (see [`Domain::unit_spans`]).
    spans: Option<&'a [Range<usize>]>,
}

impl RoundWindow<'_> {
    fn n(&self) -> usize {
        self.bounds.len() - 1
    }

    fn parts(&self, step: ReduceStep) -> Vec<&[UnitId]> {
        step.kept(self.bounds, self.config.len())
            .into_iter()
            .map(|range| &self.config[range])
            .collect()
    }
}

impl CandidateSource for RoundWindow<'_> {
    fn len(&self) -> usize {
        self.steps.len()
    }

    fn candidate(&self, i: usize) -> Candidate {
        let (kind, index) = match self.steps[i] {
            ReduceStep::Subset(k) => (CandidateKind::Subset, k),
            ReduceStep::Complement(k) => (CandidateKind::Complement, k),
        };
        Candidate {
            kind,
            index: index as u32,
            n: self.n() as u32,
        }
    }

    fn config(&self, i: usize) -> Option<Vec<&[UnitId]>> {
        Some(self.parts(self.steps[i]))
    }

    fn render(&self, i: usize, out: &mut Vec<u8>) {
        self.domain.render(&self.parts(self.steps[i]), out);
    }

    fn removed_spans(&self, i: usize) -> Vec<Range<usize>> {
        let Some(spans) = self.spans else {
            return Vec::new();
        };
        let kept = self.parts(self.steps[i]);
        if let Some(lacking) = lacking_spans(self.domain, self.config, spans, &kept) {
            return lacking;
        }
        match self.steps[i] {
            ReduceStep::Subset(k) => merged_spans(
                spans[..self.bounds[k]]
                    .iter()
                    .chain(&spans[self.bounds[k + 1]..]),
            ),
            ReduceStep::Complement(k) => {
                merged_spans(spans[self.bounds[k]..self.bounds[k + 1]].iter())
            }
        }
    }
}

/// Sorted spans with the adjacent ones joined and the empty ones left out.
pub(crate) fn merged_spans<'a>(spans: impl Iterator<Item = &'a Range<usize>>) -> Vec<Range<usize>> {
    let mut merged: Vec<Range<usize>> = Vec::new();
    for span in spans.filter(|span| !span.is_empty()) {
        match merged.last_mut() {
            Some(last) if last.end == span.start => last.end = span.end,
            _ => merged.push(span.clone()),
        }
    }
    merged
}

/// The configuration without the chunks in `removed` (GreeDDy's intersection of complements).
struct Combination<'a> {
    domain: &'a dyn Domain,
    config: &'a [UnitId],
    bounds: &'a [usize],
    removed: Vec<usize>,
    /// The bytes of the configuration's units in the current best, for displays.
    spans: Option<Vec<Range<usize>>>,
}

impl<'a> Combination<'a> {
    fn new(
        domain: &'a dyn Domain,
        state: &'a Partition,
        removed: &[usize],
        tester: &Tester,
    ) -> Self {
        let mut removed = removed.to_vec();
        removed.sort_unstable();
        Combination {
            domain,
            config: &state.config,
            bounds: &state.bounds,
            removed,
            spans: tester
                .wants_spans()
                .then(|| domain.unit_spans(&state.config))
                .flatten(),
        }
    }

    /// Makes this configuration the tester's current best.
    fn accept(&self, tester: &mut Tester, branch: Branch, candidate: Candidate) {
        let mut content = Vec::new();
        self.render(0, &mut content);
        tester.accept(content, Some(&self.parts()), branch, candidate);
    }

    fn parts(&self) -> Vec<&'a [UnitId]> {
        let n = self.bounds.len() - 1;
        let mut parts = Vec::new();
        let mut k = 0;
        while k < n {
            if self.removed.contains(&k) {
                k += 1;
                continue;
            }
            let start = self.bounds[k];
            while k < n && !self.removed.contains(&k) {
                k += 1;
            }
            parts.push(&self.config[start..self.bounds[k]]);
        }
        parts
    }
}

impl CandidateSource for Combination<'_> {
    fn len(&self) -> usize {
        1
    }

    fn candidate(&self, _: usize) -> Candidate {
        Candidate {
            kind: CandidateKind::Combination,
            index: self.removed.first().copied().unwrap_or(0) as u32,
            n: (self.bounds.len() - 1) as u32,
        }
    }

    fn config(&self, _: usize) -> Option<Vec<&[UnitId]>> {
        Some(self.parts())
    }

    fn render(&self, _: usize, out: &mut Vec<u8>) {
        self.domain.render(&self.parts(), out);
    }

    fn removed_spans(&self, _: usize) -> Vec<Range<usize>> {
        let Some(spans) = &self.spans else {
            return Vec::new();
        };
        if let Some(lacking) = lacking_spans(self.domain, self.config, spans, &self.parts()) {
            return lacking;
        }
        merged_spans(
            self.removed
                .iter()
                .flat_map(|&k| &spans[self.bounds[k]..self.bounds[k + 1]]),
        )
    }
}

/// The state of ddmin₂: the configuration, its partition and the complement offset.
struct Partition {
    config: Vec<UnitId>,
    /// Chunk boundaries; a single chunk means "split before the next round".
    bounds: Vec<usize>,
    offset: Offset,
}

impl Partition {
    fn n(&self) -> usize {
        self.bounds.len() - 1
    }

    fn chunk_sizes(&self) -> Vec<u32> {
        self.bounds
            .windows(2)
            .map(|w| (w[1] - w[0]) as u32)
            .collect()
    }

    /// Keeps only chunk `k`: it is split anew next round.
    fn reduce_to_subset(&mut self, k: usize) {
        self.config = self.config[self.bounds[k]..self.bounds[k + 1]].to_vec();
        self.bounds = vec![0, self.config.len()];
        self.offset = Offset::ZERO;
    }

    /// Drops the chunks in `removed` (sorted), keeping the others as they are; the complement
    /// checks resume at the chunk that followed `resume_after` in iteration order.
    fn remove_chunks(&mut self, removed: &[usize], resume_after: usize) {
        let mut config = Vec::with_capacity(self.config.len());
        let mut bounds = vec![0];
        for k in 0..self.n() {
            if removed.contains(&k) {
                continue;
            }
            config.extend_from_slice(&self.config[self.bounds[k]..self.bounds[k + 1]]);
            bounds.push(config.len());
        }
        let before = removed.iter().filter(|&&k| k < resume_after).count();
        self.config = config;
        self.bounds = bounds;
        self.offset = Offset::at(resume_after - before);
    }

    /// Keeps only the units of `held` (a subsequence of the configuration), dropping the chunks
    /// left empty.
    fn retain(&mut self, held: &[UnitId]) {
        let n = self.n();
        let mut config = Vec::with_capacity(held.len());
        let mut bounds = vec![0];
        let mut next = held.iter().peekable();
        for k in 0..n {
            for &unit in &self.config[self.bounds[k]..self.bounds[k + 1]] {
                if next.next_if_eq(&&unit).is_some() {
                    config.push(unit);
                }
            }
            if config.len() > *bounds.last().unwrap_or(&0) {
                bounds.push(config.len());
            }
        }
        if bounds.len() == 1 {
            bounds.push(0);
        }
        self.config = config;
        self.offset = self.offset.rescale(n, bounds.len() - 1);
        self.bounds = bounds;
    }
}

/// Judges the configuration `config` without its unit at `at`, as `candidate` (a probe beside
/// ddmin's rounds), and makes it the current best (by `branch`) when interesting.
pub fn try_without(
    tester: &mut Tester,
    domain: &dyn Domain,
    config: &[UnitId],
    at: usize,
    candidate: Candidate,
    branch: Branch,
) -> Result<bool, Stop> {
    let parts: Vec<&[UnitId]> = [&config[..at], &config[at + 1..]]
        .into_iter()
        .filter(|part| !part.is_empty())
        .collect();
    let mut content = Vec::new();
    domain.render(&parts, &mut content);
    // What goes: the unit, where it is in the current best.
    let removed = match tester.wants_spans().then(|| domain.unit_spans(config)) {
        Some(Some(spans)) => vec![spans[at].clone()],
        _ => Vec::new(),
    };
    if tester.judge_in_window(candidate, &content, removed)? {
        tester.accept(content, Some(&parts), branch, candidate);
        return Ok(true);
    }
    Ok(false)
}

/// Where ddmin left the one unit `only` of `domain`, the configuration without it (ddmin never
/// tests the empty one), judged as the candidate `index` names and taken when interesting.
pub fn without_the_last(
    tester: &mut Tester,
    domain: &dyn Domain,
    only: UnitId,
    index: u32,
) -> Result<bool, Stop> {
    let probe = Candidate {
        kind: CandidateKind::EmptyConfig,
        index,
        n: 1,
    };
    try_without(tester, domain, &[only], 0, probe, Branch::EmptyConfig)
}

/// Runs ddmin^ν on `units` (whose rendering the caller knows to be interesting) and returns a
/// 1-minimal configuration, or why it stopped early. ν and the parallel mode are read from the
/// tester's control (at each granularity step and round). The tester's current best follows every
/// accepted reduction, so an early stop loses nothing.
pub fn ddmin(
    domain: &dyn Domain,
    units: Vec<UnitId>,
    tester: &mut Tester,
    options: &DdOptions,
) -> Result<Vec<UnitId>, Stop> {
    let len = units.len();
    let mut state = Partition {
        config: units,
        bounds: vec![0, len],
        offset: Offset::ZERO,
    };
    let per_chunk = match options.order {
        ReduceOrder::ComplementsOnly => 1,
        ReduceOrder::SubsetsFirst | ReduceOrder::ComplementsFirst => 2,
    };
    let mut round = 0;
    loop {
        round += 1;
        let len = state.config.len();
        if len < 2 {
            tester.note_round(state.n(), len, round, 0, || state.chunk_sizes());
            tester.note_branch(Branch::Done, state.n());
            return Ok(state.config);
        }
        if state.n() < 2 {
            let nu = tester.control().split_factor();
            state.bounds = split_bounds(len, nu.grow(1, len), options.split);
        }
        let n = state.n();
        tester.note_round(n, len, round, n * per_chunk, || state.chunk_sizes());

        let parallel = tester.control().parallel_mode();
        if reduce_round(domain, &mut state, tester, options, parallel)? {
            if let Some(held) = domain.held(&state.config) {
                state.retain(&held);
            }
            continue;
        }
        let n = state.n();
        if n < len {
            let nu = tester.control().split_factor();
            let next = nu.grow(n, len);
            state.offset = state.offset.rescale(n, next);
            state.bounds = split_bounds(len, next, options.split);
            tester.note_branch(Branch::IncreaseGranularity, next);
            continue;
        }
        tester.note_branch(Branch::Done, n);
        return Ok(state.config);
    }
}

fn subset_steps(n: usize, direction: Direction) -> Vec<ReduceStep> {
    let order: Box<dyn Iterator<Item = usize>> = match direction {
        Direction::Forward => Box::new(0..n),
        Direction::Backward => Box::new((0..n).rev()),
    };
    order.map(ReduceStep::Subset).collect()
}

fn complement_steps(n: usize, direction: Direction, offset: Offset) -> Vec<ReduceStep> {
    let order: Box<dyn Iterator<Item = usize>> = match direction {
        Direction::Forward => Box::new(0..n),
        Direction::Backward => Box::new((0..n).rev()),
    };
    let shift = offset.floor();
    order
        .map(|j| ReduceStep::Complement((j + shift) % n))
        .collect()
}

/// One round's reduce steps. Returns whether a reduction was accepted.
fn reduce_round(
    domain: &dyn Domain,
    state: &mut Partition,
    tester: &mut Tester,
    options: &DdOptions,
    parallel: ParallelMode,
) -> Result<bool, Stop> {
    let n = state.n();
    let spans = tester
        .wants_spans()
        .then(|| domain.unit_spans(&state.config))
        .flatten();
    let subsets = || subset_steps(n, options.subset_direction);
    let complements = || complement_steps(n, options.complement_direction, state.offset);
    let phases: Vec<Vec<ReduceStep>> = match (options.order, parallel) {
        (ReduceOrder::ComplementsOnly, _) => vec![complements()],
        (ReduceOrder::SubsetsFirst, ParallelMode::Combined) => {
            vec![subsets().into_iter().chain(complements()).collect()]
        }
        (ReduceOrder::ComplementsFirst, ParallelMode::Combined) => {
            vec![complements().into_iter().chain(subsets()).collect()]
        }
        (ReduceOrder::SubsetsFirst, _) => vec![subsets(), complements()],
        (ReduceOrder::ComplementsFirst, _) => vec![complements(), subsets()],
    };
    for steps in phases {
        let greedy_complements = parallel == ParallelMode::Greedy
            && matches!(steps.first(), Some(ReduceStep::Complement(_)));
        let policy = match parallel {
            ParallelMode::First => WindowPolicy::FirstToFinish,
            ParallelMode::Greedy if greedy_complements => WindowPolicy::AllInWindow,
            _ => WindowPolicy::FirstInOrder,
        };
        let window = RoundWindow {
            domain,
            config: &state.config,
            bounds: &state.bounds,
            steps,
            spans: spans.as_deref(),
        };
        let found = tester.run_window(&window, policy)?;
        let Some(&first) = found.first() else {
            continue;
        };
        if found.len() > 1 {
            let removed: Vec<usize> = found
                .iter()
                .filter_map(|&i| match window.steps[i] {
                    ReduceStep::Complement(k) => Some(k),
                    ReduceStep::Subset(_) => None,
                })
                .collect();
            drop(window);
            reduce_greedily(domain, state, tester, removed)?;
            return Ok(true);
        }
        let step = window.steps[first];
        let candidate = window.candidate(first);
        let mut content = Vec::new();
        window.render(first, &mut content);
        let parts = window.parts(step);
        let branch = match step {
            ReduceStep::Subset(_) => Branch::ReduceToSubset,
            ReduceStep::Complement(_) => Branch::ReduceToComplement,
        };
        tester.accept(content, Some(&parts), branch, candidate);
        drop(window);
        match step {
            ReduceStep::Subset(k) => state.reduce_to_subset(k),
            ReduceStep::Complement(k) => state.remove_chunks(&[k], k),
        }
        return Ok(true);
    }
    Ok(false)
}

/// GreeDDy: the window found the complements of the chunks in `found` (in iteration order)
/// interesting. Try removing all those chunks at once; if that is not interesting, remove the
/// first and add the others one by one.
fn reduce_greedily(
    domain: &dyn Domain,
    state: &mut Partition,
    tester: &mut Tester,
    found: Vec<usize>,
) -> Result<(), Stop> {
    let removed = if try_removing(domain, state, tester, &found, Branch::ReduceGreedily)? {
        found
    } else {
        // The first complement is known to be interesting: take it without a test.
        let first = found[0];
        let combination = Combination::new(domain, state, &[first], tester);
        let candidate = Candidate {
            kind: CandidateKind::Complement,
            index: first as u32,
            n: state.n() as u32,
        };
        combination.accept(tester, Branch::ReduceToComplement, candidate);
        let mut removed = vec![first];
        for &k in &found[1..] {
            let mut attempt = removed.clone();
            attempt.push(k);
            if try_removing(domain, state, tester, &attempt, Branch::ReduceGreedily)? {
                removed = attempt;
            }
        }
        removed
    };
    let resume_after = removed.last().copied().unwrap_or(0);
    let mut sorted = removed;
    sorted.sort_unstable();
    state.remove_chunks(&sorted, resume_after);
    Ok(())
}

/// Tests the configuration without the chunks in `removed`; accepts it when interesting.
fn try_removing(
    domain: &dyn Domain,
    state: &Partition,
    tester: &mut Tester,
    removed: &[usize],
    branch: Branch,
) -> Result<bool, Stop> {
    let combination = Combination::new(domain, state, removed, tester);
    let interesting = !tester
        .run_window(&combination, WindowPolicy::FirstInOrder)?
        .is_empty();
    if interesting {
        let candidate = combination.candidate(0);
        combination.accept(tester, branch, candidate);
    }
    Ok(interesting)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_candidate_shows_the_units_that_go_with_those_it_removes() {
        let spans = (0..6)
            .map(|at| crate::text::atoms::span(at, at + 1))
            .collect();
        let plain = TextDomain::new(b"abcdef", spans);
        let config: Vec<UnitId> = (0..6).collect();
        let at = plain.unit_spans(&config).expect("spans");
        let kept: [&[UnitId]; 2] = [&[0], &[2, 3, 4, 5]];
        assert_eq!(lacking_spans(&plain, &config, &at, &kept), None);
        // d uses b: without b, d goes too.
        let users = vec![vec![], vec![3], vec![], vec![], vec![], vec![]];
        let closed = plain.with_users(users);
        assert_eq!(
            lacking_spans(&closed, &config, &at, &kept),
            Some(vec![1..2, 3..4])
        );
    }

    #[test]
    fn a_partition_keeps_the_units_held_and_drops_emptied_chunks() {
        let mut state = Partition {
            config: vec![1, 2, 3, 5, 8, 9],
            bounds: vec![0, 2, 4, 6],
            offset: Offset::at(2),
        };
        state.retain(&[1, 2, 9]);
        assert_eq!(state.config, [1, 2, 9]);
        assert_eq!(state.bounds, [0, 2, 3]);
        assert_eq!(state.offset.floor(), 1);
        state.retain(&[]);
        assert_eq!((state.config.len(), state.bounds.clone()), (0, vec![0, 0]));
    }

    #[test]
    fn zeller_split_matches_the_reference() {
        let bounds = split_bounds(30, 4, SplitStyle::Zeller);
        let sizes: Vec<usize> = bounds.windows(2).map(|w| w[1] - w[0]).collect();
        assert_eq!(sizes, [7, 7, 8, 8]);
        let balanced = split_bounds(30, 4, SplitStyle::Balanced);
        let sizes: Vec<usize> = balanced.windows(2).map(|w| w[1] - w[0]).collect();
        assert_eq!(sizes, [7, 8, 7, 8]);
        assert_eq!(split_bounds(5, 4, SplitStyle::Zeller), [0, 1, 2, 3, 5]);
    }

    #[test]
    fn the_first_window_is_the_first_phase_of_the_first_round() {
        let nu = SplitFactor::Finite(2);
        let subsets_first = DdOptions::default();
        // A subset keeps one range of units.
        let one = |range: Range<usize>| std::iter::once(range).collect::<Vec<_>>();
        assert_eq!(first_window(5, nu, &subsets_first), [one(0..2), one(2..5)]);
        let complements_backward = DdOptions {
            order: ReduceOrder::ComplementsOnly,
            complement_direction: Direction::Backward,
            ..DdOptions::default()
        };
        assert_eq!(
            first_window(5, SplitFactor::Finite(3), &complements_backward),
            [vec![0..3, 5..5], vec![0..1, 3..5], vec![0..0, 1..5]]
        );
        assert!(first_window(1, nu, &subsets_first).is_empty());
    }

    #[test]
    fn offset_rescales_exactly() {
        let offset = Offset::at(1).rescale(3, 5);
        assert_eq!(offset.floor(), 1);
        assert_eq!(offset.rescale(5, 10).floor(), 3);
    }

    #[test]
    fn complement_steps_rotate() {
        let steps = complement_steps(3, Direction::Backward, Offset::at(2));
        assert_eq!(
            steps,
            [
                ReduceStep::Complement(1),
                ReduceStep::Complement(0),
                ReduceStep::Complement(2)
            ]
        );
    }
}
