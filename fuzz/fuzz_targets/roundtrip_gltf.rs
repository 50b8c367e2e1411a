//! The way back on arbitrary models (issue 15): read any format, export it to a glb, read the
//! glb back and import it into each of the five formats (with the original as `--base` when it
//! is of that format), writing each result. Every step may refuse with an error; none may panic,
//! and every file written must read back with its own format's reader (which holds the
//! engine's rules).
#![no_main]
use libfuzzer_sys::fuzz_target;
use models::scene::{validate, ImportOptions, Scene};
use models::{Document, Format};

fuzz_target!(|data: &[u8]| {
    let Ok(doc) = models::from_bytes(data) else {
        return;
    };
    let Ok(conversion) = Scene::from_document(&doc) else {
        return;
    };
    let valid = validate(conversion.scene).scene;
    let Ok(glb) = models::gltf::to_glb(&valid, &models::gltf::GltfOptions::default()) else {
        return;
    };
    let Ok(read) = models::gltf::read_glb(&glb) else {
        return;
    };
    let back = validate(read.scene).scene;
    for format in Format::ALL {
        let base = (doc.format() == format).then_some(&doc);
        if let Ok(out) = Document::from_scene(format, &back, base, &ImportOptions::default()) {
            if let Ok(bytes) = out.document.to_bytes() {
                if let Err(e) = Document::parse_as(format, &bytes) {
                    panic!("{format:?}: the written file does not read back: {e}");
                }
            }
        }
    }
});
