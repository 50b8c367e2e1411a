//! glTF → BMF (`scene::to_bmf`): every fixture and sample goes BMF → scene → `.glb` → scene →
//! BMF with the same figures and the same data, and patched onto its own file gives the file
//! back byte for byte; vertex kinds, the u16 split, clip choice and concatenation, and hostile
//! scenes.

mod common;

use models::bmf::{self, VertexKind};
use models::gltf::{self, GltfOptions};
use models::scene::{
    self, Animation, Channel, ChannelPath, ImportOptions, Interpolation, Material, Mesh, Node,
    Primitive, Scene, Skin, Vertices, IDENTITY,
};
use models::{Document, Format, Model};
use std::path::PathBuf;

fn inputs() -> Vec<PathBuf> {
    let mut files = test_support::fixtures("bmf", "bmf");
    match test_support::samples("bmf", "bmf") {
        Some(s) => files.extend(s),
        None => eprintln!("no BMF samples found; fixtures only"),
    }
    files
}

/// BMF → scene → glb → scene → validate → BMF, with `base`.
fn round_trip(
    doc: &Document,
    base: Option<&Document>,
    options: &ImportOptions,
) -> (bmf::Bmf, Vec<String>) {
    let valid = common::through_glb(doc);
    match common::import_as(Format::Bmf, &valid, base, options).unwrap() {
        (Document::Bmf(b), warnings) => (b, warnings),
        (other, _) => panic!("not a BMF: {:?}", other.format()),
    }
}

use test_support::max_ulps;

/// The same figures, and for every vertex (the unreferenced garbage too) the same position, UV,
/// tangent and normal bits, weights within 1 ulp of the file's (rescaled to sum to 1 where
/// they did not), the same joints, indices, ranges, colours and matrices.
#[test]
fn every_fixture_and_sample_comes_back() {
    let mut checked = 0;
    for path in inputs() {
        let name = path.display().to_string();
        let doc = models::open(&path).unwrap();
        let Document::Bmf(original) = &doc else {
            panic!("{name}: not BMF");
        };
        let (back, warnings) = round_trip(&doc, None, &ImportOptions::default());
        for w in &warnings {
            eprintln!("{name}: {w}");
        }
        let back_doc = Document::Bmf(back.clone());
        assert_eq!(back_doc.summary(), doc.summary(), "{name}: summary");
        assert_eq!(back.header, original.header, "{name}: header");
        for (m, (b, o)) in back.meshes.iter().zip(&original.meshes).enumerate() {
            assert_eq!(b.indices, o.indices, "{name}: mesh {m} indices");
            assert_eq!(
                b.vertices.kind(),
                o.vertices.kind(),
                "{name}: mesh {m} kind"
            );
            assert_eq!(b.vertices.len(), o.vertices.len(), "{name}: mesh {m} count");
            for (i, (bv, ov)) in b.vertices.iter().zip(o.vertices.iter()).enumerate() {
                let at = format!("{name}: mesh {m} vertex {i}");
                assert_eq!(
                    bv.position.map(f32::to_bits),
                    ov.position.map(f32::to_bits),
                    "{at}"
                );
                assert_eq!(bv.uv.map(f32::to_bits), ov.uv.map(f32::to_bits), "{at}");
                assert_eq!(
                    bv.tangent.map(|t| t.map(f32::to_bits)),
                    ov.tangent.map(|t| t.map(f32::to_bits)),
                    "{at}"
                );
                assert_eq!(
                    max_ulps(&bv.normal, &ov.normal),
                    0,
                    "{at}: normal {:?} vs {:?}",
                    bv.normal,
                    ov.normal
                );
                if let (Some((bj, bw)), Some((oj, ow))) = (bv.joints, ov.joints) {
                    assert_eq!(bj, oj, "{at}: joints");
                    assert!(max_ulps(&bw, &ow) <= 1, "{at}: weights {bw:?} vs {ow:?}");
                }
            }
            for (k, (bm, om)) in b.materials.iter().zip(&o.materials).enumerate() {
                assert_eq!(bm, om, "{name}: mesh {m} material {k}");
            }
            let bits = |s: &Option<bmf::Skin>| {
                s.as_ref().map(|s| {
                    (
                        s.bone_count,
                        s.matrices
                            .iter()
                            .map(|m| m.map(f32::to_bits))
                            .collect::<Vec<_>>(),
                    )
                })
            };
            assert_eq!(bits(&b.skin), bits(&o.skin), "{name}: mesh {m} skin");
        }
        checked += 1;
    }
    assert!(checked >= 5, "only {checked} files");
}

