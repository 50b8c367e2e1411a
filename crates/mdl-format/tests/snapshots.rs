//! Summary snapshots of every fixture and every real sample: counts, bounds, hashes of the
//! bulk arrays and the warnings, never whole arrays.

use mdl_format::Model as _;
use mdl_format::{BoneTransform, Material, Mdl};
use std::fmt::Write as _;
use std::path::Path;
use test_support::{bounds, hash};

fn summary(bytes: &[u8]) -> String {
    let (doc, warnings) = match Mdl::from_bytes_with_warnings(bytes) {
        Ok(ok) => ok,
        Err(e) => return format!("error: {e}\n{}", legacy_summary(bytes)),
    };
    let mut s = String::new();
    let _ = writeln!(s, "version: {}", doc.version);
    let _ = writeln!(s, "bones: {}", doc.bones.len());
    for (i, b) in doc.bones.iter().enumerate() {
        let transform = match &b.transform {
            BoneTransform::Matrix(m) => format!("matrix {}", hash(bytemuck::bytes_of(m))),
            BoneTransform::Trs {
                translation,
                rotation,
                scaling,
            } => format!(
                "T {:?} R {:?} S {:?}",
                <[f32; 3]>::from(*translation),
                <[f32; 4]>::from(*rotation),
                <[f32; 3]>::from(*scaling)
            ),
        };
        let _ = writeln!(
            s,
            "  [{i}] {:?} parent {} order {} {transform}",
            b.name, b.parent, b.rotation_order.0
        );
    }
    let _ = writeln!(s, "meshes: {}", doc.meshes.len());
    for (i, m) in doc.meshes.iter().enumerate() {
        let _ = writeln!(s, "  mesh {i}: {} divided", m.divided.len());
        for (j, d) in m.divided.iter().enumerate() {
            let _ = writeln!(
                s,
                "    divided {j}: {} vertices, {} faces, bounds {}",
                d.vertices.len(),
                d.faces.len(),
                bounds(d.vertices.iter().map(|v| v.position))
            );
            let _ = writeln!(
                s,
                "      hashes: vertices {} faces {}",
                hash(bytemuck::cast_slice(&d.vertices)),
                hash(bytemuck::cast_slice(&d.faces))
            );
            let runs: Vec<(i32, i32)> = d
                .material_runs
                .iter()
                .map(|r| (r.material_index, r.face_count))
                .collect();
            let conns: Vec<i32> = d.connectors.iter().map(|c| c.bone_index).collect();
            let _ = writeln!(
                s,
                "      runs {runs:?} connectors {conns:?} offsets {}",
                hash(bytemuck::cast_slice(&d.connectors))
            );
        }
        for (k, mat) in m.materials.iter().enumerate() {
            let _ = match mat {
                Material::External { path } => writeln!(s, "    material {k}: external {path:?}"),
                Material::Internal {
                    raw_type,
                    color,
                    normal,
                    metalness,
                } => writeln!(
                    s,
                    "    material {k}: type {raw_type} colour {color:?} normal {normal:?} metalness {metalness:?}"
                ),
            };
        }
    }
    let _ = writeln!(s, "animation sources: {}", doc.animation_sources.len());
    for src in &doc.animation_sources {
        let keys: Vec<u8> = src
            .curves
            .iter()
            .flat_map(|c| bytemuck::cast_slice::<_, u8>(&c.keys).iter().copied())
            .collect();
        let targets: Vec<String> = src.curves.iter().map(|c| c.target.to_string()).collect();
        let _ = writeln!(
            s,
            "  {:?}: {} curves, {} keys, keys hash {}, targets hash {}",
            src.name,
            src.curves.len(),
            src.curves.iter().map(|c| c.keys.len()).sum::<usize>(),
            hash(&keys),
            hash(targets.join("\n").as_bytes())
        );
        if let Some(c) = src.curves.first() {
            let _ = writeln!(s, "    first curve {:?}: {:?}", c.target, c.parse_target());
        }
    }
    let _ = writeln!(s, "clips: {}", doc.clips.len());
    for c in &doc.clips {
        let _ = writeln!(s, "  {:?} -> {}", c.name, c.source_index);
    }
    let _ = writeln!(s, "warnings: {}", warnings.len());
    for w in warnings.iter().take(10) {
        let _ = writeln!(s, "  {w}");
    }
    if warnings.len() > 10 {
        let _ = writeln!(s, "  …");
    }
    s
}

/// What the legacy reader sees, for files the stable reader rejects.
fn legacy_summary(bytes: &[u8]) -> String {
    let Ok((doc, warnings)) = mdl_format::LegacyMdl::from_bytes_with_warnings(bytes) else {
        return String::new();
    };
    let mut s = String::from("legacy layout:\n");
    for (i, g) in doc.mesh_groups.iter().enumerate() {
        let _ = writeln!(s, "  group {i}:");
        for m in &g.meshes {
            let _ = writeln!(
                s,
                "    mesh: {} vertices, {} faces, {} runs, {} bone offsets, bounds {}, vertices {}",
                m.vertices.len(),
                m.faces.len(),
                m.material_runs.len(),
                m.bone_offsets.len(),
                bounds(m.vertices.iter().map(|v| v.position)),
                hash(bytemuck::cast_slice(&m.vertices))
            );
        }
        for b in &g.bones {
            let _ = writeln!(
                s,
                "    bone {:?} parent {} order {} local {} inverse global {}",
                b.name,
                b.parent,
                b.rotation_order.0,
                hash(bytemuck::bytes_of(&b.local)),
                hash(bytemuck::bytes_of(&b.inverse_global))
            );
        }
        let _ = writeln!(s, "    materials: {:?}", g.materials);
    }
    for src in &doc.animation_sources {
        let _ = writeln!(
            s,
            "  source {:?}: {} curves, {} keys",
            src.name,
            src.curves.len(),
            src.curves.iter().map(|c| c.keys.len()).sum::<usize>()
        );
    }
    for c in &doc.clips {
        let _ = writeln!(s, "  clip {:?} -> {}", c.name, c.source_index);
    }
    let _ = writeln!(s, "  warnings: {}", warnings.len());
    s
}

#[test]
fn fixture_summaries() {
    insta::glob!("../../../fixtures/mdl", "*.mdl", |path| {
        insta::assert_snapshot!(summary(&std::fs::read(path).unwrap()));
    });
}

#[test]
fn sample_summaries() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../shared/samples/mdl");
    if !dir.is_dir() {
        eprintln!("skipping: {} not found", dir.display());
        return;
    }
    insta::glob!("../../../../shared/samples/mdl", "*.mdl", |path| {
        insta::assert_snapshot!(summary(&std::fs::read(path).unwrap()));
    });
}
