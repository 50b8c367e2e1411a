//! Allocation bounds of the pack reader and writer (issue 17), as `alloc_bounds.rs` does for
//! the model readers.
//!
//! * A pack of at most 64 bytes whose FileCount or entry claims gigabytes fails with a peak
//!   allocation under 1 MiB.
//! * Reading borrows the input: the peak is at most 2 × the table size + 4 KiB, whatever the
//!   size of the data (checked on a 24 MiB pack and on the real packs).
//! * Decrypting an entry allocates its size and nothing more than 4 KiB besides.
//! * Writing peaks under 2 × the output size + 1 MiB.

use alloc_counter::{measure, Counting};
use selene_pack::{Entry, Key, Pack, ENTRY_SIZE};

#[global_allocator]
static ALLOC: Counting = Counting;

const MIB: usize = 1 << 20;

fn record(name: &[u8], crc: u32, offset: u32, size: u32) -> Vec<u8> {
    let mut r = name.to_vec();
    r.resize(64, 0);
    for v in [crc, 0, offset, size, 1] {
        r.extend(v.to_le_bytes());
    }
    r
}

#[test]
fn tiny_packs_claiming_gigabytes_fail_small() {
    let mut cases: Vec<(&str, Vec<u8>)> = Vec::new();
    for count in [u32::MAX, 0x0100_0000, 2] {
        let mut b = b"KCAP".to_vec();
        b.extend(count.to_le_bytes());
        b.resize(64, 0);
        cases.push(("huge FileCount", b));
    }
    // One record (92 bytes with the header: the smallest pack with an entry is larger than
    // 64 bytes) whose data claims 2 GiB.
    let mut b = b"KCAP\x01\0\0\0".to_vec();
    b.extend(record(b"A", selene_pack::name_crc(b"A"), 92, 0x7FFF_0000));
    cases.push(("entry of 2 GiB", b));
    for (what, bytes) in cases {
        let key = Key::default();
        let (result, peak) = measure(|| Pack::from_bytes_with_key(&bytes, key).map(|_| ()));
        assert!(result.is_err(), "{what}: accepted");
        assert!(peak < MIB, "{what}: peak {peak} bytes");
    }
}

fn generated(entries: usize, size: usize) -> Vec<u8> {
    let mut pack = Pack::new(Key::default());
    for i in 0..entries {
        let data = vec![(i % 251) as u8; size];
        pack.push(Entry::new(&format!("Data\\{i:05}.bin"), data, true).unwrap());
    }
    pack.to_bytes().unwrap()
}

fn read_peak(bytes: &[u8]) -> (usize, usize) {
    let count = u32::from_le_bytes(bytes[4..8].try_into().unwrap()) as usize;
    let key = Key::default();
    let (result, peak) = measure(|| Pack::from_bytes_with_key(bytes, key).map(|p| p.entries.len()));
    assert_eq!(result.unwrap(), count);
    (peak, count * ENTRY_SIZE)
}

#[test]
fn reading_borrows_the_data_and_decrypting_allocates_one_entry() {
    let mut files = vec![generated(24, MIB), generated(2000, 10)];
    for path in test_support::samples("pack", "Pack").unwrap_or_default() {
        files.push(test_support::read(&path));
    }
    for bytes in &files {
        let (peak, table) = read_peak(bytes);
        assert!(
            peak <= 2 * table + 4096,
            "peak {peak} bytes for a {table}-byte table ({} bytes in all)",
            bytes.len()
        );
    }
    let big = &files[0];
    let pack = Pack::from_bytes(big).unwrap();
    let entry = &pack.entries[0];
    let (data, peak) = measure(|| entry.data().len());
    assert_eq!(data, MIB);
    assert!(peak <= MIB + 4096, "decrypting 1 MiB peaked at {peak}");
}

#[test]
fn writing_peaks_under_twice_the_output() {
    let bytes = generated(24, MIB);
    let pack = Pack::from_bytes(&bytes).unwrap();
    let (out, peak) = measure(|| pack.to_bytes().unwrap().len());
    assert_eq!(out, bytes.len());
    assert!(peak < 2 * out + MIB, "peak {peak} for {out} bytes");
    // Re-keyed: every entry is decrypted and encrypted again, one at a time.
    let mut rekeyed = Pack::from_bytes(&bytes).unwrap();
    rekeyed.set_key(Key::new(Some("another passphrase")).unwrap());
    let (out, peak) = measure(|| rekeyed.to_bytes().unwrap().len());
    assert!(
        peak < 2 * out + MIB,
        "re-keyed: peak {peak} for {out} bytes"
    );
}
