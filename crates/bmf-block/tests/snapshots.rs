//! One insta snapshot per fixture and sample: a summary view (block list, counts, bounds and
//! hashes of each buffer), never the arrays themselves.

use bmf_block::Bmf;
use bmf_block::Model as _;
use std::fmt::Write;
use std::path::Path;

fn summary(path: &Path) -> String {
    let bytes = test_support::read(path);
    let (doc, warnings) = Bmf::from_bytes_with_warnings(&bytes).unwrap();
    let mut s = String::new();
    let _ = writeln!(
        s,
        "file: {} bytes, hash {}",
        bytes.len(),
        test_support::hash(&bytes)
    );
    let _ = writeln!(s, "header: {:?}", doc.header.version().as_str());
    let _ = writeln!(s, "warnings: {}", warnings.len());
    for (i, m) in doc.meshes.iter().enumerate() {
        let kind = m.vertices.kind();
        let _ = writeln!(s, "mesh {i}:");
        let _ = writeln!(s, "  blocks: {}", blocks(m).join(" "));
        let _ = writeln!(
            s,
            "  vertices: {} × {} ({} bytes each), hash {}",
            m.vertices.len(),
            kind.name(),
            kind.size(),
            test_support::hash(m.vertices.as_bytes())
        );
        let _ = writeln!(
            s,
            "  bounds of referenced vertices: {}",
            test_support::bounds(
                m.indices
                    .iter()
                    .filter_map(|&i| m.vertices.get(usize::from(i)))
                    .map(|v| v.position)
            )
        );
        let _ = writeln!(
            s,
            "  indices: {} ({} triangles), hash {}",
            m.indices.len(),
            m.triangle_count(),
            test_support::hash(bytemuck::cast_slice(&m.indices))
        );
        for mat in &m.materials {
            let _ = writeln!(
                s,
                "  material: indices {}..{}, texture {:?}, diffuse {:?}, specular {:?}, ambient {:?}, emissive {:?}",
                mat.start_index,
                mat.start_index + mat.index_count,
                mat.texture.to_string_lossy(),
                <[f32; 4]>::from(mat.diffuse),
                <[f32; 4]>::from(mat.specular),
                <[f32; 4]>::from(mat.ambient),
                <[f32; 4]>::from(mat.emissive),
            );
        }
        if let Some(skin) = &m.skin {
            let _ = writeln!(
                s,
                "  skin: {} bones × {} samples, matrices hash {}",
                skin.bone_count,
                skin.sample_count(),
                test_support::hash(bytemuck::cast_slice(&skin.matrices))
            );
        }
    }
    s
}

fn blocks(m: &bmf_block::Mesh) -> Vec<String> {
    let mut b = vec![
        format!(
            "{}({})",
            m.vertices.kind().name(),
            m.vertices.kind().block_type()
        ),
        "Index(1)".into(),
        format!("MaterialCount(3)={}", m.materials.len()),
    ];
    b.extend(m.materials.iter().map(|_| "Material(2)".to_string()));
    if let Some(skin) = &m.skin {
        b.push(format!("BoneCount(5)={}", skin.bone_count));
        b.push("AnimeMatrix(6)".into());
    }
    b.push(format!("End(100)={}", m.end_size));
    b
}

#[test]
fn fixture_summaries() {
    insta::glob!("../../../fixtures/bmf", "*.bmf", |path| {
        insta::assert_snapshot!(summary(path));
    });
}

#[test]
fn sample_summaries() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../shared/samples/bmf");
    if !dir.is_dir() {
        eprintln!("skipping: {} not found", dir.display());
        return;
    }
    insta::glob!("../../../../shared/samples/bmf", "*.bmf", |path| {
        insta::assert_snapshot!(summary(path));
    });
}
