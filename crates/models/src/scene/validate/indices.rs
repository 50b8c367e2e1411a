//! Index lists: whole triangles, every index below the vertex count, materials in range.
//!
//! A primitive whose indices need no repair keeps them as they are (a range of the scene's
//! list, never copied), so the writer streams them straight into the output. Primitives whose
//! ranges of one shared list overlap (BMF, SMF or SKM material ranges may) are repaired
//! together: the list is cleaned once and each of them becomes a range of the cleaned list
//! ([`SharedTriangles`]), so that the writer still writes it once.

use super::{label, warn};
use crate::scene::shared::SharedTriangles;
use crate::scene::Array;
use crate::scene::{Indices, Mesh, SceneWarning};
use std::collections::HashMap;
use std::ops::Range;
use std::sync::Arc;

/// Repairs the primitives of mesh `i` (`material_count` materials in the scene); every repair
/// is a warning naming the primitive. A mesh without vertices is left alone (the writer does
/// not write it, and says so).
pub(super) fn mesh_indices(
    i: usize,
    mesh: &mut Mesh,
    material_count: usize,
    warnings: &mut Vec<SceneWarning>,
) {
    let n = mesh.vertices.positions.len();
    if n == 0 {
        return;
    }
    let label = label("mesh", i, &mesh.name);
    let shared = overlapping_groups(mesh);
    let valid = |tri: &[u32]| tri.iter().all(|&x| (x as usize) < n);
    // Cleaned shared lists by the address of the scene's list; `None` when it needs no repair.
    let mut cleaned: HashMap<*const Array<u32>, Option<SharedTriangles>> = HashMap::new();
    for (p, prim) in mesh.primitives.iter_mut().enumerate() {
        let len = prim.indices.len();
        let whole = len / 3 * 3;
        if whole != len {
            warn(
                warnings,
                format!("{label} primitive {p}"),
                format!(
                    "{len} indices is not a multiple of 3; the last {} dropped",
                    len - whole
                ),
            );
        }
        let list = Arc::clone(prim.indices.list());
        let range = prim.indices.range();
        let known = prim.indices.known_below().filter(|&k| k <= n);
        let bad = if shared.get(p).copied().unwrap_or(false) {
            let triangles = cleaned
                .entry(Arc::as_ptr(&list))
                .or_insert_with(|| clean_list(&list, n, known, valid));
            let first = range.start / 3;
            match triangles {
                Some(t) => {
                    prim.indices = t.range(first, first + whole / 3);
                    whole / 3 - prim.indices.len() / 3
                }
                None => {
                    prim.indices = trimmed(&list, range, whole, known);
                    0
                }
            }
        } else {
            let whole_list = prim.indices.get(..whole).unwrap_or_default();
            let bad = if known.is_some() || below(whole_list, n) {
                0
            } else {
                prim.indices.chunks_exact(3).filter(|t| !valid(t)).count()
            };
            prim.indices = if bad > 0 {
                let own: Vec<u32> = prim
                    .indices
                    .chunks_exact(3)
                    .filter(|t| valid(t))
                    .flatten()
                    .copied()
                    .collect();
                Indices::checked(own, n)
            } else {
                trimmed(&list, range, whole, known)
            };
            bad
        };
        if bad > 0 {
            warn(
                warnings,
                format!("{label} primitive {p}"),
                format!("{bad} triangles refer to vertices beyond the {n} vertices; dropped"),
            );
        }
        if let Some(m) = prim.material.filter(|&m| m >= material_count) {
            warn(
                warnings,
                format!("{label} primitive {p}"),
                format!(
                    "material {m} out of range ({material_count} materials); default material used"
                ),
            );
            prim.material = None;
        }
    }
}

/// `list` without its triangles that fail `valid`, or `None` when every triangle passes (and
/// the list is kept as it is): known without reading the list when it was checked below `n`
/// where it was made (`known`).
fn clean_list(
    list: &[u32],
    n: usize,
    known: Option<usize>,
    valid: impl Fn(&[u32]) -> bool,
) -> Option<SharedTriangles> {
    let whole = list.get(..list.len() / 3 * 3).unwrap_or_default();
    if known.is_some() || below(whole, n) {
        return None;
    }
    let (t, _) = SharedTriangles::new(list.len() / 3, n, |t| match list.get(t * 3..t * 3 + 3) {
        Some(&[a, b, c]) if valid(&[a, b, c]) => Some([a, b, c]),
        _ => None,
    });
    Some(t)
}

/// Whether every index is below `n`: one compare per index, ORed in one pass without an early
/// exit (it vectorises; nearly every list passes, so the per-triangle check is the rare case).
/// A compare, not the largest index: x86-64's baseline SSE2 has no unsigned 32-bit maximum, so
/// a `max` fold costs twice the instructions (an import checks its indices twice: the glTF
/// reader, then validation).
pub(crate) fn below<T: Copy + Into<u32>>(indices: &[T], n: usize) -> bool {
    let Ok(n) = u32::try_from(n) else {
        return true; // every u32 is
    };
    indices
        .iter()
        .fold(0u32, |bad, &x| bad | u32::from(x.into() >= n))
        == 0
}

