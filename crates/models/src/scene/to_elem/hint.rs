//! The exact `f64` values the ELEM export keeps in `elem_*` extras, so that an unedited scene
//! comes back to the very numbers of the file, and the rule that decides when a kept value is
//! still the scene's.
//!
//! The scene holds `f32`. A file value `x` comes back as [`shortest`]`(x as f32)`: the shortest
//! decimal that reads back to that `f32`, read as `f64`; for every value written with at most
//! six significant digits that is `x` again, so the export keeps only the values for which it
//! is not ([`survives`]). A kept value is used back while it still [`agrees`] with what the
//! scene says (an edited value is the scene's).

use super::super::raw64;
use crate::scene::Array;
use serde_json::{json, Map, Value};
use std::borrow::Cow;
use std::fmt::Write as _;

/// `v` as the `f64` of its shortest decimal spelling.
pub(crate) fn shortest(v: f32) -> f64 {
    // Whole numbers below 2^24 (zeros above all) are their own shortest spelling: no text.
    if !v.is_finite() || (v.fract() == 0.0 && v.abs() < 16_777_216.0) {
        return f64::from(v);
    }
    // zmij spells the shortest digits that read back to `v`, the closest of them, several
    // times faster than `{:e}` (which was most of the ELEM export, issue 18). The two differ
    // only on a tie, when `v` lies exactly halfway between two shortest spellings (zmij takes
    // the even one, `{:e}` the larger): `v`'s exact decimal is then those digits and a 5, at
    // most ten digits, so such values keep `{:e}`'s spelling, which the way back has always
    // written.
    if exact_digits_at_most_ten(v) {
        return core_spelling(v);
    }
    // The spelling is read from zmij's own buffer: no String per value.
    let mut buffer = zmij::Buffer::new();
    let text = buffer.format_finite(v);
    exact_decimal(text)
        .or_else(|| text.parse().ok())
        .unwrap_or(f64::from(v))
}

/// The `f64` nearest to a decimal spelling (`-12.5e-3`) of at most 15 digits whose power of
/// ten is at most 22 in size: the digits are an exact `f64` integer and `10^k` an exact
/// `f64`, so one multiplication or division, correctly rounded by IEEE 754, gives the nearest
/// `f64` (Clinger's fast path). That is every shortest `f32` spelling but the very large and
/// very small; `None` for those and for any other text, which then takes the full parse.
fn exact_decimal(text: &str) -> Option<f64> {
    let (negative, rest) = match text.strip_prefix('-') {
        Some(r) => (true, r),
        None => (false, text),
    };
    let (mantissa, exponent) = match rest.split_once(['e', 'E']) {
        Some((m, e)) => (m, e.parse::<i32>().ok()?),
        None => (rest, 0),
    };
    let (whole, fraction) = mantissa.split_once('.').unwrap_or((mantissa, ""));
    if whole.len() + fraction.len() > 15 || whole.len() + fraction.len() == 0 {
        return None;
    }
    let mut digits: u64 = 0;
    for b in whole.bytes().chain(fraction.bytes()) {
        if !b.is_ascii_digit() {
            return None;
        }
        digits = digits * 10 + u64::from(b - b'0');
    }
    let power = exponent.checked_sub(i32::try_from(fraction.len()).ok()?)?;
    let scale = *POWERS.get(power.unsigned_abs() as usize)?;
    let magnitude = if power >= 0 {
        digits as f64 * scale
    } else {
        digits as f64 / scale
    };
    Some(if negative { -magnitude } else { magnitude })
}

