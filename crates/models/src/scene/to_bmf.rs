//! [`ValidScene`] → BaseCross `.bmf`: the mirror of `from_bmf.rs`, following
//! `shared/formats/bmf.md` §4 backwards and §5's writer profile "Fbx2Bin".
//!
//! * **Handedness:** positions and normals `(x, y, z) → (x, y, −z)`, every triangle
//!   `(a, b, c) → (a, c, b)` (clockwise front faces again), UVs unchanged (top-left origin in
//!   both). Both are sign flips and reorderings, so an exported file comes back bit for bit.
//! * **Meshes:** one BMF mesh per scene mesh, in order, one Material block per primitive (in
//!   order; `extras.bmf_materials` restores Material blocks that had no triangles). A static
//!   mesh's node transform (at rest, with its ancestors) is applied to its vertices, with a
//!   warning, since BMF has no hierarchy. A mesh with more than 65 536 vertices is split into
//!   several BMF meshes (u16 indices), with a warning; a mesh drawn by several nodes is written
//!   once.
//! * **Normals** are the scene's, z-mirrored; `extras.bmf_normals` (the file's own, often a few
//!   ulps off unit length, which glTF's unit normals cannot hold) is used for each vertex whose
//!   scene normal is still that normal renormalised (within 1e-6).
//! * **Vertex kind:** skinned when the mesh's node has a skin and the mesh has `JOINTS_0` and
//!   `WEIGHTS_0`; with tangents when `extras.bmf_vertex_kind` names a tangent kind or the mesh has
//!   `TANGENT`. The tangents written are `extras.bmf_tangents` (the file's raw values, kept by the
//!   export) when it fits the mesh, else the scene's tangents as they are (the tool copied the
//!   FBX's right-handed values without mirroring them, §4), else zero (as the tool wrote them
//!   when the FBX had none).
//! * **Materials:** base colour → diffuse; specular colour ([`Material::specular`] or
//!   `extras.specular`) and `extras.ambient` → specular and ambient (else the tool's fixed
//!   (0.5, 0.5, 0.5, 0.4) and (0.5, 0.5, 0.5, 1)); emissive RGB and `extras.emissive_alpha`
//!   (else 0) → emissive; `extras.bmf_colours` (the file's 16 floats, kept by the export when
//!   they were out of range or not finite) instead, while the scene's colours are still what
//!   validation made of them. The texture name is the colour texture's file name (directories
//!   dropped, as the tool does), or the stored `extras.bmf_texture` when the writer only
//!   renamed its extension (a TGA copied as PNG); `extras.bmf_texture_units` gives back names
//!   with units after the NUL or unpaired surrogates. Normal, light and specular maps, alpha
//!   modes and double-sidedness are not held (warning).
//! * **Animation:** BMF holds one track of skinning matrices per mesh. With
//!   [`ImportOptions::clip`] that clip is taken; otherwise every clip is played one after the
//!   other, and a warning lists each clip's time range and samples (BaseCross games address
//!   animations by time range). Each clip is sampled at [`ImportOptions::bmf_fps`] from 0 to
//!   its duration (`round(duration × fps) + 1` samples, key `k` at `k / fps` as the export
//!   times them), and each joint's matrix is `global(joint) × inverseBind(joint)` mirrored to
//!   left-handed, as Fbx2Bin bakes `inverse(bindPose) × globalPose(t)`. Where the animation's
//!   `extras.bmf_matrices` (the exact matrices the export kept) agrees with the baked matrix
//!   within the TRS rounding, the exact matrix is written, so an unedited export comes back bit
//!   for bit. A skinned mesh with no clip gets one sample of the rest pose, or none when it came
//!   from a BMF file without samples (`extras.bmf_bone_count`, which also gives back the bones
//!   the export left out).
//! * **Header:** `BDV1.0` for one mesh, `BDV1.1` for more, or the exported file's own header
//!   (`extras.bmf_header`, `extras.bmf_version`) when it fits the mesh count.
//!
//! **Lost** (each named in a warning): names (BMF stores none), node hierarchy and transforms
//! not reachable through a mesh or a skin, animation of nodes that are not joints, second UV
//! set, vertex colours, material fields beyond the four colours and one texture, all but one
//! clip (or their separation, when concatenated). Unreferenced vertices keep the scene's values,
//! except that an exported file's garbage vertices come back from `extras.bmf_unreferenced`
//! while they are still unreferenced and zeroed, and its Index block and Material ranges from
//! `extras.bmf_index_layout` (ranges that overlap, leave gaps or split triangles) while every
//! primitive still holds its range's triangles (`to_bmf/exact.rs`).
//!
//! **`--base`:** with a base document, every part rebuilt from the scene that equals the base's
//! in value (within the export's rounding: renormalised normals, rescaled weights, TRS-decomposed
//! matrices, sanitised unreferenced vertices) is replaced by the base's bytes, so an unedited
//! export patched onto its own file is byte-identical to it; a warning lists what was taken
//! from the base.

use super::{
    invert, mirror_z, normalize3, transform_point, Animation, ImportOptions, Imported, Indices,
    Material, Scene, SceneWarning, Transform, ValidScene, IDENTITY,
};
use crate::scene::lenient;
use crate::{Error, Format};
use bmf_block::{
    Bmf, Header, SkinnedTangentVertex, SkinnedVertex, TangentVertex, TextureName, Version, Vertex,
    VertexKind, Vertices,
};
use serde_json::Value;
use std::collections::HashMap;

