//! glTF meshes → scene meshes: attributes decoded, primitives triangulated, skin influences
//! reduced to four.

use super::accessor::{IndexSpan, Joints, Reader};
use super::{ReadError, ReadWarning, ReadWarningKind};
use crate::gltf::json;
use crate::scene::{Array, Colors, Indices, Mesh, Primitive, Vertices};
use json::accessor::Type;
use json::mesh::{Mode, Semantic};
use json::validation::Checked::{self, Valid};
use std::collections::{BTreeMap, HashMap, HashSet};
use std::sync::Arc;

type Attributes = BTreeMap<Checked<Semantic>, json::Index<json::Accessor>>;

/// Warnings of one mesh, each given once.
struct MeshWarnings<'w> {
    out: &'w mut Vec<ReadWarning>,
    filled: Vec<&'static str>,
    reduced: usize,
    ignored: Vec<String>,
}

impl MeshWarnings<'_> {
    fn push(&mut self, at: String, kind: ReadWarningKind) {
        self.out.push(ReadWarning { at, kind });
    }
}

/// Reads mesh `index`. Primitives that share the same attribute accessors share vertices
/// (as the writer lays them out); others are appended, and attributes some have and others
/// lack are filled in with a warning.
pub(crate) fn mesh(
    reader: &mut Reader<'_>,
    index: usize,
    mesh: &json::Mesh,
    material_count: usize,
    warnings: &mut Vec<ReadWarning>,
) -> Result<Mesh, ReadError> {
    let at = format!("meshes[{index}]");
    let mut w = MeshWarnings {
        out: warnings,
        filled: Vec::new(),
        reduced: 0,
        ignored: Vec::new(),
    };
    let extras = super::convert::extras_map(&mesh.extras).unwrap_or_else(|| {
        w.out.push(ReadWarning {
            at: at.clone(),
            kind: ReadWarningKind::NotCarried {
                what: "extras that are not a JSON object".into(),
            },
        });
        Default::default()
    });
    let mut out = Mesh {
        name: mesh.name.clone().unwrap_or_default(),
        extras,
        ..Mesh::default()
    };
    let mut blocks: Vec<(&Attributes, u32)> = Vec::new();
    let shared_views = overlapping_index_views(reader, mesh);
    let mut decoded = HashMap::new();
    let mut morph = mesh.weights.as_ref().is_some_and(|v| !v.is_empty());
    for (p, prim) in mesh.primitives.iter().enumerate() {
        let prim_at = format!("{at}.primitives[{p}]");
        morph |= prim.targets.as_ref().is_some_and(|t| !t.is_empty());
        let mode = match prim.mode {
            Valid(m) => m,
            Checked::Invalid => return Err(ReadError::invalid(prim_at, "unknown mode")),
        };
        let skipped = match mode {
            Mode::Points => Some("POINTS"),
            Mode::Lines => Some("LINES"),
            Mode::LineLoop => Some("LINE_LOOP"),
            Mode::LineStrip => Some("LINE_STRIP"),
            Mode::Triangles | Mode::TriangleStrip | Mode::TriangleFan => None,
        };
        if let Some(mode) = skipped {
            w.push(prim_at, ReadWarningKind::PrimitiveSkipped { mode });
            continue;
        }
        if !prim.attributes.contains_key(&Valid(Semantic::Positions)) {
            w.push(
                prim_at,
                ReadWarningKind::NotCarried {
                    what: "a primitive without POSITION".into(),
                },
            );
            continue;
        }
        let (first, count) = match blocks.iter().find(|(a, _)| **a == prim.attributes) {
            Some(&(_, first)) => (
                first,
                block_len(&blocks, first, out.vertices.positions.len()),
            ),
            None => {
                let first = u32::try_from(out.vertices.positions.len()).map_err(|_| {
                    ReadError::invalid(&prim_at, "more than 2^32 vertices in one mesh")
                })?;
                let block = vertices(reader, &prim.attributes, &prim_at, &mut w)?;
                let count = block.positions.len() as u32;
                append(&mut out.vertices, block, &mut w.filled);
                blocks.push((&prim.attributes, first));
                (first, count)
            }
        };
        let shared = match (mode, prim.indices) {
            (Mode::Triangles, Some(accessor)) => {
                let views = (&shared_views, &mut decoded);
                shared_range(reader, accessor, views, (first, count), &prim_at, &mut w)?
            }
            _ => None,
        };
        let local = match shared {
            Some(_) => Array::default(),
            None => primitive_indices(reader, prim, count, &prim_at)?,
        };
        let material = match prim.material {
            Some(m) if m.value() >= material_count => {
                return Err(ReadError::invalid(
                    format!("{prim_at}.material"),
                    format!(
                        "index {} out of range (there are {material_count})",
                        m.value()
                    ),
                ))
            }
            m => m.map(|m| m.value()),
        };
        let indices = match shared {
            Some(indices) => indices,
            None => {
                let triangles =
                    triangles_of(reader, local, mode, (first, count), &prim_at, &mut w)?;
                // `primitive_indices` checked every index below the block's `count`.
                Indices::checked(triangles, first as usize + count as usize)
            }
        };
        out.primitives.push(Primitive { indices, material });
    }
    if morph {
        w.push(
            at.clone(),
            ReadWarningKind::NotCarried {
                what: "morph targets".into(),
            },
        );
    }
    for attribute in std::mem::take(&mut w.filled) {
        let with = match attribute {
            "NORMAL" => "(0, 0, 1)",
            "TANGENT" => "(1, 0, 0, 1)",
            "COLOR_0" => "white",
            "JOINTS_0" => "joint 0 with weight 1",
            _ => "zeros",
        };
        w.push(
            at.clone(),
            ReadWarningKind::AttributeFilled { attribute, with },
        );
    }
    if w.reduced > 0 {
        let vertices = w.reduced;
        w.push(at.clone(), ReadWarningKind::InfluencesReduced { vertices });
    }
    for what in std::mem::take(&mut w.ignored) {
        w.push(at.clone(), ReadWarningKind::NotCarried { what });
    }
    Ok(out)
}

