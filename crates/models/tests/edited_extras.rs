//! The way back from a `.glb` that an editor wrote again. Blender 3.4 (its glTF importer and
//! exporter, "Custom Properties" on) keeps our extras, but in its own types, and keeps none of
//! the buffer views the large ones name (`scene/lenient.rs` lists what it does, as measured):
//!
//! * every fixture and sample, its export's extras rewritten as Blender writes them back,
//!   imports into the same file as the untouched export;
//! * an extras reference to a buffer view that holds the file's own data is cut with a warning,
//!   never read as the exact values the export kept.

mod common;

use models::gltf::{self, GltfOptions, ReadWarningKind};
use models::scene::{self, ImportOptions, Scene};
use models::{Document, Format};
use serde_json::{json, Map, Value};

/// An integer Blender cannot hold in its 32-bit integer properties.
fn beyond_i32(n: &serde_json::Number) -> bool {
    n.as_i64().map_or(n.is_u64(), |i| i32::try_from(i).is_err())
}

/// Blender's `repr` of a value it cannot keep: a string no importer reads as the value.
fn unreadable(v: &Value) -> Value {
    Value::String(format!("repr {v}"))
}

/// `v` (an extras value `top` level down) as Blender 3.4 writes it back, or `None` when it
/// drops it: booleans become 0/1; a top-level `null` is dropped; an integer beyond `i32` becomes
/// its decimal string at the top level and makes a list or object holding it unreadable; a list
/// of numbers with a float becomes all floats; a list mixing kinds (numbers, strings, lists,
/// objects) or holding a `null` becomes unreadable.
fn as_blender_writes(v: &Value, top: bool) -> Option<Value> {
    Some(match v {
        Value::Null if top => return None,
        Value::Bool(b) => json!(u8::from(*b)),
        Value::Number(n) if beyond_i32(n) => match top {
            true => Value::String(n.to_string()),
            false => unreadable(v),
        },
        Value::Array(items) => {
            let kind = |x: &Value| match x {
                Value::Bool(_) | Value::Number(_) => 0,
                Value::String(_) => 1,
                Value::Array(_) => 2,
                Value::Object(_) => 3,
                Value::Null => 4,
            };
            let first = items.first().map_or(0, kind);
            let big = items
                .iter()
                .any(|x| matches!(x, Value::Number(n) if beyond_i32(n)));
            if big || items.iter().any(|x| kind(x) != first || x.is_null()) {
                return Some(unreadable(v));
            }
            if items
                .iter()
                .any(|x| x.as_number().is_some_and(|n| n.is_f64()))
            {
                Value::Array(
                    items
                        .iter()
                        .map(|x| json!(x.as_f64().unwrap_or(0.0)))
                        .collect(),
                )
            } else {
                let kept: Option<Vec<Value>> =
                    items.iter().map(|x| as_blender_writes(x, false)).collect();
                match kept {
                    Some(kept) if kept.iter().all(|x| !is_unreadable(x)) => Value::Array(kept),
                    _ => unreadable(v),
                }
            }
        }
        Value::Object(map) => {
            let mut out = Map::new();
            for (k, x) in map {
                let Some(x) = as_blender_writes(x, false) else {
                    continue;
                };
                if is_unreadable(&x) && !top {
                    return Some(unreadable(v));
                }
                out.insert(k.clone(), x);
            }
            Value::Object(out)
        }
        other => other.clone(),
    })
}

fn is_unreadable(v: &Value) -> bool {
    v.as_str().is_some_and(|s| s.starts_with("repr "))
}

/// Every extras map of the glTF JSON rewritten by `f`; how many values it changed.
fn rewrite_extras(root: &mut Value, f: &dyn Fn(&Value) -> Option<Value>) -> usize {
    let mut changed = 0;
    let mut rewrite = |extras: &mut Value| {
        let Some(map) = extras.as_object_mut() else {
            return;
        };
        let old = std::mem::take(map);
        for (k, v) in old {
            let new = f(&v);
            changed += usize::from(new.as_ref() != Some(&v));
            if let Some(new) = new {
                map.insert(k, new);
            }
        }
    };
    if let Some(extras) = root.get_mut("extras") {
        rewrite(extras);
    }
    for coll in [
        "scenes",
        "nodes",
        "meshes",
        "materials",
        "animations",
        "skins",
    ] {
        for item in root
            .get_mut(coll)
            .and_then(Value::as_array_mut)
            .into_iter()
            .flatten()
        {
            if let Some(extras) = item.get_mut("extras") {
                rewrite(extras);
            }
        }
    }
    changed
}

