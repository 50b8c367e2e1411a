//! The glTF reader: every fixture (and sample, when present) converted to `.glb` by our writer
//! reads back into the scene it came from; hostile inputs are refused without panics and
//! without allocations beyond the input.

mod common;

use models::gltf::{self, GltfOptions, ReadError, ReadOptions};
use models::scene::{Colors, Scene, SceneOptions, Transform};
use std::path::PathBuf;
use std::sync::Arc;

/// Every fixture and sample of the five formats; opened by [`scene_of`], which skips the MDL
/// 2014 development layout.
fn inputs() -> Vec<PathBuf> {
    let files = common::fixtures_and_samples();
    files.into_iter().map(|(_, path)| path).collect()
}

fn scene_of(path: &std::path::Path) -> Option<Scene> {
    match models::open(path) {
        Ok(doc) => Some(
            Scene::from_document_with(&doc, &SceneOptions::default())
                .unwrap_or_else(|e| panic!("{}: {e}", path.display()))
                .scene,
        ),
        Err(e) if test_support::file_name(path).starts_with("altseed_legacy_") => {
            eprintln!("skipping {}: {e}", path.display());
            None
        }
        Err(e) => panic!("{}: {e}", path.display()),
    }
}

/// Our writer's output reads back with the source scene's structure: as many meshes,
/// vertices, indices per primitive, materials, nodes, joints and animation channels, and
/// bit-exact positions (the writer stores them as the f32 they are). Reading, writing and
/// reading again gives the same scene.
#[test]
fn every_fixture_reads_back_into_its_scene() {
    let mut checked = 0;
    let mut textures = 0;
    for path in inputs() {
        let Some(scene) = scene_of(&path) else {
            continue;
        };
        let name = path.display().to_string();
        // Compared with the validated scene: validation, not the converters, repairs the
        // vertex values (e.g. a sample's non-finite positions).
        let scene = models::scene::validate(scene).scene;
        let glb = gltf::to_glb(&scene, &GltfOptions::default()).unwrap();
        let read = gltf::read_glb(&glb).unwrap_or_else(|e| panic!("{name}: {e}"));
        let back = &read.scene;
        for w in &read.warnings {
            eprintln!("{name}: {w}");
        }
        assert_eq!(back.meshes.len(), scene.meshes.len(), "{name}: meshes");
        assert_eq!(
            back.materials.len(),
            scene.materials.len(),
            "{name}: materials"
        );
        assert!(back.nodes.len() >= scene.nodes.len(), "{name}: nodes");
        for (i, (b, s)) in back.meshes.iter().zip(&scene.meshes).enumerate() {
            assert_eq!(b.name, s.name, "{name}: mesh {i} name");
            assert_eq!(
                bits(&b.vertices.positions),
                bits(&s.vertices.positions),
                "{name}: mesh {i} positions"
            );
            let b_idx: Vec<usize> = b.primitives.iter().map(|p| p.indices.len()).collect();
            let s_idx: Vec<usize> = s
                .primitives
                .iter()
                .map(|p| p.indices.len())
                .filter(|&n| n > 0)
                .collect();
            assert_eq!(b_idx, s_idx, "{name}: mesh {i} indices");
            // (The writer may add UVs a textured material needs; it never drops them.)
            assert!(
                s.vertices.uv0.is_none() || b.vertices.uv0.is_some(),
                "{name}: uv0"
            );
            if let (Some(b), Some(s)) = (&b.vertices.uv0, &s.vertices.uv0) {
                assert_eq!(b, s, "{name}: mesh {i} uv0");
            }
        }
        for (b, s) in back.materials.iter().zip(&scene.materials) {
            assert_eq!(b.name, s.name, "{name}: material name");
            assert_eq!(
                (b.alpha_mode, b.double_sided),
                (s.alpha_mode, s.double_sided),
                "{name}: material {}",
                s.name
            );
            // A texture the writer referred to comes back as the path it wrote (relative, with
            // `/`; an absolute source path keeps its file name only).
            let file = |p: &str| p.rsplit(['/', '\\']).next().unwrap_or("").to_string();
            if let Some(t) = &b.color_texture {
                let src = s.color_texture.as_deref().map(file);
                assert_eq!(Some(file(t)), src, "{name}: texture of {}", s.name);
                textures += 1;
            }
            if s.base_color.iter().all(|c| (0.0..=1.0).contains(c)) {
                assert_eq!(b.base_color, s.base_color, "{name}: material {}", s.name);
            }
        }
        for (b, s) in back.nodes.iter().zip(&scene.nodes) {
            assert_eq!(b.name, s.name, "{name}: node name");
            assert_eq!(b.mesh, s.mesh, "{name}: node {} mesh", s.name);
        }
        assert_eq!(back.skins.len(), scene.skins.len(), "{name}: skins");
        for (b, s) in back.skins.iter().zip(&scene.skins) {
            assert_eq!(b.joints.len(), s.joints.len(), "{name}: joints");
        }
        let channels = |s: &Scene| -> Vec<usize> {
            s.animations
                .iter()
                .map(|a| a.channels.len())
                .filter(|&n| n > 0)
                .collect()
        };
        assert_eq!(channels(back), channels(&scene), "{name}: channels");
        // Idempotent from here on: what the reader gives, the writer keeps.
        let again = gltf::to_glb(
            &models::scene::validate(back.clone()).scene,
            &GltfOptions::default(),
        )
        .unwrap();
        let twice = gltf::read_glb(&again).unwrap();
        assert_same(&twice.scene, back, &name);
        checked += 1;
    }
    assert!(checked >= 15, "only {checked} inputs");
    assert!(textures > 0, "no texture reference read back");
}

