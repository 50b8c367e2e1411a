//! Base64 (RFC 4648, standard alphabet, padded) of raw bytes and little-endian `f32`, `f64` and
//! `u32` arrays, for the `extras` that keep a source's exact bits where glTF has no place for
//! them (BMF stored tangents, exact skinning matrices, unreferenced vertices, odd index
//! layouts; SKM blend words and adjacency; ELEM's `f64` rows, whose bytes [`put`] makes a blob
//! from 1 KiB up). JSON numbers cannot hold NaN payloads or every `-0.0` faithfully through
//! every tool, and base64 is a third the size of decimal text.

use crate::scene::Array;
use serde_json::Value;
use std::borrow::Cow;

const ALPHABET: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

/// The base64 text of the floats' little-endian bytes.
pub(crate) fn encode_f32(values: &[f32]) -> String {
    // Borrowed as they are (binio builds on little-endian hosts only): a copy of a large
    // mesh's array here was the peak of its conversion.
    encode(binio::pod::as_bytes(values))
}

/// The base64 text of the words' little-endian bytes (SKM blend words, adjacency).
#[cfg(any(feature = "skm", feature = "elem"))]
pub(crate) fn encode_u32(values: &[u32]) -> String {
    encode(binio::pod::as_bytes(values))
}

/// The words of a base64 text made by [`encode_u32`]; `None` for anything else (bad
/// characters, a length that is not whole words).
#[cfg(any(feature = "skm", feature = "elem"))]
pub(crate) fn decode_u32(text: &str) -> Option<Vec<u32>> {
    let bytes = decode(text)?;
    if bytes.len() % 4 != 0 {
        return None;
    }
    bytes
        .chunks_exact(4)
        .map(|c| <[u8; 4]>::try_from(c).ok().map(u32::from_le_bytes))
        .collect()
}

/// The base64 text of raw bytes (e.g. whole file records, BMF vertices and indices).
pub(crate) fn encode(bytes: &[u8]) -> String {
    // Bytes first, one `extend` of four per whole group, then one UTF-8 check (ASCII, fast):
    // a `char` push per digit was a tenth of the SKM export (issue 18).
    let digit = |n: u32, shift: u32| ALPHABET.get(((n >> shift) & 63) as usize).copied();
    let mut out: Vec<u8> = Vec::with_capacity(bytes.len().div_ceil(3) * 4);
    let groups = bytes.chunks_exact(3);
    let tail = groups.remainder();
    for g in groups {
        let n = g.iter().fold(0u32, |n, &b| (n << 8) | u32::from(b));
        out.extend([18, 12, 6, 0].map(|s| digit(n, s).unwrap_or(b'A')));
    }
    if !tail.is_empty() {
        let b = [0, 1, 2].map(|k| tail.get(k).copied().unwrap_or(0));
        let n = (u32::from(b[0]) << 16) | (u32::from(b[1]) << 8) | u32::from(b[2]);
        for (k, shift) in [18u32, 12, 6, 0].into_iter().enumerate() {
            out.push(if k <= tail.len() {
                digit(n, shift).unwrap_or(b'A')
            } else {
                b'='
            });
        }
    }
    // Every byte is from the alphabet or `=`: always ASCII.
    String::from_utf8(out).unwrap_or_default()
}

/// The floats of a base64 text made by [`encode_f32`]; `None` for anything else (bad
/// characters, a length that is not whole floats). Allocates at most 3/4 of the text.
pub(crate) fn decode_f32(text: &str) -> Option<Vec<f32>> {
    let bytes = decode(text)?;
    if bytes.len() % 4 != 0 {
        return None;
    }
    Some(
        bytes
            .chunks_exact(4)
            .map(|c| match *c {
                [a, b, c, d] => f32::from_le_bytes([a, b, c, d]),
                _ => 0.0, // chunks_exact: always four bytes
            })
            .collect(),
    )
}

/// The floats' little-endian bytes (the contents of a blob, `scene/blob.rs`; `binio` builds
/// only on little-endian hosts, so these are the floats' own bytes).
pub(crate) fn f32_le(values: &[f32]) -> Vec<u8> {
    binio::pod::as_bytes(values).to_vec()
}

/// Bytes as an extras value: a blob when large, else base64 text.
pub(crate) fn put(blobs: &mut Vec<Array<u8>>, bytes: Vec<u8>) -> Value {
    super::blob::put_or_text(blobs, bytes, encode)
}

/// Floats as an extras value: a blob of their little-endian bytes when large, else base64.
pub(crate) fn put_f32(blobs: &mut Vec<Array<u8>>, values: &[f32]) -> Value {
    put(blobs, f32_le(values))
}