/// The indices of one primitive over its `count` vertices (or `0..count`), checked to be in
/// range.
fn primitive_indices(
    reader: &mut Reader<'_>,
    prim: &json::mesh::Primitive,
    count: u32,
    prim_at: &str,
) -> Result<Array<u32>, ReadError> {
    let local = match prim.indices {
        Some(i) => {
            reader
                .uints(i, &format!("{prim_at}.indices"), &[Type::Scalar])?
                .0
        }
        None => {
            reader.charge(&prim_at, u64::from(count) * 4)?;
            (0..count).collect()
        }
    };
    // Every index checked first, in one pass without an early exit (it vectorises); the
    // offending index is looked for only when there is one.
    let in_range = crate::scene::validate::below(&local, count as usize);
    let bad = (!in_range).then(|| local.iter().find(|&&i| i >= count));
    if let Some(bad) = bad.flatten() {
        return Err(ReadError::invalid(
            format!("{prim_at}.indices"),
            format!("index {bad} beyond the {count} vertices"),
        ));
    }
    Ok(local)
}

/// The triangle list of one primitive's checked indices `local` (`mode` not a line or point
/// mode), triangulated and offset by `first` to the mesh's vertices.
fn triangles_of(
    reader: &mut Reader<'_>,
    local: Array<u32>,
    mode: Mode,
    (first, count): (u32, u32),
    prim_at: &str,
    w: &mut MeshWarnings<'_>,
) -> Result<Array<u32>, ReadError> {
    // A strip or fan of n indices makes at most 3 n.
    reader.charge(&prim_at, local.len() as u64 * 12)?;
    if mode == Mode::Triangles {
        warn_partial_triangle(w, prim_at, local.len());
    }
    // A list of triangles is used in place (no copy; a view of the input stays one unless
    // it must change); strips and fans are rebuilt.
    let mut triangles = match mode {
        Mode::Triangles if local.len() % 3 == 0 => local,
        Mode::Triangles => {
            let mut local = local.into_vec();
            local.truncate(local.len() / 3 * 3);
            local.into()
        }
        _ => triangulate(mode, &local).into(),
    };
    if first > 0 {
        // Every index is below `count`, and `first + count` vertices were counted in u32.
        first
            .checked_add(count)
            .ok_or_else(|| ReadError::invalid(prim_at, "more than 2^32 vertices in one mesh"))?;
        triangles.to_mut().iter_mut().for_each(|i| *i += first);
    }
    Ok(triangles)
}

