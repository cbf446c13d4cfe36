//! whittle: an interactive test-case reducer (ddmin^ν, HDD, hoisting) with a terminal UI.
//!
//! The crate is organised as layers; `ARCHITECTURE.md` has the code map.

pub mod cli;
pub mod tree;
