//! The glTF writer on hand-built scenes: read back with the `gltf` crate, repairs of invalid
//! data, texture references and embedding, the .gltf + .bin layout and safe output.

use models::gltf::{self, GltfOptions};
use models::output::Overwrite;
use models::scene::*;
use serde_json::json;

fn read(glb: &[u8]) -> (::gltf::Document, Vec<u8>) {
    let g = ::gltf::Gltf::from_slice(glb).expect("the gltf crate reads the GLB");
    let blob = g.blob.clone().unwrap_or_default();
    (g.document, blob)
}

fn warnings_of(scene: &Scene, options: &GltfOptions) -> (Vec<u8>, Vec<String>) {
    // Validation's repairs, then the writer's own warnings, as the CLI prints them.
    let valid = validate(scene.clone());
    let (glb, w) = gltf::to_glb_with_warnings(&valid.scene, options).unwrap();
    (
        glb.into_vec(),
        valid
            .warnings
            .into_iter()
            .chain(w)
            .map(|w| w.to_string())
            .collect(),
    )
}

/// A `.glb` of 32 MiB or more: `to_glb` writes it into a mapping on Linux (a vector
/// elsewhere, and always inside `heap_only`), with the same bytes as `to_glb_into` writes into
/// a vector.
#[test]
fn a_large_glb_is_the_same_bytes_mapped_or_not() {
    let n = 3_000_000u32;
    let positions: Vec<[f32; 3]> = (0..n).map(|i| [i as f32, (i % 7) as f32, 1.0]).collect();
    let scene = Scene {
        meshes: vec![Mesh {
            vertices: Vertices {
                positions: positions.into(),
                ..Vertices::default()
            },
            primitives: vec![Primitive {
                indices: (0..n).collect::<Vec<u32>>().into(),
                material: None,
            }],
            ..Mesh::default()
        }],
        nodes: vec![Node {
            mesh: Some(0),
            ..Node::default()
        }],
        roots: vec![0],
        ..Scene::default()
    };
    let valid = validate(scene).scene;
    let options = GltfOptions::default();
    let mut expected = Vec::new();
    gltf::to_glb_into(&valid, &options, &mut expected).unwrap();
    assert!(expected.len() >= 32 << 20, "{} bytes", expected.len());
    let glb = gltf::to_glb(&valid, &options).unwrap();
    assert_eq!(glb.is_mapped(), cfg!(target_os = "linux"));
    assert!(glb == expected, "the mapped .glb differs from the vector's");
    let heap = models::bytes::heap_only(|| gltf::to_glb(&valid, &options).unwrap());
    assert!(!heap.is_mapped());
    assert!(heap == glb, "the heap .glb differs");
    let (doc, blob) = read(&glb);
    assert_eq!(doc.accessors().next().map(|a| a.count()), Some(n as usize));
    assert_eq!(blob.len() + 20 + 8, glb.len() - json_chunk_len(&glb));
}

/// `to_gltf`: the same document as the `.glb` with its buffer at the given URI
/// (percent-encoded), and the `.glb`'s buffer as the `.bin`; `Gltf::to_gltf` gives the same.
#[test]
fn to_gltf_gives_the_glb_buffer_and_its_uri() {
    let valid = validate(skinned_quad()).scene;
    let options = GltfOptions::default();
    let (json, bin) = gltf::to_gltf(&valid, &options, "my model.bin").unwrap();
    let root: serde_json::Value = serde_json::from_str(&json).unwrap();
    assert_eq!(root["buffers"][0]["uri"], "my%20model.bin");
    assert_eq!(root["buffers"][0]["byteLength"], bin.len());
    let (_, blob) = read(&gltf::to_glb(&valid, &options).unwrap());
    assert!(!bin.is_empty());
    assert_eq!(bin, blob);
    let document = gltf::Gltf::from_scene(&valid, &options).unwrap();
    assert_eq!(
        document.to_gltf("my model.bin").unwrap(),
        (json, bin),
        "the borrowing form"
    );
}

/// The JSON chunk's length field of a `.glb` (bytes 12..16).
fn json_chunk_len(glb: &[u8]) -> usize {
    u32::from_le_bytes(glb[12..16].try_into().unwrap()) as usize
}

/// `cargo xtask validate-gltf` sets `MODELS_GLTF_DUMP_DIR` to run the Khronos validator on
/// what these tests write, repaired data included.
fn dump(name: &str, glb: &[u8]) {
    if let Some(dir) = std::env::var_os("MODELS_GLTF_DUMP_DIR") {
        let dir = std::path::PathBuf::from(dir);
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(dir.join(format!("{name}.glb")), glb).unwrap();
    }
}

/// A scene of one node drawing one mesh of `vertices` and one untextured triangle list.
fn one_triangle_list(vertices: Vertices, indices: Vec<u32>) -> Scene {
    Scene {
        nodes: vec![Node {
            mesh: Some(0),
            ..Node::default()
        }],
        roots: vec![0],
        meshes: vec![Mesh {
            vertices,
            primitives: vec![Primitive {
                indices: indices.into(),
                material: None,
            }],
            ..Mesh::default()
        }],
        ..Scene::default()
    }
}