mod bake;
mod exact;
mod patch;
mod split;

use super::pose::Skeleton;
use bake::Track;

/// Vertices one BMF mesh can index (u16 indices).
pub(crate) const MAX_VERTICES: usize = 65_536;
/// The BaseCross shader's bone array size (bmf.md §4).
const MAX_SHADER_BONES: usize = 72;
/// The tool's fixed specular and ambient colours (bmf.md §4), for materials that have none.
const DEFAULT_SPECULAR: [f32; 4] = [0.5, 0.5, 0.5, 0.4];
const DEFAULT_AMBIENT: [f32; 4] = [0.5, 0.5, 0.5, 1.0];

/// Builds a BMF document from a validated scene; see the module docs.
pub(crate) fn convert(
    scene: &ValidScene,
    base: Option<&Bmf>,
    options: &ImportOptions,
) -> Result<Imported<Bmf>, Error> {
    let scene: &Scene = scene;
    let mut warnings = Vec::new();
    let fps = super::from_bmf::sample_rate(options.bmf_fps, &mut warnings);
    let track = Track::new(scene, options.clip.as_deref(), fps, &mut warnings)?;
    let skeleton = Skeleton::new(scene);
    let mut baked: HashMap<usize, Baked> = HashMap::new();
    let mut meshes = Vec::new();
    for (i, mesh) in scene.meshes.iter().enumerate() {
        let nodes: Vec<usize> = (0..scene.nodes.len())
            .filter(|&n| scene.nodes.get(n).and_then(|x| x.mesh) == Some(i))
            .collect();
        if nodes.len() > 1 {
            warnings.push(warning(
                "bmf",
                format!(
                    "mesh {i} ({:?}) is drawn by {} nodes; BMF has no instancing, written once \
                 (at the first node)",
                    mesh.name,
                    nodes.len()
                ),
            ));
        }
        let ctx = MeshContext {
            scene,
            index: i,
            node: nodes.first().copied(),
            track: &track,
            skeleton: &skeleton,
        };
        meshes.extend(convert_mesh(&ctx, &mut baked, &mut warnings)?);
    }
    if meshes.is_empty() {
        return Err(Error::FormatLimit {
            format: Format::Bmf,
            place: "scene".into(),
            what: "no mesh with triangles; a BMF file holds at least one".into(),
        });
    }
    notes(scene, &skeleton, &track, &baked, &mut warnings);
    for b in baked.values() {
        if b.replaced > 0 {
            warnings.push(warning(
                "bmf",
                format!(
                    "skin {}: {} of {} skinning matrices were baked from the animation \
                 channels (they differ from the exact matrices the export kept, or there were \
                 none)",
                    b.skin,
                    b.replaced,
                    b.matrices.len()
                ),
            ));
        }
    }
    let mut doc = Bmf::new(meshes);
    doc.header = header(scene, doc.meshes.len(), &mut warnings);
    if let Some(base) = base {
        patch::patch(&mut doc, base, &mut warnings);
    }
    Ok(Imported {
        document: doc,
        warnings,
    })
}

/// The header: the exported file's own (`extras.bmf_header`, `extras.bmf_version`) when it
/// fits the mesh count, else the tool's for that count.
fn header(scene: &Scene, mesh_count: usize, warnings: &mut Vec<SceneWarning>) -> Header {
    let fits = |h: &Header| match h.version() {
        Version::V1_0 => mesh_count == 1,
        Version::V1_1 => true,
    };
    let tool = Header::new(if mesh_count == 1 {
        Version::V1_0
    } else {
        Version::V1_1
    });
    let raw = scene
        .extras
        .get("bmf_header")
        .and_then(Value::as_array)
        .and_then(|a| {
            let bytes: Option<Vec<u8>> = a
                .iter()
                .map(|x| lenient::uint(x).and_then(|b| u8::try_from(b).ok()))
                .collect();
            <[u8; 16]>::try_from(bytes?).ok()
        })
        .filter(|raw| raw.starts_with(b"BDV1.0\0") || raw.starts_with(b"BDV1.1\0"))
        .map(|raw| Header { raw });
    let named = match scene.extras.get("bmf_version").and_then(Value::as_str) {
        Some("BDV1.0") => Some(Header::new(Version::V1_0)),
        Some("BDV1.1") => Some(Header::new(Version::V1_1)),
        _ => None,
    };
    match raw.or(named) {
        Some(h) if fits(&h) => h,
        Some(h) => {
            warnings.push(warning(
                "bmf",
                format!(
                    "the scene's header {} cannot hold {mesh_count} meshes; {} written",
                    h.version().as_str(),
                    tool.version().as_str()
                ),
            ));
            tool
        }
        None => tool,
    }
}

/// What one scene mesh is converted with.
struct MeshContext<'a> {
    scene: &'a Scene,
    index: usize,
    node: Option<usize>,
    track: &'a Track<'a>,
    skeleton: &'a Skeleton,
}

/// One skin's baked matrices (sample-major, file convention), shared by the meshes it deforms.
pub(crate) struct Baked {
    pub(crate) skin: usize,
    pub(crate) bones: usize,
    pub(crate) matrices: Vec<[f32; 16]>,
    /// How many were baked from the channels rather than taken from the exact extras.
    pub(crate) replaced: usize,
}

