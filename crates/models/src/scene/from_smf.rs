//! Selene `.smf` → [`Scene`], following `shared/formats/smf.md` §4.
//!
//! * **Handedness:** left-handed Direct3D → glTF: positions, normals, translation keys, OBBs and
//!   collision data become `(x, y, −z)`; triangles `(a, b, c)` become `(a, c, b)`; matrices are
//!   used in file order as glTF's column-major array (row vectors stored row by row = column
//!   vectors stored column by column) and then z-mirrored ([`mirror_z_matrix`]); rotation keys
//!   `(x, y, z, w)` become `(x, y, −z, w)` (the engine builds their matrix transposed, smf.md
//!   §4); scale keys are unchanged. UVs are unchanged (top-left origin in both).
//! * **Frames → nodes:** node `i` is frame `i` (same index), parent from `ParentFrameNo`, local
//!   transform the converted `mTransform` as TRS (or as a matrix when it is not a TRS and no
//!   animation drives the frame); where that TRS does not recompose the file's matrix bit for
//!   bit, the file's matrix is kept in `extras.smf_matrix_hex` for `to_smf`.
//! * **Meshes:** an unskinned mesh is drawn on every frame whose `MeshNo` names it (a mesh that
//!   no frame names gets its own root node, with a warning). A skinned mesh (V_A + BONE) hangs on
//!   its own untransformed root node, as glTF wants; its frame keeps its place in the tree.
//!   One primitive per MTRL (its triangle range); triangles outside every range go to one more
//!   primitive without a material (warning).
//! * **Vertex colours:** bytes B, G, R, A → RGBA bytes, `Colors::Bytes` (no sRGB→linear conversion: the engine
//!   did none either). V_UV's second pair → TEXCOORD_1 only when it differs from the first
//!   (identical data is not lost). V_B tangents are dropped (no handedness sign; warning).
//! * **Skinning:** joints = the nodes of the BONE elements' frames (deduplicated), inverse bind
//!   matrices = the converted `mBoneOffset`s, JOINTS = (index0, index1), WEIGHTS = (w, 1 − w),
//!   cleaned with [`normalize_weights`].
//! * **Animations:** one per ANIS, channels from its ANIs, LINEAR (the engine lerps and slerps),
//!   times = ticks / `options.smf_ticks_per_second`, with a warning that the rate is a guess.
//!   Keys out of order, duplicated or negative in time are dropped (warning). Rotation keys
//!   are normalised and made continuous (some negated); where that changes a key's bits, the
//!   file's keys of that channel are kept in the animation's `extras.smf_rotations_hex` (by
//!   node; hex when small, else a blob like the raw vertex arrays below) for `to_smf`.
//! * **Materials:** DIFF → base colour, EMIS → emissive, TEXC/TEXN → colour/normal texture,
//!   TEXL → light map, TEXS → specular texture, SPEC → specular (colour, `fRefractive` as power;
//!   `fRoughly` in extras), `CULL == 0` → double-sided, DRAW 1 → BLEND, DRAW 0 with ATES and
//!   ABND > 0 → MASK with cutoff (ABND + 1) / 255. Additive, subtractive, multiplicative and
//!   unknown draw modes become BLEND with the raw mode in `extras.smf_draw` and a warning;
//!   `LGT == 0` sets `extras.unlit = true` (for `KHR_materials_unlit`) with a warning; TEXE and
//!   BUMP go to `extras` with a warning; ZTES/ZWRI/ATES/ABND/LGT raw flags go to `extras`.
//! * **Collision data** (C_AT/C_FC/C_VX, converted to glTF axes and winding) and **OBBs** go to
//!   the mesh's / frame's `extras` with a warning; **unknown chunks** are reported, one warning
//!   each.
//! * **Raw vertex arrays** (`smf_tangents_hex`, `smf_blend_hex`, `smf_bones_hex`,
//!   `smf_normals_hex`): the file's bytes as hex when small, else as a blob (`{"bufferView":
//!   i}`, a buffer view of the `.glb`; `scene/blob.rs`). `to_smf` reads both forms.

use super::blob;
use super::extras::object;
use super::shared::{items, take_list, SharedTriangles};
use super::validate::{below, near_unit};
use super::{
    compose, decompose, make_quats_continuous, mirror_z, mirror_z_matrix, normalize_quat,
    normalize_weights, AlphaMode, Animation, Channel, ChannelPath, Colors, Conversion,
    Interpolation, Material, Mesh, Node, Primitive, Scene, SceneOptions, SceneWarning, Skin,
    SlotOrder, Transform, Vertices,
};
use super::{Known, SMF_OBB_NOTE, SMF_RATE_GUESS, SMF_VB_NOTE};
use crate::scene::Array;
use selene_smf as smf;
use serde_json::{json, Map, Value};
use std::borrow::Cow;
use std::collections::HashMap;

/// Largest decomposition error accepted silently.
const DECOMPOSE_TOLERANCE: f32 = 1e-4;

pub(crate) fn convert(doc: Cow<'_, smf::Smf>, options: &SceneOptions) -> Conversion {
    // An owned document's meshes are moved out and each freed once converted.
    let (doc, owned_meshes) = take_list(doc, |d| &mut d.meshes);
    let mesh_count = owned_meshes.len().max(doc.meshes.len());
    let mut scene = Scene::default();
    let mut warnings = Vec::new();
    let frame_count = doc.frames.len();

    let mut obbs = frame_nodes(&doc, &mut scene, &mut warnings);
    hierarchy(&doc, &mut scene, &mut warnings);

    // Meshes, and the frames that carry each (found in one pass over the frames).
    let mut frames_of_mesh: Vec<Vec<usize>> = vec![Vec::new(); mesh_count];
    for (f, fr) in doc.frames.iter().enumerate() {
        if let Some(list) = index(fr.mesh, mesh_count).and_then(|m| frames_of_mesh.get_mut(m)) {
            list.push(f);
        }
    }
    let mut tangents_dropped = 0usize;
    for (i, mesh) in items(owned_meshes, &doc.meshes).enumerate() {
        if mesh.tangents.is_some() {
            tangents_dropped += 1;
        }
        if mesh.obb.is_some() {
            obbs += 1;
        }
        let frames = frames_of_mesh.get(i).map_or(&[][..], Vec::as_slice);
        convert_mesh(i, mesh, &doc, frames, &mut scene, &mut warnings);
    }
    if tangents_dropped > 0 {
        warnings.push(note(
            SMF_VB_NOTE,
            format!("{tangents_dropped} mesh(es) not exported (no handedness sign stored)"),
        ));
    }
    if obbs > 0 {
        warnings.push(note(
            SMF_OBB_NOTE,
            format!(" (smf_obb; no glTF meaning): {obbs}"),
        ));
    }

    // Animations.
    let tps = if options.smf_ticks_per_second.is_finite() && options.smf_ticks_per_second > 0.0 {
        options.smf_ticks_per_second
    } else {
        warnings.push(warning(
            "smf",
            format!(
                "invalid ticks per second {}; using 4800",
                options.smf_ticks_per_second
            ),
        ));
        4800.0
    };
    // Likewise each clip, and in it each frame's keys: freed once converted, their memory
    // holds the next frame's channels instead of fresh pages (issue 18).
    let (doc, owned_sets) = take_list(doc, |d| &mut d.animation_sets);
    let set_count = owned_sets.len().max(doc.animation_sets.len());
    for (a, set) in items(owned_sets, &doc.animation_sets).enumerate() {
        convert_animation(a, set, frame_count, tps, &mut scene, &mut warnings);
    }
    if set_count > 0 {
        warnings.push(note(
            SMF_RATE_GUESS,
            format!(" and the file stores no rate; {tps} ticks per second is a guess"),
        ));
    }
    for u in &doc.unknown {
        warnings.push(unknown_warning("top level", u));
    }
    if !doc.unknown.is_empty() {
        scene
            .extras
            .insert("smf_unknown".into(), unknown_json(&doc.unknown));
    }
    Conversion { scene, warnings }
}

