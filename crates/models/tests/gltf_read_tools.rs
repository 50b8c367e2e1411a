//! glTF written by other tools reads into the scene model: npm's `@gltf-transform/cli`
//! (interleaved vertex buffers, quantization, reordering, unwelding, sparse accessors, a
//! `.gltf` with an external `.bin`; meshopt compression refused by name), `obj2gltf`, and
//! three.js's `GLTFExporter` run in node (a skinned, animated mesh built in a script). Each also
//! imports into each of the five formats, in a file our readers accept, with every triangle
//! (issues 15, 16). gltf-transform's `reorder` and `unweld` outputs of every fixture and sample
//! come back onto their base byte for byte (`scene/weld.rs`).
//!
//! The tools are installed on first use into `<target>/gltf-tools` with `npm` (as
//! `cargo xtask validate-gltf` installs the validator). Without `npm` the tests skip with a
//! message, unless `MODELS_REQUIRE_GLTF_TOOLS` is set (as `.ci/run` does once it has node).

mod common;

use models::gltf::{self, GltfOptions, ReadError, ReadOptions};
use models::scene::{ImportOptions, Mesh, Node, Primitive, Scene, SceneOptions, Vertices};
use models::{Document, Format};
use std::path::{Path, PathBuf};
use std::process::Command;

const PACKAGES: &[&str] = &["@gltf-transform/cli@4", "obj2gltf@3", "three@0.187"];

/// The folder of the tools' executables, installing them once (the tests of this file run in
/// parallel and must not run `npm install` into one folder together); `None` without npm.
fn tools() -> Option<PathBuf> {
    static TOOLS: std::sync::OnceLock<Option<PathBuf>> = std::sync::OnceLock::new();
    TOOLS.get_or_init(install).clone()
}

fn install() -> Option<PathBuf> {
    let root = test_support::workspace_root();
    let target = match std::env::var_os("CARGO_TARGET_DIR") {
        Some(d) if !d.is_empty() => root.join(d),
        _ => root.join("target"),
    };
    let dir = target.join("gltf-tools");
    let bin = dir.join("node_modules/.bin");
    let three = dir.join("node_modules/three/package.json");
    if bin.join("gltf-transform").exists() && bin.join("obj2gltf").exists() && three.exists() {
        return Some(bin);
    }
    if Command::new("npm").arg("--version").output().is_err() {
        // CI runs this file again once it has installed node and npm, and then requires them.
        assert!(
            std::env::var_os("MODELS_REQUIRE_GLTF_TOOLS").is_none(),
            "npm not found, and MODELS_REQUIRE_GLTF_TOOLS is set"
        );
        eprintln!("skipping: npm not found (needed to install {PACKAGES:?})");
        return None;
    }
    std::fs::create_dir_all(&dir).unwrap();
    let out = Command::new("npm")
        .arg("install")
        .arg("--prefix")
        .arg(&dir)
        .args(["--no-audit", "--no-fund", "--loglevel=error"])
        .args(PACKAGES)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "npm install {PACKAGES:?} failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    Some(bin)
}

