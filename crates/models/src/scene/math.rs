//! Small, dependency-free math for the converters: handedness changes, matrix products,
//! inversion, TRS decomposition and Euler angles. Matrices are `[f32; 16]` column-major
//! (glTF's layout) unless a name says otherwise.

/// The 4×4 identity.
pub const IDENTITY: [f32; 16] = [
    1.0, 0.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 0.0, 1.0,
];

/// Mirrors a point or direction across the XY plane: left-handed Direct3D ↔ right-handed glTF.
pub fn mirror_z(v: [f32; 3]) -> [f32; 3] {
    [v[0], v[1], -v[2]]
}

/// Conjugates a matrix by the z mirror, `S·M·S` with `S = diag(1, 1, −1, 1)`: the same
/// transform expressed in the mirrored coordinate system. Works on either storage order.
pub fn mirror_z_matrix(m: [f32; 16]) -> [f32; 16] {
    let mut out = m;
    for i in [2, 6, 8, 9, 11, 14] {
        if let Some(v) = out.get_mut(i) {
            *v = -*v;
        }
    }
    out
}

/// Mirrors a rotation quaternion `(x, y, z, w)` across the XY plane.
pub fn mirror_z_quat(q: [f32; 4]) -> [f32; 4] {
    [-q[0], -q[1], q[2], q[3]]
}

/// Transposes a 4×4 matrix (row-major ↔ column-major).
pub fn transpose(m: [f32; 16]) -> [f32; 16] {
    [
        m[0], m[4], m[8], m[12], m[1], m[5], m[9], m[13], m[2], m[6], m[10], m[14], m[3], m[7],
        m[11], m[15],
    ]
}

/// `a · b` for column-major matrices (apply `b` first, then `a`).
pub fn mul(a: [f32; 16], b: [f32; 16]) -> [f32; 16] {
    let mut out = [0.0f32; 16];
    // Element (row, col) is the dot product of row `row` of `a` (every 4th element from `row`)
    // and column `col` of `b`, summed in the order k = 0..4.
    for (out_col, b_col) in out.chunks_exact_mut(4).zip(b.chunks_exact(4)) {
        for (row, o) in out_col.iter_mut().enumerate() {
            *o = a
                .iter()
                .skip(row)
                .step_by(4)
                .zip(b_col)
                .map(|(x, y)| x * y)
                .sum();
        }
    }
    out
}

