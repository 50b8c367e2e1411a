//! BaseCross `.bmf` → [`Scene`], following `shared/formats/bmf.md` §4.
//!
//! * **Handedness:** the file is left-handed (Direct3D); positions and normals become
//!   `(x, y, −z)` and every triangle `(a, b, c)` becomes `(a, c, b)`. UVs are unchanged (top-left
//!   origin in both).
//! * **Tangents** are not emitted: the tool copied them raw from the FBX (not z-mirrored, looked
//!   up per control point), so they are not in the file's coordinate system. A warning says so.
//! * **Meshes:** one scene mesh per BMF mesh, one primitive per Material block (its index range).
//! * **Materials:** diffuse → base colour, texture name → colour texture, emissive RGB →
//!   emissive; specular and ambient colours go to the material's `extras` (`specular`,
//!   `ambient`) and the specular colour also to [`Material::specular`](super::Material) with
//!   power 0 (the file has none). Colours are passed through as written (`scene::validate`
//!   clamps base colour and emissive); non-finite specular, ambient or emissive alpha
//!   components, which extras cannot hold, become 0 with a warning.
//! * **Skinning:** the file has no skeleton, only baked skinning matrices
//!   (`inverse(bindPose) × globalPose(t)`, bmf.md §3.6), so skinned meshes get a flat skeleton:
//!   one root node whose children are the joints `bone_00`, `bone_01`, … (two digits, more when
//!   there are 100 bones or more). Inverse bind matrices are the identity, so a joint's global
//!   transform *is* the skinning matrix, and the **rest pose is the bind pose**: every joint's
//!   rest transform is the identity (the skinning matrix of the bind pose), not the first
//!   animation sample. The meshes of a multi-mesh file that have the same bone count and the same
//!   matrices (as the tool writes them: one FBX skeleton) share **one** skeleton `skeleton` and
//!   skin `skin`; otherwise each skinned mesh gets its own (`mesh<m>_skeleton`, joints
//!   `mesh<m>_bone_00`… when there are several). Each mesh hangs on its own untransformed root
//!   node. Without any AnimeMatrix sample a bone carries nothing but its number, so only the
//!   bones up to the highest one a vertex is weighted to are exported (warning); the bones are
//!   charged to the conversion budget before they are made, and a refusal names the BoneCount
//!   block's offset.
//! * **Animation:** one animation (`animation`) with translation/rotation/scale channels per
//!   joint (LINEAR), key `s` at `s / options.bmf_fps` seconds, values the TRS decomposition of
//!   each converted matrix. The file stores no rate, so a warning states the one used. Where
//!   the decomposition is not exact (error > 1e-4: shear or projection), a warning names the
//!   mesh, the bone, the first such sample and the error.
//! * **Unreferenced vertices** (which hold garbage such as `0xCDCDCDCD` in real files) are
//!   **sanitised in place**, not removed: position (0, 0, 0), normal (0, 1, 0), uv (0, 0),
//!   joints 0 and weights (1, 0, 0, 0). The vertex count therefore equals the file's, and
//!   their raw bytes go to `extras.bmf_unreferenced`, which `to_bmf` puts back. Referenced
//!   vertices keep their values (z-mirrored): `scene::validate` repairs non-finite positions
//!   and UVs and renormalises normals, once, with its warnings; bad weights are cleaned here
//!   (the bone count is the file's) and counted in a warning.
//! * **For the way back** (`to_bmf.rs`), `extras` keep what glTF has no place for, namespaced
//!   `bmf_*`: the scene's `bmf_version` (and `bmf_header`, the raw 16 bytes, when they are not
//!   the tool's); each mesh's `bmf_vertex_kind`, `bmf_tangents` and `bmf_normals` (the stored
//!   values, base64 of their f32 bits), `bmf_bone_count` (without samples), `bmf_end_size`
//!   (when not 0), `bmf_materials` (when a Material block has no primitive),
//!   `bmf_index_layout` (the Index block and the ranges, when they overlap, leave gaps or split
//!   triangles), `bmf_unreferenced` (the raw bytes of the unreferenced vertices) and
//!   `bmf_influences` (the raw joints and weights of vertices whose cleaning was no rounding);
//!   their arrays are base64 when small, else blobs (`{"bufferView": i}`, a buffer view of the
//!   `.glb`; `scene/blob.rs`), and `to_bmf` reads both; each material's `bmf_texture`
//!   (the stored name), `bmf_texture_units` (its raw units, when they are not the name's) and
//!   `bmf_colours` (the 16 colour floats, base64 of their bits, when glTF cannot hold them: a
//!   diffuse or emissive component outside 0..1, or any not finite);
//!   the animation's `bmf_matrices` (per skin, the exact skinning matrices, which the TRS
//!   channels only approximate).

use super::budget::{Budget, Place, JSON_OBJECT};
use super::extras::object;
use super::raw64;
use super::shared::{items, take_list, SharedTriangles};
use super::validate::near_unit;
use super::{
    decompose, make_quats_continuous, mirror_z, mirror_z_matrix, normalize_weights, Animation,
    Channel, ChannelPath, Conversion, Interpolation, Keys, Material, Mesh, Node, Primitive, Scene,
    SceneOptions, SceneWarning, Skin, SlotOrder, Vertices, IDENTITY,
};
use super::{Known, BMF_TANGENT_NOTE};
use crate::scene::Array;
use crate::{Error, Position};
use serde_json::{json, Map, Value};
use std::borrow::Cow;

