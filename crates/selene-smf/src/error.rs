//! The crate's error and warning types.

use crate::chunk::ChunkId;
use std::fmt;

/// The only GUID this crate reads and writes.
pub const GUID: u32 = 0x2007_1101;

/// The GUID of the pre-2007 Selene layout (`SMF_VER_0100`), which is recognised but not read.
pub const GUID_0100: u32 = 0x0100;

/// Why a chunk size is wrong (part of [`Error::BadSize`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SizeProblem {
    /// The size field is negative.
    Negative,
    /// The payload would run past the end of its parent container.
    OverrunsParent {
        /// The container.
        parent: ChunkId,
        /// Bytes left in the container after the header.
        available: u64,
    },
    /// The last bytes of a container are too few for a chunk header (`size` is their count).
    ChildrenDoNotFit,
    /// A fixed-size chunk does not have its size.
    NotFixed {
        /// The required size.
        expected: u64,
    },
    /// A container is smaller than its fixed struct.
    SmallerThanStruct {
        /// The fixed struct size.
        minimum: u64,
    },
    /// An array chunk size is not a multiple of its element size.
    NotMultiple {
        /// The element size.
        element: u64,
    },
    /// An ANI chunk size disagrees with its key counts.
    KeyCounts {
        /// `16 + 16·nS + 20·nR + 16·nT`, or `None` when a key count is negative.
        expected: Option<u64>,
        /// nS, nR, nT as stored.
        counts: [i32; 3],
    },
    /// The index count is not a multiple of 3 (the chunk holds a triangle list).
    NotTriangles {
        /// The number of indices.
        indices: u64,
    },
}

impl fmt::Display for SizeProblem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            Self::Negative => write!(f, "is negative"),
            Self::OverrunsParent { parent, available } => {
                write!(f, "overruns its parent {parent}, which has {available} bytes left")
            }
            Self::ChildrenDoNotFit => write!(
                f,
                "leaves bytes that are too few for a subchunk header: its subchunks do not end at its end"
            ),
            Self::NotFixed { expected } => write!(f, "is not the required {expected}"),
            Self::SmallerThanStruct { minimum } => {
                write!(f, "is smaller than its {minimum}-byte fixed struct")
            }
            Self::NotMultiple { element } => write!(f, "is not a multiple of {element}"),
            Self::KeyCounts { expected: Some(e), counts } => write!(
                f,
                "does not match its key counts (nS {}, nR {}, nT {}: expected {e})",
                counts[0], counts[1], counts[2]
            ),
            Self::KeyCounts { expected: None, counts } => write!(
                f,
                "has a negative key count (nS {}, nR {}, nT {})",
                counts[0], counts[1], counts[2]
            ),
            Self::NotTriangles { indices } => {
                write!(f, "holds {indices} indices, which is not a multiple of 3")
            }
        }
    }
}

fn version_text(found: u32) -> String {
    if found == GUID_0100 {
        "0x0100 is the pre-2007 Selene layout (SMF_VER_0100), which is not supported".into()
    } else {
        format!("0x{found:08X} is not the supported GUID 0x{GUID:08X}")
    }
}

/// Everything that can go wrong reading or writing an SMF file. Every variant but `Io` carries
/// the absolute byte offset it concerns (in the input for reading, in the output for writing).
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// The input does not start with an `SMF` chunk (`FMS\0`).
    #[error("at byte {offset:#x}: expected an SMF chunk (bytes 46 4D 53 00), found {found:02X?}")]
    NotThisFormat {
        /// Offset of the first chunk id.
        offset: u64,
        /// Up to the first four bytes.
        found: Vec<u8>,
    },
    /// A Selene SMF file with another GUID.
    #[error("at byte {offset:#x}: SMF GUID {}", version_text(*found))]
    UnsupportedVersion {
        /// Offset of the GUID field.
        offset: u64,
        /// The GUID found.
        found: u32,
    },
    /// The input ends inside a structure.
    #[error("at byte {offset:#x}: truncated {what}: needed {needed} bytes, {available} left")]
    Truncated {
        /// Where the read started.
        offset: u64,
        /// What was being read.
        what: &'static str,
        /// Bytes needed.
        needed: u64,
        /// Bytes left.
        available: u64,
    },
    /// A chunk size is negative, overruns its parent, has the wrong fixed size or does not
    /// divide by its element size.
    #[error("at byte {offset:#x}: {chunk} chunk size {size} {problem}")]
    BadSize {
        /// Offset of the chunk header.
        offset: u64,
        /// The chunk.
        chunk: ChunkId,
        /// The size (or, for [`SizeProblem::ChildrenDoNotFit`], the leftover byte count).
        size: i64,
        /// What is wrong with it.
        problem: SizeProblem,
    },
    /// Two numbers that must agree disagree (e.g. a head count and the chunks present).
    #[error("at byte {offset:#x}: {what}: declared {declared}, found {found}")]
    CountMismatch {
        /// Offset of the declared value (or the chunk that disagrees).
        offset: u64,
        /// What is counted.
        what: &'static str,
        /// The declared (or reference) number.
        declared: i64,
        /// The number found.
        found: i64,
    },
    /// An index or range points outside its target.
    #[error("at byte {offset:#x}: {what}")]
    IndexOutOfRange {
        /// Offset of the offending value.
        offset: u64,
        /// The value, its name and the valid range.
        what: String,
    },
    /// A required chunk is absent.
    #[error("at byte {offset:#x}: {parent} chunk has no {part}")]
    MissingPart {
        /// Offset of the parent chunk header.
        offset: u64,
        /// The parent chunk.
        parent: ChunkId,
        /// What is missing.
        part: &'static str,
    },
    /// A chunk appears where it is not allowed or twice.
    #[error("at byte {offset:#x}: unexpected {chunk} chunk: {reason}")]
    UnexpectedPart {
        /// Offset of the chunk header.
        offset: u64,
        /// The chunk.
        chunk: ChunkId,
        /// Why it is not allowed.
        reason: &'static str,
    },
    /// A name that cannot be written (not 64 bytes).
    #[error("at byte {offset:#x}: {what}")]
    BadString {
        /// Offset of the field.
        offset: u64,
        /// What is wrong.
        what: String,
    },
    /// A size or nesting limit.
    #[error("at byte {offset:#x}: {what} exceeds the limit of {limit}")]
    LimitExceeded {
        /// Where the limit was hit.
        offset: u64,
        /// What is limited.
        what: &'static str,
        /// The limit.
        limit: u64,
    },
    /// An I/O error from `read`, `write`, `from_path` or `save`.
    #[error(transparent)]
    Io(#[from] std::io::Error),
}

