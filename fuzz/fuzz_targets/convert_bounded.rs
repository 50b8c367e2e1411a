//! Read any format, convert to a scene under the input's budget and write a `.glb`, with the
//! counting allocator: a finding is any panic, a peak allocation or a `.glb` above the
//! documented 64 × input + 16 MiB, or a failure other than the budget's refusal (issue 12).
#![no_main]
use libfuzzer_sys::fuzz_target;
use models::scene::{Budget, Scene, SceneOptions};

#[global_allocator]
static ALLOC: alloc_counter::Counting = alloc_counter::Counting;

enum Failure {
    Budget,
    Other(String),
}

fuzz_target!(|data: &[u8]| {
    let Ok(doc) = models::from_bytes(data) else {
        return;
    };
    let bound = 64 * data.len() + (16 << 20);
    let options = SceneOptions {
        budget: Budget::for_input(data.len() as u64),
        ..SceneOptions::default()
    };
    // In the heap only: the counting allocator does not see a mapped `.glb`.
    let (glb, peak) = models::bytes::heap_only(|| {
        alloc_counter::measure(|| {
            let conversion = Scene::from_document_with(&doc, &options).map_err(|e| match e {
                models::Error::BudgetExceeded { .. } => Failure::Budget,
                other => Failure::Other(other.to_string()),
            })?;
            models::gltf::to_glb(
                &models::scene::validate(conversion.scene).scene,
                &models::gltf::GltfOptions::default(),
            )
            .map(|glb| glb.len())
            .map_err(|e| Failure::Other(e.to_string()))
        })
    });
    assert!(
        peak <= bound,
        "peak {peak} > {bound} for {} bytes",
        data.len()
    );
    match glb {
        Ok(len) => assert!(len <= bound, "glb {len} > {bound}"),
        Err(Failure::Budget) => {}
        Err(Failure::Other(e)) => panic!("conversion failed: {e}"),
    }
});
