//! A parsed file of any enabled format.

use crate::formats::{with_document, with_format, FormatModel};
use crate::{detect, detect_with_hint, Error, Format, Model, Summary, Warning};
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
    /// The reader's typed warnings (`Display` names the position).
    pub warnings: Vec<Warning>,
}

impl Document {
    /// Parses `bytes` as `format`, returning the warnings too.
    pub fn parse_as(format: Format, bytes: &[u8]) -> Result<Parsed, Error> {
        with_format!(format, T => parse::<T>(bytes), _ => Err(Error::FormatDisabled(format)))
    }

    /// The document's format.
    pub fn format(&self) -> Format {
        with_document!(*self, d => format_of(d))
    }

    /// The same figures for any format; see [`Summary`].
    pub fn summary(&self) -> Summary {
        with_document!(*self, d => FormatModel::summary(d))
    }

    /// Writes the document back in its own format. Binary formats reproduce the file they were
    /// read from byte for byte; text formats write their canonical layout.
    pub fn to_bytes(&self) -> Result<Vec<u8>, Error> {
        with_document!(*self, d => Model::to_bytes(d).map_err(Into::into))
    }
}

/// Parses `bytes` as the format of `T`.
fn parse<T: FormatModel>(bytes: &[u8]) -> Result<Parsed, Error> {
    let (document, warnings) = T::from_bytes_with_warnings(bytes).map_err(Into::into)?;
    Ok(Parsed {
        document: document.into_document(),
        warnings: warnings.into_iter().map(Into::into).collect(),
    })
}

fn format_of<T: FormatModel>(_: &T) -> Format {
    T::FORMAT
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
        let bytes = crate::input::read_input(path)?;
        let format = detect_with_hint(&bytes, path).ok_or(Error::UnknownFormat)?;
        Document::parse_as(format, &bytes)
    };
    run().map_err(|e| e.at(path))
}

/// Like [`Document::parse_as`], and also reads historical layouts that the strict readers
/// refuse, converted to the format's current layout with a warning naming the layout. Today
/// that is the Altseed MDL 2014 development layout (read with
/// [`mdl::LegacyMdl`](crate::mdl::LegacyMdl), converted with `LegacyMdl::to_stable`, warned
/// as `mdl::Warning::LegacyLayout`). Such a document writes the current layout, not the
/// file's bytes. Earlier prototypes still fail (`mdl::Error::EarlyLayout`).
///
/// ```
/// let err = models::parse_with_upgrades(models::Format::Mdl, b"MDL\0\x01\0\0\0")
///     .expect_err("a header alone is truncated");
/// assert!(err.to_string().contains("truncated"));
/// ```
pub fn parse_with_upgrades(format: Format, bytes: &[u8]) -> Result<Parsed, Error> {
    let parsed = Document::parse_as(format, bytes);
    #[cfg(feature = "mdl")]
    if let Err(Error::Mdl(mdl_format::Error::UnsupportedLayout { offset, .. })) = parsed {
        let (legacy, warnings) = mdl_format::LegacyMdl::from_bytes_with_warnings(bytes)?;
        let stable = legacy.to_stable()?;
        let mut all = vec![Warning::Mdl(mdl_format::Warning::LegacyLayout { offset })];
        all.extend(warnings.into_iter().map(Warning::Mdl));
        return Ok(Parsed {
            document: Document::Mdl(stable),
            warnings: all,
        });
    }
    parsed
}

/// Like [`open_with_warnings`], with the historical layouts of [`parse_with_upgrades`].
pub fn open_with_upgrades(path: impl AsRef<Path>) -> Result<Parsed, Error> {
    let path = path.as_ref();
    let run = || {
        // SKM's reader takes a vector (see `parse_owned_with_upgrades`); other inputs may be
        // mapped (`input::read_input`).
        let bytes = if Format::from_path(path) == Some(Format::Skm) {
            crate::Bytes::from(crate::input::read_regular_file(path)?)
        } else {
            crate::input::read_input(path)?
        };
        let format = detect_with_hint(&bytes, path).ok_or(Error::UnknownFormat)?;
        parse_owned_with_upgrades(format, bytes)
    };
    run().map_err(|e| e.at(path))
}

/// [`parse_with_upgrades`], giving the whole input away: SKM's reader releases the text of
/// the vertex rows once they are read, so that a large file and its whole document are not
/// in memory together (issue 18: the peak of `models convert`). Same result.
fn parse_owned_with_upgrades(format: Format, bytes: crate::Bytes) -> Result<Parsed, Error> {
    #[cfg(feature = "skm")]
    if format == Format::Skm {
        let (document, warnings) = skm_text::Skm::from_vec_with_warnings(bytes.into_vec())?;
        return Ok(Parsed {
            document: Document::Skm(document),
            warnings: warnings.into_iter().map(Into::into).collect(),
        });
    }
    parse_with_upgrades(format, &bytes)
}