/// Material ranges that overlap, leave a gap or split a triangle (bmf.md, rule 23), and garbage
/// in a vertex no index uses, come back byte for byte without a base, through the
/// `bmf_index_layout` and `bmf_unreferenced` extras; without them they would not.
#[test]
fn odd_index_layouts_and_garbage_vertices_come_back_exactly() {
    let garbage = f32::from_bits(0xCDCD_CDCD);
    let mut vertices: Vec<bmf::Vertex> = (0..5)
        .map(|i| bmf::Vertex {
            position: [i as f32, (i % 2) as f32, 0.5],
            normal: [0.0, 0.0, -1.0],
            uv: [0.25 * i as f32, 0.5],
        })
        .collect();
    vertices.push(bmf::Vertex {
        position: [garbage; 3],
        normal: [garbage; 3],
        uv: [garbage; 2],
    });
    let material = common::plain_material;
    // Triangles 0 and 1 overlap (0+6 and 3+6), triangle 3 is in no range, 1+3 straddles two.
    let indices = vec![0, 1, 2, 1, 2, 3, 2, 3, 4, 0, 2, 4];
    let materials = vec![material(0, 6), material(3, 6), material(1, 3)];
    let bytes = common::plain_bmf(vertices, indices, materials);
    let doc = models::from_bytes(&bytes).unwrap();
    let (back, warnings) = round_trip(&doc, None, &ImportOptions::default());
    assert!(
        back.to_bytes().unwrap() == bytes,
        "not byte-identical: {back:?}\n{warnings:#?}"
    );

    // The same scene without those extras: the layout is the primitives' and the garbage gone.
    let scene = Scene::from_document(&doc).unwrap().scene;
    let glb = gltf::to_glb(&scene::validate(scene).scene, &GltfOptions::default()).unwrap();
    let mut read = gltf::read_glb(&glb).unwrap().scene;
    for key in ["bmf_index_layout", "bmf_unreferenced"] {
        assert!(read.meshes[0].extras.remove(key).is_some(), "{key}");
    }
    let valid = scene::validate(read).scene;
    let plain = Document::from_scene(Format::Bmf, &valid, None, &ImportOptions::default())
        .unwrap()
        .document;
    let Document::Bmf(plain) = plain else {
        panic!("not a BMF")
    };
    assert_ne!(plain.meshes[0].indices.len(), 12); // 6 + 6 + 3 without the layout
    assert_eq!(plain.meshes[0].vertices.get(5).unwrap().position, [0.0; 3]);
}

/// Normals that validation renormalises (a referenced vertex's length 2 and length 1.001
/// normals) come back bit for bit through `bmf_normals`, and only those need it: unit normals
/// (the file's, a few ulps off unit length, go through glTF as they are) and a garbage normal
/// in a vertex no index uses (which `bmf_unreferenced` brings back whole) add no copy.
#[test]
fn only_renormalised_referenced_normals_are_kept_in_extras() {
    let garbage = f32::from_bits(0xCDCD_CDCD);
    let bmf_of = |normals: [[f32; 3]; 3], unreferenced: [f32; 3]| {
        let mut vertices: Vec<bmf::Vertex> = normals
            .iter()
            .enumerate()
            .map(|(i, &normal)| bmf::Vertex {
                position: [i as f32, (i % 2) as f32, 0.5],
                normal,
                uv: [0.25 * i as f32, 0.5],
            })
            .collect();
        vertices.push(bmf::Vertex {
            position: [garbage; 3],
            normal: unreferenced,
            uv: [garbage; 2],
        });
        common::plain_bmf(vertices, vec![0, 1, 2], vec![common::plain_material(0, 3)])
    };
    let unit = [0.0, 0.0, -1.0];
    let near = [0.0, 0.6, -0.800_000_1];
    let cases = [
        ([unit, near, unit], [garbage; 3], false),
        ([unit, [0.0, 0.0, -2.0], unit], [0.0, 0.0, -1.0], true),
        ([unit, unit, [1.001, 0.0, 0.0]], [garbage; 3], true),
    ];
    for (normals, unreferenced, kept) in cases {
        let bytes = bmf_of(normals, unreferenced);
        let doc = models::from_bytes(&bytes).unwrap();
        let scene = Scene::from_document(&doc).unwrap().scene;
        assert_eq!(
            scene.meshes[0].extras.contains_key("bmf_normals"),
            kept,
            "{normals:?}"
        );
        let (back, warnings) = round_trip(&doc, None, &ImportOptions::default());
        assert!(
            back.to_bytes().unwrap() == bytes,
            "{normals:?} not byte-identical: {back:?}\n{warnings:#?}"
        );
    }
}

