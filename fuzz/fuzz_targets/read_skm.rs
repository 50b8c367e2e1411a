//! `Skm::from_bytes_with_warnings` on raw bytes; a document that reads must summarise and write.
#![no_main]
use libfuzzer_sys::fuzz_target;
use skm_text::Model as _;

fuzz_target!(|data: &[u8]| {
    let _ = skm_text::sniff(data);
    if let Ok((doc, _warnings)) = skm_text::Skm::from_bytes_with_warnings(data) {
        let _ = doc.to_bytes();
    }
});