/// One node per frame, at the frame's index: its transform (TRS where the matrix is one, or
/// where an animation drives the frame), and in extras what glTF cannot hold. Returns how
/// many frames carry an OBB.
fn frame_nodes(doc: &smf::Smf, scene: &mut Scene, warnings: &mut Vec<SceneWarning>) -> usize {
    let frame_count = doc.frames.len();
    // Frames animated by any ANI (they must get a TRS transform).
    let mut animated = vec![false; frame_count];
    for a in doc.animation_sets.iter().flat_map(|s| &s.animations) {
        if let Some(f) = index(a.target_frame, frame_count) {
            if let Some(x) = animated.get_mut(f) {
                *x = true;
            }
        }
    }

    let mut obbs = 0usize;
    for (i, frame) in doc.frames.iter().enumerate() {
        let m = mirror_z_matrix(frame.transform);
        let (t, q, s, err) = decompose(m);
        let transform = if err <= DECOMPOSE_TOLERANCE {
            Transform::Trs {
                translation: t,
                rotation: q,
                scale: s,
            }
        } else if animated.get(i).copied().unwrap_or(false) || !m.iter().all(|x| x.is_finite()) {
            warnings.push(warning(
                &format!("smf frame {i}"),
                format!(
                    "transform is not translation·rotation·scale (error {err:e}); \
                 the nearest TRS is used"
                ),
            ));
            if err.is_finite() {
                Transform::Trs {
                    translation: t,
                    rotation: q,
                    scale: s,
                }
            } else {
                Transform::default()
            }
        } else {
            Transform::Matrix(m)
        };
        let mut extras = Map::new();
        // The TRS glTF holds recomposes the matrix only to within rounding: the file's own bits
        // come back from here while the node still has the TRS the export wrote.
        if !recomposes_exactly(frame.transform) {
            extras.insert(
                "smf_matrix_hex".into(),
                Value::String(hex(binio::pod::as_bytes(&frame.transform))),
            );
        }
        // `false` says "no OBB" (an absent key: not from SMF, the importer makes one). Not
        // `null`, which Blender drops (`scene::lenient`).
        extras.insert(
            "smf_obb".into(),
            frame.obb.as_ref().map_or(Value::Bool(false), obb_json),
        );
        obbs += usize::from(frame.obb.is_some());
        for u in &frame.unknown {
            warnings.push(unknown_warning(&format!("frame {i}"), u));
        }
        if !frame.unknown.is_empty() {
            extras.insert("smf_unknown".into(), unknown_json(&frame.unknown));
        }
        scene.nodes.push(Node {
            name: frame.name.text().into_owned(),
            transform,
            extras,
            ..Node::default()
        });
    }
    obbs
}

/// Hangs each node under its frame's parent, guarding against parent cycles (the reader
/// rejects them already); a frame with an invalid or cyclic parent becomes a root (warning).
fn hierarchy(doc: &smf::Smf, scene: &mut Scene, warnings: &mut Vec<SceneWarning>) {
    let frame_count = doc.frames.len();
    let reaches_root = reaches_root(doc);
    for (f, frame) in doc.frames.iter().enumerate() {
        match index(frame.parent, frame_count) {
            Some(p) if reaches_root.get(f).copied().unwrap_or(false) => {
                if let Some(n) = scene.nodes.get_mut(p) {
                    n.children.push(f);
                }
            }
            parent => {
                if parent.is_some() || frame.parent != -1 {
                    warnings.push(warning(
                        &format!("smf frame {f}"),
                        format!("parent {} is invalid or cyclic; made a root", frame.parent),
                    ));
                }
                scene.roots.push(f);
            }
        }
    }
}

/// The translation, rotation and scale a glTF file gets for a frame's matrix `raw` (file
/// layout): its decomposition in glTF axes, or the identity's when that is not finite (what
/// [`convert`] and the glTF writer make of it). `to_smf` compares a node with it to know the
/// node is unedited.
pub(crate) fn exported_trs(raw: [f32; 16]) -> ([f32; 3], [f32; 4], [f32; 3]) {
    let (t, q, s, err) = decompose(mirror_z_matrix(raw));
    if err.is_finite() {
        (t, normalize_quat(q), s)
    } else {
        ([0.0; 3], [0.0, 0.0, 0.0, 1.0], [1.0; 3])
    }
}

/// Whether composing [`exported_trs`] back (as `to_smf` does) gives `raw` bit for bit.
fn recomposes_exactly(raw: [f32; 16]) -> bool {
    let (t, q, s) = exported_trs(raw);
    mirror_z_matrix(compose(t, q, s)).map(f32::to_bits) == raw.map(f32::to_bits)
}

/// For every frame, whether its parent chain ends at a root (not in a cycle). Each frame is
/// walked once: a chain of n frames costs n steps, not n²/2.
fn reaches_root(doc: &smf::Smf) -> Vec<bool> {
    let count = doc.frames.len();
    // None: not known yet; Some(answer).
    let mut known: Vec<Option<bool>> = vec![None; count];
    let mut on_walk = vec![false; count];
    let mut walk: Vec<usize> = Vec::new();
    for f in 0..count {
        walk.clear();
        let mut cur = f;
        let answer = loop {
            if let Some(k) = known.get(cur).copied().flatten() {
                break k;
            }
            if on_walk.get(cur).copied().unwrap_or(false) {
                break false; // a cycle
            }
            if let Some(o) = on_walk.get_mut(cur) {
                *o = true;
            }
            walk.push(cur);
            match doc.frames.get(cur).and_then(|fr| index(fr.parent, count)) {
                Some(p) => cur = p,
                None => break true,
            }
        };
        for &w in &walk {
            if let Some(k) = known.get_mut(w) {
                *k = Some(answer);
            }
            if let Some(o) = on_walk.get_mut(w) {
                *o = false;
            }
        }
    }
    known.into_iter().map(|k| k.unwrap_or(false)).collect()
}

/// `Some(i)` when `0 <= i < len`.
fn index(i: i32, len: usize) -> Option<usize> {
    usize::try_from(i).ok().filter(|&i| i < len)
}

fn unknown_warning(place: &str, u: &smf::UnknownChunk) -> SceneWarning {
    warning(
        &format!("smf {place}"),
        format!(
            "unknown chunk {:?} ({} bytes) kept only in extras (smf_unknown)",
            u.id.name(),
            u.data.len()
        ),
    )
}

/// Unknown chunks as `extras.smf_unknown`: each `{"id", "after": [id, index] | null, "hex"}`,
/// ids as their `u32` value, so that `to_smf` puts them back in place.
fn unknown_json(list: &[smf::UnknownChunk]) -> Value {
    Value::Array(
        list.iter()
            .map(|u| {
                object([
                    ("id", json!(u.id.value())),
                    ("after", json!(u.after.map(|a| [a.id.value(), a.index]))),
                    ("hex", Value::String(hex(&u.data))),
                ])
            })
            .collect(),
    )
}

/// Lowercase hex of `bytes` (raw data glTF has no place for). Each digit worked out without
/// a branch or a table, into a buffer sized once, so that the loop vectorises: an animated
/// character's rotation keys are a quarter of a megabyte of hex, and pushing a `char` at a
/// time was 15 % of its whole conversion.
pub(crate) fn hex(bytes: &[u8]) -> String {
    // 0..=9 -> '0'..='9', 10..=15 -> 'a'..='f' ('a' is 39 past '9' + 1).
    let digit = |d: u8| d + b'0' + u8::from(d > 9) * 39;
    let pairs: Vec<[u8; 2]> = bytes
        .iter()
        .map(|&b| [digit(b >> 4), digit(b & 15)])
        .collect();
    // Only ASCII digits were written: the check cannot fail and costs one pass.
    String::from_utf8(pairs.into_flattened()).unwrap_or_default()
}

