//! Packs built in code: round trips with the default and a non-ASCII passphrase, the
//! writer's rules, every validation rule of the reader (typed error, offset), the truncation
//! sweep and hostile counts.

use selene_pack::{name_crc, Entry, Error, Key, Pack, Warning, ENTRY_SIZE};

fn sample_pack(key: Key) -> Pack<'static> {
    let mut pack = Pack::new(key);
    let big: Vec<u8> = (0..200_000u32).map(|i| (i * 31 % 251) as u8).collect();
    for (name, data, encrypted) in [
        ("Model\\train.smf", b"FMS\0model bytes".to_vec(), true),
        ("UI\\D4_VER108.PNG", b"\x89PNG\r\n\x1a\n....".to_vec(), true),
        ("readme.txt", b"plain".to_vec(), false),
        ("Model\\電車\\ヂ.smf", big, true),
        ("empty.bin", Vec::new(), true),
    ] {
        pack.push(Entry::new(name, data, encrypted).unwrap());
    }
    pack
}

fn plain(pack: &Pack<'_>) -> Vec<(String, Vec<u8>, bool)> {
    let mut v: Vec<_> = pack
        .entries
        .iter()
        .map(|e| {
            (
                e.name().into_owned(),
                e.data().into_owned(),
                e.is_encrypted(),
            )
        })
        .collect();
    v.sort();
    v
}

fn u32_at(bytes: &[u8], at: usize) -> u32 {
    u32::from_le_bytes(bytes[at..at + 4].try_into().unwrap())
}

fn put_u32(bytes: &mut [u8], at: usize, v: u32) {
    bytes[at..at + 4].copy_from_slice(&v.to_le_bytes());
}

#[test]
fn round_trip_with_the_default_and_a_non_ascii_passphrase() {
    for key in [
        Key::default(),
        Key::new(Some("電車でGO!パスワード")).unwrap(),
    ] {
        let pack = sample_pack(key.clone());
        let bytes = pack.to_bytes().unwrap();
        let (read, warnings) = Pack::from_bytes_with_warnings(&bytes, key.clone()).unwrap();
        assert!(warnings.is_empty(), "{warnings:?}");
        assert_eq!(plain(&read), plain(&pack));
        assert_eq!(read.to_bytes().unwrap(), bytes, "fixed point");
        // Encrypted entries are really XORed: the plain bytes do not appear in the file.
        let stored_model = read.find("MODEL/TRAIN.SMF").unwrap();
        assert_eq!(&*stored_model.data(), b"FMS\0model bytes");
        assert!(!bytes.windows(15).any(|w| w == b"FMS\0model bytes"));
        // The unencrypted entry is stored as is and borrowed, not copied.
        let readme = read.find("README.TXT").unwrap();
        assert!(matches!(
            readme.data(),
            std::borrow::Cow::Borrowed(b"plain")
        ));
    }
    // A different key reads the structure but not the content.
    let bytes = sample_pack(Key::new(Some("電車でGO!パスワード")).unwrap())
        .to_bytes()
        .unwrap();
    let wrong = Pack::from_bytes(&bytes).unwrap();
    assert_ne!(
        &*wrong.find("Model\\train.smf").unwrap().data(),
        b"FMS\0model bytes"
    );
}

#[test]
fn writer_sorts_by_crc_lays_out_by_name_and_stores_the_data_crc() {
    let bytes = sample_pack(Key::default()).to_bytes().unwrap();
    let count = u32_at(&bytes, 4) as usize;
    assert_eq!(count, 5);
    let table_end = 8 + count * ENTRY_SIZE;
    let mut rows = Vec::new();
    for i in 0..count {
        let at = 8 + i * ENTRY_SIZE;
        let field = &bytes[at..at + 64];
        let name = field[..field.iter().position(|&b| b == 0).unwrap()].to_vec();
        let (crc, dcrc, off, size) = (
            u32_at(&bytes, at + 0x40),
            u32_at(&bytes, at + 0x44),
            u32_at(&bytes, at + 0x48) as usize,
            u32_at(&bytes, at + 0x4C) as usize,
        );
        assert_eq!(crc, name_crc(&name));
        assert_eq!(
            dcrc,
            crc32fast::hash(&bytes[off..off + size]),
            "stored bytes"
        );
        rows.push((name, crc, off, size));
    }
    assert!(
        rows.windows(2).all(|w| w[0].1 < w[1].1),
        "sorted by NameCrc"
    );
    rows.sort();
    let mut at = table_end;
    for (name, _, off, size) in &rows {
        assert_eq!(*off, at, "{name:?} in byte-wise name order");
        at += size;
    }
    assert_eq!(at, bytes.len());
}

