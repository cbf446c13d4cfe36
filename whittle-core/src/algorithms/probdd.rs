//! ProbDD (Wang et al., ESEC/FSE 2021) and CDD (Zhang et al., ICSE 2025): list minimizers that
//! keep a belief per unit and remove, at each step, the least likely units.
//!
//! ProbDD keeps a probability pᵢ that unit i is needed (p₀ at first). Each step sorts the units
//! it has not settled by probability and removes the prefix of size s that maximizes the
//! expected gain E(s) = s·∏(1−pᵢ) over the prefix (a tie takes the larger size). If the rest is
//! interesting, the prefix is gone; if not, each of its units gets pᵢ ← pᵢ / (1 − ∏(1−pⱼ)), so a
//! unit removed alone reaches 1. A unit at the threshold or above is settled: it stays.
//!
//! CDD keeps a counter instead: the size is precomputed from the smallest counter r of the units
//! not settled, pᵣ = p₀ / (1 − 1/e)ʳ and s = argmax s·(1−pᵣ)ˢ (≈ −1/ln(1−pᵣ)); a failed removal
//! counts one more for each unit of the prefix, and a unit whose removal alone failed is
//! settled.
//!
//! Both stop when every unit is settled; neither guarantees 1-minimality, so an optional final
//! pass tries removing each unit alone. Works on any [`Domain`], like ddmin; a window holds the
//! next steps as they would be should each one before fail (the beliefs updated in between), and
//! the first interesting one in order is taken, so the result does not depend on the number of
//! jobs.

use std::ops::Range;

use crate::algorithms::dd::{Domain, merged_spans};
use crate::exec::cache::UnitId;
use crate::observe::events::{BeliefStep, Branch, Candidate, CandidateKind, Event};
use crate::params::{BeliefModel, BeliefOptions};
use crate::testing::control::Stop;
use crate::testing::tester::{CandidateSource, Tester, WindowPolicy};

/// Configurations of more units than this are shown as this many cells (see [`BeliefStep`]).
pub const BELIEF_CELLS: usize = 1024;

/// CDD's growth of the probability per round: a failed prefix of the best size multiplies its
/// units' probabilities by about 1 / (1 − 1/e) (Zhang et al., Sec. IV).
const CDD_FACTOR: f64 = 1.0 - 1.0 / std::f64::consts::E;

/// Gains closer than this count as equal when CDD picks its size (the larger is taken).
const CDD_EPSILON: f64 = 1e-6;

/// What one unit is believed to be.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Belief {
    /// ProbDD: the probability that the unit is needed.
    Probability(f64),
    /// CDD: how many failed removals the unit was part of.
    Counter(u32),
}

impl Belief {
    /// The probability the unit is needed: ProbDD's own, CDD's implied by its counter.
    fn probability(self, options: &BeliefOptions) -> f64 {
        match self {
            Belief::Probability(p) => p,
            Belief::Counter(r) => cdd_probability(options.initial_probability, r),
        }
    }

    /// The number shown for the unit: the probability, or the counter.
    pub fn value(self) -> f64 {
        match self {
            Belief::Probability(p) => p,
            Belief::Counter(r) => f64::from(r),
        }
    }
}

/// CDD's probability after `rounds` failed removals: p₀ / (1 − 1/e)^rounds.
pub fn cdd_probability(initial: f64, rounds: u32) -> f64 {
    (0..rounds).fold(initial, |p, _| p / CDD_FACTOR)
}

/// CDD's size for probability `p`: the s ≤ `most` maximizing s·(1−p)ˢ, the larger on a tie.
pub fn cdd_size(p: f64, most: usize) -> usize {
    let mut best = (1, 0.0);
    for size in 1..=most.max(1) {
        let gain = size as f64 * (1.0 - p).powi(size as i32);
        if gain > best.1 + CDD_EPSILON {
            best = (size, gain);
        } else if (gain - best.1).abs() <= CDD_EPSILON {
            best.0 = size;
        } else {
            break;
        }
    }
    best.0
}

/// One step: the positions of the configuration it removes, and why.
#[derive(Clone, Debug, PartialEq)]
pub struct Choice {
    /// Positions in the configuration, ascending.
    pub removed: Vec<usize>,
    /// The expected gain of removing them, E(s).
    pub gain: f64,
    /// E(s) for the sizes considered around the one chosen.
    pub gains: Vec<(u32, f64)>,
}

