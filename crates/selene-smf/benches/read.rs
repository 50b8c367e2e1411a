//! Parsing throughput on a large generated model, against a plain copy of the same bytes.

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use std::hint::black_box;

mod common;

fn bench(c: &mut Criterion) {
    let bytes = common::large_model().to_bytes().expect("writes");
    let mut g = c.benchmark_group("smf_read");
    g.throughput(Throughput::Bytes(bytes.len() as u64));
    g.bench_function("parse", |b| {
        b.iter(|| selene_smf::Smf::from_bytes(black_box(&bytes)).expect("parses"))
    });
    g.bench_function("memcpy_baseline", |b| b.iter(|| black_box(&bytes).to_vec()));
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
