//! Summary figures for Elfreina `.elem`.
//!
//! * `version`: the text after `File Version` (`1.00` for every known file).
//! * `meshes`: the `Mesh` scopes, over all `MeshContainer`s.
//! * `vertices`: the sum of `VertexCount` (the `Positions` rows) over those meshes.
//! * `faces`: the sum of `FaceCount` (polygons of any size, not triangles; see
//!   `details.triangles`).
//! * `materials`: the `Material` scopes, over all containers.
//! * `bones`: the `Node` scopes of `HierarchyList`, at every level.
//! * `animations`: the `AnimationData` scopes.
//! * `textures`: the distinct non-empty `TextureFilename`s, as written (backslashes kept), in
//!   container and material order.
//! * `details`:
//!   * `containers`: the `MeshContainer` names, in order (`""` when a container has none);
//!   * `triangles`: the faces after a fan split of every polygon;
//!   * `skin_bones`: the sum of every container's bone palette (`BoneNames`/`OffsetMatrices`);
//!   * `uv_sets`: the largest number of UV sets in one mesh;
//!   * `vertex_colors`: true when any mesh has per-vertex `Diffuse`;
//!   * `rendering_meshes`: the `RenderingMesh` scopes;
//!   * `bone_animation_parts`, `uv_animation_parts`: the `AnimationPart`s of every
//!     `BoneAnimation` / `UVAnimation`;
//!   * `unknown_top_level`: the tags and keys of unknown top-level items (kept verbatim).
use crate::{Format, Summary};
use serde_json::{Map, Value};

fn summarize(doc: &elfreina_elem::Elem) -> Summary {
    let containers = doc.containers();
    let meshes = || containers.iter().flat_map(|c| c.meshes.iter());
    let mut details = Map::new();
    details.insert(
        "containers".into(),
        Value::from(
            containers
                .iter()
                .map(|c| c.name.clone().unwrap_or_default())
                .collect::<Vec<_>>(),
        ),
    );
    details.insert(
        "triangles".into(),
        Value::from(meshes().map(|m| m.triangle_count() as u64).sum::<u64>()),
    );
    details.insert(
        "skin_bones".into(),
        Value::from(
            containers
                .iter()
                .map(|c| c.bone_count() as u64)
                .sum::<u64>(),
        ),
    );
    details.insert(
        "uv_sets".into(),
        Value::from(
            meshes()
                .map(|m| m.uv_sets.iter().filter(|s| !s.is_empty()).count() as u64)
                .max()
                .unwrap_or(0),
        ),
    );
    details.insert(
        "vertex_colors".into(),
        Value::from(meshes().any(|m| !m.diffuse.is_empty())),
    );
    details.insert(
        "rendering_meshes".into(),
        Value::from(doc.rendering_meshes().len() as u64),
    );
    details.insert(
        "bone_animation_parts".into(),
        Value::from(
            doc.animations()
                .iter()
                .map(|a| a.bone_animation.parts.len() as u64)
                .sum::<u64>(),
        ),
    );
    details.insert(
        "uv_animation_parts".into(),
        Value::from(
            doc.animations()
                .iter()
                .map(|a| a.uv_animation.parts.len() as u64)
                .sum::<u64>(),
        ),
    );
    details.insert(
        "unknown_top_level".into(),
        Value::from(
            doc.extra
                .iter()
                .map(|i| i.name().to_owned())
                .collect::<Vec<_>>(),
        ),
    );
    Summary {
        format: Format::Elem,
        version: doc.version.clone(),
        meshes: meshes().count() as u64,
        vertices: meshes().map(|m| m.vertex_count() as u64).sum(),
        faces: meshes().map(|m| m.face_count() as u64).sum(),
        materials: containers
            .iter()
            .map(|c| c.material_list().len() as u64)
            .sum(),
        bones: doc.hierarchy.node_count() as u64,
        animations: doc.animations().len() as u64,
        textures: crate::summary::distinct_in_order(
            containers
                .iter()
                .flat_map(|c| c.material_list())
                .filter_map(|m| m.texture_filename.as_deref()),
        ),
        details,
    }
}

impl super::FormatModel for elfreina_elem::Elem {
    const FORMAT: Format = Format::Elem;

    fn into_document(self) -> crate::Document {
        crate::Document::Elem(self)
    }

    fn summary(&self) -> Summary {
        summarize(self)
    }

    fn to_scene(
        &self,
        options: &crate::scene::SceneOptions,
        _budget: &mut crate::scene::Budget,
    ) -> Result<crate::scene::Conversion, crate::Error> {
        Ok(crate::scene::from_elem::convert(self, options))
    }

    fn from_scene(
        scene: &crate::scene::ValidScene,
        base: Option<&Self>,
        options: &crate::scene::ImportOptions,
    ) -> Result<crate::scene::Imported<Self>, crate::Error> {
        crate::scene::to_elem::convert(scene, base, options)
    }
}
