//! One ProbDD or CDD pass over text units (`probdd:line`, `cdd:token`, ...), to its fixed point
//! like DDMIN*.

use crate::algorithms::dd::TextDomain;
use crate::algorithms::probdd;
use crate::exec::cache::UnitId;
use crate::observe::events::Event;
use crate::params::{BeliefModel, BeliefOptions};
use crate::testing::control::Stop;
use crate::testing::tester::Tester;
use crate::text::atoms::{self, AtomKind};

use super::Pins;

/// One ProbDD or CDD pass over `atom` units of the tester's current best, rerun while it
/// removes something unless `fixpoint` is off. Units overlapping a pin stay in every
/// candidate.
pub fn run_belief_pass(
    tester: &mut Tester,
    belief: &BeliefOptions,
    fixpoint: bool,
    model: BeliefModel,
    atom: AtomKind,
    pins: &Pins,
) -> Result<(), Stop> {
    let stage = format!("{model} {atom}");
    let text = tester.best().to_vec();
    let spans = atoms::split(&text, atom);
    let pinned = pins.pinned_units(&spans);
    let mut config: Vec<UnitId> = (0..spans.len() as UnitId)
        .filter(|unit| pinned.binary_search(unit).is_err())
        .collect();
    let domain = TextDomain::new(&text, spans).with_pinned(pinned);
    tester.begin_universe();
    for iteration in 1.. {
        tester.emit(Event::FixpointIteration {
            stage: stage.clone(),
            iteration,
        });
        let before = config.len();
        config = probdd::minimize(&domain, config, tester, model, belief)?;
        if config.len() == before || !fixpoint {
            break;
        }
    }
    Ok(())
}
