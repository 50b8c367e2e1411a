//! `models convert`: one file (`IN OUT`), or a batch (`--out-dir DIR INPUT...`) converted in
//! parallel.

use clap::{CommandFactory, ValueEnum};
use models::gltf::{self, GltfOptions};
use models::output::Overwrite;
use models::scene::{Scene, SceneOptions};
use models::Format;
use rayon::prelude::*;
use std::collections::HashSet;
use std::io::IsTerminal;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};

/// The glTF container written in batch mode.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub(crate) enum To {
    /// Binary glTF.
    Glb,
    /// glTF JSON with a .bin beside it.
    Gltf,
}

impl To {
    fn extension(self) -> &'static str {
        match self {
            To::Glb => "glb",
            To::Gltf => "gltf",
        }
    }
}

#[derive(Debug, clap::Args)]
pub(crate) struct Args {
    /// IN OUT for one file; with --out-dir, any number of input files and folders.
    #[arg(required = true, value_name = "PATH")]
    paths: Vec<PathBuf>,
    /// Batch mode: write one converted file per input into DIR.
    #[arg(long, value_name = "DIR")]
    out_dir: Option<PathBuf>,
    /// Batch mode: the container to write.
    #[arg(long, value_enum, default_value_t = To::Glb, requires = "out_dir")]
    to: To,
    /// Batch mode: also walk the sub-folders of folder inputs (the folder structure is kept
    /// under DIR).
    #[arg(long, requires = "out_dir")]
    recursive: bool,
    /// Overwrite existing outputs (never an input).
    #[arg(long)]
    force: bool,
    /// Print what would be written, and write nothing.
    #[arg(long)]
    dry_run: bool,
    /// Embed the textures found into the glTF (the default for .glb; TGA, BMP and DDS become
    /// PNG).
    #[arg(long, conflicts_with = "reference_textures")]
    embed_textures: bool,
    /// Write the textures found as PNG or JPEG files into OUTPUT-STEM_textures/ beside each
    /// output and refer to them by relative URI (the default for .gltf).
    #[arg(long)]
    reference_textures: bool,
    /// Also look for textures in DIR (after the input's folder; repeatable): the texture's
    /// relative path under DIR, then its file name alone.
    #[arg(long, value_name = "DIR")]
    texture_dir: Vec<PathBuf>,
    /// Also read texture paths that are absolute or lead out of the input's folder (through
    /// `..` or a link).
    #[arg(long)]
    allow_outside_textures: bool,
    /// BMF animation samples per second (BMF files do not store it).
    #[arg(long, default_value_t = 30.0, value_parser = positive_fps, value_name = "N")]
    bmf_fps: f32,
}

fn positive_fps(s: &str) -> Result<f32, String> {
    match s.parse::<f32>() {
        Ok(v) if v.is_finite() && v > 0.0 => Ok(v),
        _ => Err(format!(
            "{s:?} is not a positive number of frames per second"
        )),
    }
}

pub(crate) fn run(args: &Args) -> bool {
    match &args.out_dir {
        Some(dir) => batch(args, dir),
        None => {
            let [input, output] = args.paths.as_slice() else {
                crate::Cli::command()
                    .error(
                        clap::error::ErrorKind::WrongNumberOfValues,
                        "convert takes IN OUT, or --out-dir DIR INPUT...",
                    )
                    .exit();
            };
            single(args, input, output)
        }
    }
}

fn overwrite(args: &Args) -> Overwrite {
    if args.force {
        Overwrite::Allowed
    } else {
        Overwrite::Never
    }
}

/// What one conversion printed as warnings, or why it failed.
type Outcome = Result<Vec<String>, String>;

fn single(args: &Args, input: &Path, output: &Path) -> bool {
    let is_gltf = gltf::Container::from_path(output).is_some();
    if args.dry_run {
        let files = if is_gltf {
            gltf::output_files(output).unwrap_or_default()
        } else {
            vec![output.to_path_buf()]
        };
        return dry_run_line(args, input, &files);
    }
    let outcome = if is_gltf {
        to_gltf(args, input, output)
    } else {
        rewrite(input, output, overwrite(args))
    };
    match outcome {
        Ok(warnings) => {
            for w in warnings {
                eprintln!("warning: {}: {w}", input.display());
            }
            let size = std::fs::metadata(output).map(|m| m.len()).unwrap_or(0);
            eprintln!("wrote {} ({size} bytes)", output.display());
            true
        }
        Err(e) => {
            eprintln!("error: {e}");
            false
        }
    }
}

