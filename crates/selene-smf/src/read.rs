//! Bytes → [`Smf`]: the chunk walk and every validation rule of smf.md §6.

use crate::chunk::{ChunkId, RawChunk, Walker};
use crate::error::{Error, SizeProblem, Warning, WarningKind, GUID};
use crate::layout::*;
use crate::model::*;
use crate::rules::CollisionFault;
use binio::sjis::SjisField;
use binio::Cursor;
use bytemuck::Pod;

/// Canonical rank of a top-level chunk (0 = not a known top-level chunk).
pub(crate) fn top_rank(id: ChunkId) -> u32 {
    match id {
        ChunkId::SMF => 1,
        ChunkId::FRM => 2,
        ChunkId::ANIS => 3,
        ChunkId::MESH => 4,
        _ => 0,
    }
}

/// Canonical rank of a MESH subchunk (0 = not a known MESH subchunk).
pub(crate) fn mesh_rank(id: ChunkId) -> u32 {
    const ORDER: [ChunkId; 13] = [
        ChunkId::OBB,
        ChunkId::BONE,
        ChunkId::V_PC,
        ChunkId::V_N,
        ChunkId::V_B,
        ChunkId::V_A,
        ChunkId::V_UV,
        ChunkId::IDX2,
        ChunkId::IDX4,
        ChunkId::MTRL,
        ChunkId::C_AT,
        ChunkId::C_FC,
        ChunkId::C_VX,
    ];
    match id {
        // IDX2 and IDX4 share a slot.
        ChunkId::IDX4 => 8,
        _ => ORDER
            .iter()
            .position(|&o| o == id)
            .map_or(0, |p| p as u32 + 1),
    }
}

/// Canonical rank of an MTRL subchunk (0 = not a known MTRL subchunk).
pub(crate) fn material_rank(id: ChunkId) -> u32 {
    const ORDER: [ChunkId; 16] = [
        ChunkId::TEXC,
        ChunkId::TEXL,
        ChunkId::TEXE,
        ChunkId::TEXS,
        ChunkId::TEXN,
        ChunkId::DRAW,
        ChunkId::ZTES,
        ChunkId::ZWRI,
        ChunkId::ATES,
        ChunkId::ABND,
        ChunkId::CULL,
        ChunkId::LGT,
        ChunkId::DIFF,
        ChunkId::EMIS,
        ChunkId::SPEC,
        ChunkId::BUMP,
    ];
    ORDER
        .iter()
        .position(|&o| o == id)
        .map_or(0, |p| p as u32 + 1)
}

/// Canonical rank of a FRM subchunk.
pub(crate) fn frame_rank(id: ChunkId) -> u32 {
    u32::from(id == ChunkId::OBB)
}

/// Canonical rank of an ANIS subchunk.
pub(crate) fn anis_rank(id: ChunkId) -> u32 {
    u32::from(id == ChunkId::ANI)
}

/// Tracks, within one container, the canonical order and the anchor of the next unknown chunk.
struct Siblings {
    parent: Option<ChunkId>,
    last_rank: u32,
    warned: bool,
    last_known: Option<Anchor>,
}

impl Siblings {
    fn new(parent: Option<ChunkId>) -> Self {
        Self {
            parent,
            last_rank: 0,
            warned: false,
            last_known: None,
        }
    }

    /// Records a known chunk with canonical `rank`, the `index`-th of its id.
    fn known(&mut self, r: &mut Reader, c: &RawChunk<'_>, rank: u32, index: usize) {
        if rank < self.last_rank && !self.warned {
            self.warned = true;
            r.warn(
                c.offset,
                WarningKind::NonCanonicalOrder {
                    chunk: c.id,
                    parent: self.parent,
                },
            );
        }
        self.last_rank = self.last_rank.max(rank);
        self.last_known = Some(Anchor {
            id: c.id,
            index: u32::try_from(index).unwrap_or(u32::MAX),
        });
    }

    /// Keeps an unknown chunk, with a warning.
    fn unknown(&self, r: &mut Reader, c: &RawChunk<'_>, out: &mut Vec<UnknownChunk>) {
        r.warn(
            c.offset,
            WarningKind::UnknownChunk {
                chunk: c.id,
                parent: self.parent,
            },
        );
        out.push(UnknownChunk {
            after: self.last_known,
            id: c.id,
            data: c.payload.to_vec(),
        });
    }
}

/// A reference to check once the real frame / mesh counts are known.
struct PendingRef {
    offset: u64,
    value: i32,
    what: &'static str,
    allow_minus_one: bool,
}

#[derive(Default)]
struct Reader {
    warnings: Vec<Warning>,
    frame_refs: Vec<PendingRef>,
    mesh_refs: Vec<PendingRef>,
}

fn eof_err(what: &'static str, offset: u64, needed: u64, available: u64) -> Error {
    Error::Truncated {
        offset,
        what,
        needed,
        available,
    }
}

