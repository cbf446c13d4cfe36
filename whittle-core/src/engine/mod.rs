//! What runs a reduction: the pipeline of stages and the settings, the file job, the job on a
//! case of several files, the steerable
//! [`session::Session`] with its history, the library's [`reducer::Reducer`], recorded runs read
//! back, and the built-in examples.

pub mod case;
pub mod demo;
pub mod history;
pub mod job;
pub mod pipeline;
pub mod reducer;
pub mod replay;
pub mod session;
