//! Reading inputs: only regular files, and never more bytes than their metadata states.
//!
//! A FIFO, a device (`/dev/zero`), a socket or a folder is refused before it is opened, so
//! that nothing blocks on a pipe with no writer or reads an endless device until memory runs
//! out. A link is followed to its target first. The open itself does not wait either
//! (`O_NONBLOCK` on unix), and the open file is checked again, so a FIFO swapped in between
//! the check and the open is refused too.

#[cfg(target_os = "linux")]
use crate::bytes::fresh_mapping;
use crate::bytes::Bytes;
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

/// Inputs of this many bytes or more are read by [`read_input`] into an anonymous mapping
/// (Linux). Smaller ones come from the heap, where glibc reuses freed memory anyway.
#[cfg_attr(not(target_os = "linux"), allow(dead_code))]
const MAPPED_FROM: usize = 128 << 10;

/// Like [`read_regular_file`] (the same checks and the same bytes), for input that is parsed
/// from memory and then dropped. On Linux, outside [`heap_only`](crate::bytes::heap_only), an input of 128 KiB or
/// more is read into a fresh anonymous mapping that the kernel populates in one call, with
/// transparent huge pages from 2 MiB on (`MADV_HUGEPAGE`, `MADV_POPULATE_WRITE`; the mapping
/// is then rounded up to whole huge pages, at most 2 MiB − 1 more than the file), instead of a
/// vector whose 4 KiB pages each fault on first touch. In a one-shot process those faults were
/// the largest part of reading a model (issue 18: an 8 MB file's read took 6–7 ms of CPU,
/// 2.6–2.9 ms so). Where the kernel refuses the advice, the pages fault as a vector's would.
///
/// ```
/// let dir = tempfile::tempdir()?;
/// let path = dir.path().join("model.bin");
/// std::fs::write(&path, vec![7u8; 300_000])?;
/// let bytes = models::input::read_input(&path)?;
/// assert_eq!(bytes.len(), 300_000);
/// assert!(bytes.iter().all(|&b| b == 7));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn read_input(path: &Path) -> Result<Bytes, Error> {
    let (file, len) = open_regular(path)?;
    #[cfg(target_os = "linux")]
    if let Some(size) = usize::try_from(len)
        .ok()
        .filter(|&size| size >= MAPPED_FROM && !crate::bytes::in_heap_only())
    {
        if let Some(mut map) = fresh_mapping(size) {
            let filled = fill(&mut file.take(len), map.get_mut(..size).unwrap_or_default())
                .map_err(|e| Error::Io(e).at(path))?;
            return Ok(Bytes::mapped(map, filled));
        }
    }
    let mut bytes = Vec::with_capacity(usize::try_from(len).unwrap_or(0));
    file.take(len)
        .read_to_end(&mut bytes)
        .map_err(|e| Error::Io(e).at(path))?;
    Ok(bytes.into())
}

/// Reads into `buf` until it is full or the reader ends; returns how many bytes were read.
#[cfg(target_os = "linux")]
fn fill(reader: &mut impl Read, buf: &mut [u8]) -> std::io::Result<usize> {
    let mut filled = 0;
    while let Some(rest) = buf.get_mut(filled..).filter(|rest| !rest.is_empty()) {
        match reader.read(rest) {
            Ok(0) => break,
            Ok(n) => filled += n.min(rest.len()),
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
    Ok(filled)
}

/// The first `n` bytes (fewer if the file is shorter) of the regular file `path`.
pub fn read_head(path: &Path, n: u64) -> Result<Vec<u8>, Error> {
    let (file, len) = open_regular(path)?;
    let n = n.min(len);
    // Room for a head of up to 64 KiB up front: one `read` (an empty vector made
    // `read_to_end` probe with 32 bytes and then double, four reads for a 256-byte head).
    let mut head = Vec::with_capacity(usize::try_from(n.min(1 << 16)).unwrap_or(0));
    file.take(n)
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

    /// Below, at and above the mapping threshold and the huge-page size: the same bytes as
    /// `read_regular_file`, none past the file's end (the mapping is rounded up), and whether
    /// they were mapped.
    #[test]
    fn read_input_gives_the_file_bytes_mapped_or_not() {
        let dir = tempfile::tempdir().unwrap();
        for (i, len) in [0, 5, MAPPED_FROM - 1, MAPPED_FROM, (2 << 20) + 3, 3 << 20]
            .into_iter()
            .enumerate()
        {
            let file = dir.path().join(format!("f{i}"));
            let content: Vec<u8> = (0..len).map(|k| (k % 251) as u8).collect();
            std::fs::write(&file, &content).unwrap();
            let bytes = read_input(&file).unwrap();
            assert_eq!(&*bytes, &content[..], "{len} bytes");
            assert_eq!(
                bytes.is_mapped(),
                cfg!(target_os = "linux") && len >= MAPPED_FROM,
                "{len}"
            );
            assert_eq!(bytes.into_vec(), content, "{len} bytes as a vector");
        }
        let big = dir.path().join("big");
        std::fs::write(&big, vec![1u8; MAPPED_FROM]).unwrap();
        let heap = |path: &Path| !read_input(path).unwrap().is_mapped();
        use crate::bytes::heap_only;
        assert!(heap_only(|| heap_only(|| heap(&big)) && heap(&big)));
        assert_eq!(
            heap(&big),
            !cfg!(target_os = "linux"),
            "restored after the scope"
        );
        let e = read_input(dir.path()).unwrap_err();
        assert!(e.to_string().contains("a folder"), "{e}");
    }
}