/// One vertex in BMF conventions (left-handed), before it is laid out by kind.
#[derive(Clone, Copy, Default)]
struct BmfVertex {
    position: [f32; 3],
    normal: [f32; 3],
    tangent: [f32; 4],
    uv: [f32; 2],
    joints: [u32; 4],
    weights: [f32; 4],
}

/// Converts one scene mesh into one BMF mesh, or several when it has more vertices than u16
/// indices reach; none when it has no triangles.
fn convert_mesh(
    ctx: &MeshContext<'_>,
    baked: &mut HashMap<usize, Baked>,
    warnings: &mut Vec<SceneWarning>,
) -> Result<Vec<bmf_block::Mesh>, Error> {
    let scene = ctx.scene;
    let i = ctx.index;
    let Some(mesh) = scene.meshes.get(i) else {
        return Ok(Vec::new());
    };
    let label = format!("bmf: mesh {i} ({:?})", mesh.name);
    let kind = vertex_kind(ctx, &label, warnings);
    let slots = material_slots(scene, i, &label, warnings);
    if slots.iter().all(|s| s.len() == 0) {
        warnings.push(warning(&label, "no triangles; not written"));
        return Ok(Vec::new());
    }
    let mut vertices = bmf_vertices(ctx, kind, &slots, &label, warnings);
    let skin = match (kind.is_skinned(), ctx.node.and_then(|n| scene.nodes.get(n))) {
        (true, Some(node)) => node.skin,
        _ => None,
    };
    let mut skin = match skin {
        Some(s) => Some(skin_block(ctx, s, baked, &label, warnings)?),
        None => None,
    };
    let end_size = mesh
        .extras
        .get("bmf_end_size")
        .and_then(lenient::uint)
        .and_then(|v| u32::try_from(v).ok())
        .unwrap_or(0);
    let pieces = split::split(vertices.len(), &slots);
    if pieces.len() > 1 {
        warnings.push(warning(
            &label,
            format!(
                "{} vertices are more than u16 indices reach ({MAX_VERTICES}); split into \
             {} BMF meshes",
                vertices.len(),
                pieces.len()
            ),
        ));
    }
    // An unsplit mesh with the export's odd index layout gets that layout back.
    let mut exact_layout = match pieces.as_slice() {
        [one] if one.map.is_none() => exact::index_layout(&mesh.extras, &scene.blobs, &slots),
        _ => None,
    };
    let whole = pieces.len() == 1;
    let last = pieces.len().saturating_sub(1);
    let mut out = Vec::with_capacity(pieces.len());
    for (k, piece) in pieces.into_iter().enumerate() {
        // Each piece holds its own AnimeMatrix block: the last takes the mesh's, the others
        // copy it (charged like every copy of a skin's matrices).
        let piece_skin = match &skin {
            Some(block) if k < last => {
                let bytes = (block.matrices.len() as u64).saturating_mul(64);
                ctx.track.charge(bytes, &label, || {
                    format!(
                        "a copy of {} matrices for split piece {k}",
                        block.matrices.len()
                    )
                })?;
                Some(block.clone())
            }
            _ => skin.take(),
        };
        let mut vertices = match &piece.map {
            Some(map) => pick(&vertices, map),
            // The one piece of an unsplit mesh takes the vertices (no copy of the array).
            None if whole => std::mem::replace(&mut vertices, Vertices::Plain(Vec::new())),
            None => vertices.clone(),
        };
        let (indices, ranges) = match (&piece.map, exact_layout.take()) {
            (None, Some(exact)) => (exact.indices, exact.ranges),
            (None, None) => whole_indices(&slots),
            (Some(_), _) => piece_indices(&piece.triangles),
        };
        let mut materials = Vec::with_capacity(ranges.len());
        for (slot, &[start, count]) in slots.iter().zip(&ranges) {
            if piece.map.is_some() && count == 0 {
                continue;
            }
            let material = slot.material.and_then(|m| scene.materials.get(m));
            materials.push(convert_material(material, start, count, &label, warnings));
        }
        if piece.map.is_none() {
            let p = &mesh.vertices.positions;
            exact::restore_unreferenced(&mesh.extras, &scene.blobs, p, &indices, &mut vertices);
            let v = &mesh.vertices;
            let (j, w) = (v.joints.as_deref(), v.weights.as_deref());
            let bones = piece_skin.as_ref().map_or(0, |s| s.bone_count);
            exact::restore_influences(&mesh.extras, &scene.blobs, j, w, bones, &mut vertices);
        }
        let mut m = bmf_block::Mesh::new(vertices, indices, materials, piece_skin);
        m.end_size = end_size;
        out.push(m);
    }
    Ok(out)
}

/// The Index block of an unsplit mesh and each slot's `[start, count]`: the slots' triangles
/// in BMF winding, written straight from the scene's lists (every index is below the mesh's
/// at most 65 536 vertices, so it fits a u16).
fn whole_indices(slots: &[Slot]) -> (Vec<u16>, Vec<[u32; 2]>) {
    let narrow = |i: u32| u16::try_from(i).unwrap_or(u16::MAX);
    let mut indices = vec![0u16; slots.iter().map(|s| s.len() * 3).sum()];
    let mut ranges = Vec::with_capacity(slots.len());
    let mut rest = indices.as_mut_slice();
    let mut start = 0;
    for slot in slots {
        // The output was sized as the sum of these lengths: the split always succeeds.
        let Some((out, after)) = rest.split_at_mut_checked(slot.len() * 3) else {
            break;
        };
        // Zipped chunks of the sized output: no capacity check per triangle.
        for (o, t) in out.chunks_exact_mut(3).zip(slot.triangles()) {
            o.copy_from_slice(&t.map(narrow));
        }
        ranges.push(range_of(start, start + out.len()));
        start += out.len();
        rest = after;
    }
    (indices, ranges)
}

