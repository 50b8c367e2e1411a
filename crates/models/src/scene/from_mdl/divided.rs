//! One MDL divided mesh → a scene mesh, its skin and the node that holds them (the module
//! documentation of `from_mdl` says how). The vertices are read from memory once: a large
//! mesh's vertices are 68 bytes each, and every attribute or check in a pass of its own over
//! all of them would read them all again; so each pass is over a chunk that stays in cache.

use super::{influences, warning};
use crate::scene::raw64;
use crate::scene::shared::release;
use crate::scene::validate::unit3;
use crate::scene::{transpose, Mesh, Node, Primitive, Scene, SceneWarning, Skin, Vertices};
use mdl_format as mdl;
use serde_json::{json, Map};
use std::borrow::Cow;
use std::collections::HashMap;

/// Where a divided mesh goes: its MDL mesh's first scene material and material count, and the
/// bones.
pub(super) struct Target<'a> {
    pub(super) material_base: usize,
    pub(super) material_count: usize,
    pub(super) bone_count: usize,
    pub(super) root_of: &'a dyn Fn(usize) -> usize,
}

/// A divided mesh's skin: its connectors' bones, deduplicated.
struct Palette {
    /// Bone of each joint.
    joints: Vec<usize>,
    /// Inverse bind matrix of each joint (its first connector's offset, transposed).
    ibms: Vec<[f32; 16]>,
    /// Joint of each connector (`u32::MAX`: its bone does not exist).
    conn_to_joint: Vec<u32>,
}

/// Converts divided mesh `di` of MDL mesh `mi` into `scene`. Returns whether any binormal is
/// not zero (the binormal note), whether or not the mesh is exported.
pub(super) fn convert_divided(
    (mi, di): (usize, usize),
    mut part: Cow<'_, mdl::DividedMesh>,
    target: &Target<'_>,
    scene: &mut Scene,
    warnings: &mut Vec<SceneWarning>,
) -> bool {
    let here = format!("mdl mesh {mi} divided {di}");
    let pal = palette(&here, &part.connectors, target.bone_count, warnings);
    let (v, scan) = divided_vertices(&part.vertices, &pal.conn_to_joint, pal.joints.len());
    let binormal = scan.binormal;
    if scan.bad_weight > 0 {
        warnings.push(warning(
            &here,
            format!(
                "{} vertices whose weights do not sum to 255 or use missing \
             connectors (renormalised)",
                scan.bad_weight
            ),
        ));
    }
    let primitives = primitives(&here, &part, target, warnings);
    // The faces are converted: an owned part frees them before its extras are made.
    release(&mut part, |p| p.faces = Vec::new());
    if primitives.is_empty() {
        warnings.push(warning(&here, "no triangles; not exported"));
        return binormal;
    }
    let mesh = scene.meshes.len();
    let name = format!("mesh{mi}_{di}");
    let extras = divided_extras((mi, di), &part, &v, scan, &pal, &mut scene.blobs);
    scene.meshes.push(Mesh {
        name: name.clone(),
        vertices: v,
        primitives,
        extras,
    });
    let skin = if pal.joints.is_empty() {
        None
    } else {
        let roots: Vec<usize> = pal.joints.iter().map(|&j| (target.root_of)(j)).collect();
        let skeleton = roots
            .first()
            .copied()
            .filter(|r| roots.iter().all(|x| x == r));
        scene.skins.push(Skin {
            name: format!("{name}_skin"),
            joints: pal.joints,
            inverse_bind_matrices: pal.ibms,
            skeleton,
        });
        Some(scene.skins.len() - 1)
    };
    let node = scene.nodes.len();
    let mut extras = Map::new();
    extras.insert("mdl_mesh_node".into(), json!(true));
    scene.nodes.push(Node {
        name,
        mesh: Some(mesh),
        skin,
        extras,
        ..Node::default()
    });
    scene.roots.push(node);
    binormal
}

