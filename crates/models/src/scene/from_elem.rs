//! Elfreina `.elem` → [`Scene`], following `elem.md` §4 ("Semantics for a glTF
//! converter").
//!
//! * **Handedness.** ELEM data is Direct3D, left-handed (assumed), Y up, clockwise front faces.
//!   Positions and normals are mirrored across the XY plane (`z → −z`) and every triangle's
//!   winding is reversed. `Setting/IsRightHand=True` (a Keystone-only key) skips both, with a
//!   warning (elem.md §7).
//! * **Matrices** (`InitPostureMatrix`, `OffsetMatrices`) are row-major Direct3D row-vector
//!   matrices (translation in M41–M43): their 16 values, in file order, are already glTF's
//!   column-major array; the z mirror is then [`mirror_z_matrix`].
//! * **Faces** are polygons of any size: each is split as a fan `(0, k, k+1)` over its corner list,
//!   then reversed to `(0, k+1, k)`. One primitive per (Mesh, material), in order of first use.
//! * **Colours** are `a:r:g:b` in the file and become RGBA. Material `Diffuse` → base colour
//!   (alpha < 1 → blend mode), `Emissive` → emissive, `Specular` + `SpecularSharpness` →
//!   [`Material::specular`], `Ambient` → `extras.ambient` (RGBA). Per-vertex `Diffuse` →
//!   `COLOR_0`.
//! * **UV sets.** The first two non-empty sets (`TextureUV`/`Texture1UV`, `Texture2UV`, …) become
//!   `TEXCOORD_0` and `TEXCOORD_1`, unchanged (both top-left origin); further sets are dropped
//!   with a warning.
//! * **Nodes.** Every `HierarchyList` `Node` becomes a node whose local transform is its
//!   converted `InitPostureMatrix` (as TRS when it decomposes exactly, else as a matrix unless
//!   the node is animated).
//! * **Skinning.** A container with bones and a Mesh with a `BlendList` gives a skin: joint `i` is
//!   the node named `BoneNames[i]`, its inverse bind matrix the converted `OffsetMatrices[i]`.
//!   Influences are gathered over every `BlendPart`; at most four are kept per vertex (the
//!   largest), then renormalised ([`normalize_weights`]), with a warning. A skinned mesh's node is a
//!   scene root with no transform (glTF ignores it). A rigid mesh whose `RenderingMesh` names
//!   exactly one hierarchy node hangs under that node.
//! * **Animation.** Key times are fractions of `AnimationTime` (ms): seconds =
//!   `TimeKey × AnimationTime / 1000`. Keys are relative to the initial posture: the animated
//!   local transform is `InitPosture · T(t) · R(q) · S(s)` (column vectors), composed per key and
//!   decomposed into TRS (exact unless `InitPosture` has non-uniform scale; a residual is
//!   reported). Rotation keys are D3DX quaternions `x:y:z:w` and become
//!   [`mirror_z_quat`]`(q)`. `FrameParSecond`, `TransitionTime`, `Priority` and `Loop` go to the
//!   animation's `extras`; `UVAnimation` (no glTF core equivalent) goes to `extras.uv_animation`
//!   with a warning.
//! * Out-of-range indices, non-finite matrices and unknown scopes or keys are repaired or skipped,
//!   each with a warning naming where. Vertex data is converted as written: non-finite positions
//!   and UVs, zero or non-finite normals and colours outside 0..1 are repaired by
//!   [`validate`](fn@super::validate), once, with its warning; so are material colour factors
//!   (the file's rows stay in `extras.elem_material` for the way back).

use super::to_elem::hint;
use super::{
    align_quat, compose, decompose, invert, mirror_z, mirror_z_matrix, mirror_z_quat, mul,
    normalize_quat, normalize_weights, AlphaMode, Animation, Channel, ChannelPath, Colors,
    Conversion, Interpolation, Keys, Material, Mesh, Node, Primitive, Scene, SceneOptions,
    SceneWarning, Skin, SlotOrder, Transform, Vertices, IDENTITY,
};
use crate::scene::Array;
use elfreina_elem as elem;
use serde_json::{json, Map, Value};
use std::collections::HashMap;

/// Relative tolerance of a TRS decomposition before it counts as inexact.
const DECOMPOSE_TOLERANCE: f32 = 1e-4;

struct Ctx {
    warnings: Vec<SceneWarning>,
    /// Convert from left-handed (the default); false when `IsRightHand=True`.
    mirror: bool,
}

impl Ctx {
    /// The one place this module makes a warning: `{place}: {message}`.
    fn warn(&mut self, place: &str, message: impl Into<String>) {
        self.warnings.push(SceneWarning::other(place, message));
    }

    /// Warns about unknown items kept by the reader but not representable in glTF.
    fn unknown(&mut self, items: &[elem::Item], place: &str) {
        if items.is_empty() {
            return;
        }
        let names: Vec<String> = items
            .iter()
            .map(|i| match i.name() {
                "" => format!("data line {}", i.pos().line),
                n => n.to_owned(),
            })
            .collect();
        self.warn(
            place,
            format!("unknown items not converted: {}", names.join(", ")),
        );
    }

    fn point(&self, p: [f32; 3]) -> [f32; 3] {
        if self.mirror {
            mirror_z(p)
        } else {
            p
        }
    }

    fn quat(&self, q: [f32; 4]) -> [f32; 4] {
        if self.mirror {
            mirror_z_quat(q)
        } else {
            q
        }
    }

