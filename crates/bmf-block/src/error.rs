//! Errors and warnings of the BMF reader and writer.

use std::fmt;

/// Why a `.bmf` file could not be read or a document could not be written.
///
/// Every reader variant carries `offset`: the absolute byte offset in the file of the block
/// header or field that is wrong. Use [`Error::offset`] to get it generically.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// The first bytes are not a BMF header (`BDV1.` + digit + NUL).
    #[error("at byte {offset:#x}: not a BMF file (expected the header `BDV1.0` or `BDV1.1` followed by NUL padding)")]
    NotThisFormat {
        /// Where the mismatch is.
        offset: u64,
    },
    /// A `BDV1.x` header with a version other than 1.0 or 1.1.
    #[error("at byte {offset:#x}: unsupported BMF version `{found}` (supported: BDV1.0, BDV1.1)")]
    UnsupportedVersion {
        /// Where the version text is.
        offset: u64,
        /// The version text found.
        found: String,
    },
    /// The input ends inside a structure, or a declared size or count needs more bytes than
    /// remain.
    #[error("at byte {offset:#x}: truncated {what}: needs {needed} bytes, {available} remain")]
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
    /// A block of another type than the grammar allows at this point (unknown, out of order,
    /// or a missing End).
    #[error("at byte {offset:#x}: expected {expected}, found block type {found}")]
    UnexpectedBlock {
        /// Where the block header is.
        offset: u64,
        /// What the grammar expects here.
        expected: &'static str,
        /// The block type found.
        found: u32,
    },
    /// A block size that is not a multiple of its element size or otherwise impossible.
    #[error("at byte {offset:#x}: {what} size {size} {reason}")]
    BadSize {
        /// Where the block header (or field) is.
        offset: u64,
        /// Which block or field.
        what: &'static str,
        /// The size found.
        size: u64,
        /// Why it is wrong, e.g. "is not a multiple of 32".
        reason: String,
    },
    /// A count that is not allowed, e.g. zero meshes or zero bones.
    #[error("at byte {offset:#x}: {what} is {count}, which is not allowed")]
    BadCount {
        /// Where the count is.
        offset: u64,
        /// Which count.
        what: &'static str,
        /// The value found.
        count: u64,
    },
    /// An index that points outside its target array.
    #[error("at byte {offset:#x}: {what} {index} is out of range (must be below {limit})")]
    IndexOutOfRange {
        /// Where the offending value is.
        offset: u64,
        /// Which index.
        what: &'static str,
        /// The value found.
        index: u64,
        /// The exclusive upper bound.
        limit: u64,
    },
    /// A material texture name that is not a valid NUL-terminated UTF-16LE string.
    #[error("at byte {offset:#x}: texture name {reason}")]
    BadString {
        /// Where the name starts.
        offset: u64,
        /// What is wrong.
        reason: &'static str,
    },
    /// Bytes after the last End block.
    #[error("at byte {offset:#x}: {len} trailing bytes after the last End block")]
    TrailingData {
        /// Where the extra bytes start.
        offset: u64,
        /// How many there are.
        len: u64,
    },
    /// The document cannot be written as a valid BMF file.
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
            | Error::UnsupportedVersion { offset, .. }
            | Error::Truncated { offset, .. }
            | Error::UnexpectedBlock { offset, .. }
            | Error::BadSize { offset, .. }
            | Error::BadCount { offset, .. }
            | Error::IndexOutOfRange { offset, .. }
            | Error::BadString { offset, .. }
            | Error::TrailingData { offset, .. } => Some(*offset),
            Error::Unwritable(_) | Error::Io(_) => None,
        }
    }
}

/// Something unusual that does not stop the file from being read (and rewritten exactly).
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub enum Warning {
    /// Header bytes 7..15 are not all zero (they are kept).
    HeaderPadding {
        /// Offset of the header.
        offset: u64,
    },
    /// A texture name has units after its first NUL (they are kept).
    NameAfterNul {
        /// Offset of the name.
        offset: u64,
    },
    /// A texture name is not valid UTF-16 (the raw units are kept).
    NameNotUtf16 {
        /// Offset of the name.
        offset: u64,
    },
    /// A mesh's material ranges overlap, leave gaps, or do not cover the whole Index block.
    MaterialRanges {
        /// Offset of the mesh's MaterialCount block.
        offset: u64,
    },
    /// A referenced vertex holds a non-finite float, or skin weights that do not sum to ≈ 1.
    SuspiciousVertex {
        /// Offset of the vertex.
        offset: u64,
        /// What is suspicious.
        reason: &'static str,
    },
    /// An AnimeMatrix block holds no samples.
    NoAnimationSamples {
        /// Offset of the AnimeMatrix block.
        offset: u64,
    },
    /// A skinning matrix is not affine: its column 3 differs from (0, 0, 0, 1) by more than 1e-5.
    NotAffine {
        /// Offset of the matrix.
        offset: u64,
    },
    /// More bones than the BaseCross shader supports (72).
    TooManyBones {
        /// Offset of the BoneCount block.
        offset: u64,
        /// The bone count.
        bones: u32,
    },
    /// An End block with a non-zero size (the value is kept).
    EndSize {
        /// Offset of the End block.
        offset: u64,
        /// Its size field.
        size: u32,
    },
    /// The meshes of a multi-mesh file differ in vertex kind or sample count.
    MixedMeshes {
        /// Offset of the first mesh that differs from mesh 0.
        offset: u64,
    },
}

impl fmt::Display for Warning {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Warning::HeaderPadding { offset } => {
                write!(f, "at byte {offset:#x}: header padding bytes 7..15 are not zero")
            }
            Warning::NameAfterNul { offset } => {
                write!(f, "at byte {offset:#x}: texture name has data after its NUL")
            }
            Warning::NameNotUtf16 { offset } => {
                write!(f, "at byte {offset:#x}: texture name is not valid UTF-16")
            }
            Warning::MaterialRanges { offset } => write!(
                f,
                "at byte {offset:#x}: material index ranges are not contiguous or do not cover the indices"
            ),
            Warning::SuspiciousVertex { offset, reason } => {
                write!(f, "at byte {offset:#x}: referenced vertex {reason}")
            }
            Warning::NoAnimationSamples { offset } => {
                write!(f, "at byte {offset:#x}: AnimeMatrix block holds no samples")
            }
            Warning::NotAffine { offset } => write!(
                f,
                "at byte {offset:#x}: skinning matrix column 3 is not (0, 0, 0, 1)"
            ),
            Warning::TooManyBones { offset, bones } => write!(
                f,
                "at byte {offset:#x}: {bones} bones exceed the BaseCross shader limit of 72"
            ),
            Warning::EndSize { offset, size } => {
                write!(f, "at byte {offset:#x}: End block has size {size} instead of 0")
            }
            Warning::MixedMeshes { offset } => write!(
                f,
                "at byte {offset:#x}: mesh differs from mesh 0 in vertex kind or sample count"
            ),
        }
    }
}

/// Result alias for this crate.
pub type Result<T, E = Error> = std::result::Result<T, E>;
