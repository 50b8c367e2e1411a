//! The document rules that the reader and the writer both enforce (so that everything the
//! writer accepts reads back): the encoding guess, the attribute ranges, the bone palette and
//! the parent chains.

use crate::model::{AttributeRange, Bone, Encoding, Name, Skm, Vertex};

/// Chooses the encoding of the names: UTF-8 when some name is not ASCII and every such name
/// is valid UTF-8 (Shift-JIS text is almost never valid UTF-8, while UTF-8 Japanese often is
/// valid Shift-JIS); Shift-JIS otherwise. A BOM decides before this is asked.
pub(crate) fn guess_encoding<'n>(names: impl Iterator<Item = &'n Name> + Clone) -> Encoding {
    let mut non_ascii = names.filter(|n| !n.raw.is_ascii()).peekable();
    if non_ascii.peek().is_some() && non_ascii.all(|n| std::str::from_utf8(&n.raw).is_ok()) {
        Encoding::Utf8
    } else {
        Encoding::ShiftJis
    }
}

/// All names of a document (bone names and texture names).
pub(crate) fn names(doc: &Skm) -> impl Iterator<Item = &Name> + Clone {
    doc.materials
        .iter()
        .filter_map(|m| m.texture.as_ref())
        .chain(doc.bones.iter().map(|b| &b.name))
}

/// Is influence `k`'s weight non-zero? The implied fourth weight counts as zero below 1e-5
/// (rounding residue of `1 − (b0 + b1 + b2)`).
fn influence_used(v: &Vertex, k: usize) -> bool {
    let w = v.weights4();
    match (k, w.get(k)) {
        (3, Some(&w)) => w.abs() > 1e-5,
        (_, Some(&w)) => w != 0.0,
        _ => false,
    }
}

/// The largest palette index of `v`'s used influences (0 when none is used): `v` is a bad
/// influence of [`bad_influence`] exactly when this is at least the bone count (1 to 255).
pub(crate) fn top_used_palette(v: &Vertex) -> u8 {
    let p = v.palette();
    (0..4)
        .filter(|&k| influence_used(v, k))
        .filter_map(|k| p.get(k).copied())
        .max()
        .unwrap_or(0)
}

/// The first vertex with a used influence whose palette index is not a bone:
/// `(vertex, influence, palette index)`.
pub(crate) fn bad_influence(doc: &Skm) -> Option<(usize, usize, u8)> {
    let bones = doc.bones.len();
    if bones == 0 || bones > 255 {
        return None;
    }
    doc.vertices.iter().enumerate().find_map(|(i, v)| {
        let p = v.palette();
        (0..4).find_map(|k| {
            let idx = *p.get(k)?;
            (usize::from(idx) >= bones && influence_used(v, k)).then_some((i, k, idx))
        })
    })
}

/// The first bone whose parent chain loops, if any (parents must already be in range).
pub(crate) fn parent_cycle(bones: &[Bone]) -> Option<usize> {
    // 0 = unvisited, 1 = on the current chain, 2 = known to reach a root.
    let mut state = vec![0u8; bones.len()];
    let mut chain = Vec::new();
    for start in 0..bones.len() {
        let mut cur = Some(start);
        while let Some(i) = cur {
            match state.get(i).copied() {
                Some(0) => {
                    if let Some(s) = state.get_mut(i) {
                        *s = 1;
                    }
                    chain.push(i);
                    cur = bones.get(i).and_then(Bone::parent_index);
                }
                Some(1) => return Some(i),
                _ => break,
            }
        }
        for i in chain.drain(..) {
            if let Some(s) = state.get_mut(i) {
                *s = 2;
            }
        }
    }
    None
}

/// Checks one attribute range: `(which value, message)` where `which` is 0 for the material,
/// 1 for the face range and 2 for the vertex range.
pub(crate) fn attribute_problem(
    i: usize,
    r: &AttributeRange,
    materials: usize,
    faces: usize,
    vertices: usize,
) -> Option<(usize, String)> {
    if r.material as usize >= materials {
        return Some((
            0,
            format!(
                "attribute range {i}: material {} is not one of the {materials} materials",
                r.material
            ),
        ));
    }
    let face_end = u64::from(r.face_start) + u64::from(r.face_count);
    if face_end > faces as u64 {
        return Some((
            1,
            format!(
                "attribute range {i}: faces {}..{face_end} exceed the {faces} faces",
                r.face_start
            ),
        ));
    }
    let vertex_end = u64::from(r.vertex_start) + u64::from(r.vertex_count);
    if vertex_end > vertices as u64 {
        return Some((
            2,
            format!(
                "attribute range {i}: vertices {}..{vertex_end} exceed the {vertices} vertices",
                r.vertex_start
            ),
        ));
    }
    None
}