/// True when the exact decimal value of the finite `v` has at most ten significant digits:
/// `v = m × 2^e` (odd `m`) is `m × 2^e` for `e ≥ 0`, `m × 5^−e / 10^−e` for `e < 0`.
fn exact_digits_at_most_ten(v: f32) -> bool {
    const LIMIT: u128 = 10_000_000_000;
    let bits = v.to_bits();
    let exponent = ((bits >> 23) & 0xff) as i32;
    let fraction = bits & 0x7f_ffff;
    let (m, e) = if exponent == 0 {
        (fraction, -149)
    } else {
        (fraction | 0x80_0000, exponent - 150)
    };
    if m == 0 {
        return true;
    }
    let (m, e) = (
        u128::from(m >> m.trailing_zeros()),
        e + m.trailing_zeros() as i32,
    );
    match u32::try_from(e) {
        Ok(up) => up < 40 && (m << up) < LIMIT,
        Err(_) => {
            let down = e.unsigned_abs();
            down <= 15 && m * 5u128.pow(down) < LIMIT
        }
    }
}

/// [`shortest`] through `{:e}`, the standard library's spelling.
fn core_spelling(v: f32) -> f64 {
    // `{:e}` spells the shortest digits that read back to `v`, in at most 15 bytes
    // ("-1.2345678e-45"), so a stack buffer does and no String is allocated; the fallback
    // cannot happen.
    let mut buf = StackText {
        bytes: [0; 32],
        len: 0,
    };
    if write!(buf, "{v:e}").is_err() {
        return f64::from(v);
    }
    buf.bytes
        .get(..buf.len)
        .and_then(|b| std::str::from_utf8(b).ok())
        .and_then(|t| t.parse().ok())
        .unwrap_or(f64::from(v))
}

/// A small text buffer on the stack for [`core_spelling`].
struct StackText {
    bytes: [u8; 32],
    len: usize,
}

impl std::fmt::Write for StackText {
    fn write_str(&mut self, s: &str) -> std::fmt::Result {
        let end = self.len + s.len();
        let slot = self.bytes.get_mut(self.len..end).ok_or(std::fmt::Error)?;
        slot.copy_from_slice(s.as_bytes());
        self.len = end;
        Ok(())
    }
}

/// True when `x` comes back from its `f32` as itself (bit for bit).
pub(crate) fn survives(x: f64) -> bool {
    // Non-finite values are repaired to 0 by the export: they never survive. Most values are
    // decided without spelling anything ([`survives_quickly`]; spelling every value was most of
    // the ELEM export, issue 18); the rest take the spelling.
    x.is_finite()
        && survives_quickly(x).unwrap_or_else(|| shortest(x as f32).to_bits() == x.to_bits())
}

/// [`survives`] for the finite `x` decided with a few `f64` operations, `None` when too close
/// to call. `shortest(f)` (`f` = `x` as `f32`) is the `f64` nearest to the decimal `S` of
/// fewest digits (at most nine) inside `f`'s rounding interval, the closest to `f` among
/// those; so `x` survives exactly when `x` is the `f64` nearest to a decimal `D` that is that
/// `S`. `D` is within `a`'s half step of `a` (`|x|`); distances are compared with a margin
/// (`slack`) far above that and the roundings of the comparison, and a comparison within the
/// margin (a tie among them) takes the spelling.
fn survives_quickly(x: f64) -> Option<bool> {
    if x == 0.0 {
        return Some(true);
    }
    let a = x.abs();
    let Some((d, k)) = nearest_decimal(a)? else {
        // `a` is the nearest `f64` to no decimal of up to nine digits: no spelling gives it.
        return Some(false);
    };
    if d >= 1_000_000_000 {
        return Some(false);
    }
    // `f`'s rounding interval (lo, hi), open; a power of two (uneven interval), a subnormal
    // or an overflow take the spelling.
    let f = a as f32;
    let bits = f.to_bits();
    let (m, e) = (bits & 0x7f_ffff, (bits >> 23) as i32);
    if m == 0 || e == 0 || e == 0xff {
        return None;
    }
    let f = f64::from(f);
    let half = f64::from_bits(((e - 151 + 1023) as u64) << 52);
    let (lo, hi) = (f - half, f + half);
    // `D` reads back to `f` (exact: rounding is monotonic).
    if !(lo < a && a < hi) {
        return None;
    }
    let step = ten_to(k)?;
    let slack = a * f64::from_bits((1023 - 44) << 52);
    // No decimal of fewer digits inside: the neighbours of `D` one digit shorter lie outside
    // (every shorter decimal near `D` is a multiple of theirs). The subtractions are exact.
    if d >= 10 {
        let r = (d % 10) as f64;
        let (to_below, to_above) = (r * step, (10.0 - r) * step);
        let (room_below, room_above) = (a - lo, hi - a);
        if to_below < room_below - slack || to_above < room_above - slack {
            return Some(false);
        }
        if to_below <= room_below + slack || to_above <= room_above + slack {
            return None;
        }
    }
    // `D` the closest to `f` of its length: nearer than half its step.
    let (off, half_step) = ((a - f).abs(), 0.5 * step);
    if off > half_step + slack {
        return Some(false);
    }
    (off < half_step - slack).then_some(true)
}

