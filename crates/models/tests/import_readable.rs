//! The way back writes files its own readers take. The readers hold the engines' rules (an
//! index the engine follows unchecked is refused), so an import they refuse is a mod that
//! crashes the old game. Each edit below once made an importer write such a file (found by
//! running the import fuzzers' corpora through every importer and reading the results back;
//! FUZZING.md): applied to every fixture and sample of every format, the scene is imported into
//! every format, and each file written must read back. An importer may refuse (a typed error);
//! it may not write what its reader refuses.

mod common;

use models::scene::{validate, ImportOptions, Scene};
use models::{Document, Format};
use std::collections::BTreeMap;

/// An edit: of the document before its export (data a file cannot hold, which the export keeps
/// as the source's own bits) or of the exported scene (what an editor may do). `true` when the
/// file had something to edit.
enum Edit {
    Document(fn(&mut Document) -> bool),
    Scene(fn(&mut Scene) -> bool),
}

const EDITS: [(&str, Edit); 8] = [
    ("a skin lists a joint twice", Edit::Scene(joint_twice)),
    (
        "an SMF material's stored vertex range passes the mesh's vertices",
        Edit::Scene(smf_vertex_range_past_vertices),
    ),
    (
        "an SMF material's stored triangle range passes the mesh's triangles",
        Edit::Scene(smf_triangle_range_past_triangles),
    ),
    (
        "a joint is a node the export made to hold a mesh",
        Edit::Scene(joint_on_mesh_holder),
    ),
    (
        "an SMF collision face names no C_VX vertex",
        Edit::Document(collision_face_past_vertices),
    ),
    (
        "an SMF collision run covers faces past C_FC",
        Edit::Document(collision_run_past_faces),
    ),
    (
        "a weighted MDL bone index names no connector",
        Edit::Document(mdl_bone_past_connectors),
    ),
    (
        "a weighted BMF bone index names no bone",
        Edit::Document(bmf_bone_past_bones),
    ),
];

#[test]
fn edited_models_import_into_files_the_readers_take() {
    let mut applied: BTreeMap<&str, usize> = BTreeMap::new();
    let mut written = 0;
    let mut unreadable = Vec::new();
    for file in common::opened() {
        for (what, edit) in &EDITS {
            let scene = match edit {
                Edit::Document(edit) => {
                    let mut doc = file.document.clone();
                    if !edit(&mut doc) {
                        continue;
                    }
                    Scene::from_document(&doc).unwrap().scene
                }
                Edit::Scene(edit) => {
                    let mut scene = common::through_glb(&file.document).into_inner();
                    if !edit(&mut scene) {
                        continue;
                    }
                    scene
                }
            };
            *applied.entry(what).or_default() += 1;
            let valid = validate(scene).scene;
            for format in Format::ALL {
                let Ok(out) = Document::from_scene(format, &valid, None, &ImportOptions::default())
                else {
                    continue;
                };
                let bytes = out.document.to_bytes().unwrap();
                match Document::parse_as(format, &bytes) {
                    Ok(_) => written += 1,
                    Err(e) => unreadable.push(format!("{} ({what}) as {format:?}: {e}", file.name)),
                }
            }
        }
    }
    eprintln!("{written} files written and read back; edits applied: {applied:?}");
    assert!(unreadable.is_empty(), "{}", unreadable.join("\n"));
    for (what, _) in &EDITS {
        assert!(applied.contains_key(what), "no file to apply {what:?} to");
    }
}

/// A joint listed twice makes the skin unusable, and the weights on it were then not cleaned:
/// a weight on a joint past the skin's (what validation drops for a usable skin) was written.
fn joint_twice(scene: &mut Scene) -> bool {
    let mut edited = false;
    for (s, skin) in scene.skins.iter_mut().enumerate() {
        if skin.joints.len() < 2 {
            continue;
        }
        skin.joints[1] = skin.joints[0];
        let past = u16::try_from(skin.joints.len() + 12).unwrap();
        let drawn = scene.nodes.iter().filter(|n| n.skin == Some(s));
        for m in drawn.filter_map(|n| n.mesh) {
            let v = &mut scene.meshes[m].vertices;
            if let (Some(j), Some(w)) = (&mut v.joints, &v.weights) {
                if let (Some(j), Some(slot)) = (j.first_mut(), w[0].iter().position(|&w| w > 0.0)) {
                    j[slot] = past;
                }
            }
        }
        edited = true;
    }
    edited
}