/// `read_glb_shared` (how `models convert` reads a file) reads the same scene as `read_glb`,
/// with the export's tightly packed arrays as views of the `.glb` instead of copies; and
/// validation, finding nothing to repair in what was valid when written, keeps them views
/// (it reads them and writes nothing). Dropping the scene lets the bytes go.
#[test]
fn shared_reading_views_the_glb_and_validation_keeps_the_views() {
    let mut views = 0;
    for path in inputs() {
        let Some(scene) = scene_of(&path) else {
            continue;
        };
        let name = path.display().to_string();
        let scene = models::scene::validate(scene).scene;
        let glb = Arc::new(gltf::to_glb(&scene, &GltfOptions::default()).unwrap());
        let copied = gltf::read_glb(&glb).unwrap_or_else(|e| panic!("{name}: {e}"));
        let shared = gltf::read_glb_shared(Arc::clone(&glb)).unwrap();
        assert_eq!(shared, copied, "{name}: the same scene either way");
        let valid = models::scene::validate(shared.scene).scene;
        for (m, (mesh, copy)) in valid.meshes.iter().zip(&copied.scene.meshes).enumerate() {
            let v = &mesh.vertices;
            if v.positions.is_empty() {
                continue;
            }
            assert!(
                !copy.vertices.positions.is_view(),
                "{name}: read_glb copies"
            );
            assert!(v.positions.is_view(), "{name}: mesh {m} positions");
            let others = [v.normals.as_ref().map(|a| a.is_view())]
                .into_iter()
                .chain([v.uv0.as_ref().map(|a| a.is_view())])
                .chain([v.tangents.as_ref().map(|a| a.is_view())])
                .chain([v.weights.as_ref().map(|a| a.is_view())]);
            for (k, view) in others.enumerate() {
                assert_ne!(view, Some(false), "{name}: mesh {m} attribute {k}");
            }
            views += 1;
        }
        drop(valid);
        assert_eq!(
            Arc::strong_count(&glb),
            1,
            "{name}: no view outlives the scene"
        );
    }
    assert!(views > 0, "no mesh read");
}

/// Equal scenes, or a panic naming the first part that differs (not a whole-scene dump).
fn assert_same(a: &Scene, b: &Scene, name: &str) {
    assert_eq!(a.nodes, b.nodes, "{name}: read → write → read: nodes");
    assert_eq!(a.roots, b.roots, "{name}: read → write → read: roots");
    assert_eq!(
        a.materials, b.materials,
        "{name}: read → write → read: materials"
    );
    assert_eq!(a.skins, b.skins, "{name}: read → write → read: skins");
    assert_eq!(a.meshes.len(), b.meshes.len());
    for (i, (x, y)) in a.meshes.iter().zip(&b.meshes).enumerate() {
        let (u, v) = (&x.vertices, &y.vertices);
        assert!(u.positions == v.positions, "{name}: mesh {i} positions");
        // The writer renormalises normals and tangents: again within an ulp or two.
        assert!(near(&u.normals, &v.normals), "{name}: mesh {i} normals");
        assert!(near(&u.tangents, &v.tangents), "{name}: mesh {i} tangents");
        assert!(u.uv0 == v.uv0 && u.uv1 == v.uv1, "{name}: mesh {i} uvs");
        assert!(u.colors == v.colors, "{name}: mesh {i} colors");
        assert!(u.joints == v.joints, "{name}: mesh {i} joints");
        assert!(near(&u.weights, &v.weights), "{name}: mesh {i} weights");
        assert!(x.primitives == y.primitives, "{name}: mesh {i} primitives");
    }
    assert_eq!(a.animations.len(), b.animations.len(), "{name}: animations");
    for (x, y) in a.animations.iter().zip(&b.animations) {
        assert_eq!(x.channels.len(), y.channels.len(), "{name}: channels");
        for (c, d) in x.channels.iter().zip(&y.channels) {
            assert_eq!(
                (c.node, c.path, c.interpolation),
                (d.node, d.path, d.interpolation)
            );
            assert_eq!(c.times, d.times, "{name}: key times");
            // Rotations are renormalised by the writer.
            let close = c.values.len() == d.values.len()
                && c.values
                    .iter()
                    .zip(d.values.iter())
                    .all(|(p, q)| (p - q).abs() <= 1e-6);
            assert!(close, "{name}: key values");
        }
    }
}

fn near<const N: usize>(
    a: &Option<models::scene::Array<[f32; N]>>,
    b: &Option<models::scene::Array<[f32; N]>>,
) -> bool {
    match (a, b) {
        (Some(a), Some(b)) => {
            a.len() == b.len()
                && a.iter()
                    .flatten()
                    .zip(b.iter().flatten())
                    .all(|(x, y)| (x - y).abs() <= 1e-6)
        }
        (None, None) => true,
        _ => false,
    }
}

fn bits(v: &[[f32; 3]]) -> Vec<[u32; 3]> {
    v.iter().map(|p| p.map(f32::to_bits)).collect()
}

// ---------------------------------------------------------------------------------------------
// Hand-made glTF: layouts our writer never produces.

/// A GLB from a JSON value and a binary chunk.
fn glb(json: &serde_json::Value, bin: &[u8]) -> Vec<u8> {
    let mut j = serde_json::to_vec(json).unwrap();
    while j.len() % 4 != 0 {
        j.push(b' ');
    }
    let mut b = bin.to_vec();
    while b.len() % 4 != 0 {
        b.push(0);
    }
    let total = 12 + 8 + j.len() + if b.is_empty() { 0 } else { 8 + b.len() };
    let mut out = Vec::new();
    out.extend_from_slice(b"glTF");
    out.extend_from_slice(&2u32.to_le_bytes());
    out.extend_from_slice(&(total as u32).to_le_bytes());
    out.extend_from_slice(&(j.len() as u32).to_le_bytes());
    out.extend_from_slice(b"JSON");
    out.extend_from_slice(&j);
    if !b.is_empty() {
        out.extend_from_slice(&(b.len() as u32).to_le_bytes());
        out.extend_from_slice(b"BIN\0");
        out.extend_from_slice(&b);
    }
    out
}

