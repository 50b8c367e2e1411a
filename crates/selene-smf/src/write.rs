//! [`Smf`] → bytes: the mirror of `read.rs`.
//!
//! Chunks are written in the canonical order of smf.md §3.3 (so `LGT` always follows `CULL`),
//! unknown chunks right after the known chunk they followed when read, container sizes are
//! back-patched, and every count the file stores redundantly is derived from the model.

use crate::chunk::ChunkId;
use crate::error::{Error, GUID};
use crate::layout::*;
use crate::model::*;
use binio::put::PutLe;
use binio::sjis::SjisField;
use bytemuck::Pod;

struct W {
    out: Vec<u8>,
    /// When set, only chunk ids are recorded (no payload bytes are produced).
    ids: Option<Vec<ChunkId>>,
}

fn count_i32(n: usize, offset: u64, what: &'static str) -> Result<i32, Error> {
    i32::try_from(n).map_err(|_| Error::LimitExceeded {
        offset,
        what,
        limit: i32::MAX as u64,
    })
}

/// The unknown chunks of one container and which of them were written.
struct Pending<'a> {
    list: &'a [UnknownChunk],
    done: Vec<bool>,
}

impl<'a> Pending<'a> {
    fn new(list: &'a [UnknownChunk]) -> Self {
        Self {
            list,
            done: vec![false; list.len()],
        }
    }
}

impl W {
    fn recording(&self) -> bool {
        self.ids.is_some()
    }

    fn pos(&self) -> u64 {
        self.out.len() as u64
    }

    fn bytes(&mut self, b: &[u8]) {
        if !self.recording() {
            self.out.extend_from_slice(b);
        }
    }

    /// Appends a fixed record (`layout.rs`).
    fn record<T: Pod>(&mut self, v: &T) {
        if !self.recording() {
            self.out.put_record(v);
        }
    }

    /// Starts a chunk; returns the header position for [`W::end`].
    fn begin(&mut self, id: ChunkId) -> usize {
        if let Some(ids) = &mut self.ids {
            ids.push(id);
        }
        let at = self.out.len();
        self.bytes(&id.0);
        self.bytes(&[0; 4]);
        at
    }

    /// Back-patches the size of the chunk started at `at`.
    fn end(&mut self, at: usize) -> Result<(), Error> {
        if self.recording() {
            return Ok(());
        }
        let size = self.out.len().saturating_sub(at + 8);
        let size = count_i32(size, at as u64, "chunk size")?;
        if let Some(slot) = self.out.get_mut(at + 4..at + 8) {
            slot.copy_from_slice(&size.to_le_bytes());
        }
        Ok(())
    }

    fn leaf(&mut self, id: ChunkId, payload: &[u8]) -> Result<(), Error> {
        let at = self.begin(id);
        self.bytes(payload);
        self.end(at)
    }

    fn pod_leaf<T: Pod>(&mut self, id: ChunkId, items: &[T]) -> Result<(), Error> {
        self.leaf(id, binio::pod::as_bytes(items))
    }

    fn name_bytes(&self, f: &SjisField, what: &str) -> Result<[u8; 64], Error> {
        if self.recording() {
            return Ok([0; 64]);
        }
        f.raw.as_slice().try_into().map_err(|_| Error::BadString {
            offset: self.pos(),
            what: format!(
                "{what} name field is {} bytes; SMF names are exactly 64 bytes",
                f.raw.len()
            ),
        })
    }

    /// Writes the unknown chunks anchored where `matches` says, in their original order.
    fn flush(
        &mut self,
        p: &mut Pending<'_>,
        matches: impl Fn(Option<Anchor>) -> bool,
    ) -> Result<(), Error> {
        for (u, done) in p.list.iter().zip(p.done.iter_mut()) {
            if !*done && matches(u.after) {
                *done = true;
                let at = self.begin(u.id);
                self.bytes(&u.data);
                self.end(at)?;
            }
        }
        Ok(())
    }

    /// Writes the unknown chunks anchored after `id` (any occurrence at or after `index`
    /// when `tail` is set, for the last of a repeated kind).
    fn after(
        &mut self,
        p: &mut Pending<'_>,
        id: ChunkId,
        index: usize,
        tail: bool,
    ) -> Result<(), Error> {
        let index = u32::try_from(index).unwrap_or(u32::MAX);
        self.flush(p, |a| {
            a.is_some_and(|a| a.id == id && (a.index == index || (tail && a.index > index)))
        })
    }

    /// Writes an optional leaf and the unknown chunks anchored after it.
    fn opt_slot(
        &mut self,
        p: &mut Pending<'_>,
        id: ChunkId,
        payload: Option<&[u8]>,
    ) -> Result<(), Error> {
        if let Some(b) = payload {
            self.leaf(id, b)?;
        }
        self.after(p, id, 0, true)
    }

