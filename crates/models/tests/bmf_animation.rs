//! BaseCross animations (issue 14): one skeleton for a multi-mesh file, rest pose = bind pose,
//! `bone_00` names, the frame-rate warning, and merging the clips of several files of one
//! character.

use models::bmf::Bmf;
use models::gltf::{self, GltfOptions};
use models::scene::{
    compose, merge_clips, mul, Budget, ClipSource, Conversion, MergeError, Scene, Transform,
    IDENTITY,
};
use models::Document;
use std::path::PathBuf;

fn fixture(name: &str) -> Bmf {
    let path = test_support::workspace_root()
        .join("fixtures/bmf")
        .join(name);
    match models::open(&path).unwrap() {
        Document::Bmf(b) => b,
        _ => panic!("{name}: not bmf"),
    }
}

fn convert(bmf: Bmf) -> Conversion {
    Scene::from_document(&Document::Bmf(bmf)).unwrap()
}

/// The skinned arm mesh three times in one BDV1.1 file, as Fbx2Bin writes a multi-mesh model:
/// every mesh with the same bone count and the same matrices.
fn three_arms() -> Bmf {
    let arm = fixture("skinned_arm.bmf").meshes.remove(0);
    Bmf::new(vec![arm.clone(), arm.clone(), arm])
}

fn sample_files() -> Vec<PathBuf> {
    let mut v = test_support::fixtures("bmf", "bmf");
    v.extend(test_support::samples("bmf", "bmf").unwrap_or_default());
    v
}

/// Each node's global transform at rest (parents before children or not: walks up).
fn global_rest(scene: &Scene, node: usize) -> [f32; 16] {
    let mut parent = vec![None; scene.nodes.len()];
    for (i, n) in scene.nodes.iter().enumerate() {
        for &c in &n.children {
            parent[c] = Some(i);
        }
    }
    let local = |i: usize| match scene.nodes[i].transform {
        Transform::Trs {
            translation,
            rotation,
            scale,
        } => compose(translation, rotation, scale),
        Transform::Matrix(m) => m,
    };
    let (mut global, mut at) = (local(node), parent[node]);
    while let Some(p) = at {
        global = mul(local(p), global);
        at = parent[p];
    }
    global
}

#[test]
fn a_multi_mesh_file_with_one_skeleton_gets_one_skin() {
    let c = convert(three_arms());
    let s = &c.scene;
    assert_eq!(s.meshes.len(), 3);
    assert_eq!(s.skins.len(), 1, "one skeleton, not one armature per mesh");
    let mesh_nodes: Vec<_> = s.nodes.iter().filter(|n| n.mesh.is_some()).collect();
    assert_eq!(mesh_nodes.len(), 3);
    assert!(mesh_nodes.iter().all(|n| n.skin == Some(0)));
    let skin = &s.skins[0];
    assert_eq!(skin.joints.len(), 2);
    assert_eq!(s.nodes[skin.skeleton.unwrap()].name, "skeleton");
    // T, R and S channels once per joint, not once per mesh.
    assert_eq!(s.animations.len(), 1);
    assert_eq!(s.animations[0].channels.len(), 3 * 2);
}

#[test]
fn meshes_with_different_matrices_keep_their_own_skeletons() {
    let mut bmf = three_arms();
    let skin = bmf.meshes[1].skin.as_mut().unwrap();
    skin.matrices.reverse();
    let s = convert(bmf).scene;
    assert_eq!(s.skins.len(), 3);
    let names: Vec<&str> = s.skins[1]
        .joints
        .iter()
        .map(|&j| s.nodes[j].name.as_str())
        .collect();
    assert_eq!(names, ["mesh1_bone_00", "mesh1_bone_01"]);
    let node_names: std::collections::HashSet<_> = s.nodes.iter().map(|n| &n.name).collect();
    assert_eq!(node_names.len(), s.nodes.len(), "node names stay unique");
}

#[test]
fn the_static_multi_mesh_fixture_has_no_skeleton() {
    let s = convert(fixture("multi_three_meshes.bmf")).scene;
    assert_eq!(s.meshes.len(), 3);
    assert!(s.skins.is_empty() && s.animations.is_empty());
}

