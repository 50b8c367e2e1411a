//! Scene meshes → MDL meshes, divided meshes, materials and bone connectors.

use super::{close, Bones, Ctx, MAX_CONNECTORS};
use crate::scene::lenient;
#[cfg(test)]
use crate::scene::unit_bytes::BYTE_UNIT;
use crate::scene::validate::near_unit;
use crate::scene::Array;
use crate::scene::{normalize3, transpose, Colors, Material, Vertices};
use crate::scene::{raw64, Indices, Mesh, Scene};
use crate::{Error, Format};
use mdl_format as mdl;
use serde_json::Value;
use std::borrow::Cow;
use std::cell::Cell;
use std::collections::HashMap;
use std::ops::Range;

/// Bytes of one vertex's weights, connector and original bone indices.
pub(crate) type Quantized = ([u8; 4], [u8; 4], [u8; 4]);
/// One vertex's skin influences as they are compared: joints and weight bits.
type InfluenceBits = ([u16; 4], [u32; 4]);

/// Per-vertex results kept from the previous vertex, for one connector mapping: neighbouring
/// vertices mostly share their influences (a rigid part: all of them) and their colour (a
/// whole mesh often has one), so the mapping and rounding run once per run of equal values.
#[derive(Default)]
struct Memo {
    /// The last skin influences [`influences`] quantised (joints, weight bits), and its result.
    influence: Cell<Option<(InfluenceBits, Quantized)>>,
    /// The last colour's bits and its bytes.
    color: Cell<Option<([u32; 4], [u8; 4])>>,
}

/// One drawn mesh: the node that carries it and the mesh.
#[derive(Clone, Copy)]
struct Instance {
    node: usize,
    mesh: usize,
}

/// The triangle lists taken out of an owned scene ([`super::convert_owned`]), so that faces
/// are made in place of them: per mesh, its primitives' lists, for each mesh exactly one node
/// draws (a mesh two nodes draw is converted twice, from the lists left in the scene).
#[derive(Default)]
pub(super) struct Taken(Vec<Option<Vec<Indices>>>);

impl Taken {
    pub(super) fn from_scene(scene: &mut Scene) -> Self {
        let mut draws = vec![0usize; scene.meshes.len()];
        for nd in &scene.nodes {
            if let Some(d) = nd.mesh.and_then(|m| draws.get_mut(m)) {
                *d += 1;
            }
        }
        let take = |mesh: &mut Mesh| {
            let lists = mesh.primitives.iter_mut();
            lists.map(|p| std::mem::take(&mut p.indices)).collect()
        };
        let meshes = scene.meshes.iter_mut().zip(draws);
        Taken(meshes.map(|(m, d)| (d == 1).then(|| take(m))).collect())
    }

    /// Mesh `m`'s lists, when they were taken (once: its one drawing node converts it).
    fn take(&mut self, m: usize) -> Option<Vec<Indices>> {
        self.0.get_mut(m).and_then(Option::take)
    }
}

/// The triangle list of each of `mesh`'s primitives: taken ([`Taken`]), else the scene's.
fn lists<'a>(mesh: &'a Mesh, taken: Option<&'a [Indices]>) -> impl Iterator<Item = &'a [u32]> {
    let all = mesh.primitives.iter().enumerate();
    all.map(move |(k, p)| match taken {
        Some(t) => t.get(k).map_or(&[][..], |l| l.as_slice()),
        None => p.indices.as_slice(),
    })
}

pub(super) fn build(
    scene: &Scene,
    mut taken: Taken,
    bones: &Bones,
    cx: &mut Ctx<'_>,
) -> Result<Vec<mdl::Mesh>, Error> {
    // Group the drawn meshes: those the export made from one MDL mesh together.
    let mut groups: Vec<(Option<u64>, Vec<Instance>)> = Vec::new();
    let mut group_of: HashMap<u64, usize> = HashMap::new();
    for (node, nd) in scene.nodes.iter().enumerate() {
        let Some(mesh) = nd.mesh.filter(|&m| m < scene.meshes.len()) else {
            continue;
        };
        let key = scene
            .meshes
            .get(mesh)
            .and_then(|m| m.extras.get("mdl_mesh"))
            .and_then(lenient::uint);
        let inst = Instance { node, mesh };
        match key.and_then(|k| group_of.get(&k).copied()) {
            Some(g) => {
                if let Some((_, list)) = groups.get_mut(g) {
                    list.push(inst);
                }
            }
            None => {
                if let Some(k) = key {
                    group_of.insert(k, groups.len());
                }
                groups.push((key, vec![inst]));
            }
        }
    }
    let mut out = Vec::with_capacity(groups.len());
    for (g, (key, instances)) in groups.iter().enumerate() {
        let (materials, local) = group_materials(scene, *key, instances, g, cx);
        let mut divided = Vec::new();
        for inst in instances {
            let lists = taken.take(inst.mesh);
            divided.extend(divide(scene, *inst, lists, bones, &local, cx)?);
        }
        out.push(mdl::Mesh { divided, materials });
    }
    Ok(out)
}

/// The materials of one MDL mesh and the local index of each scene material (`None`: the
/// default material some primitives need).
fn group_materials(
    scene: &Scene,
    key: Option<u64>,
    instances: &[Instance],
    g: usize,
    cx: &mut Ctx<'_>,
) -> (Vec<mdl::Material>, HashMap<Option<usize>, i32>) {
    let mut order: Vec<Option<usize>> = Vec::new();
    if let Some(k) = key {
        for (i, m) in scene.materials.iter().enumerate() {
            if m.extras.get("mdl_mesh").and_then(lenient::uint) == Some(k) {
                order.push(Some(i));
            }
        }
    }
    for inst in instances {
        let prims = scene.meshes.get(inst.mesh).map(|m| m.primitives.as_slice());
        for p in prims.unwrap_or_default() {
            let m = p.material.filter(|&m| m < scene.materials.len());
            if !order.contains(&m) {
                order.push(m);
            }
        }
    }
    let mut local = HashMap::new();
    let mut materials = Vec::with_capacity(order.len());
    for (k, m) in order.iter().enumerate() {
        local.insert(*m, k as i32);
        let place = format!("mesh {g} material {k}");
        materials.push(match m.and_then(|m| scene.materials.get(m)) {
            Some(mat) => material_of(mat, &place, cx),
            None => mdl::Material::with_color(""),
        });
    }
    (materials, local)
}

fn material_of(m: &Material, place: &str, cx: &mut Ctx<'_>) -> mdl::Material {
    let text = |k: &str| m.extras.get(k).and_then(Value::as_str).map(str::to_owned);
    let mut lost = Vec::new();
    if m.base_color != [1.0; 4] {
        lost.push("base colour");
    }
    if m.emissive != [0.0; 3] {
        lost.push("emissive colour");
    }
    if m.specular.is_some() {
        lost.push("specular");
    }
    if m.alpha_mode != crate::scene::AlphaMode::Opaque {
        lost.push("alpha mode");
    }
    if m.double_sided {
        lost.push("double-sided");
    }
    if m.light_map.is_some() {
        lost.push("light map");
    }
    if m.specular_texture.is_some() {
        lost.push("specular map");
    }
    if !lost.is_empty() {
        cx.warn(
            place,
            format!(
                "{:?}: MDL materials hold only texture paths; {} dropped",
                m.name,
                lost.join(", ")
            ),
        );
    }
    let external = text("external_material");
    if let Some(path) = external.filter(|_| m.color_texture.is_none() && m.normal_texture.is_none())
    {
        return mdl::Material::External {
            path: path.as_str().into(),
        };
    }
    let raw_type = m
        .extras
        .get("mdl_material_type")
        .and_then(lenient::int)
        .and_then(|v| i32::try_from(v).ok())
        .filter(|&v| v != mdl::Material::EXTERNAL)
        .unwrap_or(mdl::Material::INTERNAL);
    let path = |p: &Option<String>| mdl::MdlString::new(p.as_deref().unwrap_or(""));
    mdl::Material::Internal {
        raw_type,
        color: path(&m.color_texture),
        normal: path(&m.normal_texture),
        metalness: path(&text("metalness_texture")),
    }
}

