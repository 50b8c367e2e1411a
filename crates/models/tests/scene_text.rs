//! The text formats (ELEM, SKM) converted to the scene model: every fixture and sample against
//! its Summary, structural invariants, and golden values hand-computed from the fixture text.

use models::scene::{ChannelPath, Colors, Conversion, Scene, Transform};
use models::{Document, Summary};
use std::f32::consts::FRAC_1_SQRT_2;
use std::path::{Path, PathBuf};

fn files(format: &str) -> Vec<PathBuf> {
    let mut files = test_support::fixtures(format, format);
    files.extend(test_support::samples(format, format).unwrap_or_default());
    files
}

fn load(path: &Path) -> (Document, Summary, Conversion) {
    let doc = models::open(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let summary = doc.summary();
    let conv = Scene::from_document(&doc).unwrap();
    (doc, summary, conv)
}

fn close(a: f32, b: f32) -> bool {
    (a - b).abs() < 1e-5
}

fn assert_close(what: &str, got: &[f32], want: &[f32]) {
    assert_eq!(got.len(), want.len(), "{what}: {got:?} vs {want:?}");
    assert!(
        got.iter().zip(want).all(|(a, b)| close(*a, *b)),
        "{what}: got {got:?}, want {want:?}"
    );
}

fn triangles(scene: &Scene) -> u64 {
    scene
        .meshes
        .iter()
        .flat_map(|m| &m.primitives)
        .map(|p| p.indices.len() as u64 / 3)
        .sum()
}

/// Vertex values after validation, which repairs them (the converters leave that to it):
/// finite positions, unit normals, colours in 0..1.
fn check_values(name: &str, scene: &Scene) {
    let valid = models::scene::validate(scene.clone()).scene;
    for v in valid.meshes.iter().map(|m| &m.vertices) {
        for p in &v.positions {
            assert!(p.iter().all(|x| x.is_finite()), "{name}: position {p:?}");
        }
        for nrm in v.normals.iter().flatten() {
            let len = (nrm[0] * nrm[0] + nrm[1] * nrm[1] + nrm[2] * nrm[2]).sqrt();
            assert!((len - 1.0).abs() < 1e-4, "{name}: normal {nrm:?} not unit");
        }
        for c in v.colors.iter().flat_map(|c| c.to_floats().into_owned()) {
            assert!(c.iter().all(|x| (0.0..=1.0).contains(x)), "{name}: colour");
        }
    }
}

/// Invariants every converted scene must satisfy (what the glTF writer and validator rely on).
fn check_structure(name: &str, scene: &Scene) {
    check_values(name, scene);
    check_nodes(name, scene);
    check_meshes(name, scene);
    check_joints(name, scene);
    check_skins(name, scene);
    check_animations(name, scene);
}

/// Node indices in range, a tree: every node has one parent but the roots, which have none.
fn check_nodes(name: &str, scene: &Scene) {
    let n = scene.nodes.len();
    let mut parent_count = vec![0usize; n];
    for node in &scene.nodes {
        for &c in &node.children {
            assert!(c < n, "{name}: child {c} out of range");
            parent_count[c] += 1;
        }
        if let Some(m) = node.mesh {
            assert!(m < scene.meshes.len(), "{name}: mesh index");
        }
        if let Some(s) = node.skin {
            assert!(s < scene.skins.len(), "{name}: skin index");
            assert!(node.mesh.is_some(), "{name}: skin without mesh");
            assert_eq!(
                node.transform,
                Transform::default(),
                "{name}: skinned node moved"
            );
        }
        if let Transform::Trs { rotation, .. } = node.transform {
            let len: f32 = rotation.iter().map(|x| x * x).sum::<f32>().sqrt();
            assert!(close(len, 1.0), "{name}: node rotation not unit");
        }
    }
    for &r in &scene.roots {
        assert!(r < n && parent_count[r] == 0, "{name}: root {r}");
    }
    for (i, &c) in parent_count.iter().enumerate() {
        let is_root = scene.roots.contains(&i);
        assert!(
            (c == 1 && !is_root) || (c == 0 && is_root),
            "{name}: node {i} has {c} parents (root: {is_root})"
        );
    }
}

/// Meshes: attributes of one length each, triangle lists of indices in range.
fn check_meshes(name: &str, scene: &Scene) {
    for mesh in &scene.meshes {
        let v = &mesh.vertices;
        let count = v.positions.len();
        assert!(count > 0, "{name}: empty mesh");
        assert!(
            !mesh.primitives.is_empty(),
            "{name}: mesh without primitive"
        );
        let lens = [
            v.normals.as_ref().map(|a| a.len()),
            v.tangents.as_ref().map(|a| a.len()),
            v.uv0.as_ref().map(|a| a.len()),
            v.uv1.as_ref().map(|a| a.len()),
            v.colors.as_ref().map(Colors::len),
            v.joints.as_ref().map(|a| a.len()),
            v.weights.as_ref().map(|a| a.len()),
        ];
        for len in lens.into_iter().flatten() {
            assert_eq!(len, count, "{name}: attribute length");
        }
        assert!(
            v.uv1.is_none() || v.uv0.is_some(),
            "{name}: TEXCOORD_1 without TEXCOORD_0"
        );
        assert_eq!(v.joints.is_some(), v.weights.is_some(), "{name}");
        for w in v.weights.iter().flatten() {
            assert!(w.iter().all(|x| *x >= 0.0), "{name}: weight {w:?}");
            let sum: f32 = w.iter().sum();
            assert!((sum - 1.0).abs() < 1e-5, "{name}: weights {w:?} sum {sum}");
        }
        for prim in &mesh.primitives {
            assert!(!prim.indices.is_empty(), "{name}: empty primitive");
            assert_eq!(prim.indices.len() % 3, 0, "{name}: not a triangle list");
            assert!(
                prim.indices.iter().all(|&i| (i as usize) < count),
                "{name}: index out of range"
            );
            if let Some(m) = prim.material {
                assert!(m < scene.materials.len(), "{name}: material index");
            }
        }
    }
}

/// Joint indices in range of the skin that deforms the mesh; no joint twice per vertex.
fn check_joints(name: &str, scene: &Scene) {
    for node in &scene.nodes {
        let (Some(m), Some(s)) = (node.mesh, node.skin) else {
            continue;
        };
        let skin = &scene.skins[s];
        let v = &scene.meshes[m].vertices;
        for (j, w) in v.joints.iter().flatten().zip(v.weights.iter().flatten()) {
            for k in 0..4 {
                assert!((j[k] as usize) < skin.joints.len(), "{name}: joint {j:?}");
                if w[k] > 0.0 {
                    assert!(
                        (0..4).all(|o| o == k || w[o] == 0.0 || j[o] != j[k]),
                        "{name}: duplicate joint {j:?} {w:?}"
                    );
                } else {
                    assert_eq!(j[k], 0, "{name}: unused joint slot not 0");
                }
            }
        }
    }
}

/// Skins: one inverse bind matrix per joint, each joint a node once.
fn check_skins(name: &str, scene: &Scene) {
    let n = scene.nodes.len();
    for skin in &scene.skins {
        assert_eq!(
            skin.joints.len(),
            skin.inverse_bind_matrices.len(),
            "{name}"
        );
        assert!(skin.joints.iter().all(|&j| j < n), "{name}: joint node");
        let mut sorted = skin.joints.clone();
        sorted.sort_unstable();
        sorted.dedup();
        assert_eq!(sorted.len(), skin.joints.len(), "{name}: duplicate joints");
        for ibm in &skin.inverse_bind_matrices {
            assert!(ibm.iter().all(|x| x.is_finite()), "{name}: IBM");
            assert_close(
                "IBM last row",
                &[ibm[3], ibm[7], ibm[11], ibm[15]],
                &[0.0, 0.0, 0.0, 1.0],
            );
        }
    }
}

/// Animations: one channel per target, times increasing from 0, values that fill them.
fn check_animations(name: &str, scene: &Scene) {
    let n = scene.nodes.len();
    for anim in &scene.animations {
        assert!(
            !anim.channels.is_empty(),
            "{name}: animation without channel"
        );
        let mut targets: Vec<_> = anim
            .channels
            .iter()
            .map(|c| (c.node, c.path as u8))
            .collect();
        targets.sort_unstable();
        let before = targets.len();
        targets.dedup();
        assert_eq!(before, targets.len(), "{name}: duplicate channel targets");
        for ch in &anim.channels {
            assert!(ch.node < n, "{name}: channel node");
            assert!(
                !matches!(scene.nodes[ch.node].transform, Transform::Matrix(_)),
                "{name}: animated node with a matrix"
            );
            assert!(!ch.times.is_empty(), "{name}: no keys");
            assert!(ch.times[0] >= 0.0, "{name}: negative time");
            assert!(
                ch.times.windows(2).all(|w| w[0] < w[1]),
                "{name}: times not increasing"
            );
            let width = match ch.path {
                ChannelPath::Rotation => 4,
                _ => 3,
            };
            assert_eq!(ch.values.len(), ch.times.len() * width, "{name}: values");
            assert!(ch.values.iter().all(|v| v.is_finite()), "{name}: values");
        }
    }
}

#[test]
fn every_elem_fixture_and_sample_converts_with_the_summary_figures() {
    for path in files("elem") {
        let name = test_support::file_name(&path).to_owned();
        let (doc, summary, conv) = load(&path);
        let Document::Elem(elem) = &doc else {
            panic!("{name}: not elem");
        };
        let scene = &conv.scene;
        eprintln!("{name}: {} warnings", conv.warnings.len());
        for w in &conv.warnings {
            eprintln!("  {w}");
        }
        check_structure(&name, scene);
        let vertices: u64 = scene
            .meshes
            .iter()
            .map(|m| m.vertices.positions.len() as u64)
            .sum();
        assert_eq!(vertices, summary.vertices, "{name}: vertices");
        assert_eq!(
            Some(triangles(scene)),
            summary.details["triangles"].as_u64(),
            "{name}: triangles"
        );
        assert_eq!(scene.meshes.len() as u64, summary.meshes, "{name}: meshes");
        assert_eq!(
            scene.materials.len() as u64,
            summary.materials,
            "{name}: materials"
        );
        let joints: u64 = scene.skins.iter().map(|s| s.joints.len() as u64).sum();
        assert_eq!(
            Some(joints),
            summary.details["skin_bones"].as_u64(),
            "{name}: joints"
        );
        // Every hierarchy node is a scene node (plus one node per mesh).
        assert_eq!(
            scene.nodes.len() as u64,
            summary.bones + summary.meshes,
            "{name}: nodes"
        );
        assert_eq!(
            scene.animations.len() as u64,
            summary.animations,
            "{name}: animations"
        );
        for (anim, src) in scene.animations.iter().zip(elem.animations()) {
            let ms = src.time_ms.unwrap_or(1000) as f64;
            let want = src
                .bone_animation
                .parts
                .iter()
                .filter_map(|p| p.time_keys.last())
                .fold(0.0f64, |a, &k| a.max(k * ms / 1000.0));
            assert!(
                close(anim.duration(), want as f32),
                "{name}: duration {} vs {want}",
                anim.duration()
            );
        }
        // Only the UV animation sample and fixture may warn about UV animation, and every
        // file with a UV animation must.
        let uv_parts = summary.details["uv_animation_parts"].as_u64().unwrap_or(0);
        assert_eq!(
            conv.warnings
                .iter()
                .any(|w| w.to_string().contains("UVAnimation")),
            uv_parts > 0,
            "{name}: UV animation warning"
        );
    }
}

#[test]
fn every_skm_fixture_converts_with_the_summary_figures() {
    for path in files("skm") {
        let name = test_support::file_name(&path).to_owned();
        let (_, summary, conv) = load(&path);
        let scene = &conv.scene;
        eprintln!("{name}: {} warnings", conv.warnings.len());
        for w in &conv.warnings {
            eprintln!("  {w}");
        }
        check_structure(&name, scene);
        assert_eq!(scene.meshes.len() as u64, summary.meshes, "{name}");
        assert_eq!(
            scene.meshes[0].vertices.positions.len() as u64,
            summary.vertices,
            "{name}: vertices"
        );
        assert_eq!(triangles(scene), summary.faces, "{name}: triangles");
        assert_eq!(
            scene.materials.len() as u64,
            summary.materials,
            "{name}: materials"
        );
        let joints: u64 = scene.skins.iter().map(|s| s.joints.len() as u64).sum();
        assert_eq!(joints, summary.bones, "{name}: joints");
        assert_eq!(scene.animations.len() as u64, summary.animations, "{name}");
        assert_eq!(
            scene.meshes[0].vertices.joints.is_some(),
            summary.bones > 0,
            "{name}: skinned iff bones"
        );
    }
}

fn elem_scene(file: &str) -> Conversion {
    let path = test_support::workspace_root()
        .join("fixtures/elem")
        .join(file);
    load(&path).2
}

fn mesh_named<'a>(scene: &'a Scene, name: &str) -> &'a models::scene::Mesh {
    scene
        .meshes
        .iter()
        .find(|m| m.name == name)
        .unwrap_or_else(|| panic!("no mesh {name}"))
}