fn f(x: f32) -> Value {
    // Null for a non-finite float, as serde_json serialises one.
    Value::from(x)
}

fn v3(v: [f32; 3]) -> Value {
    Value::Array(v.iter().map(|&x| f(x)).collect())
}

fn obb_json(o: &smf::Obb) -> Value {
    object([
        ("center", v3(mirror_z(o.center))),
        (
            "axes",
            Value::Array(o.axes.iter().map(|&a| v3(mirror_z(a))).collect()),
        ),
        ("lengths", v3(o.lengths)),
    ])
}

fn convert_mesh(
    i: usize,
    mut mesh: Cow<'_, smf::Mesh>,
    doc: &smf::Smf,
    frames: &[usize],
    scene: &mut Scene,
    warnings: &mut Vec<SceneWarning>,
) {
    let name = mesh.name.text().into_owned();
    let (mut vertices, raw_normals) = mesh_vertices(&mut mesh);
    let n = vertices.positions.len();
    let skin = match (&mesh.blend, &mesh.bones) {
        (Some(blend), Some(bones)) if !bones.is_empty() => {
            let (skin, joints, weights) = mesh_skin(i, (blend, bones), doc, &name, n, warnings);
            vertices.joints = Some(joints.into());
            vertices.weights = Some(weights.into());
            Some(skin)
        }
        (Some(_), _) => {
            warnings.push(warning(
                &format!("smf mesh {i}"),
                "V_A blend weights without BONE list; exported unskinned",
            ));
            None
        }
        (None, Some(bones)) if !bones.is_empty() => {
            warnings.push(warning(
                &format!("smf mesh {i}"),
                "BONE list without V_A weights; exported unskinned",
            ));
            None
        }
        _ => None,
    };
    let (shared, triangles) = mesh_triangles(&mut mesh, n);
    let primitives = mesh_primitives(i, &mesh, (shared, triangles), scene, warnings);
    let raw = (triangles, raw_normals);
    let extras = mesh_extras(i, &mesh, raw, &mut scene.blobs, warnings);
    if primitives.is_empty() {
        warnings.push(warning(
            &format!("smf mesh {i}"),
            "no triangles; mesh not exported",
        ));
        return;
    }
    let mesh_index = scene.meshes.len();
    scene.meshes.push(Mesh {
        name: name.clone(),
        vertices,
        primitives,
        extras,
    });
    place_mesh(i, (mesh_index, name), skin, frames, scene, warnings);
}

/// `convert` applied to each item of one of the mesh's lists (`get` borrows it, `take` moves
/// it out). When the conversion owns the mesh, the list is converted where it lies (`Vec`'s
/// in-place collection, for items no larger and no more aligned than the source's): the
/// scene's array takes the document's memory instead of fresh pages, which a large model pays
/// for in page faults and in a second copy (issue 18). A borrowed mesh's list is converted
/// into a new one. The same values either way.
type ListOf<S> = (
    fn(&smf::Mesh) -> Option<&[S]>,
    fn(&mut smf::Mesh) -> Option<Vec<S>>,
);

fn map_list<S: Copy, D>(
    mesh: &mut Cow<'_, smf::Mesh>,
    (get, take): ListOf<S>,
    convert: impl FnMut(S) -> D,
) -> Option<Vec<D>> {
    match mesh {
        Cow::Owned(m) => Some(take(m)?.into_iter().map(convert).collect()),
        Cow::Borrowed(m) => Some(get(m)?.iter().copied().map(convert).collect()),
    }
}

/// The mesh's positions, colours, normals and UVs, each array in one pass, and the file's
/// normals as bytes when some are not unit length (for `smf_normals_hex`). The colours stay
/// the file's bytes ([`Colors::Bytes`]); an owned mesh's V_N becomes the normals and its V_UV
/// the first UVs ([`map_list`]). Non-finite positions and UVs and non-unit normals are
/// repaired (and said) once, by `scene::validate`.
fn mesh_vertices(mesh: &mut Cow<'_, smf::Mesh>) -> (Vertices, Option<Vec<u8>>) {
    let n = mesh.vertices.len();
    let (positions, colors) = positions_and_colours(mesh);
    let mut out = Vertices {
        positions: positions.into(),
        colors: Some(Colors::Bytes(colors.into())),
        ..Vertices::default()
    };
    let mut raw_normals = None;
    let normals: ListOf<smf::Vec3> = (|m| m.normals.as_deref(), |m| m.normals.take());
    // A normal validation keeps (unit already, `validate::near_unit`) goes through glTF bit for
    // bit; validation changes every other one, so then they are kept as written (mirroring z
    // back gives the file's bits). Checked in the pass that converts them (no early exit, no
    // second pass over the list).
    let mut all_unit = true;
    let convert = |nv: smf::Vec3| {
        all_unit &= near_unit(nv.0);
        mirror_z(nv.0)
    };
    if let Some(mut ns) = map_list(mesh, normals, convert) {
        if !all_unit {
            raw_normals = Some(file_normal_bytes(&ns));
        }
        ns.resize(n, [0.0, 1.0, 0.0]);
        out.normals = Some(ns.into());
    }
    let (uv0, uv1) = uv_sets(mesh);
    out.uv0 = uv0.map(|mut uv| {
        uv.resize(n, [0.0; 2]);
        // Converted in place, the list still holds V_UV's 16 bytes a vertex: half is given
        // back (a shrink in place, no copy).
        uv.shrink_to_fit();
        uv.into()
    });
    out.uv1 = uv1.map(|mut uv| {
        uv.resize(n, [0.0; 2]);
        uv.into()
    });
    (out, raw_normals)
}

/// The positions (z mirrored) and colours of the V_PC list. A borrowed list is read once, 64
/// vertices at a time into both columns (a large mesh's list is not read from memory twice);
/// an owned one gives its positions, then becomes the colours where it lies ([`map_list`]).
fn positions_and_colours(mesh: &mut Cow<'_, smf::Mesh>) -> (Vec<[f32; 3]>, Vec<[u8; 4]>) {
    let colour = |v: &smf::VertexPc| v.rgba();
    match mesh {
        Cow::Owned(m) => {
            let positions = m.vertices.iter().map(|v| mirror_z(v.position)).collect();
            let list = std::mem::take(&mut m.vertices);
            (positions, list.into_iter().map(|v| colour(&v)).collect())
        }
        Cow::Borrowed(m) => {
            let n = m.vertices.len();
            let (mut positions, mut colours) = (Vec::with_capacity(n), Vec::with_capacity(n));
            for chunk in m.vertices.chunks(64) {
                positions.extend(chunk.iter().map(|v| mirror_z(v.position)));
                colours.extend(chunk.iter().map(colour));
            }
            (positions, colours)
        }
    }
}

/// The file's bytes of the normals `ns` (converted: z mirrored back), built 64 at a time
/// without a zeroed buffer first.
fn file_normal_bytes(ns: &[[f32; 3]]) -> Vec<u8> {
    let mut raw = Vec::with_capacity(std::mem::size_of_val(ns));
    let mut block = [[0.0f32; 3]; 64];
    for chunk in ns.chunks(block.len()) {
        for (file, &c) in block.iter_mut().zip(chunk) {
            *file = mirror_z(c);
        }
        let file = block.get(..chunk.len()).unwrap_or_default();
        raw.extend_from_slice(binio::pod::as_bytes(file));
    }
    raw
}

