//! Vertices, triangles, attribute ranges and adjacency of the one SKM mesh, from every scene
//! mesh in turn.

use super::bones::{Bones, Tree};
use super::Ctx;
use crate::scene::lenient;
use crate::scene::Array;
use crate::scene::{
    mirror_z, normalize3, normalize_weights, transform_point, Mesh, SlotOrder, IDENTITY,
};
use skm_text::{AttributeRange, Vertex};

/// The document's geometry so far.
#[derive(Default)]
pub(super) struct Geometry {
    pub(super) vertices: Vec<Vertex>,
    pub(super) triangles: Vec<[u32; 3]>,
    pub(super) attributes: Vec<AttributeRange>,
    /// The export's adjacency, when the scene is one unedited mesh.
    pub(super) adjacency: Option<Vec<[u32; 3]>>,
}

/// How one scene mesh is placed: on which node (the first that draws it), skinned or not.
pub(super) struct Placement {
    pub(super) node: Option<usize>,
    pub(super) skinned: Option<usize>,
}

impl Geometry {
    /// Appends scene mesh `index`.
    pub(super) fn add(
        &mut self,
        cx: &mut Ctx<'_>,
        tree: &Tree,
        bones: &Bones,
        index: usize,
        at: &Placement,
    ) -> Result<(), crate::Error> {
        let scene = cx.scene;
        let Some(mesh) = scene.meshes.get(index) else {
            return Ok(());
        };
        let place = format!("mesh {index} ({:?})", mesh.name);
        let base = u32::try_from(self.vertices.len()).ok();
        let count = mesh.vertices.positions.len();
        let Some(base) = base.filter(|b| u64::from(*b) + count as u64 <= u64::from(u32::MAX))
        else {
            return Err(cx.limit(&place, "more than 4 294 967 295 vertices".into()));
        };
        let faces = triangles(cx, mesh, &place);
        if faces.iter().all(|(_, t)| t.is_empty()) {
            cx.warn(&place, "no triangles; not written".into());
            return Ok(());
        }
        let static_matrix = match (at.skinned, at.node) {
            (None, Some(n)) => tree.world(scene, n),
            _ => IDENTITY,
        };
        if static_matrix != IDENTITY {
            cx.warn(
                &place,
                "its node's transform is applied to the vertices (SKM has no hierarchy)".into(),
            );
        }
        let skin = at.skinned.and_then(|s| scene.skins.get(s));
        let palette: Vec<Option<usize>> = skin.map_or_else(Vec::new, |s| {
            s.joints
                .iter()
                .map(|j| bones.of_node.get(j).copied())
                .collect()
        });
        // A static mesh in a skinned file follows the bone above its node (bone 0 if none).
        let rigid = at
            .node
            .and_then(|n| bones.nearest.get(n).copied().flatten())
            .unwrap_or(0);
        let vs = vertices(cx, mesh, &place, static_matrix, skin.map(|_| &palette[..]))?;
        let rigid = u32::try_from(rigid).ok().filter(|&r| r <= 255).unwrap_or(0) << 24;
        self.vertices.extend(vs.into_iter().map(|mut v| {
            if skin.is_none() && !bones.bones.is_empty() && v.blend_indices == 0 {
                v.blend_indices = rigid;
            }
            v
        }));
        self.faces(cx, mesh, faces, base, &place);
        Ok(())
    }

