//! `--base` after an editor split and reordered an unedited mesh's vertices. Blender writes one
//! glTF vertex for each distinct corner and gives normals back a few 1e-4 off, so a mesh of 16
//! vertices comes back with 20 (`block1.smf`). Such a mesh gets the base's vertices again
//! (`scene/weld.rs`), with a warning, and the file comes back byte for byte; a mesh with an
//! edited vertex keeps the editor's vertices.

mod common;

use models::scene::{self, Colors, ImportOptions, Indices, Mesh, Primitive, Scene, Vertices};
use models::{Document, Format};
use std::path::PathBuf;

/// How far the copies' normals are moved: what Blender does to them, within the tolerance.
const NORMAL_NUDGE: f32 = 2e-4;

/// `mesh` as Blender gives it back: every other corner of a vertex that an earlier corner used
/// gets a copy of that vertex (its normal [`NORMAL_NUDGE`] off), right after it in the list.
/// Returns how many copies were made.
fn split_like_an_editor(mesh: &mut Mesh) -> usize {
    split(mesh, false)
}

/// [`split_like_an_editor`], with the whole vertex list reversed when `reverse`.
fn split(mesh: &mut Mesh, reverse: bool) -> usize {
    let n = mesh.vertices.positions.len();
    let mut source: Vec<usize> = (0..n).collect();
    let mut uses = vec![0usize; n];
    let mut lists: Vec<Vec<u32>> = Vec::new();
    for p in &mesh.primitives {
        let list = p.indices.iter().map(|&v| {
            let v = v as usize;
            uses[v] += 1;
            if uses[v] % 2 == 0 {
                source.push(v);
                source.len() - 1
            } else {
                v
            }
        });
        lists.push(list.map(|v| v as u32).collect());
    }
    let total = source.len();
    // New vertex k is vertex `order[k]` of the list above (copies at the end): each copy right
    // after its vertex, or the whole list reversed.
    let order: Vec<usize> = if reverse {
        (0..total).rev().collect()
    } else {
        let mut copies: Vec<Vec<usize>> = vec![Vec::new(); n];
        for (k, &v) in source.iter().enumerate().skip(n) {
            copies[v].push(k);
        }
        (0..n)
            .flat_map(|v| std::iter::once(v).chain(copies[v].iter().copied()))
            .collect()
    };
    let mut new_index = vec![0u32; total];
    for (k, &o) in order.iter().enumerate() {
        new_index[o] = k as u32;
    }
    let pick = |k: usize| source[order[k]];
    fn remap<T: bytemuck::Pod>(
        list: &Option<models::scene::Array<T>>,
        pick: &dyn Fn(usize) -> usize,
        n: usize,
    ) -> Option<models::scene::Array<T>> {
        list.as_ref().map(|l| (0..n).map(|k| l[pick(k)]).collect())
    }
    let v = &mesh.vertices;
    let mut normals = remap(&v.normals, &pick, total);
    if let Some(normals) = &mut normals {
        for (k, normal) in normals.to_mut().iter_mut().enumerate() {
            if order[k] >= n {
                normal[0] += NORMAL_NUDGE;
            }
        }
    }
    let colors = v.colors.as_ref().map(|c| match c {
        Colors::Bytes(l) => Colors::Bytes((0..total).map(|k| l[pick(k)]).collect()),
        Colors::Floats(l) => Colors::Floats((0..total).map(|k| l[pick(k)]).collect()),
    });
    mesh.vertices = Vertices {
        positions: (0..total).map(|k| v.positions[pick(k)]).collect(),
        normals,
        tangents: remap(&v.tangents, &pick, total),
        uv0: remap(&v.uv0, &pick, total),
        uv1: remap(&v.uv1, &pick, total),
        colors,
        joints: remap(&v.joints, &pick, total),
        weights: remap(&v.weights, &pick, total),
    };
    for (p, list) in mesh.primitives.iter_mut().zip(lists) {
        let list: Vec<u32> = list.iter().map(|&i| new_index[i as usize]).collect();
        p.indices = Indices::from(list);
    }
    total - n
}

/// The scene of `doc`'s `.glb`, read back as `models convert IN.glb` reads it, to edit.
fn through_glb(doc: &Document) -> Scene {
    common::through_glb(doc).into_inner()
}

/// `scene` imported into `format` onto `base`: the file and the warnings' texts.
fn onto(format: Format, scene: Scene, base: &Document) -> (Vec<u8>, Vec<String>) {
    let imported =
        Document::import_scene(format, scene, Some(base), &ImportOptions::default()).unwrap();
    let said = imported.warnings.iter().map(ToString::to_string).collect();
    (imported.document.to_bytes().unwrap(), said)
}

