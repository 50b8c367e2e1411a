//! glTF → MDL (`scene::to_mdl`): every fixture and sample survives
//! `Mdl → Scene → .glb → Scene → validate → Mdl` with the same summary and the same bytes,
//! patching an unedited export onto its base gives the base byte for byte, versions convert,
//! skins beyond the engine's 32 connectors are divided, and every fixture of every format
//! imports into an MDL the reader takes.

mod common;

use common::through_glb;
use mdl_format::Mdl;
use models::mdl as mdl_format;
use models::scene::{self, ImportOptions, Scene};
use models::{Document, Format, Model};
use std::path::PathBuf;

/// Every format's fixture folder and file extension.
const EVERY_FORMAT: [(&str, &str); 5] = [
    ("smf", "smf"),
    ("bmf", "bmf"),
    ("mdl", "mdl"),
    ("elem", "elem"),
    ("skm", "skm"),
];

fn inputs() -> Vec<PathBuf> {
    let mut files = test_support::fixtures("mdl", "mdl");
    files.extend(test_support::samples("mdl", "mdl").unwrap_or_default());
    files
}

/// The document of a file (the legacy layout upgraded, as the command line reads it).
fn open(path: &PathBuf) -> Document {
    models::open_with_upgrades(path).unwrap().document
}

fn mdl_of(doc: &Document) -> &Mdl {
    match doc {
        Document::Mdl(m) => m,
        other => panic!("not an MDL: {:?}", other.format()),
    }
}

/// The scene as it comes back from our own `.glb`.
fn import_with(
    scene: &scene::ValidScene,
    base: Option<&Document>,
    options: &ImportOptions,
) -> (Mdl, Vec<String>) {
    let (doc, warnings) = common::import_as(Format::Mdl, scene, base, options).unwrap();
    match doc {
        Document::Mdl(m) => {
            // Every output is a file our reader takes.
            let bytes = m.to_bytes().unwrap();
            Mdl::from_bytes(&bytes).unwrap_or_else(|e| panic!("reader refuses the output: {e}"));
            (m, warnings)
        }
        other => panic!("not an MDL: {:?}", other.format()),
    }
}

fn import(scene: &scene::ValidScene, base: Option<&Document>) -> (Mdl, Vec<String>) {
    import_with(scene, base, &ImportOptions::default())
}

/// The same file: part by part first (Debug text, so that NaNs compare), then the bytes.
fn assert_same(name: &str, a: &Mdl, b: &Mdl) {
    let show = |x: &dyn std::fmt::Debug| format!("{x:?}");
    assert_eq!(a.version, b.version, "{name}: version");
    for (i, (x, y)) in a.bones.iter().zip(&b.bones).enumerate() {
        assert_eq!(show(x), show(y), "{name}: bone {i}");
    }
    assert_eq!(a.bones.len(), b.bones.len(), "{name}: bones");
    for (i, (x, y)) in a.meshes.iter().zip(&b.meshes).enumerate() {
        assert_eq!(
            show(&x.materials),
            show(&y.materials),
            "{name}: mesh {i} materials"
        );
        for (d, (p, q)) in x.divided.iter().zip(&y.divided).enumerate() {
            let here = format!("{name}: mesh {i} divided {d}");
            assert_eq!(show(&p.faces), show(&q.faces), "{here}: faces");
            assert_eq!(
                show(&p.material_runs),
                show(&q.material_runs),
                "{here}: runs"
            );
            assert_eq!(
                show(&p.connectors),
                show(&q.connectors),
                "{here}: connectors"
            );
            for (k, (v, w)) in p.vertices.iter().zip(&q.vertices).enumerate() {
                assert_eq!(show(v), show(w), "{here}: vertex {k}");
            }
            assert_eq!(p.vertices.len(), q.vertices.len(), "{here}: vertices");
        }
        assert_eq!(x.divided.len(), y.divided.len(), "{name}: mesh {i} divided");
    }
    assert_eq!(a.meshes.len(), b.meshes.len(), "{name}: meshes");
    assert_eq!(
        show(&a.animation_sources),
        show(&b.animation_sources),
        "{name}: sources"
    );
    assert_eq!(show(&a.clips), show(&b.clips), "{name}: clips");
    assert!(
        a.to_bytes().unwrap() == b.to_bytes().unwrap(),
        "{name}: bytes"
    );
}