/// A two-joint skinned, animated, textured quad.
fn skinned_quad() -> Scene {
    let mut extras = serde_json::Map::new();
    extras.insert("source".into(), json!("test"));
    Scene {
        name: "quad".into(),
        nodes: vec![
            Node {
                name: "mesh".into(),
                mesh: Some(0),
                skin: Some(0),
                ..Node::default()
            },
            Node {
                name: "root".into(),
                children: vec![2],
                ..Node::default()
            },
            Node {
                name: "tip".into(),
                transform: Transform::Trs {
                    translation: [0.0, 1.0, 0.0],
                    rotation: [0.0, 0.0, 0.0, 1.0],
                    scale: [1.0; 3],
                },
                ..Node::default()
            },
        ],
        roots: vec![0, 1],
        meshes: vec![Mesh {
            name: "quad".into(),
            vertices: Vertices {
                positions: vec![
                    [-1.0, 0.0, 0.0],
                    [1.0, 0.0, 0.0],
                    [1.0, 2.0, 0.5],
                    [-1.0, 2.0, -0.5],
                ]
                .into(),
                normals: Some(vec![[0.0, 0.0, 2.0]; 4].into()),
                uv0: Some(vec![[0.0, 1.0], [1.0, 1.0], [1.0, 0.0], [0.0, 0.0]].into()),
                joints: Some(vec![[0, 0, 0, 0], [0, 1, 0, 0], [1, 0, 0, 0], [1, 1, 0, 0]].into()),
                weights: Some(
                    vec![
                        [1.0, 0.0, 0.0, 0.0],
                        [0.5, 0.5, 0.0, 0.0],
                        [1.0, 0.0, 0.0, 0.0],
                        [0.3, 0.3, 0.0, 0.0],
                    ]
                    .into(),
                ),
                ..Vertices::default()
            },
            primitives: vec![Primitive {
                indices: vec![0, 1, 2, 0, 2, 3].into(),
                material: Some(0),
            }],
            extras: extras.clone(),
        }],
        materials: vec![Material {
            name: "skin".into(),
            base_color: [0.5, 0.25, 1.0, 1.0],
            specular: Some(([1.0; 4], 20.0)),
            color_texture: Some(r"tex\skin.png".into()),
            light_map: Some("light.bmp".into()),
            alpha_mode: AlphaMode::Mask,
            alpha_cutoff: Some(0.25),
            ..Material::default()
        }],
        skins: vec![Skin {
            name: "arm".into(),
            joints: vec![1, 2],
            inverse_bind_matrices: vec![
                IDENTITY,
                compose([0.0, -1.0, 0.0], [0.0, 0.0, 0.0, 1.0], [1.0; 3]),
            ],
            skeleton: Some(1),
        }],
        animations: vec![Animation {
            name: "bend".into(),
            channels: vec![
                Channel {
                    node: 2,
                    path: ChannelPath::Rotation,
                    interpolation: Interpolation::Linear,
                    times: vec![0.0, 0.5, 1.25].into(),
                    values: [[0.0, 0.0, 0.0, 1.0], axis_quat(2, 0.5), axis_quat(2, 1.0)]
                        .concat()
                        .into(),
                },
                Channel {
                    node: 1,
                    path: ChannelPath::Translation,
                    interpolation: Interpolation::Step,
                    times: vec![0.0, 0.5, 1.25].into(),
                    values: vec![0.0; 9].into(),
                },
            ],
            extras: serde_json::Map::new(),
        }],
        extras,
        blobs: Vec::new(),
    }
}

#[test]
fn an_empty_scene_is_a_valid_glb() {
    let glb = gltf::to_glb(
        &models::scene::validate(Scene::default().clone()).scene,
        &GltfOptions::default(),
    )
    .unwrap();
    dump("empty_scene", &glb);
    assert_eq!(&glb[..4], b"glTF");
    assert_eq!(glb.len() % 4, 0);
    let (doc, blob) = read(&glb);
    assert_eq!(doc.scenes().count(), 1);
    assert_eq!(doc.buffers().count(), 0, "no zero-length buffer");
    assert!(blob.is_empty());
    let json: serde_json::Value = serde_json::from_slice(
        &glb[20..20 + u32::from_le_bytes(glb[12..16].try_into().unwrap()) as usize],
    )
    .unwrap();
    // No empty arrays anywhere (the validator rejects them).
    // One scene with one empty node: readers such as the gltf crate require `scene.nodes`.
    assert_eq!(json["scenes"], json!([{ "nodes": [0] }]));
    assert_eq!(json["nodes"], json!([{ "name": "empty" }]));
    assert!(json.get("meshes").is_none() && json.get("accessors").is_none());
}

