//! Writing results safely. The best test case so far replaces the output file atomically (a
//! temporary file in the same directory, then a rename), so a crash never leaves half a file;
//! [`ResultFile`] is the one writer of a run's result, which keeps what it could not write and
//! tries again. Before a run: [`check_output_path`] (a regular file or a new one, in a
//! directory whittle can write), [`FileIdentity`] (no two paths of a run name the same file,
//! through links too) and [`OutputLock`] (one run per output at a time).

use std::ffi::OsString;
use std::fs::{self, File};
use std::io::{Read, Write};
use std::os::unix::fs::{FileTypeExt, MetadataExt, OpenOptionsExt};
use std::path::{Path, PathBuf};
use std::sync::{Mutex, MutexGuard, PoisonError};

/// Replaces `path` by `content` atomically, with the given permission bits when known.
pub fn write_atomically(path: &Path, content: &[u8], mode: Option<u32>) -> std::io::Result<()> {
    let dir = directory_of(path);
    let mut file = tempfile::Builder::new()
        .prefix(".whittle-")
        .tempfile_in(dir)?;
    file.write_all(content)?;
    file.as_file().sync_data()?;
    if let Some(mode) = mode {
        use std::os::unix::fs::PermissionsExt;
        file.as_file()
            .set_permissions(std::fs::Permissions::from_mode(mode & 0o777))?;
    }
    file.persist(path).map_err(|e| e.error)?;
    Ok(())
}

/// The directory a path is in (`.` for a bare file name).
fn directory_of(path: &Path) -> &Path {
    match path.parent() {
        Some(parent) if !parent.as_os_str().is_empty() => parent,
        _ => Path::new("."),
    }
}

/// What a run's result file holds at the end.
#[derive(Debug)]
pub enum Saved {
    /// Nothing was written (the run stopped before the input was confirmed interesting).
    Nothing,
    /// The best result is on disk.
    Best,
    /// The existing output is smaller than the best result of this run and was kept; the
    /// result is only in memory.
    KeptSmaller { existing: usize, best: Vec<u8> },
    /// The last write failed; the result is only in memory.
    Failed { error: String, best: Vec<u8> },
}

/// What a write of the result has to tell the user. whittle's core prints nothing: the caller
/// passes it on (the engine as an event, which the front ends show).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum WriteNotice {
    /// The write failed (the first failure of a series): the result is kept in memory.
    Failed(String),
    /// A write succeeded after failures.
    Recovered(String),
}

/// The output file of a reduction, and the only writer of the result: every accepted
/// reduction goes through [`ResultFile::write`]. A write that fails keeps the result in
/// memory, says so once (a [`WriteNotice`]), and is tried again at the next improvement and at
/// the end.
pub struct ResultFile {
    path: PathBuf,
    mode: Option<u32>,
    state: Mutex<ResultState>,
}

#[derive(Default)]
struct ResultState {
    /// The best result that is not on disk yet.
    pending: Option<Vec<u8>>,
    /// The size of an existing output that nothing larger may replace.
    existing: Option<usize>,
    /// Something this run wrote is on disk.
    written: bool,
    /// The last write failed: the failure was reported.
    failing: bool,
    last_error: Option<String>,
}

impl ResultFile {
    /// The result goes to `path`, with permission bits `mode` when given.
    pub fn new(path: impl Into<PathBuf>, mode: Option<u32>) -> Self {
        ResultFile {
            path: path.into(),
            mode,
            state: Mutex::new(ResultState::default()),
        }
    }