    /// Appends the triangles and attribute ranges: the export's table when it still describes
    /// the primitives (overlaps and uncovered faces come back in place), else one range per
    /// primitive with a material, in primitive order.
    fn faces(
        &mut self,
        cx: &mut Ctx<'_>,
        mesh: &Mesh,
        faces: Vec<(Option<usize>, Vec<[u32; 3]>)>,
        base: u32,
        place: &str,
    ) {
        let face_base = self.triangles.len();
        let materials = cx.scene.materials.len();
        let first_mesh = face_base == 0 && base == 0;
        let fits = |n: usize| u32::try_from(n).is_ok();
        let table =
            from_table(mesh, &faces, materials).filter(|(tris, _)| fits(face_base + tris.len()));
        if let Some((tris, ranges)) = table {
            let faces_before = u32::try_from(face_base).unwrap_or(0);
            self.triangles
                .extend(tris.iter().map(|t| t.map(|i| i + base)));
            self.attributes
                .extend(ranges.into_iter().map(|r| AttributeRange {
                    face_start: r.face_start + faces_before,
                    vertex_start: r.vertex_start + base,
                    ..r
                }));
            if first_mesh {
                self.adjacency = mesh
                    .extras
                    .get("skm_adjacency")
                    .and_then(|v| crate::scene::raw64::pods::<u32>(&cx.scene.blobs, v))
                    .filter(|w| w.len() == self.triangles.len() * 3)
                    .map(|w| {
                        w.chunks_exact(3)
                            .filter_map(|c| <[u32; 3]>::try_from(c).ok())
                            .collect::<Vec<_>>()
                    });
            }
            return;
        }
        let mut untextured = 0usize;
        for (material, tris) in faces {
            let start = self.triangles.len();
            let (lo, hi) = tris
                .iter()
                .flatten()
                .fold((u32::MAX, 0u32), |(lo, hi), &i| (lo.min(i), hi.max(i)));
            self.triangles
                .extend(tris.iter().map(|t| t.map(|i| i + base)));
            let Some(m) = material.and_then(|m| u32::try_from(m).ok()) else {
                untextured += tris.len();
                continue;
            };
            if tris.is_empty() {
                continue;
            }
            self.attributes.push(AttributeRange {
                material: m,
                face_start: u32::try_from(start).unwrap_or(u32::MAX),
                face_count: u32::try_from(tris.len()).unwrap_or(u32::MAX),
                vertex_start: base + lo,
                vertex_count: hi - lo + 1,
            });
        }
        if untextured > 0 {
            cx.warn(
                place,
                format!("{untextured} triangles have no material: in no attribute range"),
            );
        }
    }
}

/// Each primitive's triangles in file winding (clockwise), with its material; triangles with
/// an index past the vertices are dropped (warning).
fn triangles(cx: &mut Ctx<'_>, mesh: &Mesh, place: &str) -> Vec<(Option<usize>, Vec<[u32; 3]>)> {
    let n = mesh.vertices.positions.len();
    let (out, bad) = crate::scene::shared::clockwise_triangles(mesh);
    if bad > 0 {
        cx.warn(
            place,
            format!("{bad} triangles use a vertex past the {n} vertices; dropped"),
        );
    }
    out
}

