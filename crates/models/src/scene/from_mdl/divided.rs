//! One MDL divided mesh → a scene mesh, its skin and the node that holds them (the module
//! documentation of `from_mdl` says how). The vertices are read from memory once: a large
//! mesh's vertices are 68 bytes each, and every attribute or check in a pass of its own over
//! all of them would read them all again; so each pass is over a chunk that stays in cache.

use super::{influences, warning};
use crate::scene::raw64;
use crate::scene::shared::release;
use crate::scene::to_mdl::{derived_influence, rigid_influence, Quantized};
use crate::scene::validate::near_unit;
use crate::scene::Array;
use crate::scene::{
    transpose, Colors, Indices, Mesh, Node, Primitive, Scene, SceneWarning, Skin, Vertices,
};
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
    let has_connectors = !part.connectors.is_empty();
    // The faces first, and an owned part frees them at once: a large mesh's faces and their
    // triangles are then not alive beside its vertex columns (the conversion's peak memory).
    // Their warnings still come after the vertices'.
    let mut face_warnings = Vec::new();
    let primitives = primitives(&here, &part, target, &mut face_warnings);
    release(&mut part, |p| p.faces = Vec::new());
    let (v, scan) = divided_vertices(&part.vertices, &pal, has_connectors);
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
    warnings.append(&mut face_warnings);
    if primitives.is_empty() {
        warnings.push(warning(&here, "no triangles; not exported"));
        return binormal;
    }
    let mesh = scene.meshes.len();
    let name = format!("mesh{mi}_{di}");
    let extras = divided_extras((mi, di), &part, &v, scan, &mut scene.blobs);
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
                indices: Indices::checked(indices, n),
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
                indices: Indices::checked(indices, n),
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
    /// Some vertex's skin bytes or sub-UV bits would not come back from the scene (with the
    /// stored normals and binormals): `mdl_vertices` is kept.
    raw_needed: bool,
    /// The binormals' bytes, when gathered in the pass.
    binormals: Option<Vec<u8>>,
}

/// True when validation (what glTF gets) or `to_mdl`'s own test of a stored normal would
/// change `n`: then the file's normals are kept, to come back bit for bit. Both keep a normal
/// that is unit already (`validate::near_unit`) and change every other one.
fn normal_changes(n: [f32; 3]) -> bool {
    !near_unit(n)
}

/// Vertices taken at a time by [`divided_vertices`]: 64 × 68 bytes stay in the L1 cache while
/// each column and check makes its own pass over them, so memory is read once.
const CHUNK: usize = 64;

