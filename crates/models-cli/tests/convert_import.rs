//! `models convert` into a model format: glTF input, any-to-any through the scene, the import
//! options (`--base`, `--clip`, `--replace-bad-names`, `--allow-outside-buffers`) and their
//! usage errors, hostile glTF input, batches with `--to <model format>`.

mod common;
use common::*;

use std::path::{Path, PathBuf};

/// Converts `input` to `dir/NAME` and returns the output's path; the conversion must succeed.
fn converted(dir: &Path, input: &Path, name: &str) -> PathBuf {
    let out = dir.join(name);
    let o = models(&[&"convert", &input, &out]);
    assert!(o.status.success(), "{name}: {}", stderr(&o));
    out
}

/// A `.glb` made by `convert` from a fixture.
fn fixture_glb(dir: &Path, format: &str, name: &str) -> PathBuf {
    let stem = Path::new(name).file_stem().unwrap().to_string_lossy();
    converted(dir, &fixture(format, name), &format!("{stem}.glb"))
}

/// Runs `args`, which must be a usage error (exit status 2) whose message contains `says`.
fn usage_error(args: &[&dyn AsRef<std::ffi::OsStr>], says: &str) {
    let o = models(args);
    let shown: Vec<String> = args
        .iter()
        .map(|a| a.as_ref().to_string_lossy().into_owned())
        .collect();
    assert_eq!(o.status.code(), Some(2), "{shown:?}: {}", stderr(&o));
    assert!(stderr(&o).contains(says), "{shown:?}: {}", stderr(&o));
}

#[test]
fn options_of_the_other_direction_are_usage_errors() {
    let dir = tempfile::tempdir().unwrap();
    let glb = fixture_glb(dir.path(), "smf", "skinned_animated.smf");
    let smf = fixture("smf", "skinned_animated.smf");
    let bmf = fixture("bmf", "skinned_arm.bmf");
    let out_glb = dir.path().join("o.glb");
    let out_smf = dir.path().join("o.smf");
    let out_bmf = dir.path().join("o.bmf");
    // Import options with a glTF output.
    for flag in ["--replace-bad-names", "--allow-outside-buffers"] {
        usage_error(
            &[&"convert", &flag, &smf, &out_glb],
            &format!("{flag} is for a model output"),
        );
    }
    usage_error(
        &[&"convert", &"--base", &smf, &smf, &out_glb],
        "--base is for a model output",
    );
    usage_error(
        &[&"convert", &"--clip", &"walk", &bmf, &out_glb],
        "--clip is for a model output",
    );
    // The same in a batch to glTF.
    usage_error(
        &[&"convert", &"--out-dir", &dir.path(), &"--base", &smf, &bmf],
        "--base is for a model output",
    );
    // Texture options with a model output.
    for flag in [
        "--embed-textures",
        "--reference-textures",
        "--allow-outside-textures",
    ] {
        usage_error(
            &[&"convert", &flag, &glb, &out_smf],
            &format!("{flag} is for a .glb or .gltf output"),
        );
    }
    usage_error(
        &[&"convert", &"--texture-dir", &dir.path(), &glb, &out_bmf],
        "--texture-dir is for a .glb or .gltf output",
    );
    usage_error(
        &[
            &"convert",
            &"--out-dir",
            &dir.path(),
            &"--to",
            &"smf",
            &"--embed-textures",
            &glb,
        ],
        "--embed-textures is for a .glb or .gltf output",
    );
    // --clip only for a format that holds one animation.
    usage_error(
        &[&"convert", &"--clip", &"walk", &glb, &out_smf],
        "--clip chooses the one animation a .bmf holds",
    );
    // An import option with an input already of the output's format (re-written as it is).
    usage_error(
        &[&"convert", &"--replace-bad-names", &bmf, &out_bmf],
        "is already .bmf",
    );
    // --to needs --out-dir; an unknown --to is refused.
    usage_error(&[&"convert", &"--to", &"smf", &glb, &out_smf], "--out-dir");
    usage_error(
        &[&"convert", &"--out-dir", &dir.path(), &"--to", &"obj", &glb],
        "obj",
    );
    for out in [&out_glb, &out_smf, &out_bmf] {
        assert!(!out.exists(), "{} written", out.display());
    }
}

