//! [`Bytes`]: a whole file or a whole output in memory, in a vector or, when large, in a fresh
//! anonymous mapping backed by transparent huge pages (Linux).
//!
//! Why a mapping: a fresh vector's 4 KiB pages each fault on first touch, and in a one-shot
//! conversion, or for a vector glibc maps anew every time (over 32 MiB), those faults were a
//! large part of the work (issue 18: copying a finished 44 MB `.glb` into a fresh vector took
//! 27 ms, into huge pages 7–8 ms; reading an 8 MB file 6–7 ms against 2.6–2.9 ms). The kernel
//! clears a huge page in one go, and a populated mapping is filled in one call.

use std::io::Write;

/// Outputs of this many bytes or more are written into a mapping (Linux): 32 MiB, the size
/// from which glibc (64-bit) maps every vector anew anyway. Below it a vector is the better
/// choice for a process that exports again and again, since glibc hands it the memory the
/// previous one freed, already faulted in, where a fresh mapping would be cleared each time.
#[cfg_attr(not(target_os = "linux"), allow(dead_code))]
pub(crate) const MAPPED_OUTPUT_FROM: usize = 32 << 20;

/// A transparent huge page on x86-64 and most aarch64 kernels.
#[cfg(target_os = "linux")]
const HUGE_PAGE: usize = 2 << 20;

/// Bytes in memory: from [`crate::input::read_input`] (a file), [`crate::gltf::to_glb`] (a
/// `.glb`) or [`Bytes::copy_from_slice`]. A vector, or, on Linux when large, an anonymous
/// mapping. Derefs to the bytes; [`Bytes::into_vec`] gives a vector.
///
/// ```
/// let bytes = models::Bytes::copy_from_slice(b"glTF");
/// assert_eq!(&bytes[..], b"glTF");
/// assert_eq!(bytes, b"glTF".to_vec());
/// assert_eq!(bytes.into_vec(), b"glTF");
/// ```
pub struct Bytes {
    inner: Inner,
}

enum Inner {
    Heap(Vec<u8>),
    /// The first `len` bytes of `map` are the content (the mapping may be rounded up).
    #[cfg(target_os = "linux")]
    Mapped {
        map: memmap2::MmapMut,
        len: usize,
    },
}

impl std::ops::Deref for Bytes {
    type Target = [u8];
    fn deref(&self) -> &[u8] {
        match &self.inner {
            Inner::Heap(bytes) => bytes,
            #[cfg(target_os = "linux")]
            Inner::Mapped { map, len } => map.get(..*len).unwrap_or_default(),
        }
    }
}

impl std::ops::DerefMut for Bytes {
    fn deref_mut(&mut self) -> &mut [u8] {
        match &mut self.inner {
            Inner::Heap(bytes) => bytes,
            #[cfg(target_os = "linux")]
            Inner::Mapped { map, len } => map.get_mut(..*len).unwrap_or_default(),
        }
    }
}

impl AsRef<[u8]> for Bytes {
    fn as_ref(&self) -> &[u8] {
        self
    }
}

/// Only the length: the bytes themselves are no use in a message.
impl std::fmt::Debug for Bytes {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Bytes").field("len", &self.len()).finish()
    }
}

impl Clone for Bytes {
    fn clone(&self) -> Self {
        Self::copy_from_slice(self)
    }
}

impl PartialEq for Bytes {
    fn eq(&self, other: &Self) -> bool {
        **self == **other
    }
}

impl Eq for Bytes {}

impl PartialEq<[u8]> for Bytes {
    fn eq(&self, other: &[u8]) -> bool {
        **self == *other
    }
}

impl PartialEq<Vec<u8>> for Bytes {
    fn eq(&self, other: &Vec<u8>) -> bool {
        **self == **other
    }
}

impl PartialEq<Bytes> for Vec<u8> {
    fn eq(&self, other: &Bytes) -> bool {
        **self == **other
    }
}

impl From<Vec<u8>> for Bytes {
    fn from(bytes: Vec<u8>) -> Self {
        Bytes {
            inner: Inner::Heap(bytes),
        }
    }
}

impl From<Bytes> for Vec<u8> {
    fn from(bytes: Bytes) -> Self {
        bytes.into_vec()
    }
}

impl Bytes {
    /// The bytes as a vector: the vector itself, or a copy of mapped bytes.
    pub fn into_vec(self) -> Vec<u8> {
        match self.inner {
            Inner::Heap(bytes) => bytes,
            #[cfg(target_os = "linux")]
            Inner::Mapped { .. } => self.to_vec(),
        }
    }

    /// A copy of `bytes`, in a mapping from 32 MiB on (Linux) as an output would be.
    pub fn copy_from_slice(bytes: &[u8]) -> Self {
        // Writing a slice of exactly the planned length cannot fail.
        Self::write_exactly(bytes.len(), |out| out.write_all(bytes))
            .unwrap_or_else(|_| bytes.to_vec().into())
    }

    /// Whether the bytes live in a mapping rather than a vector (then [`Bytes::into_vec`]
    /// copies them).
    pub fn is_mapped(&self) -> bool {
        !matches!(self.inner, Inner::Heap(_))
    }

