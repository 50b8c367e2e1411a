//! The two real packs in ../shared/samples/pack (passphrase `PackPass`): every entry's CRCs
//! checked from the raw table, the table order, the data layout, a decrypted PNG whose chunk
//! CRCs check, and byte-identical rewrites (of the read pack, and of a pack rebuilt from the
//! decrypted data).

use selene_pack::{Entry, Key, Pack, ENTRY_SIZE};

fn packs() -> Option<Vec<(String, Vec<u8>)>> {
    let paths = test_support::samples("pack", "Pack")?;
    assert_eq!(paths.len(), 2, "PROVENANCE.md lists 2 packs");
    Some(
        paths
            .iter()
            .map(|p| (test_support::file_name(p).to_owned(), test_support::read(p)))
            .collect(),
    )
}

fn key() -> Key {
    Key::new(Some("PackPass")).unwrap()
}

fn u32_at(bytes: &[u8], at: usize) -> u32 {
    u32::from_le_bytes(bytes[at..at + 4].try_into().unwrap())
}

/// (name, name CRC, data CRC, offset, size, encrypted) straight from the table bytes.
fn raw_table(bytes: &[u8]) -> Vec<(Vec<u8>, u32, u32, usize, usize, u32)> {
    let count = u32_at(bytes, 4) as usize;
    (0..count)
        .map(|i| {
            let at = 8 + i * ENTRY_SIZE;
            let field = &bytes[at..at + 64];
            let name = field[..field.iter().position(|&b| b == 0).unwrap()].to_vec();
            (
                name,
                u32_at(bytes, at + 0x40),
                u32_at(bytes, at + 0x44),
                u32_at(bytes, at + 0x48) as usize,
                u32_at(bytes, at + 0x4C) as usize,
                u32_at(bytes, at + 0x50),
            )
        })
        .collect()
}

#[test]
fn every_entry_has_right_crcs_sorted_table_and_contiguous_name_ordered_data() {
    let Some(packs) = packs() else { return };
    for (file, bytes) in &packs {
        let table = raw_table(bytes);
        let expected = match file.as_str() {
            "Patch_D1.Pack" => 2,
            "Patch_4th_6_blind.Pack" => 34,
            other => panic!("unexpected sample {other}"),
        };
        assert_eq!(table.len(), expected, "{file}");
        for (name, name_crc, data_crc, offset, size, encrypted) in &table {
            // The engine's converted name, computed here independently of the crate: the
            // sample names are ASCII.
            let converted: Vec<u8> = name
                .iter()
                .map(|&b| {
                    if b == b'/' {
                        b'\\'
                    } else {
                        b.to_ascii_uppercase()
                    }
                })
                .collect();
            assert_eq!(*name_crc, crc32fast::hash(&converted), "{file}");
            assert_eq!(*data_crc, crc32fast::hash(&bytes[*offset..offset + size]));
            assert_eq!(*encrypted, 1);
        }
        let crcs: Vec<u32> = table.iter().map(|e| e.1).collect();
        assert!(crcs.windows(2).all(|w| w[0] < w[1]), "{file}: table order");
        let mut by_name: Vec<_> = table.iter().collect();
        by_name.sort_by(|a, b| a.0.cmp(&b.0));
        let mut at = 8 + table.len() * ENTRY_SIZE;
        for e in by_name {
            assert_eq!(e.3, at, "{file}: data in name order without gaps");
            at += e.4;
        }
        assert_eq!(at, bytes.len(), "{file}: no trailing bytes");

        // The crate agrees with all of it, without a warning.
        let (pack, warnings) = Pack::from_bytes_with_warnings(bytes, key()).unwrap();
        assert!(warnings.is_empty(), "{file}: {warnings:?}");
        let names: Vec<&[u8]> = pack.entries.iter().map(Entry::name_bytes).collect();
        let raw_names: Vec<&[u8]> = table.iter().map(|e| e.0.as_slice()).collect();
        assert_eq!(names, raw_names, "{file}: entries in table order");
        for (entry, raw) in pack.entries.iter().zip(&table) {
            assert_eq!(entry.name_crc(), raw.1);
            assert_eq!(entry.size(), raw.4);
            assert!(entry.is_encrypted());
        }
    }
}

