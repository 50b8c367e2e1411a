//! Read and write Selene/Lue `.Pack` archives (magic `KCAP`), the containers Selene games
//! keep their `.smf` models, textures and scripts in.
//!
//! A pack is an 8-byte header, a table of 0x54-byte records (name, name CRC, data CRC,
//! offset, size, encrypted flag) sorted by name CRC, and the entries' data. Encrypted entries
//! are XORed with a 64 KiB [`Key`] table derived from a passphrase (CP932 bytes → CRC-32 seed
//! → a Mersenne Twister computed in *signed* 32-bit integers). The full specification this
//! crate implements is `shared/formats/pack.md` in the project.
//!
//! * Reading is strict: every rule of the specification's validation list is checked, and
//!   each failure is a typed [`Error`] carrying the byte offset. The table's size is checked
//!   against the input before anything is allocated. A wrong `DataCrc` is a [`Warning`] (the
//!   engine ignores it).
//! * Reading borrows the input: entries are slices of it, decrypted on demand by
//!   [`Entry::data`], eight bytes at a time.
//! * Writing produces a pack the engine accepts: table sorted by name CRC, equal CRCs refused,
//!   data CRCs of the stored bytes, data in byte-wise name order right after the table,
//!   offsets within the signed 32-bit range, names converted to CP932 (refused when they
//!   cannot be). `to_bytes(from_bytes(f)) == f` for every real pack read with its passphrase.
//! * Nothing in the format tells a wrong passphrase from a right one: a wrong key decrypts to
//!   garbage of the right size. Look at the content (e.g. an `.smf` starts with `FMS\0`).
//!
//! # Example
//!
//! ```
//! use selene_pack::{Entry, Key, Pack};
//!
//! let key = Key::new(Some("PackPass"))?;
//! let mut pack = Pack::new(key.clone());
//! pack.push(Entry::new("Model\\train.smf", b"FMS\0...".as_slice(), true)?);
//! pack.push(Entry::new("readme.txt", b"plain text".as_slice(), false)?);
//! let bytes = pack.to_bytes()?;
//! assert!(selene_pack::sniff(&bytes));
//!
//! let read = Pack::from_bytes_with_key(&bytes, key)?;
//! let model = read.find("model/TRAIN.SMF").expect("found as the engine finds it");
//! assert_eq!(model.name(), "Model\\train.smf");
//! assert!(model.is_encrypted());
//! assert_eq!(&*model.data(), b"FMS\0...");
//! assert_eq!(read.to_bytes()?, bytes);
//! # Ok::<(), selene_pack::Error>(())
//! ```
#![forbid(unsafe_code)]
// Issue 8: never panic on input. No unwrap/expect/panic!/unchecked indexing in library code
// (tests may); an exception needs an `#[allow]` with the reason next to it.
#![cfg_attr(
    not(test),
    warn(
        clippy::unwrap_used,
        clippy::expect_used,
        clippy::indexing_slicing,
        clippy::panic
    )
)]
#![warn(missing_docs)]

mod crypt;
mod error;
mod model;
mod read;
mod write;

pub use crypt::{
    converted_name, name_crc, Key, DEFAULT_PASSPHRASE, KEY_TABLE_LEN, MIN_PASSPHRASE_LEN,
};
pub use error::{Error, Result, Warning};
pub use model::{cp932_name, Entry, Pack, ENTRY_SIZE, MAGIC, MAX_OFFSET, NAME_FIELD};
pub use read::sniff;

use std::io::Write;
use std::path::Path;
use std::sync::Arc;

impl<'a> Pack<'a> {
    /// Parses a pack held in memory, with the engine's default key
    /// ([`DEFAULT_PASSPHRASE`]). Warnings are discarded.
    pub fn from_bytes(bytes: &'a [u8]) -> Result<Self> {
        Self::from_bytes_with_key(bytes, Key::default())
    }

    /// Parses a pack whose encrypted entries decrypt with `key`. Warnings are discarded.
    pub fn from_bytes_with_key(bytes: &'a [u8], key: Key) -> Result<Self> {
        read::parse(bytes, Arc::new(key)).map(|(pack, _)| pack)
    }

    /// Parses a pack and also returns the warnings (a wrong `DataCrc`, an `Encrypted` flag
    /// other than 0/1, data laid out otherwise than the writer does).
    pub fn from_bytes_with_warnings(bytes: &'a [u8], key: Key) -> Result<(Self, Vec<Warning>)> {
        read::parse(bytes, Arc::new(key))
    }

    /// Serialises the pack (encrypting with [`Pack::key`] the entries marked encrypted).
    pub fn to_bytes(&self) -> Result<Vec<u8>> {
        write::serialize(self)
    }

    /// Serialises the pack into `writer`.
    pub fn write(&self, mut writer: impl Write) -> Result<()> {
        writer.write_all(&self.to_bytes()?)?;
        Ok(())
    }

    /// Serialises the pack into a file, replacing it if it exists. (The `models` facade
    /// offers a no-clobber, write-then-rename alternative.)
    pub fn save(&self, path: impl AsRef<Path>) -> Result<()> {
        std::fs::write(path, self.to_bytes()?)?;
        Ok(())
    }
}
