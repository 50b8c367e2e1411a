//! Read any bytes as a `.glb` (or a self-contained `.gltf`) into the scene model; when that
//! succeeds, write it back to a glb (the scene the reader made must be one the writer takes),
//! and import it as SMF (a document or an error, never a panic) and write that.
#![no_main]
use libfuzzer_sys::fuzz_target;
use models::scene::{validate, ImportOptions};
use models::{Document, Format};

fuzz_target!(|data: &[u8]| {
    let Ok(read) = models::gltf::read_glb(data) else {
        return;
    };
    let valid = validate(read.scene).scene;
    let _ = models::gltf::to_glb(&valid, &models::gltf::GltfOptions::default());
    if let Ok(out) = Document::from_scene(Format::Smf, &valid, None, &ImportOptions::default()) {
        let _ = out.document.to_bytes();
    }
});
