//! Parsing throughput on a large generated model, against a plain copy of the same bytes
//! (a parser must allocate its output too, so `to_vec` is the floor to compare with).

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use std::hint::black_box;

mod common;

fn bench(c: &mut Criterion) {
    let bytes = common::large_model().to_bytes().expect("writes");
    let mut g = c.benchmark_group("bmf_read");
    g.throughput(Throughput::Bytes(bytes.len() as u64));
    g.sample_size(20);
    g.bench_function("parse", |b| {
        b.iter(|| bmf_block::Bmf::from_bytes(black_box(&bytes)).expect("parses"))
    });
    g.bench_function("memcpy_baseline", |b| b.iter(|| black_box(&bytes).to_vec()));
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
