//! What a run reports: its events, its statistics and its trace.

pub mod events;
pub mod forecast;
pub mod stats;
pub mod trace;