    fn file(&mut self, doc: &Smf) -> Result<(), Error> {
        let head = SmfHead {
            guid: GUID,
            mesh_count: count_i32(doc.meshes.len(), 12, "MeshCount")?,
            frame_count: count_i32(doc.frames.len(), 16, "FrameCount")?,
            animation_set_count: count_i32(doc.animation_sets.len(), 20, "AnimationSetCount")?,
        };
        let at = self.begin(ChunkId::SMF);
        self.record(&head);
        self.end(at)?;
        let mut p = Pending::new(&doc.unknown);
        self.flush(&mut p, |a| {
            a.is_none() || a.is_some_and(|a| a.id == ChunkId::SMF)
        })?;
        for (i, f) in doc.frames.iter().enumerate() {
            self.frame(f)?;
            self.after(&mut p, ChunkId::FRM, i, i + 1 == doc.frames.len())?;
        }
        for (i, a) in doc.animation_sets.iter().enumerate() {
            self.animation_set(a)?;
            self.after(&mut p, ChunkId::ANIS, i, i + 1 == doc.animation_sets.len())?;
        }
        for (i, m) in doc.meshes.iter().enumerate() {
            self.mesh(m)?;
            self.after(&mut p, ChunkId::MESH, i, i + 1 == doc.meshes.len())?;
        }
        self.flush(&mut p, |_| true)
    }

    fn frame(&mut self, f: &Frame) -> Result<(), Error> {
        let at = self.begin(ChunkId::FRM);
        let h = FrameHead {
            transform: f.transform,
            name: self.name_bytes(&f.name, "FRM")?,
            mesh: f.mesh,
            parent: f.parent,
        };
        self.record(&h);
        let mut p = Pending::new(&f.unknown);
        self.flush(&mut p, |a| a.is_none())?;
        let obb = f.obb.as_ref().map(bytemuck::bytes_of);
        self.opt_slot(&mut p, ChunkId::OBB, obb)?;
        self.flush(&mut p, |_| true)?;
        self.end(at)
    }

    fn animation_set(&mut self, s: &AnimationSet) -> Result<(), Error> {
        let at = self.begin(ChunkId::ANIS);
        let h = AnimationSetHead {
            name: self.name_bytes(&s.name, "ANIS")?,
            animation_count: count_i32(s.animations.len(), self.pos(), "AnimationCount")?,
            last_time: s.last_time,
        };
        self.record(&h);
        let mut p = Pending::new(&s.unknown);
        self.flush(&mut p, |a| a.is_none())?;
        for (i, a) in s.animations.iter().enumerate() {
            let c = self.begin(ChunkId::ANI);
            let h = AnimationHead {
                target_frame: a.target_frame,
                scale_count: count_i32(a.scale_keys.len(), self.pos(), "scale keys")?,
                rotation_count: count_i32(a.rotation_keys.len(), self.pos(), "rotation keys")?,
                translation_count: count_i32(
                    a.translation_keys.len(),
                    self.pos(),
                    "translation keys",
                )?,
            };
            self.record(&h);
            self.bytes(binio::pod::as_bytes(&a.scale_keys));
            self.bytes(binio::pod::as_bytes(&a.rotation_keys));
            self.bytes(binio::pod::as_bytes(&a.translation_keys));
            self.end(c)?;
            self.after(&mut p, ChunkId::ANI, i, i + 1 == s.animations.len())?;
        }
        self.flush(&mut p, |_| true)?;
        self.end(at)
    }