/// Connectors → unique joints (a bone named twice is one joint, its first offset kept).
fn palette(
    here: &str,
    connectors: &[mdl::BoneConnector],
    bone_count: usize,
    warnings: &mut Vec<SceneWarning>,
) -> Palette {
    let mut pal = Palette {
        joints: Vec::new(),
        ibms: Vec::new(),
        conn_to_joint: Vec::with_capacity(connectors.len()),
    };
    let mut joint_of_bone: HashMap<usize, usize> = HashMap::new();
    for (k, c) in connectors.iter().enumerate() {
        let Some(b) = usize::try_from(c.bone_index)
            .ok()
            .filter(|&b| b < bone_count)
        else {
            warnings.push(warning(
                &format!("{here} connector {k}"),
                format!(
                    "bone {} does not exist; its weights are dropped",
                    c.bone_index
                ),
            ));
            pal.conn_to_joint.push(u32::MAX);
            continue;
        };
        let ibm = transpose(c.offset.0);
        if let Some(&j) = joint_of_bone.get(&b) {
            if pal.ibms.get(j) != Some(&ibm) {
                warnings.push(warning(
                    &format!("{here} connector {k}"),
                    format!(
                        "bone {b} appears twice with different offsets; the \
                     first is used"
                    ),
                ));
            }
            pal.conn_to_joint.push(u32::try_from(j).unwrap_or(u32::MAX));
        } else {
            let next = pal.joints.len();
            pal.conn_to_joint
                .push(u32::try_from(next).unwrap_or(u32::MAX));
            joint_of_bone.insert(b, next);
            pal.joints.push(b);
            pal.ibms.push(ibm);
        }
    }
    if connectors.len() > 32 {
        warnings.push(warning(
            here,
            format!(
                "{} bone connectors; the engine uses only the first 32, all are exported",
                connectors.len()
            ),
        ));
    }
    pal
}

/// Primitives: one per material run, and one without a material for the faces after the
/// last run.
fn primitives(
    here: &str,
    part: &mdl::DividedMesh,
    target: &Target<'_>,
    warnings: &mut Vec<SceneWarning>,
) -> Vec<Primitive> {
    let n = part.vertices.len();
    let mut primitives = Vec::new();
    let mut face = 0usize;
    let mut bad_faces = 0usize;
    for (r, run) in part.material_runs.iter().enumerate() {
        let count = usize::try_from(run.face_count).unwrap_or(0);
        let end = face.saturating_add(count).min(part.faces.len());
        let indices = triangles(
            part.faces.get(face..end).unwrap_or_default(),
            n,
            &mut bad_faces,
        );
        face = end;
        let material = usize::try_from(run.material_index)
            .ok()
            .filter(|&m| m < target.material_count)
            .map(|m| target.material_base + m);
        if material.is_none() {
            warnings.push(warning(
                &format!("{here} run {r}"),
                format!(
                    "material {} does not exist; default material",
                    run.material_index
                ),
            ));
        }
        if !indices.is_empty() {
            primitives.push(Primitive {
                indices: indices.into(),
                material,
            });
        }
    }
    if face < part.faces.len() {
        warnings.push(warning(
            here,
            format!(
                "{} faces in no material run; exported without a material",
                part.faces.len() - face
            ),
        ));
        let indices = triangles(
            part.faces.get(face..).unwrap_or_default(),
            n,
            &mut bad_faces,
        );
        if !indices.is_empty() {
            primitives.push(Primitive {
                indices: indices.into(),
                material: None,
            });
        }
    }
    if bad_faces > 0 {
        warnings.push(warning(
            here,
            format!("{bad_faces} faces with out-of-range indices dropped"),
        ));
    }
    primitives
}

/// The index list of `faces` with glTF's winding (`(a, b, c)` → `(a, c, b)`), without the faces
/// that refer to a vertex at or beyond `n` (counted in `bad`). Nearly always every index is in
/// range: one read-only pass over the indices as one flat array, without an early exit and
/// with two plain comparisons per index, says so (it vectorises), and the list is then one
/// exact-size map; the per-face check is for the rare file that needs it.
fn triangles(faces: &[mdl::Face], n: usize, bad: &mut usize) -> Vec<u32> {
    // Every non-negative i32 is below a limit clamped to u32::MAX.
    let limit = u32::try_from(n).unwrap_or(u32::MAX);
    let corners: &[i32] = bytemuck::cast_slice(faces);
    if corners
        .iter()
        .fold(true, |ok, &i| ok & (i >= 0) & ((i as u32) < limit))
    {
        // In range, so below `n` ≤ the vertices' count: each fits a u32 as it is.
        let swapped = faces
            .iter()
            .map(|f| [f.0[0], f.0[2], f.0[1]].map(|i| i as u32));
        return swapped.collect::<Vec<[u32; 3]>>().into_flattened();
    }
    let mut indices = Vec::with_capacity(faces.len() * 3);
    for fc in faces {
        match fc
            .0
            .map(|i| u32::try_from(i).ok().filter(|&i| (i as usize) < n))
        {
            [Some(a), Some(b), Some(c)] => indices.extend([a, c, b]),
            _ => *bad += 1,
        }
    }
    indices
}

/// `b / 255` (a colour byte as a unit float), from `to_mdl`'s table.
fn unit_of(b: u8) -> f32 {
    crate::scene::to_mdl::BYTE_UNIT
        .get(usize::from(b))
        .copied()
        .unwrap_or(1.0)
}