/// Reads a fixed record (`layout.rs`) from the start of `payload`, which begins at the absolute
/// `offset`. Its length was checked already; a short payload is still a positioned error.
fn fixed_struct<T: Pod>(payload: &[u8], offset: u64, what: &'static str) -> Result<T, Error> {
    Cursor::with_base(payload, offset)
        .record()
        .map_err(|e| eof_err(what, e.offset, e.needed, e.available))
}

/// Checks that a container holds its fixed struct; returns the children area.
fn container_children<'a>(c: &RawChunk<'a>, head: usize) -> Result<&'a [u8], Error> {
    c.payload.get(head..).ok_or(Error::BadSize {
        offset: c.offset,
        chunk: c.id,
        size: c.size() as i64,
        problem: SizeProblem::SmallerThanStruct {
            minimum: head as u64,
        },
    })
}

fn fixed_leaf<'a>(c: &RawChunk<'a>, expected: usize) -> Result<&'a [u8], Error> {
    if c.payload.len() == expected {
        Ok(c.payload)
    } else {
        Err(Error::BadSize {
            offset: c.offset,
            chunk: c.id,
            size: c.size() as i64,
            problem: SizeProblem::NotFixed {
                expected: expected as u64,
            },
        })
    }
}

fn array_leaf<T: Pod>(c: &RawChunk<'_>) -> Result<Vec<T>, Error> {
    let element = std::mem::size_of::<T>();
    binio::pod::vec_from_bytes(c.payload).ok_or(Error::BadSize {
        offset: c.offset,
        chunk: c.id,
        size: c.size() as i64,
        problem: SizeProblem::NotMultiple {
            element: element as u64,
        },
    })
}

fn u32_leaf(c: &RawChunk<'_>) -> Result<u32, Error> {
    let b = fixed_leaf(c, 4)?;
    let mut a = [0u8; 4];
    a.copy_from_slice(b);
    Ok(u32::from_le_bytes(a))
}

fn one<T: Pod>(c: &RawChunk<'_>) -> Result<T, Error> {
    let b = fixed_leaf(c, std::mem::size_of::<T>())?;
    Ok(bytemuck::pod_read_unaligned(b))
}

fn duplicate(c: &RawChunk<'_>) -> Error {
    Error::UnexpectedPart {
        offset: c.offset,
        chunk: c.id,
        reason: "the same chunk kind appears twice in one parent",
    }
}

/// Stores `value` into an empty `slot`, or fails when the slot is already filled.
fn set_once<T>(slot: &mut Option<T>, c: &RawChunk<'_>, value: T) -> Result<(), Error> {
    if slot.is_some() {
        return Err(duplicate(c));
    }
    *slot = Some(value);
    Ok(())
}

fn count_i64(n: usize) -> i64 {
    i64::try_from(n).unwrap_or(i64::MAX)
}

impl Reader {
    fn warn(&mut self, offset: u64, kind: WarningKind) {
        self.warnings.push(Warning { offset, kind });
    }

    fn name(&mut self, raw: [u8; 64], offset: u64) -> SjisField {
        match raw.iter().position(|&b| b == 0) {
            None => self.warn(offset, WarningKind::NameNotTerminated),
            Some(nul) => {
                if raw.get(nul..).unwrap_or_default().iter().any(|&b| b != 0) {
                    self.warn(offset, WarningKind::NameGarbageAfterNul);
                }
            }
        }
        SjisField::from_raw(raw.to_vec())
    }

    fn name_leaf(&mut self, c: &RawChunk<'_>) -> Result<SjisField, Error> {
        let b = fixed_leaf(c, NAME_SIZE)?;
        let mut raw = [0u8; 64];
        raw.copy_from_slice(b);
        Ok(self.name(raw, c.payload_offset()))
    }

