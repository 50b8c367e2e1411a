//! `models info`: what a modder wants to know about each model, from [`models::inspect`]:
//! size, meshes, bones (or frames), clips, materials and whether their textures are there.
//! Text by default (compact, aligned); `--json`: one object per file, per line.

use crate::said::{self, Said};
use models::gltf::{self, HeldTextures};
use models::inspect::{Report, SkeletonKind, TextureLookup, TextureStatus};
use models::scene::{Scene, SceneOptions};
use models::Summary;
use serde_json::{json, Value};
use std::path::{Path, PathBuf};

#[derive(Debug, clap::Args)]
pub(crate) struct Args {
    /// Files to read; a folder stands for the model files in it (as `convert --out-dir` finds
    /// them). For a `.Pack` archive, every model inside it (as `PACK::NAME`). `.glb` and
    /// `.gltf` files are summarised too.
    #[arg(required = true)]
    files: Vec<PathBuf>,
    /// One JSON object per file, per line, instead of text (with a `warnings` array).
    #[arg(long)]
    json: bool,
    /// Also walk the sub-folders of folder arguments (links to folders are not followed).
    #[arg(long)]
    recursive: bool,
    /// Also look for textures in DIR (after the model's folder; repeatable), as `convert` does.
    #[arg(long, value_name = "DIR")]
    texture_dir: Vec<PathBuf>,
    /// BMF animation samples per second, for clip durations.
    #[arg(long, default_value_t = 30.0, value_parser = crate::convert::rate_parser(1.0, 1000.0, "frames per second"), value_name = "N")]
    bmf_fps: f32,
    /// SMF animation key ticks per second, for clip durations (4800 is a guess).
    #[arg(long, default_value_t = 4800.0, value_parser = crate::convert::rate_parser(1.0, 1_000_000.0, "ticks per second"), value_name = "N")]
    smf_ticks_per_second: f32,
    /// MDL keyframes per second, for clip durations.
    #[arg(long, default_value_t = 60.0, value_parser = crate::convert::rate_parser(1.0, 1000.0, "frames per second"), value_name = "N")]
    mdl_fps: f32,
    #[command(flatten)]
    password: crate::pack::PasswordArg,
    /// The folder listings of texture lookups, shared by every file of the run (not an
    /// option).
    #[arg(skip)]
    texture_listings: models::gltf::TextureListings,
}

impl Args {
    /// The files and folders to read, as named.
    pub(crate) fn named_inputs(&self) -> impl Iterator<Item = &Path> {
        self.files.iter().map(PathBuf::as_path)
    }
}

pub(crate) fn run(args: &Args) -> bool {
    // The folders are walked first (the walk of `convert --out-dir`: the same files, the same
    // notes), before anything is printed: a large model found in one may make the run start
    // again in huge pages (`huge_pages`), if the walks printed nothing.
    let walked: Vec<Option<crate::gather::Gathered>> = args
        .files
        .iter()
        .map(|path| {
            path.is_dir().then(|| {
                crate::gather::gather(
                    std::slice::from_ref(path),
                    args.recursive,
                    &args.password,
                    false,
                )
            })
        })
        .collect();
    if walked
        .iter()
        .flatten()
        .all(crate::gather::Gathered::said_nothing)
    {
        let largest = walked.iter().flatten().map(|g| g.largest).max();
        crate::huge_pages::run_again_for(largest.unwrap_or(0));
    }
    let mut ok = true;
    for (path, walked) in args.files.iter().zip(walked) {
        if let Some(gathered) = walked {
            ok &= gathered.failed == 0;
            for input in gathered.inputs {
                ok &= one_file(args, &input.path);
            }
        } else if crate::pack::is_pack(path) {
            let each = |inner: &Path, parsed: &models::Parsed, len: u64, held: HeldTextures| {
                print_model(args, inner, parsed, len, held)
            };
            match crate::pack::info(path, &args.password, each) {
                Ok(all_read) => ok &= all_read,
                Err(e) => {
                    eprintln!("{}", said::error_line(&e));
                    ok = false;
                }
            }
        } else {
            ok &= one_file(args, path);
        }
    }
    ok
}

/// A model file (or `PACK::NAME`), or a glTF file.
fn one_file(args: &Args, path: &Path) -> bool {
    if is_gltf(path) {
        return print_gltf(args, path);
    }
    if crate::pack::split_inner(path).is_some() {
        return match crate::pack::open_with_textures(path, &args.password) {
            Ok((parsed, len, held)) => print_model(args, path, &parsed, len, held),
            Err(e) => {
                eprintln!("{}", said::error_line(&e));
                false
            }
        };
    }
    match models::open_with_upgrades(path) {
        Ok(parsed) => {
            let len = std::fs::metadata(path).map_or(0, |m| m.len());
            print_model(args, path, &parsed, len, HeldTextures::default())
        }
        Err(e) => crate::report(Err(e)),
    }
}