#[test]
fn a_skinned_animated_scene_reads_back_with_its_figures() {
    let scene = skinned_quad();
    let (glb, warnings) = warnings_of(&scene, &GltfOptions::default());
    dump("skinned_quad", &glb);
    let (doc, blob) = read(&glb);
    let buffers = |_: ::gltf::Buffer<'_>| Some(blob.as_slice());

    assert_eq!(doc.scenes().count(), 1);
    assert_eq!(
        doc.default_scene()
            .unwrap()
            .nodes()
            .map(|n| n.index())
            .collect::<Vec<_>>(),
        [0, 1]
    );
    assert_eq!(doc.materials().count(), 1);
    let mesh = doc.meshes().next().unwrap();
    let prim = mesh.primitives().next().unwrap();
    let reader = prim.reader(buffers);
    let positions: Vec<[f32; 3]> = reader.read_positions().unwrap().collect();
    assert_eq!(positions, scene.meshes[0].vertices.positions);
    let pos = prim.get(&::gltf::Semantic::Positions).unwrap();
    assert_eq!(pos.min(), Some(json!([-1.0, 0.0, -0.5])));
    assert_eq!(pos.max(), Some(json!([1.0, 2.0, 0.5])));
    // Normals renormalised.
    assert!(reader.read_normals().unwrap().all(|n| n == [0.0, 0.0, 1.0]));
    // u16 indices for a small mesh.
    assert!(matches!(
        reader.read_indices(),
        Some(::gltf::mesh::util::ReadIndices::U16(_))
    ));
    assert_eq!(reader.read_indices().unwrap().into_u32().count(), 6);
    // Joints as u8, weights renormalised (the last vertex summed to 0.6), zero-weight joints 0.
    assert!(matches!(
        reader.read_joints(0),
        Some(::gltf::mesh::util::ReadJoints::U8(_))
    ));
    let joints: Vec<[u16; 4]> = reader.read_joints(0).unwrap().into_u16().collect();
    assert_eq!(
        joints,
        [[0, 0, 0, 0], [0, 1, 0, 0], [1, 0, 0, 0], [1, 0, 0, 0]]
    );
    let weights: Vec<[f32; 4]> = reader.read_weights(0).unwrap().into_f32().collect();
    assert_eq!(
        weights[3],
        [1.0, 0.0, 0.0, 0.0],
        "two entries on joint 1 are merged"
    );
    for w in &weights {
        assert!((w.iter().sum::<f32>() - 1.0).abs() < 1e-6, "{w:?}");
    }
    assert!(
        warnings.iter().any(|w| w.contains("repeated joints")),
        "{warnings:?}"
    );

    // Skin.
    let skin = doc.skins().next().unwrap();
    assert_eq!(skin.joints().map(|j| j.index()).collect::<Vec<_>>(), [1, 2]);
    assert_eq!(skin.skeleton().map(|s| s.index()), Some(1));
    let ibm: Vec<[[f32; 4]; 4]> = skin
        .reader(buffers)
        .read_inverse_bind_matrices()
        .unwrap()
        .collect();
    assert_eq!(ibm[1][3], [0.0, -1.0, 0.0, 1.0]);
    assert_eq!(
        doc.nodes().next().unwrap().skin().map(|s| s.index()),
        Some(0)
    );

    // Animation: two channels sharing one input accessor, with min/max.
    let anim = doc.animations().next().unwrap();
    assert_eq!(anim.channels().count(), 2);
    let samplers: Vec<_> = anim.samplers().collect();
    assert_eq!(samplers[0].input().index(), samplers[1].input().index());
    assert_eq!(samplers[0].input().max(), Some(json!([1.25])));
    assert_eq!(samplers[0].input().min(), Some(json!([0.0])));
    assert_eq!(
        samplers[1].interpolation(),
        ::gltf::animation::Interpolation::Step
    );
    let inputs: Vec<f32> = anim
        .channels()
        .next()
        .unwrap()
        .reader(buffers)
        .read_inputs()
        .unwrap()
        .collect();
    assert_eq!(inputs, [0.0, 0.5, 1.25]);

    // Material: factors, alpha, relative URI with forward slashes, extras.
    let mat = doc.materials().next().unwrap();
    assert_eq!(
        mat.pbr_metallic_roughness().base_color_factor(),
        [0.5, 0.25, 1.0, 1.0]
    );
    assert_eq!(mat.pbr_metallic_roughness().metallic_factor(), 0.0);
    assert_eq!(mat.alpha_mode(), ::gltf::material::AlphaMode::Mask);
    assert_eq!(mat.alpha_cutoff(), Some(0.25));
    let tex = mat.pbr_metallic_roughness().base_color_texture().unwrap();
    match tex.texture().source().source() {
        ::gltf::image::Source::Uri { uri, .. } => assert_eq!(uri, "tex/skin.png"),
        other => panic!("{other:?}"),
    }
    let extras: serde_json::Value =
        serde_json::from_str(mat.extras().as_ref().unwrap().get()).unwrap();
    assert_eq!(extras["specularPower"], json!(20.0));
    assert_eq!(extras["lightMap"], json!("light.bmp"));
    let mesh_extras = mesh.extras().as_ref().unwrap().get();
    assert_eq!(mesh_extras, r#"{"source":"test"}"#);

    // Buffer views: 4-aligned, targets on vertex and index data only.
    for view in doc.views() {
        assert_eq!(view.offset() % 4, 0);
        assert!(view.stride().is_none());
    }
    let targets: Vec<_> = doc.views().map(|v| v.target()).collect();
    assert!(targets.contains(&Some(::gltf::buffer::Target::ElementArrayBuffer)));
    assert!(
        targets.contains(&None),
        "IBM and animation views have no target"
    );
}

/// Channels' times are written once per distinct list within an animation, whatever the
/// order the lists come in (A, B, A: the third channel reuses the first's accessor, not the
/// second's), and every sampler reads back its own times.
#[test]
fn key_times_are_shared_by_content_within_an_animation() {
    let mut scene = skinned_quad();
    let a = [0.0, 0.5, 1.25];
    let b = [0.0, 0.25, 1.25];
    let channel = |node: usize, path: ChannelPath, times: [f32; 3]| Channel {
        node,
        path,
        interpolation: Interpolation::Linear,
        times: times.to_vec().into(),
        values: match path {
            ChannelPath::Rotation => [[0.0, 0.0, 0.0, 1.0]; 3].concat(),
            _ => vec![0.0; 9],
        }
        .into(),
    };
    scene.animations = vec![
        Animation {
            name: "first".into(),
            channels: vec![
                channel(1, ChannelPath::Translation, a),
                channel(2, ChannelPath::Translation, b),
                channel(2, ChannelPath::Rotation, a),
                channel(1, ChannelPath::Rotation, b),
            ],
            extras: serde_json::Map::new(),
        },
        Animation {
            name: "second".into(),
            channels: vec![channel(1, ChannelPath::Scale, b)],
            extras: serde_json::Map::new(),
        },
    ];
    let (glb, warnings) = warnings_of(&scene, &GltfOptions::default());
    // The quad's own repairs (its normals and weights) only: every channel is kept.
    assert!(
        !warnings.iter().any(|w| w.contains("animation")),
        "{warnings:?}"
    );
    let (doc, blob) = read(&glb);
    let animations: Vec<_> = doc.animations().collect();
    let inputs: Vec<usize> = animations[0]
        .samplers()
        .map(|s| s.input().index())
        .collect();
    assert_eq!(inputs[0], inputs[2], "{inputs:?}");
    assert_eq!(inputs[1], inputs[3], "{inputs:?}");
    assert_ne!(inputs[0], inputs[1], "{inputs:?}");
    // Times are shared within an animation only: the second has an accessor of its own.
    let second = animations[1].samplers().next().unwrap().input().index();
    assert!(!inputs.contains(&second), "{inputs:?} and {second}");
    let expected = [a, b, a, b];
    for (anim, want) in animations
        .iter()
        .flat_map(|x| x.channels())
        .zip(expected.iter().chain([&b]))
    {
        let times: Vec<f32> = anim
            .reader(|_| Some(blob.as_slice()))
            .read_inputs()
            .unwrap()
            .collect();
        assert_eq!(times, want.to_vec());
    }
}

/// `to_glb_into` writes `to_glb`'s bytes and warnings into a vector that held another,
/// longer export before (cleared, not appended to).
#[test]
fn to_glb_into_reuses_the_vector() {
    let big = validate(skinned_quad()).scene;
    let small = validate(Scene::default()).scene;
    let options = GltfOptions::default();
    let mut out = Vec::new();
    let w = gltf::to_glb_into(&big, &options, &mut out).unwrap();
    let (glb, warnings) = gltf::to_glb_with_warnings(&big, &options).unwrap();
    assert_eq!((out.clone(), w), (glb.into_vec(), warnings));
    let before = out.capacity();
    gltf::to_glb_into(&small, &options, &mut out).unwrap();
    assert_eq!(out, gltf::to_glb(&small, &options).unwrap());
    assert!(out.len() < before && out.capacity() == before);
}

#[test]
fn index_type_follows_the_vertex_count() {
    let n = 70_000usize;
    let scene = one_triangle_list(
        Vertices {
            positions: (0..n).map(|i| [i as f32, 0.0, (i % 7) as f32]).collect(),
            ..Vertices::default()
        },
        vec![0, 1, 69_999],
    );
    let glb = gltf::to_glb(
        &models::scene::validate(scene.clone()).scene,
        &GltfOptions::default(),
    )
    .unwrap();
    dump("u32_indices", &glb);
    let (doc, blob) = read(&glb);
    let prim = doc.meshes().next().unwrap().primitives().next().unwrap();
    let reader = prim.reader(|_| Some(blob.as_slice()));
    assert!(matches!(
        reader.read_indices(),
        Some(::gltf::mesh::util::ReadIndices::U32(_))
    ));
    assert_eq!(
        reader
            .read_indices()
            .unwrap()
            .into_u32()
            .collect::<Vec<_>>(),
        [0, 1, 69_999]
    );
}

#[test]
fn invalid_data_is_repaired_and_reported() {
    let mut scene = skinned_quad();
    {
        let v = &mut scene.meshes[0].vertices;
        v.positions[1][0] = f32::NAN;
        v.normals.as_mut().unwrap()[2] = [0.0; 3];
        v.tangents = Some(vec![[1.0, 0.0, 0.0, 1.0]; 3].into()); // wrong length
        v.weights.as_mut().unwrap()[0] = [0.0; 4];
    }
    scene.meshes[0].primitives[0].indices.extend([0, 1, 9, 0]); // a bad triangle and a stray index
    scene.nodes[1].children.push(1); // a cycle onto itself
    scene.nodes[2].children.push(1); // ... and through node 2
    scene.animations[0].channels[0].times = vec![0.0, 0.0, 1.0].into();
    scene.skins[0].inverse_bind_matrices[0][11] = -0.0; // left by a z mirror: valid
    scene.skins[0].inverse_bind_matrices[1][15] = 2.0; // projective: invalid
    let dup = scene.animations[0].channels[1].clone();
    scene.animations[0].channels.push(dup); // duplicate target
    scene.animations.push(Animation {
        name: "empty".into(),
        ..Animation::default()
    });
    let (glb, warnings) = warnings_of(&scene, &GltfOptions::default());
    dump("repaired", &glb);
    let all = warnings.join("\n");
    for needle in [
        "non-finite coordinates",
        "normals were zero",
        "3 tangents for 4 vertices",
        "not a multiple of 3",
        "refer to vertices beyond",
        "bound fully to joint 0",
        "non-increasing time",
        "already animated",
        "cannot hold an empty animation",
        "1 inverse bind matrices were not affine",
    ] {
        assert!(
            all.contains(needle),
            "no warning about {needle:?} in:\n{all}"
        );
    }
    let (doc, blob) = read(&glb);
    let prim = doc.meshes().next().unwrap().primitives().next().unwrap();
    let reader = prim.reader(|_| Some(blob.as_slice()));
    assert_eq!(reader.read_indices().unwrap().into_u32().count(), 6);
    assert!(reader.read_tangents().is_none());
    assert_eq!(reader.read_normals().unwrap().nth(2), Some([0.0, 1.0, 0.0]));
    assert_eq!(doc.animations().count(), 1);
    assert_eq!(doc.animations().next().unwrap().channels().count(), 2);
    // The hierarchy is a forest again: node 1 is nobody's child.
    assert!(doc.nodes().all(|n| n.children().all(|c| c.index() != 1)));
}

#[test]
fn tangents_without_normals_are_dropped_and_uv_is_added_for_textures() {
    let mut scene = skinned_quad();
    let v = &mut scene.meshes[0].vertices;
    v.normals = None;
    v.uv0 = None;
    v.tangents = Some(vec![[1.0, 0.0, 0.0, 1.0]; 4].into());
    let (glb, warnings) = warnings_of(&scene, &GltfOptions::default());
    dump("tangents_dropped_uv_added", &glb);
    assert!(warnings
        .iter()
        .any(|w| w.contains("tangents without normals")));
    assert!(warnings
        .iter()
        .any(|w| w.contains("TEXCOORD_0 written as zeros")));
    let (doc, blob) = read(&glb);
    let prim = doc.meshes().next().unwrap().primitives().next().unwrap();
    let reader = prim.reader(|_| Some(blob.as_slice()));
    assert!(reader.read_tangents().is_none());
    assert_eq!(reader.read_tex_coords(0).unwrap().into_f32().count(), 4);
}

#[test]
fn joints_spread_over_two_trees_get_a_common_root() {
    let mut scene = skinned_quad();
    scene.nodes[1].children.clear();
    scene.roots = vec![0, 1, 2];
    scene.skins[0].skeleton = None;
    let (glb, warnings) = warnings_of(&scene, &GltfOptions::default());
    dump("common_root_added", &glb);
    assert!(
        warnings.iter().any(|w| w.contains("common root")),
        "{warnings:?}"
    );
    let (doc, _) = read(&glb);
    assert_eq!(doc.nodes().count(), 4);
    let roots: Vec<usize> = doc
        .default_scene()
        .unwrap()
        .nodes()
        .map(|n| n.index())
        .collect();
    assert_eq!(roots, [0, 3]);
    let added = doc.nodes().nth(3).unwrap();
    assert_eq!(
        added.children().map(|c| c.index()).collect::<Vec<_>>(),
        [1, 2]
    );
}

fn write_png(path: &std::path::Path) {
    let img = image::RgbaImage::from_pixel(2, 2, image::Rgba([255, 0, 0, 255]));
    img.save_with_format(path, image::ImageFormat::Png).unwrap();
}

#[test]
fn embedded_textures_convert_tga_and_refuse_escaping_paths() {
    let dir = tempfile::tempdir().unwrap();
    let models_dir = dir.path().join("models");
    std::fs::create_dir_all(models_dir.join("tex")).unwrap();
    write_png(&dir.path().join("outside.png"));
    // A TGA beside the model, named with a backslash and in another case.
    let tga = image::RgbImage::from_pixel(3, 1, image::Rgb([0, 255, 0]));
    tga.save_with_format(models_dir.join("tex/Crate.tga"), image::ImageFormat::Tga)
        .unwrap();
    std::fs::write(models_dir.join("broken.bmp"), b"BM not really").unwrap();

    let mut scene = skinned_quad();
    scene.materials = vec![
        Material {
            color_texture: Some(r"tex\crate.TGA".into()),
            ..Material::default()
        },
        Material {
            color_texture: Some("../outside.png".into()),
            ..Material::default()
        },
        Material {
            color_texture: Some("missing.png".into()),
            normal_texture: Some("broken.bmp".into()),
            ..Material::default()
        },
    ];
    let options = GltfOptions {
        embed_textures: true,
        ..GltfOptions::for_source(models_dir.join("model.bmf"))
    };
    let (glb, warnings) = warnings_of(&scene, &options);
    dump("embedded_tga", &glb);
    let all = warnings.join("\n");
    assert!(all.contains("leads out of the input's folder"), "{all}");
    assert!(
        all.contains("1 texture file(s) not found beside the model (kept in the materials' extras): \"missing.png\""),
        "{all}"
    );
    assert!(all.contains("cannot decode"), "{all}");
    let (doc, blob) = read(&glb);
    assert_eq!(doc.materials().count(), 3);
    assert_eq!(doc.images().count(), 1, "only the TGA is embedded");
    let image = doc.images().next().unwrap();
    let ::gltf::image::Source::View { view, mime_type } = image.source() else {
        panic!("not embedded")
    };
    assert_eq!(mime_type, "image/png");
    let png = &blob[view.offset()..view.offset() + view.length()];
    let decoded = image::load_from_memory_with_format(png, image::ImageFormat::Png).unwrap();
    assert_eq!((decoded.width(), decoded.height()), (3, 1));
    assert_eq!(decoded.to_rgb8().get_pixel(2, 0).0, [0, 255, 0]);
    // The refused path is kept in the material's extras.
    let extras = doc
        .materials()
        .nth(1)
        .unwrap()
        .extras()
        .as_ref()
        .unwrap()
        .get()
        .to_owned();
    assert!(extras.contains("../outside.png"), "{extras}");

    // Allowed: the outside PNG is embedded as is.
    let options = GltfOptions {
        allow_outside_textures: true,
        ..options
    };
    let (glb, _) = warnings_of(&scene, &options);
    let (doc, _) = read(&glb);
    assert_eq!(doc.images().count(), 2);
}

/// A 4×4 DXT1 (BC1) DDS whose pixels are all blue: the smallest real DDS, hand-built
/// because the `image` crate decodes DDS but cannot write it.
fn blue_dds() -> Vec<u8> {
    let mut dds = b"DDS ".to_vec();
    let header: [u32; 31] = [
        124,     // header size
        0x81007, // CAPS | HEIGHT | WIDTH | PIXELFORMAT | LINEARSIZE
        4,       // height
        4,       // width
        8,       // linear size: one 8-byte block
        0,       // depth
        0,       // mip maps
        0,
        0,
        0,
        0,
        0,
        0,
        0,
        0,
        0,
        0,
        0,   // reserved
        32,  // pixel format size
        0x4, // FOURCC
        u32::from_le_bytes(*b"DXT1"),
        0,
        0,
        0,
        0,
        0,      // bit count and masks
        0x1000, // TEXTURE
        0,
        0,
        0,
        0, // caps 2..4, reserved
    ];
    for v in header {
        dds.extend_from_slice(&v.to_le_bytes());
    }
    // colour0 = pure blue (RGB565), colour1 = black, every index 0.
    dds.extend_from_slice(&[0x1F, 0x00, 0x00, 0x00, 0, 0, 0, 0]);
    dds
}

#[test]
fn embedded_textures_convert_dds_to_png() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(dir.path().join("tex")).unwrap();
    std::fs::write(dir.path().join("tex/sky.dds"), blue_dds()).unwrap();
    let mut scene = skinned_quad();
    scene.materials = vec![Material {
        color_texture: Some(r"tex\sky.dds".into()),
        ..Material::default()
    }];
    let options = GltfOptions {
        embed_textures: true,
        ..GltfOptions::for_source(dir.path().join("model.smf"))
    };
    let (glb, warnings) = warnings_of(&scene, &options);
    // (skinned_quad's own skin warnings aside)
    assert!(
        !warnings
            .iter()
            .any(|w| w.contains("decode") || w.contains("cannot read") || w.contains("sky")),
        "{warnings:?}"
    );
    let (doc, blob) = read(&glb);
    assert_eq!(doc.images().count(), 1);
    let ::gltf::image::Source::View { view, mime_type } = doc.images().next().unwrap().source()
    else {
        panic!("not embedded")
    };
    assert_eq!(mime_type, "image/png");
    let png = &blob[view.offset()..view.offset() + view.length()];
    let decoded = image::load_from_memory_with_format(png, image::ImageFormat::Png).unwrap();
    assert_eq!((decoded.width(), decoded.height()), (4, 4));
    assert_eq!(decoded.to_rgb8().get_pixel(3, 3).0, [0, 0, 255]);
}

