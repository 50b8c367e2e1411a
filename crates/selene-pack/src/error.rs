//! Errors and warnings of the pack reader and writer.

use std::fmt;

/// Why a `.Pack` file could not be read or a pack could not be written.
///
/// Every reader variant carries `offset`: the absolute byte offset in the file of the field
/// that is wrong (for an entry, the field inside its 0x54-byte table record). Use
/// [`Error::offset`] to get it generically.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// The first four bytes are not `KCAP`.
    #[error("at byte {offset}: not a Selene pack (expected the magic `KCAP`)")]
    NotThisFormat {
        /// Where the mismatch is (0).
        offset: u64,
    },
    /// The input ends inside the header or the entry table.
    #[error("at byte {offset}: truncated {what}: needs {needed} bytes, {available} remain")]
    Truncated {
        /// Where the structure starts.
        offset: u64,
        /// What was being read.
        what: &'static str,
        /// Bytes the structure needs (saturated at `u64::MAX` on overflow).
        needed: u64,
        /// Bytes remaining in the input.
        available: u64,
    },
    /// `FileCount` is 0 (the engine refuses an empty pack).
    #[error("at byte {offset}: the pack holds no entry (FileCount 0; the engine refuses it)")]
    Empty {
        /// Where `FileCount` is.
        offset: u64,
    },
    /// An entry name that is not NUL-terminated, has bytes after its NUL, or is not CP932.
    #[error("at byte {offset}: entry name {reason}")]
    BadName {
        /// Where the name field starts.
        offset: u64,
        /// What is wrong.
        reason: &'static str,
    },
    /// The stored `NameCrc` is not the CRC-32 of the converted name.
    #[error("at byte {offset}: NameCrc of `{name}` is {stored:#010x}, but the name's CRC is {computed:#010x}")]
    NameCrcMismatch {
        /// Where `NameCrc` is.
        offset: u64,
        /// The entry's name (decoded from CP932).
        name: String,
        /// The value in the file.
        stored: u32,
        /// The CRC of the converted name.
        computed: u32,
    },
    /// An entry's data reaches past the end of the file.
    #[error("at byte {offset}: data of `{name}` ({start} + {size}) lies outside the {file_len}-byte file")]
    OutsideFile {
        /// Where the entry's `Offset` field is.
        offset: u64,
        /// The entry's name.
        name: String,
        /// The data offset.
        start: u64,
        /// The data size.
        size: u64,
        /// The file's length.
        file_len: u64,
    },
    /// An entry's data starts inside the header or the entry table.
    #[error("at byte {offset}: data of `{name}` starts at {start}, inside the entry table (which ends at {table_end})")]
    OverlapsTable {
        /// Where the entry's `Offset` field is.
        offset: u64,
        /// The entry's name.
        name: String,
        /// The data offset.
        start: u64,
        /// The first byte after the table.
        table_end: u64,
    },
    /// Two entries' data overlap.
    #[error("at byte {offset}: data of `{name}` overlaps the data of `{other}`")]
    Overlap {
        /// Where the later entry's `Offset` field is.
        offset: u64,
        /// The entry whose data starts later.
        name: String,
        /// The entry it overlaps.
        other: String,
    },
    /// `Offset + Size` exceeds 0x7FFFFFFF (the engine uses signed 32-bit offsets).
    #[error(
        "at byte {offset}: data of `{name}` ends at {end}, beyond the engine's signed 32-bit range"
    )]
    BeyondI32 {
        /// Where the entry's `Offset` field is.
        offset: u64,
        /// The entry's name.
        name: String,
        /// `Offset + Size`.
        end: u64,
    },
    /// The table is not sorted by `NameCrc` ascending (the engine's binary search loses
    /// entries).
    #[error("at byte {offset}: the table is not sorted by NameCrc: `{name}` ({found:#010x}) follows {previous:#010x}")]
    Unsorted {
        /// Where the out-of-order `NameCrc` is.
        offset: u64,
        /// The entry's name.
        name: String,
        /// The previous entry's `NameCrc`.
        previous: u32,
        /// This entry's `NameCrc`.
        found: u32,
    },
    /// Two entries share a `NameCrc`: the engine can reach only one of them.
    #[error("at byte {offset}: `{name}` and `{other}` have the same NameCrc {crc:#010x}; the engine can reach only one")]
    DuplicateNameCrc {
        /// Where the second `NameCrc` is.
        offset: u64,
        /// The second entry's name.
        name: String,
        /// The first entry's name.
        other: String,
        /// The shared CRC.
        crc: u32,
    },
    /// Two entries of a pack being written share a `NameCrc` (their converted names are equal,
    /// e.g. `a.smf` and `A.SMF`, or a rare CRC collision): the engine could reach only one.
    #[error("cannot write both `{name}` and `{other}`: they have the same NameCrc {crc:#010x} (names differing only in ASCII case or `/` versus `\\` are the same name to the engine); the engine could reach only one")]
    SameNameCrc {
        /// The second entry's name.
        name: String,
        /// The first entry's name.
        other: String,
        /// The shared CRC.
        crc: u32,
    },
    /// A name that cannot be written: a character CP932 lacks, too long, empty, or with NUL.
    #[error("cannot write the entry name `{name}`: {reason}")]
    UnwritableName {
        /// The name as given.
        name: String,
        /// Why.
        reason: String,
    },
    /// A passphrase with a character CP932 cannot represent (the engine hashes CP932 bytes).
    #[error("the passphrase has the character {character:?}, which CP932 cannot represent")]
    PassphraseNotCp932 {
        /// The first such character.
        character: char,
    },
    /// The pack cannot be written within the engine's limits (no entry, or larger than the
    /// signed 32-bit range).
    #[error("cannot write: {0}")]
    Unwritable(String),
    /// An I/O error while reading or writing.
    #[error(transparent)]
    Io(#[from] std::io::Error),
}