    fn file(&mut self, bytes: &[u8]) -> Result<Smf, Error> {
        let magic = bytes.get(..4).unwrap_or(bytes);
        if magic != ChunkId::SMF.0 {
            return Err(Error::NotThisFormat {
                offset: 0,
                found: magic.to_vec(),
            });
        }
        // The GUID decides the layout, so look at it before anything else.
        if let Some(g) = bytes.get(8..12) {
            let mut a = [0u8; 4];
            a.copy_from_slice(g);
            let found = u32::from_le_bytes(a);
            if found != GUID {
                return Err(Error::UnsupportedVersion { offset: 8, found });
            }
        }
        let mut top = Walker::new(bytes, 0, None, 0)?;
        let head_chunk = top
            .next_chunk()?
            .ok_or_else(|| eof_err("SMF chunk", 0, 8, bytes.len() as u64))?;
        let head: SmfHead = fixed_struct(fixed_leaf(&head_chunk, SMF_HEAD_SIZE)?, 8, "SMF head")?;

        let mut doc = Smf::default();
        let mut sib = Siblings::new(None);
        sib.known(self, &head_chunk, top_rank(ChunkId::SMF), 0);
        sib.last_known = None; // unknown chunks right after the head carry no anchor
        let mut frame_offsets = Vec::new();
        while let Some(c) = top.next_chunk()? {
            match c.id {
                ChunkId::SMF => {
                    return Err(Error::UnexpectedPart {
                        offset: c.offset,
                        chunk: c.id,
                        reason: "a file has exactly one SMF head, at the start",
                    })
                }
                ChunkId::FRM => {
                    sib.known(self, &c, top_rank(c.id), doc.frames.len());
                    frame_offsets.push(c.offset);
                    let f = self.frame(&c, top.child_depth())?;
                    doc.frames.push(f);
                }
                ChunkId::ANIS => {
                    sib.known(self, &c, top_rank(c.id), doc.animation_sets.len());
                    let a = self.animation_set(&c, top.child_depth())?;
                    doc.animation_sets.push(a);
                }
                ChunkId::MESH => {
                    sib.known(self, &c, top_rank(c.id), doc.meshes.len());
                    let m = self.mesh(&c, top.child_depth())?;
                    doc.meshes.push(m);
                }
                _ => sib.unknown(self, &c, &mut doc.unknown),
            }
        }

        // Head counts against the chunks present (rule 12).
        for (offset, what, declared, found) in [
            (
                12,
                "SMF MeshCount vs MESH chunks",
                head.mesh_count,
                doc.meshes.len(),
            ),
            (
                16,
                "SMF FrameCount vs FRM chunks",
                head.frame_count,
                doc.frames.len(),
            ),
            (
                20,
                "SMF AnimationSetCount vs ANIS chunks",
                head.animation_set_count,
                doc.animation_sets.len(),
            ),
        ] {
            if i64::from(declared) != count_i64(found) {
                return Err(Error::CountMismatch {
                    offset,
                    what,
                    declared: i64::from(declared),
                    found: count_i64(found),
                });
            }
        }

        let frames = doc.frames.len();
        let meshes = doc.meshes.len();
        check_refs(&self.mesh_refs, meshes, "meshes")?;
        check_refs(&self.frame_refs, frames, "frames")?;
        check_cycles(&doc.frames, &frame_offsets)?;
        Ok(doc)
    }

    fn frame(&mut self, c: &RawChunk<'_>, depth: u32) -> Result<Frame, Error> {
        let children = container_children(c, FRAME_HEAD_SIZE)?;
        let h: FrameHead = fixed_struct(c.payload, c.payload_offset(), "FRM")?;
        let base = c.payload_offset();
        let name = self.name(h.name, base + 64);
        self.mesh_refs.push(PendingRef {
            offset: base + 128,
            value: h.mesh,
            what: "FRM MeshNo",
            allow_minus_one: true,
        });
        self.frame_refs.push(PendingRef {
            offset: base + 132,
            value: h.parent,
            what: "FRM ParentFrameNo",
            allow_minus_one: true,
        });
        let mut f = Frame {
            transform: h.transform,
            name,
            mesh: h.mesh,
            parent: h.parent,
            obb: None,
            unknown: Vec::new(),
        };
        let mut w = Walker::new(children, base + FRAME_HEAD_SIZE as u64, Some(c.id), depth)?;
        let mut sib = Siblings::new(Some(c.id));
        while let Some(s) = w.next_chunk()? {
            match s.id {
                ChunkId::OBB => {
                    sib.known(self, &s, frame_rank(s.id), 0);
                    set_once(&mut f.obb, &s, one::<Obb>(&s)?)?;
                }
                _ => sib.unknown(self, &s, &mut f.unknown),
            }
        }
        Ok(f)
    }

    fn animation_set(&mut self, c: &RawChunk<'_>, depth: u32) -> Result<AnimationSet, Error> {
        let children = container_children(c, ANIS_HEAD_SIZE)?;
        let h: AnimationSetHead = fixed_struct(c.payload, c.payload_offset(), "ANIS")?;
        let base = c.payload_offset();
        let mut set = AnimationSet {
            name: self.name(h.name, base),
            last_time: h.last_time,
            animations: Vec::new(),
            unknown: Vec::new(),
        };
        let mut w = Walker::new(children, base + ANIS_HEAD_SIZE as u64, Some(c.id), depth)?;
        let mut sib = Siblings::new(Some(c.id));
        while let Some(s) = w.next_chunk()? {
            match s.id {
                ChunkId::ANI => {
                    sib.known(self, &s, anis_rank(s.id), set.animations.len());
                    let a = self.animation(&s)?;
                    set.animations.push(a);
                }
                _ => sib.unknown(self, &s, &mut set.unknown),
            }
        }
        if i64::from(h.animation_count) != count_i64(set.animations.len()) {
            return Err(Error::CountMismatch {
                offset: base + 64,
                what: "ANIS AnimationCount vs ANI chunks",
                declared: i64::from(h.animation_count),
                found: count_i64(set.animations.len()),
            });
        }
        Ok(set)
    }

