//! [`Skm`] → text: the mirror of `read.rs`, in the same order.
//!
//! Writer profile "EditAnimation": no BOM for Shift-JIS (a UTF-8 BOM for UTF-8), CRLF line
//! endings, `Keyword: N` headers, one record per line as in the specification, values separated
//! by one space, floats in the shortest plain decimal that reads back to the same bits.

use crate::error::{Error, Pos};
use crate::lex::QNAN;
use crate::model::{Encoding, Name, Skm};
use crate::rules::{attribute_problem, bad_influence, guess_encoding, names, parent_cycle};
use std::io::Write as _;

fn invalid(what: String) -> Error {
    Error::IndexOutOfRange {
        at: Pos::DOCUMENT,
        what,
    }
}

/// Checks that the document reads back as itself: everything the reader refuses is refused
/// here too, with [`Pos::DOCUMENT`].
pub(crate) fn validate(doc: &Skm) -> Result<(), Error> {
    let n = doc.vertices.len();
    let faces = doc.triangles.len();
    for (count, what) in [
        (n, "vertices"),
        (faces.saturating_mul(3), "indices"),
        (doc.materials.len(), "materials"),
        (doc.attributes.len(), "attribute ranges"),
        (doc.bones.len(), "bones"),
    ] {
        if u32::try_from(count).is_err() {
            return Err(Error::LimitExceeded {
                at: Pos::DOCUMENT,
                what: format!("{count} {what} cannot be declared in a 32-bit count"),
            });
        }
    }
    if doc.adjacency.len() != faces {
        return Err(Error::CountMismatch {
            at: Pos::DOCUMENT,
            what: "adjacency rows against triangles".into(),
            declared: doc.adjacency.len() as u64,
            found: faces.to_string(),
        });
    }
    for (f, tri) in doc.triangles.iter().enumerate() {
        if let Some(v) = tri.iter().find(|&&v| v as usize >= n) {
            return Err(invalid(format!(
                "triangle {f} uses vertex {v}, but there are only {n} vertices"
            )));
        }
    }
    for (i, r) in doc.attributes.iter().enumerate() {
        if let Some((_, what)) = attribute_problem(i, r, doc.materials.len(), faces, n) {
            return Err(invalid(what));
        }
    }
    let b = doc.bones.len();
    for (i, bone) in doc.bones.iter().enumerate() {
        if bone.parent != -1 && usize::try_from(bone.parent).map_or(true, |x| x >= b) {
            return Err(invalid(format!(
                "bone {i}: parent {} is neither -1 nor one of the {b} bones",
                bone.parent
            )));
        }
    }
    if let Some(i) = parent_cycle(&doc.bones) {
        return Err(invalid(format!(
            "bone {i}: its parent chain loops back to itself"
        )));
    }
    if let Some((v, k, idx)) = bad_influence(doc) {
        return Err(invalid(format!(
            "vertex {v}: influence {k} uses bone {idx}, but there are only {b} bones"
        )));
    }
    for (i, m) in doc.materials.iter().enumerate() {
        if let Some(t) = &m.texture {
            check_name(t, &format!("material {i}: texture name"))?;
            if t.raw.eq_ignore_ascii_case(b"(NULL)") {
                return Err(Error::BadString {
                    at: Pos::DOCUMENT,
                    what: format!(
                        "material {i}: the texture name `(NULL)` would read back as no texture"
                    ),
                });
            }
        }
    }
    for (i, bone) in doc.bones.iter().enumerate() {
        check_name(&bone.name, &format!("bone {i}: name"))?;
    }
    if doc.encoding == Encoding::ShiftJis && guess_encoding(names(doc)) == Encoding::Utf8 {
        return Err(Error::BadString {
            at: Pos::DOCUMENT,
            what: "the document is Shift-JIS, but its non-ASCII names are all valid UTF-8, so \
                   they would read back as UTF-8: set the document's encoding to UTF-8"
                .into(),
        });
    }
    Ok(())
}

fn check_name(name: &Name, what: &str) -> Result<(), Error> {
    if let Some(&b) = name
        .raw
        .iter()
        .find(|&&b| matches!(b, b'"' | b'\r' | b'\n'))
    {
        return Err(Error::BadString {
            at: Pos::DOCUMENT,
            what: format!(
                "{what} contains {}, which a quoted string cannot hold",
                match b {
                    b'"' => "a `\"`",
                    _ => "a line break",
                }
            ),
        });
    }
    Ok(())
}

/// Appends the canonical spelling of `v`: the shortest plain decimal that reads back exactly;
/// `inf`, `-inf`; `nan`/`-nan` for the default quiet NaN, `nan(0x…)` with the mantissa bits
/// for any other NaN.
pub(crate) fn put_f32(out: &mut Vec<u8>, v: f32) {
    if v.is_finite() {
        put_f32_plain(out, v);
        return;
    }
    let bits = v.to_bits();
    if bits & 0x8000_0000 != 0 {
        out.push(b'-');
    }
    let mantissa = bits & 0x007F_FFFF;
    if v.is_infinite() {
        out.extend_from_slice(b"inf");
    } else if mantissa == QNAN & 0x007F_FFFF {
        out.extend_from_slice(b"nan");
    } else {
        let _ = write!(out, "nan(0x{mantissa:x})");
    }
}