#[test]
fn gltf_and_bin_are_written_together_and_never_clobber() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("quad model.gltf");
    let scene = skinned_quad();
    gltf::write_file(
        &models::scene::validate(scene.clone()).scene,
        &out,
        &GltfOptions::default(),
        Overwrite::Never,
    )
    .unwrap();
    let bin = dir.path().join("quad model.bin");
    assert!(bin.is_file());
    let json: serde_json::Value = serde_json::from_slice(&std::fs::read(&out).unwrap()).unwrap();
    assert_eq!(json["buffers"][0]["uri"], json!("quad%20model.bin"));
    assert_eq!(
        json["buffers"][0]["byteLength"],
        json!(std::fs::metadata(&bin).unwrap().len())
    );
    // The gltf crate reads it with its .bin.
    let doc = ::gltf::Gltf::from_slice(&std::fs::read(&out).unwrap())
        .unwrap()
        .document;
    let bytes = std::fs::read(&bin).unwrap();
    let prim = doc.meshes().next().unwrap().primitives().next().unwrap();
    let positions: Vec<[f32; 3]> = prim
        .reader(|_| Some(bytes.as_slice()))
        .read_positions()
        .unwrap()
        .collect();
    assert_eq!(positions, scene.meshes[0].vertices.positions);

    // Only the .bin exists: still refused, and the .gltf is not written.
    std::fs::remove_file(&out).unwrap();
    let err = gltf::write_file(
        &models::scene::validate(scene.clone()).scene,
        &out,
        &GltfOptions::default(),
        Overwrite::Never,
    )
    .unwrap_err();
    assert!(err.to_string().contains("already exists"), "{err}");
    assert!(!out.exists());
    gltf::write_file(
        &models::scene::validate(scene.clone()).scene,
        &out,
        &GltfOptions::default(),
        Overwrite::Allowed,
    )
    .unwrap();
    assert!(out.exists());

    // Never onto the source, never an unknown extension.
    let src = dir.path().join("model.glb");
    std::fs::write(&src, b"source").unwrap();
    let err = gltf::write_file(
        &models::scene::validate(scene.clone()).scene,
        &src,
        &GltfOptions::for_source(&src),
        Overwrite::Allowed,
    )
    .unwrap_err();
    assert!(err.to_string().contains("is the input file"), "{err}");
    assert_eq!(std::fs::read(&src).unwrap(), b"source");
    assert!(gltf::write_file(
        &models::scene::validate(scene.clone()).scene,
        &dir.path().join("x.obj"),
        &GltfOptions::default(),
        Overwrite::Never
    )
    .is_err());
}

