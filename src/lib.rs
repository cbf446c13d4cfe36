//! whittle: an interactive test-case reducer (ddmin^ν, HDD, hoisting) with a terminal UI. This
//! crate holds the front ends: the headless progress and report, the terminal UI and the command
//! line; the reduction engine is the crate `whittle-core`.
//!
//! `ARCHITECTURE.md` has the picture.

pub mod headless;

pub mod tui;

pub mod cli;
