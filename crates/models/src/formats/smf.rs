//! Summary figures for Selene `.smf` (GUID 0x20071101).
//!
//! * `version`: the GUID, always `0x20071101` (the only one the reader accepts).
//! * `meshes`: the MESH chunks.
//! * `vertices`: the `V_PC` element counts, summed over the meshes.
//! * `faces`: the `IDX2`/`IDX4` index counts ÷ 3 (triangle lists), summed over the meshes.
//! * `materials`: the MTRL chunks, summed over the meshes.
//! * `bones`: the FRM chunks (the frame hierarchy is the skeleton; BONE lists only say which
//!   frames drive a skinned mesh).
//! * `animations`: the ANIS chunks (animation sets, i.e. clips).
//! * `textures`: the distinct non-empty `TEXC`, `TEXL`, `TEXE`, `TEXS` and `TEXN` names, decoded
//!   from Shift-JIS, in order of first use (materials in file order, each in that chunk order).
//! * `details`:
//!   * `chunks`: the chunk kinds present, each once, in the order the writer emits them
//!     (canonical order, unknown chunks included);
//!   * `chunk_counts`: the number of chunks of each kind;
//!   * `unknown_chunks`: the number of chunks this library does not know (kept byte for byte);
//!   * `index_format`: for each mesh, `"IDX2"` or `"IDX4"`;
//!   * `skinned_meshes`: meshes with a `V_A` chunk;
//!   * `collision_meshes`: meshes with collision data (`C_AT`, `C_FC` or `C_VX`).
use crate::{Format, Summary};
use serde_json::{Map, Value};

fn summarize(doc: &selene_smf::Smf) -> Summary {
    let ids = doc.chunk_ids();
    let mut present: Vec<String> = Vec::new();
    let mut counts = Map::new();
    for id in &ids {
        let name = id.name();
        let n = counts.get(&name).and_then(Value::as_u64).unwrap_or(0);
        counts.insert(name.clone(), Value::from(n + 1));
        if !present.contains(&name) {
            present.push(name);
        }
    }
    let unknown = doc.unknown.len()
        + doc.frames.iter().map(|f| f.unknown.len()).sum::<usize>()
        + doc
            .animation_sets
            .iter()
            .map(|a| a.unknown.len())
            .sum::<usize>()
        + doc
            .meshes
            .iter()
            .map(|m| m.unknown.len() + m.materials.iter().map(|t| t.unknown.len()).sum::<usize>())
            .sum::<usize>();

    let mut details = Map::new();
    details.insert("chunks".into(), Value::from(present));
    details.insert("chunk_counts".into(), Value::Object(counts));
    details.insert("unknown_chunks".into(), Value::from(unknown as u64));
    details.insert(
        "index_format".into(),
        Value::from(
            doc.meshes
                .iter()
                .map(|m| m.indices.chunk_id().name())
                .collect::<Vec<_>>(),
        ),
    );
    details.insert(
        "skinned_meshes".into(),
        Value::from(doc.meshes.iter().filter(|m| m.blend.is_some()).count() as u64),
    );
    details.insert(
        "collision_meshes".into(),
        Value::from(
            doc.meshes
                .iter()
                .filter(|m| {
                    m.collision_runs.is_some()
                        || m.collision_faces.is_some()
                        || m.collision_vertices.is_some()
                })
                .count() as u64,
        ),
    );

    Summary {
        format: Format::Smf,
        version: format!("0x{:08X}", selene_smf::GUID),
        meshes: doc.meshes.len() as u64,
        vertices: doc.meshes.iter().map(|m| m.vertices.len() as u64).sum(),
        faces: doc
            .meshes
            .iter()
            .map(|m| (m.indices.len() / 3) as u64)
            .sum(),
        materials: doc.meshes.iter().map(|m| m.materials.len() as u64).sum(),
        bones: doc.frames.len() as u64,
        animations: doc.animation_sets.len() as u64,
        textures: crate::summary::distinct_in_order(doc.texture_names()),
        details,
    }
}

impl super::FormatModel for selene_smf::Smf {
    const FORMAT: Format = Format::Smf;

    fn into_document(self) -> crate::Document {
        crate::Document::Smf(self)
    }

    fn summary(&self) -> Summary {
        summarize(self)
    }

    fn to_scene(
        &self,
        options: &crate::scene::SceneOptions,
        _budget: &mut crate::scene::Budget,
    ) -> Result<crate::scene::Conversion, crate::Error> {
        Ok(crate::scene::from_smf::convert(
            std::borrow::Cow::Borrowed(self),
            options,
        ))
    }

    fn into_scene(
        self,
        options: &crate::scene::SceneOptions,
        _budget: &mut crate::scene::Budget,
    ) -> Result<crate::scene::Conversion, crate::Error> {
        Ok(crate::scene::from_smf::convert(
            std::borrow::Cow::Owned(self),
            options,
        ))
    }

    fn from_scene(
        scene: &crate::scene::ValidScene,
        base: Option<&Self>,
        options: &crate::scene::ImportOptions,
    ) -> Result<crate::scene::Imported<Self>, crate::Error> {
        crate::scene::to_smf::convert(scene, base, options)
    }
}
