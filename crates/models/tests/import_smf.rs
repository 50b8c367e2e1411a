//! glTF → SMF (`scene::to_smf`): every fixture and sample survives
//! `Smf → Scene → .glb → Scene → validate → Smf` with the same summary and the same geometry,
//! patching an unedited export onto its base gives the base byte for byte, and the format's
//! limits (names, bones per mesh, 16-bit indices) are kept or refused by name.

mod common;

use common::through_glb;
use models::gltf::{self, GltfOptions};
use models::scene::{self, ImportOptions, Scene, SceneOptions};
use models::smf as selene_smf;
use models::{Document, Format, Model};
use selene_smf::Smf;
use std::path::PathBuf;

fn inputs() -> Vec<PathBuf> {
    let mut files = test_support::fixtures("smf", "smf");
    files.extend(test_support::samples("smf", "smf").unwrap_or_default());
    files
}

fn smf_of(doc: &Document) -> &Smf {
    match doc {
        Document::Smf(s) => s,
        other => panic!("not an SMF: {:?}", other.format()),
    }
}

/// The scene as it comes back from our own `.glb`.
fn import(scene: &scene::ValidScene, base: Option<&Document>) -> (Smf, Vec<String>) {
    let (doc, warnings) =
        common::import_as(Format::Smf, scene, base, &ImportOptions::default()).unwrap();
    match doc {
        Document::Smf(s) => (s, warnings),
        other => panic!("not an SMF: {:?}", other.format()),
    }
}

/// Every component of `a` within `max` ulps of `b` (0: the same bits, NaN payloads aside).
fn assert_ulps(name: &str, what: &str, a: &[f32], b: &[f32], max: u32) {
    assert_eq!(a.len(), b.len(), "{name}: {what} length");
    for (k, (x, y)) in a.iter().zip(b).enumerate() {
        let d = test_support::ulps(*x, *y);
        assert!(d <= max, "{name}: {what}[{k}]: {x:e} vs {y:e} ({d} ulps)");
    }
}

