//! Read throughput on a large generated model (~262k vertices), against a plain copy.

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use skm_text::Skm;
use std::hint::black_box;

mod common;

fn bench(c: &mut Criterion) {
    let bytes = common::large_model(512, 16)
        .to_bytes()
        .expect("the generated model is writable");
    let mut group = c.benchmark_group("skm_read");
    group.throughput(Throughput::Bytes(bytes.len() as u64));
    group.sample_size(10);
    group.bench_function("parse", |b| {
        b.iter(|| Skm::from_bytes(black_box(&bytes)).expect("valid"))
    });
    group.bench_function("memcpy_baseline", |b| b.iter(|| black_box(&bytes).to_vec()));
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