/// Found by `import_gltf` (fourteenth session): `smf_vertices` of `[0, n]` edited to
/// `[5, n]` was written as it was.
fn smf_vertex_range_past_vertices(scene: &mut Scene) -> bool {
    let mut edited = false;
    for material in &mut scene.materials {
        let range = material
            .extras
            .get("smf_vertices")
            .and_then(|v| v.as_array());
        if let Some([_, count]) = range.map(Vec::as_slice) {
            let count = count.clone();
            material
                .extras
                .insert("smf_vertices".into(), serde_json::json!([5, count]));
            edited = true;
        }
    }
    edited
}

/// The same for a triangle range, on a material of the mesh that no primitive uses any more
/// (its range is not matched with triangles): `smf_polygons` past the mesh's triangles.
fn smf_triangle_range_past_triangles(scene: &mut Scene) -> bool {
    let Some(m) = scene
        .materials
        .iter()
        .position(|m| m.extras.contains_key("smf_polygons"))
    else {
        return false;
    };
    let mut unused = scene.materials[m].clone();
    unused.name = format!("{} unused", unused.name);
    unused
        .extras
        .insert("smf_polygons".into(), serde_json::json!([1_000_000, 3]));
    scene.materials.push(unused);
    true
}

fn joint_on_mesh_holder(scene: &mut Scene) -> bool {
    let holder = scene
        .nodes
        .iter()
        .position(|n| n.extras.get("smf_mesh_node") == Some(&serde_json::Value::Bool(true)));
    match (holder, scene.skins.first_mut()) {
        (Some(h), Some(skin)) if !skin.joints.is_empty() && !skin.joints.contains(&h) => {
            skin.joints[0] = h;
            true
        }
        _ => false,
    }
}

fn collision_face_past_vertices(doc: &mut Document) -> bool {
    let Document::Smf(smf) = doc else {
        return false;
    };
    let mut edited = false;
    for mesh in &mut smf.meshes {
        let count = mesh.collision_vertices.as_ref().map_or(0, Vec::len);
        if let Some(face) = mesh.collision_faces.iter_mut().flatten().next() {
            face.indices[0] = i32::try_from(count).unwrap();
            edited = true;
        }
    }
    edited
}

fn collision_run_past_faces(doc: &mut Document) -> bool {
    let Document::Smf(smf) = doc else {
        return false;
    };
    let mut edited = false;
    for mesh in &mut smf.meshes {
        let faces = mesh.collision_faces.as_ref().map_or(0, Vec::len);
        if let Some(run) = mesh.collision_runs.iter_mut().flatten().next() {
            run.count = i32::try_from(faces).unwrap() + 1 - run.start;
            edited = true;
        }
    }
    edited
}

fn mdl_bone_past_connectors(doc: &mut Document) -> bool {
    let Document::Mdl(mdl) = doc else {
        return false;
    };
    let mut edited = false;
    for d in mdl.meshes.iter_mut().flat_map(|m| &mut m.divided) {
        for v in &mut d.vertices {
            // The first weighted slot: the export drops it (its bone is no joint), so the
            // vertex's cleaned influence is all on joint 0, as many vertices' are.
            if let Some(slot) = v.weights.iter().position(|&w| w > 0) {
                v.bone_indices[slot] = 255;
                edited = true;
            }
        }
    }
    edited
}

fn bmf_bone_past_bones(doc: &mut Document) -> bool {
    let Document::Bmf(bmf) = doc else {
        return false;
    };
    let mut edited = false;
    for mesh in &mut bmf.meshes {
        let slots: Vec<(&mut [u32; 4], &[f32; 4])> = match &mut mesh.vertices {
            models::bmf::Vertices::Skinned(v) => v
                .iter_mut()
                .map(|v| (&mut v.bone_indices, &v.weights))
                .collect(),
            models::bmf::Vertices::SkinnedTangent(v) => v
                .iter_mut()
                .map(|v| (&mut v.bone_indices, &v.weights))
                .collect(),
            _ => continue,
        };
        for (bones, weights) in slots {
            if let Some(slot) = weights.iter().position(|&w| w != 0.0) {
                bones[slot] = 200;
                edited = true;
            }
        }
    }
    edited
}