    /// A file matrix (row-major, row vectors) as a glTF column-major matrix, or `None` when a
    /// value is not finite.
    fn matrix(&self, m: &elem::Matrix) -> Option<[f32; 16]> {
        // `+ 0.0` turns −0 into +0, so that an affine last row is exactly `0 0 0 1` bitwise.
        let out: [f32; 16] = m.map(|v| v as f32 + 0.0);
        if !out.iter().all(|v| v.is_finite()) {
            return None;
        }
        Some(if self.mirror {
            mirror_z_matrix(out).map(|v| v + 0.0)
        } else {
            out
        })
    }
}

fn f3(v: &[f64; 3]) -> [f32; 3] {
    v.map(|x| x as f32)
}

fn rgba(c: &elem::Argb) -> [f32; 4] {
    [c[1] as f32, c[2] as f32, c[3] as f32, c[0] as f32]
}

fn is_exact(m: &[f32; 16], error: f32) -> bool {
    let scale = m.iter().fold(1.0f32, |a, v| a.max(v.abs()));
    error <= DECOMPOSE_TOLERANCE * scale
}

pub(crate) fn convert(doc: &elem::Elem, options: &SceneOptions) -> Conversion {
    let _ = options;
    let mut cx = Ctx {
        warnings: Vec::new(),
        mirror: doc.setting.is_right_hand != Some(true),
    };
    if !cx.mirror {
        cx.warn(
            "Setting/IsRightHand=True (a Keystone-only key of unverified meaning)",
            "the data is taken as right-handed, so z is not mirrored and the winding is kept",
        );
    }
    let mut scene = Scene::default();
    scene_extras(doc, &mut scene, &mut cx);

    let nodes = hierarchy(doc, &mut scene, &mut cx);
    let material_base = materials(doc, &mut scene, &mut cx);
    meshes(doc, &mut scene, &nodes, &material_base, &mut cx);
    animations(doc, &mut scene, &nodes, &mut cx);

    Conversion {
        scene,
        warnings: cx.warnings,
    }
}

fn scene_extras(doc: &elem::Elem, scene: &mut Scene, cx: &mut Ctx) {
    let s = &doc.setting;
    let mut setting = Map::new();
    if let Some(v) = s.soft_version {
        setting.insert("elfreina_soft_version".into(), json!(v));
    }
    if let Some(v) = s.beta_version {
        setting.insert("elfreina_beta_version".into(), json!(v));
    }
    if let Some(v) = &s.load_type {
        setting.insert("load_type".into(), json!(v));
    }
    if let Some(v) = s.is_right_hand {
        setting.insert("is_right_hand".into(), json!(v));
    }
    scene
        .extras
        .insert("source_format".into(), Value::from("elem"));
    scene
        .extras
        .insert("elem_file_version".into(), Value::from(doc.version.clone()));
    if !setting.is_empty() {
        scene
            .extras
            .insert("elem_setting".into(), Value::Object(setting));
    }
    if !doc.extra.is_empty() {
        // Kept as ELEM text (the writer's), which the way back reads again.
        let only = elem::Elem {
            extra: doc.extra.clone(),
            ..elem::Elem::default()
        };
        match only.to_text() {
            Ok(text) => {
                scene
                    .extras
                    .insert("elem_unknown".into(), Value::from(text));
                cx.warn(
                    "top level",
                    format!(
                        "{} unknown items kept only in extras.elem_unknown",
                        doc.extra.len()
                    ),
                );
            }
            Err(_) => cx.unknown(&doc.extra, "top level"),
        }
    }
    cx.unknown(&s.extra, "Setting");
    if let Some(md) = &doc.mesh_data {
        cx.unknown(&md.extra, "MeshDataList");
    }
    cx.unknown(&doc.hierarchy.extra, "HierarchyList");
    if let Some(r) = &doc.rendering {
        cx.unknown(&r.extra, "RenderingMeshList");
        for m in &r.meshes {
            cx.unknown(&m.extra, "RenderingMesh");
        }
    }
    if let Some(a) = &doc.animation {
        cx.unknown(&a.extra, "AnimationList");
    }
}

/// The hierarchy nodes, their names and rest transforms.
struct Nodes {
    /// Scene node index of each hierarchy node, by name (first node of that name).
    by_name: HashMap<String, usize>,
    /// Converted `InitPostureMatrix` of each scene node (identity for nodes added later).
    rest: Vec<[f32; 16]>,
    /// Parent of each scene node.
    parent: Vec<Option<usize>>,
    /// World rest matrix and tree root of each scene node, computed once in [`hierarchy`] from
    /// the parent's (a parent always comes first): no walk to the root per bone, which was
    /// quadratic on long chains.
    world: Vec<[f32; 16]>,
    root: Vec<usize>,
}

impl Nodes {
    fn world(&self, node: usize) -> [f32; 16] {
        self.world.get(node).copied().unwrap_or(IDENTITY)
    }

    fn root_of(&self, node: usize) -> usize {
        self.root.get(node).copied().unwrap_or(node)
    }

    /// Appends a node of rest matrix `rest` under `parent` (an earlier node, else a root).
    fn push(&mut self, rest: [f32; 16], parent: Option<usize>) {
        let index = self.rest.len();
        let earlier = parent.filter(|&p| p < index);
        let (world, root) = match earlier {
            Some(p) => (mul(self.world(p), rest), self.root_of(p)),
            None => (rest, index),
        };
        self.rest.push(rest);
        self.parent.push(parent);
        self.world.push(world);
        self.root.push(root);
    }
}

