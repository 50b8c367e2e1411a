//! The crate's error and warning types.
//!
//! Every reader error carries the 1-based `line` and `column` (counted in characters) where the
//! problem was found. Errors raised by the writer (a document that cannot be written) have no
//! position in a file: their `line` and `column` are 0 and their message names the place in
//! the document instead; [`Error::position`] returns `None` for them.

use std::fmt;

/// Everything that can go wrong while reading or writing an `.elem` file.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// The first line (after an optional BOM and blank lines) is not
    /// `Elfreina Extension Model File`.
    #[error("{}: expected the header `Elfreina Extension Model File`, found {found:?}", at(*line, *column))]
    NotThisFormat {
        /// 1-based line.
        line: u32,
        /// 1-based column.
        column: u32,
        /// The text found instead (at most 64 characters).
        found: String,
    },
    /// `File Version` 2 or above.
    #[error("{}: file version {version} is not supported (expected 1.x)", at(*line, *column))]
    UnsupportedVersion {
        /// 1-based line.
        line: u32,
        /// 1-based column.
        column: u32,
        /// The version text as written.
        version: String,
    },
    /// A line that is not one of the four line forms, an unterminated string, an unbalanced
    /// `{` or `}`, a bad boolean, or text that ends too early.
    #[error("{}: {message}", at(*line, *column))]
    Syntax {
        /// 1-based line.
        line: u32,
        /// 1-based column.
        column: u32,
        /// What was expected and what was found.
        message: String,
    },
    /// A value that does not match the number or integer grammar (or, when writing, a
    /// non-finite number where the options forbid it).
    #[error("{}: expected {expected}, found {found:?}", at(*line, *column))]
    BadNumber {
        /// 1-based line.
        line: u32,
        /// 1-based column.
        column: u32,
        /// What kind of number was expected.
        expected: &'static str,
        /// The text found.
        found: String,
    },
    /// A count key with a negative or otherwise impossible value.
    #[error("{}: {key}={value} is not a valid count", at(*line, *column))]
    BadCount {
        /// 1-based line.
        line: u32,
        /// 1-based column.
        column: u32,
        /// The count key.
        key: String,
        /// Its value.
        value: i64,
    },
    /// A count key that disagrees with the data it counts, or key lists of different lengths.
    #[error("{}: {key} is {declared} but {what} has {found}", at(*line, *column))]
    CountMismatch {
        /// 1-based line.
        line: u32,
        /// 1-based column.
        column: u32,
        /// The count key (or the list whose length is the reference).
        key: String,
        /// The declared count.
        declared: u64,
        /// The data that was counted.
        what: String,
        /// How many items the data has.
        found: u64,
    },
    /// An index that points outside its target list.
    #[error("{}: {what} {index} is out of range (there are {len})", at(*line, *column))]
    IndexOutOfRange {
        /// 1-based line.
        line: u32,
        /// 1-based column.
        column: u32,
        /// What the index selects.
        what: String,
        /// The index.
        index: i64,
        /// The length of the target list.
        len: u64,
    },
    /// A row with the wrong number of values.
    #[error("{}: a {scope} row needs {expected}, found {found} value(s)", at(*line, *column))]
    BadRowWidth {
        /// 1-based line.
        line: u32,
        /// 1-based column.
        column: u32,
        /// The scope or key holding the row.
        scope: String,
        /// The expected width, in words (e.g. `"3 values"`).
        expected: String,
        /// The number of values found.
        found: usize,
    },
    /// A known key or scope found twice, or in a form it cannot have (e.g. `Positions=…`).
    #[error("{}: {message}", at(*line, *column))]
    UnexpectedPart {
        /// 1-based line.
        line: u32,
        /// 1-based column.
        column: u32,
        /// What was found where.
        message: String,
    },
    /// A required part is absent (a `Mesh` with vertices but no `Positions`).
    #[error("{}: {message}", at(*line, *column))]
    MissingPart {
        /// 1-based line.
        line: u32,
        /// 1-based column.
        column: u32,
        /// What is missing.
        message: String,
    },
    /// A string that the format cannot hold (writer: it contains `"`, CR or LF).
    #[error("{}: {message}", at(*line, *column))]
    BadString {
        /// 1-based line.
        line: u32,
        /// 1-based column.
        column: u32,
        /// What is wrong.
        message: String,
    },
    /// Scopes nested deeper than [`crate::MAX_DEPTH`].
    #[error("{}: scopes nested deeper than {limit} levels", at(*line, *column))]
    LimitExceeded {
        /// 1-based line.
        line: u32,
        /// 1-based column.
        column: u32,
        /// The limit.
        limit: usize,
    },
    /// The scope tree of the file would take more memory than [`crate::TREE_BUDGET_FACTOR`]
    /// times the input plus 1 MiB (many tiny lines or values: each costs a fixed node).
    #[error(
        "{}: the scope tree would take more than {limit} bytes ({}× the input + 1 MiB); the file is refused",
        at(*line, *column),
        crate::TREE_BUDGET_FACTOR
    )]
    TooLarge {
        /// 1-based line where the budget ran out.
        line: u32,
        /// 1-based column.
        column: u32,
        /// The budget, in bytes.
        limit: usize,
    },
    /// Reading or writing the underlying stream failed.
    #[error("i/o error: {0}")]
    Io(#[from] std::io::Error),
}

