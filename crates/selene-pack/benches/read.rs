//! `pack_read`: a generated 100 MB pack (100 encrypted entries of 1 MiB) read and every
//! entry decrypted (`decrypt`), against a plain copy of the same bytes into fresh memory
//! (`memcpy_baseline`): decrypting must allocate its output too, so `to_vec` is the floor.
//! `copy_entries_baseline` copies the entries one by one, as `decrypt` allocates them.
//! See BENCHMARKS.md.

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use selene_pack::{Entry, Key, Pack};
use std::hint::black_box;

fn generated() -> (Key, Vec<u8>) {
    let key = Key::new(Some("BenchPassphrase")).expect("an ASCII passphrase");
    let mut pack = Pack::new(key.clone());
    let mut state = 0x2545_f491_u32;
    for i in 0..100 {
        let data: Vec<u8> = (0..1 << 20)
            .map(|_| {
                state ^= state << 13;
                state ^= state >> 17;
                state ^= state << 5;
                state as u8
            })
            .collect();
        let name = format!("Model\\bench{i:03}.smf");
        pack.push(Entry::new(&name, data, true).expect("a valid name"));
    }
    (key, pack.to_bytes().expect("the pack writes"))
}

fn bench(c: &mut Criterion) {
    let (key, bytes) = generated();
    let mut g = c.benchmark_group("pack_read");
    g.sample_size(20);
    g.throughput(Throughput::Bytes(bytes.len() as u64));
    g.bench_function("decrypt", |b| {
        b.iter(|| {
            let pack = Pack::from_bytes_with_key(black_box(&bytes), key.clone()).expect("reads");
            let total: usize = pack.entries.iter().map(|e| black_box(e.data()).len()).sum();
            total
        })
    });
    // Reading alone (table checks and the CRC-32 of every entry's stored bytes), no decryption.
    g.bench_function("parse", |b| {
        b.iter(|| {
            Pack::from_bytes_with_key(black_box(&bytes), key.clone())
                .expect("reads")
                .entries
                .len()
        })
    });
    g.bench_function("memcpy_baseline", |b| b.iter(|| black_box(&bytes).to_vec()));
    // The same allocation pattern as `decrypt` (one fresh buffer per 1 MiB entry, dropped at
    // once, which the allocator reuses) without parsing, CRC or XOR: what `decrypt` adds.
    let table_end = 8 + 100 * selene_pack::ENTRY_SIZE;
    g.bench_function("copy_entries_baseline", |b| {
        b.iter(|| {
            let data = black_box(&bytes).get(table_end..).unwrap_or_default();
            let total: usize = data
                .chunks(1 << 20)
                .map(|c| black_box(c.to_vec()).len())
                .sum();
            total
        })
    });
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
