//! Safe output: never onto the input, never over an existing file unless forced, always
//! through a temporary file in the destination folder that is renamed into place, so a reader
//! of `path` sees either the old file or the complete new one, never a partial write.

use crate::Error;
use std::io::Write;
use std::path::Path;

/// How [`write_new_file`] treats an existing output.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum Overwrite {
    /// Refuse with [`Error::OutputExists`] (the default).
    #[default]
    Never,
    /// Replace the existing file (still never the input).
    Allowed,
}

/// Writes `bytes` to `path` safely.
///
/// * If `input` is given and `path` is the same file, fails with [`Error::OutputIsInput`].
/// * If `path` exists and `overwrite` is [`Overwrite::Never`], fails with
///   [`Error::OutputExists`] and leaves it untouched.
/// * Otherwise writes a temporary file beside `path`, flushes it to disk and renames it into
///   place. On any error the temporary file is removed.
///
/// ```
/// use models::output::{write_new_file, Overwrite};
/// let dir = tempfile::tempdir()?;
/// let out = dir.path().join("model.bmf");
/// write_new_file(&out, b"data", None, Overwrite::Never)?;
/// assert!(write_new_file(&out, b"other", None, Overwrite::Never).is_err());
/// assert_eq!(std::fs::read(&out)?, b"data");
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn write_new_file(
    path: &Path,
    bytes: &[u8],
    input: Option<&Path>,
    overwrite: Overwrite,
) -> Result<(), Error> {
    if let Some(input) = input {
        if same_file(input, path) {
            return Err(Error::OutputIsInput(path.to_path_buf()));
        }
    }
    if overwrite == Overwrite::Never && path.symlink_metadata().is_ok() {
        return Err(Error::OutputExists(path.to_path_buf()));
    }
    let dir = match path.parent() {
        Some(d) if !d.as_os_str().is_empty() => d,
        _ => Path::new("."),
    };
    // Errors name the folder or the final output, which the user chose, not the temporary
    // file (which is removed on every error path: `NamedTempFile` deletes itself on drop).
    let mut tmp = tempfile::Builder::new()
        .prefix(".models-")
        .suffix(".tmp")
        .tempfile_in(dir)
        .map_err(|e| Error::Io(without_path(e)).at(dir))?;
    tmp.write_all(bytes)
        .map_err(|e| Error::Io(without_path(e)).at(path))?;
    tmp.as_file()
        .sync_all()
        .map_err(|e| Error::Io(without_path(e)).at(path))?;
    let persisted = match overwrite {
        // persist_noclobber closes the race between the exists check above and the rename.
        Overwrite::Never => tmp.persist_noclobber(path),
        Overwrite::Allowed => tmp.persist(path),
    };
    persisted.map_err(|e| {
        if e.error.kind() == std::io::ErrorKind::AlreadyExists {
            Error::OutputExists(path.to_path_buf())
        } else {
            Error::Io(e.error).at(path)
        }
    })?;
    Ok(())
}

/// The OS error alone: `tempfile` wraps its errors in one that adds the temporary file's path
/// (and hides the OS error code), which would repeat or contradict the path the caller reports.
/// Such an error is replaced by its kind ("permission denied"), unless the kind says nothing.
fn without_path(e: std::io::Error) -> std::io::Error {
    if let Some(code) = e.raw_os_error() {
        return std::io::Error::from_raw_os_error(code);
    }
    match e.kind() {
        std::io::ErrorKind::Other => e,
        kind if e.get_ref().is_some() => std::io::Error::from(kind),
        _ => e,
    }
}

/// True when both paths name the same existing file (through links or `..` too).
fn same_file(a: &Path, b: &Path) -> bool {
    match (a.canonicalize(), b.canonicalize()) {
        (Ok(a), Ok(b)) => a == b,
        _ => false,
    }
}