fn at(line: u32, column: u32) -> String {
    if line == 0 {
        "in the document".to_owned()
    } else {
        format!("at line {line}, column {column}")
    }
}

impl Error {
    /// The 1-based `(line, column)` of the error in the input, or `None` for I/O errors and
    /// for errors raised by the writer.
    pub fn position(&self) -> Option<(u32, u32)> {
        let (line, column) = match self {
            Error::NotThisFormat { line, column, .. }
            | Error::UnsupportedVersion { line, column, .. }
            | Error::Syntax { line, column, .. }
            | Error::BadNumber { line, column, .. }
            | Error::BadCount { line, column, .. }
            | Error::CountMismatch { line, column, .. }
            | Error::IndexOutOfRange { line, column, .. }
            | Error::BadRowWidth { line, column, .. }
            | Error::UnexpectedPart { line, column, .. }
            | Error::MissingPart { line, column, .. }
            | Error::BadString { line, column, .. }
            | Error::LimitExceeded { line, column, .. }
            | Error::TooLarge { line, column, .. } => (*line, *column),
            Error::Io(_) => return None,
        };
        (line != 0).then_some((line, column))
    }
}

/// Something suspicious that did not stop the reader. Returned by
/// [`Elem::from_bytes_with_warnings`](crate::Model::from_bytes_with_warnings), never printed.
///
/// Warnings are grouped so that a hostile file cannot make millions of them: occurrences of
/// the same kind about the same subject (the same unknown name, the same non-finite spelling,
/// the same key; for the per-vertex kinds, any vertex) are **one** warning, at the first
/// occurrence, with a [`count`](Self::count). At most [`MAX_SUBJECTS`] subjects are listed
/// per kind; occurrences about further subjects are counted in [`others`](Self::others) of
/// the last one listed.
#[derive(Debug, Clone, PartialEq)]
pub struct Warning {
    /// 1-based line (0 when the warning is about the whole input).
    pub line: u32,
    /// 1-based column.
    pub column: u32,
    /// What was found (at the first occurrence).
    pub kind: WarningKind,
    /// How many occurrences this warning stands for (at least 1).
    pub count: u64,
    /// Further occurrences of the same kind about other subjects, not listed separately
    /// (non-zero only once [`MAX_SUBJECTS`] subjects of this kind are listed).
    pub others: u64,
}

/// The most distinct subjects (names, spellings, keys) listed per warning kind; see
/// [`Warning`].
pub const MAX_SUBJECTS: usize = 16;

