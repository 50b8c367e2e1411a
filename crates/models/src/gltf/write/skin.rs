//! Skins: which are written, their inverse bind matrices and common roots, and each vertex's
//! joints and weights.

use super::buffer::{f32_bytes, Chunk};
use super::hierarchy::Hierarchy;
use super::{label, non_empty, push, u32_of, Builder};
use crate::gltf::Error;
use crate::scene::Scene;
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

impl Builder<'_> {
    /// Validates every skin; may add a synthetic common root. `None` for a skin not written.
    pub(super) fn plan_skins(&mut self, scene: &Scene, h: &mut Hierarchy) -> Vec<Option<SkinPlan>> {
        let n = scene.nodes.len();
        let mut plans = Vec::with_capacity(scene.skins.len());
        for (i, skin) in scene.skins.iter().enumerate() {
            let label = label("skin", i, &skin.name);
            if let Some(why) = crate::scene::validate::why_unusable(skin, n) {
                self.warn(label, format!("{why}; skin not written"));
                plans.push(None);
                continue;
            }
            // Validation gave the skin one affine inverse bind matrix per joint (or none).
            let ibm = skin.inverse_bind_matrices.clone();
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
                self.warn(label, format!(
                    "its joints lie in {} separate trees; a common root node {name:?} was added above them",
                    roots.len()
                ));
                h.adopt(&roots, name);
            }
            let skeleton = match skin.skeleton {
                Some(s) if s < n && skin.joints.iter().all(|&j| h.is_ancestor_or_self(s, j)) => {
                    Some(s)
                }
                Some(s) => {
                    self.warn(
                        label,
                        format!("skeleton node {s} is not a common root of the joints; omitted"),
                    );
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
                Some(self.accessor(
                    Chunk::owned(f32_bytes(&plan.ibm)),
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
