//! Profiling aid (not a test): exports the large static ELEM or SKM model to `.glb` bytes in a
//! loop, so that `perf record` sees the export alone (scene conversion, validation, glTF
//! writing), with each stage's time. `cargo run --release -p models --example
//! export_text_profile -- skm 10`.

use models::gltf::{to_glb, GltfOptions};
use models::scene::{validate, Scene};
use std::time::Instant;

fn main() {
    let mut args = std::env::args().skip(1);
    let which = args.next().unwrap_or_else(|| "skm".into());
    let runs: usize = args.next().and_then(|n| n.parse().ok()).unwrap_or(10);
    let bytes = match which.as_str() {
        "elem" => large_models::elem::large_static(),
        _ => large_models::skm::large_static(),
    }
    .expect("generates");
    let doc = models::from_bytes(&bytes).expect("reads");
    for _ in 0..runs {
        let start = Instant::now();
        let scene = Scene::from_document(&doc).expect("scene").scene;
        let converted = start.elapsed();
        let valid = validate(scene).scene;
        let validated = start.elapsed();
        let glb = to_glb(&valid, &GltfOptions::default()).expect("exports");
        let written = start.elapsed();
        drop(valid);
        eprintln!(
            "convert {converted:?}, validate {:?}, write {:?}, total {:?} ({} bytes)",
            validated - converted,
            written - validated,
            start.elapsed(),
            glb.len()
        );
    }
}
