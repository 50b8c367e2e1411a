//! Number spelling: the grammar check, the MSVC non-finite spellings, and formatting.
//!
//! Parsing of finite values is done by `fast-float2` after the text was checked against the
//! specification's NUMBER grammar (fast-float alone would also accept `inf` and `nan`).

/// The result of reading a number atom.
pub(crate) enum Num {
    /// A finite number (or `-0`).
    Finite(f64),
    /// An MSVC non-finite spelling (`1.#QNAN`, `-1.#IND00`, `1.#INF`, …).
    NonFinite(f64),
}

/// `[+-] (digits [. [digits]] | . digits) [(e|E) [+-] digits]`.
fn is_number(s: &[u8]) -> bool {
    let mut i = 0;
    if matches!(s.first(), Some(b'+' | b'-')) {
        i += 1;
    }
    let int_start = i;
    while s.get(i).is_some_and(u8::is_ascii_digit) {
        i += 1;
    }
    let mut digits = i - int_start;
    if s.get(i) == Some(&b'.') {
        i += 1;
        let frac_start = i;
        while s.get(i).is_some_and(u8::is_ascii_digit) {
            i += 1;
        }
        digits += i - frac_start;
    }
    if digits == 0 {
        return false;
    }
    if matches!(s.get(i), Some(b'e' | b'E')) {
        i += 1;
        if matches!(s.get(i), Some(b'+' | b'-')) {
            i += 1;
        }
        let exp_start = i;
        while s.get(i).is_some_and(u8::is_ascii_digit) {
            i += 1;
        }
        if i == exp_start {
            return false;
        }
    }
    i == s.len()
}

/// `[+-] digits`.
pub(crate) fn is_int(s: &str) -> bool {
    let b = s.as_bytes();
    let digits = match b.first() {
        Some(b'+' | b'-') => b.get(1..).unwrap_or_default(),
        _ => b,
    };
    !digits.is_empty() && digits.iter().all(u8::is_ascii_digit)
}

/// Quiet NaN bits with the given sign.
const QNAN: u64 = 0x7ff8_0000_0000_0000;
/// Signalling NaN bits (quiet bit clear, payload non-zero).
const SNAN: u64 = 0x7ff4_0000_0000_0000;
const SIGN: u64 = 0x8000_0000_0000_0000;

/// `[+-] 1.# (QNAN|SNAN|IND|INF) digits*`.
fn msvc_non_finite(s: &str) -> Option<f64> {
    let (negative, rest) = match s.as_bytes().first() {
        Some(b'-') => (true, s.get(1..)?),
        Some(b'+') => (false, s.get(1..)?),
        _ => (false, s),
    };
    let rest = rest.strip_prefix("1.#")?;
    let word_len = rest.bytes().take_while(u8::is_ascii_uppercase).count();
    let (word, digits) = rest.split_at(word_len);
    if !digits.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    let sign = if negative { SIGN } else { 0 };
    match word {
        "QNAN" | "IND" => Some(f64::from_bits(QNAN | sign)),
        "SNAN" => Some(f64::from_bits(SNAN | sign)),
        "INF" if negative => Some(f64::NEG_INFINITY),
        "INF" => Some(f64::INFINITY),
        _ => None,
    }
}

/// Reads a number atom, or `None` when the text matches neither grammar.
pub(crate) fn parse_f64(s: &str) -> Option<Num> {
    if is_number(s.as_bytes()) {
        fast_float2::parse::<f64, _>(s).ok().map(Num::Finite)
    } else {
        msvc_non_finite(s).map(Num::NonFinite)
    }
}

/// How the writer spells finite floats.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum FloatStyle {
    /// The shortest plain decimal that reads back to the same `f64`, never an exponent
    /// (`1`, `0.5`, `-0`, `0.0000001`). Lossless.
    #[default]
    Shortest,
    /// Elfreina / Keystone style: fixed point with six decimals (`1.000000`). Lossy.
    SixDecimals,
}