    /// The file at the path now has `size` bytes and is replaced only by a result no larger.
    pub fn keeping_smaller_than(self, size: usize) -> Self {
        self.lock().existing = Some(size);
        self
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    fn lock(&self) -> MutexGuard<'_, ResultState> {
        self.state.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Makes `content` the result: writes it now, or keeps it to write later (when the write
    /// fails, or while it is larger than the existing output that must be kept). Returns what
    /// the user should be told.
    #[must_use = "a failed write must be reported"]
    pub fn write(&self, content: &[u8]) -> Option<WriteNotice> {
        let mut state = self.lock();
        if state.existing.is_some_and(|size| content.len() > size) {
            state.pending = Some(content.to_vec());
            return None;
        }
        self.write_now(&mut state, content)
    }

    fn write_now(&self, state: &mut ResultState, content: &[u8]) -> Option<WriteNotice> {
        match write_atomically(&self.path, content, self.mode) {
            Ok(()) => {
                let notice = state.failing.then(|| {
                    WriteNotice::Recovered(format!(
                        "{} is written again ({} bytes)",
                        self.path.display(),
                        content.len()
                    ))
                });
                state.pending = None;
                state.existing = None;
                state.written = true;
                state.failing = false;
                state.last_error = None;
                notice
            }
            Err(error) => {
                let notice = (!state.failing).then(|| {
                    WriteNotice::Failed(format!(
                        "cannot write {}: {error}; the best result so far is kept in memory and \
                         written at the next improvement",
                        self.path.display()
                    ))
                });
                state.pending = Some(content.to_vec());
                state.failing = true;
                state.last_error = Some(error.to_string());
                notice
            }
        }
    }

    /// Tries once more to write what is pending and says what the file holds (and what the
    /// user should be told of that last write).
    pub fn finish(&self) -> (Saved, Option<WriteNotice>) {
        let mut state = self.lock();
        let mut notice = None;
        if let Some(pending) = state.pending.take() {
            match state.existing {
                Some(existing) if pending.len() > existing => {
                    state.pending = Some(pending.clone());
                    let saved = Saved::KeptSmaller {
                        existing,
                        best: pending,
                    };
                    return (saved, None);
                }
                _ => notice = self.write_now(&mut state, &pending),
            }
        }
        let saved = match (&state.pending, state.written) {
            (Some(best), _) => Saved::Failed {
                error: state.last_error.clone().unwrap_or_default(),
                best: best.clone(),
            },
            (None, true) => Saved::Best,
            (None, false) => Saved::Nothing,
        };
        (saved, notice)
    }
}

/// Saves a result that could not go where it should: beside it when possible, else in the
/// temporary directory. Returns where it went.
pub fn save_elsewhere(intended: &Path, content: &[u8]) -> std::io::Result<PathBuf> {
    let name = intended
        .file_name()
        .map_or_else(|| "result".into(), |n| n.to_string_lossy().into_owned());
    let mut last_error = None;
    for dir in [directory_of(intended).to_path_buf(), std::env::temp_dir()] {
        let attempt = tempfile::Builder::new()
            .prefix(&format!("{name}."))
            .suffix(".whittled")
            .tempfile_in(&dir)
            .and_then(|mut file| {
                file.write_all(content)?;
                file.as_file().sync_data()?;
                file.keep().map_err(|e| e.error)
            });
        match attempt {
            Ok((_, path)) => return Ok(path),
            Err(error) => last_error = Some(error),
        }
    }
    Err(last_error.unwrap_or_else(|| std::io::Error::other("no directory to write in")))
}

/// Checks, before anything runs, that `path` can receive a file written atomically: it is a
/// regular file or does not exist yet, and its directory exists and takes new files.
/// `what` names the path in messages (`the output`, `--stats-json`).
pub fn check_output_path(path: &Path, what: &str) -> Result<(), String> {
    if path.as_os_str().is_empty() {
        return Err(format!("{what} is an empty path"));
    }
    match fs::metadata(path) {
        Ok(metadata) if metadata.is_dir() => {
            return Err(format!("{what} {} is a directory", path.display()));
        }
        Ok(metadata) if !metadata.is_file() => {
            return Err(format!(
                "{what} {} is {}, not a regular file; whittle replaces its output with a new \
                 file, so it writes only regular files and new paths",
                path.display(),
                describe_file_type(metadata.file_type())
            ));
        }
        Ok(_) => {}
        Err(error)
            if matches!(
                error.kind(),
                std::io::ErrorKind::NotFound | std::io::ErrorKind::NotADirectory
            ) => {}
        Err(error) => return Err(format!("{what} {}: {error}", path.display())),
    }
    if path.to_string_lossy().ends_with('/') {
        return Err(format!("{what} {} names a directory", path.display()));
    }
    let dir = directory_of(path);
    match fs::metadata(dir) {
        Ok(metadata) if metadata.is_dir() => {}
        Ok(_) => {
            return Err(format!(
                "{what} {}: {} is not a directory",
                path.display(),
                dir.display()
            ));
        }
        Err(error) => {
            return Err(format!(
                "{what} {}: its directory {} cannot be used: {error}",
                path.display(),
                dir.display()
            ));
        }
    }
    // Permission bits do not tell everything (read-only mounts, capabilities): try.
    tempfile::Builder::new()
        .prefix(".whittle-probe-")
        .tempfile_in(dir)
        .map(drop)
        .map_err(|error| {
            format!(
                "{what} {}: cannot write in {}: {error}",
                path.display(),
                dir.display()
            )
        })
}

fn describe_file_type(kind: fs::FileType) -> &'static str {
    if kind.is_char_device() {
        "a character device"
    } else if kind.is_block_device() {
        "a block device"
    } else if kind.is_fifo() {
        "a FIFO"
    } else if kind.is_socket() {
        "a socket"
    } else {
        "a special file"
    }
}

/// What file a path names, to tell whether two paths name the same file: for an existing file
/// (through symbolic links) its device and inode, so hard links match too; for a file that does
/// not exist yet, its canonical directory and name.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum FileIdentity {
    Existing { dev: u64, ino: u64 },
    New { dir: PathBuf, name: OsString },
}