/// Compares the geometry, skin and keys of two documents.
fn assert_same_data(name: &str, a: &Smf, b: &Smf) {
    assert_eq!(a.meshes.len(), b.meshes.len(), "{name}: meshes");
    for (m, (x, y)) in a.meshes.iter().zip(&b.meshes).enumerate() {
        let n = format!("{name} mesh {m}");
        let pos = |s: &selene_smf::Mesh| -> Vec<f32> {
            s.vertices.iter().flat_map(|v| v.position).collect()
        };
        // A sign flip there and back: bit-exact.
        assert_ulps(&n, "positions", &pos(x), &pos(y), 0);
        let colors = |s: &selene_smf::Mesh| s.vertices.iter().map(|v| v.bgra).collect::<Vec<_>>();
        assert_eq!(colors(x), colors(y), "{n}: colours");
        let normals = |s: &selene_smf::Mesh| -> Vec<f32> {
            s.normals.iter().flatten().flat_map(|v| v.0).collect()
        };
        // Normalised for glTF, the file's own kept where that changes them: bit-exact.
        assert_ulps(&n, "normals", &normals(x), &normals(y), 0);
        assert_eq!(x.uvs, y.uvs, "{n}: uvs");
        assert_eq!(x.tangents, y.tangents, "{n}: tangents");
        assert_eq!(x.indices, y.indices, "{n}: indices");
        assert_eq!(x.blend, y.blend, "{n}: weights");
        assert_eq!(x.bones, y.bones, "{n}: bones");
        assert_eq!(x.obb, y.obb, "{n}: obb");
        assert_eq!(x.collision_faces, y.collision_faces, "{n}: collision");
        assert_eq!(x.collision_vertices, y.collision_vertices, "{n}: collision");
        assert_eq!(x.collision_runs, y.collision_runs, "{n}: collision");
        assert_eq!(x.unknown, y.unknown, "{n}: unknown chunks");
        for (k, (p, q)) in x.materials.iter().zip(&y.materials).enumerate() {
            let mut q = q.clone();
            q.name = p.name.clone();
            assert_eq!(p, &q, "{n} material {k}");
        }
    }
    assert_eq!(a.frames.len(), b.frames.len(), "{name}: frames");
    for (f, (x, y)) in a.frames.iter().zip(&b.frames).enumerate() {
        let n = format!("{name} frame {f}");
        assert_eq!(x.name.text(), y.name.text(), "{n}: name");
        assert_eq!((x.mesh, x.parent), (y.mesh, y.parent), "{n}: mesh, parent");
        // Decomposed into TRS for glTF, the file's matrix kept where that does not recompose
        // exactly: bit-exact.
        assert_ulps(&n, "transform", &x.transform, &y.transform, 0);
        assert_eq!(x.obb, y.obb, "{n}: obb");
        assert_eq!(x.unknown, y.unknown, "{n}: unknown");
    }
    assert_eq!(
        a.animation_sets.len(),
        b.animation_sets.len(),
        "{name}: sets"
    );
    for (s, (x, y)) in a.animation_sets.iter().zip(&b.animation_sets).enumerate() {
        let n = format!("{name} set {s}");
        assert_eq!(x.last_time, y.last_time, "{n}: last time");
        assert_eq!(x.unknown, y.unknown, "{n}: unknown");
        assert_eq!(x.animations.len(), y.animations.len(), "{n}: ANIs");
        for (p, q) in x.animations.iter().zip(&y.animations) {
            assert_eq!(p.target_frame, q.target_frame, "{n}: target");
            assert_eq!(p.scale_keys, q.scale_keys, "{n}: scale keys");
            assert_eq!(
                p.translation_keys, q.translation_keys,
                "{n}: translation keys"
            );
            assert_eq!(
                p.rotation_keys.len(),
                q.rotation_keys.len(),
                "{n}: rotation keys"
            );
            for (r, t) in p.rotation_keys.iter().zip(&q.rotation_keys) {
                assert_eq!(r.time, t.time, "{n}: rotation key time");
                // Normalised and made continuous (some negated) for glTF, the file's keys kept
                // where that changes them: bit-exact, sign included.
                assert_ulps(&n, "rotation key", &r.value, &t.value, 0);
            }
        }
    }
}

#[test]
fn every_fixture_and_sample_round_trips_through_gltf() {
    let mut checked = 0;
    // How many frames and animations needed the file's own bits from extras.
    let (mut matrices, mut rotations) = (0, 0);
    for path in inputs() {
        let name = path.display().to_string();
        let doc = models::open(&path).unwrap();
        let scene = through_glb(&doc);
        matrices += scene
            .nodes
            .iter()
            .filter(|n| n.extras.contains_key("smf_matrix_hex"))
            .count();
        rotations += scene
            .animations
            .iter()
            .filter(|a| a.extras.contains_key("smf_rotations_hex"))
            .count();
        let (back, warnings) = import(&scene, None);
        for w in &warnings {
            eprintln!("{name}: {w}");
        }
        let again = Document::Smf(back.clone());
        assert_eq!(again.summary(), doc.summary(), "{name}: summary");
        assert_same_data(&name, smf_of(&doc), &back);
        // And it is a file the reader takes.
        let bytes = back.to_bytes().unwrap();
        Smf::from_bytes(&bytes).unwrap_or_else(|e| panic!("{name}: {e}"));
        checked += 1;
    }
    assert!(checked >= 5, "only {checked} files");
    eprintln!("{matrices} frame matrices and {rotations} animations restored from extras");
    assert!(
        matrices > 0 && rotations > 0,
        "the exact path was not exercised"
    );
}