/// Inverse of a column-major matrix, or `None` when it is singular (or not finite).
pub fn invert(m: [f32; 16]) -> Option<[f32; 16]> {
    let m: [f64; 16] = m.map(f64::from);
    let mut inv = [0.0f64; 16];
    inv[0] = m[5] * m[10] * m[15] - m[5] * m[11] * m[14] - m[9] * m[6] * m[15]
        + m[9] * m[7] * m[14]
        + m[13] * m[6] * m[11]
        - m[13] * m[7] * m[10];
    inv[4] = -m[4] * m[10] * m[15] + m[4] * m[11] * m[14] + m[8] * m[6] * m[15]
        - m[8] * m[7] * m[14]
        - m[12] * m[6] * m[11]
        + m[12] * m[7] * m[10];
    inv[8] = m[4] * m[9] * m[15] - m[4] * m[11] * m[13] - m[8] * m[5] * m[15]
        + m[8] * m[7] * m[13]
        + m[12] * m[5] * m[11]
        - m[12] * m[7] * m[9];
    inv[12] = -m[4] * m[9] * m[14] + m[4] * m[10] * m[13] + m[8] * m[5] * m[14]
        - m[8] * m[6] * m[13]
        - m[12] * m[5] * m[10]
        + m[12] * m[6] * m[9];
    inv[1] = -m[1] * m[10] * m[15] + m[1] * m[11] * m[14] + m[9] * m[2] * m[15]
        - m[9] * m[3] * m[14]
        - m[13] * m[2] * m[11]
        + m[13] * m[3] * m[10];
    inv[5] = m[0] * m[10] * m[15] - m[0] * m[11] * m[14] - m[8] * m[2] * m[15]
        + m[8] * m[3] * m[14]
        + m[12] * m[2] * m[11]
        - m[12] * m[3] * m[10];
    inv[9] = -m[0] * m[9] * m[15] + m[0] * m[11] * m[13] + m[8] * m[1] * m[15]
        - m[8] * m[3] * m[13]
        - m[12] * m[1] * m[11]
        + m[12] * m[3] * m[9];
    inv[13] = m[0] * m[9] * m[14] - m[0] * m[10] * m[13] - m[8] * m[1] * m[14]
        + m[8] * m[2] * m[13]
        + m[12] * m[1] * m[10]
        - m[12] * m[2] * m[9];
    inv[2] = m[1] * m[6] * m[15] - m[1] * m[7] * m[14] - m[5] * m[2] * m[15]
        + m[5] * m[3] * m[14]
        + m[13] * m[2] * m[7]
        - m[13] * m[3] * m[6];
    inv[6] = -m[0] * m[6] * m[15] + m[0] * m[7] * m[14] + m[4] * m[2] * m[15]
        - m[4] * m[3] * m[14]
        - m[12] * m[2] * m[7]
        + m[12] * m[3] * m[6];
    inv[10] = m[0] * m[5] * m[15] - m[0] * m[7] * m[13] - m[4] * m[1] * m[15]
        + m[4] * m[3] * m[13]
        + m[12] * m[1] * m[7]
        - m[12] * m[3] * m[5];
    inv[14] = -m[0] * m[5] * m[14] + m[0] * m[6] * m[13] + m[4] * m[1] * m[14]
        - m[4] * m[2] * m[13]
        - m[12] * m[1] * m[6]
        + m[12] * m[2] * m[5];
    inv[3] = -m[1] * m[6] * m[11] + m[1] * m[7] * m[10] + m[5] * m[2] * m[11]
        - m[5] * m[3] * m[10]
        - m[9] * m[2] * m[7]
        + m[9] * m[3] * m[6];
    inv[7] = m[0] * m[6] * m[11] - m[0] * m[7] * m[10] - m[4] * m[2] * m[11]
        + m[4] * m[3] * m[10]
        + m[8] * m[2] * m[7]
        - m[8] * m[3] * m[6];
    inv[11] = -m[0] * m[5] * m[11] + m[0] * m[7] * m[9] + m[4] * m[1] * m[11]
        - m[4] * m[3] * m[9]
        - m[8] * m[1] * m[7]
        + m[8] * m[3] * m[5];
    inv[15] = m[0] * m[5] * m[10] - m[0] * m[6] * m[9] - m[4] * m[1] * m[10]
        + m[4] * m[2] * m[9]
        + m[8] * m[1] * m[6]
        - m[8] * m[2] * m[5];
    let det = m[0] * inv[0] + m[1] * inv[4] + m[2] * inv[8] + m[3] * inv[12];
    if det == 0.0 || !det.is_finite() {
        return None;
    }
    Some(inv.map(|v| (v / det) as f32))
}

/// Translation, rotation `(x, y, z, w)` and scale of a column-major affine matrix, and the
/// largest absolute difference between `m` and the matrix rebuilt from them (0 for an exact
/// decomposition; large for shear, projection or non-finite input).
pub fn decompose(m: [f32; 16]) -> ([f32; 3], [f32; 4], [f32; 3], f32) {
    let t = [m[12], m[13], m[14]];
    let len = |v: [f32; 3]| (v[0] * v[0] + v[1] * v[1] + v[2] * v[2]).sqrt();
    let (c0, c1, c2) = ([m[0], m[1], m[2]], [m[4], m[5], m[6]], [m[8], m[9], m[10]]);
    let mut s = [len(c0), len(c1), len(c2)];
    // A reflection (negative determinant) is folded into a negative x scale.
    let det = c0[0] * (c1[1] * c2[2] - c1[2] * c2[1]) - c1[0] * (c0[1] * c2[2] - c0[2] * c2[1])
        + c2[0] * (c0[1] * c1[2] - c0[2] * c1[1]);
    if det < 0.0 {
        s[0] = -s[0];
    }
    let div = |v: [f32; 3], k: f32| if k == 0.0 { [0.0; 3] } else { v.map(|x| x / k) };
    let r = [div(c0, s[0]), div(c1, s[1]), div(c2, s[2])];
    let q = quat_from_rotation_columns(r);
    let rebuilt = compose(t, q, s);
    let error = m
        .iter()
        .zip(rebuilt.iter())
        .map(|(a, b)| {
            if a.is_finite() && b.is_finite() {
                (a - b).abs()
            } else {
                f32::INFINITY
            }
        })
        .fold(0.0, f32::max);
    (t, q, s, error)
}

