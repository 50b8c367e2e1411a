//! What the facade adds to each format crate: one file per format (its [`Summary`] figures,
//! each documenting what they count) and the [`FormatModel`] impl that lets [`Document`],
//! [`Format`] and the scene conversion dispatch through one trait instead of one `match` arm
//! per format and operation.
//!
//! The two macros here are the only per-format lists of the dispatch:
//!
//! * `with_document!(doc, d => expr)`: `expr` with `d` bound (by reference) to the format
//!   crate's document inside `doc` (a place expression, e.g. `*self`);
//! * `with_format!(format, T => expr, _ => fallback)`: `expr` with the type alias `T` naming the
//!   document type of `format`, or `fallback` when that format is not compiled in.
//!
//! Adding a format: its crate implements [`crate::Model`]; here, a `formats/<name>.rs` with the
//! [`FormatModel`] impl and one arm in each macro; a [`Document`] variant, a [`Format`] variant
//! (with its name, extension and magic), an [`Error`] variant and a
//! [`Warning`](crate::Warning) variant; the feature and
//! the optional dependency in `Cargo.toml`.

use crate::scene::{Budget, Conversion, ImportOptions, Imported, SceneOptions, ValidScene};
use crate::{Document, Error, Format, Model, Summary};

#[cfg(feature = "bmf")]
pub(crate) mod bmf;
#[cfg(feature = "elem")]
pub(crate) mod elem;
#[cfg(feature = "mdl")]
pub(crate) mod mdl;
#[cfg(feature = "skm")]
pub(crate) mod skm;
#[cfg(feature = "smf")]
pub(crate) mod smf;

/// A format crate's document as the facade sees it: the crate's [`Model`] plus what needs the
/// facade's types.
pub(crate) trait FormatModel:
    Model<Error: Into<crate::Error>, Warning: Into<crate::Warning>>
{
    /// The facade's name for the format.
    const FORMAT: Format;

    /// Wraps the document in the [`Document`] enum.
    fn into_document(self) -> Document;

    /// The same figures for every format; see [`Summary`].
    fn summary(&self) -> Summary;

    /// Converts the document to the scene model (glTF's conventions), with the warnings,
    /// charging `budget` where the format declares a large allocation (see
    /// [`Scene::from_document_with`](crate::scene::Scene::from_document_with)).
    fn to_scene(&self, options: &SceneOptions, budget: &mut Budget) -> Result<Conversion, Error>;

    /// [`to_scene`](Self::to_scene), consuming the document: a format whose converter frees
    /// each part of the document once it is converted overrides it, so that the document and
    /// the scene are not both whole in memory (see
    /// [`Scene::from_owned_document_with`](crate::scene::Scene::from_owned_document_with)).
    fn into_scene(self, options: &SceneOptions, budget: &mut Budget) -> Result<Conversion, Error>
    where
        Self: Sized,
    {
        self.to_scene(options, budget)
    }

    /// Builds a document of this format from a validated scene (the import direction,
    /// `scene/to_<fmt>.rs`), with `base` filling in what the scene does not carry. Formats
    /// without an importer yet refuse with [`Error::ImportUnsupported`].
    fn from_scene(
        scene: &ValidScene,
        base: Option<&Self>,
        options: &ImportOptions,
    ) -> Result<Imported<Self>, Error> {
        let _ = (scene, base, options);
        Err(Error::ImportUnsupported(Self::FORMAT))
    }

    /// [`from_scene`](Self::from_scene), consuming the scene: a format whose importer can
    /// reuse the scene's arrays (MDL's faces are made in place of a triangle list) overrides
    /// it, so that they are not copied into fresh memory (what
    /// [`Document::import_scene`](crate::Document::import_scene) uses).
    fn from_owned_scene(
        scene: ValidScene,
        base: Option<&Self>,
        options: &ImportOptions,
    ) -> Result<Imported<Self>, Error>
    where
        Self: Sized,
    {
        Self::from_scene(&scene, base, options)
    }

    /// `doc` as this format's document, if it is one (for `--base`).
    fn downcast<U: std::any::Any>(doc: &U) -> Option<&Self>
    where
        Self: 'static,
    {
        (doc as &dyn std::any::Any).downcast_ref::<Self>()
    }
}

/// Evaluates an expression with the document inside a [`Document`]; see the module docs.
/// `with_document!(move doc, d => expr)` binds `d` by value instead.
macro_rules! with_document {
    (move $doc:expr, $d:ident => $body:expr) => {
        match $doc {
            #[cfg(feature = "bmf")]
            $crate::Document::Bmf($d) => $body,
            #[cfg(feature = "smf")]
            $crate::Document::Smf($d) => $body,
            #[cfg(feature = "mdl")]
            $crate::Document::Mdl($d) => $body,
            #[cfg(feature = "elem")]
            $crate::Document::Elem($d) => $body,
            #[cfg(feature = "skm")]
            $crate::Document::Skm($d) => $body,
        }
    };
    ($doc:expr, $d:ident => $body:expr) => {
        match $doc {
            #[cfg(feature = "bmf")]
            $crate::Document::Bmf(ref $d) => $body,
            #[cfg(feature = "smf")]
            $crate::Document::Smf(ref $d) => $body,
            #[cfg(feature = "mdl")]
            $crate::Document::Mdl(ref $d) => $body,
            #[cfg(feature = "elem")]
            $crate::Document::Elem(ref $d) => $body,
            #[cfg(feature = "skm")]
            $crate::Document::Skm(ref $d) => $body,
        }
    };
}

/// Evaluates an expression with the document type of a [`Format`]; see the module docs.
macro_rules! with_format {
    ($format:expr, $T:ident => $body:expr, _ => $none:expr) => {
        match $format {
            #[cfg(feature = "bmf")]
            $crate::Format::Bmf => {
                type $T = bmf_block::Bmf;
                $body
            }
            #[cfg(feature = "smf")]
            $crate::Format::Smf => {
                type $T = selene_smf::Smf;
                $body
            }
            #[cfg(feature = "mdl")]
            $crate::Format::Mdl => {
                type $T = mdl_format::Mdl;
                $body
            }
            #[cfg(feature = "elem")]
            $crate::Format::Elem => {
                type $T = elfreina_elem::Elem;
                $body
            }
            #[cfg(feature = "skm")]
            $crate::Format::Skm => {
                type $T = skm_text::Skm;
                $body
            }
            #[allow(unreachable_patterns)]
            _ => $none,
        }
    };
}

pub(crate) use {with_document, with_format};

#[cfg(test)]
mod tests {
    use super::*;

    /// The dispatch maps each format to the crate of that format, and the crate's own name
    /// for it is the facade's (which is also the feature and the extension).
    #[test]
    fn each_format_dispatches_to_its_own_crate() {
        for format in Format::ALL {
            let names = with_format!(
                format,
                T => Some((<T as FormatModel>::FORMAT, <T as Model>::NAME)),
                _ => None
            );
            if format.is_enabled() {
                assert_eq!(names, Some((format, format.name())));
                assert!(format.extensions().contains(&format.name()));
            } else {
                assert_eq!(names, None);
            }
        }
    }
}
