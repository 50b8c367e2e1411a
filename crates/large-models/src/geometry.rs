//! Format-neutral geometry: the vertex and triangle content every format's model is built from.
//!
//! Every coordinate is rounded to six decimals, so that a `%.6f` text writer (OBJ, Elfreina's
//! six-decimal style) and a shortest-round-trip writer spell the same numbers.

use std::f64::consts::TAU;
use std::ops::Range;

/// Number of bones of the skinned model.
pub const BONES: usize = 72;
/// Number of animation samples (keys per channel) of the skinned model.
pub const SAMPLES: usize = 100;

/// Vertices and triangles, split into parts (each part indexes only its own vertices, so a
/// format with 16-bit indices can write one mesh per part).
#[derive(Debug, Clone, Default)]
pub struct Geometry {
    /// Positions, left-handed Y up (the convention of every format here).
    pub positions: Vec<[f64; 3]>,
    /// Unit normals.
    pub normals: Vec<[f64; 3]>,
    /// Texture coordinates, origin top-left.
    pub uvs: Vec<[f64; 2]>,
    /// Triangles, with indices into the whole vertex array.
    pub triangles: Vec<[u32; 3]>,
    /// Per part: its vertex range and its triangle range.
    pub parts: Vec<Part>,
    /// Skinned models only: per vertex, two influences (bone, weight), weights summing to 1.
    pub influences: Vec<[(u8, f64); 2]>,
}

/// One part of a [`Geometry`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Part {
    /// Its vertices.
    pub vertices: Range<usize>,
    /// Its triangles.
    pub triangles: Range<usize>,
}

impl Part {
    /// The bones this part's vertices use, ascending.
    pub fn bones(&self, g: &Geometry) -> Vec<u8> {
        let mut used = [false; 256];
        for inf in g.influences.get(self.vertices.clone()).unwrap_or(&[]) {
            for (b, _) in inf {
                used[usize::from(*b)] = true;
            }
        }
        (0..=255u8).filter(|&b| used[usize::from(b)]).collect()
    }
}

/// Rounds to six decimals (and turns `-0` into `0`).
pub fn r6(x: f64) -> f64 {
    let r = (x * 1e6).round() / 1e6;
    if r == 0.0 {
        0.0
    } else {
        r
    }
}

/// The large static mesh: 16 tori of 250 × 250 vertices, 1 000 000 vertices and 2 000 000
/// triangles in all (a torus closes in both directions, so every grid cell is two triangles).
pub fn large_static() -> Geometry {
    tori(16, 250, 250, 0.0)
}

/// A mid-size static mesh for the batch-conversion figures: 4 tori of 100 × 100 vertices
/// (40 000 vertices, 80 000 triangles), shifted by `seed` so that files differ.
pub fn mid_static(seed: u32) -> Geometry {
    tori(4, 100, 100, f64::from(seed) * 0.001)
}

/// `count` tori laid out on a 4-wide grid, each `major × minor` vertices.
pub fn tori(count: u32, major: u32, minor: u32, shift: f64) -> Geometry {
    let per = (major * minor) as usize;
    let mut g = Geometry {
        positions: Vec::with_capacity(per * count as usize),
        normals: Vec::with_capacity(per * count as usize),
        uvs: Vec::with_capacity(per * count as usize),
        triangles: Vec::with_capacity(2 * per * count as usize),
        ..Geometry::default()
    };
    let (big, small) = (3.0, 1.0);
    for t in 0..count {
        let centre = [
            f64::from(t % 4) * 10.0 - 15.0 + shift,
            f64::from(t / 4) * 0.5,
            f64::from(t / 4) * 10.0 - 15.0,
        ];
        let base = g.positions.len();
        let tri_base = g.triangles.len();
        for j in 0..minor {
            let v = TAU * f64::from(j) / f64::from(minor);
            let (sv, cv) = v.sin_cos();
            for i in 0..major {
                let u = TAU * f64::from(i) / f64::from(major);
                let (su, cu) = u.sin_cos();
                let ring = big + small * cv;
                g.positions.push([
                    r6(centre[0] + ring * cu),
                    r6(centre[1] + small * sv),
                    r6(centre[2] + ring * su),
                ]);
                g.normals.push([r6(cv * cu), r6(sv), r6(cv * su)]);
                g.uvs.push([
                    r6(f64::from(i) / f64::from(major)),
                    r6(f64::from(j) / f64::from(minor)),
                ]);
            }
        }
        let at = |i: u32, j: u32| base as u32 + (j % minor) * major + (i % major);
        for j in 0..minor {
            for i in 0..major {
                let (a, b, c, d) = (at(i, j), at(i + 1, j), at(i, j + 1), at(i + 1, j + 1));
                g.triangles.push([a, c, d]);
                g.triangles.push([a, d, b]);
            }
        }
        g.parts.push(Part {
            vertices: base..g.positions.len(),
            triangles: tri_base..g.triangles.len(),
        });
    }
    g
}

/// The D3DX-style adjacency: for each triangle, the triangle across each of its three edges
/// (corner k to corner k + 1), `u32::MAX` where there is none.
pub fn adjacency(g: &Geometry) -> Vec<[u32; 3]> {
    let mut edges = std::collections::HashMap::with_capacity(g.triangles.len() * 3);
    for (f, t) in g.triangles.iter().enumerate() {
        for k in 0..3 {
            edges.insert((t[k], t[(k + 1) % 3]), f as u32);
        }
    }
    g.triangles
        .iter()
        .map(|t| {
            [0, 1, 2].map(|k| {
                edges
                    .get(&(t[(k + 1) % 3], t[k]))
                    .copied()
                    .unwrap_or(u32::MAX)
            })
        })
        .collect()
}

