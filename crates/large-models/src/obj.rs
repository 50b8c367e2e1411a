//! Wavefront OBJ text with the same vertex and face content as the static models, for the
//! `tobj_baseline` of the text-format benches. Numbers are written `%.6f`.

use crate::geometry::{self as geo, Geometry};
use std::io::Write as _;

/// The OBJ text of `g`: one `o` per part, `v`/`vt`/`vn` per vertex, `f v/vt/vn` per triangle.
pub fn from(g: &Geometry) -> Vec<u8> {
    // About 105 bytes per vertex and 60 per triangle.
    let mut out = Vec::with_capacity(g.positions.len() * 105 + g.triangles.len() * 60);
    // Writing into a Vec cannot fail.
    let _ = writeln!(out, "# large-models: {} vertices", g.positions.len());
    for (k, part) in g.parts.iter().enumerate() {
        let _ = writeln!(out, "o part{k}");
        for v in part.vertices.clone() {
            let [x, y, z] = g.positions[v];
            let _ = writeln!(out, "v {x:.6} {y:.6} {z:.6}");
            let [s, t] = g.uvs[v];
            let _ = writeln!(out, "vt {s:.6} {t:.6}");
            let [x, y, z] = g.normals[v];
            let _ = writeln!(out, "vn {x:.6} {y:.6} {z:.6}");
        }
        for t in &g.triangles[part.triangles.clone()] {
            let [a, b, c] = t.map(|i| i + 1);
            let _ = writeln!(out, "f {a}/{a}/{a} {b}/{b}/{b} {c}/{c}/{c}");
        }
    }
    out
}

/// The OBJ of the large static model (the content of `elem::large_static` and
/// `skm::large_static`).
pub fn large_static() -> Vec<u8> {
    from(&geo::large_static())
}