/// `--base`: the export of a file, imported onto that file, is that file byte for byte.
#[test]
fn an_unedited_export_patched_onto_its_base_is_the_base() {
    for path in inputs() {
        let name = path.display().to_string();
        let bytes = test_support::read(&path);
        let doc = models::from_bytes(&bytes).unwrap();
        let (back, _) = import(&through_glb(&doc), Some(&doc));
        let out = back.to_bytes().unwrap();
        assert!(out == bytes, "{name}: not byte-identical to its base");
    }
}

/// `--base` after Blender (3.4, measured): normals up to 2.4e-4 off (its custom-normal
/// encoding) and colours one step off (its 8-bit sRGB) still give the base byte for byte; a
/// normal moved further, or a colour two steps, is an edit and is kept.
#[test]
fn an_export_as_blender_gives_it_back_patched_onto_its_base_is_the_base() {
    let path = test_support::workspace_root().join("fixtures/smf/collision_box.smf");
    let bytes = test_support::read(&path);
    let doc = models::from_bytes(&bytes).unwrap();
    let scene = Scene::from_document(&doc).unwrap().scene;
    let glb = gltf::to_glb(&scene::validate(scene).scene, &GltfOptions::default()).unwrap();
    let mut read = gltf::read_glb(&glb).unwrap().scene;
    let as_blender = |read: &mut Scene, normal_by: f32, colour_by: u8| {
        let v = &mut read.meshes[0].vertices;
        for n in v.normals.as_mut().unwrap() {
            n[0] += normal_by;
        }
        match v.colors.as_mut().unwrap() {
            scene::Colors::Bytes(c) => c[0][1] = c[0][1].saturating_sub(colour_by),
            scene::Colors::Floats(_) => panic!("SMF colours are bytes"),
        }
    };
    let mut edited = read.clone();
    as_blender(&mut read, 2.4e-4, 1);
    let (back, _) = import(&scene::validate(read).scene, Some(&doc));
    assert!(
        back.to_bytes().unwrap() == bytes,
        "not byte-identical to its base"
    );

    as_blender(&mut edited, 2e-3, 2);
    let (back, _) = import(&scene::validate(edited).scene, Some(&doc));
    let out = back.to_bytes().unwrap();
    assert_eq!(out.len(), bytes.len());
    assert!(out != bytes, "an edit beyond Blender's precision is kept");
}

/// A frame the scene lacks (an anchor such as `LW_POS`) comes from the base, named in a
/// warning; without the base it is not there.
#[test]
fn base_frames_the_scene_lacks_are_taken_from_the_base() {
    let path = test_support::workspace_root().join("fixtures/smf/skinned_animated.smf");
    let doc = models::open(&path).unwrap();
    let scene = through_glb(&doc);
    let mut base = smf_of(&doc).clone();
    let mut anchor = selene_smf::Frame::new("LW_POS", -1, 1).unwrap();
    anchor.transform[12] = 3.0;
    base.frames.push(anchor.clone());
    let (alone, _) = import(&scene, None);
    assert!(!alone.frames.iter().any(|f| f.name.text() == "LW_POS"));
    let (patched, warnings) = import(&scene, Some(&Document::Smf(base.clone())));
    assert_eq!(patched.frames.last(), Some(&anchor));
    assert!(warnings
        .iter()
        .any(|w| w.contains("taken from the base") && w.contains("LW_POS")));
    assert_eq!(patched.to_bytes().unwrap(), base.to_bytes().unwrap());
}

/// A base of another format is refused.
#[test]
fn a_base_of_another_format_is_refused() {
    let bmf = test_support::fixtures("bmf", "bmf");
    let base = models::open(&bmf[0]).unwrap();
    let doc = models::open(&test_support::fixtures("smf", "smf")[0]).unwrap();
    let e = Document::from_scene(
        Format::Smf,
        &through_glb(&doc),
        Some(&base),
        &ImportOptions::default(),
    )
    .unwrap_err();
    assert!(matches!(e, models::Error::BaseFormatMismatch { .. }), "{e}");
}

