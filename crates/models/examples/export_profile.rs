//! Profiling aid (not a test): exports the large static model (SMF, BMF or MDL) to `.glb` bytes
//! in a loop, as the `gltf_export` bench does (borrowing conversion, validation, `to_glb`), so
//! that `perf record` or `valgrind --tool=callgrind` sees the export alone, and prints each
//! step's time. `cargo run --release -p models --example export_profile -- bmf 10`.
//!
//! With a third argument `fresh`, it times instead, on one validated scene, `to_glb` (fresh
//! memory: huge pages from 32 MiB on Linux), `to_glb_into` a reused vector, and plain copies
//! of the `.glb` into a fresh vector and into fresh `models::Bytes`, in turn: what the fresh
//! output's page faults cost (BENCHMARKS.md).

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
    if args.next().as_deref() == Some("fresh") {
        fresh_output(&doc, runs);
        return;
    }
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

/// `to_glb` (fresh memory), `to_glb_into` (reused vector) and fresh copies of the `.glb`, in
/// turn, on one validated scene.
fn fresh_output(doc: &models::Document, runs: usize) {
    let valid = validate(Scene::from_document(doc).expect("scene").scene).scene;
    let options = GltfOptions::default();
    let mut reused = Vec::new();
    for _ in 0..runs {
        let start = std::time::Instant::now();
        let glb = to_glb(&valid, &options).expect("exports");
        let fresh = start.elapsed();
        drop(glb);
        let start = std::time::Instant::now();
        models::gltf::to_glb_into(&valid, &options, &mut reused).expect("exports");
        let into = start.elapsed();
        let start = std::time::Instant::now();
        let mut copy = Vec::with_capacity(reused.len());
        copy.extend_from_slice(&reused);
        let copied = start.elapsed();
        drop(copy);
        let start = std::time::Instant::now();
        let copy = models::Bytes::copy_from_slice(&reused);
        let copied_bytes = start.elapsed();
        drop(copy);
        eprintln!(
            "to_glb {fresh:?}, to_glb_into {into:?}, fresh vector copy {copied:?}, \
             fresh Bytes copy {copied_bytes:?}"
        );
    }
}
