//! [`Mdl`] → bytes: the mirror of `read.rs`, in the same order.
//!
//! The writer checks only what it must to produce a file of the declared version: the version
//! itself, that every bone transform has the version's form, that an internal material's type
//! is not 1, and that every count fits in an `i32`. Indices are written as they are.

use crate::error::Error;
use crate::layout::*;
use crate::model::*;
use binio::put::PutLe;
use bytemuck::Pod;

/// Serialises a document.
pub(crate) fn write(doc: &Mdl) -> Result<Vec<u8>, Error> {
    if doc.version != 1 && doc.version != 2 {
        return Err(Error::UnsupportedVersion {
            offset: 4,
            found: doc.version,
        });
    }
    let mut w = Writer {
        out: Vec::with_capacity(estimate(doc)),
    };
    w.out.extend_from_slice(&MAGIC);
    w.out.put_i32(doc.version);

    w.count(doc.bones.len(), "bone count")?;
    for bone in &doc.bones {
        w.string(&bone.name, "bone name")?;
        let (parent, rotation_order) = (bone.parent, bone.rotation_order.0);
        match (&bone.transform, doc.version) {
            (BoneTransform::Matrix(m), 1) => w.out.put_record(&BoneV1 {
                parent,
                rotation_order,
                matrix: m.0,
            }),
            (
                BoneTransform::Trs {
                    translation,
                    rotation,
                    scaling,
                },
                2,
            ) => w.out.put_record(&BoneV2 {
                parent,
                rotation_order,
                translation: (*translation).into(),
                rotation: (*rotation).into(),
                scaling: (*scaling).into(),
            }),
            (_, version) => {
                return Err(Error::UnexpectedPart {
                    offset: w.out.len() as u64 + BONE_TRANSFORM,
                    what: format!(
                        "bone {:?}: a version {version} file needs {} transforms",
                        bone.name.to_string_lossy(),
                        if version == 1 { "matrix" } else { "TRS" }
                    ),
                })
            }
        }
    }

    w.count(doc.meshes.len(), "mesh count")?;
    for mesh in &doc.meshes {
        w.count(mesh.divided.len(), "divided mesh count")?;
        for d in &mesh.divided {
            w.pod_array(&d.vertices, "vertex count")?;
            w.pod_array(&d.faces, "face count")?;
            w.pod_array(&d.material_runs, "material run count")?;
            w.pod_array(&d.connectors, "bone connector count")?;
        }
        w.materials(&mesh.materials)?;
    }

    w.animations(&doc.animation_sources, &doc.clips)?;
    Ok(w.out)
}

/// Serialises a document in the 2014 development layout.
pub(crate) fn write_legacy(doc: &LegacyMdl) -> Result<Vec<u8>, Error> {
    if doc.version != 1 {
        return Err(Error::UnsupportedVersion {
            offset: 4,
            found: doc.version,
        });
    }
    let mut w = Writer { out: Vec::new() };
    w.out.extend_from_slice(&MAGIC);
    w.out.put_i32(doc.version);
    w.count(doc.mesh_groups.len(), "mesh group count")?;
    for g in &doc.mesh_groups {
        w.count(g.meshes.len(), "mesh count")?;
        for m in &g.meshes {
            w.pod_array(&m.vertices, "vertex count")?;
            w.pod_array(&m.faces, "face count")?;
            w.pod_array(&m.material_runs, "material run count")?;
            w.pod_array(&m.bone_offsets, "bone offset count")?;
        }
        w.count(g.bones.len(), "bone count")?;
        for b in &g.bones {
            w.string(&b.name, "bone name")?;
            w.out.put_record(&LegacyBoneRecord {
                parent: b.parent,
                rotation_order: b.rotation_order.0,
                local: b.local.0,
                inverse_global: b.inverse_global.0,
            });
        }
        w.materials(&g.materials)?;
    }
    w.animations(&doc.animation_sources, &doc.clips)?;
    Ok(w.out)
}

