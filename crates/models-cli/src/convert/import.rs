//! The way back: a model output (`.smf`, `.bmf`, …) written from a glTF file, or from a model
//! of another format, through the scene (`Scene` → `scene::validate` → `Document::from_scene`,
//! in one call: [`models::Document::import_scene`]). A model of the output's own format is
//! re-written as it is (its writer, no scene), as before.

use super::{overwrite, scene_options, Args, Outcome};
use crate::said::{self, Said};
use clap::CommandFactory;
use models::gltf::{self, ReadOptions};
use models::scene::{ImportOptions, Scene};
use models::{Document, Format};
use std::path::{Path, PathBuf};

/// What a conversion writes: glTF, or a document of one of the five formats.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Target {
    Gltf(gltf::Container),
    Model(Format),
}

impl Target {
    /// By the output's extension: `.glb`/`.gltf`, else a model extension.
    pub(crate) fn of_path(output: &Path) -> Option<Target> {
        gltf::Container::from_path(output)
            .map(Target::Gltf)
            .or_else(|| Format::from_path(output).map(Target::Model))
    }

    /// Every file a conversion to `output` writes (a `.gltf` has its `.bin`).
    pub(crate) fn files(self, output: &Path) -> Vec<PathBuf> {
        match self {
            Target::Gltf(_) => gltf::output_files(output).unwrap_or_default(),
            Target::Model(_) => vec![output.to_path_buf()],
        }
    }
}

/// Exits with a usage error (status 2) carrying `message`.
pub(crate) fn usage_error(message: String) -> ! {
    crate::Cli::command()
        .error(clap::error::ErrorKind::ArgumentConflict, message)
        .exit()
}

/// The options given that only a conversion *into* a model format uses.
fn import_flags(args: &Args) -> Vec<&'static str> {
    let mut given = Vec::new();
    if args.base.is_some() {
        given.push("--base");
    }
    if args.clip.is_some() {
        given.push("--clip");
    }
    if args.replace_bad_names {
        given.push("--replace-bad-names");
    }
    if args.mdl_version.is_some() {
        given.push("--mdl-version");
    }
    if args.allow_outside_buffers {
        given.push("--allow-outside-buffers");
    }
    given
}

/// Exits with a usage error when an option given makes no sense for `target`: the import
/// options with a glTF output, the texture options (which choose how the glTF writer finds and
/// stores images) with a model output, `--clip` with a format that holds every clip.
pub(crate) fn check_options(args: &Args, target: Target) {
    match target {
        Target::Gltf(_) => {
            if let Some(flag) = import_flags(args).first() {
                usage_error(format!(
                    "{flag} is for a model output (.smf, .bmf, …: the way back from glTF), \
                     not for a .glb or .gltf output"
                ));
            }
        }
        Target::Model(format) => {
            let mut texture_flags = Vec::new();
            if args.embed_textures {
                texture_flags.push("--embed-textures");
            }
            if args.reference_textures {
                texture_flags.push("--reference-textures");
            }
            if !args.texture_dir.is_empty() {
                texture_flags.push("--texture-dir");
            }
            if args.allow_outside_textures {
                texture_flags.push("--allow-outside-textures");
            }
            if let Some(flag) = texture_flags.first() {
                usage_error(format!(
                    "{flag} is for a .glb or .gltf output; a .{format} output keeps texture \
                     names, not images"
                ));
            }
            if args.mdl_version.is_some() && format != Format::Mdl {
                usage_error(format!(
                    "--mdl-version chooses the version of a .mdl output, not of a .{format}"
                ));
            }
            if args.clip.is_some() && format != Format::Bmf {
                usage_error(format!(
                    "--clip chooses the one animation a .bmf holds; a .{format} output keeps \
                     every clip"
                ));
            }
        }
    }
}

/// In single-file mode, a usage error when the input is already of the output's format and an
/// import option is given: such an input is re-written as it is, and the option would do
/// nothing. (A model inside a pack is not looked at here; a batch says it per file.)
pub(crate) fn check_same_format(args: &Args, input: &Path, format: Format) {
    let Some(flag) = import_flags(args).first().copied() else {
        return;
    };
    let Ok(head) = models::input::read_head(input, 64) else {
        return; // a pack member, or an error the conversion reports
    };
    if models::detect_with_hint(&head, input) == Some(format) {
        usage_error(format!(
            "{} is already .{format}: it is re-written as it is, and {flag} has nothing to do",
            said::shown(input)
        ));
    }
}

