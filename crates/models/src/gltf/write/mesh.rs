//! Meshes: vertex attributes (one accessor each, shared by the mesh's primitives) and each
//! primitive's index accessor.

use super::buffer::{f32_bytes, Chunk};
use super::indices::{self, PrimIndices};
use super::material::TextureUse;
use super::skin::SkinPlan;
use super::tangents::generate_tangents;
use super::{extras, floats, label, non_empty, push, u32_of, Builder};
use crate::gltf::Error;
use crate::scene::validate::{position_bounds, unit_tangent, Bounds};
use crate::scene::{Colors, Mesh, ValidScene, Vertices};
use gltf_json as json;
use json::accessor::{ComponentType, Type};
use json::buffer::Target;
use json::mesh::Semantic;
use json::validation::Checked::Valid;
use json::Index;
use std::borrow::Cow;
use std::collections::BTreeMap;
use std::fmt::Display;
use std::sync::Arc;

/// A mesh as written: its index and whether it carries JOINTS_0/WEIGHTS_0; `None` when it is
/// not written.
pub(super) type WrittenMesh = Option<(Index<json::Mesh>, bool)>;

/// A primitive's attributes (the same for every primitive of a mesh).
type Attributes = BTreeMap<json::validation::Checked<Semantic>, Index<json::Accessor>>;

impl<'a> Builder<'a> {
    /// Writes one mesh; `None` when nothing of it is drawable. The flag says whether it carries
    /// JOINTS_0/WEIGHTS_0 (only when some node draws it with a valid skin of `joint_count`).
    pub(super) fn mesh(
        &mut self,
        i: usize,
        mesh: &'a Mesh,
        (joint_count, bounds): (Option<usize>, Bounds),
        textured: &[TextureUse],
    ) -> Result<WrittenMesh, Error> {
        let label = label("mesh", i, &mesh.name);
        let v = &mesh.vertices;
        let n = v.positions.len();
        let total_indices: usize = mesh.primitives.iter().map(|p| p.indices.len()).sum();
        if n == 0 {
            if total_indices > 0 {
                self.warn(
                    label,
                    format!("{total_indices} indices but no vertices; not written"),
                );
            }
            return Ok(None);
        }

        // Primitives first: which survive decides whether the mesh is written at all.
        let plan = indices::plan(mesh);
        let mut needs_uv = false;
        let mut needs_tangents = false;
        for (_, material) in &plan.prims {
            if let Some(uses) = material.and_then(|m| textured.get(m)) {
                needs_uv |= uses.any;
                needs_tangents |= uses.normal_map;
            }
        }
        if plan.prims.is_empty() {
            self.warn(label, "no drawable triangles; not written");
            return Ok(None);
        }

        let mut attributes = Attributes::new();
        self.positions(v, bounds, &mut attributes)?;
        self.normals(v, needs_tangents.then_some(&plan), &mut attributes)?;
        self.uvs(&label, v, needs_uv, &mut attributes)?;
        self.colors(v, &mut attributes)?;
        let skinned = self.skinning(&label, v, joint_count, &mut attributes)?;
        let primitives = self.primitives(&plan, n, &attributes)?;
        let index = push(
            &mut self.root.meshes,
            json::Mesh {
                extensions: None,
                extras: extras(&mesh.extras)?,
                name: non_empty(&mesh.name),
                primitives,
                weights: None,
            },
        )?;
        Ok(Some((index, skinned)))
    }

    /// `POSITION`, with `min`/`max` (a glTF-only choice the validator asks for), the `bounds`
    /// validation found.
    fn positions(
        &mut self,
        v: &'a Vertices,
        (min, max): Bounds,
        attributes: &mut Attributes,
    ) -> Result<(), Error> {
        let acc = self.accessor(
            Chunk::Bytes(f32_bytes(&v.positions)),
            v.positions.len(),
            ComponentType::F32,
            Type::Vec3,
            Some(Target::ArrayBuffer),
            Some((floats(&min), floats(&max))),
        )?;
        attributes.insert(Valid(Semantic::Positions), acc);
        Ok(())
    }