impl Error {
    /// The byte offset the error refers to, if it comes from reading a file.
    pub fn offset(&self) -> Option<u64> {
        match self {
            Error::NotThisFormat { offset }
            | Error::Truncated { offset, .. }
            | Error::Empty { offset }
            | Error::BadName { offset, .. }
            | Error::NameCrcMismatch { offset, .. }
            | Error::OutsideFile { offset, .. }
            | Error::OverlapsTable { offset, .. }
            | Error::Overlap { offset, .. }
            | Error::BeyondI32 { offset, .. }
            | Error::Unsorted { offset, .. }
            | Error::DuplicateNameCrc { offset, .. } => Some(*offset),
            Error::SameNameCrc { .. }
            | Error::UnwritableName { .. }
            | Error::PassphraseNotCp932 { .. }
            | Error::Unwritable(_)
            | Error::Io(_) => None,
        }
    }
}

/// Something unusual that does not stop the pack from being read.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum Warning {
    /// `DataCrc` is not the CRC-32 of the stored bytes. The engine never checks it; a known
    /// third-party packer writes 0 there. A rewrite stores the right value.
    DataCrcMismatch {
        /// Where `DataCrc` is.
        offset: u64,
        /// The entry's name.
        name: String,
        /// The value in the file.
        stored: u32,
        /// The CRC of the stored bytes.
        computed: u32,
    },
    /// `Encrypted` is neither 0 nor 1; the engine treats it as 1 (the raw value is kept).
    EncryptedFlag {
        /// Where `Encrypted` is.
        offset: u64,
        /// The entry's name.
        name: String,
        /// The value in the file.
        value: u32,
    },
    /// The data is not laid out as real packs (and this crate's writer) lay it out: right
    /// after the table, contiguous, in byte-wise name order, no trailing bytes. Every entry
    /// reads fine, but a rewrite moves the data and drops bytes no entry covers.
    Layout {
        /// Where the first difference is.
        offset: u64,
        /// What differs.
        reason: String,
    },
}

impl fmt::Display for Warning {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Warning::DataCrcMismatch {
                offset,
                name,
                stored,
                computed,
            } => write!(
                f,
                "at byte {offset}: DataCrc of `{name}` is {stored:#010x}, but its data's CRC is {computed:#010x} (the engine ignores it; a rewrite fixes it)"
            ),
            Warning::EncryptedFlag {
                offset,
                name,
                value,
            } => write!(
                f,
                "at byte {offset}: Encrypted of `{name}` is {value}, not 0 or 1 (the engine treats it as 1)"
            ),
            Warning::Layout { offset, reason } => write!(
                f,
                "at byte {offset}: {reason} (a rewrite lays the data out as real packs do)"
            ),
        }
    }
}

/// Result alias for this crate.
pub type Result<T, E = Error> = std::result::Result<T, E>;