fn welds(said: &[String]) -> usize {
    said.iter().filter(|w| w.contains("are the base's")).count()
}

/// What an editor may do to a mesh's extras besides splitting its vertices.
#[derive(Debug, Clone, Copy)]
enum Extras {
    /// Kept (Blender with "Custom Properties" on, when the arrays are short enough for text).
    Kept,
    /// Every reference to a buffer view cut, as the glTF reader cuts those whose views an
    /// editor rewrote (Blender keeps the reference, not the view).
    ViewsCut,
    /// Dropped (Blender with "Custom Properties" off).
    Dropped,
}

/// `mesh`'s extras as an editor leaves them; whether it had any to lose.
fn edit_extras(mesh: &mut Mesh, how: Extras) -> bool {
    fn cut(v: &mut serde_json::Value) -> bool {
        match v {
            serde_json::Value::Object(o) if o.contains_key("bufferView") => {
                o.insert("bufferView".into(), serde_json::Value::Null);
                true
            }
            serde_json::Value::Object(o) => o.values_mut().fold(false, |any, v| cut(v) | any),
            serde_json::Value::Array(a) => a.iter_mut().fold(false, |any, v| cut(v) | any),
            _ => false,
        }
    }
    match how {
        Extras::Kept => false,
        Extras::ViewsCut => mesh.extras.values_mut().fold(false, |any, v| cut(v) | any),
        Extras::Dropped => {
            let had = !mesh.extras.is_empty();
            mesh.extras.clear();
            had
        }
    }
}

#[test]
fn split_and_reordered_vertices_come_back_as_the_base() {
    let mut checked = Vec::new();
    let mut lost_extras = Vec::new();
    for file in common::opened() {
        let (name, format, original, doc) = (file.name, file.format, file.bytes, file.document);
        let scene = through_glb(&doc);
        // Only the files whose own export comes back byte for byte.
        if onto(format, scene.clone(), &doc).0 != original {
            continue;
        }
        for how in [Extras::Kept, Extras::ViewsCut, Extras::Dropped] {
            let mut split = scene.clone();
            let copies: Vec<usize> = split.meshes.iter_mut().map(split_like_an_editor).collect();
            let lost = split
                .meshes
                .iter_mut()
                .fold(false, |any, m| edit_extras(m, how) | any);
            let (bytes, said) = onto(format, split, &doc);
            assert!(
                bytes == original,
                "{name}, extras {how:?}: not the same file after the split; {said:?}"
            );
            let split_meshes = copies.iter().filter(|&&c| c > 0).count();
            assert!(
                welds(&said) >= split_meshes,
                "{name}: {split_meshes} split meshes, warnings {said:?}"
            );
            if split_meshes > 0 {
                checked.push(name.clone());
            }
            if lost {
                lost_extras.push(format!("{name} {how:?}"));
            }
        }
    }
    // Fixtures alone (no samples) have split meshes of every format, and mesh extras to lose.
    for ext in ["bmf", "smf", "mdl", "elem", "skm"] {
        assert!(
            checked.iter().any(|n| n.ends_with(ext)),
            "no {ext} file was split and checked: {checked:?}"
        );
    }
    for how in ["ViewsCut", "Dropped"] {
        assert!(
            lost_extras.iter().any(|n| n.ends_with(how)),
            "no file lost its mesh extras ({how}): {lost_extras:?}"
        );
    }
}

/// The first fixture of `ext` whose mesh 0 has a vertex two corners use.
fn fixture_with_shared_vertex(ext: &str) -> (PathBuf, Document, Scene) {
    for path in test_support::fixtures(ext, ext) {
        let doc = models::open(&path).unwrap();
        let scene = through_glb(&doc);
        let mut probe = scene.clone();
        if probe
            .meshes
            .first_mut()
            .is_some_and(|m| split_like_an_editor(m) > 0)
        {
            return (path, doc, scene);
        }
    }
    panic!("no {ext} fixture shares a vertex");
}

#[test]
fn reordered_vertices_come_back_in_the_base_order() {
    // A fixture with no two equal vertices (which equal vertex a corner names cannot be told).
    let path = test_support::fixtures("bmf", "bmf")
        .into_iter()
        .find(|p| test_support::file_name(p) == "static_cube.bmf")
        .unwrap();
    let doc = models::open(&path).unwrap();
    let mut scene = through_glb(&doc);
    assert!(split(&mut scene.meshes[0], true) > 0);
    let (bytes, said) = onto(Format::Bmf, scene, &doc);
    assert_eq!(welds(&said), 1, "{said:?}");
    assert!(bytes == test_support::read(&path));
}

