//! `models convert`: one file (`IN OUT`), or a batch (`--out-dir DIR INPUT...`) converted in
//! parallel. Models to glTF here; glTF (or a model of another format) to a model in
//! [`import`].

mod import;

use crate::gather::{gather, Input};
use crate::said::{self, Said};
use clap::{CommandFactory, ValueEnum};
use import::Target;
use models::gltf::{self, GltfOptions, HeldTextures};
use models::output::Overwrite;
use models::scene::{Scene, SceneOptions};
use models::Format;
use rayon::prelude::*;
use std::collections::{HashMap, HashSet};
use std::io::IsTerminal;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};

/// What batch mode writes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub(crate) enum To {
    /// Binary glTF.
    Glb,
    /// glTF JSON with a .bin beside it.
    Gltf,
    /// Selene .smf (from glTF or another format).
    Smf,
    /// BaseCross .bmf (from glTF or another format).
    Bmf,
    /// Altseed .mdl (from glTF or another format).
    Mdl,
    /// Elfreina .elem (from glTF or another format).
    Elem,
    /// EditAnimation .skm (from glTF or another format).
    Skm,
}

impl To {
    fn target(self) -> Target {
        match self {
            To::Glb => Target::Gltf(gltf::Container::Glb),
            To::Gltf => Target::Gltf(gltf::Container::Gltf),
            To::Smf => Target::Model(Format::Smf),
            To::Bmf => Target::Model(Format::Bmf),
            To::Mdl => Target::Model(Format::Mdl),
            To::Elem => Target::Model(Format::Elem),
            To::Skm => Target::Model(Format::Skm),
        }
    }

    fn extension(self) -> &'static str {
        match self.target() {
            Target::Gltf(gltf::Container::Glb) => "glb",
            Target::Gltf(gltf::Container::Gltf) => "gltf",
            Target::Model(format) => format.extensions().first().copied().unwrap_or("bin"),
        }
    }
}

#[derive(Debug, clap::Args)]
pub(crate) struct Args {
    /// IN OUT for one file; with --out-dir, any number of input files, folders and packs (a
    /// pack's models keep their folders in the pack under DIR, under a folder of the pack's
    /// name for a pack found in a folder).
    #[arg(required = true, value_name = "PATH")]
    paths: Vec<PathBuf>,
    /// Batch mode: write one converted file per input into DIR.
    #[arg(long, value_name = "DIR")]
    out_dir: Option<PathBuf>,
    /// Batch mode: what to write. glTF files among the inputs are read when it is a model
    /// format (a folder's .glb/.gltf files only then).
    #[arg(long, value_enum, default_value_t = To::Glb, requires = "out_dir")]
    to: To,
    /// Batch mode: also walk the sub-folders of folder inputs (the folder structure is kept
    /// under DIR; links to folders are not followed).
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
    /// BMF animation samples per second (BMF files do not store it): a number from 1 to 1000.
    #[arg(long, default_value_t = 30.0, value_parser = rate_parser(1.0, 1000.0, "frames per second"), value_name = "N")]
    bmf_fps: f32,
    /// SMF animation key ticks per second (SMF files do not store it; 4800 is the DirectX
    /// `.x` default, a guess): a number from 1 to 1000000.
    #[arg(long, default_value_t = 4800.0, value_parser = rate_parser(1.0, 1_000_000.0, "ticks per second"), value_name = "N")]
    smf_ticks_per_second: f32,
    /// MDL keyframes per second (FBX2MDL bakes at 60): a number from 1 to 1000.
    #[arg(long, default_value_t = 60.0, value_parser = rate_parser(1.0, 1000.0, "frames per second"), value_name = "N")]
    mdl_fps: f32,
    /// Model output: the original file of the output's format (e.g. the .smf a .glb was
    /// exported from), which fills in what the scene does not carry; a mesh an editor gave
    /// back unchanged (its vertices split, as Blender does) gets the original's vertices again,
    /// and a skeleton and clips that move as the original's (bones turned and clips
    /// resampled, as Blender does) get its bones and keys again.
    #[arg(long, value_name = "FILE")]
    base: Option<PathBuf>,
    /// .bmf output (one animation per file): the one glTF clip to take, by name. Without it
    /// every clip is taken, one after the other, with a warning listing their times.
    #[arg(long, value_name = "NAME")]
    clip: Option<String>,
    /// .mdl output: the MDL version to write, 1 (matrix bones) or 2 (TRS bones). Without it:
    /// the --base's version, else the version the glTF's export recorded, else 2.
    #[arg(long, value_parser = clap::value_parser!(u32).range(1..=2), value_name = "1|2")]
    mdl_version: Option<u32>,
    /// Model output: replace a name the format cannot encode or hold (fixed Shift-JIS fields)
    /// instead of refusing the file, with a warning.
    #[arg(long)]
    replace_bad_names: bool,
    /// glTF input: also read buffers (`.bin`) that are absolute paths or lead out of the
    /// `.gltf`'s folder.
    #[arg(long)]
    allow_outside_buffers: bool,
    /// Merge the animations of several files of one character (same meshes, same bones; e.g.
    /// one BaseCross .bmf per animation) into one glTF: INPUT... OUT, one clip per input,
    /// named after its file.
    #[arg(long, conflicts_with = "out_dir")]
    merge_clips: bool,
    #[command(flatten)]
    password: crate::pack::PasswordArg,
    /// The folder listings of texture lookups, shared by all the conversions of a run: a batch
    /// over one folder reads it once, not once per model (not an option).
    #[arg(skip)]
    texture_listings: gltf::TextureListings,
}

