//! [`ValidScene`] → Selene `.smf`: the mirror of [`from_smf`](super::from_smf).
//!
//! What maps to what (glTF conventions undone as `from_smf` applied them, smf.md §4):
//!
//! * **Nodes → frames.** Every node is a frame, in node order, except the nodes the export
//!   made to hold a skinned or frameless mesh (`extras.smf_mesh_node`); their `smf_frames`
//!   say which frames carried the mesh. Parents come from the children lists; the local
//!   transform (TRS composed, or the matrix) is z-mirrored back into the file's row-vector
//!   layout, or is the file's own matrix (`extras.smf_matrix_hex`) while the node still has
//!   the TRS the export made of it. `extras.smf_obb` (mirrored back) is the frame's OBB (`false`, or `null` from earlier exports: none); without it a
//!   frame carrying a mesh gets that mesh's box.
//! * **Meshes.** POSITION, NORMAL mirrored → V_PC / V_N; COLOR_0 → V_PC's B, G, R, A bytes
//!   (white without colours); TEXCOORD_0 / TEXCOORD_1 → V_UV's two pairs (one set is written
//!   twice); triangles get their winding back. IDX2 when there are at most 65 535 vertices
//!   (unless the source said IDX4), IDX4 above. V_B tangents come back from
//!   `extras.smf_tangents_hex` (raw file bytes) when the vertex count still matches (glTF
//!   tangents otherwise, mirrored, their sign lost). The mesh's OBB comes from `extras.smf_obb`
//!   or is the axis-aligned box of its vertices (warning: the converter's algorithm is
//!   unknown). Collision data and unknown chunks come back from extras.
//! * **Materials → MTRL.** One MTRL per primitive, or, for a mesh exported from SMF, the
//!   mesh's MTRLs with their triangle and vertex ranges (`smf_polygons`, `smf_vertices`)
//!   when the primitives still fit them. Base colour → DIFF, emissive → EMIS, colour / normal /
//!   light / specular textures → TEXC / TEXN / TEXL / TEXS, `environment_map` → TEXE,
//!   specular → SPEC, `smf_parallax_depth` → BUMP. Render states: alpha mode → DRAW (BLEND keeps
//!   the raw `smf_draw`), MASK → ATES 1 and ABND from the cutoff, double-sided → CULL 0,
//!   `unlit` → LGT 0; the raw `smf_*` flags are kept when they agree. A material with no
//!   `smf_*` extras gets the converter's defaults (ZTES 1, ZWRI 1, LGT 1), with a warning.
//! * **Skins → BONE + V_A.** Bones are the skin's joints (their frames) with the inverse bind
//!   matrices mirrored back; V_A holds two influences (the weight of the first, the second
//!   gets the rest): more are reduced to the two largest, with a warning. A mesh whose skin has
//!   more than [`MAX_BONE_COUNT`] joints is split into meshes of at most that many bones each,
//!   with new frames beside the first carrying frame, and a warning naming the split. The raw
//!   BONE and V_A bytes of the export (`smf_bones_hex`, `smf_blend_hex`) are used when they
//!   say the same thing as the skin.
//! * **Animations → ANIS / ANI.** One ANIS per animation, one ANI per animated frame, key times
//!   × [`ImportOptions::smf_ticks_per_second`] rounded to ticks, rotations `(x, y, −z, w)`
//!   (the file's own keys, sign and all, from `extras.smf_rotations_hex` while the channel
//!   still holds what the export made of them), translations mirrored. STEP keys are written as they are (the engine interpolates),
//!   CUBICSPLINE keys lose their tangents (warning). Animations the export could not write
//!   (no keys) come back from the scene's `extras.smf_empty_animations`.
//! * **Names** are CP932 in 64-byte fields (63 bytes and a NUL): a name that does not encode or
//!   fit is [`Error::FormatLimit`], or with [`ImportOptions::replace_bad_names`] replaced
//!   (unencodable characters by `_`, cut at 63 bytes) with a warning.
//!
//! What is lost: vertex colours beyond bytes (rounded to 1/255), tangent signs, more than two
//! influences per vertex, more than two UV sets (the scene has two at most), cubic tangents,
//! and anything in glTF SMF has no chunk for (cameras, lights, morph targets: the scene does
//! not carry them either).
//!
//! With a `base` (the SMF the scene was exported from), every part rebuilt from the scene
//! that is equal in value to the base's part of the same name (within a rounding tolerance
//! for transforms, normals and keys) is the base's part, bytes and all; base frames the scene
//! lacks (anchors such as `LW_POS`, `FIRE_*`), and base OBBs, collision data, tangents and
//! unknown chunks the scene does not carry, are taken from the base, with a warning. An
//! unedited export patched onto its base gives the base back byte for byte.

use super::budget::Budget;
use super::{
    mirror_z, mirror_z_matrix, AlphaMode, ChannelPath, Colors, ImportOptions, Imported,
    Interpolation, Material, SceneWarning, Skin, Transform, ValidScene,
};
use crate::scene::{lenient, Array};
use crate::{Error, Format};
use binio::sjis::SjisField;
use selene_smf as smf;
use serde_json::Value;
use std::borrow::Cow;
use std::collections::BTreeSet;

mod base;
mod extras;
mod split;

use extras::{
    collision_from, f32_at, i32_pair, obb_from, raw_bytes, raw_matrix, raw_rotations, unknown_from,
};

/// The engine's limit of bones per mesh (`MAX_BONE_COUNT` in the Selene sources).
pub const MAX_BONE_COUNT: usize = 40;