fn f32s(v: &[f32]) -> Vec<u8> {
    v.iter().flat_map(|x| x.to_le_bytes()).collect()
}

/// Four vertices interleaved (position f32×3, then a normalised u16×2 UV, stride 16), drawn
/// as a strip; a sparse accessor moves vertex 2; a POINTS primitive is skipped.
#[test]
fn interleaved_normalised_sparse_strip() {
    let mut bin = Vec::new();
    let pos = [
        [0.0f32, 0.0, 0.0],
        [1.0, 0.0, 0.0],
        [0.0, 1.0, 0.0],
        [1.0, 1.0, 0.0],
    ];
    let uv = [[0u16, 0], [65535, 0], [0, 65535], [65535, 65535]];
    for (p, t) in pos.iter().zip(uv) {
        bin.extend(f32s(p));
        bin.extend(t.iter().flat_map(|x| x.to_le_bytes()));
    }
    // 64: sparse index (u8, padded), 68: sparse value.
    bin.extend([2, 0, 0, 0]);
    bin.extend(f32s(&[0.0, 2.0, 0.0]));
    let json = serde_json::json!({
        "asset": {"version": "2.0"},
        "buffers": [{"byteLength": bin.len()}],
        "bufferViews": [
            {"buffer": 0, "byteLength": 64, "byteStride": 16},
            {"buffer": 0, "byteOffset": 64, "byteLength": 1},
            {"buffer": 0, "byteOffset": 68, "byteLength": 12}
        ],
        "accessors": [
            {"bufferView": 0, "componentType": 5126, "count": 4, "type": "VEC3",
             "sparse": {"count": 1, "indices": {"bufferView": 1, "componentType": 5121},
                        "values": {"bufferView": 2}}},
            {"bufferView": 0, "byteOffset": 12, "componentType": 5123, "normalized": true,
             "count": 4, "type": "VEC2"}
        ],
        "meshes": [{"primitives": [
            {"attributes": {"POSITION": 0, "TEXCOORD_0": 1}, "mode": 5},
            {"attributes": {"POSITION": 0}, "mode": 0}
        ]}],
        "nodes": [{"mesh": 0, "matrix": [1,0,0,0, 0,1,0,0, 0,0,1,0, 5,0,0,1]}],
        "scenes": [{"nodes": [0]}]
    });
    let read = gltf::read_glb(&glb(&json, &bin)).unwrap();
    let mesh = &read.scene.meshes[0];
    assert_eq!(mesh.vertices.positions[2], [0.0, 2.0, 0.0]);
    assert_eq!(mesh.vertices.positions[3], [1.0, 1.0, 0.0]);
    assert_eq!(mesh.vertices.uv0.as_ref().unwrap()[3], [1.0, 1.0]);
    assert_eq!(mesh.primitives.len(), 1);
    assert_eq!(*mesh.primitives[0].indices, [0, 1, 2, 1, 3, 2]);
    assert!(matches!(read.scene.nodes[0].transform, Transform::Matrix(m) if m[12] == 5.0));
    assert!(read
        .warnings
        .iter()
        .any(|w| w.at == "meshes[0].primitives[1]" && w.to_string().contains("POINTS")));
}

/// A required extension the reader does not know is refused with its name;
/// KHR_mesh_quantization is accepted.
#[test]
fn required_extensions() {
    let json = serde_json::json!({
        "asset": {"version": "2.0"},
        "extensionsUsed": ["EXT_meshopt_compression", "KHR_mesh_quantization"],
        "extensionsRequired": ["KHR_mesh_quantization", "EXT_meshopt_compression"]
    });
    let e = gltf::read_glb(&glb(&json, &[])).unwrap_err();
    assert!(
        matches!(&e, ReadError::UnsupportedExtension { name, at } if name == "EXT_meshopt_compression" && at == "extensionsRequired[1]"),
        "{e}"
    );
    let json = serde_json::json!({
        "asset": {"version": "2.0"},
        "extensionsUsed": ["KHR_mesh_quantization", "KHR_lights_punctual"],
        "extensionsRequired": ["KHR_mesh_quantization"]
    });
    let read = gltf::read_glb(&glb(&json, &[])).unwrap();
    assert!(read
        .warnings
        .iter()
        .any(|w| w.to_string().contains("KHR_lights_punctual")));
}

// ---------------------------------------------------------------------------------------------
// Hostile input.

/// 100-odd bytes claiming 2³² - 1 vertices: refused before anything is allocated.
#[test]
fn huge_counts_are_refused_at_once() {
    let json = serde_json::json!({
        "asset": {"version": "2.0"},
        "buffers": [{"byteLength": 12}],
        "bufferViews": [{"buffer": 0, "byteLength": 12}],
        "accessors": [{"bufferView": 0, "componentType": 5126, "count": 4294967295u64, "type": "VEC3"}],
        "meshes": [{"primitives": [{"attributes": {"POSITION": 0}}]}]
    });
    let e = gltf::read_glb(&glb(&json, &[0; 12])).unwrap_err();
    assert!(e.to_string().starts_with("accessors[0]:"), "{e}");
    // Without a buffer view (all zeros) the count is backed by nothing: the budget refuses it.
    let json = serde_json::json!({
        "asset": {"version": "2.0"},
        "accessors": [{"componentType": 5126, "count": 4294967295u64, "type": "VEC3"}],
        "meshes": [{"primitives": [{"attributes": {"POSITION": 0}}]}]
    });
    let e = gltf::read_glb(&glb(&json, &[])).unwrap_err();
    assert!(matches!(e, ReadError::TooLarge { .. }), "{e}");
    // A stride shorter than the element, a zero count, an offset overflowing.
    for (view, accessor) in [
        (
            serde_json::json!({"buffer": 0, "byteLength": 12, "byteStride": 4}),
            serde_json::json!({"bufferView": 0, "componentType": 5126, "count": 1, "type": "VEC3"}),
        ),
        (
            serde_json::json!({"buffer": 0, "byteLength": 12}),
            serde_json::json!({"bufferView": 0, "componentType": 5126, "count": 0, "type": "VEC3"}),
        ),
        (
            serde_json::json!({"buffer": 0, "byteLength": 12}),
            serde_json::json!({"bufferView": 0, "byteOffset": 18446744073709551615u64, "componentType": 5126, "count": 1, "type": "VEC3"}),
        ),
    ] {
        let json = serde_json::json!({
            "asset": {"version": "2.0"},
            "buffers": [{"byteLength": 12}],
            "bufferViews": [view],
            "accessors": [accessor],
            "meshes": [{"primitives": [{"attributes": {"POSITION": 0}}]}]
        });
        let _ = gltf::read_glb(&glb(&json, &[0; 12]));
    }
}

