//! Profiling aid (not a test): exports the large static model (SMF, BMF or MDL) to `.glb` bytes
//! in a loop, as the `gltf_export` bench does (borrowing conversion, validation, `to_glb`), so
//! that `perf record` or `valgrind --tool=callgrind` sees the export alone, and prints each
//! step's time. `cargo run --release -p models --example export_profile -- bmf 10`.

use models::gltf::{to_glb, GltfOptions};
use models::scene::{validate, Scene};

type Generate = fn() -> Result<Vec<u8>, large_models::Error>;

fn main() {
    let mut args = std::env::args().skip(1);
    let which = args.next().unwrap_or_else(|| "smf".into());
    let runs: usize = args.next().and_then(|n| n.parse().ok()).unwrap_or(10);
    let generate: Generate = match which.as_str() {
        "bmf" => large_models::bmf::large_static,
        "mdl" => large_models::mdl::large_static,
        _ => large_models::smf::large_static,
    };
    let bytes = generate().expect("generates");
    let doc = models::from_bytes(&bytes).expect("reads");
    for _ in 0..runs {
        let start = std::time::Instant::now();
        let scene = Scene::from_document(&doc).expect("scene").scene;
        let converted = start.elapsed();
        let valid = validate(scene).scene;
        let validated = start.elapsed();
        let glb = to_glb(&valid, &GltfOptions::default()).expect("exports");
        eprintln!(
            "convert {converted:?}, validate {:?}, write {:?} ({} bytes)",
            validated - converted,
            start.elapsed() - validated,
            glb.len()
        );
    }
}