/// The Index block of one piece of a split mesh and each slot's `[start, count]`.
fn piece_indices(triangles: &[Vec<[u16; 3]>]) -> (Vec<u16>, Vec<[u32; 2]>) {
    let mut indices = Vec::with_capacity(triangles.iter().map(|t| t.len() * 3).sum());
    let mut ranges = Vec::with_capacity(triangles.len());
    for tris in triangles {
        let start = indices.len();
        indices.extend_from_slice(tris.as_flattened());
        ranges.push(range_of(start, indices.len()));
    }
    (indices, ranges)
}

/// A Material block's `[start, count]` for the indices `start..end`.
fn range_of(start: usize, end: usize) -> [u32; 2] {
    let start32 = u32::try_from(start).unwrap_or(u32::MAX);
    [start32, u32::try_from(end - start).unwrap_or(u32::MAX)]
}

/// The vertex kind: skinned when the node has a skin and the mesh has joints and weights; with
/// tangents when the export says so or the mesh has tangents.
fn vertex_kind(ctx: &MeshContext<'_>, label: &str, warnings: &mut Vec<SceneWarning>) -> VertexKind {
    let scene = ctx.scene;
    let Some(mesh) = scene.meshes.get(ctx.index) else {
        return VertexKind::Plain;
    };
    let v = &mesh.vertices;
    let skin = ctx
        .node
        .and_then(|n| scene.nodes.get(n))
        .and_then(|n| n.skin)
        .and_then(|s| scene.skins.get(s));
    let has_influences = v.joints.is_some() && v.weights.is_some();
    let skinned = match skin {
        Some(s) if has_influences && !s.joints.is_empty() => true,
        Some(_) => {
            warnings.push(warning(
                label,
                "its node has a skin but the mesh has no joints and weights (or the \
                 skin no joint); written static",
            ));
            false
        }
        None if has_influences => {
            warnings.push(warning(
                label,
                "joints and weights but no skin on its node; written static, \
                 weights dropped",
            ));
            false
        }
        None => false,
    };
    let stored = mesh.extras.get("bmf_vertex_kind").and_then(Value::as_str);
    let tangent = v.tangents.is_some()
        || matches!(
            stored,
            Some("VertexWithTangent" | "SkinedVertexWithTangent")
        );
    let kind = match (skinned, tangent) {
        (false, false) => VertexKind::Plain,
        (false, true) => VertexKind::Tangent,
        (true, false) => VertexKind::Skinned,
        (true, true) => VertexKind::SkinnedTangent,
    };
    if let Some(stored) = stored {
        if stored != kind.name() {
            warnings.push(warning(
                label,
                format!(
                    "extras.bmf_vertex_kind is {stored}, but the mesh's content makes it \
                 {}",
                    kind.name()
                ),
            ));
        }
    }
    kind
}

/// One Material block to be: a scene material and its triangles.
pub(crate) struct Slot {
    material: Option<usize>,
    /// Whole triangles, every index below the vertex count, in the scene's winding: the
    /// primitive's own list when nothing had to be dropped (shared, not copied; a large mesh's
    /// triangles are then read once, by the pass that writes the Index block).
    indices: Indices,
}

impl Slot {
    /// The number of triangles.
    pub(crate) fn len(&self) -> usize {
        self.indices.len() / 3
    }

    /// The triangles in BMF winding (clockwise front faces: `(a, b, c)` → `(a, c, b)`).
    pub(crate) fn triangles(&self) -> impl ExactSizeIterator<Item = [u32; 3]> + '_ {
        self.indices.chunks_exact(3).map(|t| match *t {
            [a, b, c] => [a, c, b],
            _ => [0; 3],
        })
    }
}