/// The first UV set of V_UV, and the second when it differs from the first anywhere. A
/// borrowed list is read once for the first set and the comparison (64 vertices at a time);
/// an owned one is compared, then becomes the first set where it lies ([`map_list`]).
fn uv_sets(mesh: &mut Cow<'_, smf::Mesh>) -> UvSets {
    // Float comparison, as the file's values are meant: a NaN differs from itself.
    let differ = |u: &smf::UvVertex| (u.uv[0] != u.uv2[0]) | (u.uv[1] != u.uv2[1]);
    let second = |uvs: &[smf::UvVertex]| uvs.iter().map(|u| u.uv2).collect::<Vec<_>>();
    match mesh {
        Cow::Owned(m) => {
            let Some(uvs) = m.uvs.take() else {
                return (None, None);
            };
            let uv1 = uvs.iter().any(differ).then(|| second(&uvs));
            (Some(uvs.into_iter().map(|u| u.uv).collect()), uv1)
        }
        Cow::Borrowed(m) => {
            let Some(uvs) = m.uvs.as_deref() else {
                return (None, None);
            };
            let (mut uv0, mut any) = (Vec::with_capacity(uvs.len()), false);
            for chunk in uvs.chunks(64) {
                uv0.extend(chunk.iter().map(|u| u.uv));
                any |= chunk.iter().fold(false, |d, u| d | differ(u));
            }
            (Some(uv0), any.then(|| second(uvs)))
        }
    }
}

/// A mesh's first and second UV sets, each when present.
type UvSets = (Option<Vec<[f32; 2]>>, Option<Vec<[f32; 2]>>);

/// The skin of a mesh with V_A weights and a BONE list, and JOINTS_0 and WEIGHTS_0 for its `n`
/// vertices (cleaned, with one warning for all the vertices that needed it).
fn mesh_skin(
    i: usize,
    (blend, bones): (&[smf::BlendVertex], &[smf::Bone]),
    doc: &smf::Smf,
    name: &str,
    n: usize,
    warnings: &mut Vec<SceneWarning>,
) -> (Skin, Vec<[u16; 4]>, Vec<[f32; 4]>) {
    let mut joints: Vec<usize> = Vec::new();
    let mut joint_of_frame: HashMap<usize, usize> = HashMap::new();
    let mut ibms: Vec<[f32; 16]> = Vec::new();
    let mut bone_to_joint: Vec<u32> = Vec::new();
    for (b, bone) in bones.iter().enumerate() {
        let ibm = mirror_z_matrix(bone.offset);
        let Some(frame) = index(bone.frame, doc.frames.len()) else {
            warnings.push(warning(
                &format!("smf mesh {i} bone {b}"),
                format!(
                    "frame {} does not exist; its weights are dropped",
                    bone.frame
                ),
            ));
            bone_to_joint.push(u32::MAX);
            continue;
        };
        if let Some(&k) = joint_of_frame.get(&frame) {
            if ibms.get(k) != Some(&ibm) {
                warnings.push(warning(
                    &format!("smf mesh {i} bone {b}"),
                    format!(
                        "frame {frame} is already a joint with another \
                     offset matrix; the first one is used"
                    ),
                ));
            }
            bone_to_joint.push(u32::try_from(k).unwrap_or(u32::MAX));
        } else {
            bone_to_joint.push(u32::try_from(joints.len()).unwrap_or(u32::MAX));
            joint_of_frame.insert(frame, joints.len());
            joints.push(frame);
            ibms.push(ibm);
        }
    }
    let map = |x: u8| {
        bone_to_joint
            .get(usize::from(x))
            .copied()
            .unwrap_or(u32::MAX)
    };
    let mut fixed = 0usize;
    let (mut js, mut ws) = (Vec::with_capacity(n), Vec::with_capacity(n));
    // Neighbouring vertices mostly share their influences (a rigid part: all of them): the
    // last vertex's result is reused while its weight bits and first two bone indices (all
    // the normaliser reads) are the same, as validation does.
    type Cleaned = ([u16; 4], [f32; 4], bool);
    let mut last: Option<((u32, [u8; 2]), Cleaned)> = None;
    for k in 0..n {
        let bv = blend.get(k).copied().unwrap_or_default();
        let w = bv.weight;
        let key = (w.to_bits(), [bv.indices[0], bv.indices[1]]);
        let (j, wt, any_fix) = match last {
            Some((from, to)) if from == key => to,
            _ => {
                let (j, wt, fixes) = normalize_weights(
                    [(map(bv.indices[0]), w), (map(bv.indices[1]), 1.0 - w)],
                    joints.len(),
                    SlotOrder::Source,
                );
                last = Some((key, (j, wt, fixes.any())));
                (j, wt, fixes.any())
            }
        };
        if any_fix {
            fixed += 1;
        }
        js.push(j);
        ws.push(wt);
    }
    if fixed > 0 {
        warnings.push(warning(
            &format!("smf mesh {i}"),
            format!(
                "{fixed} vertices had weights outside [0, 1] or bone indices \
             out of range (cleaned)"
            ),
        ));
    }
    let skin = Skin {
        name: format!("{name}_skin"),
        joints,
        inverse_bind_matrices: ibms,
        skeleton: None,
    };
    (skin, js, ws)
}

/// The mesh's triangles with glTF's winding, as one list its primitives share (a triangle
/// with an index past the `n` vertices left out), and the source's triangle count. Mostly
/// every index is in range: then one bulk pass (no per-triangle check) makes the list, and an
/// owned mesh's IDX4 list becomes it in place. IDX2 is converted straight from its 16-bit
/// indices (no widened copy of the whole list first).
fn mesh_triangles(mesh: &mut Cow<'_, smf::Mesh>, n: usize) -> (SharedTriangles, usize) {
    let triangles = mesh.indices.len() / 3;
    let in_range = match &mesh.indices {
        smf::Indices::U32(list) => below(list, n),
        smf::Indices::U16(list) => below(list, n),
    };
    // Checked here, so validation need not read the list again.
    let known = Some(n);
    let shared = match (&mut *mesh, in_range) {
        (Cow::Owned(m), true) => match &mut m.indices {
            smf::Indices::U32(list) => {
                SharedTriangles::swapped_in_place(std::mem::take(list), known)
            }
            smf::Indices::U16(list) => SharedTriangles::swapped(list, known),
        },
        (m, true) => match &m.indices {
            smf::Indices::U32(list) => SharedTriangles::swapped(list, known),
            smf::Indices::U16(list) => SharedTriangles::swapped(list, known),
        },
        (m, false) => match &m.indices {
            smf::Indices::U32(list) => {
                SharedTriangles::new(triangles, n, |t| triangle(list, t, n)).0
            }
            smf::Indices::U16(list) => {
                SharedTriangles::new(triangles, n, |t| triangle(list, t, n)).0
            }
        },
    };
    (shared, triangles)
}

