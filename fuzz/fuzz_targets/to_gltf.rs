//! Read any format, build the scene, write a glb (no source path: textures are referred to by
//! URI, never read from disk).
#![no_main]
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(doc) = models::from_bytes(data) else {
        return;
    };
    let Ok(conversion) = models::scene::Scene::from_document(&doc) else {
        return;
    };
    let _ = models::gltf::to_glb(
        &models::scene::validate(conversion.scene).scene,
        &models::gltf::GltfOptions::default(),
    );
});