fn run(bin: &Path, tool: &str, args: &[&Path]) {
    let out = Command::new(bin.join(tool)).args(args).output().unwrap();
    assert!(
        out.status.success(),
        "{tool} {args:?}: {}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
}

fn fixture_scene(fmt: &str, name: &str) -> Scene {
    let path = test_support::workspace_root()
        .join("fixtures")
        .join(fmt)
        .join(name);
    let doc = models::open(&path).unwrap();
    let mut scene = Scene::from_document_with(&doc, &SceneOptions::default())
        .unwrap()
        .scene;
    // The tools load every image a file names; these tests are about geometry.
    for m in &mut scene.materials {
        m.color_texture = None;
        m.normal_texture = None;
    }
    scene
}

/// Issues 15, 16: a file another tool wrote imports into each of the five formats, in a file
/// that format's reader accepts, with every triangle, and (BMF, SKM) with bones when the scene
/// is skinned. (SMF counts its frames as bones, skinned or not; MDL binds every mesh to a bone;
/// ELEM's hierarchy holds frames too: for those "bones" says nothing about skinning.)
fn imports_into_every_format(label: &str, scene: &Scene) {
    let expected: usize = triangles(scene).iter().sum();
    let skinned = !scene.skins.is_empty();
    let valid = models::scene::validate(scene.clone()).scene;
    for format in [
        Format::Smf,
        Format::Bmf,
        Format::Mdl,
        Format::Elem,
        Format::Skm,
    ] {
        let imported = Document::from_scene(format, &valid, None, &ImportOptions::default())
            .unwrap_or_else(|e| panic!("{label} into {format}: {e}"));
        let bytes = imported
            .document
            .to_bytes()
            .unwrap_or_else(|e| panic!("{label} into {format}: {e}"));
        let back = models::from_bytes(&bytes)
            .unwrap_or_else(|e| panic!("{label} into {format}, read back: {e}"));
        let summary = back.summary();
        assert_eq!(summary.format, format, "{label}");
        // Triangles, counted in the scene read back: an ELEM's faces may be quads again when
        // the tool kept our `elem_faces` extras (gltf-transform copies extras).
        let back_scene = Scene::from_document(&back).unwrap().scene;
        assert_eq!(
            triangles(&back_scene).iter().sum::<usize>(),
            expected,
            "{label} into {format}: triangles"
        );
        if matches!(format, Format::Bmf | Format::Skm) {
            assert_eq!(summary.bones > 0, skinned, "{label} into {format}: bones");
        }
    }
}

fn triangles(s: &Scene) -> Vec<usize> {
    s.meshes
        .iter()
        .map(|m| m.primitives.iter().map(|p| p.indices.len() / 3).sum())
        .collect()
}

fn channels(s: &Scene) -> Vec<usize> {
    s.animations.iter().map(|a| a.channels.len()).collect()
}

fn joints(s: &Scene) -> Vec<usize> {
    s.skins.iter().map(|k| k.joints.len()).collect()
}

/// Each fixture through `copy` (interleaved), `copy` to `.gltf` + `.bin`, `quantize`,
/// `reorder` and `unweld`: the same meshes, triangles, joints and channels; `copy` keeps every
/// position bit for bit.
#[test]
fn gltf_transform_outputs_read_back() {
    let Some(bin) = tools() else { return };
    let dir = tempfile::tempdir().unwrap();
    for (fmt, name) in [
        ("smf", "skinned_animated.smf"),
        ("bmf", "skinned_arm.bmf"),
        ("bmf", "multi_three_meshes.bmf"),
        ("elem", "uv2_colors_quads.elem"),
        ("mdl", "skinned_arm_v2.mdl"),
    ] {
        let glb = gltf::to_glb(
            &models::scene::validate(fixture_scene(fmt, name)).scene,
            &GltfOptions::default(),
        )
        .unwrap();
        let input = dir.path().join(format!("{name}.glb"));
        std::fs::write(&input, &glb).unwrap();
        let ours = gltf::read_glb(&glb).unwrap().scene;
        for command in ["copy", "copy-gltf", "quantize", "reorder", "unweld"] {
            let ext = if command == "copy-gltf" {
                "gltf"
            } else {
                "glb"
            };
            let output = dir.path().join(format!("{name}.{command}.{ext}"));
            let tool_command = command.trim_end_matches("-gltf");
            run(
                &bin,
                "gltf-transform",
                &[Path::new(tool_command), &input, &output],
            );
            let label = format!("{name} via gltf-transform {command}");
            let read = gltf::read_path(&output, &ReadOptions::default())
                .unwrap_or_else(|e| panic!("{label}: {e}"));
            for w in &read.warnings {
                eprintln!("{label}: {w}");
            }
            let theirs = &read.scene;
            assert_eq!(triangles(theirs), triangles(&ours), "{label}: triangles");
            imports_into_every_format(&label, theirs);
            assert_eq!(joints(theirs), joints(&ours), "{label}: joints");
            assert_eq!(channels(theirs), channels(&ours), "{label}: channels");
            match command {
                "copy" | "copy-gltf" => {
                    for (a, b) in theirs.meshes.iter().zip(&ours.meshes) {
                        let bits = |m: &Mesh| -> Vec<[u32; 3]> {
                            m.vertices
                                .positions
                                .iter()
                                .map(|p| p.map(f32::to_bits))
                                .collect()
                        };
                        assert_eq!(bits(a), bits(b), "{label}: positions");
                        let idx = |m: &Mesh| -> Vec<Vec<u32>> {
                            m.primitives.iter().map(|p| p.indices.to_vec()).collect()
                        };
                        assert_eq!(idx(a), idx(b), "{label}: indices");
                    }
                }
                "unweld" => {
                    for m in &theirs.meshes {
                        let n: usize = m.primitives.iter().map(|p| p.indices.len()).sum();
                        assert_eq!(m.vertices.positions.len(), n, "{label}: unwelded");
                    }
                }
                _ => {}
            }
        }
    }
}

/// `meshopt` makes EXT_meshopt_compression required: refused with its name.
#[test]
fn meshopt_is_refused_by_name() {
    let Some(bin) = tools() else { return };
    let dir = tempfile::tempdir().unwrap();
    let glb = gltf::to_glb(
        &models::scene::validate(fixture_scene("smf", "skinned_animated.smf")).scene,
        &GltfOptions::default(),
    )
    .unwrap();
    let input = dir.path().join("in.glb");
    let output = dir.path().join("out.glb");
    std::fs::write(&input, glb).unwrap();
    run(
        &bin,
        "gltf-transform",
        &[Path::new("meshopt"), &input, &output],
    );
    let e = gltf::read_path(&output, &ReadOptions::default()).unwrap_err();
    assert!(
        matches!(&e, ReadError::UnsupportedExtension { name, .. } if name == "EXT_meshopt_compression"),
        "{e}"
    );
}

/// `sparse` stores a mostly-zero accessor sparsely (here UVs, three quarters at the origin): the
/// values read back exactly.
#[test]
fn sparse_accessors_read_back() {
    let Some(bin) = tools() else { return };
    let n = 30u32;
    let positions: Vec<[f32; 3]> = (0..n).map(|i| [i as f32, (i % 3) as f32, 0.0]).collect();
    let uv0: Vec<[f32; 2]> = (0..n)
        .map(|i| {
            if i % 4 == 0 {
                [0.25, i as f32 / 30.0]
            } else {
                [0.0, 0.0]
            }
        })
        .collect();
    let scene = Scene {
        nodes: vec![Node {
            name: "n".into(),
            mesh: Some(0),
            ..Node::default()
        }],
        roots: vec![0],
        meshes: vec![Mesh {
            name: "m".into(),
            vertices: Vertices {
                positions: positions.into(),
                uv0: Some(uv0.clone().into()),
                ..Vertices::default()
            },
            primitives: vec![Primitive {
                indices: (0..n - 2)
                    .flat_map(|i| [i, i + 1, i + 2])
                    .collect::<Vec<u32>>()
                    .into(),
                material: None,
            }],
            ..Mesh::default()
        }],
        ..Scene::default()
    };
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("in.glb");
    let output = dir.path().join("out.gltf");
    std::fs::write(
        &input,
        gltf::to_glb(
            &models::scene::validate(scene.clone()).scene,
            &GltfOptions::default(),
        )
        .unwrap(),
    )
    .unwrap();
    run(
        &bin,
        "gltf-transform",
        &[Path::new("sparse"), &input, &output],
    );
    let text = std::fs::read_to_string(&output).unwrap();
    assert!(
        text.contains("\"sparse\""),
        "gltf-transform wrote no sparse accessor"
    );
    let read = gltf::read_path(&output, &ReadOptions::default()).unwrap();
    assert_eq!(read.scene.meshes[0].vertices.uv0.as_deref(), Some(&uv0[..]));
}

/// `obj2gltf` on a small OBJ (quads, two materials, normals and UVs), as `.gltf` with `data:`
/// URIs and as `.glb`.
#[test]
fn obj2gltf_outputs_read_back() {
    let Some(bin) = tools() else { return };
    let dir = tempfile::tempdir().unwrap();
    let obj = dir.path().join("cube.obj");
    std::fs::write(
        dir.path().join("cube.mtl"),
        "newmtl red\nKd 1 0 0\nnewmtl blue\nKd 0 0 1\n",
    )
    .unwrap();
    let mut text = String::from("mtllib cube.mtl\n");
    for v in 0..8 {
        let c = |bit: u32| if v & bit != 0 { 1.0 } else { -1.0 };
        text += &format!("v {} {} {}\n", c(1), c(2), c(4));
    }
    text += "vt 0 0\nvt 1 0\nvt 1 1\nvt 0 1\n";
    text += "vn 0 0 1\n";
    let faces = [
        [1, 2, 4, 3],
        [5, 7, 8, 6],
        [1, 5, 6, 2],
        [3, 4, 8, 7],
        [1, 3, 7, 5],
        [2, 6, 8, 4],
    ];
    for (k, f) in faces.iter().enumerate() {
        if k == 0 {
            text += "usemtl red\n";
        }
        if k == 3 {
            text += "usemtl blue\n";
        }
        text += &format!("f {}/1/1 {}/2/1 {}/3/1 {}/4/1\n", f[0], f[1], f[2], f[3]);
    }
    std::fs::write(&obj, text).unwrap();
    for (out, binary) in [("cube.gltf", false), ("cube.glb", true)] {
        let output = dir.path().join(out);
        let mut args: Vec<&Path> = vec![Path::new("-i"), &obj, Path::new("-o"), &output];
        if binary {
            args.push(Path::new("-b"));
        }
        run(&bin, "obj2gltf", &args);
        let read = gltf::read_path(&output, &ReadOptions::default())
            .unwrap_or_else(|e| panic!("{out}: {e}"));
        for w in &read.warnings {
            eprintln!("{out}: {w}");
        }
        let s = &read.scene;
        assert_eq!(triangles(s).iter().sum::<usize>(), 12, "{out}: triangles");
        assert_eq!(s.materials.len(), 2, "{out}: materials");
        let red = s.materials.iter().find(|m| m.name == "red").unwrap();
        assert_eq!(&red.base_color[..3], &[1.0, 0.0, 0.0], "{out}: red");
        assert!(s.meshes.iter().all(|m| m.vertices.normals.is_some()));
        imports_into_every_format(out, s);
    }
}

/// A node script that builds a skinned, animated box with three.js and writes it with
/// `GLTFExporter` (`binary: true`) to the path in its first argument. Node has `Blob` but no
/// `FileReader`, which the exporter uses to turn its blob into the GLB's bytes: the script
/// adds the little of it that is needed.
const THREE_EXPORT: &str = r#"
import * as THREE from 'three';
import { GLTFExporter } from 'three/examples/jsm/exporters/GLTFExporter.js';
import { writeFileSync } from 'node:fs';

if (typeof globalThis.FileReader === 'undefined') {
  globalThis.FileReader = class {
    readAsArrayBuffer(blob) {
      blob.arrayBuffer().then((b) => { this.result = b; this.onloadend && this.onloadend(); });
    }
    readAsDataURL(blob) {
      blob.arrayBuffer().then((b) => {
        const type = blob.type || 'application/octet-stream';
        this.result = `data:${type};base64,` + Buffer.from(b).toString('base64');
        this.onloadend && this.onloadend();
      });
    }
  };
}

const geometry = new THREE.BoxGeometry(1, 2, 1, 1, 2, 1);
const position = geometry.attributes.position;
const skinIndex = [];
const skinWeight = [];
for (let i = 0; i < position.count; i++) {
  const upper = position.getY(i) > 0 ? 1 : 0;
  skinIndex.push(upper, 0, 0, 0);
  skinWeight.push(1, 0, 0, 0);
}
geometry.setAttribute('skinIndex', new THREE.Uint16BufferAttribute(skinIndex, 4));
geometry.setAttribute('skinWeight', new THREE.Float32BufferAttribute(skinWeight, 4));

const root = new THREE.Bone();
root.name = 'root';
const tip = new THREE.Bone();
tip.name = 'tip';
tip.position.y = 1;
root.add(tip);
const mesh = new THREE.SkinnedMesh(geometry, new THREE.MeshStandardMaterial({ color: 0x3366ff }));
mesh.name = 'box';
mesh.add(root);
mesh.bind(new THREE.Skeleton([root, tip]));
const scene = new THREE.Scene();
scene.add(mesh);

const bend = new THREE.Quaternion().setFromAxisAngle(new THREE.Vector3(0, 0, 1), Math.PI / 4);
const clip = new THREE.AnimationClip('bend', 1, [
  new THREE.QuaternionKeyframeTrack('tip.quaternion', [0, 0.5, 1], [0, 0, 0, 1, ...bend.toArray(), 0, 0, 0, 1]),
  new THREE.VectorKeyframeTrack('root.position', [0, 1], [0, 0, 0, 0, 0.5, 0]),
]);

const glb = await new GLTFExporter().parseAsync(scene, { binary: true, animations: [clip] });
writeFileSync(process.argv[2], Buffer.from(glb));
"#;

/// three.js's `GLTFExporter` output (a skinned box of two bones, one clip of two channels)
/// reads into the same counts.
#[test]
fn three_gltf_exporter_output_reads_back() {
    let Some(bin) = tools() else { return };
    let tools_dir = bin.parent().and_then(Path::parent).unwrap().to_path_buf();
    // Beside node_modules, so that `import 'three'` resolves.
    let script = tools_dir.join("three_export_skinned.mjs");
    std::fs::write(&script, THREE_EXPORT).unwrap();
    let dir = tempfile::tempdir().unwrap();
    let output = dir.path().join("three.glb");
    let out = Command::new("node")
        .arg(&script)
        .arg(&output)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "node three_export_skinned.mjs: {}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    let bytes = std::fs::read(&output).unwrap();
    assert!(bytes.starts_with(b"glTF"), "three.js wrote no GLB");
    let read = gltf::read_glb(&bytes).unwrap_or_else(|e| panic!("three.js GLB: {e}"));
    for w in &read.warnings {
        eprintln!("three.js GLB: {w}");
    }
    let s = &read.scene;
    // BoxGeometry(1, 2, 1, 1, 2, 1): the x and z sides are 1 × 2 quads on a 2 × 3 vertex
    // grid, the y sides 1 quad on 2 × 2: 10 quads, 4 × 6 + 2 × 4 vertices.
    assert_eq!(triangles(s), vec![20], "triangles");
    assert_eq!(s.meshes[0].vertices.positions.len(), 32, "vertices");
    assert!(s.meshes[0].vertices.joints.is_some(), "JOINTS_0");
    assert!(s.meshes[0].vertices.weights.is_some(), "WEIGHTS_0");
    assert_eq!(joints(s), vec![2], "joints");
    assert_eq!(channels(s), vec![2], "channels");
    assert_eq!(s.animations[0].name, "bend");
    assert_eq!(s.materials.len(), 1, "materials");
    let names: Vec<&str> = s.nodes.iter().map(|n| n.name.as_str()).collect();
    assert!(
        names.contains(&"root") && names.contains(&"tip"),
        "{names:?}"
    );
    imports_into_every_format("three.js GLB", s);
}

/// The way back onto a base after a tool rewrote the vertices: gltf-transform `reorder` (vertices
/// and triangles reordered for the vertex cache, −0 written as 0 in the extras) and `unweld`
/// (one vertex per corner). Every fixture and sample whose own export comes back byte for byte
/// onto its base does so from both tools' files too (`scene/weld.rs`; SKM bones equal but for a
/// zero's sign are the base's, `scene/to_skm.rs`).
#[test]
fn gltf_transform_rewrites_come_back_onto_their_base() {
    let Some(bin) = tools() else { return };
    let dir = tempfile::tempdir().unwrap();
    let mut checked = 0;
    for file in common::opened() {
        let (name, path, format) = (file.name, file.path, file.format);
        let (original, doc) = (file.bytes, file.document);
        let scene = Scene::from_document(&doc).unwrap().scene;
        // As `models convert` writes a `.glb`: textures embedded, looked up beside the
        // source (the fixtures and samples ship none: their names stay in the extras, and
        // the tool has no image to load).
        let options = GltfOptions {
            embed_textures: true,
            ..GltfOptions::for_source(&path)
        };
        let glb = gltf::to_glb(&models::scene::validate(scene).scene, &options).unwrap();
        let onto_base = |glb: &Path| -> Vec<u8> {
            let read = gltf::read_path(glb, &ReadOptions::default()).unwrap();
            let valid = models::scene::validate(read.scene).scene;
            let back = Document::from_scene(format, &valid, Some(&doc), &ImportOptions::default())
                .unwrap_or_else(|e| panic!("{name}: {e}"));
            back.document.to_bytes().unwrap()
        };
        let input = dir.path().join(format!("{name}.glb"));
        std::fs::write(&input, &glb).unwrap();
        if onto_base(&input) != original {
            continue;
        }
        for command in ["reorder", "unweld"] {
            let output = dir.path().join(format!("{name}.{command}.glb"));
            run(
                &bin,
                "gltf-transform",
                &[Path::new(command), &input, &output],
            );
            assert!(
                onto_base(&output) == original,
                "{name} via gltf-transform {command}: not the same file"
            );
            checked += 1;
        }
    }
    assert!(checked >= 20, "only {checked} files checked");
}