    fn animation(&mut self, c: &RawChunk<'_>) -> Result<Animation, Error> {
        if c.payload.len() < ANI_HEAD_SIZE {
            return Err(Error::BadSize {
                offset: c.offset,
                chunk: c.id,
                size: c.size() as i64,
                problem: SizeProblem::SmallerThanStruct {
                    minimum: ANI_HEAD_SIZE as u64,
                },
            });
        }
        let h: AnimationHead = fixed_struct(c.payload, c.payload_offset(), "ANI")?;
        let counts = [h.scale_count, h.rotation_count, h.translation_count];
        let expected = match counts.map(u64::try_from) {
            [Ok(s), Ok(r), Ok(t)] => Some(16 + 16 * s + 20 * r + 16 * t),
            _ => None,
        };
        if expected != Some(c.size()) {
            return Err(Error::BadSize {
                offset: c.offset,
                chunk: c.id,
                size: c.size() as i64,
                problem: SizeProblem::KeyCounts { expected, counts },
            });
        }
        // The counts are non-negative and their sizes sum to the payload, so these fit.
        let s_len = 16 * h.scale_count as usize;
        let r_len = 20 * h.rotation_count as usize;
        let keys = c.payload.get(ANI_HEAD_SIZE..).unwrap_or_default();
        let (sk, rest) = keys.split_at(s_len.min(keys.len()));
        let (rk, tk) = rest.split_at(r_len.min(rest.len()));
        let bad = || Error::BadSize {
            offset: c.offset,
            chunk: c.id,
            size: c.size() as i64,
            problem: SizeProblem::KeyCounts { expected, counts },
        };
        let a = Animation {
            target_frame: h.target_frame,
            scale_keys: binio::pod::vec_from_bytes(sk).ok_or_else(bad)?,
            rotation_keys: binio::pod::vec_from_bytes(rk).ok_or_else(bad)?,
            translation_keys: binio::pod::vec_from_bytes(tk).ok_or_else(bad)?,
        };
        self.frame_refs.push(PendingRef {
            offset: c.payload_offset(),
            value: h.target_frame,
            what: "ANI TargetFrame",
            allow_minus_one: false,
        });
        let decreasing = a
            .scale_keys
            .windows(2)
            .any(|w| matches!(w, [p, n] if n.time < p.time))
            || a.rotation_keys
                .windows(2)
                .any(|w| matches!(w, [p, n] if n.time < p.time))
            || a.translation_keys
                .windows(2)
                .any(|w| matches!(w, [p, n] if n.time < p.time));
        if decreasing {
            self.warn(c.offset, WarningKind::KeyTimesDecreasing);
        }
        if a.rotation_keys.is_empty() {
            self.warn(c.offset, WarningKind::NoRotationKeys);
        }
        Ok(a)
    }

    fn mesh(&mut self, c: &RawChunk<'_>, depth: u32) -> Result<Mesh, Error> {
        let children = container_children(c, MESH_HEAD_SIZE)?;
        let h: MeshHead = fixed_struct(c.payload, c.payload_offset(), "MESH")?;
        let base = c.payload_offset();
        let name = self.name(h.name, base);
        let mut p = self.mesh_parts(c, children, depth)?;

        // Rule 13: MaterialCount.
        if i64::from(h.material_count) != count_i64(p.materials.len()) {
            return Err(Error::CountMismatch {
                offset: base + 64,
                what: "MESH MaterialCount vs MTRL chunks",
                declared: i64::from(h.material_count),
                found: count_i64(p.materials.len()),
            });
        }
        // Rule 14: required parts.
        let Some((v_at, vertices)) = p.vertices.take() else {
            return Err(Error::MissingPart {
                offset: c.offset,
                parent: c.id,
                part: "V_PC chunk",
            });
        };
        let Some((i_at, indices)) = p.indices.take() else {
            return Err(Error::MissingPart {
                offset: c.offset,
                parent: c.id,
                part: "IDX2 or IDX4 chunk",
            });
        };
        let nv = vertices.len();
        check_vertex_counts(&p.per_vertex_lens(), nv)?;
        check_indices(i_at, &indices, nv)?;
        // Rule 18: material ranges.
        let tris = indices.len() / 3;
        for (k, (o, m)) in p.materials.iter().enumerate() {
            check_range(
                *o + 8 + 64,
                k,
                "polygon",
                m.polygon_start,
                m.polygon_count,
                tris,
                "triangles",
            )?;
            check_range(
                *o + 8 + 72,
                k,
                "vertex",
                m.vertex_start,
                m.vertex_count,
                nv,
                "vertices",
            )?;
        }
        self.check_skin(p.blend.as_ref(), p.bones.as_ref())?;
        check_collision(p.runs.as_ref(), p.faces.as_ref(), p.cverts.as_ref())?;
        self.warn_non_finite((v_at, &vertices), p.normals.as_ref(), p.uvs.as_ref());

        Ok(Mesh {
            name,
            obb: p.obb,
            bones: p.bones.map(|(_, v)| v),
            vertices,
            normals: p.normals.map(|(_, v)| v),
            tangents: p.tangents.map(|(_, v)| v),
            blend: p.blend.map(|(_, v)| v),
            uvs: p.uvs.map(|(_, v)| v),
            indices,
            materials: p.materials.into_iter().map(|(_, m)| m).collect(),
            collision_runs: p.runs.map(|(_, v)| v),
            collision_faces: p.faces.map(|(_, v)| v),
            collision_vertices: p.cverts.map(|(_, v)| v),
            unknown: p.unknown,
        })
    }

