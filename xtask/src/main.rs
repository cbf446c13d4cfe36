//! whittle's developer tasks, run as `cargo xtask TASK` (an alias in `.cargo/config.toml`); none
//! of this is part of the `whittle` binary.
//!
//! - `cargo xtask grammars --generate`: regenerates the tables under `grammars/` from the grammar
//!   crates (found through `cargo metadata`);
//! - `cargo xtask grammars --check`: fails when the committed tables differ from what the grammar
//!   crates give now (CI runs it);
//! - `cargo xtask grammars`: summarises the tables embedded in whittle.

use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Args, Parser, Subcommand};
use xtask::grammars;

#[derive(Debug, Parser)]
#[command(
    name = "xtask",
    bin_name = "cargo xtask",
    about = "whittle's developer tasks"
)]
struct Cli {
    #[command(subcommand)]
    task: Task,
}

#[derive(Debug, Subcommand)]
enum Task {
    /// Work with the generated grammar tables (minimal replacements Φ); alone, summarise them.
    Grammars(GrammarsArgs),
}

#[derive(Debug, Args)]
struct GrammarsArgs {
    /// Regenerate the Φ tables under `grammars/` from the grammar crates' `src/grammar.json`.
    #[arg(long, conflicts_with = "check")]
    generate: bool,
    /// Regenerate the tables in memory and fail when the files under `grammars/` differ.
    #[arg(long)]
    check: bool,
    /// The project directory holding `Cargo.toml` and `grammars/` (default: the parent of
    /// `xtask/`).
    #[arg(long, value_name = "DIR")]
    project: Option<PathBuf>,
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let result = match &cli.task {
        Task::Grammars(args) => {
            grammars::grammars_command(args.generate, args.check, args.project.as_deref())
        }
    };
    match result {
        Ok(code) => ExitCode::from(u8::try_from(code).unwrap_or(1)),
        Err(error) => {
            eprintln!("xtask: error: {error:#}");
            ExitCode::FAILURE
        }
    }
}
