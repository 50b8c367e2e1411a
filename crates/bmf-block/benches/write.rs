//! Serialisation throughput on the same large generated model.

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use std::hint::black_box;

mod common;

fn bench(c: &mut Criterion) {
    let doc = common::large_model();
    let len = doc.to_bytes().expect("writes").len();
    let mut g = c.benchmark_group("bmf_write");
    g.throughput(Throughput::Bytes(len as u64));
    g.sample_size(20);
    g.bench_function("serialize", |b| {
        b.iter(|| black_box(&doc).to_bytes().expect("writes"))
    });
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
