//! Profiling aid (not a test): imports the large static model's `.glb` (SMF, BMF or MDL) in a loop,
//! so that `perf record` sees the import alone. `cargo run --release -p models --example
//! import_profile -- smf 10`. The `.glb` is cached in the temporary directory between runs.

use models::gltf::{read_glb, to_glb, GltfOptions};
use models::scene::{validate, ImportOptions, Scene};
use models::{Document, Format};

type Generate = fn() -> Result<Vec<u8>, large_models::Error>;

fn main() {
    let mut args = std::env::args().skip(1);
    let which = args.next().unwrap_or_else(|| "smf".into());
    let runs: usize = args.next().and_then(|n| n.parse().ok()).unwrap_or(10);
    let (format, generate): (Format, Generate) = match which.as_str() {
        "bmf" => (Format::Bmf, large_models::bmf::large_static),
        "mdl" => (Format::Mdl, large_models::mdl::large_static),
        _ => (Format::Smf, large_models::smf::large_static),
    };
    let cache = std::env::temp_dir().join(format!("models-import-profile-{which}.glb"));
    let glb = std::fs::read(&cache).unwrap_or_else(|_| {
        let bytes = generate().expect("generates");
        let doc = models::from_bytes(&bytes).expect("reads");
        let scene = validate(Scene::from_document(&doc).expect("scene").scene).scene;
        let glb = to_glb(&scene, &GltfOptions::default()).expect("exports");
        std::fs::write(&cache, &glb).expect("caches");
        glb.into_vec()
    });
    let options = ImportOptions::default();
    for _ in 0..runs {
        let start = std::time::Instant::now();
        let scene = read_glb(&glb).expect("reads").scene;
        let read = start.elapsed();
        let doc = Document::import_scene(format, scene, None, &options).expect("imports");
        eprintln!("read {read:?}, total {:?}", start.elapsed());
        drop(doc);
    }
}