/// The bytes of an extras value made by [`put`] (or base64 text of earlier exports).
pub(crate) fn bytes<'a>(blobs: &'a [Array<u8>], value: &Value) -> Option<Cow<'a, [u8]>> {
    super::blob::bytes_or(blobs, value, decode)
}

/// The values of an extras value made by [`put`] from `T`s' bytes, borrowed from the blob when
/// it is aligned for `T` (a blob is its own allocation, so it is), else copied: a large
/// model's per-vertex arrays are read in place instead of copied once more. `None` when the
/// byte count is not a multiple of `T`'s size.
pub(crate) fn pods<'a, T: bytemuck::Pod>(
    blobs: &'a [Array<u8>],
    value: &Value,
) -> Option<Cow<'a, [T]>> {
    match bytes(blobs, value)? {
        Cow::Borrowed(b) => match bytemuck::try_cast_slice::<u8, T>(b) {
            Ok(items) => Some(Cow::Borrowed(items)),
            Err(_) => binio::pod::vec_from_bytes(b).map(Cow::Owned),
        },
        Cow::Owned(b) => binio::pod::vec_from_bytes(&b).map(Cow::Owned),
    }
}

/// Each byte's 6-bit value; `PAD` for `=`, `BAD` for anything outside the alphabet.
const PAD: u8 = 64;
const BAD: u8 = 255;
// Const evaluation: an index out of range would fail the build, not panic at run time.
#[allow(clippy::indexing_slicing)]
const VALUES: [u8; 256] = {
    let mut t = [BAD; 256];
    let mut i = 0;
    while i < 64 {
        t[ALPHABET[i] as usize] = i as u8;
        i += 1;
    }
    t[b'=' as usize] = PAD;
    t
};

/// The bytes of a base64 text made by [`encode`]; `None` for anything else. Allocates at most
/// 3/4 of the text. A table lookup per character: large models' vertex arrays come through
/// here.
pub(crate) fn decode(text: &str) -> Option<Vec<u8>> {
    let text = text.as_bytes();
    if text.len() % 4 != 0 {
        return None;
    }
    let mut bytes = Vec::with_capacity(text.len() / 4 * 3);
    for quad in text.chunks_exact(4) {
        let [a, b, c, d] = *quad else {
            return None; // chunks_exact: always four bytes
        };
        let v = [a, b, c, d].map(|c| VALUES.get(usize::from(c)).copied().unwrap_or(BAD));
        if v.iter().all(|&x| x < PAD) {
            let n = v.iter().fold(0u32, |n, &x| (n << 6) | u32::from(x));
            bytes.extend_from_slice(&[(n >> 16) as u8, (n >> 8) as u8, n as u8]);
            continue;
        }
        // Padding (only trailing, at most two) or a bad character.
        let mut n = 0u32;
        let mut pad = 0usize;
        for x in v {
            match x {
                BAD => return None,
                PAD => pad += 1,
                _ if pad > 0 => return None,
                _ => {}
            }
            n = (n << 6) | u32::from(x & 63);
        }
        if pad > 2 {
            return None;
        }
        let three = [(n >> 16) as u8, (n >> 8) as u8, n as u8];
        bytes.extend(three.iter().take(3 - pad));
    }
    Some(bytes)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn floats_keep_their_bits() {
        let values = [
            0.0,
            -0.0,
            1.5,
            f32::from_bits(0x7fc0_1234),
            f32::MIN_POSITIVE,
        ];
        for n in 0..=values.len() {
            let text = encode_f32(&values[..n]);
            let back = decode_f32(&text).unwrap();
            let bits = |v: &[f32]| v.iter().map(|x| x.to_bits()).collect::<Vec<_>>();
            assert_eq!(bits(&back), bits(&values[..n]));
        }
        assert_eq!(encode_f32(&[1.0]), "AACAPw==");
        assert_eq!(decode_f32("AACAPw=").as_deref(), None);
        assert_eq!(decode_f32("AAC*Pw==").as_deref(), None);
        assert_eq!(decode_f32("AA=APw==").as_deref(), None);
        assert_eq!(decode_f32("AACA").as_deref(), None);
        assert_eq!(decode(&encode(b"ab")).as_deref(), Some(&b"ab"[..]));
        assert_eq!(encode(b"ab"), "YWI=");
        assert_eq!(encode(b"a"), "YQ==");
        assert_eq!(encode(b"abcd"), "YWJjZA==");
    }
}
