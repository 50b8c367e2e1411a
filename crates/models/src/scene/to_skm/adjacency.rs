//! D3DX-style adjacency (`ID3DXMesh::GenerateAdjacency` with ε = 0) of an SKM mesh: for each
//! face's edge `k` (corners `k`, `k + 1`), the lowest-numbered other face that has an edge
//! between the same two positions (compared by bits, either direction), [`NONE`] where none.
//!
//! Built from arrays sized by the vertices and the faces, not hash maps: the large models have
//! millions of edges, and a map of them (plus its growth) was the peak of the whole SKM → glTF
//! conversion (issue 18). Here positions are numbered by sorting, the faces around each position
//! are listed once (compressed rows), and each edge is settled at its lower-numbered end with
//! a scratch row indexed by the other end: linear in the faces (plus the sort), about
//! `20 × vertices + 4 × corners` bytes (plus `16 × vertices` while sorting and `4 × corners`
//! for the faces' position numbers), and no output at all for [`matches()`].

use skm_text::Vertex;

/// The face "no neighbour" value D3DX writes.
const NONE: u32 = u32::MAX;

/// The adjacency of `triangles` over `vertices` (a corner naming a vertex that does not exist
/// matches nothing).
pub(crate) fn adjacency(vertices: &[Vertex], triangles: &[[u32; 3]]) -> Vec<[u32; 3]> {
    let mut out = vec![[NONE; 3]; triangles.len()];
    each(vertices, triangles, |f, k, n| {
        if let Some(slot) = out.get_mut(f).and_then(|t| t.get_mut(k)) {
            *slot = n;
        }
    });
    out
}

/// Is `expected` exactly what [`adjacency`] gives? Without making it: the conversion asks this
/// of every SKM it reads, beside the document and the scene.
pub(crate) fn matches(vertices: &[Vertex], triangles: &[[u32; 3]], expected: &[[u32; 3]]) -> bool {
    if expected.len() != triangles.len() {
        return false;
    }
    let mut same = true;
    each(vertices, triangles, |f, k, n| {
        same &= expected.get(f).and_then(|t| t.get(k)) == Some(&n);
    });
    same
}

/// Calls `emit(face, edge, neighbour)` once for each of the faces' three edges.
fn each(vertices: &[Vertex], triangles: &[[u32; 3]], mut emit: impl FnMut(usize, usize, u32)) {
    // Face numbers are `u32` (as in the file); more faces than that cannot be read into memory,
    // and those past it would name no neighbour anyway.
    let Ok(face_count) = u32::try_from(triangles.len()) else {
        for f in 0..triangles.len() {
            for k in 0..3 {
                emit(f, k, NONE);
            }
        }
        return;
    };
    let id = position_ids(vertices);
    let positions = id.len();
    // Each face's corners as position numbers, looked up once: the walk below visits every
    // face six times, and looking them up there (three scattered reads each time) was most
    // of its cost (issue 18).
    let corners: Vec<[u32; 3]> = triangles
        .iter()
        .map(|t| t.map(|i| id.get(i as usize).copied().unwrap_or(NONE)))
        .collect();
    drop(id);
    let edges = |c: [u32; 3]| [(c[0], c[1]), (c[1], c[2]), (c[2], c[0])];
    // An edge with a corner that does not exist matches nothing.
    for (f, &c) in corners.iter().enumerate() {
        for (k, (a, b)) in edges(c).into_iter().enumerate() {
            if a == NONE || b == NONE {
                emit(f, k, NONE);
            }
        }
    }
    let around = Around::new(positions, (0..face_count).zip(corners.iter().copied()));
    // Per higher end, the first two distinct faces with the edge (lower end `a`): the lowest
    // other face is then the first unless that is the face asking.
    let mut first = vec![[NONE; 2]; positions];
    let lower_at = |a: u32, c: [u32; 3]| {
        edges(c)
            .into_iter()
            .enumerate()
            .filter(move |&(_, (x, y))| x != NONE && y != NONE && x.min(y) == a)
            .map(|(k, (x, y))| (k, x.max(y) as usize))
    };
    for a in 0..positions {
        let faces = around.faces(a);
        let a = u32::try_from(a).unwrap_or(NONE);
        let at = |g: u32| corners.get(g as usize).copied().unwrap_or([NONE; 3]);
        for &g in faces {
            for (_, b) in lower_at(a, at(g)) {
                if let Some(slot) = first.get_mut(b) {
                    if slot[0] == NONE {
                        slot[0] = g;
                    } else if slot[0] != g && slot[1] == NONE {
                        slot[1] = g;
                    }
                }
            }
        }
        for &g in faces {
            for (k, b) in lower_at(a, at(g)) {
                if let Some(&[x, y]) = first.get(b) {
                    emit(g as usize, k, if x != g { x } else { y });
                }
            }
        }
        for &g in faces {
            for (_, b) in lower_at(a, at(g)) {
                if let Some(slot) = first.get_mut(b) {
                    *slot = [NONE; 2];
                }
            }
        }
    }
}

