//! `Smf::from_bytes_with_warnings` on raw bytes; a document that reads must summarise and write.
#![no_main]
use libfuzzer_sys::fuzz_target;
use selene_smf::Model as _;

fuzz_target!(|data: &[u8]| {
    let _ = selene_smf::sniff(data);
    if let Ok((doc, _warnings)) = selene_smf::Smf::from_bytes_with_warnings(data) {
        let _ = doc.to_bytes();
    }
});