/// An unedited export patched onto its own file is that file, byte for byte.
#[test]
fn patched_onto_its_base_is_byte_identical() {
    for path in inputs() {
        let name = path.display().to_string();
        let bytes = test_support::read(&path);
        let doc = models::from_bytes(&bytes).unwrap();
        let (back, warnings) = round_trip(&doc, Some(&doc), &ImportOptions::default());
        let out = back.to_bytes().unwrap();
        assert!(
            out == bytes,
            "{name}: not byte-identical; warnings: {warnings:#?}"
        );
    }
}

/// A base of another format is refused.
#[test]
fn a_base_of_another_format_is_refused() {
    let scene = scene::validate(quad_scene(false, false)).scene;
    let smf = test_support::fixtures("smf", "smf");
    let Some(path) = smf.first() else { return };
    let base = models::open(path).unwrap();
    let err = Document::from_scene(Format::Bmf, &scene, Some(&base), &ImportOptions::default())
        .unwrap_err();
    assert!(
        matches!(err, models::Error::BaseFormatMismatch { .. }),
        "{err}"
    );
}

/// A unit quad, optionally with tangents and with a two-bone skin.
fn quad_scene(tangents: bool, skinned: bool) -> Scene {
    let n = 4;
    let mut scene = Scene::default();
    scene.meshes.push(Mesh {
        name: "quad".into(),
        vertices: Vertices {
            positions: vec![
                [0.0, 0.0, 0.0],
                [1.0, 0.0, 0.0],
                [1.0, 1.0, 0.0],
                [0.0, 1.0, 0.0],
            ]
            .into(),
            normals: Some(vec![[0.0, 0.0, 1.0]; n].into()),
            tangents: (tangents.then(|| vec![[1.0, 0.0, 0.0, 1.0]; n]))
                .map(models::scene::Array::from),
            uv0: Some(vec![[0.0, 1.0], [1.0, 1.0], [1.0, 0.0], [0.0, 0.0]].into()),
            joints: (skinned.then(|| vec![[0, 1, 0, 0]; n])).map(models::scene::Array::from),
            weights: (skinned.then(|| vec![[0.75, 0.25, 0.0, 0.0]; n]))
                .map(models::scene::Array::from),
            ..Vertices::default()
        },
        primitives: vec![Primitive {
            indices: vec![0, 1, 2, 0, 2, 3].into(),
            material: Some(0),
        }],
        ..Mesh::default()
    });
    scene.materials.push(Material {
        name: "m".into(),
        base_color: [1.0, 0.5, 0.25, 1.0],
        color_texture: Some("textures/Checker.png".into()),
        ..Material::default()
    });
    scene.nodes.push(Node {
        name: "quad".into(),
        mesh: Some(0),
        skin: skinned.then_some(0),
        ..Node::default()
    });
    scene.roots.push(0);
    if skinned {
        scene.nodes.push(Node {
            name: "root".into(),
            children: vec![2, 3],
            ..Node::default()
        });
        scene.nodes.push(Node {
            name: "a".into(),
            ..Node::default()
        });
        scene.nodes.push(Node {
            name: "b".into(),
            ..Node::default()
        });
        scene.roots.push(1);
        scene.skins.push(Skin {
            name: "skin".into(),
            joints: vec![2, 3],
            inverse_bind_matrices: vec![IDENTITY; 2],
            skeleton: Some(1),
        });
    }
    scene
}

