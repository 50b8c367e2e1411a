//! One triangle list per mesh, shared by every material range of it.
//!
//! BMF, SMF and SKM give each material a range of the mesh's triangles, and nothing stops the
//! ranges from overlapping: a file of N triangles and M materials whose ranges all cover every
//! triangle would make M × N indices if each primitive copied its range. Instead the mesh's
//! triangles are converted once (winding swapped, unusable triangles dropped) into one list,
//! and each primitive is a range of it ([`Indices::shared`]). Dropping a triangle keeps every
//! source range contiguous in the list, so a range stays a range.

use super::{Indices, Mesh};
use crate::scene::Array;
use std::sync::Arc;

/// A mesh's converted triangles, addressable by source triangle number.
pub(crate) struct SharedTriangles {
    list: Arc<Array<u32>>,
    /// `kept_before[t]`: how many triangles before source triangle `t` were kept (`len + 1`
    /// entries). Empty when every triangle was kept (then it is `t` itself).
    kept_before: Vec<u32>,
    source_triangles: usize,
    /// A vertex count every index of `list` was checked to be below (by the constructor's
    /// caller), handed to each range for validation ([`Indices::known_below`]).
    known_below: Option<usize>,
}

impl SharedTriangles {
    /// Converts `count` source triangles; `triangle(t)` gives triangle `t` as written to glTF,
    /// or `None` to leave it out, and leaves out every triangle with an index not below
    /// `below` (the mesh's vertex count). Returns the list and how many were left out.
    pub(crate) fn new(
        count: usize,
        below: usize,
        mut triangle: impl FnMut(usize) -> Option<[u32; 3]>,
    ) -> (Self, usize) {
        let mut list = Vec::with_capacity(count.saturating_mul(3));
        let mut kept_before: Vec<u32> = Vec::new();
        let mut skipped = 0usize;
        for t in 0..count {
            match triangle(t) {
                Some(tri) => {
                    if !kept_before.is_empty() {
                        kept_before.push(count_u32(list.len() / 3));
                    }
                    list.extend(tri);
                }
                None => {
                    if kept_before.is_empty() {
                        // First skip: record the (identity) prefix so far.
                        kept_before.extend((0..t).map(count_u32));
                    }
                    kept_before.push(count_u32(list.len() / 3));
                    skipped += 1;
                }
            }
        }
        if !kept_before.is_empty() {
            kept_before.push(count_u32(list.len() / 3));
        }
        let shared = Self {
            list: Arc::new(list.into()),
            kept_before,
            source_triangles: count,
            known_below: Some(below),
        };
        (shared, skipped)
    }

    /// Every whole triangle of `indices` (a trailing partial one is left out) with its
    /// winding swapped, `(a, b, c)` → `(a, c, b)`, none dropped: one exactly sized list, each
    /// triangle written once (the per-triangle path of [`new`](Self::new) checks its capacity
    /// at every triangle, which does not vectorise; a zeroed list written over costs a memset
    /// whenever the allocator hands back used memory). `known_below`: a vertex count the
    /// caller checked every index of `indices` to be below, if it did.
    pub(crate) fn swapped<T: Copy + Into<u32>>(indices: &[T], known_below: Option<usize>) -> Self {
        let triangles = indices.chunks_exact(3);
        let count = triangles.len();
        let list = triangles
            .map(|t| match *t {
                [a, b, c] => [a.into(), c.into(), b.into()],
                _ => [0; 3], // never: every chunk has 3 indices
            })
            .collect::<Vec<[u32; 3]>>()
            .into_flattened();
        Self {
            list: Arc::new(list.into()),
            kept_before: Vec::new(),
            source_triangles: count,
            known_below,
        }
    }

    /// [`swapped`](Self::swapped) on a list the conversion owns: swapped where it lies (no
    /// second list, so no fresh pages for it), a trailing partial triangle cut.
    pub(crate) fn swapped_in_place(mut list: Vec<u32>, known_below: Option<usize>) -> Self {
        let count = list.len() / 3;
        list.truncate(count * 3);
        for tri in list.chunks_exact_mut(3) {
            tri.swap(1, 2);
        }
        Self {
            list: Arc::new(list.into()),
            kept_before: Vec::new(),
            source_triangles: count,
            known_below,
        }
    }

    fn kept_before(&self, t: usize) -> usize {
        if self.kept_before.is_empty() {
            t.min(self.source_triangles)
        } else {
            self.kept_before
                .get(t.min(self.source_triangles))
                .map_or(0, |&k| k as usize)
        }
    }

    /// The kept triangles among source triangles `start..end` (clamped to the source).
    pub(crate) fn range(&self, start: usize, end: usize) -> Indices {
        let (a, b) = (self.kept_before(start), self.kept_before(end.max(start)));
        Indices::shared_below(&self.list, a * 3..b * 3, self.known_below).unwrap_or_default()
    }
}

