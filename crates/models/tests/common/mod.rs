//! Helpers shared by the import tests (`import_{smf,bmf,mdl,elem,skm}.rs`, `edited_extras.rs`,
//! `weld_onto_base.rs`, ...): every fixture and sample opened, a document through a `.glb` and
//! back, and a scene imported into a format.

use models::gltf::{self, GltfOptions};
use models::scene::{self, ImportOptions, Scene, ValidScene};
use models::{bmf, Document, Format, Model};
use std::path::PathBuf;

/// The five formats and their extension (the fixture and sample folders' names).
#[allow(dead_code)] // not every test crate that shares this module walks every format
pub const FORMATS: [(&str, Format); 5] = [
    ("bmf", Format::Bmf),
    ("smf", Format::Smf),
    ("mdl", Format::Mdl),
    ("elem", Format::Elem),
    ("skm", Format::Skm),
];

/// Every fixture and then, when the sample folder exists, every sample of each of [`FORMATS`]
/// (in that order), with its format. Never empty: `test_support::fixtures` panics on an empty
/// fixture folder.
#[allow(dead_code)] // not every test crate that shares this module walks the files
pub fn fixtures_and_samples() -> Vec<(Format, PathBuf)> {
    let mut files = Vec::new();
    for (ext, format) in FORMATS {
        let paths = test_support::fixtures_and_samples(ext);
        files.extend(paths.into_iter().map(|path| (format, path)));
    }
    files
}

/// A fixture or sample as [`opened`] gives it.
#[allow(dead_code)] // not every test crate that shares this module walks the files
pub struct Opened {
    /// Its file name (for messages and lists of expected files).
    pub name: String,
    pub path: PathBuf,
    pub format: Format,
    /// The file's bytes, for comparisons with what an import writes.
    pub bytes: Vec<u8>,
    pub document: Document,
}

/// Every file of [`fixtures_and_samples`], read and opened as the command line opens it
/// (`models::open_with_upgrades`: the MDL 2014 development layout too), one at a time. Panics,
/// naming the file, when one does not open. The tests that walk these assert on how many
/// files they checked: none would otherwise pass.
#[allow(dead_code)] // not every test crate that shares this module walks the files
pub fn opened() -> impl Iterator<Item = Opened> {
    fixtures_and_samples().into_iter().map(|(format, path)| {
        let name = test_support::file_name(&path).to_owned();
        let bytes = test_support::read(&path);
        let document = models::open_with_upgrades(&path)
            .unwrap_or_else(|e| panic!("{e}")) // the error names the file
            .document;
        Opened {
            name,
            path,
            format,
            bytes,
            document,
        }
    })
}

/// `doc` as a scene, written to a `.glb`, read back and validated: what an import gets from
/// a file the export wrote.
#[allow(dead_code)] // not every test crate that shares this module goes through a `.glb` here
pub fn through_glb(doc: &Document) -> ValidScene {
    let scene = Scene::from_document(doc).unwrap().scene;
    let glb = gltf::to_glb(&scene::validate(scene).scene, &GltfOptions::default()).unwrap();
    let read = gltf::read_glb(&glb).unwrap();
    scene::validate(read.scene).scene
}

/// `scene` imported as `format` (onto `base`), with its warnings as text.
#[allow(dead_code)] // not every test crate that shares this module imports through it
pub fn import_as(
    format: Format,
    scene: &ValidScene,
    base: Option<&Document>,
    options: &ImportOptions,
) -> Result<(Document, Vec<String>), models::Error> {
    let out = Document::from_scene(format, scene, base, options)?;
    let warnings = out.warnings.iter().map(|w| w.to_string()).collect();
    Ok((out.document, warnings))
}

/// The bytes of a one-mesh BMF of `Plain` vertices.
#[allow(dead_code)] // not every test crate that shares this module builds BMF files
pub fn plain_bmf(
    vertices: Vec<bmf::Vertex>,
    indices: Vec<u16>,
    materials: Vec<bmf::Material>,
) -> Vec<u8> {
    let mesh = bmf::Mesh::new(bmf::Vertices::Plain(vertices), indices, materials, None);
    bmf::Bmf::new(vec![mesh]).to_bytes().unwrap()
}

/// A BMF material over `index_count` indices from `start_index`, with plain colours and no
/// texture.
#[allow(dead_code)]
pub fn plain_material(start_index: u32, index_count: u32) -> bmf::Material {
    bmf::Material {
        start_index,
        index_count,
        diffuse: [1.0; 4].into(),
        specular: [0.5, 0.5, 0.5, 0.4].into(),
        ambient: [0.5, 0.5, 0.5, 1.0].into(),
        emissive: [0.0; 4].into(),
        texture: bmf::TextureName::new(""),
    }
}

/// A skinned test scene: `joints` bone nodes (`bone0`, `bone1`, …) in a chain, each the parent
/// of the next, and a `body` node carrying mesh 0 with skin 0. The mesh holds `positions`, their
/// `joints` and `weights`, one triangle list over them in order; the skin binds every bone with
/// an identity inverse bind matrix, from bone 0.
#[allow(dead_code)] // not every test crate that shares this module builds skinned scenes
pub fn skinned_chain(
    joints: usize,
    positions: Vec<[f32; 3]>,
    vertex_joints: Vec<[u16; 4]>,
    weights: Vec<[f32; 4]>,
) -> Scene {
    let mut nodes: Vec<scene::Node> = (0..joints)
        .map(|j| scene::Node {
            name: format!("bone{j}"),
            children: if j + 1 < joints { vec![j + 1] } else { vec![] },
            ..Default::default()
        })
        .collect();
    nodes.push(scene::Node {
        name: "body".into(),
        mesh: Some(0),
        skin: Some(0),
        ..Default::default()
    });
    let indices: Vec<u32> = (0..positions.len() as u32).collect();
    Scene {
        nodes,
        roots: vec![0, joints],
        meshes: vec![scene::Mesh {
            name: "body".into(),
            vertices: scene::Vertices {
                positions: positions.into(),
                joints: Some(vertex_joints.into()),
                weights: Some(weights.into()),
                ..Default::default()
            },
            primitives: vec![scene::Primitive {
                indices: indices.into(),
                material: None,
            }],
            extras: Default::default(),
        }],
        skins: vec![scene::Skin {
            name: "skin".into(),
            joints: (0..joints).collect(),
            inverse_bind_matrices: vec![scene::IDENTITY; joints],
            skeleton: Some(0),
        }],
        ..Default::default()
    }
}
