//! `models convert --merge-clips`: several BMFs of one character → one glTF, one clip per file.

mod common;
use common::*;

use models::Document;
use std::path::{Path, PathBuf};

fn arm() -> models::bmf::Bmf {
    let path = test_support::workspace_root().join("fixtures/bmf/skinned_arm.bmf");
    match models::open(&path).unwrap() {
        Document::Bmf(b) => b,
        _ => panic!("not bmf"),
    }
}

fn write(dir: &Path, name: &str, bmf: models::bmf::Bmf) -> PathBuf {
    let path = dir.join(name);
    std::fs::write(&path, Document::Bmf(bmf).to_bytes().unwrap()).unwrap();
    path
}

#[test]
fn two_animation_files_become_one_skin_and_two_clips() {
    let dir = tempfile::tempdir().unwrap();
    let walk = write(dir.path(), "walk.bmf", arm());
    let mut backwards = arm();
    backwards.meshes[0]
        .skin
        .as_mut()
        .unwrap()
        .matrices
        .reverse();
    let run = write(dir.path(), "run.bmf", backwards);
    let out = dir.path().join("out.glb");
    let o = models(&[&"convert", &"--merge-clips", &walk, &run, &out]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let g = gltf::Gltf::from_slice(&std::fs::read(&out).unwrap()).unwrap();
    assert_eq!(g.skins().count(), 1);
    let names: Vec<_> = g
        .animations()
        .map(|a| a.name().unwrap_or_default().to_owned())
        .collect();
    assert_eq!(names, ["walk", "run"]);
    // The frame-rate guess is said, once per input.
    let err = stderr(&o);
    assert_eq!(err.matches("no sample rate").count(), 2, "{err}");
}

#[test]
fn files_of_another_character_are_refused() {
    let dir = tempfile::tempdir().unwrap();
    let walk = write(dir.path(), "walk.bmf", arm());
    let mut other = arm();
    other.meshes[0].skin.as_mut().unwrap().bone_count = 5;
    let other = write(dir.path(), "other.bmf", other);
    let out = dir.path().join("out.glb");
    let o = models(&[&"convert", &"--merge-clips", &walk, &other, &out]);
    assert_eq!(o.status.code(), Some(1));
    let err = stderr(&o);
    assert!(
        err.contains("other.bmf: cannot merge its clips with")
            && err.contains("walk.bmf")
            && err.contains("bone count: 2 bones in the first, 5 bones here"),
        "{err}"
    );
    assert!(!out.exists(), "nothing written");
}

#[test]
fn merge_clips_usage_errors() {
    let dir = tempfile::tempdir().unwrap();
    let walk = write(dir.path(), "walk.bmf", arm());
    // Only an output.
    let o = models(&[&"convert", &"--merge-clips", &walk]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    // Not a glTF output.
    let o = models(&[
        &"convert",
        &"--merge-clips",
        &walk,
        &dir.path().join("x.bmf"),
    ]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(stderr(&o).contains(".glb or .gltf"), "{}", stderr(&o));
    // Not with a batch.
    let o = models(&[
        &"convert",
        &"--merge-clips",
        &"--out-dir",
        &dir.path(),
        &walk,
    ]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
}
