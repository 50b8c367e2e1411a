//! The 5 × 5 conversion matrix: every fixture of every format converts into every format
//! through the scene (`Scene::from_document` → `Document::import_scene`), the output reads back
//! with that format's own reader, and what the conversion promises holds:
//!
//! * every triangle arrives (ELEM quads count as two triangles: the comparison is on the
//!   scenes, which hold triangles only);
//! * a skinned source gives a skinned output with the same joints, since all five formats skin
//!   (by name, except into BMF, which stores no names; MDL binds a static mesh to its bone);
//! * clips arrive one for one, except into BMF (one track: the clips one after the other, or
//!   the rest pose) and SKM (no animation);
//! * whatever the output lacks that the source had (clips, skins, materials, vertex colours,
//!   a second UV set, textures) is named in a warning: no silent loss.
//!
//! README's conversion matrix is the prose form of this test.

use models::scene::{ImportOptions, Scene};
use models::{Document, Format};
use std::path::PathBuf;

const FORMATS: [Format; 5] = [
    Format::Smf,
    Format::Bmf,
    Format::Mdl,
    Format::Elem,
    Format::Skm,
];

fn fixtures() -> Vec<(Format, PathBuf)> {
    FORMATS
        .iter()
        .flat_map(|&format| {
            let ext = format.extensions()[0];
            test_support::fixtures(ext, ext)
                .into_iter()
                .map(move |path| (format, path))
        })
        .collect()
}

/// What the matrix compares: counts taken from a scene, the same way for source and output.
#[derive(Debug, Default, PartialEq)]
struct Figures {
    triangles: usize,
    /// Joints over all skins, counted by name (a split into several meshes may repeat a skin).
    joints: usize,
    clips: usize,
    materials: usize,
    colours: bool,
    uv1: bool,
    textures: usize,
}

fn figures(scene: &Scene) -> Figures {
    let mut joint_names = std::collections::BTreeSet::new();
    for skin in &scene.skins {
        for &j in &skin.joints {
            if let Some(node) = scene.nodes.get(j) {
                joint_names.insert(node.name.clone());
            }
        }
    }
    let textures: std::collections::BTreeSet<_> = scene
        .materials
        .iter()
        .filter_map(|m| m.color_texture.clone())
        .collect();
    Figures {
        triangles: scene
            .meshes
            .iter()
            .flat_map(|m| &m.primitives)
            .map(|p| p.indices.len() / 3)
            .sum(),
        joints: joint_names.len(),
        clips: scene.animations.len(),
        materials: scene.materials.len(),
        colours: scene.meshes.iter().any(|m| m.vertices.colors.is_some()),
        uv1: scene.meshes.iter().any(|m| m.vertices.uv1.is_some()),
        textures: textures.len(),
    }
}

/// Whether the target keeps the clips as it promises: BMF holds one track (every clip one
/// after the other, or the rest pose when a skinned mesh had none), SKM none, the others all.
fn clips_kept(target: Format, before: &Figures, after: &Figures) -> bool {
    match target {
        Format::Bmf => after.clips <= 1 && (before.clips == 0 || after.clips == 1),
        Format::Skm => after.clips == 0,
        _ => after.clips == before.clips,
    }
}

/// Whether the target keeps the skeleton as it promises. BMF stores no bone names and gives
/// each mesh its own bone list, so only "skinned stays skinned" can be compared; MDL binds
/// every mesh to a bone (as FBX2MDL writes), so a static source comes back bound to the bones
/// its meshes hang on; the others keep the joints by name.
fn joints_kept(target: Format, before: &Figures, after: &Figures) -> bool {
    match target {
        Format::Bmf => (before.joints > 0) == (after.joints > 0),
        Format::Mdl if before.joints == 0 => true,
        _ => after.joints == before.joints,
    }
}

/// Whether some warning mentions one of `words` (case-insensitive).
fn said(warnings: &[String], words: &[&str]) -> bool {
    warnings.iter().any(|w| {
        let w = w.to_lowercase();
        words.iter().any(|word| w.contains(word))
    })
}

/// Converts `path` into `target` and checks the promises; returns a line describing a broken
/// one, or `None`.
fn check(source_format: Format, path: &PathBuf, target: Format) -> Option<String> {
    let name = format!(
        "{} → {}",
        test_support::file_name(path),
        target.extensions()[0]
    );
    let source = models::open(path).unwrap();
    assert_eq!(source.format(), source_format);
    let scene = Scene::from_document(&source).unwrap().scene;
    let before = figures(&scene);
    // Names a target cannot encode are replaced (and said): refusing them is tested with
    // each importer; here every pair must produce a file.
    let options = ImportOptions {
        replace_bad_names: true,
        ..ImportOptions::default()
    };
    let imported = match Document::import_scene(target, scene, None, &options) {
        Ok(imported) => imported,
        Err(e) => return Some(format!("{name}: refused: {e}")),
    };
    let warnings: Vec<String> = imported.warnings.iter().map(|w| w.to_string()).collect();
    let bytes = match imported.document.to_bytes() {
        Ok(bytes) => bytes,
        Err(e) => return Some(format!("{name}: not written: {e}")),
    };
    let reread = match Document::parse_as(target, &bytes) {
        Ok(parsed) => parsed.document,
        Err(e) => return Some(format!("{name}: its own reader refuses the output: {e}")),
    };
    let after = figures(&Scene::from_document(&reread).unwrap().scene);

    let mut broken = Vec::new();
    if after.triangles != before.triangles {
        broken.push(format!(
            "triangles {} → {}",
            before.triangles, after.triangles
        ));
    }
    if !joints_kept(target, &before, &after) {
        broken.push(format!("joints {} → {}", before.joints, after.joints));
    }
    if !clips_kept(target, &before, &after) {
        broken.push(format!("clips {} → {}", before.clips, after.clips));
    }
    let losses = [
        (after.clips < before.clips, &["animation", "clip"][..]),
        (after.materials < before.materials, &["material"][..]),
        (before.colours && !after.colours, &["colour", "color"][..]),
        (before.uv1 && !after.uv1, &["uv", "texcoord"][..]),
        (after.textures < before.textures, &["texture"][..]),
    ];
    for (lost, words) in losses {
        if lost && !said(&warnings, words) {
            broken.push(format!("{} lost without a warning", words[0]));
        }
    }
    (!broken.is_empty()).then(|| format!("{name}: {}", broken.join(", ")))
}

#[test]
fn every_fixture_converts_into_every_format() {
    let inputs = fixtures();
    // Every format has fixtures, so every row of the matrix is exercised.
    for format in FORMATS {
        assert!(
            inputs.iter().any(|(f, _)| *f == format),
            "no fixtures for {format:?}"
        );
    }
    let mut broken = Vec::new();
    let mut pairs = std::collections::BTreeSet::new();
    for (format, path) in &inputs {
        for target in FORMATS {
            pairs.insert((format.extensions()[0], target.extensions()[0]));
            broken.extend(check(*format, path, target));
        }
    }
    assert_eq!(pairs.len(), 25);
    assert!(broken.is_empty(), "broken promises:\n{}", broken.join("\n"));
}