#[test]
fn a_base_of_another_format_is_a_usage_error_naming_both() {
    let dir = tempfile::tempdir().unwrap();
    let glb = fixture_glb(dir.path(), "bmf", "skinned_arm.bmf");
    let out = dir.path().join("o.smf");
    usage_error(
        &[
            &"convert",
            &"--base",
            &fixture("bmf", "skinned_arm.bmf"),
            &glb,
            &out,
        ],
        "is .bmf, but the output is .smf",
    );
    assert!(!out.exists());
    // A dry run checks it too.
    usage_error(
        &[
            &"convert",
            &"--dry-run",
            &"--base",
            &fixture("bmf", "skinned_arm.bmf"),
            &glb,
            &out,
        ],
        "is .bmf, but the output is .smf",
    );
    // In a batch, against --to.
    usage_error(
        &[
            &"convert",
            &"--out-dir",
            &dir.path().join("batch"),
            &"--to",
            &"bmf",
            &"--base",
            &fixture("smf", "collision_box.smf"),
            &glb,
        ],
        "is .smf, but the output is .bmf",
    );
    // A base that cannot be read is an error of that file (status 1), not a usage error.
    let missing = dir.path().join("missing.smf");
    let o = models(&[&"convert", &"--base", &missing, &glb, &out]);
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    assert!(stderr(&o).contains("missing.smf"), "{}", stderr(&o));
}

/// A deterministic byte stream (xorshift), so a failure can be reproduced.
fn noise(seed: u64, len: usize) -> Vec<u8> {
    let mut x = seed | 1;
    (0..len)
        .map(|_| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            (x >> 24) as u8
        })
        .collect()
}

/// The conversion of a hostile file fails with status 1 (never a panic's 101), an error line
/// naming the file and a position (a GLB byte, a JSON line and column, or a JSON path).
fn refused_with_a_position(input: &Path, out: &Path, what: &str) {
    let o = models(&[&"convert", &input, &out]);
    let err = stderr(&o);
    assert_eq!(o.status.code(), Some(1), "{what}: {err}");
    assert!(!err.contains("panicked"), "{what}: {err}");
    let name = input.file_name().unwrap().to_string_lossy();
    let line = err
        .lines()
        .find(|l| l.starts_with("error: ") && l.contains(name.as_ref()))
        .unwrap_or_else(|| panic!("{what}: no error line naming the file: {err}"));
    let positioned = line.contains("GLB byte ")
        || line.contains(" line ")
        || line.contains('[')
        || line.contains("file does not exist")
        || line.contains("is empty");
    assert!(positioned, "{what}: no position: {line}");
    assert!(!out.exists(), "{what}: output written");
}

#[test]
fn hostile_glb_input_is_an_error_with_a_position() {
    let dir = tempfile::tempdir().unwrap();
    let glb = fixture_glb(dir.path(), "smf", "skinned_animated.smf");
    let bytes = std::fs::read(&glb).unwrap();
    let out = dir.path().join("o.smf");
    let bad = dir.path().join("bad.glb");
    // Random bytes, with and without the GLB magic.
    for seed in 1..6u64 {
        let mut noise = noise(seed, 200 + seed as usize * 37);
        std::fs::write(&bad, &noise).unwrap();
        refused_with_a_position(&bad, &out, &format!("noise {seed}"));
        noise[..4].copy_from_slice(b"glTF");
        std::fs::write(&bad, &noise).unwrap();
        refused_with_a_position(&bad, &out, &format!("glTF + noise {seed}"));
    }
    // Truncated at a spread of lengths (header, JSON chunk, BIN chunk).
    let step = (bytes.len() / 24).max(1);
    for len in (4..bytes.len()).step_by(step).chain([12, 20, 21]) {
        std::fs::write(&bad, &bytes[..len]).unwrap();
        refused_with_a_position(&bad, &out, &format!("cut at {len}"));
    }
    // The JSON chunk overwritten with noise in the middle.
    let mut broken = bytes.clone();
    let end = broken.len().min(120);
    broken[40..end].copy_from_slice(&noise(9, end - 40));
    std::fs::write(&bad, &broken).unwrap();
    refused_with_a_position(&bad, &out, "noisy JSON");
}