/// A parser for a rate option: a finite number in `min..=max`. The bounds keep the rate
/// sensible: a tiny rate such as `1e-40` would put every key past `f32`'s range and collapse
/// them, a huge one would squeeze a clip into nothing.
pub(crate) fn rate_parser(
    min: f32,
    max: f32,
    unit: &'static str,
) -> impl Fn(&str) -> Result<f32, String> + Clone + Send + Sync + 'static {
    move |s: &str| match s.trim().parse::<f32>() {
        Ok(v) if v.is_finite() && (min..=max).contains(&v) => Ok(v),
        _ => Err(format!(
            "{s:?} is not a number of {unit} from {min} to {max}"
        )),
    }
}

impl Args {
    /// A batch (`--out-dir`): outputs are written from rayon's threads and an I/O thread.
    pub(crate) fn is_batch(&self) -> bool {
        self.out_dir.is_some()
    }

    /// The paths given as inputs (all of a batch's; all but the last, the output, otherwise)
    /// and `--base`: files or folders, as named.
    pub(crate) fn named_inputs(&self) -> impl Iterator<Item = &Path> {
        let inputs = match self.out_dir {
            Some(_) => &self.paths[..],
            None => &self.paths[..self.paths.len().saturating_sub(1)],
        };
        inputs.iter().chain(&self.base).map(PathBuf::as_path)
    }
}

