//! Writing results safely. The best test case so far replaces the output file atomically (a
//! temporary file in the same directory, then a rename), so a crash never leaves half a file;
//! [`ResultFile`] is the one writer of a run's result, which keeps what it could not write and
//! tries again. Before a run: [`check_output_path`] (a regular file or a new one, in a
//! directory whittle can write), [`FileIdentity`] (no two paths of a run name the same file,
//! through links too) and [`OutputLock`] (one run per output at a time). Files the user names
//! are read with [`read_regular_file`], which never blocks on a FIFO or a device.

use std::ffi::OsString;
use std::fs::{self, File};
use std::io::{Read, Write};
use std::os::unix::fs::{FileExt, FileTypeExt, MetadataExt, OpenOptionsExt};
use std::path::{Path, PathBuf};
use std::sync::{Mutex, MutexGuard, PoisonError};

mod lock;

#[cfg(test)]
use lock::NAME_MAX;
pub use lock::{LockError, OutputLock};

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

/// Opens a file the user named for reading without ever blocking: a FIFO with no writer, or a
/// device, would block `open` past every signal, so the file is opened with `O_NONBLOCK` and
/// refused unless it is a regular file. `what` names it in messages (`the input`, `the trace`).
pub fn open_regular_file(path: &Path, what: &str) -> Result<File, String> {
    let file = File::options()
        .read(true)
        .custom_flags(nix::fcntl::OFlag::O_NONBLOCK.bits())
        .open(path)
        .map_err(|error| format!("cannot read {}: {error}", named(what, path)))?;
    let metadata = file
        .metadata()
        .map_err(|error| format!("cannot read {}: {error}", named(what, path)))?;
    if metadata.is_dir() {
        return Err(format!("{} is a directory", named(what, path)));
    }
    if !metadata.is_file() {
        return Err(format!(
            "{} is {}, not a regular file; whittle reads only regular files",
            named(what, path),
            describe_file_type(metadata.file_type())
        ));
    }
    // On a regular file O_NONBLOCK changes nothing: reads of it never block anyway.
    Ok(file)
}

/// Reads a whole file the user named (see [`open_regular_file`]), at most `limit` bytes.
pub fn read_regular_file(path: &Path, what: &str, limit: u64) -> Result<Vec<u8>, String> {
    let file = open_regular_file(path, what)?;
    let size = file.metadata().map(|m| m.len()).unwrap_or(0);
    if size >= limit {
        return Err(format!(
            "{} is too large ({size} bytes; whittle takes less than {limit})",
            named(what, path)
        ));
    }
    let mut content = Vec::with_capacity(size as usize);
    file.take(limit)
        .read_to_end(&mut content)
        .map_err(|error| format!("cannot read {}: {error}", named(what, path)))?;
    Ok(content)
}

/// The first `limit` bytes of a file the user named (see [`open_regular_file`]); `None` when it
/// cannot be read or is no regular file.
pub fn regular_file_head(path: &Path, limit: u64) -> Option<Vec<u8>> {
    let file = open_regular_file(path, "").ok()?;
    let mut head = Vec::new();
    file.take(limit).read_to_end(&mut head).ok()?;
    Some(head)
}

