//! Little-endian appends for writers: the mirror of [`crate::Cursor`].

/// Extension methods on `Vec<u8>` for writing little-endian values.
pub trait PutLe {
    /// Appends a `u16`.
    fn put_u16(&mut self, v: u16);
    /// Appends a `u32`.
    fn put_u32(&mut self, v: u32);
    /// Appends an `i32`.
    fn put_i32(&mut self, v: i32);
    /// Appends an `f32` with its exact bits.
    fn put_f32(&mut self, v: f32);
    /// Appends several `f32`s.
    fn put_f32s(&mut self, v: &[f32]);
    /// Appends a fixed on-disk record (a `Pod` struct of a `layout.rs`), the mirror of
    /// [`Cursor::record`](crate::Cursor::record).
    fn put_record<T: bytemuck::Pod>(&mut self, v: &T);
}

impl PutLe for Vec<u8> {
    fn put_u16(&mut self, v: u16) {
        self.extend_from_slice(&v.to_le_bytes());
    }
    fn put_u32(&mut self, v: u32) {
        self.extend_from_slice(&v.to_le_bytes());
    }
    fn put_i32(&mut self, v: i32) {
        self.extend_from_slice(&v.to_le_bytes());
    }
    fn put_f32(&mut self, v: f32) {
        self.extend_from_slice(&v.to_le_bytes());
    }
    fn put_f32s(&mut self, v: &[f32]) {
        for x in v {
            self.put_f32(*x);
        }
    }
    fn put_record<T: bytemuck::Pod>(&mut self, v: &T) {
        self.extend_from_slice(bytemuck::bytes_of(v));
    }
}