/// The bone connectors of a drawn mesh and, for each skin joint, its connector.
struct Palette {
    connectors: Vec<mdl::BoneConnector>,
    /// Connector of each skin joint (for an unskinned mesh on a bone: joint 0 = that bone).
    conn_of_joint: Vec<usize>,
    /// Joint of each connector (`u32::MAX`: none), as the export maps them.
    joint_of_conn: Vec<u32>,
    /// Joints of the skin (1 for an unskinned mesh on a bone, 0 without connectors).
    joint_count: usize,
    /// The vertices have no skin of their own: every vertex is on joint 0 when there is one.
    rigid: bool,
}

fn palette(scene: &Scene, inst: Instance, bones: &Bones, cx: &mut Ctx<'_>) -> Palette {
    let node = scene.nodes.get(inst.node);
    let skin = node.and_then(|n| n.skin).and_then(|s| scene.skins.get(s));
    let has_joints = scene
        .meshes
        .get(inst.mesh)
        .is_some_and(|m| m.vertices.joints.is_some());
    let Some(skin) = skin.filter(|_| has_joints) else {
        // FBX2MDL's unskinned mesh: one connector, its own bone, identity offset.
        let own = bones.of_node.get(inst.node).copied().flatten();
        return match own {
            Some(b) => Palette {
                connectors: vec![mdl::BoneConnector {
                    bone_index: b as i32,
                    offset: mdl::Matrix44::IDENTITY,
                }],
                conn_of_joint: vec![0],
                joint_of_conn: vec![0],
                joint_count: 1,
                rigid: true,
            },
            None => Palette {
                connectors: Vec::new(),
                conn_of_joint: Vec::new(),
                joint_of_conn: Vec::new(),
                joint_count: 0,
                rigid: true,
            },
        };
    };
    let mut not_bones = 0usize;
    let joint_bones: Vec<i32> = skin
        .joints
        .iter()
        .map(|&j| match bones.of_node.get(j).copied().flatten() {
            Some(b) => b as i32,
            None => {
                not_bones += 1;
                0
            }
        })
        .collect();
    if not_bones > 0 {
        cx.warn(
            &format!("skin {:?}", skin.name),
            format!("{not_bones} joints are not bones; bound to bone 0"),
        );
    }
    let ibm = |k: usize| {
        skin.inverse_bind_matrices
            .get(k)
            .map_or(mdl::Matrix44::IDENTITY, |m| mdl::Matrix44(transpose(*m)))
    };
    // The export's connectors (repeated bones included), while they say the same skin.
    let raw: Option<Vec<mdl::BoneConnector>> = scene
        .meshes
        .get(inst.mesh)
        .and_then(|m| m.extras.get("mdl_connectors"))
        .and_then(|c| raw64::bytes(&scene.blobs, c))
        .and_then(|b| binio::pod::vec_from_bytes::<mdl::BoneConnector>(&b));
    if let Some(raw) = raw {
        let mut joints: Vec<i32> = Vec::new();
        let mut offsets: Vec<mdl::Matrix44> = Vec::new();
        let mut joint_of_conn = Vec::with_capacity(raw.len());
        for c in &raw {
            match joints.iter().position(|&b| b == c.bone_index) {
                Some(j) => joint_of_conn.push(j as u32),
                None => {
                    joint_of_conn.push(joints.len() as u32);
                    joints.push(c.bone_index);
                    offsets.push(c.offset);
                }
            }
        }
        let same = joints == joint_bones
            && offsets.iter().enumerate().all(|(k, o)| {
                let want = ibm(k);
                o.0.iter().zip(&want.0).all(|(a, b)| close(*a, *b))
            });
        if same {
            let mut conn_of_joint = vec![0; joints.len()];
            for (c, &j) in joint_of_conn.iter().enumerate().rev() {
                if let Some(slot) = conn_of_joint.get_mut(j as usize) {
                    *slot = c;
                }
            }
            return Palette {
                connectors: raw,
                conn_of_joint,
                joint_of_conn,
                joint_count: joints.len(),
                rigid: false,
            };
        }
    }
    let connectors = joint_bones
        .iter()
        .enumerate()
        .map(|(k, &b)| mdl::BoneConnector {
            bone_index: b,
            offset: ibm(k),
        })
        .collect();
    let n = joint_bones.len();
    Palette {
        connectors,
        conn_of_joint: (0..n).collect(),
        joint_of_conn: (0..n as u32).collect(),
        joint_count: n,
        rigid: false,
    }
}

/// The triangles of a mesh's primitives in file winding, with their local material (for
/// [`split`]; an undivided mesh takes [`faces_and_runs`]).
fn triangles(
    scene: &Scene,
    inst: Instance,
    taken: Option<&[Indices]>,
    local: &HashMap<Option<usize>, i32>,
    cx: &mut Ctx<'_>,
) -> Vec<(i32, [u32; 3])> {
    let Some(mesh) = scene.meshes.get(inst.mesh) else {
        return Vec::new();
    };
    let n = mesh.vertices.positions.len();
    // Sized once: a large mesh's list otherwise grows (and is copied) a dozen times.
    let total: usize = lists(mesh, taken).map(|l| l.len() / 3).sum();
    let mut out = Vec::with_capacity(total);
    let mut bad = 0usize;
    for (p, list) in mesh.primitives.iter().zip(lists(mesh, taken)) {
        let material = local_material(scene, p, local);
        for t in list.chunks(3) {
            match *t {
                // Counter-clockwise back to the file's clockwise: (a, b, c) → (a, c, b).
                [a, b, c] if [a, b, c].iter().all(|&i| (i as usize) < n) => {
                    out.push((material, [a, c, b]))
                }
                _ => bad += 1,
            }
        }
    }
    dropped_triangles(mesh, bad, cx);
    out
}

/// The local material of a primitive (0 when it has none there).
fn local_material(
    scene: &Scene,
    p: &crate::scene::Primitive,
    local: &HashMap<Option<usize>, i32>,
) -> i32 {
    let m = p.material.filter(|&m| m < scene.materials.len());
    local.get(&m).copied().unwrap_or(0)
}

fn dropped_triangles(mesh: &crate::scene::Mesh, bad: usize, cx: &mut Ctx<'_>) {
    if bad > 0 {
        cx.warn(
            &format!("mesh {:?}", mesh.name),
            format!("{bad} incomplete or out-of-range triangles dropped"),
        );
    }
}

/// [`triangles`] as the faces of one divided mesh, with the material runs they make (one per
/// stretch of triangles with one material), without the per-triangle list: one exactly sized
/// pass per primitive, or, for a first list taken out of the scene (`taken`) that nothing
/// shares, the list itself turned into faces in place (no fresh memory). Validation left
/// every index of a mesh with vertices below its vertex count (`validate/indices.rs`, which
/// a [`ValidScene`](crate::scene::ValidScene) has been through), so only a mesh without
/// vertices (left alone by validation) takes the triangle-by-triangle check: a third pass
/// over every index (after the glTF reader's and validation's) cost a tenth of the
/// conversion.
fn faces_and_runs(
    scene: &Scene,
    inst: Instance,
    mut taken: Option<Vec<Indices>>,
    local: &HashMap<Option<usize>, i32>,
    cx: &mut Ctx<'_>,
) -> (Vec<mdl::Face>, Vec<mdl::MaterialRun>) {
    let Some(mesh) = scene.meshes.get(inst.mesh) else {
        return (Vec::new(), Vec::new());
    };
    let n = mesh.vertices.positions.len();
    let total: usize = lists(mesh, taken.as_deref()).map(|l| l.len() / 3).sum();
    let first = taken.as_mut().and_then(|t| t.first_mut()).filter(|_| n > 0);
    let mut faces = Vec::new();
    if let Some(slot) = first {
        // Moved out (a second holder would keep it shared), and put back when not whole.
        match faces_in_place(std::mem::take(slot)) {
            Ok(made) => faces = made,
            Err(list) => *slot = list,
        }
    }
    // The first list's faces are made: the other lists follow them.
    let mut skip = usize::from(!faces.is_empty());
    faces.reserve_exact(total.saturating_sub(faces.len()));
    let mut runs: Vec<mdl::MaterialRun> = Vec::new();
    let mut bad = 0usize;
    // Counter-clockwise back to the file's clockwise: (a, b, c) → (a, c, b). Every index is
    // below `n`, which `divide` checked fits an i32.
    let face = |a: u32, b: u32, c: u32| mdl::Face([a as i32, c as i32, b as i32]);
    for (p, list) in mesh.primitives.iter().zip(lists(mesh, taken.as_deref())) {
        let material = local_material(scene, p, local);
        let before = if skip > 0 { 0 } else { faces.len() };
        if skip > 0 {
            skip = 0;
        } else if n > 0 {
            let whole = list.chunks_exact(3);
            bad += usize::from(!whole.remainder().is_empty());
            faces.extend(whole.map(|t| match *t {
                [a, b, c] => face(a, b, c),
                _ => mdl::Face([0; 3]),
            }));
        } else {
            for t in list.chunks(3) {
                match *t {
                    [a, b, c] if [a, b, c].iter().all(|&i| (i as usize) < n) => {
                        faces.push(face(a, b, c))
                    }
                    _ => bad += 1,
                }
            }
        }
        let added = i32::try_from(faces.len() - before).unwrap_or(i32::MAX);
        match runs.last_mut() {
            _ if added == 0 => {}
            Some(r) if r.material_index == material => {
                r.face_count = r.face_count.saturating_add(added)
            }
            _ => runs.push(mdl::MaterialRun {
                material_index: material,
                face_count: added,
            }),
        }
    }
    dropped_triangles(mesh, bad, cx);
    (faces, runs)
}