/// A unit quaternion `(x, y, z, w)` from the three columns of a rotation matrix.
pub fn quat_from_rotation_columns(r: [[f32; 3]; 3]) -> [f32; 4] {
    // r[c][row]: element (row, c).
    let (m00, m11, m22) = (r[0][0], r[1][1], r[2][2]);
    let (m01, m02, m10, m12, m20, m21) = (r[1][0], r[2][0], r[0][1], r[2][1], r[0][2], r[1][2]);
    let trace = m00 + m11 + m22;
    let q = if trace > 0.0 {
        let s = (trace + 1.0).sqrt() * 2.0;
        [(m21 - m12) / s, (m02 - m20) / s, (m10 - m01) / s, 0.25 * s]
    } else if m00 > m11 && m00 > m22 {
        let s = (1.0 + m00 - m11 - m22).sqrt() * 2.0;
        [0.25 * s, (m01 + m10) / s, (m02 + m20) / s, (m21 - m12) / s]
    } else if m11 > m22 {
        let s = (1.0 + m11 - m00 - m22).sqrt() * 2.0;
        [(m01 + m10) / s, 0.25 * s, (m12 + m21) / s, (m02 - m20) / s]
    } else {
        let s = (1.0 + m22 - m00 - m11).sqrt() * 2.0;
        [(m02 + m20) / s, (m12 + m21) / s, 0.25 * s, (m10 - m01) / s]
    };
    normalize_quat(q)
}

/// Normalises a quaternion; the identity for a zero or non-finite input.
///
/// In `f32` while the sum of squares is a normal number well clear of underflow and overflow
/// (every quaternion a converter or a tool makes: the result to an ulp or two); in `f64`
/// otherwise, where `f32` squares lose their precision (components around 10⁻²⁰ came out of
/// length 0.94, which the glTF validator rejects) or overflow (components around 10²⁰, which
/// became the identity).
pub fn normalize_quat(q: [f32; 4]) -> [f32; 4] {
    normalize_quat_and_square(q).0
}

/// [`normalize_quat`], and the `f32` sum of the squares of `q` it found on the way (what says
/// how far from unit length `q` was, without a second pass).
#[inline]
pub(crate) fn normalize_quat_and_square(q: [f32; 4]) -> ([f32; 4], f32) {
    let square = q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3];
    if (1e-30..=f32::MAX).contains(&square) {
        let n = square.sqrt();
        return (q.map(|x| x / n), square);
    }
    let wide = q.map(f64::from);
    let n = wide.iter().map(|x| x * x).sum::<f64>().sqrt();
    let unit = if n > 0.0 && n.is_finite() {
        wide.map(|x| (x / n) as f32)
    } else {
        [0.0, 0.0, 0.0, 1.0]
    };
    (unit, square)
}

