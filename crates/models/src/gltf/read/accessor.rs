//! Accessors decoded by hand: any byte stride, normalised integer components, sparse
//! substitution, `KHR_mesh_quantization`'s integer positions. Every count is checked against
//! the bytes backing it, and every decoded value is charged to the input's allocation budget
//! before anything is allocated.

use super::buffers::Loaded;
use super::{reading_limit, At, ReadError};
use crate::gltf::json;
use crate::scene::{Array, Colors};
use json::accessor::{ComponentType, GenericComponentType, Type};
use json::validation::Checked::Valid;
use std::fmt::Display;
use std::sync::Arc;

/// Reads accessors of one document, within one allocation budget.
pub(crate) struct Reader<'a> {
    root: &'a json::Root,
    loaded: &'a Loaded<'a>,
    used: u64,
    limit: u64,
}

/// An index accessor as a range of its buffer view's elements ([`Reader::index_span`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct IndexSpan {
    /// The buffer view.
    pub view: usize,
    /// The component type of the view's elements.
    pub component: ComponentType,
    /// The accessor's first element in the view.
    pub first: usize,
    /// The accessor's element count.
    pub count: usize,
}

/// Where an accessor's values are: a strided run of elements (or zeros), and sparse
/// substitutions.
struct Layout<'a> {
    component: ComponentType,
    normalized: bool,
    comps: usize,
    count: usize,
    /// `count` elements, `stride` apart, from the start of this slice; `None`: all zeros.
    base: Option<(&'a [u8], usize)>,
    /// Sorted element indices and the tightly packed replacement elements.
    sparse: Option<(Vec<usize>, &'a [u8])>,
    /// The input the GLB's buffer was given in, when shared: tightly packed values are read
    /// as views of it ([`Array`]) instead of copies.
    shared: Option<&'a Arc<crate::Bytes>>,
}

impl<'a> Reader<'a> {
    pub fn new(root: &'a json::Root, loaded: &'a Loaded<'a>) -> Self {
        Self {
            root,
            loaded,
            used: loaded.json_cost,
            limit: reading_limit(loaded.input_len),
        }
    }

    /// Charges `bytes` of decoded data to the budget.
    pub fn charge(&mut self, at: &dyn Display, bytes: u64) -> Result<(), ReadError> {
        self.used = self.used.saturating_add(bytes);
        if self.used > self.limit {
            return Err(ReadError::TooLarge {
                at: at.to_string(),
                needed: self.used,
                limit: self.limit,
            });
        }
        Ok(())
    }

    /// The accessor's values as floats (`count` × components, flattened), integer components
    /// converted as the spec says: normalised ones to -1..1 or 0..1, others as they are.
    pub fn floats(
        &mut self,
        index: json::Index<json::Accessor>,
        at: &dyn Display,
        types: &[Type],
    ) -> Result<(Vec<f32>, usize), ReadError> {
        let layout = self.layout(index, at, types)?;
        let (c, n) = (layout.component, layout.normalized);
        if c == ComponentType::F32 {
            if let Some(tight) = layout.tight::<f32>(layout.comps) {
                return Ok((tight.into_vec(), layout.comps));
            }
        }
        if let Some(units) = layout.tight_unit_bytes() {
            return Ok((units, layout.comps));
        }
        Ok((layout.collect(move |b| float(c, n, b)), layout.comps))
    }

    /// [`Reader::floats`] as `N`-component elements (`N` must be the multiplicity of every
    /// type in `types`), without the flat intermediate.
    pub fn float_arrays<const N: usize>(
        &mut self,
        index: json::Index<json::Accessor>,
        at: &dyn Display,
        types: &[Type],
    ) -> Result<Array<[f32; N]>, ReadError> {
        let layout = self.layout(index, at, types)?;
        let (c, n) = (layout.component, layout.normalized);
        if c == ComponentType::F32 {
            if let Some(tight) = layout.tight::<[f32; N]>(1) {
                return Ok(tight);
            }
        }
        let flat = layout.collect(move |b| float(c, n, b));
        Ok(flat
            .chunks_exact(N)
            .map(|c| std::array::from_fn(|k| c.get(k).copied().unwrap_or(0.0)))
            .collect())
    }

    /// A `VEC3` or `VEC4` `COLOR_0` accessor's colours: normalised `u8` components as the
    /// bytes they are ([`Colors::Bytes`], a tightly packed `VEC4` in one copy), others as
    /// [`Reader::floats`] gives them ([`Colors::Floats`]); a `VEC3`'s alpha is opaque.
    pub fn colors(
        &mut self,
        index: json::Index<json::Accessor>,
        at: &dyn Display,
    ) -> Result<Colors, ReadError> {
        let layout = self.layout(index, at, &[Type::Vec3, Type::Vec4])?;
        let opaque3 = |c: &[u8]| std::array::from_fn(|k| c.get(k).copied().unwrap_or(u8::MAX));
        if layout.component == ComponentType::U8 && layout.normalized {
            let tight = layout.base.and_then(|(bytes, stride)| {
                let whole = bytes.get(..layout.count.checked_mul(4)?)?;
                let fits = layout.comps == 4 && stride == 4 && layout.sparse.is_none();
                fits.then(|| layout.bulk::<[u8; 4]>(whole))?
            });
            if let Some(bytes) = tight {
                return Ok(Colors::Bytes(bytes));
            }
            let flat = layout.collect(|b| b.first().copied().unwrap_or(0));
            let bytes = flat.chunks_exact(layout.comps).map(opaque3).collect();
            return Ok(Colors::Bytes(bytes));
        }
        let (c, n) = (layout.component, layout.normalized);
        let tight = (c == ComponentType::F32)
            .then(|| layout.tight::<f32>(layout.comps))
            .flatten();
        let flat = tight.map_or_else(|| layout.collect(move |b| float(c, n, b)), Array::into_vec);
        let floats = flat
            .chunks_exact(layout.comps)
            .map(|c| std::array::from_fn(|k| c.get(k).copied().unwrap_or(1.0)))
            .collect();
        Ok(Colors::Floats(floats))
    }

    /// The accessor's values as unsigned integers (indices, joints); float and signed
    /// components are refused.
    pub fn uints(
        &mut self,
        index: json::Index<json::Accessor>,
        at: &dyn Display,
        types: &[Type],
    ) -> Result<(Array<u32>, usize), ReadError> {
        let layout = self.unsigned_layout(index, at, types)?;
        Ok((layout.uints(), layout.comps))
    }

    /// A `VEC4` JOINTS accessor's values, with [`Reader::uints`]'s checks and errors. Tightly
    /// packed `u8` components (the export's while every joint is below 256) are widened
    /// straight into four-joint arrays, and `u16` ones copied into them: no joint of these can
    /// exceed 65535, so the `u32` values, their check and their narrowing are skipped.
    /// Others: [`Reader::uints`]'s.
    pub fn joints(
        &mut self,
        index: json::Index<json::Accessor>,
        at: &dyn Display,
    ) -> Result<Joints, ReadError> {
        let layout = self.unsigned_layout(index, at, &[Type::Vec4])?;
        let size = layout.component.size();
        if let Some((bytes, stride)) = layout.base {
            let whole = layout
                .count
                .checked_mul(4 * size)
                .and_then(|w| bytes.get(..w));
            if let (Some(whole), true) = (whole, layout.sparse.is_none() && stride == 4 * size) {
                let narrow = match layout.component {
                    ComponentType::U16 => layout.bulk::<[u16; 4]>(whole),
                    ComponentType::U8 => Some(widen_joints(whole).into()),
                    _ => None,
                };
                if let Some(narrow) = narrow {
                    return Ok(Joints::Narrow(narrow));
                }
            }
        }
        Ok(Joints::Wide(layout.uints().into_vec()))
    }

    /// [`Reader::layout`], refusing components other than `u8`, `u16` and `u32`.
    fn unsigned_layout(
        &mut self,
        index: json::Index<json::Accessor>,
        at: &dyn Display,
        types: &[Type],
    ) -> Result<Layout<'a>, ReadError> {
        let layout = self.layout(index, at, types)?;
        let c = layout.component;
        if !matches!(
            c,
            ComponentType::U8 | ComponentType::U16 | ComponentType::U32
        ) {
            return Err(ReadError::invalid(
                accessor_at(index),
                format!("{c:?} components where unsigned integers are required ({at})"),
            ));
        }
        Ok(layout)
    }

    fn layout(
        &mut self,
        index: json::Index<json::Accessor>,
        at: &dyn Display,
        types: &[Type],
    ) -> Result<Layout<'a>, ReadError> {
        let here = At::Item("accessors", index.value());
        let acc = self
            .root
            .accessors
            .get(index.value())
            .ok_or_else(|| ReadError::invalid(at, format!("no {here}")))?;
        let (Valid(GenericComponentType(component)), Valid(ty)) = (acc.component_type, acc.type_)
        else {
            return Err(ReadError::invalid(here, "unknown componentType or type"));
        };
        if !types.contains(&ty) {
            return Err(ReadError::invalid(
                here,
                format!("type {ty:?} where {types:?} is required ({at})"),
            ));
        }
        let comps = ty.multiplicity();
        let size = component.size();
        if matches!(ty, Type::Mat2 | Type::Mat3) && size < 4 {
            return Err(ReadError::invalid(
                here,
                "matrices with padded columns are not supported",
            ));
        }
        let elem = comps * size;
        let count = usize::try_from(acc.count.0)
            .map_err(|_| ReadError::invalid(here, "count beyond this machine's memory"))?;
        let base = match acc.buffer_view {
            Some(view) => {
                let offset = acc.byte_offset.map_or(0, |o| o.0);
                Some(self.elements(view, offset, count, elem, &here)?)
            }
            None => None,
        };
        // Charged after the base was checked against its bytes, before anything is decoded.
        self.charge(&here, (count as u64).saturating_mul(comps as u64 * 4))?;
        let sparse = match &acc.sparse {
            Some(sparse) => Some(self.sparse(sparse, count, elem, &here)?),
            None => None,
        };
        Ok(Layout {
            component,
            normalized: acc.normalized,
            comps,
            count,
            base,
            sparse,
            shared: self.loaded.shared.as_ref(),
        })
    }

    /// Buffer view `i` and its bytes, checked to fit its buffer (`here`: who refers to it).
    fn view(
        &self,
        i: usize,
        here: &dyn Display,
    ) -> Result<(&'a json::buffer::View, &'a [u8]), ReadError> {
        let view_at = At::Item("bufferViews", i);
        let view = self
            .root
            .buffer_views
            .get(i)
            .ok_or_else(|| ReadError::invalid(here, format!("no {view_at}")))?;
        let buffer = self.loaded.buffer(view.buffer.value()).ok_or_else(|| {
            ReadError::invalid(view_at, format!("no buffers[{}]", view.buffer.value()))
        })?;
        let start = view.byte_offset.map_or(0, |o| o.0);
        let bytes = start
            .checked_add(view.byte_length.0)
            .and_then(|end| buffer.get(usize::try_from(start).ok()?..usize::try_from(end).ok()?))
            .ok_or_else(|| {
                ReadError::invalid(
                    view_at,
                    format!(
                        "byteOffset {start} + byteLength {} runs past the buffer's {} bytes",
                        view.byte_length.0,
                        buffer.len()
                    ),
                )
            })?;
        Ok((view, bytes))
    }

    /// Where index accessor `index` lies in its buffer view, when its values can be read as a
    /// range of the whole view decoded once ([`Reader::view_uints`]): a scalar accessor of
    /// unsigned components, not sparse, in a tightly packed view, at a whole number of
    /// elements from the view's start. `None` otherwise (then it is read on its own).
    pub fn index_span(&self, index: json::Index<json::Accessor>) -> Option<IndexSpan> {
        let acc = self.root.accessors.get(index.value())?;
        let (Valid(GenericComponentType(component)), Valid(Type::Scalar)) =
            (acc.component_type, acc.type_)
        else {
            return None;
        };
        if !matches!(
            component,
            ComponentType::U8 | ComponentType::U16 | ComponentType::U32
        ) || acc.sparse.is_some()
        {
            return None;
        }
        let view = acc.buffer_view?.value();
        let elem = component.size();
        let stride = self.root.buffer_views.get(view)?.byte_stride;
        if stride.is_some_and(|s| s.0 != elem) {
            return None;
        }
        let offset = usize::try_from(acc.byte_offset.map_or(0, |o| o.0)).ok()?;
        Some(IndexSpan {
            view,
            component,
            first: (offset % elem == 0).then_some(offset / elem)?,
            count: usize::try_from(acc.count.0).ok()?,
        })
    }

    /// All of buffer view `view` as `component` values (bytes after the last whole element
    /// left out), charged to the budget (4 bytes a value) before anything is decoded.
    pub fn view_uints(
        &mut self,
        view: usize,
        component: ComponentType,
        here: &dyn Display,
    ) -> Result<Array<u32>, ReadError> {
        let (_, data) = self.view(view, here)?;
        let elem = component.size();
        let count = data.len() / elem;
        self.charge(here, count as u64 * 4)?;
        let layout = Layout {
            component,
            normalized: false,
            comps: 1,
            count,
            base: Some((data, elem)),
            sparse: None,
            shared: self.loaded.shared.as_ref(),
        };
        if component == ComponentType::U32 {
            if let Some(tight) = layout.tight::<u32>(1) {
                return Ok(tight);
            }
        }
        Ok(match component {
            ComponentType::U16 => layout.collect(|b| u32::from(u16::from_le_bytes(bytes(b)))),
            ComponentType::U8 => layout.collect(|b| u32::from(b.first().copied().unwrap_or(0))),
            c => layout.collect(move |b| uint(c, b)),
        }
        .into())
    }

    /// The bytes of buffer view `i` (an extras blob), a view of a shared input or a copy,
    /// charged to the budget.
    pub fn view_bytes(&mut self, i: usize, here: &dyn Display) -> Result<Array<u8>, ReadError> {
        let (_, bytes) = self.view(i, here)?;
        self.charge(here, bytes.len() as u64)?;
        let shared = self.loaded.shared.as_ref();
        Ok(shared
            .and_then(|s| Array::view(s, bytes))
            .unwrap_or_else(|| bytes.into()))
    }

    /// `count` elements of `elem` bytes at `offset` in `view`, checked to fit the view and
    /// the view to fit its buffer; returns the slice from the first element and the stride.
    fn elements(
        &self,
        view_index: json::Index<json::buffer::View>,
        offset: u64,
        count: usize,
        elem: usize,
        here: &dyn Display,
    ) -> Result<(&'a [u8], usize), ReadError> {
        let (view, bytes) = self.view(view_index.value(), here)?;
        let view_at = At::Item("bufferViews", view_index.value());
        let stride = view.byte_stride.map_or(elem, |s| s.0);
        if stride < elem {
            return Err(ReadError::invalid(
                here,
                format!("byteStride {stride} of {view_at} is shorter than the {elem}-byte element"),
            ));
        }
        let need = if count == 0 {
            Some(offset)
        } else {
            (count as u64 - 1)
                .checked_mul(stride as u64)
                .and_then(|n| n.checked_add(offset))
                .and_then(|n| n.checked_add(elem as u64))
        };
        match need {
            Some(need) if need <= bytes.len() as u64 => {
                let from = usize::try_from(offset).unwrap_or(usize::MAX);
                Ok((bytes.get(from..).unwrap_or_default(), stride))
            }
            _ => Err(ReadError::invalid(
                here,
                format!(
                    "{count} elements of {elem} bytes, {stride} apart from byte {offset}, do not fit the {} bytes of {view_at}",
                    bytes.len()
                ),
            )),
        }
    }

    fn sparse(
        &self,
        sparse: &json::accessor::sparse::Sparse,
        count: usize,
        elem: usize,
        here: &dyn Display,
    ) -> Result<(Vec<usize>, &'a [u8]), ReadError> {
        let at = format!("{here}.sparse");
        let n = usize::try_from(sparse.count.0)
            .ok()
            .filter(|&n| n <= count)
            .ok_or_else(|| {
                ReadError::invalid(
                    &at,
                    format!("count {} exceeds the accessor's {count}", sparse.count.0),
                )
            })?;
        let Valid(json::accessor::IndexComponentType(component)) = sparse.indices.component_type
        else {
            return Err(ReadError::invalid(&at, "unknown indices componentType"));
        };
        let (indices, _) = self.elements(
            sparse.indices.buffer_view,
            sparse.indices.byte_offset.0,
            n,
            component.size(),
            &format!("{at}.indices"),
        )?;
        let (values, _) = self.elements(
            sparse.values.buffer_view,
            sparse.values.byte_offset.0,
            n,
            elem,
            &format!("{at}.values"),
        )?;
        let mut list = Vec::with_capacity(n);
        for chunk in indices.chunks(component.size()).take(n) {
            let i = uint(component, chunk) as usize;
            if i >= count || list.last().is_some_and(|&last| i <= last) {
                return Err(ReadError::invalid(
                    &at,
                    format!("index {i} is out of range or not increasing"),
                ));
            }
            list.push(i);
        }
        Ok((list, values))
    }
}