fn node_named(scene: &Scene, name: &str) -> usize {
    scene
        .nodes
        .iter()
        .position(|n| n.name == name)
        .unwrap_or_else(|| panic!("no node {name}"))
}

/// Golden values from `fixtures/elem/static_textured.elem`, `uv2_colors_quads.elem` and
/// `skinned_animated.elem`, computed by hand from the text.
#[test]
fn elem_golden_values() {
    // static_textured: vertex 0 is `-0.5:0.5:-0.5`, normal `0:0:-1`; left-handed → mirror z.
    let conv = elem_scene("static_textured.elem");
    let cube = mesh_named(&conv.scene, "Cube");
    assert_close("position 0", &cube.vertices.positions[0], &[-0.5, 0.5, 0.5]);
    assert_close(
        "normal 0",
        &cube.vertices.normals.as_ref().unwrap()[0],
        &[0.0, 0.0, 1.0],
    );
    // Face `3,0:1:2` (clockwise) becomes 0, 2, 1.
    assert_eq!(&cube.primitives[0].indices[..6], &[0, 2, 1, 0, 3, 2]);
    // `TextureFilename="tex\crate.png"` is kept as written (the glTF writer resolves it);
    // Diffuse=1:0.9:0.85:0.7 → RGBA.
    let crate_mat = &conv.scene.materials[0];
    assert_eq!(crate_mat.color_texture.as_deref(), Some("tex\\crate.png"));
    assert_close(
        "crate diffuse",
        &crate_mat.base_color,
        &[0.9, 0.85, 0.7, 1.0],
    );
    assert_eq!(crate_mat.specular, Some(([0.1, 0.1, 0.1, 1.0], 8.5)));
    assert_close("uv 1", &cube.vertices.uv0.as_ref().unwrap()[1], &[1.0, 0.0]);

    // uv2_colors_quads: material "detail" Diffuse=0.5:0.2:0.4:0.6 (a:r:g:b) → r,g,b,a.
    let conv = elem_scene("uv2_colors_quads.elem");
    let detail = &conv.scene.materials[1];
    assert_eq!(detail.name, "detail");
    assert_close("detail diffuse", &detail.base_color, &[0.2, 0.4, 0.6, 0.5]);
    assert_eq!(detail.alpha_mode, models::scene::AlphaMode::Blend);
    let grid = mesh_named(&conv.scene, "Grid");
    // Vertex colour 1 is `1:0.3333333333333333:0:0.6666666666666667`.
    assert_close(
        "colour 1",
        &grid.vertices.colors.as_ref().unwrap().get(1).unwrap(),
        &[1.0 / 3.0, 0.0, 2.0 / 3.0, 1.0],
    );
    // Texture1UV row 4 is `0:0.6666666666666667`, Texture2UV row 1 `0.41666666666666663:0.25`.
    assert_close(
        "uv0",
        &grid.vertices.uv0.as_ref().unwrap()[4],
        &[0.0, 2.0 / 3.0],
    );
    assert_close(
        "uv1",
        &grid.vertices.uv1.as_ref().unwrap()[1],
        &[5.0 / 12.0, 0.25],
    );
    // Quad `4,0:4:5:1` (material 0): fan (0,4,5), (0,5,1), reversed → (0,5,4), (0,1,5).
    assert_eq!(grid.primitives[0].material, Some(0));
    assert_eq!(&grid.primitives[0].indices[..6], &[0, 5, 4, 0, 1, 5]);
    assert_eq!(grid.primitives.len(), 2);
    assert_eq!(triangles(&conv.scene), 18);

    // japanese_names: a rigid mesh whose RenderingMesh names one node hangs under that node.
    let conv = elem_scene("japanese_names.elem");
    let sword = node_named(&conv.scene, "剣");
    let blade = node_named(&conv.scene, "剣の刃");
    assert!(conv.scene.nodes[sword].children.contains(&blade));
    assert!(conv.scene.nodes[blade].skin.is_none());
    assert_eq!(
        conv.scene.materials[0].color_texture.as_deref(),
        Some("テクスチャ\\鋼.png")
    );
    assert_eq!(conv.scene.materials[1].color_texture, None);

    // skinned_animated: the "Hand" part's key 1 at TimeKey 1 × AnimationTime 2000 ms = 2 s has
    // TransKeys 0:0.125:0 applied after InitPosture translation (0, 2, 0) → (0, 2.125, 0);
    // ScaleKeys 1.5; RotateKeys 0:0:-0.25:0.968… (a z rotation: the mirror keeps z and w).
    let conv = elem_scene("skinned_animated.elem");
    let scene = &conv.scene;
    let hand = node_named(scene, "Hand");
    let elbow = node_named(scene, "Elbow");
    let anim = &scene.animations[0];
    assert_eq!(anim.name, "Wave");
    assert!(close(anim.duration(), 2.0));
    let channel = |node, path| {
        anim.channels
            .iter()
            .find(|c| c.node == node && c.path == path)
            .unwrap()
    };
    let t = channel(hand, ChannelPath::Translation);
    assert_close("hand times", &t.times, &[0.0, 2.0]);
    assert_close("hand translation", &t.values[3..6], &[0.0, 2.125, 0.0]);
    let s = channel(hand, ChannelPath::Scale);
    assert_close("hand scale", &s.values[3..6], &[1.5, 1.5, 1.5]);
    let r = channel(hand, ChannelPath::Rotation);
    assert_close(
        "hand rotation",
        &r.values[4..8],
        &[0.0, 0.0, -0.25, 0.968_245_8],
    );
    let r = channel(elbow, ChannelPath::Rotation);
    assert_close("elbow times", &r.times, &[0.0, 1.0, 2.0]);
    assert_close(
        "elbow rotation",
        &r.values[4..8],
        &[0.0, 0.0, FRAC_1_SQRT_2, FRAC_1_SQRT_2],
    );
    // Rest pose: Hand's InitPostureMatrix translation (M42 = 2).
    assert_eq!(
        scene.nodes[hand].transform,
        Transform::Trs {
            translation: [0.0, 2.0, 0.0],
            rotation: [0.0, 0.0, 0.0, 1.0],
            scale: [1.0; 3]
        }
    );
    // Skin: joints in BoneNames order; Elbow's offset matrix translation (0, −2, 0) → IBM.
    let skin = &scene.skins[0];
    assert_eq!(skin.joints, vec![node_named(scene, "Root"), elbow, hand]);
    assert_eq!(skin.skeleton, Some(node_named(scene, "Root")));
    assert_close(
        "elbow IBM",
        &skin.inverse_bind_matrices[1][12..16],
        &[0.0, -2.0, 0.0, 1.0],
    );
    // Vertex 8: Elbow 0.25, Hand 0.75 → largest first.
    let arm = mesh_named(scene, "Arm");
    assert_eq!(arm.vertices.joints.as_ref().unwrap()[8], [2, 1, 0, 0]);
    assert_close(
        "weights 8",
        &arm.vertices.weights.as_ref().unwrap()[8],
        &[0.75, 0.25, 0.0, 0.0],
    );
    // Ambient a:r:g:b 1:0.25:0.25:0.25 → extras RGBA; the UV animation goes to extras.
    assert_eq!(
        scene.materials[0].extras["ambient"],
        serde_json::json!([0.25, 0.25, 0.25, 1.0])
    );
    assert!(anim.extras.contains_key("uv_animation"));
    assert_eq!(anim.extras["loop"], serde_json::json!(true));
}