/// A finite `f32` as the shortest decimal that reads back to the same bits, in plain notation
/// like core's `Display` (`{v}`) (`1`, `-0`, `0.0000001`, `340282350000000000000000000000000000000`).
/// The digits come from `zmij` (a maintained shortest float formatter, Ryū's successor from the
/// author of `ryu`), several times faster than `core::fmt`; only the layout is done here,
/// because `zmij` writes `1.0` and `1e-7` where SKM files (and `{v}`) have `1` and
/// `0.0000001`. Tested on 4 M values: same bits back, same length as `{v}`, and the same text
/// except where two shortest decimals are equally near (zmij rounds that tie to even).
fn put_f32_plain(out: &mut Vec<u8>, v: f32) {
    let mut buffer = zmij::Buffer::new();
    let text = buffer.format_finite(v).as_bytes();
    let (negative, text) = match text.split_first() {
        Some((b'-', rest)) => (true, rest),
        _ => (false, text),
    };
    let (mantissa, exponent) = match text.iter().position(|&b| b == b'e' || b == b'E') {
        Some(e) => {
            let exp = text.get(e + 1..).unwrap_or_default();
            let exp = std::str::from_utf8(exp)
                .ok()
                .and_then(|t| t.parse::<i32>().ok())
                .unwrap_or(0);
            (text.get(..e).unwrap_or_default(), exp)
        }
        None => (text, 0),
    };
    let (int, frac) = match mantissa.iter().position(|&b| b == b'.') {
        Some(p) => (
            mantissa.get(..p).unwrap_or_default(),
            mantissa.get(p + 1..).unwrap_or_default(),
        ),
        None => (mantissa, &[][..]),
    };
    // The significant digits and where the decimal point falls among them.
    let mut digits = [0u8; 48];
    let mut len = 0;
    for &d in int.iter().chain(frac) {
        if let Some(slot) = digits.get_mut(len) {
            *slot = d;
            len += 1;
        }
    }
    let mut point = int.len() as i32 + exponent;
    let mut start = 0;
    while start < len && digits.get(start) == Some(&b'0') {
        start += 1;
        point -= 1;
    }
    while len > start && digits.get(len - 1) == Some(&b'0') {
        len -= 1;
    }
    if negative {
        out.push(b'-');
    }
    let digits = digits.get(start..len).unwrap_or_default();
    if digits.is_empty() {
        out.push(b'0');
    } else if point <= 0 {
        out.extend_from_slice(b"0.");
        out.resize(out.len() + point.unsigned_abs() as usize, b'0');
        out.extend_from_slice(digits);
    } else if point as usize >= digits.len() {
        out.extend_from_slice(digits);
        out.resize(out.len() + (point as usize - digits.len()), b'0');
    } else {
        let (whole, fraction) = digits.split_at(point as usize);
        out.extend_from_slice(whole);
        out.push(b'.');
        out.extend_from_slice(fraction);
    }
}

fn put_u32(out: &mut Vec<u8>, v: u32) {
    let mut buf = [0u8; 10];
    let mut i = buf.len();
    let mut v = v;
    loop {
        i -= 1;
        if let Some(slot) = buf.get_mut(i) {
            *slot = b'0' + (v % 10) as u8;
        }
        v /= 10;
        if v == 0 || i == 0 {
            break;
        }
    }
    out.extend_from_slice(buf.get(i..).unwrap_or_default());
}

fn put_i32(out: &mut Vec<u8>, v: i32) {
    if v < 0 {
        out.push(b'-');
    }
    put_u32(out, v.unsigned_abs());
}

fn put_floats(out: &mut Vec<u8>, vs: &[f32]) {
    for (i, &v) in vs.iter().enumerate() {
        if i > 0 {
            out.push(b' ');
        }
        put_f32(out, v);
    }
}

fn put_quoted(out: &mut Vec<u8>, raw: &[u8]) {
    out.push(b'"');
    out.extend_from_slice(raw);
    out.push(b'"');
}

const EOL: &[u8] = b"\r\n";

fn header(out: &mut Vec<u8>, keyword: &str, count: usize) {
    out.extend_from_slice(keyword.as_bytes());
    out.push(b' ');
    put_u32(out, u32::try_from(count).unwrap_or(u32::MAX));
    out.extend_from_slice(EOL);
}

