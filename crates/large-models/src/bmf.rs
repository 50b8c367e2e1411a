//! BaseCross `.bmf` (BDV1.1): 16-bit indices, so one mesh per geometry part.

use crate::geometry::{self as geo, f32s, Geometry};
use crate::Error;
use bmf_block::Model as _;
use bmf_block::{Bmf, Material, Mesh, Skin, SkinnedVertex, TextureName, Vertex, Vertices};

fn material(index_count: usize, texture: &str) -> Result<Material, Error> {
    Ok(Material {
        start_index: 0,
        index_count: u32::try_from(index_count)?,
        diffuse: [1.0; 4].into(),
        specular: [0.0; 4].into(),
        ambient: [0.0; 4].into(),
        emissive: [0.0; 4].into(),
        texture: TextureName::new(texture),
    })
}

/// Indices of a part, relative to its first vertex.
fn local_indices(g: &Geometry, part: &geo::Part) -> Result<Vec<u16>, Error> {
    let base = part.vertices.start as u32;
    g.triangles[part.triangles.clone()]
        .iter()
        .flatten()
        .map(|&i| Ok(u16::try_from(i - base)?))
        .collect()
}

/// A static model of one mesh per part.
pub fn static_from(g: &Geometry) -> Result<Vec<u8>, Error> {
    let meshes = g
        .parts
        .iter()
        .map(|part| {
            let vertices = part
                .vertices
                .clone()
                .map(|v| Vertex {
                    position: f32s(g.positions[v]),
                    normal: f32s(g.normals[v]),
                    uv: f32s(g.uvs[v]),
                })
                .collect();
            let indices = local_indices(g, part)?;
            let count = indices.len();
            Ok(Mesh::new(
                Vertices::Plain(vertices),
                indices,
                vec![material(count, "torus.png")?],
                None,
            ))
        })
        .collect::<Result<Vec<_>, Error>>()?;
    Ok(Bmf::new(meshes).to_bytes()?)
}

/// The large static model: 16 meshes, 1 000 000 vertices, 2 000 000 triangles.
pub fn large_static() -> Result<Vec<u8>, Error> {
    static_from(&geo::large_static())
}

/// The skinned model: 4 meshes of 25 000 skinned vertices, each with the 72-bone skin and
/// 100 samples of final skinning matrices.
pub fn skinned() -> Result<Vec<u8>, Error> {
    let g = geo::skinned();
    let mut matrices = Vec::with_capacity(geo::SAMPLES * geo::BONES);
    for s in 0..geo::SAMPLES {
        for b in 0..geo::BONES {
            // Every bone sits on the x axis, so rotating about +x through it is a plain
            // rotation about +x.
            matrices.push(f32s(geo::rotation_x_rows(geo::angle(b, s))));
        }
    }
    let meshes = g
        .parts
        .iter()
        .map(|part| {
            let vertices = part
                .vertices
                .clone()
                .map(|v| {
                    let [(b0, w0), (b1, w1)] = g.influences[v];
                    SkinnedVertex {
                        position: f32s(g.positions[v]),
                        normal: f32s(g.normals[v]),
                        uv: f32s(g.uvs[v]),
                        bone_indices: [u32::from(b0), u32::from(b1), 0, 0],
                        weights: [w0 as f32, w1 as f32, 0.0, 0.0],
                    }
                })
                .collect();
            let indices = local_indices(&g, part)?;
            let count = indices.len();
            Ok(Mesh::new(
                Vertices::Skinned(vertices),
                indices,
                vec![material(count, "tube.png")?],
                Some(Skin {
                    bone_count: geo::BONES as u32,
                    matrices: matrices.clone(),
                }),
            ))
        })
        .collect::<Result<Vec<_>, Error>>()?;
    Ok(Bmf::new(meshes).to_bytes()?)
}
