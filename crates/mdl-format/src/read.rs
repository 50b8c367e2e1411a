//! Bytes → [`Mdl`], with every validation rule of the specification.
//!
//! The file is a strict sequence of length-prefixed arrays. Every count is checked to be
//! non-negative and to fit in the remaining input (count × the element's minimum size) before
//! anything is allocated from it.

use crate::error::{Error, Warning};
use crate::layout::*;
use crate::model::*;
use binio::{Cursor, Eof};
use bytemuck::Pod;
use std::collections::HashSet;

/// The description used for the legacy layout in [`Error::UnsupportedLayout`]. It names no
/// type: the message reaches users of programs built on this crate, who cannot use one (a
/// library user reads such a file with [`LegacyMdl`]).
pub const LEGACY_LAYOUT: &str =
    "2014 development layout (FBX2MDL, April to June 2014: mesh groups first, bones inside them)";

// Minimum sizes in bytes of each array element, used to check counts before allocating: the
// fixed records (`layout.rs`) plus one count for each string or array an element holds.
const MIN_BONE_V1: u64 = COUNT_SIZE + BONE_V1_SIZE;
const MIN_BONE_V2: u64 = COUNT_SIZE + BONE_V2_SIZE;
const MIN_LEGACY_BONE: u64 = COUNT_SIZE + LEGACY_BONE_SIZE;
/// Divided meshes and materials.
const MIN_MESH: u64 = 2 * COUNT_SIZE;
/// Vertices, faces, material runs and connectors.
const MIN_DIVIDED: u64 = 4 * COUNT_SIZE;
/// Type and one path.
const MIN_MATERIAL: u64 = 2 * COUNT_SIZE;
/// Name and curves.
const MIN_SOURCE: u64 = 2 * COUNT_SIZE;
/// Target and keys.
const MIN_CURVE: u64 = 2 * COUNT_SIZE;
/// Name and source index.
const MIN_CLIP: u64 = 2 * COUNT_SIZE;
/// Meshes, bones and materials.
const MIN_LEGACY_GROUP: u64 = 3 * COUNT_SIZE;

fn truncated(what: &'static str) -> impl Fn(Eof) -> Error {
    move |e| Error::Truncated {
        offset: e.offset,
        what,
        needed: e.needed,
        available: e.available,
    }
}

/// Reads a whole file.
pub(crate) fn read(bytes: &[u8]) -> Result<(Mdl, Vec<Warning>), Error> {
    let version = header(bytes)?;
    match Reader::new(bytes, version).document() {
        Ok(doc) => Ok(doc),
        Err(e) => {
            if version == 1 && legacy_layout_matches(bytes) {
                Err(Error::UnsupportedLayout {
                    offset: 8,
                    layout: LEGACY_LAYOUT,
                })
            } else {
                Err(e)
            }
        }
    }
}

/// Checks the magic and the version; returns the version.
fn header(bytes: &[u8]) -> Result<i32, Error> {
    if bytes.get(..4) != Some(&MAGIC[..]) {
        return Err(Error::NotThisFormat {
            offset: 0,
            found: bytes.get(..4).unwrap_or(bytes).to_vec(),
        });
    }
    let mut c = Cursor::new(bytes);
    c.take(4).map_err(truncated("magic"))?;
    let version = c.i32().map_err(truncated("version"))?;
    if version != 1 && version != 2 {
        return Err(Error::UnsupportedVersion {
            offset: 4,
            found: version,
        });
    }
    Ok(version)
}

struct Reader<'a> {
    c: Cursor<'a>,
    version: i32,
    warnings: Vec<Warning>,
}

impl<'a> Reader<'a> {
    fn new(bytes: &'a [u8], version: i32) -> Self {
        let mut c = Cursor::new(bytes);
        // `header` has checked that these 8 bytes exist.
        let _ = c.take(8);
        Self {
            c,
            version,
            warnings: Vec::new(),
        }
    }

    fn i32(&mut self, what: &'static str) -> Result<i32, Error> {
        self.c.i32().map_err(truncated(what))
    }