    fn mesh(&mut self, m: &Mesh) -> Result<(), Error> {
        let at = self.begin(ChunkId::MESH);
        let h = MeshHead {
            name: self.name_bytes(&m.name, "MESH")?,
            material_count: count_i32(m.materials.len(), self.pos() + 64, "MaterialCount")?,
        };
        self.record(&h);
        let mut p = Pending::new(&m.unknown);
        self.flush(&mut p, |a| a.is_none())?;
        self.opt_slot(&mut p, ChunkId::OBB, m.obb.as_ref().map(bytemuck::bytes_of))?;
        let bones = m.bones.as_deref().map(binio::pod::as_bytes);
        self.opt_slot(&mut p, ChunkId::BONE, bones)?;
        self.pod_leaf(ChunkId::V_PC, &m.vertices)?;
        self.after(&mut p, ChunkId::V_PC, 0, true)?;
        let normals = m.normals.as_deref().map(binio::pod::as_bytes);
        self.opt_slot(&mut p, ChunkId::V_N, normals)?;
        let tangents = m.tangents.as_deref().map(binio::pod::as_bytes);
        self.opt_slot(&mut p, ChunkId::V_B, tangents)?;
        let blend = m.blend.as_deref().map(binio::pod::as_bytes);
        self.opt_slot(&mut p, ChunkId::V_A, blend)?;
        let uvs = m.uvs.as_deref().map(binio::pod::as_bytes);
        self.opt_slot(&mut p, ChunkId::V_UV, uvs)?;
        match &m.indices {
            Indices::U16(v) => self.pod_leaf(ChunkId::IDX2, v)?,
            Indices::U32(v) => self.pod_leaf(ChunkId::IDX4, v)?,
        }
        self.after(&mut p, ChunkId::IDX2, 0, true)?;
        self.after(&mut p, ChunkId::IDX4, 0, true)?;
        for (i, mat) in m.materials.iter().enumerate() {
            self.material(mat)?;
            self.after(&mut p, ChunkId::MTRL, i, i + 1 == m.materials.len())?;
        }
        // Unknown chunks that followed a material the model no longer has.
        self.after(&mut p, ChunkId::MTRL, 0, true)?;
        let runs = m.collision_runs.as_deref().map(binio::pod::as_bytes);
        self.opt_slot(&mut p, ChunkId::C_AT, runs)?;
        let faces = m.collision_faces.as_deref().map(binio::pod::as_bytes);
        self.opt_slot(&mut p, ChunkId::C_FC, faces)?;
        let cverts = m.collision_vertices.as_deref().map(binio::pod::as_bytes);
        self.opt_slot(&mut p, ChunkId::C_VX, cverts)?;
        self.flush(&mut p, |_| true)?;
        self.end(at)
    }

    fn material(&mut self, m: &Material) -> Result<(), Error> {
        let at = self.begin(ChunkId::MTRL);
        let h = MaterialHead {
            name: self.name_bytes(&m.name, "MTRL")?,
            polygon_start: m.polygon_start,
            polygon_count: m.polygon_count,
            vertex_start: m.vertex_start,
            vertex_count: m.vertex_count,
        };
        self.record(&h);
        let mut p = Pending::new(&m.unknown);
        self.flush(&mut p, |a| a.is_none())?;
        for (id, tex) in [
            (ChunkId::TEXC, &m.texture),
            (ChunkId::TEXL, &m.light_map),
            (ChunkId::TEXE, &m.environment_map),
            (ChunkId::TEXS, &m.specular_map),
            (ChunkId::TEXN, &m.normal_map),
        ] {
            let raw = match tex {
                Some(t) => Some(self.name_bytes(t, &id.name())?),
                None => None,
            };
            self.opt_slot(&mut p, id, raw.as_ref().map(|r| r.as_slice()))?;
        }
        // CULL before LGT: the engine applies CULL's value to lighting too (smf.md §5).
        for (id, v) in [
            (ChunkId::DRAW, m.draw.map(DrawMode::raw)),
            (ChunkId::ZTES, m.z_test),
            (ChunkId::ZWRI, m.z_write),
            (ChunkId::ATES, m.alpha_test),
            (ChunkId::ABND, m.alpha_threshold),
            (ChunkId::CULL, m.cull),
            (ChunkId::LGT, m.lighting),
        ] {
            let b = v.map(u32::to_le_bytes);
            self.opt_slot(&mut p, id, b.as_ref().map(|b| b.as_slice()))?;
        }
        let diff = m
            .diffuse
            .as_ref()
            .map(|d| bytemuck::cast_slice::<f32, u8>(d));
        self.opt_slot(&mut p, ChunkId::DIFF, diff)?;
        let emis = m
            .emissive
            .as_ref()
            .map(|d| bytemuck::cast_slice::<f32, u8>(d));
        self.opt_slot(&mut p, ChunkId::EMIS, emis)?;
        self.opt_slot(
            &mut p,
            ChunkId::SPEC,
            m.specular.as_ref().map(bytemuck::bytes_of),
        )?;
        let bump = m.bump.map(f32::to_le_bytes);
        self.opt_slot(&mut p, ChunkId::BUMP, bump.as_ref().map(|b| b.as_slice()))?;
        self.flush(&mut p, |_| true)?;
        self.end(at)
    }
}

/// Serialises a whole document.
pub(crate) fn write(doc: &Smf) -> Result<Vec<u8>, Error> {
    let mut w = W {
        out: Vec::new(),
        ids: None,
    };
    w.file(doc)?;
    Ok(w.out)
}

/// Calls `f` with every chunk id in the order [`write()`] emits them.
pub(crate) fn visit_ids(doc: &Smf, f: &mut dyn FnMut(ChunkId)) {
    let mut w = W {
        out: Vec::new(),
        ids: Some(Vec::new()),
    };
    // Recording never fails except on names of the wrong size, which a listing ignores.
    let _ = w.file(doc);
    for id in w.ids.unwrap_or_default() {
        f(id);
    }
}
