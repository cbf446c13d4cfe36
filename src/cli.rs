//! The command line: the subcommands (clap), their dispatch and the exit codes; each
//! subcommand's work is in a module of its own below.

mod batch;
mod choices;
mod demo;
mod paths;
mod reduce;
mod reduce_args;
mod replay;
mod several;
mod slurm_step;
mod tree;

use std::path::PathBuf;

use clap::{Args, Parser, ValueEnum};

use crate::console::{Report, StdoutError, errln};
pub use reduce_args::{InputTypeArg, ReduceArgs, ReductionLimits};

/// Exit code: bad usage, or an input that is not interesting to begin with.
pub const EXIT_USAGE: i32 = 2;
/// Exit code: an internal error.
pub const EXIT_ERROR: i32 = 1;
/// Exit code: stopped by Ctrl-C or SIGTERM (the output holds the best result so far).
pub const EXIT_INTERRUPTED: i32 = 130;
/// Exit code: the result is trivial (empty or only whitespace): the test probably accepts too
/// much. The output is written all the same; `--allow-trivial` makes this a success.
pub const EXIT_TRIVIAL: i32 = 3;

/// whittle: shrink a file while an interestingness test keeps saying it is interesting.
#[derive(Debug, Parser)]
#[command(name = "whittle", version, about, long_about = None)]
pub struct Cli {
    #[command(subcommand)]
    pub subcommand: Subcommand,
}

/// What `whittle` is asked to do.
#[derive(Debug, clap::Subcommand)]
#[allow(clippy::large_enum_variant)] // built once per run
pub enum Subcommand {
    /// Reduce INPUT while TEST-COMMAND exits 0 on the candidate (whose path is appended); a
    /// directory, or several files, are reduced as one test case into a directory.
    Reduce(ReduceArgs),
    /// Reduce many inputs with one test (a directory of them, or a manifest of inputs and
    /// tests): several at once here, or one per Slurm array task; a summary at the end.
    Batch(batch::BatchArgs),
    /// Reduce a built-in example with a built-in test, showing each step.
    Demo(DemoArgs),
    /// Show a run recorded with `reduce --trace` again, step by step, forwards and backwards
    /// (nothing is tested).
    Replay(ReplayArgs),
    /// Print the preprocessed parse tree of a file (for people who write or debug grammars).
    Tree(TreeArgs),
    /// List the languages whittle can parse.
    Languages,
    /// List the reduction algorithms and the pipelines of the dissertation's Table 7.1.
    Algorithms,
    /// Print a shell completion script for SHELL (bash, zsh, fish, elvish, powershell) on
    /// stdout, e.g. `whittle completions bash > /etc/bash_completion.d/whittle`.
    Completions {
        /// The shell.
        #[arg(value_enum)]
        shell: clap_complete::Shell,
    },
    /// Print whittle's man page (roff) on stdout, e.g. `whittle man > whittle.1`.
    Man,
    /// Runs one test on a Slurm node for `--executor slurm` (not for people).
    #[command(hide = true)]
    SlurmStep(slurm_step::SlurmStepArgs),
}

/// Where the tests run.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, ValueEnum)]
pub enum ExecutorKind {
    /// On this machine, each test in its own process group.
    #[default]
    Local,
    /// Each test a Slurm job step (`srun`): in the current allocation when SLURM_JOB_ID is set
    /// (`salloc`, `sbatch`), else as a job of its own.
    Slurm,
}

#[derive(Debug, Args)]
pub struct DemoArgs {
    /// List the built-in examples.
    #[arg(long)]
    pub list: bool,
    /// The example to run.
    #[arg(long, default_value = "table-4.1")]
    pub example: String,
    /// Print the steps instead of opening the UI (also when stdout is not a terminal).
    #[arg(long)]
    pub no_tui: bool,
    /// The UI's palette: dark, light or high-contrast.
    #[arg(long, default_value = crate::tui::DEFAULT_THEME, value_name = "NAME", value_parser = theme_name)]
    pub theme: String,
}