/// The mesh's materials (added to the scene) and primitives, from its shared triangles and
/// their source count. Material ranges may overlap: each primitive is a range of the one
/// list. Triangles in no range make one more primitive, without a material.
fn mesh_primitives(
    i: usize,
    mesh: &smf::Mesh,
    (shared, triangles): (SharedTriangles, usize),
    scene: &mut Scene,
    warnings: &mut Vec<SceneWarning>,
) -> Vec<Primitive> {
    let mut covered = vec![false; triangles];
    let mut primitives = Vec::new();
    for (k, mtrl) in mesh.materials.iter().enumerate() {
        let material = scene.materials.len();
        let mut material_out = convert_material(i, k, mtrl, warnings);
        let layout = &mut material_out.extras;
        layout.insert("smf_mesh".into(), json!(i));
        layout.insert(
            "smf_polygons".into(),
            json!([mtrl.polygon_start, mtrl.polygon_count]),
        );
        layout.insert(
            "smf_vertices".into(),
            json!([mtrl.vertex_start, mtrl.vertex_count]),
        );
        scene.materials.push(material_out);
        let start = usize::try_from(mtrl.polygon_start).ok();
        let count = usize::try_from(mtrl.polygon_count).ok();
        let Some((start, end)) = start
            .zip(count)
            .and_then(|(s, c)| Some((s, s.checked_add(c)?)))
            .filter(|&(_, e)| e <= triangles)
        else {
            warnings.push(warning(
                &format!("smf mesh {i} material {k}"),
                format!(
                    "triangle range {}+{} out of range; primitive skipped",
                    mtrl.polygon_start, mtrl.polygon_count
                ),
            ));
            continue;
        };
        if let Some(c) = covered.get_mut(start..end) {
            c.fill(true);
        }
        let prim = shared.range(start, end);
        if prim.is_empty() {
            continue;
        }
        primitives.push(Primitive {
            indices: prim,
            material: Some(material),
        });
    }
    // Mostly every triangle is in a range: one pass that vectorises says so.
    let all_covered = covered.iter().fold(true, |all, &c| all & c);
    let uncovered: Vec<usize> = match all_covered {
        true => Vec::new(),
        false => (0..triangles)
            .filter(|&t| !covered.get(t).copied().unwrap_or(true))
            .collect(),
    };
    if !uncovered.is_empty() {
        if !mesh.materials.is_empty() {
            warnings.push(warning(
                &format!("smf mesh {i}"),
                format!(
                    "{} triangles in no material range; exported without a material",
                    uncovered.len()
                ),
            ));
        }
        // Source triangle `t` as converted (none if it was left out).
        let mut prim = Vec::with_capacity(uncovered.len() * 3);
        for t in uncovered {
            prim.extend_from_slice(&shared.range(t, t + 1));
        }
        if !prim.is_empty() {
            primitives.push(Primitive {
                indices: prim.into(),
                material: None,
            });
        }
    }
    primitives
}

/// What glTF has no place for in a mesh: its number, triangle count, index format and OBB, the
/// raw bytes of V_B, V_A, BONE and non-unit normals, unknown chunks and collision data (each
/// unknown chunk and the collision data also said as a warning).
fn mesh_extras(
    i: usize,
    mesh: &smf::Mesh,
    (triangles, raw_normals): (usize, Option<Vec<u8>>),
    blobs: &mut Vec<Array<u8>>,
    warnings: &mut Vec<SceneWarning>,
) -> Map<String, Value> {
    let mut extras = Map::new();
    extras.insert("smf_mesh".into(), json!(i));
    extras.insert("smf_triangles".into(), json!(triangles));
    extras.insert(
        "smf_index_format".into(),
        json!(mesh.indices.chunk_id().name()),
    );
    extras.insert(
        "smf_obb".into(),
        mesh.obb.as_ref().map_or(Value::Bool(false), obb_json),
    );
    // Raw file bytes: V_B has no glTF attribute (no handedness sign), and V_A's unused index
    // slots and exact weights do not survive glTF's four normalised influences.
    if let Some(t) = &mesh.tangents {
        let raw = blob::put_or_text(blobs, binio::pod::as_bytes(t).to_vec(), hex);
        extras.insert("smf_tangents_hex".into(), raw);
    }
    if let Some(b) = &mesh.blend {
        let raw = blob::put_or_text(blobs, binio::pod::as_bytes(b).to_vec(), hex);
        extras.insert("smf_blend_hex".into(), raw);
    }
    if let Some(b) = &mesh.bones {
        let raw = blob::put_or_text(blobs, binio::pod::as_bytes(b).to_vec(), hex);
        extras.insert("smf_bones_hex".into(), raw);
    }
    // Normals that are not unit length (glTF needs unit normals) are kept as written
    // (`mesh_vertices` found them).
    if let Some(raw) = raw_normals {
        let raw = blob::put_or_text(blobs, raw, hex);
        extras.insert("smf_normals_hex".into(), raw);
    }
    if !mesh.unknown.is_empty() {
        extras.insert("smf_unknown".into(), unknown_json(&mesh.unknown));
    }
    if let Some(c) = collision_json(mesh) {
        extras.insert("smf_collision".into(), c);
        warnings.push(warning(
            &format!("smf mesh {i}"),
            "collision data (C_AT/C_FC/C_VX) kept only in extras (smf_collision; \
             no glTF meaning)",
        ));
    }
    for u in &mesh.unknown {
        warnings.push(unknown_warning(&format!("mesh {i}"), u));
    }
    extras
}

/// Hangs scene mesh `mesh_index` (SMF mesh `i`, named `name`) in the tree: a skinned mesh on
/// its own untransformed root node, an unskinned one on every frame naming it, or on a root
/// node of its own (with a warning) when no frame does.
fn place_mesh(
    i: usize,
    (mesh_index, name): (usize, String),
    skin: Option<Skin>,
    frames: &[usize],
    scene: &mut Scene,
    warnings: &mut Vec<SceneWarning>,
) {
    if let Some(skin) = skin {
        let skin_index = scene.skins.len();
        scene.skins.push(skin);
        let node = scene.nodes.len();
        let mut extras = Map::new();
        extras.insert("smf_mesh_node".into(), json!(true));
        extras.insert("smf_frames".into(), json!(frames));
        scene.nodes.push(Node {
            name,
            mesh: Some(mesh_index),
            skin: Some(skin_index),
            extras,
            ..Node::default()
        });
        scene.roots.push(node);
    } else if frames.is_empty() {
        warnings.push(warning(
            &format!("smf mesh {i}"),
            "no frame carries it; placed on its own root node",
        ));
        let node = scene.nodes.len();
        let mut extras = Map::new();
        extras.insert("smf_mesh_node".into(), json!(true));
        extras.insert("smf_frames".into(), json!([]));
        scene.nodes.push(Node {
            name,
            mesh: Some(mesh_index),
            extras,
            ..Node::default()
        });
        scene.roots.push(node);
    } else {
        for &f in frames {
            if let Some(node) = scene.nodes.get_mut(f) {
                node.mesh = Some(mesh_index);
            }
        }
    }
}

/// Triangle `t` with its winding swapped for glTF, or `None` when it is missing or refers to a
/// vertex beyond `vertex_count`.
fn triangle<T: Copy + Into<u32>>(indices: &[T], t: usize, vertex_count: usize) -> Option<[u32; 3]> {
    let tri = t
        .checked_mul(3)
        .and_then(|s| indices.get(s..s.checked_add(3)?))?;
    match *tri {
        [a, b, c] => {
            let [a, b, c] = [a.into(), b.into(), c.into()];
            [a, b, c]
                .iter()
                .all(|&x| usize::try_from(x).is_ok_and(|x| x < vertex_count))
                .then_some([a, c, b])
        }
        _ => None,
    }
}

fn collision_json(mesh: &smf::Mesh) -> Option<Value> {
    if mesh.collision_runs.is_none()
        && mesh.collision_faces.is_none()
        && mesh.collision_vertices.is_none()
    {
        return None;
    }
    let mut out = Map::new();
    if let Some(runs) = &mesh.collision_runs {
        let runs = runs.iter().map(|r| {
            object([
                ("start", r.start.into()),
                ("count", r.count.into()),
                ("attribute", r.attribute.into()),
            ])
        });
        out.insert("runs".into(), Value::Array(runs.collect()));
    }
    if let Some(faces) = &mesh.collision_faces {
        let faces = faces.iter().map(|fc| {
            let [a, b, c] = fc.indices;
            object([
                ("attribute", fc.attribute.into()),
                // Winding reversed like the render triangles.
                ("indices", Value::from(vec![a, c, b])),
                // n·p + d = 0 holds for the mirrored n and p with the same d.
                ("normal", v3(mirror_z(fc.normal))),
                ("d", f(fc.d)),
            ])
        });
        out.insert("faces".into(), Value::Array(faces.collect()));
    }
    if let Some(vs) = &mesh.collision_vertices {
        let vertices = vs.iter().map(|v| {
            let [b, g, r, a] = v.bgra;
            object([
                ("position", v3(mirror_z(v.position))),
                ("color_rgba", Value::from(vec![r, g, b, a])),
                ("normal", v3(mirror_z(v.normal))),
            ])
        });
        out.insert("vertices".into(), Value::Array(vertices.collect()));
    }
    Some(Value::Object(out))
}