    /// The child chunks of MESH chunk `c` (`children`: its payload after the head), each kept
    /// with the file offset of its payload; a second chunk of a kind that occurs once is an
    /// error.
    fn mesh_parts(
        &mut self,
        c: &RawChunk<'_>,
        children: &[u8],
        depth: u32,
    ) -> Result<MeshParts, Error> {
        let mut p = MeshParts::default();
        let start = c.payload_offset() + MESH_HEAD_SIZE as u64;
        let mut w = Walker::new(children, start, Some(c.id), depth)?;
        let mut sib = Siblings::new(Some(c.id));
        while let Some(s) = w.next_chunk()? {
            let rank = mesh_rank(s.id);
            if rank == 0 {
                sib.unknown(self, &s, &mut p.unknown);
                continue;
            }
            let index = if s.id == ChunkId::MTRL {
                p.materials.len()
            } else {
                0
            };
            sib.known(self, &s, rank, index);
            let at = s.payload_offset();
            match s.id {
                ChunkId::OBB => set_once(&mut p.obb, &s, one::<Obb>(&s)?)?,
                ChunkId::BONE => set_once(&mut p.bones, &s, (at, array_leaf(&s)?))?,
                ChunkId::V_PC => set_once(&mut p.vertices, &s, (at, array_leaf(&s)?))?,
                ChunkId::V_N => set_once(&mut p.normals, &s, (at, array_leaf(&s)?))?,
                ChunkId::V_B => set_once(&mut p.tangents, &s, (at, array_leaf(&s)?))?,
                ChunkId::V_A => set_once(&mut p.blend, &s, (at, array_leaf(&s)?))?,
                ChunkId::V_UV => set_once(&mut p.uvs, &s, (at, array_leaf(&s)?))?,
                ChunkId::IDX2 | ChunkId::IDX4 => {
                    if p.indices.is_some() {
                        return Err(Error::UnexpectedPart {
                            offset: s.offset,
                            chunk: s.id,
                            reason: "a mesh holds exactly one IDX2 or IDX4 chunk",
                        });
                    }
                    p.indices = Some((at, index_leaf(&s)?));
                }
                ChunkId::MTRL => {
                    let m = self.material(&s, w.child_depth())?;
                    p.materials.push((s.offset, m));
                }
                ChunkId::C_AT => set_once(&mut p.runs, &s, (at, array_leaf(&s)?))?,
                ChunkId::C_FC => set_once(&mut p.faces, &s, (at, array_leaf(&s)?))?,
                ChunkId::C_VX => set_once(&mut p.cverts, &s, (at, array_leaf(&s)?))?,
                _ => sib.unknown(self, &s, &mut p.unknown),
            }
        }
        Ok(p)
    }

    /// Rules 21 and 27: V_A bone indices against the BONE list (an error), weights outside
    /// 0..=1 and more than 40 bones (warnings); BONE frame numbers are checked once the frame
    /// count is known.
    fn check_skin(
        &mut self,
        blend: Option<&(u64, Vec<BlendVertex>)>,
        bones: Option<&(u64, Vec<Bone>)>,
    ) -> Result<(), Error> {
        if let Some((at, bl)) = blend {
            match bones {
                None => self.warn(at - 8, WarningKind::BlendWithoutBones),
                Some((_, b)) => check_blend_indices(*at, bl, b.len())?,
            }
            if let Some(k) = bl.iter().position(|v| !(0.0..=1.0).contains(&v.weight)) {
                self.warn(
                    at + k as u64 * 8,
                    WarningKind::WeightOutOfRange { vertex: k as u64 },
                );
            }
        }
        if let Some((at, b)) = bones {
            if b.len() > 40 {
                self.warn(
                    at - 8,
                    WarningKind::TooManyBones {
                        count: b.len() as u64,
                    },
                );
            }
            for (k, bone) in b.iter().enumerate() {
                self.frame_refs.push(PendingRef {
                    offset: at + k as u64 * 68 + 64,
                    value: bone.frame,
                    what: "BONE FrameNo",
                    allow_minus_one: false,
                });
            }
        }
        Ok(())
    }