#[test]
fn node_cycles_and_shared_children_are_refused() {
    for nodes in [
        serde_json::json!([{"children": [1]}, {"children": [0]}]),
        serde_json::json!([{"children": [0]}]),
        serde_json::json!([{"children": [2]}, {"children": [2]}, {}]),
    ] {
        let json = serde_json::json!({"asset": {"version": "2.0"}, "nodes": nodes});
        let e = gltf::read_glb(&glb(&json, &[])).unwrap_err();
        assert!(e.to_string().starts_with("nodes["), "{e}");
    }
    // A chain deeper than the limit.
    let n = models::gltf::MAX_NODE_DEPTH + 1;
    let nodes: Vec<_> = (0..n)
        .map(|i| {
            if i + 1 < n {
                serde_json::json!({"children": [i + 1]})
            } else {
                serde_json::json!({})
            }
        })
        .collect();
    let json = serde_json::json!({"asset": {"version": "2.0"}, "nodes": nodes});
    let e = gltf::read_glb(&glb(&json, &[])).unwrap_err();
    assert!(e.to_string().contains("deeper"), "{e}");
}

/// Every prefix of a real skinned, animated GLB is refused (or read) without a panic.
#[test]
fn truncated_glb_sweep() {
    let path = test_support::fixtures("smf", "smf")
        .into_iter()
        .find(|p| test_support::file_name(p).contains("skinned"))
        .unwrap();
    let scene = scene_of(&path).unwrap();
    let bytes = gltf::to_glb(
        &models::scene::validate(scene.clone()).scene,
        &GltfOptions::default(),
    )
    .unwrap();
    test_support::truncation_sweep("skinned glb", &bytes, gltf::read_glb, |_, _| false);
    // The same prefixes read in place (views of the input) read the same or fail the same.
    let shared = |b: &[u8]| gltf::read_glb_shared(models::Bytes::copy_from_slice(b));
    test_support::truncation_sweep("skinned glb, shared", &bytes, shared, |_, _| false);
    // Flipping every seventh byte of the file; each reads alike copied and in place.
    for i in (12..bytes.len()).step_by(7) {
        let mut b = bytes.to_vec();
        b[i] ^= 0x5a;
        let copied = gltf::read_glb(&b).map_err(|e| e.to_string());
        assert_eq!(
            shared(&b).map_err(|e| e.to_string()),
            copied,
            "byte {i} flipped"
        );
    }
}

/// A `.gltf` with an external `.bin` reads through `read_path`; one escaping its folder is
/// refused unless allowed; a `data:` URI needs no file.
#[test]
fn external_buffers_stay_in_the_folder() {
    let dir = tempfile::tempdir().unwrap();
    let inner = dir.path().join("inner");
    std::fs::create_dir(&inner).unwrap();
    let bin = f32s(&[0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 1.0, 0.0]);
    std::fs::write(inner.join("tri.bin"), &bin).unwrap();
    std::fs::write(dir.path().join("outside.bin"), &bin).unwrap();
    let doc = |uri: &str| {
        serde_json::json!({
            "asset": {"version": "2.0"},
            "buffers": [{"byteLength": 36, "uri": uri}],
            "bufferViews": [{"buffer": 0, "byteLength": 36}],
            "accessors": [{"bufferView": 0, "componentType": 5126, "count": 3, "type": "VEC3"}],
            "meshes": [{"primitives": [{"attributes": {"POSITION": 0}}]}],
            "nodes": [{"mesh": 0}],
            "scenes": [{"nodes": [0]}],
            "scene": 0
        })
        .to_string()
    };
    let file = inner.join("tri.gltf");
    std::fs::write(&file, doc("tri.bin")).unwrap();
    let read = gltf::read_path(&file, &ReadOptions::default()).unwrap();
    assert_eq!(*read.scene.meshes[0].primitives[0].indices, [0, 1, 2]);
    assert_eq!(
        gltf::detect(&std::fs::read(&file).unwrap()),
        Some(gltf::Container::Gltf)
    );

    std::fs::write(&file, doc("../outside.bin")).unwrap();
    let e = gltf::read_path(&file, &ReadOptions::default()).unwrap_err();
    assert!(e.to_string().starts_with("buffers[0].uri:"), "{e}");
    assert!(gltf::read_path(
        &file,
        &ReadOptions {
            allow_outside: true
        }
    )
    .is_ok());

    // From memory, an external buffer cannot be resolved.
    assert!(gltf::read_glb(doc("tri.bin").as_bytes()).is_err());
    let data = format!("data:application/octet-stream;base64,{}", base64(&bin));
    let read = gltf::read_glb(doc(&data).as_bytes()).unwrap();
    assert_eq!(read.scene.meshes[0].vertices.positions[1], [1.0, 0.0, 0.0]);
}

