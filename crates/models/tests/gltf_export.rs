//! Every fixture and every real sample converted to `.glb`, read back with the `gltf` crate and
//! checked against the scene it came from and the document's [`Summary`](models::Summary).
//!
//! The Khronos validator itself runs in `cargo xtask validate-gltf` (it needs node).

use models::gltf::{to_glb_with_warnings, GltfOptions};
use models::scene::{Scene, SceneOptions};
use std::path::{Path, PathBuf};

const FORMATS: [&str; 5] = ["bmf", "smf", "mdl", "elem", "skm"];

/// What a `.glb` holds, in the Summary's terms.
#[derive(Debug, Default, PartialEq)]
struct Figures {
    meshes: usize,
    vertices: usize,
    triangles: usize,
    materials: usize,
    joints: usize,
    max_skin_joints: usize,
    animations: usize,
    durations: Vec<f32>,
}

fn glb_figures(glb: &[u8]) -> Figures {
    let g = gltf::Gltf::from_slice(glb).expect("the gltf crate reads the GLB");
    let blob = g.blob.clone().unwrap_or_default();
    let doc = &g.document;
    assert_eq!(doc.scenes().count(), 1);
    let mut f = Figures {
        meshes: doc.meshes().count(),
        materials: doc.materials().count(),
        joints: doc.skins().map(|s| s.joints().count()).sum(),
        max_skin_joints: doc.skins().map(|s| s.joints().count()).max().unwrap_or(0),
        animations: doc.animations().count(),
        ..Figures::default()
    };
    for mesh in doc.meshes() {
        let mut seen = std::collections::HashSet::new();
        for prim in mesh.primitives() {
            let pos = prim.get(&gltf::Semantic::Positions).expect("POSITION");
            assert!(
                pos.min().is_some() && pos.max().is_some(),
                "POSITION min/max"
            );
            if seen.insert(pos.index()) {
                f.vertices += pos.count();
            }
            let reader = prim.reader(|_| Some(blob.as_slice()));
            let indices: Vec<u32> = reader.read_indices().expect("indexed").into_u32().collect();
            assert!(indices.iter().all(|&i| (i as usize) < pos.count()));
            f.triangles += indices.len() / 3;
            if let Some(weights) = reader.read_weights(0) {
                for w in weights.into_f32() {
                    let sum: f32 = w.iter().sum();
                    assert!((sum - 1.0).abs() < 1e-5, "weights {w:?}");
                }
            }
            if let Some(normals) = reader.read_normals() {
                for n in normals {
                    let len = (n[0] * n[0] + n[1] * n[1] + n[2] * n[2]).sqrt();
                    assert!((len - 1.0).abs() < 1e-5, "normal {n:?}");
                }
            }
        }
    }
    for anim in doc.animations() {
        let mut duration = 0.0f32;
        for ch in anim.channels() {
            let times: Vec<f32> = ch
                .reader(|_| Some(blob.as_slice()))
                .read_inputs()
                .expect("inputs")
                .collect();
            assert!(times.windows(2).all(|w| w[0] < w[1]), "times increase");
            duration = duration.max(times.last().copied().unwrap_or(0.0));
        }
        f.durations.push(duration);
    }
    f
}

/// The same figures computed from the scene (what the writer should carry over).
fn scene_figures(scene: &Scene) -> Figures {
    let drawn: Vec<_> = scene
        .meshes
        .iter()
        .filter(|m| {
            !m.vertices.positions.is_empty() && m.primitives.iter().any(|p| p.indices.len() >= 3)
        })
        .collect();
    Figures {
        meshes: drawn.len(),
        vertices: drawn.iter().map(|m| m.vertices.positions.len()).sum(),
        triangles: drawn
            .iter()
            .flat_map(|m| &m.primitives)
            .map(|p| p.indices.len() / 3)
            .sum(),
        materials: scene.materials.len(),
        joints: scene.skins.iter().map(|s| s.joints.len()).sum(),
        max_skin_joints: 0,
        animations: scene
            .animations
            .iter()
            .filter(|a| !a.channels.is_empty())
            .count(),
        durations: scene
            .animations
            .iter()
            .filter(|a| !a.channels.is_empty())
            .map(|a| a.duration())
            .collect(),
    }
}

fn all_inputs() -> Vec<PathBuf> {
    let mut files = Vec::new();
    for fmt in FORMATS {
        files.extend(test_support::fixtures(fmt, fmt));
        if let Some(s) = test_support::samples(fmt, fmt) {
            files.extend(s);
        }
    }
    files
}

/// Parses `path`; `None` for the samples that are invalid by design (the MDL 2014 layout).
fn open(path: &Path) -> Option<models::Document> {
    match models::open(path) {
        Ok(doc) => Some(doc),
        Err(e) if test_support::file_name(path).starts_with("altseed_legacy_") => {
            eprintln!("skipping {}: {e}", path.display());
            None
        }
        Err(e) => panic!("{}: {e}", path.display()),
    }
}