    /// The `len` bytes `write` writes, in a vector with exactly that capacity, or on Linux from
    /// [`MAPPED_OUTPUT_FROM`] on (outside [`heap_only`]) in a fresh mapping. An error if
    /// `write` fails, writes more than `len` bytes (`WriteZero`) or fewer (`UnexpectedEof`).
    pub(crate) fn write_exactly(
        len: usize,
        write: impl FnOnce(&mut dyn Write) -> std::io::Result<()>,
    ) -> std::io::Result<Self> {
        #[cfg(target_os = "linux")]
        if len >= MAPPED_OUTPUT_FROM && !in_heap_only() {
            if let Some(mut map) = fresh_mapping(len) {
                let mut rest = map.get_mut(..len).unwrap_or_default();
                write(&mut rest)?;
                if !rest.is_empty() {
                    return Err(short_write(len - rest.len(), len));
                }
                return Ok(Self::mapped(map, len));
            }
        }
        let mut out = Vec::with_capacity(len);
        write(&mut out)?;
        match out.len() {
            n if n < len => Err(short_write(n, len)),
            n if n > len => Err(std::io::Error::new(
                std::io::ErrorKind::WriteZero,
                format!("{n} bytes written where {len} were planned"),
            )),
            _ => Ok(out.into()),
        }
    }

    /// The first `len` bytes of `map`.
    #[cfg(target_os = "linux")]
    pub(crate) fn mapped(map: memmap2::MmapMut, len: usize) -> Self {
        Bytes {
            inner: Inner::Mapped { map, len },
        }
    }
}

fn short_write(written: usize, planned: usize) -> std::io::Error {
    std::io::Error::new(
        std::io::ErrorKind::UnexpectedEof,
        format!("{written} bytes written where {planned} were planned"),
    )
}

thread_local! {
    /// Set inside [`heap_only`].
    static HEAP_ONLY: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
}

/// Whether this thread is inside [`heap_only`].
#[cfg_attr(not(target_os = "linux"), allow(dead_code))]
pub(crate) fn in_heap_only() -> bool {
    HEAP_ONLY.with(std::cell::Cell::get)
}

/// Runs `f` with every [`Bytes`] made on this thread ([`crate::input::read_input`]'s inputs,
/// [`crate::gltf::to_glb`]'s outputs) in a vector, never a mapping. For a thread that reads or
/// writes many models in turn, such as a batch worker: there glibc hands each one the memory
/// the previous ones freed, already faulted in, while a fresh mapping would be cleared anew
/// each time (measured: a batch of 200 files of about 4 MB, 2.0 s with the heap against 2.4 s
/// with mappings). Also for measuring memory with a counting global allocator, which does not
/// see mappings. Nests; restored when `f` returns or unwinds.
///
/// ```
/// let dir = tempfile::tempdir()?;
/// let path = dir.path().join("model.bin");
/// std::fs::write(&path, vec![7u8; 300_000])?;
/// let bytes = models::bytes::heap_only(|| models::input::read_input(&path))?;
/// assert_eq!(bytes.len(), 300_000);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn heap_only<R>(f: impl FnOnce() -> R) -> R {
    struct Restore(bool);
    impl Drop for Restore {
        fn drop(&mut self) {
            HEAP_ONLY.with(|heap| heap.set(self.0));
        }
    }
    let _restore = Restore(HEAP_ONLY.with(|heap| heap.replace(true)));
    f()
}

/// An anonymous mapping of at least `len` bytes, advised to be backed by huge pages (from 2 MiB
/// on, rounded up to whole ones: at most 2 MiB − 1 more) and populated now; `None` if it
/// cannot be mapped.
#[cfg(target_os = "linux")]
pub(crate) fn fresh_mapping(len: usize) -> Option<memmap2::MmapMut> {
    let size = if len >= HUGE_PAGE {
        len.checked_next_multiple_of(HUGE_PAGE)?
    } else {
        len
    };
    let map = memmap2::MmapOptions::new().len(size).map_anon().ok()?;
    // Both are hints: a kernel without transparent huge pages, or older than 5.14 (no
    // MADV_POPULATE_WRITE), refuses them and the pages fault one by one as they are written.
    if size >= HUGE_PAGE {
        let _ = map.advise(memmap2::Advice::HugePage);
    }
    let _ = map.advise(memmap2::Advice::PopulateWrite);
    Some(map)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Below, at and above the output threshold: the bytes written, in a mapping from the
    /// threshold on (Linux), and an error, not a short or overlong buffer, when the writer
    /// writes other than the planned length.
    #[test]
    fn write_exactly_holds_the_planned_bytes_or_fails() {
        for len in [
            0,
            7,
            MAPPED_OUTPUT_FROM - 1,
            MAPPED_OUTPUT_FROM,
            MAPPED_OUTPUT_FROM + 5,
        ] {
            let content: Vec<u8> = (0..len).map(|k| (k % 251) as u8).collect();
            let bytes = Bytes::write_exactly(len, |out| out.write_all(&content)).unwrap();
            assert_eq!(bytes, content, "{len}");
            assert_eq!(
                bytes.is_mapped(),
                cfg!(target_os = "linux") && len >= MAPPED_OUTPUT_FROM,
                "{len}"
            );
            let mut copy = bytes.clone();
            assert_eq!(copy, bytes);
            if let Some(first) = copy.first_mut() {
                *first ^= 1;
                assert_ne!(copy, bytes, "{len}: the clone is a copy");
            }
            assert_eq!(Vec::from(bytes), content, "{len} as a vector");
            let heap = heap_only(|| Bytes::write_exactly(len, |out| out.write_all(&content)));
            assert!(!heap.unwrap().is_mapped(), "{len}: heap_only");
            if len > 0 {
                let short = Bytes::write_exactly(len, |out| out.write_all(&content[1..]));
                let e = short.unwrap_err();
                assert_eq!(e.kind(), std::io::ErrorKind::UnexpectedEof, "{len}");
            }
            let long = Bytes::write_exactly(len, |out| {
                out.write_all(&content)?;
                out.write_all(b"x")
            });
            assert_eq!(
                long.unwrap_err().kind(),
                std::io::ErrorKind::WriteZero,
                "{len}"
            );
        }
    }
}