#[test]
fn every_fixture_and_sample_round_trips_through_gltf() {
    let mut checked = 0;
    for path in inputs() {
        let name = path.display().to_string();
        let doc = open(&path);
        let (back, warnings) = import(&through_glb(&doc), None);
        for w in &warnings {
            eprintln!("{name}: {w}");
        }
        assert_eq!(
            Document::Mdl(back.clone()).summary(),
            doc.summary(),
            "{name}: summary"
        );
        // The data exactly: the same bytes, without a base.
        assert_same(&name, mdl_of(&doc), &back);
        checked += 1;
    }
    assert!(checked >= 9, "only {checked} files");
}

/// `--base`: the export of a file, imported onto that file, is that file byte for byte.
#[test]
fn an_unedited_export_patched_onto_its_base_is_the_base() {
    for path in inputs() {
        let name = path.display().to_string();
        let doc = open(&path);
        let (back, _) = import(&through_glb(&doc), Some(&doc));
        let want = mdl_of(&doc).to_bytes().unwrap();
        assert!(
            back.to_bytes().unwrap() == want,
            "{name}: not byte-identical to its base"
        );
        if Mdl::from_bytes(&test_support::read(&path)).is_ok() {
            assert!(
                want == test_support::read(&path),
                "{name}: the reader's round trip"
            );
        }
    }
}

/// An edited export keeps the base's parts that are still equal, and says so.
#[test]
fn a_base_gives_back_the_parts_still_equal() {
    let path = test_support::workspace_root().join("fixtures/mdl/skinned_arm_v2.mdl");
    let doc = open(&path);
    let mut scene = through_glb(&doc).into_inner();
    // Move every vertex of the first mesh: its mesh is rebuilt, the bones are the base's.
    for p in scene.meshes[0].vertices.positions.to_mut() {
        p[1] += 1.0;
    }
    let scene = scene::validate(scene).scene;
    let (back, warnings) = import(&scene, Some(&doc));
    let base = mdl_of(&doc);
    assert_eq!(back.bones, base.bones);
    assert_ne!(back.meshes[0], base.meshes[0]);
    assert!(
        warnings.iter().any(|w| w.contains("taken from the base")),
        "{warnings:?}"
    );
}

/// Version 1 ↔ 2 on request: the bones' local matrices stay the same transforms.
#[test]
fn versions_convert_on_request() {
    for (file, to) in [("skinned_arm_v2.mdl", 1u32), ("skinned_arm_v1.mdl", 2)] {
        let path = test_support::workspace_root()
            .join("fixtures/mdl")
            .join(file);
        let doc = open(&path);
        let options = ImportOptions {
            mdl_version: Some(to),
            ..ImportOptions::default()
        };
        let (back, _) = import_with(&through_glb(&doc), None, &options);
        assert_eq!(back.version, to as i32, "{file}");
        // Both documents give the same scene transforms.
        let a = Scene::from_document(&doc).unwrap().scene;
        let b = Scene::from_document(&Document::Mdl(back.clone()))
            .unwrap()
            .scene;
        for (x, y) in a.nodes.iter().zip(&b.nodes) {
            let (mx, my) = (matrix(&x.transform), matrix(&y.transform));
            for (p, q) in mx.iter().zip(&my) {
                assert!(
                    (p - q).abs() < 1e-4,
                    "{file} node {}: {mx:?} vs {my:?}",
                    x.name
                );
            }
        }
        let a = Document::Mdl(back).summary();
        assert_eq!(a.vertices, doc.summary().vertices);
    }
    let bad = ImportOptions {
        mdl_version: Some(3),
        ..ImportOptions::default()
    };
    let doc = open(&inputs()[0]);
    let e = Document::from_scene(Format::Mdl, &through_glb(&doc), None, &bad).unwrap_err();
    assert!(matches!(e, models::Error::FormatLimit { .. }), "{e}");
}