fn hierarchy(doc: &elem::Elem, scene: &mut Scene, cx: &mut Ctx) -> Nodes {
    // Names of the nodes that animations target: those need TRS transforms.
    let animated: std::collections::HashSet<&str> = doc
        .animations()
        .iter()
        .flat_map(|a| a.bone_animation.parts.iter())
        .filter_map(|p| p.node_name.as_deref())
        .collect();
    let mut nodes = Nodes {
        by_name: HashMap::new(),
        rest: Vec::new(),
        parent: Vec::new(),
        world: Vec::new(),
        root: Vec::new(),
    };
    let mut duplicates = Vec::new();
    for (i, (parent, node)) in doc.hierarchy.flatten().into_iter().enumerate() {
        let name = node.name.clone().unwrap_or_else(|| format!("node_{i}"));
        let rest = match &node.init_posture {
            None => IDENTITY,
            Some(m) => cx.matrix(m).unwrap_or_else(|| {
                cx.warn(
                    &format!("HierarchyList node {name:?}"),
                    "InitPostureMatrix has a non-finite value; \
                     identity used",
                );
                IDENTITY
            }),
        };
        let (t, q, s, err) = decompose(rest);
        let transform = if is_exact(&rest, err) {
            Transform::Trs {
                translation: t,
                rotation: q,
                scale: s,
            }
        } else if animated.contains(name.as_str()) {
            cx.warn(
                &format!("HierarchyList node {name:?}"),
                format!(
                    "InitPostureMatrix is not a TRS transform \
                 (residual {err}) but the node is animated; its nearest TRS is used"
                ),
            );
            Transform::Trs {
                translation: t,
                rotation: q,
                scale: s,
            }
        } else {
            Transform::Matrix(rest)
        };
        cx.unknown(&node.extra, &format!("HierarchyList node {name:?}"));
        let index = scene.nodes.len();
        if nodes.by_name.contains_key(&name) {
            duplicates.push(name.clone());
        } else {
            nodes.by_name.insert(name.clone(), index);
        }
        let mut extras = Map::new();
        // The file's exact matrix (or its absence): the way back uses it while it agrees.
        extras.insert(
            "elem_init_posture".into(),
            node.init_posture
                .as_ref()
                .map_or(Value::Null, |m| hint::row(m)),
        );
        scene.nodes.push(Node {
            name,
            transform,
            extras,
            ..Node::default()
        });
        nodes.push(rest, parent);
        match parent.and_then(|p| scene.nodes.get_mut(p)) {
            Some(p) => p.children.push(index),
            None => scene.roots.push(index),
        }
    }
    if !duplicates.is_empty() {
        cx.warn(
            "HierarchyList",
            format!(
                "node names used more than once ({}); bones, meshes and animation \
             parts refer to the first node of each name",
                duplicates.join(", ")
            ),
        );
    }
    nodes
}

/// Converts every container's materials; returns the index of each container's first material.
fn materials(doc: &elem::Elem, scene: &mut Scene, cx: &mut Ctx) -> Vec<usize> {
    let mut bases = Vec::new();
    for (ci, c) in doc.containers().iter().enumerate() {
        bases.push(scene.materials.len());
        let cname = c.name.clone().unwrap_or_else(|| format!("container_{ci}"));
        if let Some(ms) = &c.materials {
            cx.unknown(&ms.extra, &format!("container {cname:?} Materials"));
        }
        for (mi, m) in c.material_list().iter().enumerate() {
            let name = m.name.clone().unwrap_or_else(|| format!("material_{mi}"));
            let place = format!("container {cname:?} material {name:?}");
            let mut out = Material {
                name: name.clone(),
                ..Material::default()
            };
            if let Some(d) = &m.diffuse {
                // As written: `scene::validate` clamps colour factors, with its warning (the
                // file's row is in `elem_material` for the way back).
                out.base_color = rgba(d);
                if out.base_color[3] < 1.0 {
                    out.alpha_mode = AlphaMode::Blend;
                }
            }
            if let Some(e) = &m.emissive {
                out.emissive = [e[1] as f32, e[2] as f32, e[3] as f32];
                if e[0] != 1.0 {
                    out.extras.insert("emissive_alpha".into(), json!(e[0]));
                }
            }
            if m.specular.is_some() || m.specular_sharpness.is_some() {
                let spec = m.specular.as_ref().map_or([0.0, 0.0, 0.0, 1.0], rgba);
                let power = m.specular_sharpness.unwrap_or(0.0) as f32;
                out.specular = Some((spec, power));
            }
            if let Some(a) = &m.ambient {
                out.extras.insert("ambient".into(), json!(rgba(a)));
            }
            if let Some(tex) = m.texture_filename.as_deref().filter(|t| !t.is_empty()) {
                // As written: the glTF writer's one texture-path policy resolves it.
                out.color_texture = Some(tex.to_owned());
            }
            cx.unknown(&m.extra, &place);
            out.extras
                .insert("elem_container".into(), Value::from(cname.clone()));
            out.extras.insert("elem_material".into(), kept_material(m));
            scene.materials.push(out);
        }
    }
    bases
}

