//! `elem_write`: writing a large generated document in the canonical style.

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use std::hint::black_box;

#[path = "support/mod.rs"]
mod model;

fn write(c: &mut Criterion) {
    let doc = model::large();
    let len = doc.to_bytes().expect("the bench model writes").len();
    let mut group = c.benchmark_group("elem_write");
    group.throughput(Throughput::Bytes(len as u64));
    group.sample_size(10);
    group.bench_function("serialize", |b| {
        b.iter(|| black_box(&doc).to_bytes().expect("the bench model writes"))
    });
    group.finish();
}

criterion_group!(benches, write);
criterion_main!(benches);
