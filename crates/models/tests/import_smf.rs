//! glTF → SMF (`scene::to_smf`): every fixture and sample survives
//! `Smf → Scene → .glb → Scene → validate → Smf` with the same summary and the same geometry,
//! patching an unedited export onto its base gives the base byte for byte, and the format's
//! limits (names, bones per mesh, 16-bit indices) are kept or refused by name.

use models::gltf::{self, GltfOptions};
use models::scene::{self, ImportOptions, Scene, SceneOptions};
use models::smf as selene_smf;
use models::{Document, Format, Model};
use selene_smf::Smf;
use std::path::PathBuf;

fn inputs() -> Vec<PathBuf> {
    let mut files = test_support::fixtures("smf", "smf");
    files.extend(test_support::samples("smf", "smf").unwrap_or_default());
    files
}

fn smf_of(doc: &Document) -> &Smf {
    match doc {
        Document::Smf(s) => s,
        other => panic!("not an SMF: {:?}", other.format()),
    }
}

/// The scene as it comes back from our own `.glb`.
fn through_glb(doc: &Document) -> scene::ValidScene {
    let scene = Scene::from_document_with(doc, &SceneOptions::default())
        .unwrap()
        .scene;
    let glb = gltf::to_glb(&scene, &GltfOptions::default()).unwrap();
    let read = gltf::read_glb(&glb).unwrap();
    scene::validate(read.scene).scene
}

fn import(scene: &scene::ValidScene, base: Option<&Document>) -> (Smf, Vec<String>) {
    let out = Document::from_scene(Format::Smf, scene, base, &ImportOptions::default()).unwrap();
    let warnings = out.warnings.iter().map(|w| w.0.clone()).collect();
    match out.document {
        Document::Smf(s) => (s, warnings),
        other => panic!("not an SMF: {:?}", other.format()),
    }
}

fn close(a: f32, b: f32, tol: f32) -> bool {
    a.to_bits() == b.to_bits() || (a - b).abs() <= tol || (a.is_nan() && b.is_nan())
}

fn assert_close(name: &str, what: &str, a: &[f32], b: &[f32], tol: f32) {
    assert_eq!(a.len(), b.len(), "{name}: {what} length");
    for (k, (x, y)) in a.iter().zip(b).enumerate() {
        assert!(close(*x, *y, tol), "{name}: {what}[{k}]: {x} vs {y}");
    }
}

/// Compares the geometry, skin and keys of two documents.
fn assert_same_data(name: &str, a: &Smf, b: &Smf) {
    assert_eq!(a.meshes.len(), b.meshes.len(), "{name}: meshes");
    for (m, (x, y)) in a.meshes.iter().zip(&b.meshes).enumerate() {
        let n = format!("{name} mesh {m}");
        let pos = |s: &selene_smf::Mesh| -> Vec<f32> {
            s.vertices.iter().flat_map(|v| v.position).collect()
        };
        // A sign flip there and back: bit-exact.
        assert_close(&n, "positions", &pos(x), &pos(y), 0.0);
        let colors = |s: &selene_smf::Mesh| s.vertices.iter().map(|v| v.bgra).collect::<Vec<_>>();
        assert_eq!(colors(x), colors(y), "{n}: colours");
        let normals = |s: &selene_smf::Mesh| -> Vec<f32> {
            s.normals.iter().flatten().flat_map(|v| v.0).collect()
        };
        assert_close(&n, "normals", &normals(x), &normals(y), 2e-7);
        assert_eq!(x.uvs, y.uvs, "{n}: uvs");
        assert_eq!(x.tangents, y.tangents, "{n}: tangents");
        assert_eq!(x.indices, y.indices, "{n}: indices");
        assert_eq!(x.blend, y.blend, "{n}: weights");
        assert_eq!(x.bones, y.bones, "{n}: bones");
        assert_eq!(x.obb, y.obb, "{n}: obb");
        assert_eq!(x.collision_faces, y.collision_faces, "{n}: collision");
        assert_eq!(x.collision_vertices, y.collision_vertices, "{n}: collision");
        assert_eq!(x.collision_runs, y.collision_runs, "{n}: collision");
        assert_eq!(x.unknown, y.unknown, "{n}: unknown chunks");
        for (k, (p, q)) in x.materials.iter().zip(&y.materials).enumerate() {
            let mut q = q.clone();
            q.name = p.name.clone();
            assert_eq!(p, &q, "{n} material {k}");
        }
    }
    assert_eq!(a.frames.len(), b.frames.len(), "{name}: frames");
    for (f, (x, y)) in a.frames.iter().zip(&b.frames).enumerate() {
        let n = format!("{name} frame {f}");
        assert_eq!(x.name.text(), y.name.text(), "{n}: name");
        assert_eq!((x.mesh, x.parent), (y.mesh, y.parent), "{n}: mesh, parent");
        assert_close(&n, "transform", &x.transform, &y.transform, 1e-5);
        assert_eq!(x.obb, y.obb, "{n}: obb");
        assert_eq!(x.unknown, y.unknown, "{n}: unknown");
    }
    assert_eq!(
        a.animation_sets.len(),
        b.animation_sets.len(),
        "{name}: sets"
    );
    for (s, (x, y)) in a.animation_sets.iter().zip(&b.animation_sets).enumerate() {
        let n = format!("{name} set {s}");
        assert_eq!(x.last_time, y.last_time, "{n}: last time");
        assert_eq!(x.unknown, y.unknown, "{n}: unknown");
        assert_eq!(x.animations.len(), y.animations.len(), "{n}: ANIs");
        for (p, q) in x.animations.iter().zip(&y.animations) {
            assert_eq!(p.target_frame, q.target_frame, "{n}: target");
            assert_eq!(p.scale_keys, q.scale_keys, "{n}: scale keys");
            assert_eq!(
                p.translation_keys, q.translation_keys,
                "{n}: translation keys"
            );
            assert_eq!(
                p.rotation_keys.len(),
                q.rotation_keys.len(),
                "{n}: rotation keys"
            );
            for (r, t) in p.rotation_keys.iter().zip(&q.rotation_keys) {
                assert_eq!(r.time, t.time, "{n}: rotation key time");
                // q and −q are the same rotation (the export makes the keys continuous).
                let neg = t.value.map(|v| -v);
                let same = |o: &[f32; 4]| r.value.iter().zip(o).all(|(a, b)| close(*a, *b, 2e-7));
                assert!(
                    same(&t.value) || same(&neg),
                    "{n}: rotation {:?} vs {:?}",
                    r.value,
                    t.value
                );
            }
        }
    }
}

#[test]
fn every_fixture_and_sample_round_trips_through_gltf() {
    let mut checked = 0;
    for path in inputs() {
        let name = path.display().to_string();
        let doc = models::open(&path).unwrap();
        let (back, warnings) = import(&through_glb(&doc), None);
        for w in &warnings {
            eprintln!("{name}: {w}");
        }
        let again = Document::Smf(back.clone());
        assert_eq!(again.summary(), doc.summary(), "{name}: summary");
        assert_same_data(&name, smf_of(&doc), &back);
        // And it is a file the reader takes.
        let bytes = back.to_bytes().unwrap();
        Smf::from_bytes(&bytes).unwrap_or_else(|e| panic!("{name}: {e}"));
        checked += 1;
    }
    assert!(checked >= 5, "only {checked} files");
}