/// The search's state: the configuration and a belief per unit.
#[derive(Clone)]
pub struct Beliefs {
    model: BeliefModel,
    options: BeliefOptions,
    config: Vec<UnitId>,
    beliefs: Vec<Belief>,
    /// Units that stay: ProbDD's at the threshold, CDD's whose removal alone failed.
    settled: Vec<bool>,
    /// Whether removing every unit was tried already (it is tried once).
    tried_all: bool,
    rng: Option<fastrand::Rng>,
}

impl Beliefs {
    pub fn new(model: BeliefModel, options: BeliefOptions, config: Vec<UnitId>) -> Self {
        let initial = match model {
            BeliefModel::ProbDd => Belief::Probability(options.initial_probability),
            BeliefModel::Cdd => Belief::Counter(0),
        };
        let len = config.len();
        Beliefs {
            model,
            options,
            config,
            beliefs: vec![initial; len],
            settled: vec![false; len],
            tried_all: false,
            rng: options.seed.map(fastrand::Rng::with_seed),
        }
    }

    pub fn config(&self) -> &[UnitId] {
        &self.config
    }

    pub fn beliefs(&self) -> &[Belief] {
        &self.beliefs
    }

    pub fn settled(&self) -> &[bool] {
        &self.settled
    }

    /// Whether every unit stays.
    pub fn is_done(&self) -> bool {
        self.settled.iter().all(|&settled| settled)
    }

    /// The units not settled, least likely first: by belief, then by position (or, with a
    /// seed, in the order of a shuffle).
    fn ranked(&mut self) -> Vec<usize> {
        let mut open: Vec<usize> = (0..self.config.len())
            .filter(|&i| !self.settled[i])
            .collect();
        let key = |i: usize| self.beliefs[i].probability(&self.options);
        match &mut self.rng {
            Some(rng) => {
                rng.shuffle(&mut open);
                open.sort_by(|&a, &b| key(a).total_cmp(&key(b)));
            }
            None => open.sort_by(|&a, &b| key(a).total_cmp(&key(b)).then(a.cmp(&b))),
        }
        open
    }

    /// The next step, or `None` when every unit stays.
    pub fn choose(&mut self) -> Option<Choice> {
        let ranked = self.ranked();
        if ranked.is_empty() {
            return None;
        }
        let (size, gains) = match self.model {
            BeliefModel::ProbDd => self.probdd_size(&ranked),
            BeliefModel::Cdd => {
                let p = self.beliefs[ranked[0]].probability(&self.options);
                let size = cdd_size(p, ranked.len());
                let around = size.saturating_sub(2).max(1)..=(size + 2).min(ranked.len());
                let gains = around
                    .map(|s| (s as u32, s as f64 * (1.0 - p).powi(s as i32)))
                    .collect();
                (size, gains)
            }
        };
        let gain = gains
            .iter()
            .find(|(s, _)| *s as usize == size)
            .map_or(0.0, |(_, gain)| *gain);
        let mut removed = ranked[..size].to_vec();
        removed.sort_unstable();
        Some(Choice {
            removed,
            gain,
            gains,
        })
    }

    /// ProbDD's size: grow the prefix while E(s) does not fall (a tie takes the larger size).
    fn probdd_size(&self, ranked: &[usize]) -> (usize, Vec<(u32, f64)>) {
        let mut gains: Vec<(u32, f64)> = Vec::new();
        let mut product = 1.0;
        let mut size = 0;
        for (k, &i) in ranked.iter().enumerate() {
            product *= 1.0 - self.beliefs[i].probability(&self.options);
            let gain = (k + 1) as f64 * product;
            gains.push(((k + 1) as u32, gain));
            if size > 0 && gain < gains[size - 1].1 {
                break;
            }
            size = k + 1;
        }
        let keep = size.saturating_sub(3);
        gains.drain(..keep);
        (size, gains)
    }

    /// Whether the step would remove every unit once more (not tested again: it failed).
    fn repeats_all(&self, choice: &Choice) -> bool {
        choice.removed.len() == self.config.len() && self.tried_all
    }