/// Says that the last `len % 3` of a triangle list's `len` indices are left out, if any are.
fn warn_partial_triangle(w: &mut MeshWarnings<'_>, prim_at: &str, len: usize) {
    if len % 3 != 0 {
        w.push(
            prim_at.to_string(),
            ReadWarningKind::NotCarried {
                what: format!(
                    "the last {} of {len} indices (not a whole triangle)",
                    len % 3
                ),
            },
        );
    }
}

/// The index buffer views of which two or more TRIANGLES primitives of `mesh` read
/// overlapping ranges. The writer lays out an index list shared by overlapping material
/// ranges so (one view, an accessor per range): read accessor by accessor, M ranges over N
/// indices would decode M × N values, and a small file could make a huge scene. Such a view is
/// decoded once ([`shared_range`]), and each primitive is a range of it, as in the scene the
/// file was written from. Views read without overlaps keep the accessor-by-accessor path.
fn overlapping_index_views(reader: &Reader<'_>, mesh: &json::Mesh) -> HashSet<usize> {
    let mut spans: Vec<IndexSpan> = mesh
        .primitives
        .iter()
        .filter(|p| p.mode == Valid(Mode::Triangles))
        .filter_map(|p| reader.index_span(p.indices?))
        .filter(|s| s.count > 0)
        .collect();
    spans.sort_unstable_by_key(|s| (s.view, s.first));
    let mut overlapping = HashSet::new();
    // The view of the previous span and the furthest end of its spans so far.
    let mut reach: Option<(usize, usize)> = None;
    for s in spans {
        let end = s.first.saturating_add(s.count);
        reach = match reach {
            Some((view, furthest)) if view == s.view => {
                if s.first < furthest {
                    overlapping.insert(view);
                }
                Some((view, furthest.max(end)))
            }
            _ => Some((s.view, end)),
        };
    }
    overlapping
}

/// Index views decoded once, by view, component size and the vertex block (`first`, `count`)
/// they index; `None`: the view holds an index outside the block, so it is not shared.
type DecodedViews = HashMap<(usize, usize, u32, u32), Option<Arc<Array<u32>>>>;

/// The triangles of a TRIANGLES primitive whose indices `accessor` reads a range of one of
/// `views.0` (see [`overlapping_index_views`]): that range of the view, decoded once for every
/// primitive of the vertex block `(first, count)`. `None` when the accessor is not such a
/// range, or the view holds an index outside the block: then the primitive is read on its
/// own, with that path's checks and errors.
fn shared_range(
    reader: &mut Reader<'_>,
    accessor: json::Index<json::Accessor>,
    (shared_views, decoded): (&HashSet<usize>, &mut DecodedViews),
    (first, count): (u32, u32),
    prim_at: &str,
    w: &mut MeshWarnings<'_>,
) -> Result<Option<Indices>, ReadError> {
    let Some(span) = reader
        .index_span(accessor)
        .filter(|s| shared_views.contains(&s.view))
    else {
        return Ok(None);
    };
    let key = (span.view, span.component.size(), first, count);
    let list = match decoded.get(&key) {
        Some(list) => list.clone(),
        None => {
            let here = format!("{prim_at}.indices");
            let mut values = reader.view_uints(span.view, span.component, &here)?;
            let list = if crate::scene::validate::below(&values, count as usize) {
                if first > 0 {
                    first.checked_add(count).ok_or_else(|| {
                        ReadError::invalid(prim_at, "more than 2^32 vertices in one mesh")
                    })?;
                    values.to_mut().iter_mut().for_each(|i| *i += first);
                }
                Some(Arc::new(values))
            } else {
                None
            };
            decoded.insert(key, list.clone());
            list
        }
    };
    let Some(list) = list else {
        return Ok(None);
    };
    let whole = span.count / 3 * 3;
    // Checked below the block's end when decoded.
    let end = first as usize + count as usize;
    let range = span.first..span.first.saturating_add(whole);
    let Some(indices) = Indices::shared_below(&list, range, Some(end)) else {
        return Ok(None);
    };
    warn_partial_triangle(w, prim_at, span.count);
    Ok(Some(indices))
}

/// The vertex count of the block starting at `first`.
fn block_len(blocks: &[(&Attributes, u32)], first: u32, total: usize) -> u32 {
    let next = blocks
        .iter()
        .map(|&(_, f)| f)
        .filter(|&f| f > first)
        .min()
        .unwrap_or(total as u32);
    next - first
}