/// Prints `IN -> OUT…` for a dry run; false when an output exists and --force is not given.
fn dry_run_line(args: &Args, input: &Path, files: &[PathBuf]) -> bool {
    let names: Vec<String> = files.iter().map(|f| f.display().to_string()).collect();
    println!("{} -> {}", input.display(), names.join(" + "));
    let mut ok = true;
    for f in files {
        if !args.force && f.symlink_metadata().is_ok() {
            eprintln!(
                "error: {} already exists (use --force to overwrite)",
                f.display()
            );
            ok = false;
        }
    }
    ok
}

/// Same-format rewrite through the format's writer.
fn rewrite(input: &Path, output: &Path, overwrite: Overwrite) -> Outcome {
    let document = models::open(input).map_err(|e| e.to_string())?;
    let from = document.format();
    let to = Format::from_path(output).unwrap_or(from);
    if to != from {
        return Err(models::Error::UnsupportedConversion { from, to }
            .at(output)
            .to_string());
    }
    let bytes = document.to_bytes().map_err(|e| e.at(input).to_string())?;
    models::output::write_new_file(output, &bytes, Some(input), overwrite)
        .map_err(|e| e.to_string())?;
    Ok(Vec::new())
}

/// Reads `input`, converts it to a scene and writes `output` (.glb or .gltf + .bin).
fn to_gltf(args: &Args, input: &Path, output: &Path) -> Outcome {
    let parsed = models::open_with_warnings(input).map_err(|e| e.to_string())?;
    let options = SceneOptions {
        bmf_fps: args.bmf_fps,
        ..SceneOptions::default()
    };
    let conversion = Scene::from_document_with(&parsed.document, &options);
    let mut scene = conversion.scene;
    if scene.name.is_empty() {
        scene.name = input
            .file_stem()
            .map(|s| s.to_string_lossy().into_owned())
            .unwrap_or_default();
    }
    let gltf_options = GltfOptions {
        texture_folder: texture_folder(args, output),
        embed_textures: args.embed_textures || texture_folder(args, output).is_none(),
        allow_outside_textures: args.allow_outside_textures,
        texture_dirs: args.texture_dir.clone(),
        ..GltfOptions::for_source(input)
    };
    let written =
        gltf::write_file(&scene, output, &gltf_options, overwrite(args)).map_err(|e| match e {
            gltf::Error::Output(e) => e.to_string(),
            other => format!("{}: {other}", input.display()),
        })?;
    let mut warnings = parsed.warnings;
    warnings.extend(conversion.warnings.iter().map(ToString::to_string));
    warnings.extend(written.iter().map(ToString::to_string));
    Ok(warnings)
}

/// The folder, beside `output`, that its texture images are written into and referred to
/// from: `STEM_textures` for a `.gltf` (unless --embed-textures) or with
/// --reference-textures; `None` to embed them (the default for a `.glb`).
fn texture_folder(args: &Args, output: &Path) -> Option<String> {
    let gltf = gltf::Container::from_path(output) == Some(gltf::Container::Gltf);
    let beside = args.reference_textures || (gltf && !args.embed_textures);
    beside.then(|| {
        let stem = output
            .file_stem()
            .map(|s| s.to_string_lossy().into_owned())
            .unwrap_or_default();
        format!("{stem}_textures")
    })
}

/// One planned conversion of a batch.
struct Job {
    input: PathBuf,
    output: PathBuf,
}