#[test]
fn gltf_buffers_outside_the_folder_need_a_flag() {
    let dir = tempfile::tempdir().unwrap();
    // A .gltf in sub/ whose .bin is one folder up.
    let gltf = converted(dir.path(), &fixture("bmf", "static_cube.bmf"), "cube.gltf");
    let sub = dir.path().join("sub");
    std::fs::create_dir(&sub).unwrap();
    let json = std::fs::read_to_string(&gltf).unwrap();
    assert!(json.contains("\"cube.bin\""), "{json}");
    let moved = sub.join("cube.gltf");
    std::fs::write(&moved, json.replace("\"cube.bin\"", "\"../cube.bin\"")).unwrap();
    let out = dir.path().join("o.smf");
    let o = models(&[&"convert", &moved, &out]);
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    assert!(
        stderr(&o).contains("leads out of") && stderr(&o).contains("--allow-outside-buffers"),
        "{}",
        stderr(&o)
    );
    // With the flag the buffer is read: whatever happens next, it is not that refusal.
    let o = models(&[&"convert", &"--allow-outside-buffers", &moved, &out]);
    assert!(!stderr(&o).contains("leads out of"), "{}", stderr(&o));
}

#[test]
fn batch_to_a_model_format_goes_on_past_a_bad_file() {
    let dir = tempfile::tempdir().unwrap();
    let inputs = dir.path().join("in");
    std::fs::create_dir(&inputs).unwrap();
    std::fs::copy(fixture("bmf", "static_cube.bmf"), inputs.join("cube.bmf")).unwrap();
    std::fs::write(inputs.join("bad.glb"), noise(3, 100)).unwrap();
    let out = dir.path().join("out");
    let o = models(&[&"convert", &"--out-dir", &out, &"--to", &"bmf", &inputs]);
    let err = stderr(&o);
    assert_eq!(o.status.code(), Some(1), "{err}");
    assert!(err.contains("bad.glb"), "{err}");
    assert!(err.contains("converted 1, failed 1"), "{err}");
    // The .bmf (already the output's format) is re-written as it is.
    assert_eq!(
        std::fs::read(out.join("cube.bmf")).unwrap(),
        std::fs::read(fixture("bmf", "static_cube.bmf")).unwrap()
    );
    assert!(!out.join("bad.bmf").exists());
}

