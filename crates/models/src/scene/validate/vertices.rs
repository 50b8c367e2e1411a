//! Vertex attributes: one entry per vertex, finite positions and UVs, unit normals and
//! tangents, colours in 0..1, and skinning through the one skin-weight fixer
//! ([`normalize_weights`], `weights.rs`).

use super::bounds::{finite_bounds, position_bounds, Bounds};
use super::weights::{normalize_weights, SlotOrder, WeightFixes};
use super::{finite_or, label, near_unit, unit3, warn, warn_count, NEAR_UNIT_SQUARE};
use crate::scene::{Array, Colors, Mesh, SceneWarning, Vertices};
use std::fmt::Display;

/// An attribute's entry count.
trait Entries {
    fn entries(&self) -> usize;
}

impl<T: bytemuck::Pod> Entries for Array<T> {
    fn entries(&self) -> usize {
        self.len()
    }
}

impl Entries for Colors {
    fn entries(&self) -> usize {
        self.len()
    }
}

/// Drops an attribute without one entry per vertex (`n`), with a warning.
fn same_len<A: Entries>(
    attr: &mut Option<A>,
    label: &dyn Display,
    what: &str,
    n: usize,
    warnings: &mut Vec<SceneWarning>,
) {
    if let Some(len) = attr.as_ref().map(A::entries).filter(|&len| len != n) {
        warn(
            warnings,
            label,
            format!("{len} {what} for {n} vertices; {what} dropped"),
        );
        *attr = None;
    }
}

/// Every vertex attribute made valid glTF, and the mesh's position bounds (found in the pass
/// that checks the positions). A mesh without vertices is left alone (the writer does not
/// write it).
pub(super) fn mesh_vertices(
    i: usize,
    mesh: &mut Mesh,
    joint_count: Option<usize>,
    warnings: &mut Vec<SceneWarning>,
) -> Bounds {
    let label = label("mesh", i, &mesh.name);
    let v = &mut mesh.vertices;
    let n = v.positions.len();
    if n == 0 {
        return position_bounds(&[]);
    }
    // The read-only pass that checks the positions finds their bounds too; a repair (rare)
    // costs a second pass for them.
    let (bad, bounds) = match finite_bounds(&v.positions) {
        Some(bounds) => (0, bounds),
        None => {
            let bad = fill_non_finite(&mut v.positions);
            (bad, position_bounds(&v.positions))
        }
    };
    if bad > 0 {
        warn(
            warnings,
            label,
            format!("{bad} positions had non-finite coordinates, set to 0"),
        );
    }
    normals_and_tangents(&label, v, warnings);
    same_len(&mut v.uv0, &label, "uv0", n, warnings);
    same_len(&mut v.uv1, &label, "uv1", n, warnings);
    for (set, uv) in [(0u32, &mut v.uv0), (1, &mut v.uv1)] {
        let bad = uv.as_mut().map_or(0, fill_non_finite);
        if bad > 0 {
            warn(
                warnings,
                label,
                format!("{bad} texture coordinates of set {set} were not finite; set to 0"),
            );
        }
    }
    same_len(&mut v.colors, &label, "colours", n, warnings);
    let mut clamped = 0usize;
    let in_unit = |c: &[[f32; 4]]| {
        let all = c.as_flattened().iter();
        all.fold(true, |ok, x| ok & (0.0..=1.0).contains(x))
    };
    // Colour bytes are in 0..1 by what they are; floats are checked, and repaired only when
    // the read-only check finds something to repair.
    let colors = match &mut v.colors {
        Some(Colors::Floats(c)) if !in_unit(c) => Some(c.to_mut()),
        _ => None,
    };
    for c in colors.into_iter().flatten() {
        let f = c.map(|x| {
            if x.is_finite() {
                x.clamp(0.0, 1.0)
            } else {
                1.0
            }
        });
        if f != *c {
            clamped += 1;
            *c = f;
        }
    }
    warn_count(
        warnings,
        label,
        clamped,
        "vertex colours outside 0..1 (or not finite) clamped",
    );
    skinning(&label, v, joint_count, warnings);
    bounds
}

