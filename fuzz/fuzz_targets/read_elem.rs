//! `Elem::from_bytes_with_warnings` on raw bytes; a document that reads must summarise and write.
#![no_main]
use elfreina_elem::Model as _;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let _ = elfreina_elem::sniff(data);
    if let Ok((doc, _warnings)) = elfreina_elem::Elem::from_bytes_with_warnings(data) {
        let _ = doc.to_bytes();
    }
});
