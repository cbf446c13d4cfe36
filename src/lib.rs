//! whittle: an interactive test-case reducer (ddmin^ν, HDD, hoisting) with a terminal UI.
//!
//! The crate is organised as layers; `ARCHITECTURE.md` has the code map.

pub mod ahead;
pub mod atoms;
pub mod cache;
pub mod cli;
pub mod console;
pub mod control;
pub mod dd;
pub mod demo;
pub mod describe;
pub mod engine;
pub mod events;
pub mod hdd;
pub mod headless;
pub mod oracle;
pub mod outcome;
pub mod output;
pub mod params;
pub mod passes;
pub mod pins;
pub mod pipeline;
pub mod processes;
pub mod reduce;
pub mod replay;
pub mod rewrite;
pub mod schedule;
pub mod signals;
pub mod slurm;
pub mod stats;
pub mod sweep;
pub mod tester;
pub mod trace;
pub mod tree;
pub mod tui;
