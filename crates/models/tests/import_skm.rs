//! glTF → EditAnimation SKM (`scene::to_skm`): every fixture goes SKM → scene → `.glb` → scene →
//! SKM and comes back as the same document (the same canonical text), also when the file has
//! what glTF cannot hold (odd adjacency, non-unit normals, overlapping and missing attribute
//! ranges, repeated palette entries, raw names); D3DX adjacency; every other format's fixtures
//! into SKM; limits and hostile scenes.

mod common;

use models::gltf::{self, GltfOptions};
use models::scene::{self, ImportOptions, Scene, SceneOptions};
use models::skm::{self, AttributeRange, Encoding, Name, Skm};
use models::{Document, Format, Model};

fn fixture(name: &str) -> Skm {
    let path = test_support::workspace_root()
        .join("fixtures/skm")
        .join(name);
    Skm::from_bytes(&test_support::read(&path)).unwrap()
}

fn skm_of(doc: Document) -> Skm {
    match doc {
        Document::Skm(s) => s,
        other => panic!("not an SKM: {:?}", other.format()),
    }
}

/// SKM → scene → (validate) → glb → scene → validate → SKM.
fn through_glb(doc: &Skm, base: Option<&Document>) -> (Skm, Vec<String>) {
    let valid = common::through_glb(&Document::Skm(doc.clone()));
    let (out, warnings) =
        common::import_as(Format::Skm, &valid, base, &ImportOptions::default()).unwrap();
    (skm_of(out), warnings)
}

fn import(scene: Scene, base: Option<&Document>, options: &ImportOptions) -> (Skm, Vec<String>) {
    let out = Document::import_scene(Format::Skm, scene, base, options).unwrap();
    let warnings = out.warnings.iter().map(|w| w.to_string()).collect();
    (skm_of(out.document), warnings)
}

/// The document comes back equal (float bits), its text is the canonical rewrite of the
/// original, and the text reads back.
fn assert_same(name: &str, back: &Skm, original: &Skm) {
    let text = back.to_bytes().unwrap();
    assert_eq!(Skm::from_bytes(&text).unwrap(), *back, "{name}: reads back");
    let a = Document::Skm(back.clone()).summary();
    let b = Document::Skm(original.clone()).summary();
    assert_eq!(
        (
            a.vertices,
            a.faces,
            a.materials,
            a.bones,
            a.meshes,
            a.animations
        ),
        (
            b.vertices,
            b.faces,
            b.materials,
            b.bones,
            b.meshes,
            b.animations
        ),
        "{name}: figures"
    );
    assert_eq!(a, b, "{name}: summary");
    assert_eq!(back.vertices, original.vertices, "{name}: vertices");
    assert_eq!(back.triangles, original.triangles, "{name}: triangles");
    assert_eq!(back.adjacency, original.adjacency, "{name}: adjacency");
    assert_eq!(back.materials, original.materials, "{name}: materials");
    assert_eq!(back.attributes, original.attributes, "{name}: attributes");
    assert_eq!(back.bones, original.bones, "{name}: bones");
    assert_eq!(back, original, "{name}: document");
    assert_eq!(
        String::from_utf8_lossy(&text),
        String::from_utf8_lossy(&original.to_bytes().unwrap()),
        "{name}: text"
    );
}

#[test]
fn every_fixture_comes_back_through_glb() {
    let paths = test_support::fixtures("skm", "skm");
    assert!(paths.len() >= 2);
    for path in paths {
        let name = path.display().to_string();
        let original = Skm::from_bytes(&test_support::read(&path)).unwrap();
        let (back, warnings) = through_glb(&original, None);
        assert_same(&name, &back, &original);
        assert!(
            !warnings.iter().any(|w| w.contains("rebuilt")),
            "{name}: {warnings:?}"
        );
        // The in-memory scene too, and onto its own file as a base.
        let doc = Document::Skm(original.clone());
        let scene = Scene::from_document(&doc).unwrap().scene;
        let (back, _) = import(scene.clone(), None, &ImportOptions::default());
        assert_same(&name, &back, &original);
        let (back, _) = import(scene, Some(&doc), &ImportOptions::default());
        assert_same(&name, &back, &original);
    }
}

