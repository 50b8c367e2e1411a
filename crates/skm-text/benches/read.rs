//! `skm_read`: parsing the large static model of `large-models` (1 000 000 vertices,
//! 2 000 000 triangles) against a plain copy of the same bytes into fresh memory (a parser must
//! allocate its output too, so `to_vec` is the floor), and against tobj reading the same content as OBJ.
//! `parse_skinned` reads the skinned model (100 000 vertices, 72 bones). See BENCHMARKS.md.

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use skm_text::Model as _;
use std::hint::black_box;

fn bench(c: &mut Criterion) {
    let bytes = large_models::skm::large_static().expect("the large model generates");
    let skinned = large_models::skm::skinned().expect("the skinned model generates");
    let mut g = c.benchmark_group("skm_read");
    g.sample_size(10);
    g.throughput(Throughput::Bytes(bytes.len() as u64));
    g.bench_function("parse", |b| {
        b.iter(|| skm_text::Skm::from_bytes(black_box(&bytes)).expect("parses"))
    });
    g.bench_function("memcpy_baseline", |b| b.iter(|| black_box(&bytes).to_vec()));
    // The peer: tobj reading an OBJ with the same vertex and face content (`%.6f` numbers),
    // from memory, with no material files. Its throughput is counted in OBJ bytes.
    let obj = large_models::obj::large_static();
    g.throughput(Throughput::Bytes(obj.len() as u64));
    g.bench_function("tobj_baseline", |b| {
        b.iter(|| {
            let mut reader: &[u8] = black_box(&obj);
            tobj::load_obj_buf(&mut reader, &tobj::LoadOptions::default(), |_| {
                Ok(Default::default())
            })
            .expect("the OBJ reads")
        })
    });
    g.throughput(Throughput::Bytes(skinned.len() as u64));
    g.bench_function("parse_skinned", |b| {
        b.iter(|| skm_text::Skm::from_bytes(black_box(&skinned)).expect("parses"))
    });
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