    /// Reads an array count, checks it is non-negative and that `count × min_size` bytes
    /// remain. Returns the count and the offset of the count field.
    fn count(&mut self, what: &'static str, min_size: u64) -> Result<(usize, u64), Error> {
        let offset = self.c.offset();
        let n = self.i32(what)?;
        let n = u64::try_from(n).map_err(|_| Error::BadCount {
            offset,
            what,
            count: i64::from(n),
        })?;
        self.c.ensure(n, min_size).map_err(|e| Error::Truncated {
            offset,
            what,
            needed: e.needed,
            available: e.available,
        })?;
        let n = usize::try_from(n).map_err(|_| Error::Truncated {
            offset,
            what,
            needed: u64::MAX,
            available: self.c.remaining() as u64,
        })?;
        Ok((n, offset))
    }

    fn string(&mut self, what: &'static str) -> Result<MdlString, Error> {
        let (n, offset) = self.count(what, 2)?;
        let raw = self.c.take_elements(n as u64, 2).map_err(truncated(what))?;
        let units: Vec<u16> = binio::pod::vec_from_bytes(raw).unwrap_or_default();
        let s = MdlString { units };
        if !s.is_well_formed() {
            self.warnings.push(Warning::UnpairedSurrogate { offset });
        }
        Ok(s)
    }

    /// Reads a counted array of `Pod` elements in one copy. Returns the elements and the
    /// offset of the first one.
    fn pod_array<T: Pod>(&mut self, what: &'static str) -> Result<(Vec<T>, u64), Error> {
        let size = std::mem::size_of::<T>() as u64;
        let (n, _) = self.count(what, size)?;
        let start = self.c.offset();
        let raw = self
            .c
            .take_elements(n as u64, size)
            .map_err(truncated(what))?;
        let items = binio::pod::vec_from_bytes(raw).ok_or(Error::Truncated {
            offset: start,
            what,
            needed: n as u64 * size,
            available: raw.len() as u64,
        })?;
        Ok((items, start))
    }

    /// Reads a fixed record (`layout.rs`).
    fn record<T: Pod>(&mut self, what: &'static str) -> Result<T, Error> {
        self.c.record().map_err(truncated(what))
    }

    fn document(mut self) -> Result<(Mdl, Vec<Warning>), Error> {
        let bones = self.bones()?;
        let mut names: HashSet<String> = HashSet::new();
        for b in &bones {
            names.insert(b.name.to_string_lossy());
        }
        let (n, _) = self.count("mesh count", MIN_MESH)?;
        let mut meshes = Vec::with_capacity(n);
        for _ in 0..n {
            meshes.push(self.mesh(bones.len())?);
        }
        let (n, _) = self.count("animation source count", MIN_SOURCE)?;
        let mut animation_sources = Vec::with_capacity(n);
        for _ in 0..n {
            animation_sources.push(self.source(&names)?);
        }
        let clips = self.clips(animation_sources.len())?;
        self.finish()?;
        let doc = Mdl {
            version: self.version,
            bones,
            meshes,
            animation_sources,
            clips,
        };
        Ok((doc, self.warnings))
    }

    fn clips(&mut self, source_count: usize) -> Result<Vec<AnimationClip>, Error> {
        let (n, _) = self.count("animation clip count", MIN_CLIP)?;
        let mut clips = Vec::with_capacity(n);
        for _ in 0..n {
            let name = self.string("clip name")?;
            let offset = self.c.offset();
            let source_index = self.i32("clip source index")?;
            if usize::try_from(source_index).map_or(true, |i| i >= source_count) {
                return Err(Error::IndexOutOfRange {
                    offset,
                    what: "clip source index",
                    index: source_index.into(),
                    range: format!("in 0..{source_count}"),
                });
            }
            clips.push(AnimationClip { name, source_index });
        }
        Ok(clips)
    }

    fn finish(&self) -> Result<(), Error> {
        if self.c.is_empty() {
            Ok(())
        } else {
            Err(Error::TrailingData {
                offset: self.c.offset(),
                count: self.c.remaining() as u64,
            })
        }
    }

