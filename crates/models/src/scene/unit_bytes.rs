//! Colours that are bytes: SMF and MDL colours are read as `b / 255`, and the glTF writer
//! writes a colour array whose values are all such as normalised `u8` (as the SMF and MDL
//! specifications ask), which the glTF reader reads back as `b / 255`, the same bits.

/// Whether every value is exactly, bit for bit, `b / 255` for some byte `b` (so that writing
/// it as that byte, [`exact_byte`], loses nothing; `-0.0`, NaN and values between bytes are
/// not).
pub(crate) fn all_unit_bytes(values: &[[f32; 4]]) -> bool {
    let flat: &[f32] = bytemuck::cast_slice(values);
    // A fold without an early exit vectorises; the blocks still stop early on the first miss
    // (float colours of other formats usually miss in the first block).
    flat.chunks(4096).all(|block| {
        block.iter().fold(true, |all, &x| {
            let whole = nearest_whole(x) - WHOLE;
            // `x >= 0` rules NaN out: a NaN goes through the arithmetic with its bits.
            all & (x >= 0.0) & ((whole / 255.0).to_bits() == x.to_bits())
        })
    })
}

/// The byte `b` of a value that is exactly `b / 255` (others give a nearby byte), because
/// `x · 255` then lies within a rounding of `b`, far from the halves.
pub(crate) fn exact_byte(x: f32) -> u8 {
    (nearest_whole(x).to_bits() & 0xFF) as u8
}

/// 2²³: adding it to a float in 0..=255 leaves the nearest whole number in the low bits of
/// the sum (the sum's spacing is 1).
const WHOLE: f32 = 8_388_608.0;

/// `2²³ + round(x · 255)` for `x` clamped to 0..=1, in float operations only (vector forms on
/// every x86-64; a float-to-integer cast is scalar there, as it must saturate).
fn nearest_whole(x: f32) -> f32 {
    x.clamp(0.0, 1.0) * 255.0 + WHOLE
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_byte_comes_back_and_other_values_do_not() {
        for b in 0..=255u8 {
            let x = f32::from(b) / 255.0;
            assert_eq!(exact_byte(x), b);
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