/// The vertex attributes of one primitive.
fn vertices(
    reader: &mut Reader<'_>,
    attributes: &Attributes,
    at: &str,
    w: &mut MeshWarnings<'_>,
) -> Result<Vertices, ReadError> {
    let mut v = Vertices::default();
    let mut joints: BTreeMap<u32, (Joints, Array<[f32; 4]>)> = BTreeMap::new();
    let mut weights: BTreeMap<u32, Array<[f32; 4]>> = BTreeMap::new();
    for (semantic, &accessor) in attributes {
        let name = match semantic {
            Valid(s) => s.to_string(),
            Checked::Invalid => "an unknown attribute".to_string(),
        };
        let here = format!("{at}.attributes.{name}");
        let vec3 = &[Type::Vec3][..];
        match semantic {
            Valid(Semantic::Positions) => {
                v.positions = reader.float_arrays(accessor, &here, vec3)?
            }
            Valid(Semantic::Normals) => {
                v.normals = Some(reader.float_arrays(accessor, &here, vec3)?)
            }
            Valid(Semantic::Tangents) => {
                v.tangents = Some(reader.float_arrays(accessor, &here, &[Type::Vec4])?)
            }
            Valid(Semantic::TexCoords(0)) => {
                v.uv0 = Some(reader.float_arrays(accessor, &here, &[Type::Vec2])?)
            }
            Valid(Semantic::TexCoords(1)) => {
                v.uv1 = Some(reader.float_arrays(accessor, &here, &[Type::Vec2])?)
            }
            // Bytes stay bytes on the way out again (`Colors::Bytes`).
            Valid(Semantic::Colors(0)) => v.colors = Some(reader.colors(accessor, &here)?),
            Valid(Semantic::Joints(set)) => {
                joints.entry(*set).or_default().0 = reader.joints(accessor, &here)?;
            }
            Valid(Semantic::Weights(set)) => {
                weights.insert(*set, reader.float_arrays(accessor, &here, &[Type::Vec4])?);
            }
            _ => {
                if !w.ignored.iter().any(|i| i.ends_with(&name)) {
                    w.ignored.push(format!("the attribute {name}"));
                }
            }
        }
    }
    let n = v.positions.len();
    let lens = [
        v.normals.as_ref().map(|a| a.len()),
        v.tangents.as_ref().map(|a| a.len()),
        v.uv0.as_ref().map(|a| a.len()),
        v.uv1.as_ref().map(|a| a.len()),
        v.colors.as_ref().map(Colors::len),
    ];
    if lens.iter().flatten().any(|&l| l != n) {
        return Err(ReadError::invalid(
            at,
            format!("attributes of different counts (POSITION has {n})"),
        ));
    }
    for (set, list) in weights {
        if let Some(entry) = joints.get_mut(&set) {
            entry.1 = list;
        }
    }
    skin_influences(&mut v, joints, n, at, w)?;
    Ok(v)
}