#[test]
fn writer_refuses_what_the_engine_cannot_use() {
    // Equal converted names, hence equal CRCs.
    let mut pack = Pack::new(Key::default());
    pack.push(Entry::new("a/b.smf", b"1".as_slice(), true).unwrap());
    pack.push(Entry::new("A\\B.SMF", b"2".as_slice(), true).unwrap());
    let err = pack.to_bytes().unwrap_err();
    assert!(matches!(err, Error::SameNameCrc { .. }), "{err}");
    assert_eq!(err.offset(), None);
    assert!(err.to_string().contains("a/b.smf") && err.to_string().contains("A\\B.SMF"));

    // No entry.
    let err = Pack::new(Key::default()).to_bytes().unwrap_err();
    assert!(err.to_string().contains("at least one entry"), "{err}");

    // Names CP932 cannot hold, too long, empty, with NUL.
    let err = Entry::new("model😀.smf", b"".as_slice(), true).unwrap_err();
    assert!(
        err.to_string().contains("😀") && err.to_string().contains("CP932"),
        "{err}"
    );
    let err = Entry::new("한국어.smf", b"".as_slice(), true).unwrap_err();
    assert!(err.to_string().contains('한'), "{err}");
    let long = "x".repeat(64);
    assert!(Entry::new(&long, b"".as_slice(), true).is_err());
    assert!(Entry::new(&long[..63], b"".as_slice(), true).is_ok());
    // 32 kana = 64 CP932 bytes: too long although only 32 characters.
    assert!(Entry::new(&"ア".repeat(32), b"".as_slice(), true).is_err());
    assert!(Entry::new("", b"".as_slice(), true).is_err());
    assert!(Entry::new("a\0b", b"".as_slice(), true).is_err());
    assert!(Entry::from_cp932_name(b"\x83".as_slice(), b"".as_slice(), true).is_err());
}

/// A valid two-entry pack to break in the tests below.
fn two_entries() -> Vec<u8> {
    let mut pack = Pack::new(Key::default());
    pack.push(Entry::new("A.BIN", b"aaaa".as_slice(), true).unwrap());
    pack.push(Entry::new("B.BIN", b"bbbbbb".as_slice(), false).unwrap());
    pack.to_bytes().unwrap()
}

fn read_err(bytes: &[u8]) -> Error {
    Pack::from_bytes(bytes).unwrap_err()
}

#[test]
fn every_validation_rule_is_a_typed_error_with_its_offset() {
    let good = two_entries();
    let rec = |i: usize| 8 + i * ENTRY_SIZE;
    // Which record holds which name (table order is by CRC).
    let idx_a = if good[rec(0)] == b'A' { 0 } else { 1 };
    let idx_b = 1 - idx_a;

    let mut bad = good.clone();
    bad[0] = b'X';
    assert!(matches!(read_err(&bad), Error::NotThisFormat { offset: 0 }));
    assert!(matches!(read_err(b"KCA"), Error::NotThisFormat { .. }));
    assert!(matches!(
        read_err(b"KCAP\x01"),
        Error::Truncated { offset: 4, .. }
    ));

    let mut bad = good.clone();
    put_u32(&mut bad, 4, 0);
    assert!(matches!(read_err(&bad), Error::Empty { offset: 4 }));

    // A count needing more bytes than the file has: refused before any allocation.
    let mut bad = good.clone();
    put_u32(&mut bad, 4, u32::MAX);
    let err = read_err(&bad);
    assert!(matches!(err, Error::Truncated { offset: 8, .. }), "{err}");
    assert_eq!(err.offset(), Some(8));

    // Names: no NUL, bytes after the NUL, not CP932.
    let mut bad = good.clone();
    bad[rec(idx_a)..rec(idx_a) + 64].fill(b'A');
    let err = read_err(&bad);
    assert!(matches!(err, Error::BadName { .. }), "{err}");
    assert_eq!(err.offset(), Some(rec(idx_a) as u64));
    let mut bad = good.clone();
    bad[rec(idx_a) + 63] = b'x';
    assert!(read_err(&bad).to_string().contains("after its NUL"));
    let mut bad = good.clone();
    bad[rec(idx_a) + 4] = 0x83; // "A.BI\x83": a lead byte with no trail byte
    assert!(read_err(&bad).to_string().contains("CP932"));

    // NameCrc that does not match the name.
    let mut bad = good.clone();
    bad[rec(idx_a)] = b'a'; // the same converted name: still fine
    Pack::from_bytes(&bad).unwrap();
    bad[rec(idx_a)] = b'C';
    let err = read_err(&bad);
    assert!(matches!(err, Error::NameCrcMismatch { .. }), "{err}");
    assert_eq!(err.offset(), Some(rec(idx_a) as u64 + 0x40));

    // Data outside the file, inside the table, overlapping another entry.
    let data_at = |b: &[u8], i| u32_at(b, rec(i) + 0x48);
    let mut bad = good.clone();
    put_u32(&mut bad, rec(idx_b) + 0x4C, 1000);
    let err = read_err(&bad);
    assert!(matches!(err, Error::OutsideFile { .. }), "{err}");
    assert_eq!(err.offset(), Some(rec(idx_b) as u64 + 0x48));
    let mut bad = good.clone();
    put_u32(&mut bad, rec(idx_b) + 0x48, u32::MAX);
    assert!(matches!(read_err(&bad), Error::OutsideFile { .. }));
    let mut bad = good.clone();
    put_u32(&mut bad, rec(idx_b) + 0x48, 100);
    assert!(matches!(read_err(&bad), Error::OverlapsTable { .. }));
    let mut bad = good.clone();
    let a_at = data_at(&good, idx_a);
    put_u32(&mut bad, rec(idx_b) + 0x48, a_at + 2);
    put_u32(&mut bad, rec(idx_b) + 0x4C, 4);
    let err = read_err(&bad);
    assert!(matches!(err, Error::Overlap { .. }), "{err}");

    // Table order and duplicate CRCs: swap the two records; copy one over the other.
    let mut bad = good.clone();
    let (r0, r1) = (good[rec(0)..rec(1)].to_vec(), good[rec(1)..rec(2)].to_vec());
    bad[rec(0)..rec(1)].copy_from_slice(&r1);
    bad[rec(1)..rec(2)].copy_from_slice(&r0);
    let err = read_err(&bad);
    assert!(matches!(err, Error::Unsorted { .. }), "{err}");
    assert_eq!(err.offset(), Some(rec(1) as u64 + 0x40));
    let mut bad = good.clone();
    bad[rec(1)..rec(2)].copy_from_slice(&r0);
    let err = read_err(&bad);
    assert!(matches!(err, Error::DuplicateNameCrc { .. }), "{err}");
    assert_eq!(err.offset(), Some(rec(1) as u64 + 0x40));
}

