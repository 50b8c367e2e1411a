//! Material colour factors.

use super::{label, warn};
use crate::scene::{Material, SceneWarning};
use serde_json::Value;

/// Colour factors clamped to 0..1 (non-finite: base colour 1, emissive 0); the source values
/// go into the material's extras.
pub(super) fn material_factors(i: usize, m: &mut Material, warnings: &mut Vec<SceneWarning>) {
    let clamp = |fill: f32| {
        move |v: f32| {
            if v.is_finite() {
                v.clamp(0.0, 1.0)
            } else {
                fill
            }
        }
    };
    let base = m.base_color.map(clamp(1.0));
    let emissive = m.emissive.map(clamp(0.0));
    if base == m.base_color && emissive == m.emissive {
        return;
    }
    warn(
        warnings,
        &label("material", i, &m.name),
        "colour factors outside 0..1 clamped (the source values are in extras)".into(),
    );
    let (source_base, source_emissive) = (floats(&m.base_color), floats(&m.emissive));
    m.extras
        .entry("sourceBaseColor")
        .or_insert_with(|| source_base);
    m.extras
        .entry("sourceEmissive")
        .or_insert_with(|| source_emissive);
    m.base_color = base;
    m.emissive = emissive;
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