pub(crate) fn run(args: &Args) -> bool {
    if args.merge_clips {
        return merge(args);
    }
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
type Outcome = Result<Vec<Said>, String>;

/// Exits with a usage error (status 2) unless `output` ends in `.glb`, `.gltf` or the
/// extension of one of the five formats: anything else would have no writer.
fn require_known_extension(output: &Path) {
    if gltf::Container::from_path(output).is_none() && Format::from_path(output).is_none() {
        let known: Vec<&str> = Format::ALL.iter().map(|f| f.name()).collect();
        crate::Cli::command()
            .error(
                clap::error::ErrorKind::InvalidValue,
                format!(
                    "{}: the output must end in .glb, .gltf or a model extension (.{})",
                    said::shown(output),
                    known.join(", .")
                ),
            )
            .exit();
    }
}

fn single(args: &Args, input: &Path, output: &Path) -> bool {
    if input.is_dir() {
        eprintln!(
            "error: {} is a folder; to convert the models in it, use --out-dir DIR (and \
             --recursive for its sub-folders)",
            said::shown(input)
        );
        return false;
    }
    let Some(target) = Target::of_path(output) else {
        require_known_extension(output);
        return false; // require_known_extension has exited
    };
    import::check_options(args, target);
    if let Target::Model(format) = target {
        import::check_same_format(args, input, format);
    }
    // Read before a dry run too: a base of the wrong format is a usage error either way.
    let base = match import::base_for(args, target) {
        Ok(base) => base,
        Err(e) => {
            eprintln!("{}", said::error_line(&e));
            return false;
        }
    };
    if args.dry_run {
        return match regular_input(&crate::pack::source_file(input)) {
            Ok(()) => {
                let ok = dry_run_line(args, input, &target.files(output));
                dry_run_textures(args, input, output, target);
                ok
            }
            Err(e) => crate::report(Err(e)),
        };
    }
    let outcome = match target {
        Target::Gltf(_) => to_gltf(args, input, output),
        Target::Model(format) => import::to_model(args, input, output, format, base.as_ref()),
    };
    match outcome {
        Ok(warnings) => {
            said::print(input, &warnings);
            eprintln!("wrote {}", written_files(args, output));
            true
        }
        Err(e) => {
            eprintln!("{}", said::error_line(&e));
            false
        }
    }
}

/// `x.gltf (N bytes), x.bin (M bytes), x_textures/ (K files)`: every file a conversion wrote.
fn written_files(args: &Args, output: &Path) -> String {
    let size = |p: &Path| std::fs::metadata(p).map(|m| m.len()).unwrap_or(0);
    let files = gltf::output_files(output).unwrap_or_else(|_| vec![output.to_path_buf()]);
    let mut parts: Vec<String> = files
        .iter()
        .map(|f| format!("{} ({} bytes)", said::shown(f), size(f)))
        .collect();
    if gltf::Container::from_path(output).is_some() {
        if let Some(folder) = texture_folder(args, output) {
            let dir = output.with_file_name(folder);
            if let Ok(entries) = std::fs::read_dir(&dir) {
                let n = entries.filter_map(Result::ok).count();
                parts.push(format!("{}/ ({n} images)", said::shown(&dir)));
            }
        }
    }
    parts.join(", ")
}

/// Prints `IN -> OUT…` for a dry run; false when an output exists and --force is not given.
fn dry_run_line(args: &Args, input: &Path, files: &[PathBuf]) -> bool {
    let names: Vec<String> = files.iter().map(|f| said::shown(f)).collect();
    outln!("{} -> {}", said::shown(input), names.join(" + "));
    let mut ok = true;
    for f in files {
        if !args.force && f.symlink_metadata().is_ok() {
            eprintln!(
                "error: {} already exists (use --force to overwrite)",
                said::shown(f)
            );
            ok = false;
        }
    }
    ok
}

/// For a dry run to glTF: the texture images the conversion would embed or write beside the
/// output, and the ones it would not find. This reads and converts the input (no file is
/// written). An input that cannot be read gets a note; as before, a dry run plans and does not
/// judge inputs, so its exit status only says whether the outputs could be written.
fn dry_run_textures(args: &Args, input: &Path, output: &Path, target: Target) {
    if !matches!(target, Target::Gltf(_)) || import::is_gltf_input(input) {
        return; // model outputs have no images; glTF input is refused by the real run
    }
    let report = match crate::pack::open_with_textures(input, &args.password).and_then(
        |(parsed, input_len, held)| {
            Scene::from_document_with(&parsed.document, &scene_options(args, input_len))
                .map(|conversion| (conversion, held))
                .map_err(|e| said::error_text(&e.at(input)))
        },
    ) {
        Ok((conversion, held)) => {
            let lookup = models::inspect::TextureLookup {
                dirs: args.texture_dir.clone(),
                allow_outside: args.allow_outside_textures,
                listings: args.texture_listings.clone(),
                held,
                ..models::inspect::TextureLookup::beside(crate::pack::source_file(input))
            };
            models::inspect::Report::from_scene(&conversion.scene, false, &lookup)
        }
        Err(e) => {
            eprintln!("note: images not listed: {e}");
            return;
        }
    };
    let mut found: Vec<&Path> = Vec::new();
    for texture in report.materials.iter().flat_map(|m| &m.textures) {
        if let models::inspect::TextureStatus::Found(path) = &texture.status {
            if !found.contains(&path.as_path()) {
                found.push(path);
            }
        }
    }
    if !found.is_empty() {
        let names: Vec<String> = found.iter().map(|p| said::shown(p)).collect();
        let images = match found.len() {
            1 => "1 image".to_string(),
            n => format!("{n} images"),
        };
        match texture_folder(args, output) {
            Some(folder) => outln!(
                "  + {}/ ({images}, as PNG or JPEG, from {})",
                said::shown(&output.with_file_name(folder)),
                names.join(", ")
            ),
            None => outln!("  embeds {images}: {}", names.join(", ")),
        }
    }
    let missing = report.missing_textures();
    if !missing.is_empty() {
        let names: Vec<String> = missing.iter().map(|p| said::escape(p)).collect();
        outln!("  textures not found: {}", names.join(", "));
    }
}

/// Refuses an input that is not a regular file (after following links), from its metadata
/// alone: a FIFO or a device is never opened.
fn regular_input(path: &Path) -> Result<(), models::Error> {
    let metadata = std::fs::metadata(path).map_err(|e| models::Error::Io(e).at(path))?;
    match models::input::not_regular_kind(&metadata) {
        Some(kind) => Err(models::Error::NotRegularFile(kind).at(path)),
        None => Ok(()),
    }
}

/// The conversion options of the export direction, with the budget of an input of
/// `input_len` bytes (see models::scene::Budget).
fn scene_options(args: &Args, input_len: u64) -> SceneOptions {
    SceneOptions {
        bmf_fps: args.bmf_fps,
        smf_ticks_per_second: args.smf_ticks_per_second,
        mdl_fps: args.mdl_fps,
        budget: models::scene::Budget::for_input(input_len),
    }
}

/// Reads `input`, converts it to a scene and writes `output` (.glb or .gltf + .bin).
fn to_gltf(args: &Args, input: &Path, output: &Path) -> Outcome {
    if import::is_gltf_input(input) {
        return Err(format!(
            "{}: is glTF already; convert writes glTF from .smf, .skm, .elem, .mdl and .bmf, \
             and those formats from glTF (convert IN.glb OUT.smf)",
            said::shown(input)
        ));
    }
    // The conversion budget derives from the input's size (see models::scene::Budget).
    let (parsed, input_len, held) = crate::pack::open_with_textures(input, &args.password)?;
    let mut warnings: Vec<Said> = parsed.warnings.iter().map(Said::reader).collect();
    // The conversion consumes the document, freeing each part once converted, and the writer
    // streams from the scene alone: peak memory is about the larger of the document and the
    // scene (plus what the writer adds), never their sum.
    let conversion =
        Scene::from_owned_document_with(parsed.document, &scene_options(args, input_len))
            .map_err(|e| said::error_text(&e.at(input)))?;
    let mut scene = conversion.scene;
    if scene.name.is_empty() {
        scene.name = crate::pack::model_stem(input);
    }
    warnings.extend(conversion.warnings.iter().map(Said::scene));
    warnings.extend(write_gltf(args, scene, input, output, held)?);
    Ok(warnings)
}

/// Validates `scene`, converted from `input`, and writes it to `output` (.glb or .gltf +
/// .bin); returns validation's warnings (every repair), then the writer's.
fn write_gltf(
    args: &Args,
    scene: Scene,
    input: &Path,
    output: &Path,
    held_textures: HeldTextures,
) -> Outcome {
    let valid = models::scene::validate(scene);
    let gltf_options = GltfOptions {
        texture_folder: texture_folder(args, output),
        embed_textures: args.embed_textures || texture_folder(args, output).is_none(),
        allow_outside_textures: args.allow_outside_textures,
        texture_dirs: args.texture_dir.clone(),
        texture_listings: args.texture_listings.clone(),
        held_textures,
        ..GltfOptions::for_source(crate::pack::source_file(input))
    };
    // An error naming its own file (the output exists, is the input, …) is said as it is;
    // any other is the input's.
    let written = gltf::write_file(&valid.scene, output, &gltf_options, overwrite(args)).map_err(
        |e| match e.path() {
            Some(_) => said::error_text(&e),
            None => said::error_text(&e.at(input)),
        },
    )?;
    let said = valid
        .warnings
        .iter()
        .chain(&written)
        .map(Said::scene)
        .collect();
    if !args.is_batch() {
        // The process ends after its one conversion, and the kernel takes the scene's memory
        // back at once; dropping it would free its thousands of blocks one by one first (2 %
        // of an animated character's conversion).
        std::mem::forget(valid);
    }
    Ok(said)
}

/// `--merge-clips INPUT... OUT`: one glTF with one clip per input (see
/// [`models::scene::merge_clips`]); each input is converted within its own budget and the
/// merged scene within the budget of all inputs together.
fn merge(args: &Args) -> bool {
    let Some((output, inputs)) = args.paths.split_last().filter(|(_, i)| !i.is_empty()) else {
        crate::Cli::command()
            .error(
                clap::error::ErrorKind::WrongNumberOfValues,
                "--merge-clips takes INPUT... OUT",
            )
            .exit();
    };
    if gltf::Container::from_path(output).is_none() {
        crate::Cli::command()
            .error(
                clap::error::ErrorKind::InvalidValue,
                format!(
                    "{}: --merge-clips writes .glb or .gltf",
                    said::shown(output)
                ),
            )
            .exit();
    }
    if args.dry_run {
        let names: Vec<String> = inputs.iter().map(|i| said::shown(i)).collect();
        let files = gltf::output_files(output).unwrap_or_default();
        return dry_run_line(args, Path::new(&names.join(" + ")), &files);
    }
    match merged_gltf(args, inputs, output) {
        Ok(said) => {
            for (path, warnings) in said {
                said::print(&path, &warnings);
            }
            eprintln!("wrote {}", written_files(args, output));
            true
        }
        Err(e) => {
            eprintln!("{}", said::error_line(&e));
            false
        }
    }
}

/// Converts and merges `inputs` and writes `output`; returns the warnings of each input (and
/// of the merge and the writer, under the output's name).
fn merged_gltf(
    args: &Args,
    inputs: &[PathBuf],
    output: &Path,
) -> Result<Vec<(PathBuf, Vec<Said>)>, String> {
    let (mut sources, mut warnings, mut total_len) = (Vec::new(), Vec::new(), 0u64);
    for input in inputs {
        let (parsed, input_len) = crate::pack::open_with_warnings(input, &args.password)?;
        total_len = total_len.saturating_add(input_len);
        let conversion =
            Scene::from_document_with(&parsed.document, &scene_options(args, input_len))
                .map_err(|e| said::error_text(&e.at(input)))?;
        let mut said: Vec<Said> = parsed.warnings.iter().map(Said::reader).collect();
        said.extend(conversion.warnings.iter().map(Said::scene));
        warnings.push((input.clone(), said));
        sources.push(models::scene::ClipSource {
            clip: crate::pack::model_stem(input),
            scene: conversion.scene,
        });
    }
    let mut budget = models::scene::Budget::for_input(total_len);
    let merged = models::scene::merge_clips(sources, &mut budget).map_err(|e| match e {
        models::scene::MergeError::Mismatch {
            index, difference, ..
        } => {
            let name = |i: usize| inputs.get(i).map(|p| said::shown(p));
            format!(
                "{}: cannot merge its clips with {}: {difference} (--merge-clips needs files \
                 of one character: same meshes, same bones)",
                name(index).unwrap_or_default(),
                name(0).unwrap_or_default()
            )
        }
        other => other.to_string(),
    })?;
    let mut merge_said: Vec<Said> = merged.warnings.iter().map(Said::scene).collect();
    let mut scene = merged.scene;
    scene.name = output
        .file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_default();
    let first = inputs.first().map_or(output, PathBuf::as_path);
    merge_said.extend(write_gltf(
        args,
        scene,
        first,
        output,
        HeldTextures::default(),
    )?);
    warnings.push((output.to_path_buf(), merge_said));
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
    let target = args.to.target();
    import::check_options(args, target);
    let gathered = gather(
        &args.paths,
        args.recursive,
        &args.password,
        matches!(target, Target::Model(_)),
    );
    // The named files were checked at start; a large one found in a folder counts too, if
    // starting again would print nothing twice.
    if gathered.said_nothing() {
        crate::huge_pages::run_again_for(gathered.largest);
    }
    crate::remove_temporaries_on_interruption(crate::Writers::Several);
    let failed = gathered.failed;
    let skipped = gathered.skipped;
    let base = match import::base_for(args, target) {
        Ok(base) => base,
        Err(e) => {
            eprintln!("{}", said::error_line(&e));
            return false;
        }
    };
    let jobs = plan(gathered.inputs, out_dir, args.to);
    if args.dry_run {
        let mut ok = failed == 0;
        for job in &jobs {
            ok &= dry_run_line(args, &job.input, &target.files(&job.output));
            dry_run_textures(args, &job.input, &job.output, target);
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
    let report = |lines: Vec<String>| {
        if !lines.is_empty() {
            bar.suspend(|| eprintln!("{}", lines.join("\n")));
        }
        bar.inc(1);
    };
    // Conversions run on rayon's threads and stop short of the disk: each output is written
    // to its temporary file inside `output::stage`, and one I/O thread syncs and renames it
    // into place (`Staged::commit`) while the next conversions go on. A file is reported only
    // after its commit, so "converted N" counts files that are complete on disk. The channel
    // is bounded: conversions wait for the disk rather than pile up open temporaries.
    let (to_disk, from_workers) = std::sync::mpsc::sync_channel::<Converted>(2 * COMMIT_QUEUE);
    std::thread::scope(|scope| {
        scope.spawn(|| {
            for done in from_workers {
                let mut lines = done.lines;
                match done.staged.commit() {
                    Ok(()) => {
                        converted.fetch_add(1, Ordering::Relaxed);
                        if done.warned {
                            warned.fetch_add(1, Ordering::Relaxed);
                        }
                    }
                    Err(e) => {
                        failed_jobs.fetch_add(1, Ordering::Relaxed);
                        lines.push(format!("error: {}", said::error_text(&e)));
                    }
                }
                report(lines);
            }
        });
        jobs.par_iter().for_each(|job| {
            // Inputs in the heap: each worker reuses the memory of the inputs it read before.
            let (outcome, staged) = models::bytes::heap_only(|| {
                models::output::stage(|| convert_job(args, job, target, base.as_ref()))
            });
            match outcome {
                Ok(warnings) => {
                    let done = Converted {
                        lines: said::lines(&job.input, &warnings),
                        warned: said::any_warning(&warnings),
                        staged,
                    };
                    // The I/O thread only ends after this loop, so the send cannot fail; if it
                    // did, `done` is dropped and its temporaries removed.
                    let _ = to_disk.send(done);
                }
                Err(e) => {
                    drop(staged);
                    failed_jobs.fetch_add(1, Ordering::Relaxed);
                    report(vec![said::error_line(&e)]);
                }
            }
        });
        drop(to_disk);
    });
    bar.finish_and_clear();
    let total = jobs.len() + failed;
    let failed = failed + failed_jobs.into_inner();
    let skipped = if skipped > 0 {
        format!("; skipped {skipped} folder entries (see the notes)")
    } else {
        String::new()
    };
    eprintln!(
        "converted {}, failed {failed}, warned {} (of {total} inputs) into {}{skipped}",
        converted.into_inner(),
        warned.into_inner(),
        said::shown(out_dir)
    );
    failed == 0
}

/// How many converted outputs may wait for the I/O thread, per conversion thread.
const COMMIT_QUEUE: usize = 4;

/// A batch job's output, written to its temporary files, on its way to the I/O thread.
struct Converted {
    lines: Vec<String>,
    warned: bool,
    staged: models::output::Staged,
}

/// Converts one batch job (its output written inside the caller's `output::stage`).
fn convert_job(args: &Args, job: &Job, target: Target, base: Option<&models::Document>) -> Outcome {
    job.output
        .parent()
        .map_or(Ok(()), std::fs::create_dir_all)
        .map_err(|e| format!("{}: {e}", said::shown(&job.output)))?;
    match target {
        Target::Gltf(_) => to_gltf(args, &job.input, &job.output),
        Target::Model(format) => import::to_model(args, &job.input, &job.output, format, base),
    }
}

/// Output paths under `out_dir`, one per input, all distinct, and none of them an input:
///
/// 1. the input's relative path with the container's extension (`sub/m.glb`);
/// 2. inputs whose outputs would clash and whose extensions differ keep their extension
///    (`a.bmf.glb`, `a.smf.glb`);
/// 3. a clash left after that, or a name that is an existing input, takes the first free
///    `-1`, `-2`, … (`m-1.glb`), in the order the inputs were given; a note says which and why.
///
/// Names are compared ignoring case, as a case-insensitive file system would. The same file
/// given twice under the same name is converted once (with a note).
fn plan(inputs: Vec<Input>, out_dir: &Path, to: To) -> Vec<Job> {
    let ext = to.extension();
    let mut seen = HashSet::new();
    let mut unique: Vec<(Input, PathBuf)> = Vec::with_capacity(inputs.len());
    for input in inputs {
        let id = input
            .path
            .canonicalize()
            .unwrap_or_else(|_| input.path.clone());
        if seen.insert((id.clone(), input.rel.clone())) {
            unique.push((input, id));
        } else {
            eprintln!(
                "note: {}: named twice; converted once",
                said::shown(&input.path)
            );
        }
    }
    let input_ids: HashSet<&Path> = unique.iter().map(|(_, id)| id.as_path()).collect();
    let desired = desired_names(&unique, ext);

    let files_of = |name: &Path| to.target().files(&out_dir.join(name));
    // As shown, not lossily: two names that differ only in bytes that are not UTF-8 are two.
    let key = |file: &Path| said::shown(file).to_lowercase();
    let is_input = |file: &Path| {
        file.canonicalize()
            .is_ok_and(|c| input_ids.contains(c.as_path()))
    };
    // Output file (by key) → the input it was given to, for the notes.
    let mut taken: HashMap<String, &Path> = HashMap::new();
    let mut outputs: Vec<Option<PathBuf>> = vec![None; unique.len()];
    let mut counts: HashMap<String, usize> = HashMap::new();
    for name in &desired {
        *counts.entry(key(name)).or_default() += 1;
    }
    // First every name that nothing else wants, so that a renamed output never takes it.
    for (i, name) in desired.iter().enumerate() {
        let files = files_of(name);
        let free = counts.get(&key(name)) == Some(&1)
            && files
                .iter()
                .all(|f| !taken.contains_key(&key(f)) && !is_input(f));
        if free {
            for f in &files {
                taken.insert(key(f), &unique[i].0.path);
            }
            outputs[i] = Some(name.clone());
        }
    }
    for (i, name) in desired.iter().enumerate() {
        if outputs[i].is_some() {
            continue;
        }
        let input = &unique[i].0.path;
        let mut candidate = name.clone();
        let mut reason = None;
        for n in 1.. {
            let files = files_of(&candidate);
            let clash = files.iter().find_map(|f| {
                if let Some(other) = taken.get(&key(f)) {
                    Some(format!(
                        "{} is also the output of {}",
                        said::shown(f),
                        said::shown(other)
                    ))
                } else if is_input(f) {
                    Some(format!("{} is an input", said::shown(f)))
                } else {
                    None
                }
            });
            match clash {
                Some(why) => {
                    reason.get_or_insert(why);
                    candidate = numbered(name, n, ext);
                }
                None => {
                    for f in &files {
                        taken.insert(key(f), input);
                    }
                    break;
                }
            }
        }
        if let Some(why) = reason {
            eprintln!(
                "note: {}: written to {} ({why})",
                said::shown(input),
                said::shown(&out_dir.join(&candidate))
            );
        }
        outputs[i] = Some(candidate);
    }
    unique
        .into_iter()
        .zip(outputs)
        .map(|((input, _), output)| Job {
            input: input.path,
            output: out_dir.join(output.unwrap_or_default()),
        })
        .collect()
}

/// Steps 1 and 2 of [`plan`]: `sub/m.glb`, or `a.bmf.glb` where inputs that differ only in
/// their extension would share a name.
fn desired_names(inputs: &[(Input, PathBuf)], ext: &str) -> Vec<PathBuf> {
    let plain: Vec<PathBuf> = inputs
        .iter()
        .map(|(i, _)| i.rel.with_extension(ext))
        .collect();
    let mut groups: HashMap<String, Vec<usize>> = HashMap::new();
    for (i, name) in plain.iter().enumerate() {
        let key = name.to_string_lossy().to_lowercase();
        groups.entry(key).or_default().push(i);
    }
    let mut desired = plain;
    for members in groups.values().filter(|m| m.len() > 1) {
        let extensions: HashSet<String> = members
            .iter()
            .map(|&i| {
                let rel = &inputs[i].0.rel;
                rel.extension()
                    .unwrap_or_default()
                    .to_string_lossy()
                    .to_lowercase()
            })
            .collect();
        if extensions.len() > 1 {
            for &i in members {
                let mut name = inputs[i].0.rel.as_os_str().to_owned();
                name.push(".");
                name.push(ext);
                desired[i] = PathBuf::from(name);
            }
        }
    }
    desired
}

/// `dir/m-3.glb` for `dir/m.glb` and 3.
fn numbered(name: &Path, n: usize, ext: &str) -> PathBuf {
    let mut file = name.file_stem().unwrap_or_default().to_owned();
    file.push(format!("-{n}.{ext}"));
    name.with_file_name(file)
}
