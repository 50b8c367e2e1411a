//! The one binary buffer: 4-byte aligned views, tightly packed accessors, little-endian bytes.
//!
//! The buffer is planned, not built: [`Bin`] keeps each view's data as a [`Chunk`] (most of
//! them borrowed from the scene) at its offset, so the JSON can be written first and the bytes
//! then go once, straight into the output (`.glb` bytes, a file through a `BufWriter`) without
//! an intermediate buffer of the whole binary chunk.

use super::{push, Builder};
use crate::gltf::Error;
use crate::scene::Array;
use gltf_json as json;
use json::accessor::{ComponentType, GenericComponentType, Type};
use json::buffer::Target;
use json::validation::{Checked::Valid, USize64};
use json::Index;
use serde_json::Value;
use std::borrow::Cow;
use std::io::Write;
use std::ops::Range;
use std::sync::Arc;

/// The data of one buffer view.
pub(crate) enum Chunk<'a> {
    /// Little-endian bytes, borrowed from the scene or made by the writer.
    Bytes(Cow<'a, [u8]>),
    /// `len` zero bytes (zero `TEXCOORD_0`).
    Zeros(usize),
    /// `range` of an index list, as `u16` (`wide` false: every index is below 65 536, checked
    /// by the caller) or `u32`; converted while it is written, never copied beforehand.
    Indices {
        list: Arc<Array<u32>>,
        range: Range<usize>,
        wide: bool,
    },
}

impl Chunk<'_> {
    /// Bytes made by the writer (not borrowed from the scene).
    pub(super) fn owned(bytes: Cow<'_, [u8]>) -> Chunk<'static> {
        Chunk::Bytes(Cow::Owned(bytes.into_owned()))
    }

    fn len(&self) -> usize {
        match self {
            Chunk::Bytes(b) => b.len(),
            Chunk::Zeros(n) => *n,
            Chunk::Indices { range, wide, .. } => range.len() * if *wide { 4 } else { 2 },
        }
    }

    fn write_to(&self, out: &mut (impl Write + ?Sized)) -> std::io::Result<()> {
        match self {
            Chunk::Bytes(b) => out.write_all(b),
            Chunk::Zeros(n) => write_zeros(out, *n),
            Chunk::Indices { list, range, wide } => {
                let indices = list.get(range.clone()).unwrap_or_default();
                if *wide {
                    return out.write_all(&u32_bytes(indices));
                }
                // Through a small block on the stack: the `u16` copy is never whole in memory.
                let mut block = [0u8; 8192];
                for part in indices.chunks(block.len() / 2) {
                    for (dst, &x) in block.chunks_exact_mut(2).zip(part) {
                        dst.copy_from_slice(&u16::try_from(x).unwrap_or(0).to_le_bytes());
                    }
                    out.write_all(block.get(..part.len() * 2).unwrap_or_default())?;
                }
                Ok(())
            }
        }
    }
}

fn write_zeros(out: &mut (impl Write + ?Sized), mut n: usize) -> std::io::Result<()> {
    const ZEROS: [u8; 4096] = [0; 4096];
    while n > 0 {
        let k = n.min(ZEROS.len());
        out.write_all(ZEROS.get(..k).unwrap_or_default())?;
        n -= k;
    }
    Ok(())
}

/// The planned binary buffer: each view's chunk at its 4-byte aligned offset.
#[derive(Default)]
pub(crate) struct Bin<'a> {
    chunks: Vec<(usize, Chunk<'a>)>,
    /// The end of the last chunk (before the final padding).
    end: usize,
}

impl<'a> Bin<'a> {
    /// Room for `n` more chunks.
    pub(crate) fn reserve(&mut self, n: usize) {
        self.chunks.reserve(n);
    }

    /// Places `chunk` at the next 4-byte boundary; its offset.
    fn push(&mut self, chunk: Chunk<'a>) -> Result<usize, Error> {
        let offset = self.end.next_multiple_of(4);
        let end = offset.saturating_add(chunk.len());
        if u32::try_from(end).is_err() {
            return Err(Error::TooLarge {
                what: "buffer",
                size: end as u64,
            });
        }
        self.chunks.push((offset, chunk));
        self.end = end;
        Ok(offset)
    }

    /// The buffer's length, padded to 4 bytes (0 when it holds nothing).
    pub(crate) fn len(&self) -> usize {
        self.end.next_multiple_of(4)
    }

