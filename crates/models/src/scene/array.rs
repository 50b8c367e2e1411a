//! [`Array`]: a scene's bulk array, owned or a view into the bytes of the `.glb` it was read
//! from.
//!
//! A large model's arrays are most of its memory. The glTF reader reads a tightly packed,
//! aligned accessor as a view of the input it owns ([`crate::gltf::read_glb_shared`],
//! [`crate::gltf::read_path`]) instead of copying it: no allocation, no copy, no fresh pages
//! for the kernel to clear. The input stays in memory while any view of it does. Whatever
//! needs changing is copied once, on the first [`Array::to_mut`].

use std::ops::Range;
use std::sync::Arc;

/// A scene's bulk array of `T` (vertex attributes, index lists, blobs). Reads and writes as a
/// `[T]` slice; [`to_mut`](Array::to_mut) gives an owned `Vec` to grow or shrink. Either copies
/// a view once, so code that may leave an array unchanged reads it first.
///
/// ```
/// use models::scene::Array;
/// let mut a: Array<[f32; 2]> = vec![[0.0, 1.0]].into();
/// assert_eq!(a.len(), 1);
/// a.to_mut().push([2.0, 3.0]);
/// assert_eq!(&a[..], &[[0.0, 1.0], [2.0, 3.0]]);
/// ```
#[derive(Clone)]
pub struct Array<T: bytemuck::Pod> {
    /// The elements, when not a view (empty while `view` is set).
    owned: Vec<T>,
    /// `bytes[range]`, aligned for `T` and a whole number of `T`s (checked when made).
    view: Option<(Arc<crate::Bytes>, Range<usize>)>,
}

impl<T: bytemuck::Pod> Array<T> {
    /// A view of `within`, which must lie inside `bytes`, be aligned for `T` and hold a whole
    /// number of `T`s; `None` otherwise (the caller copies instead).
    pub(crate) fn view(bytes: &Arc<crate::Bytes>, within: &[u8]) -> Option<Self> {
        // Where `within` starts in `bytes`, by address (no `unsafe`: only compared).
        let start = (within.as_ptr() as usize).checked_sub(bytes.as_ptr() as usize)?;
        let range = start..start.checked_add(within.len())?;
        let here = bytes.get(range.clone())?;
        bytemuck::try_cast_slice::<u8, T>(here).ok()?;
        Some(Self {
            owned: Vec::new(),
            view: Some((Arc::clone(bytes), range)),
        })
    }

    /// The elements as a slice.
    pub fn as_slice(&self) -> &[T] {
        match &self.view {
            None => &self.owned,
            // Checked when made; `get` and `try_cast_slice` keep a broken view from panicking.
            Some((bytes, range)) => bytes
                .get(range.clone())
                .and_then(|b| bytemuck::try_cast_slice(b).ok())
                .unwrap_or_default(),
        }
    }

    /// The elements as an owned `Vec` to change: a view is copied into one first.
    pub fn to_mut(&mut self) -> &mut Vec<T> {
        if self.view.is_some() {
            self.owned = self.as_slice().to_vec();
            self.view = None;
        }
        &mut self.owned
    }

    /// The elements as an owned `Vec` (a view is copied).
    pub fn into_vec(self) -> Vec<T> {
        match self.view {
            None => self.owned,
            Some(_) => self.as_slice().to_vec(),
        }
    }

    /// Whether this is a view of the bytes it was read from (not owned).
    pub fn is_view(&self) -> bool {
        self.view.is_some()
    }
}

impl<T: bytemuck::Pod> Default for Array<T> {
    fn default() -> Self {
        Vec::new().into()
    }
}

impl<T: bytemuck::Pod> From<Vec<T>> for Array<T> {
    fn from(v: Vec<T>) -> Self {
        Self {
            owned: v,
            view: None,
        }
    }
}

impl<T: bytemuck::Pod> From<&[T]> for Array<T> {
    fn from(v: &[T]) -> Self {
        v.to_vec().into()
    }
}

impl<T: bytemuck::Pod, const N: usize> From<[T; N]> for Array<T> {
    fn from(v: [T; N]) -> Self {
        v.to_vec().into()
    }
}

