//! `Pack::from_bytes_with_warnings` on raw bytes; every entry of a pack that reads must
//! decrypt, write, and read back; a pack read without warnings must be rewritten byte for byte.
#![no_main]
use libfuzzer_sys::fuzz_target;
use selene_pack::{Key, Pack};
use std::sync::OnceLock;

/// Built once: deriving the table (65 536 generator steps) would otherwise dominate each run.
static KEY: OnceLock<Key> = OnceLock::new();

fuzz_target!(|data: &[u8]| {
    let _ = selene_pack::sniff(data);
    let key = KEY.get_or_init(Key::default).clone();
    let Ok((pack, warnings)) = Pack::from_bytes_with_warnings(data, key) else {
        return;
    };
    for entry in &pack.entries {
        assert_eq!(entry.data().len(), entry.size());
        let _ = entry.name();
    }
    let written = pack.to_bytes().expect("a pack that reads can be written");
    let again =
        Pack::from_bytes_with_key(&written, pack.key().clone()).expect("the written pack reads");
    assert_eq!(again.entries.len(), pack.entries.len());
    if warnings.is_empty() {
        assert!(written == data, "a clean pack is rewritten byte for byte");
    }
});