impl Layout<'_> {
    /// The values of an unsigned accessor ([`Reader::unsigned_layout`]) as `u32`s.
    fn uints(&self) -> Array<u32> {
        let c = self.component;
        if c == ComponentType::U32 {
            if let Some(tight) = self.tight::<u32>(self.comps) {
                return tight;
            }
        }
        // Monomorphised per component type, so the per-element `match` leaves the loop.
        match c {
            ComponentType::U16 => self.collect(|b| u32::from(u16::from_le_bytes(bytes(b)))),
            ComponentType::U8 => self.collect(|b| u32::from(b.first().copied().unwrap_or(0))),
            _ => self.collect(move |b| uint(c, b)),
        }
        .into()
    }

    /// The common case in bulk ([`Layout::bulk`]): 4-byte little-endian components (the
    /// caller checked the component type matches `T`'s), tightly packed, no sparse
    /// substitution, on a little-endian machine. `None`: decode element by element instead.
    /// The bytes were checked against the view in [`Reader::elements`]; `get` keeps that from
    /// panicking. `per_element`: how many `T` make one element (the components for a flat
    /// `f32` array, 1 for `[f32; N]` elements).
    fn tight<T: bytemuck::Pod>(&self, per_element: usize) -> Option<Array<T>> {
        let elem = self.comps * self.component.size();
        let (bytes, stride) = self.base?;
        let whole = self.count.checked_mul(elem)?;
        let fits = cfg!(target_endian = "little")
            && self.sparse.is_none()
            && stride == elem
            && self.component.size() == 4
            && elem == per_element.checked_mul(std::mem::size_of::<T>())?;
        if !fits {
            return None;
        }
        self.bulk(bytes.get(..whole)?)
    }

    /// `whole`, tightly packed values of `T`, in bulk: a view of the shared input when it is
    /// one and aligned (no copy at all), else one copy into fresh memory (`bytemuck`'s
    /// `pod_collect_to_vec` would zero the vector first, a second pass over it).
    fn bulk<T: bytemuck::Pod>(&self, whole: &[u8]) -> Option<Array<T>> {
        if let Some(view) = self.shared.and_then(|s| Array::view(s, whole)) {
            return Some(view);
        }
        binio::pod::vec_from_bytes(whole).map(Array::from)
    }

    /// Tightly packed normalised `u8` components (colours as our writer writes them) as unit
    /// floats, in one pass that vectorises: the same values as [`float`] gives each.
    fn tight_unit_bytes(&self) -> Option<Vec<f32>> {
        let (bytes, stride) = self.base?;
        let fits = self.component == ComponentType::U8
            && self.normalized
            && self.sparse.is_none()
            && stride == self.comps;
        let whole = bytes.get(..self.count.checked_mul(self.comps)?)?;
        fits.then(|| whole.iter().map(|&b| f32::from(b) / 255.0).collect())
    }

    fn collect<T: Copy + Default>(&self, convert: impl Fn(&[u8]) -> T) -> Vec<T> {
        let size = self.component.size();
        let elem = self.comps * size;
        let mut out = Vec::new();
        match self.base {
            // Tightly packed: one pass over the components, which the compiler vectorises.
            Some((bytes, stride)) if stride == elem && size > 0 => {
                // Fits: `elements` checked the count against the view's bytes.
                let whole = self
                    .count
                    .checked_mul(elem)
                    .and_then(|w| bytes.get(..w))
                    .unwrap_or_default();
                // A plain loop into a zeroed vector, with a literal chunk length per component
                // size: it vectorises whatever the compiler decides to inline (an `extend`
                // over the chunks was once left as a call, 7 instructions a component).
                out = vec![T::default(); whole.len() / size];
                match size {
                    1 => convert_into(&mut out, whole, 1, &convert),
                    2 => convert_into(&mut out, whole, 2, &convert),
                    4 => convert_into(&mut out, whole, 4, &convert),
                    _ => convert_into(&mut out, whole, size, &convert),
                }
            }
            Some((bytes, stride)) => {
                out.reserve(self.count * self.comps);
                for element in bytes.chunks(stride.max(1)).take(self.count) {
                    for c in 0..self.comps {
                        out.push(element.get(c * size..).map_or_else(T::default, &convert));
                    }
                }
            }
            None => out.resize(self.count * self.comps, T::default()),
        }
        if let Some((indices, values)) = &self.sparse {
            for (&i, element) in indices.iter().zip(values.chunks(elem.max(1))) {
                for c in 0..self.comps {
                    if let Some(slot) = out.get_mut(i * self.comps + c) {
                        *slot = element.get(c * size..).map_or_else(T::default, &convert);
                    }
                }
            }
        }
        out
    }
}