/// `10^k` as the nearest `f64`, for `|k| ≤ 22`.
fn ten_to(k: i32) -> Option<f64> {
    const NEGATIVE: [f64; 23] = [
        1e0, 1e-1, 1e-2, 1e-3, 1e-4, 1e-5, 1e-6, 1e-7, 1e-8, 1e-9, 1e-10, 1e-11, 1e-12, 1e-13,
        1e-14, 1e-15, 1e-16, 1e-17, 1e-18, 1e-19, 1e-20, 1e-21, 1e-22,
    ];
    let table = if k >= 0 { &POWERS } else { &NEGATIVE };
    table.get(k.unsigned_abs() as usize).copied()
}

/// The decimal `d × 10^k` (`d` without trailing zeros) whose nearest `f64` is the positive
/// normal `a`, among those whose last digit is at or above `a`'s ninth to tenth significant
/// digit: `Some(None)` when there is none, `None` when `a` is too large or small to tell.
fn nearest_decimal(a: f64) -> Option<Option<(u64, i32)>> {
    let e2 = ((a.to_bits() >> 52) & 0x7ff) as i32;
    if e2 == 0 || e2 == 0x7ff {
        return None;
    }
    // floor(log10 a) is `approx` or one more; nine digits of any decimal near `a` end at or
    // above 10^k, and `a / 10^k` is below 10^11 (an exact `f64` integer, no rounding doubt).
    let approx = ((e2 - 1023) * 78_913) >> 18;
    let k = approx - 9;
    let scale = *POWERS.get(k.unsigned_abs() as usize)?;
    let q = if k >= 0 { a / scale } else { a * scale };
    // `q` is positive and below 10^11: adding a half is exact, the cast rounds it (through
    // `i64`, one instruction where `u64` takes a branch).
    let mut d = (q + 0.5) as i64 as u64;
    if clinger(d, k)?.to_bits() != a.to_bits() {
        return Some(None);
    }
    let mut k = k;
    // Two digits at a time first: values written with fixed decimals have several zeros.
    while d != 0 && d % 100 == 0 {
        d /= 100;
        k += 2;
    }
    if d != 0 && d % 10 == 0 {
        d /= 10;
        k += 1;
    }
    Some(Some((d, k)))
}

/// The exact powers of ten of `f64`.
const POWERS: [f64; 23] = [
    1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15, 1e16,
    1e17, 1e18, 1e19, 1e20, 1e21, 1e22,
];

