//! The index data of one mesh's primitives, planned before anything is written.
//!
//! [`crate::scene::validate()`] made every list whole triangles within the vertices and every
//! material in range; nothing is repaired here. A primitive's indices are normally written on
//! their own, straight from the scene's list. Primitives whose [`Indices`](crate::scene::Indices)
//! are overlapping ranges of one shared list (overlapping BMF, SMF or SKM material ranges) are
//! not: the list is written once, and each of those primitives gets an accessor into it at its
//! own offset. Output and memory then grow with the list, not with the list times the number of
//! materials.

use crate::scene::validate::overlapping_groups;
use crate::scene::Array;
use crate::scene::Mesh;
use std::ops::Range;
use std::sync::Arc;

/// Where a planned primitive's triangles are.
pub(super) enum PrimIndices {
    /// `range` of the scene's `list`, written on its own.
    Own {
        list: Arc<Array<u32>>,
        range: Range<usize>,
    },
    /// `range` of the shared list `list` (an index into [`Plan::lists`]).
    Shared { list: usize, range: Range<usize> },
}

/// The drawable primitives of a mesh.
pub(super) struct Plan {
    /// Primitives with at least one triangle, in scene order, with their material.
    pub prims: Vec<(PrimIndices, Option<usize>)>,
    /// Shared lists, each written whole (its whole triangles) once.
    pub lists: Vec<Arc<Array<u32>>>,
}

impl Plan {
    /// Every triangle drawn, once per primitive for its own indices and once per shared list
    /// (the union of its primitives' ranges) for shared ones.
    pub fn triangles(&self) -> Vec<&[u32]> {
        let mut out: Vec<&[u32]> = Vec::new();
        let mut ranges: Vec<Vec<Range<usize>>> = vec![Vec::new(); self.lists.len()];
        for (p, _) in &self.prims {
            match p {
                PrimIndices::Own { list, range } => {
                    out.extend(list.get(range.clone()).unwrap_or_default().chunks_exact(3))
                }
                PrimIndices::Shared { list, range } => {
                    if let Some(r) = ranges.get_mut(*list) {
                        r.push(range.clone());
                    }
                }
            }
        }
        for (list, mut rs) in self.lists.iter().zip(ranges) {
            rs.sort_by_key(|r| r.start);
            let mut end = 0usize;
            for r in rs {
                let from = r.start.max(end);
                if from < r.end {
                    out.extend(list.get(from..r.end).unwrap_or_default().chunks_exact(3));
                }
                end = end.max(r.end);
            }
        }
        out
    }
}

/// Plans the primitives of the validated `mesh`: which are drawn, and which share a list.
pub(super) fn plan(mesh: &Mesh) -> Plan {
    let shared = overlapping_groups(mesh);
    let mut plan = Plan {
        prims: Vec::new(),
        lists: Vec::new(),
    };
    // Shared lists by the address of the scene's list.
    let mut slots = crate::hash::address_map(mesh.primitives.len());
    for (p, prim) in mesh.primitives.iter().enumerate() {
        let range = prim.indices.range();
        if range.len() < 3 {
            // Validation left whole triangles: fewer than 3 indices is none (nothing to draw).
            continue;
        }
        let list = prim.indices.list();
        let indices = if shared.get(p).copied().unwrap_or(false) {
            let slot = *slots.entry(Arc::as_ptr(list)).or_insert_with(|| {
                plan.lists.push(Arc::clone(list));
                plan.lists.len() - 1
            });
            PrimIndices::Shared { list: slot, range }
        } else {
            PrimIndices::Own {
                list: Arc::clone(list),
                range,
            }
        };
        plan.prims.push((indices, prim.material));
    }
    plan
}