/// The first `whole` indices of `range` of `list`: the same list, no copy (and what is known
/// of it, `known`).
fn trimmed(
    list: &Arc<Array<u32>>,
    range: Range<usize>,
    whole: usize,
    known: Option<usize>,
) -> Indices {
    Indices::shared_below(list, range.start..range.start + whole, known).unwrap_or_default()
}

/// For each primitive: whether it shares its list with others, i.e. its indices are a range of
/// a list that starts on a triangle boundary and overlaps the range of another primitive of the
/// mesh on the same list. Such primitives are repaired together here, and the glTF writer
/// writes their list once; the others are written on their own (the same bytes as a mesh that
/// never shared anything).
pub(crate) fn overlapping_groups(mesh: &Mesh) -> Vec<bool> {
    let mut by_list: HashMap<*const Array<u32>, Vec<(usize, Range<usize>)>> = HashMap::new();
    for (p, prim) in mesh.primitives.iter().enumerate() {
        let range = prim.indices.range();
        if range.start % 3 == 0 && !range.is_empty() {
            by_list
                .entry(Arc::as_ptr(prim.indices.list()))
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scene::{Primitive, Vertices};

    fn mesh(list: &Arc<Array<u32>>, ranges: &[Range<usize>]) -> Mesh {
        Mesh {
            vertices: Vertices {
                positions: vec![[0.0; 3]; 4].into(),
                ..Vertices::default()
            },
            primitives: ranges
                .iter()
                .map(|r| Primitive {
                    indices: Indices::shared(list, r.clone()).unwrap(),
                    material: Some(0),
                })
                .collect(),
            ..Mesh::default()
        }
    }

    #[test]
    fn clean_lists_are_kept_and_bad_ones_cleaned_once() {
        // Clean, overlapping: the scene's list itself, trimmed to whole triangles.
        let list = Arc::new(Array::from(vec![0, 1, 2, 1, 2, 3, 0]));
        let mut m = mesh(&list, &[0..6, 3..7]);
        let mut warnings = Vec::new();
        mesh_indices(0, &mut m, 1, &mut warnings);
        assert!(m
            .primitives
            .iter()
            .all(|p| Arc::ptr_eq(p.indices.list(), &list)));
        assert_eq!(m.primitives[1].indices.range(), 3..6);
        assert_eq!(warnings.len(), 1, "{warnings:?}");
        // A bad triangle in an overlapping group: one new list for both, each warned.
        let list = Arc::new(Array::from(vec![0, 1, 2, 1, 2, 9, 1, 2, 3]));
        let mut m = mesh(&list, &[0..9, 3..9]);
        let mut warnings = Vec::new();
        mesh_indices(0, &mut m, 0, &mut warnings);
        let (a, b) = (&m.primitives[0].indices, &m.primitives[1].indices);
        assert!(Arc::ptr_eq(a.list(), b.list()) && !Arc::ptr_eq(a.list(), &list));
        assert_eq!(&**a, &[0, 1, 2, 1, 2, 3]);
        assert_eq!(&**b, &[1, 2, 3]);
        // Two "beyond" warnings and two "material out of range" ones.
        assert_eq!(warnings.len(), 4, "{warnings:?}");
        assert!(m.primitives.iter().all(|p| p.material.is_none()));
    }

    /// A list checked where it was made is trusted only for as many vertices as it was
    /// checked against: a mesh since cut to fewer vertices is checked again, its own and its
    /// shared lists alike, and what validation keeps is known for the mesh's count.
    #[test]
    fn lists_known_in_range_are_checked_again_for_fewer_vertices() {
        let checked = Indices::checked(vec![0, 1, 2, 3, 4, 5], 6);
        let list = Arc::clone(checked.list());
        let mut own = mesh(&list, &[]);
        own.primitives.push(Primitive {
            indices: checked,
            material: None,
        });
        let mut shared = mesh(&list, &[]);
        for range in [0..6, 3..6] {
            let indices = Indices::shared_below(&list, range, Some(6)).unwrap();
            shared.primitives.push(Primitive {
                indices,
                material: None,
            });
        }
        for mut m in [own, shared] {
            let mut warnings = Vec::new();
            mesh_indices(0, &mut m, 0, &mut warnings);
            // 4 vertices: the triangle (3, 4, 5) goes, with a warning per primitive.
            assert_eq!(&*m.primitives[0].indices, &[0, 1, 2], "{warnings:?}");
            assert!(warnings.iter().all(|w| w.to_string().contains("beyond")));
            assert_eq!(warnings.len(), m.primitives.len());
            assert_eq!(m.primitives[0].indices.known_below(), Some(4));
        }
        // Checked against as many vertices as the mesh has, or more: kept, and still known.
        let mut m = mesh(&list, &[]);
        m.vertices.positions.to_mut().resize(6, [0.0; 3]);
        m.primitives.push(Primitive {
            indices: Indices::shared_below(&list, 0..6, Some(6)).unwrap(),
            material: None,
        });
        let mut warnings = Vec::new();
        mesh_indices(0, &mut m, 0, &mut warnings);
        assert!(warnings.is_empty(), "{warnings:?}");
        assert!(Arc::ptr_eq(m.primitives[0].indices.list(), &list));
        assert_eq!(m.primitives[0].indices.known_below(), Some(6));
    }
}
