//! Workspace automation. Run through the cargo alias: `cargo xtask <command>`.
//!
//! * `regen-fixtures`: builds the fixture models in code and writes them into `fixtures/`.
//! * `regen-fixtures --check`: writes nothing; exits 1 if `fixtures/` differs from what would
//!   be written (CI runs this, so fixtures never drift from their generators).
//! * `validate-gltf`: converts every fixture and every sample in `../shared/samples` to `.glb`
//!   and runs the Khronos glTF-Validator on each (installed with npm into
//!   `target/gltf-validator` on first use); exits 1 if any file has an error.
//! * `gen-large [--no-batch]`: writes the large benchmark models into `target/large/`.

use clap::{Parser, Subcommand};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

mod fixtures;
mod large;
mod validate_gltf;

#[derive(Parser)]
#[command(name = "xtask", about = "models workspace automation")]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Regenerate fixtures/<format>/ from the models defined in xtask/src/fixtures/.
    // The comment is this command's `--help` text: `<format>` there is text, not HTML.
    #[allow(rustdoc::invalid_html_tags)]
    RegenFixtures {
        /// Do not write; exit non-zero if the committed fixtures differ.
        #[arg(long)]
        check: bool,
    },
    /// Convert every fixture and sample to .glb and run the Khronos glTF-Validator on each
    /// (needs node and npm; installs the validator into target/gltf-validator).
    ValidateGltf,
    /// Write the large benchmark models into target/large/ (see BENCHMARKS.md).
    GenLarge {
        /// Skip the 200 mid-size files of target/large/batch/.
        #[arg(long)]
        no_batch: bool,
    },
}

fn workspace_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .map(Path::to_path_buf)
        .unwrap_or_else(|| PathBuf::from("."))
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    match cli.command {
        Command::RegenFixtures { check } => match regen(check) {
            Ok(true) => ExitCode::SUCCESS,
            Ok(false) => ExitCode::FAILURE,
            Err(e) => {
                eprintln!("error: {e}");
                ExitCode::FAILURE
            }
        },
        Command::GenLarge { no_batch } => match large::gen_large(&workspace_root(), !no_batch) {
            Ok(()) => ExitCode::SUCCESS,
            Err(e) => {
                eprintln!("error: {e}");
                ExitCode::FAILURE
            }
        },
        Command::ValidateGltf => match validate_gltf::validate_gltf() {
            Ok(true) => ExitCode::SUCCESS,
            Ok(false) => ExitCode::FAILURE,
            Err(e) => {
                eprintln!("error: {e}");
                ExitCode::FAILURE
            }
        },
    }
}

/// Returns Ok(false) when `check` found differences.
fn regen(check: bool) -> Result<bool, Box<dyn std::error::Error>> {
    let root = workspace_root().join("fixtures");
    let mut clean = true;
    for (format, set) in fixtures::all()? {
        let dir = root.join(format);
        let wanted: Vec<(String, Vec<u8>)> = set;
        // Files present on disk that no generator produces are stale.
        let mut present: Vec<String> = std::fs::read_dir(&dir)
            .map(|rd| {
                rd.filter_map(|e| e.ok())
                    .filter(|e| e.path().is_file())
                    .filter_map(|e| e.file_name().into_string().ok())
                    .collect()
            })
            .unwrap_or_default();
        present.sort();
        for stale in present
            .iter()
            .filter(|p| !wanted.iter().any(|(n, _)| n == *p))
        {
            clean = false;
            if check {
                eprintln!("fixtures/{format}/{stale}: not produced by any generator");
            } else {
                std::fs::remove_file(dir.join(stale))?;
                eprintln!("removed fixtures/{format}/{stale}");
            }
        }
        if !check {
            std::fs::create_dir_all(&dir)?;
        }
        for (name, bytes) in &wanted {
            let path = dir.join(name);
            let same = std::fs::read(&path).map(|b| &b == bytes).unwrap_or(false);
            if same {
                continue;
            }
            clean = false;
            if check {
                eprintln!("fixtures/{format}/{name}: differs from its generator");
            } else {
                std::fs::write(&path, bytes)?;
                eprintln!("wrote fixtures/{format}/{name} ({} bytes)", bytes.len());
            }
        }
    }
    if check && !clean {
        eprintln!("fixtures are out of date: run `cargo xtask regen-fixtures` and commit");
        return Ok(false);
    }
    if clean {
        eprintln!("fixtures are up to date");
    }
    Ok(true)
}
