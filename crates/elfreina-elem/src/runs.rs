//! [`Runs`]: a list of `u32` kept as runs of one value.
//!
//! A mesh's per-face lists (corner counts, material indices) are mostly one value repeated:
//! every face a triangle, faces grouped by material. Kept as plain vectors they cost 4 bytes
//! per face each, 16 MB for a mesh of 2 M faces, held while the whole text is still in memory
//! (issue 18: the reading peak is the text and the document together). As runs they cost 8
//! bytes per change of value; at worst (every face differs from the last) 8 bytes per face,
//! still bounded by the text, where every face is a line of at least 2 bytes.

use std::fmt;

/// A list of `u32` stored as `(value, count)` runs; reads as the list it stands for
/// (`Debug` prints that list). Equal lists have equal runs: a run is only followed by one of
/// another value, or when its count is full (`u32::MAX`).
#[derive(Clone, Default, PartialEq, Eq, Hash)]
pub struct Runs {
    runs: Vec<(u32, u32)>,
    len: usize,
}

impl Runs {
    /// An empty list.
    pub const fn new() -> Self {
        Self {
            runs: Vec::new(),
            len: 0,
        }
    }

    /// The number of values.
    pub fn len(&self) -> usize {
        self.len
    }

    /// True when there is no value.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Appends `value`.
    pub fn push(&mut self, value: u32) {
        self.push_run(value, 1);
    }

    /// Appends `count` times `value`.
    pub fn push_run(&mut self, value: u32, count: u32) {
        if count == 0 {
            return;
        }
        self.len += count as usize;
        let mut count = count;
        if let Some((v, n)) = self.runs.last_mut() {
            if *v == value {
                let room = u32::MAX - *n;
                let added = room.min(count);
                *n += added;
                count -= added;
            }
        }
        if count > 0 {
            self.runs.push((value, count));
        }
    }

    /// The runs, in order: `(value, count)`, `count` ≥ 1.
    pub fn runs(&self) -> &[(u32, u32)] {
        &self.runs
    }

    /// The values, in order.
    pub fn iter(&self) -> impl Iterator<Item = u32> + Clone + '_ {
        self.runs
            .iter()
            .flat_map(|&(v, n)| std::iter::repeat_n(v, n as usize))
    }

    /// Value `i`, if there are more than `i` values (a walk over the runs: for one look-up,
    /// not for a loop; see [`Runs::iter`]).
    pub fn get(&self, i: usize) -> Option<u32> {
        let mut start = 0usize;
        for &(v, n) in &self.runs {
            start += n as usize;
            if i < start {
                return Some(v);
            }
        }
        None
    }

    /// True when every value satisfies `f` (one call per run).
    pub fn all(&self, mut f: impl FnMut(u32) -> bool) -> bool {
        self.runs.iter().all(|&(v, _)| f(v))
    }

    /// Keeps the first `len` values.
    pub fn truncate(&mut self, len: usize) {
        if len >= self.len {
            return;
        }
        let mut kept = 0usize;
        let mut keep_runs = 0;
        for (_, n) in self.runs.iter_mut() {
            if kept + *n as usize >= len {
                // `len - kept` is at most `n`, so it fits `u32`.
                *n = u32::try_from(len - kept).unwrap_or(*n);
                if *n > 0 {
                    keep_runs += 1;
                }
                break;
            }
            kept += *n as usize;
            keep_runs += 1;
        }
        self.runs.truncate(keep_runs);
        self.len = len;
    }

    /// Removes every value.
    pub fn clear(&mut self) {
        self.runs.clear();
        self.len = 0;
    }

    /// The values as a plain vector.
    pub fn to_vec(&self) -> Vec<u32> {
        let mut out = Vec::with_capacity(self.len);
        out.extend(self.iter());
        out
    }
}

impl fmt::Debug for Runs {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_list().entries(self.iter()).finish()
    }
}

impl Extend<u32> for Runs {
    fn extend<I: IntoIterator<Item = u32>>(&mut self, iter: I) {
        for v in iter {
            self.push(v);
        }
    }
}

impl FromIterator<u32> for Runs {
    fn from_iter<I: IntoIterator<Item = u32>>(iter: I) -> Self {
        let mut out = Self::new();
        out.extend(iter);
        out
    }
}

impl From<&[u32]> for Runs {
    fn from(values: &[u32]) -> Self {
        values.iter().copied().collect()
    }
}

impl From<Vec<u32>> for Runs {
    fn from(values: Vec<u32>) -> Self {
        Self::from(values.as_slice())
    }
}

impl<const N: usize> From<[u32; N]> for Runs {
    fn from(values: [u32; N]) -> Self {
        Self::from(values.as_slice())
    }
}

impl PartialEq<[u32]> for Runs {
    fn eq(&self, other: &[u32]) -> bool {
        self.len == other.len() && self.iter().eq(other.iter().copied())
    }
}

impl<const N: usize> PartialEq<[u32; N]> for Runs {
    fn eq(&self, other: &[u32; N]) -> bool {
        *self == other[..]
    }
}

impl PartialEq<Vec<u32>> for Runs {
    fn eq(&self, other: &Vec<u32>) -> bool {
        *self == other[..]
    }
}

#[cfg(test)]
mod tests {
    use super::Runs;

    #[test]
    fn runs_read_as_their_list() {
        let values = [3, 3, 3, 4, 4, 3, 7];
        let r = Runs::from(values);
        assert_eq!(r.runs(), [(3, 3), (4, 2), (3, 1), (7, 1)]);
        assert_eq!(r.len(), 7);
        assert_eq!(r, values);
        assert_eq!(format!("{r:?}"), format!("{values:?}"));
        let got: Vec<Option<u32>> = (0..8).map(|i| r.get(i)).collect();
        let want: Vec<Option<u32>> = (0..8).map(|i| values.get(i).copied()).collect();
        assert_eq!(got, want);
        assert!(r.all(|v| v >= 3) && !r.all(|v| v == 3));
        assert_eq!(r.to_vec(), values);
    }

    #[test]
    fn truncation_keeps_a_prefix_in_canonical_runs() {
        let values = [1, 1, 2, 2, 2, 5];
        for len in 0..=7 {
            let mut r = Runs::from(values);
            r.truncate(len);
            let want = &values[..len.min(values.len())];
            assert_eq!(r, *want, "{len}");
            assert_eq!(r, Runs::from(want), "{len}: same runs as built directly");
        }
    }

    #[test]
    fn a_full_run_goes_on_in_a_new_one() {
        let mut r = Runs::new();
        r.push_run(9, u32::MAX - 1);
        r.push_run(9, 3);
        assert_eq!(r.runs(), [(9, u32::MAX), (9, 2)]);
        assert_eq!(r.len(), u32::MAX as usize + 2);
        r.truncate(5);
        assert_eq!(r.runs(), [(9, 5)]);
        r.push_run(1, 0);
        assert_eq!(r.runs(), [(9, 5)]);
    }
}
