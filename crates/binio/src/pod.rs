//! Bulk conversion between little-endian byte slices and vectors of `Pod` elements.
//!
//! The source slice may have any alignment; the copy goes through `bytemuck` and a
//! freshly allocated, correctly aligned vector. On a big-endian host the element layout
//! would be wrong, so this crate refuses to compile there rather than silently misread.

use bytemuck::Pod;

#[cfg(target_endian = "big")]
compile_error!("the models format crates decode little-endian arrays by bulk copy and support little-endian hosts only");

/// Copies `bytes` into a vector of `T`. `bytes.len()` must be a multiple of
/// `size_of::<T>()`; otherwise `None` is returned.
pub fn vec_from_bytes<T: Pod>(bytes: &[u8]) -> Option<Vec<T>> {
    let size = std::mem::size_of::<T>();
    if size == 0 || bytes.len() % size != 0 {
        return None;
    }
    // Fast path: when the slice happens to be aligned for `T`, view it as `&[T]` and clone it
    // (one copy into uninitialised memory). Otherwise zero-fill an aligned vector and copy the
    // bytes into it: a second pass over the output, but still a bulk copy.
    if let Ok(items) = bytemuck::try_cast_slice::<u8, T>(bytes) {
        return Some(items.to_vec());
    }
    let mut out: Vec<T> = vec![T::zeroed(); bytes.len() / size];
    bytemuck::cast_slice_mut::<T, u8>(&mut out).copy_from_slice(bytes);
    Some(out)
}

/// The bytes of a `Pod` slice, for writing.
pub fn as_bytes<T: Pod>(items: &[T]) -> &[u8] {
    bytemuck::cast_slice(items)
}

#[cfg(test)]
mod tests {
    #[test]
    fn copies_from_misaligned_slices() {
        let raw = [0u8, 1, 0, 2, 0, 0, 0x80, 0x3F, 0, 0, 0, 0x40];
        let v: Vec<f32> = super::vec_from_bytes(&raw[4..]).unwrap();
        assert_eq!(v, [1.0, 2.0]);
        let w: Vec<u16> = super::vec_from_bytes(&raw[1..5]).unwrap();
        assert_eq!(w, [1, 2]);
        assert!(super::vec_from_bytes::<u32>(&raw[1..4]).is_none());
    }
}