#[test]
fn a_folder_walk_reads_gltf_only_for_a_model_output() {
    let dir = tempfile::tempdir().unwrap();
    let inputs = dir.path().join("in");
    std::fs::create_dir(&inputs).unwrap();
    std::fs::copy(fixture("smf", "collision_box.smf"), inputs.join("box.smf")).unwrap();
    fixture_glb(&inputs, "bmf", "static_cube.bmf");
    let out = dir.path().join("out");
    // To glTF: the .glb (perhaps an earlier run's output) is not an input.
    let o = models(&[&"convert", &"--dry-run", &"--out-dir", &out, &inputs]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(stdout(&o).contains("box.smf ->"), "{}", stdout(&o));
    assert!(!stdout(&o).contains("static_cube.glb ->"), "{}", stdout(&o));
    // To a model format: it is.
    let o = models(&[
        &"convert",
        &"--dry-run",
        &"--out-dir",
        &out,
        &"--to",
        &"smf",
        &inputs,
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(stdout(&o).contains("box.smf ->"), "{}", stdout(&o));
    let glb_line = stdout(&o)
        .lines()
        .find(|l| l.contains("static_cube.glb ->"))
        .map(str::to_owned);
    assert!(
        glb_line
            .as_deref()
            .is_some_and(|l| l.ends_with("static_cube.smf")),
        "{}",
        stdout(&o)
    );
    assert!(!out.exists(), "a dry run wrote");
}

/// Converts `input` to `out` (a model format) and checks the output reads back as that format
/// with the triangles and materials of `expected`.
fn converts_into(input: &Path, out: &Path, expected: &models::Summary) {
    let o = models(&[&"convert", &input, &out]);
    assert!(o.status.success(), "{}: {}", input.display(), stderr(&o));
    let doc = models::open(out).unwrap_or_else(|e| panic!("{}: {e}", out.display()));
    let got = doc.summary();
    assert_eq!(Some(got.format), models::Format::from_path(out));
    assert_eq!(got.faces, expected.faces, "{}", out.display());
    assert_eq!(got.meshes, expected.meshes, "{}", out.display());
    // Never over an existing output without --force.
    let o = models(&[&"convert", &input, &out]);
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    let o = models(&[&"convert", &"--force", &input, &out]);
    assert!(o.status.success(), "{}", stderr(&o));
}

fn summary_of(path: &Path) -> models::Summary {
    models::open(path).unwrap().summary()
}

#[test]
fn glb_to_smf_end_to_end() {
    let dir = tempfile::tempdir().unwrap();
    let source = fixture("smf", "skinned_animated.smf");
    let glb = fixture_glb(dir.path(), "smf", "skinned_animated.smf");
    converts_into(&glb, &dir.path().join("back.smf"), &summary_of(&source));
    // With the original as --base.
    let out = dir.path().join("based.smf");
    let o = models(&[&"convert", &"--base", &source, &glb, &out]);
    assert!(o.status.success(), "{}", stderr(&o));
}

#[test]
fn glb_to_bmf_end_to_end() {
    let dir = tempfile::tempdir().unwrap();
    let source = fixture("bmf", "skinned_arm.bmf");
    let glb = fixture_glb(dir.path(), "bmf", "skinned_arm.bmf");
    converts_into(&glb, &dir.path().join("back.bmf"), &summary_of(&source));
    // --clip names a clip of the glTF; one that is not there is an error.
    let out = dir.path().join("none.bmf");
    let o = models(&[&"convert", &"--clip", &"no such clip", &glb, &out]);
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    assert!(!out.exists());
}

#[test]
fn smf_to_bmf_end_to_end() {
    let dir = tempfile::tempdir().unwrap();
    let source = fixture("smf", "collision_box.smf");
    converts_into(&source, &dir.path().join("box.bmf"), &summary_of(&source));
}

#[test]
fn bmf_to_smf_end_to_end() {
    let dir = tempfile::tempdir().unwrap();
    let source = fixture("bmf", "multi_three_meshes.bmf");
    converts_into(&source, &dir.path().join("three.smf"), &summary_of(&source));
}

#[test]
fn glb_to_skm_end_to_end() {
    let dir = tempfile::tempdir().unwrap();
    let source = fixture("skm", "arm_skinned.skm");
    let glb = fixture_glb(dir.path(), "skm", "arm_skinned.skm");
    let back = dir.path().join("back.skm");
    converts_into(&glb, &back, &summary_of(&source));
    // Nothing lost on the way: the canonical text of the original.
    let original = models::open(&source).unwrap().to_bytes().unwrap();
    assert_eq!(std::fs::read(&back).unwrap(), original);
    let out = dir.path().join("based.skm");
    let o = models(&[&"convert", &"--base", &source, &glb, &out]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert_eq!(std::fs::read(&out).unwrap(), original);
}

#[test]
fn bmf_to_skm_end_to_end() {
    let dir = tempfile::tempdir().unwrap();
    let source = fixture("bmf", "multi_three_meshes.bmf");
    let out = dir.path().join("three.skm");
    let o = models(&[&"convert", &source, &out]);
    assert!(o.status.success(), "{}", stderr(&o));
    // Three meshes become the one SKM mesh, with a warning.
    assert!(
        stderr(&o).contains("merged into the one SKM mesh"),
        "{}",
        stderr(&o)
    );
    let got = summary_of(&out);
    assert_eq!(got.format, models::Format::Skm);
    assert_eq!(got.faces, summary_of(&source).faces);
}

#[test]
fn glb_to_mdl_end_to_end() {
    let dir = tempfile::tempdir().unwrap();
    let source = fixture("mdl", "skinned_arm_v1.mdl");
    let glb = fixture_glb(dir.path(), "mdl", "skinned_arm_v1.mdl");
    let back = dir.path().join("back.mdl");
    converts_into(&glb, &back, &summary_of(&source));
    // An unedited export comes back byte for byte, with or without its --base.
    assert!(std::fs::read(&back).unwrap() == std::fs::read(&source).unwrap());
    let based = dir.path().join("based.mdl");
    let o = models(&[&"convert", &"--base", &source, &glb, &based]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(std::fs::read(&based).unwrap() == std::fs::read(&source).unwrap());
    // --mdl-version 2 writes TRS bones.
    let v2 = dir.path().join("v2.mdl");
    let o = models(&[&"convert", &"--mdl-version", &"2", &glb, &v2]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert_eq!(summary_of(&v2).version, "2");
}

#[test]
fn smf_and_bmf_to_mdl_end_to_end() {
    let dir = tempfile::tempdir().unwrap();
    let source = fixture("smf", "skinned_animated.smf");
    converts_into(&source, &dir.path().join("a.mdl"), &summary_of(&source));
    let source = fixture("bmf", "multi_three_meshes.bmf");
    converts_into(&source, &dir.path().join("b.mdl"), &summary_of(&source));
}

#[test]
fn mdl_version_is_for_mdl_outputs_only() {
    let dir = tempfile::tempdir().unwrap();
    let glb = fixture_glb(dir.path(), "mdl", "skinned_arm_v2.mdl");
    let smf = dir.path().join("o.smf");
    usage_error(
        &[&"convert", &"--mdl-version", &"1", &glb, &smf],
        "--mdl-version",
    );
    let mdl = dir.path().join("o.mdl");
    usage_error(&[&"convert", &"--mdl-version", &"3", &glb, &mdl], "3");
    let gl = dir.path().join("o.glb");
    usage_error(
        &[
            &"convert",
            &"--mdl-version",
            &"1",
            &fixture("mdl", "skinned_arm_v2.mdl"),
            &gl,
        ],
        "--mdl-version",
    );
    assert!(!smf.exists() && !mdl.exists() && !gl.exists());
}

#[test]
fn elem_comes_back_from_its_glb_and_from_other_formats() {
    let dir = tempfile::tempdir().unwrap();
    let source = fixture("elem", "skinned_animated.elem");
    let glb = fixture_glb(dir.path(), "elem", "skinned_animated.elem");
    let back = converted(dir.path(), &glb, "back.elem");
    // The canonical text of the original: an unedited export comes back unchanged.
    let original = <models::elem::Elem as models::Model>::from_path(&source).unwrap();
    assert_eq!(
        std::fs::read(&back).unwrap(),
        models::Model::to_bytes(&original).unwrap()
    );
    // With a base, and from another format through the scene.
    let o = models(&[
        &"convert",
        &"--base",
        &source,
        &glb,
        &dir.path().join("based.elem"),
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let from_smf = converted(
        dir.path(),
        &fixture("smf", "skinned_animated.smf"),
        "smf.elem",
    );
    let o = models(&[&"info", &from_smf]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(stdout(&o).contains("elem"), "{}", stdout(&o));
}
