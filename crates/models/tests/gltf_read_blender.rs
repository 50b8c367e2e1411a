//! The users' round trip through Blender: every fixture and sample exported to `.glb`, imported
//! into Blender and exported again by Blender's own glTF add-on (default settings, "Custom
//! Properties" on, as the README asks, and then off, as Blender's default is), then brought
//! back into its format onto the original (`--base`). Blender's file must come back:
//!
//! * with every mesh and triangle;
//! * byte for byte, for the files whose parts Blender keeps (README, "Editing in Blender and
//!   coming back"): the vertices it splits are the base's again, with the exact arrays whose
//!   views it dropped (`scene/weld.rs`); the skeleton it turned to its own bone axes, the skins
//!   it merged, the clips it resampled and the materials it reordered are the base's again
//!   (`scene/weld/skeleton.rs`, `skins.rs`, `materials.rs`); and without Custom Properties, the
//!   base's extras come back too (`weld/bare.rs`). So every SMF sample, every BMF fixture and
//!   sample, three ELEM fixtures, both SKM fixtures, three MDL fixtures, the two animated
//!   Altseed MDL samples (their skinned meshes turned back by the skinning at rest Blender
//!   baked into them) and the animated SMF fixture come back, either way;
//! * byte for byte with "Use Current Frame" on, for the static MDL files whose rest pose is not
//!   their bind pose (Blender's default export writes the bind pose);
//! * with the extras Blender keeps read through its own types (flags as `1`/`0`, names made
//!   unique) and the views it does not keep refused, not read.
//!
//! Needs `blender` (3.4 with Debian's numpy, which its glTF importer needs `numpy.bool` for) on
//! the `PATH`; without it the test skips with a message, unless `MODELS_REQUIRE_BLENDER` is set
//! (as `.ci/run` does once it has installed Blender).

mod common;

use models::gltf::{self, GltfOptions};
use models::scene::{self, ImportOptions, Scene};
use models::Document;
use std::path::{Path, PathBuf};
use std::process::Command;

/// Imports and exports each `IN OUT` pair given after `-- custom-properties|none|current-frame`,
/// in one Blender process, with "Custom Properties" on or off, or on with "Use Current Frame"
/// (the armatures written at their pose, not their rest).
const ROUND_TRIP: &str = r#"
import sys
import numpy
numpy.bool = bool  # Blender 3.4's glTF importer still uses numpy.bool, gone from numpy 1.24
import bpy
args = sys.argv[sys.argv.index("--") + 1:]
extras = args[0] != "none"
current = args[0] == "current-frame"
for src, dst in zip(args[1::2], args[2::2]):
    bpy.ops.wm.read_factory_settings(use_empty=True)
    bpy.ops.import_scene.gltf(filepath=src)
    bpy.ops.export_scene.gltf(filepath=dst, export_format="GLB", export_extras=extras,
                              export_current_frame=current)
"#;

/// Files that come back from Blender, onto their base, byte for byte.
const SAME_AFTER_BLENDER: &[&str] = &[
    "multi_three_meshes.bmf",
    "skinned_arm.bmf",
    "skinned_tangent_quad.bmf",
    "static_cube.bmf",
    "static_tangent_quad.bmf",
    "01_static_Chara_Rst_2016-10.bmf",
    "02_static_Chara_Rst_2016-11.bmf",
    "03_static_Character_01.bmf",
    "04_static_tangent_TangentTestNonAnimation.bmf",
    "05_skinned_Chara_R.bmf",
    "07_skinned_tangent_TangentTest.bmf",
    "08_multi_static_ObjectOnly_v1.bmf",
    "09_multi_static_ObjectOnly_v2.bmf",
    "10_multi_skinned_Object_WalkAnimation_v1.bmf",
    "skinned_animated.smf",
    "hashireisen2d__Data_For_Tool_Model_PointObject.smf",
    "hashireisen2d__Data_Model_block1.smf",
    "hashireisen2d__Data_Model_floor1.smf",
    "hashireisen2d__Data_Model_floor1_another.smf",
    "hashireisen2d__Data_Model_floor2.smf",
    "hashireisen2d__Data_Model_floor2_another.smf",
    "hashireisen2d__Data_Model_hahen.smf",
    "hashireisen2d__Data_Texture_hahenn_hahen.smf",
    "japanese_names.elem",
    "static_textured.elem",
    "skinned_animated.elem",
    "cube_static.skm",
    "arm_skinned.skm",
    "static_quad_v1.mdl",
    "skinned_arm_v1.mdl",
    "skinned_arm_v2.mdl",
    "altseed_Test_Box.mdl",
    "altseed_Test_Animation.mdl",
];

/// Static MDL files whose joints' rest pose is not their bind pose (a joint turned or moved, its
/// connector's offset the identity): Blender's importer takes the bones' rest from the inverse
/// bind matrices and the nodes' transforms as a pose, and its default export writes the rest,
/// so the skinning at rest is not the base's (README). With "Use Current Frame" it writes the
/// pose, and they come back byte for byte.
const SAME_WITH_CURRENT_FRAME: &[&str] = &[
    "quirks_v2.mdl",
    "altseed_Plain1.mdl",
    "altseed_Sphere1.mdl",
    "cube_exp_Box_9e27932.mdl",
];

