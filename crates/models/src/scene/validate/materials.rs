//! Material colour factors.

use super::{label, warn_count};
use crate::scene::{Material, SceneWarning};
use serde_json::Value;

/// Colour factors clamped to 0..1 (non-finite: base colour 1, emissive 0), with one warning
/// naming the material and counting the components; the source values go into the material's
/// extras (`sourceBaseColor`, `sourceEmissive`; JSON has no non-finite number, so those are
/// `null`). The converters pass the file's factors through as written: this is their one
/// repair, and a format's exact values for the way back are its converter's extras.
pub(super) fn material_factors(i: usize, m: &mut Material, warnings: &mut Vec<SceneWarning>) {
    // NaN is outside too; -0.0 is inside (and kept as it is by the clamp).
    let outside = |v: &f32| !(0.0..=1.0).contains(v);
    let n = m.base_color.iter().filter(|v| outside(v)).count()
        + m.emissive.iter().filter(|v| outside(v)).count();
    if n == 0 {
        return;
    }
    warn_count(
        warnings,
        label("material", i, &m.name),
        n,
        "colour factors outside 0..1 or not finite clamped (a non-finite base colour \
         component becomes 1, an emissive one 0; the source values are in extras)",
    );
    let (source_base, source_emissive) = (floats(&m.base_color), floats(&m.emissive));
    m.extras
        .entry("sourceBaseColor")
        .or_insert_with(|| source_base);
    m.extras
        .entry("sourceEmissive")
        .or_insert_with(|| source_emissive);
    m.base_color = m.base_color.map(|v| unit_factor(v, 1.0));
    m.emissive = m.emissive.map(|v| unit_factor(v, 0.0));
}

/// One colour factor as validation repairs it: clamped to 0..1, `fill` when not finite. (The
/// way back's check that a scene still holds what the export made of a file's colours,
/// `to_bmf::kept_colours`, applies the same rule.)
pub(crate) fn unit_factor(v: f32, fill: f32) -> f32 {
    if v.is_finite() {
        v.clamp(0.0, 1.0)
    } else {
        fill
    }
}

/// `v` as a JSON array (non-finite values as `null`, which JSON cannot otherwise say).
pub(crate) fn floats(v: &[f32]) -> Value {
    Value::Array(
        v.iter()
            .map(|&x| {
                if x.is_finite() {
                    Value::from(f64::from(x))
                } else {
                    Value::Null
                }
            })
            .collect(),
    )
}
