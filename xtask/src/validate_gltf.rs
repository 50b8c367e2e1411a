//! `cargo xtask validate-gltf`: converts every fixture and every real sample to `.glb` with the
//! `models` binary and runs the Khronos glTF-Validator (the npm package `gltf-validator`,
//! installed locally on first use) on each. Exits non-zero if any file fails to convert
//! (other than the samples that are invalid by design) or has a validator error. The `.glb`
//! files written by the writer's own tests (`crates/models/tests/gltf_writer.rs`, which include
//! deliberately broken scenes that the writer repairs) are validated too.

use std::path::{Path, PathBuf};
use std::process::Command;

/// Samples that must fail to convert: negative samples of the specs.
const EXPECTED_FAILURES: &[(&str, &str)] = &[(
    "altseed_legacy_",
    "MDL 2014 development layout (read only by LegacyMdl)",
)];

/// The model extensions, one folder per format under fixtures/ and the samples folder.
const FORMATS: &[&str] = &["bmf", "smf", "mdl", "elem", "skm"];

const SCRIPT: &str = r#"// Written by `cargo xtask validate-gltf`.
// Usage: node validate.js FILE.glb SOURCE_FOLDER [FILE.glb SOURCE_FOLDER]...
// External URIs (textures) are loaded relative to SOURCE_FOLDER, the folder of the model the
// .glb was converted from, which is where the converter's relative texture URIs point.
// Prints one line per file:
//   path <TAB> errors <TAB> warnings <TAB> infos <TAB> missing images <TAB> codes
// where an image URI whose file does not exist is counted under "missing images", not errors.
const fs = require('fs');
const path = require('path');
const validator = require('gltf-validator');
(async () => {
  let failed = false;
  const args = process.argv.slice(2);
  for (let k = 0; k + 1 < args.length; k += 2) {
    const file = args[k];
    const base = args[k + 1];
    const missing = new Set();
    try {
      const report = await validator.validateBytes(new Uint8Array(fs.readFileSync(file)), {
        uri: file,
        maxIssues: 0,
        externalResourceFunction: (uri) => new Promise((resolve, reject) => {
          const p = path.resolve(base, decodeURIComponent(uri));
          fs.readFile(p, (err, data) => {
            if (err) { missing.add(uri); reject(`missing ${p}`); } else { resolve(data); }
          });
        }),
      });
      let errors = 0;
      let missingImages = 0;
      const counts = {};
      for (const m of report.issues.messages) {
        const isMissing = m.code === 'IO_ERROR' && /^\/images\/\d+\/uri$/.test(m.pointer || '');
        if (isMissing) { missingImages += 1; continue; }
        if (m.severity === 0) errors += 1;
        if (m.severity <= 1) {
          const key = (m.severity === 0 ? 'E:' : 'W:') + m.code;
          counts[key] = (counts[key] || 0) + 1;
        }
        if (m.severity === 0) console.error(`${file}: ${m.code} at ${m.pointer || '?'}: ${m.message}`);
      }
      const codes = Object.entries(counts).map(([c, n]) => `${c}x${n}`).join(',');
      const n = report.issues;
      console.log([file, errors, n.numWarnings, n.numInfos, missingImages, codes].join('\t'));
    } catch (e) {
      failed = true;
      console.log([file, 1, 0, 0, 0, 'E:VALIDATOR_REJECTED:' + String(e).replace(/\s+/g, ' ')].join('\t'));
    }
  }
  process.exitCode = failed ? 1 : 0;
})();
"#;

/// One converted file and what the validator said.
struct Row {
    name: String,
    status: Status,
}

enum Status {
    Validated {
        errors: u64,
        warnings: u64,
        infos: u64,
        missing_images: u64,
        codes: String,
    },
    ConvertFailed(String),
    ExpectedFailure(&'static str),
}

/// The cargo target folder (`$CARGO_TARGET_DIR` or `<root>/target`).
fn target_dir(root: &Path) -> PathBuf {
    match std::env::var_os("CARGO_TARGET_DIR") {
        Some(d) if !d.is_empty() => root.join(d),
        _ => root.join("target"),
    }
}

fn samples_root(root: &Path) -> PathBuf {
    match std::env::var_os("MODELS_SAMPLES_DIR") {
        Some(d) if !d.is_empty() => PathBuf::from(d),
        _ => root.join("../shared/samples"),
    }
}

fn model_files(dir: &Path, ext: &str) -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir)
        .map(|rd| {
            rd.filter_map(|e| e.ok().map(|e| e.path()))
                .filter(|p| p.extension().is_some_and(|e| e.eq_ignore_ascii_case(ext)))
                .collect()
        })
        .unwrap_or_default();
    files.sort();
    files
}