/// Converts a validated scene to an SMF document; see the module docs.
pub(crate) fn convert(
    scene: &ValidScene,
    base: Option<&smf::Smf>,
    options: &ImportOptions,
) -> Result<Imported<smf::Smf>, Error> {
    let mut ctx = Ctx {
        options,
        blobs: &scene.blobs,
        warnings: Vec::new(),
        budget: Budget::for_keys(scene),
    };
    let (mut frames, node_frame, derive_obb) = build_frames(scene, &mut ctx)?;
    let mut doc = smf::Smf::default();
    build_meshes(scene, &node_frame, &mut frames, &mut doc, &mut ctx)?;
    // Frames whose OBB the scene did not say get their mesh's box.
    for (frame, derive) in frames.iter_mut().zip(&derive_obb) {
        if *derive {
            let mesh = usize::try_from(frame.mesh).ok();
            frame.obb = mesh.and_then(|m| doc.meshes.get(m)).and_then(|m| m.obb);
        }
    }
    doc.frames = frames;
    build_animations(scene, &node_frame, &mut doc, &mut ctx)?;
    doc.unknown = unknown_from(scene.extras.get("smf_unknown"), "scene", &mut ctx);
    if let Some(base) = base {
        base::apply(&mut doc, base, &mut ctx);
    }
    Ok(Imported {
        document: doc,
        warnings: ctx.warnings,
    })
}

/// The conversion's options and warnings.
pub(super) struct Ctx<'a> {
    options: &'a ImportOptions,
    /// The scene's blobs (large raw arrays the extras name).
    pub(super) blobs: &'a [Array<u8>],
    pub(super) warnings: Vec<SceneWarning>,
    /// What the keys may take: a key list shared by channels is written once per channel.
    budget: Budget,
}

impl Ctx<'_> {
    /// The one place this module makes a warning: `{place}: {message}`, the place naming the
    /// format and the frame, mesh, material or animation (`smf mesh 2 "body"`).
    pub(super) fn warn(&mut self, place: &str, message: impl Into<String>) {
        self.warnings.push(SceneWarning::other(place, message));
    }

    /// `text` as a 64-byte CP932 field; see the module docs.
    fn name(&mut self, text: &str, place: &str) -> Result<SjisField, Error> {
        if let Some(field) = smf::name(text) {
            return Ok(field);
        }
        let why = if binio::sjis::encode(text).is_none() {
            "has a character CP932 cannot encode"
        } else {
            "is longer than 63 bytes in CP932"
        };
        if !self.options.replace_bad_names {
            return Err(Error::FormatLimit {
                format: Format::Smf,
                place: format!("smf {place}"),
                what: format!("name {text:?} {why} (64-byte field)"),
            });
        }
        let replaced = replace_name(text);
        self.warn(
            &format!("smf {place}"),
            format!("name {text:?} {why}; replaced by {replaced:?}"),
        );
        Ok(smf::name(&replaced).unwrap_or_default())
    }

    /// An optional texture path, `None` for no or an empty path.
    fn texture(&mut self, path: Option<&str>, place: &str) -> Result<Option<SjisField>, Error> {
        match path {
            Some(p) if !p.is_empty() => self.name(p, place).map(Some),
            _ => Ok(None),
        }
    }
}

/// `text` with every character CP932 cannot encode (and NUL) as `_`, cut to 63 bytes.
fn replace_name(text: &str) -> String {
    let mut out = String::new();
    let mut len = 0usize;
    for c in text.chars() {
        let mut buf = [0u8; 4];
        let (c, n) = match binio::sjis::encode(c.encode_utf8(&mut buf)) {
            Some(b) if c != '\0' => (c, b.len()),
            _ => ('_', 1),
        };
        if len + n > smf::NAME_SIZE - 1 {
            break;
        }
        out.push(c);
        len += n;
    }
    out
}

/// Whether `node` is a holder the export made for a mesh, not a frame.
fn is_mesh_node(extras: &serde_json::Map<String, Value>) -> bool {
    extras.get("smf_mesh_node").and_then(lenient::flag) == Some(true)
}

/// The frames (without meshes yet), each node's frame, and which frames get their mesh's OBB.
type Frames = (Vec<smf::Frame>, Vec<Option<usize>>, Vec<bool>);

fn build_frames(scene: &ValidScene, ctx: &mut Ctx<'_>) -> Result<Frames, Error> {
    let mut node_frame = Vec::with_capacity(scene.nodes.len());
    let mut count = 0usize;
    // A BONE names its joint's frame, so a joint is a frame even where the export marked it a
    // mesh holder (an edited file): a bone on no frame (-1) is a file Selene cannot load.
    let mut joint = vec![false; scene.nodes.len()];
    for &j in scene.skins.iter().flat_map(|s| &s.joints) {
        if let Some(slot) = joint.get_mut(j) {
            *slot = true;
        }
    }
    for (i, n) in scene.nodes.iter().enumerate() {
        let is_joint = joint.get(i).copied().unwrap_or(false);
        if is_mesh_node(&n.extras) && is_joint {
            ctx.warn(
                &format!("smf node {i} ({:?})", n.name),
                "marked a mesh holder (extras.smf_mesh_node) but a skin's joint; made a frame",
            );
        }
        if is_mesh_node(&n.extras) && !is_joint {
            node_frame.push(None);
        } else {
            node_frame.push(Some(count));
            count += 1;
        }
    }
    let mut parent: Vec<Option<usize>> = vec![None; scene.nodes.len()];
    for (p, n) in scene.nodes.iter().enumerate() {
        for &c in &n.children {
            if let Some(slot) = parent.get_mut(c) {
                if slot.is_none() {
                    *slot = Some(p);
                }
            }
        }
    }
    let mut frames = Vec::with_capacity(count);
    let mut derive = Vec::with_capacity(count);
    for (i, n) in scene.nodes.iter().enumerate() {
        if node_frame.get(i).copied().flatten().is_none() {
            continue;
        }
        let place = format!("frame {i} ({:?})", n.name);
        let parent_frame = match parent.get(i).copied().flatten() {
            Some(p) => match node_frame.get(p).copied().flatten() {
                Some(f) => to_i32(f),
                None => {
                    ctx.warn(
                        &format!("smf {place}"),
                        "its parent is a mesh holder, not a frame; made a root",
                    );
                    -1
                }
            },
            None => -1,
        };
        // The file's own bits while the node is unedited; else the node's transform.
        let transform = raw_matrix(&n.extras, &n.transform)
            .unwrap_or_else(|| mirror_z_matrix(n.transform.to_matrix()));
        let obb = match n.extras.get("smf_obb") {
            None => {
                derive.push(true);
                None
            }
            Some(v) => {
                derive.push(false);
                obb_from(v, &place, ctx)
            }
        };
        frames.push(smf::Frame {
            transform,
            name: ctx.name(&n.name, &place)?,
            mesh: -1,
            parent: parent_frame,
            obb,
            unknown: unknown_from(n.extras.get("smf_unknown"), &place, ctx),
        });
    }
    Ok((frames, node_frame, derive))
}

