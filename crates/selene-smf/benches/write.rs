//! `smf_write`: serialising the large static model of `large-models` (the document parsed from
//! the bytes the read bench parses).
//! `serialize_skinned` writes the skinned model. See BENCHMARKS.md.

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use selene_smf::Model as _;
use std::hint::black_box;

fn bench(c: &mut Criterion) {
    let bytes = large_models::smf::large_static().expect("the large model generates");
    let skinned = large_models::smf::skinned().expect("the skinned model generates");
    let mut g = c.benchmark_group("smf_write");
    g.sample_size(20);
    for (name, bytes) in [("serialize", bytes), ("serialize_skinned", skinned)] {
        let doc = selene_smf::Smf::from_bytes(&bytes).expect("parses");
        let written = doc.to_bytes().expect("writes");
        assert_eq!(
            written.len(),
            bytes.len(),
            "{name}: the writer reproduces the file"
        );
        drop(written);
        g.throughput(Throughput::Bytes(bytes.len() as u64));
        g.bench_function(name, |b| {
            b.iter(|| {
                let doc = black_box(&doc);
                doc.to_bytes().expect("writes")
            })
        });
    }
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