fn run(cmd: &mut Command) -> Result<std::process::Output, Box<dyn std::error::Error>> {
    cmd.output()
        .map_err(|e| format!("cannot run {:?}: {e}", cmd.get_program()).into())
}

/// Installs the validator into `<target>/gltf-validator` unless it is there.
fn install_validator(dir: &Path) -> Result<(), Box<dyn std::error::Error>> {
    if dir
        .join("node_modules/gltf-validator/package.json")
        .is_file()
    {
        return Ok(());
    }
    eprintln!(
        "installing the npm package gltf-validator into {}",
        dir.display()
    );
    std::fs::create_dir_all(dir)?;
    let out = run(Command::new("npm")
        .arg("install")
        .arg("--prefix")
        .arg(dir)
        .args([
            "--no-audit",
            "--no-fund",
            "--loglevel=error",
            "gltf-validator",
        ]))?;
    if !out.status.success() {
        return Err(format!(
            "npm install gltf-validator failed: {}",
            String::from_utf8_lossy(&out.stderr)
        )
        .into());
    }
    Ok(())
}

pub fn validate_gltf() -> Result<bool, Box<dyn std::error::Error>> {
    let root = super::workspace_root();
    let target = target_dir(&root);
    let validator_dir = target.join("gltf-validator");
    let out_root = target.join("gltf-validate");
    install_validator(&validator_dir)?;
    let script = validator_dir.join("validate.js");
    std::fs::write(&script, SCRIPT)?;

    let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
    let models = build_models(&cargo, &root, &target)?;
    let mut rows = Vec::new();
    let mut glbs = Vec::new();
    convert_models(&models, &root, &out_root, &mut rows, &mut glbs)?;
    writer_test_outputs(&cargo, &root, &out_root, &mut rows, &mut glbs)?;
    // One node process for all files.
    if !glbs.is_empty() {
        run_validator(&script, &glbs, &mut rows)?;
    }
    Ok(print_table(&rows, &out_root))
}

/// A converted `.glb` to validate: its row, its path and the folder its textures are beside.
type Glb = (usize, PathBuf, PathBuf);

/// Builds the `models` binary (debug) and returns its path.
fn build_models(
    cargo: &std::ffi::OsStr,
    root: &Path,
    target: &Path,
) -> Result<PathBuf, Box<dyn std::error::Error>> {
    eprintln!("building the models binary");
    let status = Command::new(cargo)
        .current_dir(root)
        .args(["build", "--quiet", "-p", "models-cli", "--bin", "models"])
        .status()?;
    if !status.success() {
        return Err("cargo build -p models-cli failed".into());
    }
    Ok(target
        .join("debug")
        .join(format!("models{}", std::env::consts::EXE_SUFFIX)))
}

/// Every fixture and sample, converted one by one so each failure is attributed: a row each,
/// and the converted ones to validate.
fn convert_models(
    models: &Path,
    root: &Path,
    out_root: &Path,
    rows: &mut Vec<Row>,
    glbs: &mut Vec<Glb>,
) -> Result<(), Box<dyn std::error::Error>> {
    let samples = samples_root(root);
    if !samples.is_dir() {
        eprintln!(
            "note: sample folder {} not found: only fixtures are validated",
            samples.display()
        );
    }
    for (set, base) in [("fixtures", root.join("fixtures")), ("samples", samples)] {
        for format in FORMATS {
            let dir = out_root.join(set).join(format);
            std::fs::create_dir_all(&dir)?;
            for input in model_files(&base.join(format), format) {
                let stem = input
                    .file_stem()
                    .map(|s| s.to_string_lossy().into_owned())
                    .unwrap_or_default();
                let name = format!("{set}/{format}/{stem}");
                let glb = dir.join(format!("{stem}.glb"));
                let status = convert_one(models, &input, &stem, glb, rows.len(), glbs)?;
                rows.push(Row { name, status });
            }
        }
    }
    Ok(())
}

/// Converts `input` to `glb`: pushed onto `glbs` (as row `row`) when it converts, else the
/// failure, expected (a negative sample) or not.
fn convert_one(
    models: &Path,
    input: &Path,
    stem: &str,
    glb: PathBuf,
    row: usize,
    glbs: &mut Vec<Glb>,
) -> Result<Status, Box<dyn std::error::Error>> {
    let out = run(Command::new(models)
        .arg("convert")
        .arg("--force")
        .arg(input)
        .arg(&glb))?;
    let expected = EXPECTED_FAILURES
        .iter()
        .find(|(prefix, _)| stem.starts_with(prefix));
    Ok(match (out.status.success(), expected) {
        (true, _) => {
            let source = input.parent().unwrap_or(Path::new(".")).to_path_buf();
            glbs.push((row, glb, source));
            Status::ConvertFailed("not validated".into())
        }
        (false, Some((_, why))) => Status::ExpectedFailure(why),
        (false, None) => {
            let err = String::from_utf8_lossy(&out.stderr);
            let line = err
                .lines()
                .find(|l| l.starts_with("error:"))
                .unwrap_or("failed")
                .to_owned();
            Status::ConvertFailed(line)
        }
    })
}

