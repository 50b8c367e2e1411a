//! Issue 14, "How to show it": a small game folder converted in batch. Models sit in one
//! folder; their textures beside them under another case (`Tex\Hero.png` for `TEX/hero.PNG`),
//! some TGA and BMP, one only in a `--texture-dir` folder. Converted to `.glb` (embedded by
//! default, or referenced with `--reference-textures`) and to `.gltf`, every image reference
//! must resolve and be PNG or JPEG; a missing texture is one warning listing it.

mod common;
use common::*;

use std::path::{Path, PathBuf};

/// A real 1×1 PNG.
const PNG: &[u8] = test_support::PNG_1X1;

/// An uncompressed 2×1 24-bit TGA.
fn tga() -> Vec<u8> {
    let mut t = vec![0, 0, 2, 0, 0, 0, 0, 0, 0, 0, 0, 0, 2, 0, 1, 0, 24, 0];
    t.extend_from_slice(&[255, 0, 0, 0, 255, 0]);
    t
}

/// A 1×1 24-bit BMP.
fn bmp() -> Vec<u8> {
    let mut b = b"BM".to_vec();
    b.extend_from_slice(&58u32.to_le_bytes()); // file size
    b.extend_from_slice(&[0, 0, 0, 0]);
    b.extend_from_slice(&54u32.to_le_bytes()); // pixel offset
    b.extend_from_slice(&40u32.to_le_bytes()); // BITMAPINFOHEADER
    b.extend_from_slice(&1i32.to_le_bytes());
    b.extend_from_slice(&1i32.to_le_bytes());
    b.extend_from_slice(&1u16.to_le_bytes()); // planes
    b.extend_from_slice(&24u16.to_le_bytes()); // bits
    b.extend_from_slice(&[0; 24]); // compression .. important colours
    b.extend_from_slice(&[0, 0, 255, 0]); // one red pixel, padded to 4 bytes
    b
}

/// An ELEM model with one triangle per texture, each material naming one texture.
fn elem(textures: &[&str]) -> String {
    let mut s = String::from("Elfreina Extension Model File\r\nFile Version 1.00\r\nMeshDataList {\r\nMeshContainer {\r\nMaterials {\r\n");
    for t in textures {
        s.push_str(&format!(
            "Material {{\r\nDiffuse=1:1:1:1\r\nTextureFilename=\"{t}\"\r\n}}\r\n"
        ));
    }
    s.push_str("}\r\nMesh {\r\nPositions {\r\n0:0:0\r\n1:0:0\r\n0:1:0\r\n}\r\nTextureUV {\r\n0:0\r\n1:0\r\n0:1\r\n}\r\nVertexIndices {\r\n");
    for _ in textures {
        s.push_str("3,0:1:2\r\n");
    }
    s.push_str("}\r\nAttributes {\r\n");
    for i in 0..textures.len() {
        s.push_str(&format!("{i}\r\n"));
    }
    s.push_str("}\r\n}\r\n}\r\n}\r\n");
    s
}

/// Builds the game folder; returns (models folder, shared texture folder).
fn game(root: &Path) -> (PathBuf, PathBuf) {
    let models_dir = root.join("Data/Model");
    let shared = root.join("Data/Shared");
    std::fs::create_dir_all(models_dir.join("TEX/Sub")).unwrap();
    std::fs::create_dir_all(&shared).unwrap();
    std::fs::write(models_dir.join("TEX/hero.PNG"), PNG).unwrap();
    std::fs::write(models_dir.join("TEX/Sub/ENEMY.Tga"), tga()).unwrap();
    std::fs::write(models_dir.join("Crate.BMP"), bmp()).unwrap();
    std::fs::write(shared.join("sky.png"), PNG).unwrap();
    std::fs::write(
        models_dir.join("hero.elem"),
        elem(&[r"Tex\Hero.png", r"tex\sub\enemy.tga", "crate.bmp"]),
    )
    .unwrap();
    std::fs::write(
        models_dir.join("enemy.elem"),
        elem(&[r".\TEX\SUB\Enemy.TGA", r"Textures\sky.png"]),
    )
    .unwrap();
    std::fs::write(
        models_dir.join("crate.elem"),
        elem(&["CRATE.bmp", r"tex\hero.png"]),
    )
    .unwrap();
    (models_dir, shared)
}

fn is_png_or_jpeg(bytes: &[u8]) -> bool {
    bytes.starts_with(b"\x89PNG\r\n\x1a\n") || bytes.starts_with(&[0xFF, 0xD8, 0xFF])
}

/// Checks every image of the glTF JSON `json` (beside `dir`, with the GLB's `blob`): an
/// embedded PNG or JPEG, or a relative URI to an existing PNG or JPEG file. Returns the
/// number of images.
fn check_images(what: &Path, json: &serde_json::Value, dir: &Path, blob: &[u8]) -> usize {
    let images = json["images"].as_array().cloned().unwrap_or_default();
    for image in &images {
        if let Some(uri) = image["uri"].as_str() {
            assert!(
                uri.ends_with(".png") || uri.ends_with(".jpg"),
                "{}: {uri}",
                what.display()
            );
            assert!(!uri.contains(".."), "{}: {uri}", what.display());
            let file = dir.join(uri);
            let bytes = std::fs::read(&file)
                .unwrap_or_else(|e| panic!("{}: {uri} does not resolve: {e}", what.display()));
            assert!(is_png_or_jpeg(&bytes), "{}: {uri}", what.display());
        } else {
            let view = &json["bufferViews"][image["bufferView"].as_u64().unwrap() as usize];
            let offset = view["byteOffset"].as_u64().unwrap_or(0) as usize;
            let length = view["byteLength"].as_u64().unwrap() as usize;
            assert!(
                is_png_or_jpeg(&blob[offset..offset + length]),
                "{}",
                what.display()
            );
            let mime = image["mimeType"].as_str().unwrap();
            assert!(mime == "image/png" || mime == "image/jpeg", "{mime}");
        }
    }
    images.len()
}

