//! glTF → ELEM (`scene::to_elem`): every fixture and sample survives
//! `Elem → Scene → .glb → Scene → validate → Elem` as the same canonical text with the same
//! summary; every fixture of every format converts into an ELEM our reader accepts, with every
//! triangle and every joint name; names ELEM cannot hold are refused or replaced by name.

use models::elem::{self as elfreina_elem, Elem};
use models::gltf::{self, GltfOptions};
use models::scene::{self, ImportOptions, Scene, SceneOptions};
use models::{Document, Error, Format, Model};
use std::path::PathBuf;

fn inputs() -> Vec<PathBuf> {
    let mut files = test_support::fixtures("elem", "elem");
    files.extend(test_support::samples("elem", "elem").unwrap_or_default());
    files
}

/// The scene as it comes back from our own `.glb`.
fn through_glb(doc: &Document) -> scene::ValidScene {
    let scene = Scene::from_document_with(doc, &SceneOptions::default())
        .unwrap()
        .scene;
    let glb = gltf::to_glb(&scene::validate(scene).scene, &GltfOptions::default()).unwrap();
    let read = gltf::read_glb(&glb).unwrap();
    scene::validate(read.scene).scene
}

fn import(scene: &scene::ValidScene, base: Option<&Document>) -> (Elem, Vec<String>) {
    let out = Document::from_scene(Format::Elem, scene, base, &ImportOptions::default()).unwrap();
    let warnings = out.warnings.iter().map(|w| w.0.clone()).collect();
    match out.document {
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
    for path in files {
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        let bytes = std::fs::read(&path).unwrap();
        let original = Elem::from_bytes(&bytes).unwrap();
        let doc = Document::Elem(original.clone());
        let (back, _) = import(&through_glb(&doc), None);
        let canonical = String::from_utf8(original.to_bytes().unwrap()).unwrap();
        assert_eq!(written(&back, &name), canonical, "{name}: text");
        let back = Document::Elem(back);
        assert_eq!(back.summary(), doc.summary(), "{name}: summary");
    }
}