/// A whole triangle list that nothing else holds, as faces in place: each (a, b, c) becomes
/// (a, c, b), the bits [`faces_and_runs`]' `face` gives. `None` (the caller copies) for a
/// list shared or a range of a longer one, or whose length or capacity is not whole
/// triangles (the cast needs whole faces), or a view of the file read: `Err` gives the list
/// back.
fn faces_in_place(list: Indices) -> Result<Vec<mdl::Face>, Indices> {
    let whole = list.range() == (0..list.list().len());
    // A view of the file read is not owned either: the caller's one pass copies it.
    if !whole || std::sync::Arc::strong_count(list.list()) != 1 || list.list().is_view() {
        return Err(list);
    }
    let shared = std::sync::Arc::clone(list.list());
    drop(list);
    let own = std::sync::Arc::try_unwrap(shared)
        .map_err(|shared| Indices::from(shared.to_vec()))?
        .into_vec();
    let mut faces: Vec<mdl::Face> =
        bytemuck::allocation::try_cast_vec(own).map_err(|(_, own)| Indices::from(own))?;
    for f in &mut faces {
        let [a, b, c] = f.0;
        f.0 = [a, c, b];
    }
    Ok(faces)
}

/// One drawn mesh as one divided mesh, or several when its skin has more than
/// [`MAX_CONNECTORS`] joints.
fn divide(
    scene: &Scene,
    inst: Instance,
    lists: Option<Vec<Indices>>,
    bones: &Bones,
    local: &HashMap<Option<usize>, i32>,
    cx: &mut Ctx<'_>,
) -> Result<Vec<mdl::DividedMesh>, Error> {
    let Some(mesh) = scene.meshes.get(inst.mesh) else {
        return Ok(Vec::new());
    };
    let place = format!("mesh {:?}", mesh.name);
    let v = &mesh.vertices;
    if i32::try_from(v.positions.len()).is_err() {
        return Err(Error::FormatLimit {
            format: Format::Mdl,
            place: format!("mdl {place}"),
            what: format!("{} vertices (at most 2^31 - 1)", v.positions.len()),
        });
    }
    let pal = palette(scene, inst, bones, cx);
    if pal.connectors.len() <= MAX_CONNECTORS || pal.rigid {
        let (faces, runs) = faces_and_runs(scene, inst, lists, local, cx);
        let n = v.positions.len();
        let raw = raw_vertices(mesh, &scene.blobs, n);
        let extra = stored(mesh, &scene.blobs, n);
        let src = Sources::new(v, &extra, &pal);
        let conn = |j: usize| pal.conn_of_joint.get(j).copied();
        let memo = Memo::default();
        // Exact-size collects over the vertex range (no growth, no per-push check).
        let vertices: Vec<mdl::Vertex> = match raw.as_deref() {
            Some(raw) => (0..n)
                .map(|k| match raw.get(k).filter(|r| agrees(r, &src, k, &pal)) {
                    Some(r) => *r,
                    None => src.vertex(k, &conn, &memo),
                })
                .collect(),
            None => match src.whole_vertices(&conn, &memo) {
                Some(vertices) => vertices,
                None => (0..n).map(|k| src.vertex(k, &conn, &memo)).collect(),
            },
        };
        return Ok(vec![mdl::DividedMesh {
            vertices,
            faces,
            material_runs: runs_of(mesh, runs),
            connectors: pal.connectors,
        }]);
    }
    let tris = triangles(scene, inst, lists.as_deref(), local, cx);
    let kept = stored(mesh, &scene.blobs, v.positions.len());
    Ok(split(v, &pal, &tris, &kept, &place, cx))
}

/// What the export kept of a divided mesh's vertices beside the scene's attributes:
/// binormals (glTF has none) and normals that glTF does not carry bit for bit (not unit length).
/// Borrowed from their blobs when they are blobs (a large mesh's arrays are not copied).
#[derive(Default)]
pub(crate) struct Stored<'a> {
    binormals: Option<Cow<'a, [[f32; 3]]>>,
    normals: Option<Cow<'a, [[f32; 3]]>>,
}

fn triples<'a>(
    mesh: &crate::scene::Mesh,
    blobs: &'a [Array<u8>],
    key: &str,
    n: usize,
) -> Option<Cow<'a, [[f32; 3]]>> {
    raw64::pods::<[f32; 3]>(blobs, mesh.extras.get(key)?).filter(|t| t.len() == n)
}

fn stored<'a>(mesh: &crate::scene::Mesh, blobs: &'a [Array<u8>], n: usize) -> Stored<'a> {
    Stored {
        binormals: triples(mesh, blobs, "mdl_binormals", n),
        normals: triples(mesh, blobs, "mdl_normals", n),
    }
}

/// The normal glTF gets for a file's normal `raw` (as validation leaves it): `raw` itself
/// when it is unit already (to within `validate::NEAR_UNIT_SQUARE`, as a file's normals
/// normalised in f32 are), so that it goes through glTF bit for bit and needs no second copy
/// in `mdl_normals`; else `raw` normalised.
pub(crate) fn exported_normal(raw: [f32; 3]) -> [f32; 3] {
    if near_unit(raw) {
        raw
    } else {
        normalize3(raw).unwrap_or([0.0, 1.0, 0.0])
    }
}

/// The weight, connector and original bone bytes this module writes for a vertex of skin
/// joints `js` and weights `ws`, each joint on the connector `conn_of_joint` gives it: for the
/// export's check of which vertices come back (`from_mdl/divided.rs`).
pub(crate) fn derived_influence(js: [u16; 4], ws: [f32; 4], conn_of_joint: &[usize]) -> Quantized {
    influences(js, ws, &|j| conn_of_joint.get(j).copied())
}

/// The weight, connector and original bone bytes of every vertex of a rigid mesh (no skin
/// joints): all on connector 0 when there is one, as [`Sources::new`] decides.
pub(crate) fn rigid_influence(has_connectors: bool) -> Quantized {
    if has_connectors {
        ([255, 0, 0, 0], [0; 4], [0; 4])
    } else {
        ([0; 4], [0; 4], [0; 4])
    }
}

