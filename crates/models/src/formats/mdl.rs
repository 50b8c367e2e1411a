//! Summary figures for Altseed `.mdl`.
//!
//! * `version`: the file version, `1` (matrix bones) or `2` (TRS bones).
//! * `meshes`: the entries of the mesh array (each one is split into divided meshes).
//! * `vertices`, `faces`: summed over every divided mesh of every mesh.
//! * `materials`: the material arrays' lengths, summed over the meshes.
//! * `bones`: the length of the bone array.
//! * `animations`: the animation clips (not the sources).
//! * `textures`: the distinct non-empty material paths in file order: the colour, normal and
//!   metalness paths of internal materials and the single path of external (type 1) ones.
//! * `details`:
//!   * `divided_meshes`: the number of divided meshes of each mesh, in order;
//!   * `animation_sources`: for each source, `{ "name", "curves", "keys" }` (keys summed over
//!     its curves);
//!   * `interpolations`: the distinct raw interpolation values of all keyframes, ascending
//!     (1 constant, 2 linear, 3 cubic in the converter's meaning);
//!   * `clips`: for each clip, `{ "name", "source" }`.
use crate::{Format, Summary};
use serde_json::{json, Map, Value};

fn summarize(doc: &mdl_format::Mdl) -> Summary {
    let divided = || doc.meshes.iter().flat_map(|m| &m.divided);
    let paths = doc
        .meshes
        .iter()
        .flat_map(|m| &m.materials)
        .flat_map(|m| m.paths())
        .map(|p| p.to_string_lossy());
    let mut interpolations: Vec<i32> = doc
        .animation_sources
        .iter()
        .flat_map(|s| &s.curves)
        .flat_map(|c| &c.keys)
        .map(|k| k.interpolation.0)
        .collect();
    interpolations.sort_unstable();
    interpolations.dedup();

    let mut details = Map::new();
    details.insert(
        "divided_meshes".into(),
        Value::from(
            doc.meshes
                .iter()
                .map(|m| m.divided.len() as u64)
                .collect::<Vec<_>>(),
        ),
    );
    details.insert(
        "animation_sources".into(),
        Value::Array(
            doc.animation_sources
                .iter()
                .map(|s| {
                    json!({
                        "name": s.name.to_string_lossy(),
                        "curves": s.curves.len() as u64,
                        "keys": s.curves.iter().map(|c| c.keys.len() as u64).sum::<u64>(),
                    })
                })
                .collect(),
        ),
    );
    details.insert("interpolations".into(), Value::from(interpolations));
    details.insert(
        "clips".into(),
        Value::Array(
            doc.clips
                .iter()
                .map(|c| json!({ "name": c.name.to_string_lossy(), "source": c.source_index }))
                .collect(),
        ),
    );

    Summary {
        format: Format::Mdl,
        version: doc.version.to_string(),
        meshes: doc.meshes.len() as u64,
        vertices: divided().map(|d| d.vertices.len() as u64).sum(),
        faces: divided().map(|d| d.faces.len() as u64).sum(),
        materials: doc.meshes.iter().map(|m| m.materials.len() as u64).sum(),
        bones: doc.bones.len() as u64,
        animations: doc.clips.len() as u64,
        textures: crate::summary::distinct_in_order(paths),
        details,
    }
}

impl super::FormatModel for mdl_format::Mdl {
    const FORMAT: Format = Format::Mdl;

    fn into_document(self) -> crate::Document {
        crate::Document::Mdl(self)
    }

    fn summary(&self) -> Summary {
        summarize(self)
    }

    fn to_scene(
        &self,
        options: &crate::scene::SceneOptions,
        budget: &mut crate::scene::Budget,
    ) -> Result<crate::scene::Conversion, crate::Error> {
        crate::scene::from_mdl::convert(std::borrow::Cow::Borrowed(self), options, budget)
    }

    fn into_scene(
        self,
        options: &crate::scene::SceneOptions,
        budget: &mut crate::scene::Budget,
    ) -> Result<crate::scene::Conversion, crate::Error> {
        crate::scene::from_mdl::convert(std::borrow::Cow::Owned(self), options, budget)
    }

    fn from_scene(
        scene: &crate::scene::ValidScene,
        base: Option<&Self>,
        options: &crate::scene::ImportOptions,
    ) -> Result<crate::scene::Imported<Self>, crate::Error> {
        crate::scene::to_mdl::convert(scene, base, options)
    }

    fn from_owned_scene(
        scene: crate::scene::ValidScene,
        base: Option<&Self>,
        options: &crate::scene::ImportOptions,
    ) -> Result<crate::scene::Imported<Self>, crate::Error> {
        crate::scene::to_mdl::convert_owned(scene, base, options)
    }
}