    /// Writes the whole buffer (with its padding) to `out`.
    pub(crate) fn write_to(&self, out: &mut (impl Write + ?Sized)) -> std::io::Result<()> {
        let mut at = 0usize;
        for (offset, chunk) in &self.chunks {
            write_zeros(out, offset.saturating_sub(at))?;
            chunk.write_to(out)?;
            at = offset.saturating_add(chunk.len());
        }
        write_zeros(out, self.len().saturating_sub(at))
    }

    /// The buffer as one exactly-sized vector.
    pub(crate) fn to_vec(&self) -> Vec<u8> {
        let mut out = Vec::with_capacity(self.len());
        // Writing into a vector cannot fail.
        let _ = self.write_to(&mut out);
        out
    }
}

impl<'a> Builder<'a> {
    /// Appends `data` to the buffer (4-byte aligned) and returns its view.
    pub(super) fn view(
        &mut self,
        data: Chunk<'a>,
        target: Option<Target>,
    ) -> Result<Index<json::buffer::View>, Error> {
        let len = data.len();
        let offset = self.bin.push(data)?;
        push(
            &mut self.root.buffer_views,
            json::buffer::View {
                buffer: Index::new(0),
                byte_length: USize64::from(len),
                byte_offset: (offset > 0).then(|| USize64::from(offset)),
                byte_stride: None,
                name: None,
                target: target.map(Valid),
                extensions: None,
                extras: None,
            },
        )
    }

    /// A tightly packed accessor over a new view holding `data` (`count` ≥ 1 elements).
    pub(super) fn accessor(
        &mut self,
        data: Chunk<'a>,
        count: usize,
        component: ComponentType,
        type_: Type,
        target: Option<Target>,
        min_max: Option<(Value, Value)>,
    ) -> Result<Index<json::Accessor>, Error> {
        self.accessor_of(data, count, (component, false), type_, target, min_max)
    }

    /// [`Builder::accessor`] of `(component, normalized)` integers: normalised ones read as
    /// unit floats (glTF 2.0 § 3.11).
    pub(super) fn accessor_of(
        &mut self,
        data: Chunk<'a>,
        count: usize,
        (component, normalized): (ComponentType, bool),
        type_: Type,
        target: Option<Target>,
        min_max: Option<(Value, Value)>,
    ) -> Result<Index<json::Accessor>, Error> {
        let view = self.view(data, target)?;
        let (min, max) = match min_max {
            Some((a, b)) => (Some(a), Some(b)),
            None => (None, None),
        };
        push(
            &mut self.root.accessors,
            json::Accessor {
                buffer_view: Some(view),
                byte_offset: None,
                count: USize64::from(count),
                component_type: Valid(GenericComponentType(component)),
                extensions: None,
                extras: None,
                type_: Valid(type_),
                min,
                max,
                name: None,
                normalized,
                sparse: None,
            },
        )
    }

    /// An accessor of `count` elements at `offset` bytes into an existing view.
    pub(super) fn accessor_in(
        &mut self,
        view: Index<json::buffer::View>,
        offset: usize,
        count: usize,
        component: ComponentType,
        type_: Type,
    ) -> Result<Index<json::Accessor>, Error> {
        push(
            &mut self.root.accessors,
            json::Accessor {
                buffer_view: Some(view),
                byte_offset: (offset > 0).then(|| USize64::from(offset)),
                count: USize64::from(count),
                component_type: Valid(GenericComponentType(component)),
                extensions: None,
                extras: None,
                type_: Valid(type_),
                min: None,
                max: None,
                name: None,
                normalized: false,
                sparse: None,
            },
        )
    }
}

/// The little-endian bytes of `v`. glTF buffers are little-endian, so on a little-endian host
/// this is `v` itself, borrowed (no per-element pass and no copy before the one into the
/// buffer); elsewhere every value is swapped.
pub(super) fn f32_bytes<const N: usize>(v: &[[f32; N]]) -> Cow<'_, [u8]> {
    if cfg!(target_endian = "little") {
        Cow::Borrowed(bytemuck::cast_slice(v))
    } else {
        Cow::Owned(v.iter().flatten().flat_map(|x| x.to_le_bytes()).collect())
    }
}

/// [`f32_bytes`] for `u32` values.
pub(super) fn u32_bytes(v: &[u32]) -> Cow<'_, [u8]> {
    if cfg!(target_endian = "little") {
        Cow::Borrowed(bytemuck::cast_slice(v))
    } else {
        Cow::Owned(v.iter().flat_map(|x| x.to_le_bytes()).collect())
    }
}
