//! Bytes → [`Bmf`]: the block walker and every validation rule of bmf.md §6.
//!
//! The file is read strictly in the order the BaseCross loader accepts (§3.7). Fixed-size
//! records (block headers, the material head) are the `Pod` structs of `layout.rs`, read with
//! `Cursor::record`; bulk arrays are copied in one go through `binio::pod`. Neither assumes
//! alignment: an odd index count or an odd-length texture name leaves every later block 2
//! bytes off a 4-byte boundary.

use crate::error::{Error, Result, Warning};
use crate::layout::*;
use crate::model::*;
use binio::Cursor;

/// The smallest possible Material block (header + head + a lone NUL): bounds MaterialCount.
const MIN_MATERIAL_BLOCK: u64 = BLOCK_HEADER_SIZE as u64 + MATERIAL_HEAD_SIZE as u64 + 2;
/// The smallest possible mesh (vertex, index, material-count and End headers): bounds MashCount.
const MIN_MESH: u64 = 4 * BLOCK_HEADER_SIZE as u64;
/// Weights within this distance of 1 count as summing to 1.
const WEIGHT_TOLERANCE: f32 = 1e-3;

/// Is `bytes` the start of a BMF file? Looks at the first 7 bytes only.
pub fn sniff(bytes: &[u8]) -> bool {
    bytes.starts_with(b"BDV1.0\0") || bytes.starts_with(b"BDV1.1\0")
}

/// Parses a whole file.
pub(crate) fn parse(bytes: &[u8]) -> Result<(Bmf, Vec<Warning>)> {
    let mut r = Reader {
        c: Cursor::new(bytes),
        warnings: Vec::new(),
    };
    let header = r.header()?;
    let mesh_count = match header.version() {
        Version::V1_0 => 1,
        Version::V1_1 => {
            let (at, h) = r.block_header("MashCount block")?;
            if h.kind != BLOCK_MESH_COUNT {
                return Err(unexpected(
                    at,
                    "MashCount block (type 9) after a BDV1.1 header",
                    h,
                ));
            }
            if h.size == 0 {
                return Err(Error::BadCount {
                    offset: at,
                    what: "mesh count",
                    count: 0,
                });
            }
            r.ensure_count(at, "meshes", u64::from(h.size), MIN_MESH)?;
            h.size as usize
        }
    };
    let mut meshes = Vec::with_capacity(mesh_count);
    let mut first_shape = None;
    for _ in 0..mesh_count {
        let at = r.c.offset();
        let mesh = r.mesh()?;
        let shape = (
            mesh.vertices.kind(),
            mesh.skin.as_ref().map(Skin::sample_count),
        );
        match first_shape {
            None => first_shape = Some(shape),
            Some(first) if first != shape => r.warnings.push(Warning::MixedMeshes { offset: at }),
            Some(_) => {}
        }
        meshes.push(mesh);
    }
    if !r.c.is_empty() {
        return Err(Error::TrailingData {
            offset: r.c.offset(),
            len: r.c.remaining() as u64,
        });
    }
    Ok((Bmf { header, meshes }, r.warnings))
}

fn unexpected(offset: u64, expected: &'static str, h: BlockHeader) -> Error {
    Error::UnexpectedBlock {
        offset,
        expected,
        found: h.kind,
    }
}

struct Reader<'a> {
    c: Cursor<'a>,
    warnings: Vec<Warning>,
}

impl<'a> Reader<'a> {
    fn truncated(&self, offset: u64, what: &'static str, e: binio::Eof) -> Error {
        Error::Truncated {
            offset,
            what,
            needed: e.needed,
            available: e.available,
        }
    }

    /// Fails with `Truncated` unless `count` items of at least `min_size` bytes each can still
    /// follow: the guard that runs before anything is allocated from a declared count.
    fn ensure_count(&self, at: u64, what: &'static str, count: u64, min_size: u64) -> Result<()> {
        self.c
            .ensure(count, min_size)
            .map_err(|e| self.truncated(at, what, e))
    }