#[test]
fn d1_comics_decrypt_to_dend_com_with_packpass_only() {
    let Some(packs) = packs() else { return };
    let (_, bytes) = packs.iter().find(|(f, _)| f == "Patch_D1.Pack").unwrap();
    let pack = Pack::from_bytes_with_key(bytes, key()).unwrap();
    let sizes: Vec<(String, usize)> = pack
        .entries
        .iter()
        .map(|e| (e.name().into_owned(), e.size()))
        .collect();
    let mut sorted = sizes.clone();
    sorted.sort();
    assert_eq!(
        sorted,
        [
            ("COMIC3118.BIN".into(), 290),
            ("COMIC3137.BIN".into(), 1029)
        ]
    );
    for e in &pack.entries {
        assert!(e.data().starts_with(b"DEND_COM"), "{}", e.name());
    }
    // The default key reads the same structure but decrypts to garbage.
    let wrong = Pack::from_bytes(bytes).unwrap();
    for e in &wrong.entries {
        assert!(!e.data().starts_with(b"DEND_COM"), "{}", e.name());
    }
}

#[test]
fn the_png_decrypts_and_every_chunk_crc_checks() {
    let Some(packs) = packs() else { return };
    let (_, bytes) = packs
        .iter()
        .find(|(f, _)| f == "Patch_4th_6_blind.Pack")
        .unwrap();
    let pack = Pack::from_bytes_with_key(bytes, key()).unwrap();
    let total: usize = pack.entries.iter().map(Entry::size).sum();
    assert_eq!(total, 485_198, "PROVENANCE.md: data bytes in all");
    let pngs: Vec<&Entry<'_>> = pack
        .entries
        .iter()
        .filter(|e| e.name().to_ascii_uppercase().ends_with(".PNG"))
        .collect();
    assert_eq!(pngs.len(), 1);
    assert_eq!(pack.entries.len() - pngs.len(), 33, "33 .BIN");
    let png = pngs[0].data();
    assert_eq!(&png[..8], b"\x89PNG\r\n\x1a\n");
    let mut at = 8;
    let mut chunks = 0;
    let mut seen_iend = false;
    while at < png.len() {
        let len = u32::from_be_bytes(png[at..at + 4].try_into().unwrap()) as usize;
        let kind_and_data = &png[at + 4..at + 8 + len];
        let crc = u32::from_be_bytes(png[at + 8 + len..at + 12 + len].try_into().unwrap());
        assert_eq!(crc, crc32fast::hash(kind_and_data), "chunk at {at}");
        seen_iend = &kind_and_data[..4] == b"IEND";
        at += 12 + len;
        chunks += 1;
    }
    assert_eq!(at, png.len());
    assert!(seen_iend && chunks >= 3, "{chunks} chunks, IEND last");
}

#[test]
fn both_packs_are_rewritten_byte_for_byte() {
    let Some(packs) = packs() else { return };
    for (file, bytes) in &packs {
        // The read pack as it is: stored bytes reused.
        let pack = Pack::from_bytes_with_key(bytes, key()).unwrap();
        assert!(
            pack.to_bytes().unwrap() == *bytes,
            "{file}: rewrite differs"
        );

        // Rebuilt from the decrypted data alone, in reverse table order: the writer sorts the
        // table, lays the data out and encrypts it again.
        let plain: Vec<(String, Vec<u8>)> = pack
            .entries
            .iter()
            .map(|e| (e.name().into_owned(), e.data().into_owned()))
            .collect();
        let mut rebuilt = Pack::new(key());
        for (name, data) in plain.iter().rev() {
            rebuilt.push(Entry::new(name, data.as_slice(), true).unwrap());
        }
        assert!(
            rebuilt.to_bytes().unwrap() == *bytes,
            "{file}: rebuilt pack differs"
        );

        // Re-keyed to the default passphrase and back: the same file again.
        let mut rekeyed = Pack::from_bytes_with_key(bytes, key()).unwrap();
        rekeyed.set_key(Key::default());
        let with_default = rekeyed.to_bytes().unwrap();
        assert_ne!(with_default, *bytes);
        let mut back = Pack::from_bytes(&with_default).unwrap();
        back.set_key(key());
        assert!(back.to_bytes().unwrap() == *bytes, "{file}: re-keyed back");
    }
}