    /// Rule 27: one warning per vertex chunk holding a value that is not finite.
    fn warn_non_finite(
        &mut self,
        (v_at, vertices): (u64, &[VertexPc]),
        normals: Option<&(u64, Vec<Vec3>)>,
        uvs: Option<&(u64, Vec<UvVertex>)>,
    ) {
        // Folds without an early exit over the floats' bits, so that each pass vectorises
        // (files are mostly finite; `f32::is_finite` in a fold does not vectorise).
        let finite = |floats: &[u32]| floats.iter().fold(0, |bad, &x| bad | non_finite(x)) == 0;
        // A V_PC vertex is three floats and the colour's four bytes.
        let rows: &[[u32; 4]] = bytemuck::cast_slice(vertices);
        let position = |bad: u32, &[x, y, z, _]: &[u32; 4]| {
            bad | non_finite(x) | non_finite(y) | non_finite(z)
        };
        if rows.iter().fold(0, position) != 0 {
            self.warn(
                v_at - 8,
                WarningKind::NonFinite {
                    chunk: ChunkId::V_PC,
                },
            );
        }
        if let Some((at, n)) = normals {
            if !finite(bytemuck::cast_slice(n)) {
                self.warn(
                    at - 8,
                    WarningKind::NonFinite {
                        chunk: ChunkId::V_N,
                    },
                );
            }
        }
        if let Some((at, u)) = uvs {
            // A `UvVertex` is four floats (both pairs).
            if !finite(bytemuck::cast_slice(u)) {
                self.warn(
                    at - 8,
                    WarningKind::NonFinite {
                        chunk: ChunkId::V_UV,
                    },
                );
            }
        }
    }

    fn material(&mut self, c: &RawChunk<'_>, depth: u32) -> Result<Material, Error> {
        let children = container_children(c, MATERIAL_HEAD_SIZE)?;
        let h: MaterialHead = fixed_struct(c.payload, c.payload_offset(), "MTRL")?;
        let base = c.payload_offset();
        let mut m = Material {
            name: self.name(h.name, base),
            polygon_start: h.polygon_start,
            polygon_count: h.polygon_count,
            vertex_start: h.vertex_start,
            vertex_count: h.vertex_count,
            texture: None,
            light_map: None,
            environment_map: None,
            specular_map: None,
            normal_map: None,
            draw: None,
            z_test: None,
            z_write: None,
            alpha_test: None,
            alpha_threshold: None,
            cull: None,
            lighting: None,
            diffuse: None,
            emissive: None,
            specular: None,
            bump: None,
            unknown: Vec::new(),
        };
        let mut w = Walker::new(
            children,
            base + MATERIAL_HEAD_SIZE as u64,
            Some(c.id),
            depth,
        )?;
        let mut sib = Siblings::new(Some(c.id));
        while let Some(s) = w.next_chunk()? {
            let rank = material_rank(s.id);
            if rank == 0 {
                sib.unknown(self, &s, &mut m.unknown);
                continue;
            }
            sib.known(self, &s, rank, 0);
            match s.id {
                ChunkId::TEXC => {
                    let n = self.name_leaf(&s)?;
                    set_once(&mut m.texture, &s, n)?
                }
                ChunkId::TEXL => {
                    let n = self.name_leaf(&s)?;
                    set_once(&mut m.light_map, &s, n)?
                }
                ChunkId::TEXE => {
                    let n = self.name_leaf(&s)?;
                    set_once(&mut m.environment_map, &s, n)?
                }
                ChunkId::TEXS => {
                    let n = self.name_leaf(&s)?;
                    set_once(&mut m.specular_map, &s, n)?
                }
                ChunkId::TEXN => {
                    let n = self.name_leaf(&s)?;
                    set_once(&mut m.normal_map, &s, n)?
                }
                ChunkId::DRAW => set_once(&mut m.draw, &s, DrawMode::from_raw(u32_leaf(&s)?))?,
                ChunkId::ZTES => set_once(&mut m.z_test, &s, u32_leaf(&s)?)?,
                ChunkId::ZWRI => set_once(&mut m.z_write, &s, u32_leaf(&s)?)?,
                ChunkId::ATES => set_once(&mut m.alpha_test, &s, u32_leaf(&s)?)?,
                ChunkId::ABND => set_once(&mut m.alpha_threshold, &s, u32_leaf(&s)?)?,
                ChunkId::CULL => set_once(&mut m.cull, &s, u32_leaf(&s)?)?,
                ChunkId::LGT => set_once(&mut m.lighting, &s, u32_leaf(&s)?)?,
                ChunkId::DIFF => set_once(&mut m.diffuse, &s, one::<[f32; 4]>(&s)?)?,
                ChunkId::EMIS => set_once(&mut m.emissive, &s, one::<[f32; 3]>(&s)?)?,
                ChunkId::SPEC => set_once(&mut m.specular, &s, one::<Specular>(&s)?)?,
                ChunkId::BUMP => set_once(&mut m.bump, &s, one::<f32>(&s)?)?,
                _ => sib.unknown(self, &s, &mut m.unknown),
            }
        }
        if m.diffuse.is_none() {
            self.warn(c.offset, WarningKind::MaterialWithoutDiffuse);
        }
        Ok(m)
    }
}

