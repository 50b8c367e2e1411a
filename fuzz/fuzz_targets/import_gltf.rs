//! Read any bytes as a `.glb` (or a self-contained `.gltf`) into the scene model; when that
//! succeeds, write it back to a glb (the scene the reader made must be one the writer takes),
//! and import it as SMF (a document or an error, never a panic), alone and onto three fixtures
//! as `--base` (whose meshes the scene's may match: `scene/weld.rs`; and the skinned, animated
//! one's skeleton and clip: `scene/weld/skeleton.rs`), and write that.
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
    let Ok(read) = models::gltf::read_glb(data) else {
        return;
    };
    let valid = validate(read.scene).scene;
    let _ = models::gltf::to_glb(&valid, &models::gltf::GltfOptions::default());
    let options = ImportOptions::default();
    for base in std::iter::once(None).chain(bases().iter().map(Some)) {
        if let Ok(out) = Document::from_scene(Format::Smf, &valid, base, &options) {
            let _ = out.document.to_bytes();
        }
    }
});
