//! glTF → ELEM (`scene::to_elem`): every fixture and sample survives
//! `Elem → Scene → .glb → Scene → validate → Elem` as the same canonical text with the same
//! summary; every fixture of every format converts into an ELEM our reader accepts, with every
//! triangle and every joint name; names ELEM cannot hold are refused or replaced by name.

mod common;

use common::through_glb;
use models::elem::{self as elfreina_elem, Elem};
use models::scene::{self, ImportOptions, Scene};
use models::{Document, Error, Format, Model};
use std::path::PathBuf;

fn inputs() -> Vec<PathBuf> {
    let mut files = test_support::fixtures("elem", "elem");
    files.extend(test_support::samples("elem", "elem").unwrap_or_default());
    files
}

/// The scene as it comes back from our own `.glb`.
fn import(scene: &scene::ValidScene, base: Option<&Document>) -> (Elem, Vec<String>) {
    let (doc, warnings) =
        common::import_as(Format::Elem, scene, base, &ImportOptions::default()).unwrap();
    match doc {
        Document::Elem(e) => (e, warnings),
        other => panic!("not an ELEM: {:?}", other.format()),
    }
}

/// The written text, read back by the format's own reader (which must accept it).
fn written(doc: &Elem, name: &str) -> String {
    let bytes = doc
        .to_bytes()
        .unwrap_or_else(|e| panic!("{name}: write: {e}"));
    Elem::from_bytes(&bytes).unwrap_or_else(|e| panic!("{name}: read back: {e}"));
    String::from_utf8(bytes).unwrap()
}

#[test]
fn every_fixture_and_sample_comes_back_as_the_same_text() {
    let files = inputs();
    assert!(files.len() >= 4, "fixtures missing");
    let mut failures = Vec::new();
    for path in files {
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        let bytes = std::fs::read(&path).unwrap();
        let original = Elem::from_bytes(&bytes).unwrap();
        let doc = Document::Elem(original.clone());
        let (back, _) = import(&through_glb(&doc), None);
        let canonical = String::from_utf8(original.to_bytes().unwrap()).unwrap();
        let text = written(&back, &name);
        if text != canonical {
            let (i, (a, b)) = text
                .lines()
                .zip(canonical.lines())
                .enumerate()
                .find(|(_, (a, b))| a != b)
                .unwrap_or((0, ("(length)", "(length)")));
            failures.push(format!("{name}: line {}: {a:?} instead of {b:?}", i + 1));
            continue;
        }
        let back = Document::Elem(back);
        assert_eq!(back.summary(), doc.summary(), "{name}: summary");
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn every_fixture_of_every_format_converts_into_elem() {
    for (format, ext) in [
        ("smf", "smf"),
        ("bmf", "bmf"),
        ("mdl", "mdl"),
        ("elem", "elem"),
        ("skm", "skm"),
    ] {
        for path in test_support::fixtures(format, ext) {
            let name = path.file_name().unwrap().to_string_lossy().into_owned();
            let doc = models::from_bytes(&std::fs::read(&path).unwrap()).unwrap();
            let conversion = Scene::from_document(&doc).unwrap();
            let triangles: usize = conversion
                .scene
                .meshes
                .iter()
                .flat_map(|m| &m.primitives)
                .map(|p| p.indices.len() / 3)
                .sum();
            let mut joints: Vec<String> = conversion
                .scene
                .skins
                .iter()
                .flat_map(|s| {
                    s.joints
                        .iter()
                        .map(|&j| conversion.scene.nodes[j].name.clone())
                })
                .collect();
            let imported = Document::import_scene(
                Format::Elem,
                conversion.scene,
                None,
                &ImportOptions::default(),
            )
            .unwrap_or_else(|e| panic!("{name}: {e}"));
            let Document::Elem(elem) = imported.document else {
                panic!("{name}: not an ELEM");
            };
            let back = Elem::parse(&written(&elem, &name)).unwrap();
            let back_triangles: usize = back
                .containers()
                .iter()
                .flat_map(|c| &c.meshes)
                .map(|m| m.triangle_count())
                .sum();
            assert_eq!(back_triangles, triangles, "{name}: triangles");
            let mut back_joints: Vec<String> = back
                .containers()
                .iter()
                .flat_map(|c| c.bone_names.iter().cloned())
                .collect();
            joints.sort();
            back_joints.sort();
            assert_eq!(back_joints, joints, "{name}: joint names");
        }
    }
}

#[test]
fn names_elem_cannot_hold_are_refused_or_replaced() {
    let path = &test_support::fixtures("elem", "elem")[0];
    let doc = models::from_bytes(&std::fs::read(path).unwrap()).unwrap();
    let mut scene = Scene::from_document(&doc).unwrap().scene;
    scene.meshes[0].name = "a\"b".into();
    let valid = scene::validate(scene.clone()).scene;
    match Document::from_scene(Format::Elem, &valid, None, &ImportOptions::default()) {
        Err(Error::FormatLimit { format, place, .. }) => {
            assert_eq!(format, Format::Elem);
            assert!(place.contains("a\\\"b"), "{place}");
        }
        other => panic!("expected FormatLimit, got {:?}", other.map(|_| ())),
    }
    let options = ImportOptions {
        replace_bad_names: true,
        ..ImportOptions::default()
    };
    let out = Document::from_scene(Format::Elem, &valid, None, &options).unwrap();
    assert!(out
        .warnings
        .iter()
        .any(|w| w.to_string().contains("written as \"a_b\"")));
    let Document::Elem(elem) = out.document else {
        panic!("not an ELEM")
    };
    let back = Elem::parse(&written(&elem, "replaced")).unwrap();
    assert_eq!(back.containers()[0].meshes[0].name.as_deref(), Some("a_b"));
}

#[test]
fn an_edited_position_comes_back_as_the_scene_says() {
    let path = test_support::fixtures("elem", "elem")
        .into_iter()
        .find(|p| p.ends_with("skinned_animated.elem"))
        .unwrap();
    let doc = models::from_bytes(&std::fs::read(&path).unwrap()).unwrap();
    let mut scene = Scene::from_document(&doc).unwrap().scene;
    // Mirrored back: scene z 0.5 is file z -0.5.
    scene.meshes[0].vertices.positions[1] = [0.125, 0.0, 0.5];
    let (back, _) = import(&scene::validate(scene).scene, None);
    assert_eq!(
        back.containers()[0].meshes[0].positions[1],
        [0.125, 0.0, -0.5]
    );
    let _ = elfreina_elem::UV_SETS;
}

/// A mesh whose kept `f64` rows pass 1 KiB keeps them as a blob (a buffer view named in the
/// extras, issue 18) and still comes back as the same text through a `.glb`.
#[test]
fn kept_rows_of_a_larger_mesh_come_back_through_a_buffer_view() {
    let g = large_models::geometry::tori(1, 16, 8, 0.0);
    let bytes = large_models::elem::static_from(&g).unwrap();
    let original = Elem::from_bytes(&bytes).unwrap();
    let doc = Document::Elem(original.clone());
    let scene = through_glb(&doc);
    let mesh = scene.meshes.first().expect("one mesh");
    let normals = &mesh.extras["elem_normals"]["values"];
    assert!(
        normals.get("bufferView").is_some_and(|v| v.is_u64()),
        "{normals}"
    );
    assert!(!scene.blobs.is_empty());
    let (back, _) = import(&scene, None);
    let canonical = String::from_utf8(original.to_bytes().unwrap()).unwrap();
    assert_eq!(written(&back, "tori"), canonical);
}