/// A document with everything glTF cannot hold: adjacency that is not D3DX's, non-unit and
/// zero normals, overlapping ranges and faces in no range, an empty range, a symmetric
/// partner out of range, an empty and an undecodable bone name, a texture name with spaces
/// around it, colours outside 0..1.
fn odd_document() -> Skm {
    let mut doc = fixture("arm_skinned.skm");
    doc.adjacency[0] = [7, 4_294_967_294, 0];
    doc.vertices[1].normal = [0.0, 0.70710677, 0.70710677];
    doc.vertices[2].normal = [0.0, 0.0, 0.0];
    doc.vertices[5].normal = [0.0, 2.0, 0.0];
    doc.attributes = vec![
        AttributeRange {
            material: 0,
            face_start: 4,
            face_count: 10,
            vertex_start: 0,
            vertex_count: 20,
        },
        AttributeRange {
            material: 0,
            face_start: 10,
            face_count: 8,
            vertex_start: 2,
            vertex_count: 10,
        },
        AttributeRange {
            material: 0,
            face_start: 30,
            face_count: 0,
            vertex_start: 0,
            vertex_count: 0,
        },
    ];
    doc.bones[2].symmetric = 9;
    doc.bones[3].name = Name::from_raw(Vec::new());
    doc.bones[4].name = Name::from_raw(vec![0x81, 0x20, b'x']);
    doc.materials[0].texture = Some(Name::from_raw(b"  arm.bmp ".to_vec()));
    doc.materials[0].diffuse = [1.5, -0.25, 0.5, 1.0];
    doc.materials[0].ambient = [f32::NAN, 0.0, 0.0, 1.0];
    doc.vertices[3].weights = [0.25, 0.25, 0.25];
    doc.vertices[3].blend_indices = u32::from_le_bytes([2, 2, 1, 2]);
    doc
}

#[test]
fn what_gltf_cannot_hold_comes_back_from_extras() {
    let original = odd_document();
    Skm::from_bytes(&original.to_bytes().unwrap()).unwrap();
    let (back, _) = through_glb(&original, None);
    assert_same("odd", &back, &original);
}

#[test]
fn a_utf8_document_stays_utf8() {
    let mut original = fixture("arm_skinned.skm");
    original.encoding = Encoding::Utf8;
    for b in &mut original.bones {
        let text = b.name.decode(Encoding::ShiftJis).into_owned();
        b.name = Name::encode(&text, Encoding::Utf8).unwrap();
    }
    original.materials[0].texture = Some(Name::encode("腕.bmp", Encoding::Utf8).unwrap());
    let (back, _) = through_glb(&original, None);
    assert_same("utf-8", &back, &original);
}

/// D3DX adjacency on a strip of three faces (one shared edge each) and a lone face: the edge
/// (corners k, k + 1) names the face across it, `u32::MAX` where none; coincident positions of
/// distinct vertices count as one.
#[test]
fn adjacency_is_d3dx_generate_adjacency() {
    let p = [
        [0.0, 0.0, 0.0],
        [1.0, 0.0, 0.0],
        [0.0, 1.0, 0.0],
        [1.0, 1.0, 0.0],
        [2.0, 1.0, 0.0],
        [5.0, 5.0, 5.0],
        [6.0, 5.0, 5.0],
        [5.0, 6.0, 5.0],
        [1.0, 1.0, 0.0], // a copy of vertex 3 (a UV seam)
    ];
    let tris = [[0, 2, 1], [1, 2, 3], [1, 8, 4], [5, 6, 7]];
    let adj = skm_adjacency(&p, &tris);
    let none = u32::MAX;
    assert_eq!(
        adj,
        vec![[none, 1, none], [0, none, 2], [1, none, none], [none; 3]]
    );
}

fn skm_adjacency(p: &[[f32; 3]], tris: &[[u32; 3]]) -> Vec<[u32; 3]> {
    // Through the import: a static scene of one primitive (glTF winding is the reverse).
    let mesh = scene::Mesh {
        name: "m".into(),
        vertices: scene::Vertices {
            positions: p.iter().map(|&[x, y, z]| [x, y, -z]).collect(),
            ..Default::default()
        },
        primitives: vec![scene::Primitive {
            indices: tris
                .iter()
                .flat_map(|&[a, b, c]| [a, c, b])
                .collect::<Vec<_>>()
                .into(),
            material: None,
        }],
        extras: Default::default(),
    };
    let scene = Scene {
        nodes: vec![scene::Node {
            name: "n".into(),
            mesh: Some(0),
            ..Default::default()
        }],
        roots: vec![0],
        meshes: vec![mesh],
        ..Default::default()
    };
    let (doc, _) = import(scene, None, &ImportOptions::default());
    assert_eq!(doc.triangles, tris);
    doc.adjacency
}