/// The `--base` document, read once; a usage error if it is not of the output's format
/// (`check_options` has refused `--base` with a glTF output). Its reader's warnings are
/// printed under its name.
pub(crate) fn base_for(args: &Args, target: Target) -> Result<Option<Document>, String> {
    let (Some(path), Target::Model(target)) = (&args.base, target) else {
        return Ok(None);
    };
    let (parsed, _) = crate::pack::open_with_warnings(path, &args.password)?;
    let base = parsed.document.format();
    if base != target {
        usage_error(format!(
            "--base {} is .{base}, but the output is .{target}: the base must be the original \
             file of the output's format",
            said::shown(path)
        ));
    }
    let said: Vec<Said> = parsed.warnings.iter().map(Said::reader).collect();
    said::print(path, &said);
    Ok(Some(parsed.document))
}

/// Whether `input` is read as glTF: none of the five formats by its first bytes, and glTF by
/// its magic, its JSON or its name. (A model file named `.glb` is still read as that model.)
pub(crate) fn is_gltf_input(input: &Path) -> bool {
    let Ok(head) = models::input::read_head(input, 256) else {
        return false; // a pack member, or an error the reader reports
    };
    models::detect_with_hint(&head, input).is_none()
        && (gltf::detect(&head).is_some() || gltf::Container::from_path(input).is_some())
}

fn import_options(args: &Args) -> ImportOptions {
    ImportOptions {
        bmf_fps: args.bmf_fps,
        smf_ticks_per_second: args.smf_ticks_per_second,
        mdl_fps: args.mdl_fps,
        mdl_version: args.mdl_version,
        clip: args.clip.clone(),
        replace_bad_names: args.replace_bad_names,
    }
}

/// Reads `input` (glTF or a model), converts it into a document of `format` and writes
/// `output` through `models::output::write_new_file`.
pub(crate) fn to_model(
    args: &Args,
    input: &Path,
    output: &Path,
    format: Format,
    base: Option<&Document>,
) -> Outcome {
    let shown = || said::shown(input);
    let (scene, mut warnings) = if is_gltf_input(input) {
        let options = ReadOptions {
            allow_outside: args.allow_outside_buffers,
        };
        let read = gltf::read_path(input, &options).map_err(|e| {
            // The library says "refused unless allowed"; the command line names its flag.
            let hint = match &e {
                gltf::ReadError::Resource { message, .. } if message.contains("leads out of") => {
                    " (--allow-outside-buffers reads it)"
                }
                _ => "",
            };
            format!("{}: {e}{hint}", shown())
        })?;
        let said = read.warnings.iter().map(Said::gltf_reader).collect();
        (read.scene, said)
    } else {
        let (parsed, input_len) = crate::pack::open_with_warnings(input, &args.password)?;
        let mut said: Vec<Said> = parsed.warnings.iter().map(Said::reader).collect();
        if parsed.document.format() == format {
            if let Some(flag) = import_flags(args).first() {
                said.push(Said::cli(&format!(
                    "already .{format}: re-written as it is ({flag} not used)"
                )));
            }
            let bytes = parsed
                .document
                .to_bytes()
                .map_err(|e| said::error_text(&e.at(input)))?;
            write(args, input, output, &bytes)?;
            return Ok(said);
        }
        let conversion =
            Scene::from_document_with(&parsed.document, &scene_options(args, input_len))
                .map_err(|e| said::error_text(&e.at(input)))?;
        said.extend(conversion.warnings.iter().map(Said::scene));
        let mut scene = conversion.scene;
        if scene.name.is_empty() {
            scene.name = crate::pack::model_stem(input);
        }
        (scene, said)
    };
    let imported = Document::import_scene(format, scene, base, &import_options(args)).map_err(
        |e| match e {
            models::Error::ImportUnsupported(f) => format!(
                "{}: importing into .{f} is not supported yet",
                said::shown(output)
            ),
            other => other.at(input).to_string(),
        },
    )?;
    warnings.extend(imported.warnings.iter().map(Said::scene));
    let bytes = imported
        .document
        .to_bytes()
        .map_err(|e| said::error_text(&e.at(output)))?;
    write(args, input, output, &bytes)?;
    Ok(warnings)
}

/// Writes `bytes` to `output`: never onto the input (for a pack member, the pack), never over
/// an existing file unless --force.
fn write(args: &Args, input: &Path, output: &Path, bytes: &[u8]) -> Result<(), String> {
    let source = crate::pack::source_file(input);
    models::output::write_new_file(output, bytes, Some(&source), overwrite(args))
        .map_err(|e| crate::said::error_text(&e))
}