/// `$body` with `$v` bound to the mesh's vertex slice, whatever its layout (every layout has
/// `position`, `normal` and `uv` fields).
macro_rules! each_kind {
    ($vertices:expr, $v:ident => $body:expr) => {
        match $vertices {
            bmf_block::Vertices::Plain($v) => $body,
            bmf_block::Vertices::Tangent($v) => $body,
            bmf_block::Vertices::Skinned($v) => $body,
            bmf_block::Vertices::SkinnedTangent($v) => $body,
        }
    };
}

/// Largest decomposition error accepted silently.
const DECOMPOSE_TOLERANCE: f32 = 1e-4;

/// The BMF sample rate to use (the file stores none): `fps` when it is a positive finite
/// number, else 30 with a warning. Shared by the export and the import, which must agree.
pub(crate) fn sample_rate(fps: f32, warnings: &mut Vec<SceneWarning>) -> f32 {
    if fps.is_finite() && fps > 0.0 {
        fps
    } else {
        warnings.push(warning(
            "bmf",
            format!("invalid sample rate {fps} per second; using 30"),
        ));
        30.0
    }
}

pub(crate) fn convert(
    doc: Cow<'_, bmf_block::Bmf>,
    options: &SceneOptions,
    budget: &mut Budget,
) -> Result<Conversion, Error> {
    // An owned document's meshes are moved out and each freed once converted.
    let (doc, owned_meshes) = take_list(doc, |d| &mut d.meshes);
    let mut scene = Scene {
        name: String::new(),
        ..Scene::default()
    };
    let mut warnings = Vec::new();
    let mut animation = Animation {
        name: "animation".into(),
        ..Animation::default()
    };
    let fps = sample_rate(options.bmf_fps, &mut warnings);
    let mut tangents_dropped = 0usize;
    // Byte offset of the current mesh's first block: after the 16-byte header and, in BDV1.1,
    // the 8-byte MashCount block (the reader keeps every byte, so these are the file's).
    let mut mesh_at = doc.header.raw.len() as u64
        + if doc.header.version() == bmf_block::Version::V1_1 {
            8
        } else {
            0
        };
    // What `to_bmf` needs to write the same header back.
    let version = doc.header.version();
    scene
        .extras
        .insert("bmf_version".into(), json!(version.as_str()));
    if doc.header != bmf_block::Header::new(version) {
        scene
            .extras
            .insert("bmf_header".into(), json!(doc.header.raw.to_vec()));
    }
    let mut skinned = Vec::new();
    for (m, mesh) in items(owned_meshes, &doc.meshes).enumerate() {
        let (bone_count_at, next) = block_offsets(&mesh, mesh_at);
        mesh_at = next;
        if matches!(
            mesh.vertices.kind(),
            bmf_block::VertexKind::Tangent | bmf_block::VertexKind::SkinnedTangent
        ) {
            tangents_dropped += 1;
        }
        if let Some((node, exported)) = convert_mesh(m, &mesh, &mut scene, &mut warnings) {
            // Only the skin outlives its mesh (for the skeletons made below).
            let skin = match mesh {
                Cow::Borrowed(mesh) => mesh.skin.as_ref().map(Cow::Borrowed),
                Cow::Owned(mesh) => mesh.skin.map(Cow::Owned),
            };
            if let Some(skin) = skin {
                skinned.push(SkinnedMesh {
                    m,
                    bone_count_at,
                    skin,
                    node,
                    exported,
                });
            }
        }
    }
    add_skeletons(
        &skinned,
        fps,
        (&mut scene, &mut animation),
        budget,
        &mut warnings,
    )?;
    if tangents_dropped > 0 {
        warnings.push(note(
            BMF_TANGENT_NOTE,
            format!(
                "{tangents_dropped} mesh(es) not exported (raw FBX values, \
             not in the file's coordinate system)"
            ),
        ));
    }
    if !animation.channels.is_empty() {
        warnings.push(warning(
            "bmf",
            format!(
                "the file stores no sample rate; the animation is timed at {fps} samples per \
             second, a guess unless chosen with SceneOptions::bmf_fps"
            ),
        ));
        animation
            .extras
            .insert("bmf_samples_per_second".into(), json!(fps));
        scene.animations.push(animation);
    }
    Ok(Conversion { scene, warnings })
}

/// A converted skinned mesh whose skeleton is still to be made.
struct SkinnedMesh<'a> {
    /// The mesh's number in the file.
    m: usize,
    /// Its BoneCount block's byte offset.
    bone_count_at: u64,
    skin: Cow<'a, bmf_block::Skin>,
    /// Its scene node.
    node: usize,
    /// How many bones to export.
    exported: usize,
}