/// The GLB's JSON chunk, parsed, and its BIN chunk.
fn split_glb(glb: &[u8]) -> (Value, Vec<u8>) {
    let json_len = u32::from_le_bytes(glb[12..16].try_into().unwrap()) as usize;
    let json = serde_json::from_slice(&glb[20..20 + json_len]).unwrap();
    (json, glb[20 + json_len + 8..].to_vec())
}

/// A GLB of `json` and the BIN chunk `bin`.
fn join_glb(json: &Value, bin: &[u8]) -> Vec<u8> {
    let mut text = serde_json::to_vec(json).unwrap();
    text.resize(text.len().next_multiple_of(4), b' ');
    let total = 12 + 8 + text.len() + 8 + bin.len();
    let mut out = Vec::with_capacity(total);
    out.extend_from_slice(b"glTF");
    out.extend_from_slice(&2u32.to_le_bytes());
    out.extend_from_slice(&(total as u32).to_le_bytes());
    out.extend_from_slice(&(text.len() as u32).to_le_bytes());
    out.extend_from_slice(b"JSON");
    out.extend_from_slice(&text);
    out.extend_from_slice(&(bin.len() as u32).to_le_bytes());
    out.extend_from_slice(b"BIN\0");
    out.extend_from_slice(bin);
    out
}

/// The document `format` makes of a `.glb`, as bytes (`models convert IN.glb OUT.<fmt>`).
fn import(glb: &[u8], format: Format) -> Vec<u8> {
    let read = gltf::read_glb(glb).unwrap();
    let valid = scene::validate(read.scene).scene;
    let (doc, _) = common::import_as(format, &valid, None, &ImportOptions::default()).unwrap();
    doc.to_bytes().unwrap()
}

/// The export's `.glb` of the fixture `name` of `ext`, as JSON and BIN, and its document.
fn exported(ext: &str, name: &str) -> (Document, Value, Vec<u8>) {
    let path = test_support::fixtures(ext, ext)
        .into_iter()
        .find(|p| test_support::file_name(p) == name)
        .unwrap();
    let doc = models::open(&path).unwrap();
    let scene = Scene::from_document(&doc).unwrap().scene;
    let glb = gltf::to_glb(&scene::validate(scene).scene, &GltfOptions::default())
        .unwrap()
        .into_vec();
    let (json, bin) = split_glb(&glb);
    (doc, json, bin)
}

#[test]
fn extras_as_blender_writes_them_back_import_into_the_same_file() {
    let mut rewritten = 0;
    // As the command line opens them: the MDL 2014 development layout too.
    for file in common::opened() {
        let (name, format) = (&file.name, file.format);
        let scene = Scene::from_document(&file.document).unwrap().scene;
        let glb = gltf::to_glb(&scene::validate(scene).scene, &GltfOptions::default())
            .unwrap()
            .into_vec();
        let (mut json, bin) = split_glb(&glb);
        let changed = rewrite_extras(&mut json, &|v| as_blender_writes(v, true));
        rewritten += changed;
        let edited = join_glb(&json, &bin);
        let (got, want) = (import(&edited, format), import(&glb, format));
        let first_difference = got.iter().zip(&want).position(|(a, b)| a != b);
        assert!(
            got == want,
            "{name}: {changed} extras values as Blender writes them back give another file \
             ({} bytes, not {}; first difference at byte {first_difference:?})",
            got.len(),
            want.len()
        );
    }
    // The fixtures alone hold flags (mesh holders, `unlit`, `loop`) and optional values: a
    // walk over no file fails here.
    assert!(rewritten >= 10, "only {rewritten} extras values rewritten");
}

