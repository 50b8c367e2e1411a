//! `models`: detect, inspect and convert legacy Japanese hobby-engine 3D models.
//!
//! Exit status: 0 when every file was fine, 1 when any file failed (each failure is reported on
//! stderr with its path and position, and the other files are still processed), 2 for a usage
//! error.

use clap::{Parser, Subcommand};
use models::{Format, Summary};
use serde_json::{json, Value};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

mod convert;

#[derive(Parser)]
#[command(name = "models", version, about, long_about = None)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Print each file's format, detected from its first bytes (or `unknown`).
    Detect {
        /// Files to look at.
        #[arg(required = true)]
        files: Vec<PathBuf>,
    },
    /// Print a summary of each file: meshes, vertices, faces, materials, bones, animations,
    /// textures.
    Info {
        /// Files to read.
        #[arg(required = true)]
        files: Vec<PathBuf>,
        /// One JSON object per line instead of text.
        #[arg(long)]
        json: bool,
    },
    /// Convert models to glTF 2.0 (`.glb`, or `.gltf` with a `.bin`), or re-write a model in
    /// its own format.
    ///
    ///   models convert IN OUT.glb|OUT.gltf|OUT.<same format>
    ///   models convert [--to glb|gltf] --out-dir DIR [--recursive] INPUT...
    ///
    /// Never writes onto an input; refuses existing outputs unless --force is given; writes
    /// through temporary files renamed into place.
    Convert(convert::Args),
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let ok = match cli.command {
        Command::Detect { files } => detect(&files),
        Command::Info { files, json } => info(&files, json),
        Command::Convert(args) => convert::run(&args),
    };
    if ok {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    }
}

/// Prints an error on stderr; returns whether the result was Ok.
fn report(result: Result<(), models::Error>) -> bool {
    match result {
        Ok(()) => true,
        Err(e) => {
            eprintln!("error: {e}");
            false
        }
    }
}

fn detect(files: &[PathBuf]) -> bool {
    let mut ok = true;
    for path in files {
        match read_head(path) {
            Ok(head) => {
                let name = models::detect_with_hint(&head, path).map_or("unknown", Format::name);
                println!("{}: {name}", path.display());
            }
            Err(e) => ok &= report(Err(models::Error::Io(e).at(path))),
        }
    }
    ok
}

/// The first bytes of a file: enough for every format's detection rule.
fn read_head(path: &Path) -> std::io::Result<Vec<u8>> {
    use std::io::Read;
    let mut head = Vec::with_capacity(64);
    std::fs::File::open(path)?.take(64).read_to_end(&mut head)?;
    Ok(head)
}

fn info(files: &[PathBuf], as_json: bool) -> bool {
    let mut ok = true;
    for path in files {
        let parsed = match models::open_with_warnings(path) {
            Ok(p) => p,
            Err(e) => {
                ok &= report(Err(e));
                continue;
            }
        };
        for w in &parsed.warnings {
            eprintln!("warning: {}: {w}", path.display());
        }
        let summary = parsed.document.summary();
        if as_json {
            println!("{}", summary_json(path, &summary));
        } else {
            print_summary(path, &summary);
        }
    }
    ok
}

fn summary_json(path: &Path, s: &Summary) -> Value {
    let mut v = json!({
        "path": path.display().to_string(),
        "format": s.format.name(),
        "version": s.version,
        "meshes": s.meshes,
        "vertices": s.vertices,
        "faces": s.faces,
        "materials": s.materials,
        "bones": s.bones,
        "animations": s.animations,
        "textures": s.textures,
    });
    if !s.details.is_empty() {
        v["details"] = Value::Object(s.details.clone());
    }
    v
}

fn print_summary(path: &Path, s: &Summary) {
    println!("{}: {} {}", path.display(), s.format, s.version);
    println!(
        "  meshes {}, vertices {}, faces {}, materials {}, bones {}, animations {}",
        s.meshes, s.vertices, s.faces, s.materials, s.bones, s.animations
    );
    if !s.textures.is_empty() {
        println!("  textures: {}", s.textures.join(", "));
    }
}