/// A divided mesh's scene vertices and what the extras need to know of them ([`Scan`]), a
/// [`CHUNK`] of vertices at a time: one loop over the chunk copies its columns into a stack
/// buffer and makes every check as a branch-free fold ([`Folds`]); each column is then
/// extended from the buffer (exactly sized and without zeroing first: one copy and capacity
/// check a chunk). Non-finite positions and UVs and non-unit normals
/// are kept as read: `scene::validate` repairs (and says) them once. Without joints in `pal`
/// the mesh is rigid (no joints or weights). TEXCOORD_1 only exists when some sub-UV is not
/// zero: its column is gathered then, in a second pass (FBX2MDL writes zeros).
///
/// The same pass decides whether `to_mdl` would give back every vertex byte for byte
/// ([`Scan::raw_needed`]): the scene keeps each position, normal, binormal (stored), UV and
/// colour (its bytes) to the bit, so only the skin bytes ([`SkinPass`])
/// and a −0 sub-UV without TEXCOORD_1 can differ (the full derivation, `to_mdl`'s
/// `needs_raw_vertices`, is kept by the tests to prove it on awkward vertices).
fn divided_vertices(
    vertices: &[mdl::Vertex],
    pal: &Palette,
    has_connectors: bool,
) -> (Vertices, Scan) {
    let n = vertices.len();
    let skinned = !pal.joints.is_empty();
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
    let mut skin = SkinPass::new(pal, has_connectors);
    let mut last_color: [u8; 4] = [255; 4];
    let mut all = Folds::default();
    let mut cols = Columns::default();
    for chunk in vertices.chunks(CHUNK) {
        let (skin_key, skin_q) = skin.key();
        let f = Folds::of(chunk, &mut cols, last_color, skin_key, skin_q);
        all.merge(&f);
        let len = chunk.len();
        positions.extend_from_slice(cols.positions.get(..len).unwrap_or_default());
        normals.extend_from_slice(cols.normals.get(..len).unwrap_or_default());
        uv0.extend_from_slice(cols.uv.get(..len).unwrap_or_default());
        if gather_binormals {
            let chunk_binormals = cols.binormals.get(..len).unwrap_or_default();
            binormals.extend_from_slice(bytemuck::cast_slice(chunk_binormals));
        }
        // The file's bytes; neighbours mostly share their colour (a whole chunk of the last
        // one's: one fill).
        if f.colors == 0 {
            colors.extend(std::iter::repeat_n(last_color, chunk.len()));
        } else {
            colors.extend(chunk.iter().map(|x| x.color));
            last_color = chunk.last().map_or(last_color, |x| x.color);
        }
        // Decided once: the (costlier) test stops at the first normal that changes.
        if !scan.normals_changed {
            scan.normals_changed = chunk.iter().any(|x| normal_changes(x.normal));
        }
        if skinned {
            skin.chunk(chunk, &f, &mut js, &mut ws, &mut scan.bad_weight);
        } else {
            skin.differs |= f.skin;
        }
    }
    // A number is zero when its bits but the sign are (NaN is not).
    let magnitude = |bits: u32| bits & 0x7fff_ffff != 0;
    scan.binormal = magnitude(all.binormal);
    scan.binormal_bits = all.binormal != 0;
    scan.sub_uv = magnitude(all.sub_uv);
    scan.non_finite = all.non_finite.is_nan();
    // Without TEXCOORD_1, a −0 sub-UV does not come back.
    scan.raw_needed = skin.differs != 0 || (!scan.sub_uv && all.sub_uv != 0);
    scan.binormals = gather_binormals.then_some(binormals);
    let v = Vertices {
        positions: positions.into(),
        normals: Some(normals.into()),
        uv0: Some(uv0.into()),
        uv1: scan
            .sub_uv
            .then(|| vertices.iter().map(|x| x.sub_uv).collect()),
        colors: Some(Colors::Bytes(colors.into())),
        joints: skinned.then_some(js.into()),
        weights: skinned.then_some(ws.into()),
        ..Vertices::default()
    };
    (v, scan)
}

/// A chunk's columns, copied in the pass of its [`Folds`] (one loop over the chunk, not one per
/// column) and appended to the mesh's a column at a time.
struct Columns {
    positions: [[f32; 3]; CHUNK],
    normals: [[f32; 3]; CHUNK],
    uv: [[f32; 2]; CHUNK],
    binormals: [[f32; 3]; CHUNK],
}

impl Default for Columns {
    fn default() -> Self {
        Columns {
            positions: [[0.0; 3]; CHUNK],
            normals: [[0.0; 3]; CHUNK],
            uv: [[0.0; 2]; CHUNK],
            binormals: [[0.0; 3]; CHUNK],
        }
    }
}

/// The checks of [`divided_vertices`] over a chunk, in one branch-free pass with the copy of
/// its columns (each in a pass of its own was a loop more per check).
#[derive(Default)]
struct Folds {
    /// Every binormal bit, OR-ed.
    binormal: u32,
    /// Every sub-UV bit, OR-ed.
    sub_uv: u32,
    /// The sum of every position, UV and sub-UV times 0: NaN when some is not finite (a finite
    /// number times 0 is ±0, an infinite or NaN one NaN).
    non_finite: f32,
    /// Not zero when some colour is not the given one.
    colors: u32,
    /// Not zero when some raw skin is not the given one ([`raw_skin`]).
    skins: u64,
    /// Not zero when some vertex's skin bytes are not the given ones ([`skin_diff`]).
    skin: u32,
}