/// The export's former check, kept to prove the one `from_mdl/divided.rs` makes in its pass
/// over the vertices the same on awkward vertices.
///
/// For the export: true when [`derive`], given the scene attributes `v` the export made of
/// `part` and its stored binormals and normals, would not give back every vertex of `part`
/// byte for byte (zero-weight slots, original bone indices, weights not summing to 255,
/// non-finite numbers…): then the export keeps the raw vertices too.
#[cfg(test)]
pub(crate) fn needs_raw_vertices(
    v: &Vertices,
    part: &mdl::DividedMesh,
    joint_of_conn: &[u32],
    joint_count: usize,
) -> bool {
    let mut conn_of_joint = vec![0; joint_count];
    for (c, &j) in joint_of_conn.iter().enumerate().rev() {
        if let Some(slot) = conn_of_joint.get_mut(j as usize) {
            *slot = c;
        }
    }
    let pal = Palette {
        connectors: part.connectors.clone(),
        conn_of_joint,
        joint_of_conn: joint_of_conn.to_vec(),
        joint_count,
        rigid: joint_count == 0,
    };
    // Every raw binormal and normal is kept: read in place rather than copied (a large mesh's
    // conversion peaks here, with the document and the scene alive together).
    let none = Stored::default();
    let src = Sources::new(v, &none, &pal);
    let conn = |j: usize| pal.conn_of_joint.get(j).copied();
    let memo = Memo::default();
    part.vertices.iter().enumerate().any(|(k, raw)| {
        if src.same_bits(k, raw) {
            let bytes = (raw.weights, raw.bone_indices, raw.original_bone_indices);
            return src.influence(k, &conn, &memo) != bytes;
        }
        let kept = (Some(raw.normal), Some(raw.binormal));
        let derived = src.vertex_with(k, kept, &conn, &memo);
        bytemuck::bytes_of(&derived) != bytemuck::bytes_of(raw)
    })
}

/// The export's raw vertices of a mesh, when there is one per vertex.
fn raw_vertices<'a>(
    mesh: &crate::scene::Mesh,
    blobs: &'a [Array<u8>],
    n: usize,
) -> Option<Cow<'a, [mdl::Vertex]>> {
    raw64::pods::<mdl::Vertex>(blobs, mesh.extras.get("mdl_vertices")?).filter(|v| v.len() == n)
}

/// Material runs: the export's (empty runs included) while their non-empty runs are `runs`
/// (one per stretch of triangles with one material), else `runs`.
fn runs_of(mesh: &crate::scene::Mesh, runs: Vec<mdl::MaterialRun>) -> Vec<mdl::MaterialRun> {
    let raw: Option<Vec<mdl::MaterialRun>> = mesh
        .extras
        .get("mdl_runs")
        .and_then(Value::as_array)
        .and_then(|a| {
            a.iter()
                .map(|r| {
                    let r = r.as_array()?;
                    let m = i32::try_from(lenient::int(r.first()?)?).ok()?;
                    let c = i32::try_from(lenient::int(r.get(1)?)?).ok()?;
                    Some(mdl::MaterialRun {
                        material_index: m,
                        face_count: c,
                    })
                })
                .collect()
        });
    if let Some(raw) = raw {
        // Merged the same way, the export's non-empty runs must give the same runs.
        let mut merged: Vec<mdl::MaterialRun> = Vec::new();
        for r in raw.iter().filter(|r| r.face_count > 0) {
            match merged.last_mut() {
                Some(l) if l.material_index == r.material_index => l.face_count += r.face_count,
                _ => merged.push(*r),
            }
        }
        if merged == runs {
            return raw;
        }
    }
    runs
}

/// True when the export of `raw` (as `from_mdl` converts a vertex) is the scene's vertex `k`.
fn agrees(raw: &mdl::Vertex, src: &Sources<'_>, k: usize, pal: &Palette) -> bool {
    let fin = |x: f32| if x.is_finite() { x } else { 0.0 };
    let same =
        |a: &[f32], b: &[f32]| a.len() == b.len() && a.iter().zip(b).all(|(x, y)| close(*x, *y));
    let pos_ok = src
        .positions
        .get(k)
        .is_some_and(|p| same(&raw.position.map(fin), p));
    let normal = exported_normal(raw.normal);
    let normal_ok = src.normals.get(k).is_some_and(|n| same(&normal, n));
    let uv_ok = src.uv0.get(k).is_some_and(|u| same(&raw.uv.map(fin), u));
    let uv1 = src.uv1.get(k).copied().unwrap_or([0.0; 2]);
    let uv1_ok = same(&raw.sub_uv.map(fin), &uv1);
    let color_ok = match src.color_bytes.get(k) {
        Some(c) => *c == raw.color,
        None => src.color_floats.get(k).is_some_and(|c| {
            raw.color
                .iter()
                .zip(c)
                .all(|(b, x)| (f32::from(*b) / 255.0 - x).abs() <= 1e-3)
        }),
    };
    if !(pos_ok && normal_ok && uv_ok && uv1_ok && color_ok) {
        return false;
    }
    // A weighted slot must name one of this mesh's connectors (the reader refuses any other,
    // and the engine would index past them), whatever the comparison below makes of it: it
    // drops such a slot as the export does, so an edited raw vertex could still agree.
    let connectors = pal.connectors.len();
    let weights = raw.weights.iter().zip(raw.bone_indices);
    if !weights
        .into_iter()
        .all(|(w, i)| *w == 0 || usize::from(i) < connectors)
    {
        return false;
    }
    if pal.rigid {
        return true;
    }
    let (Some(js), Some(ws)) = (src.joints.get(k), src.weights.get(k)) else {
        return false;
    };
    let (rj, rw, _) = crate::scene::from_mdl::influences(
        raw.bone_indices,
        raw.weights,
        &pal.joint_of_conn,
        pal.joint_count,
    );
    (0..4).all(|s| {
        let (a, b) = (
            rw.get(s).copied().unwrap_or(0.0),
            ws.get(s).copied().unwrap_or(0.0),
        );
        (a - b).abs() <= 1e-4 && (a <= 0.0 || rj.get(s) == js.get(s))
    })
}

/// What a mesh's MDL vertices are made of, each attribute resolved once per mesh to a slice
/// (empty when absent: `get(k)` then gives `None`, as a lookup in the `Option<Vec<_>>` did),
/// so that the per-vertex work indexes plain slices.
struct Sources<'a> {
    positions: &'a [[f32; 3]],
    normals: &'a [[f32; 3]],
    tangents: &'a [[f32; 4]],
    uv0: &'a [[f32; 2]],
    uv1: &'a [[f32; 2]],
    /// The colours, as bytes or as floats (the other one empty; both without colours).
    color_bytes: &'a [[u8; 4]],
    color_floats: &'a [[f32; 4]],
    joints: &'a [[u16; 4]],
    weights: &'a [[f32; 4]],
    /// The export's stored normals and binormals ([`Stored`]).
    kept_normals: &'a [[f32; 3]],
    kept_binormals: &'a [[f32; 3]],
    /// The weight bytes of every vertex of a rigid mesh (decided once).
    rigid: Option<Quantized>,
}

impl<'a> Sources<'a> {
    fn new(v: &'a Vertices, kept: &'a Stored<'_>, pal: &Palette) -> Self {
        let rigid = pal.rigid.then_some(if pal.connectors.is_empty() {
            ([0; 4], [0; 4], [0; 4])
        } else {
            ([255, 0, 0, 0], [0; 4], [0; 4])
        });
        Sources {
            positions: &v.positions,
            normals: v.normals.as_deref().unwrap_or_default(),
            tangents: v.tangents.as_deref().unwrap_or_default(),
            uv0: v.uv0.as_deref().unwrap_or_default(),
            uv1: v.uv1.as_deref().unwrap_or_default(),
            color_bytes: match &v.colors {
                Some(Colors::Bytes(c)) => c,
                _ => &[],
            },
            color_floats: match &v.colors {
                Some(Colors::Floats(c)) => c,
                _ => &[],
            },
            joints: v.joints.as_deref().unwrap_or_default(),
            weights: v.weights.as_deref().unwrap_or_default(),
            kept_normals: kept.normals.as_deref().unwrap_or_default(),
            kept_binormals: kept.binormals.as_deref().unwrap_or_default(),
            rigid,
        }
    }

    /// Vertex `k` from the scene's attributes and the kept normal and binormal; `conn` gives
    /// the connector of a skin joint.
    #[inline(always)]
    fn vertex(&self, k: usize, conn: &dyn Fn(usize) -> Option<usize>, memo: &Memo) -> mdl::Vertex {
        let kept = (
            self.kept_normals.get(k).copied(),
            self.kept_binormals.get(k).copied(),
        );
        self.vertex_with(k, kept, conn, memo)
    }

