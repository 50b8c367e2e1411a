//! Colour bytes as unit floats: a byte `b` means `b / 255` ([`Colors::Bytes`](super::Colors)),
//! the one table every place that needs the float of a colour byte reads.

/// `b / 255` for every byte `b`, correctly rounded (the same bits as the division), looked up
/// instead of computed per channel of every vertex.
// Const evaluation: an index out of range would fail the build, not panic at run time.
#[allow(clippy::indexing_slicing)]
pub(crate) const BYTE_UNIT: [f32; 256] = {
    let mut t = [0.0f32; 256];
    let mut i = 0;
    while i < 256 {
        t[i] = i as f32 / 255.0;
        i += 1;
    }
    t
};

/// The floats of one colour's bytes (`b / 255` each).
pub(crate) fn unit_floats(c: [u8; 4]) -> [f32; 4] {
    c.map(|b| BYTE_UNIT.get(usize::from(b)).copied().unwrap_or(1.0))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_byte_is_its_division() {
        for b in 0..=255u8 {
            let x = f32::from(b) / 255.0;
            assert_eq!(unit_floats([b; 4]).map(f32::to_bits), [x.to_bits(); 4]);
        }
    }
}
