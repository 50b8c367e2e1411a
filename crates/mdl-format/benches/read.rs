//! `mdl_read`: parsing the large static model of `large-models` (1 000 000 vertices,
//! 2 000 000 triangles) against a plain copy of the same bytes into fresh memory (a parser must
//! allocate its output too, so `to_vec` is the floor).
//! `parse_skinned` reads the skinned model (100 000 vertices, 72 bones). See BENCHMARKS.md.

use criterion::{criterion_group, criterion_main, Criterion};

fn bench(c: &mut Criterion) {
    let files = large_models::bench::Files {
        large_static: large_models::mdl::large_static().expect("the large model generates"),
        skinned: large_models::mdl::skinned().expect("the skinned model generates"),
    };
    large_models::bench::read_group::<mdl_format::Mdl>(c, "mdl_read", 20, &files, false);
}

criterion_group!(benches, bench);
criterion_main!(benches);