fn base64(bytes: &[u8]) -> String {
    const A: &[u8] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let mut out = String::new();
    for c in bytes.chunks(3) {
        let n = (u32::from(c[0]) << 16)
            | (u32::from(*c.get(1).unwrap_or(&0)) << 8)
            | u32::from(*c.get(2).unwrap_or(&0));
        for k in 0..=c.len() {
            out.push(A[(n >> (18 - 6 * k) & 63) as usize] as char);
        }
    }
    out
}

/// Every number in the JSON of a skinned, animated GLB replaced in turn by hostile values
/// (zero, negative, beyond u32, huge): each variant is refused or read, never a panic, and
/// never more decoded data than the budget (the reader would return `TooLarge`).
#[test]
fn hostile_numbers_in_every_json_field() {
    let path = test_support::fixtures("smf", "smf")
        .into_iter()
        .find(|p| test_support::file_name(p).contains("skinned"))
        .unwrap();
    let scene = scene_of(&path).unwrap();
    let built = gltf::Gltf::from_scene(
        &models::scene::validate(scene.clone()).scene,
        &GltfOptions::default(),
    )
    .unwrap();
    let json = serde_json::to_value(&built.root).unwrap();
    let mut paths = Vec::new();
    number_paths(&json, &mut Vec::new(), &mut paths);
    assert!(paths.len() > 50, "{} numbers", paths.len());
    let hostile = [
        serde_json::json!(0),
        serde_json::json!(-1),
        serde_json::json!(3),
        serde_json::json!(4294967295u64),
        serde_json::json!(18446744073709551615u64),
        serde_json::json!(1e30),
    ];
    let (mut read, mut refused) = (0, 0);
    for p in &paths {
        for value in &hostile {
            let mut j = json.clone();
            *p.iter().fold(&mut j, |v, k| match k {
                Key::Field(f) => &mut v[f.as_str()],
                Key::Index(i) => &mut v[*i],
            }) = value.clone();
            match gltf::read_glb(&glb(&j, &built.bin)) {
                Ok(r) => {
                    read += 1;
                    let _ = gltf::to_glb(
                        &models::scene::validate(r.scene.clone()).scene,
                        &GltfOptions::default(),
                    );
                }
                Err(_) => refused += 1,
            }
        }
    }
    eprintln!(
        "{} variants: {read} read, {refused} refused",
        read + refused
    );
    assert!(refused > 0 && read > 0);
}

enum Key {
    Field(String),
    Index(usize),
}

fn number_paths(v: &serde_json::Value, here: &mut Vec<Key>, out: &mut Vec<Vec<Key>>) {
    let copy = |h: &Vec<Key>| {
        h.iter()
            .map(|k| match k {
                Key::Field(f) => Key::Field(f.clone()),
                Key::Index(i) => Key::Index(*i),
            })
            .collect()
    };
    match v {
        serde_json::Value::Number(_) => out.push(copy(here)),
        serde_json::Value::Array(a) => {
            for (i, x) in a.iter().enumerate() {
                here.push(Key::Index(i));
                number_paths(x, here, out);
                here.pop();
            }
        }
        serde_json::Value::Object(o) => {
            for (k, x) in o {
                here.push(Key::Field(k.clone()));
                number_paths(x, here, out);
                here.pop();
            }
        }
        _ => {}
    }
}