/// The skinned model: 4 tubes of 100 rings × 250 vertices (100 000 vertices, 198 000
/// triangles) along +x, each vertex blended between the two nearest of [`BONES`] bones.
pub fn skinned() -> Geometry {
    tubes(100, 250)
}

/// A character-sized skinned model: 4 tubes of 18 rings × 36 vertices (2 592 vertices, 4 896
/// triangles), blended over the same [`BONES`] bones as [`skinned`]. As an SMF file with its
/// clip it is about the size of a real game character (issue 18 speaks of a 627 KB one).
pub fn character() -> Geometry {
    tubes(18, 36)
}

/// 4 tubes of `rings` rings × `around` vertices along +x, each vertex blended between the two
/// nearest of [`BONES`] bones.
fn tubes(rings: u32, around: u32) -> Geometry {
    const PARTS: u32 = 4;
    let total_rings = f64::from(rings * PARTS);
    let mut g = Geometry::default();
    for p in 0..PARTS {
        let base = g.positions.len();
        let tri_base = g.triangles.len();
        for r in 0..rings {
            let ring = p * rings + r;
            let x = f64::from(ring) * LENGTH / total_rings;
            let t = f64::from(ring) / total_rings * (BONES as f64 - 1.0);
            let b0 = t.floor() as u8;
            let w1 = r6(t - t.floor());
            let b1 = (b0 + 1).min(BONES as u8 - 1);
            for k in 0..around {
                let a = TAU * f64::from(k) / f64::from(around);
                let (s, c) = a.sin_cos();
                g.positions.push([r6(x), r6(c), r6(s)]);
                g.normals.push([0.0, r6(c), r6(s)]);
                g.uvs.push([
                    r6(f64::from(ring) / (total_rings - 1.0)),
                    r6(f64::from(k) / f64::from(around)),
                ]);
                g.influences.push([(b0, r6(1.0 - w1)), (b1, w1)]);
            }
        }
        let at = |r: u32, k: u32| base as u32 + r * around + (k % around);
        for r in 0..rings - 1 {
            for k in 0..around {
                let (a, b, c, d) = (at(r, k), at(r, k + 1), at(r + 1, k), at(r + 1, k + 1));
                g.triangles.push([a, c, d]);
                g.triangles.push([a, d, b]);
            }
        }
        g.parts.push(Part {
            vertices: base..g.positions.len(),
            triangles: tri_base..g.triangles.len(),
        });
    }
    g
}

/// Length of the skinned tube along x.
pub const LENGTH: f64 = 20.0;

/// Parent of bone `b` (a binary tree, depth 7, so that nested-scope formats stay shallow).
pub fn parent(b: usize) -> Option<usize> {
    (b > 0).then(|| (b - 1) / 2)
}

/// Bind-pose world position of bone `b`: spread along the tube.
pub fn bone_position(b: usize) -> [f64; 3] {
    [r6(b as f64 * LENGTH / (BONES as f64 - 1.0)), 0.0, 0.0]
}

/// Bind-pose local translation of bone `b` (relative to its parent).
pub fn bone_local(b: usize) -> [f64; 3] {
    let p = bone_position(b);
    match parent(b) {
        Some(q) => {
            let pq = bone_position(q);
            [r6(p[0] - pq[0]), 0.0, 0.0]
        }
        None => p,
    }
}

/// Time of sample `s`, in seconds (30 samples per second).
pub fn sample_time(s: usize) -> f64 {
    r6(s as f64 / 30.0)
}

/// Rotation angle (radians, about +x) of bone `b` at sample `s`.
pub fn angle(b: usize, s: usize) -> f64 {
    0.3 * (TAU * s as f64 / SAMPLES as f64 + b as f64 * 0.1).sin()
}

/// The rotation of bone `b` at sample `s` as a quaternion x, y, z, w.
pub fn rotation(b: usize, s: usize) -> [f64; 4] {
    let (sn, cs) = (angle(b, s) / 2.0).sin_cos();
    [r6(sn), 0.0, 0.0, r6(cs)]
}

/// A row-major, row-vector (Direct3D) translation matrix.
pub fn translation_rows(t: [f64; 3]) -> [f64; 16] {
    [
        1.0, 0.0, 0.0, 0.0, //
        0.0, 1.0, 0.0, 0.0, //
        0.0, 0.0, 1.0, 0.0, //
        t[0], t[1], t[2], 1.0,
    ]
}

/// A row-major, row-vector rotation about +x by `a` radians.
pub fn rotation_x_rows(a: f64) -> [f64; 16] {
    let (s, c) = a.sin_cos();
    [
        1.0, 0.0, 0.0, 0.0, //
        0.0, c, s, 0.0, //
        0.0, -s, c, 0.0, //
        0.0, 0.0, 0.0, 1.0,
    ]
}

/// Narrows an array of `f64` to `f32`.
pub fn f32s<const N: usize>(v: [f64; N]) -> [f32; N] {
    v.map(|x| x as f32)
}