fn batch(args: &Args, out_dir: &Path) -> bool {
    let mut failed = 0usize;
    let mut inputs: Vec<(PathBuf, PathBuf)> = Vec::new(); // (file, path relative to out_dir)
    for path in &args.paths {
        if path.is_dir() {
            collect_folder(path, path, args.recursive, &mut inputs, &mut failed);
        } else if path.is_file() {
            let name = path.file_name().map(PathBuf::from).unwrap_or_default();
            inputs.push((path.clone(), name));
        } else {
            eprintln!("error: {}: no such file or folder", path.display());
            failed += 1;
        }
    }
    let jobs = plan(inputs, out_dir, args.to);
    if args.dry_run {
        let mut ok = failed == 0;
        for job in &jobs {
            let files = gltf::output_files(&job.output).unwrap_or_default();
            ok &= dry_run_line(args, &job.input, &files);
        }
        return ok;
    }

    let bar = if std::io::stderr().is_terminal() {
        let bar = indicatif::ProgressBar::new(jobs.len() as u64);
        if let Ok(style) = indicatif::ProgressStyle::with_template(
            "{bar:40} {pos}/{len} {elapsed_precise} {wide_msg}",
        ) {
            bar.set_style(style);
        }
        bar
    } else {
        indicatif::ProgressBar::hidden()
    };
    let converted = AtomicUsize::new(0);
    let warned = AtomicUsize::new(0);
    let failed_jobs = AtomicUsize::new(0);
    jobs.par_iter().for_each(|job| {
        let outcome = job
            .output
            .parent()
            .map_or(Ok(()), std::fs::create_dir_all)
            .map_err(|e| format!("{}: {e}", job.output.display()))
            .and_then(|()| to_gltf(args, &job.input, &job.output));
        let mut lines = Vec::new();
        match outcome {
            Ok(warnings) => {
                converted.fetch_add(1, Ordering::Relaxed);
                if !warnings.is_empty() {
                    warned.fetch_add(1, Ordering::Relaxed);
                }
                for w in warnings {
                    lines.push(format!("warning: {}: {w}", job.input.display()));
                }
            }
            Err(e) => {
                failed_jobs.fetch_add(1, Ordering::Relaxed);
                lines.push(format!("error: {e}"));
            }
        }
        if !lines.is_empty() {
            bar.suspend(|| eprintln!("{}", lines.join("\n")));
        }
        bar.inc(1);
    });
    bar.finish_and_clear();
    let total = jobs.len() + failed;
    let failed = failed + failed_jobs.into_inner();
    eprintln!(
        "converted {}, failed {failed}, warned {} (of {total} inputs) into {}",
        converted.into_inner(),
        warned.into_inner(),
        out_dir.display()
    );
    failed == 0
}

/// The model files in `dir` (by extension), with their path relative to `top`; sub-folders
/// too when `recursive`. Sorted, so batches are reproducible.
fn collect_folder(
    top: &Path,
    dir: &Path,
    recursive: bool,
    out: &mut Vec<(PathBuf, PathBuf)>,
    failed: &mut usize,
) {
    let entries = match std::fs::read_dir(dir) {
        Ok(rd) => rd,
        Err(e) => {
            eprintln!("error: {}: {e}", dir.display());
            *failed += 1;
            return;
        }
    };
    let mut paths: Vec<PathBuf> = entries.filter_map(|e| e.ok().map(|e| e.path())).collect();
    paths.sort();
    for path in paths {
        if path.is_dir() {
            if recursive {
                collect_folder(top, &path, recursive, out, failed);
            }
        } else if Format::from_path(&path).is_some() {
            let rel = path.strip_prefix(top).unwrap_or(&path).to_path_buf();
            out.push((path, rel));
        }
    }
}

/// Output paths under `out_dir`: the relative path with the glTF extension. When two inputs
/// would share an output (`a.bmf` and `a.smf`), both keep their extension (`a.bmf.glb`).
fn plan(inputs: Vec<(PathBuf, PathBuf)>, out_dir: &Path, to: To) -> Vec<Job> {
    let plain = |rel: &Path| rel.with_extension(to.extension());
    let mut seen = HashSet::new();
    let mut clashing = HashSet::new();
    for (_, rel) in &inputs {
        if !seen.insert(plain(rel)) {
            clashing.insert(plain(rel));
        }
    }
    let mut jobs: Vec<Job> = Vec::with_capacity(inputs.len());
    let mut taken = HashSet::new();
    for (input, rel) in inputs {
        let mut out = plain(&rel);
        if clashing.contains(&out) {
            let mut name = rel.as_os_str().to_owned();
            name.push(".");
            name.push(to.extension());
            out = PathBuf::from(name);
        }
        // The same file named twice is converted once.
        if !taken.insert(out.clone()) {
            continue;
        }
        jobs.push(Job {
            input,
            output: out_dir.join(out),
        });
    }
    jobs
}
