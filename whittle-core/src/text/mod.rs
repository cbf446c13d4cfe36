//! Text as units and as names: cutting text into lines, characters and tokens (`atoms`), how one
//! text becomes another (`delta`), short human names of code (`describe`), and prose broken
//! into lines of a width (`wrap`).

pub mod atoms;
pub mod delta;
pub mod describe;
pub mod wrap;