/// The mesh's Material blocks: one per primitive, in order, or `extras.bmf_materials` (the
/// export's list, which keeps blocks without triangles) with the primitives put in its slots.
fn material_slots(
    scene: &Scene,
    i: usize,
    label: &str,
    warnings: &mut Vec<SceneWarning>,
) -> Vec<Slot> {
    let Some(mesh) = scene.meshes.get(i) else {
        return Vec::new();
    };
    let vertex_count = mesh.vertices.positions.len();
    let listed: Option<Vec<usize>> = mesh
        .extras
        .get("bmf_materials")
        .and_then(Value::as_array)
        .and_then(|a| {
            a.iter()
                .map(|x| {
                    lenient::uint(x)
                        .and_then(|m| usize::try_from(m).ok())
                        .filter(|&m| m < scene.materials.len())
                })
                .collect()
        });
    let mut slots: Vec<Slot> = listed
        .unwrap_or_default()
        .into_iter()
        .map(|m| Slot {
            material: Some(m),
            indices: Indices::default(),
        })
        .collect();
    let listed_len = slots.len();
    let mut taken = vec![false; listed_len];
    let mut bad = 0usize;
    for p in &mesh.primitives {
        let in_range = |t: &[u32]| t.iter().all(|&x| (x as usize) < vertex_count);
        // Validation leaves only whole, in-range triangles: the list is then shared as it is
        // (its largest index found in one pass that vectorises).
        let largest = p.indices.iter().fold(0, |m, &x| m.max(x));
        let tris = if p.indices.len() % 3 == 0
            && (p.indices.is_empty() || (largest as usize) < vertex_count)
        {
            p.indices.clone()
        } else {
            let mut kept = Vec::with_capacity(p.indices.len() / 3 * 3);
            for t in p.indices.chunks_exact(3) {
                if in_range(t) {
                    kept.extend_from_slice(t);
                } else {
                    bad += 1;
                }
            }
            Indices::from(kept)
        };
        let free = (0..listed_len).find(|&k| {
            !taken.get(k).copied().unwrap_or(true)
                && slots.get(k).and_then(|s| s.material) == p.material
        });
        match free.and_then(|k| Some((taken.get_mut(k)?, slots.get_mut(k)?))) {
            Some((t, slot)) => {
                *t = true;
                slot.indices = tris;
            }
            None => slots.push(Slot {
                material: p.material,
                indices: tris,
            }),
        }
    }
    if bad > 0 {
        warnings.push(warning(
            label,
            format!("{bad} triangles index past the {vertex_count} vertices; dropped"),
        ));
    }
    slots
}

/// The mesh's vertices in BMF conventions: z mirrored, the static mesh's node transform
/// applied, tangents and influences as the kind needs.
fn bmf_vertices(
    ctx: &MeshContext<'_>,
    kind: VertexKind,
    slots: &[Slot],
    label: &str,
    warnings: &mut Vec<SceneWarning>,
) -> Vertices {
    let Some(mesh) = ctx.scene.meshes.get(ctx.index) else {
        return lay_out(kind, 0, |_| BmfVertex::default());
    };
    let v = &mesh.vertices;
    let n = v.positions.len();
    let transform = match ctx.node {
        Some(node) if !kind.is_skinned() => ctx.skeleton.rest_global(ctx.scene, node),
        _ => IDENTITY,
    };
    let moved = transform != IDENTITY;
    if moved {
        warnings.push(warning(
            label,
            "its node's transform is applied to the vertices (BMF has no node \
             transforms)",
        ));
    }
    // Normals transform by the inverse transpose of the linear part.
    let normal_matrix = invert(transform).map(super::transpose).unwrap_or(IDENTITY);
    let computed;
    let normals: &[[f32; 3]] = match &v.normals {
        Some(list) => list,
        None => {
            warnings.push(warning(
                label,
                "no normals; smooth normals computed from the triangles",
            ));
            computed = smooth_normals(&v.positions, slots);
            &computed
        }
    };
    if v.uv0.is_none() {
        warnings.push(warning(label, "no TEXCOORD_0; UVs written as (0, 0)"));
    }
    let blobs = &ctx.scene.blobs;
    // Read in place from the blobs (no copy of the arrays).
    let stored_tangents = mesh
        .extras
        .get("bmf_tangents")
        .and_then(|t| super::raw64::pods::<[f32; 4]>(blobs, t))
        .filter(|t| t.len() == n);
    let stored_normals = mesh
        .extras
        .get("bmf_normals")
        .and_then(|t| super::raw64::pods::<[f32; 3]>(blobs, t))
        .filter(|t| t.len() == n);
    // Each attribute resolved to a slice once (empty: absent), not per vertex.
    let skinned = kind.is_skinned();
    let sources = Sources {
        positions: &v.positions,
        normals,
        uvs: v.uv0.as_deref().unwrap_or_default(),
        tangents: match &stored_tangents {
            Some(t) => t,
            None => v.tangents.as_deref().unwrap_or_default(),
        },
        joints: v.joints.as_deref().filter(|_| skinned).unwrap_or_default(),
        weights: v.weights.as_deref().filter(|_| skinned).unwrap_or_default(),
        file_normals: stored_normals.as_deref().unwrap_or_default(),
        skinned,
        moved: moved.then_some((transform, normal_matrix)),
    };
    // One pass: each vertex is made on the stack and written in the kind's final layout.
    lay_out(kind, n, |k| sources.vertex(k))
}

/// What a mesh's BMF vertices are made of: the scene's attributes (an empty slice for one
/// that is absent) and the export's stored arrays.
struct Sources<'a> {
    positions: &'a [[f32; 3]],
    normals: &'a [[f32; 3]],
    uvs: &'a [[f32; 2]],
    tangents: &'a [[f32; 4]],
    joints: &'a [[u16; 4]],
    weights: &'a [[f32; 4]],
    /// The file's own normals (`extras.bmf_normals`).
    file_normals: &'a [[f32; 3]],
    skinned: bool,
    /// The static mesh's node transform and its normal matrix, when not the identity.
    moved: Option<([f32; 16], [f32; 16])>,
}

