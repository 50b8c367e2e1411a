//! A large generated model for the benches: a `BDV1.1` file of 16 static meshes, each a
//! 256 × 256 vertex grid (65 536 vertices, the u16 limit), about 1 M vertices and 2 M
//! triangles in all (≈ 58 MB).

use bmf_block::{Bmf, Material, Mesh, TextureName, Vertex, Vertices};

pub fn large_model() -> Bmf {
    const SIDE: u16 = 256;
    let meshes = (0..16)
        .map(|m| {
            let mut vertices = Vec::with_capacity(usize::from(SIDE) * usize::from(SIDE));
            for y in 0..SIDE {
                for x in 0..SIDE {
                    let (fx, fy) = (f32::from(x), f32::from(y));
                    vertices.push(Vertex {
                        position: [fx, (fx * 0.1).sin() + m as f32, fy],
                        normal: [0.0, 1.0, 0.0],
                        uv: [fx / 255.0, fy / 255.0],
                    });
                }
            }
            let mut indices = Vec::new();
            for y in 0..SIDE - 1 {
                for x in 0..SIDE - 1 {
                    let a = y * SIDE + x;
                    indices.extend([a, a + SIDE, a + 1, a + 1, a + SIDE, a + SIDE + 1]);
                }
            }
            let material = Material {
                start_index: 0,
                index_count: indices.len() as u32,
                diffuse: [1.0; 4].into(),
                specular: [0.0; 4].into(),
                ambient: [0.0; 4].into(),
                emissive: [0.0; 4].into(),
                texture: TextureName::new("grid.png"),
            };
            Mesh::new(Vertices::Plain(vertices), indices, vec![material], None)
        })
        .collect();
    Bmf::new(meshes)
}