/// A rotation about x and a z translation are what the mirror changes: checked on a small
/// in-memory document (InitPosture with a z translation, key with an x rotation).
#[test]
fn elem_mirror_of_keys_and_matrices() {
    let text = "Elfreina Extension Model File\r\nFile Version 1.00\r\n\
        HierarchyList {\r\n Node {\r\n  NodeName=\"B\"\r\n  \
        InitPostureMatrix=1:0:0:0:0:1:0:0:0:0:1:0:1:2:3:1\r\n }\r\n}\r\n\
        AnimationList {\r\n AnimationCount=1\r\n AnimationData {\r\n  AnimationName=\"A\"\r\n  \
        AnimationTime=500\r\n  FrameParSecond=30\r\n  Loop=False\r\n  BoneAnimation {\r\n   \
        AnimationPart {\r\n    NodeName=\"B\"\r\n    TimeKeys {\r\n     0\r\n     0.5\r\n    }\r\n    \
        TransKeys {\r\n     0:0:0\r\n     0:0:1\r\n    }\r\n    RotateKeys {\r\n     0:0:0:1\r\n     \
        0.6:0:0:0.8\r\n    }\r\n    ScaleKeys {\r\n     1:1:1\r\n     1:1:1\r\n    }\r\n   }\r\n  }\r\n \
        }\r\n}\r\n";
    let doc = models::from_bytes(text.as_bytes()).expect("parse");
    let conv = Scene::from_document(&doc).unwrap();
    let scene = &conv.scene;
    assert_eq!(
        scene.nodes[0].transform,
        Transform::Trs {
            translation: [1.0, 2.0, -3.0],
            rotation: [0.0, 0.0, 0.0, 1.0],
            scale: [1.0; 3]
        }
    );
    let anim = &scene.animations[0];
    let t = &anim.channels[0];
    assert_eq!(t.path, ChannelPath::Translation);
    // 0.5 × 500 ms = 0.25 s; (1, 2, 3) + (0, 0, 1) mirrored = (1, 2, −4).
    assert_close("times", &t.times, &[0.0, 0.25]);
    assert_close("translation", &t.values[3..6], &[1.0, 2.0, -4.0]);
    let r = &anim.channels[1];
    assert_close("rotation", &r.values[4..8], &[-0.6, 0.0, 0.0, 0.8]);
    assert!(conv.warnings.is_empty(), "{:?}", conv.warnings);
}

