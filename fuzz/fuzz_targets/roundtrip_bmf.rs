//! Read, write, read again: the two documents are equal (binary: and the second write
//! equals the first byte for byte).
#![no_main]
use bmf_block::Model as _;
use libfuzzer_sys::fuzz_target;

/// Equal, or equal up to NaN (`NaN != NaN`, but Debug prints every NaN the same and keeps -0.0).
fn same(a: &bmf_block::Bmf, b: &bmf_block::Bmf) -> bool {
    a == b || format!("{a:?}") == format!("{b:?}")
}

fuzz_target!(|data: &[u8]| {
    let Ok(doc) = bmf_block::Bmf::from_bytes(data) else {
        return;
    };
    let Ok(first) = doc.to_bytes() else {
        return;
    };
    let again = bmf_block::Bmf::from_bytes(&first).expect("a written document reads back");
    assert!(same(&doc, &again), "read(write(doc)) != doc");
    let second = again.to_bytes().expect("a re-read document writes");
    assert!(first == second, "write(read(write(doc))) != write(doc)");
});
