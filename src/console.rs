//! whittle's own lines on stdout and stderr, written without ever panicking (`println!` and
//! `eprintln!` panic when the reader of a pipe has gone or the disk is full).
//!
//! [`outln!`] writes a line to stdout and returns a [`StdoutError`] when it cannot: a closed
//! pipe (`whittle languages | head -1`), which the command line ends quietly, or another
//! failure (`>/dev/full`), which it reports once, naming the file. [`errln!`] writes a
//! diagnostic line to stderr and ignores failures: there is nowhere left to say them.
//! [`Report`] collects the lines of a run's end, which goes on (result written, lock removed)
//! whatever becomes of stdout.

use std::fmt;
use std::io::{self, Write};

/// stdout could not be written.
#[derive(Debug, thiserror::Error)]
#[error("cannot write to the standard output{}: {error}", .name.as_ref().map(|name| format!(" ({name})")).unwrap_or_default())]
pub struct StdoutError {
    /// The file stdout is, when it has a name (`/dev/full`, a file on a full disk).
    name: Option<String>,
    /// What the system said (in the message: not a `source`, which would repeat it).
    error: io::Error,
}

impl StdoutError {
    /// The error of a write to stdout.
    pub fn new(error: io::Error) -> StdoutError {
        StdoutError {
            name: stdout_name(),
            error,
        }
    }

    /// Whether the reader went away (a closed pipe): not a failure of whittle's, nothing is
    /// said of it.
    pub fn is_closed(&self) -> bool {
        self.error.kind() == io::ErrorKind::BrokenPipe
    }
}

/// The path of the file stdout writes to, when it is one (Linux: `/proc/self/fd/1`).
fn stdout_name() -> Option<String> {
    let target = std::fs::read_link("/proc/self/fd/1").ok()?;
    target
        .is_absolute()
        .then(|| target.to_string_lossy().into_owned())
}

/// Writes `text` to stdout and flushes it (the lines of a command appear as they are made).
pub fn write_out(text: fmt::Arguments<'_>) -> Result<(), StdoutError> {
    let mut stdout = io::stdout().lock();
    stdout
        .write_fmt(text)
        .and_then(|()| stdout.flush())
        .map_err(StdoutError::new)
}

/// Writes `text` to stderr; a failure is ignored (stderr is where failures would be told).
pub fn write_err(text: fmt::Arguments<'_>) {
    let mut stderr = io::stderr().lock();
    let _ = stderr.write_fmt(text).and_then(|()| stderr.flush());
}

/// Like `println!`, returning `Result<(), StdoutError>` instead of panicking.
macro_rules! outln {
    () => {
        $crate::console::write_out(format_args!("\n"))
    };
    ($($arg:tt)*) => {
        $crate::console::write_out(format_args!("{}\n", format_args!($($arg)*)))
    };
}

/// Like `eprintln!`, ignoring a failure to write instead of panicking.
macro_rules! errln {
    ($($arg:tt)*) => {
        $crate::console::write_err(format_args!("{}\n", format_args!($($arg)*)))
    };
}

pub(crate) use {errln, outln};

/// The lines a run prints on stdout at its end, written as they come; after a failure the
/// rest are dropped and the run goes on, to learn of the failure at its very end
/// ([`Report::finish`]).
#[derive(Debug, Default)]
pub struct Report {
    failed: Option<StdoutError>,
}

impl Report {
    pub fn new() -> Report {
        Report::default()
    }

    /// Writes one line (unless an earlier one failed).
    pub fn line(&mut self, text: fmt::Arguments<'_>) {
        if self.failed.is_none()
            && let Err(error) = write_out(format_args!("{text}\n"))
        {
            self.failed = Some(error);
        }
    }

    /// Writes `text` as it is (unless an earlier line failed).
    pub fn text(&mut self, text: &str) {
        if self.failed.is_none()
            && let Err(error) = write_out(format_args!("{text}"))
        {
            self.failed = Some(error);
        }
    }

    /// Whether stdout took every line: a closed pipe counts as taken (the reader wanted no
    /// more, nothing is said of it); another failure (a full disk) is said on stderr, once.
    pub fn finish(self) -> bool {
        match self.failed {
            None => true,
            Some(error) if error.is_closed() => true,
            Some(error) => {
                errln!("whittle: error: {error}");
                false
            }
        }
    }
}
