//! [`LegacyMdl`] → [`Mdl`]: the 2014 development layout in the stable layout's terms.
//!
//! The two layouts hold the same data arranged differently, so the conversion moves it and
//! invents nothing:
//!
//! * the bones of every mesh group go into the one bone array, in order, each parent index
//!   shifted by the bones of the groups before it; each keeps its local matrix (as a
//!   version-1 bone) and its rotation order;
//! * each mesh group becomes a mesh with the group's materials; each legacy mesh becomes a
//!   divided mesh with the same vertices, faces and material runs;
//! * a legacy mesh's bone palette (32 group bone indices) becomes its connectors: the leading
//!   palette entries that name a bone of the group, each with that bone's inverse global
//!   matrix as its offset (what a connector's offset is: the inverse bind matrix).
//!
//! What the stable layout cannot say is refused, never guessed: a mesh with several palettes
//! (face ranges with their own bones), a parent that is not an earlier bone of its group, a
//! weighted vertex naming a palette slot past the bones.

use crate::error::Error;
use crate::model::*;

/// An error of the conversion: the data lies in the layout that starts at byte 8.
fn refused(what: String) -> Error {
    Error::UnexpectedPart {
        offset: 8,
        what: format!("2014 development layout: {what}; it has no stable-layout equivalent"),
    }
}

impl LegacyMdl {
    /// The same model in the stable layout (version 1), as described in this module's docs.
    ///
    /// ```
    /// use mdl_format::{LegacyMdl, LegacyMeshGroup, LegacyBone, Matrix44, RotationOrder};
    /// let legacy = LegacyMdl {
    ///     version: 1,
    ///     mesh_groups: vec![LegacyMeshGroup {
    ///         bones: vec![LegacyBone {
    ///             name: "Armature".into(),
    ///             parent: -1,
    ///             rotation_order: RotationOrder::XYZ,
    ///             local: Matrix44::IDENTITY,
    ///             inverse_global: Matrix44::IDENTITY,
    ///         }],
    ///         ..LegacyMeshGroup::default()
    ///     }],
    ///     ..LegacyMdl::default()
    /// };
    /// let stable = legacy.to_stable()?;
    /// assert_eq!(stable.bones[0].name, "Armature");
    /// assert_eq!(stable.meshes.len(), 1);
    /// # Ok::<(), mdl_format::Error>(())
    /// ```
    pub fn to_stable(&self) -> Result<Mdl, Error> {
        let mut bones: Vec<Bone> = Vec::new();
        let mut meshes = Vec::with_capacity(self.mesh_groups.len());
        for (g, group) in self.mesh_groups.iter().enumerate() {
            let base = bones.len();
            for (i, b) in group.bones.iter().enumerate() {
                let parent = match usize::try_from(b.parent) {
                    _ if b.parent == -1 => -1,
                    Ok(p) if p < i => i32::try_from(base + p)
                        .map_err(|_| refused(format!("group {g}: too many bones")))?,
                    _ => {
                        return Err(refused(format!(
                            "group {g} bone {i}: parent {} is neither -1 nor an earlier bone \
                             of its group",
                            b.parent
                        )))
                    }
                };
                bones.push(Bone {
                    name: b.name.clone(),
                    parent,
                    rotation_order: b.rotation_order,
                    transform: BoneTransform::Matrix(b.local),
                });
            }
            let mut divided = Vec::with_capacity(group.meshes.len());
            for (m, mesh) in group.meshes.iter().enumerate() {
                divided.push(
                    divided_mesh(group, base, mesh)
                        .map_err(|what| refused(format!("group {g} mesh {m}: {what}")))?,
                );
            }
            meshes.push(Mesh {
                divided,
                materials: group.materials.clone(),
            });
        }
        Ok(Mdl {
            version: 1,
            bones,
            meshes,
            animation_sources: self.animation_sources.clone(),
            clips: self.clips.clone(),
        })
    }
}

/// One legacy mesh as a divided mesh; `base` is the index of the group's first bone.
fn divided_mesh(
    group: &LegacyMeshGroup,
    base: usize,
    mesh: &LegacyMesh,
) -> Result<DividedMesh, String> {
    let connectors: Vec<BoneConnector> = match mesh.bone_offsets.as_slice() {
        [] => Vec::new(),
        [palette] => palette
            .bone_indices
            .iter()
            .map_while(|&k| {
                let bone = group.bones.get(usize::from(k))?;
                let bone_index = i32::try_from(base + usize::from(k)).ok()?;
                Some(BoneConnector {
                    bone_index,
                    offset: bone.inverse_global,
                })
            })
            .collect(),
        more => {
            return Err(format!(
                "{} bone palettes (face ranges with their own bones; only one is supported)",
                more.len()
            ))
        }
    };
    for (v, vertex) in mesh.vertices.iter().enumerate() {
        for (&w, &slot) in vertex.weights.iter().zip(&vertex.bone_indices) {
            if w > 0 && usize::from(slot) >= connectors.len() {
                return Err(format!(
                    "vertex {v} is weighted to palette slot {slot}, past the {} bones the \
                     palette names",
                    connectors.len()
                ));
            }
        }
    }
    Ok(DividedMesh {
        vertices: mesh.vertices.clone(),
        faces: mesh.faces.clone(),
        material_runs: mesh.material_runs.clone(),
        connectors,
    })
}