fn to_i32(x: usize) -> i32 {
    i32::try_from(x).unwrap_or(i32::MAX)
}

/// Builds every mesh and sets the `MeshNo` of the frames that carry it.
fn build_meshes(
    scene: &ValidScene,
    node_frame: &[Option<usize>],
    frames: &mut Vec<smf::Frame>,
    doc: &mut smf::Smf,
    ctx: &mut Ctx<'_>,
) -> Result<(), Error> {
    let mut computed_obbs = 0usize;
    for (m, mesh) in scene.meshes.iter().enumerate() {
        // The frames that carry it, and its skin.
        let mut carriers: Vec<usize> = Vec::new();
        let mut skin: Option<&Skin> = None;
        for (i, n) in scene.nodes.iter().enumerate() {
            if n.mesh != Some(m) {
                continue;
            }
            if skin.is_none() {
                skin = n.skin.and_then(|s| scene.skins.get(s));
            }
            match node_frame.get(i).copied().flatten() {
                Some(f) => carriers.push(f),
                None => {
                    let listed = n.extras.get("smf_frames").and_then(Value::as_array);
                    for f in listed.into_iter().flatten().filter_map(lenient::uint) {
                        // The export lists frame indices, which are its node indices.
                        let frame = usize::try_from(f)
                            .ok()
                            .and_then(|f| node_frame.get(f).copied().flatten());
                        carriers.extend(frame);
                    }
                }
            }
        }
        let place = format!("mesh {m} ({:?})", mesh.name);
        let built = build_mesh(&place, mesh, scene, skin, node_frame, ctx)?;
        if built.computed_obb {
            computed_obbs += 1;
        }
        let first = doc.meshes.len();
        let parts = built.meshes.len();
        doc.meshes.extend(built.meshes);
        for &f in &carriers {
            if let Some(fr) = frames.get_mut(f) {
                fr.mesh = to_i32(first);
            }
        }
        // Parts after the first of a split mesh hang on new frames beside the first carrier.
        if let Some(&f) = carriers.first() {
            for k in 1..parts {
                let Some(template) = frames.get(f).cloned() else {
                    break;
                };
                let name = replace_name(&format!("{}#{k}", template.name.text()));
                frames.push(smf::Frame {
                    name: smf::name(&name).unwrap_or_default(),
                    mesh: to_i32(first + k),
                    obb: doc.meshes.get(first + k).and_then(|x| x.obb),
                    unknown: Vec::new(),
                    ..template
                });
            }
        }
    }
    if computed_obbs > 0 {
        ctx.warn(
            "smf",
            format!(
                "{computed_obbs} mesh OBB(s) made as the axis-aligned box of the vertices (no \
             smf_obb in extras; the original converter's OBB algorithm is unknown)"
            ),
        );
    }
    Ok(())
}

/// One scene mesh as SMF meshes (more than one when split for the bone limit).
struct BuiltMesh {
    meshes: Vec<smf::Mesh>,
    computed_obb: bool,
}

fn build_mesh(
    place: &str,
    mesh: &super::Mesh,
    scene: &ValidScene,
    skin: Option<&Skin>,
    node_frame: &[Option<usize>],
    ctx: &mut Ctx<'_>,
) -> Result<BuiltMesh, Error> {
    let v = &mesh.vertices;
    let n = v.positions.len();
    let vertices = position_colours(v);
    let normals = v.normals.as_ref().map(|ns| {
        raw_normals(mesh, ns, ctx.blobs).unwrap_or_else(|| {
            if ns.len() == n {
                ns.iter().map(|&x| smf::Vec3(mirror_z(x))).collect()
            } else {
                (0..n)
                    .map(|k| smf::Vec3(mirror_z(ns.get(k).copied().unwrap_or([0.0, 1.0, 0.0]))))
                    .collect::<Vec<_>>()
            }
        })
    });
    let uvs = uv_pairs(v);
    let tangents = tangents(place, mesh, n, ctx);
    let (indices, materials) = layout(place, mesh, scene, ctx)?;
    let (obb, computed_obb) = match mesh.extras.get("smf_obb") {
        Some(o) => (obb_from(o, place, ctx), false),
        None => (aabb(&vertices), true),
    };
    let index_list = match mesh.extras.get("smf_index_format").and_then(Value::as_str) {
        Some("IDX4") => smf::Indices::U32(indices),
        _ => smf::Indices::for_vertex_count(indices, n),
    };
    let (runs, faces, cverts) = collision_from(mesh.extras.get("smf_collision"), place, ctx);
    let mut out = smf::Mesh {
        name: ctx.name(&mesh.name, place)?,
        obb,
        bones: None,
        vertices,
        normals,
        tangents,
        blend: None,
        uvs,
        indices: index_list,
        materials,
        collision_runs: runs,
        collision_faces: faces,
        collision_vertices: cverts,
        unknown: unknown_from(mesh.extras.get("smf_unknown"), place, ctx),
    };
    let meshes = match skin {
        Some(skin) if v.joints.is_some() && v.weights.is_some() => {
            split::skin(place, out, mesh, skin, node_frame, ctx)?
        }
        _ => {
            out.bones = None;
            vec![out]
        }
    };
    Ok(BuiltMesh {
        meshes,
        computed_obb,
    })
}