fn triangle_scene(name: &str, vertices: usize) -> scene::ValidScene {
    let positions: Vec<[f32; 3]> = (0..vertices)
        .map(|i| [i as f32, (i % 3) as f32, 0.0])
        .collect();
    let indices: Vec<u32> = (0..(vertices / 3 * 3) as u32).collect();
    let scene = Scene {
        nodes: vec![scene::Node {
            name: name.into(),
            mesh: Some(0),
            ..Default::default()
        }],
        roots: vec![0],
        meshes: vec![scene::Mesh {
            name: "mesh".into(),
            vertices: scene::Vertices {
                positions: positions.into(),
                ..Default::default()
            },
            primitives: vec![scene::Primitive {
                indices: indices.into(),
                material: None,
            }],
            extras: Default::default(),
        }],
        ..Default::default()
    };
    scene::validate(scene).scene
}

#[test]
fn names_that_do_not_fit_are_refused_or_replaced() {
    let long = "長".repeat(32); // 64 bytes in CP932: one too many with the NUL
    for bad in [long.as_str(), "emoji 😀"] {
        let scene = triangle_scene(bad, 3);
        let e =
            Document::from_scene(Format::Smf, &scene, None, &ImportOptions::default()).unwrap_err();
        match &e {
            models::Error::FormatLimit { place, what, .. } => {
                assert!(place.contains("frame 0"), "{e}");
                assert!(what.contains(bad), "{e}");
            }
            other => panic!("{other}"),
        }
        let options = ImportOptions {
            replace_bad_names: true,
            ..ImportOptions::default()
        };
        let out = Document::from_scene(Format::Smf, &scene, None, &options).unwrap();
        assert!(out
            .warnings
            .iter()
            .any(|w| w.to_string().contains("replaced by")));
        let smf = smf_of(&out.document);
        let got = smf.frames[0].name.text().into_owned();
        let cp932 = smf.frames[0].name.text_bytes().len();
        assert!((1..64).contains(&cp932) && !got.contains('😀'), "{got:?}");
        assert!(bad.starts_with(got.trim_end_matches('_')), "{got:?}");
    }
    // 63 bytes fit.
    let fits = "長".repeat(31) + "a";
    let scene = triangle_scene(&fits, 3);
    let out = Document::from_scene(Format::Smf, &scene, None, &ImportOptions::default()).unwrap();
    assert_eq!(smf_of(&out.document).frames[0].name.text(), fits);
}

#[test]
fn idx2_up_to_65535_vertices_idx4_above() {
    for (n, id) in [(65_535, "IDX2"), (65_538, "IDX4")] {
        let out = Document::from_scene(
            Format::Smf,
            &triangle_scene("f", n),
            None,
            &ImportOptions::default(),
        )
        .unwrap();
        let smf = smf_of(&out.document);
        assert_eq!(smf.meshes[0].indices.chunk_id().name(), id, "{n} vertices");
        assert_eq!(smf.meshes[0].vertices.len(), n);
        // Winding undone: glTF (0, 1, 2) is SMF (0, 2, 1).
        assert_eq!(
            smf.meshes[0].indices.iter().take(3).collect::<Vec<_>>(),
            [0, 2, 1]
        );
        // A material is made for the primitive without one, and said.
        assert_eq!(smf.meshes[0].materials.len(), 1);
        assert!(out
            .warnings
            .iter()
            .any(|w| w.to_string().contains("no material")));
    }
}

