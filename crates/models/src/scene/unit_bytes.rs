//! Colour bytes as unit floats and back: the one definition shared by the converters (SMF and
//! MDL colours are bytes, read as `b / 255`) and the glTF writer (which writes colours that are
//! all such values as normalised `u8`, as the SMF and MDL specifications ask, and as the glTF
//! reader reads them back: `b / 255`, the same bits).

/// `(x.clamp(0.0, 1.0) * 255.0).round() as u8` without the `roundf` call (once per colour
/// channel of every vertex): the fraction of a value in 0..=255 is exact, halves go up.
pub(crate) fn unit_byte(x: f32) -> u8 {
    let y = x.clamp(0.0, 1.0) * 255.0;
    let whole = y as u8;
    if y - f32::from(whole) >= 0.5 {
        whole.saturating_add(1)
    } else {
        whole
    }
}

/// Whether every value is exactly, bit for bit, `b / 255` for some byte `b` (so that writing
/// it as that byte loses nothing; `-0.0`, NaN and values between bytes are not).
pub(crate) fn all_unit_bytes(values: &[[f32; 4]]) -> bool {
    // A fold without an early exit vectorises; the blocks still stop early on the first miss
    // (float colours of other formats usually miss in the first block).
    values.chunks(1024).all(|block| {
        block.iter().flatten().fold(true, |all, &x| {
            all & ((f32::from(unit_byte(x)) / 255.0).to_bits() == x.to_bits())
        })
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_byte_comes_back_and_other_values_do_not() {
        for b in 0..=255u8 {
            let x = f32::from(b) / 255.0;
            assert_eq!(unit_byte(x), b);
            assert!(all_unit_bytes(&[[x, 0.0, 1.0, x]]));
            // The neighbouring floats are not bytes.
            for y in [f32::from_bits(x.to_bits() + 1), -x - f32::EPSILON] {
                assert!(!all_unit_bytes(&[[1.0, y, 0.0, 0.0]]), "{y}");
            }
        }
        assert!(!all_unit_bytes(&[[-0.0, 0.0, 0.0, 0.0]]));
        assert!(!all_unit_bytes(&[[f32::NAN, 0.0, 0.0, 0.0]]));
        assert!(!all_unit_bytes(&[[0.5, 0.0, 0.0, 0.0]]));
        // A miss in a later block is found too.
        let mut many = vec![[1.0f32; 4]; 5000];
        assert!(all_unit_bytes(&many));
        many[4321][2] = 0.3;
        assert!(!all_unit_bytes(&many));
    }
}
