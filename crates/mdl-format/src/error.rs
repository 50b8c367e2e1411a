//! The crate's error and warning types.

use std::fmt;

/// Everything that can go wrong reading or writing an `.mdl` file.
///
/// Every variant except [`Error::Io`] carries the absolute byte `offset` it refers to: for
/// reading, the position in the input; for writing, the position in the output.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// The input does not start with `MDL\0`.
    #[error("at byte {offset:#x}: expected the magic `MDL\\0` (4D 44 4C 00), found {found:02X?}")]
    NotThisFormat {
        /// Always 0.
        offset: u64,
        /// The first bytes of the input (up to 4).
        found: Vec<u8>,
    },
    /// The version is not 1 or 2.
    #[error("at byte {offset:#x}: unsupported version {found} (expected 1 or 2)")]
    UnsupportedVersion {
        /// Where the version is.
        offset: u64,
        /// The version found.
        found: i32,
    },
    /// A recognised historical layout that this crate does not read.
    #[error("at byte {offset:#x}: the file uses the {layout}, which is not supported")]
    UnsupportedLayout {
        /// Where the layout starts to differ (after the version).
        offset: u64,
        /// A description of the layout.
        layout: &'static str,
    },
    /// A version-1 file whose first bone is not a root and which is not the 2014 development
    /// layout either: one of the layouts of FBX2MDL's early-2014 prototypes, which no
    /// specification describes.
    #[error(
        "at byte {offset:#x}: unsupported early layout (an FBX2MDL prototype of early 2014: its \
         first bone, read at byte {bone_at:#x}, is not a root); only the stable layout and the \
         2014 development layout can be read"
    )]
    EarlyLayout {
        /// Where the layout starts to differ (after the version).
        offset: u64,
        /// Where the first bone's parent index was read.
        bone_at: u64,
    },
    /// The input ends inside a structure, or a count claims more data than remains.
    #[error("at byte {offset:#x}: truncated {what}: {needed} bytes needed, {available} left")]
    Truncated {
        /// Where the read (or the counted array) starts.
        offset: u64,
        /// What was being read.
        what: &'static str,
        /// Bytes needed (at least; `u64::MAX` when the size overflows).
        needed: u64,
        /// Bytes left.
        available: u64,
    },
    /// A count or string length that is negative (or, when writing, too large for an i32).
    #[error("at byte {offset:#x}: {what} {count} is not a valid count")]
    BadCount {
        /// Where the count is.
        offset: u64,
        /// What the count counts.
        what: &'static str,
        /// The count.
        count: i64,
    },
    /// Two numbers that must agree disagree.
    #[error("at byte {offset:#x}: {what}: expected {expected}, found {found}")]
    CountMismatch {
        /// Where the disagreeing number (or its array) is.
        offset: u64,
        /// What disagrees.
        what: &'static str,
        /// The number required.
        expected: i64,
        /// The number found.
        found: i64,
    },
    /// An index points outside its target array.
    #[error("at byte {offset:#x}: {what} {index} is out of range (must be {range})")]
    IndexOutOfRange {
        /// Where the index is.
        offset: u64,
        /// What the index is.
        what: &'static str,
        /// The index found.
        index: i64,
        /// The allowed values, e.g. `-1 or in 0..3`.
        range: String,
    },
    /// A part that does not fit where it is (writing: a bone transform that does not match the
    /// version, an internal material whose type is 1).
    #[error("at byte {offset:#x}: {what}")]
    UnexpectedPart {
        /// Where the part is (or would be written).
        offset: u64,
        /// What is wrong.
        what: String,
    },
    /// Bytes remain after the clip array.
    #[error("at byte {offset:#x}: {count} trailing bytes after the animation clips")]
    TrailingData {
        /// Where the extra bytes start.
        offset: u64,
        /// How many there are.
        count: u64,
    },
    /// An I/O error from `read`, `write`, `from_path` or `save`.
    #[error(transparent)]
    Io(#[from] std::io::Error),
}

impl Error {
    /// The byte offset the error refers to, or `None` for I/O errors.
    pub fn offset(&self) -> Option<u64> {
        match self {
            Self::NotThisFormat { offset, .. }
            | Self::UnsupportedVersion { offset, .. }
            | Self::UnsupportedLayout { offset, .. }
            | Self::EarlyLayout { offset, .. }
            | Self::Truncated { offset, .. }
            | Self::BadCount { offset, .. }
            | Self::CountMismatch { offset, .. }
            | Self::IndexOutOfRange { offset, .. }
            | Self::UnexpectedPart { offset, .. }
            | Self::TrailingData { offset, .. } => Some(*offset),
            Self::Io(_) => None,
        }
    }
}