impl Error {
    /// The absolute byte offset the error concerns, `None` for I/O errors.
    pub fn offset(&self) -> Option<u64> {
        match self {
            Self::NotThisFormat { offset, .. }
            | Self::UnsupportedVersion { offset, .. }
            | Self::Truncated { offset, .. }
            | Self::BadSize { offset, .. }
            | Self::CountMismatch { offset, .. }
            | Self::IndexOutOfRange { offset, .. }
            | Self::MissingPart { offset, .. }
            | Self::UnexpectedPart { offset, .. }
            | Self::BadString { offset, .. }
            | Self::LimitExceeded { offset, .. } => Some(*offset),
            Self::Io(_) => None,
        }
    }
}

/// What a [`Warning`] is about.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub enum WarningKind {
    /// A chunk id unknown in its parent (or a known id under the wrong parent); it is kept and
    /// written back in place.
    UnknownChunk {
        /// The chunk.
        chunk: ChunkId,
        /// Its parent (`None` for the top level).
        parent: Option<ChunkId>,
    },
    /// Subchunks out of the canonical order; a rewrite puts them in canonical order.
    NonCanonicalOrder {
        /// The chunk that came too late.
        chunk: ChunkId,
        /// Its parent (`None` for the top level).
        parent: Option<ChunkId>,
    },
    /// A 64-byte name without a NUL (all 64 bytes are decoded).
    NameNotTerminated,
    /// Non-zero bytes after a name's NUL (kept).
    NameGarbageAfterNul,
    /// A V_A chunk in a mesh without BONE.
    BlendWithoutBones,
    /// More than 40 bones in one mesh (the engine's MAX_BONE_COUNT).
    TooManyBones {
        /// The bone count.
        count: u64,
    },
    /// A V_A weight outside [0, 1] (or NaN).
    WeightOutOfRange {
        /// Vertex number.
        vertex: u64,
    },
    /// A NaN or infinite coordinate in a position, normal or UV chunk (first occurrence).
    NonFinite {
        /// The chunk.
        chunk: ChunkId,
    },
    /// ANI key times that decrease.
    KeyTimesDecreasing,
    /// An ANI with no rotation key (the engine would crash on it).
    NoRotationKeys,
    /// A material without DIFF.
    MaterialWithoutDiffuse,
}

/// A problem that does not stop reading. Returned by
/// [`Smf::from_bytes_with_warnings`](crate::Model::from_bytes_with_warnings), never printed.
#[derive(Debug, Clone, PartialEq)]
pub struct Warning {
    /// Absolute byte offset the warning concerns.
    pub offset: u64,
    /// What it is about.
    pub kind: WarningKind,
}

fn parent_name(p: &Option<ChunkId>) -> String {
    p.map_or_else(|| "the top level".to_string(), |p| p.to_string())
}

impl fmt::Display for Warning {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "at byte {:#x}: ", self.offset)?;
        match &self.kind {
            WarningKind::UnknownChunk { chunk, parent } => write!(
                f,
                "unknown chunk {chunk} in {} kept as opaque data",
                parent_name(parent)
            ),
            WarningKind::NonCanonicalOrder { chunk, parent } => write!(
                f,
                "{chunk} chunk out of canonical order in {}",
                parent_name(parent)
            ),
            WarningKind::NameNotTerminated => write!(f, "64-byte name has no NUL"),
            WarningKind::NameGarbageAfterNul => write!(f, "name has non-zero bytes after its NUL"),
            WarningKind::BlendWithoutBones => write!(f, "V_A chunk in a mesh without BONE"),
            WarningKind::TooManyBones { count } => {
                write!(f, "{count} bones in one mesh, more than the engine's 40")
            }
            WarningKind::WeightOutOfRange { vertex } => {
                write!(f, "V_A weight of vertex {vertex} is outside [0, 1]")
            }
            WarningKind::NonFinite { chunk } => write!(f, "{chunk} holds a NaN or infinite value"),
            WarningKind::KeyTimesDecreasing => write!(f, "ANI key times decrease"),
            WarningKind::NoRotationKeys => write!(f, "ANI has no rotation key"),
            WarningKind::MaterialWithoutDiffuse => write!(f, "MTRL has no DIFF"),
        }
    }
}
