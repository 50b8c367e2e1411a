//! Splitting a mesh whose vertices u16 indices cannot all reach into several BMF meshes.

use super::{Slot, MAX_VERTICES};

/// One BMF mesh's share of a scene mesh.
pub(crate) struct Piece {
    /// The scene vertex of each of the piece's vertices; `None` when the piece is the whole
    /// mesh (every vertex kept, unreferenced ones too, in order).
    pub(crate) map: Option<Vec<u32>>,
    /// Per material slot, the piece's triangles in its own vertex numbers (empty for the whole
    /// mesh: its Index block is written from the slots).
    pub(crate) triangles: Vec<Vec<[u16; 3]>>,
}

/// The whole mesh when it has at most [`MAX_VERTICES`] vertices; otherwise pieces filled
/// triangle by triangle, in slot order, each with at most [`MAX_VERTICES`] vertices.
pub(crate) fn split(vertex_count: usize, slots: &[Slot]) -> Vec<Piece> {
    if vertex_count <= MAX_VERTICES {
        return vec![Piece {
            map: None,
            triangles: Vec::new(),
        }];
    }
    let mut pieces = Vec::new();
    // Scene vertex → number in the current piece (u32::MAX: not in it).
    let mut local = vec![u32::MAX; vertex_count];
    let mut current = Piece {
        map: Some(Vec::new()),
        triangles: slots.iter().map(|_| Vec::new()).collect(),
    };
    for (k, slot) in slots.iter().enumerate() {
        for t in slot.triangles() {
            let new = t
                .iter()
                .filter(|&&i| local.get(i as usize) == Some(&u32::MAX))
                .count();
            let used = current.map.as_ref().map_or(0, Vec::len);
            if used + new > MAX_VERTICES {
                for &v in current.map.iter().flatten() {
                    if let Some(l) = local.get_mut(v as usize) {
                        *l = u32::MAX;
                    }
                }
                let next = Piece {
                    map: Some(Vec::new()),
                    triangles: slots.iter().map(|_| Vec::new()).collect(),
                };
                pieces.push(std::mem::replace(&mut current, next));
            }
            let mut out = [0u16; 3];
            for (o, &i) in out.iter_mut().zip(&t) {
                let Some(l) = local.get_mut(i as usize) else {
                    continue;
                };
                if *l == u32::MAX {
                    if let Some(map) = current.map.as_mut() {
                        *l = map.len() as u32;
                        map.push(i);
                    }
                }
                *o = u16::try_from(*l).unwrap_or(u16::MAX);
            }
            if let Some(list) = current.triangles.get_mut(k) {
                list.push(out);
            }
        }
    }
    pieces.push(current);
    pieces
}
