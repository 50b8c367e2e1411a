//! Reading inputs: only regular files, and never more bytes than their metadata states.
//!
//! A FIFO, a device (`/dev/zero`), a socket or a folder is refused before it is opened, so
//! that nothing blocks on a pipe with no writer or reads an endless device until memory runs
//! out. A link is followed to its target first. The open itself does not wait either
//! (`O_NONBLOCK` on unix), and the open file is checked again, so a FIFO swapped in between
//! the check and the open is refused too.

use crate::Error;
use std::fs::{File, Metadata};
use std::io::Read;
use std::path::Path;

/// The largest input read, in bytes (4 GiB): the binary formats address their data with
/// 32-bit offsets, and no text model comes near it.
pub const MAX_INPUT_BYTES: u64 = 1 << 32;

/// What kind of file `metadata` describes, for messages (`"a FIFO"`, `"a folder"`, …);
/// `None` for a regular file.
pub fn not_regular_kind(metadata: &Metadata) -> Option<&'static str> {
    let kind = metadata.file_type();
    if kind.is_file() {
        return None;
    }
    if kind.is_dir() {
        return Some("a folder");
    }
    #[cfg(unix)]
    {
        use std::os::unix::fs::FileTypeExt;
        if kind.is_fifo() {
            return Some("a FIFO");
        }
        if kind.is_char_device() {
            return Some("a character device");
        }
        if kind.is_block_device() {
            return Some("a block device");
        }
        if kind.is_socket() {
            return Some("a socket");
        }
    }
    Some("not a regular file")
}

/// Opens `path` if it is a regular file (after following links) no larger than
/// [`MAX_INPUT_BYTES`], and returns it with its size. Errors name the path.
pub fn open_regular(path: &Path) -> Result<(File, u64), Error> {
    let check = |metadata: &Metadata| match not_regular_kind(metadata) {
        Some(kind) => Err(Error::NotRegularFile(kind).at(path)),
        None if metadata.len() > MAX_INPUT_BYTES => Err(Error::InputTooLarge {
            size: metadata.len(),
            limit: MAX_INPUT_BYTES,
        }
        .at(path)),
        None => Ok(metadata.len()),
    };
    // Checked before opening (opening a FIFO waits for a writer), and again on the open file
    // in case the name was replaced in between; that open does not wait (O_NONBLOCK, which
    // changes nothing for a regular file).
    check(&std::fs::metadata(path).map_err(|e| Error::Io(e).at(path))?)?;
    let file = open_without_waiting(path).map_err(|e| Error::Io(e).at(path))?;
    let len = check(&file.metadata().map_err(|e| Error::Io(e).at(path))?)?;
    Ok((file, len))
}

/// Opens `path` for reading without waiting for a FIFO's writer.
fn open_without_waiting(path: &Path) -> std::io::Result<File> {
    let mut options = std::fs::OpenOptions::new();
    options.read(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        options.custom_flags(libc::O_NONBLOCK);
    }
    options.open(path)
}

/// The bytes of the regular file `path`: at most the size its metadata states, so a file that
/// grows while it is read is read as it was when opened. Errors name the path.
pub fn read_regular_file(path: &Path) -> Result<Vec<u8>, Error> {
    let (file, len) = open_regular(path)?;
    let mut bytes = Vec::with_capacity(usize::try_from(len).unwrap_or(0));
    file.take(len)
        .read_to_end(&mut bytes)
        .map_err(|e| Error::Io(e).at(path))?;
    Ok(bytes)
}

/// The first `n` bytes (fewer if the file is shorter) of the regular file `path`.
pub fn read_head(path: &Path, n: u64) -> Result<Vec<u8>, Error> {
    let (file, len) = open_regular(path)?;
    let mut head = Vec::new();
    file.take(n.min(len))
        .read_to_end(&mut head)
        .map_err(|e| Error::Io(e).at(path))?;
    Ok(head)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn folders_and_devices_are_refused_with_their_kind() {
        let dir = tempfile::tempdir().unwrap();
        let e = read_regular_file(dir.path()).unwrap_err();
        assert!(e.to_string().contains("a folder"), "{e}");
        #[cfg(unix)]
        {
            let e = read_regular_file(Path::new("/dev/zero")).unwrap_err();
            assert!(e.to_string().contains("a character device"), "{e}");
            let e = read_head(Path::new("/dev/zero"), 64).unwrap_err();
            assert!(e.to_string().contains("/dev/zero"), "{e}");
        }
    }

    /// The second check, for a FIFO put in place after the first: opening it returns at once
    /// (a blocking open would wait for a writer forever), and the open file says what it is.
    #[cfg(unix)]
    #[test]
    fn the_open_itself_never_waits_on_a_fifo() {
        let dir = tempfile::tempdir().unwrap();
        let fifo = dir.path().join("pipe");
        let made = std::process::Command::new("mkfifo").arg(&fifo).status();
        assert!(made.unwrap().success());
        let (tx, rx) = std::sync::mpsc::channel();
        std::thread::spawn(move || {
            let kind = open_without_waiting(&fifo)
                .and_then(|f| f.metadata())
                .map(|m| not_regular_kind(&m));
            tx.send(kind.unwrap()).unwrap();
        });
        // A hang guard, not a timing assertion.
        let kind = rx.recv_timeout(std::time::Duration::from_secs(120));
        assert_eq!(kind.expect("the open waited for a writer"), Some("a FIFO"));
    }

    #[test]
    fn regular_files_are_read_whole_or_by_head() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("f");
        std::fs::write(&file, b"abcdef").unwrap();
        assert_eq!(read_regular_file(&file).unwrap(), b"abcdef");
        assert_eq!(read_head(&file, 2).unwrap(), b"ab");
    }
}