/// Something unusual that does not stop a file from being read.
///
/// Warnings are returned by
/// [`Mdl::from_bytes_with_warnings`](crate::Model::from_bytes_with_warnings), never printed.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum Warning {
    /// Vertices whose four weights do not sum to 255 (one warning per divided mesh).
    WeightSum {
        /// Offset of the first such vertex.
        offset: u64,
        /// How many vertices of the divided mesh are affected.
        vertices: u64,
        /// The weight sum of the first one.
        first_sum: u32,
    },
    /// More than 32 bone connectors in a divided mesh; the renderer uses only the first 32.
    TooManyConnectors {
        /// Offset of the connector count.
        offset: u64,
        /// The count.
        count: u64,
    },
    /// A material type other than 0 or 1 (read as internal, like the engine).
    UnknownMaterialType {
        /// Offset of the type.
        offset: u64,
        /// The raw type.
        raw: i32,
    },
    /// A rotation order the engine does not handle correctly (0, 14, or unknown).
    RotationOrder {
        /// Offset of the rotation order.
        offset: u64,
        /// The raw value.
        raw: i32,
        /// Why it is suspicious.
        note: &'static str,
    },
    /// Keyframes of one curve with an interpolation other than 1, 2 or 3.
    UnknownInterpolation {
        /// Offset of the first such key.
        offset: u64,
        /// Its raw value.
        raw: i32,
        /// How many keys of the curve are affected.
        keys: u64,
    },
    /// A curve target that is not `node.channel.axis`.
    MalformedTarget {
        /// Offset of the target string.
        offset: u64,
        /// The target, lossily decoded.
        target: String,
    },
    /// A curve whose target node is not a bone (curve kept).
    TargetNotABone {
        /// Offset of the target string.
        offset: u64,
        /// The target, lossily decoded.
        target: String,
    },
    /// Keyframe times that decrease within a curve.
    DecreasingTimes {
        /// Offset of the first key whose time is below its predecessor's.
        offset: u64,
    },
    /// A string holding an unpaired surrogate (kept as raw units).
    UnpairedSurrogate {
        /// Offset of the string's length.
        offset: u64,
    },
    /// The file was read in the 2014 development layout and converted to the stable layout
    /// ([`LegacyMdl::to_stable`](crate::LegacyMdl::to_stable)): writing it back gives the
    /// stable layout, not the file's bytes.
    LegacyLayout {
        /// Where the layout starts to differ (after the version).
        offset: u64,
    },
}

impl Warning {
    /// The byte offset the warning refers to.
    pub fn offset(&self) -> u64 {
        match self {
            Self::WeightSum { offset, .. }
            | Self::TooManyConnectors { offset, .. }
            | Self::UnknownMaterialType { offset, .. }
            | Self::RotationOrder { offset, .. }
            | Self::UnknownInterpolation { offset, .. }
            | Self::MalformedTarget { offset, .. }
            | Self::TargetNotABone { offset, .. }
            | Self::DecreasingTimes { offset }
            | Self::UnpairedSurrogate { offset }
            | Self::LegacyLayout { offset } => *offset,
        }
    }
}

impl fmt::Display for Warning {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "at byte {:#x}: ", self.offset())?;
        match self {
            Self::WeightSum {
                vertices,
                first_sum,
                ..
            } => write!(
                f,
                "{vertices} vertices have weights that do not sum to 255 (first sums to {first_sum})"
            ),
            Self::TooManyConnectors { count, .. } => write!(
                f,
                "{count} bone connectors in a divided mesh; the renderer uses only the first 32"
            ),
            Self::UnknownMaterialType { raw, .. } => {
                write!(f, "material type {raw} is neither 0 nor 1; read as internal")
            }
            Self::RotationOrder { raw, note, .. } => write!(f, "rotation order {raw}: {note}"),
            Self::UnknownInterpolation { raw, keys, .. } => write!(
                f,
                "{keys} keys with interpolation {raw} (expected 1, 2 or 3), first here"
            ),
            Self::MalformedTarget { target, .. } => write!(
                f,
                "curve target {target:?} is not `node.<pos|rot|scl>.<x|y|z|w>`"
            ),
            Self::TargetNotABone { target, .. } => {
                write!(f, "curve target {target:?} names a node that is not a bone")
            }
            Self::DecreasingTimes { .. } => {
                write!(f, "keyframe time is smaller than the previous key's")
            }
            Self::UnpairedSurrogate { .. } => {
                write!(f, "string holds an unpaired UTF-16 surrogate (kept as is)")
            }
            Self::LegacyLayout { .. } => write!(
                f,
                "the file uses the {}; read and converted to the stable layout (rewritten as \
                 .mdl, it is written in the stable layout)",
                crate::LEGACY_LAYOUT
            ),
        }
    }
}
