//! `Mdl` and `LegacyMdl` on raw bytes; a document that reads must write.
#![no_main]
use libfuzzer_sys::fuzz_target;
use mdl_format::Model as _;

fuzz_target!(|data: &[u8]| {
    let _ = mdl_format::sniff(data);
    if let Ok((doc, _warnings)) = mdl_format::Mdl::from_bytes_with_warnings(data) {
        let _ = doc.to_bytes();
    }
    if let Ok((doc, _warnings)) = mdl_format::LegacyMdl::from_bytes_with_warnings(data) {
        let _ = doc.to_bytes();
    }
});