    /// The removal of `choice` was not interesting: its units become more likely.
    pub fn failed(&mut self, choice: &Choice) {
        if choice.removed.len() == self.config.len() {
            self.tried_all = true;
        }
        let alone = choice.removed.len() == 1;
        match self.model {
            BeliefModel::ProbDd => {
                let product: f64 = choice
                    .removed
                    .iter()
                    .map(|&i| 1.0 - self.beliefs[i].probability(&self.options))
                    .product();
                for &i in &choice.removed {
                    let p = self.beliefs[i].probability(&self.options);
                    let raised = if alone {
                        1.0
                    } else {
                        (p / (1.0 - product)).min(1.0)
                    };
                    self.beliefs[i] = Belief::Probability(raised);
                    self.settled[i] = raised >= self.options.threshold;
                }
            }
            BeliefModel::Cdd => {
                for &i in &choice.removed {
                    if let Belief::Counter(r) = self.beliefs[i] {
                        self.beliefs[i] = Belief::Counter(r + 1);
                    }
                    self.settled[i] = alone;
                }
            }
        }
    }

    /// The removal of `choice` was interesting: its units are gone.
    pub fn removed(&mut self, choice: &Choice) {
        if choice.removed.len() == self.config.len() {
            self.tried_all = true;
        }
        let mut kept = vec![true; self.config.len()];
        for &i in &choice.removed {
            kept[i] = false;
        }
        retain_kept(&mut self.config, &kept);
        retain_kept(&mut self.beliefs, &kept);
        retain_kept(&mut self.settled, &kept);
    }

    /// The steps to judge next, each as it would be should the ones before it fail (at most
    /// `count`), with the state before each; removals of every unit tried before count as
    /// failed without a test.
    fn window(&self, count: usize) -> (Vec<Choice>, Vec<Beliefs>, Beliefs) {
        let mut state = self.clone();
        let mut choices = Vec::new();
        let mut before = Vec::new();
        while choices.len() < count.max(1) {
            let Some(choice) = state.choose() else { break };
            if state.repeats_all(&choice) {
                state.failed(&choice);
                continue;
            }
            before.push(state.clone());
            state.failed(&choice);
            choices.push(choice);
        }
        (choices, before, state)
    }

    /// What a display shows of this state and the step chosen, step `step` of the search.
    fn describe(&self, step: u32, choice: &Choice, spans: Option<&[Range<usize>]>) -> BeliefStep {
        let len = self.config.len();
        let cells = len.min(BELIEF_CELLS);
        let cell_of = |i: usize| i * cells / len.max(1);
        let mut values = vec![0.0f32; cells];
        let mut settled = vec![true; cells];
        let mut chosen = vec![false; cells];
        for i in 0..len {
            let cell = cell_of(i);
            values[cell] = values[cell].max(self.beliefs[i].value() as f32);
            settled[cell] &= self.settled[i];
        }
        for &i in &choice.removed {
            chosen[cell_of(i)] = true;
        }
        BeliefStep {
            model: self.model,
            step,
            len,
            values,
            settled,
            chosen,
            size: choice.removed.len(),
            gain: choice.gain,
            gains: choice.gains.clone(),
            spans: spans
                .filter(|spans| len <= BELIEF_CELLS && spans.len() == len)
                .map(<[Range<usize>]>::to_vec)
                .unwrap_or_default(),
        }
    }
}

/// Keeps the items of `items` whose flag in `kept` is set.
fn retain_kept<T>(items: &mut Vec<T>, kept: &[bool]) {
    let mut flags = kept.iter();
    items.retain(|_| flags.next().copied().unwrap_or(true));
}

/// One window of steps.
struct BeliefWindow<'a> {
    domain: &'a dyn Domain,
    config: &'a [UnitId],
    choices: &'a [Choice],
    /// The bytes of the configuration's units in the current best (for displays).
    spans: Option<&'a [Range<usize>]>,
    /// The step of the search the window starts at.
    first_step: u32,
}

impl BeliefWindow<'_> {
    fn parts(&self, i: usize) -> Vec<&[UnitId]> {
        kept_parts(self.config, &self.choices[i].removed)
    }
}

