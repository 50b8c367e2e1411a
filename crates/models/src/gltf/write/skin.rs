//! Skins: which are written, their inverse bind matrices and common roots, and each vertex's
//! joints and weights.

use super::buffer::f32_bytes;
use super::hierarchy::Hierarchy;
use super::{label, non_empty, push, u32_of, Builder};
use crate::gltf::Error;
use crate::scene::{Scene, SceneWarning};
use gltf_json as json;
use json::accessor::{ComponentType, Type};
use json::Index;
use std::collections::HashSet;

/// A skin that survived validation, with its joints and inverse bind matrices.
pub(super) struct SkinPlan {
    pub(super) joints: Vec<usize>,
    ibm: Vec<[f32; 16]>,
    skeleton: Option<usize>,
    name: String,
}

/// Counts of the repairs made to one mesh's skinning data.
#[derive(Default)]
pub(super) struct SkinStats {
    bad_weights: usize,
    out_of_range: usize,
    merged: usize,
    unweighted: usize,
    renormalised: usize,
}

impl SkinStats {
    pub(super) fn report(&self, label: &str, count: usize, warnings: &mut Vec<SceneWarning>) {
        let mut say = |n: usize, what: String| {
            if n > 0 {
                warnings.push(SceneWarning(format!("{label}: {n} {what}")));
            }
        };
        say(
            self.bad_weights,
            "negative or non-finite weights set to 0".into(),
        );
        say(
            self.out_of_range,
            format!("weights on joints beyond the skin's {count} joints dropped"),
        );
        say(self.merged, "repeated joints of a vertex merged".into());
        say(
            self.unweighted,
            "vertices without any weight bound fully to joint 0".into(),
        );
        say(
            self.renormalised,
            "vertices' weights did not sum to 1 and were renormalised".into(),
        );
    }
}

/// Makes one vertex's skinning valid glTF: weights ≥ 0 summing to 1, no repeated joint with a
/// weight, joint 0 wherever the weight is 0, every weighted joint `< count`.
pub(super) fn fix_skin_vertex(
    mut j: [u16; 4],
    w: [f32; 4],
    count: usize,
    stats: &mut SkinStats,
) -> ([u16; 4], [f32; 4]) {
    let mut w: [f64; 4] = w.map(f64::from);
    for (wk, &jk) in w.iter_mut().zip(&j) {
        if !wk.is_finite() || *wk < 0.0 {
            stats.bad_weights += 1;
            *wk = 0.0;
        }
        if *wk > 0.0 && usize::from(jk) >= count {
            stats.out_of_range += 1;
            *wk = 0.0;
        }
    }
    // Slot k's weight moves to the first earlier slot m < k with a weight and the same joint.
    for k in 1..4 {
        let Some(((earlier, [wk, ..]), &jk)) = w.split_at_mut_checked(k).zip(j.get(k)) else {
            continue;
        };
        if *wk > 0.0 {
            let same = earlier
                .iter_mut()
                .zip(&j)
                .find(|(wm, &jm)| **wm > 0.0 && jm == jk);
            if let Some((wm, _)) = same {
                *wm += *wk;
                *wk = 0.0;
                stats.merged += 1;
            }
        }
    }
    for (jk, &wk) in j.iter_mut().zip(&w) {
        if wk == 0.0 {
            *jk = 0;
        }
    }
    let sum: f64 = w.iter().sum();
    if sum <= 0.0 || !sum.is_finite() {
        stats.unweighted += 1;
        return ([0; 4], [1.0, 0.0, 0.0, 0.0]);
    }
    if (sum - 1.0).abs() > 1e-3 {
        stats.renormalised += 1;
    }
    let mut out = w.map(|x| (x / sum) as f32);
    // Put any f32 rounding error on the largest weight so the sum is as close to 1 as f32 gets.
    let total: f32 = out.iter().sum();
    if let Some(largest) = out.iter_mut().max_by(|a, b| a.total_cmp(b)) {
        *largest += 1.0 - total;
    }
    (j, out)
}

