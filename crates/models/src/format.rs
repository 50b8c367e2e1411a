//! The five formats, their extensions and their magic, and detection from the first bytes.

use std::fmt;
use std::path::Path;

/// One of the five supported formats. Never feature-gated: a program built with only some
/// formats can still name, list and recognise the extensions of all of them.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Format {
    /// Selene/Lue `.smf` (chunked binary, GUID 0x20071101).
    Smf,
    /// y_kim EditAnimation `.skm` (whitespace-separated text).
    Skm,
    /// Elfreina `.elem` (nested-scope UTF-8 text).
    Elem,
    /// Altseed `.mdl` (length-prefixed binary).
    Mdl,
    /// BaseCross Fbx2Bin `.bmf` (block-header binary).
    Bmf,
}

/// How each format announces itself, in the order [`detect`] tries them (the order of
/// `shared/formats/README.md`: the binary magics first, the text rules last).
pub const MAGIC: &[(Format, &str)] = &[
    (Format::Bmf, "bytes 0..7 = `BDV1.0\\0` or `BDV1.1\\0`"),
    (Format::Mdl, "bytes 0..4 = `MDL\\0`, then an i32 version"),
    (
        Format::Smf,
        "bytes 0..4 = `FMS\\0` ('SMF' chunk), GUID 0x20071101 at byte 8",
    ),
    (
        Format::Elem,
        "first line `Elfreina Extension Model File` (after an optional BOM)",
    ),
    (
        Format::Skm,
        "first token `Vertices:` followed by a count (after optional whitespace)",
    ),
];

impl Format {
    /// All formats, in detection order.
    pub const ALL: [Format; 5] = [
        Format::Bmf,
        Format::Mdl,
        Format::Smf,
        Format::Elem,
        Format::Skm,
    ];

    /// The short lower-case name, which is also the cargo feature and the usual extension.
    pub fn name(self) -> &'static str {
        match self {
            Format::Smf => "smf",
            Format::Skm => "skm",
            Format::Elem => "elem",
            Format::Mdl => "mdl",
            Format::Bmf => "bmf",
        }
    }

    /// File extensions used for this format (without the dot). Extensions are hints only:
    /// `.smf`, `.skm`, `.mdl` and `.bmf` are also used by unrelated formats.
    pub fn extensions(self) -> &'static [&'static str] {
        match self {
            Format::Smf => &["smf"],
            Format::Skm => &["skm"],
            Format::Elem => &["elem"],
            Format::Mdl => &["mdl"],
            Format::Bmf => &["bmf"],
        }
    }

    /// The format whose extension `path` has (case-insensitive), if any. This looks at the
    /// name only; use [`detect`] to look at the content.
    pub fn from_path(path: impl AsRef<Path>) -> Option<Format> {
        let ext = path.as_ref().extension()?.to_str()?;
        Format::ALL
            .into_iter()
            .find(|f| f.extensions().iter().any(|e| e.eq_ignore_ascii_case(ext)))
    }

    /// True when support for this format is compiled in (its cargo feature is on).
    pub fn is_enabled(self) -> bool {
        crate::formats::with_format!(self, _T => true, _ => false)
    }

    /// Does `bytes` start like a file of this format? Always false when the format is not
    /// enabled: detection never guesses.
    pub fn sniff(self, bytes: &[u8]) -> bool {
        crate::formats::with_format!(self, T => <T as crate::Model>::sniff(bytes), _ => false)
    }
}

impl fmt::Display for Format {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// The formats whose first bytes `bytes` matches, in detection order.
fn candidates(bytes: &[u8]) -> impl Iterator<Item = Format> + '_ {
    Format::ALL.into_iter().filter(move |f| f.sniff(bytes))
}

/// Detects the format from the first bytes of a file (at most 64 are looked at by each
/// format's rule). Returns `None` when no enabled format matches.
///
/// ```
/// assert_eq!(models::detect(b"BDV1.0\0\0\0\0\0\0\0\0\0\0"), Some(models::Format::Bmf));
/// assert_eq!(models::detect(b"MThd\0\0\0\x06"), None); // a Standard MIDI File
/// ```
pub fn detect(bytes: &[u8]) -> Option<Format> {
    candidates(bytes).next()
}

/// Like [`detect`], but when several formats match the content, the one whose extension
/// `path` has wins. The extension never overrides the content.
pub fn detect_with_hint(bytes: &[u8], path: impl AsRef<Path>) -> Option<Format> {
    let hint = Format::from_path(path);
    let mut first = None;
    for f in candidates(bytes) {
        if Some(f) == hint {
            return Some(f);
        }
        first.get_or_insert(f);
    }
    first
}