/// Two JOINTS/WEIGHTS sets (6 influences) reduced to the 4 largest; STEP and CUBICSPLINE
/// channels; a normalised-short rotation output; material fields; a camera named.
#[test]
fn skins_animations_and_materials() {
    let mut bin = Vec::new();
    // 0: positions (3 × vec3 f32) = 36 bytes
    bin.extend(f32s(&[0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 1.0, 0.0]));
    // 36: JOINTS_0 u8 ×4 ×3, 48: JOINTS_1
    bin.extend([0u8, 1, 2, 3].repeat(3));
    bin.extend([4u8, 5, 0, 0].repeat(3));
    // 60: WEIGHTS_0 f32, 108: WEIGHTS_1 f32
    bin.extend(f32s(&[0.1, 0.3, 0.05, 0.15].repeat(3)));
    bin.extend(f32s(&[0.25, 0.15, 0.0, 0.0].repeat(3)));
    // 156: times (2 f32), 164: step translations (2 vec3), 188: cubic scale (2 × 3 vec3)
    bin.extend(f32s(&[0.0, 1.0]));
    bin.extend(f32s(&[0.0, 0.0, 0.0, 1.0, 2.0, 3.0]));
    bin.extend(f32s(&[0.0; 3]));
    bin.extend(f32s(&[1.0; 3]));
    bin.extend(f32s(&[0.0; 3]));
    bin.extend(f32s(&[0.0; 3]));
    bin.extend(f32s(&[2.0; 3]));
    bin.extend(f32s(&[0.0; 3]));
    // 260: rotations as normalised i16 (2 × vec4)
    for q in [[0i16, 0, 0, 32767], [32767, 0, 0, 0]] {
        bin.extend(q.iter().flat_map(|x| x.to_le_bytes()));
    }
    let view =
        |o: usize, l: usize| serde_json::json!({"buffer": 0, "byteOffset": o, "byteLength": l});
    let json = serde_json::json!({
        "asset": {"version": "2.0"},
        "buffers": [{"byteLength": bin.len()}],
        "bufferViews": [view(0, 36), view(36, 12), view(48, 12), view(60, 48), view(108, 48),
                        view(156, 8), view(164, 24), view(188, 72), view(260, 16)],
        "accessors": [
            {"bufferView": 0, "componentType": 5126, "count": 3, "type": "VEC3"},
            {"bufferView": 1, "componentType": 5121, "count": 3, "type": "VEC4"},
            {"bufferView": 2, "componentType": 5121, "count": 3, "type": "VEC4"},
            {"bufferView": 3, "componentType": 5126, "count": 3, "type": "VEC4"},
            {"bufferView": 4, "componentType": 5126, "count": 3, "type": "VEC4"},
            {"bufferView": 5, "componentType": 5126, "count": 2, "type": "SCALAR"},
            {"bufferView": 6, "componentType": 5126, "count": 2, "type": "VEC3"},
            {"bufferView": 7, "componentType": 5126, "count": 6, "type": "VEC3"},
            {"bufferView": 8, "componentType": 5122, "normalized": true, "count": 2, "type": "VEC4"}
        ],
        "materials": [{"name": "m", "pbrMetallicRoughness": {"baseColorFactor": [0.5, 0.25, 1, 0.5]},
                       "emissiveFactor": [0.1, 0.2, 0.3], "alphaMode": "MASK", "alphaCutoff": 0.3,
                       "doubleSided": true}],
        "meshes": [{"primitives": [{"attributes": {"POSITION": 0, "JOINTS_0": 1, "JOINTS_1": 2,
                                                    "WEIGHTS_0": 3, "WEIGHTS_1": 4}, "material": 0}]}],
        "skins": [{"joints": [1, 2, 3, 4, 5, 6]}],
        "nodes": [{"mesh": 0, "skin": 0}, {"children": [2]}, {"children": [3]}, {}, {}, {}, {},
                  {"camera": 0}],
        "cameras": [{"type": "perspective", "perspective": {"yfov": 1.0, "znear": 0.1}}],
        "animations": [{"name": "a", "samplers": [
            {"input": 5, "output": 6, "interpolation": "STEP"},
            {"input": 5, "output": 7, "interpolation": "CUBICSPLINE"},
            {"input": 5, "output": 8}
        ], "channels": [
            {"sampler": 0, "target": {"node": 1, "path": "translation"}},
            {"sampler": 1, "target": {"node": 2, "path": "scale"}},
            {"sampler": 2, "target": {"node": 3, "path": "rotation"}}
        ]}],
        "scenes": [{"nodes": [0, 1, 4, 5, 6, 7]}]
    });
    let read = gltf::read_glb(&glb(&json, &bin)).unwrap();
    let s = &read.scene;
    let v = &s.meshes[0].vertices;
    // Weights 0.3 (j1), 0.25 (j4), 0.15 (j3), 0.15 (j5) kept, renormalised by 0.85.
    assert_eq!(v.joints.as_ref().unwrap()[0], [1, 4, 3, 5]);
    let w = v.weights.as_ref().unwrap()[0];
    assert!((w.iter().sum::<f32>() - 1.0).abs() < 1e-6 && (w[0] - 0.3 / 0.85).abs() < 1e-6);
    assert!(read.warnings.iter().any(|w| matches!(
        w.kind,
        models::gltf::ReadWarningKind::InfluencesReduced { vertices: 3 }
    )));
    assert!(read
        .warnings
        .iter()
        .any(|w| w.to_string().contains("camera")));
    assert!(s.skins[0].inverse_bind_matrices.is_empty());
    let a = &s.animations[0];
    assert_eq!(a.channels.len(), 3);
    assert_eq!(
        a.channels[0].interpolation,
        models::scene::Interpolation::Step
    );
    assert_eq!(
        a.channels[1].interpolation,
        models::scene::Interpolation::CubicSpline
    );
    assert_eq!(a.channels[1].values.len(), 18);
    assert_eq!(
        *a.channels[2].values,
        [0.0, 0.0, 0.0, 1.0, 1.0, 0.0, 0.0, 0.0]
    );
    let m = &s.materials[0];
    assert_eq!(m.base_color, [0.5, 0.25, 1.0, 0.5]);
    assert_eq!(m.emissive, [0.1, 0.2, 0.3]);
    assert_eq!(m.alpha_mode, models::scene::AlphaMode::Mask);
    assert_eq!(m.alpha_cutoff, Some(0.3));
    assert!(m.double_sided);
    // And the writer takes the scene as it is.
    gltf::to_glb(
        &models::scene::validate(s.clone()).scene,
        &GltfOptions::default(),
    )
    .unwrap();
}

/// Extras naming buffer views (the export's large exact arrays): each view is copied into the
/// scene's blobs once however often it is named, and a view that does not exist is cut with a
/// warning, never a panic.
#[test]
fn extras_blobs_are_read_once_and_bad_ones_warned() {
    let json = r#"{"asset":{"version":"2.0"},
        "buffers":[{"byteLength":4,"uri":"data:application/octet-stream;base64,AQIDBA=="}],
        "bufferViews":[{"buffer":0,"byteLength":4}],
        "nodes":[{"extras":{"a":{"bufferView":0},"b":{"x":[{"bufferView":0}]},"d":{"bufferView":9}}}],
        "scenes":[{"nodes":[0]}],"scene":0}"#;
    let read = gltf::read_glb(json.as_bytes()).expect("reads");
    assert_eq!(read.scene.blobs, vec![vec![1u8, 2, 3, 4]]);
    let extras = &read.scene.nodes[0].extras;
    assert_eq!(extras["a"], serde_json::json!({ "bufferView": 0 }));
    assert_eq!(extras["b"]["x"][0], serde_json::json!({ "bufferView": 0 }));
    assert_eq!(extras["d"], serde_json::json!({ "bufferView": null }));
    let warned: Vec<String> = read.warnings.iter().map(|w| w.to_string()).collect();
    assert!(
        warned.iter().any(|w| w.contains("nodes[0].extras.d")),
        "{warned:?}"
    );
}

