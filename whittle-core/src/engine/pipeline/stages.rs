//! Stages and how they run: the `Stages` a session drives, what a stage may know besides the
//! current best (`StageContext`), the runner of a whole pipeline, and one ddmin pass over text
//! units (DDMIN*).

use std::sync::{Arc, Mutex, PoisonError};

use crate::algorithms::blocks::{self, Level};
use crate::algorithms::dd::{self, TextDomain};
use crate::algorithms::hdd::PinSource;
use crate::algorithms::references;
use crate::algorithms::sweep::sweep;
use crate::exec::cache::UnitId;
use crate::observe::events::{Branch, Candidate, CandidateKind, Event};
use crate::params::DdOptions;
use crate::testing::control::Stop;
use crate::testing::tester::Tester;
use crate::text::atoms::{self, AtomKind};

use super::Pins;

/// Pins shared between the session and the running stage: they follow every accepted reduction.
pub type SharedPins = Arc<Mutex<Pins>>;

/// What a stage may need to know besides the current best (which the tester holds).
#[derive(Clone, Default)]
pub struct StageContext {
    /// Byte ranges of the current best that must stay intact in every candidate (live: the
    /// session maps them through each accepted reduction).
    pub pins: SharedPins,
    /// Further nodes tree stages must keep, asked at each parse (for library users).
    pub node_pins: Option<Arc<dyn PinSource>>,
}