fn blender() -> bool {
    if Command::new("blender").arg("--version").output().is_ok() {
        return true;
    }
    assert!(
        std::env::var_os("MODELS_REQUIRE_BLENDER").is_none(),
        "blender not found, and MODELS_REQUIRE_BLENDER is set"
    );
    eprintln!("skipping: blender not found");
    false
}

/// Each document's export written into `dir` as `models convert` writes a `.glb` (textures
/// embedded from beside the source: the fixtures and samples ship none, so their paths stay in
/// the materials' extras), Blender's files beside them. `mode` is [`ROUND_TRIP`]'s.
fn through_blender(dir: &Path, files: &[common::Opened], mode: &str) -> Vec<PathBuf> {
    let mut args = vec![PathBuf::from(mode)];
    let mut outs = Vec::new();
    for common::Opened {
        name,
        path,
        document,
        ..
    } in files
    {
        let scene = Scene::from_document(document).unwrap().scene;
        // The command line's `.glb` defaults: textures embedded, looked up beside the source.
        let options = GltfOptions {
            embed_textures: true,
            ..GltfOptions::for_source(path)
        };
        let glb = gltf::to_glb(&scene::validate(scene).scene, &options).unwrap();
        let ours = dir.join(format!("{name}.glb"));
        std::fs::write(&ours, &glb).unwrap();
        let theirs = dir.join(format!("{name}.{mode}.glb"));
        args.push(ours);
        args.push(theirs.clone());
        outs.push(theirs);
    }
    let script = dir.join("round_trip.py");
    std::fs::write(&script, ROUND_TRIP).unwrap();
    let out = Command::new("blender")
        .args([
            "-b",
            "--factory-startup",
            "--python-exit-code",
            "1",
            "--python",
        ])
        .arg(&script)
        .arg("--")
        .args(&args)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "blender failed: {}\n{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    outs
}

/// Every triangle of the scene's meshes (ELEM's quads and polygons are triangles there; its
/// file counts them as faces).
fn triangles(scene: &Scene) -> usize {
    let primitives = scene.meshes.iter().flat_map(|m| &m.primitives);
    primitives.map(|p| p.indices.len() / 3).sum()
}

#[test]
fn every_fixture_and_sample_comes_back_from_blender() {
    if !blender() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let files: Vec<common::Opened> = common::opened().collect();
    // Without the samples, only the fixtures' part of the list.
    let mut expected: Vec<&str> = SAME_AFTER_BLENDER
        .iter()
        .copied()
        .filter(|n| files.iter().any(|f| f.name == *n))
        .collect();
    expected.sort_unstable();
    // Else a walk over no file (or none of these) would pass.
    assert!(
        !expected.is_empty(),
        "none of the {} files walked is one that comes back",
        files.len()
    );
    for custom_properties in [true, false] {
        let mode = if custom_properties {
            "custom-properties"
        } else {
            "none"
        };
        let theirs = through_blender(dir.path(), &files, mode);
        let same = same_after(&files, &theirs);
        assert_eq!(
            same, expected,
            "files that came back byte for byte, Custom Properties {custom_properties}"
        );
    }
}

#[test]
fn static_mdl_posed_off_its_bind_pose_comes_back_with_use_current_frame() {
    if !blender() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let files: Vec<common::Opened> = common::opened()
        .filter(|f| SAME_WITH_CURRENT_FRAME.contains(&f.name.as_str()))
        .collect();
    let theirs = through_blender(dir.path(), &files, "current-frame");
    let same = same_after(&files, &theirs);
    let mut expected: Vec<&str> = files.iter().map(|f| f.name.as_str()).collect();
    expected.sort_unstable();
    // The fixture at least; the samples when they are there.
    assert!(expected.contains(&"quirks_v2.mdl"), "{expected:?}");
    assert_eq!(
        same, expected,
        "files that came back with Use Current Frame"
    );
}

/// The names of the files that come back byte for byte from Blender's files `theirs`, each
/// checked for its meshes and triangles.
fn same_after<'a>(files: &'a [common::Opened], theirs: &[PathBuf]) -> Vec<&'a str> {
    let mut same = Vec::new();
    for (file, glb) in files.iter().zip(theirs) {
        let (name, doc) = (&file.name, &file.document);
        let read = gltf::read_path(glb, &gltf::ReadOptions::default())
            .unwrap_or_else(|e| panic!("{name}: Blender's file does not read: {e}"));
        let valid = scene::validate(read.scene).scene;
        let original = Scene::from_document(doc).unwrap().scene;
        assert_eq!(triangles(&valid), triangles(&original), "{name}: triangles");
        let back = Document::from_scene(file.format, &valid, Some(doc), &ImportOptions::default())
            .unwrap_or_else(|e| panic!("{name}: does not import onto its base: {e}"));
        let (was, is) = (doc.summary(), back.document.summary());
        assert_eq!(is.meshes, was.meshes, "{name}: meshes");
        let bytes = back.document.to_bytes().unwrap();
        if bytes == file.bytes {
            same.push(name.as_str());
        }
    }
    same.sort_unstable();
    same
}