fn convert_material(
    i: usize,
    k: usize,
    m: &smf::Material,
    warnings: &mut Vec<SceneWarning>,
) -> Material {
    let text = |t: &Option<smf::SjisField>| {
        t.as_ref()
            .map(|t| t.text().into_owned())
            .filter(|t| !t.is_empty())
    };
    let where_ = format!("smf mesh {i} material {k}");
    let mut extras = Map::new();
    let mut out = Material {
        name: m.name.text().into_owned(),
        color_texture: text(&m.texture),
        normal_texture: text(&m.normal_map),
        light_map: text(&m.light_map),
        specular_texture: text(&m.specular_map),
        ..Material::default()
    };
    // As written: `scene::validate` clamps colour factors (its one repair of them, with its
    // warning naming the material).
    if let Some(d) = m.diffuse {
        out.base_color = d;
    }
    if let Some(e) = m.emissive {
        out.emissive = e;
    }
    if let Some(s) = &m.specular {
        out.specular = Some(([s.color[0], s.color[1], s.color[2], 1.0], s.refractive));
        extras.insert("smf_specular_roughness".into(), f(s.roughness));
    }
    if let Some(env) = text(&m.environment_map) {
        warnings.push(warning(
            &where_,
            format!("cube environment map {env:?} has no glTF slot (kept in extras)"),
        ));
        extras.insert("environment_map".into(), json!(env));
    }
    if let Some(b) = m.bump {
        warnings.push(warning(
            &where_,
            format!("parallax depth (BUMP {b}) has no glTF equivalent (kept in extras)"),
        ));
        extras.insert("smf_parallax_depth".into(), f(b));
    }
    for (key, v) in [
        ("smf_z_test", m.z_test),
        ("smf_z_write", m.z_write),
        ("smf_alpha_test", m.alpha_test),
        ("smf_alpha_threshold", m.alpha_threshold),
        ("smf_cull", m.cull),
        ("smf_lighting", m.lighting),
    ] {
        if let Some(v) = v {
            extras.insert(key.into(), json!(v));
        }
    }
    out.double_sided = m.cull == Some(0);
    if m.lighting == Some(0) {
        extras.insert("unlit".into(), json!(true));
        warnings.push(warning(
            &where_,
            "lighting disabled (LGT 0); marked extras.unlit (KHR_materials_unlit)",
        ));
    }
    let draw = m.draw.unwrap_or(smf::DrawMode::Normal);
    match draw {
        smf::DrawMode::Normal => {
            let threshold = m.alpha_threshold.unwrap_or(0);
            if m.alpha_test.unwrap_or(0) != 0 && threshold > 0 {
                out.alpha_mode = AlphaMode::Mask;
                out.alpha_cutoff = Some(((threshold.min(254) + 1) as f32) / 255.0);
            }
        }
        smf::DrawMode::Blend => out.alpha_mode = AlphaMode::Blend,
        other => {
            out.alpha_mode = AlphaMode::Blend;
            let name = match other {
                smf::DrawMode::Add => "ADD".to_owned(),
                smf::DrawMode::AddNoAlpha => "ADD_NOALPHA".to_owned(),
                smf::DrawMode::Sub => "SUB".to_owned(),
                smf::DrawMode::SubNoAlpha => "SUB_NOALPHA".to_owned(),
                smf::DrawMode::Multiple => "MULTIPLE".to_owned(),
                o => format!("unknown {}", o.raw()),
            };
            extras.insert("smf_draw".into(), json!(other.raw()));
            warnings.push(warning(
                &where_,
                format!(
                    "draw mode {name} has no glTF equivalent; exported as BLEND (raw mode \
                 in extras.smf_draw)"
                ),
            ));
        }
    }
    for u in &m.unknown {
        warnings.push(unknown_warning(&format!("mesh {i} material {k}"), u));
    }
    if !m.unknown.is_empty() {
        extras.insert("smf_unknown".into(), unknown_json(&m.unknown));
    }
    // The subchunks an importer writes by default, where this material has none.
    let absent: Vec<&str> = [
        ("DRAW", m.draw.is_none()),
        ("ZTES", m.z_test.is_none()),
        ("ZWRI", m.z_write.is_none()),
        ("ATES", m.alpha_test.is_none()),
        ("ABND", m.alpha_threshold.is_none()),
        ("CULL", m.cull.is_none()),
        ("LGT", m.lighting.is_none()),
        ("DIFF", m.diffuse.is_none()),
        ("EMIS", m.emissive.is_none()),
    ]
    .into_iter()
    .filter_map(|(n, absent)| absent.then_some(n))
    .collect();
    if !absent.is_empty() {
        extras.insert("smf_absent".into(), json!(absent));
    }
    out.extras = extras;
    out
}

fn convert_animation(
    a: usize,
    set: Cow<'_, smf::AnimationSet>,
    frame_count: usize,
    tps: f32,
    scene: &mut Scene,
    warnings: &mut Vec<SceneWarning>,
) {
    let mut anim = Animation {
        name: set.name.text().into_owned(),
        ..Animation::default()
    };
    anim.extras
        .insert("smf_last_time_ticks".into(), json!(set.last_time));
    anim.extras
        .insert("smf_ticks_per_second".into(), json!(tps));
    anim.extras.insert("smf_set".into(), json!(a));
    if !set.unknown.is_empty() {
        anim.extras
            .insert("smf_unknown".into(), unknown_json(&set.unknown));
    }
    // Frames already animated in this set (a flag per frame: no hashing per ANI).
    let mut seen = vec![false; frame_count];
    let mut dropped = 0usize;
    // Per animated node, the file's rotation keys where glTF's do not hold their bits.
    let mut raw_rotations_of = Map::new();
    let (set, owned_animations) = take_list(set, |s| &mut s.animations);
    for (k, ani) in items(owned_animations, &set.animations).enumerate() {
        let Some(node) = index(ani.target_frame, frame_count) else {
            warnings.push(warning(
                &format!("smf animation {a} ANI {k}"),
                format!("target frame {} does not exist; skipped", ani.target_frame),
            ));
            continue;
        };
        if seen
            .get_mut(node)
            .is_none_or(|seen| std::mem::replace(seen, true))
        {
            warnings.push(warning(
                &format!("smf animation {a} ANI {k}"),
                format!("frame {node} already animated in this set; skipped"),
            ));
            continue;
        }
        // Each key's value stays a fixed-size array until it is flattened into the channel:
        // a key is never a heap allocation of its own (21 600 of them in a 72-bone clip).
        let scale = ani.scale_keys.iter().map(|key| (key.time, key.value));
        let rotation = ani.rotation_keys.iter().map(|key| {
            let [x, y, z, w] = key.value;
            (key.time, normalize_quat([x, y, -z, w]))
        });
        let translation = ani
            .translation_keys
            .iter()
            .map(|key| (key.time, mirror_z(key.value)));
        let lists = [
            (
                ChannelPath::Scale,
                clean_keys(scale, every_key_kept::<4, _>(&ani.scale_keys), tps),
            ),
            (
                ChannelPath::Rotation,
                clean_keys(rotation, every_key_kept::<5, _>(&ani.rotation_keys), tps),
            ),
            (
                ChannelPath::Translation,
                clean_keys(
                    translation,
                    every_key_kept::<4, _>(&ani.translation_keys),
                    tps,
                ),
            ),
        ];
        for (path, (times, mut values, kept)) in lists {
            dropped += kept.dropped;
            if times.is_empty() {
                continue;
            }
            if path == ChannelPath::Rotation {
                make_quats_continuous(&mut values);
                let raw = match &kept.indices {
                    None => raw_rotations(ani.rotation_keys.iter(), &values),
                    Some(indices) => raw_rotations(
                        indices.iter().filter_map(|&k| ani.rotation_keys.get(k)),
                        &values,
                    ),
                };
                if let Some(bytes) = raw {
                    // A clip's keys are mostly beyond `blob::SMALL` (a 100-key channel is
                    // 1 600 bytes): as views of the `.glb` they cost half the bytes of hex and
                    // are neither spelt, escaped nor parsed as JSON text.
                    let kept = blob::put_or_text(&mut scene.blobs, bytes, hex);
                    raw_rotations_of.insert(node.to_string(), kept);
                }
            }
            anim.channels.push(Channel {
                node,
                path,
                interpolation: Interpolation::Linear,
                times: times.into(),
                values: values.into(),
            });
        }
    }
    if !raw_rotations_of.is_empty() {
        anim.extras
            .insert("smf_rotations_hex".into(), Value::Object(raw_rotations_of));
    }
    if dropped > 0 {
        warnings.push(warning(
            &format!("smf animation {a}"),
            format!(
                "{dropped} keys dropped (negative, non-finite, repeated or \
             decreasing times, or non-finite values)"
            ),
        ));
    }
    if anim.channels.is_empty() {
        warnings.push(warning(
            &format!("smf animation {a} ({:?})", anim.name),
            "no keys; kept only in the scene's extras (smf_empty_animations; glTF needs at \
             least one channel)",
        ));
        let mut kept = anim.extras;
        kept.insert("name".into(), json!(anim.name));
        let list = scene
            .extras
            .entry("smf_empty_animations")
            .or_insert_with(|| Value::Array(Vec::new()));
        if let Value::Array(list) = list {
            list.push(Value::Object(kept));
        }
        return;
    }
    scene.animations.push(anim);
}

