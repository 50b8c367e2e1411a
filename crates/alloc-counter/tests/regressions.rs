//! The fuzzers' regression corpus: every file under `fixtures/regressions/<format>/` (inputs
//! that once crashed or hung a reader, minimised; see FUZZING.md) must be refused cleanly or,
//! if it is valid, read, write and read back to the same document, in bounded time and memory.
//! A missing folder means no finding for that format yet.

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
        let Ok(entries) = std::fs::read_dir(&dir) else {
            continue;
        };
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
                let scene = models::scene::Scene::from_document(&doc).scene;
                let _ = models::gltf::to_glb(&scene, &models::gltf::GltfOptions::default());
            }
            checked += 1;
        }
    }
    eprintln!("{checked} regression inputs checked");
}