/// The column-major matrix `T · R · S`.
pub fn compose(t: [f32; 3], q: [f32; 4], s: [f32; 3]) -> [f32; 16] {
    let [x, y, z, w] = q;
    let r = [
        [
            1.0 - 2.0 * (y * y + z * z),
            2.0 * (x * y + z * w),
            2.0 * (x * z - y * w),
        ],
        [
            2.0 * (x * y - z * w),
            1.0 - 2.0 * (x * x + z * z),
            2.0 * (y * z + x * w),
        ],
        [
            2.0 * (x * z + y * w),
            2.0 * (y * z - x * w),
            1.0 - 2.0 * (x * x + y * y),
        ],
    ];
    [
        r[0][0] * s[0],
        r[0][1] * s[0],
        r[0][2] * s[0],
        0.0,
        r[1][0] * s[1],
        r[1][1] * s[1],
        r[1][2] * s[1],
        0.0,
        r[2][0] * s[2],
        r[2][1] * s[2],
        r[2][2] * s[2],
        0.0,
        t[0],
        t[1],
        t[2],
        1.0,
    ]
}

/// Hamilton product `a · b` (apply `b` first).
pub fn quat_mul(a: [f32; 4], b: [f32; 4]) -> [f32; 4] {
    let [ax, ay, az, aw] = a;
    let [bx, by, bz, bw] = b;
    [
        aw * bx + ax * bw + ay * bz - az * by,
        aw * by - ax * bz + ay * bw + az * bx,
        aw * bz + ax * by - ay * bx + az * bw,
        aw * bw - ax * bx - ay * by - az * bz,
    ]
}

/// The quaternion of a rotation of `angle` radians about a principal axis (0 = x, 1 = y, 2 = z).
pub fn axis_quat(axis: usize, angle: f32) -> [f32; 4] {
    let (s, c) = (angle * 0.5).sin_cos();
    let mut q = [0.0, 0.0, 0.0, c];
    if let Some(v) = q.get_mut(axis) {
        *v = s;
    }
    q
}

/// Euler angles (radians, about x, y, z) to a quaternion, applying the axes in `order` (e.g.
/// `[0, 1, 2]` = first x, then y, then z, i.e. `q = qz · qy · qx`).
pub fn euler_to_quat(angles: [f32; 3], order: [usize; 3]) -> [f32; 4] {
    let mut q = [0.0, 0.0, 0.0, 1.0];
    for axis in order {
        q = quat_mul(axis_quat(axis, angles.get(axis).copied().unwrap_or(0.0)), q);
    }
    normalize_quat(q)
}

// ---- Helpers added for the text-format converters (from_elem, from_skm). ----

/// The column-major matrix of a translation.
pub fn translation_matrix(t: [f32; 3]) -> [f32; 16] {
    let mut m = IDENTITY;
    m[12] = t[0];
    m[13] = t[1];
    m[14] = t[2];
    m
}

/// Applies a column-major affine matrix to a point.
pub fn transform_point(m: [f32; 16], p: [f32; 3]) -> [f32; 3] {
    let row = |a: f32, b: f32, c: f32, d: f32| a * p[0] + b * p[1] + c * p[2] + d;
    [
        row(m[0], m[4], m[8], m[12]),
        row(m[1], m[5], m[9], m[13]),
        row(m[2], m[6], m[10], m[14]),
    ]
}

/// `q` or `−q`, whichever is nearer to `prev` (the same rotation): keeps a rotation track
/// continuous so that a key-to-key slerp takes the short way.
pub fn align_quat(prev: [f32; 4], q: [f32; 4]) -> [f32; 4] {
    let dot: f32 = prev.iter().zip(q.iter()).map(|(a, b)| a * b).sum();
    if dot < 0.0 {
        q.map(|x| -x)
    } else {
        q
    }
}

/// A source texture path as a relative URI path: `\` becomes `/`. An absolute path (a drive
/// letter, a leading slash, or a UNC path) is reduced to its file name; the second value is
/// then `true` so that the caller can warn.
pub fn relative_texture_path(raw: &str) -> (String, bool) {
    let path = raw.trim().replace('\\', "/");
    let bytes = path.as_bytes();
    let drive = matches!(bytes, [d, b':', ..] if d.is_ascii_alphabetic());
    if drive || path.starts_with('/') {
        let base = path.rsplit('/').next().unwrap_or_default();
        let base = if drive && !base.contains('/') && base.len() >= 2 && base == path {
            // `C:name.png`: a drive-relative path without a slash.
            base.get(2..).unwrap_or_default()
        } else {
            base
        };
        (base.to_owned(), true)
    } else {
        (path, false)
    }
}

