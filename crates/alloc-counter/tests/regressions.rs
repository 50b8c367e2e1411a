//! The fuzzers' regression corpus: every file under `fixtures/regressions/<format>/` (inputs
//! that once crashed or hung a reader, minimised; see FUZZING.md) must be refused cleanly or,
//! if it is valid, read, write and read back to the same document, in bounded memory (and without hanging).
//! Besides the findings (none so far), each folder holds a sample of the campaign's final
//! corpus: the smallest input per kind of refusal and a few inputs that read (see FUZZING.md),
//! so that this test always has something to check for every format.

mod hostile;

use alloc_counter::{measure, Counting};
use models::{Document, Format};
use std::time::{Duration, Instant};

#[global_allocator]
static ALLOC: Counting = Counting;

/// Longer than any input here could take unless a reader hung.
const HUNG: Duration = Duration::from_secs(10);

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
            // A hang guard, not a timing assertion (each input reads in milliseconds).
            assert!(start.elapsed() < HUNG, "{}: hung", path.display());
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
            // The facade's detect-then-parse path and the scene/glTF path must not panic either,
            // and the conversion keeps its budget (issue 12).
            if let Ok(doc) = models::from_bytes(&bytes) {
                convert_within_budget(&path, &doc, bytes.len());
            }
            checked += 1;
        }
        assert!(checked > before, "{}: no regression inputs", dir.display());
    }
    eprintln!("{checked} regression inputs checked");
}

/// Converts `doc` (read from `len` bytes) under its budget and writes a `.glb`: peak memory and
/// output within 64 × len + 16 MiB, or a refusal that is `BudgetExceeded`.
fn convert_within_budget(path: &std::path::Path, doc: &Document, len: usize) {
    let bound = 64 * len + (16 << 20);
    let options = models::scene::SceneOptions {
        budget: models::scene::Budget::for_input(len as u64),
        ..models::scene::SceneOptions::default()
    };
    // In the heap only: the counting allocator does not see a mapped `.glb`.
    let (glb, peak) = models::bytes::heap_only(|| {
        measure(|| {
            let conversion = models::scene::Scene::from_document_with(doc, &options)?;
            models::gltf::to_glb(
                &models::scene::validate(conversion.scene).scene,
                &models::gltf::GltfOptions::default(),
            )
            .map_err(|e| models::Error::Io(std::io::Error::other(e.to_string())))
        })
    });
    assert!(peak <= bound, "{}: peak {peak} > {bound}", path.display());
    match glb {
        Ok(glb) => assert!(glb.len() <= bound, "{}: glb {}", path.display(), glb.len()),
        Err(models::Error::BudgetExceeded { .. }) => {}
        Err(e) => panic!("{}: {e}", path.display()),
    }
}

/// The `amplifying-*` files of the corpus are exactly what `hostile::corpus()` makes (so they
/// stay deterministic and can be remade: `MODELS_BLESS=1 cargo test -p alloc-counter --test
/// regressions`).
#[test]
fn amplifying_corpus_matches_its_generators() {
    // This crate's own path (not a shared helper's), since blessing writes files.
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fixtures/regressions");
    let bless = std::env::var_os("MODELS_BLESS").is_some();
    for (format, name, bytes) in hostile::corpus() {
        let path = root.join(format).join(name);
        if bless {
            std::fs::write(&path, &bytes).unwrap();
        }
        let on_disk = std::fs::read(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        assert!(
            on_disk == bytes,
            "{} differs from its generator",
            path.display()
        );
    }
}