/// Golden values from `fixtures/skm/arm_skinned.skm`.
#[test]
fn skm_golden_values() {
    let path = test_support::workspace_root().join("fixtures/skm/arm_skinned.skm");
    let (_, _, conv) = load(&path);
    let scene = &conv.scene;
    let v = &scene.meshes[0].vertices;
    // Vertex 0: `0 0 0.3 -0.3 … 0 0.7071068 -0.7071068 0 0` → z mirrored.
    assert_close("position 0", &v.positions[0], &[0.0, 0.3, 0.3]);
    assert_close(
        "normal 0",
        &v.normals.as_ref().unwrap()[0],
        &[0.0, FRAC_1_SQRT_2, FRAC_1_SQRT_2],
    );
    assert_close("uv 1", &v.uv0.as_ref().unwrap()[1], &[0.0, 0.333_333_34]);
    // Triangle `0 1 5` (clockwise) → 0 5 1.
    assert_eq!(&scene.meshes[0].primitives[0].indices[..3], &[0, 5, 1]);
    // Vertex 12: b = 0.1 0.2 0.3 (+ implied 0.4), blendIndices 33686017 = 0x02020201 →
    // palette 1, 2, 2, 2 → bone 2: 0.9, bone 1: 0.1.
    assert_eq!(v.joints.as_ref().unwrap()[12], [2, 1, 0, 0]);
    assert_close(
        "weights 12",
        &v.weights.as_ref().unwrap()[12],
        &[0.9, 0.1, 0.0, 0.0],
    );
    // Vertex 4: 0.7 0.3 0, blendIndices 513 = 0x0201 → bone 1: 0.7, bone 2: 0.3.
    assert_eq!(v.joints.as_ref().unwrap()[4], [1, 2, 0, 0]);
    // Material: diffuse `0.9 0.75 0.65 1` is R G B A; power 8; specular 0.5.
    let m = &scene.materials[0];
    assert_close("diffuse", &m.base_color, &[0.9, 0.75, 0.65, 1.0]);
    assert_eq!(m.specular, Some(([0.5, 0.5, 0.5, 1.0], 8.0)));
    assert!(m
        .color_texture
        .as_deref()
        .is_some_and(|t| t.ends_with(".bmp")));
    // Bone 2 (parent 1): begin (2, 0, 0), parent begin (0, 0, 0) → translation (2, 0, 0);
    // bone 4 (parent 3): begin (−2, 0, 0) → (−2, 0, 0). Rest rotation identity.
    let skin = &scene.skins[0];
    assert_eq!(skin.joints.len(), 5);
    let bone2 = skin.joints[2];
    assert_eq!(
        scene.nodes[bone2].transform,
        Transform::Trs {
            translation: [2.0, 0.0, 0.0],
            rotation: [0.0, 0.0, 0.0, 1.0],
            scale: [1.0; 3]
        }
    );
    assert!(scene.nodes[skin.joints[1]].children.contains(&bone2));
    assert_close(
        "IBM 2",
        &skin.inverse_bind_matrices[2][12..16],
        &[-2.0, 0.0, 0.0, 1.0],
    );
    assert_eq!(skin.skeleton, Some(skin.joints[0]));
    // The quaternion (0, 0, 0.38268343, 0.9238795) is kept, mirrored, in extras, with a warning.
    let q = &scene.nodes[bone2].extras["initial_rotation"];
    let q: Vec<f32> = serde_json::from_value(q.clone()).unwrap();
    assert_close(
        "initial rotation",
        &q,
        &[0.0, 0.0, 0.382_683_43, 0.923_879_5],
    );
    assert!(conv
        .warnings
        .iter()
        .any(|w| w.to_string().contains("bind pose")));
    assert!(scene.animations.is_empty());
}

