//! whittle-core: the reduction engine of whittle (ddmin^ν, HDD, hoisting over tree-sitter trees),
//! without a terminal, a UI or a command line.
//!
//! The folders are layers; `ARCHITECTURE.md` has the picture.

// Foundations: the parameters, outcomes, text and parse trees every layer reads.
pub mod outcome;
pub mod params;
pub mod text;
pub mod tree;

// What runs a test and keeps its verdict.
pub mod exec;

// What a run reports.
pub mod observe;

// The single path of every candidate.
pub mod testing;

// What decides the candidates.
pub mod algorithms;

// What runs a reduction.
pub mod engine;