#[derive(Debug, Args)]
pub struct ReplayArgs {
    /// The trace a run wrote with `whittle reduce --trace`.
    pub trace: PathBuf,
    /// Open at this step (the candidate with this step number has just been judged).
    #[arg(long, value_name = "N")]
    pub at: Option<u64>,
    /// Play at start, this many steps a second.
    #[arg(long, value_name = "STEPS_PER_SECOND")]
    pub play: Option<f64>,
    /// Print the steps instead of opening the UI (also when stdout is not a terminal).
    #[arg(long)]
    pub no_tui: bool,
    /// The UI's palette: dark, light or high-contrast.
    #[arg(long, default_value = crate::tui::DEFAULT_THEME, value_name = "NAME", value_parser = theme_name)]
    pub theme: String,
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

/// A theme of the command line: one of the embedded palettes, checked whether or not the UI
/// opens (a misspelt name is never ignored).
fn theme_name(name: &str) -> Result<String, String> {
    let names = crate::tui::theme_names();
    if names.contains(&name) {
        Ok(name.to_owned())
    } else {
        Err(format!(
            "there is no theme called `{name}` (the themes are: {})",
            names.join(", ")
        ))
    }
}

/// A command line without its test command: says that it goes after `--`, and when the
/// last word looks like one (an executable file, say), that it was taken for an input.
fn hint_at_the_test_command(args: impl Iterator<Item = std::ffi::OsString>) {
    let args: Vec<std::ffi::OsString> = args.collect();
    let reduces = matches!(
        args.first().and_then(|word| word.to_str()),
        Some("reduce" | "batch")
    );
    if !reduces || args.iter().any(|word| word == "--") {
        return;
    }
    errln!("whittle: the test command goes after `--`: whittle reduce INPUT -- ./test.sh ARGS");
    let Some(last) = args.last().filter(|_| args.len() > 2) else {
        return;
    };
    let path = std::path::Path::new(last);
    let executable = std::fs::metadata(path).is_ok_and(|m| {
        use std::os::unix::fs::PermissionsExt;
        m.is_file() && m.permissions().mode() & 0o111 != 0
    });
    if executable {
        errln!(
            "whittle: without it, `{}` was taken for another input",
            path.display()
        );
    }
}

/// Runs the command line and returns the process exit code.
pub fn main() -> i32 {
    let cli = Cli::try_parse().unwrap_or_else(|error| {
        let _ = error.print();
        if error.kind() == clap::error::ErrorKind::MissingRequiredArgument {
            hint_at_the_test_command(std::env::args_os().skip(1));
        }
        std::process::exit(error.exit_code())
    });
    let result = match &cli.subcommand {
        Subcommand::Reduce(args) => reduce::reduce(args),
        Subcommand::Demo(args) => demo::run(args),
        Subcommand::Replay(args) => replay::run(args),
        Subcommand::Tree(args) => {
            tree::tree_command(&args.file, args.language.as_deref(), args.phi_check)
        }
        Subcommand::Languages => tree::languages_command(),
        Subcommand::Algorithms => crate::console::write_out(format_args!(
            "{}",
            whittle_core::engine::pipeline::algorithms_listing()
        ))
        .map(|()| 0)
        .map_err(anyhow::Error::from),
        Subcommand::SlurmStep(args) => Ok(slurm_step::run(args)),
        Subcommand::Batch(args) => batch::run(args),
        Subcommand::Completions { shell } => completions(*shell),
        Subcommand::Man => man_page(),
    };
    match result {
        Ok(code) => code,
        // The reader of stdout went away (`whittle languages | head -1`): the command ends
        // quietly, as Unix tools do.
        Err(error) if stdout_closed(&error) => 0,
        Err(error) => {
            errln!("whittle: error: {error:#}");
            EXIT_ERROR
        }
    }
}

/// `whittle completions SHELL`: the completion script, from the clap definitions.
fn completions(shell: clap_complete::Shell) -> anyhow::Result<i32> {
    use clap::CommandFactory as _;
    let mut script = Vec::new();
    clap_complete::generate(shell, &mut Cli::command(), "whittle", &mut script);
    crate::console::write_out(format_args!("{}", String::from_utf8_lossy(&script)))?;
    Ok(0)
}

/// `whittle man`: the man page (roff), from the clap definitions: the command, then each
/// subcommand's options in a section of their own (`WHITTLE REDUCE`...).
fn man_page() -> anyhow::Result<i32> {
    use clap::CommandFactory as _;
    let command = Cli::command();
    let mut page = Vec::new();
    clap_mangen::Man::new(command.clone()).render(&mut page)?;
    for sub in command.get_subcommands().filter(|sub| !sub.is_hide_set()) {
        let title = format!("whittle {}", sub.get_name());
        let mut options = Vec::new();
        clap_mangen::Man::new(sub.clone()).render_options_section(&mut options)?;
        let options = String::from_utf8_lossy(&options);
        let about = sub
            .get_long_about()
            .or(sub.get_about())
            .map(|about| about.to_string())
            .unwrap_or_default();
        let heading = format!(".SH \"{}\"\n", title.to_uppercase());
        page.extend_from_slice(heading.as_bytes());
        for line in about.lines() {
            // A line starting with `.` or `'` would be a roff request.
            page.extend_from_slice(format!("\\&{line}\n").as_bytes());
        }
        page.extend_from_slice(options.replacen(".SH OPTIONS\n", ".PP\n", 1).as_bytes());
    }
    crate::console::write_out(format_args!("{}", String::from_utf8_lossy(&page)))?;
    Ok(0)
}

/// Whether an error is a write to stdout whose reader went away.
fn stdout_closed(error: &anyhow::Error) -> bool {
    error.chain().any(|cause| {
        cause
            .downcast_ref::<StdoutError>()
            .is_some_and(StdoutError::is_closed)
    })
}

/// Tells a mistake of usage (or an input that cannot be reduced) and returns its exit code.
fn usage_error(message: impl std::fmt::Display) -> anyhow::Result<i32> {
    errln!("whittle: {message}");
    Ok(EXIT_USAGE)
}

/// The exit code of a command that would end with `code` once its lines on stdout are done:
/// a success becomes a failure when stdout could not take them (a full disk; a closed pipe is
/// no failure).
fn with_stdout(stdout: Report, code: i32) -> i32 {
    if stdout.finish() || code != 0 {
        code
    } else {
        EXIT_ERROR
    }
}