/// The places named in errors and warnings, which the reader spells only when it needs them:
/// a channel's, a sampler's output accessor's, an accessor's buffer view's, and a blob nested
/// in an animation's extras.
#[test]
fn errors_and_warnings_name_their_json_place() {
    let with = |animation: serde_json::Value, views: serde_json::Value| {
        serde_json::json!({
            "asset": {"version": "2.0"},
            "buffers": [{"byteLength": 24}],
            "bufferViews": views,
            "accessors": [
                {"bufferView": 0, "componentType": 5126, "count": 2, "type": "SCALAR"},
                {"bufferView": 0, "componentType": 5126, "count": 2, "type": "SCALAR"},
                {"bufferView": 0, "componentType": 5126, "count": 2, "type": "VEC3"}
            ],
            "nodes": [{}],
            "animations": [animation]
        })
    };
    let view = serde_json::json!([{"buffer": 0, "byteLength": 24}]);
    let sampler = |output| serde_json::json!({"input": 0, "output": output});
    let error = |json: serde_json::Value| {
        gltf::read_glb(&glb(&json, &[0; 24]))
            .err()
            .map(|e| e.to_string())
            .unwrap_or_default()
    };
    let weights = serde_json::json!({"sampler": 0, "target": {"node": 0, "path": "weights"}});
    // An output accessor of the wrong type, and a missing one, named from their sampler.
    let json = with(
        serde_json::json!({
            "channels": [{"sampler": 0, "target": {"node": 0, "path": "scale"}}],
            "samplers": [sampler(1)]
        }),
        view.clone(),
    );
    let e = error(json);
    assert_eq!(
        e,
        "accessors[1]: type Scalar where [Vec3] is required (animations[0].samplers[0].output)"
    );
    let json = with(
        serde_json::json!({
            "channels": [weights, {"sampler": 1, "target": {"node": 0, "path": "rotation"}}],
            "samplers": [sampler(2), sampler(7)]
        }),
        view.clone(),
    );
    let e = error(json);
    assert!(
        e.starts_with("animations[0].samplers[1].output: no accessors[7]"),
        "{e}"
    );
    // A channel's target out of range, after a skipped channel.
    let json = with(
        serde_json::json!({
            "channels": [weights, {"sampler": 0, "target": {"node": 3, "path": "scale"}}],
            "samplers": [sampler(2)]
        }),
        view.clone(),
    );
    let e = error(json);
    assert!(
        e.starts_with("animations[0].channels[1].target.node: index 3 out of range"),
        "{e}"
    );
    // A buffer view past its buffer, named as the view.
    let json = with(
        serde_json::json!({
            "channels": [{"sampler": 0, "target": {"node": 0, "path": "scale"}}],
            "samplers": [{"input": 0, "output": 0}]
        }),
        serde_json::json!([{"buffer": 0, "byteOffset": 4, "byteLength": 24}]),
    );
    let e = error(json);
    assert!(e.starts_with("bufferViews[0]:"), "{e}");
    // A blob reference deep in an animation's extras that names no readable view.
    let json = r#"{"asset":{"version":"2.0"},"nodes":[{}],
        "animations":[{"channels":[],"samplers":[],
            "extras":{"smf":{"keys":[{"n":1},{"bufferView":5}]}}}]}"#;
    let read = gltf::read_glb(json.as_bytes()).expect("reads");
    let warned: Vec<String> = read.warnings.iter().map(|w| w.to_string()).collect();
    assert!(
        warned
            .iter()
            .any(|w| w.starts_with("animations[0].extras.smf.keys[1]")),
        "{warned:?}"
    );
}

/// Primitives whose index accessors overlap in one buffer view share one decoded list (each a
/// range of it, a trailing partial triangle left out with a warning); when that view holds an
/// index past the vertices, each accessor is read on its own, and the one that holds it is
/// refused by name.
#[test]
fn overlapping_index_accessors_share_one_list() {
    let mut bin = f32s(&[0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 1.0, 0.0]);
    // Indices (u16) at 36: two triangles, then 7 (past the three vertices), in the view only.
    for i in [0u16, 1, 2, 2, 1, 0, 7, 0] {
        bin.extend(i.to_le_bytes());
    }
    let json = |view_length: usize| {
        serde_json::json!({
            "asset": {"version": "2.0"},
            "buffers": [{"byteLength": 52}],
            "bufferViews": [
                {"buffer": 0, "byteLength": 36},
                {"buffer": 0, "byteOffset": 36, "byteLength": view_length}
            ],
            "accessors": [
                {"bufferView": 0, "componentType": 5126, "count": 3, "type": "VEC3"},
                {"bufferView": 1, "componentType": 5123, "count": 6, "type": "SCALAR"},
                {"bufferView": 1, "byteOffset": 6, "componentType": 5123, "count": 4,
                 "type": "SCALAR"}
            ],
            "meshes": [{"primitives": [
                {"attributes": {"POSITION": 0}, "indices": 1},
                {"attributes": {"POSITION": 0}, "indices": 2}
            ]}],
            "nodes": [{"mesh": 0}],
            "scenes": [{"nodes": [0]}]
        })
    };
    let read = gltf::read_glb(&glb(&json(12), &bin)).unwrap();
    let prims = &read.scene.meshes[0].primitives;
    assert_eq!(*prims[0].indices, [0, 1, 2, 2, 1, 0]);
    assert_eq!(*prims[1].indices, [2, 1, 0]);
    assert!(std::sync::Arc::ptr_eq(
        prims[0].indices.list(),
        prims[1].indices.list()
    ));
    assert!(read
        .warnings
        .iter()
        .any(|w| w.at == "meshes[0].primitives[1]"
            && w.to_string().contains("the last 1 of 4 indices")));
    // The view now reaches the 7: the shared path steps aside, and the second accessor (which
    // holds it) is refused as before.
    let e = gltf::read_glb(&glb(&json(16), &bin)).unwrap_err();
    assert!(
        e.to_string().contains("index 7 beyond the 3 vertices"),
        "{e}"
    );
}