/// The bytes of the file's rotation keys `raw` (those kept, in order) when the glTF values
/// `values` (normalised, `z` mirrored, made continuous, and normalised again by the writer) do
/// not give back their bits; `None` when they do. The keys are read twice rather than
/// gathered into a list first: the bytes are made only when they are needed.
fn raw_rotations<'k>(
    raw: impl Iterator<Item = &'k smf::RotationKey> + Clone,
    values: &[f32],
) -> Option<Vec<u8>> {
    let mut count = 0usize;
    let exact = raw.clone().zip(values.chunks_exact(4)).all(|(r, v)| {
        count += 1;
        let q = match *v {
            [x, y, z, w] => [x, y, z, w],
            _ => return false,
        };
        let back = [q[0], q[1], -q[2], q[3]];
        normalize_quat(q).map(f32::to_bits) == q.map(f32::to_bits)
            && back.map(f32::to_bits) == r.value.map(f32::to_bits)
    });
    if exact && count * 4 == values.len() && raw.clone().nth(count).is_none() {
        return None;
    }
    let mut bytes = Vec::with_capacity(values.len() * 4);
    for key in raw {
        bytes.extend_from_slice(binio::pod::as_bytes(&key.value));
    }
    Some(bytes)
}

/// Which keys [`clean_keys`] kept (their indices in its input; `None` when it kept every
/// key) and how many it dropped.
struct Kept {
    indices: Option<Vec<usize>>,
    dropped: usize,
}

/// Whether [`clean_keys`] keeps every key of `keys` (an SMF key is its time, then `M − 1`
/// floats): times ≥ 0 and strictly increasing, values finite. Folded without an early exit,
/// which vectorises; checking key by key, with a branch and the last kept time for each, was
/// 4 % of an animated character's export. Finite file values stay finite through the
/// normalising and mirroring `clean_keys` sees them after, so this is never `true` where it
/// would drop a key.
fn every_key_kept<const M: usize, K: bytemuck::Pod>(keys: &[K]) -> bool {
    // One row a key, or the words would be read across keys.
    if std::mem::size_of::<K>() != 4 * M {
        return false;
    }
    let Ok(rows) = bytemuck::try_cast_slice::<K, [u32; M]>(keys) else {
        return false;
    };
    let time = |row: &[u32; M]| row.first().map_or(-1, |&t| t as i32);
    let increasing = rows
        .iter()
        .zip(rows.get(1..).unwrap_or_default())
        .fold(true, |ok, (a, b)| ok & (time(b) > time(a)));
    // Over every word, times too, in one flat pass: a time whose bits look like an infinity
    // or a NaN (negative, or from 2³¹ − 2²³ ticks) only sends the clip down the key-by-key
    // path, which gives the same keys.
    let words: &[u32] = rows.as_flattened();
    let finite = super::validate::all_finite(bytemuck::cast_slice(words));
    rows.first().is_none_or(|first| time(first) >= 0) && increasing && finite
}

/// Keys with times in seconds, strictly increasing and non-negative, with finite values. A key
/// whose time is not greater than the previous kept key is dropped. `all_kept` is
/// [`every_key_kept`] of the file's keys: then none is checked again. Returns the times, the
/// flattened values and which keys were kept.
fn clean_keys<const N: usize>(
    keys: impl ExactSizeIterator<Item = (i32, [f32; N])>,
    all_kept: bool,
    tps: f32,
) -> (Vec<f32>, Vec<f32>, Kept) {
    let mut times: Vec<f32> = Vec::with_capacity(keys.len());
    let mut values = Vec::with_capacity(keys.len() * N);
    if all_kept {
        for (t, v) in keys {
            times.push(t as f32 / tps);
            values.extend(v);
        }
        let kept = Kept {
            indices: None,
            dropped: 0,
        };
        return (times, values, kept);
    }
    let mut indices = Vec::with_capacity(keys.len());
    let mut dropped = 0;
    let mut last: Option<i32> = None;
    for (k, (t, v)) in keys.enumerate() {
        let ok = t >= 0 && last.is_none_or(|l| t > l) && v.iter().all(|x| x.is_finite());
        if !ok {
            dropped += 1;
            continue;
        }
        last = Some(t);
        indices.push(k);
        times.push(t as f32 / tps);
        values.extend(v);
    }
    let kept = Kept {
        indices: Some(indices),
        dropped,
    };
    (times, values, kept)
}

/// The one place this module makes a warning: `{place}: {message}`.
fn warning(place: &str, message: impl Into<String>) -> SceneWarning {
    SceneWarning::other(place, message)
}

/// A known warning (a note: what the conversion always does with a part glTF has no place for,
/// or the tick-rate guess), at the format's name (`smf`), with the rest of its message.
fn note(known: Known, rest: impl std::fmt::Display) -> SceneWarning {
    SceneWarning::known(known, rest)
}

#[cfg(test)]
mod hex_tests {
    #[test]
    fn hex_spells_every_byte_as_format_does() {
        let bytes: Vec<u8> = (0..=255).chain([0, 255, 16, 1]).collect();
        let expected: String = bytes.iter().map(|b| format!("{b:02x}")).collect();
        assert_eq!(super::hex(&bytes), expected);
        assert_eq!(super::hex(&[]), "");
    }
}

#[cfg(test)]
mod key_tests {
    use super::{clean_keys, every_key_kept};
    use selene_smf::{RotationKey, VectorKey};

