//! What decides the candidates: ddmin and chunk sweeps over units, the hierarchical algorithms and
//! the rewrites over parse trees, the text stages over tokens, schedules of stages, and the pins
//! every candidate keeps.

pub mod dd;
pub mod hdd;
pub mod passes;
pub mod pins;
pub mod rewrite;
pub mod schedule;
pub mod sweep;
