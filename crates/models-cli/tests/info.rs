//! `models info` and `detect` as a modder uses them: the text report (snapshot), the JSON
//! schema with its warnings, frames of a static SMF, folders, glTF files, legacy MDL files and
//! the early-layout error.

mod common;
use common::*;

use models::mdl::{LegacyBone, LegacyMdl, LegacyMesh, LegacyMeshGroup, Matrix44, RotationOrder};
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn json_lines(o: &Output) -> Vec<serde_json::Value> {
    stdout(o)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

/// A copy of a fixture in `dir` (so that printed paths do not depend on the checkout).
fn copy(dir: &Path, format: &str, name: &str, to: &str) -> PathBuf {
    let out = dir.join(to);
    std::fs::create_dir_all(out.parent().unwrap()).unwrap();
    std::fs::copy(fixture(format, name), &out).unwrap();
    out
}

#[test]
fn text_report_of_a_skinned_model() {
    let dir = tempfile::tempdir().unwrap();
    let arm = copy(dir.path(), "bmf", "skinned_arm.bmf", "arm.bmf");
    std::fs::write(dir.path().join("ARM.PNG"), b"not checked for content").unwrap();
    let o = Command::new(BIN)
        .current_dir(dir.path())
        .args(["info", "arm.bmf"])
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(arm.exists());
    insta::assert_snapshot!(stdout(&o));
}

#[test]
fn json_has_the_report_and_the_warnings() {
    let o = models(&[&"info", &"--json", &fixture("bmf", "skinned_arm.bmf")]);
    assert!(o.status.success(), "{}", stderr(&o));
    let v = &json_lines(&o)[0];
    let model = &v["model"];
    let keys: Vec<&str> = model
        .as_object()
        .unwrap()
        .keys()
        .map(String::as_str)
        .collect();
    assert_eq!(
        keys,
        [
            "counts",
            "bounds",
            "meshes",
            "skeleton",
            "clips",
            "materials"
        ]
    );
    assert_eq!(model["counts"]["meshes"], 1);
    assert_eq!(model["counts"]["skins"], 1);
    assert_eq!(model["bounds"]["size"].as_array().unwrap().len(), 3);
    assert_eq!(model["skeleton"]["kind"], "bones");
    assert_eq!(model["skeleton"]["nodes"].as_array().unwrap().len(), 2);
    // Both BMF bones hang from the skeleton's root node (not a bone itself).
    let bones = &model["skeleton"]["nodes"];
    assert!(bones[0]["parent"].is_u64());
    assert_eq!(bones[0]["parent"], bones[1]["parent"]);
    assert!(model["clips"][0]["duration"].as_f64().unwrap() > 0.0);
    assert_eq!(model["materials"][0]["textures"][0]["path"], "arm.png");
    assert_eq!(model["materials"][0]["textures"][0]["status"], "missing");
    // The BMF rate is a guess, said in a warning, which is in the JSON too.
    let warnings = v["warnings"].as_array().unwrap();
    assert!(!warnings.is_empty());
    assert!(warnings.iter().any(|w| w["source"] == "conversion"
        && w["message"]
            .as_str()
            .unwrap()
            .contains("samples per second")));
}

#[test]
fn a_static_smf_lists_frames_not_bones() {
    let input = fixture("smf", "textured_materials.smf");
    let o = models(&[&"info", &"--json", &input]);
    assert_eq!(json_lines(&o)[0]["model"]["skeleton"]["kind"], "frames");
    let o = models(&[&"info", &input]);
    assert!(stdout(&o).contains("\n  frames "), "{}", stdout(&o));
    assert!(!stdout(&o).contains("\n  bones "), "{}", stdout(&o));
}

#[test]
fn folders_and_recursive_folders() {
    let dir = tempfile::tempdir().unwrap();
    copy(dir.path(), "bmf", "static_cube.bmf", "a.bmf");
    copy(dir.path(), "smf", "collision_box.smf", "sub/b.smf");
    std::fs::write(dir.path().join("notes.txt"), b"not a model").unwrap();
    let o = models(&[&"info", &"--json", &dir.path()]);
    assert!(o.status.success(), "{}", stderr(&o));
    let paths: Vec<String> = json_lines(&o)
        .iter()
        .map(|v| v["path"].as_str().unwrap().to_owned())
        .collect();
    assert_eq!(paths.len(), 1, "{paths:?}");
    assert!(paths[0].ends_with("a.bmf"));
    let o = models(&[&"info", &"--json", &"--recursive", &dir.path()]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert_eq!(json_lines(&o).len(), 2);
}

#[test]
fn detect_and_info_read_our_own_glb() {
    let dir = tempfile::tempdir().unwrap();
    let glb = dir.path().join("arm.glb");
    let o = models(&[&"convert", &fixture("bmf", "skinned_arm.bmf"), &glb]);
    assert!(o.status.success(), "{}", stderr(&o));
    let o = models(&[&"detect", &glb]);
    assert_eq!(stdout(&o).trim(), format!("{}: glb", glb.display()));
    let o = models(&[&"info", &"--json", &glb]);
    assert!(o.status.success(), "{}", stderr(&o));
    let v = &json_lines(&o)[0];
    assert_eq!(v["format"], "glb");
    let counts = &v["model"]["counts"];
    assert_eq!(counts["meshes"], 1);
    assert_eq!(counts["vertices"], 12);
    assert_eq!(counts["faces"], 16);
    assert_eq!(counts["skins"], 1);
    assert_eq!(counts["animations"], 1);
    assert!(v["warnings"].is_array());
}

/// A two-bone box in the 2014 development layout, written by the library's legacy writer.
fn legacy_file(dir: &Path) -> PathBuf {
    let bone = |name: &str, parent| LegacyBone {
        name: name.into(),
        parent,
        rotation_order: RotationOrder::XYZ,
        local: Matrix44::translation(0.0, 1.0, 0.0),
        inverse_global: Matrix44::IDENTITY,
    };
    let vertex = |x: f32, y: f32| models::mdl::Vertex {
        position: [x, y, 0.0],
        normal: [0.0, 0.0, 1.0],
        weights: [255, 0, 0, 0],
        bone_indices: [1, 0, 0, 0],
        ..Default::default()
    };
    let mut palette = [0u8; 32];
    for (i, p) in palette.iter_mut().enumerate() {
        *p = i as u8;
    }
    let doc = LegacyMdl {
        version: 1,
        mesh_groups: vec![LegacyMeshGroup {
            meshes: vec![LegacyMesh {
                vertices: vec![vertex(0.0, 0.0), vertex(1.0, 0.0), vertex(0.0, 1.0)],
                faces: vec![models::mdl::Face([0, 2, 1])],
                material_runs: vec![models::mdl::MaterialRun {
                    material_index: 0,
                    face_count: 1,
                }],
                bone_offsets: vec![models::mdl::LegacyBoneOffset {
                    bone_indices: palette,
                    face_offset: 1,
                }],
            }],
            bones: vec![bone("Armature", -1), bone("Bone", 0)],
            materials: vec![models::mdl::Material::with_color("")],
        }],
        ..LegacyMdl::default()
    };
    let path = dir.join("legacy.mdl");
    std::fs::write(&path, doc.to_bytes().unwrap()).unwrap();
    path
}

#[test]
fn legacy_mdl_is_read_converted_and_said() {
    let dir = tempfile::tempdir().unwrap();
    let legacy = legacy_file(dir.path());
    let o = models(&[&"info", &"--json", &legacy]);
    assert!(o.status.success(), "{}", stderr(&o));
    let v = &json_lines(&o)[0];
    assert_eq!(v["bones"], 2);
    assert_eq!(v["model"]["skeleton"]["kind"], "bones");
    assert!(v["warnings"][0]["message"]
        .as_str()
        .unwrap()
        .contains("2014 development layout"));
    assert!(
        stderr(&o).contains("2014 development layout"),
        "{}",
        stderr(&o)
    );
    // Converted singly and in a batch, with the warning naming the layout.
    let glb = dir.path().join("legacy.glb");
    let o = models(&[&"convert", &legacy, &glb]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(
        stderr(&o).contains("2014 development layout"),
        "{}",
        stderr(&o)
    );
    let out = dir.path().join("out");
    let o = models(&[&"convert", &"--out-dir", &out, &legacy]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(out.join("legacy.glb").is_file());
    // Rewritten as .mdl: the stable layout, which the strict reader takes.
    let stable = dir.path().join("stable.mdl");
    let o = models(&[&"convert", &legacy, &stable]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(stderr(&o).contains("stable layout"), "{}", stderr(&o));
    let doc = models::open(&stable).unwrap();
    assert_eq!(doc.summary().bones, 2);
}

#[test]
fn an_early_prototype_says_unsupported_early_layout() {
    let mut bytes = std::fs::read(fixture("mdl", "static_quad_v1.mdl")).unwrap();
    // magic, version, bone count, then bone 0: name length, UTF-16 name, parent.
    let name_len = i32::from_le_bytes(bytes[12..16].try_into().unwrap()) as usize;
    let parent_at = 16 + 2 * name_len;
    bytes[parent_at..parent_at + 4].copy_from_slice(&0i32.to_le_bytes());
    let dir = tempfile::tempdir().unwrap();
    let early = dir.path().join("early.mdl");
    std::fs::write(&early, bytes).unwrap();
    for args in [
        vec![&"info" as &dyn AsRef<std::ffi::OsStr>, &early],
        vec![&"convert", &early, &dir.path().join("early.glb")],
    ] {
        let o = models(&args);
        assert_eq!(o.status.code(), Some(1));
        let err = stderr(&o);
        assert!(err.contains("unsupported early layout"), "{err}");
        assert!(!err.contains("parent index"), "{err}");
        assert!(!err.contains("LegacyMdl"), "{err}");
    }
}

#[test]
fn the_real_legacy_sample_converts() {
    let Some(samples) = test_support::samples("mdl", "mdl") else {
        return;
    };
    let sample = samples
        .into_iter()
        .find(|p| p.ends_with("altseed_legacy_Box_ec3d076a.mdl"))
        .expect("the legacy sample of PROVENANCE.md");
    let o = models(&[&"info", &"--json", &sample]);
    assert!(o.status.success(), "{}", stderr(&o));
    let v = &json_lines(&o)[0];
    // PROVENANCE: 1 mesh of 24 vertices and 12 faces, 2 bones (Armature, Bone), 1 clip.
    assert_eq!(v["vertices"], 24);
    assert_eq!(v["faces"], 12);
    assert_eq!(v["bones"], 2);
    assert_eq!(v["animations"], 1);
    assert_eq!(v["model"]["skeleton"]["nodes"][1]["name"], "Bone");
}

/// `models info … | head -1`: a reader that goes away ends the command quietly with 141
/// (128 + SIGPIPE), never a panic. The pipe's read end is closed before the command starts,
/// so its first line already meets the closed pipe.
#[test]
fn a_closed_stdout_ends_info_quietly() {
    let (reader, writer) = std::io::pipe().unwrap();
    drop(reader);
    let o = Command::new(BIN)
        .arg("info")
        .arg(fixture("smf", "skinned_animated.smf"))
        .stdout(writer)
        .output()
        .unwrap();
    let err = stderr(&o);
    assert!(!err.contains("panicked"), "{err}");
    assert_eq!(o.status.code(), Some(141), "{err}");
}