fn meshes(
    doc: &elem::Elem,
    scene: &mut Scene,
    nodes: &Nodes,
    material_base: &[usize],
    cx: &mut Ctx,
) {
    for (ci, c) in doc.containers().iter().enumerate() {
        let cname = c.name.clone().unwrap_or_else(|| format!("container_{ci}"));
        cx.unknown(&c.extra, &format!("container {cname:?}"));
        let rendering = doc
            .rendering_meshes()
            .iter()
            .find(|r| r.name.as_deref() == Some(cname.as_str()));
        let base = material_base.get(ci).copied().unwrap_or(0);
        let material_count = c.material_list().len();
        let mut skin: Option<usize> = None;
        for (mi, m) in c.meshes.iter().enumerate() {
            let mname = m
                .name
                .clone()
                .unwrap_or_else(|| format!("{cname}_mesh_{mi}"));
            let place = format!("container {cname:?} mesh {mname:?}");
            let mut mesh = Mesh {
                name: mname.clone(),
                ..Mesh::default()
            };
            mesh.extras
                .insert("elem_container".into(), Value::from(cname.clone()));
            if !c.vertex_format.is_empty() {
                mesh.extras
                    .insert("elem_vertex_format".into(), json!(c.vertex_format));
            }
            cx.unknown(&m.extra, &place);
            if m.blends.is_some() || m.blend_indices.is_some() {
                cx.warn(
                    &place,
                    "Blends/BlendIndices scopes (undefined by the specification) not \
                     converted",
                );
            }
            let primitives = triangles(m, base, material_count, &place, cx);
            if primitives.is_empty() {
                cx.warn(&place, "no usable faces; mesh not converted");
                continue;
            }
            mesh.vertices = vertices(m, &place, cx);
            kept_mesh(m, c, material_count, &mut scene.blobs, &mut mesh.extras);
            mesh.extras.insert(
                "elem_rendering".into(),
                // `false`: none (not `null`, which Blender drops, `scene::lenient`).
                rendering.map_or(Value::Bool(false), |r| json!(r.hierarchy_names)),
            );
            mesh.primitives = primitives;

            let skinned = !m.blend_list.parts.is_empty();
            let mut node = Node {
                name: mname.clone(),
                ..Node::default()
            };
            node.extras
                .insert("elem_mesh_node".into(), Value::Bool(true));
            let mut parent = None;
            if skinned && c.bone_count() == 0 {
                cx.warn(
                    &place,
                    "BlendList present but the container has no bones; mesh not skinned",
                );
            }
            if skinned && c.bone_count() > 0 {
                let s = match skin {
                    Some(s) => s,
                    None => {
                        let s = make_skin(c, &cname, scene, nodes, cx);
                        skin = Some(s);
                        s
                    }
                };
                let (joints, weights) = skin_vertices(m, c, &place, cx);
                mesh.vertices.joints = Some(joints.into());
                mesh.vertices.weights = Some(weights.into());
                node.skin = Some(s);
                mesh.extras.insert(
                    "elem_offset_matrices".into(),
                    Value::Array(c.offset_matrices.iter().map(|o| hint::row(o)).collect()),
                );
            } else if let Some(r) = rendering {
                match r.hierarchy_names.as_slice() {
                    [one] => match nodes.by_name.get(one) {
                        Some(&n) => parent = Some(n),
                        None => cx.warn(
                            &place,
                            format!(
                                "RenderingMesh names hierarchy node {one:?}, which does not \
                             exist; mesh placed at the scene root"
                            ),
                        ),
                    },
                    [] => {}
                    names => {
                        if c.bone_count() > 0 {
                            cx.warn(
                                &place,
                                "the container has bones but this mesh has no \
                                 BlendList; drawn unskinned at the scene root",
                            );
                        }
                        node.extras
                            .insert("elem_hierarchy_names".into(), json!(names));
                    }
                }
            }
            let mesh_index = scene.meshes.len();
            scene.meshes.push(mesh);
            node.mesh = Some(mesh_index);
            let node_index = scene.nodes.len();
            scene.nodes.push(node);
            match parent.and_then(|p| scene.nodes.get_mut(p)) {
                Some(p) => p.children.push(node_index),
                None => scene.roots.push(node_index),
            }
        }
    }
}

/// The faces of a mesh as triangle lists (CCW), one per material in order of first use.
fn triangles(
    m: &elem::Mesh,
    base: usize,
    material_count: usize,
    place: &str,
    cx: &mut Ctx,
) -> Vec<Primitive> {
    let vcount = m.vertex_count();
    // One list per material in order of first use; the map finds a material's list in O(1).
    let mut lists: Vec<(Option<usize>, Vec<u32>)> = Vec::new();
    let mut slot_of: HashMap<Option<usize>, usize> = HashMap::new();
    let (mut bad_faces, mut bad_material) = (0usize, 0usize);
    let mut expected = m.face_indices.len();
    // Face f's material index is the attributes' f-th value (one step per face, bad faces
    // included); the last material's list is remembered, since materials come in runs.
    let mut attributes = m.attributes.iter();
    let mut last: Option<(Option<usize>, usize)> = None;
    for face in m.faces() {
        let attribute = attributes.next();
        expected = expected.saturating_sub(face.len());
        if face.len() < 3 || face.iter().any(|&i| i as usize >= vcount) {
            bad_faces += 1;
            continue;
        }
        let material = match attribute {
            Some(a) if (a as usize) < material_count => Some(base + a as usize),
            Some(_) => {
                bad_material += 1;
                None
            }
            None => None,
        };
        let slot = match last {
            Some((mat, slot)) if mat == material => slot,
            _ => *slot_of.entry(material).or_insert_with(|| {
                lists.push((material, Vec::new()));
                lists.len() - 1
            }),
        };
        last = Some((material, slot));
        let Some((_, indices)) = lists.get_mut(slot) else {
            continue;
        };
        let Some((&c0, rest)) = face.split_first() else {
            continue;
        };
        for pair in rest.windows(2) {
            let &[a, b] = pair else { continue };
            if cx.mirror {
                indices.extend_from_slice(&[c0, b, a]);
            } else {
                indices.extend_from_slice(&[c0, a, b]);
            }
        }
    }
    let prims: Vec<Primitive> = lists
        .into_iter()
        .map(|(material, indices)| Primitive {
            indices: indices.into(),
            material,
        })
        .collect();
    if bad_faces > 0 {
        cx.warn(
            place,
            format!("{bad_faces} faces with fewer than 3 corners or an index out of range skipped"),
        );
    }
    if bad_material > 0 {
        cx.warn(
            place,
            format!(
                "{bad_material} faces name a material that does not exist; drawn without \
             material"
            ),
        );
    }
    // A mesh with no Attributes at all is reported by the reader (with its line), which is
    // where the problem is; the converter only draws its faces without material.
    if !m.attributes.is_empty() && m.attributes.len() < m.face_count() {
        cx.warn(
            place,
            "fewer Attributes than faces; the rest drawn without material",
        );
    }
    prims
}