fn accessor_at(index: json::Index<json::Accessor>) -> String {
    format!("accessors[{}]", index.value())
}

fn bytes<const N: usize>(b: &[u8]) -> [u8; N] {
    b.get(..N).and_then(|s| s.try_into().ok()).unwrap_or([0; N])
}

/// One component as a float (glTF 2.0 § 3.11 for the normalised ones).
fn float(component: ComponentType, normalized: bool, b: &[u8]) -> f32 {
    let raw = |v: f32, max: f32| {
        if normalized {
            (v / max).max(-1.0)
        } else {
            v
        }
    };
    match component {
        ComponentType::I8 => raw(f32::from(i8::from_le_bytes(bytes(b))), 127.0),
        ComponentType::U8 => raw(f32::from(b.first().copied().unwrap_or(0)), 255.0),
        ComponentType::I16 => raw(f32::from(i16::from_le_bytes(bytes(b))), 32767.0),
        ComponentType::U16 => raw(f32::from(u16::from_le_bytes(bytes(b))), 65535.0),
        ComponentType::U32 => raw(u32::from_le_bytes(bytes(b)) as f32, u32::MAX as f32),
        ComponentType::F32 => f32::from_le_bytes(bytes(b)),
    }
}

/// One unsigned component (u8, u16, u32).
fn uint(component: ComponentType, b: &[u8]) -> u32 {
    match component {
        ComponentType::U8 | ComponentType::I8 => u32::from(b.first().copied().unwrap_or(0)),
        ComponentType::U16 | ComponentType::I16 => u32::from(u16::from_le_bytes(bytes(b))),
        ComponentType::U32 | ComponentType::F32 => u32::from_le_bytes(bytes(b)),
    }
}