// ---- End of the text-format converter helpers. ----

#[cfg(test)]
mod tests {
    use super::*;

    fn close(a: &[f32], b: &[f32]) -> bool {
        a.iter().zip(b).all(|(x, y)| (x - y).abs() < 1e-5)
    }

    /// Unit length however small or large the components (the glTF validator allows 5·10⁻⁶);
    /// the usual ones normalised in `f32` as before, bit for bit.
    #[test]
    fn quaternions_of_any_magnitude_normalise_to_unit_length() {
        let length = |q: [f32; 4]| q.iter().map(|&x| f64::from(x).powi(2)).sum::<f64>().sqrt();
        for scale in [
            1e-44f32, 1e-38, 1e-25, 1e-20, 1e-16, 1e-3, 1.0, 1e3, 1e19, 1e20, 1e38,
        ] {
            for q in [
                [0.3, -0.4, 0.5, 0.7],
                [1.0, 0.0, 0.0, 0.0],
                [1e-3, 0.0, 0.0, 1.0],
            ] {
                let q = q.map(|x: f32| x * scale);
                let unit = normalize_quat(q);
                assert!((length(unit) - 1.0).abs() < 1e-6, "{q:?} → {unit:?}");
            }
        }
        let q = [0.3f32, -0.4, 0.5, 0.7];
        let n = (q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3]).sqrt();
        assert_eq!(normalize_quat(q), q.map(|x| x / n));
        assert_eq!(normalize_quat([0.0; 4]), [0.0, 0.0, 0.0, 1.0]);
        assert_eq!(
            normalize_quat([f32::NAN, 0.0, 0.0, 1.0]),
            [0.0, 0.0, 0.0, 1.0]
        );
        assert_eq!(
            normalize_quat([f32::INFINITY, 0.0, 0.0, 1.0]),
            [0.0, 0.0, 0.0, 1.0]
        );
    }

    #[test]
    fn compose_and_decompose_are_inverse() {
        let q = euler_to_quat([0.3, -1.1, 2.0], [0, 1, 2]);
        let m = compose([1.0, 2.0, 3.0], q, [2.0, 0.5, 1.5]);
        let (t, q2, s, err) = decompose(m);
        assert!(err < 1e-5, "{err}");
        assert!(close(&t, &[1.0, 2.0, 3.0]) && close(&s, &[2.0, 0.5, 1.5]));
        assert!(close(&q, &q2) || close(&q, &q2.map(|x| -x)));
        let inv = invert(m).unwrap();
        assert!(close(&mul(m, inv), &IDENTITY));
    }

    #[test]
    fn shear_is_reported() {
        let mut m = IDENTITY;
        m[4] = 0.5; // x += 0.5 y
        assert!(decompose(m).3 > 0.1);
    }

    #[test]
    fn mirroring_a_matrix_matches_mirroring_points() {
        let m = compose(
            [1.0, 2.0, 3.0],
            euler_to_quat([0.4, 0.2, -0.7], [2, 0, 1]),
            [1.0; 3],
        );
        let p = [0.3f32, -0.8, 1.7];
        let apply = |m: [f32; 16], p: [f32; 3]| -> [f32; 3] {
            std::array::from_fn(|r| m[r] * p[0] + m[4 + r] * p[1] + m[8 + r] * p[2] + m[12 + r])
        };
        assert!(close(
            &mirror_z(apply(m, p)),
            &apply(mirror_z_matrix(m), mirror_z(p))
        ));
        let (_, q, _, _) = decompose(m);
        let (_, qm, _, _) = decompose(mirror_z_matrix(m));
        let qq = mirror_z_quat(q);
        assert!(close(&qm, &qq) || close(&qm, &qq.map(|x| -x)));
    }
}

