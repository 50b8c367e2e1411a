//! `gltf_export`: the large static model of every format (1 000 000 vertices, 2 000 000
//! triangles, from `large-models`), document → glb bytes (scene conversion and glTF writing).
//! Throughput is counted in bytes of the source file, so that it compares with the
//! `<format>_read/parse` figures. `parse_<format>` is the facade's parse of the same bytes, so
//! that the export/parse ratio comes out of one run. `fresh_bytes_baseline_<format>` copies the
//! finished `.glb` into fresh `models::Bytes` of its size (huge pages from 32 MiB on Linux, as
//! `to_glb` writes it), the part of `to_glb` no conversion work can remove;
//! `fresh_glb_baseline_<format>` copies it into a fresh vector instead, what `to_glb` paid
//! before it wrote into `Bytes`. `gltf_export_stream` (into `io::sink()`) and
//! `gltf_export_into` (into a reused vector) are the same export without fresh output memory.
//! See BENCHMARKS.md.

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use models::gltf::{to_glb, GltfOptions};
use models::scene::Scene;
use std::hint::black_box;

type Generate = fn() -> Result<Vec<u8>, large_models::Error>;

fn bench(c: &mut Criterion) {
    let formats: [(&str, Generate); 5] = [
        ("bmf", large_models::bmf::large_static),
        ("smf", large_models::smf::large_static),
        ("mdl", large_models::mdl::large_static),
        ("elem", large_models::elem::large_static),
        ("skm", large_models::skm::large_static),
    ];
    // Generating a large model takes seconds: a filter that names formats generates only those.
    let filter =
        large_models::bench_filter().filter(|f| formats.iter().any(|(x, _)| f.contains(x)));
    let wanted = |name: &str| filter.as_ref().is_none_or(|f| f.contains(name));
    let mut g = c.benchmark_group("gltf_export");
    g.sample_size(10);
    for (name, generate) in formats.into_iter().filter(|(name, _)| wanted(name)) {
        let bytes = generate().expect("the large model generates");
        let doc = models::from_bytes(&bytes).expect("the large model reads");
        let glb = to_glb(
            &models::scene::validate(Scene::from_document(&doc).unwrap().scene).scene,
            &GltfOptions::default(),
        )
        .expect("the large model exports");
        assert_eq!(&glb[..4], b"glTF");
        g.throughput(Throughput::Bytes(bytes.len() as u64));
        g.bench_function(name, |b| {
            b.iter(|| {
                let scene = Scene::from_document(black_box(&doc)).unwrap().scene;
                to_glb(
                    &models::scene::validate(scene).scene,
                    &GltfOptions::default(),
                )
                .expect("exports")
            })
        });
        g.bench_function(format!("parse_{name}"), |b| {
            b.iter(|| models::from_bytes(black_box(&bytes)).expect("reads"))
        });
        // The floor of `to_glb`: the finished `.glb` copied into fresh memory of its size, as
        // `to_glb` allocates it (from 32 MiB on Linux, a mapping advised to huge pages).
        g.bench_function(format!("fresh_bytes_baseline_{name}"), |b| {
            b.iter(|| models::Bytes::copy_from_slice(black_box(&glb)))
        });
        // The same into a fresh vector. Over 32 MiB, glibc maps such a vector anew on every
        // call, so every 4 KiB page of it faults; the parse above reuses its smaller blocks and
        // does not pay this.
        g.bench_function(format!("fresh_glb_baseline_{name}"), |b| {
            b.iter(|| {
                let mut out = Vec::with_capacity(glb.len());
                out.extend_from_slice(black_box(&glb));
                out
            })
        });
        drop(glb);
    }
    g.finish();
    // The same export streamed into `io::sink()` through `write_glb` (the path `write_file`
    // takes for a `.glb`): what the CLI pays apart from the disk, without `to_glb`'s fresh
    // output memory.
    let mut g = c.benchmark_group("gltf_export_stream");
    g.sample_size(10);
    for (name, generate) in formats.into_iter().take(2).filter(|(name, _)| wanted(name)) {
        let bytes = generate().expect("the large model generates");
        let doc = models::from_bytes(&bytes).expect("the large model reads");
        g.throughput(Throughput::Bytes(bytes.len() as u64));
        g.bench_function(name, |b| {
            b.iter(|| {
                let scene = Scene::from_document(black_box(&doc)).unwrap().scene;
                let valid = models::scene::validate(scene).scene;
                let mut out = std::io::BufWriter::new(std::io::sink());
                models::gltf::write_glb(&valid, &GltfOptions::default(), &mut out).expect("exports")
            })
        });
    }
    g.finish();
    // The same export into one output vector reused across iterations (`to_glb_into`), as a
    // long-running process exporting many models would: without clearing fresh output memory
    // (huge pages), which `gltf_export` pays.
    let mut g = c.benchmark_group("gltf_export_into");
    g.sample_size(10);
    for (name, generate) in formats.into_iter().take(3).filter(|(name, _)| wanted(name)) {
        let bytes = generate().expect("the large model generates");
        let doc = models::from_bytes(&bytes).expect("the large model reads");
        let mut glb = Vec::new();
        g.throughput(Throughput::Bytes(bytes.len() as u64));
        g.bench_function(name, |b| {
            b.iter(|| {
                let scene = Scene::from_document(black_box(&doc)).unwrap().scene;
                let valid = models::scene::validate(scene).scene;
                models::gltf::to_glb_into(&valid, &GltfOptions::default(), &mut glb)
                    .expect("exports")
            })
        });
    }
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