/// Every output in `out` (recursively): its file and (JSON, folder, binary chunk).
fn outputs(out: &Path) -> Vec<(PathBuf, serde_json::Value, Vec<u8>)> {
    let mut found = Vec::new();
    for entry in std::fs::read_dir(out).unwrap() {
        let path = entry.unwrap().path();
        let ext = path
            .extension()
            .and_then(|e| e.to_str())
            .unwrap_or_default();
        if ext == "glb" {
            let g = gltf::Gltf::from_slice(&std::fs::read(&path).unwrap()).unwrap();
            let json = serde_json::to_value(g.document.into_json()).unwrap();
            found.push((path, json, g.blob.unwrap_or_default()));
        } else if ext == "gltf" {
            let json = serde_json::from_slice(&std::fs::read(&path).unwrap()).unwrap();
            found.push((path, json, Vec::new()));
        }
    }
    found.sort_by(|a, b| a.0.cmp(&b.0));
    found
}

#[test]
fn a_game_folder_converts_with_every_texture_resolved() {
    let root = tempfile::tempdir().unwrap();
    let (models_dir, shared) = game(root.path());
    for (mode, extra) in [
        ("glb", vec![]),
        ("gltf", vec!["--to", "gltf"]),
        ("reference", vec!["--reference-textures"]),
    ] {
        let out = root.path().join(format!("out-{mode}"));
        let mut args: Vec<&dyn AsRef<std::ffi::OsStr>> = vec![&"convert", &"--out-dir", &out];
        for e in &extra {
            args.push(e);
        }
        args.extend([
            &"--texture-dir" as &dyn AsRef<std::ffi::OsStr>,
            &shared,
            &models_dir,
        ]);
        let o = models(&args);
        let err = stderr(&o);
        assert_eq!(o.status.code(), Some(0), "{mode}: {err}");
        assert!(!err.contains("not found"), "{mode}: {err}");
        assert!(!err.contains("not embedded"), "{mode}: {err}");
        let written = outputs(&out);
        assert_eq!(written.len(), 3, "{mode}: {written:?}");
        let mut images = 0;
        for (path, json, blob) in &written {
            images += check_images(path, json, path.parent().unwrap(), blob);
            if mode == "glb" {
                assert!(
                    json["images"]
                        .as_array()
                        .unwrap()
                        .iter()
                        .all(|i| i["uri"].is_null()),
                    "{mode}: {}: a .glb embeds by default",
                    path.display()
                );
            } else {
                assert!(
                    json["images"]
                        .as_array()
                        .unwrap()
                        .iter()
                        .all(|i| i["uri"].is_string()),
                    "{mode}: {}",
                    path.display()
                );
            }
        }
        // hero: 3 images, enemy: 2, crate: 2 (each model's spellings of one file share one).
        assert_eq!(images, 7, "{mode}");
    }
}

#[test]
fn a_missing_texture_is_one_warning_listing_what_is_missing() {
    let root = tempfile::tempdir().unwrap();
    let model = root.path().join("m.elem");
    std::fs::write(&model, elem(&["a.png", r"tex\b.tga", "a.png", "c.bmp"])).unwrap();
    std::fs::write(root.path().join("c.bmp"), bmp()).unwrap();
    let out = root.path().join("m.glb");
    let o = models(&[&"convert", &model, &out]);
    let err = stderr(&o);
    assert_eq!(o.status.code(), Some(0), "{err}");
    let lines: Vec<&str> = err.lines().filter(|l| l.contains("not found")).collect();
    assert_eq!(lines.len(), 1, "{err}");
    assert!(
        lines[0].contains(r#"2 texture file(s) not found beside the model"#)
            && lines[0].contains(r#""a.png", "tex\\b.tga""#),
        "{err}"
    );
    let written = outputs(root.path());
    assert_eq!(
        check_images(&out, &written[0].1, root.path(), &written[0].2),
        1
    );
}

/// `convert --dry-run` lists, per output, the images it would embed or write beside it, and
/// the textures it would not find; it writes nothing.
#[test]
fn a_dry_run_lists_the_images_and_the_missing_textures() {
    let root = tempfile::tempdir().unwrap();
    let (models_dir, _shared) = game(root.path()); // no --texture-dir: sky.png is not found
    let out = root.path().join("out");
    let o = models(&[&"convert", &"--dry-run", &"--out-dir", &out, &models_dir]);
    let text = String::from_utf8_lossy(&o.stdout).into_owned();
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert!(!out.exists(), "a dry run writes nothing");
    // hero.elem: three textures, all found, embedded in its .glb.
    assert!(text.contains("embeds 3 images"), "{text}");
    // enemy.elem: the TGA is found, sky.png is not.
    assert!(text.contains("embeds 1 image: "), "{text}");
    assert!(
        text.contains(r"textures not found: Textures\sky.png"),
        "{text}"
    );
    let o = models(&[
        &"convert",
        &"--dry-run",
        &models_dir.join("hero.elem"),
        &root.path().join("hero.gltf"),
    ]);
    let text = String::from_utf8_lossy(&o.stdout).into_owned();
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert!(text.contains("hero.bin"), "{text}");
    assert!(text.contains("hero_textures/ (3 images"), "{text}");
}