impl<T: bytemuck::Pod> FromIterator<T> for Array<T> {
    fn from_iter<I: IntoIterator<Item = T>>(iter: I) -> Self {
        iter.into_iter().collect::<Vec<T>>().into()
    }
}

impl<T: bytemuck::Pod> std::ops::Deref for Array<T> {
    type Target = [T];
    fn deref(&self) -> &[T] {
        self.as_slice()
    }
}

/// Changing elements in place: a view is copied into an owned array first, once
/// ([`Array::to_mut`]).
impl<T: bytemuck::Pod> std::ops::DerefMut for Array<T> {
    fn deref_mut(&mut self) -> &mut [T] {
        self.to_mut()
    }
}

impl<T: bytemuck::Pod> AsRef<[T]> for Array<T> {
    fn as_ref(&self) -> &[T] {
        self.as_slice()
    }
}

impl<T: bytemuck::Pod + PartialEq> PartialEq for Array<T> {
    fn eq(&self, other: &Self) -> bool {
        self.as_slice() == other.as_slice()
    }
}

impl<T: bytemuck::Pod + PartialEq> PartialEq<Vec<T>> for Array<T> {
    fn eq(&self, other: &Vec<T>) -> bool {
        self.as_slice() == other.as_slice()
    }
}

impl<T: bytemuck::Pod + PartialEq> PartialEq<[T]> for Array<T> {
    fn eq(&self, other: &[T]) -> bool {
        self.as_slice() == other
    }
}

impl<T: bytemuck::Pod + PartialEq> PartialEq<Array<T>> for Vec<T> {
    fn eq(&self, other: &Array<T>) -> bool {
        self.as_slice() == other.as_slice()
    }
}

impl<T: bytemuck::Pod + std::fmt::Debug> std::fmt::Debug for Array<T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        self.as_slice().fmt(f)
    }
}

impl<'a, T: bytemuck::Pod> IntoIterator for &'a Array<T> {
    type Item = &'a T;
    type IntoIter = std::slice::Iter<'a, T>;
    fn into_iter(self) -> Self::IntoIter {
        self.as_slice().iter()
    }
}

/// Changing each element: a view is copied first, as with `DerefMut`.
impl<'a, T: bytemuck::Pod> IntoIterator for &'a mut Array<T> {
    type Item = &'a mut T;
    type IntoIter = std::slice::IterMut<'a, T>;
    fn into_iter(self) -> Self::IntoIter {
        self.to_mut().iter_mut()
    }
}

impl<T: bytemuck::Pod> Extend<T> for Array<T> {
    fn extend<I: IntoIterator<Item = T>>(&mut self, iter: I) {
        self.to_mut().extend(iter);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_view_reads_its_bytes_and_copies_on_change() {
        let bytes = Arc::new(crate::Bytes::from((0u8..16).collect::<Vec<u8>>()));
        let mut a = Array::<[u8; 4]>::view(&bytes, &bytes[4..12]).unwrap();
        assert!(a.is_view());
        assert_eq!(&a[..], &[[4, 5, 6, 7], [8, 9, 10, 11]]);
        a.to_mut()[0] = [0; 4];
        assert!(!a.is_view());
        assert_eq!(bytes[4], 4, "the shared bytes are never changed");
        assert_eq!(&a[..], &[[0; 4], [8, 9, 10, 11]]);
    }

    #[test]
    fn a_view_is_refused_outside_its_bytes_or_misaligned() {
        let bytes = Arc::new(crate::Bytes::from(vec![0u8; 16]));
        let other = vec![0u8; 16];
        assert!(Array::<u8>::view(&bytes, &other).is_none());
        // A `Vec<u8>`'s buffer is at least 4-aligned in practice; one byte on is not.
        if bytes.as_ptr() as usize % 4 == 0 {
            assert!(Array::<u32>::view(&bytes, &bytes[1..5]).is_none());
            assert!(Array::<u32>::view(&bytes, &bytes[4..7]).is_none());
            assert!(Array::<u32>::view(&bytes, &bytes[4..8]).is_some());
        }
    }
}
