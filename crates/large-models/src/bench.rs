//! The read and write bench groups of every format crate, written once: each crate's
//! `benches/read.rs` and `benches/write.rs` only say which format and which sizes.
//!
//! The groups and their functions are the names BENCHMARKS.md quotes: `<fmt>_read/parse`,
//! `memcpy_baseline`, `tobj_baseline` (text formats), `parse_skinned`, and
//! `<fmt>_write/serialize`, `serialize_skinned`.

use binio::Model;
use criterion::{Criterion, Throughput};
use std::hint::black_box;

/// What a format's read and write groups run on.
pub struct Files {
    /// The large static model (1 000 000 vertices, 2 000 000 triangles).
    pub large_static: Vec<u8>,
    /// The skinned model (100 000 vertices, 72 bones).
    pub skinned: Vec<u8>,
}

/// `<group>`: parsing the large static model against a plain copy of the same bytes into fresh
/// memory (a parser must allocate its output too, so `to_vec` is the floor), against tobj
/// reading the same content as OBJ when `with_tobj` (the text formats' peer), then the skinned
/// model.
pub fn read_group<M: Model>(
    c: &mut Criterion,
    group: &str,
    sample_size: usize,
    files: &Files,
    with_tobj: bool,
) where
    M::Error: std::fmt::Debug,
{
    let mut g = c.benchmark_group(group);
    g.sample_size(sample_size);
    g.throughput(Throughput::Bytes(files.large_static.len() as u64));
    g.bench_function("parse", |b| {
        b.iter(|| M::from_bytes(black_box(&files.large_static)).expect("parses"))
    });
    g.bench_function("memcpy_baseline", |b| {
        b.iter(|| black_box(&files.large_static).to_vec())
    });
    if with_tobj {
        // The peer: tobj reading an OBJ with the same vertex and face content (`%.6f`
        // numbers), from memory, with no material files. Its throughput is counted in OBJ
        // bytes.
        let obj = crate::obj::large_static();
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
    }
    g.throughput(Throughput::Bytes(files.skinned.len() as u64));
    g.bench_function("parse_skinned", |b| {
        b.iter(|| M::from_bytes(black_box(&files.skinned)).expect("parses"))
    });
    g.finish();
}

/// `<group>`: serialising the documents parsed from the read group's bytes with `write`, which
/// must reproduce each file's length (the writers round-trip byte for byte; this keeps the
/// bench honest about what it writes).
pub fn write_group<M: Model>(
    c: &mut Criterion,
    group: &str,
    sample_size: usize,
    files: &Files,
    write: impl Fn(&M) -> Vec<u8>,
) where
    M::Error: std::fmt::Debug,
{
    let mut g = c.benchmark_group(group);
    g.sample_size(sample_size);
    for (name, bytes) in [
        ("serialize", &files.large_static),
        ("serialize_skinned", &files.skinned),
    ] {
        let doc = M::from_bytes(bytes).expect("parses");
        let written = write(&doc);
        assert_eq!(
            written.len(),
            bytes.len(),
            "{name}: the writer reproduces the file"
        );
        drop(written);
        g.throughput(Throughput::Bytes(bytes.len() as u64));
        g.bench_function(name, |b| b.iter(|| write(black_box(&doc))));
    }
    g.finish();
}