    /// [`Sources::vertex`] with vertex `k`'s kept normal and binormal given.
    #[inline(always)]
    fn vertex_with(
        &self,
        k: usize,
        (kept_normal, kept_binormal): (Option<[f32; 3]>, Option<[f32; 3]>),
        conn: &dyn Fn(usize) -> Option<usize>,
        memo: &Memo,
    ) -> mdl::Vertex {
        let scene_normal = self.normals.get(k).copied();
        let normal = match (kept_normal, scene_normal) {
            (Some(raw), Some(n)) => stored_or_scene(raw, n),
            (_, n) => n.unwrap_or([0.0; 3]),
        };
        let binormal = kept_binormal.unwrap_or_else(|| {
            self.tangents
                .get(k)
                .map_or([0.0; 3], |t| binormal_of(normal, t))
        });
        let color = match self.color_bytes.get(k) {
            Some(&c) => c,
            None => self
                .color_floats
                .get(k)
                .map_or([255; 4], |c| color_bytes(*c, memo)),
        };
        let (weights, bone_indices, original) = self.influence(k, conn, memo);
        mdl::Vertex {
            position: self.positions.get(k).copied().unwrap_or_default(),
            normal,
            binormal,
            uv: self.uv0.get(k).copied().unwrap_or_default(),
            sub_uv: self.uv1.get(k).copied().unwrap_or_default(),
            color,
            weights,
            bone_indices,
            original_bone_indices: original,
        }
    }

    /// Every vertex, when each present attribute and kept array has one entry per position,
    /// as validation leaves a mesh with vertices (`validate/vertices.rs` drops an attribute
    /// of another length); `None` otherwise (the caller then takes the per-index path).
    ///
    /// The same vertices as [`Sources::vertex`] (`whole_vertices_are_per_vertex`), made a
    /// chunk of [`CHUNK`] vertices at a time, one attribute after the other: each attribute's
    /// pass zips the chunk's outputs with its array (no per-vertex lookup, and the mesh's
    /// choice of path, made once, out of the loop); an absent attribute's default is the
    /// zeroed vertex's or one fill. The chunk stays in the cache between its passes.
    fn whole_vertices(
        &self,
        conn: &dyn Fn(usize) -> Option<usize>,
        memo: &Memo,
    ) -> Option<Vec<mdl::Vertex>> {
        let n = self.positions.len();
        let lens = [
            self.normals.len(),
            self.tangents.len(),
            self.uv0.len(),
            self.uv1.len(),
            self.color_bytes.len(),
            self.color_floats.len(),
            self.joints.len(),
            self.weights.len(),
            self.kept_normals.len(),
            self.kept_binormals.len(),
        ];
        if lens.iter().any(|&len| len != 0 && len != n) {
            return None;
        }
        let mut out: Vec<mdl::Vertex> = Vec::with_capacity(n);
        for start in (0..n).step_by(CHUNK) {
            let end = n.min(start + CHUNK);
            let part = |s: &'a [[f32; 3]]| s.get(start..end).unwrap_or_default();
            // The chunk's vertices made with their positions (one write of each, no zeroing
            // first); the other fields keep the default where their attribute is absent.
            out.extend(part(self.positions).iter().map(|p| mdl::Vertex {
                position: *p,
                ..mdl::Vertex::default()
            }));
            let dst = out.get_mut(start..end).unwrap_or_default();
            self.chunk_normals(dst, part(self.normals), part(self.kept_normals));
            if !self.kept_binormals.is_empty() {
                for (v, b) in dst.iter_mut().zip(part(self.kept_binormals)) {
                    v.binormal = *b;
                }
            } else if let Some(ts) = self.tangents.get(start..end).filter(|t| !t.is_empty()) {
                for (v, t) in dst.iter_mut().zip(ts) {
                    v.binormal = binormal_of(v.normal, t);
                }
            }
            for (v, u) in dst
                .iter_mut()
                .zip(self.uv0.get(start..end).unwrap_or_default())
            {
                v.uv = *u;
            }
            for (v, u) in dst
                .iter_mut()
                .zip(self.uv1.get(start..end).unwrap_or_default())
            {
                v.sub_uv = *u;
            }
            self.chunk_colors(dst, start..end, memo);
            self.chunk_influences(dst, start..end, conn, memo);
        }
        Some(out)
    }

    /// The normals of a chunk of [`Sources::whole_vertices`]: `kept` (the stored normals) and
    /// `scene`'s, each empty when absent, as [`Sources::vertex_with`] chooses them.
    #[inline(always)]
    fn chunk_normals(&self, dst: &mut [mdl::Vertex], scene: &[[f32; 3]], kept: &[[f32; 3]]) {
        if kept.is_empty() {
            for (v, n) in dst.iter_mut().zip(scene) {
                v.normal = *n;
            }
            return;
        }
        // Without scene normals: zero (the vertex default), as the per-index path gives.
        let mut keep = [false; CHUNK];
        keep_stored(kept, scene, &mut keep);
        for (v, (keep, (raw, n))) in dst.iter_mut().zip(keep.iter().zip(kept.iter().zip(scene))) {
            v.normal = if *keep { *raw } else { *n };
        }
    }

    /// The colour bytes of the vertices `range` (a chunk of [`Sources::whole_vertices`]):
    /// bytes as they are, white without colours, else [`unit_byte`] per channel, memoised per
    /// run of equal bits.
    #[inline(always)]
    fn chunk_colors(&self, dst: &mut [mdl::Vertex], range: Range<usize>, memo: &Memo) {
        if let Some(bytes) = self
            .color_bytes
            .get(range.clone())
            .filter(|c| !c.is_empty())
        {
            for (v, c) in dst.iter_mut().zip(bytes) {
                v.color = *c;
            }
            return;
        }
        let Some(cs) = self.color_floats.get(range).filter(|c| !c.is_empty()) else {
            dst.iter_mut().for_each(|v| v.color = [255; 4]);
            return;
        };
        // A chunk whose colours all have the bits of the memo's (a mesh of one colour: every
        // chunk but its first) is one fill: the bits compared without a branch, no lookup.
        if let Some((key, bytes)) = memo.color.get() {
            let key = bytemuck::cast::<_, u128>(key);
            let differs = |c: &[f32; 4]| bytemuck::cast::<_, u128>(*c) ^ key;
            if cs.len() == dst.len() && cs.iter().fold(0, |any, c| any | differs(c)) == 0 {
                dst.iter_mut().for_each(|v| v.color = bytes);
                return;
            }
        }
        for (v, c) in dst.iter_mut().zip(cs) {
            v.color = color_bytes(*c, memo);
        }
    }

    /// The weight, connector and original bone bytes of the vertices `range` (a chunk of
    /// [`Sources::whole_vertices`]). A rigid mesh's, or a chunk whose influences all have the
    /// bits of the memo's (a rigid part of a skin, every chunk of a one-joint skin), are one
    /// fill: no per-vertex compare.
    #[inline(always)]
    fn chunk_influences(
        &self,
        dst: &mut [mdl::Vertex],
        range: Range<usize>,
        conn: &dyn Fn(usize) -> Option<usize>,
        memo: &Memo,
    ) {
        let fill = |dst: &mut [mdl::Vertex], (w, c, o): Quantized| {
            for v in dst.iter_mut() {
                (v.weights, v.bone_indices, v.original_bone_indices) = (w, c, o);
            }
        };
        if let Some(q) = self.rigid {
            return fill(dst, q);
        }
        let js = self.joints.get(range.clone()).unwrap_or_default();
        let ws = self.weights.get(range.clone()).unwrap_or_default();
        if js.len() == dst.len() && ws.len() == dst.len() {
            if let Some(((kj, kw), q)) = memo.influence.get() {
                let differs = |j: &[u16; 4], w: &[f32; 4]| {
                    let j = bytemuck::cast::<_, u64>(*j) ^ bytemuck::cast::<_, u64>(kj);
                    u128::from(j) | (bytemuck::cast::<_, u128>(*w) ^ bytemuck::cast::<_, u128>(kw))
                };
                if js.iter().zip(ws).fold(0, |any, (j, w)| any | differs(j, w)) == 0 {
                    return fill(dst, q);
                }
            }
        }
        for (v, k) in dst.iter_mut().zip(range) {
            (v.weights, v.bone_indices, v.original_bone_indices) = self.influence(k, conn, memo);
        }
    }