/// Converts one mesh into `scene`; for a skinned mesh, returns its node and how many bones to
/// export, for [`add_skeletons`].
fn convert_mesh(
    m: usize,
    mesh: &bmf_block::Mesh,
    scene: &mut Scene,
    warnings: &mut Vec<SceneWarning>,
) -> Option<(usize, usize)> {
    let vertex_count = mesh.vertices.len();
    let bone_count = mesh
        .skin
        .as_ref()
        .map_or(0, |s| usize::try_from(s.bone_count).unwrap_or(0));
    let skinned = mesh.vertices.kind().is_skinned() && bone_count > 0;

    let (referenced, in_range) = referenced_vertices(&mesh.indices, vertex_count);

    // Positions, normals and UVs an array at a time (exact-size maps, which vectorise); the
    // per-vertex loop of `influences` is for skinning only. Non-finite positions and UVs, and
    // normals that are zero, not finite or not unit length, are repaired (and said) once, by
    // `scene::validate`.
    let (
        Columns {
            positions,
            normals,
            uv0,
        },
        lossy_normals,
    ) = each_kind!(&mesh.vertices, v => {
        columns(v, &referenced, |x| (x.position, x.normal, x.uv))
    });
    let sanitised = referenced.iter().filter(|&&r| !r).count();
    let mut out = Vertices {
        positions: positions.into(),
        normals: Some(normals.into()),
        uv0: Some(uv0.into()),
        ..Vertices::default()
    };
    if sanitised > 0 {
        warnings.push(warning(
            &format!("bmf mesh {m}"),
            format!(
                "{sanitised} vertices no triangle uses (uninitialised in the file) were \
             zeroed"
            ),
        ));
    }
    let skin_influences = skinned.then(|| influences(m, mesh, &referenced, bone_count, warnings));
    let (highest_joint, fixed_influences) = match skin_influences {
        Some(s) => {
            out.joints = Some(s.joints.into());
            out.weights = Some(s.weights.into());
            (s.highest_joint, s.fixed)
        }
        None => (None, Vec::new()),
    };

    let material_base = scene.materials.len();
    let primitives = primitives(m, (mesh, in_range), scene, warnings);
    if primitives.is_empty() {
        warnings.push(warning(
            &format!("bmf mesh {m}"),
            "no triangles; mesh not exported",
        ));
        return None;
    }
    let mesh_index = scene.meshes.len();
    let mut extras = mesh_extras(
        (mesh, &referenced, lossy_normals),
        &scene.materials,
        material_base,
        &primitives,
        &mut scene.blobs,
    );
    if !fixed_influences.is_empty() {
        extras.insert(
            "bmf_influences".into(),
            influences_json(&fixed_influences, bone_count, &mut scene.blobs),
        );
    }
    scene.meshes.push(Mesh {
        name: format!("mesh{m}"),
        vertices: out,
        primitives,
        extras,
    });

    let mesh_node = scene.nodes.len();
    scene.nodes.push(Node {
        name: format!("mesh{m}"),
        mesh: Some(mesh_index),
        ..Node::default()
    });
    scene.roots.push(mesh_node);

    let skin = mesh.skin.as_ref().filter(|_| skinned)?;
    let exported = exported_bones(m, skin, bone_count, highest_joint, warnings);
    Some((mesh_node, exported))
}

/// A skinned mesh's JOINTS_0 and WEIGHTS_0, the highest joint a used vertex is weighted to,
/// and the vertices whose file influences glTF does not hold to within a rounding.
struct SkinInfluences {
    joints: Vec<[u16; 4]>,
    weights: Vec<[f32; 4]>,
    highest_joint: Option<u16>,
    fixed: Vec<(usize, Influences)>,
}

/// Cleans every vertex's influences (vertices no triangle uses get joint 0 at full weight),
/// with one warning for all the used vertices that needed it.
fn influences(
    m: usize,
    mesh: &bmf_block::Mesh,
    referenced: &[bool],
    bone_count: usize,
    warnings: &mut Vec<SceneWarning>,
) -> SkinInfluences {
    let vertex_count = mesh.vertices.len();
    let mut joints = Vec::with_capacity(vertex_count);
    let mut weights = Vec::with_capacity(vertex_count);
    let mut highest_joint: Option<u16> = None;
    let mut fixed: Vec<(usize, Influences)> = Vec::new();
    let mut bad_weights = 0usize;
    for (i, v) in mesh.vertices.iter().enumerate() {
        if !referenced.get(i).copied().unwrap_or(false) {
            joints.push([0u16; 4]);
            weights.push([1.0, 0.0, 0.0, 0.0]);
            continue;
        }
        let raw = v.joints.unwrap_or(([0; 4], [1.0, 0.0, 0.0, 0.0]));
        let slots = raw.0.into_iter().zip(raw.1);
        let (j, w, fixes) = normalize_weights(slots, bone_count, SlotOrder::Source);
        let changed = fixes.any();
        if changed {
            bad_weights += 1;
        }
        // Kept for `to_bmf` where glTF's influences are not the file's to within a rounding
        // (slots moved, duplicate joints merged, bones dropped).
        let rounding = |a: f32, b: f32| (a - b).abs() <= f32::EPSILON * a.abs().max(b.abs());
        if changed
            || j.map(u32::from) != raw.0
            || !w.iter().zip(&raw.1).all(|(a, b)| rounding(*a, *b))
        {
            fixed.push((i, raw));
        }
        for (&jk, &wk) in j.iter().zip(&w) {
            if wk > 0.0 && highest_joint.is_none_or(|h| jk > h) {
                highest_joint = Some(jk);
            }
        }
        joints.push(j);
        weights.push(w);
    }
    if bad_weights > 0 {
        warnings.push(warning(
            &format!("bmf mesh {m}"),
            format!(
                "{bad_weights} used vertices had weights or bone indices glTF cannot \
             take as they are (out-of-range bones dropped, duplicates merged, weights rescaled)"
            ),
        ));
    }
    SkinInfluences {
        joints,
        weights,
        highest_joint,
        fixed,
    }
}