#[test]
fn a_normal_map_gets_generated_tangents() {
    let mut scene = skinned_quad();
    scene.materials[0].normal_texture = Some("normal.png".into());
    let (glb, _) = warnings_of(&scene, &GltfOptions::default());
    dump("generated_tangents", &glb);
    let (doc, blob) = read(&glb);
    let prim = doc.meshes().next().unwrap().primitives().next().unwrap();
    let reader = prim.reader(|_| Some(blob.as_slice()));
    let tangents: Vec<[f32; 4]> = reader.read_tangents().expect("generated").collect();
    assert_eq!(tangents.len(), 4);
    for t in tangents {
        // u grows with x and v downwards: the glTF convention for this layout is w = +1.
        assert!(
            (t[0] - 1.0).abs() < 1e-5 && t[1].abs() < 1e-5 && t[2].abs() < 1e-5,
            "{t:?}"
        );
        assert_eq!(t[3], 1.0, "{t:?}");
    }
    // Without a normal map, nothing is generated.
    let (glb, _) = warnings_of(&skinned_quad(), &GltfOptions::default());
    let (doc, blob) = read(&glb);
    let prim = doc.meshes().next().unwrap().primitives().next().unwrap();
    assert!(prim
        .reader(|_| Some(blob.as_slice()))
        .read_tangents()
        .is_none());
}