/// 100 joints, each vertex of triangle t bound to joints t and t + 1: the mesh is split into
/// meshes of at most 40 bones, every triangle kept, with a warning naming the split.
#[test]
fn skins_with_more_than_40_bones_are_split() {
    let joints = 100usize;
    let triangles = joints - 1;
    let mut positions = Vec::new();
    let mut js = Vec::new();
    let mut ws = Vec::new();
    for t in 0..triangles {
        for k in 0..3 {
            positions.push([t as f32, k as f32, 0.0]);
            js.push([t as u16, t as u16 + 1, 0, 0]);
            ws.push([0.75, 0.25, 0.0, 0.0]);
        }
    }
    let scene = common::skinned_chain(joints, positions, js, ws);
    let scene = scene::validate(scene).scene;
    let out = Document::from_scene(Format::Smf, &scene, None, &ImportOptions::default()).unwrap();
    let smf = smf_of(&out.document);
    assert!(smf.meshes.len() >= 3, "{} meshes", smf.meshes.len());
    let mut faces = 0;
    for m in &smf.meshes {
        let bones = m.bones.as_ref().unwrap();
        assert!(bones.len() <= 40, "{} bones", bones.len());
        let blend = m.blend.as_ref().unwrap();
        assert!(blend.iter().all(|b| (b.indices[0] as usize) < bones.len()));
        assert!(blend.iter().all(|b| b.weight == 0.75));
        // Every vertex's first bone still drives the joint it did (bone t → frame t).
        for (v, b) in m.vertices.iter().zip(blend) {
            let t = v.position[0] as i32;
            assert_eq!(bones[b.indices[0] as usize].frame, t);
            assert_eq!(bones[b.indices[1] as usize].frame, t + 1);
        }
        faces += m.triangle_count();
    }
    assert_eq!(faces, triangles);
    // Each part but the first hangs on a new frame.
    let carried: Vec<i32> = smf
        .frames
        .iter()
        .map(|f| f.mesh)
        .filter(|&m| m >= 0)
        .collect();
    assert_eq!(carried.len(), smf.meshes.len());
    assert!(
        out.warnings
            .iter()
            .any(|w| w.to_string().contains("split into")),
        "{:?}",
        out.warnings
    );
    // And it writes and reads.
    selene_smf::Smf::from_bytes(&smf.to_bytes().unwrap()).unwrap();
}

/// A vertex with more than two influences keeps its two largest, in their slot order, a tie
/// going to the earlier slot, their weights renormalised; a zero weight is no influence; one
/// influence is both slots at full weight.
#[test]
fn more_than_two_influences_keep_the_two_largest_in_slot_order() {
    let joints = 6usize;
    // (joints, weights) per vertex, and the (indices, weight) expected in V_A.
    type Case = ([u16; 4], [f32; 4], [u8; 2], f32);
    let cases: [Case; 6] = [
        ([1, 2, 3, 4], [0.125, 0.5, 0.125, 0.25], [2, 4], 0.5 / 0.75),
        ([1, 2, 3, 4], [0.375, 0.125, 0.375, 0.125], [1, 3], 0.5),
        ([5, 1, 2, 0], [0.25, 0.0, 0.5, 0.25], [5, 2], 0.25 / 0.75),
        ([3, 2, 1, 0], [0.25, 0.25, 0.25, 0.25], [3, 2], 0.5),
        ([4, 0, 0, 0], [1.0, 0.0, 0.0, 0.0], [4, 4], 1.0),
        ([1, 3, 0, 0], [0.75, 0.25, 0.0, 0.0], [1, 3], 0.75),
    ];
    let scene = common::skinned_chain(
        joints,
        (0..cases.len()).map(|v| [v as f32, 0.0, 0.0]).collect(),
        cases.iter().map(|c| c.0).collect(),
        cases.iter().map(|c| c.1).collect(),
    );
    let scene = scene::validate(scene).scene;
    let out = Document::from_scene(Format::Smf, &scene, None, &ImportOptions::default()).unwrap();
    let smf = smf_of(&out.document);
    let blend = smf.meshes[0].blend.as_ref().unwrap();
    for (k, (b, c)) in blend.iter().zip(&cases).enumerate() {
        assert_eq!([b.indices[0], b.indices[1]], c.2, "vertex {k}");
        assert_eq!(b.weight, c.3, "vertex {k}");
    }
    assert!(
        out.warnings.iter().any(|w| w
            .to_string()
            .contains("4 vertices had more than two influences")),
        "{:?}",
        out.warnings
    );
}