/// Sets the non-finite coordinates of each item to 0 and returns how many items had one. A
/// read-only pass first (no early exit, so it vectorises), the repair pass only when it finds
/// one: a large mesh's valid arrays are read once and not written (nor copied, when they are
/// a view of the file they were read from).
fn fill_non_finite<const N: usize>(items: &mut Array<[f32; N]>) -> usize {
    let all = items.as_flattened().iter();
    if all.fold(true, |ok, x| ok & x.is_finite()) {
        return 0;
    }
    let mut bad = 0usize;
    for item in items.to_mut() {
        let fixed;
        (*item, fixed) = finite_or(*item, 0.0);
        bad += usize::from(fixed);
    }
    bad
}

/// Normals unit length (zero or non-finite ones become (0, 1, 0)); tangents unit length (zero
/// ones (1, 0, 0)) with `w` ±1, and dropped without normals.
/// Squared lengths of normals within 1e-3 of unit length: normalising those is not said.
const NEARLY_UNIT_SQUARE: std::ops::RangeInclusive<f64> =
    (1.0 - 1e-3) * (1.0 - 1e-3)..=(1.0 + 1e-3) * (1.0 + 1e-3);

fn normals_and_tangents(label: &dyn Display, v: &mut Vertices, warnings: &mut Vec<SceneWarning>) {
    let n = v.positions.len();
    same_len(&mut v.normals, label, "normals", n, warnings);
    let Some(normals) = &mut v.normals else {
        if v.tangents.take().is_some() {
            warn(
                warnings,
                label,
                "tangents without normals cannot be written in glTF; dropped".into(),
            );
        }
        return;
    };
    // Normals further than 1e-3 from unit length were meant otherwise (or are scaled), so
    // their normalisation is said; a rounding-level difference is not worth a warning. Either
    // way the file's values are kept in the format's exact extras where the import needs them.
    let (mut zero, mut rescaled) = (0usize, 0usize);
    // A read-only pass first, 64 normals at a time (no early exit inside a block, so it
    // vectorises): when every normal is unit to within `NEAR_UNIT_SQUARE` (what files and
    // converters give), `unit_normal` would keep each one and count nothing, so the square
    // roots, the divisions and the write-back are skipped.
    let all_unit = normals
        .chunks(64)
        .all(|block| block.iter().fold(true, |ok, v| ok & near_unit(*v)));
    if !all_unit {
        for nv in normals.to_mut() {
            let (unit, was_zero, was_rescaled) = unit_normal(*nv);
            *nv = unit;
            zero += usize::from(was_zero);
            rescaled += usize::from(was_rescaled);
        }
    }
    warn_count(
        warnings,
        label,
        zero,
        "normals were zero or not finite; set to (0, 1, 0)",
    );
    warn_count(
        warnings,
        label,
        rescaled,
        "normals were not unit length; normalised",
    );
    same_len(&mut v.tangents, label, "tangents", n, warnings);
    let mut zero = 0usize;
    // Read first: written (and a view copied) only when some tangent changes.
    let same = |t: &[f32; 4]| unit_tangent(*t, &mut 0).map(f32::to_bits) == t.map(f32::to_bits);
    if let Some(tangents) = v.tangents.as_mut().filter(|t| !t.iter().all(same)) {
        for t in tangents.to_mut() {
            *t = unit_tangent(*t, &mut zero);
        }
    }
    warn_count(
        warnings,
        label,
        zero,
        "tangents were zero or not finite; set to (1, 0, 0)",
    );
}

/// A normal of unit length ((0, 1, 0) when it is zero or not finite), whether it was zero or
/// not finite, and whether it was further than 1e-3 from unit length (said in a warning).
/// The arithmetic of [`unit3_and_square`](super::unit3_and_square), but every value is
/// computed and the result selected without a branch, so that the loop over a mesh's normals
/// vectorises (square roots and divisions two at a time); the bits are the same
/// (`unit_normal_is_unit3`).
#[inline(always)]
fn unit_normal(v: [f32; 3]) -> ([f32; 3], bool, bool) {
    let [x, y, z] = v.map(f64::from);
    let square = x * x + y * y + z * z;
    let len = square.sqrt();
    let divided = [(x / len) as f32, (y / len) as f32, (z / len) as f32];
    // Non-short-circuiting `&`: no branch for the vectoriser to keep.
    let usable = len.is_finite() & (len > 1e-12);
    let unit = if (square - 1.0).abs() <= NEAR_UNIT_SQUARE {
        v
    } else if usable {
        divided
    } else {
        [0.0, 1.0, 0.0]
    };
    let near = (square >= *NEARLY_UNIT_SQUARE.start()) & (square <= *NEARLY_UNIT_SQUARE.end());
    (unit, !usable, usable & !near)
}