impl StageContext {
    /// The pinned byte ranges of the current best, now.
    pub fn current_pins(&self) -> Pins {
        self.pins
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .clone()
    }
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

/// Makes the stages of a pipeline from its name (when a session switches algorithm).
pub type StagesFactory = Box<dyn Fn(&str) -> anyhow::Result<Box<dyn Stages>> + Send>;

/// Runs every stage in order, reporting each start.
pub fn run_all_stages(
    stages: &dyn Stages,
    tester: &mut Tester,
    context: &StageContext,
) -> Result<(), Stop> {
    for index in 0..stages.len() {
        tester.emit(Event::StageStarted {
            stage: stages.name(index),
            index,
            scheduled: None,
        });
        stages.run(index, tester, context)?;
    }
    Ok(())
}

/// The list minimizer of a pass over units of text.
#[derive(Clone, Copy, Debug)]
pub enum UnitMinimizer<'a> {
    /// ddmin with these options.
    Ddmin(&'a DdOptions),
    /// The chunk sweep ([`crate::algorithms::sweep`]; it ends 1-minimal by itself).
    Sweep,
}

/// One pass of `minimizer` over `atom` units of the tester's current best, to its fixed point
/// unless `fixpoint` is off. Units overlapping a pin stay in every candidate.
pub fn run_list_pass(
    tester: &mut Tester,
    minimizer: UnitMinimizer<'_>,
    fixpoint: bool,
    atom: AtomKind,
    pins: &Pins,
) -> Result<(), Stop> {
    let stage = match minimizer {
        UnitMinimizer::Ddmin(_) => format!("ddmin {atom}"),
        UnitMinimizer::Sweep => format!("sweep {atom}"),
    };
    run_unit_pass(
        tester,
        &stage,
        fixpoint,
        matches!(minimizer, UnitMinimizer::Ddmin(_)),
        atom,
        pins,
        |domain, config, tester| match minimizer {
            UnitMinimizer::Ddmin(dd) => dd::ddmin(domain, config, tester, dd),
            UnitMinimizer::Sweep => crate::algorithms::sweep::sweep(domain, config, tester),
        },
    )
}

/// One pass of a list minimizer (`minimize`) over `atom` units of the tester's current best,
/// rerun while it removes something unless `fixpoint` is off; each run is a fixed-point
/// iteration of `stage`. Units overlapping a pin stay in every candidate. Blocks go level by
/// level, each level's units cut from the text the level before left; with `follow_uses`, a
/// block removed takes the blocks that use it along (see [`references`]), and each block left
/// that others use is then tried alone.
pub(super) fn run_unit_pass(
    tester: &mut Tester,
    stage: &str,
    fixpoint: bool,
    follow_uses: bool,
    atom: AtomKind,
    pins: &Pins,
    mut minimize: impl FnMut(&TextDomain<'_>, Vec<UnitId>, &mut Tester) -> Result<Vec<UnitId>, Stop>,
) -> Result<(), Stop> {
    if atom != AtomKind::Block {
        let text = tester.best().to_vec();
        let spans = atoms::split(&text, atom);
        let level = Level {
            spans,
            fixed: Vec::new(),
        };
        let units = (level, None);
        return run_units(tester, stage, fixpoint, &text, units, pins, &mut minimize);
    }
    for depth in 0..blocks::MAX_DEPTH {
        let text = tester.best().to_vec();
        let Some(level) = blocks::level(&text, depth) else {
            break;
        };
        let users = follow_uses
            .then(|| references::users(&text, &level.spans, &level.fixed))
            .flatten();
        run_units(
            tester,
            stage,
            fixpoint,
            &text,
            (level, users),
            pins,
            &mut minimize,
        )?;
    }
    Ok(())
}

/// [`run_unit_pass`] over the units of `level` that are not fixed, with each unit's `users`
/// when a unit goes with them.
fn run_units(
    tester: &mut Tester,
    stage: &str,
    fixpoint: bool,
    text: &[u8],
    (level, users): (Level, Option<Vec<Vec<UnitId>>>),
    pins: &Pins,
    minimize: &mut impl FnMut(&TextDomain<'_>, Vec<UnitId>, &mut Tester) -> Result<Vec<UnitId>, Stop>,
) -> Result<(), Stop> {
    // Blocks inside others: the level without them all is a candidate the run has not tested,
    // and ddmin never tests it.
    let framed = !level.fixed.is_empty();
    let mut pinned = pins.pinned_units(&level.spans);
    pinned.extend(level.fixed);
    pinned.sort_unstable();
    pinned.dedup();
    let mut config: Vec<UnitId> = (0..level.spans.len() as UnitId)
        .filter(|unit| pinned.binary_search(unit).is_err())
        .collect();
    let plain = TextDomain::new(text, level.spans).with_pinned(pinned);
    let closed = users.map(|users| plain.clone().with_users(users));
    tester.begin_universe();
    // Its candidates are known to the recall by the units they remove (in a schedule).
    tester.with_window_recall(stage, |tester| {
        let uses_hold = match &closed {
            Some(closed) => uses_hold(tester, closed, &plain, &mut config)?,
            None => false,
        };
        // Where blocks go with their users, each block left that others use is tried alone too.
        let (domain, alone) = match &closed {
            Some(closed) if uses_hold => (closed, Some(&plain)),
            _ => (&plain, None),
        };
        for iteration in 1.. {
            tester.begin_fixpoint_iteration(stage, iteration);
            let before = config.len();
            config = minimize(domain, config, tester)?;
            if let Some(alone) = alone {
                config = sweep(alone, config, tester)?;
            }
            if config.len() == before || !fixpoint {
                break;
            }
        }
        if framed && let [only] = config[..] {
            dd::without_the_last(tester, domain, only, only)?;
        }
        Ok(())
    })
}

/// How many of a level's most used blocks [`uses_hold`] tries alone, at most.
const USE_PROBES: usize = 3;

/// Whether removing a block should take the blocks that use it along (see [`references`]):
/// whether most of the blocks of `config` that the most others use (of [`USE_PROBES`]), each
/// removed alone (in `plain`), leave an uninteresting text, as a name left without its
/// definition does in most languages. In a language where such a name is empty (make, the
/// shell), most definitions go alone: those removals are taken and the uses not followed.
fn uses_hold(
    tester: &mut Tester,
    closed: &TextDomain<'_>,
    plain: &TextDomain<'_>,
    config: &mut Vec<UnitId>,
) -> Result<bool, Stop> {
    let held = |unit: &UnitId| config.binary_search(unit).is_ok();
    let mut used: Vec<(usize, UnitId)> = config
        .iter()
        .map(|&unit| {
            (
                closed.users_of(unit).iter().filter(|u| held(u)).count(),
                unit,
            )
        })
        .filter(|&(users, _)| users > 0)
        .collect();
    used.sort_by(|a, b| b.0.cmp(&a.0).then(a.1.cmp(&b.1)));
    // Probes whose block could not go alone, and those that went.
    let (mut stayed, mut went) = (0, 0);
    let majority = USE_PROBES / 2 + 1;
    for &(_, unit) in used.iter().take(USE_PROBES) {
        let Ok(at) = config.binary_search(&unit) else {
            continue;
        };
        // As the chunk sweep names the removal of one unit.
        let candidate = Candidate {
            kind: CandidateKind::Sweep,
            index: at as u32,
            n: 1,
        };
        if dd::try_without(tester, plain, config, at, candidate, Branch::Sweep)? {
            config.remove(at);
            went += 1;
        } else {
            stayed += 1;
        }
        if stayed == majority || went == majority {
            break;
        }
    }
    Ok(went < majority)
}
