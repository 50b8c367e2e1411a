//! The one skin-weight normaliser. The format converters call it to pack their influences into
//! glTF's four slots, [`super::vertices`] calls it to repair a scene's skinning, and the format
//! writers call it to recognise influences an import made, so that every path gives the same
//! bits for the same influences.

/// In what order the kept influences fill the four slots.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SlotOrder {
    /// The source's order, for formats with four fixed slots (BMF, SMF, MDL, glTF).
    Source,
    /// Largest weight first (ties: the lower joint first), for formats that list influences
    /// per bone rather than per slot (ELEM, SKM).
    LargestFirst,
}

/// What [`normalize_weights`] changed in one vertex's influences.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct WeightFixes {
    /// Influences with a negative or non-finite weight (ignored).
    pub invalid: u32,
    /// Weighted influences on a joint at or beyond the joint count (ignored).
    pub out_of_range: u32,
    /// Influences on a joint that an earlier influence already named (their weights added).
    pub merged: u32,
    /// More than four joints kept a weight: the smallest were dropped.
    pub truncated: bool,
    /// No usable weight at all: the vertex was bound to joint 0 with weight 1.
    pub empty: bool,
    /// The weights did not sum to 1 (± 1e-3) and were rescaled.
    pub renormalized: bool,
}

impl WeightFixes {
    /// Whether anything other than a rounding-level rescale had to change.
    pub fn any(&self) -> bool {
        self.invalid > 0
            || self.out_of_range > 0
            || self.merged > 0
            || self.truncated
            || self.empty
            || self.renormalized
    }
}

/// One distinct joint: its index, summed weight and the position of its first influence.
type Slot = (u16, f64, usize);

/// Packs one vertex's `(joint, weight)` influences into glTF's `JOINTS_0` / `WEIGHTS_0`:
/// ignores negative and non-finite weights, zero weights and joints `>= joint_count`; merges
/// repeated joints (their weights add up); keeps the four largest when more remain; scales the
/// weights to sum to 1 (in `f64`, the `f32` rounding put on the largest, so that the sum is as
/// close to 1 as `f32` gets); fills unused slots with joint 0, weight 0, as the Khronos
/// validator wants. A vertex left with no weight is bound to joint 0 with weight 1.
pub fn normalize_weights(
    influences: impl IntoIterator<Item = (u32, f32)>,
    joint_count: usize,
    order: SlotOrder,
) -> ([u16; 4], [f32; 4], WeightFixes) {
    let mut fixes = WeightFixes::default();
    // Four distinct joints fit without allocating; a longer list (ELEM) spills into `more`.
    let mut first: [Slot; 4] = [(0, 0.0, 0); 4];
    let mut used = 0usize;
    let mut more: Vec<Slot> = Vec::new();
    for (at, (joint, weight)) in influences.into_iter().enumerate() {
        if !weight.is_finite() || weight < 0.0 {
            fixes.invalid += 1;
            continue;
        }
        if weight == 0.0 {
            continue;
        }
        let Some(joint) = u16::try_from(joint)
            .ok()
            .filter(|&j| usize::from(j) < joint_count)
        else {
            fixes.out_of_range += 1;
            continue;
        };
        let mut known = first.iter_mut().take(used).chain(more.iter_mut());
        if let Some(slot) = known.find(|s| s.0 == joint) {
            slot.1 += f64::from(weight);
            fixes.merged += 1;
        } else if let Some(slot) = first.get_mut(used) {
            *slot = (joint, f64::from(weight), at);
            used += 1;
        } else {
            more.push((joint, f64::from(weight), at));
        }
    }
    let mut kept: Vec<Slot>;
    let kept: &mut [Slot] = if more.is_empty() {
        first.get_mut(..used).unwrap_or_default()
    } else {
        kept = first.iter().copied().chain(more).collect();
        kept.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0)));
        kept.truncate(4);
        fixes.truncated = true;
        &mut kept
    };
    match order {
        SlotOrder::Source => kept.sort_by_key(|s| s.2),
        SlotOrder::LargestFirst => kept.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0))),
    }
    let sum: f64 = kept.iter().map(|s| s.1).sum();
    if kept.is_empty() || !(sum > 0.0 && sum.is_finite()) {
        fixes.empty = true;
        return ([0; 4], [1.0, 0.0, 0.0, 0.0], fixes);
    }
    fixes.renormalized = (sum - 1.0).abs() > 1e-3;
    let mut joints = [0u16; 4];
    let mut weights = [0.0f32; 4];
    for ((jo, wo), s) in joints.iter_mut().zip(&mut weights).zip(kept.iter()) {
        *jo = s.0;
        *wo = (s.1 / sum) as f32;
    }
    let total: f32 = weights.iter().sum();
    if let Some(largest) = weights.iter_mut().max_by(|a, b| a.total_cmp(b)) {
        *largest += 1.0 - total;
    }
    (joints, weights, fixes)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn slots_are_merged_cleaned_and_renormalised() {
        let (j, w, f) = normalize_weights(
            [(3, 0.25), (3, 0.25), (9, 0.5), (1, 0.0)],
            4,
            SlotOrder::Source,
        );
        assert_eq!((j, w), ([3, 0, 0, 0], [1.0, 0.0, 0.0, 0.0]));
        assert_eq!((f.merged, f.out_of_range, f.renormalized), (1, 1, true));
        let (j, w, f) = normalize_weights([(1, 0.0), (2, f32::NAN)], 4, SlotOrder::Source);
        assert_eq!((j, w), ([0; 4], [1.0, 0.0, 0.0, 0.0]));
        assert!(f.empty && f.invalid == 1);
        // Uninitialised memory in a BMF slot: a joint beyond u16 and NaN weights.
        let garbage = [0xCDCD_CDCDu32; 4].into_iter().zip([f32::NAN; 4]);
        let (j, w, f) = normalize_weights(garbage, 3, SlotOrder::Source);
        assert_eq!((j, w, f.invalid), ([0; 4], [1.0, 0.0, 0.0, 0.0], 4));
        let (j, w, f) = normalize_weights([(2, 0.25), (1, 0.75)], 4, SlotOrder::Source);
        assert_eq!((j, w), ([2, 1, 0, 0], [0.25, 0.75, 0.0, 0.0]));
        assert!(!f.any());
        let (_, w, _) = normalize_weights(
            [(0, 0.1), (1, 0.2), (2, 0.3), (3, 0.3)],
            4,
            SlotOrder::Source,
        );
        assert!((w.iter().sum::<f32>() - 1.0).abs() < 1e-6);
    }

    #[test]
    fn long_lists_keep_the_four_largest() {
        let list = [(5, 0.1), (1, 0.3), (2, 0.2), (3, 0.25), (4, 0.15)];
        let (j, w, f) = normalize_weights(list, 6, SlotOrder::LargestFirst);
        assert_eq!(j, [1, 3, 2, 4]);
        assert!(f.truncated && f.renormalized);
        assert!((w[0] - 0.3 / 0.9).abs() < 1e-6);
        let (j, _, _) = normalize_weights(list, 6, SlotOrder::Source);
        assert_eq!(j, [1, 2, 3, 4]);
        // A joint repeated past the fourth slot still merges into its first influence.
        let list = [(1, 0.1), (2, 0.1), (3, 0.1), (4, 0.1), (5, 0.1), (1, 0.5)];
        let (j, _, f) = normalize_weights(list, 6, SlotOrder::LargestFirst);
        assert_eq!((j[0], f.merged), (1, 1));
    }
}