/// Whatever `read_glb` makes of damaged bytes, the import gives a document or an error.
#[test]
fn damaged_gltf_never_panics_the_import() {
    let path = test_support::workspace_root().join("fixtures/smf/skinned_animated.smf");
    let doc = models::open(&path).unwrap();
    let scene = Scene::from_document_with(&doc, &SceneOptions::default())
        .unwrap()
        .scene;
    let glb = gltf::to_glb(&scene::validate(scene).scene, &GltfOptions::default()).unwrap();
    let mut imported = 0;
    let mut try_bytes = |bytes: &[u8]| {
        if let Ok(read) = gltf::read_glb(bytes) {
            let valid = scene::validate(read.scene).scene;
            for base in [None, Some(&doc)] {
                if Document::from_scene(Format::Smf, &valid, base, &ImportOptions::default())
                    .is_ok()
                {
                    imported += 1;
                }
            }
        }
    };
    for cut in (0..glb.len()).step_by(7) {
        try_bytes(&glb[..cut]);
    }
    for at in (0..glb.len()).step_by(3) {
        for x in [0x01u8, 0x20, 0x80, 0xFF] {
            let mut b = glb.clone();
            b[at] ^= x;
            try_bytes(&b);
        }
    }
    assert!(imported > 0);
}

/// Scenes that did not come from SMF (every other format's fixtures, no `smf_*` extras) import
/// through the generic path: every triangle kept, a file the reader takes, guesses warned.
#[test]
fn scenes_of_other_formats_import_as_smf() {
    let options = ImportOptions {
        replace_bad_names: true,
        ..ImportOptions::default()
    };
    let mut checked = 0;
    for fmt in ["bmf", "mdl", "elem", "skm"] {
        for path in test_support::fixtures(fmt, fmt) {
            let name = path.display().to_string();
            let doc = models::open(&path).unwrap();
            let scene = Scene::from_document_with(&doc, &SceneOptions::default())
                .unwrap()
                .scene;
            let triangles: usize = scene
                .meshes
                .iter()
                .flat_map(|m| &m.primitives)
                .map(|p| p.indices.len() / 3)
                .sum();
            let valid = scene::validate(scene).scene;
            let out = Document::from_scene(Format::Smf, &valid, None, &options)
                .unwrap_or_else(|e| panic!("{name}: {e}"));
            let smf = smf_of(&out.document);
            let faces: usize = smf.meshes.iter().map(|m| m.triangle_count()).sum();
            assert_eq!(faces, triangles, "{name}: triangles");
            if !valid.materials.is_empty() {
                assert!(
                    out.warnings
                        .iter()
                        .any(|w| w.to_string().contains("no SMF render states")),
                    "{name}: {:?}",
                    out.warnings
                );
            }
            let bytes = smf.to_bytes().unwrap();
            Smf::from_bytes(&bytes).unwrap_or_else(|e| panic!("{name}: {e}"));
            checked += 1;
        }
    }
    assert!(checked >= 4);
}

