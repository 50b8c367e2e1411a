//! The import direction's shared types: a [`ValidScene`] becomes a document of one of the five
//! formats (`scene::to_<fmt>`), optionally on top of a `--base` document of that format that
//! fills in what the scene does not carry.

use super::{Scene, SceneWarning, ValidScene};
use crate::formats::{with_document, with_format, FormatModel};
use crate::{Document, Error, Format};
use std::borrow::Cow;

/// Options of the conversion from a scene into a format. The rates are the same units, with
/// the same defaults, as the export's [`SceneOptions`](super::SceneOptions), so that a file
/// exported and imported with the same options keeps its key times.
#[derive(Debug, Clone, PartialEq)]
pub struct ImportOptions {
    /// BMF AnimeMatrix samples per second (animations are baked at this rate). Default 30.
    pub bmf_fps: f32,
    /// SMF key ticks per second. Default 4800.
    pub smf_ticks_per_second: f32,
    /// MDL keyframes per second. Default 60.
    pub mdl_fps: f32,
    /// MDL file version to write (1: matrix bones, 2: TRS bones). `None`: the base's, else the
    /// version the export recorded (`extras.mdl_version`), else 2. Other values are refused.
    pub mdl_version: Option<u32>,
    /// For formats that hold one animation (BMF): the clip to take by name. `None`: every clip,
    /// one after the other, with a warning that lists each clip's time range.
    pub clip: Option<String>,
    /// A name the format cannot encode or hold (CP932 fixed fields) is replaced, with a
    /// warning, instead of refused.
    pub replace_bad_names: bool,
}

impl Default for ImportOptions {
    fn default() -> Self {
        let rates = super::SceneOptions::default();
        Self {
            bmf_fps: rates.bmf_fps,
            smf_ticks_per_second: rates.smf_ticks_per_second,
            mdl_fps: rates.mdl_fps,
            mdl_version: None,
            clip: None,
            replace_bad_names: false,
        }
    }
}

/// A document made from a scene, and what the conversion could not carry over.
#[derive(Debug, Clone)]
pub struct Imported<T> {
    /// The document.
    pub document: T,
    /// What the target format could not hold, or what was guessed, each saying what and where.
    pub warnings: Vec<SceneWarning>,
}

impl Document {
    /// Builds a document of `format` from a validated scene. With `base` (a document of the
    /// same format, usually the file the scene was exported from), whatever the scene does
    /// not carry comes from the base: anchor frames, collision, unknown chunks, render states.
    pub fn from_scene(
        format: Format,
        scene: &ValidScene,
        base: Option<&Document>,
        options: &ImportOptions,
    ) -> Result<Imported<Document>, Error> {
        check_import(format, scene, base)?;
        let bare = bare_onto_base(scene, base);
        let (scene, welded) = super::weld::onto_base(Cow::Borrowed(scene), base, bare);
        with_format!(
            format,
            T => import::<T>(&scene, base, options),
            _ => Err(Error::FormatDisabled(format))
        )
        .map(|imported| said_first(imported, bare, welded))
    }

    /// [`Document::from_scene`] consuming the scene (see `FormatModel::from_owned_scene`).
    fn from_owned_scene(
        format: Format,
        scene: ValidScene,
        base: Option<&Document>,
        options: &ImportOptions,
    ) -> Result<Imported<Document>, Error> {
        check_import(format, &scene, base)?;
        let bare = bare_onto_base(&scene, base);
        let (scene, welded) = super::weld::onto_base(Cow::Owned(scene), base, bare);
        let scene = scene.into_owned();
        with_format!(
            format,
            T => import_owned::<T>(scene, base, options),
            _ => Err(Error::FormatDisabled(format))
        )
        .map(|imported| said_first(imported, bare, welded))
    }
}

