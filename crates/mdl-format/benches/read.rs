//! `mdl_read`: parsing the large static model of `large-models` (1 000 000 vertices,
//! 2 000 000 triangles) against a plain copy of the same bytes into fresh memory (a parser must
//! allocate its output too, so `to_vec` is the floor).
//! `parse_skinned` reads the skinned model (100 000 vertices, 72 bones). See BENCHMARKS.md.

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use mdl_format::Model as _;
use std::hint::black_box;

fn bench(c: &mut Criterion) {
    let bytes = large_models::mdl::large_static().expect("the large model generates");
    let skinned = large_models::mdl::skinned().expect("the skinned model generates");
    let mut g = c.benchmark_group("mdl_read");
    g.sample_size(20);
    g.throughput(Throughput::Bytes(bytes.len() as u64));
    g.bench_function("parse", |b| {
        b.iter(|| mdl_format::Mdl::from_bytes(black_box(&bytes)).expect("parses"))
    });
    g.bench_function("memcpy_baseline", |b| b.iter(|| black_box(&bytes).to_vec()));
    g.throughput(Throughput::Bytes(skinned.len() as u64));
    g.bench_function("parse_skinned", |b| {
        b.iter(|| mdl_format::Mdl::from_bytes(black_box(&skinned)).expect("parses"))
    });
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