    /// Vertex `k`'s weight, connector and original bone bytes.
    #[inline(always)]
    fn influence(&self, k: usize, conn: &dyn Fn(usize) -> Option<usize>, memo: &Memo) -> Quantized {
        if let Some(q) = self.rigid {
            return q;
        }
        let js = self.joints.get(k).copied().unwrap_or_default();
        let ws = self.weights.get(k).copied().unwrap_or_default();
        let key = (js, ws.map(f32::to_bits));
        match memo.influence.get() {
            Some((last, out)) if last == key => out,
            _ => {
                let out = influences(js, ws, conn);
                memo.influence.set(Some((key, out)));
                out
            }
        }
    }

    /// True when vertex `k`, with `raw`'s normal and binormal kept, gives back `raw`'s
    /// position, normal, binormal, UVs and colour by bit equalities alone, as when these
    /// attributes are `raw`'s own bits (the export's): a normal of the same bits is kept,
    /// the binormal is `raw`'s, colour bytes are compared as bytes, and [`unit_byte`] gives
    /// back every byte from its [`BYTE_UNIT`] float (tested). No normalisation, no rounding.
    /// `false` says nothing: the caller then derives the vertex.
    #[cfg(test)]
    #[inline(always)]
    fn same_bits(&self, k: usize, raw: &mdl::Vertex) -> bool {
        let unit = |b: u8| {
            BYTE_UNIT
                .get(usize::from(b))
                .map_or(u32::MAX, |x| x.to_bits())
        };
        let color = match (self.color_bytes.get(k), self.color_floats.get(k)) {
            (Some(c), _) => u32::from(raw.color != *c),
            (None, Some(&[r, g, b, a])) => {
                let [rr, rg, rb, ra] = raw.color;
                diff(r, unit(rr)) | diff(g, unit(rg)) | diff(b, unit(rb)) | diff(a, unit(ra))
            }
            (None, None) => u32::from(raw.color != [255; 4]),
        };
        let (Some(p), Some(n)) = (self.positions.get(k), self.normals.get(k)) else {
            return false;
        };
        let [u0, u1] = self.uv0.get(k).copied().unwrap_or_default();
        let [s0, s1] = self.uv1.get(k).copied().unwrap_or_default();
        let [ru0, ru1] = raw.uv;
        let [rs0, rs1] = raw.sub_uv;
        // Branch-free: every field is compared, then one test.
        (diff3(p, &raw.position)
            | diff3(n, &raw.normal)
            | diff(u0, ru0.to_bits())
            | diff(u1, ru1.to_bits())
            | diff(s0, rs0.to_bits())
            | diff(s1, rs1.to_bits())
            | color)
            == 0
    }
}

/// Vertices made at once by [`Sources::whole_vertices`]: few enough that a chunk (68 bytes
/// each) stays in the first-level cache between its attribute passes.
const CHUNK: usize = 64;

/// The MDL normal of a vertex with a stored normal `raw` and the scene normal `n`: the stored
/// one while it still is the scene's (once normalised), else the scene's. The same bits need
/// no normalisation (both arms give them): every vertex of the export's check.
#[inline(always)]
fn stored_or_scene(raw: [f32; 3], n: [f32; 3]) -> [f32; 3] {
    let bits = |v: [f32; 3]| v.map(f32::to_bits);
    if bits(raw) == bits(n)
        || exported_normal(raw)
            .iter()
            .zip(&n)
            .all(|(a, b)| close(*a, *b))
    {
        raw
    } else {
        n
    }
}

/// For up to [`CHUNK`] vertices, whether [`stored_or_scene`] keeps the stored normal `raw`
/// rather than the scene's `n`: the same arithmetic ([`exported_normal`], then [`close`] per
/// component), but every value is computed and combined without a branch, on one column per
/// component, so that the loop vectorises (four vertices an instruction; about half of the
/// vertices of a large export differ from their scene normal and need the normalisation).
/// The same choice as [`stored_or_scene`] for every input (`keep_stored_is_stored_or_scene`).
#[inline(always)]
fn keep_stored(raw: &[[f32; 3]], n: &[[f32; 3]], keep: &mut [bool; CHUNK]) {
    let (mut stored, mut scene) = ([[0f32; CHUNK]; 3], [[0f32; CHUNK]; 3]);
    columns(raw, &mut stored);
    columns(n, &mut scene);
    let [rx, ry, rz] = &stored;
    let [sx, sy, sz] = &scene;
    // Iterators over whole arrays (no index to check): the loop vectorises.
    let stored = rx.iter().zip(ry).zip(rz);
    let scene = sx.iter().zip(sy).zip(sz);
    for (k, (((x, y), z), ((a, b), c))) in keep.iter_mut().zip(stored.zip(scene)) {
        let [x, y, z, a, b, c] = [*x, *y, *z, *a, *b, *c];
        // `exported_normal`: the stored normal when unit already, else `normalize3`, or
        // (0, 1, 0) when that gives none.
        let near = near_unit([x, y, z]);
        let len = (x * x + y * y + z * z).sqrt();
        let usable = (len > 1e-12) & len.is_finite();
        let e = [
            if near {
                x
            } else if usable {
                x / len
            } else {
                0.0
            },
            if near {
                y
            } else if usable {
                y / len
            } else {
                1.0
            },
            if near {
                z
            } else if usable {
                z / len
            } else {
                0.0
            },
        ];
        let same = (x.to_bits() == a.to_bits())
            & (y.to_bits() == b.to_bits())
            & (z.to_bits() == c.to_bits());
        *k = same | (close_bf(e[0], a) & close_bf(e[1], b) & close_bf(e[2], c));
    }
}

/// Up to [`CHUNK`] vectors into three columns (written in place: a returned array was
/// copied once more); the padding past them stays as it was (computed by [`keep_stored`]
/// and never read).
#[inline(always)]
fn columns(v: &[[f32; 3]], out: &mut [[f32; CHUNK]; 3]) {
    let [cx, cy, cz] = out;
    for (((p, x), y), z) in v
        .iter()
        .zip(cx.iter_mut())
        .zip(cy.iter_mut())
        .zip(cz.iter_mut())
    {
        [*x, *y, *z] = *p;
    }
}

/// [`close`] without a branch. Its `max` is a plain compare (`maxps`): the two differ only
/// when an operand is NaN, and then `a - b` is NaN and the tolerance compare false either way.
#[inline(always)]
fn close_bf(a: f32, b: f32) -> bool {
    let max = |p: f32, q: f32| if p > q { p } else { q };
    let scale = max(max(a.abs(), b.abs()), 1.0);
    (a.to_bits() == b.to_bits()) | ((a - b).abs() <= 1e-5 * scale) | (a.is_nan() & b.is_nan())
}

/// The MDL binormal of the normal `n` and the glTF tangent `t`. glTF's bitangent is
/// w·(n × t) and points the other way from MDL's binormal (from_mdl would derive t = n × b):
/// b = w·(t × n).
#[inline(always)]
fn binormal_of([n0, n1, n2]: [f32; 3], t: &[f32; 4]) -> [f32; 3] {
    let c = [
        t[1] * n2 - t[2] * n1,
        t[2] * n0 - t[0] * n2,
        t[0] * n1 - t[1] * n0,
    ];
    c.map(|x| x * t[3])
}

/// A colour's bytes ([`unit_byte`] per channel), memoised per run of equal bits.
#[inline(always)]
fn color_bytes(c: [f32; 4], memo: &Memo) -> [u8; 4] {
    let key = c.map(f32::to_bits);
    match memo.color.get() {
        Some((last, out)) if last == key => out,
        _ => {
            let out = c.map(unit_byte);
            memo.color.set(Some((key, out)));
            out
        }
    }
}

/// One vertex's skin influences as MDL bytes: each weighted joint's connector (`conn`), then
/// [`quantize`].
fn influences(js: [u16; 4], ws: [f32; 4], conn: &dyn Fn(usize) -> Option<usize>) -> Quantized {
    // On the stack: this runs once per vertex, on export (to compare) and import.
    let mut slots = [(0u8, 0u8, 0f32); 4];
    let mut len = 0;
    for (j, w) in js.iter().zip(ws) {
        if let Some(c) = conn(usize::from(*j)).filter(|_| w > 0.0 && w.is_finite()) {
            if let Some(slot) = slots.get_mut(len) {
                *slot = (c as u8, u8::try_from(*j).unwrap_or(u8::MAX), w);
                len += 1;
            }
        }
    }
    quantize(slots.get(..len).unwrap_or_default())
}