/// A bone with a z coordinate and an excess weight sum, on a small in-memory document.
#[test]
fn skm_mirror_of_bones_and_weight_clamp() {
    let text = "Vertices: 3\r\n\
        0 0 0 1 0.6 0.6 0 0 0 0 -1 0 0\r\n\
        1 1 0 1 1 0 0 0 0 0 -1 1 0\r\n\
        2 0 1 1 1 0 0 0 0 0 -1 0 1\r\n\
        Indices: 3\r\n0 1 2\r\nAdjacency: 1\r\n4294967295 4294967295 4294967295\r\n\
        Materials: 1\r\n0\r\n1 0 0 0.5\r\n0 0 0 1\r\n0 0 0 1\r\n0 0 0 1\r\n5\r\n\"C:\\tex\\a.bmp\"\r\n\
        Attributes: 1\r\n0 0 1 0 3\r\n\
        Bone: 2\r\n\"r\"\r\n0 -1 -1\r\n0 0 1 0 1 1\r\n0 0 0 1\r\n\"c\"\r\n1 0 -1\r\n0 1 3 0 2 3\r\n0 0 0 1\r\n";
    let doc = models::from_bytes(text.as_bytes()).expect("parse");
    let conv = Scene::from_document(&doc).unwrap();
    let scene = &conv.scene;
    // Bone "c": begin (0, 1, 3) − parent begin (0, 0, 1) = (0, 1, 2) → mirrored (0, 1, −2).
    let c = scene.skins[0].joints[1];
    assert_eq!(
        scene.nodes[c].transform,
        Transform::Trs {
            translation: [0.0, 1.0, -2.0],
            rotation: [0.0, 0.0, 0.0, 1.0],
            scale: [1.0; 3]
        }
    );
    assert_close(
        "IBM c",
        &scene.skins[0].inverse_bind_matrices[1][12..15],
        &[0.0, -1.0, 3.0],
    );
    assert_close(
        "position 0",
        &scene.meshes[0].vertices.positions[0],
        &[0.0, 0.0, -1.0],
    );
    // b0 + b1 = 1.2 (> 1): b3 clamped, 0.6 + 0.6 on bone 0 merged → weight 1.
    let v = &scene.meshes[0].vertices;
    assert_eq!(v.joints.as_ref().unwrap()[0], [0, 0, 0, 0]);
    assert_close(
        "weights 0",
        &v.weights.as_ref().unwrap()[0],
        &[1.0, 0.0, 0.0, 0.0],
    );
    // Diffuse alpha 0.5 → blend; the absolute texture path is kept as written: the glTF
    // writer applies the outside-folder rules to it as for every format.
    assert_eq!(
        scene.materials[0].alpha_mode,
        models::scene::AlphaMode::Blend
    );
    assert_eq!(
        scene.materials[0].color_texture.as_deref(),
        Some("C:\\tex\\a.bmp")
    );
    let text: Vec<String> = conv.warnings.iter().map(|w| w.to_string()).collect();
    assert!(
        text.iter().any(|w| w.contains("b0 + b1 + b2 > 1")),
        "{text:?}"
    );
    check_structure("inline", scene);
}