impl Folds {
    /// The folds of `chunk`, whose columns it copies into `cols` in the same loop.
    #[inline(always)]
    fn of(
        chunk: &[mdl::Vertex],
        cols: &mut Columns,
        color: [u8; 4],
        skin: u64,
        q: Quantized,
    ) -> Self {
        let color = u32::from_ne_bytes(color);
        let into = cols
            .positions
            .iter_mut()
            .zip(cols.normals.iter_mut())
            .zip(cols.uv.iter_mut())
            .zip(cols.binormals.iter_mut());
        let bits = |v: &[f32]| v.iter().fold(0, |any, x| any | x.to_bits());
        let zeros = |v: &[f32]| v.iter().fold(0.0, |sum, x| sum + x * 0.0);
        chunk
            .iter()
            .zip(into)
            .fold(Folds::default(), |mut f, (x, (((p, n), u), b))| {
                (*p, *n, *u, *b) = (x.position, x.normal, x.uv, x.binormal);
                f.binormal |= bits(&x.binormal);
                f.sub_uv |= bits(&x.sub_uv);
                f.non_finite += zeros(&x.position) + zeros(&x.uv) + zeros(&x.sub_uv);
                f.colors |= u32::from_ne_bytes(x.color) ^ color;
                f.skins |= raw_skin(x) ^ skin;
                f.skin |= skin_diff(x, q);
                f
            })
    }

    fn merge(&mut self, f: &Folds) {
        self.binormal |= f.binormal;
        self.sub_uv |= f.sub_uv;
        self.non_finite += f.non_finite;
    }
}

/// A vertex's raw skin (bone index and weight bytes) as one word, to compare neighbours.
#[inline(always)]
fn raw_skin(x: &mdl::Vertex) -> u64 {
    u64::from(u32::from_ne_bytes(x.bone_indices)) << 32 | u64::from(u32::from_ne_bytes(x.weights))
}

/// Zero when `x`'s weight, connector and original bone bytes are `q`'s.
#[inline(always)]
fn skin_diff(x: &mdl::Vertex, (w, c, o): Quantized) -> u32 {
    let word = u32::from_ne_bytes;
    (word(x.weights) ^ word(w))
        | (word(x.bone_indices) ^ word(c))
        | (word(x.original_bone_indices) ^ word(o))
}

/// One raw skin's conversion: the scene's joints and weights, whether they were repaired, and
/// the bytes `to_mdl` derives back from them.
type Converted = ([u16; 4], [f32; 4], bool, Quantized);

/// The skins of a divided mesh's vertices, a chunk at a time, both ways: into the scene's
/// joints and weights, and whether `to_mdl` gives every vertex's skin bytes back from them.
struct SkinPass<'a> {
    conn_to_joint: &'a [u32],
    joint_count: usize,
    /// Connector of each joint (its first), as `to_mdl` maps a joint back.
    conn_of_joint: Vec<usize>,
    /// The bytes `to_mdl` writes for every vertex of a rigid mesh (no joints).
    rigid: Quantized,
    /// The last raw skin converted and its conversion: neighbouring vertices mostly share
    /// their influences (a rigid part: all of them).
    last: Option<(u64, Converted)>,
    /// Not zero when some vertex's skin bytes would not come back.
    differs: u32,
}

impl<'a> SkinPass<'a> {
    fn new(pal: &'a Palette, has_connectors: bool) -> Self {
        let joint_count = pal.joints.len();
        // The first connector of each joint, as `to_mdl` maps them (every joint has one).
        let mut conn_of_joint = vec![0; joint_count];
        for (c, &j) in pal.conn_to_joint.iter().enumerate().rev() {
            if let Some(slot) = conn_of_joint.get_mut(j as usize) {
                *slot = c;
            }
        }
        SkinPass {
            conn_to_joint: &pal.conn_to_joint,
            joint_count,
            conn_of_joint,
            rigid: rigid_influence(has_connectors),
            last: None,
            differs: 0,
        }
    }

    fn convert(&self, x: &mdl::Vertex) -> Converted {
        let (j, w, fixes) = influences(
            x.bone_indices,
            x.weights,
            self.conn_to_joint,
            self.joint_count,
        );
        (
            j,
            w,
            fixes.any(),
            derived_influence(j, w, &self.conn_of_joint),
        )
    }

    /// The raw skin and bytes a chunk's [`Folds`] compare with: the last one converted (none
    /// yet: any, the folds are not used), or a rigid mesh's bytes.
    fn key(&self) -> (u64, Quantized) {
        match self.last {
            Some((raw, (.., q))) if self.joint_count > 0 => (raw, q),
            _ => (0, self.rigid),
        }
    }

