//! Snapshot summaries of every fixture and sample: counts, bounds, hashes of each array, the
//! scope list and the warnings. Never whole arrays.

use elfreina_elem::Model as _;
use std::fmt::Write;
use std::path::Path;

use elfreina_elem::{Elem, Tree};
use test_support::{bounds, hash};

fn f64_hash<T: bytemuck::Pod>(values: &[T]) -> String {
    hash(bytemuck::cast_slice(values))
}

fn summary(bytes: &[u8]) -> String {
    let mut s = String::new();
    let tree = match Tree::from_bytes(bytes) {
        Ok(t) => t,
        Err(e) => return format!("error: {e}\n"),
    };
    let top: Vec<&str> = tree.items.iter().map(|i| i.name()).collect();
    let _ = writeln!(
        s,
        "bom: {}, line ending: {:?}, version: {}",
        tree.bom, tree.line_ending, tree.version.text
    );
    let _ = writeln!(s, "top level: {top:?}");
    let (doc, warnings) = match Elem::from_bytes_with_warnings(bytes) {
        Ok(x) => x,
        Err(e) => return format!("{s}error: {e}\n"),
    };
    let _ = writeln!(
        s,
        "setting: {:?} {:?} {:?} {:?}",
        doc.setting.soft_version,
        doc.setting.beta_version,
        doc.setting.load_type,
        doc.setting.is_right_hand
    );
    for c in doc.containers() {
        let _ = writeln!(
            s,
            "container {:?}: vertex format {:?}, bones {:?}, offset matrices {}",
            c.name,
            c.vertex_format,
            c.bone_names,
            f64_hash(&c.offset_matrices)
        );
        for m in c.material_list() {
            let _ = writeln!(
                s,
                "  material {:?}: diffuse {:?} sharpness {:?} texture {:?}",
                m.name, m.diffuse, m.specular_sharpness, m.texture_filename
            );
        }
        for m in &c.meshes {
            let pts = m.positions.iter().map(|p| p.map(|v| v as f32));
            let _ = writeln!(
                s,
                "  mesh {:?}: {} vertices, {} faces ({} triangles), bounds {}",
                m.name,
                m.vertex_count(),
                m.face_count(),
                m.triangle_count(),
                bounds(pts)
            );
            let _ = writeln!(
                s,
                "    positions {} normals {} ({}) diffuse {} ({})",
                f64_hash(&m.positions),
                f64_hash(&m.normals),
                m.normals.len(),
                f64_hash(&m.diffuse),
                m.diffuse.len()
            );
            for (i, uv) in m.uv_sets.iter().enumerate().filter(|(_, u)| !u.is_empty()) {
                let _ = writeln!(s, "    uv set {i}: {} rows {}", uv.len(), f64_hash(uv));
            }
            let _ = writeln!(
                s,
                "    faces {} {} attributes {:?}",
                f64_hash(&m.face_sizes.to_vec()),
                f64_hash(&m.face_indices),
                m.attributes
            );
            for p in &m.blend_list.parts {
                let _ = writeln!(
                    s,
                    "    blend part {:?} index {:?}: {} vertices",
                    p.bone_name,
                    p.transform_index,
                    p.vertex_blends.len()
                );
            }
        }
    }
    for (parent, node) in doc.hierarchy.flatten() {
        let _ = writeln!(
            s,
            "node {:?} parent {parent:?} posture {}",
            node.name,
            node.init_posture.map_or("-".into(), |m| f64_hash(&m))
        );
    }
    for r in doc.rendering_meshes() {
        let _ = writeln!(s, "rendering mesh {:?}: {:?}", r.name, r.hierarchy_names);
    }
    for a in doc.animations() {
        let _ = writeln!(
            s,
            "animation {:?}: {:?} ms, {:?} fps, transition {:?}, priority {:?}, loop {:?}",
            a.name, a.time_ms, a.frames_per_second, a.transition_time, a.priority, a.looped
        );
        for p in &a.bone_animation.parts {
            let _ = writeln!(
                s,
                "  bone part {:?}: {} keys, interpolation {:?}, rotations {}",
                p.node_name,
                p.time_keys.len(),
                p.interpolation_type,
                f64_hash(&p.rotate_keys)
            );
        }
        for p in &a.uv_animation.parts {
            let _ = writeln!(
                s,
                "  uv part {:?}/{:?}: {} keys",
                p.mesh_container_name,
                p.material_name,
                p.time_keys.len()
            );
        }
    }
    for w in &warnings {
        let _ = writeln!(s, "warning: {w}");
    }
    let _ = writeln!(
        s,
        "canonical rewrite: {}",
        doc.to_bytes().map_or_else(|e| e.to_string(), |b| hash(&b))
    );
    s
}

#[test]
fn fixture_summaries() {
    insta::glob!("../../../fixtures/elem", "*.elem", |path| {
        insta::assert_snapshot!(summary(&std::fs::read(path).unwrap()));
    });
}

#[test]
fn sample_summaries() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../shared/samples/elem");
    if !dir.is_dir() {
        eprintln!("skipping: {} not found", dir.display());
        return;
    }
    insta::glob!("../../../../shared/samples/elem", "*.elem", |path| {
        insta::assert_snapshot!(summary(&std::fs::read(path).unwrap()));
    });
}