/// The mesh's vertex attributes, converted (mirrored) but not repaired: non-finite positions
/// and UVs, zero or non-finite normals and colours outside 0..1 go to the scene as they are,
/// and validation repairs each, once, with its warning.
fn vertices(m: &elem::Mesh, place: &str, cx: &mut Ctx) -> Vertices {
    let n = m.vertex_count();
    let mut out = Vertices {
        positions: m.positions.iter().map(|p| cx.point(f3(p))).collect(),
        ..Vertices::default()
    };
    if !m.normals.is_empty() {
        if m.normals.len() == n {
            out.normals = Some(normals(m, cx).into());
        } else {
            cx.warn(
                place,
                format!(
                    "{} normals for {n} vertices; normals not converted",
                    m.normals.len()
                ),
            );
        }
    }
    if !m.diffuse.is_empty() {
        if m.diffuse.len() == n {
            out.colors = Some(Colors::Floats(m.diffuse.iter().map(rgba).collect()));
        } else {
            cx.warn(
                place,
                format!(
                    "{} vertex colours for {n} vertices; colours not converted",
                    m.diffuse.len()
                ),
            );
        }
    }
    let sets: Vec<(usize, &Vec<[f64; 2]>)> = m
        .uv_sets
        .iter()
        .enumerate()
        .filter(|(_, s)| !s.is_empty())
        .collect();
    let mut converted = Vec::new();
    for &(k, set) in &sets {
        if set.len() != n {
            cx.warn(
                place,
                format!(
                    "UV set {} has {} rows for {n} vertices; not converted",
                    k + 1,
                    set.len()
                ),
            );
            continue;
        }
        if converted.len() == 2 {
            cx.warn(
                place,
                format!("UV set {} dropped (glTF output carries two UV sets)", k + 1),
            );
            continue;
        }
        if k != converted.len() {
            cx.warn(
                place,
                format!("UV set {} becomes TEXCOORD_{}", k + 1, converted.len()),
            );
        }
        converted.push(
            set.iter()
                .map(|uv| uv.map(|v| v as f32))
                .collect::<Vec<_>>(),
        );
    }
    let mut converted = converted.into_iter();
    out.uv0 = converted.next().map(Array::from);
    out.uv1 = converted.next().map(Array::from);
    out
}

/// Mirrored normals as written: validation makes them unit length, with its warnings.
fn normals(m: &elem::Mesh, cx: &mut Ctx) -> Vec<[f32; 3]> {
    m.normals.iter().map(|v| cx.point(f3(v))).collect()
}

/// Builds the skin of a container: joint `i` is the node named `BoneNames[i]`.
fn make_skin(
    c: &elem::MeshContainer,
    cname: &str,
    scene: &mut Scene,
    nodes: &Nodes,
    cx: &mut Ctx,
) -> usize {
    let mut joints = Vec::new();
    let mut in_joints = std::collections::HashSet::new();
    let mut ibms = Vec::new();
    for i in 0..c.bone_count() {
        let name = c.bone_names.get(i).cloned();
        let offset = c.offset_matrices.get(i).map(|m| cx.matrix(m));
        let existing = name
            .as_ref()
            .and_then(|n| nodes.by_name.get(n).copied())
            .filter(|n| !in_joints.contains(n));
        let ibm = match (offset, existing) {
            (Some(Some(m)), _) => m,
            (Some(None), _) | (None, _) => {
                let fallback = existing
                    .and_then(|n| invert(nodes.world(n)))
                    .unwrap_or(IDENTITY);
                cx.warn(
                    &format!("container {cname:?} bone {i}"),
                    "offset matrix missing or not finite; the \
                     inverse of the bone's rest pose is used",
                );
                fallback
            }
        };
        let joint = match existing {
            Some(n) => n,
            None => {
                let label = name.clone().unwrap_or_else(|| format!("bone_{i}"));
                cx.warn(
                    &format!("container {cname:?} bone {label:?}"),
                    "no (unused) HierarchyList node of that \
                     name; a node at the bind pose (inverse offset matrix) is added at the root",
                );
                let world = invert(ibm).unwrap_or(IDENTITY);
                let (t, q, s, err) = decompose(world);
                let transform = if is_exact(&world, err) {
                    Transform::Trs {
                        translation: t,
                        rotation: q,
                        scale: s,
                    }
                } else {
                    Transform::Matrix(world)
                };
                let index = scene.nodes.len();
                let mut extras = Map::new();
                extras.insert("elem_added_bone".into(), Value::Bool(true));
                scene.nodes.push(Node {
                    name: label,
                    transform,
                    extras,
                    ..Node::default()
                });
                scene.roots.push(index);
                index
            }
        };
        in_joints.insert(joint);
        joints.push(joint);
        ibms.push(ibm);
    }
    // The common root of the joints (hierarchy nodes only; added nodes are roots).
    let root_of = |j: usize| {
        if j < nodes.parent.len() {
            nodes.root_of(j)
        } else {
            j
        }
    };
    let skeleton = joints
        .first()
        .map(|&j| root_of(j))
        .filter(|&r| joints.iter().all(|&j| root_of(j) == r));
    let index = scene.skins.len();
    scene.skins.push(Skin {
        name: cname.to_owned(),
        joints,
        inverse_bind_matrices: ibms,
        skeleton,
    });
    index
}