fn matrix(t: &scene::Transform) -> [f32; 16] {
    match *t {
        scene::Transform::Trs {
            translation,
            rotation,
            scale,
        } => scene::compose(translation, rotation, scale),
        scene::Transform::Matrix(m) => m,
    }
}

/// 60 joints, each vertex of triangle t bound to joints t and t + 1: the mesh is divided into
/// divided meshes of at most 32 connectors, every triangle kept, with a warning.
#[test]
fn skins_beyond_32_connectors_are_divided() {
    let joints = 60usize;
    let triangles = joints - 1;
    let (mut positions, mut js, mut ws) = (Vec::new(), Vec::new(), Vec::new());
    for t in 0..triangles {
        for k in 0..3 {
            positions.push([t as f32, k as f32, 0.0]);
            js.push([t as u16, t as u16 + 1, 0, 0]);
            ws.push([0.75, 0.25, 0.0, 0.0]);
        }
    }
    let mut scene = common::skinned_chain(joints, positions, js, ws);
    // Each bone one unit above its parent, bound where it stands.
    for bone in scene.nodes.iter_mut().take(joints) {
        bone.transform = scene::Transform::Trs {
            translation: [0.0, 1.0, 0.0],
            rotation: [0.0, 0.0, 0.0, 1.0],
            scale: [1.0; 3],
        };
    }
    scene.skins[0].inverse_bind_matrices =
        vec![scene::translation_matrix([0.0, -1.0, 0.0]); joints];
    let (m, warnings) = import(&scene::validate(scene).scene, None);
    // Every node is a bone, the mesh's too.
    assert_eq!(m.bones.len(), joints + 1);
    assert_eq!(m.meshes.len(), 1);
    let parts = &m.meshes[0].divided;
    assert!(parts.len() >= 2, "{} parts", parts.len());
    assert!(parts.iter().all(|p| p.connectors.len() <= 32));
    let faces: usize = parts.iter().map(|p| p.faces.len()).sum();
    assert_eq!(faces, triangles);
    // Weights bytes sum to 255 and point at their part's connectors.
    for p in parts {
        for v in &p.vertices {
            assert_eq!(v.weights.iter().map(|&w| u32::from(w)).sum::<u32>(), 255);
            assert_eq!(v.weights[..2], [191, 64]);
        }
    }
    assert!(
        warnings.iter().any(|w| w.contains("divided")),
        "{warnings:?}"
    );
}

/// The lead's 5 × 5 matrix, MDL column: every fixture of every format imports into an MDL our
/// reader takes, with every triangle and every joint's name among the bones.
#[test]
fn every_fixture_of_every_format_imports_into_mdl() {
    let mut checked = 0;
    for (fmt, ext) in EVERY_FORMAT {
        for path in test_support::fixtures(fmt, ext) {
            let name = path.display().to_string();
            let doc = open(&path);
            let conv = Scene::from_document(&doc).unwrap();
            let scene = &conv.scene;
            let triangles: usize = scene
                .nodes
                .iter()
                .filter_map(|n| n.mesh)
                .filter_map(|m| scene.meshes.get(m))
                .flat_map(|m| &m.primitives)
                .map(|p| p.indices.len() / 3)
                .sum();
            let joint_names: Vec<String> = scene
                .skins
                .iter()
                .flat_map(|s| &s.joints)
                .map(|&j| scene.nodes[j].name.clone())
                .collect();
            let imported =
                Document::import_scene(Format::Mdl, conv.scene, None, &ImportOptions::default())
                    .unwrap_or_else(|e| panic!("{name}: {e}"));
            let m = mdl_of(&imported.document);
            let bytes = m.to_bytes().unwrap();
            Mdl::from_bytes(&bytes).unwrap_or_else(|e| panic!("{name}: {e}"));
            let faces: usize = m
                .meshes
                .iter()
                .flat_map(|x| &x.divided)
                .map(|d| d.faces.len())
                .sum();
            assert_eq!(faces, triangles, "{name}: triangles");
            let bones: Vec<String> = m.bones.iter().map(|b| b.name.to_string_lossy()).collect();
            for j in &joint_names {
                assert!(bones.contains(j), "{name}: joint {j} is not a bone");
            }
            checked += 1;
        }
    }
    assert!(checked >= 10, "only {checked} fixtures");
}