/// Adjacency agrees with a brute-force search on a grid (every inner edge shared).
#[test]
fn adjacency_of_a_grid_matches_brute_force() {
    let n = 12u32;
    let mut p = Vec::new();
    for y in 0..=n {
        for x in 0..=n {
            p.push([x as f32, y as f32, 0.0]);
        }
    }
    let mut tris = Vec::new();
    for y in 0..n {
        for x in 0..n {
            let a = y * (n + 1) + x;
            tris.push([a, a + n + 1, a + 1]);
            tris.push([a + 1, a + n + 1, a + n + 2]);
        }
    }
    let adj = skm_adjacency(&p, &tris);
    let edges = |t: &[u32; 3]| [(t[0], t[1]), (t[1], t[2]), (t[2], t[0])];
    for (f, t) in tris.iter().enumerate() {
        for (k, (a, b)) in edges(t).into_iter().enumerate() {
            let want = tris
                .iter()
                .enumerate()
                .find(|&(g, u)| {
                    g != f
                        && edges(u)
                            .iter()
                            .any(|&(c, d)| (c, d) == (b, a) || (c, d) == (a, b))
                })
                .map_or(u32::MAX, |(g, _)| g as u32);
            assert_eq!(adj[f][k], want, "face {f} edge {k}");
        }
    }
}

/// Every fixture of every format imports as SKM: every triangle, the joint names as bones, a
/// file the reader takes.
#[test]
fn every_format_fixture_imports_as_skm() {
    let options = ImportOptions {
        replace_bad_names: true,
        ..ImportOptions::default()
    };
    let mut checked = 0;
    for fmt in ["smf", "bmf", "mdl", "elem", "skm"] {
        for path in test_support::fixtures(fmt, fmt) {
            let name = path.display().to_string();
            let doc = models::open(&path).unwrap();
            let conversion = Scene::from_document_with(&doc, &SceneOptions::default()).unwrap();
            let valid = scene::validate(conversion.scene);
            let scene: &Scene = &valid.scene;
            let triangles: usize = scene
                .meshes
                .iter()
                .flat_map(|m| &m.primitives)
                .map(|p| p.indices.len() / 3)
                .sum();
            let mut nodes: Vec<usize> = Vec::new();
            for s in &scene.skins {
                for &j in &s.joints {
                    if !nodes.contains(&j) {
                        nodes.push(j);
                    }
                }
            }
            let joints: Vec<String> = nodes.iter().map(|&j| scene.nodes[j].name.clone()).collect();
            let out = Document::from_scene(Format::Skm, &valid.scene, None, &options)
                .unwrap_or_else(|e| panic!("{name}: {e}"));
            let skm = skm_of(out.document);
            assert_eq!(skm.triangles.len(), triangles, "{name}: triangles");
            let bones: Vec<String> = skm
                .bones
                .iter()
                .map(|b| skm.text(&b.name).into_owned())
                .collect();
            assert_eq!(bones.len(), joints.len(), "{name}: bones");
            if !out
                .warnings
                .iter()
                .any(|w| w.to_string().contains("replaced by"))
            {
                assert_eq!(bones, joints, "{name}: bone names");
            }
            if !scene.animations.is_empty() {
                let dropped: Vec<_> = out
                    .warnings
                    .iter()
                    .filter(|w| w.to_string().contains("no animation in SKM"))
                    .collect();
                assert_eq!(dropped.len(), 1, "{name}: {:?}", out.warnings);
                assert!(dropped[0]
                    .to_string()
                    .contains(&format!("{} clips", scene.animations.len())));
            }
            let bytes = skm.to_bytes().unwrap_or_else(|e| panic!("{name}: {e}"));
            let back = Skm::from_bytes(&bytes).unwrap_or_else(|e| panic!("{name}: {e}"));
            assert_eq!(back, skm, "{name}: reads back");
            checked += 1;
        }
    }
    assert!(checked >= 15, "{checked}");
}