/// A hand-made scene with every reference wrong (validation repairs nothing of it yet) still
/// gives a document, with warnings, and no panic.
#[test]
fn broken_references_are_warned_not_panicked() {
    let mut scene = Scene {
        nodes: vec![
            scene::Node {
                name: "a".into(),
                children: vec![1, 7, 1],
                mesh: Some(0),
                skin: Some(0),
                ..Default::default()
            },
            scene::Node {
                name: "b".into(),
                mesh: Some(9),
                skin: Some(4),
                ..Default::default()
            },
        ],
        roots: vec![0, 5],
        ..Default::default()
    };
    scene.meshes.push(scene::Mesh {
        name: "m".into(),
        vertices: scene::Vertices {
            positions: vec![[0.0; 3]; 3].into(),
            normals: Some(vec![[0.0, 1.0, 0.0]].into()),
            uv1: Some(vec![[0.5, 0.5]; 2].into()),
            colors: Some(models::scene::Colors::Floats(
                vec![[2.0, -1.0, f32::NAN, 0.5]; 3].into(),
            )),
            joints: Some(vec![[300, 2, 1, 0]; 2].into()),
            weights: Some(vec![[0.5, f32::NAN, 0.25, 0.25]; 3].into()),
            ..Default::default()
        },
        primitives: vec![scene::Primitive {
            indices: vec![0, 1, 2, 0, 1, 99, 4].into(),
            material: Some(12),
        }],
        extras: serde_json::from_str(
            r#"{"smf_mesh": 0, "smf_triangles": 4000000000, "smf_obb": {"center": 1},
                "smf_unknown": [{"id": "x"}, 3], "smf_tangents_hex": "zz",
                "smf_collision": {"faces": [{"indices": [1]}], "runs": 5}}"#,
        )
        .unwrap(),
    });
    scene.skins.push(scene::Skin {
        name: "s".into(),
        joints: vec![0, 55],
        inverse_bind_matrices: vec![],
        skeleton: None,
    });
    scene.animations.push(scene::Animation {
        name: "clip".into(),
        channels: vec![
            scene::Channel {
                node: 0,
                path: scene::ChannelPath::Rotation,
                interpolation: scene::Interpolation::CubicSpline,
                times: vec![0.0, f32::NAN, 1e30].into(),
                values: vec![0.0; 5].into(),
            },
            scene::Channel {
                node: 77,
                path: scene::ChannelPath::Scale,
                interpolation: scene::Interpolation::Linear,
                times: vec![1.0].into(),
                values: vec![].into(),
            },
        ],
        extras: Default::default(),
    });
    let valid = scene::validate(scene).scene;
    let out = Document::from_scene(Format::Smf, &valid, None, &ImportOptions::default()).unwrap();
    assert!(out.warnings.len() >= 5, "{:?}", out.warnings);
    let smf = smf_of(&out.document);
    assert_eq!(smf.meshes[0].triangle_count(), 1);
    // Validation clamps the colour (2, -1, NaN, 0.5) to (1, 0, 1, 0.5): a non-finite vertex
    // colour channel becomes 1, as the glTF writer always did.
    assert_eq!(smf.meshes[0].vertices[0].bgra, [255, 0, 255, 128]);
    smf.to_bytes().unwrap();
}

/// An animated character's exact rotation keys (100 a channel, 1 600 bytes: past
/// `blob::SMALL`) travel as buffer views of the `.glb`, not as hex text, and come back bit for
/// bit; the hex of earlier exports still reads.
#[test]
fn a_clips_exact_rotation_keys_travel_as_views_and_hex_still_reads() {
    let bytes = large_models::smf::character().unwrap();
    let doc = models::from_bytes(&bytes).unwrap();
    let scene = through_glb(&doc);
    let per_node = |s: &Scene| -> Vec<serde_json::Value> {
        s.animations
            .iter()
            .filter_map(|a| a.extras.get("smf_rotations_hex")?.as_object())
            .flat_map(|by_node| by_node.values().cloned())
            .collect()
    };
    let kept = per_node(&scene);
    assert!(kept.len() > 60, "{} channels kept their keys", kept.len());
    assert!(
        kept.iter().all(|v| v.get("bufferView").is_some()),
        "not all as views: {:?}",
        kept.first()
    );
    let (back, _) = import(&scene, None);
    assert_same_data("character (views)", smf_of(&doc), &back);

    // The same keys as hex text, as exports before the views wrote them.
    let mut old = scene.into_inner();
    let blobs = old.blobs.clone();
    for a in &mut old.animations {
        let Some(serde_json::Value::Object(by_node)) = a.extras.get_mut("smf_rotations_hex") else {
            continue;
        };
        for v in by_node.values_mut() {
            let i = v["bufferView"].as_u64().unwrap() as usize;
            let hex: String = blobs[i].iter().map(|b| format!("{b:02x}")).collect();
            *v = serde_json::Value::String(hex);
        }
    }
    let old = scene::validate(old).scene;
    assert!(per_node(&old).iter().all(serde_json::Value::is_string));
    let (back, _) = import(&old, None);
    assert_same_data("character (hex)", smf_of(&doc), &back);
}