    fn bones(&mut self) -> Result<Vec<Bone>, Error> {
        let min = if self.version >= 2 {
            MIN_BONE_V2
        } else {
            MIN_BONE_V1
        };
        let (n, _) = self.count("bone count", min)?;
        let mut bones = Vec::with_capacity(n);
        for i in 0..n {
            let name = self.string("bone name")?;
            let offset = self.c.offset();
            let (parent, rotation_order, transform) = if self.version >= 2 {
                let b: BoneV2 = self.record("bone")?;
                let transform = BoneTransform::Trs {
                    translation: b.translation.into(),
                    rotation: b.rotation.into(),
                    scaling: b.scaling.into(),
                };
                (b.parent, b.rotation_order, transform)
            } else {
                let b: BoneV1 = self.record("bone")?;
                (
                    b.parent,
                    b.rotation_order,
                    BoneTransform::Matrix(Matrix44(b.matrix)),
                )
            };
            // Every stable file starts with a root ("RootNode"); a version-1 file that does
            // not is an early prototype layout (`read` first checks the development layout).
            if i == 0 && parent != -1 && self.version == 1 {
                return Err(Error::EarlyLayout {
                    offset: 8,
                    bone_at: offset,
                });
            }
            if parent != -1 && usize::try_from(parent).map_or(true, |p| p >= i) {
                return Err(Error::IndexOutOfRange {
                    offset,
                    what: "bone parent index",
                    index: parent.into(),
                    range: format!("-1 or in 0..{i}, below the bone's own index {i}"),
                });
            }
            let offset = offset + BONE_ROTATION_ORDER;
            let rotation_order = RotationOrder(rotation_order);
            let note = match rotation_order.0 {
                0 => Some("unset (FBX SphericXYZ); the engine builds an identity transform"),
                14 => Some("ZYX is miscomputed by the engine (X is never applied)"),
                r if !RotationOrder(r).is_known() => Some("unknown value"),
                _ => None,
            };
            if let Some(note) = note {
                self.warnings.push(Warning::RotationOrder {
                    offset,
                    raw: rotation_order.0,
                    note,
                });
            }
            bones.push(Bone {
                name,
                parent,
                rotation_order,
                transform,
            });
        }
        Ok(bones)
    }

    fn mesh(&mut self, bone_count: usize) -> Result<Mesh, Error> {
        let (n, _) = self.count("divided mesh count", MIN_DIVIDED)?;
        let mut divided = Vec::with_capacity(n);
        let mut runs_at = Vec::with_capacity(n);
        for _ in 0..n {
            let (d, runs_offset) = self.divided(bone_count)?;
            divided.push(d);
            runs_at.push(runs_offset);
        }
        let (n, _) = self.count("material count", MIN_MATERIAL)?;
        let mut materials = Vec::with_capacity(n);
        for _ in 0..n {
            materials.push(self.material()?);
        }
        // Material runs are checked once the materials are known.
        for (d, &runs_offset) in divided.iter().zip(&runs_at) {
            check_runs(
                &d.material_runs,
                runs_offset,
                d.faces.len(),
                materials.len(),
            )?;
        }
        Ok(Mesh { divided, materials })
    }

    /// Reads a divided mesh; returns it and the offset of its first material run.
    fn divided(&mut self, bone_count: usize) -> Result<(DividedMesh, u64), Error> {
        let (vertices, vertices_at) = self.pod_array::<Vertex>("vertex count")?;
        let (faces, faces_at) = self.pod_array::<Face>("face count")?;
        let (material_runs, runs_at) = self.pod_array::<MaterialRun>("material run count")?;
        let connectors_count_at = self.c.offset();
        let (connectors, connectors_at) =
            self.pod_array::<BoneConnector>("bone connector count")?;

        check_faces(&faces, faces_at, vertices.len())?;
        for (i, conn) in connectors.iter().enumerate() {
            if usize::try_from(conn.bone_index).map_or(true, |b| b >= bone_count) {
                return Err(Error::IndexOutOfRange {
                    offset: connectors_at + CONNECTOR_SIZE * i as u64,
                    what: "bone connector's bone index",
                    index: conn.bone_index.into(),
                    range: format!("in 0..{bone_count}"),
                });
            }
        }
        if connectors.len() > 32 {
            self.warnings.push(Warning::TooManyConnectors {
                offset: connectors_count_at,
                count: connectors.len() as u64,
            });
        }
        let nc = connectors.len();
        let mut bad_sums: Option<(u64, u64, u32)> = None;
        for (i, v) in vertices.iter().enumerate() {
            let at = vertices_at + VERTEX_SIZE * i as u64;
            for (k, (&w, &b)) in v.weights.iter().zip(&v.bone_indices).enumerate() {
                if w > 0 && usize::from(b) >= nc {
                    return Err(Error::IndexOutOfRange {
                        offset: at + VERTEX_BONE_INDICES + k as u64,
                        what: "vertex bone index (with a non-zero weight)",
                        index: b.into(),
                        range: format!("in 0..{nc}, the divided mesh's connector count"),
                    });
                }
            }
            let sum: u32 = v.weights.iter().map(|&w| u32::from(w)).sum();
            if sum != 255 {
                let entry = bad_sums.get_or_insert((at + VERTEX_WEIGHTS, 0, sum));
                entry.1 += 1;
            }
        }
        if let Some((offset, vertices, first_sum)) = bad_sums {
            self.warnings.push(Warning::WeightSum {
                offset,
                vertices,
                first_sum,
            });
        }
        let d = DividedMesh {
            vertices,
            faces,
            material_runs,
            connectors,
        };
        Ok((d, runs_at))
    }

