//! Read, write, read again: the two documents are equal (text: the canonical layout is a fixed point).
#![no_main]
use libfuzzer_sys::fuzz_target;
use skm_text::Model as _;

/// Equal, or equal up to NaN (`NaN != NaN`, but Debug prints every NaN the same and keeps -0.0).
fn same(a: &skm_text::Skm, b: &skm_text::Skm) -> bool {
    a == b || format!("{a:?}") == format!("{b:?}")
}

fuzz_target!(|data: &[u8]| {
    let Ok(doc) = skm_text::Skm::from_bytes(data) else {
        return;
    };
    let Ok(first) = doc.to_bytes() else {
        return;
    };
    let again = skm_text::Skm::from_bytes(&first).expect("a written document reads back");
    assert!(same(&doc, &again), "read(write(doc)) != doc");
    let third = again.to_bytes().expect("a re-read document writes");
    assert!(first == third, "the canonical layout is a fixed point");
});
