//! `models convert` to glTF: single files, batches with bad files, no-clobber, --dry-run and
//! texture embedding with its path-escape refusal.

mod common;
use common::*;

use std::path::Path;

fn read_glb(path: &Path) -> (gltf::Document, Vec<u8>) {
    let bytes = std::fs::read(path).unwrap();
    let g = gltf::Gltf::from_slice(&bytes)
        .unwrap_or_else(|e| panic!("{}: not a valid glb: {e}", path.display()));
    let blob = g.blob.clone().unwrap_or_default();
    (g.document, blob)
}

/// Vertex and triangle totals of a glTF document.
fn totals(doc: &gltf::Document) -> (usize, usize) {
    let mut vertices = 0;
    let mut triangles = 0;
    for mesh in doc.meshes() {
        let mut counted = std::collections::HashSet::new();
        for prim in mesh.primitives() {
            let pos = prim.get(&gltf::Semantic::Positions).unwrap();
            if counted.insert(pos.index()) {
                vertices += pos.count();
            }
            triangles += prim.indices().map_or(0, |i| i.count() / 3);
        }
    }
    (vertices, triangles)
}

#[test]
fn convert_to_glb_matches_the_scene() {
    let dir = tempfile::tempdir().unwrap();
    for (format, name) in [
        ("bmf", "skinned_arm.bmf"),
        ("elem", "skinned_animated.elem"),
        ("skm", "arm_skinned.skm"),
        ("mdl", "skinned_arm_v2.mdl"),
        ("smf", "skinned_animated.smf"),
    ] {
        let input = fixture(format, name);
        let out = dir.path().join(format!("{name}.glb"));
        let o = models(&[&"convert", &input, &out]);
        assert_eq!(o.status.code(), Some(0), "{name}: {}", stderr(&o));
        assert!(stderr(&o).contains("wrote"), "{}", stderr(&o));

        let doc = models::open(&input).unwrap();
        let scene = models::scene::Scene::from_document(&doc).unwrap().scene;
        let (gltf, _) = read_glb(&out);
        let vertices: usize = scene
            .meshes
            .iter()
            .filter(|m| m.primitives.iter().any(|p| !p.indices.is_empty()))
            .map(|m| m.vertices.positions.len())
            .sum();
        let triangles: usize = scene
            .meshes
            .iter()
            .flat_map(|m| &m.primitives)
            .map(|p| p.indices.len() / 3)
            .sum();
        assert_eq!(totals(&gltf), (vertices, triangles), "{name}");
        assert_eq!(gltf.materials().count(), scene.materials.len(), "{name}");
        assert_eq!(
            gltf.skins().map(|s| s.joints().count()).sum::<usize>(),
            scene.skins.iter().map(|s| s.joints.len()).sum::<usize>(),
            "{name}"
        );
        assert_eq!(
            gltf.animations().count(),
            scene
                .animations
                .iter()
                .filter(|a| !a.channels.is_empty())
                .count(),
            "{name}"
        );
    }
}

