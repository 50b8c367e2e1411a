//! The exact `f64` values the ELEM export keeps in `elem_*` extras, so that an unedited scene
//! comes back to the very numbers of the file, and the rule that decides when a kept value is
//! still the scene's.
//!
//! The scene holds `f32`. A file value `x` comes back as [`shortest`]`(x as f32)`: the shortest
//! decimal that reads back to that `f32`, read as `f64`; for every value written with at most
//! six significant digits that is `x` again, so the export keeps only the values for which it
//! is not ([`survives`]). A kept value is used back while it still [`agrees`] with what the
//! scene says (an edited value is the scene's).

use serde_json::{json, Map, Value};

/// `v` as the `f64` of its shortest decimal spelling.
pub(crate) fn shortest(v: f32) -> f64 {
    if !v.is_finite() {
        return f64::from(v);
    }
    // Display never uses exponents and always reads back; the fallback cannot happen.
    v.to_string().parse().unwrap_or(f64::from(v))
}

/// True when `x` comes back from its `f32` as itself (bit for bit).
pub(crate) fn survives(x: f64) -> bool {
    // Non-finite values are repaired to 0 by the export: they never survive.
    x.is_finite() && shortest(x as f32).to_bits() == x.to_bits()
}

/// True when a kept value `kept` still is the scene's value `now` (read back as `f64`): equal
/// within the `f32` rounding of the export and a little more for the transforms it composed.
pub(crate) fn agrees(kept: f64, now: f64) -> bool {
    if kept.to_bits() == now.to_bits() {
        return true;
    }
    let tol = 1e-5 * kept.abs().max(now.abs()).max(1.0);
    (kept - now).abs() <= tol
}

/// Every value of `kept` agrees with `now`.
pub(crate) fn all_agree(kept: &[f64], now: &[f64]) -> bool {
    kept.len() == now.len() && kept.iter().zip(now).all(|(a, b)| agrees(*a, *b))
}

/// A number as JSON: finite values as numbers (exact with serde_json's `float_roundtrip`),
/// NaN and infinities as `"bits:<16 hex digits>"`, which JSON numbers cannot hold.
pub(crate) fn num(v: f64) -> Value {
    if v.is_finite() {
        json!(v)
    } else {
        Value::from(format!("bits:{:016x}", v.to_bits()))
    }
}

/// The number of a [`num`] value.
pub(crate) fn num_of(v: &Value) -> Option<f64> {
    match v {
        Value::Number(n) => n.as_f64(),
        Value::String(s) => u64::from_str_radix(s.strip_prefix("bits:")?, 16)
            .ok()
            .map(f64::from_bits),
        _ => None,
    }
}

/// A row of numbers as JSON.
pub(crate) fn row(values: &[f64]) -> Value {
    Value::Array(values.iter().map(|&v| num(v)).collect())
}

/// The numbers of a [`row`], when it holds exactly `N`.
pub(crate) fn row_of<const N: usize>(v: &Value) -> Option<[f64; N]> {
    let list = v.as_array()?;
    if list.len() != N {
        return None;
    }
    let mut out = [0.0; N];
    for (o, v) in out.iter_mut().zip(list) {
        *o = num_of(v)?;
    }
    Some(out)
}

/// The rows of `rows` that do not survive the `f32` trip or that the export changes
/// (`changed`), as `{"index": [values]}`; `None` when every row comes back as it is.
pub(crate) fn sparse_rows<const N: usize>(
    rows: &[[f64; N]],
    changed: impl Fn(&[f64; N]) -> bool,
) -> Option<Value> {
    let mut out = Map::new();
    for (i, r) in rows.iter().enumerate() {
        if !r.iter().all(|&x| survives(x)) || changed(r) {
            out.insert(i.to_string(), row(r));
        }
    }
    (!out.is_empty()).then_some(Value::Object(out))
}

/// The kept row `index` of a [`sparse_rows`] map.
pub(crate) fn sparse_row<const N: usize>(map: Option<&Value>, index: usize) -> Option<[f64; N]> {
    map?.as_object()?.get(&index.to_string()).and_then(row_of)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn short_decimals_survive_and_long_ones_do_not() {
        assert!(survives(0.25) && survives(0.1) && survives(-0.0) && survives(1.5e-5));
        assert!(!survives(std::f64::consts::FRAC_1_SQRT_2));
        assert!(!survives(f64::NAN));
    }

    #[test]
    fn numbers_round_trip_through_json() {
        for v in [0.1, -0.0, f64::NAN, f64::NEG_INFINITY, 0.123456789012345] {
            let back = num_of(&num(v)).unwrap();
            assert_eq!(back.to_bits(), v.to_bits(), "{v}");
        }
    }
}