    fn material(&mut self) -> Result<Material, Error> {
        let offset = self.c.offset();
        let raw_type = self.i32("material type")?;
        if raw_type == Material::EXTERNAL {
            let path = self.string("external material path")?;
            return Ok(Material::External { path });
        }
        if raw_type != Material::INTERNAL {
            self.warnings.push(Warning::UnknownMaterialType {
                offset,
                raw: raw_type,
            });
        }
        let color = self.string("colour texture path")?;
        let normal = self.string("normal texture path")?;
        let metalness = self.string("metalness texture path")?;
        Ok(Material::Internal {
            raw_type,
            color,
            normal,
            metalness,
        })
    }

    fn source(&mut self, bone_names: &HashSet<String>) -> Result<AnimationSource, Error> {
        let name = self.string("animation source name")?;
        let (n, _) = self.count("curve count", MIN_CURVE)?;
        let mut curves = Vec::with_capacity(n);
        for _ in 0..n {
            let target_at = self.c.offset();
            let target = self.string("curve target")?;
            let (keys, keys_at) = self.pod_array::<Keyframe>("keyframe count")?;
            let curve = Curve { target, keys };
            match curve.parse_target() {
                None => self.warnings.push(Warning::MalformedTarget {
                    offset: target_at,
                    target: curve.target.to_string_lossy(),
                }),
                Some(t) if !bone_names.contains(&t.node) => {
                    self.warnings.push(Warning::TargetNotABone {
                        offset: target_at,
                        target: curve.target.to_string_lossy(),
                    })
                }
                Some(_) => {}
            }
            let mut unknown: Option<(u64, i32, u64)> = None;
            let mut decreasing: Option<u64> = None;
            let mut prev: Option<f32> = None;
            for (k, key) in curve.keys.iter().enumerate() {
                let at = keys_at + KEYFRAME_SIZE * k as u64;
                if !key.interpolation.is_known() {
                    unknown
                        .get_or_insert((at + KEYFRAME_INTERPOLATION, key.interpolation.0, 0))
                        .2 += 1;
                }
                if prev.is_some_and(|p| key.time < p) && decreasing.is_none() {
                    decreasing = Some(at);
                }
                prev = Some(key.time);
            }
            if let Some((offset, raw, keys)) = unknown {
                self.warnings
                    .push(Warning::UnknownInterpolation { offset, raw, keys });
            }
            if let Some(offset) = decreasing {
                self.warnings.push(Warning::DecreasingTimes { offset });
            }
            curves.push(curve);
        }
        Ok(AnimationSource { name, curves })
    }
}

/// Checks that every face index is in `0..vertex_count`.
fn check_faces(faces: &[Face], faces_at: u64, vertex_count: usize) -> Result<(), Error> {
    for (i, face) in faces.iter().enumerate() {
        for (j, &index) in face.0.iter().enumerate() {
            if usize::try_from(index).map_or(true, |v| v >= vertex_count) {
                return Err(Error::IndexOutOfRange {
                    offset: faces_at + FACE_SIZE * i as u64 + FACE_INDEX_SIZE * j as u64,
                    what: "face vertex index",
                    index: index.into(),
                    range: format!("in 0..{vertex_count}"),
                });
            }
        }
    }
    Ok(())
}

