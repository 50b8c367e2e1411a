//! The crate's error and warning types.

use std::fmt;

/// A place in the text: 1-based line and 1-based byte column.
///
/// Errors raised by the writer (about a document built in code) have no place in any text;
/// they carry [`Pos::DOCUMENT`] (line 0), and [`Error::position`] returns `None` for them.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct Pos {
    /// Line number, counted from 1 (0 = not in a text).
    pub line: u32,
    /// Byte column within the line, counted from 1.
    pub column: u32,
}

impl Pos {
    /// The position of errors about a document rather than a text.
    pub const DOCUMENT: Pos = Pos { line: 0, column: 0 };

    /// `Some((line, column))`, or `None` for [`Pos::DOCUMENT`].
    pub fn get(self) -> Option<(u32, u32)> {
        (self.line != 0).then_some((self.line, self.column))
    }
}

impl fmt::Display for Pos {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.line == 0 {
            f.write_str("in the document")
        } else {
            write!(f, "at line {}, column {}", self.line, self.column)
        }
    }
}

/// Everything that can go wrong reading or writing an `.skm` file.
///
/// Variant names follow the error kinds of the shared format specifications. Every variant
/// except [`Error::Io`] carries its [`Pos`].
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// The text does not start with `Vertices:` (after an optional BOM and whitespace).
    #[error("{at}: not an EditAnimation .skm file: expected `Vertices:`, found {found}")]
    NotThisFormat {
        /// Where the first token is.
        at: Pos,
        /// The first token (shortened).
        found: String,
    },
    /// A section header is missing, misspelled or out of order.
    #[error("{at}: expected the section header `{expected}`, found {found}")]
    MissingPart {
        /// Where the header was expected.
        at: Pos,
        /// The header that was expected, e.g. `Indices:`.
        expected: &'static str,
        /// What was found instead (shortened), or `end of input`.
        found: String,
    },
    /// The input ends inside a section, or a declared count needs more text than remains.
    #[error("{at}: truncated: {what}")]
    Truncated {
        /// Where the input ended, or where the count was declared.
        at: Pos,
        /// What was being read.
        what: String,
    },
    /// A value that is not a well-formed number of the required kind.
    #[error("{at}: expected {expected}, found {found}")]
    BadNumber {
        /// Where the token starts.
        at: Pos,
        /// The kind of number required (e.g. `an unsigned integer`).
        expected: &'static str,
        /// The token (shortened).
        found: String,
    },
    /// The index count is not a multiple of 3.
    #[error("{at}: the index count {count} is not a multiple of 3")]
    BadSize {
        /// Where the count is.
        at: Pos,
        /// The declared count.
        count: u64,
    },
    /// Two numbers that must agree disagree (a declared count and the rows present, or the
    /// adjacency count and the face count).
    #[error("{at}: {what}: {declared} declared, but {found} present")]
    CountMismatch {
        /// Where the disagreement shows.
        at: Pos,
        /// What is counted.
        what: String,
        /// The declared number.
        declared: u64,
        /// The number found (or `more` when rows follow beyond the declared count).
        found: String,
    },
    /// An index points outside its target array, or the bone parents form a cycle.
    #[error("{at}: {what}")]
    IndexOutOfRange {
        /// Where the offending value is.
        at: Pos,
        /// What is wrong, with the value and the limit.
        what: String,
    },
    /// A lexical error, such as an unterminated quoted string.
    #[error("{at}: {what}")]
    Syntax {
        /// Where the problem is.
        at: Pos,
        /// What is wrong.
        what: String,
    },
    /// Tokens after the end of the Bone section.
    #[error("{at}: trailing data after the Bone section: {found}")]
    TrailingData {
        /// Where the first extra token is.
        at: Pos,
        /// The token (shortened).
        found: String,
    },
    /// The writer cannot spell a string (a name with a `"`, a line break, or a texture name
    /// that would read back as `(NULL)`).
    #[error("{at}: {what}")]
    BadString {
        /// [`Pos::DOCUMENT`] (writer errors).
        at: Pos,
        /// Which string, and why.
        what: String,
    },
    /// A document too large for the format (more than 2³² − 1 items in a section).
    #[error("{at}: {what}")]
    LimitExceeded {
        /// [`Pos::DOCUMENT`] (writer errors).
        at: Pos,
        /// What is too large.
        what: String,
    },
    /// An I/O error from `read`, `write`, `from_path` or `save`.
    #[error(transparent)]
    Io(#[from] std::io::Error),
}