/// A tangent of unit length (zero or non-finite: (1, 0, 0), counted in `zero`) with `w` ±1.
pub(crate) fn unit_tangent(t: [f32; 4], zero: &mut usize) -> [f32; 4] {
    let [x, y, z] = unit3([t[0], t[1], t[2]]).unwrap_or_else(|| {
        *zero += 1;
        [1.0, 0.0, 0.0]
    });
    [x, y, z, if t[3] < 0.0 { -1.0 } else { 1.0 }]
}

/// Joints and weights: both or neither, one per vertex; with a skin of `joint_count` joints,
/// every vertex fixed by [`normalize_weights`].
fn skinning(
    label: &dyn Display,
    v: &mut Vertices,
    joint_count: Option<usize>,
    warnings: &mut Vec<SceneWarning>,
) {
    let n = v.positions.len();
    same_len(&mut v.joints, label, "joints", n, warnings);
    same_len(&mut v.weights, label, "weights", n, warnings);
    if v.joints.is_some() != v.weights.is_some() {
        warn(
            warnings,
            label,
            "joints without weights (or weights without joints); skinning dropped".into(),
        );
        v.joints = None;
        v.weights = None;
    }
    let (Some(joints), Some(weights), Some(count)) = (&mut v.joints, &mut v.weights, joint_count)
    else {
        return;
    };
    let mut stats = SkinStats::default();
    // Neighbouring vertices mostly share their influences (a rigid part: all of them): each
    // run of vertices whose input is the same to the bit is normalised once, counted once,
    // and written only when the normaliser changed it.
    let bits = |j: &[u16; 4], w: &[f32; 4]| (*j, w.map(f32::to_bits));
    let mut start = 0usize;
    while let (Some(&j0), Some(&w0)) = (joints.get(start), weights.get(start)) {
        let key = bits(&j0, &w0);
        let rest = joints.get(start + 1..).unwrap_or_default();
        let end = start + 1 + run_len(rest, weights.get(start + 1..).unwrap_or_default(), key);
        let slots = j0.map(u32::from).into_iter().zip(w0);
        let (j, w, fixes) = normalize_weights(slots, count, SlotOrder::Source);
        if bits(&j, &w) != key {
            // Written (and a view copied, once) only here.
            joints
                .to_mut()
                .get_mut(start..end)
                .into_iter()
                .for_each(|s| s.fill(j));
            weights
                .to_mut()
                .get_mut(start..end)
                .into_iter()
                .for_each(|s| s.fill(w));
        }
        stats.add(fixes, end - start);
        start = end;
    }
    stats.report(label, count, warnings);
}

/// How many leading vertices of `joints` and `weights` have the influences `key` (joints,
/// weight bits). Whole blocks are compared without an early exit (the compares vectorise: a
/// rigid part's run is as long as the part), the block that ends the run item by item.
fn run_len(joints: &[[u16; 4]], weights: &[[f32; 4]], key: ([u16; 4], [u32; 4])) -> usize {
    const BLOCK: usize = 32;
    let same = |j: &[u16; 4], w: &[f32; 4]| (*j, w.map(f32::to_bits)) == key;
    // Nonzero when a vertex's bits differ from the key's (whole-integer XORs: no branch).
    let (key_j, key_w) = (
        bytemuck::cast::<_, u64>(key.0),
        bytemuck::cast::<_, u128>(key.1),
    );
    let differs = |j: &[u16; 4], w: &[f32; 4]| {
        u128::from(bytemuck::cast::<_, u64>(*j) ^ key_j) | (bytemuck::cast::<_, u128>(*w) ^ key_w)
    };
    let mut len = 0;
    for (js, ws) in joints.chunks_exact(BLOCK).zip(weights.chunks_exact(BLOCK)) {
        if js.iter().zip(ws).fold(0, |any, (j, w)| any | differs(j, w)) != 0 {
            break;
        }
        len += BLOCK;
    }
    let rest = joints.get(len..).unwrap_or_default().iter();
    let rest = rest.zip(weights.get(len..).unwrap_or_default());
    len + rest.take_while(|(j, w)| same(j, w)).count()
}