#[test]
fn the_real_multi_mesh_sample_shares_one_skeleton() {
    let Some(samples) = test_support::samples("bmf", "bmf") else {
        return;
    };
    let Some(path) = samples
        .iter()
        .find(|p| test_support::file_name(p).starts_with("10_"))
    else {
        return;
    };
    let s = Scene::from_document(&models::open(path).unwrap())
        .unwrap()
        .scene;
    // Three meshes of 27 bones with the same 31 samples of matrices (bmf PROVENANCE.md).
    assert_eq!(s.meshes.len(), 3);
    assert_eq!(s.skins.len(), 1);
    assert_eq!(s.skins[0].joints.len(), 27);
    assert_eq!(
        s.nodes.iter().filter(|n| n.skin == Some(0)).count(),
        3,
        "every mesh node uses the one skin"
    );
    assert_eq!(s.animations[0].channels.len(), 3 * 27);
}

#[test]
fn bones_are_named_bone_00_and_up() {
    let s = convert(fixture("skinned_arm.bmf")).scene;
    let names: Vec<&str> = s.skins[0]
        .joints
        .iter()
        .map(|&j| s.nodes[j].name.as_str())
        .collect();
    assert_eq!(names, ["bone_00", "bone_01"]);
    // Width grows past 99 bones rather than wrapping.
    let mut bmf = fixture("skinned_arm.bmf");
    let skin = bmf.meshes[0].skin.as_mut().unwrap();
    skin.bone_count = 120;
    skin.matrices = vec![IDENTITY; 120];
    let s = convert(bmf).scene;
    let joints = &s.skins[0].joints;
    assert_eq!(s.nodes[joints[7]].name, "bone_07");
    assert_eq!(s.nodes[joints[119]].name, "bone_119");
}

/// Rest pose = bind pose: every joint's global rest transform times its inverse bind matrix is
/// the identity, for every fixture, every sample and the derived multi-mesh file, although
/// the first animation sample is not the identity in every file.
#[test]
fn the_rest_pose_is_the_bind_pose() {
    let mut scenes: Vec<(String, Scene)> = sample_files()
        .iter()
        .map(|p| {
            let doc = models::open(p).unwrap();
            (
                test_support::file_name(p).to_owned(),
                Scene::from_document(&doc).unwrap().scene,
            )
        })
        .collect();
    scenes.push(("three arms".into(), convert(three_arms()).scene));
    let mut joints_checked = 0;
    let mut first_frame_not_rest = 0;
    for (name, s) in &scenes {
        for skin in &s.skins {
            for (j, &node) in skin.joints.iter().enumerate() {
                let bind = mul(global_rest(s, node), skin.inverse_bind_matrices[j]);
                assert!(
                    bind.iter().zip(IDENTITY).all(|(a, b)| (a - b).abs() < 1e-6),
                    "{name}: joint {j} at rest is not in the bind pose: {bind:?}"
                );
                joints_checked += 1;
            }
        }
        for ch in s.animations.iter().flat_map(|a| &a.channels) {
            let rest: &[f32] = match ch.path {
                models::scene::ChannelPath::Translation => &[0.0; 3],
                models::scene::ChannelPath::Rotation => &[0.0, 0.0, 0.0, 1.0],
                models::scene::ChannelPath::Scale => &[1.0; 3],
            };
            let first = &ch.values[..rest.len()];
            if first.iter().zip(rest).any(|(a, b)| (a - b).abs() > 1e-3) {
                first_frame_not_rest += 1;
            }
        }
    }
    assert!(joints_checked >= 2, "no skinned file checked");
    if test_support::samples("bmf", "bmf").is_some() {
        // Sample 05's first frame is a pose, not the bind pose: the test would catch a rest
        // pose taken from it.
        assert!(first_frame_not_rest > 0);
    }
}

#[test]
fn the_frame_rate_guess_is_a_warning() {
    let c = convert(fixture("skinned_arm.bmf"));
    assert!(
        c.warnings
            .iter()
            .any(|w| w.to_string().contains("no sample rate")
                && w.to_string().contains("30 samples per second")),
        "{:?}",
        c.warnings
    );
    let c = convert(fixture("static_cube.bmf"));
    assert!(c
        .warnings
        .iter()
        .all(|w| !w.to_string().contains("sample rate")));
}

/// A second "animation file" of the arm: same mesh and bones, the samples played backwards.
fn arm_running_backwards() -> Bmf {
    let mut bmf = fixture("skinned_arm.bmf");
    bmf.meshes[0].skin.as_mut().unwrap().matrices.reverse();
    bmf
}

fn source(clip: &str, bmf: Bmf) -> ClipSource {
    ClipSource {
        clip: clip.into(),
        scene: convert(bmf).scene,
    }
}