/// The runs of `config` between the positions of `removed` (ascending).
fn kept_parts<'a>(config: &'a [UnitId], removed: &[usize]) -> Vec<&'a [UnitId]> {
    let mut parts = Vec::with_capacity(removed.len() + 1);
    let mut start = 0;
    for &i in removed {
        if i > start {
            parts.push(&config[start..i]);
        }
        start = i + 1;
    }
    if start < config.len() {
        parts.push(&config[start..]);
    }
    parts
}

impl CandidateSource for BeliefWindow<'_> {
    fn len(&self) -> usize {
        self.choices.len()
    }

    fn candidate(&self, i: usize) -> Candidate {
        Candidate {
            kind: CandidateKind::LeastLikely,
            index: self.first_step + i as u32,
            n: self.choices[i].removed.len() as u32,
        }
    }

    fn config(&self, i: usize) -> Option<Vec<&[UnitId]>> {
        Some(self.parts(i))
    }

    fn render(&self, i: usize, out: &mut Vec<u8>) {
        self.domain.render(&self.parts(i), out);
    }

    fn removed_spans(&self, i: usize) -> Vec<Range<usize>> {
        self.spans
            .map(|spans| merged_spans(self.choices[i].removed.iter().map(|&k| &spans[k])))
            .unwrap_or_default()
    }
}

/// Runs ProbDD or CDD on `units` (whose rendering the caller knows to be interesting) and
/// returns the units left; with [`BeliefOptions::final_check`], removing any one of them alone
/// was then tried and not interesting. The tester's current best follows every accepted
/// removal, so an early stop loses nothing.
pub fn minimize(
    domain: &dyn Domain,
    units: Vec<UnitId>,
    tester: &mut Tester,
    model: BeliefModel,
    options: &BeliefOptions,
) -> Result<Vec<UnitId>, Stop> {
    let mut state = Beliefs::new(model, *options, units);
    let mut step: u32 = 0;
    while !state.is_done() {
        let count = tester.control().jobs();
        let (choices, before, all_failed) = state.window(count);
        if choices.is_empty() {
            state = all_failed;
            continue;
        }
        let spans = tester
            .wants_spans()
            .then(|| domain.unit_spans(state.config()))
            .flatten();
        if tester.wants_spans() {
            // Every step of the window, in order: a display shows the one whose candidate it
            // names (with several jobs, the one judged last).
            for (i, (state, choice)) in before.iter().zip(&choices).enumerate() {
                let index = step + i as u32;
                tester.emit(Event::Beliefs(state.describe(
                    index,
                    choice,
                    spans.as_deref(),
                )));
            }
        }
        let window = BeliefWindow {
            domain,
            config: state.config(),
            choices: &choices,
            spans: spans.as_deref(),
            first_step: step,
        };
        let found = tester.run_window(&window, WindowPolicy::FirstInOrder)?;
        let Some(&first) = found.first() else {
            step += choices.len() as u32;
            state = all_failed;
            continue;
        };
        tester.accept_from(&window, first, Branch::LeastLikely);
        step += first as u32 + 1;
        let mut next = before[first].clone();
        next.removed(&choices[first]);
        state = next;
    }
    let mut config = state.config;
    if options.final_check {
        one_unit_pass(domain, &mut config, tester)?;
    }
    tester.note_branch(Branch::Done, config.len());
    Ok(config)
}

/// Single-unit removals judged in one window, at most.
const SINGLES_PER_WINDOW: usize = 16;

/// The final check: tries removing each unit of `config` alone, first to last, and removes the
/// ones whose removal is interesting.
fn one_unit_pass(
    domain: &dyn Domain,
    config: &mut Vec<UnitId>,
    tester: &mut Tester,
) -> Result<(), Stop> {
    let mut next = 0;
    while next < config.len() {
        let count = tester.control().jobs().clamp(1, SINGLES_PER_WINDOW);
        let end = (next + count).min(config.len());
        let choices: Vec<Choice> = (next..end)
            .map(|i| Choice {
                removed: vec![i],
                gain: 0.0,
                gains: Vec::new(),
            })
            .collect();
        let spans = tester
            .wants_spans()
            .then(|| domain.unit_spans(config))
            .flatten();
        let window = SingleWindow(BeliefWindow {
            domain,
            config,
            choices: &choices,
            spans: spans.as_deref(),
            first_step: 0,
        });
        let found = tester.run_window(&window, WindowPolicy::FirstInOrder)?;
        let Some(&first) = found.first() else {
            next = end;
            continue;
        };
        tester.accept_from(&window, first, Branch::Sweep);
        let position = choices[first].removed[0];
        config.remove(position);
        next = position;
    }
    Ok(())
}