/// A scene that is not an export (no `mdl_*` extras) with an animation of every kind comes
/// back through MDL with the same keys (times in frames, Euler angles for rotations).
#[test]
fn plain_animations_become_curves() {
    let node = |name: &str, children: Vec<usize>| scene::Node {
        name: name.into(),
        children,
        ..Default::default()
    };
    let q = |deg: f32| {
        let (s, c) = (deg.to_radians() * 0.5).sin_cos();
        [0.0, 0.0, s, c]
    };
    let scene = Scene {
        nodes: vec![node("root", vec![1]), node("arm", vec![])],
        roots: vec![0],
        animations: vec![scene::Animation {
            name: "wave".into(),
            channels: vec![
                scene::Channel {
                    node: 1,
                    path: scene::ChannelPath::Rotation,
                    interpolation: scene::Interpolation::Linear,
                    times: vec![0.0, 0.5, 1.0].into(),
                    values: [q(0.0), q(170.0), q(-170.0)].concat().into(),
                },
                scene::Channel {
                    node: 0,
                    path: scene::ChannelPath::Translation,
                    interpolation: scene::Interpolation::Step,
                    times: vec![0.0, 1.0].into(),
                    values: vec![0.0, 0.0, 0.0, 1.0, 2.0, 3.0].into(),
                },
            ],
            extras: Default::default(),
        }],
        ..Default::default()
    };
    let (m, warnings) = import(&scene::validate(scene).scene, None);
    assert_eq!(m.clips.len(), 1);
    let source = &m.animation_sources[0];
    assert_eq!(source.curves.len(), 6);
    let rot_y = source
        .curves
        .iter()
        .find(|c| c.target == "arm.rot.z")
        .expect("arm.rot.z");
    let values: Vec<f32> = rot_y.keys.iter().map(|k| k.value).collect();
    // Unwrapped: -170° after 170° is written as 190°.
    for (v, want) in values.iter().zip([0.0, 170.0, 190.0]) {
        assert!((v - want).abs() < 1e-2, "{values:?}");
    }
    let times: Vec<f32> = rot_y.keys.iter().map(|k| k.time).collect();
    assert_eq!(times, [0.0, 30.0, 60.0]);
    let pos = source
        .curves
        .iter()
        .find(|c| c.target == "root.pos.z")
        .expect("root.pos.z");
    assert_eq!(pos.keys[1].value, 3.0);
    assert_eq!(
        pos.keys[0].interpolation,
        mdl_format::Interpolation::CONSTANT
    );
    assert!(warnings.iter().any(|w| w.contains("Euler")), "{warnings:?}");
}

/// Broken scenes (no normals, NaN positions, indices past the vertices, joints on non-bones)
/// import without panicking into files the reader takes.
#[test]
fn hostile_scenes_import_into_readable_files() {
    let mut scene = Scene {
        nodes: vec![scene::Node {
            name: "n".into(),
            mesh: Some(0),
            ..Default::default()
        }],
        roots: vec![0],
        meshes: vec![scene::Mesh {
            name: "m".into(),
            vertices: scene::Vertices {
                positions: vec![[f32::NAN, 0.0, 0.0], [1.0, 0.0, 0.0], [0.0, 1.0, 0.0]].into(),
                ..Default::default()
            },
            primitives: vec![scene::Primitive {
                indices: vec![0, 1, 2, 0, 1, 7, 1].into(),
                material: Some(5),
            }],
            extras: Default::default(),
        }],
        ..Default::default()
    };
    scene.extras.insert("mdl_version".into(), 7.into());
    scene
        .extras
        .insert("mdl_animation".into(), serde_json::json!({ "sources": 3 }));
    let (m, _) = import(&scene::validate(scene).scene, None);
    assert_eq!(m.version, 2);
    assert_eq!(m.meshes[0].divided[0].faces.len(), 1);
}