/// A file that is none of the five formats and is glTF by its first bytes.
fn is_gltf(path: &Path) -> bool {
    models::input::read_head(path, 64).is_ok_and(|head| {
        models::detect_with_hint(&head, path).is_none() && gltf::detect(&head).is_some()
    })
}

/// Where `info` looks the textures of `path` up: beside it (beside its pack), in the
/// `--texture-dir` folders, and first among the textures its pack holds (`held`).
fn lookup(args: &Args, path: &Path, held: HeldTextures) -> TextureLookup {
    TextureLookup {
        dirs: args.texture_dir.clone(),
        listings: args.texture_listings.clone(),
        held,
        ..TextureLookup::beside(crate::pack::source_file(path))
    }
}

/// Converts the document (within the budget of its `len` bytes) and prints its report; its
/// warnings go to stderr. False when the conversion fails.
fn print_model(
    args: &Args,
    path: &Path,
    parsed: &models::Parsed,
    len: u64,
    held: HeldTextures,
) -> bool {
    let options = SceneOptions {
        bmf_fps: args.bmf_fps,
        smf_ticks_per_second: args.smf_ticks_per_second,
        mdl_fps: args.mdl_fps,
        budget: models::scene::Budget::for_input(len),
    };
    let conversion = match Scene::from_document_with(&parsed.document, &options) {
        Ok(c) => c,
        Err(e) => {
            eprintln!("error: {}", said::error_text(&e.at(path)));
            return false;
        }
    };
    let mut warnings: Vec<Said> = parsed.warnings.iter().map(Said::reader).collect();
    warnings.extend(conversion.warnings.iter().map(Said::scene));
    said::print(path, &warnings);
    let report = Report::from_parsed(parsed, &conversion, &lookup(args, path, held));
    let summary = parsed.document.summary();
    if args.json {
        outln!("{}", model_json(path, &summary, &report));
    } else {
        let head = format!("{} {}", summary.format, summary.version);
        print_report(path, &head, &report);
    }
    true
}

fn print_gltf(args: &Args, path: &Path) -> bool {
    let import = match gltf::read_path(path, &gltf::ReadOptions::default()) {
        Ok(import) => import,
        Err(e) => {
            eprintln!(
                "error: {}: {}",
                said::shown(path),
                said::escape(&e.to_string())
            );
            return false;
        }
    };
    let report = Report::from_import(&import, &lookup(args, path, HeldTextures::default()));
    let warnings: Vec<Said> = import
        .warnings
        .iter()
        .map(|w| Said::plain(&w.to_string()))
        .collect();
    said::print(path, &warnings);
    let container = match gltf::Container::from_path(path) {
        Some(gltf::Container::Gltf) => "gltf",
        _ => "glb",
    };
    if args.json {
        let mut v = json!({ "path": path.display().to_string(), "format": container });
        attach_report(&mut v, &report);
        outln!("{v}");
    } else {
        print_report(path, container, &report);
    }
    true
}

/// The summary's keys (as `info --json` always printed them), then `model` (the report) and
/// `warnings`.
fn model_json(path: &Path, s: &Summary, report: &Report) -> Value {
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
    attach_report(&mut v, report);
    v
}

fn attach_report(v: &mut Value, report: &Report) {
    let mut model = report.to_json();
    let warnings = model
        .as_object_mut()
        .and_then(|m| m.remove("warnings"))
        .unwrap_or_else(|| Value::Array(Vec::new()));
    v["model"] = model;
    v["warnings"] = warnings;
}

/// A number for people: at most 3 decimals, no trailing zeros.
fn num(x: f32) -> String {
    if !x.is_finite() {
        return x.to_string();
    }
    let s = format!("{x:.3}");
    let s = s.trim_end_matches('0').trim_end_matches('.');
    match s {
        "-0" => "0".to_owned(),
        s => s.to_owned(),
    }
}

fn nums(xs: &[f32]) -> String {
    xs.iter().map(|&x| num(x)).collect::<Vec<_>>().join(" ")
}

fn plural(n: usize, one: &str, many: &str) -> String {
    format!("{n} {}", if n == 1 { one } else { many })
}

/// A name as shown: escaped, or `(unnamed)`.
fn name(n: &str) -> String {
    if n.is_empty() {
        "(unnamed)".to_owned()
    } else {
        said::escape(n)
    }
}