/// Issue 12: one file named by many spellings is embedded once; an image is embedded only
/// when it decodes within the bounds; a name that is no file never becomes a URI.
#[test]
fn each_texture_file_is_embedded_once_and_only_when_it_decodes() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(dir.path().join("Tex")).unwrap();
    write_png(&dir.path().join("Tex/A.png"));
    // PNG and JPEG magic bytes followed by garbage; a PNG header claiming 20 000 × 20 000.
    std::fs::write(dir.path().join("fake.png"), b"\x89PNG\r\n\x1a\ngarbage").unwrap();
    std::fs::write(dir.path().join("fake.jpg"), b"\xFF\xD8\xFFgarbage").unwrap();
    let mut huge = std::fs::read(dir.path().join("Tex/A.png")).unwrap();
    huge[16..20].copy_from_slice(&20_000u32.to_be_bytes());
    huge[20..24].copy_from_slice(&20_000u32.to_be_bytes());
    std::fs::write(dir.path().join("huge.png"), huge).unwrap();

    let spellings = [
        "Tex/A.png",
        "./Tex/A.png",
        r"tex\a.PNG",
        r".\TEX\.\A.png",
        "x/../tex/a.png",
        "Tex//A.png",
    ];
    let mut scene = skinned_quad();
    scene.materials = spellings
        .iter()
        .chain(&["fake.png", "fake.jpg", "huge.png", "..", "Tex"])
        .map(|p| Material {
            color_texture: Some((*p).into()),
            ..Material::default()
        })
        .collect();
    let options = GltfOptions {
        embed_textures: true,
        ..GltfOptions::for_source(dir.path().join("model.elem"))
    };
    let (glb, warnings) = warnings_of(&scene, &options);
    let all = warnings.join("\n");
    let (doc, _) = read(&glb);
    assert_eq!(doc.images().count(), 1, "{all}");
    assert_eq!(doc.textures().count(), 1);
    for (i, m) in doc.materials().enumerate().take(spellings.len()) {
        let info = m.pbr_metallic_roughness().base_color_texture();
        assert_eq!(info.map(|t| t.texture().index()), Some(0), "material {i}");
    }
    for name in ["fake.png", "fake.jpg", "huge.png"] {
        assert!(
            all.lines()
                .any(|l| l.contains(name) && l.contains("cannot decode")),
            "{name}: {all}"
        );
    }
    assert!(all.contains("names no file"), "{all}");
    assert!(all.contains("not a regular file"), "{all}");
    // The refused ones keep their reference in the material's extras.
    let extras = doc
        .materials()
        .nth(6)
        .unwrap()
        .extras()
        .as_ref()
        .unwrap()
        .get()
        .to_owned();
    assert!(extras.contains("fake.png"), "{extras}");

    // Referencing: one image per URI, and `..` or a folder-less empty name is never a URI.
    let options = GltfOptions::for_source(dir.path().join("model.elem"));
    let (glb, warnings) = warnings_of(&scene, &options);
    let (doc, _) = read(&glb);
    let uris: Vec<String> = doc
        .images()
        .map(|i| match i.source() {
            ::gltf::image::Source::Uri { uri, .. } => uri.to_owned(),
            _ => panic!("embedded"),
        })
        .collect();
    assert!(
        uris.iter()
            .all(|u| !u.is_empty() && u != ".." && !u.ends_with("/..")),
        "{uris:?}"
    );
    assert!(uris.contains(&"Tex/A.png".to_owned()), "{uris:?}");
    assert!(
        warnings.join("\n").contains("names no file"),
        "{warnings:?}"
    );

    // Issue 14: a URI never names a format glTF does not allow (TGA, BMP, DDS).
    let mut tga = skinned_quad();
    tga.materials = vec![Material {
        color_texture: Some(r"tex\a.TGA".into()),
        ..Material::default()
    }];
    let (glb, warnings) = warnings_of(&tga, &options);
    assert_eq!(read(&glb).0.images().count(), 0);
    assert!(
        warnings.join("\n").contains("is not PNG or JPEG"),
        "{warnings:?}"
    );
}

/// Issue 12: the outside-folder rules are the same for every format: the ELEM and SKM
/// converters keep absolute paths as written, and the writer refuses or reads them.
#[test]
fn absolute_texture_paths_follow_the_outside_folder_rules_in_every_format() {
    let dir = tempfile::tempdir().unwrap();
    let models_dir = dir.path().join("models");
    std::fs::create_dir_all(&models_dir).unwrap();
    write_png(&dir.path().join("shared.png"));
    let absolute = dir.path().join("shared.png");
    let absolute = absolute.to_str().unwrap();
    let elem = format!(
        "Elfreina Extension Model File\r\nFile Version 1.00\r\nMeshDataList {{\r\nMeshContainer {{\r\nMaterials {{\r\nMaterial {{\r\nTextureFilename=\"{absolute}\"\r\n}}\r\n}}\r\nMesh {{\r\nPositions {{\r\n0:0:0\r\n1:0:0\r\n0:1:0\r\n}}\r\nTextureUV {{\r\n0:0\r\n1:0\r\n0:1\r\n}}\r\nVertexIndices {{\r\n3,0:1:2\r\n}}\r\nAttributes {{\r\n0\r\n}}\r\n}}\r\n}}\r\n}}\r\n"
    );
    let doc = models::from_bytes(elem.as_bytes()).unwrap();
    let scene = models::scene::Scene::from_document(&doc).unwrap().scene;
    assert_eq!(
        scene.materials[0].color_texture.as_deref(),
        Some(absolute),
        "kept as written"
    );
    let refused = GltfOptions {
        embed_textures: true,
        ..GltfOptions::for_source(models_dir.join("m.elem"))
    };
    let (glb, warnings) = warnings_of(&scene, &refused);
    assert_eq!(read(&glb).0.images().count(), 0);
    assert!(
        warnings.join("\n").contains("is absolute; refused"),
        "{warnings:?}"
    );
    let allowed = GltfOptions {
        allow_outside_textures: true,
        ..refused
    };
    let (glb, _) = warnings_of(&scene, &allowed);
    assert_eq!(read(&glb).0.images().count(), 1, "read once allowed");
    // A drive path is never looked up in the current folder.
    let mut drive = scene.clone();
    drive.materials[0].color_texture = Some(r"C:\shared.png".into());
    let (_, warnings) = warnings_of(&drive, &allowed);
    let all = warnings.join("\n");
    assert!(
        cfg!(windows) || all.contains("Windows drive or network path"),
        "{all}"
    );
}