/// The export keeps the raw vertices only where the scene and the binormals cannot give them
/// back (zero-weight slots holding bone indices, weights not summing to 255): files whose
/// vertices sit on one connector need none.
#[test]
fn raw_vertices_are_kept_only_when_needed() {
    for path in inputs() {
        let name = test_support::file_name(&path).to_owned();
        let one_connector = [
            "static_quad_v1.mdl",
            "altseed_Plain1.mdl",
            "altseed_Sphere1.mdl",
        ];
        if !one_connector.contains(&name.as_str()) {
            continue;
        }
        let scene = Scene::from_document(&open(&path)).unwrap().scene;
        let raw = scene
            .meshes
            .iter()
            .filter(|m| m.extras.contains_key("mdl_vertices"))
            .count();
        assert_eq!(raw, 0, "{name}: meshes with raw vertices");
    }
}

/// Non-finite positions and UVs and non-unit normals: the converter leaves them to validation
/// (one warning each, none from the converter), and the file still comes back bit for bit
/// through glTF, because the export keeps the raw vertices and normals that validation changes.
#[test]
fn values_validation_repairs_are_repaired_once_and_kept_raw() {
    let path = test_support::workspace_root().join("fixtures/mdl/static_quad_v1.mdl");
    let mut doc = open(&path);
    let Document::Mdl(m) = &mut doc else {
        panic!("not an MDL")
    };
    let part = &mut m.meshes[0].divided[0];
    part.vertices[0].position[1] = f32::NAN;
    part.vertices[1].uv[0] = f32::INFINITY;
    part.vertices[2].normal = [0.0; 3];
    part.vertices[3].normal = [0.0, 2.0, 0.0];
    let conv = Scene::from_document(&doc).unwrap();
    let said = |ws: &[scene::SceneWarning], what: &str| {
        ws.iter().filter(|w| w.to_string().contains(what)).count()
    };
    for what in ["finite", "(0, 1, 0)"] {
        assert_eq!(
            said(&conv.warnings, what),
            0,
            "the converter repairs {what}"
        );
    }
    let valid = conv.validated();
    let ws = &valid.warnings;
    assert_eq!(said(ws, "positions had non-finite"), 1, "{ws:#?}");
    assert_eq!(said(ws, "texture coordinates of set 0"), 1, "{ws:#?}");
    assert_eq!(said(ws, "normals were zero"), 1, "{ws:#?}");
    let v = &valid.scene.meshes[0].vertices;
    assert_eq!(v.positions[0][1], 0.0);
    assert_eq!(v.normals.as_ref().unwrap()[3], [0.0, 1.0, 0.0]);
    let (back, _) = import(&through_glb(&doc), None);
    assert_same("edited static_quad_v1.mdl", mdl_of(&doc), &back);
}

/// `import_scene` hands the validated scene over (its triangle lists become the faces in
/// place): the same MDL bytes and warnings as `Document::from_scene` on the borrowed scene,
/// for every fixture of every format, each through its own `.glb` too (a mesh two nodes draw
/// keeps its lists in the scene).
#[test]
fn owned_and_borrowed_scenes_import_the_same() {
    let mut checked = 0;
    for (fmt, ext) in EVERY_FORMAT {
        for path in test_support::fixtures(fmt, ext) {
            let name = path.display().to_string();
            let doc = open(&path);
            let converted = Scene::from_document(&doc).unwrap().scene;
            for scene in [through_glb(&doc).into_inner(), converted] {
                let options = ImportOptions::default();
                let valid = scene::validate(scene.clone());
                let borrowed = Document::from_scene(Format::Mdl, &valid.scene, None, &options)
                    .unwrap_or_else(|e| panic!("{name}: {e}"));
                let owned = Document::import_scene(Format::Mdl, scene, None, &options)
                    .unwrap_or_else(|e| panic!("{name}: {e}"));
                let bytes = |d: &Document| mdl_of(d).to_bytes().unwrap();
                assert!(
                    bytes(&owned.document) == bytes(&borrowed.document),
                    "{name}: bytes"
                );
                let mut warnings = valid.warnings.clone();
                warnings.extend(borrowed.warnings);
                assert_eq!(owned.warnings, warnings, "{name}: warnings");
                checked += 1;
            }
        }
    }
    assert!(checked >= 20, "only {checked} scenes");
}
