//! Skins → BONE + V_A, and the split of meshes whose skin has more bones than the engine's
//! [`MAX_BONE_COUNT`].

use super::super::{mirror_z_matrix, Skin, IDENTITY};
use super::extras::raw_bytes;
use super::{aabb, replace_name, to_i32, Ctx, MAX_BONE_COUNT};
use crate::scene::Array;
use crate::Error;
use selene_smf as smf;
use std::collections::{BTreeSet, HashMap};

/// Two influences per vertex: skin joint ids and the weight of the first.
struct Influences {
    ids: Vec<[u16; 2]>,
    weights: Vec<f32>,
}

/// Sets `out`'s BONE and V_A from `skin`, splitting it when the skin has too many joints.
pub(super) fn skin(
    place: &str,
    mut out: smf::Mesh,
    mesh: &super::super::Mesh,
    skin: &Skin,
    node_frame: &[Option<usize>],
    ctx: &mut Ctx<'_>,
) -> Result<Vec<smf::Mesh>, Error> {
    let mut unframed = 0usize;
    let bones: Vec<smf::Bone> = skin
        .joints
        .iter()
        .enumerate()
        .map(|(j, &node)| {
            let frame = node_frame.get(node).copied().flatten();
            unframed += usize::from(frame.is_none());
            smf::Bone {
                offset: mirror_z_matrix(
                    skin.inverse_bind_matrices
                        .get(j)
                        .copied()
                        .unwrap_or(IDENTITY),
                ),
                frame: frame.map_or(-1, to_i32),
            }
        })
        .collect();
    if unframed > 0 {
        ctx.warn(
            &format!("smf {place}"),
            format!("{unframed} joint(s) are not frames; their BONE frame is -1"),
        );
    }
    let inf = influences(place, mesh, skin.joints.len(), ctx);
    if let Some((raw_bones, raw_blend)) = raw(mesh, &bones, &inf, ctx.blobs) {
        out.bones = Some(raw_bones);
        out.blend = Some(raw_blend);
        return Ok(vec![out]);
    }
    if bones.len() <= MAX_BONE_COUNT {
        out.blend = Some(blend(&inf, |j| u8::try_from(j).unwrap_or(0)));
        out.bones = Some(bones);
        return Ok(vec![out]);
    }
    Ok(split(place, out, &bones, &inf, ctx))
}

/// Each vertex's two strongest influences (in their slot order); more are reduced, with a
/// warning.
fn influences(
    place: &str,
    mesh: &super::super::Mesh,
    joint_count: usize,
    ctx: &mut Ctx<'_>,
) -> Influences {
    let n = mesh.vertices.positions.len();
    let (js, ws) = (&mesh.vertices.joints, &mesh.vertices.weights);
    let mut out = Influences {
        ids: Vec::with_capacity(n),
        weights: Vec::with_capacity(n),
    };
    let mut reduced = 0usize;
    for k in 0..n {
        let j = js
            .as_ref()
            .and_then(|j| j.get(k))
            .copied()
            .unwrap_or_default();
        let w = ws
            .as_ref()
            .and_then(|w| w.get(k))
            .copied()
            .unwrap_or_default();
        // Up to four influences on the stack: no allocation per vertex.
        let mut all = [(0u16, 0f32); 4];
        let mut len = 0usize;
        for (&j, &w) in j.iter().zip(&w) {
            if w > 0.0 && usize::from(j) < joint_count {
                if let Some(slot) = all.get_mut(len) {
                    *slot = (j, w);
                    len += 1;
                }
            }
        }
        let two: [(u16, f32); 2];
        let list: &[(u16, f32)] = if len > 2 {
            reduced += 1;
            // The two largest weights (a tie keeps the earlier slot: the sort is stable), in
            // their slot order.
            let mut order = [0usize, 1, 2, 3];
            let order = order.get_mut(..len).unwrap_or_default();
            let weight = |i: usize| all.get(i).map_or(0.0, |x| x.1);
            order.sort_by(|&a, &b| weight(b).total_cmp(&weight(a)));
            let (a, b) = match *order {
                [a, b, ..] => (a.min(b), a.max(b)),
                _ => (0, 1),
            };
            two = [
                all.get(a).copied().unwrap_or_default(),
                all.get(b).copied().unwrap_or_default(),
            ];
            &two
        } else {
            all.get(..len).unwrap_or_default()
        };
        let (ids, weight) = match list {
            [] => ([0, 0], 1.0),
            [(a, _)] => ([*a, *a], 1.0),
            [(a, wa), (b, wb), ..] => {
                let sum = wa + wb;
                ([*a, *b], if sum == 1.0 { *wa } else { wa / sum })
            }
        };
        out.ids.push(ids);
        out.weights.push(weight);
    }
    if reduced > 0 {
        ctx.warn(
            &format!("smf {place}"),
            format!(
                "{reduced} vertices had more than two influences; reduced to the two \
             largest (V_A holds two)"
            ),
        );
    }
    out
}

