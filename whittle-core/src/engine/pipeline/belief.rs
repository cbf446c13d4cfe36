//! One ProbDD or CDD pass over text units (`probdd:line`, `cdd:token`, ...), to its fixed point
//! like DDMIN*.

use crate::algorithms::probdd;
use crate::params::{BeliefModel, BeliefOptions};
use crate::testing::control::Stop;
use crate::testing::tester::Tester;
use crate::text::atoms::AtomKind;

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
    super::stages::run_unit_pass(
        tester,
        &stage,
        fixpoint,
        false,
        atom,
        pins,
        |domain, config, tester| probdd::minimize(domain, config, tester, model, belief),
    )
}