/// The final check's window: each candidate removes one unit (a sweep of one).
struct SingleWindow<'a>(BeliefWindow<'a>);

impl CandidateSource for SingleWindow<'_> {
    fn len(&self) -> usize {
        self.0.len()
    }

    fn candidate(&self, i: usize) -> Candidate {
        Candidate {
            kind: CandidateKind::Sweep,
            index: self.0.choices[i].removed[0] as u32,
            n: 1,
        }
    }

    fn config(&self, i: usize) -> Option<Vec<&[UnitId]>> {
        self.0.config(i)
    }

    fn render(&self, i: usize, out: &mut Vec<u8>) {
        self.0.render(i, out);
    }

    fn removed_spans(&self, i: usize) -> Vec<Range<usize>> {
        self.0.removed_spans(i)
    }
}

/// The candidates of the first window a search judges on `len` units, should each fail: for
/// each, the positions of the units it keeps. Lets a walk foresee its first tests.
pub fn first_window(
    len: usize,
    model: BeliefModel,
    options: &BeliefOptions,
    count: usize,
) -> Vec<Vec<Range<usize>>> {
    let state = Beliefs::new(model, *options, (0..len as UnitId).collect());
    let (choices, _, _) = state.window(count);
    choices
        .iter()
        .map(|choice| {
            let mut kept = Vec::new();
            let mut start = 0;
            for &i in &choice.removed {
                kept.push(start..i);
                start = i + 1;
            }
            kept.push(start..len);
            kept
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn options(p0: f64) -> BeliefOptions {
        BeliefOptions {
            initial_probability: p0,
            ..BeliefOptions::default()
        }
    }

    #[test]
    fn cdd_sizes_follow_the_papers_formula() {
        // s ≈ −1/ln(1−p): p₀ = 0.1 gives 9.49; 9·0.9⁹ = 10·0.9¹⁰, and a tie takes the larger.
        assert_eq!(cdd_size(0.1, 100), 10);
        assert_eq!(cdd_size(0.25, 100), 4);
        assert_eq!(cdd_size(cdd_probability(0.25, 1), 100), 2);
        assert_eq!(cdd_size(0.9, 100), 1);
        assert_eq!(cdd_size(0.1, 3), 3);
    }

    #[test]
    fn probdd_ties_take_the_larger_size() {
        // 3·0.75³ = 4·0.75⁴: the prefix of four.
        let mut state = Beliefs::new(BeliefModel::ProbDd, options(0.25), (0..8).collect());
        let choice = state.choose().unwrap();
        assert_eq!(choice.removed, [0, 1, 2, 3]);
        assert!((choice.gain - 1.265625).abs() < 1e-12);
    }

    #[test]
    fn a_failed_removal_alone_settles_the_unit() {
        for model in [BeliefModel::ProbDd, BeliefModel::Cdd] {
            let mut state = Beliefs::new(model, options(0.25), vec![7]);
            let choice = state.choose().unwrap();
            assert_eq!(choice.removed, [0]);
            state.failed(&choice);
            assert!(state.is_done(), "{model}");
        }
    }

    #[test]
    fn removing_every_unit_is_tried_once() {
        let state = Beliefs::new(BeliefModel::ProbDd, options(0.1), vec![1, 2]);
        let (choices, _, _) = state.window(3);
        // Both at once (E = 1.62 > 0.9), then, that having failed, each alone.
        assert_eq!(choices[0].removed, [0, 1]);
        assert!(choices[1..].iter().all(|c| c.removed.len() == 1));
    }

    #[test]
    fn kept_parts_are_the_runs_between_removals() {
        let config = [10, 11, 12, 13, 14];
        assert_eq!(kept_parts(&config, &[0, 2]), vec![&[11][..], &[13, 14][..]]);
        assert_eq!(kept_parts(&config, &[4]), vec![&[10, 11, 12, 13][..]]);
        assert_eq!(
            first_window(3, BeliefModel::Cdd, &options(0.25), 1),
            vec![vec![0..0, 1..1, 2..2, 3..3]]
        );
    }
}