fn blend(inf: &Influences, local: impl Fn(u16) -> u8) -> Vec<smf::BlendVertex> {
    inf.ids
        .iter()
        .zip(&inf.weights)
        .map(|(&[a, b], &w)| smf::BlendVertex {
            weight: w,
            indices: [local(a), local(b), 0, 0],
        })
        .collect()
}

/// The export's raw BONE and V_A, when they say what the skin says: same frames with the same
/// offsets, and every vertex the same weight per frame (within 1e-5).
fn raw(
    mesh: &super::super::Mesh,
    bones: &[smf::Bone],
    inf: &Influences,
    blobs: &[Array<u8>],
) -> Option<(Vec<smf::Bone>, Vec<smf::BlendVertex>)> {
    let hex = |k: &str| raw_bytes(&mesh.extras, k, blobs);
    let raw_bones: Vec<smf::Bone> = binio::pod::vec_from_bytes(&hex("smf_bones_hex")?)?;
    let raw_blend: Vec<smf::BlendVertex> = binio::pod::vec_from_bytes(&hex("smf_blend_hex")?)?;
    if raw_blend.len() != inf.ids.len() {
        return None;
    }
    let offset_of: HashMap<i32, [f32; 16]> = bones.iter().map(|b| (b.frame, b.offset)).collect();
    for b in &raw_bones {
        let same = offset_of.get(&b.frame).is_some_and(|o| {
            o.iter()
                .zip(&b.offset)
                .all(|(x, y)| x.to_bits() == y.to_bits() || (x - y).abs() <= 1e-5)
        });
        if !same {
            return None;
        }
    }
    let frame_of = |list: &[smf::Bone], i: usize| list.get(i).map_or(i32::MIN, |b| b.frame);
    // A vertex's weight per frame, by frame: at most two, on the stack (no allocation per
    // vertex), with how many there are.
    let per_frame = |pairs: [(i32, f32); 2]| {
        let mut m = [(0i32, 0f32); 2];
        let mut n = 0usize;
        for (f, w) in pairs {
            if w == 0.0 {
                continue;
            }
            let kept = m.get_mut(..n).unwrap_or_default();
            match kept.iter_mut().find(|(g, _)| *g == f) {
                Some(slot) => slot.1 += w,
                None => {
                    if let Some(slot) = m.get_mut(n) {
                        *slot = (f, w);
                        n += 1;
                    }
                }
            }
        }
        m.get_mut(..n).unwrap_or_default().sort_by_key(|x| x.0);
        (m, n)
    };
    for ((r, ids), &w) in raw_blend.iter().zip(&inf.ids).zip(&inf.weights) {
        let (a, na) = per_frame([
            (frame_of(&raw_bones, usize::from(r.indices[0])), r.weight),
            (
                frame_of(&raw_bones, usize::from(r.indices[1])),
                1.0 - r.weight,
            ),
        ]);
        let (b, nb) = per_frame([
            (frame_of(bones, usize::from(ids[0])), w),
            (frame_of(bones, usize::from(ids[1])), 1.0 - w),
        ]);
        let same = na == nb
            && a.iter()
                .zip(&b)
                .take(na)
                .all(|(x, y)| x.0 == y.0 && (x.1 - y.1).abs() <= 1e-5);
        if !same {
            return None;
        }
    }
    Some((raw_bones, raw_blend))
}

/// Splits the mesh into runs of triangles that use at most [`MAX_BONE_COUNT`] joints each.
fn split(
    place: &str,
    out: smf::Mesh,
    bones: &[smf::Bone],
    inf: &Influences,
    ctx: &mut Ctx<'_>,
) -> Vec<smf::Mesh> {
    let indices: Vec<u32> = out.indices.iter().collect();
    let joints_of = |v: u32| -> [u16; 2] { inf.ids.get(v as usize).copied().unwrap_or_default() };
    // Triangle ranges [start, end) of each part.
    let mut parts: Vec<(usize, usize)> = Vec::new();
    let mut used: BTreeSet<u16> = BTreeSet::new();
    let mut start = 0usize;
    let triangles = indices.len() / 3;
    for t in 0..triangles {
        let tri: BTreeSet<u16> = indices
            .get(t * 3..t * 3 + 3)
            .unwrap_or_default()
            .iter()
            .flat_map(|&v| joints_of(v))
            .collect();
        if used.union(&tri).count() > MAX_BONE_COUNT && t > start {
            parts.push((start, t));
            start = t;
            used.clear();
        }
        used.extend(tri);
    }
    parts.push((start, triangles));
    let count = parts.len();
    let mut meshes = Vec::with_capacity(count);
    for (k, &(a, b)) in parts.iter().enumerate() {
        meshes.push(part(&out, k, (a, b), &indices, bones, inf));
    }
    let names: Vec<String> = meshes.iter().map(|m| m.name.text().into_owned()).collect();
    ctx.warn(
        &format!("smf {place}"),
        format!(
            "its skin has {} joints, more than the engine's {MAX_BONE_COUNT} bones per \
         mesh; split into {count} meshes ({}), each on its own frame; their OBBs are \
         axis-aligned boxes",
            bones.len(),
            names.join(", ")
        ),
    );
    meshes
}