/// Rows of cells, each column padded to its widest cell, indented by 4.
fn table(rows: &[Vec<String>]) {
    let columns = rows.iter().map(Vec::len).max().unwrap_or(0);
    let widths: Vec<usize> = (0..columns)
        .map(|c| {
            rows.iter()
                .filter_map(|r| r.get(c))
                .map(|s| s.chars().count())
                .max()
                .unwrap_or(0)
        })
        .collect();
    for row in rows {
        let cells: Vec<String> = row
            .iter()
            .zip(&widths)
            .map(|(cell, &w)| format!("{cell:<w$}"))
            .collect();
        outln!("    {}", cells.join("  ").trim_end());
    }
}

fn print_report(path: &Path, head: &str, r: &Report) {
    let c = &r.counts;
    outln!("{}: {head}", said::shown(path));
    match &r.bounds {
        Some(b) => outln!(
            "  size       {}  (min {}, max {})",
            b.size().map(num).join(" × "),
            nums(&b.min),
            nums(&b.max)
        ),
        None => outln!("  size       (no vertices)"),
    }
    outln!(
        "  meshes     {}  ({} vertices, {} faces)",
        c.meshes,
        c.vertices,
        c.faces
    );
    let rows: Vec<Vec<String>> = r
        .meshes
        .iter()
        .map(|m| {
            vec![
                name(&m.name),
                plural(m.vertices, "vertex", "vertices"),
                plural(m.faces, "face", "faces"),
                plural(m.primitives, "primitive", "primitives"),
            ]
        })
        .collect();
    table(&rows);
    print_skeleton(r);
    outln!("  clips      {}", r.clips.len());
    let rows: Vec<Vec<String>> = r
        .clips
        .iter()
        .map(|a| {
            vec![
                name(&a.name),
                format!("{} s", num(a.duration)),
                plural(a.channels, "channel", "channels"),
                plural(a.keys, "key", "keys"),
            ]
        })
        .collect();
    table(&rows);
    print_materials(r);
}

/// The bones (or frames, or nodes) as a tree: each indented under its parent.
fn print_skeleton(r: &Report) {
    let label = r.skeleton_kind.label();
    outln!("  {label:<10} {}", r.skeleton.len());
    if r.skeleton_kind == SkeletonKind::Nodes && r.skeleton.len() <= 1 {
        return; // a single mesh node says nothing a modder needs
    }
    let parent_of: std::collections::HashMap<usize, Option<usize>> =
        r.skeleton.iter().map(|b| (b.node, b.parent)).collect();
    for b in &r.skeleton {
        // Depth among the listed nodes; bounded by their number (a broken hierarchy may loop).
        let mut depth = 0usize;
        let mut at = b.parent;
        while let Some(p) = at {
            if depth >= r.skeleton.len() {
                break;
            }
            match parent_of.get(&p) {
                Some(&next) => {
                    depth += 1;
                    at = next;
                }
                None => at = None, // a parent that is not listed (a mesh node above the bones)
            }
        }
        outln!("    {}{}", "  ".repeat(depth.min(32)), name(&b.name));
    }
}

fn print_materials(r: &Report) {
    outln!("  materials  {}", r.materials.len());
    let rows: Vec<Vec<String>> = r
        .materials
        .iter()
        .map(|m| {
            let mut row = vec![name(&m.name), format!("colour {}", nums(&m.base_color))];
            if m.emissive.iter().any(|&e| e != 0.0) {
                row.push(format!("emissive {}", nums(&m.emissive)));
            }
            for t in &m.textures {
                let status = match &t.status {
                    TextureStatus::Found(_) => "found".to_owned(),
                    TextureStatus::Missing => "MISSING".to_owned(),
                    TextureStatus::Refused(why) => {
                        format!("refused: {}", said::escape(&said::with_flags(why)))
                    }
                    TextureStatus::NotChecked => "not checked".to_owned(),
                };
                row.push(format!("{} {} ({status})", t.slot, said::escape(&t.path)));
            }
            row
        })
        .collect();
    table(&rows);
    let missing = r.missing_textures();
    if !missing.is_empty() {
        outln!(
            "  textures not found: {} (see --texture-dir)",
            missing
                .iter()
                .map(|p| said::escape(p))
                .collect::<Vec<_>>()
                .join(", ")
        );
    }
}

/// `glb` or `gltf` for a file whose first bytes are glTF (for `detect`).
pub(crate) fn gltf_name(head: &[u8]) -> Option<&'static str> {
    match gltf::detect(head)? {
        gltf::Container::Glb => Some("glb"),
        gltf::Container::Gltf => Some("gltf"),
    }
}