/// A MESH chunk's children as read, each with the file offset of its payload (MTRL: of its
/// header), before the checks across them.
#[derive(Default)]
struct MeshParts {
    obb: Option<Obb>,
    bones: Option<(u64, Vec<Bone>)>,
    vertices: Option<(u64, Vec<VertexPc>)>,
    normals: Option<(u64, Vec<Vec3>)>,
    tangents: Option<(u64, Vec<Vec3>)>,
    blend: Option<(u64, Vec<BlendVertex>)>,
    uvs: Option<(u64, Vec<UvVertex>)>,
    indices: Option<(u64, Indices)>,
    materials: Vec<(u64, Material)>,
    runs: Option<(u64, Vec<CollisionRun>)>,
    faces: Option<(u64, Vec<CollisionFace>)>,
    cverts: Option<(u64, Vec<CollisionVertex>)>,
    unknown: Vec<UnknownChunk>,
}

impl MeshParts {
    /// The per-vertex chunks other than V_PC: what each is, and its payload offset and element
    /// count when present.
    fn per_vertex_lens(&self) -> [(&'static str, Option<(u64, usize)>); 4] {
        fn len<T>(x: &Option<(u64, Vec<T>)>) -> Option<(u64, usize)> {
            x.as_ref().map(|(o, v)| (*o, v.len()))
        }
        [
            ("V_N element count vs V_PC", len(&self.normals)),
            ("V_B element count vs V_PC", len(&self.tangents)),
            ("V_A element count vs V_PC", len(&self.blend)),
            ("V_UV element count vs V_PC", len(&self.uvs)),
        ]
    }
}

/// An IDX2 or IDX4 chunk's list, which must hold whole triangles.
fn index_leaf(s: &RawChunk<'_>) -> Result<Indices, Error> {
    let list = if s.id == ChunkId::IDX2 {
        Indices::U16(array_leaf(s)?)
    } else {
        Indices::U32(array_leaf(s)?)
    };
    if list.len() % 3 != 0 {
        return Err(Error::BadSize {
            offset: s.offset,
            chunk: s.id,
            size: s.size() as i64,
            problem: SizeProblem::NotTriangles {
                indices: list.len() as u64,
            },
        });
    }
    Ok(list)
}

/// Rule 15: every per-vertex chunk has V_PC's `nv` elements (the error's offset: the
/// disagreeing chunk's header).
fn check_vertex_counts(
    lens: &[(&'static str, Option<(u64, usize)>)],
    nv: usize,
) -> Result<(), Error> {
    for &(what, found) in lens {
        if let Some((o, n)) = found {
            if n != nv {
                return Err(Error::CountMismatch {
                    offset: o - 8,
                    what,
                    declared: count_i64(nv),
                    found: count_i64(n),
                });
            }
        }
    }
    Ok(())
}

/// 1 when the `f32` of bits `x` is not finite (its exponent bits all set), else 0.
fn non_finite(x: u32) -> u32 {
    u32::from(x & 0x7f80_0000 == 0x7f80_0000)
}

/// Rule 17: every index below the vertex count `nv` (`at`: the list's payload offset).
fn check_indices(at: u64, indices: &Indices, nv: usize) -> Result<(), Error> {
    let isz: u64 = match indices {
        Indices::U16(_) => 2,
        Indices::U32(_) => 4,
    };
    // Whether any index is out of range, in one pass without an early exit (a compare and an
    // OR per index, which vectorise even on baseline x86-64, unlike an unsigned max); the
    // offending index is looked for only when there is one.
    let any_bad = match u32::try_from(nv) {
        Err(_) => false,
        Ok(n) => match indices {
            Indices::U16(v) => v.iter().fold(false, |bad, &i| bad | (u32::from(i) >= n)),
            Indices::U32(v) => v.iter().fold(false, |bad, &i| bad | (i >= n)),
        },
    };
    if !any_bad {
        return Ok(());
    }
    if let Some((k, i)) = indices.iter().enumerate().find(|&(_, i)| i as usize >= nv) {
        return Err(Error::IndexOutOfRange {
            offset: at + k as u64 * isz,
            what: format!(
                "{} index {k} is {i}, but the mesh has {nv} vertices",
                indices.chunk_id()
            ),
        });
    }
    Ok(())
}

/// Rule 21: each V_A vertex's first bone index, and its second one unless the first weighs 1,
/// below the bone count `nb` (`at`: V_A's payload offset).
fn check_blend_indices(at: u64, blend: &[BlendVertex], nb: usize) -> Result<(), Error> {
    for (k, v) in blend.iter().enumerate() {
        let [i0, i1, ..] = v.indices;
        let bad = if usize::from(i0) >= nb {
            Some((0, i0))
        } else if usize::from(i1) >= nb && v.weight < 1.0 {
            Some((1, i1))
        } else {
            None
        };
        if let Some((slot, idx)) = bad {
            return Err(Error::IndexOutOfRange {
                offset: at + k as u64 * 8 + 4 + slot,
                what: format!(
                    "V_A vertex {k} bone index {slot} is {idx}, but the mesh has {nb} bones"
                ),
            });
        }
    }
    Ok(())
}

/// Rule 22 ([`crate::collision_fault`]), with the offset of the number that breaks it.
fn check_collision(
    runs: Option<&(u64, Vec<CollisionRun>)>,
    faces: Option<&(u64, Vec<CollisionFace>)>,
    cverts: Option<&(u64, Vec<CollisionVertex>)>,
) -> Result<(), Error> {
    let fault = crate::collision_fault(
        runs.map_or(&[][..], |(_, r)| r),
        faces.map_or(&[][..], |(_, f)| f),
        cverts.map_or(0, |(_, v)| v.len()),
    );
    let offset = match &fault {
        None => return Ok(()),
        Some(CollisionFault::FaceIndex { face, slot, .. }) => {
            faces.map_or(0, |(at, _)| *at) + *face as u64 * 32 + 4 + *slot as u64 * 4
        }
        Some(CollisionFault::Run { run, .. }) => runs.map_or(0, |(at, _)| *at) + *run as u64 * 12,
    };
    Err(Error::IndexOutOfRange {
        offset,
        what: fault.map(|f| f.to_string()).unwrap_or_default(),
    })
}

fn check_range(
    offset: u64,
    material: usize,
    what: &str,
    start: i32,
    count: i32,
    limit: usize,
    unit: &str,
) -> Result<(), Error> {
    if !crate::mtrl_range_fits(start, count, limit) {
        return Err(Error::IndexOutOfRange {
            offset,
            what: format!(
                "MTRL {material} {what} range start {start} count {count} is outside the mesh's {limit} {unit}"
            ),
        });
    }
    Ok(())
}

fn check_refs(refs: &[PendingRef], count: usize, unit: &str) -> Result<(), Error> {
    for r in refs {
        let ok = (r.allow_minus_one && r.value == -1)
            || usize::try_from(r.value).is_ok_and(|v| v < count);
        if !ok {
            return Err(Error::IndexOutOfRange {
                offset: r.offset,
                what: format!("{} is {}, but the file has {count} {unit}", r.what, r.value),
            });
        }
    }
    Ok(())
}

/// Rule 19: the parent links form a forest (indices were checked already).
fn check_cycles(frames: &[Frame], offsets: &[u64]) -> Result<(), Error> {
    let n = frames.len();
    // 0 = unvisited, 1 = on the current path, 2 = known to reach a root.
    let mut state = vec![0u8; n];
    for start in 0..n {
        let mut path = Vec::new();
        let mut cur = start;
        loop {
            match state.get(cur).copied() {
                Some(2) | None => break,
                Some(1) => {
                    let offset = offsets.get(cur).copied().unwrap_or(0) + 8 + 132;
                    return Err(Error::IndexOutOfRange {
                        offset,
                        what: format!("FRM {cur} ParentFrameNo makes a parent cycle"),
                    });
                }
                _ => {}
            }
            if let Some(s) = state.get_mut(cur) {
                *s = 1;
            }
            path.push(cur);
            match frames.get(cur).map(|f| f.parent) {
                Some(p) if p >= 0 => cur = p as usize,
                _ => break,
            }
        }
        for p in path {
            if let Some(s) = state.get_mut(p) {
                *s = 2;
            }
        }
    }
    Ok(())
}

/// Parses a whole file.
pub(crate) fn read(bytes: &[u8]) -> Result<(Smf, Vec<Warning>), Error> {
    let mut r = Reader::default();
    let doc = r.file(bytes)?;
    Ok((doc, r.warnings))
}

#[cfg(test)]
mod tests {
    #[test]
    fn non_finite_is_not_is_finite() {
        let specials = [
            0.0,
            -0.0,
            1.0,
            f32::MIN_POSITIVE,
            f32::MAX,
            f32::MIN,
            f32::INFINITY,
            f32::NEG_INFINITY,
            f32::NAN,
            -f32::NAN,
            f32::from_bits(0x7f80_0001),
            f32::from_bits(0x0000_0001),
        ];
        for x in specials {
            assert_eq!(super::non_finite(x.to_bits()) == 1, !x.is_finite(), "{x:?}");
        }
    }
}
