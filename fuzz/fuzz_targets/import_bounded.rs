//! Read any bytes as glTF and import the scene into each format, under the counting allocator
//! (inside `models::bytes::heap_only`, so that nothing is a mapping it does not see). A finding
//! is any panic; a read whose peak allocation passes `gltf::ALLOCATION_FACTOR` (32) × the input
//! + 1 MiB, the reader's documented bound (its JSON's objects included: `gltf/read/json_cost.rs`);
//! or an import into a format (`Document::from_scene`), or the writing of its bytes, whose peak
//! or output passes 16 × the scene's cost + 16 MiB, the way back's bound (README, "Conversion
//! budget").
#![no_main]
use libfuzzer_sys::fuzz_target;
use models::scene::{cost, validate, ImportOptions};
use models::{Document, Format};

#[global_allocator]
static ALLOC: alloc_counter::Counting = alloc_counter::Counting;

const MIB: usize = 1 << 20;

fuzz_target!(|data: &[u8]| {
    let (read, peak) =
        models::bytes::heap_only(|| alloc_counter::measure(|| models::gltf::read_glb(data)));
    let bound = models::gltf::ALLOCATION_FACTOR as usize * data.len() + MIB;
    assert!(
        peak <= bound,
        "read: peak {peak} > {bound} for {} bytes",
        data.len()
    );
    let Ok(read) = read else {
        return;
    };
    let scene = validate(read.scene).scene;
    let limit = 16 * cost(&scene) as usize + 16 * MIB;
    let options = ImportOptions::default();
    for format in Format::ALL {
        let (out, peak) = models::bytes::heap_only(|| {
            alloc_counter::measure(|| Document::from_scene(format, &scene, None, &options))
        });
        assert!(peak <= limit, "{format:?}: import peak {peak} > {limit}");
        let Ok(out) = out else {
            continue;
        };
        let (bytes, peak) =
            models::bytes::heap_only(|| alloc_counter::measure(|| out.document.to_bytes()));
        assert!(peak <= limit, "{format:?}: writing peak {peak} > {limit}");
        if let Ok(bytes) = bytes {
            assert!(
                bytes.len() <= limit,
                "{format:?}: {} bytes > {limit}",
                bytes.len()
            );
        }
    }
});