fn import(scene: Scene, options: &ImportOptions) -> Result<(bmf::Bmf, Vec<String>), models::Error> {
    let valid = scene::validate(scene).scene;
    match common::import_as(Format::Bmf, &valid, None, options)? {
        (Document::Bmf(b), warnings) => Ok((b, warnings)),
        (other, _) => panic!("not a BMF: {:?}", other.format()),
    }
}

/// The vertex kind follows the content: static or skinned, with or without tangents; the
/// handedness is undone (z negated, winding reversed) and the texture is a bare file name.
#[test]
fn vertex_kinds_follow_the_content() {
    for (tangents, skinned, kind) in [
        (false, false, VertexKind::Plain),
        (true, false, VertexKind::Tangent),
        (false, true, VertexKind::Skinned),
        (true, true, VertexKind::SkinnedTangent),
    ] {
        let (doc, warnings) =
            import(quad_scene(tangents, skinned), &ImportOptions::default()).unwrap();
        assert_eq!(doc.meshes.len(), 1);
        let mesh = &doc.meshes[0];
        assert_eq!(mesh.vertices.kind(), kind, "{warnings:?}");
        assert_eq!(mesh.indices, vec![0, 2, 1, 0, 3, 2]);
        let v = mesh.vertices.get(2).unwrap();
        assert_eq!(v.position, [1.0, 1.0, -0.0]);
        assert_eq!(v.normal, [0.0, 0.0, -1.0]);
        assert_eq!(v.uv, [1.0, 0.0]);
        assert_eq!(mesh.materials[0].texture.to_string(), "Checker.png");
        assert!(warnings
            .iter()
            .any(|w| w.contains("file name \"Checker.png\"")));
        if skinned {
            assert_eq!(v.joints, Some(([0, 1, 0, 0], [0.75, 0.25, 0.0, 0.0])));
            let skin = mesh.skin.as_ref().unwrap();
            assert_eq!(skin.bone_count, 2);
            // No clip: one sample of the rest pose (identity here).
            assert_eq!(skin.matrices, vec![IDENTITY; 2]);
        } else {
            assert!(mesh.skin.is_none());
        }
        Document::Bmf(doc).to_bytes().unwrap();
    }
}

/// A mesh with more vertices than u16 indices reach is split, with a warning, and loses no
/// triangle.
#[test]
fn a_mesh_of_70000_vertices_is_split() {
    let quads = 17_500; // 70 000 vertices
    let mut positions = Vec::new();
    let mut indices = Vec::new();
    for q in 0..quads {
        let base = positions.len() as u32;
        let x = q as f32;
        positions.extend([
            [x, 0.0, 0.0],
            [x + 1.0, 0.0, 0.0],
            [x + 1.0, 1.0, 0.0],
            [x, 1.0, 0.0],
        ]);
        indices.extend([base, base + 1, base + 2, base, base + 2, base + 3]);
    }
    let n = positions.len();
    let mut scene = quad_scene(false, false);
    scene.meshes[0].vertices = Vertices {
        positions: positions.into(),
        normals: Some(vec![[0.0, 0.0, 1.0]; n].into()),
        uv0: Some(vec![[0.0, 0.0]; n].into()),
        ..Vertices::default()
    };
    scene.meshes[0].primitives[0].indices = indices.into();
    let (doc, warnings) = import(scene, &ImportOptions::default()).unwrap();
    assert_eq!(doc.meshes.len(), 2, "{warnings:?}");
    assert!(warnings
        .iter()
        .any(|w| w.contains("70000 vertices") && w.contains("split into 2")));
    let faces: usize = doc.meshes.iter().map(|m| m.triangle_count()).sum();
    assert_eq!(faces, quads * 2);
    for m in &doc.meshes {
        assert!(m.vertices.len() <= 65_536);
        assert_eq!(m.materials[0].index_count as usize, m.indices.len());
    }
    assert_eq!(doc.header.version(), bmf::Version::V1_1);
    // The second piece's first quad is where the first piece stopped.
    let v = doc.meshes[1].vertices.get(0).unwrap();
    assert_eq!(v.position, [16_384.0, 0.0, -0.0]);
    let bytes = Document::Bmf(doc).to_bytes().unwrap();
    models::from_bytes(&bytes).unwrap();
}