/// A JOINTS accessor's values ([`Reader::joints`]).
#[derive(Debug)]
pub(crate) enum Joints {
    /// Four joints a vertex, each within `u16`.
    Narrow(Array<[u16; 4]>),
    /// The flat values, as [`Reader::uints`] gives them.
    Wide(Vec<u32>),
}

impl Default for Joints {
    fn default() -> Self {
        Joints::Wide(Vec::new())
    }
}

impl Joints {
    /// How many joint values (four a vertex).
    pub fn len(&self) -> usize {
        match self {
            Joints::Narrow(v) => v.len() * 4,
            Joints::Wide(v) => v.len(),
        }
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The flat values as `u32`s (the general, several-set path).
    pub fn into_wide(self) -> Vec<u32> {
        match self {
            Joints::Narrow(v) => v.iter().flatten().map(|&j| u32::from(j)).collect(),
            Joints::Wide(v) => v,
        }
    }
}

/// Tightly packed `u8` joints as four-joint `u16` arrays, in one exactly sized pass.
fn widen_joints(bytes: &[u8]) -> Vec<[u16; 4]> {
    let quads: &[[u8; 4]] = bytemuck::try_cast_slice(bytes).unwrap_or_default();
    quads.iter().map(|q| q.map(u16::from)).collect()
}

/// `convert` of each `size`-byte chunk of `bytes`, into `out` (as far as both go).
#[inline(always)]
fn convert_into<T>(out: &mut [T], bytes: &[u8], size: usize, convert: &impl Fn(&[u8]) -> T) {
    for (o, b) in out.iter_mut().zip(bytes.chunks_exact(size)) {
        *o = convert(b);
    }
}