/// The most bytes of a token (a name, a value, a line) that a message or warning quotes.
pub const MAX_QUOTED: usize = 60;

/// `text` cut to at most [`MAX_QUOTED`] bytes at a character boundary; when cut, followed by
/// `…` and the full length, so that a 100 MB line never makes a 100 MB message.
pub(crate) fn clip(text: &str) -> String {
    if text.len() <= MAX_QUOTED {
        return text.to_owned();
    }
    let mut end = MAX_QUOTED;
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    format!(
        "{}… ({} bytes)",
        text.get(..end).unwrap_or_default(),
        text.len()
    )
}

impl Warning {
    /// One occurrence at `line`:`column`.
    pub fn new(line: u32, column: u32, kind: WarningKind) -> Self {
        Self {
            line,
            column,
            kind,
            count: 1,
            others: 0,
        }
    }
}

/// Groups warnings as they are raised (see [`Warning`]): an index from (kind, subject) to the
/// warning already listed, and the number of subjects listed per kind.
#[derive(Debug, Default)]
pub(crate) struct Grouper {
    listed: std::collections::HashMap<(std::mem::Discriminant<WarningKind>, String), usize>,
    /// Per kind: the subjects listed so far and the index of the last one.
    per_kind: std::collections::HashMap<std::mem::Discriminant<WarningKind>, (usize, usize)>,
}

impl Grouper {
    /// Adds one occurrence to `list`: a new warning, or a count on one already listed.
    pub(crate) fn push(&mut self, list: &mut Vec<Warning>, warning: Warning) {
        let kind = std::mem::discriminant(&warning.kind);
        let key = (kind, warning.kind.subject());
        if let Some(w) = self.listed.get(&key).and_then(|&i| list.get_mut(i)) {
            w.count = w.count.saturating_add(1);
            return;
        }
        let (subjects, last) = self.per_kind.entry(kind).or_insert((0, 0));
        if *subjects >= MAX_SUBJECTS {
            if let Some(w) = list.get_mut(*last) {
                w.others = w.others.saturating_add(1);
            }
            return;
        }
        *subjects += 1;
        *last = list.len();
        self.listed.insert(key, list.len());
        list.push(warning);
    }
}

/// The kinds of [`Warning`] (rule numbers refer to the specification, elem.md §6).
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub enum WarningKind {
    /// Rule 4: a version below 2 other than `1.00`.
    VersionNot100 {
        /// The version text.
        version: String,
    },
    /// Rule 7: an MSVC spelling of NaN or infinity (`1.#QNAN`, `-1.#IND`, `1.#INF`, …).
    NonFinite {
        /// The text as written.
        text: String,
    },
    /// Rule 8: the input is not valid UTF-8 and was decoded as CP932 (Shift-JIS).
    DecodedAsCp932,
    /// Rule 10: a count key is absent; the count was taken from the data.
    CountInferred {
        /// The absent key.
        key: &'static str,
    },
    /// Rule 18: a mesh with faces but no `Attributes`.
    NoAttributes,
    /// Rule 19: a `BlendPart`'s `BoneName` differs from `BoneNames[TransformIndex]`.
    BoneNameMismatch {
        /// The `BoneName` of the part.
        name: String,
    },
    /// Rule 20: more than four influences on one vertex.
    TooManyInfluences {
        /// The vertex index.
        vertex: u32,
    },
    /// Rule 20: the weights of a vertex do not sum to about 1.
    WeightSum {
        /// The vertex index.
        vertex: u32,
    },
    /// Rule 21: time keys outside [0, 1] or decreasing.
    TimeKeys,
    /// Rule 22: a name that matches nothing (`NodeName`, `HierarchyNames` entry, …).
    UnresolvedName {
        /// The key holding the name.
        key: &'static str,
        /// The name.
        name: String,
    },
    /// Rule 23: a UV animation row that is not 2 / 1 / 2 values wide (kept as written).
    UvKeyWidth {
        /// The key scope (`TransKeys`, `RotateKeys`, `ScaleKeys`).
        scope: &'static str,
        /// The width found.
        width: usize,
    },
    /// Rule 24: an unknown key, scope or data line, or `Blends`/`BlendIndices` (kept verbatim).
    Unknown {
        /// The key or tag (empty for a data line).
        name: String,
    },
    /// Rule 25: the `MeshDatas` spelling of `MeshDataList`.
    MeshDatasTag,
    /// Rule 27: a boolean spelled in another case than `True` / `False`.
    BoolCase {
        /// The text as written.
        text: String,
    },
}

