//! `skm_write`: serialising the large static model of `large-models` (the document parsed from
//! the bytes the read bench parses).
//! `serialize_skinned` writes the skinned model. See BENCHMARKS.md.

use criterion::{criterion_group, criterion_main, Criterion};
use skm_text::Model as _;

fn bench(c: &mut Criterion) {
    let files = large_models::bench::Files {
        large_static: large_models::skm::large_static().expect("the large model generates"),
        skinned: large_models::skm::skinned().expect("the skinned model generates"),
    };
    large_models::bench::write_group(c, "skm_write", 10, &files, |doc: &skm_text::Skm| {
        doc.to_bytes().expect("writes")
    });
}

criterion_group!(benches, bench);
criterion_main!(benches);