pub(crate) fn write(doc: &Skm) -> Result<Vec<u8>, Error> {
    validate(doc)?;
    let mut out = Vec::with_capacity(
        64 + doc.vertices.len() * 120 + doc.triangles.len() * 40 + doc.materials.len() * 200,
    );
    if doc.encoding == Encoding::Utf8 {
        out.extend_from_slice(b"\xEF\xBB\xBF");
    }

    header(&mut out, "Vertices:", doc.vertices.len());
    for (i, v) in doc.vertices.iter().enumerate() {
        put_u32(&mut out, i as u32);
        out.push(b' ');
        put_floats(&mut out, &v.position);
        out.push(b' ');
        put_floats(&mut out, &v.weights);
        out.push(b' ');
        put_u32(&mut out, v.blend_indices);
        out.push(b' ');
        put_floats(&mut out, &v.normal);
        out.push(b' ');
        put_floats(&mut out, &v.uv);
        out.extend_from_slice(EOL);
    }

    header(&mut out, "Indices:", doc.triangles.len() * 3);
    for tri in &doc.triangles {
        put_u32_row(&mut out, tri);
    }

    header(&mut out, "Adjacency:", doc.adjacency.len());
    for row in &doc.adjacency {
        put_u32_row(&mut out, row);
    }

    header(&mut out, "Materials:", doc.materials.len());
    for (i, m) in doc.materials.iter().enumerate() {
        put_u32(&mut out, i as u32);
        out.extend_from_slice(EOL);
        for colour in [&m.diffuse, &m.ambient, &m.specular, &m.emissive] {
            put_floats(&mut out, colour);
            out.extend_from_slice(EOL);
        }
        put_f32(&mut out, m.power);
        out.extend_from_slice(EOL);
        match &m.texture {
            Some(t) => put_quoted(&mut out, &t.raw),
            None => out.extend_from_slice(b"\"(NULL)\""),
        }
        out.extend_from_slice(EOL);
    }

    header(&mut out, "Attributes:", doc.attributes.len());
    for r in &doc.attributes {
        put_u32_row(
            &mut out,
            &[
                r.material,
                r.face_start,
                r.face_count,
                r.vertex_start,
                r.vertex_count,
            ],
        );
    }

    header(&mut out, "Bone:", doc.bones.len());
    for (i, b) in doc.bones.iter().enumerate() {
        put_quoted(&mut out, &b.name.raw);
        out.extend_from_slice(EOL);
        put_u32(&mut out, i as u32);
        out.push(b' ');
        put_i32(&mut out, b.parent);
        out.push(b' ');
        put_i32(&mut out, b.symmetric);
        out.extend_from_slice(EOL);
        put_floats(&mut out, &b.begin);
        out.push(b' ');
        put_floats(&mut out, &b.end);
        out.extend_from_slice(EOL);
        put_floats(&mut out, &b.rotation);
        out.extend_from_slice(EOL);
    }
    Ok(out)
}

fn put_u32_row(out: &mut Vec<u8>, row: &[u32]) {
    for (i, &v) in row.iter().enumerate() {
        if i > 0 {
            out.push(b' ');
        }
        put_u32(out, v);
    }
    out.extend_from_slice(EOL);
}

#[cfg(test)]
mod tests {
    #[test]
    fn plain_floats_match_core_display() {
        let mut seed: u64 = 0x9E37_79B9_7F4A_7C15;
        let mut next = move || {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            seed
        };
        let mut values: Vec<f32> = (0..2_000_000)
            .map(|_| f32::from_bits(next() as u32))
            .collect();
        // Decimal-looking values, as real files hold them.
        values.extend((0..2_000_000).map(|_| {
            let n = (next() % 100_000_000) as f32;
            let k = (next() % 9) as i32;
            let v = n / 10f32.powi(k);
            if next() % 2 == 0 {
                v
            } else {
                -v
            }
        }));
        values.extend((0..100_000).map(|i| i as f32 * 0.001));
        values.extend([
            0.0,
            -0.0,
            1.0,
            0.5,
            16_777_216.0,
            16_777_218.0,
            1e10,
            3.4028235e38,
            1e-7,
        ]);
        let mut taken = 0;
        let mut ties = 0;
        for v in values.into_iter().filter(|v| v.is_finite()) {
            let mut fast = Vec::new();
            super::put_f32_plain(&mut fast, v);
            taken += 1;
            // Reads back to the same bits, and is as short as core's spelling. (The two
            // differ only where two shortest decimals are equally near, e.g. 312985.125:
            // zmij rounds the tie to even, `312985.12`, core up, `312985.13`.)
            let core = format!("{v}");
            let ours = String::from_utf8(fast).unwrap();
            let back = crate::lex::parse_f32(ours.as_bytes()).unwrap();
            assert_eq!(back.to_bits(), v.to_bits(), "{ours} for {core}");
            assert_eq!(ours.len(), core.len(), "{ours} for {core}");
            if ours != core {
                ties += 1;
            }
        }
        assert!(taken > 4_000_000, "{taken}");
        assert!(ties < taken / 100, "{ties} of {taken} differ from core");
    }
}
