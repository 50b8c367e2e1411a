//! A large skinned model for the benches: an `n × n` grid of vertices (two triangles per
//! cell) skinned to a chain of bones, built in code and written through the public writer.

use skm_text::{AttributeRange, Bone, Encoding, Material, Name, Skm, Vertex};

/// An `n × n` grid (`n²` vertices, `2 (n − 1)²` triangles) with `bones` bones.
pub fn large_model(n: u32, bones: u32) -> Skm {
    let step = 1.0 / (n - 1) as f32;
    let mut vertices = Vec::with_capacity((n * n) as usize);
    for j in 0..n {
        for i in 0..n {
            let (u, v) = (i as f32 * step, j as f32 * step);
            let bone = (u * (bones - 1) as f32) as u32;
            let w = u * (bones - 1) as f32 - bone as f32;
            let next = (bone + 1).min(bones - 1);
            vertices.push(Vertex {
                position: [
                    u * 10.0 - 5.0,
                    (u * 7.3).sin() * (v * 3.1).cos(),
                    v * 10.0 - 5.0,
                ],
                weights: [1.0 - w, w, 0.0],
                blend_indices: bone | (next << 8),
                normal: [0.0, 1.0, 0.0],
                uv: [u, v],
            });
        }
    }
    let cells = n - 1;
    let mut triangles = Vec::with_capacity((2 * cells * cells) as usize);
    let mut adjacency = Vec::with_capacity((2 * cells * cells) as usize);
    let face = |i: u32, j: u32, k: u32| 2 * (j * cells + i) + k;
    for j in 0..cells {
        for i in 0..cells {
            let a = j * n + i;
            triangles.push([a, a + n + 1, a + 1]);
            triangles.push([a, a + n, a + n + 1]);
            let none = u32::MAX;
            adjacency.push([
                face(i, j, 1),
                if i + 1 < cells {
                    face(i + 1, j, 1)
                } else {
                    none
                },
                if j > 0 { face(i, j - 1, 1) } else { none },
            ]);
            adjacency.push([
                if i > 0 { face(i - 1, j, 0) } else { none },
                if j + 1 < cells {
                    face(i, j + 1, 0)
                } else {
                    none
                },
                face(i, j, 0),
            ]);
        }
    }
    let faces = triangles.len() as u32;
    Skm {
        encoding: Encoding::ShiftJis,
        vertices,
        triangles,
        adjacency,
        materials: vec![Material {
            diffuse: [0.8, 0.8, 0.8, 1.0],
            ambient: [0.2, 0.2, 0.2, 1.0],
            specular: [0.5, 0.5, 0.5, 1.0],
            emissive: [0.0, 0.0, 0.0, 1.0],
            power: 16.0,
            texture: Some(Name::from_raw(b"grid.bmp".to_vec())),
        }],
        attributes: vec![AttributeRange {
            material: 0,
            face_start: 0,
            face_count: faces,
            vertex_start: 0,
            vertex_count: n * n,
        }],
        bones: (0..bones)
            .map(|b| Bone {
                name: Name::from_raw(format!(">bone{b}").into_bytes()),
                parent: b as i32 - 1,
                symmetric: -1,
                begin: [b as f32, 0.0, 0.0],
                end: [b as f32 + 1.0, 0.0, 0.0],
                rotation: [0.0, 0.0, 0.0, 1.0],
            })
            .collect(),
    }
}