#[test]
fn data_crc_flag_and_layout_are_warnings() {
    let good = two_entries();
    let rec = |i: usize| 8 + i * ENTRY_SIZE;
    // DataCrc 0, as a known third-party packer writes: a warning, and a rewrite repairs it.
    let mut bad = good.clone();
    put_u32(&mut bad, rec(0) + 0x44, 0);
    let (pack, warnings) = Pack::from_bytes_with_warnings(&bad, Key::default()).unwrap();
    assert!(
        matches!(warnings.as_slice(), [Warning::DataCrcMismatch { offset, stored: 0, .. }] if *offset == rec(0) as u64 + 0x44),
        "{warnings:?}"
    );
    assert_eq!(pack.to_bytes().unwrap(), good);

    // Encrypted = 2: read as encrypted, kept.
    let mut bad = good.clone();
    let i = (0..2).find(|&i| u32_at(&good, rec(i) + 0x50) == 1).unwrap();
    put_u32(&mut bad, rec(i) + 0x50, 2);
    let (pack, warnings) = Pack::from_bytes_with_warnings(&bad, Key::default()).unwrap();
    assert!(matches!(
        warnings.as_slice(),
        [Warning::EncryptedFlag { value: 2, .. }]
    ));
    assert_eq!(pack.to_bytes().unwrap(), bad);

    // Trailing bytes: read, said, dropped by a rewrite.
    let mut bad = good.clone();
    bad.extend_from_slice(b"junk");
    let (pack, warnings) = Pack::from_bytes_with_warnings(&bad, Key::default()).unwrap();
    assert!(
        matches!(warnings.as_slice(), [Warning::Layout { offset, .. }] if *offset == good.len() as u64)
    );
    assert!(warnings[0].to_string().contains("4 bytes"));
    assert_eq!(pack.to_bytes().unwrap(), good);
}

#[test]
fn truncations_and_hostile_counts_fail_cleanly() {
    let bytes = sample_pack(Key::default()).to_bytes().unwrap();
    // Every prefix fails: the data runs to the last byte.
    let head = &bytes[..bytes.len().min(8 + 5 * ENTRY_SIZE + 64)];
    test_support::truncation_sweep(
        "built",
        head,
        |b| Pack::from_bytes(b).map(|p| p.entries.len()),
        |_, _| false,
    );
    for len in [bytes.len() - 1, bytes.len() - 1000] {
        assert!(Pack::from_bytes(&bytes[..len]).is_err());
    }
    for count in [1u32, 2, 1000, 0x0300_0000, u32::MAX] {
        let mut hostile = b"KCAP".to_vec();
        hostile.extend_from_slice(&count.to_le_bytes());
        hostile.extend_from_slice(&[0u8; 40]);
        assert!(matches!(
            Pack::from_bytes(&hostile),
            Err(Error::Truncated { offset: 8, .. })
        ));
    }
}
