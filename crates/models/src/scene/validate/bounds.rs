//! `POSITION` bounds, found in the pass that checks positions are finite: the glTF writer's
//! `min`/`max` (which the glTF validator asks for) come with the [`ValidScene`](super::ValidScene)
//! instead of another pass over every position.

/// The least and greatest coordinate on each axis of a mesh's positions; ±infinity for a mesh
/// without vertices.
pub(crate) type Bounds = ([f32; 3], [f32; 3]);

/// Coordinates a block holds: eight vertices.
const BLOCK: usize = 24;

/// The position bounds of `positions` ([`position_bounds`]) when every coordinate is finite,
/// `None` when one is not: one read-only pass that does both. The integer keys order every
/// float, −NaN below −infinity below the finite values below +infinity below +NaN, so the
/// coordinates are all finite exactly when the least and the greatest are.
pub(super) fn finite_bounds(positions: &[[f32; 3]]) -> Option<Bounds> {
    let bounds = position_bounds(positions);
    if positions.is_empty() {
        return Some(bounds);
    }
    let (lo, hi) = &bounds;
    lo.iter().chain(hi).all(|c| c.is_finite()).then_some(bounds)
}

/// The least and greatest coordinate on each axis of `positions` (±infinity when empty).
/// Compared as integers ordered as the floats are, with −0 below +0 (IEEE 754 `minimum` and
/// `maximum`), so that the result does not depend on the order of the comparisons; eight
/// vertices (24 coordinates) at a time, each with a running bound of its own, so that the
/// loop vectorises; the eight are folded at the end.
pub(crate) fn position_bounds(positions: &[[f32; 3]]) -> Bounds {
    if positions.is_empty() {
        return ([f32::INFINITY; 3], [f32::NEG_INFINITY; 3]);
    }
    // A negative float's magnitude bits flipped: the integers then order as the floats do.
    // The map is its own inverse.
    let key = |bits: i32| bits ^ (((bits >> 31) as u32) >> 1) as i32;
    let mut lo = [i32::MAX; BLOCK];
    let mut hi = [i32::MIN; BLOCK];
    let mut take = |block: &[f32]| {
        for ((l, h), &c) in lo.iter_mut().zip(hi.iter_mut()).zip(block) {
            let k = key(c.to_bits() as i32);
            *l = (*l).min(k);
            *h = (*h).max(k);
        }
    };
    let flat = positions.as_flattened();
    let mut blocks = flat.chunks_exact(BLOCK);
    for block in &mut blocks {
        take(block);
    }
    // The remainder is whole vertices, so coordinate i is still on axis i % 3.
    take(blocks.remainder());
    let fold = |lanes: &[i32; BLOCK], pick: fn(i32, i32) -> i32| {
        let mut axes = [lanes[0], lanes[1], lanes[2]];
        for vertex in lanes.chunks_exact(3).skip(1) {
            for (a, &k) in axes.iter_mut().zip(vertex) {
                *a = pick(*a, k);
            }
        }
        axes.map(|k| f32::from_bits(key(k) as u32))
    };
    (fold(&lo, i32::min), fold(&hi, i32::max))
}

#[cfg(test)]
mod tests {
    use super::{finite_bounds, position_bounds};

    /// The integer-keyed bounds are the floats' bounds (with −0 below +0), whatever the length
    /// (lanes and remainder) and the mix of signs, zeros, subnormals and extremes.
    #[test]
    fn position_bounds_are_the_least_and_greatest() {
        let values = [
            0.0,
            -0.0,
            1.0,
            -1.0,
            f32::from_bits(1),
            -f32::from_bits(1),
            f32::MIN_POSITIVE,
            f32::MAX,
            f32::MIN,
            123.456,
            -7.25e-20,
        ];
        let mut seed = 0x9E37_79B9u32;
        let mut next = || {
            seed ^= seed << 13;
            seed ^= seed >> 17;
            seed ^= seed << 5;
            values[seed as usize % values.len()]
        };
        // Compares floats in the order −0 < +0, as IEEE 754 `minimum` does.
        let less = |a: f32, b: f32| {
            a < b || (a == 0.0 && b == 0.0 && a.is_sign_negative() && b.is_sign_positive())
        };
        for len in [1usize, 2, 7, 8, 9, 17, 100] {
            for _ in 0..50 {
                let positions: Vec<[f32; 3]> = (0..len).map(|_| [next(), next(), next()]).collect();
                let (lo, hi) = position_bounds(&positions);
                for axis in 0..3 {
                    let column = positions.iter().map(|p| p[axis]);
                    let least = column.clone().reduce(|a, b| if less(b, a) { b } else { a });
                    let most = column.reduce(|a, b| if less(a, b) { b } else { a });
                    assert_eq!(
                        Some(lo[axis].to_bits()),
                        least.map(f32::to_bits),
                        "{positions:?}"
                    );
                    assert_eq!(
                        Some(hi[axis].to_bits()),
                        most.map(f32::to_bits),
                        "{positions:?}"
                    );
                }
            }
        }
        assert_eq!(
            position_bounds(&[]),
            ([f32::INFINITY; 3], [f32::NEG_INFINITY; 3])
        );
    }

    /// `finite_bounds` is `position_bounds` when every coordinate is finite, and `None` when any
    /// one coordinate, in any lane or in the remainder, is infinite or NaN.
    #[test]
    fn finite_bounds_is_none_exactly_when_a_coordinate_is_not_finite() {
        for len in [1usize, 7, 8, 9, 17] {
            let positions: Vec<[f32; 3]> = (0..len)
                .map(|i| [i as f32, -(i as f32), 0.5 * i as f32])
                .collect();
            assert_eq!(finite_bounds(&positions), Some(position_bounds(&positions)));
            for at in 0..len * 3 {
                for bad in [f32::INFINITY, f32::NEG_INFINITY, f32::NAN, -f32::NAN] {
                    let mut broken = positions.clone();
                    if let Some(c) = broken.as_flattened_mut().get_mut(at) {
                        *c = bad;
                    }
                    assert_eq!(finite_bounds(&broken), None, "{len} {at} {bad}");
                }
            }
        }
        assert_eq!(finite_bounds(&[]), Some(position_bounds(&[])));
    }
}