#[test]
fn an_extras_reference_to_a_view_holding_data_is_cut_with_a_warning() {
    let (_, mut json, bin) = exported("bmf", "static_cube.bmf");
    // The view POSITION reads: what a tool that rewrote the buffers has at the index the
    // export's extras name.
    let position = json["meshes"][0]["primitives"][0]["attributes"]["POSITION"]
        .as_u64()
        .unwrap() as usize;
    let view = json["accessors"][position]["bufferView"].as_u64().unwrap();
    json["meshes"][0]["extras"]["bmf_normals"] = json!({ "bufferView": view });
    let read = gltf::read_glb(&join_glb(&json, &bin)).unwrap();
    let warning = read
        .warnings
        .iter()
        .find(|w| w.at == "meshes[0].extras.bmf_normals")
        .expect("a warning at the reference");
    assert_eq!(
        warning.kind,
        ReadWarningKind::ExtrasViewRewritten {
            view: view as usize
        }
    );
    assert!(warning.to_string().contains("holds the file's own data"));
    assert_eq!(read.scene.blobs.len(), 0, "no blob made of the view");
    assert_eq!(
        read.scene.meshes[0].extras["bmf_normals"],
        json!({ "bufferView": null })
    );
}

/// `json` as Blender 3.4 writes animations: without their extras.
fn without_animation_extras(json: &mut Value) {
    for a in json["animations"].as_array_mut().unwrap() {
        a.as_object_mut().unwrap().remove("extras");
    }
}

/// The document `format` makes of a `.glb`, with the import's warnings and the reader's.
fn import_with_warnings(glb: &[u8], format: Format) -> (Document, Vec<String>) {
    let read = gltf::read_glb(glb).unwrap();
    let mut warnings: Vec<String> = read.warnings.iter().map(|w| w.to_string()).collect();
    let valid = scene::validate(read.scene).scene;
    let (doc, more) = common::import_as(format, &valid, None, &ImportOptions::default()).unwrap();
    warnings.extend(more);
    (doc, warnings)
}

/// Blender drops the extras of animations. The export keeps a copy of their small entries in
/// the scene's extras, which Blender keeps: ELEM clips keep their settings, SMF sets their order
/// and last time. Without the copy too, ELEM says what its clips lose.
#[test]
fn animations_without_extras_get_back_the_scenes_copy() {
    let (doc, mut json, bin) = exported("elem", "skinned_animated.elem");
    without_animation_extras(&mut json);
    let (back, warnings) = import_with_warnings(&join_glb(&json, &bin), Format::Elem);
    assert!(
        warnings.iter().any(|w| w.contains("given back the copy")),
        "{warnings:?}"
    );
    let clips = |d: &Document| match d {
        Document::Elem(e) => e
            .animation
            .iter()
            .flat_map(|a| &a.animations)
            .map(|a| {
                (
                    a.name.clone(),
                    a.time_ms,
                    a.frames_per_second,
                    a.transition_time,
                    a.priority,
                    a.looped,
                )
            })
            .collect::<Vec<_>>(),
        _ => panic!("not ELEM"),
    };
    assert_eq!(clips(&back), clips(&doc));
    assert!(!warnings.iter().any(|w| w.contains("ELEM clip settings")));

    json["scenes"][0]["extras"]
        .as_object_mut()
        .unwrap()
        .remove("animation_extras");
    let (_, warnings) = import_with_warnings(&join_glb(&json, &bin), Format::Elem);
    assert!(
        warnings.iter().any(|w| w.contains("ELEM clip settings")),
        "{warnings:?}"
    );

    // An SMF set whose last time lies past its last key (the fixture's ends on one: 4800).
    let (_, mut json, bin) = exported("smf", "skinned_animated.smf");
    json["animations"][0]["extras"]["smf_last_time_ticks"] = json!(9600);
    json["scenes"][0]["extras"]["animation_extras"][0]["smf_last_time_ticks"] = json!(9600);
    without_animation_extras(&mut json);
    let last_time = |json: &Value| match import_with_warnings(&join_glb(json, &bin), Format::Smf) {
        (Document::Smf(s), _) => s.animation_sets[0].last_time,
        _ => panic!("not SMF"),
    };
    assert_eq!(last_time(&json), 9600);
    json["scenes"][0]["extras"]
        .as_object_mut()
        .unwrap()
        .remove("animation_extras");
    assert_eq!(last_time(&json), 4800, "without the copy: the last key's");
}