/// V_PC: positions z-mirrored, colours as B, G, R, A bytes (white without colours). A
/// validated scene has one colour per position: then the arrays are zipped (one pass with no
/// per-vertex lookup); other lengths take the per-index path.
fn position_colours(v: &super::Vertices) -> Vec<smf::VertexPc> {
    let n = v.positions.len();
    let vertex = |p: [f32; 3], bgra: [u8; 4]| smf::VertexPc {
        position: mirror_z(p),
        bgra,
    };
    // Bytes (an SMF's or MDL's colours, a glTF `UNSIGNED_BYTE` accessor's) as they are.
    if let Some(Colors::Bytes(bytes)) = &v.colors {
        if bytes.len() == n {
            let bgra = |&[r, g, b, a]: &[u8; 4]| [b, g, r, a];
            return (v.positions.iter().zip(bytes))
                .map(|(&p, c)| vertex(p, bgra(c)))
                .collect();
        }
    }
    let floats = v.colors.as_ref().map(Colors::to_floats);
    // Attributes resolved to slices once (empty: absent), not per vertex.
    let colors: &[[f32; 4]] = floats.as_deref().unwrap_or_default();
    if colors.len() == n {
        let bgra = |&[r, g, b, a]: &[f32; 4]| [byte(b), byte(g), byte(r), byte(a)];
        return v
            .positions
            .iter()
            .zip(colors)
            .map(|(&p, c)| vertex(p, bgra(c)))
            .collect();
    }
    if colors.is_empty() {
        return v.positions.iter().map(|&p| vertex(p, [0xFF; 4])).collect();
    }
    (0..n)
        .map(|k| {
            let p = v.positions.get(k).copied().unwrap_or_default();
            match colors.get(k) {
                Some(&[r, g, b, a]) => vertex(p, [byte(b), byte(g), byte(r), byte(a)]),
                None => vertex(p, [0xFF; 4]),
            }
        })
        .collect()
}

/// V_UV: TEXCOORD_0 and TEXCOORD_1 as the two pairs (either one standing in for a missing
/// other), or `None` without both. Zipped when each present set has one pair per position, as
/// in a validated scene; per index otherwise.
fn uv_pairs(v: &super::Vertices) -> Option<Vec<smf::UvVertex>> {
    let n = v.positions.len();
    let pair = |uv: [f32; 2], uv2: [f32; 2]| smf::UvVertex { uv, uv2 };
    let whole = |set: &Option<Array<[f32; 2]>>| set.as_ref().is_none_or(|s| s.len() == n);
    if whole(&v.uv0) && whole(&v.uv1) {
        return match (v.uv0.as_deref(), v.uv1.as_deref()) {
            (None, None) => None,
            (Some(a), None) | (None, Some(a)) => Some(a.iter().map(|&uv| pair(uv, uv)).collect()),
            (Some(a), Some(b)) => Some(a.iter().zip(b).map(|(&uv, &uv2)| pair(uv, uv2)).collect()),
        };
    }
    let uv0 = v.uv0.as_deref().unwrap_or_default();
    let uv1 = v.uv1.as_deref().unwrap_or_default();
    Some(
        (0..n)
            .map(|k| {
                let a = uv0.get(k).copied();
                let b = uv1.get(k).copied();
                let uv = a.or(b).unwrap_or_default();
                pair(uv, b.unwrap_or(uv))
            })
            .collect(),
    )
}

/// The export's raw V_N (`smf_normals_hex`, kept when some were not unit length) when the
/// scene's normals are still those normals normalised.
fn raw_normals(
    mesh: &super::Mesh,
    normals: &[[f32; 3]],
    blobs: &[Array<u8>],
) -> Option<Vec<smf::Vec3>> {
    let bytes = raw_bytes(&mesh.extras, "smf_normals_hex", blobs)?;
    let raw: Vec<smf::Vec3> = binio::pod::vec_from_bytes(&bytes)?;
    let same = raw.len() == normals.len()
        && raw.iter().zip(normals).all(|(r, n)| {
            let u = super::normalize3(mirror_z(r.0)).unwrap_or([0.0, 1.0, 0.0]);
            u.iter().zip(n).all(|(a, b)| (a - b).abs() <= 1e-5)
        });
    same.then_some(raw)
}

/// A 0..=1 colour component as a byte (the export divided by 255), rounded half away from
/// zero. Without `f32::round`, which is a libm call per component on baseline x86-64 (5 % of
/// a large import): below 2^24 the fraction `x - trunc(x)` is exact, so this is the same
/// rounding.
fn byte(c: f32) -> u8 {
    let x = c * 255.0;
    if x >= 254.5 {
        255
    } else if x > 0.0 {
        let whole = x as u8; // 0..=254: truncation
        if x - f32::from(whole) >= 0.5 {
            whole + 1
        } else {
            whole
        }
    } else {
        0
    }
}

/// V_B: the export's raw bytes when the vertex count matches, else the glTF tangents.
fn tangents(
    place: &str,
    mesh: &super::Mesh,
    n: usize,
    ctx: &mut Ctx<'_>,
) -> Option<Vec<smf::Vec3>> {
    if mesh.extras.contains_key("smf_tangents_hex") {
        let raw = raw_bytes(&mesh.extras, "smf_tangents_hex", ctx.blobs);
        match raw.and_then(|b| binio::pod::vec_from_bytes::<smf::Vec3>(&b)) {
            Some(t) if t.len() == n => return Some(t),
            _ => ctx.warn(
                &format!("smf {place}"),
                format!(
                    "extras.smf_tangents_hex does not fit the mesh's {n} vertices; \
                 V_B not written from it"
                ),
            ),
        }
    }
    let t = mesh.vertices.tangents.as_ref()?;
    ctx.warn(
        &format!("smf {place}"),
        "glTF tangents written as V_B without their handedness sign (w)",
    );
    Some(
        (0..n)
            .map(|k| {
                let [x, y, z, _] = t.get(k).copied().unwrap_or([1.0, 0.0, 0.0, 1.0]);
                smf::Vec3(mirror_z([x, y, z]))
            })
            .collect(),
    )
}