impl Sources<'_> {
    /// Vertex `k` in BMF conventions. Inlined into the layout loop: it runs once per vertex.
    #[inline(always)]
    fn vertex(&self, k: usize) -> BmfVertex {
        let mut p = self.positions.get(k).copied().unwrap_or_default();
        let mut normal = self.normals.get(k).copied().unwrap_or([0.0, 1.0, 0.0]);
        if let Some((transform, normal_matrix)) = self.moved {
            p = transform_point(transform, p);
            let d = transform_point(normal_matrix, normal);
            let o = transform_point(normal_matrix, [0.0; 3]);
            normal = normalize3([d[0] - o[0], d[1] - o[1], d[2] - o[2]]).unwrap_or(normal);
        }
        let (joints, weights) = if self.skinned {
            (
                self.joints.get(k).copied().unwrap_or([0; 4]).map(u32::from),
                self.weights.get(k).copied().unwrap_or([1.0, 0.0, 0.0, 0.0]),
            )
        } else {
            ([0; 4], [0.0; 4])
        };
        // The file's own normal while the scene's is still that normal renormalised.
        let exact = self.file_normals.get(k).copied().filter(|&f| {
            normalize3(mirror_z(f))
                .is_some_and(|u| u.iter().zip(&normal).all(|(a, b)| (a - b).abs() <= 1e-6))
        });
        BmfVertex {
            position: mirror_z(p),
            normal: exact.unwrap_or(mirror_z(normal)),
            tangent: self.tangents.get(k).copied().unwrap_or([0.0; 4]),
            uv: self.uvs.get(k).copied().unwrap_or([0.0; 2]),
            joints,
            weights,
        }
    }
}

/// Area-weighted vertex normals of the triangles (in the scene's winding: the slots hold BMF
/// winding, so the cross product is taken the other way round).
fn smooth_normals(positions: &[[f32; 3]], slots: &[Slot]) -> Vec<[f32; 3]> {
    let mut acc = vec![[0.0f32; 3]; positions.len()];
    for t in slots.iter().flat_map(Slot::triangles) {
        let p = t.map(|i| positions.get(i as usize).copied().unwrap_or_default());
        let e1 = sub(p[2], p[0]);
        let e2 = sub(p[1], p[0]);
        let n = [
            e1[1] * e2[2] - e1[2] * e2[1],
            e1[2] * e2[0] - e1[0] * e2[2],
            e1[0] * e2[1] - e1[1] * e2[0],
        ];
        for i in t {
            if let Some(a) = acc.get_mut(i as usize) {
                *a = [a[0] + n[0], a[1] + n[1], a[2] + n[2]];
            }
        }
    }
    acc.into_iter()
        .map(|n| normalize3(n).unwrap_or([0.0, 1.0, 0.0]))
        .collect()
}

fn sub(a: [f32; 3], b: [f32; 3]) -> [f32; 3] {
    [a[0] - b[0], a[1] - b[1], a[2] - b[2]]
}

/// Vertices `0..n` (made by `vertex`) laid out as `kind`, in one pass.
fn lay_out(kind: VertexKind, n: usize, vertex: impl Fn(usize) -> BmfVertex) -> Vertices {
    match kind {
        VertexKind::Plain => Vertices::Plain((0..n).map(|k| plain(vertex(k))).collect()),
        VertexKind::Tangent => Vertices::Tangent((0..n).map(|k| tangent(vertex(k))).collect()),
        VertexKind::Skinned => Vertices::Skinned((0..n).map(|k| skinned(vertex(k))).collect()),
        VertexKind::SkinnedTangent => {
            Vertices::SkinnedTangent((0..n).map(|k| skinned_tangent(vertex(k))).collect())
        }
    }
}

/// The vertices of `all` that `map` lists, in its order (a piece of a split mesh); an index
/// past them gives a default vertex (split makes none).
fn pick(all: &Vertices, map: &[u32]) -> Vertices {
    fn each<T: Copy + Default>(list: &[T], map: &[u32]) -> Vec<T> {
        map.iter()
            .map(|&v| list.get(v as usize).copied().unwrap_or_default())
            .collect()
    }
    match all {
        Vertices::Plain(l) => Vertices::Plain(each(l, map)),
        Vertices::Tangent(l) => Vertices::Tangent(each(l, map)),
        Vertices::Skinned(l) => Vertices::Skinned(each(l, map)),
        Vertices::SkinnedTangent(l) => Vertices::SkinnedTangent(each(l, map)),
    }
}

fn plain(v: BmfVertex) -> Vertex {
    Vertex {
        position: v.position,
        normal: v.normal,
        uv: v.uv,
    }
}

fn tangent(v: BmfVertex) -> TangentVertex {
    TangentVertex {
        position: v.position,
        normal: v.normal,
        tangent: v.tangent,
        uv: v.uv,
    }
}

fn skinned(v: BmfVertex) -> SkinnedVertex {
    SkinnedVertex {
        position: v.position,
        normal: v.normal,
        uv: v.uv,
        bone_indices: v.joints,
        weights: v.weights,
    }
}

fn skinned_tangent(v: BmfVertex) -> SkinnedTangentVertex {
    SkinnedTangentVertex {
        position: v.position,
        normal: v.normal,
        tangent: v.tangent,
        uv: v.uv,
        bone_indices: v.joints,
        weights: v.weights,
    }
}

