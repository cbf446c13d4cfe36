//! whittle-core: the reduction engine of whittle (ddmin^ν, HDD, hoisting and rewrites over
//! tree-sitter trees, text stages over tokens), without a terminal, a UI or a command line.
//!
//! # Reducing bytes
//!
//! [`Reducer`] is the entry point: give it the input, optionally its language, a pipeline or a
//! number of jobs, and a test that says whether a candidate is still interesting. It returns the
//! smallest interesting result it found ([`engine::job::Finished::result`]) and the statistics
//! of the run.
//!
//! ```
//! use whittle_core::Reducer;
//!
//! let input = b"int a;\nint b;\nint crash(void);\nint c;\n".to_vec();
//! let reduced = Reducer::new(input)
//!     .pipeline("ddmin:line")
//!     .unwrap()
//!     .run(|candidate: &[u8]| String::from_utf8_lossy(candidate).contains("crash"))
//!     .unwrap();
//! assert_eq!(reduced.result, b"int crash(void);\n");
//! ```
//!
//! `examples/reduce_bytes.rs` does the same with a language and a tree pipeline.
//!
//! # Steering a reduction
//!
//! A [`engine::session::Session`] runs a [`engine::job::Job`] on a thread of its own and takes
//! commands while it runs (pause, step, pin, switch the pipeline, propose an edit, stop); it
//! reports through [`observe::events::Event`]s and snapshots. whittle's terminal UI and its
//! headless mode are both clients of a session.
//!
//! # Layers
//!
//! The modules form layers; a module uses only the layers before it (`ARCHITECTURE.md` has the
//! picture, and `tests/architecture.rs` checks it): the foundations ([`params`], [`outcome`],
//! [`output`], [`text`], [`tree`]); [`exec`], what runs a test and keeps its verdict;
//! [`observe`], what a run reports; [`testing`], the single path of every candidate;
//! [`algorithms`], what decides the candidates; [`engine`], what runs a reduction.

// Foundations: parameters, outcomes, the user's files, text and parse trees.
pub mod bundle;
pub mod outcome;
pub mod output;
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

pub use engine::reducer::Reducer;