/// Clips merged from several SMF files keep each file's exact rotation keys: the views an
/// animation's extras name are its own scene's, and the merge copies them into the merged one.
#[test]
fn merged_clips_keep_each_files_exact_rotation_keys() {
    use models::scene::{merge_clips, Budget, ClipSource};
    let bytes = large_models::smf::character().unwrap();
    let walk = Smf::from_bytes(&bytes).unwrap();
    let mut run = walk.clone();
    // Another clip: every rotation key turned a quarter about y (and left unnormalised).
    for ani in run
        .animation_sets
        .iter_mut()
        .flat_map(|s| &mut s.animations)
    {
        for key in &mut ani.rotation_keys {
            let [x, y, z, w] = key.value;
            key.value = [
                x * 1.5 - z * 0.5,
                y * 1.5 + w * 0.5,
                z * 1.5 + x * 0.5,
                w * 1.5 - y * 0.5,
            ];
        }
    }
    let source = |clip: &str, smf: &Smf| ClipSource {
        clip: clip.into(),
        scene: Scene::from_document(&Document::Smf(smf.clone()))
            .unwrap()
            .scene,
    };
    let merged = merge_clips(
        vec![source("walk", &walk), source("run", &run)],
        &mut Budget::unlimited(),
    )
    .unwrap();
    let glb = gltf::to_glb(
        &scene::validate(merged.scene).scene,
        &GltfOptions::default(),
    )
    .unwrap();
    let read = scene::validate(gltf::read_glb(&glb).unwrap().scene).scene;
    let (back, _) = import(&read, None);
    assert_eq!(back.animation_sets.len(), 2);
    for (smf, set) in [
        (&walk, &back.animation_sets[0]),
        (&run, &back.animation_sets[1]),
    ] {
        let want = &smf.animation_sets[0];
        assert_eq!(want.animations.len(), set.animations.len());
        for (p, q) in want.animations.iter().zip(&set.animations) {
            for (r, t) in p.rotation_keys.iter().zip(&q.rotation_keys) {
                assert_ulps("merged", "rotation key", &r.value, &t.value, 0);
            }
        }
    }
}

/// Files whose meshes differ only in bytes kept as views (here their V_B tangents, which glTF
/// does not carry) do not merge: the views are compared by content, not by number.
#[test]
fn clips_whose_meshes_differ_in_kept_bytes_do_not_merge() {
    use models::scene::{merge_clips, Budget, ClipSource, MergeError};
    let bytes = large_models::smf::character().unwrap();
    let with_tangents = |t: [f32; 3]| {
        let mut smf = Smf::from_bytes(&bytes).unwrap();
        for m in &mut smf.meshes {
            m.tangents = Some(vec![selene_smf::Vec3(t); m.vertices.len()]);
        }
        ClipSource {
            clip: format!("{t:?}"),
            scene: Scene::from_document(&Document::Smf(smf)).unwrap().scene,
        }
    };
    let (a, b) = (
        with_tangents([1.0, 0.0, 0.0]),
        with_tangents([0.0, 1.0, 0.0]),
    );
    assert_eq!(a.scene.meshes, b.scene.meshes, "equal but for their views");
    let err = merge_clips(vec![a, b], &mut Budget::unlimited()).unwrap_err();
    let MergeError::Mismatch { index, .. } = &err else {
        panic!("{err}")
    };
    assert_eq!(*index, 1, "{err}");
}