impl Builder<'_> {
    /// Validates every skin; may add a synthetic common root. `None` for a skin not written.
    pub(super) fn plan_skins(&mut self, scene: &Scene, h: &mut Hierarchy) -> Vec<Option<SkinPlan>> {
        let n = scene.nodes.len();
        let mut plans = Vec::with_capacity(scene.skins.len());
        for (i, skin) in scene.skins.iter().enumerate() {
            let label = label("skin", i, &skin.name);
            if skin.joints.is_empty() {
                self.warn(format!("{label}: no joints; skin not written"));
                plans.push(None);
                continue;
            }
            if let Some(&j) = skin.joints.iter().find(|&&j| j >= n) {
                self.warn(format!(
                    "{label}: joint node {j} out of range ({n} nodes); skin not written"
                ));
                plans.push(None);
                continue;
            }
            let mut seen = HashSet::with_capacity(skin.joints.len());
            if let Some(&j) = skin.joints.iter().find(|&&j| !seen.insert(j)) {
                self.warn(format!(
                    "{label}: joint node {j} listed twice; skin not written"
                ));
                plans.push(None);
                continue;
            }
            let mut ibm = skin.inverse_bind_matrices.clone();
            if !ibm.is_empty() && ibm.len() != skin.joints.len() {
                self.warn(format!(
                    "{label}: {} inverse bind matrices for {} joints; {} with identities",
                    ibm.len(),
                    skin.joints.len(),
                    if ibm.len() > skin.joints.len() {
                        "extra ones dropped"
                    } else {
                        "padded"
                    }
                ));
                ibm.resize(skin.joints.len(), crate::scene::IDENTITY);
            }
            let mut fixed = 0usize;
            for m in &mut ibm {
                let before = *m;
                for v in m.iter_mut() {
                    if !v.is_finite() {
                        *v = 0.0;
                    }
                }
                m[3] = 0.0;
                m[7] = 0.0;
                m[11] = 0.0;
                m[15] = 1.0;
                if before.iter().zip(m.iter()).any(|(a, b)| a != b)
                // by value: a mirrored -0.0 is fine (written as 0.0)
                {
                    fixed += 1;
                }
            }
            if fixed > 0 {
                self.warn(format!(
                    "{label}: {fixed} inverse bind matrices were not affine (or not finite); their last row was set to 0 0 0 1"
                ));
            }
            // A common root for the joints.
            let mut roots: Vec<usize> = Vec::new();
            let mut distinct = HashSet::new();
            for &j in &skin.joints {
                let r = h.root_of(j);
                if distinct.insert(r) {
                    roots.push(r);
                }
            }
            if roots.len() > 1 {
                let name = format!(
                    "{}_root",
                    if skin.name.is_empty() {
                        "skin"
                    } else {
                        &skin.name
                    }
                );
                self.warn(format!(
                    "{label}: its joints lie in {} separate trees; a common root node {name:?} was added above them",
                    roots.len()
                ));
                h.adopt(&roots, name);
            }
            let skeleton = match skin.skeleton {
                Some(s) if s < n && skin.joints.iter().all(|&j| h.is_ancestor_or_self(s, j)) => {
                    Some(s)
                }
                Some(s) => {
                    self.warn(format!(
                        "{label}: skeleton node {s} is not a common root of the joints; omitted"
                    ));
                    None
                }
                None => None,
            };
            plans.push(Some(SkinPlan {
                joints: skin.joints.clone(),
                ibm,
                skeleton,
                name: skin.name.clone(),
            }));
        }
        plans
    }
}

impl Builder<'_> {
    /// Writes the skins planned by [`Builder::plan_skins`] and points the nodes at them.
    pub(super) fn skins(&mut self, skins: &[Option<SkinPlan>]) -> Result<(), Error> {
        // Skins keep their indices: an invalid skin is written as a stub only if a later one is
        // valid would shift them, so instead invalid skins are never referenced and valid ones are
        // re-indexed densely below.
        let mut skin_index = vec![None; skins.len()];
        for (i, plan) in skins.iter().enumerate() {
            let Some(plan) = plan else { continue };
            let ibm = if plan.ibm.is_empty() {
                None
            } else {
                let bytes = f32_bytes(&plan.ibm);
                Some(self.accessor(
                    &bytes,
                    plan.ibm.len(),
                    ComponentType::F32,
                    Type::Mat4,
                    None,
                    None,
                )?)
            };
            let skin = json::Skin {
                extensions: None,
                extras: None,
                inverse_bind_matrices: ibm,
                joints: plan
                    .joints
                    .iter()
                    .map(|&j| u32_of(j, "nodes").map(Index::new))
                    .collect::<Result<_, _>>()?,
                name: non_empty(&plan.name),
                skeleton: plan
                    .skeleton
                    .map(|s| u32_of(s, "nodes").map(Index::new))
                    .transpose()?,
            };
            let index = push(&mut self.root.skins, skin)?;
            if let Some(slot) = skin_index.get_mut(i) {
                *slot = Some(index);
            }
        }
        for node in &mut self.root.nodes {
            if let Some(s) = node.skin {
                node.skin = skin_index.get(s.value()).copied().flatten();
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn skin_vertices_become_valid() {
        let mut s = SkinStats::default();
        let (j, w) = fix_skin_vertex([3, 3, 9, 1], [0.25, 0.25, 0.5, 0.0], 4, &mut s);
        assert_eq!(j, [3, 0, 0, 0]);
        assert_eq!(w, [1.0, 0.0, 0.0, 0.0]);
        assert_eq!((s.merged, s.out_of_range, s.renormalised), (1, 1, 1));
        let (j, w) = fix_skin_vertex([1, 2, 0, 0], [0.0, 0.0, 0.0, 0.0], 4, &mut s);
        assert_eq!((j, w), ([0; 4], [1.0, 0.0, 0.0, 0.0]));
        let (_, w) = fix_skin_vertex([0, 1, 2, 3], [0.1, 0.2, 0.3, 0.3], 4, &mut s);
        assert!((w.iter().sum::<f32>() - 1.0).abs() < 1e-6);
    }
}
