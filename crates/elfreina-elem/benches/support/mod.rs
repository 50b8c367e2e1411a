//! A large model for the benches, built through the public API: a 450 × 450 vertex grid
//! (202 500 vertices, ~400 000 triangles) with normals, one UV set and one material.

use elfreina_elem::{Elem, Material, Materials, Mesh, MeshContainer, MeshDataList};

pub fn large() -> Elem {
    let n: u32 = 450;
    let mut mesh = Mesh {
        name: Some("Grid".into()),
        ..Mesh::default()
    };
    // A fixed-seed xorshift for a little height noise, so numbers have full precision.
    let mut seed: u64 = 0x9E37_79B9_7F4A_7C15;
    let mut noise = move || {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        (seed >> 11) as f64 / (1u64 << 53) as f64
    };
    for j in 0..n {
        for i in 0..n {
            let (u, v) = (
                f64::from(i) / f64::from(n - 1),
                f64::from(j) / f64::from(n - 1),
            );
            mesh.positions
                .push([u * 100.0 - 50.0, noise(), v * 100.0 - 50.0]);
            mesh.normals.push([0.0, 1.0, 0.0]);
            mesh.uv_sets[0].push([u, v]);
        }
    }
    for j in 0..n - 1 {
        for i in 0..n - 1 {
            let a = j * n + i;
            mesh.push_face(&[a, a + n, a + n + 1]);
            mesh.push_face(&[a, a + n + 1, a + 1]);
        }
    }
    mesh.attributes = vec![0; mesh.face_count()];
    Elem {
        mesh_data: Some(MeshDataList {
            containers: vec![MeshContainer {
                name: Some("Grid".into()),
                materials: Some(Materials {
                    materials: vec![Material {
                        name: Some("ground".into()),
                        diffuse: Some([1.0, 0.5, 0.6, 0.4]),
                        texture_filename: Some("ground.png".into()),
                        ..Material::default()
                    }],
                    extra: Vec::new(),
                }),
                meshes: vec![mesh],
                ..MeshContainer::default()
            }],
            extra: Vec::new(),
        }),
        ..Elem::default()
    }
}
