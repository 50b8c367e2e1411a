//! `elem_read`: parsing a large generated document, against a plain copy of its bytes.

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use elfreina_elem::Elem;
use std::hint::black_box;

#[path = "support/mod.rs"]
mod model;

fn read(c: &mut Criterion) {
    let bytes = model::large().to_bytes().expect("the bench model writes");
    let mut group = c.benchmark_group("elem_read");
    group.throughput(Throughput::Bytes(bytes.len() as u64));
    group.sample_size(10);
    group.bench_function("parse", |b| {
        b.iter(|| Elem::from_bytes(black_box(&bytes)).expect("the bench model reads"))
    });
    group.bench_function("memcpy_baseline", |b| b.iter(|| black_box(&bytes).to_vec()));
    group.finish();
}

criterion_group!(benches, read);
criterion_main!(benches);
