//! Read, write, read again: the two documents are equal (binary: and the second write
//! equals the first byte for byte).
#![no_main]
use libfuzzer_sys::fuzz_target;
use mdl_format::Model as _;

/// Equal, or equal up to NaN (`NaN != NaN`, but Debug prints every NaN the same and keeps -0.0).
fn same(a: &mdl_format::Mdl, b: &mdl_format::Mdl) -> bool {
    a == b || format!("{a:?}") == format!("{b:?}")
}

fuzz_target!(|data: &[u8]| {
    let Ok(doc) = mdl_format::Mdl::from_bytes(data) else {
        return;
    };
    let Ok(first) = doc.to_bytes() else {
        return;
    };
    let again = mdl_format::Mdl::from_bytes(&first).expect("a written document reads back");
    assert!(same(&doc, &again), "read(write(doc)) != doc");
    let second = again.to_bytes().expect("a re-read document writes");
    assert!(first == second, "write(read(write(doc))) != write(doc)");
});
