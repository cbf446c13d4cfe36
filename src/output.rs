//! Writing results safely: the best test case so far replaces the output file atomically
//! (a temporary file in the same directory, then a rename), so a crash never leaves half a file.

use std::io::Write;
use std::path::{Path, PathBuf};

/// Replaces `path` by `content` atomically, with the given permission bits when known.
pub fn write_atomically(path: &Path, content: &[u8], mode: Option<u32>) -> std::io::Result<()> {
    let dir = match path.parent() {
        Some(parent) if !parent.as_os_str().is_empty() => parent,
        _ => Path::new("."),
    };
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
    fn atomic_write_replaces_the_file() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("out.txt");
        write_atomically(&path, b"first", Some(0o644)).unwrap();
        write_atomically(&path, b"second", None).unwrap();
        assert_eq!(std::fs::read(&path).unwrap(), b"second");
        assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 1);
    }
}