/// Issue 14: `texture_folder` writes each file once beside the output, converted to PNG where
/// needed, same-named files from two folders under distinct names; `texture_dirs` are searched
/// after the model's folder.
#[test]
fn textures_written_beside_the_output_resolve_and_are_png() {
    let dir = tempfile::tempdir().unwrap();
    let models_dir = dir.path().join("models");
    let shared = dir.path().join("shared");
    std::fs::create_dir_all(models_dir.join("a")).unwrap();
    std::fs::create_dir_all(models_dir.join("b")).unwrap();
    std::fs::create_dir_all(&shared).unwrap();
    write_png(&models_dir.join("a/skin.png"));
    let tga = image::RgbImage::from_pixel(3, 1, image::Rgb([0, 255, 0]));
    tga.save_with_format(models_dir.join("b/Skin.tga"), image::ImageFormat::Tga)
        .unwrap();
    write_png(&shared.join("only_shared.png"));
    let mut scene = skinned_quad();
    scene.materials = [
        "a/skin.png",
        r"A\SKIN.png",
        r"b\skin.TGA",
        r"elsewhere\only_shared.png",
    ]
    .iter()
    .map(|p| Material {
        color_texture: Some((*p).into()),
        ..Material::default()
    })
    .collect();
    let out_dir = dir.path().join("out");
    std::fs::create_dir_all(&out_dir).unwrap();
    let out = out_dir.join("model.gltf");
    let options = GltfOptions {
        texture_folder: Some("model_textures".into()),
        texture_dirs: vec![shared.clone()],
        ..GltfOptions::for_source(models_dir.join("model.elem"))
    };
    let warnings = gltf::write_file(
        &models::scene::validate(scene.clone()).scene,
        &out,
        &options,
        Overwrite::Never,
    )
    .unwrap();
    assert!(
        !warnings.iter().any(|w| w.to_string().contains("texture")),
        "{warnings:?}"
    );
    let json: serde_json::Value = serde_json::from_slice(&std::fs::read(&out).unwrap()).unwrap();
    let uris: Vec<&str> = json["images"]
        .as_array()
        .unwrap()
        .iter()
        .map(|i| i["uri"].as_str().unwrap())
        .collect();
    assert_eq!(
        uris,
        [
            "model_textures/skin.png",
            "model_textures/Skin-1.png",
            "model_textures/only_shared.png"
        ]
    );
    for uri in uris {
        let bytes = std::fs::read(out_dir.join(uri)).unwrap();
        image::load_from_memory_with_format(&bytes, image::ImageFormat::Png).unwrap();
    }
    // Without --force, a second write is refused before any image is written over.
    let err = gltf::write_file(
        &models::scene::validate(scene.clone()).scene,
        &out,
        &options,
        Overwrite::Never,
    )
    .unwrap_err();
    assert!(err.to_string().contains("already exists"), "{err}");
}

/// Textures the caller holds (a pack's entries) are used before the file system, once each
/// by name; one held as refused is said in a warning, not looked for on disk.
#[test]
fn held_textures_come_before_the_file_system() {
    let dir = tempfile::tempdir().unwrap();
    write_png(&dir.path().join("a.png")); // on disk too: the held one wins
    let png = std::fs::read(dir.path().join("a.png")).unwrap();
    let mut scene = skinned_quad();
    scene.materials = ["a.png", "A.png", "big.png"]
        .iter()
        .map(|p| Material {
            color_texture: Some((*p).into()),
            ..Material::default()
        })
        .collect();
    let held = gltf::HeldTextures::new([
        (
            "a.png".to_owned(),
            gltf::HeldTexture {
                name: "T.Pack::a.png".into(),
                bytes: Ok(png.clone()),
            },
        ),
        (
            "A.png".to_owned(),
            gltf::HeldTexture {
                name: "T.Pack::a.png".into(),
                bytes: Ok(png),
            },
        ),
        (
            "big.png".to_owned(),
            gltf::HeldTexture {
                name: "T.Pack::big.png".into(),
                bytes: Err("larger than 67108864 bytes".into()),
            },
        ),
    ]);
    let options = GltfOptions {
        embed_textures: true,
        held_textures: held,
        ..GltfOptions::for_source(dir.path().join("m.smf"))
    };
    let (glb, warnings) = warnings_of(&scene, &options);
    let (doc, _) = read(&glb);
    assert_eq!(doc.images().count(), 1, "one image for one held name");
    assert_eq!(doc.textures().count(), 1);
    assert!(
        warnings
            .iter()
            .any(|w| w.contains("\"big.png\" not embedded: T.Pack::big.png: larger")),
        "{warnings:?}"
    );
}