/// The mesh's materials (added to the scene) and one primitive per material range. Material
/// ranges may overlap: every primitive is a range of one shared, winding-swapped copy of the
/// index block (one per phase `start % 3`, since a range groups its indices into triangles
/// from its own start). `in_range`: every index of the block is below the vertex count (said
/// to validation, which then need not read the copies again).
fn primitives(
    m: usize,
    (mesh, in_range): (&bmf_block::Mesh, bool),
    scene: &mut Scene,
    warnings: &mut Vec<SceneWarning>,
) -> Vec<Primitive> {
    let known_below = in_range.then_some(mesh.vertices.len());
    let mut primitives = Vec::new();
    let mut phases: [Option<SharedTriangles>; 3] = [None, None, None];
    for (k, mat) in mesh.materials.iter().enumerate() {
        let material = scene.materials.len();
        scene.materials.push(convert_material(m, k, mat, warnings));
        let start = usize::try_from(mat.start_index).unwrap_or(usize::MAX);
        let count = usize::try_from(mat.index_count).unwrap_or(0);
        let in_block = start
            .checked_add(count)
            .is_some_and(|end| end <= mesh.indices.len());
        if !in_block {
            warnings.push(warning(
                &format!("bmf mesh {m} material {k}"),
                format!(
                    "index range {start}+{count} outside the index block; \
                 primitive skipped"
                ),
            ));
            continue;
        }
        let phase = start % 3;
        let Some(shared) = phases.get_mut(phase) else {
            continue;
        };
        let shared = shared.get_or_insert_with(|| {
            SharedTriangles::swapped(mesh.indices.get(phase..).unwrap_or_default(), known_below)
        });
        let first = (start - phase) / 3;
        let indices = shared.range(first, first + count / 3);
        if indices.is_empty() {
            warnings.push(warning(
                &format!("bmf mesh {m} material {k}"),
                "no triangles; primitive skipped",
            ));
            continue;
        }
        primitives.push(Primitive {
            indices,
            material: Some(material),
        });
    }
    primitives
}

/// How many of a skinned mesh's bones are exported. Bones with no AnimeMatrix sample carry
/// nothing but their number: without samples, only the bones up to the highest one a vertex
/// is weighted to are exported (a BoneCount of 2^31 - 1 with an empty AnimeMatrix must not
/// make 2^31 - 1 nodes), with a warning when that leaves some out.
fn exported_bones(
    m: usize,
    skin: &bmf_block::Skin,
    bone_count: usize,
    highest_joint: Option<u16>,
    warnings: &mut Vec<SceneWarning>,
) -> usize {
    if skin.sample_count() > 0 {
        return bone_count;
    }
    let used = highest_joint.map_or(1, |j| usize::from(j) + 1);
    if used < bone_count {
        warnings.push(warning(
            &format!("bmf mesh {m}"),
            format!(
                "BoneCount {bone_count} but no animation sample and no vertex \
             weighted to a bone above {}; only bones 0..{used} exported",
                used - 1
            ),
        ));
    }
    used.min(bone_count)
}

