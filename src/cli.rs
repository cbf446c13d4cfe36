//! The command line: argument definitions (clap) and dispatch to the subcommands.

use std::path::PathBuf;

use clap::{Args, Parser, Subcommand};

/// whittle: shrink a file while an interestingness test keeps saying it is interesting.
#[derive(Debug, Parser)]
#[command(name = "whittle", version, about, long_about = None)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Command,
}

#[derive(Debug, Subcommand)]
pub enum Command {
    /// Print the preprocessed parse tree of a file (for people who write or debug grammars).
    Tree(TreeArgs),
    /// List the languages whittle can parse.
    Languages,
    /// Work with the generated grammar tables (minimal replacements Φ).
    Grammars(GrammarsArgs),
}

#[derive(Debug, Args)]
pub struct TreeArgs {
    /// The file to parse.
    pub file: PathBuf,
    /// Language name (default: chosen by the file extension).
    #[arg(long)]
    pub language: Option<String>,
    /// Splice each node's Φ in alone, re-parse, and report how many parse without new errors.
    #[arg(long)]
    pub phi_check: bool,
}

#[derive(Debug, Args)]
pub struct GrammarsArgs {
    /// Regenerate the Φ tables under `grammars/` from the grammar crates' `src/grammar.json`.
    #[arg(long, conflicts_with = "check")]
    pub generate: bool,
    /// Regenerate the tables in memory and fail when the files under `grammars/` differ.
    #[arg(long)]
    pub check: bool,
    /// The project directory holding `Cargo.toml` and `grammars/` (default: the one whittle was
    /// built from).
    #[arg(long, value_name = "DIR")]
    pub project: Option<PathBuf>,
}

/// Runs the command line and returns the process exit code.
pub fn main() -> i32 {
    let cli = Cli::parse();
    let result = match &cli.command {
        Command::Tree(args) => crate::tree::tree_command(args),
        Command::Languages => crate::tree::languages_command(),
        Command::Grammars(args) => crate::tree::grammars_command(args),
    };
    match result {
        Ok(code) => code,
        Err(error) => {
            eprintln!("whittle: error: {error:#}");
            1
        }
    }
}
