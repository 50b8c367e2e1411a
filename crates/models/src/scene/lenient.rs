//! Reading back the values the export put in glTF `extras`, in the types an editor hands them
//! back in.
//!
//! An editor keeps a glTF file's `extras` as its own custom properties and writes them out
//! again in its own types. Blender 3.4's glTF importer and exporter (with "Custom Properties"
//! on), checked on every extras shape the export writes:
//!
//! * `true` and `false` come back as `1` and `0`, also inside objects and lists;
//! * an integer beyond `i32` comes back as its decimal string (`4294967295` → `"4294967295"`);
//! * a list that mixes integers and floats comes back all floats (`[0, 1.5]` → `[0.0, 1.5]`);
//! * a top-level key whose value is `null` is dropped;
//! * a list that mixes numbers with strings, lists or `null` comes back as a Python `repr`
//!   string, which no importer reads (the export writes none since `elem_blend` became a list of
//!   objects);
//! * the extras of animations are dropped altogether: the glTF reader gives them back from the
//!   copy of their small entries the export keeps in the scene's (`gltf/animation_extras.rs`);
//!   for the rest the importers fall back on the scene's keys, saying so where something the
//!   file had is lost (BMF's baked matrices, MDL's rebuilt clips, ELEM's clip settings when
//!   the copy is gone too).
//!
//! Every importer (`scene::to_<fmt>`) reads flags and integers through [`flag`], [`uint`] and
//! [`int`], which take both spellings, so that a file that went through such an editor unedited
//! gives the same document as the export it came from. A value of any other type is still not
//! the number or flag asked for (`None`), as before.

use serde_json::Value;

/// A flag: `true`/`false`, or `1`/`0` as an editor without booleans writes them back.
pub(crate) fn flag(v: &Value) -> Option<bool> {
    match v {
        Value::Bool(b) => Some(*b),
        Value::Number(_) => match uint(v)? {
            0 => Some(false),
            1 => Some(true),
            _ => None,
        },
        _ => None,
    }
}

/// A non-negative integer: a JSON integer, a float with no fraction (a list of mixed numbers
/// written back as floats), or a decimal string (an integer too large for the editor's own).
pub(crate) fn uint(v: &Value) -> Option<u64> {
    match v {
        Value::Number(n) => n.as_u64().or_else(|| {
            let f = n.as_f64()?;
            // Below 2^64 and whole: the cast is exact.
            ((0.0..18_446_744_073_709_551_616.0).contains(&f) && f.fract() == 0.0)
                .then_some(f as u64)
        }),
        Value::String(s) => digits(s).and_then(|s| s.parse().ok()),
        _ => None,
    }
}

/// An integer (see [`uint`]), negative ones too.
pub(crate) fn int(v: &Value) -> Option<i64> {
    match v {
        Value::Number(n) => n.as_i64().or_else(|| {
            let f = n.as_f64()?;
            // Within i64 and whole: the cast is exact.
            ((-9_223_372_036_854_775_808.0..9_223_372_036_854_775_808.0).contains(&f)
                && f.fract() == 0.0)
                .then_some(f as i64)
        }),
        Value::String(s) => {
            let unsigned = s.strip_prefix('-').unwrap_or(s);
            digits(unsigned).and_then(|_| s.parse().ok())
        }
        _ => None,
    }
}

/// `s` when it is one or more ASCII digits and nothing else (`str::parse` also takes a `+`).
fn digits(s: &str) -> Option<&str> {
    (!s.is_empty() && s.bytes().all(|b| b.is_ascii_digit())).then_some(s)
}

/// `name` without the suffix an editor adds to make a name unique (Blender: `.001`, any three
/// or more digits), or `None` when it has none.
pub(crate) fn unique_stem(name: &str) -> Option<&str> {
    match name.rsplit_once('.') {
        Some((stem, digits)) if digits.len() >= 3 && digits.bytes().all(|b| b.is_ascii_digit()) => {
            Some(stem)
        }
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn flags_and_integers_read_in_either_spelling() {
        assert_eq!(flag(&json!(true)), Some(true));
        assert_eq!(flag(&json!(0)), Some(false));
        assert_eq!(flag(&json!(1.0)), Some(true));
        assert_eq!(flag(&json!(2)), None);
        assert_eq!(flag(&json!("true")), None);
        assert_eq!(flag(&Value::Null), None);

        assert_eq!(uint(&json!(7)), Some(7));
        assert_eq!(uint(&json!(7.0)), Some(7));
        assert_eq!(uint(&json!(7.5)), None);
        assert_eq!(uint(&json!(-1)), None);
        assert_eq!(uint(&json!(-1.0)), None);
        assert_eq!(uint(&json!("4294967295")), Some(4_294_967_295));
        assert_eq!(uint(&json!("+1")), None);
        assert_eq!(uint(&json!("")), None);
        assert_eq!(uint(&json!(1e300)), None);
        assert_eq!(uint(&json!(true)), None);

        assert_eq!(int(&json!(-3)), Some(-3));
        assert_eq!(int(&json!(-3.0)), Some(-3));
        assert_eq!(int(&json!("-2147483649")), Some(-2_147_483_649));
        assert_eq!(int(&json!("-")), None);
        assert_eq!(int(&json!("--1")), None);
        assert_eq!(int(&json!(f64::MAX)), None);
    }
}