/// `JOINTS_0` / `WEIGHTS_0` of a skinned mesh from its `BlendList`.
fn skin_vertices(
    m: &elem::Mesh,
    c: &elem::MeshContainer,
    place: &str,
    cx: &mut Ctx,
) -> (Vec<[u16; 4]>, Vec<[f32; 4]>) {
    let n = m.vertex_count();
    let bones = c.bone_count();
    let mut influences: Vec<Vec<(u16, f32)>> = vec![Vec::new(); n];
    // The first bone of each name, looked up by map (one search per part was quadratic); made
    // only when a part names its bone.
    let mut bone_by_name: Option<HashMap<&str, usize>> = None;
    for (pi, part) in m.blend_list.parts.iter().enumerate() {
        cx.unknown(&part.extra, &format!("{place} BlendPart {pi}"));
        let joint = part.transform_index.map(|t| t as usize).or_else(|| {
            let by_name = bone_by_name.get_or_insert_with(|| {
                let mut map = HashMap::new();
                for (i, name) in c.bone_names.iter().enumerate() {
                    map.entry(name.as_str()).or_insert(i);
                }
                map
            });
            part.bone_name
                .as_ref()
                .and_then(|b| by_name.get(b.as_str()).copied())
        });
        let Some(joint) = joint
            .filter(|&j| j < bones)
            .and_then(|j| u16::try_from(j).ok())
        else {
            cx.warn(
                &format!("{place} BlendPart {pi}"),
                "no valid TransformIndex or BoneName; its weights are \
                 not converted",
            );
            continue;
        };
        let mut out_of_range = 0usize;
        for vb in &part.vertex_blends {
            match influences.get_mut(vb.vertex as usize) {
                Some(list) => list.push((joint, vb.weight as f32)),
                None => out_of_range += 1,
            }
        }
        if out_of_range > 0 {
            cx.warn(
                &format!("{place} BlendPart {pi}"),
                format!("{out_of_range} rows name a vertex out of range; skipped"),
            );
        }
    }
    cx.unknown(&m.blend_list.extra, &format!("{place} BlendList"));
    let (mut truncated, mut renormalized, mut invalid, mut empty) = (0, 0, 0, 0);
    let mut joints = Vec::with_capacity(n);
    let mut weights = Vec::with_capacity(n);
    for list in &influences {
        let list = list.iter().map(|&(j, w)| (u32::from(j), w));
        let (j, w, fixes) = normalize_weights(list, bones, SlotOrder::LargestFirst);
        truncated += usize::from(fixes.truncated);
        renormalized += usize::from(fixes.renormalized);
        invalid += usize::from(fixes.invalid > 0);
        empty += usize::from(fixes.empty);
        joints.push(j);
        weights.push(w);
    }
    if truncated > 0 {
        cx.warn(
            place,
            format!("{truncated} vertices have more than 4 influences; the 4 largest kept"),
        );
    }
    if renormalized > 0 {
        cx.warn(
            place,
            format!("{renormalized} vertices' weights did not sum to 1 and were renormalised"),
        );
    }
    if invalid > 0 {
        cx.warn(
            place,
            format!("{invalid} vertices have negative or non-finite weights (ignored)"),
        );
    }
    if empty > 0 {
        cx.warn(
            place,
            format!("{empty} vertices have no influence; bound to bone 0"),
        );
    }
    (joints, weights)
}

fn animations(doc: &elem::Elem, scene: &mut Scene, nodes: &Nodes, cx: &mut Ctx) {
    for (ai, a) in doc.animations().iter().enumerate() {
        let name = a.name.clone().unwrap_or_else(|| format!("animation_{ai}"));
        let place = format!("animation {name:?}");
        cx.unknown(&a.extra, &place);
        cx.unknown(&a.bone_animation.extra, &format!("{place} BoneAnimation"));
        let time_ms = match a.time_ms {
            Some(t) if t > 0 => t as f64,
            other => {
                cx.warn(
                    &place,
                    format!("AnimationTime {other:?} is not a positive length; 1000 ms assumed"),
                );
                1000.0
            }
        };
        let mut anim = Animation {
            name: name.clone(),
            ..Animation::default()
        };
        let ex = &mut anim.extras;
        ex.insert("animation_time_ms".into(), json!(time_ms));
        if let Some(v) = a.frames_per_second {
            ex.insert("frames_per_second".into(), json!(v));
        }
        if let Some(v) = a.transition_time {
            ex.insert("transition_time_ms".into(), json!(v));
        }
        if let Some(v) = a.priority {
            ex.insert("priority".into(), json!(v));
        }
        if let Some(v) = a.looped {
            ex.insert("loop".into(), json!(v));
        }
        anim.extras.insert(
            "elem_time_keys".into(),
            Value::Array(
                a.bone_animation
                    .time_keys
                    .iter()
                    .map(|&t| hint::num(t))
                    .collect(),
            ),
        );
        anim.extras
            .insert("elem_parts".into(), kept_parts(&a.bone_animation));
        let mut part_transitions = Map::new();
        let mut targeted = std::collections::HashSet::new();
        for (pi, part) in a.bone_animation.parts.iter().enumerate() {
            let pname = part
                .node_name
                .clone()
                .unwrap_or_else(|| format!("part {pi}"));
            let pplace = format!("{place} part {pname:?}");
            cx.unknown(&part.extra, &pplace);
            let Some(&node) = part.node_name.as_ref().and_then(|n| nodes.by_name.get(n)) else {
                cx.warn(
                    &pplace,
                    "no HierarchyList node of that name; keys not converted",
                );
                continue;
            };
            if targeted.contains(&node) {
                cx.warn(
                    &pplace,
                    "a second part for the same node; keys not converted",
                );
                continue;
            }
            if let Some(t) = part.transition_time {
                part_transitions.insert(pname.clone(), json!(t));
            }
            let rest = nodes.rest.get(node).copied().unwrap_or(IDENTITY);
            if let Some(channels) = bone_channels(part, node, rest, time_ms, &pplace, cx) {
                anim.channels.extend(channels);
                targeted.insert(node);
            }
        }
        if !part_transitions.is_empty() {
            anim.extras.insert(
                "part_transition_times_ms".into(),
                Value::Object(part_transitions),
            );
        }
        if !a.uv_animation.is_empty() {
            anim.extras
                .insert("uv_animation".into(), uv_animation(&a.uv_animation));
            cx.warn(
                &place,
                format!(
                    "UVAnimation ({} parts) has no glTF core equivalent; kept in the \
                 animation's extras.uv_animation only",
                    a.uv_animation.parts.len()
                ),
            );
            cx.unknown(&a.uv_animation.extra, &format!("{place} UVAnimation"));
            for p in &a.uv_animation.parts {
                cx.unknown(&p.extra, &format!("{place} UVAnimation part"));
            }
        }
        if anim.channels.is_empty() {
            cx.warn(&place, "no convertible bone keys; animation not converted");
            continue;
        }
        scene.animations.push(anim);
    }
}