/// The export's attribute table (`extras.attribute_ranges`) with the face order it implies,
/// when the primitives are exactly what the export made of it: the rows with faces, in order,
/// then one primitive without material for the faces no row covers.
fn from_table(
    mesh: &Mesh,
    faces: &[(Option<usize>, Vec<[u32; 3]>)],
    materials: usize,
) -> Option<(Vec<[u32; 3]>, Vec<AttributeRange>)> {
    let rows: Vec<AttributeRange> = mesh
        .extras
        .get("attribute_ranges")?
        .as_array()?
        .iter()
        .map(|r| {
            let r: Vec<u32> = r
                .as_array()?
                .iter()
                .map(|x| lenient::uint(x).and_then(|x| u32::try_from(x).ok()))
                .collect::<Option<_>>()?;
            match r[..] {
                [material, face_start, face_count, vertex_start, vertex_count] => {
                    Some(AttributeRange {
                        material,
                        face_start,
                        face_count,
                        vertex_start,
                        vertex_count,
                    })
                }
                _ => None,
            }
        })
        .collect::<Option<_>>()?;
    let drawn: Vec<&AttributeRange> = rows.iter().filter(|r| r.face_count > 0).collect();
    let (ranged, rest) = faces.split_at_checked(drawn.len())?;
    let uncovered: &[[u32; 3]] = match rest {
        [] => &[],
        [(None, tris)] => tris,
        _ => return None,
    };
    // The face count: the rows' union plus the uncovered faces.
    let mut end = 0usize;
    for r in &drawn {
        end = end.max((r.face_start as usize).checked_add(r.face_count as usize)?);
    }
    let mut covered = vec![false; end];
    for r in &drawn {
        covered
            .get_mut(r.face_start as usize..)?
            .get_mut(..r.face_count as usize)?
            .fill(true);
    }
    let total = covered.iter().filter(|&&c| c).count() + uncovered.len();
    if total < end {
        return None;
    }
    covered.resize(total, false);
    let mut out: Vec<Option<[u32; 3]>> = vec![None; total];
    for (r, (material, tris)) in drawn.iter().zip(ranged) {
        let expected = Some(r.material as usize).filter(|&m| m < materials);
        if *material != expected || tris.len() != r.face_count as usize {
            return None;
        }
        let slots = out.get_mut(r.face_start as usize..)?.iter_mut();
        for (slot, t) in slots.zip(tris) {
            match slot {
                Some(old) if old != t => return None,
                _ => *slot = Some(*t),
            }
        }
    }
    let mut rest = uncovered.iter();
    for (slot, c) in out.iter_mut().zip(&covered) {
        if !c {
            *slot = Some(*rest.next()?);
        }
    }
    let vertices = mesh.vertices.positions.len() as u64;
    if rows.iter().any(|r| {
        r.material as usize >= materials
            || u64::from(r.vertex_start) + u64::from(r.vertex_count) > vertices
            || u64::from(r.face_start) + u64::from(r.face_count) > total as u64
    }) {
        return None;
    }
    let tris = out.into_iter().collect::<Option<Vec<_>>>()?;
    Some((tris, rows))
}

/// The mesh's vertices in file conventions; `palette` maps the skin's joint slots to bones
/// (`None` for a static mesh).
fn vertices(
    cx: &mut Ctx<'_>,
    mesh: &Mesh,
    place: &str,
    matrix: [f32; 16],
    palette: Option<&[Option<usize>]>,
) -> Result<Vec<Vertex>, crate::Error> {
    let v = &mesh.vertices;
    let n = v.positions.len();
    let moved = matrix != IDENTITY;
    let normal_matrix = crate::scene::invert(matrix)
        .map(crate::scene::transpose)
        .unwrap_or(IDENTITY);
    let computed;
    let normals: &[[f32; 3]] = match &v.normals {
        Some(ns) if ns.len() == n => ns,
        _ => {
            cx.warn(place, "no normals: computed from the triangles".into());
            computed = smooth_normals(mesh);
            &computed
        }
    };
    let scene = cx.scene;
    let blobs = &scene.blobs;
    let raw_normals = raw_words::<f32>(blobs, mesh, "skm_normals", n * 3);
    let raw_blend = raw_words::<u32>(blobs, mesh, "skm_blend", n * 4);
    let mut dropped = Vec::new();
    for (what, present) in [
        ("tangents", v.tangents.is_some()),
        ("second UV set", v.uv1.is_some()),
        ("vertex colours", v.colors.is_some()),
    ] {
        if present {
            dropped.push(what);
        }
    }
    if !dropped.is_empty() {
        cx.warn(
            place,
            format!("SKM vertices cannot hold {}; dropped", dropped.join(", ")),
        );
    }
    let mut out = Vec::with_capacity(n);
    let mut blend = Blend::default();
    for (i, &p) in v.positions.iter().enumerate() {
        let scene_normal = normals.get(i).copied().unwrap_or([0.0, 1.0, 0.0]);
        let (position, normal) = if moved {
            let nn = transform_point(normal_matrix, scene_normal);
            let o = transform_point(normal_matrix, [0.0; 3]);
            let nn = [nn[0] - o[0], nn[1] - o[1], nn[2] - o[2]];
            (
                transform_point(matrix, p),
                normalize3(nn).unwrap_or(scene_normal),
            )
        } else {
            (p, scene_normal)
        };
        let file_normal = match raw_normals.as_ref().and_then(|r| r.get(i * 3..i * 3 + 3)) {
            Some(&[x, y, z]) if !moved && gives(&[x, y, z], &scene_normal) => [x, y, z],
            _ => mirror_z(normal),
        };
        let mut vertex = Vertex {
            position: mirror_z(position),
            weights: [0.0; 3],
            blend_indices: 0,
            normal: file_normal,
            uv: v
                .uv0
                .as_ref()
                .and_then(|u| u.get(i))
                .copied()
                .unwrap_or([0.0; 2]),
        };
        let raw = raw_blend
            .as_ref()
            .and_then(|r| r.get(i * 4..i * 4 + 4))
            .and_then(|r| <[u32; 4]>::try_from(r).ok());
        blend.set(&mut vertex, v, i, palette, raw);
        out.push(vertex);
    }
    blend.finish(cx, place)?;
    Ok(out)
}

