//! `bmf_write`: serialising the large static model of `large-models` (the document parsed from
//! the bytes the read bench parses).
//! `serialize_skinned` writes the skinned model. See BENCHMARKS.md.

use bmf_block::Model as _;
use criterion::{criterion_group, criterion_main, Criterion};

fn bench(c: &mut Criterion) {
    let files = large_models::bench::Files {
        large_static: large_models::bmf::large_static().expect("the large model generates"),
        skinned: large_models::bmf::skinned().expect("the skinned model generates"),
    };
    large_models::bench::write_group(c, "bmf_write", 20, &files, |doc: &bmf_block::Bmf| {
        doc.to_bytes().expect("writes")
    });
}

criterion_group!(benches, bench);
criterion_main!(benches);
