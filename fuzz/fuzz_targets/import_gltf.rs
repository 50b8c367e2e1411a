//! Read any bytes as a `.glb` (or a self-contained `.gltf`) into the scene model; when that
//! succeeds, write it back to a glb (the scene the reader made must be one the writer takes).
#![no_main]
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(read) = models::gltf::read_glb(data) else {
        return;
    };
    let _ = models::gltf::to_glb(&models::scene::validate(read.scene).scene, &models::gltf::GltfOptions::default());
});