/// The `f64` nearest to `d × 10^k` by Clinger's fast path (one correctly rounded operation of
/// exact operands); `None` beyond it.
fn clinger(d: u64, k: i32) -> Option<f64> {
    if d >= 1 << 53 {
        return None;
    }
    let scale = *POWERS.get(k.unsigned_abs() as usize)?;
    Some(if k >= 0 {
        d as f64 * scale
    } else {
        d as f64 / scale
    })
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
/// (`changed`); `None` when every row comes back as it is. Kept compactly, since on files
/// written with more digits than `f32` holds that is nearly every row: the values' `f64` bits
/// (`"values"`: a blob of `blobs`, `scene/blob.rs`, from 1 KiB up, else base64 text as every
/// export wrote them before issue 18), and which rows they are as base64 of either a bitmap of
/// all rows (`"bitmap"`, bit `i % 8` of byte `i / 8`) or the `u32` row numbers (`"rows"`),
/// whichever is shorter.
pub(crate) fn sparse_rows<const N: usize>(
    blobs: &mut Vec<Array<u8>>,
    rows: &[[f64; N]],
    changed: impl Fn(&[f64; N]) -> bool,
) -> Option<Value> {
    let mut index = Vec::new();
    for (i, r) in rows.iter().enumerate() {
        if !r.iter().all(|&x| survives(x)) || changed(r) {
            index.push(u32::try_from(i).ok()?);
        }
    }
    if index.is_empty() {
        return None;
    }
    let mut out = Map::new();
    out.insert(
        "values".into(),
        raw64::put(blobs, kept_values(rows, &index)),
    );
    if index.len() * 4 * 8 > rows.len() {
        let mut bitmap = vec![0u8; rows.len().div_ceil(8)];
        for &i in &index {
            if let Some(b) = bitmap.get_mut(i as usize / 8) {
                *b |= 1 << (i % 8);
            }
        }
        out.insert("bitmap".into(), Value::String(raw64::encode(&bitmap)));
    } else {
        out.insert("rows".into(), Value::String(raw64::encode_u32(&index)));
    }
    Some(Value::Object(out))
}

/// The little-endian bytes of the rows `index` names, one after the other, in a vector of
/// its exact size: on the large models that is nearly every row, and they are the largest
/// part of the `.glb` (as a blob, they are written as they are: no text, no copy into the
/// JSON, issue 18).
fn kept_values<const N: usize>(rows: &[[f64; N]], index: &[u32]) -> Vec<u8> {
    let mut bytes = Vec::with_capacity(index.len().saturating_mul(N * 8));
    for &i in index {
        if let Some(r) = rows.get(i as usize) {
            bytes.extend_from_slice(binio::pod::as_bytes(r.as_slice()));
        }
    }
    bytes
}

/// The kept rows of a [`sparse_rows`] value, read in row order ([`Kept::row`]).
pub(crate) struct Kept<'a, const N: usize> {
    index: Vec<u32>,
    values: Cow<'a, [f64]>,
    at: usize,
}

impl<'a, const N: usize> Kept<'a, N> {
    /// The kept rows of `v` for an attribute of `count` rows, its values in `blobs` or (as
    /// exported before issue 18, and below 1 KiB) base64 text; `None` when there are none or
    /// the value is not what [`sparse_rows`] makes (then the scene's values are used).
    pub(crate) fn of(blobs: &'a [Array<u8>], v: Option<&Value>, count: usize) -> Option<Self> {
        let v = v?;
        let values = raw64::pods::<f64>(blobs, v.get("values")?)?;
        let index: Vec<u32> = match (v.get("bitmap"), v.get("rows")) {
            (Some(b), None) => {
                let bitmap = raw64::decode(b.as_str()?)?;
                if bitmap.len() != count.div_ceil(8) {
                    return None;
                }
                let set = |i: usize| bitmap.get(i / 8).is_some_and(|b| b & (1 << (i % 8)) != 0);
                (0..count)
                    .filter(|&i| set(i))
                    .map(|i| u32::try_from(i).ok())
                    .collect::<Option<_>>()?
            }
            (None, Some(r)) => raw64::decode_u32(r.as_str()?)?,
            _ => return None,
        };
        let increasing = index.iter().zip(index.iter().skip(1)).all(|(a, b)| a < b);
        let inside = index.last().is_none_or(|&l| (l as usize) < count);
        (increasing && inside && values.len() == index.len() * N).then_some(Kept {
            index,
            values,
            at: 0,
        })
    }

