//! EditAnimation `.skm`: text, one vertex list with 32-bit indices, D3DX adjacency.

use crate::geometry::{self as geo, f32s, Geometry};
use crate::Error;
use skm_text::Model as _;
use skm_text::{AttributeRange, Bone, Encoding, Material, Name, Skm, Vertex};

fn document(g: &Geometry, weights: impl Fn(usize) -> ([f32; 3], u32)) -> Result<Skm, Error> {
    let vertices = (0..g.positions.len())
        .map(|v| {
            let (weights, blend_indices) = weights(v);
            Vertex {
                position: f32s(g.positions[v]),
                weights,
                blend_indices,
                normal: f32s(g.normals[v]),
                uv: f32s(g.uvs[v]),
            }
        })
        .collect();
    let attributes = g
        .parts
        .iter()
        .map(|p| {
            Ok(AttributeRange {
                material: 0,
                face_start: u32::try_from(p.triangles.start)?,
                face_count: u32::try_from(p.triangles.len())?,
                vertex_start: u32::try_from(p.vertices.start)?,
                vertex_count: u32::try_from(p.vertices.len())?,
            })
        })
        .collect::<Result<_, Error>>()?;
    Ok(Skm {
        encoding: Encoding::ShiftJis,
        vertices,
        triangles: g.triangles.clone(),
        adjacency: geo::adjacency(g),
        materials: vec![Material {
            diffuse: [0.8, 0.8, 0.8, 1.0],
            ambient: [0.2, 0.2, 0.2, 1.0],
            specular: [0.5, 0.5, 0.5, 1.0],
            emissive: [0.0, 0.0, 0.0, 1.0],
            power: 16.0,
            texture: Some(Name::from_raw(b"torus.bmp".to_vec())),
        }],
        attributes,
        bones: Vec::new(),
    })
}

/// A static model: every vertex fully on (the absent) bone 0, no bones.
pub fn static_from(g: &Geometry) -> Result<Vec<u8>, Error> {
    Ok(document(g, |_| ([1.0, 0.0, 0.0], 0))?.to_bytes()?)
}

/// The large static model: 1 000 000 vertices, 2 000 000 triangles.
pub fn large_static() -> Result<Vec<u8>, Error> {
    static_from(&geo::large_static())
}

fn depth(b: usize) -> usize {
    geo::parent(b).map_or(1, |p| depth(p) + 1)
}

/// The skinned model: 100 000 vertices over 72 bones. SKM holds no animation (it lives in the
/// companion `.bnf`), so this one has none.
pub fn skinned() -> Result<Vec<u8>, Error> {
    let g = geo::skinned();
    let mut doc = document(&g, |v| {
        let [(b0, w0), (b1, w1)] = g.influences[v];
        (
            [w0 as f32, w1 as f32, 0.0],
            u32::from(b0) | (u32::from(b1) << 8),
        )
    })?;
    doc.bones = (0..geo::BONES)
        .map(|b| {
            let p = f32s(geo::bone_position(b));
            Ok(Bone {
                name: Name::from_raw(format!("{}bone{b:02}", ">".repeat(depth(b))).into_bytes()),
                parent: geo::parent(b).map_or(Ok(-1), i32::try_from)?,
                symmetric: -1,
                begin: p,
                end: [p[0] + 0.25, p[1], p[2]],
                rotation: [0.0, 0.0, 0.0, 1.0],
            })
        })
        .collect::<Result<_, Error>>()?;
    Ok(doc.to_bytes()?)
}