/// The writer's own tests dump their scenes (repaired invalid data included): a row each, to
/// validate.
fn writer_test_outputs(
    cargo: &std::ffi::OsStr,
    root: &Path,
    out_root: &Path,
    rows: &mut Vec<Row>,
    glbs: &mut Vec<Glb>,
) -> Result<(), Box<dyn std::error::Error>> {
    let dump = out_root.join("writer-tests");
    let _ = std::fs::remove_dir_all(&dump);
    eprintln!("running the glTF writer tests to collect their outputs");
    let out = run(Command::new(cargo)
        .current_dir(root)
        .env("MODELS_GLTF_DUMP_DIR", &dump)
        .args(["test", "--quiet", "-p", "models", "--test", "gltf_writer"]))?;
    if !out.status.success() {
        return Err(format!(
            "cargo test -p models --test gltf_writer failed:\n{}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        )
        .into());
    }
    for glb in model_files(&dump, "glb") {
        let stem = glb
            .file_stem()
            .map(|s| s.to_string_lossy().into_owned())
            .unwrap_or_default();
        glbs.push((rows.len(), glb, dump.clone()));
        rows.push(Row {
            name: format!("writer-tests/{stem}"),
            status: Status::ConvertFailed("not validated".into()),
        });
    }
    Ok(())
}

/// Runs the validator script once on every `glbs` file and sets its row's status from the
/// report line.
fn run_validator(
    script: &Path,
    glbs: &[Glb],
    rows: &mut [Row],
) -> Result<(), Box<dyn std::error::Error>> {
    let out = run(Command::new("node")
        .arg(script)
        .args(glbs.iter().flat_map(|(_, glb, source)| [glb, source])))?;
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    for line in stdout.lines() {
        let f: Vec<&str> = line.split('\t').collect();
        let [file, e, w, i, m, codes] = f.as_slice() else {
            continue;
        };
        let Some((row, _, _)) = glbs.iter().find(|(_, p, _)| p.to_string_lossy() == *file) else {
            continue;
        };
        if let Some(r) = rows.get_mut(*row) {
            r.status = Status::Validated {
                errors: e.parse().unwrap_or(1),
                warnings: w.parse().unwrap_or(0),
                infos: i.parse().unwrap_or(0),
                missing_images: m.parse().unwrap_or(0),
                codes: (*codes).to_owned(),
            };
        }
    }
    if !stderr.trim().is_empty() {
        eprintln!("{}", stderr.trim_end());
    }
    if stdout.lines().count() != glbs.len() {
        return Err(format!(
            "the validator reported on {} of {} files: {}",
            stdout.lines().count(),
            glbs.len(),
            stderr.trim()
        )
        .into());
    }
    Ok(())
}

/// Prints the table of every row and the totals; whether every file converted and validated
/// without error.
fn print_table(rows: &[Row], out_root: &Path) -> bool {
    let width = rows.iter().map(|r| r.name.len()).max().unwrap_or(4).max(4);
    println!(
        "{:width$}  {:>6}  {:>8}  {:>5}  {:>7}  codes (E: error, W: warning)",
        "file", "errors", "warnings", "infos", "missing"
    );
    let mut ok = true;
    let (mut files, mut errors_total, mut warnings_total, mut missing_total) = (0, 0, 0, 0);
    for r in rows {
        match &r.status {
            Status::Validated {
                errors,
                warnings,
                infos,
                missing_images,
                codes,
            } => {
                files += 1;
                errors_total += errors;
                warnings_total += warnings;
                ok &= *errors == 0;
                missing_total += missing_images;
                println!(
                    "{:width$}  {errors:>6}  {warnings:>8}  {infos:>5}  {missing_images:>7}  {codes}",
                    r.name
                );
            }
            Status::ConvertFailed(e) => {
                ok = false;
                println!("{:width$}  conversion failed: {e}", r.name);
            }
            Status::ExpectedFailure(why) => {
                println!("{:width$}  skipped: fails by design ({why})", r.name);
            }
        }
    }
    println!(
        "{files} files validated: {errors_total} errors, {warnings_total} warnings; \
         {missing_total} texture images referenced but absent beside their model (outputs in {})",
        out_root.display()
    );
    ok
}
