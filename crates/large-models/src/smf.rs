//! Selene `.smf`: one mesh with 32-bit indices (IDX4), a frame per bone.

use crate::geometry::{self as geo, f32s, Geometry};
use crate::Error;
use selene_smf::Model as _;
use selene_smf::{
    name, Animation, AnimationSet, BlendVertex, Bone, Frame, Indices, Material, Mesh, RotationKey,
    Smf, UvVertex, Vec3, VectorKey, VertexPc,
};

/// SMF key times are in ticks of 1/4800 s.
const TICKS_PER_SECOND: f64 = 4800.0;

fn named<T>(v: Option<T>, what: &str) -> Result<T, Error> {
    v.ok_or_else(|| format!("{what}: not encodable").into())
}

fn mesh(g: &Geometry, texture: &str) -> Result<Mesh, Error> {
    let vertices = g
        .positions
        .iter()
        .map(|&p| VertexPc {
            position: f32s(p),
            bgra: [0xFF; 4],
        })
        .collect();
    let indices = g.triangles.iter().flatten().copied().collect();
    let mut mesh = named(Mesh::new("torus", vertices, Indices::U32(indices)), "mesh")?;
    mesh.normals = Some(g.normals.iter().map(|&n| Vec3(f32s(n))).collect());
    mesh.uvs = Some(
        g.uvs
            .iter()
            .map(|&uv| UvVertex::same(f32s(uv).into()))
            .collect(),
    );
    for (k, part) in g.parts.iter().enumerate() {
        let mut m = named(
            Material::new(
                "Material",
                (
                    i32::try_from(part.triangles.start)?,
                    i32::try_from(part.triangles.len())?,
                ),
                (
                    i32::try_from(part.vertices.start)?,
                    i32::try_from(part.vertices.len())?,
                ),
            ),
            "material",
        )?;
        m.texture = name(&format!("{texture}{k}.png"));
        mesh.materials.push(m);
    }
    Ok(mesh)
}

/// A static model: one frame, one mesh, one material per part.
pub fn static_from(g: &Geometry) -> Result<Vec<u8>, Error> {
    Ok(Smf {
        frames: vec![named(Frame::new("FRAME_ROOT", 0, -1), "frame")?],
        meshes: vec![mesh(g, "torus")?],
        ..Smf::default()
    }
    .to_bytes()?)
}

/// The large static model: 1 000 000 vertices, 2 000 000 triangles, IDX4.
pub fn large_static() -> Result<Vec<u8>, Error> {
    static_from(&geo::large_static())
}

fn translation(t: [f64; 3]) -> [f32; 16] {
    f32s(geo::translation_rows(t))
}

/// The skinned model: 100 000 vertices blended over 72 bones (frames 1..=72 under the root
/// frame), and one animation set of 100 scale, rotation and translation keys per bone.
pub fn skinned() -> Result<Vec<u8>, Error> {
    skinned_from(&geo::skinned())
}

/// The character-sized model ([`geo::character`]: 2 592 vertices) with the same bones and
/// clip as [`skinned`]: about 0.6 MB, for the whole-process comparison of BENCHMARKS.md.
pub fn character() -> Result<Vec<u8>, Error> {
    skinned_from(&geo::character())
}

fn skinned_from(g: &Geometry) -> Result<Vec<u8>, Error> {
    let mut m = mesh(g, "tube")?;
    m.blend = Some(
        g.influences
            .iter()
            .map(|&[(b0, w0), (b1, _)]| BlendVertex {
                weight: w0 as f32,
                indices: [b0, b1, 0, 0],
            })
            .collect(),
    );
    m.bones = Some(
        (0..geo::BONES)
            .map(|b| {
                let p = geo::bone_position(b);
                Ok(Bone {
                    offset: translation([-p[0], -p[1], -p[2]]),
                    frame: i32::try_from(b + 1)?,
                })
            })
            .collect::<Result<_, Error>>()?,
    );
    let mut frames = vec![named(Frame::new("FRAME_ROOT", 0, -1), "frame")?];
    for b in 0..geo::BONES {
        let parent = geo::parent(b).map_or(0, |q| q + 1);
        let mut f = named(
            Frame::new(&format!("bone{b:02}"), -1, i32::try_from(parent)?),
            "frame",
        )?;
        f.transform = translation(geo::bone_local(b));
        frames.push(f);
    }
    let time = |s: usize| (geo::sample_time(s) * TICKS_PER_SECOND).round() as i32;
    let animations = (0..geo::BONES)
        .map(|b| {
            Ok(Animation {
                target_frame: i32::try_from(b + 1)?,
                scale_keys: (0..geo::SAMPLES)
                    .map(|s| VectorKey {
                        time: time(s),
                        value: [1.0; 3],
                    })
                    .collect(),
                rotation_keys: (0..geo::SAMPLES)
                    .map(|s| RotationKey {
                        time: time(s),
                        value: f32s(geo::rotation(b, s)),
                    })
                    .collect(),
                translation_keys: (0..geo::SAMPLES)
                    .map(|s| VectorKey {
                        time: time(s),
                        value: f32s(geo::bone_local(b)),
                    })
                    .collect(),
            })
        })
        .collect::<Result<_, Error>>()?;
    Ok(Smf {
        frames,
        meshes: vec![m],
        animation_sets: vec![AnimationSet {
            name: named(name("wave"), "animation set")?,
            last_time: time(geo::SAMPLES - 1),
            animations,
            unknown: Vec::new(),
        }],
        ..Smf::default()
    }
    .to_bytes()?)
}
