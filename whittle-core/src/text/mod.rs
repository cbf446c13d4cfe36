//! Text as units and as names: cutting text into lines, characters and tokens (`atoms`), how one
//! text becomes another (`delta`), and short human names of code (`describe`).

pub mod atoms;
pub mod delta;
pub mod describe;
