//! One run per output at a time: the lock file beside the output.

use super::*;

/// An exclusive lock on an output path, held while a run may write it: a lock file
/// `.<name>.whittle.lock` beside the output (the output itself is replaced by every write, so
/// it cannot carry the lock; see [`OutputLock::path_for`] for long names). The lock file holds
/// the owner's process id and is removed when the lock is dropped. A run that does not get the
/// lock leaves no lock file behind: it removes one it created itself, and never one another
/// run holds.
pub struct OutputLock {
    file: File,
    path: PathBuf,
    /// The process whose lock file was found with no one holding it (killed before it could
    /// remove it).
    stale: Option<u32>,
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

/// The longest file name most file systems take (Linux's `NAME_MAX`).
pub(super) const NAME_MAX: usize = 255;

impl OutputLock {
    /// The lock file of `output`: `.<name>.whittle.lock` in its directory. When that name would
    /// be longer than [`NAME_MAX`] bytes, the output's name is cut and a hash of the whole name
    /// keeps it apart from other long names: `.<start of name>~<hash>.whittle.lock`.
    pub fn path_for(output: &Path) -> PathBuf {
        use std::os::unix::ffi::{OsStrExt, OsStringExt};
        const PREFIX: &[u8] = b".";
        const SUFFIX: &[u8] = b".whittle.lock";
        let name = output
            .file_name()
            .map_or(&b"output"[..], |name| name.as_bytes());
        let mut lock_name = PREFIX.to_vec();
        if PREFIX.len() + name.len() + SUFFIX.len() <= NAME_MAX {
            lock_name.extend_from_slice(name);
        } else {
            use sha3::Digest;
            let hash: String = sha3::Sha3_256::digest(name)[..8]
                .iter()
                .map(|byte| format!("{byte:02x}"))
                .collect();
            let room = NAME_MAX - PREFIX.len() - 1 - hash.len() - SUFFIX.len();
            // Cut at the start of a UTF-8 character, so that the name stays readable.
            let mut cut = room.min(name.len());
            while cut > 0 && (name[cut] & 0b1100_0000) == 0b1000_0000 {
                cut -= 1;
            }
            lock_name.extend_from_slice(&name[..cut]);
            lock_name.push(b'~');
            lock_name.extend_from_slice(hash.as_bytes());
        }
        lock_name.extend_from_slice(SUFFIX);
        output.with_file_name(OsString::from_vec(lock_name))
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
            let (mut file, created) = match open_lock_file(&path) {
                Ok(Some(opened)) => opened,
                // Removed between two looks: try again.
                Ok(None) => continue,
                Err(error) => return Err(io_error(error)),
            };
            match file.try_lock() {
                Ok(()) => {}
                // Another run's (it may have locked the file this run just created): left alone.
                Err(fs::TryLockError::WouldBlock) => {
                    let mut text = String::new();
                    let _ = file.read_to_string(&mut text);
                    return Err(LockError::Busy {
                        output: output.to_path_buf(),
                        pid: text.trim().parse().ok(),
                    });
                }
                Err(fs::TryLockError::Error(error)) => {
                    if created {
                        remove_if_same(&path, &file);
                    }
                    return Err(io_error(error));
                }
            }
            let locked = file.metadata().map_err(io_error)?;
            let still_there = fs::metadata(&path)
                .is_ok_and(|now| now.dev() == locked.dev() && now.ino() == locked.ino());
            if !still_there {
                continue;
            }
            // A file that was there, with no one holding it: its run was killed.
            let mut previous = String::new();
            let _ = file.read_to_string(&mut previous);
            let stale = previous
                .trim()
                .parse()
                .ok()
                .filter(|&pid| !created && pid != std::process::id());
            // Ours from here: dropping the lock (on an error too) removes the file.
            let lock = OutputLock { file, path, stale };
            // At the start of the file (reading the old pid moved the position past it).
            let pid = std::process::id().to_string();
            let written = lock
                .file
                .set_len(0)
                .and_then(|()| lock.file.write_all_at(pid.as_bytes(), 0));
            return match written {
                Ok(()) => Ok(lock),
                Err(error) => Err(LockError::Io {
                    output: output.to_path_buf(),
                    lock: lock.path.clone(),
                    error,
                }),
            };
        }
        Err(io_error(std::io::Error::other(
            "the lock file keeps disappearing",
        )))
    }

    /// The lock file.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The process id a lock file left behind held, when this lock took it over: its run was
    /// killed (SIGKILL, a crash) before it could remove the file.
    pub fn stale_pid(&self) -> Option<u32> {
        self.stale
    }
}

/// Opens the lock file, creating it when there is none: the file and whether it was created
/// here (`None`: it was removed between two looks).
fn open_lock_file(path: &Path) -> std::io::Result<Option<(File, bool)>> {
    let mut options = File::options();
    options.read(true).write(true).mode(0o600);
    match options.clone().create_new(true).open(path) {
        Ok(file) => return Ok(Some((file, true))),
        Err(error) if error.kind() == std::io::ErrorKind::AlreadyExists => {}
        Err(error) => return Err(error),
    }
    match options.open(path) {
        Ok(file) => Ok(Some((file, false))),
        Err(error) if error.kind() == std::io::ErrorKind::NotFound => Ok(None),
        Err(error) => Err(error),
    }
}

/// Removes `path` when it still names `file`.
fn remove_if_same(path: &Path, file: &File) {
    let same = match (file.metadata(), fs::metadata(path)) {
        (Ok(a), Ok(b)) => a.dev() == b.dev() && a.ino() == b.ino(),
        _ => false,
    };
    if same {
        let _ = fs::remove_file(path);
    }
}

impl OutputLock {
    /// Whether another run holds the lock of `output` now: `Some` with its process id when it
    /// wrote one, `None` when no run holds it (a lock file left by a killed run holds none).
    pub fn holder(output: &Path) -> Option<Option<u32>> {
        let path = Self::path_for(output);
        let mut file = File::options()
            .read(true)
            .custom_flags(nix::fcntl::OFlag::O_NONBLOCK.bits())
            .open(&path)
            .ok()?;
        if !file.metadata().ok()?.is_file() {
            return None;
        }
        match file.try_lock_shared() {
            Ok(()) => {
                let _ = file.unlock();
                None
            }
            Err(fs::TryLockError::WouldBlock) => {
                let mut text = String::new();
                let _ = file.read_to_string(&mut text);
                Some(text.trim().parse().ok())
            }
            Err(fs::TryLockError::Error(_)) => None,
        }
    }
}

impl Drop for OutputLock {
    fn drop(&mut self) {
        // Removed while still locked, so no other run holds a lock on a file that is gone.
        let _ = fs::remove_file(&self.path);
        let _ = self.file.unlock();
    }
}
