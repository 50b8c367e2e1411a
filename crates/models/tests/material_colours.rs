//! Material colour factors outside 0..1 or not finite (issue 13: every repair once, in
//! `scene::validate`): the converters pass them through as written, validation clamps them with
//! one warning naming the material, and the way back (source → `.glb` → source) gives the
//! file's colours back exactly from the extras the export keeps (`bmf_colours`, `skm_colours`,
//! `elem_material`). Every model here is built in the test.

mod common;

use models::scene::{self, ImportOptions, Scene};
use models::{bmf, Document, Format, Model};

/// A NaN with a payload: only kept bits give it back.
const ODD_NAN: u32 = 0x7fc0_1234;

/// The colour warnings of `doc`'s conversion and validation: none from the converter, the
/// validation ones returned.
fn colour_warnings(doc: &Document) -> Vec<String> {
    let conv = Scene::from_document(doc).unwrap();
    for w in &conv.warnings {
        let w = w.to_string();
        assert!(
            !w.contains("clamp") && !w.contains("0..1"),
            "the converter repairs: {w}"
        );
    }
    let valid = scene::validate(conv.scene);
    let said: Vec<String> = valid.warnings.iter().map(ToString::to_string).collect();
    said.into_iter()
        .filter(|w| w.contains("colour factor"))
        .collect()
}

/// `doc` → scene → validate → `.glb` → scene → validate → `format`.
fn back(doc: &Document, format: Format) -> Document {
    let valid = common::through_glb(doc);
    common::import_as(format, &valid, None, &ImportOptions::default())
        .unwrap()
        .0
}

#[test]
fn bmf_colours_are_repaired_by_validation_and_come_back_exactly() {
    let vertex = |position| bmf::Vertex {
        position,
        normal: [0.0, 0.0, -1.0],
        uv: [0.0, 0.0],
    };
    let vertices = vec![
        vertex([0.0, 0.0, 0.0]),
        vertex([1.0, 0.0, 0.0]),
        vertex([0.0, 1.0, 0.0]),
    ];
    let nan = f32::from_bits(ODD_NAN);
    let material = bmf::Material {
        start_index: 0,
        index_count: 3,
        diffuse: [2.0, nan, -0.5, 1.0].into(),
        specular: [0.5, f32::INFINITY, 0.5, 0.4].into(),
        ambient: [0.5, 0.5, 0.5, 1.0].into(),
        emissive: [1.5, 0.0, 0.25, nan].into(),
        texture: bmf::TextureName::new(""),
    };
    let bytes = common::plain_bmf(vertices, vec![0, 1, 2], vec![material]);
    let doc = models::from_bytes(&bytes).unwrap();
    let said = colour_warnings(&doc);
    assert_eq!(said.len(), 1, "{said:#?}");
    assert!(
        said[0].starts_with("material 0 \"mesh0_material0\": 4 colour factor"),
        "{said:?}"
    );
    let Document::Bmf(out) = back(&doc, Format::Bmf) else {
        panic!("not a BMF")
    };
    assert!(
        out.to_bytes().unwrap() == bytes,
        "not byte-identical: {:?}",
        out.meshes[0].materials
    );
}

#[test]
fn skm_colours_are_repaired_by_validation_and_come_back_exactly() {
    let path = test_support::workspace_root().join("fixtures/skm/cube_static.skm");
    let Document::Skm(mut skm) = models::open(&path).unwrap() else {
        panic!("not an SKM")
    };
    let m = &mut skm.materials[0];
    m.diffuse = [f32::NAN, 1.25, -0.5, 0.5];
    m.emissive = [2.0, 0.0, f32::NEG_INFINITY, 1.0];
    m.power = f32::NAN;
    let text = skm.to_bytes().unwrap();
    let doc = models::from_bytes(&text).unwrap();
    let said = colour_warnings(&doc);
    assert_eq!(said.len(), 1, "{said:#?}");
    assert!(
        said[0].starts_with("material 0 \"material_0\": 5 colour factor"),
        "{said:?}"
    );
    let out = back(&doc, Format::Skm);
    assert_eq!(out.to_bytes().unwrap(), text, "not the same text");
}

#[test]
fn elem_colours_are_repaired_by_validation_and_come_back_exactly() {
    let path = test_support::workspace_root().join("fixtures/elem/static_textured.elem");
    let fixture = String::from_utf8(test_support::read(&path)).unwrap();
    let edited = fixture
        .replace("Diffuse=1:0.9:0.85:0.7", "Diffuse=-1:1.5:1.#QNAN:0.7")
        .replace("Emissive=1:0:0:0", "Emissive=1:2:0:-0.25");
    assert_ne!(edited, fixture, "the fixture changed: edit the test");
    let doc = models::from_bytes(edited.as_bytes()).unwrap();
    let text = doc.to_bytes().unwrap();
    let said = colour_warnings(&doc);
    assert_eq!(said.len(), 1, "{said:#?}");
    assert!(
        said[0].starts_with("material 0 \"crate\": 5 colour factor"),
        "{said:?}"
    );
    let out = back(&doc, Format::Elem);
    assert_eq!(
        String::from_utf8_lossy(&out.to_bytes().unwrap()),
        String::from_utf8_lossy(&text)
    );
}