/// The translation, rotation and scale channels of one bone `AnimationPart`.
fn bone_channels(
    part: &elem::BoneAnimationPart,
    node: usize,
    rest: [f32; 16],
    time_ms: f64,
    place: &str,
    cx: &mut Ctx,
) -> Option<[Channel; 3]> {
    let interpolation = match part.interpolation_type.as_deref() {
        None | Some("Linear") => Interpolation::Linear,
        Some("Step") => Interpolation::Step,
        Some(other) => {
            cx.warn(
                place,
                format!(
                    "InterpolationType {other:?} has no glTF equivalent; keys interpolated \
                 linearly"
                ),
            );
            Interpolation::Linear
        }
    };
    let k = part.time_keys.len();
    if part.trans_keys.len() != k || part.rotate_keys.len() != k || part.scale_keys.len() != k {
        cx.warn(
            place,
            "key lists of different lengths; missing keys are the identity",
        );
    }
    let (mut times, mut t_out, mut r_out, mut s_out) =
        (Vec::new(), Vec::new(), Vec::new(), Vec::new());
    let (mut skipped, mut worst, mut not_unit) = (0usize, 0.0f32, 0usize);
    let mut prev_q = [0.0, 0.0, 0.0, 1.0];
    for (i, &key) in part.time_keys.iter().enumerate() {
        let time = (key * time_ms / 1000.0) as f32;
        let t = part.trans_keys.get(i).map_or([0.0; 3], f3);
        let q = part
            .rotate_keys
            .get(i)
            .map_or([0.0, 0.0, 0.0, 1.0], |q| q.map(|v| v as f32));
        let s = part.scale_keys.get(i).map_or([1.0; 3], f3);
        let finite = time.is_finite()
            && t.iter()
                .chain(q.iter())
                .chain(s.iter())
                .all(|v| v.is_finite());
        if !finite || time < 0.0 || times.last().is_some_and(|&last| time <= last) {
            skipped += 1;
            continue;
        }
        let norm = q.iter().map(|v| v * v).sum::<f32>().sqrt();
        if (norm - 1.0).abs() > 1e-3 {
            not_unit += 1;
        }
        let local = compose(cx.point(t), cx.quat(normalize_quat(q)), s);
        let m = mul(rest, local);
        let (tt, rq, ss, err) = decompose(m);
        if !is_exact(&m, err) {
            worst = worst.max(err);
        }
        let rq = align_quat(prev_q, rq);
        prev_q = rq;
        times.push(time);
        t_out.extend_from_slice(&tt);
        r_out.extend_from_slice(&rq);
        s_out.extend_from_slice(&ss);
    }
    if skipped > 0 {
        cx.warn(
            place,
            format!(
                "{skipped} keys skipped (negative, non-finite or not after the previous \
             key's time)"
            ),
        );
    }
    if not_unit > 0 {
        cx.warn(
            place,
            format!(
                "{not_unit} RotateKeys are not unit quaternions; normalised (a zero one is \
             the identity)"
            ),
        );
    }
    if worst > 0.0 {
        cx.warn(
            place,
            format!(
                "InitPostureMatrix × key is not exactly a TRS transform (residual up to \
             {worst}); the nearest TRS is used"
            ),
        );
    }
    if times.is_empty() {
        cx.warn(place, "no usable keys");
        return None;
    }
    let times = Keys::from(times);
    let channel = |path, values: Vec<f32>| Channel {
        node,
        path,
        interpolation,
        times: times.clone(),
        values: values.into(),
    };
    Some([
        channel(ChannelPath::Translation, t_out),
        channel(ChannelPath::Rotation, r_out),
        channel(ChannelPath::Scale, s_out),
    ])
}

/// The UV animation as JSON for `extras`, in file terms (names, normalised times, raw rows).
fn uv_animation(uv: &elem::UvAnimation) -> Value {
    let parts: Vec<Value> = uv
        .parts
        .iter()
        .map(|p| {
            json!({
                "mesh_container": p.mesh_container_name,
                "material": p.material_name,
                "time_keys": p.time_keys,
                "trans_keys": p.trans_keys,
                "rotate_keys": p.rotate_keys,
                "scale_keys": p.scale_keys,
            })
        })
        .collect();
    json!({ "time_keys": uv.time_keys, "parts": parts })
}

/// A material's file values (`null` for an absent key), for the way back.
fn kept_material(m: &elem::Material) -> Value {
    let row = |c: &Option<elem::Argb>| c.as_ref().map_or(Value::Null, |c| hint::row(c));
    json!({
        "diffuse": row(&m.diffuse),
        "ambient": row(&m.ambient),
        "emissive": row(&m.emissive),
        "specular": row(&m.specular),
        "specular_sharpness": m.specular_sharpness.map_or(Value::Null, hint::num),
        "texture_filename": m.texture_filename,
    })
}