    /// A skinned mesh's chunk: its joints and weights onto `js` and `ws`, its repaired
    /// vertices counted in `bad`. A chunk of one raw skin, the last one's (a rigid part, every
    /// chunk of a one-joint skin), is one fill, its check the chunk's `folds`.
    fn chunk(
        &mut self,
        chunk: &[mdl::Vertex],
        folds: &Folds,
        js: &mut Vec<[u16; 4]>,
        ws: &mut Vec<[f32; 4]>,
        bad: &mut usize,
    ) {
        if let Some((_, (j, w, fixed, _))) = self.last.filter(|_| folds.skins == 0) {
            js.extend(std::iter::repeat_n(j, chunk.len()));
            ws.extend(std::iter::repeat_n(w, chunk.len()));
            *bad += usize::from(fixed) * chunk.len();
            self.differs |= folds.skin;
            return;
        }
        for x in chunk {
            let raw = raw_skin(x);
            let (j, w, fixed, q) = match self.last {
                Some((from, out)) if from == raw => out,
                _ => {
                    let out = self.convert(x);
                    self.last = Some((raw, out));
                    out
                }
            };
            js.push(j);
            ws.push(w);
            *bad += usize::from(fixed);
            self.differs |= skin_diff(x, q);
        }
    }
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
    blobs: &mut Vec<Array<u8>>,
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
        // The scene's normals are the file's, bit for bit, and contiguous: one copy.
        let bytes = match scene_vertices.normals.as_deref() {
            Some(normals) if normals.len() == part.vertices.len() => {
                bytemuck::cast_slice::<[f32; 3], u8>(normals).to_vec()
            }
            _ => gather(|x| &x.normal),
        };
        extras.insert("mdl_normals".into(), raw64::put(blobs, bytes));
    }
    // The scene still holds non-finite positions and UVs as read (validation sets them to 0
    // later), so the pass's check would find them unchanged: they decide here.
    if scan.non_finite || scan.raw_needed {
        let vertices: Vec<u8> = bytemuck::cast_slice(&part.vertices).to_vec();
        extras.insert("mdl_vertices".into(), raw64::put(blobs, vertices));
    }
    extras
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Skins (weights, connectors, original bones) of every awkward kind: canonical ones,
    /// zero-weight slots with and without a bone index, repeated and missing connectors,
    /// weights not summing to 255 or in another slot order, wrong original indices.
    const SKINS: [([u8; 4], [u8; 4], [u8; 4]); 18] = [
        ([255, 0, 0, 0], [0; 4], [0; 4]),
        ([255, 0, 0, 0], [1, 0, 0, 0], [1, 0, 0, 0]),
        ([255, 0, 0, 0], [0, 2, 0, 0], [0; 4]),
        ([255, 0, 0, 0], [0; 4], [0, 0, 3, 0]),
        ([128, 127, 0, 0], [0, 1, 0, 0], [0, 1, 0, 0]),
        ([128, 127, 0, 0], [0, 1, 0, 0], [0, 0, 0, 0]),
        ([127, 128, 0, 0], [1, 0, 0, 0], [1, 0, 0, 0]),
        ([128, 127, 0, 0], [0, 0, 0, 0], [0, 0, 0, 0]),
        ([100, 100, 0, 0], [0, 1, 0, 0], [0, 1, 0, 0]),
        ([0, 0, 0, 0], [0; 4], [0; 4]),
        ([0, 255, 0, 0], [0, 1, 0, 0], [1, 0, 0, 0]),
        ([64, 64, 64, 63], [0, 1, 2, 3], [0, 1, 2, 3]),
        ([64, 64, 64, 63], [3, 2, 1, 0], [3, 2, 1, 0]),
        ([255, 0, 0, 0], [2, 0, 0, 0], [2, 0, 0, 0]),
        ([255, 0, 0, 0], [3, 0, 0, 0], [3, 0, 0, 0]),
        ([255, 0, 0, 0], [9, 0, 0, 0], [9, 0, 0, 0]),
        ([200, 55, 0, 0], [2, 3, 0, 0], [0, 2, 0, 0]),
        ([85, 85, 85, 0], [0, 1, 4, 0], [0, 1, 2, 0]),
    ];
    const SUB_UVS: [[f32; 2]; 5] = [
        [0.0, 0.0],
        [-0.0, 0.0],
        [0.0, -0.0],
        [0.5, 0.0],
        [f32::NAN, 0.0],
    ];
    const FLOATS: [f32; 9] = [
        0.0,
        -0.0,
        1.0,
        0.6,
        -2.5,
        1e-40,
        f32::NAN,
        f32::INFINITY,
        f32::MIN,
    ];

    /// Connector lists: none, one, several with a bone repeated and one missing, only
    /// missing ones, four distinct bones.
    fn connector_sets() -> Vec<Vec<mdl::BoneConnector>> {
        let on = |bone_index: i32| mdl::BoneConnector {
            bone_index,
            offset: mdl::Matrix44::translation(0.0, 0.0, 0.0),
        };
        vec![
            Vec::new(),
            vec![on(0)],
            vec![on(0), on(1), on(0), on(9)],
            vec![on(9)],
            vec![on(3), on(2), on(1), on(0)],
        ]
    }

    /// The `k`-th awkward vertex: every skin with every sub-UV, the other fields cycling
    /// through awkward floats and colours.
    fn awkward(k: usize) -> mdl::Vertex {
        let f = |i: usize| FLOATS[(k * 7 + i * 3) % FLOATS.len()];
        let (weights, bone_indices, original_bone_indices) = SKINS[k % SKINS.len()];
        mdl::Vertex {
            position: [f(0), f(1), f(2)],
            normal: [
                [0.0, 1.0, 0.0],
                [0.6, 0.8, 0.0],
                [f(3), f(4), f(5)],
                [0.0; 3],
            ][k % 4],
            binormal: [[0.0; 3], [-0.0, 0.0, 0.0], [f(6), 1.0, 0.0]][k % 3],
            uv: [f(7), 0.25],
            sub_uv: SUB_UVS[(k / SKINS.len()) % SUB_UVS.len()],
            color: [[255; 4], [0, 128, 7, 255]][k % 2],
            weights,
            bone_indices,
            original_bone_indices,
        }
    }

    /// The new decision (the pass's) and the old full derivation's, for one divided mesh.
    fn decisions(vertices: Vec<mdl::Vertex>, connectors: &[mdl::BoneConnector]) -> (bool, bool) {
        let part = mdl::DividedMesh {
            material_runs: Vec::new(),
            vertices,
            faces: Vec::new(),
            connectors: connectors.to_vec(),
        };
        let pal = palette("test", connectors, 5, &mut Vec::new());
        let (v, scan) = divided_vertices(&part.vertices, &pal, !connectors.is_empty());
        let old = crate::scene::to_mdl::needs_raw_vertices(
            &v,
            &part,
            &pal.conn_to_joint,
            pal.joints.len(),
        );
        (scan.raw_needed, old)
    }

    #[test]
    fn raw_vertices_are_kept_exactly_when_the_full_derivation_differs() {
        let mut seen = [0usize; 2];
        let count = SKINS.len() * SUB_UVS.len() * 4;
        for connectors in connector_sets() {
            // Each awkward vertex alone.
            for k in 0..count {
                let (new, old) = decisions(vec![awkward(k)], &connectors);
                assert_eq!(new, old, "vertex {k} with {} connectors", connectors.len());
                seen[usize::from(old)] += 1;
            }
            // Meshes of a few chunks: runs of one vertex (the chunk fills) broken by one
            // awkward vertex at a pseudo-random place, and all-canonical runs.
            let mut seed = 0x2545_f491u32;
            for trial in 0..40 {
                seed = seed.wrapping_mul(1_664_525).wrapping_add(1_013_904_223);
                let len = 1 + (seed >> 8) as usize % (3 * CHUNK);
                let base = awkward(trial % 4);
                let mut vertices = vec![base; len];
                if trial % 3 != 0 {
                    let at = (seed >> 4) as usize % len;
                    vertices[at] = awkward((seed >> 12) as usize % count);
                }
                let (new, old) = decisions(vertices, &connectors);
                assert_eq!(
                    new,
                    old,
                    "trial {trial} with {} connectors",
                    connectors.len()
                );
                seen[usize::from(old)] += 1;
            }
        }
        // Both decisions are exercised many times.
        assert!(seen[0] > 100 && seen[1] > 100, "{seen:?}");
    }
}