/// Each vertex's position number: the lowest vertex at the same position (by bits), found by
/// sorting the vertices by position.
fn position_ids(vertices: &[Vertex]) -> Vec<u32> {
    // Vertex numbers are `u32` in the triangles: those past it are never named.
    let count = vertices.len().min(NONE as usize);
    // One `u128` per vertex, its position's bits above its number: sorting these orders by
    // position then number, as a sort by `(bits, number)` does, but each comparison is one
    // integer compare (the tuple comparisons were a quarter of the SKM export, issue 18).
    let mut order: Vec<u128> = vertices
        .iter()
        .take(count)
        .zip(0u32..)
        .map(|(v, i)| {
            let [x, y, z] = v.position.map(|c| u128::from(c.to_bits()));
            (x << 96) | (y << 64) | (z << 32) | u128::from(i)
        })
        .collect();
    order.sort_unstable();
    let mut id = vec![NONE; count];
    let mut run: Option<(u128, u32)> = None;
    for &key in &order {
        let (p, i) = (key >> 32, key as u32);
        let first = match run {
            Some((q, first)) if q == p => first,
            _ => i,
        };
        run = Some((p, first));
        if let Some(slot) = id.get_mut(i as usize) {
            *slot = first;
        }
    }
    id
}

/// The faces around each position number, in ascending order, each face once (compressed rows).
struct Around {
    /// Where each position's faces start in `faces` (one more entry than positions).
    start: Vec<usize>,
    faces: Vec<u32>,
}

impl Around {
    fn new(count: usize, faces: impl Iterator<Item = (u32, [u32; 3])> + Clone) -> Around {
        // The distinct existing corners of a face.
        let distinct = |c: [u32; 3]| {
            let [a, b, d] = c;
            [
                Some(a),
                (b != a).then_some(b),
                (d != a && d != b).then_some(d),
            ]
            .into_iter()
            .flatten()
            .filter(|&x| (x as usize) < count)
        };
        let mut start = vec![0usize; count + 1];
        for (_, c) in faces.clone() {
            for x in distinct(c) {
                if let Some(s) = start.get_mut(x as usize + 1) {
                    *s += 1;
                }
            }
        }
        for i in 1..start.len() {
            let before = start.get(i - 1).copied().unwrap_or(0);
            if let Some(s) = start.get_mut(i) {
                *s += before;
            }
        }
        let mut list = vec![0u32; start.last().copied().unwrap_or(0)];
        // `start[x]` is position x's cursor while the faces are placed: it ends where x + 1
        // starts, and the rows move up one place afterwards (no second row of cursors).
        for (f, c) in faces {
            for x in distinct(c) {
                if let Some(n) = start.get_mut(x as usize) {
                    if let Some(slot) = list.get_mut(*n) {
                        *slot = f;
                    }
                    *n += 1;
                }
            }
        }
        start.rotate_right(1);
        if let Some(s) = start.first_mut() {
            *s = 0;
        }
        Around { start, faces: list }
    }

    fn faces(&self, at: usize) -> &[u32] {
        let from = self.start.get(at).copied().unwrap_or(0);
        let to = self.start.get(at + 1).copied().unwrap_or(from);
        self.faces.get(from..to).unwrap_or(&[])
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn vertex(position: [f32; 3]) -> Vertex {
        Vertex {
            position,
            weights: [0.0; 3],
            blend_indices: 0,
            normal: [0.0, 1.0, 0.0],
            uv: [0.0; 2],
        }
    }

    /// The definition, face by face: the lowest other face with an edge between the same two
    /// positions (by bits, either direction).
    fn brute_force(vertices: &[Vertex], triangles: &[[u32; 3]]) -> Vec<[u32; 3]> {
        let p = |i: u32| {
            vertices
                .get(i as usize)
                .map(|v| v.position.map(f32::to_bits))
        };
        let edges = |t: &[u32; 3]| [(t[0], t[1]), (t[1], t[2]), (t[2], t[0])];
        let same = |(a, b): (u32, u32), (c, d): (u32, u32)| match (p(a), p(b), p(c), p(d)) {
            (Some(a), Some(b), Some(c), Some(d)) => (a, b) == (c, d) || (a, b) == (d, c),
            _ => false,
        };
        triangles
            .iter()
            .enumerate()
            .map(|(f, t)| {
                edges(t).map(|e| {
                    triangles
                        .iter()
                        .enumerate()
                        .find(|&(g, u)| g != f && edges(u).iter().any(|&o| same(e, o)))
                        .map_or(NONE, |(g, _)| g as u32)
                })
            })
            .collect()
    }

    /// Random small meshes with few distinct positions (so edges are shared by many faces),
    /// repeated and missing vertices, degenerate faces, −0.0 beside 0.0 and NaN.
    #[test]
    fn agrees_with_the_definition() {
        let mut seed = 0x2545_f491_4f6c_dd1du64;
        let mut next = |n: u32| {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            (seed % u64::from(n)) as u32
        };
        let values = [0.0, -0.0, 1.0, f32::NAN, 2.5];
        for round in 0..300 {
            let vertex_count = 1 + next(12);
            let vertices: Vec<Vertex> = (0..vertex_count)
                .map(|_| vertex([0, 1, 2].map(|_| values[next(5) as usize])))
                .collect();
            let triangles: Vec<[u32; 3]> = (0..next(16))
                .map(|_| [0, 1, 2].map(|_| next(vertex_count + 2)))
                .collect();
            let want = brute_force(&vertices, &triangles);
            assert_eq!(adjacency(&vertices, &triangles), want, "round {round}");
            assert!(matches(&vertices, &triangles, &want), "round {round}");
            if let Some(first) = want.first() {
                let mut other = want.clone();
                other[0] = [first[0] ^ 1, first[1], first[2]];
                assert!(!matches(&vertices, &triangles, &other), "round {round}");
            }
        }
    }
}