/// Two clips moving joint `a` along x: `walk` (1 s) and `run` (0.5 s).
fn clip_scene() -> Scene {
    let mut scene = quad_scene(false, true);
    let clip = |name: &str, end: f32, x: f32| Animation {
        name: name.into(),
        channels: vec![Channel {
            node: 2,
            path: ChannelPath::Translation,
            interpolation: Interpolation::Linear,
            times: vec![0.0, end].into(),
            values: vec![0.0, 0.0, 0.0, x, 0.0, 0.0].into(),
        }],
        ..Animation::default()
    };
    scene.animations.push(clip("walk", 1.0, 1.0));
    scene.animations.push(clip("run", 0.5, 2.0));
    scene
}

/// The bake's matrices are held to the way back's limit (16 × the scene's cost + 16 MiB) for all
/// skins and all meshes together: the bake of each skin and each mesh's copy of it (a BMF mesh
/// holds its own AnimeMatrix block) count. Each skin's bake was checked alone, and copies not at
/// all, so N skins or N meshes of one skin could make N times the limit.
#[test]
fn the_bake_limit_holds_for_all_skins_and_meshes_together() {
    let mut scene = quad_scene(false, true);
    let clip = |end: f32| Animation {
        name: "long".into(),
        channels: vec![Channel {
            node: 2,
            path: ChannelPath::Translation,
            interpolation: Interpolation::Linear,
            times: vec![0.0, end].into(),
            values: vec![0.0, 0.0, 0.0, 1.0, 0.0, 0.0].into(),
        }],
        ..Animation::default()
    };
    // The clip's cost does not depend on its length.
    scene.animations.push(clip(1.0));
    let limit = 16 * scene::cost(&scene) + (16 << 20);
    // Two bones of 64 bytes a sample: 40 % of the limit baked, 40 % more in the mesh's copy.
    let samples = limit * 2 / 5 / 128;
    scene.animations = vec![clip((samples - 1) as f32 / 30.0)];
    let (one, _) = import(scene.clone(), &ImportOptions::default()).expect("one skin bakes");
    let matrices = one.meshes[0].skin.as_ref().map_or(0, |s| s.matrices.len());
    assert!(matrices as u64 * 64 > limit / 3, "{matrices} matrices");
    // A second mesh, drawn with the same skin, then with its own skin of the same joints.
    let mut mesh = scene.meshes[0].clone();
    mesh.name = "quad2".into();
    scene.meshes.push(mesh);
    scene.nodes.push(Node {
        name: "quad2".into(),
        mesh: Some(1),
        skin: Some(0),
        ..Node::default()
    });
    scene.roots.push(scene.nodes.len() - 1);
    for (skins, place) in [(1, "bmf: mesh 1 (\"quad2\")"), (2, "skin 1")] {
        if skins == 2 {
            let second = scene.skins[0].clone();
            scene.skins.push(second);
            if let Some(node) = scene.nodes.last_mut() {
                node.skin = Some(1);
            }
        }
        match import(scene.clone(), &ImportOptions::default()) {
            Err(models::Error::FormatLimit {
                place: at, what, ..
            }) => {
                assert_eq!(at, place, "{skins} skins");
                assert!(what.contains("made before"), "{what}");
            }
            other => panic!("{skins} skins: {:?}", other.map(|(_, w)| w)),
        }
    }
}