    /// The kept row `i`, if any; rows must be asked in increasing order.
    pub(crate) fn row(&mut self, i: usize) -> Option<[f64; N]> {
        while self.index.get(self.at).is_some_and(|&k| (k as usize) < i) {
            self.at += 1;
        }
        if self.index.get(self.at).is_none_or(|&k| k as usize != i) {
            return None;
        }
        let start = self.at * N;
        <[f64; N]>::try_from(self.values.get(start..start + N)?).ok()
    }
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
    fn shortest_reads_the_shortest_spelling() {
        assert_eq!(shortest(0.1).to_bits(), 0.1f64.to_bits());
        assert_eq!(shortest(-1.5e-5).to_bits(), (-1.5e-5f64).to_bits());
        assert_eq!(shortest(f32::MAX), 3.4028235e38);
        assert_eq!(shortest(f32::from_bits(1)), 1e-45);
        assert_eq!(shortest(-0.0).to_bits(), (-0.0f64).to_bits());
        for v in [
            0.123456f32,
            11.08058,
            -14.299908,
            1e-7,
            3.0,
            -16777215.0,
            16777216.0,
            1e20,
        ] {
            assert_eq!(shortest(v), v.to_string().parse::<f64>().unwrap(), "{v}");
        }
    }

    #[test]
    fn kept_rows_come_back_by_index_and_by_bitmap() {
        let long = std::f64::consts::FRAC_1_SQRT_2;
        let mut blobs: Vec<Array<u8>> = Vec::new();
        // One kept row of 40: row numbers. Every row kept: a bitmap. Both small: text.
        let mut few = vec![[0.5, 0.25]; 40];
        few[17] = [long, 0.25];
        let v = sparse_rows(&mut blobs, &few, |_| false).unwrap();
        assert!(v.get("rows").is_some() && v.get("bitmap").is_none());
        assert!(v["values"].is_string() && blobs.is_empty());
        let mut k = Kept::<2>::of(&blobs, Some(&v), 40).unwrap();
        assert_eq!(k.row(3), None);
        assert_eq!(k.row(17), Some([long, 0.25]));
        assert_eq!(k.row(18), None);
        let many = vec![[long, f64::NAN]; 9];
        let v = sparse_rows(&mut blobs, &many, |_| false).unwrap();
        assert!(v.get("bitmap").is_some());
        let mut k = Kept::<2>::of(&blobs, Some(&v), 9).unwrap();
        assert!((0..9).all(|i| k.row(i).is_some_and(|r| r[0] == long && r[1].is_nan())));
        assert!(
            Kept::<2>::of(&blobs, Some(&v), 17).is_none(),
            "a bitmap of other rows"
        );
        assert!(
            Kept::<3>::of(&blobs, Some(&v), 9).is_none(),
            "values of other rows"
        );
        assert!(sparse_rows(&mut blobs, &[[0.5, 0.25]], |_| false).is_none());
    }

    #[test]
    fn many_kept_rows_are_a_blob_and_the_text_form_still_reads() {
        let rows: Vec<[f64; 3]> = (0..100)
            .map(|i| [0.1 * f64::from(i), std::f64::consts::PI, -0.0])
            .collect();
        let mut blobs = vec![Array::from(vec![7u8; 3])];
        let v = sparse_rows(&mut blobs, &rows, |_| false).unwrap();
        assert_eq!(v["values"], json!({ "bufferView": 1 }));
        assert_eq!(blobs.get(1).map(|b| b.len()), Some(100 * 3 * 8));
        let bits = |r: [f64; 3]| r.map(f64::to_bits);
        let mut k = Kept::<3>::of(&blobs, Some(&v), 100).unwrap();
        assert!((0..100).all(|i| k.row(i).map(bits) == rows.get(i).copied().map(bits)));
        // The form every export wrote before: the same bytes as base64 text.
        let mut old = v.clone();
        old["values"] = Value::String(raw64::encode(&blobs[1]));
        let mut k = Kept::<3>::of(&[], Some(&old), 100).unwrap();
        assert!((0..100).all(|i| k.row(i).map(bits) == rows.get(i).copied().map(bits)));
        // A reference to a blob that is not there: nothing kept.
        assert!(Kept::<3>::of(&blobs[..1], Some(&v), 100).is_none());
    }