/// Zero when `a` has the bits `b`.
#[cfg(test)]
#[inline(always)]
fn diff(a: f32, b: u32) -> u32 {
    a.to_bits() ^ b
}

/// Zero when `a` and `b` have the same bits.
#[cfg(test)]
#[inline(always)]
fn diff3(a: &[f32; 3], b: &[f32; 3]) -> u32 {
    let ([a0, a1, a2], [b0, b1, b2]) = (*a, *b);
    diff(a0, b0.to_bits()) | diff(a1, b1.to_bits()) | diff(a2, b2.to_bits())
}

/// `(x.clamp(0.0, 1.0) * 255.0).round() as u8` without the `roundf` call (once per colour
/// channel of every vertex): the fraction of a value in 0..=255 is exact, halves go up.
fn unit_byte(x: f32) -> u8 {
    let y = x.clamp(0.0, 1.0) * 255.0;
    let whole = y as u8;
    if y - f32::from(whole) >= 0.5 {
        whole.saturating_add(1)
    } else {
        whole
    }
}

/// Weights as bytes summing to 255 (largest remainders get the rounding), with their
/// connector and original (skin joint) indices; no influence: all on connector 0.
fn quantize(slots: &[(u8, u8, f32)]) -> ([u8; 4], [u8; 4], [u8; 4]) {
    let sum: f32 = slots.iter().map(|s| s.2).sum();
    if slots.is_empty() || sum.is_nan() || sum <= 0.0 {
        return ([255, 0, 0, 0], [0; 4], [0; 4]);
    }
    // One influence (every vertex of a rigid part) gets all 255, as the rounding below gives.
    if let [(conn, orig, _)] = *slots {
        return ([255, 0, 0, 0], [conn, 0, 0, 0], [orig, 0, 0, 0]);
    }
    // At most four slots, kept on the stack (no allocation per vertex).
    let mut scaled = [0f32; 4];
    for (x, s) in scaled.iter_mut().zip(slots) {
        *x = s.2 / sum * 255.0;
    }
    let scaled = scaled.get(..slots.len()).unwrap_or_default();
    let mut bytes = [0u8; 4];
    for (b, x) in bytes.iter_mut().zip(scaled) {
        *b = x.floor().clamp(0.0, 255.0) as u8;
    }
    let bytes = bytes.get_mut(..scaled.len()).unwrap_or_default();
    let mut left = 255u32.saturating_sub(bytes.iter().map(|&b| u32::from(b)).sum());
    let mut order = [0usize, 1, 2, 3];
    let by_rest = order.get_mut(..scaled.len()).unwrap_or_default();
    by_rest.sort_by(|&a, &b| {
        let fa = scaled.get(a).map_or(0.0, |x| x - x.floor());
        let fb = scaled.get(b).map_or(0.0, |x| x - x.floor());
        fb.total_cmp(&fa)
    });
    for i in by_rest.iter().cycle().take(4 * 255) {
        if left == 0 {
            break;
        }
        if let Some(b) = bytes.get_mut(*i).filter(|b| **b < 255) {
            *b += 1;
            left -= 1;
        }
    }
    let (mut w, mut c, mut o) = ([0u8; 4], [0u8; 4], [0u8; 4]);
    for (s, ((conn, orig, _), b)) in slots.iter().zip(bytes.iter()).enumerate().take(4) {
        if let (Some(ws), Some(cs), Some(os)) = (w.get_mut(s), c.get_mut(s), o.get_mut(s)) {
            (*ws, *cs, *os) = (*b, *conn, *orig);
        }
    }
    (w, c, o)
}

/// A skin of more than [`MAX_CONNECTORS`] joints as several divided meshes: triangles are
/// taken in order into the current part while its connectors stay within the limit.
fn split(
    v: &Vertices,
    pal: &Palette,
    tris: &[(i32, [u32; 3])],
    kept: &Stored<'_>,
    place: &str,
    cx: &mut Ctx<'_>,
) -> Vec<mdl::DividedMesh> {
    let joints_of = |k: u32| -> Vec<usize> {
        let k = k as usize;
        let js = v
            .joints
            .as_ref()
            .and_then(|l| l.get(k))
            .copied()
            .unwrap_or_default();
        let ws = v
            .weights
            .as_ref()
            .and_then(|l| l.get(k))
            .copied()
            .unwrap_or_default();
        js.iter()
            .zip(ws)
            .filter(|(_, w)| *w > 0.0)
            .map(|(j, _)| usize::from(*j))
            .filter(|&j| j < pal.joint_count)
            .collect()
    };
    let src = Sources::new(v, kept, pal);
    let mut parts: Vec<Part> = vec![Part::default()];
    for &(m, t) in tris {
        let mut need: Vec<usize> = t.iter().flat_map(|&i| joints_of(i)).collect();
        need.sort_unstable();
        need.dedup();
        let fits = |p: &Part| {
            let new = need.iter().filter(|j| !p.conn.contains_key(j)).count();
            p.joints.len() + new <= MAX_CONNECTORS
        };
        if !parts.last().is_some_and(fits) {
            parts.push(Part::default());
        }
        if let Some(p) = parts.last_mut() {
            for &j in &need {
                if !p.conn.contains_key(&j) {
                    p.conn.insert(j, p.joints.len());
                    p.joints.push(j);
                }
            }
            let face = t.map(|i| {
                let next = p.verts.len();
                *p.map.entry(i).or_insert_with(|| {
                    p.verts.push(i);
                    next
                }) as i32
            });
            p.faces.push(mdl::Face(face));
            match p.runs.last_mut() {
                Some(r) if r.material_index == m => r.face_count += 1,
                _ => p.runs.push(mdl::MaterialRun {
                    material_index: m,
                    face_count: 1,
                }),
            }
        }
    }
    parts.retain(|p| !p.faces.is_empty());
    cx.warn(
        place,
        format!(
            "skin of {} joints divided into {} meshes of at most {MAX_CONNECTORS} bone \
             connectors (the engine's limit)",
            pal.joint_count,
            parts.len()
        ),
    );
    parts
        .into_iter()
        .map(|p| {
            let conn = |j: usize| p.conn.get(&j).copied();
            let memo = Memo::default();
            let vertices = p
                .verts
                .iter()
                .map(|&k| src.vertex(k as usize, &conn, &memo))
                .collect();
            let connectors = p
                .joints
                .iter()
                .filter_map(|&j| {
                    pal.conn_of_joint
                        .get(j)
                        .and_then(|&c| pal.connectors.get(c))
                })
                .copied()
                .collect();
            mdl::DividedMesh {
                vertices,
                faces: p.faces,
                material_runs: p.runs,
                connectors,
            }
        })
        .collect()
}

/// A divided mesh being filled by [`split`].
#[derive(Default)]
struct Part {
    /// Skin joints of the part, in connector order, and the connector of each.
    joints: Vec<usize>,
    conn: HashMap<usize, usize>,
    /// Scene vertices of the part, and the part's index of each.
    verts: Vec<u32>,
    map: HashMap<u32, usize>,
    faces: Vec<mdl::Face>,
    runs: Vec<mdl::MaterialRun>,
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A whole unshared list becomes its faces in place (same allocation, (a, c, b)); a
    /// shared list, a range of a longer one and a list of broken triangles come back as they
    /// were.
    #[test]
    fn faces_in_place_only_for_whole_unshared_lists() {
        let list: Vec<u32> = vec![0, 1, 2, 3, 4, 5, 7, 8, 9];
        let at = list.as_ptr() as usize;
        let faces = faces_in_place(list.into()).unwrap();
        assert_eq!(faces, [[0, 2, 1], [3, 5, 4], [7, 9, 8]].map(mdl::Face));
        assert_eq!(faces.as_ptr() as usize, at, "made in place");

        let shared = std::sync::Arc::new(Array::from(vec![0, 1, 2]));
        let whole = Indices::shared(&shared, 0..3).unwrap();
        assert_eq!(faces_in_place(whole).unwrap_err().as_slice(), [0, 1, 2]);
        drop(shared);
        let long = std::sync::Arc::new(Array::from(vec![0, 1, 2, 3, 4, 5]));
        let range = Indices::shared(&long, 3..6).unwrap();
        drop(long);
        assert_eq!(faces_in_place(range).unwrap_err().as_slice(), [3, 4, 5]);
        let broken = Indices::from(vec![0, 1, 2, 3]);
        assert_eq!(faces_in_place(broken).unwrap_err().as_slice(), [0, 1, 2, 3]);
    }