struct Writer {
    out: Vec<u8>,
}

impl Writer {
    fn materials(&mut self, materials: &[Material]) -> Result<(), Error> {
        self.count(materials.len(), "material count")?;
        for m in materials {
            match m {
                Material::External { path } => {
                    self.out.put_i32(Material::EXTERNAL);
                    self.string(path, "external material path")?;
                }
                Material::Internal {
                    raw_type,
                    color,
                    normal,
                    metalness,
                } => {
                    if *raw_type == Material::EXTERNAL {
                        return Err(Error::UnexpectedPart {
                            offset: self.out.len() as u64,
                            what: "an internal material cannot have type 1 (external)".into(),
                        });
                    }
                    self.out.put_i32(*raw_type);
                    self.string(color, "colour texture path")?;
                    self.string(normal, "normal texture path")?;
                    self.string(metalness, "metalness texture path")?;
                }
            }
        }
        Ok(())
    }

    fn animations(
        &mut self,
        sources: &[AnimationSource],
        clips: &[AnimationClip],
    ) -> Result<(), Error> {
        self.count(sources.len(), "animation source count")?;
        for s in sources {
            self.string(&s.name, "animation source name")?;
            self.count(s.curves.len(), "curve count")?;
            for c in &s.curves {
                self.string(&c.target, "curve target")?;
                self.pod_array(&c.keys, "keyframe count")?;
            }
        }
        self.count(clips.len(), "animation clip count")?;
        for clip in clips {
            self.string(&clip.name, "clip name")?;
            self.out.put_i32(clip.source_index);
        }
        Ok(())
    }

    fn count(&mut self, n: usize, what: &'static str) -> Result<(), Error> {
        let n = i32::try_from(n).map_err(|_| Error::BadCount {
            offset: self.out.len() as u64,
            what,
            count: i64::try_from(n).unwrap_or(i64::MAX),
        })?;
        self.out.put_i32(n);
        Ok(())
    }

    fn string(&mut self, s: &MdlString, what: &'static str) -> Result<(), Error> {
        self.pod_array(&s.units, what)
    }

    fn pod_array<T: Pod>(&mut self, items: &[T], what: &'static str) -> Result<(), Error> {
        self.count(items.len(), what)?;
        self.out.extend_from_slice(binio::pod::as_bytes::<T>(items));
        Ok(())
    }
}

/// The exact output size when the document is valid (used to reserve once).
fn estimate(doc: &Mdl) -> usize {
    const COUNT: usize = COUNT_SIZE as usize;
    let s = |s: &MdlString| COUNT + 2 * s.units.len();
    let bone = if doc.version == 2 {
        BONE_V2_SIZE
    } else {
        BONE_V1_SIZE
    } as usize;
    let mut n = MAGIC.len() + 4 + 4 * COUNT;
    n += doc.bones.iter().map(|b| s(&b.name) + bone).sum::<usize>();
    for m in &doc.meshes {
        n += 2 * COUNT;
        for d in &m.divided {
            n += 4 * COUNT;
            n += VERTEX_SIZE as usize * d.vertices.len() + FACE_SIZE as usize * d.faces.len();
            n += MATERIAL_RUN_SIZE as usize * d.material_runs.len();
            n += CONNECTOR_SIZE as usize * d.connectors.len();
        }
        n += m
            .materials
            .iter()
            .map(|m| COUNT + m.paths().into_iter().map(s).sum::<usize>())
            .sum::<usize>();
    }
    for src in &doc.animation_sources {
        n += s(&src.name) + COUNT;
        n += src
            .curves
            .iter()
            .map(|c| s(&c.target) + COUNT + KEYFRAME_SIZE as usize * c.keys.len())
            .sum::<usize>();
    }
    n += doc.clips.iter().map(|c| s(&c.name) + COUNT).sum::<usize>();
    n
}