    #[test]
    fn shortest_spells_as_the_standard_library_does_ties_included() {
        // Ties (exactly halfway between two shortest spellings), where zmij alone would
        // differ, and a sweep over every bit pattern with a stride.
        for v in [
            2.1914062f32,
            41.070312,
            144.76562,
            1144.6562,
            0.5,
            1e-45,
            3.0e9,
        ] {
            assert_eq!(shortest(v).to_bits(), core_spelling(v).to_bits(), "{v:e}");
        }
        let mut bits = 0u64;
        while bits < 1 << 32 {
            let v = f32::from_bits(bits as u32);
            if v.is_finite() {
                assert_eq!(shortest(v).to_bits(), core_spelling(v).to_bits(), "{v:e}");
            }
            bits += 40_009;
        }
    }

    #[test]
    fn survives_quickly_decides_as_the_spelling_does() {
        let slow = |x: f64| shortest(x as f32).to_bits() == x.to_bits();
        let (mut decided, mut kept) = (0u32, 0u32);
        let mut check = |x: f64| {
            if let Some(q) = survives_quickly(x) {
                assert_eq!(q, slow(x), "{x:e}");
                decided += 1;
                kept += u32::from(q);
            }
        };
        // Decimals of 1 to 17 digits over many magnitudes (as an ELEM file spells them),
        // `f32` values widened, and bit patterns with a stride.
        let mut state = 0x9e37_79b9_7f4a_7c15u64;
        for _ in 0..400_000 {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            let digits = 1 + (state % 17) as u32;
            let mantissa = (state >> 8) % 10u64.pow(digits);
            let exp = ((state >> 40) % 60) as i32 - 35;
            let x: f64 = format!("{mantissa}e{exp}").parse().unwrap();
            check(x);
            check(-x);
            check(f64::from(x as f32));
        }
        let mut bits = 0u64;
        while bits < 1 << 32 {
            check(f64::from(f32::from_bits(bits as u32)));
            check(f64::from_bits(bits << 32 | bits));
            bits += 40_009;
        }
        for text in [
            "-14.299908",
            "-11.080580",
            "0.000000",
            "123.456789",
            "0.1",
            "16777217",
        ] {
            check(text.parse().unwrap());
        }
        // Most values are decided, both ways.
        assert!(decided > 700_000 && kept > 200_000, "{decided} {kept}");
        assert!(decided - kept > 200_000, "{decided} {kept}");
    }

    #[test]
    fn exact_decimal_reads_as_the_standard_library_does() {
        // Within the fast path: the same bits as the full parse.
        for text in [
            "0.1",
            "-1.5e-5",
            "123.456",
            "-0.0",
            "7",
            "2.5e22",
            "0.30000001",
            "123456789012345",
            "1e-22",
            "3.0e9",
        ] {
            let parsed: f64 = text.parse().unwrap();
            assert_eq!(
                exact_decimal(text).map(f64::to_bits),
                Some(parsed.to_bits()),
                "{text}"
            );
        }
        // Beyond it (a power of ten over 22, more than 15 digits) or not a number: the full
        // parse takes these.
        for text in [
            "3.4028235e38",
            "1e-45",
            "9.999999e-23",
            "1.17549435e-38",
            "",
            "-",
            "1.2.3",
            "1e",
            "abc",
            "1234567890123456",
            "1_0",
        ] {
            assert_eq!(exact_decimal(text), None, "{text:?}");
        }
    }

    #[test]
    fn numbers_round_trip_through_json() {
        for v in [0.1, -0.0, f64::NAN, f64::NEG_INFINITY, 0.123456789012345] {
            let back = num_of(&num(v)).unwrap();
            assert_eq!(back.to_bits(), v.to_bits(), "{v}");
        }
    }
}
