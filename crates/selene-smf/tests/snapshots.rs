//! Summary snapshots of every fixture and sample: counts, bounds, buffer hashes and the chunk
//! list (never whole arrays).

use selene_smf::Model as _;
use selene_smf::{Indices, Smf};
use std::fmt::Write as _;
use test_support::{bounds, hash};

fn bytes_of<T: bytemuck::Pod>(v: &[T]) -> &[u8] {
    bytemuck::cast_slice(v)
}

fn summary(bytes: &[u8]) -> String {
    let (doc, warnings) = match Smf::from_bytes_with_warnings(bytes) {
        Ok(x) => x,
        Err(e) => return format!("error: {e}\n"),
    };
    let mut s = String::new();
    let ids: Vec<String> = doc.chunk_ids().iter().map(|i| i.name()).collect();
    let _ = writeln!(s, "chunks: {}", ids.join(" "));
    let _ = writeln!(s, "textures: {:?}", doc.texture_names());
    for (k, f) in doc.frames.iter().enumerate() {
        let _ = writeln!(
            s,
            "frame {k} {:?}: mesh {} parent {} transform {} obb {}",
            f.name.text(),
            f.mesh,
            f.parent,
            hash(bytes_of(&f.transform)),
            f.obb.map_or("-".into(), |o| hash(bytemuck::bytes_of(&o))),
        );
    }
    for (k, a) in doc.animation_sets.iter().enumerate() {
        let _ = writeln!(s, "anis {k} {:?}: last_time {}", a.name.text(), a.last_time);
        for (j, ani) in a.animations.iter().enumerate() {
            let _ = writeln!(
                s,
                "  ani {j}: frame {} keys S{} R{} T{} hashes {} {} {}",
                ani.target_frame,
                ani.scale_keys.len(),
                ani.rotation_keys.len(),
                ani.translation_keys.len(),
                hash(bytes_of(&ani.scale_keys)),
                hash(bytes_of(&ani.rotation_keys)),
                hash(bytes_of(&ani.translation_keys)),
            );
        }
    }
    for (k, m) in doc.meshes.iter().enumerate() {
        let _ = writeln!(s, "mesh {k} {:?}", m.name.text());
        let _ = writeln!(
            s,
            "  V_PC {} bounds {} hash {}",
            m.vertices.len(),
            bounds(m.vertices.iter().map(|v| v.position)),
            hash(bytes_of(&m.vertices))
        );
        let opt = |name: &str, b: Option<&[u8]>, n: Option<usize>, s: &mut String| {
            if let (Some(b), Some(n)) = (b, n) {
                let _ = writeln!(s, "  {name} {n} hash {}", hash(b));
            }
        };
        opt(
            "OBB",
            m.obb.as_ref().map(bytemuck::bytes_of),
            m.obb.map(|_| 1),
            &mut s,
        );
        opt(
            "BONE",
            m.bones.as_deref().map(bytes_of),
            m.bones.as_ref().map(|a| a.len()),
            &mut s,
        );
        opt(
            "V_N",
            m.normals.as_deref().map(bytes_of),
            m.normals.as_ref().map(|a| a.len()),
            &mut s,
        );
        opt(
            "V_B",
            m.tangents.as_deref().map(bytes_of),
            m.tangents.as_ref().map(|a| a.len()),
            &mut s,
        );
        opt(
            "V_A",
            m.blend.as_deref().map(bytes_of),
            m.blend.as_ref().map(|a| a.len()),
            &mut s,
        );
        opt(
            "V_UV",
            m.uvs.as_deref().map(bytes_of),
            m.uvs.as_ref().map(|a| a.len()),
            &mut s,
        );
        let (id, ib) = match &m.indices {
            Indices::U16(v) => ("IDX2", bytes_of(v)),
            Indices::U32(v) => ("IDX4", bytes_of(v)),
        };
        let _ = writeln!(
            s,
            "  {id} {} triangles {} hash {}",
            m.indices.len(),
            m.triangle_count(),
            hash(ib)
        );
        for (j, mat) in m.materials.iter().enumerate() {
            let tex: Vec<String> = mat.texture_names().map(|t| t.text().into_owned()).collect();
            let _ = writeln!(
                s,
                "  MTRL {j} {:?}: polygons {}+{} vertices {}+{} textures {tex:?}",
                mat.name.text(),
                mat.polygon_start,
                mat.polygon_count,
                mat.vertex_start,
                mat.vertex_count
            );
            let _ = writeln!(
                s,
                "    draw {:?} ztest {:?} zwrite {:?} atest {:?} abnd {:?} cull {:?} lgt {:?}",
                mat.draw,
                mat.z_test,
                mat.z_write,
                mat.alpha_test,
                mat.alpha_threshold,
                mat.cull,
                mat.lighting
            );
            let _ = writeln!(
                s,
                "    diffuse {:?} emissive {:?} specular {:?} bump {:?}",
                mat.diffuse,
                mat.emissive,
                mat.specular.map(|p| (p.color, p.refractive, p.roughness)),
                mat.bump
            );
        }
        opt(
            "C_AT",
            m.collision_runs.as_deref().map(bytes_of),
            m.collision_runs.as_ref().map(|a| a.len()),
            &mut s,
        );
        opt(
            "C_FC",
            m.collision_faces.as_deref().map(bytes_of),
            m.collision_faces.as_ref().map(|a| a.len()),
            &mut s,
        );
        opt(
            "C_VX",
            m.collision_vertices.as_deref().map(bytes_of),
            m.collision_vertices.as_ref().map(|a| a.len()),
            &mut s,
        );
    }
    for w in &warnings {
        let _ = writeln!(s, "warning: {w}");
    }
    s
}

#[test]
fn fixture_summaries() {
    insta::glob!("../../../fixtures/smf", "*.smf", |path| {
        let bytes = std::fs::read(path).unwrap();
        insta::assert_snapshot!(summary(&bytes));
    });
}

#[test]
fn sample_summaries() {
    if test_support::samples("smf", "smf").is_none() {
        return;
    }
    insta::glob!("../../../../shared/samples/smf", "*.smf", |path| {
        let bytes = std::fs::read(path).unwrap();
        insta::assert_snapshot!(summary(&bytes));
    });
}