/// Counts of the repairs made to one mesh's skinning data.
#[derive(Default)]
struct SkinStats {
    bad_weights: usize,
    out_of_range: usize,
    merged: usize,
    unweighted: usize,
    renormalised: usize,
}

impl SkinStats {
    /// Adds the repairs of `vertices` vertices that each needed `fixes`.
    fn add(&mut self, fixes: WeightFixes, vertices: usize) {
        self.bad_weights += fixes.invalid as usize * vertices;
        self.out_of_range += fixes.out_of_range as usize * vertices;
        self.merged += fixes.merged as usize * vertices;
        self.unweighted += usize::from(fixes.empty) * vertices;
        self.renormalised += usize::from(fixes.renormalized) * vertices;
    }

    fn report(&self, label: &dyn Display, count: usize, warnings: &mut Vec<SceneWarning>) {
        let mut say = |n: usize, what: String| warn_count(warnings, label, n, &what);
        say(
            self.bad_weights,
            "negative or non-finite weights set to 0".into(),
        );
        say(
            self.out_of_range,
            format!("weights on joints beyond the skin's {count} joints dropped"),
        );
        say(self.merged, "repeated joints of a vertex merged".into());
        say(
            self.unweighted,
            "vertices without any weight bound fully to joint 0".into(),
        );
        say(
            self.renormalised,
            "vertices' weights did not sum to 1 and were renormalised".into(),
        );
    }
}

#[cfg(test)]
mod tests {
    use super::super::unit3_and_square;
    use super::*;

    /// `unit_normal` gives `unit3_and_square`'s bits and counts, on unit, near-unit, scaled,
    /// zero, tiny, subnormal, huge, infinite and NaN normals.
    #[test]
    fn unit_normal_is_unit3() {
        let mut seed = 0x2545_F491_4F6C_DD1Du64;
        let mut next = || {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            f32::from_bits((seed >> 32) as u32)
        };
        let mut cases: Vec<[f32; 3]> = vec![
            [0.0, 1.0, 0.0],
            [-0.0, 0.0, -0.0],
            [0.6, 0.8, 0.0],
            [0.577_35, 0.577_35, 0.577_35],
            [2.0, 0.0, 0.0],
            [1e-13, 0.0, 0.0],
            [f32::from_bits(1), 0.0, 0.0],
            [f32::MAX, f32::MAX, 0.0],
            [f32::INFINITY, 0.0, 0.0],
            [f32::NAN, 1.0, 0.0],
            [1.0005, 0.0, 0.0],
            [1.002, 0.0, 0.0],
            // Either side of `NEAR_UNIT_SQUARE` (a length 1 ± 2⁻¹⁷ has a square 1 ± 2⁻¹⁶).
            [1.0 + 7e-6, 0.0, 0.0],
            [1.0 + 8e-6, 0.0, 0.0],
            [0.0, 0.0, -1.0 + 7e-6],
            [0.0, 0.0, -1.0 + 8e-6],
        ];
        cases.extend((0..20_000).map(|_| [next(), next(), next()]));
        // Unit vectors a few ulps off in each component.
        let near: Vec<[f32; 3]> = (0..20_000)
            .map(|_| {
                let v = [next(), next(), next()].map(|c| if c.is_finite() { c % 8.0 } else { 0.5 });
                let u = unit3(v).unwrap_or([0.0, 1.0, 0.0]);
                u.map(|c| f32::from_bits(c.to_bits() ^ (next().to_bits() & 15)))
            })
            .collect();
        cases.extend(near);
        for v in cases {
            let expected = match unit3_and_square(v) {
                Some((unit, square)) => (unit, false, !NEARLY_UNIT_SQUARE.contains(&square)),
                None => ([0.0, 1.0, 0.0], true, false),
            };
            let got = unit_normal(v);
            assert_eq!(
                (got.0.map(f32::to_bits), got.1, got.2),
                (expected.0.map(f32::to_bits), expected.1, expected.2),
                "{v:?}"
            );
        }
    }
}