/// One JOINTS set as u8, u16, strided u16 and u32 components (the reader's direct four-joint
/// paths and its general one) gives the same joints; a u32 joint beyond 65535 is refused.
#[test]
fn joints_of_every_component_type_read_alike() {
    let joints: [[u32; 4]; 2] = [[0, 1, 2, 3], [200, 7, 0, 0]];
    let read = |component: u32, size: usize, stride: usize, values: [[u32; 4]; 2]| {
        let mut bin = f32s(&[0.0, 0.0, 0.0, 1.0, 0.0, 0.0]);
        bin.extend(f32s(&[0.5, 0.25, 0.25, 0.0, 1.0, 0.0, 0.0, 0.0]));
        for v in values {
            let mut element: Vec<u8> = v
                .iter()
                .flat_map(|&j| j.to_le_bytes().into_iter().take(size))
                .collect();
            element.resize(stride, 0xEE);
            bin.extend(element);
        }
        let json = serde_json::json!({
            "asset": {"version": "2.0"},
            "buffers": [{"byteLength": bin.len()}],
            "bufferViews": [
                {"buffer": 0, "byteOffset": 0, "byteLength": 24},
                {"buffer": 0, "byteOffset": 24, "byteLength": 32},
                {"buffer": 0, "byteOffset": 56, "byteLength": 2 * stride, "byteStride": stride}
            ],
            "accessors": [
                {"bufferView": 0, "componentType": 5126, "count": 2, "type": "VEC3"},
                {"bufferView": 1, "componentType": 5126, "count": 2, "type": "VEC4"},
                {"bufferView": 2, "componentType": component, "count": 2, "type": "VEC4"}
            ],
            "meshes": [{"primitives": [{"attributes":
                {"POSITION": 0, "WEIGHTS_0": 1, "JOINTS_0": 2}}]}],
            "nodes": [{"mesh": 0}],
            "scenes": [{"nodes": [0]}]
        });
        gltf::read_glb(&glb(&json, &bin)).map(|r| r.scene.meshes[0].vertices.joints.clone())
    };
    let want = Some(joints.map(|j| j.map(|x| x as u16)).to_vec());
    for (component, size, stride) in [(5121, 1, 4), (5121, 1, 8), (5123, 2, 8), (5123, 2, 12)] {
        let got = read(component, size, stride, joints).expect("reads");
        assert_eq!(
            got,
            want.clone().map(models::scene::Array::from),
            "component {component}, stride {stride}"
        );
    }
    assert_eq!(
        read(5125, 4, 16, joints).expect("reads"),
        want.map(models::scene::Array::from)
    );
    let err = read(5125, 4, 16, [[0, 1, 2, 3], [70_000, 0, 0, 0]]).unwrap_err();
    assert!(
        err.to_string().contains("joint 70000 beyond 65535"),
        "{err}"
    );
}

/// `COLOR_0` in every layout: normalised bytes (a strided `VEC3`, a tightly packed `VEC4`) are
/// read as the bytes they are, floats as floats; a mesh whose primitives mix them is floats,
/// and a primitive without colours is filled with white in either form.
#[test]
fn colours_stay_bytes_unless_a_block_is_floats() {
    let mut bin = f32s(&[0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 1.0, 0.0]);
    bin.extend([10, 20, 30, 99, 40, 50, 60, 99, 70, 80, 90, 99]); // 36: VEC3, stride 4
    bin.extend(1u8..=12); // 48: VEC4
    bin.extend(f32s(&[0.5; 12])); // 60: float VEC4
    let json = serde_json::json!({
        "asset": {"version": "2.0"},
        "buffers": [{"byteLength": bin.len()}],
        "bufferViews": [
            {"buffer": 0, "byteLength": 36},
            {"buffer": 0, "byteOffset": 36, "byteLength": 12, "byteStride": 4},
            {"buffer": 0, "byteOffset": 48, "byteLength": 12},
            {"buffer": 0, "byteOffset": 60, "byteLength": 48}
        ],
        "accessors": [
            {"bufferView": 0, "componentType": 5126, "count": 3, "type": "VEC3",
             "min": [0, 0, 0], "max": [1, 1, 0]},
            {"bufferView": 1, "componentType": 5121, "normalized": true, "count": 3, "type": "VEC3"},
            {"bufferView": 2, "componentType": 5121, "normalized": true, "count": 3, "type": "VEC4"},
            {"bufferView": 3, "componentType": 5126, "count": 3, "type": "VEC4"}
        ],
        "meshes": [
            {"primitives": [
                {"attributes": {"POSITION": 0, "COLOR_0": 1}},
                {"attributes": {"POSITION": 0}}
            ]},
            {"primitives": [{"attributes": {"POSITION": 0, "COLOR_0": 2}}]},
            {"primitives": [
                {"attributes": {"POSITION": 0, "COLOR_0": 2}},
                {"attributes": {"POSITION": 0, "COLOR_0": 3}}
            ]}
        ],
        "nodes": [{"mesh": 0}, {"mesh": 1}, {"mesh": 2}],
        "scenes": [{"nodes": [0, 1, 2]}]
    });
    let read = gltf::read_glb(&glb(&json, &bin)).unwrap();
    let colors = |m: usize| read.scene.meshes[m].vertices.colors.clone().unwrap();
    // Each primitive's attribute set is a block of its own: the second one's is filled white.
    let mut strided = vec![[10, 20, 30, 255], [40, 50, 60, 255], [70, 80, 90, 255]];
    strided.extend([[255; 4]; 3]);
    assert_eq!(colors(0), Colors::Bytes(strided.into()));
    let tight = vec![[1, 2, 3, 4], [5, 6, 7, 8], [9, 10, 11, 12]];
    assert_eq!(colors(1), Colors::Bytes(tight.clone().into()));
    let Colors::Floats(mixed) = colors(2) else {
        panic!(
            "a mesh with float colours in one block is floats: {:?}",
            colors(2)
        );
    };
    let unit = |b: u8| f32::from(b) / 255.0;
    let mut want: Vec<[f32; 4]> = tight.iter().map(|c| c.map(unit)).collect();
    want.extend([[0.5; 4]; 3]);
    assert_eq!(mixed, want);
}