    /// `NORMAL` and `TANGENT` (only with `NORMAL`, as validation left them); `tangent_plan`
    /// when a normal map needs tangents the source lacks: they are generated over its
    /// triangles (a glTF-only choice, so that viewers need not make up their own tangent space).
    fn normals(
        &mut self,
        v: &'a Vertices,
        tangent_plan: Option<&indices::Plan>,
        attributes: &mut Attributes,
    ) -> Result<(), Error> {
        let n = v.positions.len();
        let Some(normals) = v.normals.as_deref() else {
            return Ok(());
        };
        let acc = self.accessor(
            Chunk::Bytes(f32_bytes(normals)),
            n,
            ComponentType::F32,
            Type::Vec3,
            Some(Target::ArrayBuffer),
            None,
        )?;
        attributes.insert(Valid(Semantic::Normals), acc);
        let generated = match (&v.tangents, v.uv0.as_deref(), tangent_plan) {
            (None, Some(uv), Some(plan)) if uv.len() == n => {
                let triangles = plan.triangles().into_iter();
                let tangents = generate_tangents(&v.positions, normals, uv, triangles);
                // As validation would: unit length, w ±1 (never zero: none is warned).
                let mut zero = 0usize;
                let fixed: Vec<[f32; 4]> = tangents
                    .iter()
                    .map(|&t| unit_tangent(t, &mut zero))
                    .collect();
                Some(fixed)
            }
            _ => None,
        };
        let tangents = match (v.tangents.as_deref(), generated) {
            (Some(t), _) => Some(Chunk::Bytes(f32_bytes(t))),
            (None, Some(g)) => Some(Chunk::owned(f32_bytes(&g))),
            (None, None) => None,
        };
        if let Some(tangents) = tangents {
            let acc = self.accessor(
                tangents,
                n,
                ComponentType::F32,
                Type::Vec4,
                Some(Target::ArrayBuffer),
                None,
            )?;
            attributes.insert(Valid(Semantic::Tangents), acc);
        }
        Ok(())
    }

    /// `TEXCOORD_0` and `TEXCOORD_1`. A glTF-only choice: a mesh with a second UV set but no
    /// first, or drawn with a textured material, gets a `TEXCOORD_0` of zeros (with a warning).
    fn uvs(
        &mut self,
        label: &dyn Display,
        v: &'a Vertices,
        needs_uv: bool,
        attributes: &mut Attributes,
    ) -> Result<(), Error> {
        let n = v.positions.len();
        let uv1 = v.uv1.as_deref();
        let uv0 = match v.uv0.as_deref() {
            Some(uv) => Some(Chunk::Bytes(f32_bytes(uv))),
            None if uv1.is_some() || needs_uv => {
                self.warn(
                    label,
                    format!(
                        "{} but no first UV set; TEXCOORD_0 written as zeros",
                        if uv1.is_some() {
                            "a second UV set"
                        } else {
                            "a textured material"
                        }
                    ),
                );
                // 0.0f32 is four zero bytes.
                Some(Chunk::Zeros(n.saturating_mul(8)))
            }
            None => None,
        };
        let uv1 = uv1.map(|uv| Chunk::Bytes(f32_bytes(uv)));
        for (set, uv) in [(0u32, uv0), (1, uv1)] {
            let Some(uv) = uv else { continue };
            let acc = self.accessor(
                uv,
                n,
                ComponentType::F32,
                Type::Vec2,
                Some(Target::ArrayBuffer),
                None,
            )?;
            attributes.insert(Valid(Semantic::TexCoords(set)), acc);
        }
        Ok(())
    }

    /// `COLOR_0`: normalised `u8` for colours that are bytes ([`Colors::Bytes`]: SMF and MDL
    /// colours, whose specifications ask for it; a quarter of the bytes, borrowed as they
    /// are), else floats, as the ELEM specification asks for its decimal colours.
    fn colors(&mut self, v: &'a Vertices, attributes: &mut Attributes) -> Result<(), Error> {
        if let Some(colors) = &v.colors {
            let (data, component) = match colors {
                Colors::Bytes(c) => (
                    Chunk::Bytes(Cow::Borrowed(bytemuck::cast_slice(c))),
                    (ComponentType::U8, true),
                ),
                Colors::Floats(c) => (Chunk::Bytes(f32_bytes(c)), (ComponentType::F32, false)),
            };
            let acc = self.accessor_of(
                data,
                v.positions.len(),
                component,
                Type::Vec4,
                Some(Target::ArrayBuffer),
                None,
            )?;
            attributes.insert(Valid(Semantic::Colors(0)), acc);
        }
        Ok(())
    }