// ---- Helpers added for the binary-format converters (bmf, smf, mdl). ----

/// A unit-length copy of `n`, or `None` when `n` is zero-length or not finite.
pub fn normalize3(n: [f32; 3]) -> Option<[f32; 3]> {
    let len = (n[0] * n[0] + n[1] * n[1] + n[2] * n[2]).sqrt();
    (len > 1e-12 && len.is_finite()).then(|| n.map(|x| x / len))
}

/// Euler angles (radians, indexed by axis x, y, z) of a rotation quaternion, for the axis
/// `order` in the sense of [`euler_to_quat`] (`order[0]` applied first):
/// `euler_to_quat(quat_to_euler(q, o), o)` gives back `±q`. Any permutation of `[0, 1, 2]`;
/// other orders are treated as `[0, 1, 2]`.
pub fn quat_to_euler(q: [f32; 4], order: [usize; 3]) -> [f32; 3] {
    let [a, b, c] = match order {
        [0, 1, 2] | [0, 2, 1] | [1, 0, 2] | [1, 2, 0] | [2, 0, 1] | [2, 1, 0] => order,
        _ => [0, 1, 2],
    };
    // Even (cyclic) permutations of (x, y, z) have sign +1.
    let s = if (b + 3 - a) % 3 == 1 { 1.0f32 } else { -1.0 };
    let m = compose([0.0; 3], normalize_quat(q), [1.0; 3]);
    // Element (row, col) of the column-major matrix.
    let r = |row: usize, col: usize| m.get(col * 4 + row).copied().unwrap_or(0.0);
    let sin_b = (-s * r(c, a)).clamp(-1.0, 1.0);
    let beta = sin_b.asin();
    let (alpha, gamma) = if sin_b.abs() < 0.999_999 {
        ((s * r(c, b)).atan2(r(c, c)), (s * r(b, a)).atan2(r(a, a)))
    } else {
        // Gimbal lock: put the whole remaining rotation into the first axis.
        ((-s * r(b, c)).atan2(r(b, b)), 0.0)
    };
    let mut out = [0.0f32; 3];
    for (axis, v) in [(a, alpha), (b, beta), (c, gamma)] {
        if let Some(o) = out.get_mut(axis) {
            *o = v;
        }
    }
    out
}

/// Makes consecutive quaternions of a flattened `(x, y, z, w)` list lie in the same hemisphere
/// (negating a key when its dot product with the previous one is negative), so that linear
/// interpolation takes the short way as the source did between close samples.
pub fn make_quats_continuous(values: &mut [f32]) {
    let mut prev: Option<[f32; 4]> = None;
    for chunk in values.chunks_exact_mut(4) {
        let mut q = [0.0f32; 4];
        q.copy_from_slice(chunk);
        if let Some(p) = prev {
            let dot: f32 = p.iter().zip(q.iter()).map(|(a, b)| a * b).sum();
            if dot < 0.0 {
                q = q.map(|x| -x);
                chunk.copy_from_slice(&q);
            }
        }
        prev = Some(q);
    }
}

#[cfg(test)]
mod binary_converter_helper_tests {
    use super::*;

    #[test]
    fn euler_round_trips_in_every_order() {
        let orders = [
            [0, 1, 2],
            [0, 2, 1],
            [1, 0, 2],
            [1, 2, 0],
            [2, 0, 1],
            [2, 1, 0],
        ];
        for order in orders {
            let angles = [0.3f32, -0.7, 1.1];
            let q = euler_to_quat(angles, order);
            let back = quat_to_euler(q, order);
            let q2 = euler_to_quat(back, order);
            let dot: f32 = q.iter().zip(q2.iter()).map(|(a, b)| a * b).sum();
            assert!(dot.abs() > 1.0 - 1e-5, "{order:?}: {angles:?} -> {back:?}");
            for (a, b) in angles.iter().zip(back.iter()) {
                assert!((a - b).abs() < 1e-4, "{order:?}: {angles:?} -> {back:?}");
            }
        }
    }
}
