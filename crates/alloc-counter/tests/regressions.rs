//! The fuzzers' regression corpus: every file under `fixtures/regressions/<format>/` (inputs
//! that once crashed or hung a reader, minimised; see FUZZING.md) must be refused cleanly or,
//! if it is valid, read, write and read back to the same document, in bounded time and memory.
//! Besides the findings (none so far), each folder holds a sample of the campaign's final
//! corpus: the smallest input per kind of refusal and a few inputs that read (see FUZZING.md),
//! so that this test always has something to check for every format.

use alloc_counter::{measure, Counting};
use models::{Document, Format};
use std::time::{Duration, Instant};

#[global_allocator]
static ALLOC: Counting = Counting;

#[test]
fn every_regression_input_is_refused_or_round_trips() {
    let root = test_support::workspace_root().join("fixtures/regressions");
    let mut checked = 0;
    for format in Format::ALL {
        let dir = root.join(format.name());
        let entries = std::fs::read_dir(&dir).unwrap_or_else(|e| panic!("{}: {e}", dir.display()));
        let before = checked;
        for entry in entries {
            let path = entry.unwrap().path();
            let bytes = std::fs::read(&path).unwrap();
            let start = Instant::now();
            let (parsed, peak) = measure(|| Document::parse_as(format, &bytes));
            assert!(
                start.elapsed() < Duration::from_secs(1),
                "{}",
                path.display()
            );
            assert!(
                peak < 2 * bytes.len() + (1 << 20),
                "{}: peak {peak}",
                path.display()
            );
            if let Ok(parsed) = parsed {
                if let Ok(written) = parsed.document.to_bytes() {
                    let again = Document::parse_as(format, &written)
                        .unwrap_or_else(|e| panic!("{}: written copy: {e}", path.display()));
                    assert_eq!(
                        again.document.to_bytes().unwrap(),
                        written,
                        "{}",
                        path.display()
                    );
                }
            }
            // The facade's detect-then-parse path and the scene/glTF path must not panic either.
            if let Ok(doc) = models::from_bytes(&bytes) {
                if let Ok(conversion) = models::scene::Scene::from_document(&doc) {
                    let _ = models::gltf::to_glb(
                        &conversion.scene,
                        &models::gltf::GltfOptions::default(),
                    );
                }
            }
            checked += 1;
        }
        assert!(checked > before, "{}: no regression inputs", dir.display());
    }
    eprintln!("{checked} regression inputs checked");
}
