//! The large model both benches use, generated through the writer.

use selene_smf::{Frame, Indices, Material, Mesh, Smf, UvVertex, Vec3, VertexPc};

/// A 512 × 512 grid (262 144 vertices, 522 242 triangles) with normals, tangents, UVs and
/// 32-bit indices, split over four materials.
pub fn large_model() -> Smf {
    const N: u32 = 512;
    let mut vertices = Vec::with_capacity((N * N) as usize);
    let mut uvs = Vec::with_capacity((N * N) as usize);
    for y in 0..N {
        for x in 0..N {
            let (fx, fy) = (x as f32 / N as f32, y as f32 / N as f32);
            vertices.push(VertexPc::new([fx, ((x ^ y) % 7) as f32 * 0.01, fy].into()));
            uvs.push(UvVertex::same([fx, fy].into()));
        }
    }
    let mut indices = Vec::with_capacity(((N - 1) * (N - 1) * 6) as usize);
    for y in 0..N - 1 {
        for x in 0..N - 1 {
            let a = y * N + x;
            indices.extend([a, a + N, a + N + 1, a, a + N + 1, a + 1]);
        }
    }
    let nv = vertices.len();
    let tris = (indices.len() / 3) as i32;
    let mut mesh = Mesh::new("grid", vertices, Indices::U32(indices)).expect("ascii name");
    mesh.normals = Some(vec![Vec3([0.0, 1.0, 0.0]); nv]);
    mesh.tangents = Some(vec![Vec3([1.0, 0.0, 0.0]); nv]);
    mesh.uvs = Some(uvs);
    let quarter = tris / 4;
    for k in 0..4 {
        let count = if k == 3 { tris - 3 * quarter } else { quarter };
        let mut m = Material::new("Material", (k * quarter, count), (0, nv as i32)).expect("ascii");
        m.texture = selene_smf::name(&format!("tex{k}.png"));
        mesh.materials.push(m);
    }
    Smf {
        frames: vec![Frame::new("FRAME_ROOT", 0, -1).expect("ascii")],
        meshes: vec![mesh],
        ..Smf::default()
    }
}
