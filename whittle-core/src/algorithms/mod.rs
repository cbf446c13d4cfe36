//! What decides the candidates: ddmin, chunk sweeps, ProbDD and CDD over units, the hierarchical algorithms and
//! the rewrites over parse trees, the text stages over tokens, schedules of stages, and the pins
//! every candidate keeps.

pub mod blocks;
pub mod dd;
pub mod hdd;
pub mod passes;
pub mod pins;
pub mod probdd;
pub mod references;
pub mod rewrite;
pub mod schedule;
pub mod sweep;