#[test]
fn an_edited_vertex_keeps_the_editors_vertices() {
    let (path, doc, mut scene) = fixture_with_shared_vertex("smf");
    let mesh = &mut scene.meshes[0];
    split_like_an_editor(mesh);
    mesh.vertices.positions[0][1] += 0.5;
    let (bytes, said) = onto(Format::Smf, scene, &doc);
    assert_eq!(welds(&said), 0, "{said:?}");
    assert_ne!(bytes, test_support::read(&path));
    let back = models::from_bytes(&bytes).unwrap();
    assert!(back.summary().vertices > doc.summary().vertices);
}

/// A mesh of `n` equal vertices (one triangle fan over them), and its document in SMF.
fn pile(n: u32) -> (Scene, Document) {
    let count = n as usize;
    let mut mesh = Mesh {
        name: "pile".into(),
        vertices: Vertices {
            positions: vec![[1.0, 2.0, 3.0]; count].into(),
            normals: Some(models::scene::Array::from(vec![[0.0, 1.0, 0.0]; count])),
            ..Vertices::default()
        },
        ..Mesh::default()
    };
    let list: Vec<u32> = (1..n - 1).flat_map(|i| [0, i, i + 1]).collect();
    mesh.primitives.push(Primitive {
        indices: Indices::from(list),
        material: None,
    });
    let mut scene = Scene::default();
    scene.meshes.push(mesh);
    scene.nodes.push(scene::Node {
        mesh: Some(0),
        ..scene::Node::default()
    });
    scene.roots.push(0);
    let doc = Document::import_scene(Format::Smf, scene, None, &ImportOptions::default())
        .unwrap()
        .document;
    // The scene as an editor would get it: the SMF writer adds colours and more.
    (through_glb(&doc), doc)
}

/// `mesh`'s first triangle dropped: an edit of the triangles, so that the corners no longer
/// match the base's and each vertex is looked for on its own.
fn drop_first_triangle(mesh: &mut Mesh) {
    let p = &mut mesh.primitives[0];
    p.indices = Indices::from(p.indices[3..].to_vec());
}

#[test]
fn equal_vertices_are_matched_until_too_many_lie_at_one_place() {
    // Split, triangles kept: the base's triangles, corner for corner, however many vertices
    // lie at one place.
    let (mut scene, doc) = pile(1000);
    assert!(split_like_an_editor(&mut scene.meshes[0]) > 0);
    let (bytes, said) = onto(Format::Smf, scene, &doc);
    assert_eq!(welds(&said), 1, "{said:?}");
    assert!(bytes == doc.to_bytes().unwrap());
    // Triangles edited: each vertex finds a base vertex, so the base's ten come back.
    let (mut scene, doc) = pile(10);
    assert!(split_like_an_editor(&mut scene.meshes[0]) > 0);
    drop_first_triangle(&mut scene.meshes[0]);
    let (bytes, said) = onto(Format::Smf, scene, &doc);
    assert_eq!(welds(&said), 1, "{said:?}");
    assert_eq!(models::from_bytes(&bytes).unwrap().summary().vertices, 10);
    // More equal vertices than the search looks at for one vertex: left as given.
    let (mut scene, doc) = pile(1000);
    assert!(split_like_an_editor(&mut scene.meshes[0]) > 0);
    drop_first_triangle(&mut scene.meshes[0]);
    let (bytes, said) = onto(Format::Smf, scene, &doc);
    assert_eq!(welds(&said), 0, "{said:?}");
    assert!(models::from_bytes(&bytes).unwrap().summary().vertices > 1000);
}

#[test]
fn a_base_far_larger_than_the_scene_is_not_compared() {
    // The scene: a small pile, split. The base: a pile of 200 000 vertices of the same name,
    // whose scene would cost far more than four times this one's.
    let (mut scene, _) = pile(10);
    assert!(split_like_an_editor(&mut scene.meshes[0]) > 0);
    let (_, large) = pile(200_000);
    let (bytes, said) = onto(Format::Smf, scene, &large);
    assert_eq!(welds(&said), 0, "{said:?}");
    assert!(
        said.iter().any(|w| w.contains("no mesh was compared")),
        "{said:?}"
    );
    assert!(models::from_bytes(&bytes).unwrap().summary().vertices > 10);
}