/// Appends `v` to `out`. Non-finite values get the MSVC spelling that [`parse_f64`] reads
/// back to the same bits for NaN (`1.#QNAN`, `-1.#IND`, `1.#SNAN`, `-1.#SNAN`) and infinity
/// (`1.#INF`, `-1.#INF`).
pub(crate) fn push_f64(out: &mut String, v: f64, style: FloatStyle) {
    use std::fmt::Write;
    if v.is_nan() {
        let bits = v.to_bits();
        let negative = bits & SIGN != 0;
        let quiet = bits & 0x0008_0000_0000_0000 != 0;
        out.push_str(match (negative, quiet) {
            (false, true) => "1.#QNAN",
            (true, true) => "-1.#IND",
            (false, false) => "1.#SNAN",
            (true, false) => "-1.#SNAN",
        });
    } else if v.is_infinite() {
        out.push_str(if v > 0.0 { "1.#INF" } else { "-1.#INF" });
    } else {
        // Writing into a String cannot fail.
        let _ = match style {
            FloatStyle::Shortest => write!(out, "{v}"),
            FloatStyle::SixDecimals if push_six_decimals(out, v) => Ok(()),
            FloatStyle::SixDecimals => write!(out, "{v:.6}"),
        };
    }
}

/// Appends the decimal digits of `n` (what `{n}` writes, without the formatting machinery).
pub(crate) fn push_u64(out: &mut String, mut n: u64) {
    let mut buf = [b'0'; 20];
    let mut len = 0;
    for slot in buf.iter_mut().rev() {
        *slot = b'0' + (n % 10) as u8;
        n /= 10;
        len += 1;
        if n == 0 {
            break;
        }
    }
    let digits = buf.get(buf.len() - len..).unwrap_or_default();
    out.push_str(std::str::from_utf8(digits).unwrap_or_default());
}

/// `{v:.6}` for a finite `v` below about 1.8e13 in magnitude (so that `v · 10^6` fits a
/// `u64`), by exact integer arithmetic: `v` is
/// `m · 2^e`, so `v · 10^6` is `m · 10^6 · 2^e`, rounded half to even on the exact value
/// as core's exact float formatting does (tested against it). Returns `false`, writing
/// nothing, when `v` is outside that range.
fn push_six_decimals(out: &mut String, v: f64) -> bool {
    let bits = v.to_bits();
    let negative = bits & SIGN != 0;
    let biased = ((bits >> 52) & 0x7FF) as i32;
    let fraction = bits & ((1 << 52) - 1);
    let (m, e) = if biased == 0 {
        (fraction, -1074)
    } else {
        (fraction | (1 << 52), biased - 1075)
    };
    if biased == 0x7FF || e > 7 {
        return false;
    }
    // m · 10^6 < 2^73, and shifted left by at most 7: no overflow.
    let scaled = u128::from(m) * 1_000_000;
    let q = if e >= 0 {
        scaled << e
    } else {
        let s = e.unsigned_abs();
        if s >= 127 {
            // Below 2^73 / 2^127: rounds to 0.
            0
        } else {
            let q = scaled >> s;
            let r = scaled & ((1u128 << s) - 1);
            let half = 1u128 << (s - 1);
            if r > half || (r == half && q & 1 == 1) {
                q + 1
            } else {
                q
            }
        }
    };
    let Ok(q) = u64::try_from(q) else {
        return false;
    };
    if negative {
        out.push('-');
    }
    push_u64(out, q / 1_000_000);
    let mut frac = q % 1_000_000;
    let mut tail = *b".000000";
    for slot in tail.iter_mut().rev().take(6) {
        *slot = b'0' + (frac % 10) as u8;
        frac /= 10;
    }
    out.push_str(std::str::from_utf8(&tail).unwrap_or_default());
    true
}

#[cfg(test)]
mod tests {
    use super::*;

    fn bits(s: &str) -> Option<u64> {
        parse_f64(s).map(|n| match n {
            Num::Finite(v) | Num::NonFinite(v) => v.to_bits(),
        })
    }