fn one_triangle_scene(bone_name: &str, bones: usize, weighted_to: u16) -> Scene {
    let mut nodes: Vec<scene::Node> = (0..bones)
        .map(|i| scene::Node {
            name: if i == 0 {
                bone_name.to_owned()
            } else {
                format!("b{i}")
            },
            ..Default::default()
        })
        .collect();
    nodes.push(scene::Node {
        name: "mesh".into(),
        mesh: Some(0),
        skin: Some(0),
        ..Default::default()
    });
    Scene {
        roots: (0..=bones).collect(),
        nodes,
        meshes: vec![scene::Mesh {
            name: "m".into(),
            vertices: scene::Vertices {
                positions: vec![[0.0; 3], [1.0, 0.0, 0.0], [0.0, 1.0, 0.0]].into(),
                joints: Some(models::scene::Array::from(vec![[weighted_to, 0, 0, 0]; 3])),
                weights: Some(models::scene::Array::from(vec![[1.0, 0.0, 0.0, 0.0]; 3])),
                ..Default::default()
            },
            primitives: vec![scene::Primitive {
                indices: vec![0, 1, 2].into(),
                material: None,
            }],
            extras: Default::default(),
        }],
        skins: vec![scene::Skin {
            name: "s".into(),
            joints: (0..bones).collect(),
            inverse_bind_matrices: vec![scene::IDENTITY; bones],
            skeleton: None,
        }],
        ..Default::default()
    }
}

#[test]
fn a_bone_past_the_palette_byte_is_refused() {
    let scene = one_triangle_scene("root", 300, 280);
    let err =
        Document::import_scene(Format::Skm, scene, None, &ImportOptions::default()).unwrap_err();
    match err {
        models::Error::FormatLimit { format, what, .. } => {
            assert_eq!(format, Format::Skm);
            assert!(what.contains("bone 280"), "{what}");
        }
        other => panic!("{other}"),
    }
    // Bones past 255 that no vertex uses are fine.
    let scene = one_triangle_scene("root", 300, 7);
    let (doc, _) = import(scene, None, &ImportOptions::default());
    assert_eq!(doc.bones.len(), 300);
    assert_eq!(doc.vertices[0].palette()[0], 7);
    Skm::from_bytes(&doc.to_bytes().unwrap()).unwrap();
}

#[test]
fn names_that_do_not_encode_are_refused_or_replaced() {
    for bad in ["bone\u{1F600}", "say \"hi\"", "two\nlines"] {
        let scene = one_triangle_scene(bad, 1, 0);
        let err =
            Document::import_scene(Format::Skm, scene.clone(), None, &ImportOptions::default())
                .unwrap_err();
        assert!(
            matches!(
                err,
                models::Error::FormatLimit {
                    format: Format::Skm,
                    ..
                }
            ),
            "{bad:?}: {err}"
        );
        let options = ImportOptions {
            replace_bad_names: true,
            ..ImportOptions::default()
        };
        let (doc, warnings) = import(scene, None, &options);
        assert!(
            warnings.iter().any(|w| w.contains("replaced by")),
            "{warnings:?}"
        );
        Skm::from_bytes(&doc.to_bytes().unwrap()).unwrap();
    }
}

/// Animation is dropped with one warning that counts and names the clips.
#[test]
fn clips_are_dropped_with_one_warning() {
    let mut scene = one_triangle_scene("root", 2, 1);
    for name in ["walk", "run"] {
        scene.animations.push(scene::Animation {
            name: name.into(),
            channels: vec![scene::Channel {
                node: 1,
                path: scene::ChannelPath::Translation,
                interpolation: scene::Interpolation::Linear,
                times: vec![0.0, 1.0].into(),
                values: vec![0.0; 6].into(),
            }],
            extras: Default::default(),
        });
    }
    let (_, warnings) = import(scene, None, &ImportOptions::default());
    let dropped: Vec<_> = warnings
        .iter()
        .filter(|w| w.contains("no animation in SKM"))
        .collect();
    assert_eq!(dropped.len(), 1, "{warnings:?}");
    assert!(dropped[0].contains("2 clips") && dropped[0].contains("\"walk\", \"run\""));
}

/// Edited influences (no longer what the export kept) are rebuilt from the scene, largest
/// first, with a warning.
#[test]
fn edited_weights_are_rebuilt() {
    let original = fixture("arm_skinned.skm");
    let doc = Document::Skm(original.clone());
    let mut scene = Scene::from_document(&doc).unwrap().scene;
    let v = &mut scene.meshes[0].vertices;
    v.joints.as_mut().unwrap()[0] = [3, 4, 0, 0];
    v.weights.as_mut().unwrap()[0] = [0.25, 0.75, 0.0, 0.0];
    let (back, warnings) = import(scene, None, &ImportOptions::default());
    assert!(
        warnings.iter().any(|w| w.contains("1 vertices")),
        "{warnings:?}"
    );
    assert_eq!(back.vertices[0].palette()[..2], [4, 3]);
    assert_eq!(back.vertices[0].weights, [0.75, 0.25, 0.0]);
    assert_eq!(back.vertices[1..], original.vertices[1..]);
}

