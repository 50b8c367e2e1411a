//! `gltf_import`: the way back on the large static model (1 000 000 vertices, 2 000 000
//! triangles, from `large-models`) of the five formats: its `.glb` (as
//! `gltf_export` writes it) → document (`gltf::read_glb_shared`, as `models convert` reads a
//! file: the scene's arrays are views of the `.glb`, not copies; then
//! `Document::import_scene`: validation and the format's importer). Throughput is counted in
//! bytes of the `.glb`.
//! `read_glb_<format>` is the glTF reading and validation alone (glb → validated scene), the
//! baseline that shows what the import adds; `parse_<format>` is the facade's parse of the
//! source file (the target: import ≤ 3 × parse). While a format has no importer yet, its
//! `<format>` function is left out and a line on stderr says so: only `read_glb_<format>` is
//! measured. See BENCHMARKS.md.

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use models::gltf::{read_glb_shared, to_glb, GltfOptions};
use models::scene::{validate, ImportOptions, Scene};
use models::{Document, Error, Format};
use std::hint::black_box;
use std::sync::Arc;

type Generate = fn() -> Result<Vec<u8>, large_models::Error>;

fn bench(c: &mut Criterion) {
    let formats: [(Format, Generate); 5] = [
        (Format::Smf, large_models::smf::large_static),
        (Format::Bmf, large_models::bmf::large_static),
        (Format::Mdl, large_models::mdl::large_static),
        (Format::Elem, large_models::elem::large_static),
        (Format::Skm, large_models::skm::large_static),
    ];
    let mut g = c.benchmark_group("gltf_import");
    g.sample_size(10);
    let options = ImportOptions::default();
    let filter =
        large_models::bench_filter().filter(|f| formats.iter().any(|(x, _)| f.contains(x.name())));
    for (format, generate) in formats {
        let name = format.name();
        // Generating a large model takes seconds: skip the formats the filter leaves out.
        if filter.as_ref().is_some_and(|f| !f.contains(name)) {
            continue;
        }
        let bytes = generate().expect("the large model generates");
        let doc = models::from_bytes(&bytes).expect("the large model reads");
        let scene = validate(Scene::from_document(&doc).unwrap().scene).scene;
        let glb =
            Arc::new(to_glb(&scene, &GltfOptions::default()).expect("the large model exports"));
        drop((doc, scene));
        // The size, for BENCHMARKS.md: the extras the export keeps weigh on it.
        eprintln!("gltf_import/{name}: .glb of {} bytes", glb.len());
        g.throughput(Throughput::Bytes(glb.len() as u64));
        // The facade's parse of the source file, so that import / parse comes from one run.
        g.bench_function(format!("parse_{name}"), |b| {
            b.iter(|| models::from_bytes(black_box(&bytes)).expect("reads"))
        });
        drop(bytes);
        g.bench_function(format!("read_glb_{name}"), |b| {
            b.iter(|| {
                validate(
                    read_glb_shared(black_box(Arc::clone(&glb)))
                        .expect("reads")
                        .scene,
                )
            })
        });
        let scene = read_glb_shared(Arc::clone(&glb)).expect("reads").scene;
        match Document::import_scene(format, scene, None, &options) {
            Err(Error::ImportUnsupported(_)) => {
                eprintln!(
                    "gltf_import/{name}: no importer for {name} yet; only read_glb_{name} measured"
                );
                continue;
            }
            other => {
                other.expect("the large model imports");
            }
        }
        g.bench_function(name, |b| {
            b.iter(|| {
                let scene = read_glb_shared(black_box(Arc::clone(&glb)))
                    .expect("reads")
                    .scene;
                Document::import_scene(format, scene, None, &options).expect("imports")
            })
        });
    }
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