/// Blender makes the names of its objects, meshes and materials unique (`Material.001`) and cuts
/// them to 63 bytes. The export keeps a repeated or long name in `exported_name`; the reader
/// gives it back (with one warning) when the glTF name is only such a change of it, and keeps
/// a name the user changed.
#[test]
fn names_an_editor_made_unique_or_cut_come_back_as_exported() {
    let (_, json, bin) = exported("smf", "unknown_chunks.smf");
    let glb = join_glb(&json, &bin);
    // The fixture repeats a mesh name and a material name.
    assert_eq!(json["meshes"][0]["name"], json["meshes"][1]["name"]);
    assert_eq!(
        json["meshes"][1]["extras"]["exported_name"],
        json["meshes"][1]["name"]
    );
    let mut renamed = json.clone();
    let mesh_name = json["meshes"][1]["name"].as_str().unwrap().to_owned();
    let material_name = json["materials"][1]["name"].as_str().unwrap().to_owned();
    renamed["meshes"][1]["name"] = json!(format!("{mesh_name}.001"));
    renamed["materials"][1]["name"] = json!(format!("{material_name}.001"));
    let read = gltf::read_glb(&join_glb(&renamed, &bin)).unwrap();
    assert_eq!(read.scene.meshes[1].name, mesh_name);
    assert_eq!(read.scene.materials[1].name, material_name);
    assert!(!read.scene.meshes[1].extras.contains_key("exported_name"));
    assert!(read
        .warnings
        .iter()
        .any(|w| matches!(w.kind, ReadWarningKind::NamesRestored { count: 2 })));
    assert_eq!(
        import(&join_glb(&renamed, &bin), Format::Smf),
        import(&glb, Format::Smf)
    );

    // A name the user changed stays.
    renamed["meshes"][1]["name"] = json!("新しい名前");
    let read = gltf::read_glb(&join_glb(&renamed, &bin)).unwrap();
    assert_eq!(read.scene.meshes[1].name, "新しい名前");

    // Our own file reads back with the names and extras it was written from.
    let read = gltf::read_glb(&glb).unwrap();
    assert!(!read
        .warnings
        .iter()
        .any(|w| matches!(w.kind, ReadWarningKind::NamesRestored { .. })));
    assert!(read
        .scene
        .meshes
        .iter()
        .all(|m| !m.extras.contains_key("exported_name")));
}

/// Blender's default export writes no extras at all. Onto a base, the import says that only the
/// base gives back what glTF has no place for, and how to keep the extras; not otherwise.
#[test]
fn a_file_without_any_extras_onto_a_base_is_said() {
    let (doc, mut json, bin) = exported("smf", "textured_materials.smf");
    let said = |json: &Value, base: Option<&Document>| {
        let read = gltf::read_glb(&join_glb(json, &bin)).unwrap();
        let valid = scene::validate(read.scene).scene;
        let (_, warnings) =
            common::import_as(Format::Smf, &valid, base, &ImportOptions::default()).unwrap();
        warnings.iter().any(|w| w.contains("Custom Properties"))
    };
    assert!(!said(&json, Some(&doc)));
    rewrite_extras(&mut json, &|_| None);
    assert!(said(&json, Some(&doc)));
    assert!(!said(&json, None));
}

/// Blender's default export (no "Custom Properties") drops every extra. Onto its base, such a
/// file gets the base's extras of the scene and of each material, node and clip of the same
/// name back, with the material parts glTF holds only in extras (`scene/weld/bare.rs`): every
/// file whose own export comes back byte for byte comes back from its export without extras.
#[test]
fn a_file_without_any_extras_comes_back_onto_its_base() {
    let mut count = 0;
    let mut differ = Vec::new();
    for file in common::opened() {
        let (name, format, doc, original) = (file.name, file.format, file.document, file.bytes);
        let scene = Scene::from_document(&doc).unwrap().scene;
        let glb = gltf::to_glb(&scene::validate(scene).scene, &GltfOptions::default())
            .unwrap()
            .into_vec();
        let onto_base = |glb: &[u8]| {
            let read = gltf::read_glb(glb).unwrap();
            let valid = scene::validate(read.scene).scene;
            let options = ImportOptions::default();
            let (back, said) = common::import_as(format, &valid, Some(&doc), &options).unwrap();
            (back.to_bytes().unwrap(), said)
        };
        if onto_base(&glb).0 != original {
            continue;
        }
        count += 1;
        let (mut json, bin) = split_glb(&glb);
        rewrite_extras(&mut json, &|_| None);
        let (back, said) = onto_base(&join_glb(&json, &bin));
        if back != original {
            differ.push(format!("{name}: {said:?}"));
        }
    }
    assert!(count >= 30, "only {count} files");
    assert!(differ.is_empty(), "{}", differ.join("\n"));
}