#[test]
fn convert_to_gltf_writes_a_bin_beside_it_and_never_clobbers() {
    let dir = tempfile::tempdir().unwrap();
    let input = fixture("skm", "cube_static.skm");
    let out = dir.path().join("cube.gltf");
    let o = models(&[&"convert", &input, &out]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let json: serde_json::Value = serde_json::from_slice(&std::fs::read(&out).unwrap()).unwrap();
    assert_eq!(json["asset"]["version"], "2.0");
    if json.get("buffers").is_some() {
        assert_eq!(json["buffers"][0]["uri"], "cube.bin");
        assert!(dir.path().join("cube.bin").is_file());
    }

    // A .glb that exists is refused and kept; --force replaces it.
    let glb = dir.path().join("cube.glb");
    std::fs::write(&glb, b"keep me").unwrap();
    let o = models(&[&"convert", &input, &glb]);
    assert_eq!(o.status.code(), Some(1));
    assert!(stderr(&o).contains("already exists"), "{}", stderr(&o));
    assert_eq!(std::fs::read(&glb).unwrap(), b"keep me");
    let o = models(&[&"convert", &"--force", &input, &glb]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert_eq!(&std::fs::read(&glb).unwrap()[..4], b"glTF");

    // --bmf-fps must be a positive number: a usage error otherwise.
    let o = models(&[&"convert", &"--bmf-fps", &"0", &input, &glb]);
    assert_eq!(o.status.code(), Some(2));
}

/// A folder with good models, two corrupt ones and a sub-folder.
fn batch_folder() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let src = dir.path().join("in");
    std::fs::create_dir_all(src.join("sub")).unwrap();
    for (format, name) in [
        ("bmf", "static_cube.bmf"),
        ("smf", "textured_materials.smf"),
        ("mdl", "static_quad_v1.mdl"),
    ] {
        std::fs::copy(fixture(format, name), src.join(name)).unwrap();
    }
    std::fs::copy(
        fixture("elem", "static_textured.elem"),
        src.join("sub/crate.elem"),
    )
    .unwrap();
    let mut truncated = std::fs::read(fixture("bmf", "skinned_arm.bmf")).unwrap();
    truncated.truncate(60);
    std::fs::write(src.join("broken.bmf"), truncated).unwrap();
    std::fs::write(src.join("garbage.smf"), b"this is not a model at all").unwrap();
    std::fs::write(src.join("notes.txt"), b"not a model extension: ignored").unwrap();
    dir
}

#[test]
fn batch_converts_the_good_files_and_names_the_bad_ones() {
    let dir = batch_folder();
    let src = dir.path().join("in");
    let out = dir.path().join("out");
    let o = models(&[
        &"convert",
        &"--to",
        &"glb",
        &"--out-dir",
        &out,
        &"--recursive",
        &src,
    ]);
    let err = stderr(&o);
    assert_eq!(o.status.code(), Some(1), "{err}");
    assert!(err.contains("broken.bmf"), "{err}");
    assert!(err.contains("garbage.smf"), "{err}");
    assert!(
        err.lines()
            .any(|l| l.starts_with("error:") && l.contains("broken.bmf") && l.contains("byte")),
        "the failure says where: {err}"
    );
    assert!(err.contains("converted 4, failed 2"), "closing line: {err}");
    for name in [
        "static_cube.glb",
        "textured_materials.glb",
        "static_quad_v1.glb",
        "sub/crate.glb",
    ] {
        let (doc, _) = read_glb(&out.join(name));
        assert_eq!(doc.scenes().count(), 1, "{name}");
    }
    assert!(!out.join("broken.glb").exists() && !out.join("garbage.glb").exists());
    assert!(!out.join("notes.glb").exists());
    // No progress bar when stderr is not a terminal: no carriage returns or escapes.
    assert!(!err.contains('\r') && !err.contains('\u{1b}'), "{err:?}");

    // Again without --force: every output exists, so every good file fails (and is named).
    let o = models(&[&"convert", &"--out-dir", &out, &"--recursive", &src]);
    assert_eq!(o.status.code(), Some(1));
    assert!(
        stderr(&o).contains("converted 0, failed 6"),
        "{}",
        stderr(&o)
    );
    assert!(stderr(&o).contains("already exists"));

    // Without --recursive the sub-folder is not entered; .gltf on request.
    let out2 = dir.path().join("out2");
    let o = models(&[
        &"convert",
        &"--to",
        &"gltf",
        &"--out-dir",
        &out2,
        &src.join("static_cube.bmf"),
        &src.join("sub"),
    ]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert!(out2.join("static_cube.gltf").is_file());
    assert!(out2.join("crate.gltf").is_file());
    assert!(
        stderr(&o).contains("converted 2, failed 0"),
        "{}",
        stderr(&o)
    );
}

#[test]
fn dry_run_lists_and_writes_nothing() {
    let dir = batch_folder();
    let src = dir.path().join("in");
    let out = dir.path().join("out");
    let o = models(&[
        &"convert",
        &"--dry-run",
        &"--out-dir",
        &out,
        &"--recursive",
        &src,
    ]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let text = stdout(&o);
    // One `IN -> OUT` line per input; under it, the textures the conversion would not find.
    assert_eq!(
        text.lines().filter(|l| l.contains(" -> ")).count(),
        6,
        "{text}"
    );
    assert!(text.contains("  textures not found: cube.png"), "{text}");
    assert!(text.contains("static_cube.bmf -> ") && text.contains("static_cube.glb"));
    assert!(
        text.contains(&format!("sub{}crate.glb", std::path::MAIN_SEPARATOR)),
        "{text}"
    );
    assert!(!out.exists(), "a dry run creates nothing");

    let single = dir.path().join("one.gltf");
    let o = models(&[
        &"convert",
        &"--dry-run",
        &src.join("static_cube.bmf"),
        &single,
    ]);
    assert_eq!(o.status.code(), Some(0));
    assert!(stdout(&o).contains("one.gltf + "), "{}", stdout(&o));
    assert!(stdout(&o).contains("one.bin"));
    assert!(!single.exists());

    // An output that exists is reported as a would-be failure.
    std::fs::write(&single, b"x").unwrap();
    let o = models(&[
        &"convert",
        &"--dry-run",
        &src.join("static_cube.bmf"),
        &single,
    ]);
    assert_eq!(o.status.code(), Some(1));
    assert!(stderr(&o).contains("already exists"));
}

/// A real 1×1 PNG.
const PNG: &[u8] = test_support::PNG_1X1;

#[test]
fn embedded_textures_stay_inside_the_input_folder_unless_allowed() {
    let dir = tempfile::tempdir().unwrap();
    let models_dir = dir.path().join("models");
    std::fs::create_dir_all(models_dir.join("tex")).unwrap();
    std::fs::write(models_dir.join("tex/crate.png"), PNG).unwrap();
    std::fs::write(dir.path().join("secret.png"), PNG).unwrap();
    let text = std::fs::read_to_string(fixture("elem", "static_textured.elem")).unwrap();
    assert!(text.contains(r"tex\crate.png"));
    let inside = models_dir.join("inside.elem");
    std::fs::write(&inside, &text).unwrap();
    let outside = models_dir.join("outside.elem");
    std::fs::write(&outside, text.replace(r"tex\crate.png", r"..\secret.png")).unwrap();

    // Inside, with a backslash: embedded.
    let out = dir.path().join("inside.glb");
    let o = models(&[&"convert", &"--embed-textures", &inside, &out]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let (doc, blob) = read_glb(&out);
    assert_eq!(doc.images().count(), 1, "{}", stderr(&o));
    let gltf::image::Source::View { view, mime_type } = doc.images().next().unwrap().source()
    else {
        panic!("the image is not embedded")
    };
    assert_eq!(mime_type, "image/png");
    assert_eq!(&blob[view.offset()..view.offset() + view.length()], PNG);

    // Outside: refused with a warning; the file is still written.
    let out = dir.path().join("outside.glb");
    let o = models(&[&"convert", &"--embed-textures", &outside, &out]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert!(
        stderr(&o).contains("leads out of the input's folder"),
        "{}",
        stderr(&o)
    );
    let (doc, _) = read_glb(&out);
    assert_eq!(doc.images().count(), 0);

    // Allowed explicitly.
    let o = models(&[
        &"convert",
        &"--force",
        &"--embed-textures",
        &"--allow-outside-textures",
        &outside,
        &out,
    ]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let (doc, _) = read_glb(&out);
    assert_eq!(doc.images().count(), 1);

    // Issue 14: a .glb embeds by default; --reference-textures writes the image beside the
    // output and refers to it relative to the output.
    let out = dir.path().join("default.glb");
    let o = models(&[&"convert", &inside, &out]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let (doc, _) = read_glb(&out);
    assert!(matches!(
        doc.images().next().unwrap().source(),
        gltf::image::Source::View { .. }
    ));
    let out = dir.path().join("out/uri.glb");
    std::fs::create_dir_all(dir.path().join("out")).unwrap();
    let o = models(&[&"convert", &"--reference-textures", &inside, &out]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let (doc, _) = read_glb(&out);
    match doc.images().next().unwrap().source() {
        gltf::image::Source::Uri { uri, .. } => {
            assert_eq!(uri, "uri_textures/crate.png");
            assert_eq!(
                std::fs::read(dir.path().join("out").join(uri)).unwrap(),
                PNG
            );
        }
        other => panic!("{other:?}"),
    }
}