/// The axis-aligned OBB of the vertices (file axes); `None` for no vertices.
fn aabb(vertices: &[smf::VertexPc]) -> Option<smf::Obb> {
    let first = vertices.first()?.position;
    let (mut lo, mut hi) = (first, first);
    for v in vertices {
        for ((l, h), &p) in lo.iter_mut().zip(hi.iter_mut()).zip(&v.position) {
            *l = l.min(p);
            *h = h.max(p);
        }
    }
    Some(smf::Obb::axis_aligned(lo.into(), hi.into()))
}

/// The file's triangle list (winding restored) and the MTRLs with their ranges.
type Layout = (Vec<u32>, Vec<smf::Material>);

/// The file's triangle list (winding restored) and the MTRLs with their ranges.
fn layout(
    place: &str,
    mesh: &super::Mesh,
    scene: &ValidScene,
    ctx: &mut Ctx<'_>,
) -> Result<Layout, Error> {
    let n = mesh.vertices.positions.len();
    // Each primitive's whole triangles, dropping those past the vertices. A primitive with
    // nothing to drop (the usual case) is borrowed, not copied.
    let mut dropped = 0usize;
    let prims: Vec<(Option<usize>, Tris<'_>)> = mesh
        .primitives
        .iter()
        .map(|p| {
            let list: &[u32] = &p.indices;
            let whole = list.len() % 3 == 0 && list.iter().all(|&x| (x as usize) < n);
            if whole {
                return (p.material, Tris(Cow::Borrowed(list)));
            }
            let mut kept = Vec::with_capacity(list.len());
            for t in list.chunks_exact(3) {
                if t.iter().all(|&x| (x as usize) < n) {
                    kept.extend_from_slice(t);
                } else {
                    dropped += 1;
                }
            }
            dropped += list.len() % 3;
            (p.material, Tris(Cow::Owned(kept)))
        })
        .collect();
    if dropped > 0 {
        ctx.warn(
            &format!("smf {place}"),
            format!("{dropped} triangles use a vertex past the {n} vertices; dropped"),
        );
    }
    if let Some(result) = smf_layout(place, mesh, scene, &prims, ctx)? {
        return Ok(result);
    }
    // One MTRL per primitive, in order.
    let mut indices = Vec::new();
    let mut mtrls = Vec::new();
    for (k, (material, tris)) in prims.iter().enumerate() {
        let start = indices.len() / 3;
        tris.push_to(&mut indices);
        let mplace = format!("{place} primitive {k}");
        let mut mtrl = match material.and_then(|m| scene.materials.get(m)) {
            Some(m) => build_material(m, &mplace, ctx)?,
            None => {
                ctx.warn(
                    &format!("smf {mplace}"),
                    "no material; a default white MTRL is written",
                );
                build_material(&Material::default(), &mplace, ctx)?
            }
        };
        set_ranges(&mut mtrl, start, tris, None);
        mtrls.push(mtrl);
    }
    Ok((indices, mtrls))
}

/// A primitive's whole triangles in range, as the scene's flat list (glTF winding): borrowed
/// from the scene unless triangles had to be dropped.
struct Tris<'a>(Cow<'a, [u32]>);

impl Tris<'_> {
    /// The number of triangles.
    fn len(&self) -> usize {
        self.0.len() / 3
    }

    /// The triangles in file winding (the glTF export swapped the last two corners).
    fn iter(&self) -> impl Iterator<Item = [u32; 3]> + '_ {
        self.0.chunks_exact(3).map(|t| match *t {
            [a, b, c] => [a, c, b],
            _ => [0; 3], // chunks_exact: never
        })
    }

    /// Appends the triangles in file winding to `out`, in one pass.
    fn push_to(&self, out: &mut Vec<u32>) {
        out.reserve(self.0.len());
        for t in self.0.chunks_exact(3) {
            if let [a, b, c] = *t {
                out.extend_from_slice(&[a, c, b]);
            }
        }
    }
}

/// An MTRL's triangle range, and its vertex range (`stored` when given, else the used span).
fn set_ranges(mtrl: &mut smf::Material, start: usize, tris: &Tris<'_>, stored: Option<[i32; 2]>) {
    mtrl.polygon_start = to_i32(start);
    mtrl.polygon_count = to_i32(tris.len());
    let [vs, vc] = stored.unwrap_or_else(|| used_span(&tris.0));
    mtrl.vertex_start = vs;
    mtrl.vertex_count = vc;
}