/// What the pass over a divided mesh's vertices found besides the scene's columns.
#[derive(Default)]
struct Scan {
    /// Some binormal is not zero as a number (the note: −0 is zero, NaN is not).
    binormal: bool,
    /// Some binormal is not zero to the bit (`mdl_binormals` is kept).
    binormal_bits: bool,
    /// Some sub-UV is not zero as a number: TEXCOORD_1 is exported.
    sub_uv: bool,
    /// Some normal would not come back bit for bit (`mdl_normals` is kept).
    normals_changed: bool,
    /// Some position, UV or sub-UV is not finite.
    non_finite: bool,
    /// Vertices whose influences were cleaned.
    bad_weight: usize,
    /// The binormals' bytes, when gathered in the pass.
    binormals: Option<Vec<u8>>,
}

/// True when validation's renormalisation (what glTF gets) or `to_mdl`'s own test of a stored
/// normal would change `n`: then the file's normals are kept, to come back bit for bit.
fn normal_changes(n: [f32; 3]) -> bool {
    let bits = |v: [f32; 3]| v.map(f32::to_bits);
    let validated = unit3(n).unwrap_or([0.0, 1.0, 0.0]);
    bits(validated) != bits(n) || bits(crate::scene::to_mdl::exported_normal(n)) != bits(n)
}

/// Vertices taken at a time by [`divided_vertices`]: 64 × 68 bytes stay in the L1 cache while
/// each column and check makes its own pass over them, so memory is read once.
const CHUNK: usize = 64;

/// A divided mesh's scene vertices and what the extras need to know of them ([`Scan`]), a
/// [`CHUNK`] of vertices at a time: each column is extended from the chunk (exactly sized and
/// without zeroing first: the extends vectorise and check their capacity once a chunk) and
/// each check is a branch-free fold over it. Non-finite positions and UVs and non-unit normals
/// are kept as read: `scene::validate` repairs (and says) them once. With `joint_count` 0 the
/// mesh is rigid (no joints or weights). TEXCOORD_1 only exists when some sub-UV is not zero:
/// its column is gathered then, in a second pass (FBX2MDL writes zeros).
fn divided_vertices(
    vertices: &[mdl::Vertex],
    conn_to_joint: &[u32],
    joint_count: usize,
) -> (Vertices, Scan) {
    let n = vertices.len();
    let skinned = joint_count > 0;
    let mut positions = Vec::with_capacity(n);
    let mut normals = Vec::with_capacity(n);
    let mut uv0 = Vec::with_capacity(n);
    let mut colors = Vec::with_capacity(n);
    let skin_len = if skinned { n } else { 0 };
    let (mut js, mut ws) = (Vec::with_capacity(skin_len), Vec::with_capacity(skin_len));
    // Binormals are nearly always all zero or all not: gathered in this pass when the first
    // is not zero, else by `divided_extras` if a later one is not.
    let gather_binormals = vertices
        .first()
        .is_some_and(|x| x.binormal.map(f32::to_bits) != [0; 3]);
    let mut binormals = Vec::with_capacity(if gather_binormals { n * 12 } else { 0 });
    let mut scan = Scan::default();
    // (raw bone indices, raw weights) → (joints, weights, repaired).
    type Raw = ([u8; 4], [u8; 4]);
    type Weighted = ([u16; 4], [f32; 4], bool);
    let mut last_weights: Option<(Raw, Weighted)> = None;
    let mut last_color: Option<([u8; 4], [f32; 4])> = None;
    let finite = |c: &[f32]| c.iter().fold(true, |ok, x| ok & x.is_finite());
    let not_zero = |c: &[f32]| c.iter().fold(false, |any, &x| any | (x != 0.0));
    let mut all_finite = true;
    for chunk in vertices.chunks(CHUNK) {
        positions.extend(chunk.iter().map(|x| x.position));
        normals.extend(chunk.iter().map(|x| x.normal));
        uv0.extend(chunk.iter().map(|x| x.uv));
        // Looked up: the same bits as `b / 255` (`to_mdl` relies on them); neighbours mostly
        // share their colour.
        colors.extend(chunk.iter().map(|x| match last_color {
            Some((raw, unit)) if raw == x.color => unit,
            _ => {
                let unit = x.color.map(unit_of);
                last_color = Some((x.color, unit));
                unit
            }
        }));
        all_finite &= chunk.iter().fold(true, |ok, x| {
            ok & finite(&x.position) & finite(&x.uv) & finite(&x.sub_uv)
        });
        scan.binormal |= chunk
            .iter()
            .fold(false, |any, x| any | not_zero(&x.binormal));
        scan.binormal_bits |= chunk.iter().fold(0, |any, x| {
            any | x.binormal[0].to_bits() | x.binormal[1].to_bits() | x.binormal[2].to_bits()
        }) != 0;
        scan.sub_uv |= chunk.iter().fold(false, |any, x| any | not_zero(&x.sub_uv));
        if gather_binormals {
            for x in chunk {
                binormals.extend_from_slice(bytemuck::bytes_of(&x.binormal));
            }
        }
        // Decided once: the (costlier) test stops at the first normal that changes.
        if !scan.normals_changed {
            scan.normals_changed = chunk.iter().any(|x| normal_changes(x.normal));
        }
        if skinned {
            for x in chunk {
                // Neighbouring vertices mostly share their influences (a rigid part: all of
                // them): the last vertex's result is reused while the raw bytes are the same.
                let raw = (x.bone_indices, x.weights);
                let (j, w, fixed) = match last_weights {
                    Some((from, out)) if from == raw => out,
                    _ => {
                        let (j, w, fixes) =
                            influences(x.bone_indices, x.weights, conn_to_joint, joint_count);
                        let out = (j, w, fixes.any());
                        last_weights = Some((raw, out));
                        out
                    }
                };
                js.push(j);
                ws.push(w);
                scan.bad_weight += usize::from(fixed);
            }
        }
    }
    scan.non_finite = !all_finite;
    scan.binormals = gather_binormals.then_some(binormals);
    let v = Vertices {
        positions,
        normals: Some(normals),
        uv0: Some(uv0),
        uv1: scan
            .sub_uv
            .then(|| vertices.iter().map(|x| x.sub_uv).collect()),
        colors: Some(colors),
        colors_are_bytes: true,
        joints: skinned.then_some(js),
        weights: skinned.then_some(ws),
        ..Vertices::default()
    };
    (v, scan)
}

