//! Write throughput on a large generated model (~262k vertices).

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use std::hint::black_box;

mod common;

fn bench(c: &mut Criterion) {
    let doc = common::large_model(512, 16);
    let size = doc
        .to_bytes()
        .expect("the generated model is writable")
        .len();
    let mut group = c.benchmark_group("skm_write");
    group.throughput(Throughput::Bytes(size as u64));
    group.sample_size(10);
    group.bench_function("serialize", |b| {
        b.iter(|| black_box(&doc).to_bytes().expect("writable"))
    });
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