/// The source's layout (a mesh exported from SMF): its MTRLs in order, each primitive at its
/// stored triangle range, triangles in no range where the export left them. `None` when the
/// mesh was not exported from SMF or no longer fits its ranges (warning).
fn smf_layout(
    place: &str,
    mesh: &super::Mesh,
    scene: &ValidScene,
    prims: &[(Option<usize>, Tris<'_>)],
    ctx: &mut Ctx<'_>,
) -> Result<Option<Layout>, Error> {
    let (Some(id), Some(total)) = (
        mesh.extras.get("smf_mesh").and_then(lenient::uint),
        mesh.extras
            .get("smf_triangles")
            .and_then(lenient::uint)
            .and_then(|t| usize::try_from(t).ok()),
    ) else {
        return Ok(None);
    };
    let own: Vec<usize> = scene
        .materials
        .iter()
        .enumerate()
        .filter(|(_, m)| m.extras.get("smf_mesh").and_then(lenient::uint) == Some(id))
        .map(|(k, _)| k)
        .collect();
    // A range the primitives cannot back is not believed (no more slots than triangles given).
    let given: usize = prims.iter().map(|(_, t)| t.len()).sum();
    if total > given.saturating_mul(own.len().max(1)) {
        ctx.warn(
            &format!("smf {place}"),
            "the primitives no longer fit the exported triangle ranges; one MTRL \
             per primitive is written",
        );
        return Ok(None);
    }
    let vertex_count = mesh.vertices.positions.len();
    if let Some(indices) = tiled(scene, &own, prims, total) {
        return smf_mtrls(place, scene, &own, (indices, vertex_count), ctx).map(Some);
    }
    let mut slots: Vec<Option<[u32; 3]>> = vec![None; total];
    let mut loose: Vec<[u32; 3]> = Vec::new();
    let mut fits = true;
    for (material, tris) in prims {
        let range = material
            .filter(|m| own.contains(m))
            .and_then(|m| scene.materials.get(m))
            .and_then(|m| i32_pair(m.extras.get("smf_polygons")));
        match (material, range) {
            (None, _) => loose.extend(tris.iter()),
            (Some(_), Some([s, c])) if usize::try_from(c).ok() == Some(tris.len()) => {
                let s = usize::try_from(s).unwrap_or(usize::MAX);
                for (k, t) in tris.iter().enumerate() {
                    match s.checked_add(k).and_then(|x| slots.get_mut(x)) {
                        Some(slot) if slot.is_none() || *slot == Some(t) => *slot = Some(t),
                        _ => fits = false,
                    }
                }
            }
            _ => fits = false,
        }
    }
    let mut loose = loose.into_iter();
    for slot in slots.iter_mut().filter(|s| s.is_none()) {
        *slot = loose.next();
    }
    if !fits || loose.next().is_some() || slots.iter().any(Option::is_none) {
        ctx.warn(
            &format!("smf {place}"),
            "the primitives no longer fit the exported triangle ranges; one MTRL \
             per primitive is written",
        );
        return Ok(None);
    }
    let mut indices: Vec<u32> = Vec::with_capacity(slots.len() * 3);
    for t in slots.into_iter().flatten() {
        indices.extend_from_slice(&t);
    }
    smf_mtrls(place, scene, &own, (indices, vertex_count), ctx).map(Some)
}

/// The common case of [`smf_layout`] in one pass, without its slots: every primitive has a
/// material of the mesh whose stored range holds exactly its triangles, and the ranges tile
/// `0..total` (in some order). The index list, or `None` for anything else.
fn tiled(
    scene: &ValidScene,
    own: &[usize],
    prims: &[(Option<usize>, Tris<'_>)],
    total: usize,
) -> Option<Vec<u32>> {
    let mut ranges: Vec<(usize, &Tris<'_>)> = Vec::with_capacity(prims.len());
    for (material, tris) in prims {
        let m = material.filter(|m| own.contains(m))?;
        let [s, c] = i32_pair(scene.materials.get(m)?.extras.get("smf_polygons"))?;
        if usize::try_from(c).ok()? != tris.len() {
            return None;
        }
        ranges.push((usize::try_from(s).ok()?, tris));
    }
    ranges.sort_by_key(|&(s, _)| s);
    let mut at = 0usize;
    for &(s, tris) in &ranges {
        if s != at {
            return None;
        }
        at = at.checked_add(tris.len())?;
    }
    if at != total {
        return None;
    }
    let mut indices = Vec::with_capacity(total.checked_mul(3)?);
    for (_, tris) in ranges {
        tris.push_to(&mut indices);
    }
    Some(indices)
}

/// The mesh's own MTRLs in order, with their stored ranges, over `indices` and
/// `vertex_count` vertices. A stored range the written mesh cannot hold (rule 18,
/// [`smf::mtrl_range_fits`]: an edited file, or a material kept for a mesh that lost
/// triangles or vertices) is not written as it is: Selene would draw or read past the mesh's
/// lists. An MTRL's triangle range is then empty, and its vertex range the span its triangles
/// use, each with a warning.
fn smf_mtrls(
    place: &str,
    scene: &ValidScene,
    own: &[usize],
    (indices, vertex_count): (Vec<u32>, usize),
    ctx: &mut Ctx<'_>,
) -> Result<Layout, Error> {
    let triangles = indices.len() / 3;
    let mut mtrls = Vec::with_capacity(own.len());
    for (k, &m) in own.iter().enumerate() {
        let Some(material) = scene.materials.get(m) else {
            continue;
        };
        let mplace = format!("{place} material {k}");
        let mut mtrl = build_material(material, &mplace, ctx)?;
        let [mut s, mut c] = i32_pair(material.extras.get("smf_polygons")).unwrap_or([0, 0]);
        if !smf::mtrl_range_fits(s, c, triangles) {
            ctx.warn(
                &format!("smf {mplace}"),
                format!(
                    "triangle range start {s} count {c} is outside the mesh's {triangles} \
                     triangles; an empty range is written"
                ),
            );
            [s, c] = [0, 0];
        }
        mtrl.polygon_start = s;
        mtrl.polygon_count = c;
        let [mut vs, mut vc] = i32_pair(material.extras.get("smf_vertices")).unwrap_or([0, 0]);
        if !smf::mtrl_range_fits(vs, vc, vertex_count) {
            let used = polygon_span(&indices, s, c);
            ctx.warn(
                &format!("smf {mplace}"),
                format!(
                    "vertex range start {vs} count {vc} is outside the mesh's {vertex_count} \
                     vertices; the span its triangles use is written (start {} count {})",
                    used[0], used[1]
                ),
            );
            [vs, vc] = used;
        }
        mtrl.vertex_start = vs;
        mtrl.vertex_count = vc;
        mtrls.push(mtrl);
    }
    Ok((indices, mtrls))
}

/// The vertices triangles `start..start + count` of `indices` use, as an MTRL vertex range:
/// [`used_span`] of those triangles.
fn polygon_span(indices: &[u32], start: i32, count: i32) -> [i32; 2] {
    let from = usize::try_from(start).unwrap_or(0).saturating_mul(3);
    let to = from.saturating_add(usize::try_from(count).unwrap_or(0).saturating_mul(3));
    used_span(indices.get(from..to.min(indices.len())).unwrap_or_default())
}

/// The vertices `indices` use, as an MTRL vertex range (start, count): from the least index
/// to the greatest; `[0, 0]` for none.
fn used_span(indices: &[u32]) -> [i32; 2] {
    let (lo, hi) = indices
        .iter()
        .fold((u32::MAX, 0u32), |(lo, hi), &x| (lo.min(x), hi.max(x)));
    if indices.is_empty() {
        return [0, 0];
    }
    [to_i32(lo as usize), to_i32((hi - lo) as usize + 1)]
}

fn u32_at(m: &serde_json::Map<String, Value>, key: &str) -> Option<u32> {
    m.get(key)
        .and_then(lenient::uint)
        .and_then(|v| u32::try_from(v).ok())
}

/// One MTRL from a scene material (ranges set by the caller); see the module docs.
fn build_material(m: &Material, place: &str, ctx: &mut Ctx<'_>) -> Result<smf::Material, Error> {
    let x = &m.extras;
    let from_smf = x.keys().any(|k| k.starts_with("smf_"));
    let absent: BTreeSet<&str> = x
        .get("smf_absent")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter_map(Value::as_str)
        .collect();
    let keep = |name: &str| !absent.contains(name);
    let unlit = x.get("unlit").and_then(lenient::flag) == Some(true);
    let draw = if m.alpha_mode == AlphaMode::Blend {
        u32_at(x, "smf_draw").filter(|&d| d != 0).unwrap_or(1)
    } else {
        0
    };
    let (alpha_test, alpha_threshold) = alpha_states(m, x, draw);
    let cull = match u32_at(x, "smf_cull") {
        Some(c) if (c == 0) == m.double_sided => c,
        _ => u32::from(!m.double_sided),
    };
    let lighting = match u32_at(x, "smf_lighting") {
        Some(l) if (l == 0) == unlit => l,
        _ => u32::from(!unlit),
    };
    let mut guessed = Vec::new();
    let mut state = |key: &str, name: &'static str, default: u32| {
        u32_at(x, key).unwrap_or_else(|| {
            guessed.push(name);
            default
        })
    };
    let z_test = state("smf_z_test", "ZTES 1", 1);
    let z_write = state("smf_z_write", "ZWRI 1", 1);
    if !from_smf {
        ctx.warn(
            &format!("smf {place}"),
            format!(
                "no SMF render states in the material; defaults used ({}, ATES {alpha_test}, \
             ABND {alpha_threshold}, CULL {cull}, LGT {lighting})",
                guessed.join(", ")
            ),
        );
    }
    let specular = match m.specular {
        Some((c, power)) => {
            let roughness = f32_at(x, "smf_specular_roughness").unwrap_or_else(|| {
                ctx.warn(
                    &format!("smf {place}"),
                    "specular without SPEC roughness (fRoughly); 0 written",
                );
                0.0
            });
            Some(smf::Specular {
                color: [c[0], c[1], c[2]],
                refractive: power,
                roughness,
            })
        }
        None => None,
    };
    let env = x.get("environment_map").and_then(Value::as_str);
    Ok(smf::Material {
        name: ctx.name(&m.name, place)?,
        polygon_start: 0,
        polygon_count: 0,
        vertex_start: 0,
        vertex_count: 0,
        texture: ctx.texture(m.color_texture.as_deref(), place)?,
        light_map: ctx.texture(m.light_map.as_deref(), place)?,
        environment_map: ctx.texture(env, place)?,
        specular_map: ctx.texture(m.specular_texture.as_deref(), place)?,
        normal_map: ctx.texture(m.normal_texture.as_deref(), place)?,
        draw: (keep("DRAW") || draw != 0).then(|| smf::DrawMode::from_raw(draw)),
        z_test: keep("ZTES").then_some(z_test),
        z_write: keep("ZWRI").then_some(z_write),
        alpha_test: (keep("ATES") || m.alpha_mode == AlphaMode::Mask).then_some(alpha_test),
        alpha_threshold: (keep("ABND") || m.alpha_mode == AlphaMode::Mask)
            .then_some(alpha_threshold),
        cull: (keep("CULL") || m.double_sided).then_some(cull),
        lighting: (keep("LGT") || unlit).then_some(lighting),
        diffuse: (keep("DIFF") || m.base_color != [1.0; 4]).then_some(m.base_color),
        emissive: (keep("EMIS") || m.emissive != [0.0; 3]).then_some(m.emissive),
        specular,
        bump: f32_at(x, "smf_parallax_depth"),
        unknown: unknown_from(x.get("smf_unknown"), place, ctx),
    })
}

/// ATES and ABND: MASK → alpha test on with the cutoff's threshold (the raw one when it gives
/// the same cutoff); otherwise the raw flags, unless they would make an opaque material masked.
fn alpha_states(m: &Material, x: &serde_json::Map<String, Value>, draw: u32) -> (u32, u32) {
    let raw_test = u32_at(x, "smf_alpha_test");
    let raw_threshold = u32_at(x, "smf_alpha_threshold");
    if m.alpha_mode == AlphaMode::Mask {
        let cutoff = m.alpha_cutoff.unwrap_or(0.5);
        let threshold = ((cutoff * 255.0).round() - 1.0).clamp(0.0, 254.0) as u32;
        let threshold = match raw_threshold {
            Some(r) if r.min(254) == threshold => r,
            _ => threshold.max(1),
        };
        return (raw_test.filter(|&t| t != 0).unwrap_or(1), threshold);
    }
    let test = raw_test.unwrap_or(1);
    let threshold = raw_threshold.unwrap_or(0);
    if draw == 0 && test != 0 && threshold > 0 {
        // Would be a mask again: the scene says opaque.
        return (test, 0);
    }
    (test, threshold)
}

/// One ANIS per animation (and the key-less ones the export kept in the scene's extras).
fn build_animations(
    scene: &ValidScene,
    node_frame: &[Option<usize>],
    doc: &mut smf::Smf,
    ctx: &mut Ctx<'_>,
) -> Result<(), Error> {
    let tps = ctx.options.smf_ticks_per_second;
    let tps = if tps.is_finite() && tps > 0.0 {
        tps
    } else {
        ctx.warn("smf", format!("invalid ticks per second {tps}; using 4800"));
        4800.0
    };
    let mut sets: Vec<(u64, smf::AnimationSet)> = Vec::new();
    for (a, anim) in scene.animations.iter().enumerate() {
        let place = format!("animation {a} ({:?})", anim.name);
        let order = anim
            .extras
            .get("smf_set")
            .and_then(lenient::uint)
            .unwrap_or(u64::MAX);
        sets.push((order, animation_set(&place, anim, node_frame, tps, ctx)?));
    }
    let empty = scene
        .extras
        .get("smf_empty_animations")
        .and_then(Value::as_array);
    for (k, e) in empty.into_iter().flatten().enumerate() {
        let place = format!("empty animation {k}");
        let Some(obj) = e.as_object() else {
            ctx.warn(&format!("smf {place}"), "not an object in extras; skipped");
            continue;
        };
        let name = obj.get("name").and_then(Value::as_str).unwrap_or_default();
        let last_time = obj
            .get("smf_last_time_ticks")
            .and_then(lenient::int)
            .and_then(|t| i32::try_from(t).ok())
            .unwrap_or(0);
        let order = obj
            .get("smf_set")
            .and_then(lenient::uint)
            .unwrap_or(u64::MAX);
        sets.push((
            order,
            smf::AnimationSet {
                name: ctx.name(name, &place)?,
                last_time,
                animations: Vec::new(),
                unknown: unknown_from(obj.get("smf_unknown"), &place, ctx),
            },
        ));
    }
    sets.sort_by_key(|(order, _)| *order);
    doc.animation_sets = sets.into_iter().map(|(_, s)| s).collect();
    Ok(())
}

fn animation_set(
    place: &str,
    anim: &super::Animation,
    node_frame: &[Option<usize>],
    tps: f32,
    ctx: &mut Ctx<'_>,
) -> Result<smf::AnimationSet, Error> {
    let mut anis: Vec<smf::Animation> = Vec::new();
    // The ANI of each frame so far, by frame index (every channel's frame is one of these).
    let frames = node_frame.iter().flatten().max().map_or(0, |&f| f + 1);
    let mut of_frame: Vec<Option<usize>> = vec![None; frames];
    let (mut cubic, mut clamped, mut skipped) = (0usize, 0usize, 0usize);
    let mut last = 0i32;
    for c in &anim.channels {
        let Some(frame) = node_frame.get(c.node).copied().flatten() else {
            skipped += 1;
            continue;
        };
        let Some(slot) = of_frame.get_mut(frame) else {
            continue; // not reached: `frames` is past every frame of `node_frame`
        };
        let k = *slot.get_or_insert_with(|| {
            anis.push(smf::Animation {
                target_frame: to_i32(frame),
                ..smf::Animation::default()
            });
            anis.len() - 1
        });
        let Some(ani) = anis.get_mut(k) else {
            continue;
        };
        let width = if c.path == ChannelPath::Rotation {
            4
        } else {
            3
        };
        // An i32 time and the values: what this channel's keys take in the file.
        let key_bytes = (c.times.len() as u64).saturating_mul(4 + 4 * width as u64);
        ctx.budget.charge(
            key_bytes,
            || {
                "its keys (a key list the scene shares is written once per channel; a format \
                 writer may make 16 × the scene's cost + 16 MiB)"
                    .to_string()
            },
            || format!("smf {place}"),
        )?;
        // Cubic spline keys: in-tangent, value, out-tangent; the value is the middle third.
        let (stride, offset) = if c.interpolation == Interpolation::CubicSpline {
            cubic += 1;
            (width * 3, width)
        } else {
            (width, 0)
        };
        // The file's own rotation keys while the channel still holds what the export wrote.
        let raw = match (c.path, c.interpolation) {
            (ChannelPath::Rotation, Interpolation::Linear) => {
                raw_rotations(&anim.extras, ctx.blobs, c.node, &c.values)
            }
            _ => None,
        };
        // Room for every key at once (their bytes were charged above), not a copy per doubling.
        let keys = c.times.len();
        match c.path {
            ChannelPath::Rotation => ani.rotation_keys.reserve(keys),
            ChannelPath::Translation => ani.translation_keys.reserve(keys),
            ChannelPath::Scale => ani.scale_keys.reserve(keys),
        }
        for (i, &t) in c.times.iter().enumerate() {
            let ticks = (f64::from(t) * f64::from(tps)).round();
            let time = if (0.0..=f64::from(i32::MAX)).contains(&ticks) {
                ticks as i32
            } else {
                clamped += 1;
                if ticks > 0.0 {
                    i32::MAX
                } else {
                    0
                }
            };
            last = last.max(time);
            let at = i * stride + offset;
            let Some(v) = c.values.get(at..at + width) else {
                break;
            };
            match (c.path, v) {
                (ChannelPath::Rotation, &[x, y, z, w]) => {
                    let value = raw
                        .as_ref()
                        .and_then(|r| r.get(i).copied())
                        .unwrap_or([x, y, -z, w]);
                    ani.rotation_keys.push(smf::RotationKey { time, value })
                }
                (ChannelPath::Translation, &[x, y, z]) => {
                    ani.translation_keys.push(smf::VectorKey {
                        time,
                        value: mirror_z([x, y, z]),
                    })
                }
                (ChannelPath::Scale, &[x, y, z]) => ani.scale_keys.push(smf::VectorKey {
                    time,
                    value: [x, y, z],
                }),
                _ => {}
            }
        }
    }
    if skipped > 0 {
        ctx.warn(
            &format!("smf {place}"),
            format!("{skipped} channel(s) animate mesh holders, not frames; skipped"),
        );
    }
    if cubic > 0 {
        ctx.warn(
            &format!("smf {place}"),
            format!(
                "{cubic} CUBICSPLINE channel(s) written as their key values (SMF \
             interpolates linearly; tangents lost)"
            ),
        );
    }
    if clamped > 0 {
        ctx.warn(
            &format!("smf {place}"),
            format!(
                "{clamped} key time(s) outside 0..{} ticks clamped",
                i32::MAX
            ),
        );
    }
    let last_time = anim
        .extras
        .get("smf_last_time_ticks")
        .and_then(lenient::int)
        .and_then(|t| i32::try_from(t).ok())
        .filter(|&t| t >= last)
        .unwrap_or(last);
    Ok(smf::AnimationSet {
        name: ctx.name(&anim.name, place)?,
        last_time,
        animations: anis,
        unknown: unknown_from(anim.extras.get("smf_unknown"), place, ctx),
    })
}
