//! Skins: which the writers can use, and their inverse bind matrices.

use super::{finite_or, label, warn};
use crate::scene::{Scene, SceneWarning, Skin};
use std::collections::HashSet;

/// Whether the glTF writer writes `skin`: it has joints, all of them nodes, none twice. (An
/// unusable skin is not repaired; the writer leaves it out with a warning.)
pub(crate) fn skin_is_usable(skin: &Skin, node_count: usize) -> bool {
    let mut seen = HashSet::with_capacity(skin.joints.len());
    !skin.joints.is_empty()
        && skin
            .joints
            .iter()
            .all(|&j| j < node_count && seen.insert(j))
}

/// For each mesh, the fewest joints of the usable skins it is drawn with (`None` when no node
/// draws it with one): weights on joints beyond that are dropped.
pub(crate) fn mesh_joint_counts(scene: &Scene) -> Vec<Option<usize>> {
    let n = scene.nodes.len();
    let usable: Vec<bool> = scene.skins.iter().map(|s| skin_is_usable(s, n)).collect();
    let mut counts: Vec<Option<usize>> = vec![None; scene.meshes.len()];
    for node in &scene.nodes {
        let (Some(m), Some(s)) = (node.mesh, node.skin) else {
            continue;
        };
        let (Some(slot), Some(true), Some(skin)) = (
            counts.get_mut(m),
            usable.get(s).copied(),
            scene.skins.get(s),
        ) else {
            continue;
        };
        let joints = skin.joints.len();
        *slot = Some(slot.map_or(joints, |c: usize| c.min(joints)));
    }
    counts
}

/// Inverse bind matrices: one per joint (extra ones dropped, missing ones identities), finite,
/// with the last row `0 0 0 1`.
pub(super) fn inverse_bind_matrices(i: usize, skin: &mut Skin, warnings: &mut Vec<SceneWarning>) {
    let label = label("skin", i, &skin.name);
    let ibm = &mut skin.inverse_bind_matrices;
    if !ibm.is_empty() && ibm.len() != skin.joints.len() {
        warn(
            warnings,
            &label,
            format!(
                "{} inverse bind matrices for {} joints; {} with identities",
                ibm.len(),
                skin.joints.len(),
                if ibm.len() > skin.joints.len() {
                    "extra ones dropped"
                } else {
                    "padded"
                }
            ),
        );
        ibm.resize(skin.joints.len(), crate::scene::IDENTITY);
    }
    let mut fixed = 0usize;
    for m in ibm.iter_mut() {
        let before = *m;
        (*m, _) = finite_or(*m, 0.0);
        m[3] = 0.0;
        m[7] = 0.0;
        m[11] = 0.0;
        m[15] = 1.0;
        // By value: a mirrored -0.0 is fine (written as 0.0).
        if before.iter().zip(m.iter()).any(|(a, b)| a != b) {
            fixed += 1;
        }
    }
    if fixed > 0 {
        warn(warnings, &label, format!(
            "{fixed} inverse bind matrices were not affine (or not finite); their last row was set to 0 0 0 1"
        ));
    }
}