impl Document {
    /// [`validate`](fn@super::validate)s `scene` and builds a document of `format` from it (see
    /// [`Document::from_scene`]): the one path from a scene (read from glTF, or converted from
    /// another format) to a document. The warnings are validation's repairs, then the
    /// import's losses.
    ///
    /// ```
    /// use models::scene::{ImportOptions, Scene};
    /// use models::{Document, Error, Format};
    /// match Document::import_scene(Format::Mdl, Scene::default(), None, &ImportOptions::default()) {
    ///     Ok(imported) => assert_eq!(imported.document.format(), Format::Mdl),
    ///     // A format whose cargo feature is off in this build cannot be written.
    ///     Err(Error::ImportUnsupported(format)) => assert_eq!(format, Format::Mdl),
    ///     Err(other) => return Err(other.into()),
    /// }
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn import_scene(
        format: Format,
        scene: Scene,
        base: Option<&Document>,
        options: &ImportOptions,
    ) -> Result<Imported<Document>, Error> {
        let validated = super::validate(scene);
        let imported = Document::from_owned_scene(format, validated.scene, base, options)?;
        let mut warnings = validated.warnings;
        warnings.extend(imported.warnings);
        Ok(Imported {
            document: imported.document,
            warnings,
        })
    }
}

/// What [`Document::from_scene`] checks before any importer runs: a base of the target
/// format, and index ranges within the writing limit.
fn check_import(format: Format, scene: &ValidScene, base: Option<&Document>) -> Result<(), Error> {
    if let Some(b) = base {
        if b.format() != format {
            return Err(Error::BaseFormatMismatch {
                base: b.format(),
                target: format,
            });
        }
    }
    // The writers copy each primitive's index range; overlapping ranges of one shared
    // list must not multiply into the output beyond the writing limit.
    super::budget::check_index_uses(scene)
}

/// True when a base is given and the scene carries no extras at all. Every export of ours writes
/// some (the format's version, render states, names), so they were left out by the tool that
/// wrote the glTF file: Blender does unless its exporter's "Custom Properties" is on. Only the
/// base then gives back what glTF has no place for.
fn bare_onto_base(scene: &Scene, base: Option<&Document>) -> bool {
    base.is_some()
        && scene.extras.is_empty()
        && scene.nodes.iter().all(|n| n.extras.is_empty())
        && scene.meshes.iter().all(|m| m.extras.is_empty())
        && scene.materials.iter().all(|m| m.extras.is_empty())
        && scene.animations.iter().all(|a| a.extras.is_empty())
}

/// `imported` with, first, the warning [`bare_onto_base`] calls for, then the meshes given the
/// base's vertices again (`scene::weld`).
fn said_first(
    mut imported: Imported<Document>,
    bare: bool,
    welded: Vec<SceneWarning>,
) -> Imported<Document> {
    imported.warnings.splice(0..0, welded);
    if bare {
        imported.warnings.insert(
            0,
            SceneWarning::other(
                "scene",
                "the glTF file carries none of the extras an export writes, so what glTF has \
                 no place for comes from the base alone (the tool that wrote the file left them \
                 out: from Blender, export with Include → Custom Properties)",
            ),
        );
    }
    imported
}

/// [`import`] consuming the scene.
fn import_owned<T: FormatModel + 'static>(
    scene: ValidScene,
    base: Option<&Document>,
    options: &ImportOptions,
) -> Result<Imported<Document>, Error> {
    T::from_owned_scene(scene, typed_base::<T>(base), options).map(into_document)
}

fn import<T: FormatModel + 'static>(
    scene: &ValidScene,
    base: Option<&Document>,
    options: &ImportOptions,
) -> Result<Imported<Document>, Error> {
    T::from_scene(scene, typed_base::<T>(base), options).map(into_document)
}

/// The base as the target format's model (`None` when it is another format: `check_import`
/// has refused that already).
fn typed_base<T: FormatModel + 'static>(base: Option<&Document>) -> Option<&T> {
    // Not `base.and_then(..)`: in a build without any format the match has no arm, and clippy
    // reads the closure as `and_then(|x| Some(y))` (bind_instead_of_map).
    let doc = base?;
    with_document!(*doc, d => T::downcast(d))
}

/// An import's model as a [`Document`].
fn into_document<T: FormatModel>(imported: Imported<T>) -> Imported<Document> {
    Imported {
        document: imported.document.into_document(),
        warnings: imported.warnings,
    }
}