    /// `every_key_kept` is true exactly where the key-by-key cleaning drops nothing (for times
    /// below 2³¹ − 2²³ ticks), and then the fast path gives the same times and values.
    #[test]
    fn every_key_kept_agrees_with_the_key_by_key_cleaning() {
        let (nan, inf) = (f32::NAN, f32::INFINITY);
        let lists: [&[(i32, [f32; 3])]; 9] = [
            &[],
            &[(0, [1.0, 2.0, 3.0])],
            &[(-1, [1.0, 2.0, 3.0])],
            &[(0, [1.0; 3]), (160, [2.0; 3]), (320, [3.0; 3])],
            &[(0, [1.0; 3]), (160, [2.0; 3]), (160, [3.0; 3])],
            &[(0, [1.0; 3]), (320, [2.0; 3]), (160, [3.0; 3])],
            &[(0, [1.0; 3]), (160, [nan, 2.0, 3.0])],
            &[(0, [1.0; 3]), (160, [2.0, 2.0, -inf])],
            &[(i32::MIN, [1.0; 3]), (0, [1.0; 3])],
        ];
        for list in lists {
            let keys: Vec<VectorKey> = list
                .iter()
                .map(|&(time, value)| VectorKey { time, value })
                .collect();
            let slow = clean_keys(list.iter().copied(), false, 4800.0);
            let all = every_key_kept::<4, _>(&keys);
            assert_eq!(all, slow.2.dropped == 0, "{list:?}");
            if all {
                let fast = clean_keys(list.iter().copied(), true, 4800.0);
                assert_eq!((fast.0, fast.1), (slow.0, slow.1), "{list:?}");
                assert!(fast.2.indices.is_none());
            }
        }
        // Rotation keys are five words: a non-finite last component is seen.
        let rotations = [
            RotationKey {
                time: 0,
                value: [0.0, 0.0, 0.0, 1.0],
            },
            RotationKey {
                time: 10,
                value: [0.0, 0.0, 0.0, nan],
            },
        ];
        assert!(!every_key_kept::<5, _>(&rotations));
        assert!(every_key_kept::<5, _>(&rotations[..1]));
        // Rows of another size than a key's are never read. These four rotation keys repeat a
        // time; read as five four-word rows, the rows' first words (a time, then values)
        // would increase and pass.
        let key = |time, value| RotationKey { time, value };
        let mixed = [
            key(0, [0.0, 0.0, 0.0, 1.0]),
            key(0, [0.0, 0.0, 2.0, 0.0]),
            key(2, [0.0, 4.0, 0.0, 0.0]),
            key(3, [8.0, 0.0, 0.0, 0.0]),
        ];
        assert!(!every_key_kept::<5, _>(&mixed));
        assert!(!every_key_kept::<4, _>(&mixed));
        // A time whose bits look like an infinity (2³¹ − 2²³ ticks) only takes the
        // key-by-key path, which keeps it.
        let far = [(0, [1.0; 3]), (0x7f80_0000, [1.0; 3])];
        let keys: Vec<VectorKey> = far
            .iter()
            .map(|&(time, value)| VectorKey { time, value })
            .collect();
        assert!(!every_key_kept::<4, _>(&keys));
        assert_eq!(clean_keys(far.iter().copied(), false, 4800.0).2.dropped, 0);
    }
}

#[cfg(test)]
mod animation_tests {
    use super::{convert, raw_rotations};
    use crate::scene::SceneOptions;
    use selene_smf::{self as smf, RotationKey, VectorKey};
    use std::borrow::Cow;

    /// A set whose frames are animated twice or do not exist: the repeat and the missing
    /// frame are skipped with a warning each, and an owned document (whose sets and keys are
    /// freed as they are converted) gives the same scene and warnings as a borrowed one.
    #[test]
    fn repeated_and_missing_frames_are_skipped_owned_or_borrowed() {
        let frame = |name| smf::Frame::new(name, -1, -1).unwrap();
        let ani = |target_frame, x| smf::Animation {
            target_frame,
            scale_keys: vec![VectorKey {
                time: 0,
                value: [1.0; 3],
            }],
            rotation_keys: vec![RotationKey {
                time: 0,
                value: [0.0, 0.0, 0.6, 0.8],
            }],
            translation_keys: vec![
                VectorKey {
                    time: 0,
                    value: [x, 0.0, 1.0],
                },
                VectorKey {
                    time: 4800,
                    value: [x, 2.0, 3.0],
                },
            ],
        };
        let set = |name: &str, animations| smf::AnimationSet {
            name: smf::name(name).unwrap(),
            last_time: 4800,
            animations,
            unknown: Vec::new(),
        };
        let doc = smf::Smf {
            frames: vec![frame("root"), frame("arm")],
            animation_sets: vec![
                set(
                    "walk",
                    vec![ani(1, 1.0), ani(1, 2.0), ani(7, 3.0), ani(0, 4.0)],
                ),
                set("idle", vec![ani(0, 5.0)]),
            ],
            ..smf::Smf::default()
        };
        let options = SceneOptions::default();
        let borrowed = convert(Cow::Borrowed(&doc), &options);
        let owned = convert(Cow::Owned(doc.clone()), &options);
        assert_eq!(
            format!("{:?}", owned.scene),
            format!("{:?}", borrowed.scene)
        );
        assert_eq!(owned.warnings, borrowed.warnings);
        let said: Vec<String> = owned.warnings.iter().map(ToString::to_string).collect();
        let count = |needle: &str| said.iter().filter(|w| w.contains(needle)).count();
        assert_eq!(
            count("frame 1 already animated in this set; skipped"),
            1,
            "{said:?}"
        );
        assert_eq!(
            count("target frame 7 does not exist; skipped"),
            1,
            "{said:?}"
        );
        let clips = &owned.scene.animations;
        assert_eq!(clips.len(), 2);
        // walk: frames 1 (its first ANI) and 0, three channels each; idle: frame 0.
        assert_eq!(clips[0].channels.len(), 6);
        assert_eq!(clips[1].channels.len(), 3);
        let x = |c: &crate::scene::Channel| c.values.first().copied();
        let walk_moves: Vec<_> = clips[0]
            .channels
            .iter()
            .filter(|c| c.values.len() == 6)
            .map(x)
            .collect();
        assert_eq!(walk_moves, [Some(1.0), Some(4.0)]);
    }

    /// The file's rotation bits are kept exactly when glTF's values do not give them back:
    /// none for unit quaternions whose values are the keys with `z` mirrored; the keys' bytes,
    /// in order, for a key that is not of unit length, for values of another count, or for
    /// values that are not the keys'.
    #[test]
    fn raw_rotations_are_kept_only_when_the_values_lose_their_bits() {
        let key = |value| RotationKey { time: 0, value };
        let unit = [key([0.0, 0.0, 0.6, 0.8]), key([0.0, 1.0, 0.0, 0.0])];
        let mirrored = [0.0, 0.0, -0.6, 0.8, 0.0, 1.0, -0.0, 0.0];
        assert_eq!(raw_rotations(unit.iter(), &mirrored), None);
        let bytes_of = |keys: &[RotationKey]| -> Vec<u8> {
            keys.iter()
                .flat_map(|k| k.value)
                .flat_map(f32::to_ne_bytes)
                .collect()
        };
        assert_eq!(
            raw_rotations(unit.iter(), &mirrored[..4]),
            Some(bytes_of(&unit))
        );
        assert_eq!(
            raw_rotations(unit[..1].iter(), &mirrored),
            Some(bytes_of(&unit[..1]))
        );
        let long = [key([0.0, 0.0, 1.2, 1.6]), unit[1]];
        assert_eq!(raw_rotations(long.iter(), &mirrored), Some(bytes_of(&long)));
        let mut other = mirrored;
        other[5] = 0.5;
        assert_eq!(raw_rotations(unit.iter(), &other), Some(bytes_of(&unit)));
    }
}
