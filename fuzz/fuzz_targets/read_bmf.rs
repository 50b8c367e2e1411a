//! `Bmf::from_bytes_with_warnings` on raw bytes; a document that reads must summarise and write.
#![no_main]
use bmf_block::Model as _;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let _ = bmf_block::sniff(data);
    if let Ok((doc, _warnings)) = bmf_block::Bmf::from_bytes_with_warnings(data) {
        let _ = doc.to_bytes();
    }
});
