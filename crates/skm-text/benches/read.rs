//! `skm_read`: parsing the large static model of `large-models` (1 000 000 vertices,
//! 2 000 000 triangles) against a plain copy of the same bytes into fresh memory (a parser must
//! allocate its output too, so `to_vec` is the floor), and against tobj reading the same content as OBJ.
//! `parse_skinned` reads the skinned model (100 000 vertices, 72 bones). See BENCHMARKS.md.

use criterion::{criterion_group, criterion_main, Criterion};

fn bench(c: &mut Criterion) {
    let files = large_models::bench::Files {
        large_static: large_models::skm::large_static().expect("the large model generates"),
        skinned: large_models::skm::skinned().expect("the skinned model generates"),
    };
    large_models::bench::read_group::<skm_text::Skm>(c, "skm_read", 10, &files, true);
}

criterion_group!(benches, bench);
criterion_main!(benches);
