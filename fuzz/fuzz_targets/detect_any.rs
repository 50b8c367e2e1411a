//! The facade's detect-then-parse path, then everything a caller does with a document.
#![no_main]
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let _ = models::detect(data);
    if let Ok(doc) = models::from_bytes(data) {
        let _ = doc.summary();
        let _ = doc.to_bytes();
    }
});
