//! Vertex colours kept as bytes ([`Colors::Bytes`], as SMF and MDL store them) and the same
//! colours as floats ([`Colors::Floats`] of `b / 255`) are the same colours to every format
//! writer: the writers' byte paths (copied as they are) and float paths (rounded) agree.

use models::scene::{self, Colors, ImportOptions, Scene, SceneOptions};
use models::{Document, Format};

#[test]
fn byte_and_float_colours_write_the_same_files() {
    let options = ImportOptions {
        replace_bad_names: true,
        ..ImportOptions::default()
    };
    let mut checked = 0;
    for fmt in ["smf", "mdl"] {
        for path in test_support::fixtures(fmt, fmt) {
            let name = path.display().to_string();
            let doc = models::open(&path).unwrap();
            let bytes = Scene::from_document_with(&doc, &SceneOptions::default())
                .unwrap()
                .scene;
            let has_bytes = |s: &Scene| {
                (s.meshes.iter()).any(|m| matches!(m.vertices.colors, Some(Colors::Bytes(_))))
            };
            if !has_bytes(&bytes) {
                continue;
            }
            let mut floats = bytes.clone();
            for m in &mut floats.meshes {
                let as_floats = m
                    .vertices
                    .colors
                    .as_ref()
                    .map(|c| c.to_floats().into_owned());
                m.vertices.colors = as_floats.map(|c| Colors::Floats(c.into()));
            }
            assert!(!has_bytes(&floats));
            for target in [Format::Smf, Format::Mdl, Format::Elem] {
                let write = |s: &Scene| {
                    let valid = scene::validate(s.clone()).scene;
                    let out = Document::from_scene(target, &valid, None, &options)
                        .unwrap_or_else(|e| panic!("{name} → {target:?}: {e}"));
                    out.document.to_bytes().unwrap()
                };
                assert!(
                    write(&bytes) == write(&floats),
                    "{name} → {target:?}: byte and float colours give different files"
                );
            }
            checked += 1;
        }
    }
    // Every SMF and MDL fixture with vertex colours (SMF's and MDL's all have them).
    assert!(checked >= 6, "{checked}");
}