/// JOINTS_n/WEIGHTS_n sets → four influences per vertex: one set is kept as it is; with
/// more, the four largest weights are kept and renormalised.
fn skin_influences(
    v: &mut Vertices,
    sets: BTreeMap<u32, (Joints, Array<[f32; 4]>)>,
    n: usize,
    at: &str,
    w: &mut MeshWarnings<'_>,
) -> Result<(), ReadError> {
    let sets: Vec<_> = sets
        .into_values()
        .filter(|(j, wt)| !j.is_empty() && !wt.is_empty())
        .collect();
    if sets.is_empty() {
        return Ok(());
    }
    if sets.iter().any(|(j, wt)| j.len() != n * 4 || wt.len() != n) {
        return Err(ReadError::invalid(
            at,
            format!("JOINTS/WEIGHTS counts differ from POSITION's {n}"),
        ));
    }
    let too_big = |j: u32| {
        u16::try_from(j).map_err(|_| ReadError::invalid(at, format!("joint {j} beyond 65535")))
    };
    if sets.len() == 1 {
        // One set (every export's): kept as it is, in bulk passes instead of the general loop
        // below (which sorts and gathers per vertex).
        let mut sets = sets;
        if let Some((j, wt)) = sets.pop() {
            v.joints = Some(match j {
                // u8 or u16 joints, read as arrays of four already (none beyond u16).
                Joints::Narrow(j) => j,
                Joints::Wide(j) => narrow_joints(&j, too_big)?.into(),
            });
            v.weights = Some(wt);
        }
        return Ok(());
    }
    let sets: Vec<(Vec<u32>, Array<[f32; 4]>)> = sets
        .into_iter()
        .map(|(j, wt)| (j.into_wide(), wt))
        .collect();
    let mut joints = Vec::with_capacity(n);
    let mut weights = Vec::with_capacity(n);
    let mut all: Vec<(u32, f32)> = Vec::with_capacity(sets.len() * 4);
    for i in 0..n {
        all.clear();
        for (j, wt) in &sets {
            let wt: &[f32] = bytemuck::cast_slice(wt);
            for k in 0..4 {
                let (Some(&jj), Some(&ww)) = (j.get(i * 4 + k), wt.get(i * 4 + k)) else {
                    continue;
                };
                all.push((jj, ww));
            }
        }
        if sets.len() > 1 {
            // Stable: equal weights keep their order.
            all.sort_by(|a, b| b.1.total_cmp(&a.1));
            if all.iter().skip(4).any(|&(_, ww)| ww > 0.0) {
                w.reduced += 1;
                let kept: f32 = all.iter().take(4).map(|&(_, ww)| ww).sum();
                if kept > 0.0 {
                    for x in all.iter_mut().take(4) {
                        x.1 /= kept;
                    }
                }
            }
        }
        let mut jo = [0u16; 4];
        let mut we = [0f32; 4];
        for (k, &(jj, ww)) in all.iter().take(4).enumerate() {
            if let (Some(a), Some(b)) = (jo.get_mut(k), we.get_mut(k)) {
                *a = too_big(jj)?;
                *b = ww;
            }
        }
        joints.push(jo);
        weights.push(we);
    }
    v.joints = Some(joints.into());
    v.weights = Some(weights.into());
    Ok(())
}

/// One set's flat `u32` joints (count checked: four a vertex) as arrays of four `u16`s, or
/// `too_big`'s error for the first joint beyond u16 in file order (the one the general loop
/// of [`skin_influences`] reports).
fn narrow_joints(
    j: &[u32],
    too_big: impl Fn(u32) -> Result<u16, ReadError>,
) -> Result<Vec<[u16; 4]>, ReadError> {
    // The bits of every joint ORed (one instruction per four joints; an unsigned `max` costs
    // more on baseline x86-64): above u16 exactly when some joint is.
    if j.iter().fold(0, |m, &x| m | x) > u32::from(u16::MAX) {
        if let Some(&bad) = j.iter().find(|&&x| x > u32::from(u16::MAX)) {
            too_big(bad)?;
        }
    }
    // Whole arrays of four: no per-joint bounds check, and the narrowing vectorises (a
    // per-joint `get` cost 18 instructions a vertex).
    let whole: &[[u32; 4]] = bytemuck::try_cast_slice(j).unwrap_or_default();
    Ok(whole.iter().map(|c| c.map(|x| x as u16)).collect())
}

/// Appends `block` to `mesh`, filling an attribute one side lacks (named in `filled`).
fn append(mesh: &mut Vertices, block: Vertices, filled: &mut Vec<&'static str>) {
    let before = mesh.positions.len();
    let added = block.positions.len();
    take_or_extend(&mut mesh.positions, block.positions);
    let mut fill = |name: &'static str| {
        if !filled.contains(&name) {
            filled.push(name);
        }
    };
    merge(
        &mut mesh.normals,
        block.normals,
        before,
        added,
        [0.0, 0.0, 1.0],
        || fill("NORMAL"),
    );
    merge(
        &mut mesh.tangents,
        block.tangents,
        before,
        added,
        [1.0, 0.0, 0.0, 1.0],
        || fill("TANGENT"),
    );
    merge(&mut mesh.uv0, block.uv0, before, added, [0.0; 2], || {
        fill("TEXCOORD_0")
    });
    merge(&mut mesh.uv1, block.uv1, before, added, [0.0; 2], || {
        fill("TEXCOORD_1")
    });
    merge_colors(&mut mesh.colors, block.colors, (before, added), || {
        fill("COLOR_0")
    });
    merge(
        &mut mesh.joints,
        block.joints,
        before,
        added,
        [0; 4],
        || fill("JOINTS_0"),
    );
    merge(
        &mut mesh.weights,
        block.weights,
        before,
        added,
        [1.0, 0.0, 0.0, 0.0],
        || fill("JOINTS_0"),
    );
}

