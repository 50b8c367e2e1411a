//! A bounds-checked little-endian cursor.

use bytemuck::Pod;

/// The input ended before a read could be satisfied.
///
/// Format crates convert this into their own `Truncated` error variant, adding what they were
/// reading at the time.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Eof {
    /// Absolute byte offset at which the read started.
    pub offset: u64,
    /// Bytes the read needed.
    pub needed: u64,
    /// Bytes that were left.
    pub available: u64,
}

/// A reader over a byte slice that never panics and never reads past its end.
///
/// All multi-byte values are decoded with `from_le_bytes` from sub-slices, so the slice may
/// have any alignment. `base` lets a cursor over a sub-slice report absolute file offsets.
#[derive(Debug, Clone)]
pub struct Cursor<'a> {
    data: &'a [u8],
    pos: usize,
    base: u64,
}

impl<'a> Cursor<'a> {
    /// A cursor at the start of `data`, reporting offsets from 0.
    pub fn new(data: &'a [u8]) -> Self {
        Self::with_base(data, 0)
    }

    /// A cursor whose offsets are reported relative to `base` (the absolute position of
    /// `data[0]` in the file).
    pub fn with_base(data: &'a [u8], base: u64) -> Self {
        Self { data, pos: 0, base }
    }

    /// Absolute offset of the next byte to be read.
    pub fn offset(&self) -> u64 {
        self.base + self.pos as u64
    }

    /// Bytes not yet read.
    pub fn remaining(&self) -> usize {
        self.data.len() - self.pos
    }

    /// True when every byte has been read.
    pub fn is_empty(&self) -> bool {
        self.remaining() == 0
    }

    /// The unread rest of the input, without consuming it.
    pub fn rest(&self) -> &'a [u8] {
        self.data.get(self.pos..).unwrap_or_default()
    }

    fn eof(&self, needed: u64) -> Eof {
        Eof {
            offset: self.offset(),
            needed,
            available: self.remaining() as u64,
        }
    }

    /// Checks that `count` elements of `size` bytes each are still available, with overflow-
    /// safe arithmetic. Use it before allocating anything sized from a declared count.
    pub fn ensure(&self, count: u64, size: u64) -> Result<(), Eof> {
        match count.checked_mul(size) {
            Some(n) if n <= self.remaining() as u64 => Ok(()),
            Some(n) => Err(self.eof(n)),
            None => Err(self.eof(u64::MAX)),
        }
    }

    /// Takes the next `n` bytes.
    pub fn take(&mut self, n: usize) -> Result<&'a [u8], Eof> {
        let end = self
            .pos
            .checked_add(n)
            .filter(|&end| end <= self.data.len())
            .ok_or_else(|| self.eof(n as u64))?;
        let bytes = self
            .data
            .get(self.pos..end)
            .ok_or_else(|| self.eof(n as u64))?;
        self.pos = end;
        Ok(bytes)
    }

    /// Takes `count × size` bytes, checking the product for overflow first.
    pub fn take_elements(&mut self, count: u64, size: u64) -> Result<&'a [u8], Eof> {
        self.ensure(count, size)?;
        // `ensure` proved the product fits in the remaining usize-sized input.
        self.take((count * size) as usize)
    }

    /// Takes a fixed-size array.
    pub fn array<const N: usize>(&mut self) -> Result<[u8; N], Eof> {
        let bytes = self.take(N)?;
        let mut out = [0u8; N];
        out.copy_from_slice(bytes);
        Ok(out)
    }

    /// Reads one byte.
    pub fn u8(&mut self) -> Result<u8, Eof> {
        Ok(self.array::<1>()?[0])
    }

    /// Reads a little-endian `u16`.
    pub fn u16(&mut self) -> Result<u16, Eof> {
        self.array().map(u16::from_le_bytes)
    }

    /// Reads a little-endian `u32`.
    pub fn u32(&mut self) -> Result<u32, Eof> {
        self.array().map(u32::from_le_bytes)
    }

    /// Reads a little-endian `i32`.
    pub fn i32(&mut self) -> Result<i32, Eof> {
        self.array().map(i32::from_le_bytes)
    }

    /// Reads a little-endian `f32`, keeping its exact bits (NaN payloads, `-0.0`).
    pub fn f32(&mut self) -> Result<f32, Eof> {
        self.array().map(f32::from_le_bytes)
    }

    /// Reads `N` little-endian `f32`s.
    pub fn f32s<const N: usize>(&mut self) -> Result<[f32; N], Eof> {
        let mut out = [0.0f32; N];
        for v in &mut out {
            *v = self.f32()?;
        }
        Ok(out)
    }

    /// Reads a fixed on-disk record: `size_of::<T>()` bytes copied into a `Pod` struct (the
    /// `layout.rs` records of the format crates), whatever the alignment of the input.
    pub fn record<T: Pod>(&mut self) -> Result<T, Eof> {
        let size = std::mem::size_of::<T>();
        let at = self.eof(size as u64);
        let bytes = self.take(size)?;
        // `take` returned exactly `size` bytes, so the read cannot fail; if it did, it would
        // be reported as the truncation it would be.
        bytemuck::try_pod_read_unaligned(bytes).map_err(|_| at)
    }

    /// Peeks at a little-endian `u32` without consuming it.
    pub fn peek_u32(&self) -> Result<u32, Eof> {
        self.clone().u32()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_misaligned_and_reports_offsets() {
        let data = [0xAA, 1, 0, 0, 0, 0, 0, 0x80, 0x3F];
        let mut c = Cursor::with_base(&data, 100);
        assert_eq!(c.u8().unwrap(), 0xAA);
        assert_eq!(c.u32().unwrap(), 1);
        assert_eq!(c.f32().unwrap(), 1.0);
        assert!(c.is_empty());
        let err = c.u16().unwrap_err();
        assert_eq!(
            err,
            Eof {
                offset: 109,
                needed: 2,
                available: 0
            }
        );
    }

    #[test]
    fn reads_records_at_any_alignment() {
        #[repr(C)]
        #[derive(Clone, Copy, Debug, PartialEq, bytemuck::Pod, bytemuck::Zeroable)]
        struct Rec {
            a: u32,
            b: f32,
        }
        let data = [9, 1, 0, 0, 0, 0, 0, 0x80, 0x3F, 7];
        let mut c = Cursor::with_base(&data, 10);
        c.u8().unwrap();
        assert_eq!(c.record::<Rec>().unwrap(), Rec { a: 1, b: 1.0 });
        assert_eq!(
            c.record::<Rec>().unwrap_err(),
            Eof {
                offset: 19,
                needed: 8,
                available: 1
            }
        );
        assert_eq!(c.offset(), 19, "a failed read consumes nothing");
    }

    #[test]
    fn ensure_rejects_overflowing_products() {
        let c = Cursor::new(&[0; 8]);
        assert!(c.ensure(u64::MAX, 2).is_err());
        assert!(c.ensure(4_000_000_000, 32).is_err());
        assert!(c.ensure(2, 4).is_ok());
    }
}
