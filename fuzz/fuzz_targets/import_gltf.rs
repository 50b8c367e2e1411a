//! Read any bytes as a `.glb` (or a self-contained `.gltf`) into the scene model, copied and in
//! place (the two must agree); when that
//! succeeds, write it back to a glb (the scene the reader made must be one the writer takes),
//! and import it into each of the five formats (a document or an error, never a panic), and
//! into SMF also onto three fixtures as `--base` (whose meshes the scene's may match:
//! `scene/weld.rs`; and the skinned, animated one's skeleton and clip:
//! `scene/weld/skeleton.rs`), and write each document made. A finding is a panic, or a written
//! file its own format's reader refuses (the readers hold the engines' rules: such a file is a
//! mod that crashes the old game).
#![no_main]
use libfuzzer_sys::fuzz_target;
use models::scene::{validate, ImportOptions};
use models::{Document, Format};
use std::sync::OnceLock;

/// The bases: the SMF fixtures whose export the seeds hold (meshes "No Name" and "立方体"), and
/// the skinned, animated one.
fn bases() -> &'static [Document] {
    static BASES: OnceLock<Vec<Document>> = OnceLock::new();
    BASES.get_or_init(|| {
        [
            &include_bytes!("../../fixtures/smf/collision_box.smf")[..],
            &include_bytes!("../../fixtures/smf/textured_materials.smf")[..],
            &include_bytes!("../../fixtures/smf/skinned_animated.smf")[..],
        ]
        .into_iter()
        .map(|bytes| models::from_bytes(bytes).expect("the fixtures read"))
        .collect()
    })
}

fuzz_target!(|data: &[u8]| {
    // Read twice: copied, and in place (the scene's arrays views of the input, as `models
    // convert` reads a file). Both must give the same scene or the same error.
    let shared = models::gltf::read_glb_shared(models::Bytes::copy_from_slice(data));
    let copied = models::gltf::read_glb(data);
    match (&shared, &copied) {
        (Ok(a), Ok(b)) => assert_eq!(a, b, "read in place and copied differ"),
        (Err(a), Err(b)) => assert_eq!(a.to_string(), b.to_string()),
        _ => panic!(
            "read in place: {:?}; copied: {:?}",
            shared.is_ok(),
            copied.is_ok()
        ),
    }
    let Ok(read) = shared else {
        return;
    };
    let valid = validate(read.scene).scene;
    let _ = models::gltf::to_glb(&valid, &models::gltf::GltfOptions::default());
    let options = ImportOptions::default();
    let alone = Format::ALL.iter().map(|&format| (format, None));
    let onto_bases = bases().iter().map(|base| (Format::Smf, Some(base)));
    for (format, base) in alone.chain(onto_bases) {
        if let Ok(out) = Document::from_scene(format, &valid, base, &options) {
            if let Ok(bytes) = out.document.to_bytes() {
                if let Err(e) = Document::parse_as(format, &bytes) {
                    panic!("{format:?}: the written file does not read back: {e}");
                }
            }
        }
    }
});
