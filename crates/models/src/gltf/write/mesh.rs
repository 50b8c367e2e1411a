//! Meshes: vertex attributes (one accessor each, shared by the mesh's primitives) and each
//! primitive's index accessor.

use super::buffer::{f32_bytes, index_bytes};
use super::indices::{self, PrimIndices};
use super::material::TextureUse;
use super::skin::SkinPlan;
use super::skin::{fix_skin_vertex, SkinStats};
use super::tangents::{generate_tangents, unit3};
use super::{extras, floats, label, non_empty, push, u32_of, Builder};
use crate::gltf::Error;
use crate::scene::{Mesh, Scene, Vertices};
use gltf_json as json;
use json::accessor::{ComponentType, Type};
use json::buffer::Target;
use json::mesh::Semantic;
use json::validation::Checked::Valid;
use json::Index;
use std::collections::BTreeMap;

/// A primitive's attributes (the same for every primitive of a mesh).
type Attributes = BTreeMap<json::validation::Checked<Semantic>, Index<json::Accessor>>;

impl Builder<'_> {
    /// Writes one mesh; `None` when nothing of it is drawable. The flag says whether it carries
    /// JOINTS_0/WEIGHTS_0 (only when some node draws it with a valid skin of `joint_count`).
    pub(super) fn mesh(
        &mut self,
        i: usize,
        mesh: &Mesh,
        joint_count: Option<usize>,
        textured: &[TextureUse],
        material_count: usize,
    ) -> Result<Option<(Index<json::Mesh>, bool)>, Error> {
        let label = label("mesh", i, &mesh.name);
        let v = &mesh.vertices;
        let n = v.positions.len();
        let total_indices: usize = mesh.primitives.iter().map(|p| p.indices.len()).sum();
        if n == 0 {
            if total_indices > 0 {
                self.warn(format!(
                    "{label}: {total_indices} indices but no vertices; not written"
                ));
            }
            return Ok(None);
        }

        // Primitives first: which survive decides whether the mesh is written at all.
        let plan = indices::plan(&label, mesh, n, material_count, &mut self.warnings);
        let mut needs_uv = false;
        let mut needs_tangents = false;
        for (_, material) in &plan.prims {
            if let Some(uses) = material.and_then(|m| textured.get(m)) {
                needs_uv |= uses.any;
                needs_tangents |= uses.normal_map;
            }
        }
        if plan.prims.is_empty() {
            if total_indices > 0 {
                self.warn(format!("{label}: no drawable triangles; not written"));
            }
            return Ok(None);
        }

        let mut attributes = Attributes::new();
        let positions = self.positions(&label, v, &mut attributes)?;
        let tangent_plan = needs_tangents.then_some(&plan);
        self.normals(&label, v, &positions, tangent_plan, &mut attributes)?;
        self.uvs(&label, v, needs_uv, &mut attributes)?;
        self.colors(&label, v, &mut attributes)?;
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

    /// `POSITION`, non-finite coordinates set to 0, with `min`/`max`.
    fn positions(
        &mut self,
        label: &str,
        v: &Vertices,
        attributes: &mut Attributes,
    ) -> Result<Vec<[f32; 3]>, Error> {
        let n = v.positions.len();
        let mut bad = 0usize;
        let positions: Vec<[f32; 3]> = v
            .positions
            .iter()
            .map(|p| {
                if p.iter().all(|c| c.is_finite()) {
                    *p
                } else {
                    bad += 1;
                    p.map(|c| if c.is_finite() { c } else { 0.0 })
                }
            })
            .collect();
        if bad > 0 {
            self.warn(format!(
                "{label}: {bad} positions had non-finite coordinates, set to 0"
            ));
        }
        let mut min = [f32::INFINITY; 3];
        let mut max = [f32::NEG_INFINITY; 3];
        for p in &positions {
            for ((lo, hi), &v) in min.iter_mut().zip(&mut max).zip(p) {
                *lo = lo.min(v);
                *hi = hi.max(v);
            }
        }
        let acc = self.accessor(
            &f32_bytes(&positions),
            n,
            ComponentType::F32,
            Type::Vec3,
            Some(Target::ArrayBuffer),
            Some((floats(&min), floats(&max))),
        )?;
        attributes.insert(Valid(Semantic::Positions), acc);
        Ok(positions)
    }

    /// `NORMAL` and `TANGENT` (only with `NORMAL`); `tangent_plan` when a normal map needs
    /// tangents the source may lack (generated over its triangles).
    fn normals(
        &mut self,
        label: &str,
        v: &Vertices,
        positions: &[[f32; 3]],
        tangent_plan: Option<&indices::Plan>,
        attributes: &mut Attributes,
    ) -> Result<(), Error> {
        let n = v.positions.len();
        let needs_tangents = tangent_plan.is_some();
        let normals = self.same_len(label, "normals", v.normals.as_deref(), n);
        if let Some(normals) = normals {
            let mut zero = 0usize;
            let fixed: Vec<[f32; 3]> = normals
                .iter()
                .map(|&nv| {
                    unit3(nv).unwrap_or_else(|| {
                        zero += 1;
                        [0.0, 1.0, 0.0]
                    })
                })
                .collect();
            if zero > 0 {
                self.warn(format!(
                    "{label}: {zero} normals were zero or not finite; set to (0, 1, 0)"
                ));
            }
            let acc = self.accessor(
                &f32_bytes(&fixed),
                n,
                ComponentType::F32,
                Type::Vec3,
                Some(Target::ArrayBuffer),
                None,
            )?;
            attributes.insert(Valid(Semantic::Normals), acc);
            // TANGENT (only with NORMAL); generated for a normal map when the source has none,
            // so that viewers need not make up their own tangent space.
            let given = self.same_len(label, "tangents", v.tangents.as_deref(), n);
            let generated = match (given, v.uv0.as_deref()) {
                (None, Some(uv)) if needs_tangents && uv.len() == n => {
                    let triangles = tangent_plan
                        .map(indices::Plan::triangles)
                        .unwrap_or_default();
                    let triangles = triangles.into_iter();
                    Some(generate_tangents(&positions, &fixed, uv, triangles))
                }
                _ => None,
            };
            if let Some(tangents) = given.or(generated.as_deref()) {
                let mut zero = 0usize;
                let fixed: Vec<[f32; 4]> = tangents
                    .iter()
                    .map(|t| {
                        let [x, y, z] = unit3([t[0], t[1], t[2]]).unwrap_or_else(|| {
                            zero += 1;
                            [1.0, 0.0, 0.0]
                        });
                        [x, y, z, if t[3] < 0.0 { -1.0 } else { 1.0 }]
                    })
                    .collect();
                if zero > 0 {
                    self.warn(format!(
                        "{label}: {zero} tangents were zero or not finite; set to (1, 0, 0)"
                    ));
                }
                let acc = self.accessor(
                    &f32_bytes(&fixed),
                    n,
                    ComponentType::F32,
                    Type::Vec4,
                    Some(Target::ArrayBuffer),
                    None,
                )?;
                attributes.insert(Valid(Semantic::Tangents), acc);
            }
        } else if v.tangents.is_some() {
            self.warn(format!(
                "{label}: tangents without normals cannot be written in glTF; dropped"
            ));
        }
        Ok(())
    }

    /// `TEXCOORD_0` and `TEXCOORD_1`.
    fn uvs(
        &mut self,
        label: &str,
        v: &Vertices,
        needs_uv: bool,
        attributes: &mut Attributes,
    ) -> Result<(), Error> {
        let n = v.positions.len();
        // TEXCOORD_0 / TEXCOORD_1.
        let uv0 = self.same_len(label, "uv0", v.uv0.as_deref(), n);
        let uv1 = self.same_len(label, "uv1", v.uv1.as_deref(), n);
        let uv0: Option<Vec<[f32; 2]>> = match uv0 {
            Some(uv) => Some(uv.to_vec()),
            None if uv1.is_some() || needs_uv => {
                self.warn(format!(
                    "{label}: {} but no first UV set; TEXCOORD_0 written as zeros",
                    if uv1.is_some() {
                        "a second UV set"
                    } else {
                        "a textured material"
                    }
                ));
                Some(vec![[0.0; 2]; n])
            }
            None => None,
        };
        for (set, uv) in [(0u32, uv0.as_deref()), (1, uv1)] {
            let Some(uv) = uv else { continue };
            let mut bad = 0usize;
            let fixed: Vec<[f32; 2]> = uv
                .iter()
                .map(|t| {
                    if t.iter().all(|c| c.is_finite()) {
                        *t
                    } else {
                        bad += 1;
                        t.map(|c| if c.is_finite() { c } else { 0.0 })
                    }
                })
                .collect();
            if bad > 0 {
                self.warn(format!(
                    "{label}: {bad} texture coordinates of set {set} were not finite; set to 0"
                ));
            }
            let acc = self.accessor(
                &f32_bytes(&fixed),
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

    /// `COLOR_0`.
    fn colors(
        &mut self,
        label: &str,
        v: &Vertices,
        attributes: &mut Attributes,
    ) -> Result<(), Error> {
        let n = v.positions.len();
        if let Some(colors) = self.same_len(label, "colours", v.colors.as_deref(), n) {
            let mut clamped = 0usize;
            let fixed: Vec<[f32; 4]> = colors
                .iter()
                .map(|c| {
                    let f = c.map(|x| {
                        if x.is_finite() {
                            x.clamp(0.0, 1.0)
                        } else {
                            1.0
                        }
                    });
                    if f != *c {
                        clamped += 1;
                    }
                    f
                })
                .collect();
            if clamped > 0 {
                self.warn(format!(
                    "{label}: {clamped} vertex colours outside 0..1 (or not finite) clamped"
                ));
            }
            let acc = self.accessor(
                &f32_bytes(&fixed),
                n,
                ComponentType::F32,
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
        label: &str,
        v: &Vertices,
        joint_count: Option<usize>,
        attributes: &mut Attributes,
    ) -> Result<bool, Error> {
        let n = v.positions.len();
        let joints = self.same_len(label, "joints", v.joints.as_deref(), n);
        let weights = self.same_len(label, "weights", v.weights.as_deref(), n);
        let mut skinned = false;
        match (joints, weights, joint_count) {
            (Some(joints), Some(weights), Some(count)) => {
                let mut stats = SkinStats::default();
                let mut js = Vec::with_capacity(n);
                let mut ws = Vec::with_capacity(n);
                for (j, w) in joints.iter().zip(weights) {
                    let (j, w) = fix_skin_vertex(*j, *w, count, &mut stats);
                    js.push(j);
                    ws.push(w);
                }
                stats.report(label, count, &mut self.warnings);
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
                    &bytes,
                    n,
                    component,
                    Type::Vec4,
                    Some(Target::ArrayBuffer),
                    None,
                )?;
                attributes.insert(Valid(Semantic::Joints(0)), acc);
                let acc = self.accessor(
                    &f32_bytes(&ws),
                    n,
                    ComponentType::F32,
                    Type::Vec4,
                    Some(Target::ArrayBuffer),
                    None,
                )?;
                attributes.insert(Valid(Semantic::Weights(0)), acc);
                skinned = true;
            }
            (Some(_), Some(_), None) => self.warn(format!(
                "{label}: has joints and weights but no node draws it with a valid skin; skinning dropped"
            )),
            (Some(_), None, _) | (None, Some(_), _) => self.warn(format!(
                "{label}: joints without weights (or weights without joints); skinning dropped"
            )),
            (None, None, _) => {}
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
        let (component, size) = if n <= 65_535 {
            (ComponentType::U16, 2)
        } else {
            (ComponentType::U32, 4)
        };
        for (indices, material) in prims {
            let acc = match indices {
                PrimIndices::Own(indices) => self.accessor(
                    &index_bytes(indices, component),
                    indices.len(),
                    component,
                    Type::Scalar,
                    Some(Target::ElementArrayBuffer),
                    None,
                )?,
                PrimIndices::Shared { list, range } => {
                    let view = match list_views.get(*list).copied().flatten() {
                        Some(view) => view,
                        None => {
                            let data = plan.lists.get(*list).map_or(&[][..], |l| l.as_slice());
                            let view = self.view(
                                &index_bytes(data, component),
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

    /// `attr` when it has one entry per vertex; otherwise `None` and a warning.
    pub(super) fn same_len<'s, T>(
        &mut self,
        label: &str,
        what: &str,
        attr: Option<&'s [T]>,
        n: usize,
    ) -> Option<&'s [T]> {
        let attr = attr?;
        if attr.len() == n {
            Some(attr)
        } else {
            self.warn(format!(
                "{label}: {} {what} for {n} vertices; {what} dropped",
                attr.len()
            ));
            None
        }
    }
}

impl Builder<'_> {
    /// Writes every mesh; `None` for one not written, else its index and whether it carries
    /// JOINTS_0/WEIGHTS_0.
    pub(super) fn meshes(
        &mut self,
        scene: &Scene,
        skins: &[Option<SkinPlan>],
        textured: &[TextureUse],
    ) -> Result<Vec<Option<(Index<json::Mesh>, bool)>>, Error> {
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
        let mut meshes: Vec<Option<(Index<json::Mesh>, bool)>> = Vec::new();
        for (i, mesh) in scene.meshes.iter().enumerate() {
            let joint_count = mesh_skins
                .get(i)
                .into_iter()
                .flatten()
                .filter_map(|&s| skins.get(s).and_then(Option::as_ref))
                .map(|s| s.joints.len())
                .min();
            meshes.push(self.mesh(i, mesh, joint_count, textured, scene.materials.len())?);
        }
        Ok(meshes)
    }
}
