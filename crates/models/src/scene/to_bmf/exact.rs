//! What makes an unedited export come back bit for bit without a base: the Index block and
//! Material ranges the export kept when they are not the plain layout (`bmf_index_layout`), and
//! the raw bytes of the vertices no index references (`bmf_unreferenced`), each used only
//! while the scene still holds what the export wrote.

use super::super::raw64;
use super::super::{normalize_weights, SlotOrder};
use super::{Slot, Vertices};
use crate::scene::lenient;
use crate::scene::Array;
use serde_json::{Map, Value};

/// The exported Index block and its Material ranges (`[start, count]`, one per slot).
pub(super) struct IndexLayout {
    pub(super) indices: Vec<u16>,
    pub(super) ranges: Vec<[u32; 2]>,
}

/// `extras.bmf_index_layout` when every slot still holds exactly the triangles the export made
/// of its range (whole triangles from the range's start; none for a range outside the block);
/// `None` otherwise.
pub(super) fn index_layout(
    extras: &Map<String, Value>,
    blobs: &[Array<u8>],
    slots: &[Slot],
) -> Option<IndexLayout> {
    let layout = extras.get("bmf_index_layout")?;
    let bytes = raw64::bytes(blobs, layout.get("indices")?)?;
    if bytes.len() % 2 != 0 {
        return None;
    }
    let indices: Vec<u16> = bytes
        .chunks_exact(2)
        .filter_map(|c| <[u8; 2]>::try_from(c).ok().map(u16::from_le_bytes))
        .collect();
    let ranges: Vec<[u32; 2]> = layout
        .get("ranges")?
        .as_array()?
        .iter()
        .map(|r| match r.as_array()?.as_slice() {
            [s, c] => Some([
                u32::try_from(lenient::uint(s)?).ok()?,
                u32::try_from(lenient::uint(c)?).ok()?,
            ]),
            _ => None,
        })
        .collect::<Option<_>>()?;
    if ranges.len() != slots.len() {
        return None;
    }
    let fits = ranges.iter().zip(slots).all(|(&[start, count], slot)| {
        let (start, count) = (start as usize, count as usize);
        let range = start
            .checked_add(count)
            .and_then(|end| indices.get(start..end))
            .unwrap_or_default();
        let triangles = range.chunks_exact(3);
        triangles.len() == slot.len()
            && triangles
                .zip(slot.triangles())
                .all(|(t, s)| t.iter().zip(s).all(|(&a, b)| u32::from(a) == b))
    });
    fits.then_some(IndexLayout { indices, ranges })
}

/// Puts the file's bytes (`extras.bmf_unreferenced`) back into the vertices `indices` does not
/// reference, when there are as many as the export kept and the scene still holds them zeroed
/// (`positions`: the scene's). Returns whether it did.
pub(super) fn restore_unreferenced(
    extras: &Map<String, Value>,
    blobs: &[Array<u8>],
    positions: &[[f32; 3]],
    indices: &[u16],
    vertices: &mut Vertices,
) -> bool {
    let Some(raw) = extras
        .get("bmf_unreferenced")
        .and_then(|v| raw64::bytes(blobs, v))
    else {
        return false;
    };
    let mut referenced = vec![false; vertices.len()];
    for &i in indices {
        if let Some(r) = referenced.get_mut(usize::from(i)) {
            *r = true;
        }
    }
    let unreferenced: Vec<usize> = (0..referenced.len())
        .filter(|&k| !referenced.get(k).copied().unwrap_or(true))
        .collect();
    let zeroed = unreferenced
        .iter()
        .all(|&k| positions.get(k) == Some(&[0.0; 3]));
    if !zeroed {
        return false;
    }
    macro_rules! put {
        ($list:expr) => {{
            match binio::pod::vec_from_bytes(&raw) {
                Some(items) if items.len() == unreferenced.len() => {
                    for (&k, item) in unreferenced.iter().zip(items) {
                        if let Some(slot) = $list.get_mut(k) {
                            *slot = item;
                        }
                    }
                    true
                }
                _ => false,
            }
        }};
    }
    match vertices {
        Vertices::Plain(v) => put!(v),
        Vertices::Tangent(v) => put!(v),
        Vertices::Skinned(v) => put!(v),
        Vertices::SkinnedTangent(v) => put!(v),
    }
}

/// Puts the file's joints and weights (`extras.bmf_influences`) back into the vertices whose
/// cleaning for glTF was more than rounding, each while the scene's influences (`joints`,
/// `weights`) are still that cleaning of them and its weighted slots name bones below
/// `bone_count` (the mesh's as written). Returns how many it put back.
pub(super) fn restore_influences(
    extras: &Map<String, Value>,
    blobs: &[Array<u8>],
    joints: Option<&[[u16; 4]]>,
    weights: Option<&[[f32; 4]]>,
    bone_count: u32,
    vertices: &mut Vertices,
) -> usize {
    let (Some(joints), Some(weights), Some(kept)) = (joints, weights, extras.get("bmf_influences"))
    else {
        return 0;
    };
    let bones = kept
        .get("bones")
        .and_then(lenient::uint)
        .and_then(|b| usize::try_from(b).ok());
    let list = kept.get("vertices").and_then(Value::as_array);
    let raw = kept.get("raw").and_then(|v| raw64::bytes(blobs, v));
    let (Some(bones), Some(list), Some(raw)) = (bones, list, raw) else {
        return 0;
    };
    if raw.len() != list.len() * 32 {
        return 0;
    }
    let mut restored = 0;
    for (at, bytes) in list.iter().zip(raw.chunks_exact(32)) {
        let words: Vec<[u8; 4]> = bytes
            .chunks_exact(4)
            .filter_map(|c| <[u8; 4]>::try_from(c).ok())
            .collect();
        let (Some(k), [j0, j1, j2, j3, w0, w1, w2, w3]) = (
            lenient::uint(at).and_then(|k| usize::try_from(k).ok()),
            words.as_slice(),
        ) else {
            continue;
        };
        let j = [j0, j1, j2, j3].map(|b| u32::from_le_bytes(*b));
        let w = [w0, w1, w2, w3].map(|b| f32::from_le_bytes(*b));
        // A weighted slot must name one of the mesh's bones as written (the reader refuses
        // any other); the comparison below would drop such a slot and could still agree.
        if j.iter().zip(&w).any(|(&j, &w)| w != 0.0 && j >= bone_count) {
            continue;
        }
        let (cj, cw, _) = normalize_weights(j.into_iter().zip(w), bones, SlotOrder::Source);
        let unedited = joints.get(k) == Some(&cj)
            && weights
                .get(k)
                .is_some_and(|s| s.iter().zip(&cw).all(|(a, b)| (a - b).abs() <= 1e-6));
        let slot = match vertices {
            Vertices::Skinned(v) => v.get_mut(k).map(|v| (&mut v.bone_indices, &mut v.weights)),
            Vertices::SkinnedTangent(v) => {
                v.get_mut(k).map(|v| (&mut v.bone_indices, &mut v.weights))
            }
            _ => None,
        };
        if let (true, Some((bj, bw))) = (unedited, slot) {
            (*bj, *bw) = (j, w);
            restored += 1;
        }
    }
    restored
}