impl FileIdentity {
    pub fn of(path: &Path) -> FileIdentity {
        if let Ok(metadata) = fs::metadata(path) {
            return FileIdentity::Existing {
                dev: metadata.dev(),
                ino: metadata.ino(),
            };
        }
        // A dangling symbolic link: the file would be created where it points.
        let target = match fs::read_link(path) {
            Ok(link) => directory_of(path).join(link),
            Err(_) => path.to_path_buf(),
        };
        let dir = directory_of(&target);
        let dir = dir.canonicalize().unwrap_or_else(|_| dir.to_path_buf());
        let name = target.file_name().map(OsString::from).unwrap_or_default();
        FileIdentity::New { dir, name }
    }
}

/// Whether two paths name the same file (see [`FileIdentity`]).
pub fn same_file(a: &Path, b: &Path) -> bool {
    FileIdentity::of(a) == FileIdentity::of(b)
}

/// An exclusive lock on an output path, held while a run may write it: a lock file
/// `.<name>.whittle.lock` beside the output (the output itself is replaced by every write, so
/// it cannot carry the lock). The lock file holds the owner's process id and is removed when
/// the lock is dropped.
pub struct OutputLock {
    file: File,
    path: PathBuf,
}

/// Why an output could not be locked.
#[derive(Debug, thiserror::Error)]
pub enum LockError {
    #[error("another whittle run{} is writing {output}; wait for it to end or choose another output", .pid.map(|p| format!(" (process {p})")).unwrap_or_default())]
    Busy { output: PathBuf, pid: Option<u32> },
    #[error("cannot lock {output} (lock file {lock}): {error}")]
    Io {
        output: PathBuf,
        lock: PathBuf,
        error: std::io::Error,
    },
}

impl OutputLock {
    /// The lock file of `output`.
    pub fn path_for(output: &Path) -> PathBuf {
        let name = output
            .file_name()
            .map_or_else(|| "output".into(), |n| n.to_string_lossy().into_owned());
        directory_of(output).join(format!(".{name}.whittle.lock"))
    }

