//! whittle: an interactive test-case reducer (ddmin^ν, HDD, hoisting) with a terminal UI. This
//! crate holds the front ends: lines on stdout and stderr that never panic, the headless
//! progress and report, the terminal UI and the command line; the reduction engine is the crate
//! `whittle-core`.
//!
//! `ARCHITECTURE.md` has the picture.

pub mod console;

pub mod headless;

pub mod tui;

pub mod cli;
