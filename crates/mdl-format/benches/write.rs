//! `mdl_write`: serialising the large static model of `large-models` (the document parsed from
//! the bytes the read bench parses).
//! `serialize_skinned` writes the skinned model. See BENCHMARKS.md.

use criterion::{criterion_group, criterion_main, Criterion};
use mdl_format::Model as _;

fn bench(c: &mut Criterion) {
    let files = large_models::bench::Files {
        large_static: large_models::mdl::large_static().expect("the large model generates"),
        skinned: large_models::mdl::skinned().expect("the skinned model generates"),
    };
    large_models::bench::write_group(c, "mdl_write", 20, &files, |doc: &mdl_format::Mdl| {
        doc.to_bytes().expect("writes")
    });
}

criterion_group!(benches, bench);
criterion_main!(benches);