/// `src` appended to `dst`; moved when `dst` is empty (no copy of a large attribute).
fn take_or_extend<T: bytemuck::Pod>(dst: &mut Array<T>, src: Array<T>) {
    if dst.is_empty() {
        *dst = src;
    } else {
        dst.to_mut().extend_from_slice(&src);
    }
}

/// [`merge`] for colours: bytes while every block's are (a block without colours is filled
/// with white, a byte value), else floats.
fn merge_colors(
    dst: &mut Option<Colors>,
    src: Option<Colors>,
    (before, added): (usize, usize),
    filled: impl FnMut(),
) {
    let bytes = |c: &Option<Colors>| matches!(c, None | Some(Colors::Bytes(_)));
    if bytes(dst) && bytes(&src) {
        let as_bytes = |c: Option<Colors>| match c {
            Some(Colors::Bytes(b)) => Some(b),
            _ => None,
        };
        let mut d = as_bytes(dst.take());
        merge(&mut d, as_bytes(src), before, added, [u8::MAX; 4], filled);
        *dst = d.map(Colors::Bytes);
    } else {
        let as_floats = |c: Option<Colors>| {
            c.map(|c| match c {
                Colors::Floats(f) => f,
                bytes => bytes.to_floats().into_owned().into(),
            })
        };
        let mut d = as_floats(dst.take());
        merge(&mut d, as_floats(src), before, added, [1.0; 4], filled);
        *dst = d.map(Colors::Floats);
    }
}

fn merge<T: bytemuck::Pod>(
    dst: &mut Option<Array<T>>,
    src: Option<Array<T>>,
    before: usize,
    added: usize,
    default: T,
    mut filled: impl FnMut(),
) {
    match (dst.as_mut(), src) {
        (Some(d), Some(s)) => take_or_extend(d, s),
        (Some(d), None) => {
            filled();
            d.to_mut().resize(before + added, default);
        }
        // The first block (the only one of a one-primitive mesh) is moved, not copied.
        (None, Some(s)) if before == 0 => *dst = Some(s),
        (None, Some(s)) => {
            filled();
            let mut d = vec![default; before];
            d.extend_from_slice(&s);
            *dst = Some(d.into());
        }
        (None, None) => {}
    }
}

/// A triangle list from triangles, a strip or a fan (glTF 2.0 § 3.7.2.1 orders the
/// vertices of a strip's odd triangles so that every face keeps the first one's winding).
fn triangulate(mode: Mode, idx: &[u32]) -> Vec<u32> {
    match mode {
        Mode::TriangleStrip => {
            let mut out = Vec::with_capacity(idx.len().saturating_sub(2) * 3);
            for (i, w) in idx.windows(3).enumerate() {
                if let [a, b, c] = *w {
                    if i % 2 == 0 {
                        out.extend_from_slice(&[a, b, c]);
                    } else {
                        out.extend_from_slice(&[a, c, b]);
                    }
                }
            }
            out
        }
        Mode::TriangleFan => {
            let Some(&first) = idx.first() else {
                return Vec::new();
            };
            let mut out = Vec::with_capacity(idx.len().saturating_sub(2) * 3);
            for w in idx.get(1..).unwrap_or_default().windows(2) {
                if let [b, c] = *w {
                    out.extend_from_slice(&[b, c, first]);
                }
            }
            out
        }
        _ => idx.get(..idx.len() / 3 * 3).unwrap_or_default().to_vec(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn strips_and_fans_keep_the_winding() {
        assert_eq!(
            triangulate(Mode::TriangleStrip, &[0, 1, 2, 3, 4]),
            [0, 1, 2, 1, 3, 2, 2, 3, 4]
        );
        assert_eq!(
            triangulate(Mode::TriangleFan, &[0, 1, 2, 3]),
            [1, 2, 0, 2, 3, 0]
        );
        assert_eq!(triangulate(Mode::Triangles, &[0, 1, 2, 3]), [0, 1, 2]);
        assert!(triangulate(Mode::TriangleStrip, &[0, 1]).is_empty());
    }
}