/// Makes the skeletons of the skinned meshes: one shared by all when they have the same bone
/// count and the same matrices (one FBX skeleton, as the tool writes a multi-mesh file),
/// otherwise one per mesh. Each is charged to the budget before it is made.
fn add_skeletons(
    skinned: &[SkinnedMesh<'_>],
    fps: f32,
    out_scene: (&mut Scene, &mut Animation),
    budget: &mut Budget,
    warnings: &mut Vec<SceneWarning>,
) -> Result<(), Error> {
    let (scene, animation) = out_scene;
    let shared = skinned.len() > 1
        && skinned.windows(2).all(|w| match w {
            [a, b] => a.skin == b.skin,
            _ => true,
        });
    let groups: Vec<&[SkinnedMesh<'_>]> = if shared {
        vec![skinned]
    } else {
        skinned.chunks(1).collect()
    };
    for group in groups {
        let Some(first) = group.first() else {
            continue;
        };
        // Joints index the bones of their own mesh; a shared skeleton has the most any mesh
        // needs (all of them unless there are no samples).
        let exported = group.iter().map(|s| s.exported).max().unwrap_or(0);
        let samples = first.skin.sample_count() as u64;
        // Per bone: its node, joint and inverse bind matrix, three channels (a channel and a
        // sampler object each) and 40 bytes of TRS values per sample (the file backs each
        // bone-sample with a 64-byte matrix).
        let per_bone = JSON_OBJECT + 8 + 64 + 3 * 2 * JSON_OBJECT + samples.saturating_mul(40);
        budget.charge(
            (exported as u64).saturating_mul(per_bone),
            || format!("{exported} bones × {samples} samples"),
            || Place {
                text: format!("bmf mesh {}: BoneCount {}", first.m, first.skin.bone_count),
                position: Some(Position::Byte(first.bone_count_at)),
            },
        )?;
        let names = if shared {
            Names::shared()
        } else if skinned.len() > 1 {
            Names::of_mesh(first.m)
        } else {
            Names::single(first.m)
        };
        let skin_index = convert_skin(
            &names,
            &first.skin,
            exported,
            fps,
            (&mut *scene, &mut *animation),
            warnings,
        );
        for s in group {
            if let Some(n) = scene.nodes.get_mut(s.node) {
                n.skin = Some(skin_index);
            }
        }
    }
    Ok(())
}

/// The names of one skeleton's nodes and skin, and the label of its warnings.
struct Names {
    skeleton: String,
    skin: String,
    bone_prefix: String,
    label: String,
}

impl Names {
    /// One skeleton for all the meshes.
    fn shared() -> Self {
        Self {
            skeleton: "skeleton".into(),
            skin: "skin".into(),
            bone_prefix: String::new(),
            label: "bmf skeleton".into(),
        }
    }

    /// The only skinned mesh's skeleton: plain `bone_00` names.
    fn single(m: usize) -> Self {
        Self {
            bone_prefix: String::new(),
            ..Self::of_mesh(m)
        }
    }

    /// One of several skeletons: the bones are prefixed with their mesh so names stay unique.
    fn of_mesh(m: usize) -> Self {
        Self {
            skeleton: format!("mesh{m}_skeleton"),
            skin: format!("mesh{m}_skin"),
            bone_prefix: format!("mesh{m}_"),
            label: format!("bmf mesh {m}"),
        }
    }
}

/// Makes one flat skeleton of `bone_count` joints at rest in the bind pose (identity), its skin
/// and its animation channels; returns the skin's index.
fn convert_skin(
    names: &Names,
    skin: &bmf_block::Skin,
    bone_count: usize,
    fps: f32,
    out_scene: (&mut Scene, &mut Animation),
    warnings: &mut Vec<SceneWarning>,
) -> usize {
    let (scene, animation) = out_scene;
    let label = &names.label;
    let samples = skin.sample_count();
    let root = scene.nodes.len();
    scene.nodes.push(Node {
        name: names.skeleton.clone(),
        ..Node::default()
    });
    scene.roots.push(root);
    let first_joint = scene.nodes.len();
    let matrix = |s: usize, b: usize| -> Option<[f32; 16]> {
        let i = s.checked_mul(bone_count)?.checked_add(b)?;
        skin.matrices.get(i).map(|&m| mirror_z_matrix(m))
    };
    // The rest transform is the identity: with identity inverse bind matrices that is the bind
    // pose, the pose the vertices are stored in (a skinning matrix of identity).
    for b in 0..bone_count {
        scene.nodes.push(Node {
            name: format!("{}bone_{b:02}", names.bone_prefix),
            ..Node::default()
        });
    }
    let joints: Vec<usize> = (first_joint..first_joint + bone_count).collect();
    if let Some(r) = scene.nodes.get_mut(root) {
        r.children = joints.clone();
    }
    let skin_index = scene.skins.len();
    scene.skins.push(Skin {
        name: names.skin.clone(),
        joints: joints.clone(),
        inverse_bind_matrices: vec![IDENTITY; bone_count],
        skeleton: Some(root),
    });
    if samples == 0 {
        warnings.push(warning(
            label,
            "skinned but no animation samples; no animation",
        ));
        return skin_index;
    }
    // The exact matrices, for `to_bmf`: the TRS decomposition rounds (and cannot hold shear or
    // the file's `-0.0`s), so the way back keeps these wherever the channels still give them.
    let exact: Vec<f32> = skin
        .matrices
        .iter()
        .take(samples.saturating_mul(bone_count))
        .flatten()
        .copied()
        .collect();
    let entry = object([
        ("skin", json!(skin_index)),
        ("bones", json!(bone_count)),
        ("data", Value::String(raw64::encode_f32(&exact))),
    ]);
    match animation.extras.get_mut("bmf_matrices") {
        Some(serde_json::Value::Array(list)) => list.push(entry),
        _ => {
            animation
                .extras
                .insert("bmf_matrices".into(), json!([entry]));
        }
    }
    let times = Keys::from((0..samples).map(|s| s as f32 / fps).collect::<Vec<f32>>());
    for (b, &node) in joints.iter().enumerate() {
        let mut tv = Vec::with_capacity(samples * 3);
        let mut rv = Vec::with_capacity(samples * 4);
        let mut sv = Vec::with_capacity(samples * 3);
        let (mut inexact, mut first_bad, mut worst) = (0usize, None, 0.0f32);
        for s in 0..samples {
            let (t, q, sc, err) = decompose(matrix(s, b).unwrap_or(IDENTITY));
            let (t, q, sc) = if err.is_finite() {
                (t, q, sc)
            } else {
                ([0.0; 3], [0.0, 0.0, 0.0, 1.0], [1.0; 3])
            };
            if err.is_nan() || err > DECOMPOSE_TOLERANCE {
                inexact += 1;
                first_bad.get_or_insert(s);
                worst = if err.is_finite() {
                    worst.max(err)
                } else {
                    f32::INFINITY
                };
            }
            tv.extend(t);
            rv.extend(q);
            sv.extend(sc);
        }
        if let Some(s) = first_bad {
            warnings.push(warning(
                &format!("{label} bone {b}"),
                format!(
                    "{inexact} of {samples} skinning matrices are not exactly \
                 translation·rotation·scale (first at sample {s}, largest error {worst:e}); \
                 the nearest TRS is used"
                ),
            ));
        }
        make_quats_continuous(&mut rv);
        for (path, values) in [
            (ChannelPath::Translation, tv),
            (ChannelPath::Rotation, rv),
            (ChannelPath::Scale, sv),
        ] {
            animation.channels.push(Channel {
                node,
                path,
                interpolation: Interpolation::Linear,
                times: times.clone(),
                values: values.into(),
            });
        }
    }
    skin_index
}

fn convert_material(
    m: usize,
    k: usize,
    mat: &bmf_block::Material,
    warnings: &mut Vec<SceneWarning>,
) -> Material {
    let raw: [[f32; 4]; 4] = [
        mat.diffuse.into(),
        mat.specular.into(),
        mat.ambient.into(),
        mat.emissive.into(),
    ];
    let [diffuse, specular, ambient, emissive] = raw;
    // The base colour and emissive go to the scene as written: `scene::validate` clamps them
    // (its one repair of them, with its warning). The specular and ambient colours and the
    // emissive alpha are extras, and JSON has no non-finite number: those become 0 here.
    let [specular, ambient] = [specular, ambient].map(|v| v.map(finite_or_zero));
    let emissive_alpha = finite_or_zero(emissive[3]);
    let non_finite = raw
        .iter()
        .skip(1)
        .take(2)
        .flatten()
        .chain([&emissive[3]])
        .filter(|x| !x.is_finite())
        .count();
    if non_finite > 0 {
        warnings.push(warning(
            &format!("bmf mesh {m} material {k}"),
            format!(
                "{non_finite} non-finite specular, ambient or emissive alpha components set \
                 to 0 (the file's values are in extras.bmf_colours)"
            ),
        ));
    }
    let mut extras = Map::new();
    extras.insert("specular".into(), json!(specular));
    extras.insert("ambient".into(), json!(ambient));
    extras.insert("emissive_alpha".into(), json!(emissive_alpha));
    let outside = |v: &[f32]| v.iter().any(|x| !(0.0..=1.0).contains(x));
    if non_finite > 0 || outside(&diffuse) || outside(&emissive[..3]) {
        // What glTF cannot give back (validation clamps, extras cannot say NaN): the file's
        // 16 floats, bit for bit, for `to_bmf`.
        let bits: Vec<f32> = raw.iter().flatten().copied().collect();
        extras.insert(
            "bmf_colours".into(),
            Value::String(raw64::encode_f32(&bits)),
        );
    }
    let texture = mat.texture.to_string_lossy();
    if !texture.is_empty() {
        // The name as stored: the glTF writer may rename the image (a TGA copied as PNG).
        extras.insert("bmf_texture".into(), json!(texture));
    }
    if mat.texture.units() != bmf_block::TextureName::new(&texture).units() {
        // Units after the NUL or unpaired surrogates: only the raw units give them back.
        extras.insert("bmf_texture_units".into(), json!(mat.texture.units()));
    }
    Material {
        name: format!("mesh{m}_material{k}"),
        base_color: diffuse,
        emissive: [emissive[0], emissive[1], emissive[2]],
        specular: Some((specular, 0.0)),
        color_texture: (!texture.is_empty()).then_some(texture),
        extras,
        ..Material::default()
    }
}

/// A mesh's `extras`: what `to_bmf` needs to rebuild it and glTF has no place for.
///
/// * `bmf_vertex_kind`: the block name (`Vertex`, `SkinedVertexWithTangent`, …);
/// * `bmf_tangents`: the stored (raw FBX) tangents, base64 of little-endian f32 × 4 per vertex;
/// * `bmf_normals`: the stored normals (f32 × 3 per vertex, left-handed), when renormalising
///   them for glTF changes any of a referenced vertex;
/// * `bmf_bone_count`: the BoneCount of a skin without samples (more than the joints exported);
/// * `bmf_end_size`: the End block's size field, when not 0;
/// * `bmf_materials`: the scene materials of the Material blocks in order, when one of them
///   has no primitive (an empty or bad range).
fn mesh_extras(
    (mesh, referenced, lossy_normals): (&bmf_block::Mesh, &[bool], bool),
    materials: &[Material],
    first_material: usize,
    primitives: &[Primitive],
    blobs: &mut Vec<Array<u8>>,
) -> Map<String, serde_json::Value> {
    let mut extras = Map::new();
    extras.insert("bmf_vertex_kind".into(), json!(mesh.vertices.kind().name()));
    // Straight into the blob's bytes (one copy of the array, not two).
    let tangent_bytes = |t: &mut dyn Iterator<Item = [f32; 4]>| {
        let mut bytes = Vec::with_capacity(16 * mesh.vertices.len());
        t.for_each(|x| bytes.extend_from_slice(binio::pod::as_bytes(&x)));
        bytes
    };
    let tangents: Option<Vec<u8>> = match &mesh.vertices {
        bmf_block::Vertices::Tangent(v) => Some(tangent_bytes(&mut v.iter().map(|x| x.tangent))),
        bmf_block::Vertices::SkinnedTangent(v) => {
            Some(tangent_bytes(&mut v.iter().map(|x| x.tangent)))
        }
        _ => None,
    };
    if let Some(t) = tangents.filter(|t| !t.is_empty()) {
        extras.insert("bmf_tangents".into(), raw64::put(blobs, t));
    }
    // The glTF writer stores unit normals: validation keeps a normal that is unit already
    // (`validate::near_unit`; the file's, a few ulps off unit length, go through glTF bit for
    // bit) and changes every other one, so the exact ones are kept when a finite normal is not
    // unit ([`lossy_normal`], decided in the `columns` pass for the referenced vertices: the
    // unreferenced ones come back whole from `bmf_unreferenced`): the copy is made only then,
    // straight into the blob's bytes.
    if lossy_normals {
        let mut bytes = Vec::with_capacity(12 * mesh.vertices.len());
        each_kind!(&mesh.vertices, v => {
            for x in v {
                bytes.extend_from_slice(binio::pod::as_bytes(&x.normal));
            }
        });
        extras.insert("bmf_normals".into(), raw64::put(blobs, bytes));
    }
    // Only a file without samples needs it (fewer joints may be exported, and the way back
    // must make no sample); elsewhere it is the joint count, and scenes of one character's
    // files must stay equal for `merge_clips`.
    if let Some(skin) = mesh.skin.as_ref().filter(|s| s.sample_count() == 0) {
        extras.insert("bmf_bone_count".into(), json!(skin.bone_count));
    }
    if mesh.end_size != 0 {
        extras.insert("bmf_end_size".into(), json!(mesh.end_size));
    }
    if primitives.len() != mesh.materials.len() {
        let all: Vec<usize> = (first_material..materials.len()).collect();
        extras.insert("bmf_materials".into(), json!(all));
    }
    if let Some(layout) = index_layout(mesh, blobs) {
        extras.insert("bmf_index_layout".into(), layout);
    }
    if let Some(raw) = unreferenced_bytes(mesh, referenced) {
        extras.insert("bmf_unreferenced".into(), raw64::put(blobs, raw));
    }
    extras
}

/// A vertex's joints and weights as the file stores them.
type Influences = ([u32; 4], [f32; 4]);

/// The file's influences of the vertices whose cleaning for glTF changed more than rounding
/// (`{"bones", "vertices": [index, …], "raw": base64 of each one's 4 u32 joints and 4 f32
/// weights}`), which `to_bmf` writes back while the scene still holds their cleaned values.
fn influences_json(
    fixed: &[(usize, Influences)],
    bones: usize,
    blobs: &mut Vec<Array<u8>>,
) -> serde_json::Value {
    let vertices: Vec<usize> = fixed.iter().map(|(i, _)| *i).collect();
    let raw: Vec<u8> = fixed
        .iter()
        .flat_map(|(_, (j, w))| {
            let j = j.iter().flat_map(|x| x.to_le_bytes());
            j.chain(w.iter().flat_map(|x| x.to_le_bytes()))
                .collect::<Vec<u8>>()
        })
        .collect();
    object([
        ("bones", json!(bones)),
        ("vertices", json!(vertices)),
        ("raw", raw64::put(blobs, raw)),
    ])
}

/// The Index block and the Material ranges (`{"ranges": [[start, count], …], "indices":
/// base64}`) when the ranges are not the plain layout the primitives rebuild (each range
/// starting where the one before ended, whole triangles, the last ending with the block):
/// ranges that overlap, leave gaps or split triangles (bmf.md, rule 23).
fn index_layout(mesh: &bmf_block::Mesh, blobs: &mut Vec<Array<u8>>) -> Option<serde_json::Value> {
    let mut end = 0u64;
    let plain = mesh.materials.iter().all(|m| {
        let fits = u64::from(m.start_index) == end && m.index_count % 3 == 0;
        end += u64::from(m.index_count);
        fits
    }) && end == mesh.indices.len() as u64;
    if plain {
        return None;
    }
    let ranges: Vec<[u32; 2]> = mesh
        .materials
        .iter()
        .map(|m| [m.start_index, m.index_count])
        .collect();
    let bytes: Vec<u8> = mesh.indices.iter().flat_map(|i| i.to_le_bytes()).collect();
    Some(object([
        ("ranges", json!(ranges)),
        ("indices", raw64::put(blobs, bytes)),
    ]))
}

/// The file's bytes of the vertices no index references (the garbage old tools left, which the
/// scene holds zeroed), in vertex order; `None` when every vertex is referenced.
fn unreferenced_bytes(mesh: &bmf_block::Mesh, referenced: &[bool]) -> Option<Vec<u8>> {
    if referenced.iter().all(|&r| r) {
        return None;
    }
    let size = mesh.vertices.kind().size();
    let all = mesh.vertices.as_bytes();
    let raw: Vec<u8> = referenced
        .iter()
        .enumerate()
        .filter(|(_, &r)| !r)
        .filter_map(|(k, _)| all.get(k * size..(k + 1) * size))
        .flatten()
        .copied()
        .collect();
    (!raw.is_empty()).then_some(raw)
}

/// The byte offsets of a mesh's BoneCount block and of the next mesh, for a mesh starting at
/// `at` (blocks are an 8-byte header and their payload; see `shared/formats/bmf.md`).
fn block_offsets(mesh: &bmf_block::Mesh, at: u64) -> (u64, u64) {
    let materials: u64 = mesh
        .materials
        .iter()
        .map(|x| 8 + 72 + 2 * x.texture.units().len() as u64)
        .sum();
    let bone_count_at = at
        + 8
        + mesh.vertices.as_bytes().len() as u64
        + 8
        + 2 * mesh.indices.len() as u64
        + 8
        + materials;
    let skin = mesh
        .skin
        .as_ref()
        .map_or(0, |s| 16 + 64 * s.matrices.len() as u64);
    (bone_count_at, bone_count_at + skin + 8)
}

/// Which of `vertex_count` vertices an index references. BMF indices are `u16`, so for a
/// mesh of 4 096 vertices or more the marks go into a table of 65 536 entries, one per possible
/// index: a mark is then a plain store with no bounds check or branch left (a large mesh's
/// index block is millions of indices), and the table (64 KiB) is at most half the bytes of
/// the vertices that back it. A smaller mesh marks a list of its own size. Also says whether
/// every index is below `vertex_count`, found from the marks, not from another pass.
fn referenced_vertices(indices: &[u16], vertex_count: usize) -> (Vec<bool>, bool) {
    const TABLE: usize = 1 << 16;
    if vertex_count < 1 << 12 {
        let mut referenced = vec![false; vertex_count];
        let mut outside = false;
        for &i in indices {
            match referenced.get_mut(usize::from(i)) {
                Some(mark) => *mark = true,
                None => outside = true,
            }
        }
        return (referenced, !outside);
    }
    let mut table = vec![false; TABLE].into_boxed_slice();
    let marks: &mut [bool; TABLE] = match (&mut *table).try_into() {
        Ok(marks) => marks,
        Err(_) => return (vec![false; vertex_count], false), // never: 65 536 entries
    };
    for &i in indices {
        // Always `Some`: the compiler sees a `u16` index below the array's length, so the
        // check is gone from the loop.
        if let Some(mark) = marks.get_mut(usize::from(i)) {
            *mark = true;
        }
    }
    // A mark past the last vertex is an index out of range.
    let outside = table
        .get(vertex_count..)
        .is_some_and(|past| past.contains(&true));
    let mut referenced = table.into_vec();
    // Vertices past 65 536 are never referenced.
    referenced.resize(vertex_count, false);
    (referenced, !outside)
}

/// Whether validation would change the file normal `n` while it is finite: the exact normals
/// are then kept in `bmf_normals` (see [`mesh_extras`]).
#[inline(always)]
fn lossy_normal(n: [f32; 3]) -> bool {
    n.iter().fold(true, |ok, c| ok & c.is_finite()) & !near_unit(n)
}

/// A mesh's scene columns ([`columns`]).
struct Columns {
    positions: Vec<[f32; 3]>,
    normals: Vec<[f32; 3]>,
    uv0: Vec<[f32; 2]>,
}

/// A mesh's scene positions and normals (z-mirrored as read) and UVs; the vertices no index
/// references are zeroed (normal (0, 1, 0)). `referenced` has one entry per vertex. A chunk of
/// vertices at a time, each array extended from it in turn: the chunk stays in cache, so a
/// large mesh's vertices are read from memory once, and each extend is exactly sized. The same
/// pass says whether the file normal of any referenced vertex is [`lossy_normal`] (an
/// unreferenced vertex comes back whole from `bmf_unreferenced`, its garbage normal too).
fn columns<V>(
    vertices: &[V],
    referenced: &[bool],
    get: impl Fn(&V) -> ([f32; 3], [f32; 3], [f32; 2]),
) -> (Columns, bool) {
    const CHUNK: usize = 64;
    let n = vertices.len().min(referenced.len());
    let mut out = Columns {
        positions: Vec::with_capacity(n),
        normals: Vec::with_capacity(n),
        uv0: Vec::with_capacity(n),
    };
    let mut lossy = false;
    for (vs, used) in vertices.chunks(CHUNK).zip(referenced.chunks(CHUNK)) {
        let each = || vs.iter().zip(used).map(|(v, &used)| (get(v), used));
        // Branch-free over the chunk (no early exit), so it vectorises.
        lossy |= each().fold(false, |any, ((_, n, _), used)| {
            any | (used & lossy_normal(n))
        });
        (out.positions)
            .extend(each().map(|((p, _, _), used)| if used { mirror_z(p) } else { [0.0; 3] }));
        out.normals.extend(each().map(
            |((_, n, _), used)| {
                if used {
                    mirror_z(n)
                } else {
                    [0.0, 1.0, 0.0]
                }
            },
        ));
        out.uv0
            .extend(each().map(|((_, _, uv), used)| if used { uv } else { [0.0; 2] }));
    }
    (out, lossy)
}

fn finite_or_zero(x: f32) -> f32 {
    if x.is_finite() {
        x
    } else {
        0.0
    }
}

/// The one place this module makes a warning: `{place}: {message}`.
fn warning(place: &str, message: impl Into<String>) -> SceneWarning {
    SceneWarning::other(place, message)
}

/// A known warning (a note: what the conversion always does with a part glTF has no place for,
/// or the tick-rate guess), at the format's name (`bmf`), with the rest of its message.
fn note(known: Known, rest: impl std::fmt::Display) -> SceneWarning {
    SceneWarning::known(known, rest)
}

#[cfg(test)]
mod tests {
    use super::referenced_vertices;

    /// Both ways of marking (a list for a small mesh, the 65 536-entry table from 4 096
    /// vertices) mark the same vertices and say the same about indices past the last vertex.
    #[test]
    fn referenced_vertices_marks_and_finds_indices_out_of_range() {
        for n in [5usize, 4096, 70_000] {
            let last = u16::try_from(n.min(65_536) - 1).unwrap();
            let (marks, in_range) = referenced_vertices(&[0, 2, last], n);
            assert!(in_range, "{n} vertices");
            assert_eq!(marks.len(), n);
            let marked: Vec<usize> = (0..n).filter(|&i| marks[i]).collect();
            assert_eq!(marked, [0, 2, usize::from(last)], "{n} vertices");
            if n <= 65_535 {
                let past = u16::try_from(n).unwrap();
                let (marks, in_range) = referenced_vertices(&[1, past], n);
                assert!(!in_range, "{n} vertices");
                assert_eq!(marks.iter().filter(|&&m| m).count(), 1);
            }
        }
    }
}
