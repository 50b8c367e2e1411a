//! Skins: which the writers can use, and their inverse bind matrices.

use super::{finite_or, label, warn};
use crate::scene::{Scene, SceneWarning, Skin};
use std::collections::HashSet;

/// Whether `skin` can be written: it has joints, all of them nodes, none twice.
pub(crate) fn skin_is_usable(skin: &Skin, node_count: usize) -> bool {
    why_unusable(skin, node_count).is_none()
}

/// Why `skin` cannot be written (no joints, a joint that is no node, one joint twice), in
/// words; `None` when it can. The one judgement: [`detach_unusable`] and the glTF writer,
/// which leaves such a skin out, both say this.
pub(crate) fn why_unusable(skin: &Skin, node_count: usize) -> Option<String> {
    if skin.joints.is_empty() {
        return Some("no joints".into());
    }
    if let Some(&j) = skin.joints.iter().find(|&&j| j >= node_count) {
        return Some(format!("joint node {j} out of range ({node_count} nodes)"));
    }
    // Sorted first: no hashing for the usual skin, which lists each joint once (validation
    // and the glTF writer both ask, per skin; SipHash on a 72-joint skeleton was 2 % of a
    // character's export). Only a skin with a repeat is scanned for its first one.
    let mut sorted = skin.joints.clone();
    sorted.sort_unstable();
    if !sorted.windows(2).any(|w| w.first() == w.get(1)) {
        return None;
    }
    let mut seen = HashSet::with_capacity(skin.joints.len());
    let twice = skin.joints.iter().find(|&&j| !seen.insert(j));
    twice.map(|j| format!("joint node {j} listed twice"))
}

/// Takes from each node a skin that does not exist or cannot be written, with a warning: the
/// node's mesh is then drawn without a skin, by the glTF writer (which leaves such a skin out)
/// and by every format writer alike. Without this a format writer took the skin's joints as
/// they were, and wrote bone indices its own reader refuses (a joint listed twice: BMF bone
/// indices beyond the bone count).
pub(super) fn detach_unusable(scene: &mut Scene, warnings: &mut Vec<SceneWarning>) {
    let n = scene.nodes.len();
    let why: Vec<Option<String>> = scene.skins.iter().map(|s| why_unusable(s, n)).collect();
    for (i, node) in scene.nodes.iter_mut().enumerate() {
        let Some(s) = node.skin else {
            continue;
        };
        let reason = match why.get(s) {
            None => format!("skin {s} does not exist ({} skins)", why.len()),
            Some(None) => continue,
            Some(Some(reason)) => format!("its skin {s} cannot be used ({reason})"),
        };
        node.skin = None;
        let what = if node.mesh.is_some() {
            "its mesh is drawn without a skin"
        } else {
            "skin dropped"
        };
        let place = label("node", i, &node.name);
        warnings.push(SceneWarning::other(
            place.to_string(),
            format!("{reason}; {what}"),
        ));
    }
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
            label,
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
        warn(warnings, label, format!(
            "{fixed} inverse bind matrices were not affine (or not finite); their last row was set to 0 0 0 1"
        ));
    }
}

#[cfg(test)]
mod tests {
    use super::why_unusable;
    use crate::scene::Skin;

    fn skin(joints: &[usize]) -> Skin {
        Skin {
            name: String::new(),
            joints: joints.to_vec(),
            inverse_bind_matrices: Vec::new(),
            skeleton: None,
        }
    }

    /// The reason names the first joint listed again in the skin's order (not the smallest
    /// repeated one, which the sorted check alone would find).
    #[test]
    fn a_repeated_joint_is_named_in_list_order() {
        assert_eq!(why_unusable(&skin(&[0, 4, 2]), 5), None);
        assert_eq!(
            why_unusable(&skin(&[4, 3, 4, 3]), 5).as_deref(),
            Some("joint node 4 listed twice")
        );
        assert_eq!(
            why_unusable(&skin(&[1, 5]), 5).as_deref(),
            Some("joint node 5 out of range (5 nodes)")
        );
        assert_eq!(why_unusable(&skin(&[]), 5).as_deref(), Some("no joints"));
    }
}