/// The BoneCount and AnimeMatrix of a mesh deformed by scene skin `s`, baked once per skin.
fn skin_block(
    ctx: &MeshContext<'_>,
    s: usize,
    baked: &mut HashMap<usize, Baked>,
    label: &str,
    warnings: &mut Vec<SceneWarning>,
) -> Result<bmf_block::Skin, Error> {
    let scene = ctx.scene;
    let b = match baked.entry(s) {
        std::collections::hash_map::Entry::Occupied(e) => e.into_mut(),
        std::collections::hash_map::Entry::Vacant(e) => {
            e.insert(ctx.track.bake(scene, ctx.skeleton, s)?)
        }
    };
    let mesh = scene.meshes.get(ctx.index);
    let stored = mesh
        .and_then(|m| m.extras.get("bmf_bone_count"))
        .and_then(lenient::uint)
        .and_then(|c| usize::try_from(c).ok());
    // Without samples the BoneCount is all the file keeps of bones the export left out.
    let bones = match stored {
        Some(c) if b.matrices.is_empty() && c > b.bones => c,
        _ => b.bones,
    };
    if bones > MAX_SHADER_BONES {
        warnings.push(warning(
            label,
            format!("{bones} bones; BaseCross's shader holds {MAX_SHADER_BONES}"),
        ));
    }
    let bone_count = u32::try_from(bones).map_err(|_| Error::FormatLimit {
        format: Format::Bmf,
        place: label.to_owned(),
        what: format!("{bones} bones do not fit BoneCount (u32)"),
    })?;
    // Each mesh holds its own copy of its skin's matrices: charged per use, as the bake was.
    let bytes = (b.matrices.len() as u64).saturating_mul(64);
    ctx.track.charge(bytes, label, || {
        format!(
            "a copy of skin {s}'s {} matrices for this mesh",
            b.matrices.len()
        )
    })?;
    Ok(bmf_block::Skin {
        bone_count,
        matrices: b.matrices.clone(),
    })
}

/// A BMF Material block from a scene material (or the defaults, for a primitive without one).
fn convert_material(
    m: Option<&Material>,
    start: u32,
    count: u32,
    label: &str,
    warnings: &mut Vec<SceneWarning>,
) -> bmf_block::Material {
    let default = Material::default();
    let m = m.unwrap_or(&default);
    let floats = |key: &str| -> Option<[f32; 4]> {
        let list = m.extras.get(key)?.as_array()?;
        let v: Option<Vec<f32>> = list.iter().map(|x| x.as_f64().map(|f| f as f32)).collect();
        <[f32; 4]>::try_from(v?).ok()
    };
    let specular = m
        .specular
        .map(|(c, _)| c)
        .or_else(|| floats("specular"))
        .unwrap_or(DEFAULT_SPECULAR);
    let ambient = floats("ambient").unwrap_or(DEFAULT_AMBIENT);
    let emissive_alpha = m
        .extras
        .get("emissive_alpha")
        .and_then(Value::as_f64)
        .map_or(0.0, |a| a as f32);
    let [er, eg, eb] = m.emissive;
    let mut lost = Vec::new();
    for (what, present) in [
        ("a normal map", m.normal_texture.is_some()),
        ("a light map", m.light_map.is_some()),
        ("a specular map", m.specular_texture.is_some()),
        (
            "a specular power",
            m.specular.is_some_and(|(_, p)| p != 0.0),
        ),
        ("an alpha mode", m.alpha_mode != super::AlphaMode::Opaque),
        ("double-sidedness", m.double_sided),
    ] {
        if present {
            lost.push(what);
        }
    }
    if !lost.is_empty() {
        warnings.push(warning(
            label,
            format!(
                "material {:?}: BMF holds four colours and one texture name; {} not \
             written",
                m.name,
                lost.join(", ")
            ),
        ));
    }
    let now = [
        m.base_color,
        specular,
        ambient,
        [er, eg, eb, emissive_alpha],
    ];
    let [diffuse, specular, ambient, emissive] = kept_colours(m, &now).unwrap_or(now);
    bmf_block::Material {
        start_index: start,
        index_count: count,
        diffuse: diffuse.into(),
        specular: specular.into(),
        ambient: ambient.into(),
        emissive: emissive.into(),
        texture: texture_name(m, label, warnings),
    }
}

/// The file's colours as the export kept them (`extras.bmf_colours`, only when glTF could not
/// hold them), while the scene's (`now`: diffuse, specular, ambient, emissive) are still what
/// validation and the export made of them: diffuse and emissive clamped to 0..1 (non-finite:
/// 1 and 0), the other components' non-finite values 0.
fn kept_colours(m: &Material, now: &[[f32; 4]; 4]) -> Option<[[f32; 4]; 4]> {
    let raw = m
        .extras
        .get("bmf_colours")
        .and_then(Value::as_str)
        .and_then(super::raw64::decode_f32)?;
    let [d0, d1, d2, d3, s0, s1, s2, s3, a0, a1, a2, a3, e0, e1, e2, e3] =
        <[f32; 16]>::try_from(raw).ok()?;
    let kept = [
        [d0, d1, d2, d3],
        [s0, s1, s2, s3],
        [a0, a1, a2, a3],
        [e0, e1, e2, e3],
    ];
    let unit = |fill: f32| move |x: f32| super::validate::unit_factor(x, fill);
    let finite = |x: f32| if x.is_finite() { x } else { 0.0 };
    let exported = [
        kept[0].map(unit(1.0)),
        kept[1].map(finite),
        kept[2].map(finite),
        [unit(0.0)(e0), unit(0.0)(e1), unit(0.0)(e2), finite(e3)],
    ];
    (exported == *now).then_some(kept)
}