/// Checks material indices, non-negative face counts, and that the counts sum to the faces.
fn check_runs(
    runs: &[MaterialRun],
    runs_at: u64,
    face_count: usize,
    material_count: usize,
) -> Result<(), Error> {
    let mut sum: i64 = 0;
    for (k, run) in runs.iter().enumerate() {
        let at = runs_at + MATERIAL_RUN_SIZE * k as u64;
        if usize::try_from(run.material_index).map_or(true, |m| m >= material_count) {
            return Err(Error::IndexOutOfRange {
                offset: at,
                what: "material run's material index",
                index: run.material_index.into(),
                range: format!("in 0..{material_count}"),
            });
        }
        if run.face_count < 0 {
            return Err(Error::BadCount {
                offset: at + MATERIAL_RUN_FACE_COUNT,
                what: "material run face count",
                count: run.face_count.into(),
            });
        }
        sum += i64::from(run.face_count);
    }
    if sum != face_count as i64 {
        return Err(Error::CountMismatch {
            offset: runs_at.saturating_sub(COUNT_SIZE),
            what: "material run face counts must sum to the face count",
            expected: face_count as i64,
            found: sum,
        });
    }
    Ok(())
}

/// Reads a file in the 2014 development layout.
pub(crate) fn read_legacy(bytes: &[u8]) -> Result<(LegacyMdl, Vec<Warning>), Error> {
    let version = header(bytes)?;
    if version != 1 {
        return Err(Error::UnsupportedVersion {
            offset: 4,
            found: version,
        });
    }
    Reader::new(bytes, version).legacy_document()
}

/// True when `bytes` (already known to carry the magic and version 1) are consumed exactly by
/// the 2014 development layout.
fn legacy_layout_matches(bytes: &[u8]) -> bool {
    Reader::new(bytes, 1).legacy_document().is_ok()
}

impl Reader<'_> {
    /// `Array<MeshGroup>, Array<AnimationSource>, Array<AnimationClip>`, where a mesh group is
    /// `Array<Mesh>, Array<Bone>, Array<Material>`.
    fn legacy_document(mut self) -> Result<(LegacyMdl, Vec<Warning>), Error> {
        let (n, _) = self.count("mesh group count", MIN_LEGACY_GROUP)?;
        let mut mesh_groups = Vec::with_capacity(n);
        for _ in 0..n {
            mesh_groups.push(self.legacy_group()?);
        }
        let mut names: HashSet<String> = HashSet::new();
        for b in mesh_groups.iter().flat_map(|g| &g.bones) {
            names.insert(b.name.to_string_lossy());
        }
        let (n, _) = self.count("animation source count", MIN_SOURCE)?;
        let mut animation_sources = Vec::with_capacity(n);
        for _ in 0..n {
            animation_sources.push(self.source(&names)?);
        }
        let clips = self.clips(animation_sources.len())?;
        self.finish()?;
        let doc = LegacyMdl {
            version: self.version,
            mesh_groups,
            animation_sources,
            clips,
        };
        Ok((doc, self.warnings))
    }

    fn legacy_group(&mut self) -> Result<LegacyMeshGroup, Error> {
        let (n, _) = self.count("mesh count", MIN_DIVIDED)?;
        let mut meshes = Vec::with_capacity(n);
        let mut runs_at = Vec::with_capacity(n);
        for _ in 0..n {
            let (vertices, _) = self.pod_array::<Vertex>("vertex count")?;
            let (faces, faces_at) = self.pod_array::<Face>("face count")?;
            check_faces(&faces, faces_at, vertices.len())?;
            let (material_runs, at) = self.pod_array::<MaterialRun>("material run count")?;
            let (bone_offsets, _) = self.pod_array::<LegacyBoneOffset>("bone offset count")?;
            runs_at.push(at);
            meshes.push(LegacyMesh {
                vertices,
                faces,
                material_runs,
                bone_offsets,
            });
        }
        let (n, _) = self.count("bone count", MIN_LEGACY_BONE)?;
        let mut bones = Vec::with_capacity(n);
        for _ in 0..n {
            let name = self.string("bone name")?;
            let b: LegacyBoneRecord = self.record("bone")?;
            bones.push(LegacyBone {
                name,
                parent: b.parent,
                rotation_order: RotationOrder(b.rotation_order),
                local: Matrix44(b.local),
                inverse_global: Matrix44(b.inverse_global),
            });
        }
        let (n, _) = self.count("material count", MIN_MATERIAL)?;
        let mut materials = Vec::with_capacity(n);
        for _ in 0..n {
            materials.push(self.material()?);
        }
        for (m, &at) in meshes.iter().zip(&runs_at) {
            check_runs(&m.material_runs, at, m.faces.len(), materials.len())?;
        }
        Ok(LegacyMeshGroup {
            meshes,
            bones,
            materials,
        })
    }
}
