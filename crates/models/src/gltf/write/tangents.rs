//! Tangents generated for normal-mapped primitives whose source has none (a glTF-only choice:
//! viewers then need not each make up a tangent space).

use crate::scene::validate::unit3;

/// Per-vertex tangents from positions, unit normals and UVs (accumulated per triangle,
/// Gram-Schmidt orthogonalised against the normal; `w` is the handedness of the UV mapping,
/// +1 for a quad facing +z with u to the right and v down, as in glTF's sample models).
pub(super) fn generate_tangents<'t>(
    positions: &[[f32; 3]],
    normals: &[[f32; 3]],
    uv: &[[f32; 2]],
    triangles: impl Iterator<Item = &'t [u32]>,
) -> Vec<[f32; 4]> {
    let n = positions.len();
    let mut tan = vec![[0.0f64; 3]; n];
    let mut bit = vec![[0.0f64; 3]; n];
    let p = |i: usize| positions.get(i).copied().unwrap_or_default().map(f64::from);
    // glTF's bitangent, cross(normal, tangent) * w, points towards decreasing v (v runs down
    // the image): work with -v, as MikkTSpace on a flipped V does in the reference exporters.
    let t = |i: usize| {
        let q = uv.get(i).copied().unwrap_or_default();
        [f64::from(q[0]), -f64::from(q[1])]
    };
    let sub = |a: [f64; 3], b: [f64; 3]| [a[0] - b[0], a[1] - b[1], a[2] - b[2]];
    for tri in triangles {
        let &[a, b, c] = tri else { continue };
        let [a, b, c] = [a as usize, b as usize, c as usize];
        let (e1, e2) = (sub(p(b), p(a)), sub(p(c), p(a)));
        let (ta, tb, tc) = (t(a), t(b), t(c));
        let (s1, t1, s2, t2) = (tb[0] - ta[0], tb[1] - ta[1], tc[0] - ta[0], tc[1] - ta[1]);
        let det = s1 * t2 - s2 * t1;
        if det.abs() < 1e-20 || !det.is_finite() {
            continue;
        }
        let r = 1.0 / det;
        // Per component: `(x * p - y * q) * r`.
        let combine = |[x0, x1, x2]: [f64; 3], p: f64, [y0, y1, y2]: [f64; 3], q: f64| {
            [
                (x0 * p - y0 * q) * r,
                (x1 * p - y1 * q) * r,
                (x2 * p - y2 * q) * r,
            ]
        };
        let sdir = combine(e1, t2, e2, t1);
        let tdir = combine(e2, s1, e1, s2);
        for v in [a, b, c] {
            if let (Some(tv), Some(bv)) = (tan.get_mut(v), bit.get_mut(v)) {
                for ((tk, bk), (ds, dt)) in tv.iter_mut().zip(bv).zip(sdir.iter().zip(&tdir)) {
                    *tk += ds;
                    *bk += dt;
                }
            }
        }
    }
    tan.iter()
        .zip(&bit)
        .enumerate()
        .map(|(i, (&tv, &b))| {
            let nv = normals
                .get(i)
                .copied()
                .unwrap_or([0.0, 1.0, 0.0])
                .map(f64::from);
            let d = nv[0] * tv[0] + nv[1] * tv[1] + nv[2] * tv[2];
            let mut o = [tv[0] - nv[0] * d, tv[1] - nv[1] * d, tv[2] - nv[2] * d];
            let len = (o[0] * o[0] + o[1] * o[1] + o[2] * o[2]).sqrt();
            if !(len > 1e-12 && len.is_finite()) {
                // Any direction perpendicular to the normal.
                let axis = if nv[0].abs() < 0.9 {
                    [1.0, 0.0, 0.0]
                } else {
                    [0.0, 1.0, 0.0]
                };
                let d = nv[0] * axis[0] + nv[1] * axis[1] + nv[2] * axis[2];
                o = [
                    axis[0] - nv[0] * d,
                    axis[1] - nv[1] * d,
                    axis[2] - nv[2] * d,
                ];
            }
            let o32 = o.map(|x| x as f32);
            let unit = unit3(o32).unwrap_or([1.0, 0.0, 0.0]).map(f64::from);
            let cross = [
                nv[1] * unit[2] - nv[2] * unit[1],
                nv[2] * unit[0] - nv[0] * unit[2],
                nv[0] * unit[1] - nv[1] * unit[0],
            ];
            let w = if cross[0] * b[0] + cross[1] * b[1] + cross[2] * b[2] < 0.0 {
                -1.0
            } else {
                1.0
            };
            [unit[0] as f32, unit[1] as f32, unit[2] as f32, w]
        })
        .collect()
}
