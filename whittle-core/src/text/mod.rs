//! Text as units and as names: cutting text into lines, characters and tokens (`atoms`), and
//! short human names of code (`describe`).

pub mod atoms;
pub mod describe;
