//! Base64 (RFC 4648, standard alphabet, padded) of raw little-endian `f32`, `f64` and `u32`
//! arrays, for the `extras` that keep a source's exact bits where glTF has no place for them
//! (BMF stored tangents, exact skinning matrices, ELEM's `f64` rows). JSON numbers cannot hold NaN payloads or every `-0.0`
//! faithfully through every tool, and base64 is a third the size of decimal text.

const ALPHABET: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

/// The base64 text of the floats' little-endian bytes.
#[cfg(feature = "bmf")]
pub(crate) fn encode_f32(values: &[f32]) -> String {
    let bytes: Vec<u8> = values.iter().flat_map(|v| v.to_le_bytes()).collect();
    encode(&bytes)
}

/// The base64 text of the floats' little-endian bytes.
#[cfg(feature = "elem")]
pub(crate) fn encode_f64(values: &[f64]) -> String {
    let bytes: Vec<u8> = values.iter().flat_map(|v| v.to_le_bytes()).collect();
    encode(&bytes)
}

/// The base64 text of the numbers' little-endian bytes.
#[cfg(feature = "elem")]
pub(crate) fn encode_u32(values: &[u32]) -> String {
    let bytes: Vec<u8> = values.iter().flat_map(|v| v.to_le_bytes()).collect();
    encode(&bytes)
}

/// The base64 text of `bytes`.
pub(crate) fn encode(bytes: &[u8]) -> String {
    let mut out = String::with_capacity(bytes.len().div_ceil(3) * 4);
    for chunk in bytes.chunks(3) {
        let b = [
            chunk.first().copied().unwrap_or(0),
            chunk.get(1).copied().unwrap_or(0),
            chunk.get(2).copied().unwrap_or(0),
        ];
        let n = (u32::from(b[0]) << 16) | (u32::from(b[1]) << 8) | u32::from(b[2]);
        for (k, shift) in [18u32, 12, 6, 0].into_iter().enumerate() {
            if k <= chunk.len() {
                let i = ((n >> shift) & 63) as usize;
                out.push(char::from(ALPHABET.get(i).copied().unwrap_or(b'A')));
            } else {
                out.push('=');
            }
        }
    }
    out
}

/// The floats of a base64 text made by [`encode_f32`]; `None` for anything else (bad
/// characters, a length that is not whole floats). Allocates at most 3/4 of the text.
#[cfg(feature = "bmf")]
pub(crate) fn decode_f32(text: &str) -> Option<Vec<f32>> {
    let bytes = decode(text)?;
    if bytes.len() % 4 != 0 {
        return None;
    }
    bytes
        .chunks_exact(4)
        .map(|c| <[u8; 4]>::try_from(c).ok().map(f32::from_le_bytes))
        .collect()
}

/// The floats of a base64 text made by [`encode_f64`]; `None` for anything else.
#[cfg(feature = "elem")]
pub(crate) fn decode_f64(text: &str) -> Option<Vec<f64>> {
    let bytes = decode(text)?;
    if bytes.len() % 8 != 0 {
        return None;
    }
    bytes
        .chunks_exact(8)
        .map(|c| <[u8; 8]>::try_from(c).ok().map(f64::from_le_bytes))
        .collect()
}

/// The numbers of a base64 text made by [`encode_u32`]; `None` for anything else.
#[cfg(feature = "elem")]
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

/// The bytes of a base64 text made by [`encode`]; `None` for anything else (bad characters,
/// padding inside, a length that is not whole quads). Allocates at most 3/4 of the text.
pub(crate) fn decode(text: &str) -> Option<Vec<u8>> {
    let text = text.as_bytes();
    if text.len() % 4 != 0 {
        return None;
    }
    let mut bytes = Vec::with_capacity(text.len() / 4 * 3);
    for quad in text.chunks_exact(4) {
        let mut n = 0u32;
        let mut pad = 0usize;
        for &c in quad {
            let v = match c {
                b'A'..=b'Z' => c - b'A',
                b'a'..=b'z' => c - b'a' + 26,
                b'0'..=b'9' => c - b'0' + 52,
                b'+' => 62,
                b'/' => 63,
                b'=' => {
                    pad += 1;
                    0
                }
                _ => return None,
            };
            if pad > 0 && c != b'=' {
                return None;
            }
            n = (n << 6) | u32::from(v);
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
    #[cfg(feature = "bmf")]
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
    }

    #[test]
    #[cfg(feature = "elem")]
    fn doubles_and_indices_keep_their_bits() {
        let values = [0.1, -0.0, f64::from_bits(0x7ff8_0000_0000_1234), 1e300];
        let back = decode_f64(&encode_f64(&values)).unwrap();
        let bits = |v: &[f64]| v.iter().map(|x| x.to_bits()).collect::<Vec<_>>();
        assert_eq!(bits(&back), bits(&values));
        assert_eq!(
            decode_u32(&encode_u32(&[0, 7, u32::MAX])).unwrap(),
            [0, 7, u32::MAX]
        );
        // Whole bytes, but not whole numbers.
        assert_eq!(decode_f64(&encode(&[0; 4])), None);
        assert_eq!(decode_u32(&encode(&[1, 2, 3])), None);
    }
}