#[test]
fn every_fixture_and_sample_converts_and_reads_back_with_the_scene_figures() {
    let mut report = Vec::new();
    for path in all_inputs() {
        let Some(doc) = open(&path) else { continue };
        let conversion = Scene::from_document_with(&doc, &SceneOptions::default()).unwrap();
        let valid = models::scene::validate(conversion.scene.clone());
        let (glb, mut warnings) =
            to_glb_with_warnings(&valid.scene, &GltfOptions::for_source(&path))
                .unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        // Validation's repairs, then the writer's warnings.
        warnings.splice(0..0, valid.warnings);
        let got = glb_figures(&glb);
        let want = scene_figures(&conversion.scene);
        assert_eq!(got.meshes, want.meshes, "{}: meshes", path.display());
        assert_eq!(got.vertices, want.vertices, "{}: vertices", path.display());
        assert_eq!(
            got.triangles,
            want.triangles,
            "{}: triangles",
            path.display()
        );
        assert_eq!(
            got.materials,
            want.materials,
            "{}: materials",
            path.display()
        );
        assert_eq!(got.joints, want.joints, "{}: joints", path.display());
        assert_eq!(
            got.animations,
            want.animations,
            "{}: animations",
            path.display()
        );
        for (g, w) in got.durations.iter().zip(&want.durations) {
            assert!(
                (g - w).abs() < 1e-6,
                "{}: duration {g} vs {w}",
                path.display()
            );
        }
        // The writer must not have had to repair anything structural in a converter's output.
        for w in &warnings {
            assert!(
                !w.to_string().contains("out of range") && !w.to_string().contains("cycle"),
                "{}: {w}",
                path.display()
            );
        }
        report.push((path, doc.summary(), got, conversion.warnings.len()));
    }
    // Against the Summary. Every converter keeps every vertex (unreferenced ones too) and every
    // material; polygons become one or more triangles; an animation none of whose channels can
    // be converted is not written (glTF has no empty animations; the writer warns).
    for (path, s, got, _) in &report {
        eprintln!(
            "{:50} summary: meshes {} vertices {} faces {} materials {} bones {} animations {} \
             | glb: meshes {} vertices {} triangles {} materials {} joints {} animations {} {:?}",
            test_support::file_name(path),
            s.meshes,
            s.vertices,
            s.faces,
            s.materials,
            s.bones,
            s.animations,
            got.meshes,
            got.vertices,
            got.triangles,
            got.materials,
            got.joints,
            got.animations,
            got.durations
        );
        let name = path.display();
        assert_eq!(
            got.vertices as u64, s.vertices,
            "{name}: vertices vs Summary"
        );
        assert_eq!(
            got.materials as u64, s.materials,
            "{name}: materials vs Summary"
        );
        assert!(
            got.triangles as u64 >= s.faces,
            "{name}: triangles vs faces"
        );
        assert!(got.meshes as u64 >= s.meshes.min(1), "{name}: meshes");
        assert!(got.animations as u64 <= s.animations, "{name}: animations");
        assert!(
            got.max_skin_joints as u64 <= s.bones,
            "{name}: joints vs bones"
        );
    }
}

/// The conversion by value (which frees each converted part of the document, issue 18) makes
/// the same scene and the same warnings as the borrowing one, for every fixture and sample.
/// Compared through `Debug`, so that a NaN left in an unvalidated scene compares equal to
/// itself.
#[test]
fn the_owned_conversion_equals_the_borrowing_one() {
    let mut compared = 0;
    for path in all_inputs() {
        let Some(doc) = open(&path) else { continue };
        let options = SceneOptions::default();
        let borrowed = Scene::from_document_with(&doc, &options).unwrap();
        let owned = Scene::from_owned_document_with(doc, &options).unwrap();
        assert_eq!(
            format!("{:?}", owned.scene),
            format!("{:?}", borrowed.scene),
            "{}",
            path.display()
        );
        assert_eq!(owned.warnings, borrowed.warnings, "{}", path.display());
        compared += 1;
    }
    assert!(compared > 10, "only {compared} inputs compared");
}

#[test]
fn vertex_colours_are_bytes_for_smf_and_mdl_and_floats_for_elem() {
    // smf.md and mdl.md: COLOR_0 as normalised u8 (the files store bytes); elem.md: float RGBA
    // (the file's decimals), even where a decimal happens to be a byte / 255.
    let mut seen = std::collections::BTreeMap::new();
    for path in all_inputs() {
        let Some(doc) = open(&path) else { continue };
        let scene = Scene::from_document(&doc).unwrap().scene;
        let glb = models::gltf::to_glb(
            &models::scene::validate(scene).scene,
            &GltfOptions::default(),
        )
        .unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        let g = gltf::Gltf::from_slice(&glb).unwrap();
        let ext = path
            .extension()
            .unwrap()
            .to_string_lossy()
            .to_ascii_lowercase();
        let want = match ext.as_str() {
            "smf" | "mdl" => (gltf::accessor::DataType::U8, true),
            _ => (gltf::accessor::DataType::F32, false),
        };
        for prim in g.document.meshes().flat_map(|m| m.primitives()) {
            if let Some(a) = prim.get(&gltf::Semantic::Colors(0)) {
                let got = (a.data_type(), a.normalized());
                assert_eq!(got, want, "{}: COLOR_0", path.display());
                *seen.entry(ext.clone()).or_insert(0) += 1;
            }
        }
    }
    // The check saw colours of each format that has them.
    for ext in ["smf", "mdl", "elem"] {
        assert!(
            seen.get(ext).is_some_and(|&n| n > 0),
            "no {ext} colours seen: {seen:?}"
        );
    }
}
