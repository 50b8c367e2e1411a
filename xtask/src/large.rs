//! `cargo xtask gen-large`: writes the large benchmark models of every format into
//! `target/large/` (never committed), and 200 mid-size files into `target/large/batch/` for
//! the batch-conversion figures. The content comes from the `large-models` crate, the same
//! generators the criterion benches use; see BENCHMARKS.md.

use std::path::Path;

/// Writes the files; `batch` also writes `target/large/batch/`.
pub fn gen_large(root: &Path, batch: bool) -> Result<(), Box<dyn std::error::Error>> {
    let dir = root.join("target").join("large");
    std::fs::create_dir_all(&dir)?;
    for g in large_models::LARGE {
        let bytes = (g.generate)().map_err(|e| format!("{}: {e}", g.file))?;
        let path = dir.join(g.file);
        std::fs::write(&path, &bytes)?;
        eprintln!("wrote {} ({} bytes)", path.display(), bytes.len());
    }
    if batch {
        let dir = dir.join("batch");
        std::fs::create_dir_all(&dir)?;
        let mut total = 0;
        for i in 0..large_models::MID_COUNT {
            let (name, bytes) = large_models::mid(i).map_err(|e| format!("mid {i}: {e}"))?;
            std::fs::write(dir.join(name), &bytes)?;
            total += bytes.len();
        }
        eprintln!(
            "wrote {} mid-size files into {} ({total} bytes)",
            large_models::MID_COUNT,
            dir.display()
        );
    }
    Ok(())
}