    /// `JOINTS_0` and `WEIGHTS_0` when some node draws the mesh with a valid skin of
    /// `joint_count` joints; whether they were written.
    fn skinning(
        &mut self,
        label: &dyn Display,
        v: &'a Vertices,
        joint_count: Option<usize>,
        attributes: &mut Attributes,
    ) -> Result<bool, Error> {
        let n = v.positions.len();
        // Validation made them valid for the fewest joints of a skin drawing the mesh.
        let (joints, weights) = (v.joints.as_deref(), v.weights.as_deref());
        let mut skinned = false;
        match (joints, weights, joint_count) {
            (Some(js), Some(ws), Some(_)) => {
                let wide = js.iter().flatten().any(|&j| j > 255);
                let bytes: Vec<u8> = if wide {
                    js.iter().flatten().flat_map(|j| j.to_le_bytes()).collect()
                } else {
                    js.iter()
                        .flatten()
                        .map(|&j| u8::try_from(j).unwrap_or(0))
                        .collect()
                };
                let component = if wide {
                    ComponentType::U16
                } else {
                    ComponentType::U8
                };
                let acc = self.accessor(
                    Chunk::Bytes(bytes.into()),
                    n,
                    component,
                    Type::Vec4,
                    Some(Target::ArrayBuffer),
                    None,
                )?;
                attributes.insert(Valid(Semantic::Joints(0)), acc);
                let acc = self.accessor(
                    Chunk::Bytes(f32_bytes(ws)),
                    n,
                    ComponentType::F32,
                    Type::Vec4,
                    Some(Target::ArrayBuffer),
                    None,
                )?;
                attributes.insert(Valid(Semantic::Weights(0)), acc);
                skinned = true;
            }
            (Some(_), Some(_), None) => self.warn(
                label,
                "has joints and weights but no node draws it with a valid skin; skinning dropped",
            ),
            // Validation drops joints without weights and weights without joints.
            _ => {}
        }
        Ok(skinned)
    }

    /// One primitive per planned one, all over `attributes`; a shared index list is written
    /// once, at its first use.
    fn primitives(
        &mut self,
        plan: &indices::Plan,
        n: usize,
        attributes: &Attributes,
    ) -> Result<Vec<json::mesh::Primitive>, Error> {
        let prims = &plan.prims;
        let mut primitives = Vec::with_capacity(prims.len());
        let mut list_views: Vec<Option<Index<json::buffer::View>>> = vec![None; plan.lists.len()];
        let (component, size, wide) = if n <= 65_535 {
            (ComponentType::U16, 2, false)
        } else {
            (ComponentType::U32, 4, true)
        };
        for (indices, material) in prims {
            let acc = match indices {
                PrimIndices::Own { list, range } => self.accessor(
                    Chunk::Indices {
                        list: Arc::clone(list),
                        range: range.clone(),
                        wide,
                    },
                    range.len(),
                    component,
                    Type::Scalar,
                    Some(Target::ElementArrayBuffer),
                    None,
                )?,
                PrimIndices::Shared { list, range } => {
                    let view = match list_views.get(*list).copied().flatten() {
                        Some(view) => view,
                        None => {
                            let data = plan.lists.get(*list).cloned().unwrap_or_default();
                            // The whole list, but a stray index or two after its last triangle.
                            let range = 0..data.len() / 3 * 3;
                            let view = self.view(
                                Chunk::Indices {
                                    list: data,
                                    range,
                                    wide,
                                },
                                Some(Target::ElementArrayBuffer),
                            )?;
                            if let Some(slot) = list_views.get_mut(*list) {
                                *slot = Some(view);
                            }
                            view
                        }
                    };
                    self.accessor_in(
                        view,
                        range.start * size,
                        range.len(),
                        component,
                        Type::Scalar,
                    )?
                }
            };
            let material = *material;
            primitives.push(json::mesh::Primitive {
                attributes: attributes.clone(),
                extensions: None,
                extras: None,
                indices: Some(acc),
                material: material
                    .map(|m| u32_of(m, "materials").map(Index::new))
                    .transpose()?,
                mode: Valid(json::mesh::Mode::Triangles),
                targets: None,
            });
        }
        Ok(primitives)
    }
}

impl<'a> Builder<'a> {
    /// Writes every mesh; `None` for one not written, else its index and whether it carries
    /// JOINTS_0/WEIGHTS_0.
    pub(super) fn meshes(
        &mut self,
        scene: &'a ValidScene,
        skins: &[Option<SkinPlan>],
        textured: &[TextureUse],
    ) -> Result<Vec<WrittenMesh>, Error> {
        // Which valid skins each mesh is drawn with.
        let mut mesh_skins: Vec<Vec<usize>> = vec![Vec::new(); scene.meshes.len()];
        for node in &scene.nodes {
            if let (Some(m), Some(s)) = (node.mesh, node.skin) {
                if let (Some(list), Some(Some(_))) = (mesh_skins.get_mut(m), skins.get(s)) {
                    list.push(s);
                }
            }
        }
        for list in &mut mesh_skins {
            list.sort_unstable();
            list.dedup();
        }
        let mut meshes: Vec<WrittenMesh> = Vec::new();
        for (i, mesh) in scene.meshes.iter().enumerate() {
            let joint_count = mesh_skins
                .get(i)
                .into_iter()
                .flatten()
                .filter_map(|&s| skins.get(s).and_then(Option::as_ref))
                .map(|s| s.joints.len())
                .min();
            // Validation found the bounds (every mesh has them; computed again otherwise).
            let bounds = scene
                .position_bounds(i)
                .unwrap_or_else(|| position_bounds(&mesh.vertices.positions));
            meshes.push(self.mesh(i, mesh, (joint_count, bounds), textured)?);
        }
        Ok(meshes)
    }
}