/// The texture file name: the colour texture's file name, or the stored name when only its
/// extension changed (the glTF writer copies a TGA as PNG), or the stored raw units.
fn texture_name(m: &Material, label: &str, warnings: &mut Vec<SceneWarning>) -> TextureName {
    let Some(path) = m.color_texture.as_deref() else {
        return TextureName::new("");
    };
    let file = path.rsplit(['/', '\\']).next().unwrap_or(path);
    if file.len() != path.len() {
        warnings.push(warning(
            label,
            format!(
                "material {:?}: texture {path:?} written as its file name {file:?} (BMF \
             stores no folder; the game prepends its own)",
                m.name
            ),
        ));
    }
    let stem = |s: &str| {
        s.rsplit_once('.')
            .map_or(s, |(stem, _)| stem)
            .to_ascii_lowercase()
    };
    let stored = m
        .extras
        .get("bmf_texture")
        .and_then(Value::as_str)
        .filter(|s| *s == file || stem(s) == stem(file));
    let name = stored.unwrap_or(file);
    let units: Option<Vec<u16>> = m
        .extras
        .get("bmf_texture_units")
        .and_then(Value::as_array)
        .and_then(|a| {
            a.iter()
                .map(|x| lenient::uint(x).and_then(|u| u16::try_from(u).ok()))
                .collect()
        });
    match units.and_then(TextureName::from_units) {
        Some(raw) if raw.to_string_lossy() == name => raw,
        _ => TextureName::new(name),
    }
}

/// Warnings for what the scene has and BMF cannot hold at all.
fn notes(
    scene: &Scene,
    skeleton: &Skeleton,
    track: &Track<'_>,
    baked: &HashMap<usize, Baked>,
    warnings: &mut Vec<SceneWarning>,
) {
    let count = |f: &dyn Fn(&super::Vertices) -> bool| {
        scene.meshes.iter().filter(|m| f(&m.vertices)).count()
    };
    let uv1 = count(&|v| v.uv1.is_some());
    if uv1 > 0 {
        warnings.push(warning(
            "bmf",
            format!("{uv1} mesh(es) have a second UV set (TEXCOORD_1); BMF holds one, not written"),
        ));
    }
    let colors = count(&|v| v.colors.is_some());
    if colors > 0 {
        warnings.push(warning(
            "bmf",
            format!("{colors} mesh(es) have vertex colours; BMF has none, not written"),
        ));
    }
    if baked.len() > 1 {
        warnings.push(warning(
            "bmf",
            format!(
                "{} skins; BMF has no skeleton, each mesh carries its own bone list and \
             baked matrices",
                baked.len()
            ),
        ));
    }
    // Nodes BMF keeps something of: mesh nodes (their transform baked into static vertices),
    // joints and the ancestors of joints (baked into the matrices).
    let mut kept = vec![false; scene.nodes.len()];
    for (n, node) in scene.nodes.iter().enumerate() {
        if node.mesh.is_some() {
            if let Some(k) = kept.get_mut(n) {
                *k = true;
            }
        }
    }
    for b in baked.values() {
        for &j in scene.skins.get(b.skin).map_or(&[][..], |s| &s.joints) {
            if let Some(k) = kept.get_mut(j) {
                *k = true;
            }
        }
    }
    let dropped: Vec<&str> = scene
        .nodes
        .iter()
        .zip(&kept)
        .filter(|(n, k)| !**k && n.transform != Transform::default() && n.children.is_empty())
        .map(|(n, _)| n.name.as_str())
        .collect();
    if !dropped.is_empty() {
        warnings.push(warning(
            "bmf",
            format!(
                "{} leaf node(s) with a transform but no mesh and no joint role are not held \
             (BMF has no node hierarchy): {}",
                dropped.len(),
                preview(&dropped)
            ),
        ));
    }
    // Joints and their ancestors: their motion is baked into the matrices.
    let mut moves_joints = vec![false; scene.nodes.len()];
    for &j in baked
        .values()
        .filter_map(|b| scene.skins.get(b.skin))
        .flat_map(|s| &s.joints)
    {
        let mut cur = Some(j);
        while let Some(n) = cur {
            match moves_joints.get_mut(n) {
                Some(m) if !*m => *m = true,
                _ => break,
            }
            cur = skeleton.parent(n);
        }
    }
    let animated_others: usize = track
        .animations()
        .flat_map(|a| &a.channels)
        .filter(|c| !moves_joints.get(c.node).copied().unwrap_or(false))
        .count();
    if animated_others > 0 {
        warnings.push(warning(
            "bmf",
            format!(
                "{animated_others} animation channel(s) target nodes that deform no skinned \
             mesh; BMF animates bones only, not written"
            ),
        ));
    }
}

/// At most eight names, quoted.
fn preview(names: &[&str]) -> String {
    let mut s: Vec<String> = names.iter().take(8).map(|n| format!("{n:?}")).collect();
    if names.len() > 8 {
        s.push(format!("… ({} more)", names.len() - 8));
    }
    s.join(", ")
}

/// The scene's animations a [`Track`] plays, for the notes.
impl Track<'_> {
    fn animations(&self) -> impl Iterator<Item = &Animation> + '_ {
        self.clips.iter().map(|c| c.animation)
    }
}

/// The one place this module makes a warning: `{place}: {message}`.
fn warning(place: &str, message: impl Into<String>) -> SceneWarning {
    SceneWarning::other(place, message)
}
