//! Helpers shared by the import tests (`import_{smf,bmf,mdl,elem,skm}.rs`): a document through
//! a `.glb` and back, and a scene imported into a format.

use models::gltf::{self, GltfOptions};
use models::scene::{self, ImportOptions, Scene, ValidScene};
use models::{Document, Format};

/// `doc` as a scene, written to a `.glb`, read back and validated: what an import gets from
/// a file the export wrote.
pub fn through_glb(doc: &Document) -> ValidScene {
    let scene = Scene::from_document(doc).unwrap().scene;
    let glb = gltf::to_glb(&scene::validate(scene).scene, &GltfOptions::default()).unwrap();
    let read = gltf::read_glb(&glb).unwrap();
    scene::validate(read.scene).scene
}

/// `scene` imported as `format` (onto `base`), with its warnings as text.
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
