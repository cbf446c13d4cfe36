//! whittle's developer tasks (see `main.rs`): the generation of the grammar tables.

pub mod grammars;
