//! Vertex attributes: one entry per vertex, finite positions and UVs, unit normals and
//! tangents, colours in 0..1, and skinning through the one skin-weight fixer
//! ([`normalize_weights`], `weights.rs`).

use super::weights::{normalize_weights, SlotOrder, WeightFixes};
use super::{finite_or, label, unit3, unit3_and_square, warn, warn_count};
use crate::scene::{Mesh, SceneWarning, Vertices};

/// Drops an attribute without one entry per vertex (`n`), with a warning.
fn same_len<T>(
    attr: &mut Option<Vec<T>>,
    label: &str,
    what: &str,
    n: usize,
    warnings: &mut Vec<SceneWarning>,
) {
    if let Some(len) = attr.as_ref().map(Vec::len).filter(|&len| len != n) {
        warn(
            warnings,
            label,
            format!("{len} {what} for {n} vertices; {what} dropped"),
        );
        *attr = None;
    }
}

/// Every vertex attribute made valid glTF. A mesh without vertices is left alone (the writer
/// does not write it).
pub(super) fn mesh_vertices(
    i: usize,
    mesh: &mut Mesh,
    joint_count: Option<usize>,
    warnings: &mut Vec<SceneWarning>,
) {
    let label = label("mesh", i, &mesh.name);
    let v = &mut mesh.vertices;
    let n = v.positions.len();
    if n == 0 {
        return;
    }
    let bad = fill_non_finite(&mut v.positions);
    if bad > 0 {
        warn(
            warnings,
            &label,
            format!("{bad} positions had non-finite coordinates, set to 0"),
        );
    }
    normals_and_tangents(&label, v, warnings);
    same_len(&mut v.uv0, &label, "uv0", n, warnings);
    same_len(&mut v.uv1, &label, "uv1", n, warnings);
    for (set, uv) in [(0u32, &mut v.uv0), (1, &mut v.uv1)] {
        let bad = uv.as_mut().map_or(0, |uv| fill_non_finite(uv));
        if bad > 0 {
            warn(
                warnings,
                &label,
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
    // The repair pass only when the read-only check finds something to repair.
    let colors = v.colors.as_mut().filter(|c| !in_unit(c));
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
        &label,
        clamped,
        "vertex colours outside 0..1 (or not finite) clamped",
    );
    skinning(&label, v, joint_count, warnings);
}

/// Sets the non-finite coordinates of each item to 0 and returns how many items had one. A
/// read-only pass first (no early exit, so it vectorises), the repair pass only when it finds
/// one: a large mesh's valid arrays are read once and not written.
fn fill_non_finite<const N: usize>(items: &mut [[f32; N]]) -> usize {
    let all = items.as_flattened().iter();
    if all.fold(true, |ok, x| ok & x.is_finite()) {
        return 0;
    }
    let mut bad = 0usize;
    for item in items {
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

fn normals_and_tangents(label: &str, v: &mut Vertices, warnings: &mut Vec<SceneWarning>) {
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
    for nv in normals.iter_mut() {
        *nv = match unit3_and_square(*nv) {
            Some((unit, square)) => {
                rescaled += usize::from(!NEARLY_UNIT_SQUARE.contains(&square));
                unit
            }
            None => {
                zero += 1;
                [0.0, 1.0, 0.0]
            }
        };
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
    for t in v.tangents.iter_mut().flatten() {
        *t = unit_tangent(*t, &mut zero);
    }
    warn_count(
        warnings,
        label,
        zero,
        "tangents were zero or not finite; set to (1, 0, 0)",
    );
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
    label: &str,
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
    // Neighbouring vertices mostly share their influences (a rigid part: all of them): the
    // last vertex's result is reused while the input is the same to the bit.
    type Influences = ([u16; 4], [f32; 4]);
    let bits = |(j, w): &Influences| (*j, w.map(f32::to_bits));
    let mut last: Option<(Influences, Influences, WeightFixes)> = None;
    for (j, w) in joints.iter_mut().zip(weights.iter_mut()) {
        let input = (*j, *w);
        let fixes = match &last {
            Some((from, to, fixes)) if bits(from) == bits(&input) => {
                (*j, *w) = *to;
                *fixes
            }
            _ => {
                let slots = j.map(u32::from).into_iter().zip(*w);
                let fixes;
                (*j, *w, fixes) = normalize_weights(slots, count, SlotOrder::Source);
                last = Some((input, (*j, *w), fixes));
                fixes
            }
        };
        stats.add(fixes);
    }
    stats.report(label, count, warnings);
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
    fn add(&mut self, fixes: WeightFixes) {
        self.bad_weights += fixes.invalid as usize;
        self.out_of_range += fixes.out_of_range as usize;
        self.merged += fixes.merged as usize;
        self.unweighted += usize::from(fixes.empty);
        self.renormalised += usize::from(fixes.renormalized);
    }

    fn report(&self, label: &str, count: usize, warnings: &mut Vec<SceneWarning>) {
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