/// With several clips and no choice, they are played one after the other, and the warning
/// gives each clip's time range; a clip can be chosen by name; an unknown name lists the
/// clips.
#[test]
fn clips_are_chosen_or_concatenated() {
    let options = ImportOptions {
        bmf_fps: 10.0,
        ..ImportOptions::default()
    };
    let (doc, warnings) = import(clip_scene(), &options).unwrap();
    let skin = doc.meshes[0].skin.as_ref().unwrap();
    assert_eq!(skin.matrices.len(), (11 + 6) * 2);
    let ranges = warnings
        .iter()
        .find(|w| w.contains("one after the other"))
        .unwrap_or_else(|| panic!("{warnings:?}"));
    assert!(
        ranges.contains("\"walk\" 0 s to 1 s (samples 0 to 10)"),
        "{ranges}"
    );
    assert!(
        ranges.contains("\"run\" 1.1 s to 1.6 s (samples 11 to 16)"),
        "{ranges}"
    );
    // Joint a (bone 0) at walk's sample 5 is halfway: x = 0.5; at run's last sample x = 2.
    assert_eq!(skin.matrices[5 * 2][12], 0.5);
    assert_eq!(skin.matrices[16 * 2][12], 2.0);
    // Bone 1 never moves.
    assert_eq!(skin.matrices[16 * 2 + 1], IDENTITY);

    let run = ImportOptions {
        clip: Some("run".into()),
        ..options.clone()
    };
    let (doc, warnings) = import(clip_scene(), &run).unwrap();
    assert!(!warnings.iter().any(|w| w.contains("one after the other")));
    let skin = doc.meshes[0].skin.as_ref().unwrap();
    assert_eq!(skin.matrices.len(), 6 * 2);
    assert_eq!(skin.matrices[5 * 2][12], 2.0);

    let unknown = ImportOptions {
        clip: Some("jump".into()),
        ..options
    };
    let err = import(clip_scene(), &unknown).unwrap_err().to_string();
    assert!(
        err.contains("\"jump\"") && err.contains("\"walk\", \"run\""),
        "{err}"
    );
}

/// What BMF cannot hold is named: a second UV set, vertex colours, nodes with no role.
#[test]
fn what_bmf_cannot_hold_is_named() {
    let mut scene = quad_scene(false, false);
    scene.meshes[0].vertices.uv1 = Some(vec![[0.0; 2]; 4].into());
    scene.meshes[0].vertices.colors = Some(models::scene::Colors::Floats(vec![[1.0; 4]; 4].into()));
    scene.nodes.push(Node {
        name: "lamp".into(),
        transform: scene::Transform::Matrix({
            let mut m = IDENTITY;
            m[12] = 3.0;
            m
        }),
        ..Node::default()
    });
    scene.roots.push(1);
    let (_, warnings) = import(scene, &ImportOptions::default()).unwrap();
    let all = warnings.join("\n");
    assert!(all.contains("TEXCOORD_1"), "{all}");
    assert!(all.contains("vertex colours"), "{all}");
    assert!(all.contains("\"lamp\""), "{all}");
}

/// A scene with no triangles is an error, not an empty file.
#[test]
fn a_scene_without_triangles_is_refused() {
    let err = import(Scene::default(), &ImportOptions::default()).unwrap_err();
    assert!(matches!(err, models::Error::FormatLimit { .. }), "{err}");
}

/// Whatever `read_glb` makes of damaged bytes (truncated and corrupted exports of every
/// fixture) converts to a BMF or fails with an error, never a panic.
#[test]
fn hostile_scenes_never_panic() {
    let mut converted = 0usize;
    for path in test_support::fixtures("bmf", "bmf") {
        let doc = models::open(&path).unwrap();
        let scene = Scene::from_document(&doc).unwrap().scene;
        let glb = gltf::to_glb(&scene::validate(scene).scene, &GltfOptions::default())
            .unwrap()
            .into_vec();
        let mut seed = 0x9e37_79b9_u32;
        for round in 0..300 {
            let mut bytes = glb.clone();
            if round % 3 == 0 {
                bytes.truncate(bytes.len() * round / 300);
            }
            for _ in 0..(round % 7 + 1) {
                seed ^= seed << 13;
                seed ^= seed >> 17;
                seed ^= seed << 5;
                let at = seed as usize % bytes.len().max(1);
                if let Some(b) = bytes.get_mut(at) {
                    *b ^= (seed >> 24) as u8 | 1;
                }
            }
            let Ok(read) = gltf::read_glb(&bytes) else {
                continue;
            };
            let valid = scene::validate(read.scene).scene;
            for options in [
                ImportOptions::default(),
                ImportOptions {
                    bmf_fps: f32::NAN,
                    clip: Some("animation".into()),
                    ..ImportOptions::default()
                },
            ] {
                if let Ok(out) = Document::from_scene(Format::Bmf, &valid, Some(&doc), &options) {
                    let _ = out.document.to_bytes();
                    converted += 1;
                }
            }
        }
    }
    assert!(
        converted > 0,
        "no damaged scene converted at all: the test proves nothing"
    );
}