/// Does the file's normal `raw` give the scene's `normal` (as the export made it)?
fn gives(raw: &[f32; 3], normal: &[f32; 3]) -> bool {
    let made = normalize3(mirror_z(*raw)).unwrap_or([0.0, 1.0, 0.0]);
    made.iter().zip(normal).all(|(a, b)| (a - b).abs() <= 1e-6)
}

/// The words of the export's `extras[key]`, when there are `len`: a blob (`scene/blob.rs`), or
/// base64 text (small ones, and every one exported before issue 18).
fn raw_words<'a, T: bytemuck::Pod>(
    blobs: &'a [Array<u8>],
    mesh: &Mesh,
    key: &str,
    len: usize,
) -> Option<std::borrow::Cow<'a, [T]>> {
    mesh.extras
        .get(key)
        .and_then(|v| crate::scene::raw64::pods::<T>(blobs, v))
        .filter(|r| r.len() == len)
}

/// Area-weighted vertex normals of the mesh's triangles (+Y where none), in scene axes.
fn smooth_normals(mesh: &Mesh) -> Vec<[f32; 3]> {
    let ps = &mesh.vertices.positions;
    let mut acc = vec![[0.0f32; 3]; ps.len()];
    for p in &mesh.primitives {
        for t in p.indices.chunks_exact(3) {
            let [Some(a), Some(b), Some(c)] =
                [0, 1, 2].map(|k| t.get(k).and_then(|&i| ps.get(i as usize)).copied())
            else {
                continue;
            };
            let u = [b[0] - a[0], b[1] - a[1], b[2] - a[2]];
            let w = [c[0] - a[0], c[1] - a[1], c[2] - a[2]];
            let n = [
                u[1] * w[2] - u[2] * w[1],
                u[2] * w[0] - u[0] * w[2],
                u[0] * w[1] - u[1] * w[0],
            ];
            for &i in t {
                if let Some(s) = acc.get_mut(i as usize) {
                    for (a, b) in s.iter_mut().zip(n) {
                        *a += b;
                    }
                }
            }
        }
    }
    acc.into_iter()
        .map(|n| normalize3(n).unwrap_or([0.0, 1.0, 0.0]))
        .collect()
}

/// Skin influences → `b0 b1 b2` and the palette word, with counts for the warnings.
#[derive(Default)]
struct Blend {
    /// Vertices whose influences were rebuilt (the export's words no longer fit).
    rebuilt: usize,
    /// Influences on joints that are no bone (dropped).
    lost: usize,
    /// The first influence on a bone past the palette's byte: (vertex, bone).
    too_far: Option<(usize, usize)>,
}

