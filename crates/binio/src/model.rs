//! The one trait every format crate implements.

use std::io::{Read, Write};
use std::path::Path;

/// A document of one model format: what every format crate offers, written once.
///
/// A format crate implements the four required items ([`NAME`](Model::NAME),
/// [`sniff`](Model::sniff), [`from_bytes_with_warnings`](Model::from_bytes_with_warnings) and
/// [`to_bytes`](Model::to_bytes)); the reading and writing conveniences are provided here, so
/// they behave the same for every format. Each format crate re-exports this trait, so
/// `use bmf_block::Model;` (or a glob import of the crate) brings the methods into scope.
///
/// ```
/// use binio::Model;
///
/// /// A toy format: the magic `TOY`, then one byte.
/// #[derive(Debug, PartialEq)]
/// struct Toy(u8);
///
/// impl Model for Toy {
///     type Error = std::io::Error;
///     type Warning = String;
///     const NAME: &'static str = "toy";
///     fn sniff(bytes: &[u8]) -> bool {
///         bytes.starts_with(b"TOY")
///     }
///     fn from_bytes_with_warnings(bytes: &[u8]) -> std::io::Result<(Self, Vec<String>)> {
///         match bytes {
///             [b'T', b'O', b'Y', v] => Ok((Toy(*v), Vec::new())),
///             _ => Err(std::io::ErrorKind::InvalidData.into()),
///         }
///     }
///     fn to_bytes(&self) -> std::io::Result<Vec<u8>> {
///         Ok(vec![b'T', b'O', b'Y', self.0])
///     }
/// }
///
/// let mut out = Vec::new();
/// Toy(7).write(&mut out)?;
/// assert!(Toy::sniff(&out));
/// assert_eq!(Toy::read(&out[..])?, Toy(7));
/// # Ok::<(), std::io::Error>(())
/// ```
pub trait Model: Sized {
    /// The format's error: every read and write failure, with its position where it has one.
    /// I/O failures of the provided methods become this type too.
    type Error: std::error::Error + From<std::io::Error>;

    /// What the reader reports about unusual but readable data.
    type Warning: std::fmt::Display;

    /// The format's short lower-case name, which is also its usual file extension (`bmf`).
    const NAME: &'static str;

    /// True when `bytes` start like a file of this format. Looks at the first 64 bytes at most
    /// and never fails.
    fn sniff(bytes: &[u8]) -> bool;

    /// Parses a whole file held in memory and returns the reader's warnings beside it.
    fn from_bytes_with_warnings(bytes: &[u8]) -> Result<(Self, Vec<Self::Warning>), Self::Error>;

    /// Serialises the document.
    fn to_bytes(&self) -> Result<Vec<u8>, Self::Error>;

    /// Parses a whole file held in memory, discarding the warnings.
    fn from_bytes(bytes: &[u8]) -> Result<Self, Self::Error> {
        Self::from_bytes_with_warnings(bytes).map(|(doc, _)| doc)
    }

    /// Reads everything from `reader`, then parses it.
    fn read(mut reader: impl Read) -> Result<Self, Self::Error> {
        let mut bytes = Vec::new();
        reader.read_to_end(&mut bytes)?;
        Self::from_bytes(&bytes)
    }

    /// Reads and parses the file at `path`.
    fn from_path(path: impl AsRef<Path>) -> Result<Self, Self::Error> {
        Self::from_bytes(&std::fs::read(path)?)
    }

    /// Serialises the document into `writer`.
    fn write(&self, mut writer: impl Write) -> Result<(), Self::Error> {
        writer.write_all(&self.to_bytes()?)?;
        Ok(())
    }

    /// Serialises the document into the file at `path`, creating or truncating it. (The
    /// `models` facade offers a no-clobber, write-then-rename alternative.)
    fn save(&self, path: impl AsRef<Path>) -> Result<(), Self::Error> {
        std::fs::write(path, self.to_bytes()?)?;
        Ok(())
    }
}
