//! The facade's error type: a format crate's error, or a facade-level failure, optionally
//! wrapped with the path it concerns.

use crate::Format;
use std::path::PathBuf;

/// Where in a file an error was found.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Position {
    /// Absolute byte offset (binary formats).
    Byte(u64),
    /// 1-based line and column (text formats).
    LineColumn(u32, u32),
}

impl std::fmt::Display for Position {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Position::Byte(o) => write!(f, "byte {o:#x}"),
            Position::LineColumn(l, c) => write!(f, "{l}:{c}"),
        }
    }
}

/// Everything that can go wrong in the facade.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// The first bytes match none of the enabled formats.
    #[error(
        "unrecognised format: the first bytes match none of the enabled formats ({})",
        enabled_list()
    )]
    UnknownFormat,
    /// The format is known but its cargo feature is off.
    #[error("{0} support is not compiled in (enable the `{0}` feature of the `models` crate)")]
    FormatDisabled(Format),
    /// An output file exists and overwriting was not requested
    /// ([`Overwrite::Allowed`](crate::output::Overwrite::Allowed) replaces it).
    #[error("{} already exists", .0.display())]
    OutputExists(PathBuf),
    /// The output path names the input file.
    #[error("{} is the input file; refusing to overwrite it", .0.display())]
    OutputIsInput(PathBuf),
    /// An input is not a regular file (a FIFO, a device, a socket, a folder): it is refused
    /// before it is opened, so nothing waits on a pipe or reads an endless device.
    #[error("{0}, not a regular file; refusing to read it")]
    NotRegularFile(&'static str),
    /// An input is larger than the reader accepts.
    #[error("the file is {size} bytes, more than the {limit} bytes an input may have")]
    InputTooLarge {
        /// The file's size.
        size: u64,
        /// [`crate::input::MAX_INPUT_BYTES`].
        limit: u64,
    },
    /// Converting between two different formats is not supported (yet).
    #[error("cannot convert {from} to {to}: only re-writing in the same format is supported")]
    UnsupportedConversion {
        /// Source format.
        from: Format,
        /// Requested target format.
        to: Format,
    },
    /// Writing this format from a scene (glTF or another format) is not supported yet.
    #[error("converting into {0} is not supported yet")]
    ImportUnsupported(Format),
    /// A `--base` document is not of the format being written.
    #[error("the base file is {base}, but the output is {target}: a base must be of the output's format")]
    BaseFormatMismatch {
        /// The base's format.
        base: Format,
        /// The output's format.
        target: Format,
    },
    /// The scene does not fit a limit of the target format (bones per mesh, index range, name
    /// length or encoding, …) and the writer has no documented way around it.
    #[error("cannot write {format}: {place}: {what}")]
    FormatLimit {
        /// The target format.
        format: Format,
        /// The mesh, bone, material, clip, … concerned.
        place: String,
        /// The limit and the value that exceeds it.
        what: String,
    },
    /// Converting the file would take more memory or output than its size allows (see
    /// [`scene::Budget`](crate::scene::Budget): the scene may cost 16 × the input + 4 MiB, so
    /// that conversion and glTF writing stay within 64 × the input + 16 MiB).
    #[error(
        "{place}{}: {what} would take {needed} bytes, over the conversion budget of {limit} bytes{}",
        position.map(|p| format!(" (at {p})")).unwrap_or_default(),
        budget_rule(*input_len)
    )]
    BudgetExceeded {
        /// What in the file asks for it (format, mesh, block or clip, and the declared count).
        place: String,
        /// Where that is in the file, when known.
        position: Option<Position>,
        /// What would have been built.
        what: String,
        /// The bytes the conversion would have reached.
        needed: u64,
        /// The limit.
        limit: u64,
        /// The input size the limit derives from (`None`: an explicit limit).
        input_len: Option<u64>,
    },
    /// A BMF read or write error.
    #[cfg(feature = "bmf")]
    #[error(transparent)]
    Bmf(#[from] bmf_block::Error),
    /// An SMF read or write error.
    #[cfg(feature = "smf")]
    #[error(transparent)]
    Smf(#[from] selene_smf::Error),
    /// An MDL read or write error.
    #[cfg(feature = "mdl")]
    #[error(transparent)]
    Mdl(#[from] mdl_format::Error),
    /// An ELEM read or write error.
    #[cfg(feature = "elem")]
    #[error(transparent)]
    Elem(#[from] elfreina_elem::Error),
    /// An SKM read or write error.
    #[cfg(feature = "skm")]
    #[error(transparent)]
    Skm(#[from] skm_text::Error),
    /// The glTF writer failed (a size glTF cannot address, JSON, the output's extension).
    #[cfg(feature = "gltf")]
    #[error(transparent)]
    Gltf(#[from] crate::gltf::Error),
    /// An I/O error.
    #[error(transparent)]
    Io(#[from] std::io::Error),
    /// Any of the above, for a named file.
    #[error("{}: {source}", path.display())]
    Path {
        /// The file concerned.
        path: PathBuf,
        /// What went wrong.
        #[source]
        source: Box<Error>,
    },
}

fn budget_rule(input_len: Option<u64>) -> String {
    match input_len {
        Some(n) => format!(" (16 × the {n}-byte input + 4 MiB for the scene)"),
        None => String::new(),
    }
}

fn enabled_list() -> String {
    let names: Vec<&str> = Format::ALL
        .iter()
        .filter(|f| f.is_enabled())
        .map(|f| f.name())
        .collect();
    names.join(", ")
}

impl Error {
    /// Wraps the error with the path it concerns (once: an error that already names a path is
    /// returned unchanged).
    pub fn at(self, path: impl Into<PathBuf>) -> Self {
        match self {
            Error::Path { .. } => self,
            other => Error::Path {
                path: path.into(),
                source: Box::new(other),
            },
        }
    }

    /// The path this error concerns, if it names one.
    pub fn path(&self) -> Option<&std::path::Path> {
        match self {
            Error::Path { path, .. } | Error::OutputExists(path) | Error::OutputIsInput(path) => {
                Some(path)
            }
            _ => None,
        }
    }

    /// Where in the input the error was found, if it comes from a reader.
    pub fn position(&self) -> Option<Position> {
        match self {
            Error::Path { source, .. } => source.position(),
            #[cfg(feature = "bmf")]
            Error::Bmf(e) => e.offset().map(Position::Byte),
            #[cfg(feature = "smf")]
            Error::Smf(e) => e.offset().map(Position::Byte),
            #[cfg(feature = "mdl")]
            Error::Mdl(e) => e.offset().map(Position::Byte),
            #[cfg(feature = "elem")]
            Error::Elem(e) => e.position().map(|(l, c)| Position::LineColumn(l, c)),
            #[cfg(feature = "skm")]
            Error::Skm(e) => e.position().map(|(l, c)| Position::LineColumn(l, c)),
            Error::BudgetExceeded { position, .. } => *position,
            _ => None,
        }
    }
}
