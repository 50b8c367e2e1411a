//! Summary figures for BaseCross `.bmf`.
//!
//! * `version`: the header text, `BDV1.0` or `BDV1.1`.
//! * `meshes`: the meshes (1 for `BDV1.0`, the MashCount for `BDV1.1`).
//! * `vertices`, `faces`, `materials`: summed over the meshes (faces = indices ÷ 3).
//! * `bones`: the largest bone count of any mesh (each skinned mesh has its own bone list).
//! * `animations`: 1 if any mesh has at least one animation sample, else 0 (the file holds one
//!   unnamed baked animation).
//! * `textures`: distinct non-empty material texture names, in order of first use.
//! * `details`: `header` (the version text), and per mesh `vertex_kinds` (the BaseCross block
//!   names) and `animation_samples` (0 for static meshes).
use crate::{Format, Summary};
use serde_json::{json, Map};

fn summarize(doc: &bmf_block::Bmf) -> Summary {
    let meshes = &doc.meshes;
    let sum = |f: &dyn Fn(&bmf_block::Mesh) -> usize| meshes.iter().map(f).sum::<usize>() as u64;
    let samples: Vec<usize> = meshes
        .iter()
        .map(|m| m.skin.as_ref().map_or(0, |s| s.sample_count()))
        .collect();
    let version = doc.header.version().as_str().to_owned();
    let mut details = Map::new();
    details.insert("header".into(), json!(version));
    details.insert(
        "vertex_kinds".into(),
        json!(meshes
            .iter()
            .map(|m| m.vertices.kind().name())
            .collect::<Vec<_>>()),
    );
    details.insert("animation_samples".into(), json!(samples));
    Summary {
        format: Format::Bmf,
        version,
        meshes: meshes.len() as u64,
        vertices: sum(&|m| m.vertices.len()),
        faces: sum(&|m| m.triangle_count()),
        materials: sum(&|m| m.materials.len()),
        bones: meshes
            .iter()
            .filter_map(|m| m.skin.as_ref())
            .map(|s| u64::from(s.bone_count))
            .max()
            .unwrap_or(0),
        animations: u64::from(samples.iter().any(|&s| s > 0)),
        textures: crate::summary::distinct_in_order(
            meshes
                .iter()
                .flat_map(|m| &m.materials)
                .map(|m| m.texture.to_string_lossy()),
        ),
        details,
    }
}

impl super::FormatModel for bmf_block::Bmf {
    const FORMAT: Format = Format::Bmf;

    fn into_document(self) -> crate::Document {
        crate::Document::Bmf(self)
    }

    fn summary(&self) -> Summary {
        summarize(self)
    }

    fn to_scene(
        &self,
        options: &crate::scene::SceneOptions,
        budget: &mut crate::scene::Budget,
    ) -> Result<crate::scene::Conversion, crate::Error> {
        crate::scene::from_bmf::convert(std::borrow::Cow::Borrowed(self), options, budget)
    }

    fn into_scene(
        self,
        options: &crate::scene::SceneOptions,
        budget: &mut crate::scene::Budget,
    ) -> Result<crate::scene::Conversion, crate::Error> {
        crate::scene::from_bmf::convert(std::borrow::Cow::Owned(self), options, budget)
    }

    fn from_scene(
        scene: &crate::scene::ValidScene,
        base: Option<&Self>,
        options: &crate::scene::ImportOptions,
    ) -> Result<crate::scene::Imported<Self>, crate::Error> {
        crate::scene::to_bmf::convert(scene, base, options)
    }
}