/// True when the way back's faces (triangles in primitive order, attribute = material) are
/// the file's: triangles only, every face valid, materials in runs of first use.
fn faces_are_default(m: &elem::Mesh, material_count: usize) -> bool {
    let vcount = m.vertex_count();
    if !m.face_sizes.all(|n| n == 3)
        || m.face_indices.len() != m.face_sizes.len() * 3
        || m.face_indices.iter().any(|&i| i as usize >= vcount)
    {
        return false;
    }
    if m.attributes.is_empty() {
        return true;
    }
    if m.attributes.len() != m.face_count() || !m.attributes.all(|a| (a as usize) < material_count)
    {
        return false;
    }
    // Materials in runs of first use: no run's value seen in an earlier run (runs are
    // canonical, so two runs in a row differ, but for a full run, which repeats its value).
    let mut seen = std::collections::HashSet::new();
    let mut last = None;
    for &(a, _) in m.attributes.runs() {
        if last != Some(a) && !seen.insert(a) {
            return false;
        }
        last = Some(a);
    }
    true
}

/// What the way back needs to give the mesh's file data exactly (`to_elem`): the rows whose
/// `f64` the scene's `f32` does not give back, the faces when they are not plain triangles,
/// the UV set numbers, the blend list.
fn kept_mesh(
    m: &elem::Mesh,
    c: &elem::MeshContainer,
    material_count: usize,
    blobs: &mut Vec<Array<u8>>,
    extras: &mut Map<String, Value>,
) {
    let n = m.vertex_count();
    let mut put = |key: &str, v: Option<Value>| {
        if let Some(v) = v {
            extras.insert(key.into(), v);
        }
    };
    put(
        "elem_positions",
        hint::sparse_rows(blobs, &m.positions, |_| false),
    );
    if m.normals.len() == n {
        put(
            "elem_normals",
            hint::sparse_rows(blobs, &m.normals, |r| {
                (r.iter().map(|x| x * x).sum::<f64>().sqrt() - 1.0).abs() > 1e-12
            }),
        );
    }
    if m.diffuse.len() == n {
        put(
            "elem_colors",
            hint::sparse_rows(blobs, &m.diffuse, |r| {
                r.iter().any(|x| !(0.0..=1.0).contains(x))
            }),
        );
    }
    let sets: Vec<usize> = m
        .uv_sets
        .iter()
        .enumerate()
        .filter(|(_, s)| !s.is_empty() && s.len() == n)
        .map(|(k, _)| k)
        .take(2)
        .collect();
    for (slot, &k) in ["elem_uv0", "elem_uv1"].iter().zip(&sets) {
        if let Some(set) = m.uv_sets.get(k) {
            put(slot, hint::sparse_rows(blobs, set, |_| false));
        }
    }
    put("elem_uv_sets", Some(json!(sets)));
    if !faces_are_default(m, material_count) {
        put(
            "elem_faces",
            Some(json!({
                "sizes": m.face_sizes.to_vec(),
                "indices": m.face_indices,
                "attributes": (!m.attributes.is_empty()).then(|| m.attributes.to_vec()),
            })),
        );
    }
    if !m.blend_list.parts.is_empty() {
        let parts: Vec<Value> = m
            .blend_list
            .parts
            .iter()
            .map(|p| {
                let pairs: Vec<Value> = p
                    .vertex_blends
                    .iter()
                    .flat_map(|vb| [json!(vb.vertex), hint::num(vb.weight)])
                    .collect();
                // An object, not a `[index, name, pairs]` list: a list that mixes types is
                // what Blender cannot keep as a custom property (it writes back its Python
                // `repr`), and a `null` is dropped (`scene::lenient`).
                let mut part = Map::new();
                if let Some(t) = p.transform_index {
                    part.insert("transform_index".into(), json!(t));
                }
                if let Some(name) = &p.bone_name {
                    part.insert("bone_name".into(), json!(name));
                }
                part.insert("blends".into(), Value::Array(pairs));
                Value::Object(part)
            })
            .collect();
        put("elem_blend", Some(json!({ "parts": parts })));
    }
    if c.materials
        .as_ref()
        .is_some_and(|ms| ms.materials.is_empty())
    {
        put("elem_materials_scope", Some(Value::Bool(true)));
    }
}

/// Each bone part's file keys, `[t, tx, ty, tz, qx, qy, qz, qw, sx, sy, sz]` rows, and its
/// `InterpolationType`, for the way back.
fn kept_parts(b: &elem::BoneAnimation) -> Value {
    let parts: Vec<Value> = b
        .parts
        .iter()
        .map(|p| {
            let k = p.time_keys.len();
            let keys: Option<Vec<Value>> =
                (p.trans_keys.len() == k && p.rotate_keys.len() == k && p.scale_keys.len() == k)
                    .then(|| {
                        (0..k)
                            .filter_map(|i| {
                                let (t, tr, r, s) = (
                                    p.time_keys.get(i)?,
                                    p.trans_keys.get(i)?,
                                    p.rotate_keys.get(i)?,
                                    p.scale_keys.get(i)?,
                                );
                                let row: Vec<f64> = std::iter::once(*t)
                                    .chain(tr.iter().copied())
                                    .chain(r.iter().copied())
                                    .chain(s.iter().copied())
                                    .collect();
                                Some(hint::row(&row))
                            })
                            .collect()
                    });
            json!({
                "node": p.node_name,
                "interpolation_type": p.interpolation_type,
                "keys": keys,
            })
        })
        .collect();
    Value::Array(parts)
}