/// A scene with two meshes, one static under a joint with a transform, one skinned: one SKM
/// mesh, the static part moved and bound to the joint above it.
#[test]
fn meshes_are_merged_and_static_parts_follow_their_bone() {
    let mut scene = one_triangle_scene("root", 2, 1);
    scene.meshes.push(scene.meshes[0].clone());
    scene.meshes[1].vertices.joints = None;
    scene.meshes[1].vertices.weights = None;
    scene.nodes[1].children.push(3);
    scene.nodes.push(scene::Node {
        name: "prop".into(),
        mesh: Some(1),
        transform: scene::Transform::Trs {
            translation: [0.0, 0.0, 2.0],
            rotation: [0.0, 0.0, 0.0, 1.0],
            scale: [1.0; 3],
        },
        ..Default::default()
    });
    let (doc, warnings) = import(scene, None, &ImportOptions::default());
    assert_eq!(doc.triangles.len(), 2);
    assert_eq!(doc.vertices.len(), 6);
    assert_eq!(doc.vertices[3].position, [0.0, 0.0, -2.0]);
    assert_eq!(doc.vertices[3].palette()[3], 1);
    assert!(
        warnings.iter().any(|w| w.contains("2 meshes merged")),
        "{warnings:?}"
    );
    Skm::from_bytes(&doc.to_bytes().unwrap()).unwrap();
}

#[test]
fn a_scene_without_triangles_is_refused() {
    let err = Document::import_scene(
        Format::Skm,
        Scene::default(),
        None,
        &ImportOptions::default(),
    )
    .unwrap_err();
    assert!(
        matches!(
            err,
            models::Error::FormatLimit {
                format: Format::Skm,
                ..
            }
        ),
        "{err}"
    );
}

/// Whatever `read_glb` makes of damaged bytes, the import gives a document the writer takes,
/// or an error; never a panic.
#[test]
fn damaged_gltf_never_panics_the_import() {
    let doc = Document::Skm(odd_document());
    let scene = Scene::from_document(&doc).unwrap().scene;
    let glb = gltf::to_glb(&scene::validate(scene).scene, &GltfOptions::default()).unwrap();
    let mut imported = 0;
    let mut try_bytes = |bytes: &[u8]| {
        if let Ok(read) = gltf::read_glb(bytes) {
            let valid = scene::validate(read.scene).scene;
            for base in [None, Some(&doc)] {
                if let Ok(out) =
                    Document::from_scene(Format::Skm, &valid, base, &ImportOptions::default())
                {
                    let skm = skm_of(out.document);
                    skm::Skm::from_bytes(&skm.to_bytes().unwrap()).unwrap();
                    imported += 1;
                }
            }
        }
    };
    for cut in (0..glb.len()).step_by(11) {
        try_bytes(&glb[..cut]);
    }
    for at in (0..glb.len()).step_by(5) {
        for x in [0x01u8, 0x20, 0x80] {
            let mut b = glb.clone();
            b[at] ^= x;
            try_bytes(&b);
        }
    }
    assert!(imported > 0);
}

/// A mesh whose kept words pass 1 KiB keeps them as blobs (buffer views named in the extras,
/// issue 18) and still comes back equal through a `.glb`.
#[test]
fn kept_words_of_a_larger_mesh_come_back_through_buffer_views() {
    let g = large_models::geometry::tori(1, 16, 8, 0.0);
    let mut original = Skm::from_bytes(&large_models::skm::static_from(&g).unwrap()).unwrap();
    original.adjacency[0] = [7, 4_294_967_294, 0];
    original.vertices[1].normal = [0.0, 2.0, 0.0];
    original.vertices[3].weights = [0.25, 0.25, 0.25];
    let valid = common::through_glb(&Document::Skm(original.clone()));
    let extras = &valid.meshes.first().expect("one mesh").extras;
    for key in ["skm_adjacency", "skm_normals", "skm_blend"] {
        let view = extras[key].get("bufferView");
        assert!(view.is_some_and(|v| v.is_u64()), "{key}: {}", extras[key]);
    }
    let (back, _) = through_glb(&original, None);
    assert_same("tori", &back, &original);
}
