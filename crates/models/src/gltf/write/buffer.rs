//! The one binary buffer: 4-byte aligned views, tightly packed accessors, little-endian bytes.

use super::{push, Builder};
use crate::gltf::Error;
use crate::scene::Scene;
use gltf_json as json;
use json::accessor::{ComponentType, GenericComponentType, Type};
use json::buffer::Target;
use json::validation::{Checked::Valid, USize64};
use json::Index;
use serde_json::Value;
use std::borrow::Cow;
use std::collections::HashSet;

impl Builder<'_> {
    /// Appends `data` to the buffer (4-byte aligned) and returns its view.
    pub(super) fn view(
        &mut self,
        data: &[u8],
        target: Option<Target>,
    ) -> Result<Index<json::buffer::View>, Error> {
        pad4(&mut self.bin);
        let offset = self.bin.len();
        self.bin.extend_from_slice(data);
        if u32::try_from(self.bin.len()).is_err() {
            return Err(Error::TooLarge {
                what: "buffer",
                size: self.bin.len() as u64,
            });
        }
        push(
            &mut self.root.buffer_views,
            json::buffer::View {
                buffer: Index::new(0),
                byte_length: USize64::from(data.len()),
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
        data: &[u8],
        count: usize,
        component: ComponentType,
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
                normalized: false,
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

/// Index bytes as `u16` (every index is below 65 536: checked by the caller) or `u32`.
pub(super) fn index_bytes(indices: &[u32], component: ComponentType) -> Cow<'_, [u8]> {
    if component == ComponentType::U16 {
        Cow::Owned(
            indices
                .iter()
                .flat_map(|&x| u16::try_from(x).unwrap_or(0).to_le_bytes())
                .collect(),
        )
    } else {
        u32_bytes(indices)
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

/// An upper bound of the binary buffer's size for `scene` without textures, so that the
/// buffer is allocated once instead of doubling (and copying) its way up to hundreds of MB.
/// Reserved capacity that is never written costs no memory pages.
pub(super) fn bin_estimate(scene: &Scene) -> usize {
    scene
        .meshes
        .iter()
        .map(|m| {
            let v = &m.vertices;
            let n = v.positions.len();
            // position, normal, tangent, 2 UV sets, colour, joints, weights, and alignment
            let per_vertex = 12 + 12 + 16 + 8 + 8 + 16 + 8 + 16;
            // A list shared by several primitives is written at most once in all.
            let mut lists = HashSet::new();
            let indices: usize = m
                .primitives
                .iter()
                .filter(|p| lists.insert(std::sync::Arc::as_ptr(p.indices.list())))
                .map(|p| p.indices.list().len())
                .sum();
            n.saturating_mul(per_vertex)
                .saturating_add(indices.saturating_mul(4))
                .saturating_add(m.primitives.len().saturating_mul(4))
        })
        .fold(0usize, usize::saturating_add)
        .min(u32::MAX as usize)
}

pub(super) fn pad4(bin: &mut Vec<u8>) {
    while bin.len() % 4 != 0 {
        bin.push(0);
    }
}