/// Part `k` of a split mesh: triangles `a..b`, their vertices, bones and materials.
fn part(
    whole: &smf::Mesh,
    k: usize,
    (a, b): (usize, usize),
    indices: &[u32],
    bones: &[smf::Bone],
    inf: &Influences,
) -> smf::Mesh {
    let mut remap: HashMap<u32, u32> = HashMap::new();
    let mut order: Vec<u32> = Vec::new();
    let mut local_indices: Vec<u32> = Vec::new();
    for &v in indices.get(a * 3..b * 3).unwrap_or_default() {
        let next = u32::try_from(order.len()).unwrap_or(u32::MAX);
        let l = *remap.entry(v).or_insert_with(|| {
            order.push(v);
            next
        });
        local_indices.push(l);
    }
    let joints: BTreeSet<u16> = order
        .iter()
        .flat_map(|&v| inf.ids.get(v as usize).copied().unwrap_or_default())
        .collect();
    let local_joint: HashMap<u16, u8> = joints
        .iter()
        .enumerate()
        .map(|(i, &j)| (j, u8::try_from(i).unwrap_or(0)))
        .collect();
    let pick = |v: u32| v as usize;
    let take = |list: &Option<Vec<smf::Vec3>>| {
        list.as_ref().map(|l| {
            order
                .iter()
                .map(|&v| l.get(pick(v)).copied().unwrap_or_default())
                .collect::<Vec<_>>()
        })
    };
    let vertices: Vec<smf::VertexPc> = order
        .iter()
        .map(|&v| whole.vertices.get(pick(v)).copied().unwrap_or_default())
        .collect();
    let sub = Influences {
        ids: order
            .iter()
            .map(|&v| inf.ids.get(pick(v)).copied().unwrap_or_default())
            .collect(),
        weights: order
            .iter()
            .map(|&v| inf.weights.get(pick(v)).copied().unwrap_or(1.0))
            .collect(),
    };
    let materials = whole
        .materials
        .iter()
        .filter_map(|m| {
            let s = usize::try_from(m.polygon_start).ok()?;
            let e = s.checked_add(usize::try_from(m.polygon_count).ok()?)?;
            let (s, e) = (s.max(a), e.min(b));
            if s >= e {
                return None;
            }
            let mut m = m.clone();
            let range = local_indices
                .get((s - a) * 3..(e - a) * 3)
                .unwrap_or_default();
            let lo = range.iter().copied().min().unwrap_or(0);
            let hi = range.iter().copied().max().unwrap_or(0);
            m.polygon_start = to_i32(s - a);
            m.polygon_count = to_i32(e - s);
            m.vertex_start = lo as i32;
            m.vertex_count = (hi - lo + 1) as i32;
            Some(m)
        })
        .collect();
    let first = k == 0;
    let n = vertices.len();
    smf::Mesh {
        name: if first {
            whole.name.clone()
        } else {
            smf::name(&replace_name(&format!("{}#{k}", whole.name.text()))).unwrap_or_default()
        },
        obb: aabb(&vertices),
        bones: Some(
            joints
                .iter()
                .filter_map(|&j| bones.get(usize::from(j)).copied())
                .collect(),
        ),
        normals: take(&whole.normals),
        tangents: take(&whole.tangents),
        blend: Some(blend(&sub, |j| local_joint.get(&j).copied().unwrap_or(0))),
        uvs: whole.uvs.as_ref().map(|l| {
            order
                .iter()
                .map(|&v| l.get(pick(v)).copied().unwrap_or_default())
                .collect()
        }),
        indices: smf::Indices::for_vertex_count(local_indices, n),
        vertices,
        materials,
        collision_runs: whole.collision_runs.clone().filter(|_| first),
        collision_faces: whole.collision_faces.clone().filter(|_| first),
        collision_vertices: whole.collision_vertices.clone().filter(|_| first),
        unknown: if first {
            whole.unknown.clone()
        } else {
            Vec::new()
        },
    }
}