#[test]
fn merging_two_animation_files_gives_one_skin_and_two_clips() {
    let walk = source("walk", fixture("skinned_arm.bmf"));
    let run = source("run", arm_running_backwards());
    assert_ne!(walk.scene.animations, run.scene.animations);
    let (walk_anim, run_anim) = (
        walk.scene.animations[0].clone(),
        run.scene.animations[0].clone(),
    );
    let merged = merge_clips(vec![walk, run], &mut Budget::unlimited()).unwrap();
    assert!(merged.warnings.is_empty(), "{:?}", merged.warnings);
    let s = &merged.scene;
    assert_eq!(s.skins.len(), 1);
    let names: Vec<&str> = s.animations.iter().map(|a| a.name.as_str()).collect();
    assert_eq!(names, ["walk", "run"]);
    assert_eq!(s.animations[0].channels, walk_anim.channels);
    assert_eq!(s.animations[1].channels, run_anim.channels);
    // The glTF has one skin and both animations, on the same joints.
    let glb = gltf::to_glb(
        &models::scene::validate(s.clone()).scene,
        &GltfOptions::default(),
    )
    .unwrap();
    let g = ::gltf::Gltf::from_slice(&glb).unwrap();
    assert_eq!(g.skins().count(), 1);
    assert_eq!(g.animations().count(), 2);
    let targets = |k: usize| -> Vec<usize> {
        let a = g.animations().nth(k).unwrap();
        a.channels().map(|c| c.target().node().index()).collect()
    };
    assert_eq!(targets(0), targets(1));
}

#[test]
fn repeated_clip_names_are_made_unique_with_a_warning() {
    let merged = merge_clips(
        vec![
            source("walk", fixture("skinned_arm.bmf")),
            source("walk", arm_running_backwards()),
        ],
        &mut Budget::unlimited(),
    )
    .unwrap();
    let names: Vec<&str> = merged
        .scene
        .animations
        .iter()
        .map(|a| a.name.as_str())
        .collect();
    assert_eq!(names, ["walk", "walk_2"]);
    assert_eq!(merged.warnings.len(), 1, "{:?}", merged.warnings);
}

fn mismatch(first: Bmf, second: Bmf) -> String {
    let err = merge_clips(
        vec![source("walk", first), source("run", second)],
        &mut Budget::unlimited(),
    )
    .unwrap_err();
    let MergeError::Mismatch { index, .. } = &err else {
        panic!("{err}")
    };
    assert_eq!(*index, 1);
    err.to_string()
}

#[test]
fn files_of_different_characters_are_refused_naming_the_difference() {
    // Another bone count (same mesh): 2 bones × 5 samples become 5 bones × 2 samples.
    let mut five_bones = fixture("skinned_arm.bmf");
    five_bones.meshes[0].skin.as_mut().unwrap().bone_count = 5;
    let text = mismatch(fixture("skinned_arm.bmf"), five_bones);
    assert!(
        text.contains("\"run\" does not match \"walk\"")
            && text.contains("bone count: 2 bones in the first, 5 bones here"),
        "{text}"
    );
    // Other meshes.
    let text = mismatch(fixture("skinned_arm.bmf"), three_arms());
    assert!(
        text.contains("mesh count: 1 in the first, 3 here"),
        "{text}"
    );
    let text = mismatch(fixture("skinned_arm.bmf"), fixture("static_cube.bmf"));
    assert!(text.contains("mesh 0 vertices"), "{text}");
    // Same counts, a moved vertex.
    let mut moved = fixture("skinned_arm.bmf");
    if let models::bmf::Vertices::Skinned(v) = &mut moved.meshes[0].vertices {
        v[0].position[0] += 1.0;
    }
    let text = mismatch(fixture("skinned_arm.bmf"), moved);
    assert!(text.contains("mesh 0: same counts but different"), "{text}");
}

#[test]
fn the_merge_is_charged_to_the_budget() {
    let inputs = || {
        vec![
            source("walk", fixture("skinned_arm.bmf")),
            source("run", arm_running_backwards()),
        ]
    };
    let mut budget = Budget::for_input(0);
    assert!(merge_clips(inputs(), &mut budget).is_ok());
    assert!(budget.used() > 0);
    assert!(matches!(
        merge_clips(vec![], &mut Budget::unlimited()),
        Err(MergeError::NoInput)
    ));
}