/// Triangle counts come from in-memory lists of at most `isize::MAX` bytes; a count above
/// `u32::MAX` saturates (the glTF writer refuses such a mesh anyway).
fn count_u32(n: usize) -> u32 {
    u32::try_from(n).unwrap_or(u32::MAX)
}

/// The items of a list that a conversion either borrows (`borrowed`, from a borrowed document)
/// or owns (`owned`, moved out of a document taken by value; the other one is empty). Owned
/// items are handed out by value, so that each is freed as soon as it is converted: the
/// document and the scene are then never both whole in memory (issue 18).
pub(crate) fn items<'a, T: Clone>(
    owned: Vec<T>,
    borrowed: &'a [T],
) -> impl Iterator<Item = std::borrow::Cow<'a, T>> {
    owned
        .into_iter()
        .map(std::borrow::Cow::Owned)
        .chain(borrowed.iter().map(std::borrow::Cow::Borrowed))
}

/// Moves the list `list` out of an owned document (an empty list for a borrowed one), for
/// [`items`]; the rest of the document stays readable.
pub(crate) fn take_list<'a, D: Clone, T>(
    doc: std::borrow::Cow<'a, D>,
    list: impl FnOnce(&mut D) -> &mut Vec<T>,
) -> (std::borrow::Cow<'a, D>, Vec<T>) {
    match doc {
        std::borrow::Cow::Owned(mut d) => {
            let taken = std::mem::take(list(&mut d));
            (std::borrow::Cow::Owned(d), taken)
        }
        borrowed => (borrowed, Vec::new()),
    }
}

/// Frees part of `source` once it is converted, when the conversion owns it (a borrowed
/// source is left as it is).
#[cfg(any(feature = "smf", feature = "mdl"))]
pub(crate) fn release<T: Clone>(source: &mut std::borrow::Cow<'_, T>, free: impl FnOnce(&mut T)) {
    if let std::borrow::Cow::Owned(x) = source {
        free(x);
    }
}

/// Each primitive's material and its triangles.
#[cfg(feature = "skm")]
pub(crate) type Triangles = Vec<(Option<usize>, Vec<[u32; 3]>)>;

/// Each primitive's material and triangles in SKM's file winding (clockwise: the second and
/// third index swapped; `to_smf::layout` does the same while borrowing the lists), and how many triangles were dropped for an index past the
/// vertices (none on a validated scene; the writers warn if ever).
#[cfg(feature = "skm")]
pub(crate) fn clockwise_triangles(mesh: &Mesh) -> (Triangles, usize) {
    let n = mesh.vertices.positions.len();
    let mut dropped = 0usize;
    let prims = mesh
        .primitives
        .iter()
        .map(|p| {
            let tris = p
                .indices
                .chunks_exact(3)
                .filter_map(|t| match *t {
                    [a, b, c] if [a, b, c].iter().all(|&x| (x as usize) < n) => Some([a, c, b]),
                    _ => {
                        dropped += 1;
                        None
                    }
                })
                .collect();
            (p.material, tris)
        })
        .collect();
    (prims, dropped)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ranges_skip_dropped_triangles_and_share_one_list() {
        let (s, skipped) = SharedTriangles::new(4, 4, |t| (t != 1).then_some([t as u32; 3]));
        assert_eq!(skipped, 1);
        assert_eq!(&*s.range(0, 4), &[0, 0, 0, 2, 2, 2, 3, 3, 3]);
        assert_eq!(&*s.range(1, 2), &[] as &[u32]);
        assert_eq!(&*s.range(1, 3), &[2, 2, 2]);
        assert_eq!(&*s.range(3, 9), &[3, 3, 3]);
        assert!(Arc::ptr_eq(s.range(0, 1).list(), s.range(2, 4).list()));
        let (all, skipped) = SharedTriangles::new(2, 2, |t| Some([t as u32; 3]));
        assert_eq!(skipped, 0);
        assert_eq!(&*all.range(1, 2), &[1, 1, 1]);
    }

    #[test]
    fn swapped_equals_the_per_triangle_path() {
        let indices: [u16; 8] = [0, 1, 2, 3, 4, 5, 6, 7];
        let bulk = SharedTriangles::swapped(&indices, None);
        let (each, skipped) = SharedTriangles::new(2, 8, |t| {
            let [a, b, c] = [0, 1, 2].map(|k| u32::from(indices[t * 3 + k]));
            Some([a, c, b])
        });
        assert_eq!(skipped, 0);
        assert_eq!(bulk.range(0, 2).as_slice(), each.range(0, 2).as_slice());
        assert_eq!(bulk.range(0, 2).as_slice(), [0, 2, 1, 3, 5, 4]);
        assert_eq!(bulk.range(1, 9).as_slice(), [3, 5, 4]);
        let owned = SharedTriangles::swapped_in_place(indices.map(u32::from).to_vec(), Some(8));
        assert_eq!(owned.range(0, 2).as_slice(), bulk.range(0, 2).as_slice());
        assert_eq!(owned.source_triangles, 2);
    }
}