/// What a divided mesh's scene mesh cannot say, for `to_mdl`: which MDL mesh and divided mesh
/// it was, its material runs (empty runs have no primitive) and connectors (repeated bones),
/// its binormals (when any is not zero) and normals (when any is not unit length to the bit),
/// and, only when `to_mdl` could not rebuild every vertex byte for byte from the scene and
/// those (zero-weight slots, original bone indices, weights not summing to 255, non-finite
/// numbers), the raw vertices. Arrays are base64 of their bytes, or blobs when large
/// (`scene/blob.rs`).
fn divided_extras(
    (mi, di): (usize, usize),
    part: &mdl::DividedMesh,
    scene_vertices: &Vertices,
    mut scan: Scan,
    pal: &Palette,
    blobs: &mut Vec<Vec<u8>>,
) -> Map<String, serde_json::Value> {
    let runs: Vec<[i32; 2]> = part
        .material_runs
        .iter()
        .map(|r| [r.material_index, r.face_count])
        .collect();
    let connectors: &[f32] = bytemuck::cast_slice(&part.connectors);
    let mut extras = Map::new();
    extras.insert("mdl_mesh".into(), json!(mi));
    extras.insert("mdl_divided".into(), json!(di));
    extras.insert("mdl_runs".into(), json!(runs));
    extras.insert("mdl_connectors".into(), raw64::put_f32(blobs, connectors));
    // Each array is gathered straight into the bytes of its blob (one copy, not a float
    // array copied again into bytes).
    let gather = |field: fn(&mdl::Vertex) -> &[f32; 3]| -> Vec<u8> {
        let mut bytes = Vec::with_capacity(part.vertices.len() * 12);
        for x in part.vertices.iter() {
            bytes.extend_from_slice(bytemuck::bytes_of(field(x)));
        }
        bytes
    };
    if scan.binormal_bits {
        let bytes = match scan.binormals.take() {
            Some(bytes) => bytes,
            None => gather(|x| &x.binormal),
        };
        extras.insert("mdl_binormals".into(), raw64::put(blobs, bytes));
    }
    if scan.normals_changed {
        extras.insert(
            "mdl_normals".into(),
            raw64::put(blobs, gather(|x| &x.normal)),
        );
    }
    // The scene still holds non-finite positions and UVs as read (validation sets them to 0
    // later), so `needs_raw_vertices` would find them unchanged: they decide here.
    let joint_count = pal.joints.len();
    if scan.non_finite
        || crate::scene::to_mdl::needs_raw_vertices(
            scene_vertices,
            part,
            &pal.conn_to_joint,
            joint_count,
        )
    {
        let vertices: Vec<u8> = bytemuck::cast_slice(&part.vertices).to_vec();
        extras.insert("mdl_vertices".into(), raw64::put(blobs, vertices));
    }
    extras
}