#[test]
fn normalize_weights_keeps_the_four_largest() {
    use models::scene::{normalize_weights, SlotOrder};
    let list = [(5, 0.1), (1, 0.3), (2, 0.2), (3, 0.25), (4, 0.15)];
    let (j, w, f) = normalize_weights(list, 6, SlotOrder::LargestFirst);
    assert_eq!(j, [1, 3, 2, 4]);
    assert!(f.truncated && f.renormalized);
    assert!(close(w.iter().sum::<f32>(), 1.0));
    assert!(close(w[0], 0.3 / 0.9));
    let (j, w, f) = normalize_weights([(7, 0.0), (2, -1.0)], 8, SlotOrder::LargestFirst);
    assert_eq!((j, w), ([0; 4], [1.0, 0.0, 0.0, 0.0]));
    assert!(f.empty && f.invalid == 1);
    assert_eq!(
        models::scene::relative_texture_path("C:\\a\\b.png"),
        ("b.png".to_owned(), true)
    );
    assert_eq!(
        models::scene::relative_texture_path("tex\\c.tga"),
        ("tex/c.tga".to_owned(), false)
    );
}

/// Each vertex repair is made once, by validation, with its one warning: the converters pass
/// non-finite positions and UVs, zero normals and colours outside 0..1 through as written.
#[test]
fn vertex_repairs_are_left_to_validation() {
    let elem = "Elfreina Extension Model File\r\nFile Version 1.00\r\nMeshDataList {\r\n\
        MeshContainerCount=1\r\nMeshContainer {\r\nName=\"C\"\r\nBoneCount=0\r\nMeshCount=1\r\n\
        VertexFormat {\r\n\"Position\"\r\n\"Normal\"\r\n\"Diffuse\"\r\n\"TextureUV\"\r\n}\r\n\
        BoneNames {\r\n}\r\nOffsetMatrices {\r\n}\r\nMaterials {\r\nMaterialCount=0\r\n}\r\n\
        Mesh {\r\nName=\"M\"\r\nVertexCount=3\r\nFaceCount=1\r\n\
        Positions {\r\n0:0:0\r\n1:1.#QNAN:0\r\n0:1:1.#INF\r\n}\r\n\
        Normals {\r\n0:0:0\r\n0:2:0\r\n0:0:-1\r\n}\r\n\
        Diffuse {\r\n1:1:1:1\r\n1:2:0:0\r\n1:1:1:1\r\n}\r\n\
        TextureUV {\r\n0:0\r\n1.#QNAN:1\r\n1:1\r\n}\r\n\
        VertexIndices {\r\n3,0:1:2\r\n}\r\n}\r\n}\r\n}\r\n";
    let doc = models::from_bytes(elem.as_bytes()).expect("parse");
    let conv = Scene::from_document(&doc).unwrap();
    let said: Vec<String> = conv.warnings.iter().map(|w| w.to_string()).collect();
    for w in &said {
        for word in ["non-finite", "origin", "zero", "clamped", "UVs"] {
            assert!(!w.contains(word), "the converter repairs: {w}");
        }
    }
    assert!(!said.iter().any(|w| w.contains("unit length")), "{said:?}");
    let valid = models::scene::validate(conv.scene);
    let said: Vec<String> = valid.warnings.iter().map(|w| w.to_string()).collect();
    let once = |what: &str| {
        let n = said.iter().filter(|w| w.contains(what)).count();
        assert_eq!(n, 1, "{what:?} in {said:#?}");
    };
    once("2 positions had non-finite coordinates, set to 0");
    once("1 normals were zero or not finite");
    once("1 normals were not unit length; normalised");
    once("1 texture coordinates of set 0 were not finite");
    once("1 vertex colours outside 0..1");
    let v = &valid.scene.meshes[0].vertices;
    // Only the non-finite coordinate is repaired, the others are kept (z mirrored).
    assert_eq!(v.positions[1], [1.0, 0.0, -0.0]);
    assert_eq!(v.positions[2], [0.0, 1.0, 0.0]);
    assert_eq!(v.normals.as_deref().unwrap()[..2], [[0.0, 1.0, 0.0]; 2]);
    assert_eq!(v.uv0.as_deref().unwrap()[1], [0.0, 1.0]);
    assert_eq!(
        v.colors.as_ref().unwrap().get(1),
        Some([1.0, 0.0, 0.0, 1.0])
    );

    // SKM: a zero normal and a normal of length 2.
    let skm = "Vertices: 3\r\n\
        0 0 0 0 0 0 0 0 0 0 0 0 0\r\n\
        1 0 0 0 0 0 0 0 2 0 0 0 0\r\n\
        0 1 0 0 0 0 0 0 0 1 0 0 0\r\n\
        Indices: 3\r\n0 1 2\r\nAdjacency: 1\r\n4294967295 4294967295 4294967295\r\n\
        Materials: 0\r\nAttributes: 0\r\nBone: 0\r\n";
    let doc = models::from_bytes(skm.as_bytes()).expect("parse skm");
    let conv = Scene::from_document(&doc).unwrap();
    let said: Vec<String> = conv.warnings.iter().map(|w| w.to_string()).collect();
    assert!(!said.iter().any(|w| w.contains("zero")), "{said:?}");
    assert!(!said.iter().any(|w| w.contains("unit length")), "{said:?}");
    let valid = models::scene::validate(conv.scene);
    let said: Vec<String> = valid.warnings.iter().map(|w| w.to_string()).collect();
    assert_eq!(
        said.iter()
            .filter(|w| w.contains("1 normals were not unit length; normalised"))
            .count(),
        1,
        "{said:?}"
    );
    assert_eq!(
        said.iter()
            .filter(|w| w.contains("normals were zero"))
            .count(),
        1,
        "{said:?}"
    );
    let n = valid.scene.meshes[0].vertices.normals.clone().unwrap();
    assert_eq!(n[..2], [[0.0, 1.0, 0.0], [1.0, 0.0, -0.0]]);
}
