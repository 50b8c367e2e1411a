//! `elem_write`: serialising the large static model of `large-models` (the document parsed from
//! the bytes the read bench parses); written in the style it was generated in.
//! `serialize_skinned` writes the skinned model. See BENCHMARKS.md.

use criterion::{criterion_group, criterion_main, Criterion};

fn bench(c: &mut Criterion) {
    let files = large_models::bench::Files {
        large_static: large_models::elem::large_static().expect("the large model generates"),
        skinned: large_models::elem::skinned().expect("the skinned model generates"),
    };
    large_models::bench::write_group(c, "elem_write", 10, &files, |doc: &elfreina_elem::Elem| {
        doc.to_bytes_with(&elfreina_elem::WriteOptions::six_decimals())
            .expect("writes")
    });
}

criterion_group!(benches, bench);
criterion_main!(benches);