    fn take(&mut self, at: u64, what: &'static str, n: u32) -> Result<&'a [u8]> {
        let c = &mut self.c;
        let result = c.take(n as usize);
        result.map_err(|e| Error::Truncated {
            offset: at,
            what,
            needed: e.needed,
            available: e.available,
        })
    }

    fn header(&mut self) -> Result<Header> {
        let bytes = self.c.rest();
        let raw: [u8; 16] = match bytes.get(..16).and_then(|b| b.try_into().ok()) {
            Some(raw) => raw,
            None => return Err(Error::NotThisFormat { offset: 0 }),
        };
        if !raw.starts_with(b"BDV1.") || !raw[5].is_ascii_digit() || raw[6] != 0 {
            return Err(Error::NotThisFormat { offset: 0 });
        }
        if raw[5] != b'0' && raw[5] != b'1' {
            return Err(Error::UnsupportedVersion {
                offset: 0,
                found: String::from_utf8_lossy(&raw[..6]).into_owned(),
            });
        }
        if raw[7..].iter().any(|&b| b != 0) {
            self.warnings.push(Warning::HeaderPadding { offset: 0 });
        }
        self.c
            .take(16)
            .map_err(|e| self.truncated(0, "header", e))?;
        Ok(Header { raw })
    }

    fn block_header(&mut self, what: &'static str) -> Result<(u64, BlockHeader)> {
        let at = self.c.offset();
        let h: BlockHeader = self.c.record().map_err(|e| self.truncated(at, what, e))?;
        Ok((at, h))
    }

    /// Reads a block header and checks its type.
    fn expect_block(&mut self, kind: u32, expected: &'static str) -> Result<(u64, BlockHeader)> {
        let (at, h) = self.block_header(expected)?;
        if h.kind != kind {
            return Err(unexpected(at, expected, h));
        }
        Ok((at, h))
    }

    fn mesh(&mut self) -> Result<Mesh> {
        // Vertex block.
        let (v_at, h) = self.block_header("vertex block")?;
        let kind = VertexKind::from_block_type(h.kind)
            .ok_or_else(|| unexpected(v_at, "a vertex block (type 0, 4, 7 or 8)", h))?;
        let element = kind.size() as u32;
        if h.size % element != 0 {
            return Err(Error::BadSize {
                offset: v_at,
                what: kind.name(),
                size: h.size.into(),
                reason: format!("is not a multiple of {element}"),
            });
        }
        let payload = self.take(v_at, kind.name(), h.size)?;
        let vertices = decode_vertices(kind, payload);
        let vertex_data_at = v_at + 8;

        // Index block.
        let (i_at, h) = self.expect_block(BLOCK_INDEX, "an Index block (type 1)")?;
        if h.size % 2 != 0 {
            return Err(bad_size(i_at, "Index block", h.size, "is odd".into()));
        }
        if (h.size / 2) % 3 != 0 {
            return Err(bad_size(
                i_at,
                "Index block",
                h.size,
                "is not a whole number of triangles (6 bytes each)".into(),
            ));
        }
        let payload = self.take(i_at, "Index block", h.size)?;
        let indices: Vec<u16> = binio::pod::vec_from_bytes(payload).unwrap_or_default();
        let vertex_count = vertices.len() as u64;
        if let Some(pos) = indices.iter().position(|&i| u64::from(i) >= vertex_count) {
            return Err(Error::IndexOutOfRange {
                offset: i_at + 8 + 2 * pos as u64,
                what: "vertex index",
                index: indices.get(pos).copied().unwrap_or_default().into(),
                limit: vertex_count,
            });
        }

        // Materials.
        let (mc_at, h) =
            self.expect_block(BLOCK_MATERIAL_COUNT, "a MaterialCount block (type 3)")?;
        let material_count = h.size;
        self.ensure_count(
            mc_at,
            "materials",
            material_count.into(),
            MIN_MATERIAL_BLOCK,
        )?;
        let mut materials = Vec::with_capacity(material_count as usize);
        for _ in 0..material_count {
            materials.push(self.material(indices.len())?);
        }
        if !ranges_are_contiguous(&materials, indices.len()) {
            self.warnings
                .push(Warning::MaterialRanges { offset: mc_at });
        }

        // Which vertices the indices use: only those are checked (§5: garbage elsewhere).
        let mut referenced = vec![false; vertices.len()];
        for &i in &indices {
            if let Some(r) = referenced.get_mut(usize::from(i)) {
                *r = true;
            }
        }
        self.check_vertices(&vertices, &referenced, vertex_data_at);

        // Skin.
        let skin = if kind.is_skinned() {
            Some(self.skin(&vertices, &referenced, vertex_data_at)?)
        } else {
            None
        };

        // End.
        let (e_at, h) = self.expect_block(BLOCK_END, "an End block (type 100)")?;
        if h.size != 0 {
            self.warnings.push(Warning::EndSize {
                offset: e_at,
                size: h.size,
            });
        }
        Ok(Mesh {
            vertices,
            indices,
            materials,
            skin,
            end_size: h.size,
        })
    }

    fn material(&mut self, index_count: usize) -> Result<Material> {
        let (at, h) = self.expect_block(BLOCK_MATERIAL, "a Material block (type 2)")?;
        if h.size < MATERIAL_HEAD_SIZE + 2 || h.size % 2 != 0 {
            return Err(bad_size(
                at,
                "Material block",
                h.size,
                "must be even and at least 74".into(),
            ));
        }
        let payload = self.take(at, "Material block", h.size)?;
        let mut p = Cursor::with_base(payload, at + BLOCK_HEADER_SIZE as u64);
        let head: MaterialHead = p
            .record()
            .map_err(|e| self.truncated(at, "Material block", e))?;
        let name_at = p.offset();
        let name_bytes = p.rest();
        let units: Vec<u16> = binio::pod::vec_from_bytes(name_bytes).unwrap_or_default();
        let Some(first_nul) = units.iter().position(|&u| u == 0) else {
            return Err(Error::BadString {
                offset: name_at,
                reason: "has no NUL terminator",
            });
        };
        if first_nul + 1 != units.len() {
            self.warnings
                .push(Warning::NameAfterNul { offset: name_at });
        }
        if char::decode_utf16(units.iter().take(first_nul).copied()).any(|c| c.is_err()) {
            self.warnings
                .push(Warning::NameNotUtf16 { offset: name_at });
        }
        let end = u64::from(head.start_index) + u64::from(head.index_count);
        if end > index_count as u64 {
            return Err(Error::IndexOutOfRange {
                offset: at + 8,
                what: "material index range end",
                index: end,
                limit: index_count as u64 + 1,
            });
        }
        if head.index_count % 3 != 0 {
            return Err(bad_size(
                at + 12,
                "material index count",
                head.index_count,
                "is not a multiple of 3".into(),
            ));
        }
        Ok(Material {
            start_index: head.start_index,
            index_count: head.index_count,
            diffuse: head.diffuse.into(),
            specular: head.specular.into(),
            ambient: head.ambient.into(),
            emissive: head.emissive.into(),
            texture: TextureName::from_units(units).ok_or(Error::BadString {
                offset: name_at,
                reason: "has no NUL terminator",
            })?,
        })
    }

    fn skin(
        &mut self,
        vertices: &Vertices,
        referenced: &[bool],
        vertex_data_at: u64,
    ) -> Result<Skin> {
        let (b_at, h) = self.expect_block(BLOCK_BONE_COUNT, "a BoneCount block (type 5)")?;
        let bone_count = h.size;
        if bone_count == 0 {
            return Err(Error::BadCount {
                offset: b_at,
                what: "bone count of a skinned mesh",
                count: 0,
            });
        }
        if bone_count > 72 {
            self.warnings.push(Warning::TooManyBones {
                offset: b_at,
                bones: bone_count,
            });
        }
        // Bone indices of referenced vertices, in slots that carry weight.
        let stride = vertices.kind().size() as u64;
        for (i, v) in vertices.iter().enumerate() {
            if !referenced.get(i).copied().unwrap_or(false) {
                continue;
            }
            let Some((joints, weights)) = v.joints else {
                continue;
            };
            for (j, w) in joints.iter().zip(weights) {
                if w != 0.0 && *j >= bone_count {
                    return Err(Error::IndexOutOfRange {
                        offset: vertex_data_at + stride * i as u64,
                        what: "bone index",
                        index: (*j).into(),
                        limit: bone_count.into(),
                    });
                }
            }
        }

        let (m_at, h) = self.expect_block(BLOCK_ANIME_MATRIX, "an AnimeMatrix block (type 6)")?;
        if h.size % 64 != 0 {
            return Err(bad_size(
                m_at,
                "AnimeMatrix block",
                h.size,
                "is not a multiple of 64".into(),
            ));
        }
        let count = h.size / 64;
        if count % bone_count != 0 {
            return Err(bad_size(
                m_at,
                "AnimeMatrix block",
                h.size,
                format!("holds {count} matrices, not a multiple of the bone count {bone_count}"),
            ));
        }
        let payload = self.take(m_at, "AnimeMatrix block", h.size)?;
        let matrices: Vec<[f32; 16]> = binio::pod::vec_from_bytes(payload).unwrap_or_default();
        if matrices.is_empty() {
            self.warnings
                .push(Warning::NoAnimationSamples { offset: m_at });
        }
        if let Some(i) = matrices.iter().position(|m| !is_affine(m)) {
            self.warnings.push(Warning::NotAffine {
                offset: m_at + 8 + 64 * i as u64,
            });
        }
        Ok(Skin {
            bone_count,
            matrices,
        })
    }

    /// Warnings for referenced vertices with non-finite floats or weights not summing to 1.
    fn check_vertices(&mut self, vertices: &Vertices, referenced: &[bool], data_at: u64) {
        if nothing_suspicious(vertices, referenced) {
            return;
        }
        // Something to report: find the first such vertex, the one the warning names.
        let stride = vertices.kind().size() as u64;
        for (i, v) in vertices.iter().enumerate() {
            if !referenced.get(i).copied().unwrap_or(false) {
                continue;
            }
            let offset = data_at + stride * i as u64;
            let floats = v.position.iter().chain(&v.normal).chain(&v.uv);
            if floats.clone().any(|f| !f.is_finite()) {
                self.warnings.push(Warning::SuspiciousVertex {
                    offset,
                    reason: "has a non-finite float",
                });
                return;
            }
            if let Some((_, w)) = v.joints {
                if (w.iter().sum::<f32>() - 1.0).abs() > WEIGHT_TOLERANCE {
                    self.warnings.push(Warning::SuspiciousVertex {
                        offset,
                        reason: "has weights that do not sum to 1",
                    });
                    return;
                }
            }
        }
    }
}

/// True when no vertex a triangle uses (`referenced`) has a non-finite position, normal or UV,
/// nor weights whose sum is off 1 by more than [`WEIGHT_TOLERANCE`]: what
/// [`Reader::check_vertices`] warns about. One pass per layout over the typed vertices, with no
/// early exit, so that it vectorises; most files have nothing to report.
fn nothing_suspicious(vertices: &Vertices, referenced: &[bool]) -> bool {
    fn each<V>(vertices: &[V], referenced: &[bool], fine: impl Fn(&V) -> bool) -> bool {
        vertices
            .iter()
            .zip(referenced)
            .fold(true, |all, (v, &used)| all & (!used | fine(v)))
    }
    fn finite(xs: &[f32]) -> bool {
        xs.iter().fold(true, |ok, x| ok & x.is_finite())
    }
    // A NaN sum counts as fine here, exactly as it does in the warning's `> WEIGHT_TOLERANCE`.
    fn weights(w: &[f32; 4]) -> bool {
        let off = (w.iter().sum::<f32>() - 1.0).abs();
        off <= WEIGHT_TOLERANCE || off.is_nan()
    }
    match vertices {
        Vertices::Plain(v) => each(v, referenced, |v| {
            finite(&v.position) & finite(&v.normal) & finite(&v.uv)
        }),
        Vertices::Tangent(v) => each(v, referenced, |v| {
            finite(&v.position) & finite(&v.normal) & finite(&v.uv)
        }),
        Vertices::Skinned(v) => each(v, referenced, |v| {
            finite(&v.position) & finite(&v.normal) & finite(&v.uv) & weights(&v.weights)
        }),
        Vertices::SkinnedTangent(v) => each(v, referenced, |v| {
            finite(&v.position) & finite(&v.normal) & finite(&v.uv) & weights(&v.weights)
        }),
    }
}

fn bad_size(offset: u64, what: &'static str, size: u32, reason: String) -> Error {
    Error::BadSize {
        offset,
        what,
        size: size.into(),
        reason,
    }
}

fn decode_vertices(kind: VertexKind, payload: &[u8]) -> Vertices {
    // The caller checked that the payload is a whole number of vertices, so the copies succeed.
    match kind {
        VertexKind::Plain => {
            Vertices::Plain(binio::pod::vec_from_bytes(payload).unwrap_or_default())
        }
        VertexKind::Tangent => {
            Vertices::Tangent(binio::pod::vec_from_bytes(payload).unwrap_or_default())
        }
        VertexKind::Skinned => {
            Vertices::Skinned(binio::pod::vec_from_bytes(payload).unwrap_or_default())
        }
        VertexKind::SkinnedTangent => {
            Vertices::SkinnedTangent(binio::pod::vec_from_bytes(payload).unwrap_or_default())
        }
    }
}

fn ranges_are_contiguous(materials: &[Material], index_count: usize) -> bool {
    let mut next = 0u64;
    for m in materials {
        if u64::from(m.start_index) != next {
            return false;
        }
        next += u64::from(m.index_count);
    }
    next == index_count as u64
}

fn is_affine(m: &[f32; 16]) -> bool {
    let col3 = [m[3], m[7], m[11], m[15]];
    col3.iter()
        .zip([0.0f32, 0.0, 0.0, 1.0])
        .all(|(a, b)| (a - b).abs() <= 1e-5)
}