impl Error {
    /// The 1-based `(line, column)` of the error, or `None` for I/O errors and for writer errors
    /// about a document.
    pub fn position(&self) -> Option<(u32, u32)> {
        self.pos().and_then(Pos::get)
    }

    /// The raw [`Pos`] of the error, if it has one.
    pub fn pos(&self) -> Option<Pos> {
        match self {
            Error::NotThisFormat { at, .. }
            | Error::MissingPart { at, .. }
            | Error::Truncated { at, .. }
            | Error::BadNumber { at, .. }
            | Error::BadSize { at, .. }
            | Error::CountMismatch { at, .. }
            | Error::IndexOutOfRange { at, .. }
            | Error::Syntax { at, .. }
            | Error::TrailingData { at, .. }
            | Error::BadString { at, .. }
            | Error::LimitExceeded { at, .. } => Some(*at),
            Error::Io(_) => None,
        }
    }
}

/// Something unusual that the reader accepted. Returned by
/// [`Skm::from_bytes_with_warnings`](crate::Model::from_bytes_with_warnings), never printed.
///
/// Warnings that can repeat on every row are reported once, at their first position, with the
/// number of occurrences.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum Warning {
    /// The file has no `Bone:` section: read as a static mesh.
    NoBoneSection {
        /// Where the input ended.
        at: Pos,
    },
    /// The Bone header is spelled `Bones:`.
    BonesSpelling {
        /// Where the header is.
        at: Pos,
    },
    /// Names were decoded as UTF-8 rather than Shift-JIS (a UTF-8 BOM, or non-ASCII text that
    /// is valid UTF-8).
    Utf8Text {
        /// The start of the text.
        at: Pos,
    },
    /// An informational index column (vertex, material or bone number) differs from the
    /// record's position; the position wins.
    IndexColumn {
        /// The section.
        section: &'static str,
        /// The first mismatch.
        at: Pos,
        /// The position of that record.
        expected: u64,
        /// The number written there.
        found: u64,
        /// How many records mismatch.
        count: u64,
    },
    /// Blend weights with `b0 + b1 + b2 > 1 + 1e-4`, or a negative weight.
    BadWeights {
        /// The first such vertex row.
        at: Pos,
        /// Its vertex index.
        vertex: u64,
        /// How many vertices have such weights.
        count: u64,
    },
    /// A non-finite number (NaN or infinity, including the MSVC spellings `1.#QNAN0`,
    /// `-1.#IND00`, `1.#INF00`, and values too large for `f32`).
    NonFinite {
        /// The first one.
        at: Pos,
        /// How many.
        count: u64,
    },
    /// A bone's symmetric partner is neither −1 nor a bone index.
    SymmetricOutOfRange {
        /// Where the value is.
        at: Pos,
        /// The bone.
        bone: u64,
        /// The value.
        symmetric: i64,
    },
}

impl fmt::Display for Warning {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Warning::NoBoneSection { at } => {
                write!(f, "{at}: no `Bone:` section; read as a static mesh")
            }
            Warning::BonesSpelling { at } => {
                write!(f, "{at}: section header spelled `Bones:` instead of `Bone:`")
            }
            Warning::Utf8Text { at } => {
                write!(f, "{at}: text decoded as UTF-8 instead of Shift-JIS")
            }
            Warning::IndexColumn {
                section,
                at,
                expected,
                found,
                count,
            } => write!(
                f,
                "{at}: {section} record {expected} is numbered {found} ({count} mismatched record(s)); the position wins"
            ),
            Warning::BadWeights { at, vertex, count } => write!(
                f,
                "{at}: vertex {vertex} has a negative blend weight or b0+b1+b2 > 1 ({count} vertex/vertices)"
            ),
            Warning::NonFinite { at, count } => {
                write!(f, "{at}: non-finite number ({count} in total)")
            }
            Warning::SymmetricOutOfRange {
                at,
                bone,
                symmetric,
            } => write!(
                f,
                "{at}: bone {bone}: symmetric bone {symmetric} is neither -1 nor a bone index"
            ),
        }
    }
}