/// Textures whose folder and file names are CP932 bytes on disk (unpacked on Linux by an
/// archiver that kept them) are found by the names the model gives as text: embedded, and
/// written beside the output under their Japanese names.
#[cfg(unix)]
#[test]
fn textures_with_cp932_names_on_disk_are_found() {
    use std::ffi::OsStr;
    use std::os::unix::ffi::OsStrExt;
    let dir = tempfile::tempdir().unwrap();
    let tex = dir
        .path()
        .join(OsStr::from_bytes(b"\x83e\x83N\x83X\x83`\x83\x83")); // テクスチャ
    std::fs::create_dir_all(&tex).unwrap();
    write_png(&tex.join(OsStr::from_bytes(b"\x93\x64\x8e\xd4.png"))); // 電車.png
    let mut scene = skinned_quad();
    scene.materials = vec![Material {
        color_texture: Some(r"テクスチャ\電車.png".into()),
        ..Material::default()
    }];
    let valid = models::scene::validate(scene).scene;
    let source = GltfOptions::for_source(dir.path().join("model.smf"));
    let embedded = GltfOptions {
        embed_textures: true,
        ..source.clone()
    };
    let (glb, warnings) = gltf::to_glb_with_warnings(&valid, &embedded).unwrap();
    assert!(warnings.is_empty(), "{warnings:?}");
    let (doc, _) = read(&glb);
    let image = doc.images().next().expect("the texture is used");
    assert!(
        matches!(image.source(), ::gltf::image::Source::View { .. }),
        "embedded"
    );
    let out = dir.path().join("model.gltf");
    let options = GltfOptions {
        texture_folder: Some("model_textures".into()),
        ..source
    };
    let warnings = gltf::write_file(&valid, &out, &options, Overwrite::Never).unwrap();
    assert!(warnings.is_empty(), "{warnings:?}");
    let written = dir.path().join("model_textures").join("電車.png");
    image::open(&written).unwrap();
}

/// Issue 12: primitives whose indices are overlapping ranges of one shared list are written
/// with one index view and an accessor per primitive at its offset; a bad triangle in the list
/// is dropped once and every range still reads the right triangles.
#[test]
fn overlapping_shared_ranges_are_written_once() {
    let list = std::sync::Arc::new(models::scene::Array::from(vec![
        0, 1, 2, 1, 2, 3, 2, 3, 9, 3, 4, 5,
    ]));
    let range = |r: std::ops::Range<usize>| Primitive {
        indices: Indices::shared(&list, r).unwrap(),
        material: None,
    };
    let scene = Scene {
        nodes: vec![Node {
            mesh: Some(0),
            ..Node::default()
        }],
        roots: vec![0],
        meshes: vec![Mesh {
            vertices: Vertices {
                positions: (0..6).map(|i| [i as f32, (i % 2) as f32, 0.0]).collect(),
                ..Vertices::default()
            },
            primitives: vec![range(0..9), range(3..12), range(0..12)],
            ..Mesh::default()
        }],
        ..Scene::default()
    };
    let (glb, warnings) = warnings_of(&scene, &GltfOptions::default());
    dump("shared_indices", &glb);
    assert_eq!(
        warnings
            .iter()
            .filter(|w| w.contains("1 triangles refer to vertices beyond"))
            .count(),
        3,
        "{warnings:?}"
    );
    let (doc, blob) = read(&glb);
    let index_views = doc
        .views()
        .filter(|v| v.target() == Some(::gltf::buffer::Target::ElementArrayBuffer))
        .count();
    assert_eq!(index_views, 1);
    let read: Vec<Vec<u32>> = doc
        .meshes()
        .next()
        .unwrap()
        .primitives()
        .map(|p| {
            let reader = p.reader(|_| Some(blob.as_slice()));
            reader.read_indices().unwrap().into_u32().collect()
        })
        .collect();
    assert_eq!(
        read,
        [
            vec![0, 1, 2, 1, 2, 3],
            vec![1, 2, 3, 3, 4, 5],
            vec![0, 1, 2, 1, 2, 3, 3, 4, 5]
        ]
    );
}

#[test]
fn byte_colours_are_written_as_normalised_bytes_and_read_back_with_the_same_bits() {
    // Colours that are bytes (as SMF and MDL give them) go out as normalised `u8`, a quarter
    // of the floats' bytes, and come back as the same bytes; floats stay floats, also when
    // they happen to be bytes / 255 (ELEM's decimals).
    let scene_with = |colors: Colors| {
        one_triangle_list(
            Vertices {
                positions: vec![[0.0; 3], [1.0, 0.0, 0.0], [0.0, 1.0, 0.0]].into(),
                colors: Some(colors),
                ..Vertices::default()
            },
            vec![0, 1, 2],
        )
    };
    let bytes = vec![[0, 1, 128, 255], [254, 77, 3, 200], [255, 0, 17, 255]];
    let as_floats: Vec<[f32; 4]> = bytes
        .iter()
        .map(|c: &[u8; 4]| c.map(|b| f32::from(b) / 255.0))
        .collect();
    let floats = vec![[0.5, 0.25, 1.0, 1.0], [1.0; 4], [1.0; 4]];
    for (name, colors, component) in [
        (
            "byte_colours",
            Colors::Bytes(bytes.into()),
            ::gltf::accessor::DataType::U8,
        ),
        (
            "float_colours",
            Colors::Floats(floats.into()),
            ::gltf::accessor::DataType::F32,
        ),
        (
            "decimal_colours",
            Colors::Floats(as_floats.into()),
            ::gltf::accessor::DataType::F32,
        ),
    ] {
        let scene = scene_with(colors.clone());
        let glb = gltf::to_glb(&validate(scene).scene, &GltfOptions::default()).unwrap();
        dump(name, &glb);
        let (doc, blob) = read(&glb);
        let prim = doc.meshes().next().unwrap().primitives().next().unwrap();
        let accessor = prim.get(&::gltf::Semantic::Colors(0)).unwrap();
        assert_eq!(accessor.data_type(), component, "{name}");
        assert_eq!(
            accessor.normalized(),
            component == ::gltf::accessor::DataType::U8
        );
        let reader = prim.reader(|_| Some(blob.as_slice()));
        let read: Vec<[f32; 4]> = reader.read_colors(0).unwrap().into_rgba_f32().collect();
        let back = gltf::read_glb(&glb)
            .unwrap()
            .scene
            .meshes
            .remove(0)
            .vertices;
        // Bytes back as the same bytes, floats as the same bits.
        let ours = back.colors.unwrap();
        let bits = |c: &Colors| {
            let floats = c.to_floats();
            floats
                .iter()
                .flatten()
                .map(|x| x.to_bits())
                .collect::<Vec<_>>()
        };
        assert_eq!(
            matches!(ours, Colors::Bytes(_)),
            component == ::gltf::accessor::DataType::U8,
            "{name}: bytes read back as bytes"
        );
        assert_eq!(ours, colors, "{name}: our reader");
        assert_eq!(bits(&ours), bits(&colors), "{name}: our reader");
        for (a, b) in read
            .iter()
            .flatten()
            .zip(colors.to_floats().iter().flatten())
        {
            assert!(
                (a - b).abs() < 1e-6,
                "{name}: the gltf crate reads {a} for {b}"
            );
        }
    }
}
