//! The index data of one mesh's primitives, checked and planned before anything is written.
//!
//! A primitive's indices are normally copied (and cleaned) on their own. Primitives whose
//! [`Indices`](crate::scene::Indices) are overlapping ranges of one shared list (overlapping
//! BMF, SMF or SKM material ranges) are not: the list is cleaned once and written once, and each
//! of those primitives gets an accessor into it at its own offset. Output and memory then grow
//! with the list, not with the list times the number of materials.

use crate::scene::shared::SharedTriangles;
use crate::scene::{Mesh, SceneWarning};
use std::collections::HashMap;
use std::ops::Range;

/// Where a planned primitive's triangles are.
pub(super) enum PrimIndices {
    /// Its own cleaned copy.
    Own(Vec<u32>),
    /// `range` of the cleaned shared list `list` (an index into [`Plan::lists`]).
    Shared { list: usize, range: Range<usize> },
}

/// The drawable primitives of a mesh.
pub(super) struct Plan {
    /// Surviving primitives, in scene order, with their (checked) material.
    pub prims: Vec<(PrimIndices, Option<usize>)>,
    /// Cleaned shared lists (every triangle in range of the vertices).
    pub lists: Vec<std::sync::Arc<Vec<u32>>>,
}

impl Plan {
    /// Every triangle drawn, once per primitive for copied indices and once per shared list
    /// (the union of its primitives' ranges) for shared ones.
    pub fn triangles(&self) -> Vec<&[u32]> {
        let mut out: Vec<&[u32]> = Vec::new();
        let mut ranges: Vec<Vec<Range<usize>>> = vec![Vec::new(); self.lists.len()];
        for (p, _) in &self.prims {
            match p {
                PrimIndices::Own(v) => out.extend(v.chunks_exact(3)),
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

/// Checks the primitives of `mesh` (`n` vertices, `material_count` materials); every repair is
/// a warning starting with `label`.
pub(super) fn plan(
    label: &str,
    mesh: &Mesh,
    n: usize,
    material_count: usize,
    warnings: &mut Vec<SceneWarning>,
) -> Plan {
    let shared = overlapping_groups(mesh);
    let mut plan = Plan {
        prims: Vec::new(),
        lists: Vec::new(),
    };
    // Cleaned shared lists by the address of the scene's list.
    let mut cleaned: HashMap<*const Vec<u32>, (usize, SharedTriangles)> = HashMap::new();
    let valid = |tri: &[u32]| tri.iter().all(|&x| (x as usize) < n);
    for (p, prim) in mesh.primitives.iter().enumerate() {
        let len = prim.indices.len();
        let whole = len / 3 * 3;
        if whole != len {
            warnings.push(warning(format!(
                "{label} primitive {p}: {len} indices is not a multiple of 3; the last {} dropped",
                len - whole
            )));
        }
        let (indices, bad) = if shared.get(p).copied().unwrap_or(false) {
            let list = prim.indices.list();
            let key = std::sync::Arc::as_ptr(list);
            let next = plan.lists.len();
            let (slot, triangles) = cleaned.entry(key).or_insert_with(|| {
                let (t, _) =
                    SharedTriangles::new(list.len() / 3, |t| match list.get(t * 3..t * 3 + 3) {
                        Some(&[a, b, c]) if valid(&[a, b, c]) => Some([a, b, c]),
                        _ => None,
                    });
                (next, t)
            });
            if *slot == next {
                plan.lists.push(std::sync::Arc::clone(triangles.list()));
            }
            let first = prim.indices.range().start / 3;
            let range = triangles.range(first, first + whole / 3).range();
            let bad = whole / 3 - range.len() / 3;
            (PrimIndices::Shared { list: *slot, range }, bad)
        } else {
            let mut own = Vec::with_capacity(whole);
            let mut bad = 0usize;
            for tri in prim.indices.chunks_exact(3) {
                if valid(tri) {
                    own.extend_from_slice(tri);
                } else {
                    bad += 1;
                }
            }
            (PrimIndices::Own(own), bad)
        };
        if bad > 0 {
            warnings.push(warning(format!(
                "{label} primitive {p}: {bad} triangles refer to vertices beyond the {n} vertices; dropped"
            )));
        }
        let material = match prim.material {
            Some(m) if m >= material_count => {
                warnings.push(warning(format!(
                    "{label} primitive {p}: material {m} out of range ({material_count} materials); default material used"
                )));
                None
            }
            m => m,
        };
        let empty = match &indices {
            PrimIndices::Own(v) => v.is_empty(),
            PrimIndices::Shared { range, .. } => range.is_empty(),
        };
        if !empty {
            plan.prims.push((indices, material));
        }
    }
    plan
}

/// For each primitive: whether it takes the shared path, i.e. its indices are a range of a
/// list that starts on a triangle boundary and overlaps the range of another primitive of the
/// mesh on the same list. Non-overlapping ranges are copied as before (the same bytes as a
/// mesh that never shared anything).
fn overlapping_groups(mesh: &Mesh) -> Vec<bool> {
    let mut by_list: HashMap<*const Vec<u32>, Vec<(usize, Range<usize>)>> = HashMap::new();
    for (p, prim) in mesh.primitives.iter().enumerate() {
        let range = prim.indices.range();
        if range.start % 3 == 0 && !range.is_empty() {
            by_list
                .entry(std::sync::Arc::as_ptr(prim.indices.list()))
                .or_default()
                .push((p, range));
        }
    }
    let mut shared = vec![false; mesh.primitives.len()];
    for mut members in by_list.into_values() {
        members.sort_by_key(|(_, r)| r.start);
        let overlap = members
            .windows(2)
            .any(|w| matches!(w, [(_, a), (_, b)] if b.start < a.end));
        if overlap {
            for (p, _) in members {
                if let Some(s) = shared.get_mut(p) {
                    *s = true;
                }
            }
        }
    }
    shared
}

/// The one place this module makes a warning: `text` is `{place}: {message}`.
fn warning(text: String) -> SceneWarning {
    SceneWarning::from_text(text)
}
