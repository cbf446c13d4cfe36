//! The single path of every candidate: the tester, the control that steers it (pause, step, stop,
//! the knobs) and the tests it runs ahead.

pub mod ahead;
pub mod control;
pub mod idle;
pub mod recall;
pub mod tester;