impl WarningKind {
    /// What the warning is about, for grouping: the name, spelling or key it quotes; empty
    /// for the kinds that are grouped by kind alone (one per vertex, one per scope).
    fn subject(&self) -> String {
        match self {
            WarningKind::VersionNot100 { version: s }
            | WarningKind::NonFinite { text: s }
            | WarningKind::BoneNameMismatch { name: s }
            | WarningKind::Unknown { name: s }
            | WarningKind::BoolCase { text: s } => s.clone(),
            WarningKind::CountInferred { key } => (*key).to_owned(),
            WarningKind::UnresolvedName { key, name } => format!("{key}\0{name}"),
            WarningKind::UvKeyWidth { scope, width } => format!("{scope}\0{width}"),
            WarningKind::DecodedAsCp932
            | WarningKind::NoAttributes
            | WarningKind::TooManyInfluences { .. }
            | WarningKind::WeightSum { .. }
            | WarningKind::TimeKeys
            | WarningKind::MeshDatasTag => String::new(),
        }
    }
}

impl fmt::Display for Warning {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.line != 0 {
            write!(f, "line {}, column {}: ", self.line, self.column)?;
        }
        self.kind.fmt(f)?;
        if self.count > 1 {
            write!(f, " ({} times; the first is shown)", self.count)?;
        }
        if self.others > 0 {
            write!(
                f,
                "; {} more of this kind about other names or values",
                self.others
            )?;
        }
        Ok(())
    }
}

impl fmt::Display for WarningKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            WarningKind::VersionNot100 { version } => {
                write!(f, "file version {version} is not 1.00")
            }
            WarningKind::NonFinite { text } => write!(f, "non-finite number {text}"),
            WarningKind::DecodedAsCp932 => {
                write!(f, "the file is not valid UTF-8; decoded as CP932")
            }
            WarningKind::CountInferred { key } => {
                write!(f, "{key} is absent; the count was taken from the data")
            }
            WarningKind::NoAttributes => {
                write!(
                    f,
                    "a mesh with faces has no Attributes: faces have no material"
                )
            }
            WarningKind::BoneNameMismatch { name } => write!(
                f,
                "BlendPart BoneName {name:?} differs from BoneNames[TransformIndex]"
            ),
            WarningKind::TooManyInfluences { vertex } => {
                write!(f, "vertex {vertex} has more than 4 bone influences")
            }
            WarningKind::WeightSum { vertex } => {
                write!(f, "the weights of vertex {vertex} do not sum to 1")
            }
            WarningKind::TimeKeys => write!(f, "time keys outside [0, 1] or decreasing"),
            WarningKind::UnresolvedName { key, name } => {
                write!(f, "{key} {name:?} matches nothing")
            }
            WarningKind::UvKeyWidth { scope, width } => write!(
                f,
                "UV animation {scope} row is {width} value(s) wide (kept as written)"
            ),
            WarningKind::Unknown { name } if name.is_empty() => {
                write!(f, "unexpected data line (kept verbatim)")
            }
            WarningKind::Unknown { name } => write!(f, "unknown part {name} (kept verbatim)"),
            WarningKind::MeshDatasTag => write!(f, "MeshDatas accepted as MeshDataList"),
            WarningKind::BoolCase { text } => {
                write!(f, "boolean {text:?} is not spelled True or False")
            }
        }
    }
}
