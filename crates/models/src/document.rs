//! A parsed file of any enabled format.

use crate::{detect, detect_with_hint, Error, Format, Model as _, Summary};
use std::path::Path;

/// A parsed document of one of the enabled formats.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub enum Document {
    /// BaseCross `.bmf`.
    #[cfg(feature = "bmf")]
    Bmf(bmf_block::Bmf),
    /// Selene `.smf`.
    #[cfg(feature = "smf")]
    Smf(selene_smf::Smf),
    /// Altseed `.mdl`.
    #[cfg(feature = "mdl")]
    Mdl(mdl_format::Mdl),
    /// Elfreina `.elem`.
    #[cfg(feature = "elem")]
    Elem(elfreina_elem::Elem),
    /// EditAnimation `.skm`.
    #[cfg(feature = "skm")]
    Skm(skm_text::Skm),
}

/// A document and the warnings its reader returned (unusual but readable data).
#[derive(Debug, Clone)]
pub struct Parsed {
    /// The document.
    pub document: Document,
    /// The reader's warnings, formatted (each names its position).
    pub warnings: Vec<String>,
}

fn warnings<W: std::fmt::Display>(w: Vec<W>) -> Vec<String> {
    w.iter().map(ToString::to_string).collect()
}

impl Document {
    /// Parses `bytes` as `format`, returning the warnings too.
    pub fn parse_as(format: Format, bytes: &[u8]) -> Result<Parsed, Error> {
        let (document, warnings) = match format {
            #[cfg(feature = "bmf")]
            Format::Bmf => {
                let (d, w) = bmf_block::Bmf::from_bytes_with_warnings(bytes)?;
                (Document::Bmf(d), warnings(w))
            }
            #[cfg(feature = "smf")]
            Format::Smf => {
                let (d, w) = selene_smf::Smf::from_bytes_with_warnings(bytes)?;
                (Document::Smf(d), warnings(w))
            }
            #[cfg(feature = "mdl")]
            Format::Mdl => {
                let (d, w) = mdl_format::Mdl::from_bytes_with_warnings(bytes)?;
                (Document::Mdl(d), warnings(w))
            }
            #[cfg(feature = "elem")]
            Format::Elem => {
                let (d, w) = elfreina_elem::Elem::from_bytes_with_warnings(bytes)?;
                (Document::Elem(d), warnings(w))
            }
            #[cfg(feature = "skm")]
            Format::Skm => {
                let (d, w) = skm_text::Skm::from_bytes_with_warnings(bytes)?;
                (Document::Skm(d), warnings(w))
            }
            #[allow(unreachable_patterns)]
            other => return Err(Error::FormatDisabled(other)),
        };
        Ok(Parsed { document, warnings })
    }

    /// The document's format.
    pub fn format(&self) -> Format {
        match self {
            #[cfg(feature = "bmf")]
            Document::Bmf(_) => Format::Bmf,
            #[cfg(feature = "smf")]
            Document::Smf(_) => Format::Smf,
            #[cfg(feature = "mdl")]
            Document::Mdl(_) => Format::Mdl,
            #[cfg(feature = "elem")]
            Document::Elem(_) => Format::Elem,
            #[cfg(feature = "skm")]
            Document::Skm(_) => Format::Skm,
        }
    }

    /// The same figures for any format; see [`Summary`].
    pub fn summary(&self) -> Summary {
        match self {
            #[cfg(feature = "bmf")]
            Document::Bmf(d) => crate::formats::bmf::summarize(d),
            #[cfg(feature = "smf")]
            Document::Smf(d) => crate::formats::smf::summarize(d),
            #[cfg(feature = "mdl")]
            Document::Mdl(d) => crate::formats::mdl::summarize(d),
            #[cfg(feature = "elem")]
            Document::Elem(d) => crate::formats::elem::summarize(d),
            #[cfg(feature = "skm")]
            Document::Skm(d) => crate::formats::skm::summarize(d),
        }
    }

    /// Writes the document back in its own format. Binary formats reproduce the file they were
    /// read from byte for byte; text formats write their canonical layout.
    pub fn to_bytes(&self) -> Result<Vec<u8>, Error> {
        Ok(match self {
            #[cfg(feature = "bmf")]
            Document::Bmf(d) => d.to_bytes()?,
            #[cfg(feature = "smf")]
            Document::Smf(d) => d.to_bytes()?,
            #[cfg(feature = "mdl")]
            Document::Mdl(d) => d.to_bytes()?,
            #[cfg(feature = "elem")]
            Document::Elem(d) => d.to_bytes()?,
            #[cfg(feature = "skm")]
            Document::Skm(d) => d.to_bytes()?,
        })
    }
}

/// Detects the format of `bytes` and parses it.
///
/// ```
/// let doc = models::from_bytes(b"BDV1.0\0\0\0\0\0\0\0\0\0\0")
///     .expect_err("a header alone is truncated");
/// assert!(doc.to_string().contains("truncated"));
/// ```
pub fn from_bytes(bytes: &[u8]) -> Result<Document, Error> {
    from_bytes_with_warnings(bytes).map(|p| p.document)
}

/// Detects the format of `bytes` and parses it, returning the reader's warnings too.
pub fn from_bytes_with_warnings(bytes: &[u8]) -> Result<Parsed, Error> {
    let format = detect(bytes).ok_or(Error::UnknownFormat)?;
    Document::parse_as(format, bytes)
}

/// Reads a file, detects its format from its content (the extension only breaks ties) and
/// parses it. Errors name the path.
pub fn open(path: impl AsRef<Path>) -> Result<Document, Error> {
    open_with_warnings(path).map(|p| p.document)
}

/// Like [`open`], returning the reader's warnings too.
pub fn open_with_warnings(path: impl AsRef<Path>) -> Result<Parsed, Error> {
    let path = path.as_ref();
    let run = || {
        let bytes = crate::input::read_regular_file(path)?;
        let format = detect_with_hint(&bytes, path).ok_or(Error::UnknownFormat)?;
        Document::parse_as(format, &bytes)
    };
    run().map_err(|e| e.at(path))
}
