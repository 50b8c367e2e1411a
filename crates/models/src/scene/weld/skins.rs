//! The skins a scene takes with the base's skeleton, and how its meshes' joint indices follow.
//!
//! An editor may give the skins back otherwise than the base had them: Blender lists a skin's
//! joints in its own bone order, and merges the skins of the meshes one armature deforms into
//! one (an MDL file of two meshes, each with its skin, comes back with one skin for both). A
//! mesh's `JOINTS_0` index its skin's list, so the vertex weld, which compares joint indices,
//! would match none of the base's vertices.
//!
//! So when every node that draws a skinned mesh is a base node that draws one too, and each
//! weighted joint of that mesh is a joint of the base node's skin, the scene takes the base's
//! skins: each node the base node's skin, and each mesh's joint indices renumbered into it.
//! Otherwise the scene keeps its skins, their joints renumbered to the base's nodes, each with
//! the base's inverse bind matrix of that joint.

use super::super::{Mesh, Scene, Skin};
use std::collections::HashMap;

/// The skins of the welded scene.
pub(super) struct Skins {
    /// The skins.
    pub(super) skins: Vec<Skin>,
    /// For each base node (the welded scene's nodes), the skin it draws with.
    pub(super) of_node: Vec<Option<usize>>,
    /// The meshes whose joint indices change: each old index's new one.
    pub(super) remaps: Vec<(usize, Vec<u16>)>,
}

/// Each node's inverse bind matrix, from the first skin that lists it (`None` for a node no
/// skin lists).
pub(super) fn first_binds(scene: &Scene) -> Vec<Option<[f32; 16]>> {
    let mut binds = vec![None; scene.nodes.len()];
    for skin in &scene.skins {
        for (&j, m) in skin.joints.iter().zip(&skin.inverse_bind_matrices) {
            if let Some(slot @ None) = binds.get_mut(j) {
                *slot = Some(*m);
            }
        }
    }
    binds
}

/// For each node, whether a vertex is weighted to it: a joint of the skin a mesh is drawn
/// with, at an index some vertex of that mesh gives a weight other than 0.
pub(super) fn weighted_nodes(scene: &Scene) -> Vec<bool> {
    let mut weighted = vec![false; scene.nodes.len()];
    for node in &scene.nodes {
        let (Some(skin), Some(mesh)) = (
            node.skin.and_then(|s| scene.skins.get(s)),
            node.mesh.and_then(|m| scene.meshes.get(m)),
        ) else {
            continue;
        };
        let (Some(joints), Some(weights)) = (&mesh.vertices.joints, &mesh.vertices.weights) else {
            // Without both attributes, count every joint of the skin as weighted.
            for &n in &skin.joints {
                if let Some(slot) = weighted.get_mut(n) {
                    *slot = true;
                }
            }
            continue;
        };
        let used = (joints.iter().zip(weights))
            .flat_map(|(j, w)| j.iter().zip(w))
            .filter(|(_, &w)| w != 0.0);
        for (&j, _) in used {
            if let Some(slot) = (skin.joints.get(usize::from(j))).and_then(|&n| weighted.get_mut(n))
            {
                *slot = true;
            }
        }
    }
    weighted
}

/// The skins the scene takes (module docs). `to_base` pairs each scene node with a base node
/// (`to_scene` the other way); `base_binds` are [`first_binds`] of the base.
pub(super) fn plan(
    scene: &Scene,
    base: &Scene,
    to_base: &[Option<usize>],
    to_scene: &[usize],
    base_binds: &[Option<[f32; 16]>],
) -> Skins {
    if let Some(remaps) = remaps_into_base_skins(scene, base, to_base) {
        return Skins {
            skins: base.skins.clone(),
            of_node: base.nodes.iter().map(|n| n.skin).collect(),
            remaps,
        };
    }
    let renumber = |n: usize| to_base.get(n).copied().flatten();
    let skins = (scene.skins.iter())
        .map(|skin| Skin {
            name: skin.name.clone(),
            // Joints are paired (`pair_nodes`), and joints in both scenes alike.
            joints: skin.joints.iter().filter_map(|&j| renumber(j)).collect(),
            inverse_bind_matrices: (skin.joints.iter().zip(&skin.inverse_bind_matrices))
                .map(|(&j, &ours)| {
                    renumber(j)
                        .and_then(|b| base_binds.get(b).copied().flatten())
                        .unwrap_or(ours)
                })
                .collect(),
            skeleton: skin.skeleton.and_then(renumber),
        })
        .collect();
    let of_node = (to_scene.iter())
        .map(|&n| scene.nodes.get(n).and_then(|x| x.skin))
        .collect();
    Skins {
        skins,
        of_node,
        remaps: Vec::new(),
    }
}

/// For each scene mesh drawn with a skin, its joint indices renumbered into the skin of the
/// base node that draws it (only the meshes whose indices change); `None` when a skinned
/// mesh's node is not a base node drawing with a skin, a mesh is drawn with two skins, or a
/// weighted joint of a mesh is not in the base's skin.
fn remaps_into_base_skins(
    scene: &Scene,
    base: &Scene,
    to_base: &[Option<usize>],
) -> Option<Vec<(usize, Vec<u16>)>> {
    // Each skinned mesh's scene skin and base skin.
    let mut drawn: HashMap<usize, (usize, usize)> = HashMap::new();
    for (n, node) in scene.nodes.iter().enumerate() {
        let Some(s) = node.skin else { continue };
        let b = to_base.get(n).copied().flatten()?;
        let k = base.nodes.get(b)?.skin?;
        if let Some(m) = node.mesh {
            if *drawn.entry(m).or_insert((s, k)) != (s, k) {
                return None;
            }
        }
    }
    let mut remaps = Vec::new();
    for (m, (s, k)) in drawn {
        let (ours, theirs) = (scene.skins.get(s)?, base.skins.get(k)?);
        let at: HashMap<usize, usize> = (theirs.joints.iter().enumerate())
            .map(|(i, &j)| (j, i))
            .collect();
        let order: Vec<Option<u16>> = (ours.joints.iter())
            .map(|&j| {
                let i = at.get(&to_base.get(j).copied().flatten()?)?;
                u16::try_from(*i).ok()
            })
            .collect();
        let mesh = scene.meshes.get(m)?;
        if !weighted_joints_in(mesh, &order) {
            return None;
        }
        let identity = order
            .iter()
            .enumerate()
            .all(|(i, o)| o.map(usize::from) == Some(i));
        if !identity {
            remaps.push((m, order.into_iter().map(|o| o.unwrap_or(0)).collect()));
        }
    }
    Some(remaps)
}

/// Whether every joint `mesh` weighs is in `order` (its new index known).
fn weighted_joints_in(mesh: &Mesh, order: &[Option<u16>]) -> bool {
    let (Some(joints), Some(weights)) = (&mesh.vertices.joints, &mesh.vertices.weights) else {
        return true;
    };
    (joints.iter().zip(weights))
        .flat_map(|(j, w)| j.iter().zip(w))
        .filter(|(_, &w)| w > 0.0)
        .all(|(&j, _)| order.get(usize::from(j)).copied().flatten().is_some())
}