    #[test]
    fn grammar() {
        for ok in [
            "1",
            "+1",
            "-1",
            "1.",
            ".5",
            "-0.000000",
            "-1.5e-05",
            "1E+3",
            "2e7",
        ] {
            assert!(matches!(parse_f64(ok), Some(Num::Finite(_))), "{ok}");
        }
        for bad in [
            "", "+", ".", "e5", "1e", "1e+", "inf", "nan", "1.2.3", "0x10", "1 2", "--1", "1,5",
        ] {
            assert!(parse_f64(bad).is_none(), "{bad}");
        }
        assert!(is_int("-12") && is_int("+0") && !is_int("1.0") && !is_int("-"));
    }

    #[test]
    fn msvc_spellings() {
        assert_eq!(bits("1.#QNAN"), Some(QNAN));
        assert_eq!(bits("1.#QNAN0"), Some(QNAN));
        assert_eq!(bits("-1.#IND00"), Some(QNAN | SIGN));
        assert_eq!(bits("1.#INF00"), Some(f64::INFINITY.to_bits()));
        assert_eq!(bits("-1.#INF"), Some(f64::NEG_INFINITY.to_bits()));
        assert!(bits("1.#FOO").is_none());
        assert!(bits("2.#INF").is_none());
        for v in [
            f64::from_bits(QNAN),
            f64::from_bits(QNAN | SIGN),
            f64::from_bits(SNAN),
            f64::from_bits(SNAN | SIGN),
            f64::INFINITY,
            f64::NEG_INFINITY,
        ] {
            let mut s = String::new();
            push_f64(&mut s, v, FloatStyle::Shortest);
            assert_eq!(bits(&s), Some(v.to_bits()), "{s}");
        }
    }

    #[test]
    fn six_decimals_match_core_formatting() {
        let mut values = vec![
            0.0,
            -0.0,
            0.8,
            -11.001263,
            1e-7,
            -1e-7,
            4e-7,
            5e-7,
            6e-7,
            -5e-7,
            0.0078125,
            2.5e-6,
            1.0000005,
            999_999.999_999_5,
            1e15,
            1.2e17,
            1.3e18,
            5e-324,
            f64::MIN_POSITIVE,
        ];
        // Exact ties: multiples of 1/128 and 1/2^20 land on half a millionth.
        values.extend((0..2000).map(|k| f64::from(k) / 128.0));
        values.extend((0..2000).map(|k| -f64::from(k) * 0.5f64.powi(20)));
        let mut seed: u64 = 0x9E37_79B9_7F4A_7C15;
        for _ in 0..100_000 {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            let v = f64::from_bits(seed);
            if v.is_finite() {
                values.push(v);
                values.push(v * 1e-300);
            }
            values.push((seed >> 11) as f64 / (1u64 << 40) as f64 - 4096.0);
        }
        for v in values {
            let mut fast = String::new();
            let expected = format!("{v:.6}");
            if push_six_decimals(&mut fast, v) {
                assert_eq!(fast, expected, "{v:e}");
            } else {
                assert!(fast.is_empty());
                assert!(v.abs() >= 1.8e13, "{v:e}");
            }
        }
    }

    #[test]
    fn integers_match_core_formatting() {
        for n in [0, 1, 9, 10, 99, 100, 4_294_967_295, 1_000_000_007, u64::MAX] {
            let mut s = String::new();
            push_u64(&mut s, n);
            assert_eq!(s, n.to_string());
        }
    }

    #[test]
    fn shortest_round_trips() {
        for v in [
            0.1,
            -0.0,
            1e-7,
            1e300,
            0.30000000000000004,
            123456.789,
            -5e-324,
        ] {
            let mut s = String::new();
            push_f64(&mut s, v, FloatStyle::Shortest);
            assert!(!s.contains(['e', 'E']), "{s}");
            assert_eq!(bits(&s), Some(v.to_bits()), "{s}");
        }
        let mut s = String::new();
        push_f64(&mut s, 0.8, FloatStyle::SixDecimals);
        assert_eq!(s, "0.800000");
    }
}
