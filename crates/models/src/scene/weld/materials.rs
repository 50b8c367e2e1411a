//! `--base`: materials an editor gave back in its own order get the base's order again.
//!
//! Blender writes a mesh's materials in its slot order, which need not be the file's: the MDL
//! fixtures of two meshes come back with their first two materials swapped. A format writer
//! stores the materials in the scene's order, so the file changes (and a format that numbers
//! materials, such as MDL, names the wrong one). When the scene's material names are the
//! base's, each once, the materials take the base's order and the primitives follow, with one
//! warning.

use super::super::{Scene, SceneWarning, ValidScene};
use super::unique_names;
use std::borrow::Cow;

/// Puts the scene's materials in the base's order (module docs).
pub(super) fn onto_base(scene: &mut Cow<'_, ValidScene>, base: &ValidScene) -> Vec<SceneWarning> {
    let Some(new_index) = base_order(scene, base) else {
        return Vec::new();
    };
    if new_index.iter().enumerate().all(|(i, &j)| i == j) {
        return Vec::new();
    }
    scene.to_mut().reorder_materials(&new_index);
    vec![SceneWarning::other(
        "materials",
        format!(
            "the {} materials put back in the base's order (same names, each once; an editor \
             such as Blender orders them its own way)",
            new_index.len()
        ),
    )]
}

/// For each scene material, the index of the base material of its name; `None` unless both
/// have the same material names, each once.
fn base_order(scene: &Scene, base: &Scene) -> Option<Vec<usize>> {
    if scene.materials.len() != base.materials.len() {
        return None;
    }
    let by_name = unique_names(base.materials.iter().map(|m| m.name.as_str()))?;
    unique_names(scene.materials.iter().map(|m| m.name.as_str()))?;
    (scene.materials.iter())
        .map(|m| by_name.get(m.name.as_str()).copied())
        .collect()
}