    /// Takes the lock without waiting.
    pub fn acquire(output: &Path) -> Result<OutputLock, LockError> {
        let path = Self::path_for(output);
        let io_error = |error| LockError::Io {
            output: output.to_path_buf(),
            lock: path.clone(),
            error,
        };
        // A run that ends removes its lock file; one that opened it just before must not lock
        // the removed file while a third run locks a new one: after locking, check that the
        // path still names the file locked, else start over.
        for _ in 0..100 {
            let mut file = File::options()
                .read(true)
                .write(true)
                .create(true)
                .truncate(false)
                .mode(0o600)
                .open(&path)
                .map_err(io_error)?;
            match file.try_lock() {
                Ok(()) => {}
                Err(fs::TryLockError::WouldBlock) => {
                    let mut text = String::new();
                    let _ = file.read_to_string(&mut text);
                    return Err(LockError::Busy {
                        output: output.to_path_buf(),
                        pid: text.trim().parse().ok(),
                    });
                }
                Err(fs::TryLockError::Error(error)) => return Err(io_error(error)),
            }
            let locked = file.metadata().map_err(io_error)?;
            let still_there = fs::metadata(&path)
                .is_ok_and(|now| now.dev() == locked.dev() && now.ino() == locked.ino());
            if !still_there {
                continue;
            }
            file.set_len(0).map_err(io_error)?;
            write!(file, "{}", std::process::id()).map_err(io_error)?;
            return Ok(OutputLock { file, path });
        }
        Err(io_error(std::io::Error::other(
            "the lock file keeps disappearing",
        )))
    }
}

impl Drop for OutputLock {
    fn drop(&mut self) {
        // Removed while still locked, so no other run holds a lock on a file that is gone.
        let _ = fs::remove_file(&self.path);
        let _ = self.file.unlock();
    }
}

/// The default output path: `<stem>.whittled<.ext>` beside the input.
pub fn default_output_path(input: &Path) -> PathBuf {
    let stem = input
        .file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_else(|| "output".into());
    let name = match input.extension() {
        Some(ext) => format!("{stem}.whittled.{}", ext.to_string_lossy()),
        None => format!("{stem}.whittled"),
    };
    input.with_file_name(name)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn default_output_keeps_the_extension() {
        assert_eq!(
            default_output_path(Path::new("dir/sumprod.c")),
            Path::new("dir/sumprod.whittled.c")
        );
        assert_eq!(
            default_output_path(Path::new("Makefile")),
            Path::new("Makefile.whittled")
        );
    }

    #[test]
    fn same_file_sees_links_and_new_paths() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("a.txt");
        std::fs::write(&file, "x").unwrap();
        let hard = dir.path().join("hard.txt");
        std::fs::hard_link(&file, &hard).unwrap();
        let soft = dir.path().join("soft.txt");
        std::os::unix::fs::symlink(&file, &soft).unwrap();
        assert!(same_file(&file, &hard));
        assert!(same_file(&file, &soft));
        let new = dir.path().join("new.txt");
        let also_new = dir.path().join(".").join("new.txt");
        assert!(same_file(&new, &also_new));
        assert!(!same_file(&new, &file));
    }

    #[test]
    fn a_second_lock_on_the_same_output_is_refused() {
        let dir = tempfile::tempdir().unwrap();
        let output = dir.path().join("out.txt");
        let lock = OutputLock::acquire(&output).unwrap();
        match OutputLock::acquire(&output) {
            Err(LockError::Busy { pid, .. }) => assert_eq!(pid, Some(std::process::id())),
            other => panic!("{:?}", other.map(|_| ())),
        }
        drop(lock);
        assert!(!OutputLock::path_for(&output).exists());
        OutputLock::acquire(&output).unwrap();
    }

    #[test]
    fn atomic_write_replaces_the_file() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("out.txt");
        write_atomically(&path, b"first", Some(0o644)).unwrap();
        write_atomically(&path, b"second", None).unwrap();
        assert_eq!(std::fs::read(&path).unwrap(), b"second");
        assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 1);
    }

    #[test]
    fn a_failed_write_is_told_once_and_so_is_its_recovery() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("later").join("out.txt");
        let file = ResultFile::new(&path, None);
        match file.write(b"one") {
            Some(WriteNotice::Failed(message)) => assert!(message.contains("kept in memory")),
            other => panic!("{other:?}"),
        }
        assert_eq!(file.write(b"two"), None, "a failure is told once");
        std::fs::create_dir(dir.path().join("later")).unwrap();
        match file.write(b"three") {
            Some(WriteNotice::Recovered(message)) => assert!(message.contains("written again")),
            other => panic!("{other:?}"),
        }
        assert_eq!(file.write(b"four"), None);
        assert!(matches!(file.finish(), (Saved::Best, None)));
        assert_eq!(std::fs::read(&path).unwrap(), b"four");
    }
}