impl Blend {
    fn set(
        &mut self,
        vertex: &mut Vertex,
        v: &crate::scene::Vertices,
        i: usize,
        palette: Option<&[Option<usize>]>,
        raw: Option<[u32; 4]>,
    ) {
        let Some(palette) = palette else {
            // Static: the file's words, if the export kept any (a file without bones).
            if let Some([a, b, c, word]) = raw {
                vertex.weights = [a, b, c].map(f32::from_bits);
                vertex.blend_indices = word;
            }
            return;
        };
        let joints = v
            .joints
            .as_ref()
            .and_then(|j| j.get(i))
            .copied()
            .unwrap_or_default();
        let weights = v
            .weights
            .as_ref()
            .and_then(|w| w.get(i))
            .copied()
            .unwrap_or([1.0, 0.0, 0.0, 0.0]);
        let mut infl: Vec<(usize, f32)> = Vec::with_capacity(4);
        for (&j, &w) in joints.iter().zip(&weights) {
            if w > 0.0 {
                match palette.get(usize::from(j)).copied().flatten() {
                    Some(b) => infl.push((b, w)),
                    None => self.lost += 1,
                }
            }
        }
        if let Some([a, b, c, word]) = raw {
            let raw_vertex = Vertex {
                weights: [a, b, c].map(f32::from_bits),
                blend_indices: word,
                ..*vertex
            };
            if reproduces(&raw_vertex, &infl) {
                *vertex = raw_vertex;
                return;
            }
        }
        if raw.is_some() {
            self.rebuilt += 1;
        }
        // Largest first, so that the implied fourth weight is the smallest.
        infl.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0)));
        let sum: f32 = infl.iter().map(|x| x.1).sum();
        let mut bytes = [0u8; 4];
        let mut w = [0.0f32; 3];
        for (k, &(bone, weight)) in infl.iter().enumerate().take(4) {
            let Ok(byte) = u8::try_from(bone) else {
                self.too_far.get_or_insert((i, bone));
                continue;
            };
            if let Some(slot) = bytes.get_mut(k) {
                *slot = byte;
            }
            if let Some(slot) = w.get_mut(k) {
                *slot = if sum > 0.0 { weight / sum } else { 0.0 };
            }
        }
        vertex.weights = w;
        vertex.blend_indices = u32::from_le_bytes(bytes);
    }

    fn finish(self, cx: &mut Ctx<'_>, place: &str) -> Result<(), crate::Error> {
        if let Some((v, bone)) = self.too_far {
            return Err(cx.limit(
                place,
                format!(
                    "vertex {v} is weighted to bone {bone}, but a blend-index byte reaches \
                     bones 0..=255 only"
                ),
            ));
        }
        if self.lost > 0 {
            cx.warn(
                place,
                format!(
                    "{} influences on joints missing from the skin; dropped",
                    self.lost
                ),
            );
        }
        if self.rebuilt > 0 {
            cx.warn(
                place,
                format!(
                    "{} vertices' influences changed since the export; their blend weights and \
                     palette were rebuilt",
                    self.rebuilt
                ),
            );
        }
        Ok(())
    }
}

/// Does the file's vertex give the scene's influences `infl` (bones and weights) as the export
/// made them (merged, sorted, renormalised)?
fn reproduces(raw: &Vertex, infl: &[(usize, f32)]) -> bool {
    let mut w = raw.weights4();
    if w[3] < 0.0 {
        w[3] = 0.0;
    }
    let pairs = raw.palette().map(u32::from).into_iter().zip(w);
    let (joints, weights, _) = normalize_weights(pairs, usize::MAX, SlotOrder::LargestFirst);
    let made: Vec<(usize, f32)> = joints
        .iter()
        .zip(weights)
        .filter(|(_, w)| *w > 0.0)
        .map(|(&j, w)| (usize::from(j), w))
        .collect();
    let mut scene: Vec<(usize, f32)> = infl.to_vec();
    scene.sort_by_key(|a| a.0);
    let mut made = made;
    made.sort_by_key(|a| a.0);
    made.len() == scene.len()
        && made
            .iter()
            .zip(&scene)
            .all(|(a, b)| a.0 == b.0 && (a.1 - b.1).abs() <= 1e-5)
}