/// A path in messages, after what it is when that is said (`the input a.c`).
fn named(what: &str, path: &Path) -> String {
    if what.is_empty() {
        path.display().to_string()
    } else {
        format!("{what} {}", path.display())
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

/// The failed writes of one result (a file or a directory): a series of them is told once when
/// it starts and once when a write ends it.
#[derive(Debug, Default)]
pub(crate) struct WriteFailures {
    /// The error of the last write, while the writes fail.
    last_error: Option<String>,
}

impl WriteFailures {
    /// A write succeeded: the notice that ends a series of failures (`written` says what is
    /// written again), if there was one.
    pub(crate) fn succeeded(&mut self, written: impl FnOnce() -> String) -> Option<WriteNotice> {
        self.last_error
            .take()
            .map(|_| WriteNotice::Recovered(written()))
    }

    /// The write of `path` failed with `error`: the notice of the first failure of a series.
    pub(crate) fn failed(&mut self, path: &Path, error: &std::io::Error) -> Option<WriteNotice> {
        let notice = self.last_error.is_none().then(|| {
            WriteNotice::Failed(format!(
                "cannot write {}: {error}; the best result so far is kept in memory and written \
                 at the next improvement",
                path.display()
            ))
        });
        self.last_error = Some(error.to_string());
        notice
    }

    /// The error of the last write, while the writes fail.
    pub(crate) fn last_error(&self) -> Option<&str> {
        self.last_error.as_deref()
    }
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
    failures: WriteFailures,
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
                state.pending = None;
                state.existing = None;
                state.written = true;
                state.failures.succeeded(|| {
                    format!(
                        "{} is written again ({} bytes)",
                        self.path.display(),
                        content.len()
                    )
                })
            }
            Err(error) => {
                state.pending = Some(content.to_vec());
                state.failures.failed(&self.path, &error)
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
                error: state.failures.last_error().unwrap_or_default().to_string(),
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

/// The file a run writes when told to write `path`: `path` itself, or, when it is a symbolic
/// link, the file the link leads to (through a chain of links; it need not exist yet). A
/// result replaces the output by a rename, which would replace the link itself: the target is
/// resolved once, before the run, and written and locked from then on.
pub fn resolve_output_link(path: &Path) -> std::io::Result<PathBuf> {
    /// As many links as Linux follows in one path (`ELOOP` past them).
    const MAX_LINKS: usize = 40;
    let mut current = path.to_path_buf();
    for _ in 0..MAX_LINKS {
        match fs::symlink_metadata(&current) {
            Ok(metadata) if metadata.file_type().is_symlink() => {
                let target = fs::read_link(&current)?;
                // A relative target is relative to the link's directory.
                current = match current.parent() {
                    Some(dir) if target.is_relative() => dir.join(target),
                    _ => target,
                };
            }
            _ => return Ok(current),
        }
    }
    Err(std::io::Error::from_raw_os_error(nix::libc::ELOOP))
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
    fn long_output_names_get_lock_names_that_fit() {
        use std::os::unix::ffi::OsStrExt;
        let name_of = |output: &str| {
            OutputLock::path_for(Path::new(output))
                .file_name()
                .unwrap()
                .as_bytes()
                .to_vec()
        };
        assert_eq!(name_of("dir/out.txt"), b".out.txt.whittle.lock");
        assert_eq!(
            OutputLock::path_for(Path::new("out.txt")),
            Path::new(".out.txt.whittle.lock")
        );
        let fits = "a".repeat(NAME_MAX - 14);
        assert_eq!(name_of(&fits).len(), NAME_MAX);
        let long_a = format!("{}a", "é".repeat(120));
        let long_b = format!("{}b", "é".repeat(120));
        for long in [&long_a, &long_b] {
            let name = name_of(long);
            assert!(name.len() <= NAME_MAX, "{}", name.len());
            assert!(std::str::from_utf8(&name).is_ok(), "cut inside a character");
            assert!(name.ends_with(b".whittle.lock") && name.starts_with(b".\xc3\xa9"));
        }
        assert_ne!(name_of(&long_a), name_of(&long_b));
        let dir = tempfile::tempdir().unwrap();
        let output = dir.path().join(&long_a);
        let lock = OutputLock::acquire(&output).unwrap();
        assert!(OutputLock::path_for(&output).exists());
        drop(lock);
        assert!(!OutputLock::path_for(&output).exists());
    }

    #[test]
    fn an_output_link_resolves_to_the_file_it_leads_to() {
        let dir = tempfile::tempdir().unwrap();
        let at = |name: &str| dir.path().join(name);
        std::os::unix::fs::symlink("sub/target.txt", at("link")).unwrap();
        std::os::unix::fs::symlink(at("link"), at("chain")).unwrap();
        std::os::unix::fs::symlink("loop-b", at("loop-a")).unwrap();
        std::os::unix::fs::symlink("loop-a", at("loop-b")).unwrap();
        assert_eq!(resolve_output_link(&at("plain")).unwrap(), at("plain"));
        assert_eq!(
            resolve_output_link(&at("link")).unwrap(),
            at("sub/target.txt")
        );
        assert_eq!(
            resolve_output_link(&at("chain")).unwrap(),
            at("sub/target.txt")
        );
        assert_eq!(
            resolve_output_link(Path::new("relative-plain")).unwrap(),
            Path::new("relative-plain")
        );
        let error = resolve_output_link(&at("loop-a")).unwrap_err();
        assert_eq!(error.raw_os_error(), Some(nix::libc::ELOOP));
    }

    #[test]
    fn a_lock_file_left_by_a_dead_run_is_taken_over_and_named() {
        let dir = tempfile::tempdir().unwrap();
        let output = dir.path().join("out.txt");
        std::fs::write(OutputLock::path_for(&output), "4194305").unwrap();
        let lock = OutputLock::acquire(&output).unwrap();
        assert_eq!(lock.stale_pid(), Some(4194305));
        assert_eq!(
            std::fs::read_to_string(lock.path()).unwrap(),
            std::process::id().to_string()
        );
        drop(lock);
        let fresh = OutputLock::acquire(&output).unwrap();
        assert_eq!(
            fresh.stale_pid(),
            None,
            "a lock file of its own is no stale one"
        );
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