/// Clips merged from several exports of one character (`merge_clips`) come back exactly: the
/// chosen clip gives the file's matrices bit for bit, and concatenated clips give them one
/// after the other.
#[test]
fn merged_clips_come_back_exactly() {
    let path = test_support::fixtures("bmf", "bmf")
        .into_iter()
        .find(|p| test_support::file_name(p) == "skinned_arm.bmf")
        .expect("the skinned_arm fixture");
    let doc = models::open(&path).unwrap();
    let Document::Bmf(original) = &doc else {
        panic!("not BMF")
    };
    let skin = original.meshes[0].skin.as_ref().unwrap();
    assert!(skin.sample_count() > 1);
    let scene = Scene::from_document(&doc).unwrap().scene;
    let sources = ["idle", "wave"].map(|clip| scene::ClipSource {
        clip: clip.into(),
        scene: scene.clone(),
    });
    let merged = scene::merge_clips(sources.to_vec(), &mut scene::Budget::unlimited())
        .unwrap()
        .scene;
    let bits = |m: &[[f32; 16]]| m.iter().map(|x| x.map(f32::to_bits)).collect::<Vec<_>>();
    let wave = ImportOptions {
        clip: Some("wave".into()),
        ..ImportOptions::default()
    };
    let (one, _) = import(merged.clone(), &wave).unwrap();
    assert_eq!(
        bits(&one.meshes[0].skin.as_ref().unwrap().matrices),
        bits(&skin.matrices)
    );
    let (both, warnings) = import(merged, &ImportOptions::default()).unwrap();
    let both = &both.meshes[0].skin.as_ref().unwrap().matrices;
    assert_eq!(both.len(), 2 * skin.matrices.len());
    assert_eq!(bits(&both[..skin.matrices.len()]), bits(&skin.matrices));
    assert_eq!(bits(&both[skin.matrices.len()..]), bits(&skin.matrices));
    assert!(
        warnings.iter().any(|w| w.contains("\"idle\" 0 s to")),
        "{warnings:?}"
    );
    assert!(
        !warnings
            .iter()
            .any(|w| w.contains("baked from the animation")),
        "{warnings:?}"
    );
}

/// An edited animation is baked from its channels, not replaced by the export's exact
/// matrices, and the warning says how many matrices were baked.
#[test]
fn an_edited_animation_is_baked_from_its_channels() {
    let path = test_support::fixtures("bmf", "bmf")
        .into_iter()
        .find(|p| test_support::file_name(p) == "skinned_arm.bmf")
        .expect("the skinned_arm fixture");
    let doc = models::open(&path).unwrap();
    let Document::Bmf(original) = &doc else {
        panic!("not BMF")
    };
    let skin = original.meshes[0].skin.as_ref().unwrap();
    let bones = skin.bone_count as usize;
    let mut scene = Scene::from_document(&doc).unwrap().scene;
    let joint = scene.skins[0].joints[0];
    let channel = scene.animations[0]
        .channels
        .iter_mut()
        .find(|c| c.node == joint && c.path == ChannelPath::Translation)
        .unwrap();
    let moved: Vec<f32> = channel
        .values
        .chunks(3)
        .flat_map(|v| [v[0] + 1.0, v[1], v[2]])
        .collect();
    channel.values = moved.into();
    let (back, warnings) = import(scene, &ImportOptions::default()).unwrap();
    let matrices = &back.meshes[0].skin.as_ref().unwrap().matrices;
    assert_eq!(matrices.len(), skin.matrices.len());
    for s in 0..skin.sample_count() {
        let (b, o) = (matrices[s * bones], skin.matrices[s * bones]);
        assert!(
            (b[12] - (o[12] + 1.0)).abs() < 1e-4,
            "sample {s}: {b:?} vs {o:?}"
        );
        // The other bones keep their exact matrices.
        for k in 1..bones {
            assert_eq!(
                matrices[s * bones + k].map(f32::to_bits),
                skin.matrices[s * bones + k].map(f32::to_bits)
            );
        }
    }
    let expected = format!(
        "{} of {} skinning matrices were baked",
        skin.sample_count(),
        skin.matrices.len()
    );
    assert!(
        warnings.iter().any(|w| w.contains(&expected)),
        "{warnings:?}"
    );
}