    /// `Sources::whole_vertices` gives `Sources::vertex`'s bytes for every vertex, with each
    /// attribute and kept array present or absent, rigid or skinned, over whole chunks and a
    /// partial last one; and declines arrays of other lengths.
    #[test]
    fn whole_vertices_are_per_vertex() {
        let n = 3 * CHUNK + 17;
        let f = |k: usize, s: f32| ((k * 37 % 101) as f32 / 101.0 - 0.5) * s;
        let normal = |k: usize| {
            let v = [f(k, 1.0), f(k + 5, 1.0), 0.3];
            normalize3(v).unwrap_or([0.0, 1.0, 0.0])
        };
        let full = Vertices {
            positions: (0..n)
                .map(|k| [f(k, 9.0), f(k + 1, 9.0), f(k + 2, 9.0)])
                .collect(),
            normals: Some((0..n).map(normal).collect()),
            tangents: Some((0..n).map(|k| [1.0, 0.0, f(k, 0.1), -1.0]).collect()),
            uv0: Some((0..n).map(|k| [f(k, 1.0), f(k + 3, 1.0)]).collect()),
            uv1: Some((0..n).map(|k| [f(k + 7, 1.0), 0.5]).collect()),
            // Runs of equal colours and influences, and changes inside chunks.
            colors: Some(Colors::Floats(
                (0..n)
                    .map(|k| [(k / 50) as f32 / 9.0, 0.5, 1.0, 1.0])
                    .collect(),
            )),
            joints: Some((0..n).map(|k| [(k / 70 % 3) as u16, 1, 0, 0]).collect()),
            weights: Some(
                (0..n)
                    .map(|k| [0.75, 0.25 + (k / 90) as f32 * 0.1, 0.0, 0.0])
                    .collect(),
            ),
        };
        // Stored normals: the scene's bits, scaled copies, and unrelated ones.
        let kept_normals: Vec<[f32; 3]> = (0..n)
            .map(|k| match k % 3 {
                0 => normal(k),
                1 => normal(k).map(|x| x * 1.01),
                _ => [0.0, 0.0, 2.0],
            })
            .collect();
        let kept_binormals: Vec<[f32; 3]> = (0..n).map(|k| [f(k, 1.0), 0.0, 1.0]).collect();
        let conn = |j: usize| (j < 3).then_some(2 - j);
        for mask in 0u32..1 << 9 {
            let on = |bit: u32| mask & (1 << bit) != 0;
            let mut v = full.clone();
            v.normals = v.normals.filter(|_| on(0));
            v.tangents = v.tangents.filter(|_| on(1));
            v.uv0 = v.uv0.filter(|_| on(2));
            v.uv1 = v.uv1.filter(|_| on(3));
            v.colors = v.colors.filter(|_| on(4));
            if !on(5) {
                (v.joints, v.weights) = (None, None);
            }
            let stored = Stored {
                normals: on(6).then(|| Cow::Borrowed(&kept_normals[..])),
                binormals: on(7).then(|| Cow::Borrowed(&kept_binormals[..])),
            };
            let pal = Palette {
                connectors: vec![mdl::BoneConnector {
                    bone_index: 0,
                    offset: mdl::Matrix44::IDENTITY,
                }],
                conn_of_joint: vec![2, 1, 0],
                joint_of_conn: vec![2, 1, 0],
                joint_count: 3,
                rigid: on(8),
            };
            let src = Sources::new(&v, &stored, &pal);
            let (m1, m2) = (Memo::default(), Memo::default());
            let whole = src
                .whole_vertices(&conn, &m1)
                .expect("every array is whole");
            let each: Vec<mdl::Vertex> = (0..n).map(|k| src.vertex(k, &conn, &m2)).collect();
            assert!(
                bytemuck::cast_slice::<_, u8>(&whole) == bytemuck::cast_slice::<_, u8>(&each),
                "mask {mask:09b}"
            );
        }
        let mut short = full.clone();
        short.uv1 = Some(vec![[0.0; 2]; n - 1].into());
        let pal = Palette {
            connectors: Vec::new(),
            conn_of_joint: Vec::new(),
            joint_of_conn: Vec::new(),
            joint_count: 0,
            rigid: true,
        };
        let none = Stored::default();
        let src = Sources::new(&short, &none, &pal);
        assert!(src.whole_vertices(&conn, &Memo::default()).is_none());
    }

    /// `keep_stored` makes `stored_or_scene`'s choice for awkward stored and scene normals:
    /// zero, ±0, denormal, NaN, infinite, huge, tiny, almost unit, and values at `close`'s
    /// tolerance, every pair of a set of vectors built from them.
    #[test]
    fn keep_stored_is_stored_or_scene() {
        let scalars = [
            0.0f32,
            -0.0,
            f32::from_bits(1),
            -f32::from_bits(0x007f_ffff),
            f32::MIN_POSITIVE,
            1e-13,
            1e-7,
            0.577_350_3,
            0.577_350_26,
            0.6,
            0.8,
            1.0,
            1.0 + f32::EPSILON,
            1.0 - 1e-5,
            1.0 + 1.1e-5,
            -1.0,
            2.0,
            1e19,
            1e20,
            f32::MAX,
            f32::INFINITY,
            f32::NEG_INFINITY,
            f32::NAN,
            f32::from_bits(0xffc0_0001),
        ];
        let mut vectors: Vec<[f32; 3]> = Vec::new();
        for (i, &a) in scalars.iter().enumerate() {
            for &b in scalars.iter().skip(i % 5).step_by(5) {
                vectors.push([a, b, scalars[(i * 7) % scalars.len()]]);
                vectors.push([b, 0.0, a]);
            }
        }
        // Unit vectors and near misses of each, so that the tolerance compare decides.
        let units: Vec<[f32; 3]> = vectors.iter().filter_map(|v| normalize3(*v)).collect();
        for u in units {
            vectors.push(u);
            for d in [1e-5f32, 1.2e-5, -9e-6, 3e-7] {
                vectors.push([u[0] + d, u[1], u[2] - d]);
                vectors.push(u.map(|x| x * (1.0 + d)));
            }
        }
        let (mut kept, mut stored) = (0usize, 0usize);
        for raw in &vectors {
            let raws = vec![*raw; vectors.len()];
            for (start, (rs, ns)) in raws.chunks(CHUNK).zip(vectors.chunks(CHUNK)).enumerate() {
                let mut keep = [false; CHUNK];
                keep_stored(rs, ns, &mut keep);
                for (k, (r, n)) in rs.iter().zip(ns).enumerate() {
                    let want = stored_or_scene(*r, *n);
                    let bits = |v: [f32; 3]| v.map(f32::to_bits);
                    let got = if keep[k] { *r } else { *n };
                    assert_eq!(bits(got), bits(want), "{r:?} {n:?} at {start}/{k}");
                    // The choice itself, where the two arms differ.
                    if bits(*r) != bits(*n) {
                        kept += usize::from(keep[k]);
                        stored += usize::from(bits(want) == bits(*r));
                    }
                }
            }
        }
        assert_eq!(kept, stored);
        // Both choices are exercised with different bits.
        assert!(kept > 100, "{kept}");
    }

    #[test]
    fn byte_units_are_the_division_and_round_trip() {
        // `Sources::same_bits` relies on both for every colour byte.
        for b in 0..=255u8 {
            let unit = BYTE_UNIT.get(usize::from(b)).copied().unwrap_or(f32::NAN);
            assert_eq!(unit.to_bits(), (f32::from(b) / 255.0).to_bits(), "byte {b}");
            assert_eq!(unit_byte(unit), b, "byte {b}");
        }
    }
}
