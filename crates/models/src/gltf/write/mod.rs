//! The glTF writer: [`Scene`] → glTF JSON + one binary buffer, split by concern (as xc3_lib's
//! writer is): the node forest ([`hierarchy`]), skins ([`skin`]), materials and textures
//! ([`material`]), meshes ([`mesh`], with the index plan in [`indices`] and generated tangents
//! in [`tangents`]), animations ([`animation`]) and the binary buffer ([`buffer`]).
//!
//! [`crate::scene::validate()`] made the scene valid (hierarchy, node transforms, vertex data,
//! index lists, materials, inverse bind matrices, animation channels and keys); the writer
//! repairs none of it. What remains here is serialisation and glTF-only choices (matrices as
//! their nearest TRS, generated tangents, zero UVs, index component type, alignment,
//! `min`/`max`, a common root node for a skin whose joints lie in separate trees), leaving out
//! what glTF cannot hold or what is invalid (skins without usable joints, meshes without
//! triangles, empty animations, references to them), each with a warning.
//!
//! The JSON is computed first and the binary buffer is only planned ([`buffer::Bin`]): its
//! bytes go once, from the scene straight into the output.

mod animation;
mod buffer;
mod hierarchy;
mod indices;
mod material;
mod mesh;
mod skin;
mod tangents;

use super::{Error, Gltf, GltfOptions};
use crate::scene::validate::{floats, label};
use crate::scene::{Scene, SceneWarning, ValidScene};
use gltf_json as json;
use hierarchy::Hierarchy;
use json::validation::USize64;
use json::Index;
use serde_json::{Map, Value};
use std::borrow::Cow;
use std::collections::HashMap;

struct Builder<'a> {
    root: json::Root,
    bin: buffer::Bin<'a>,
    warnings: Vec<SceneWarning>,
    options: &'a GltfOptions,
    textures: HashMap<String, Option<Index<json::Texture>>>,
    /// One texture per real file (embedding) or per URI (referencing), whatever the spelling.
    texture_files: HashMap<std::path::PathBuf, Index<json::Texture>>,
    /// Texture paths not found (one warning per model lists them).
    missing_textures: Vec<String>,
    /// Image files to write beside the output ([`GltfOptions::texture_folder`]).
    image_files: Vec<(String, Vec<u8>)>,
    /// Each written animation's small extras, copied into the scene's
    /// (`gltf/animation_extras.rs`).
    animation_copies: Vec<Option<Value>>,
}

/// A glTF asset planned over the scene it was written from: the JSON, the binary buffer as
/// chunks (mostly borrowed from the scene), the warnings and the image files.
pub(crate) struct Export<'a> {
    pub root: json::Root,
    pub bin: buffer::Bin<'a>,
    pub warnings: Vec<SceneWarning>,
    pub images: Vec<(String, Vec<u8>)>,
}

impl Export<'_> {
    /// The owned [`Gltf`] (the binary buffer copied out once).
    pub fn into_gltf(self) -> Gltf {
        Gltf {
            bin: self.bin.to_vec(),
            root: self.root,
            warnings: self.warnings,
            images: self.images,
        }
    }
}

pub(crate) fn build<'a>(
    scene: &'a ValidScene,
    options: &'a GltfOptions,
) -> Result<Export<'a>, Error> {
    let mut b = Builder {
        root: json::Root::default(),
        bin: buffer::Bin::default(),
        warnings: Vec::new(),
        options,
        textures: HashMap::new(),
        texture_files: HashMap::new(),
        missing_textures: Vec::new(),
        image_files: Vec::new(),
        animation_copies: Vec::new(),
    };
    b.root.asset = json::Asset {
        generator: Some(format!("models {}", env!("CARGO_PKG_VERSION"))),
        ..json::Asset::default()
    };
    let valid = scene;
    let scene: &'a Scene = scene;
    b.reserve_for(scene);
    // The blobs first, borrowed: blob i is buffer view i, as the extras naming them say.
    for blob in &scene.blobs {
        b.view(buffer::Chunk::Bytes(Cow::Borrowed(blob)), None)?;
    }

    // Hierarchy: a forest over the scene's nodes plus any synthetic roots added below.
    let mut h = Hierarchy::new(scene);
    let skins = b.plan_skins(scene, &mut h);
    let textured = b.materials(scene)?;
    let meshes = b.meshes(valid, &skins, &textured)?;
    b.nodes(scene, &h, &meshes, &skins)?;
    b.skins(&skins)?;
    b.animations(scene)?;
    b.scene(scene, &h)?;
    super::names::keep(&mut b.root)?;
    if b.bin.len() > 0 {
        b.root.buffers.push(json::Buffer {
            byte_length: USize64::from(b.bin.len()),
            name: None,
            uri: None,
            extensions: None,
            extras: None,
        });
    }
    Ok(Export {
        root: b.root,
        bin: b.bin,
        warnings: b.warnings,
        images: b.image_files,
    })
}

impl Builder<'_> {
    /// The one scene, over the forest's roots.
    fn scene(&mut self, scene: &Scene, h: &Hierarchy) -> Result<(), Error> {
        // glTF allows a scene without nodes, but common readers (the `gltf` crate, so Bevy)
        // require the `nodes` array: an empty scene gets one empty node.
        let mut roots = h.roots.clone();
        if roots.is_empty() {
            roots.push(self.root.nodes.len());
            push(
                &mut self.root.nodes,
                json::Node {
                    name: Some("empty".into()),
                    ..json::Node::default()
                },
            )?;
        }
        let copies = std::mem::take(&mut self.animation_copies);
        let with_copies = super::animation_extras::with_copies(&scene.extras, copies);
        let scene_out = json::Scene {
            extensions: None,
            extras: extras(with_copies.as_ref().unwrap_or(&scene.extras))?,
            name: non_empty(&scene.name),
            nodes: roots
                .iter()
                .map(|&r| u32_of(r, "nodes").map(Index::new))
                .collect::<Result<_, _>>()?,
        };
        let scene_index = push(&mut self.root.scenes, scene_out)?;
        self.root.scene = Some(scene_index);
        Ok(())
    }
}

impl Builder<'_> {
    /// Room for about as many accessors, views and buffer chunks as `scene` makes (at most
    /// one a mesh attribute, primitive, skin and channel key list; one a blob). Grown push by
    /// push, the lists were copied again at each doubling: 2 % of an animated character's
    /// export, whose 216 channels make 228 accessors. An estimate above what is written
    /// (a mesh with fewer attributes, channels sharing keys) reserves a little too much, so it
    /// is capped at `RESERVED_AT_MOST`; past that the lists grow as before.
    fn reserve_for(&mut self, scene: &Scene) {
        /// The most entries reserved up front in each list.
        const RESERVED_AT_MOST: usize = 4096;
        /// The most accessors one mesh makes besides its primitives' index lists: positions,
        /// normals, tangents, two UV sets, colours, joints and weights.
        const PER_MESH: usize = 8;
        let meshes: usize = scene
            .meshes
            .iter()
            .map(|m| PER_MESH.saturating_add(m.primitives.len()))
            .fold(0, usize::saturating_add);
        let channels: usize = scene
            .animations
            .iter()
            .map(|a| a.channels.len())
            .fold(0, usize::saturating_add);
        let accessors = meshes
            .saturating_add(scene.skins.len())
            .saturating_add(channels.saturating_mul(2));
        let views = accessors
            .saturating_add(scene.blobs.len())
            .min(RESERVED_AT_MOST);
        self.root.accessors.reserve(accessors.min(RESERVED_AT_MOST));
        self.root.buffer_views.reserve(views);
        self.bin.reserve(views);
    }

    /// A warning at `place` (the mesh, node, material, … with its index and name; empty for
    /// the whole scene).
    fn warn(&mut self, place: impl std::fmt::Display, message: impl Into<String>) {
        self.warnings.push(warning(&place.to_string(), message));
    }
}

// ---------------------------------------------------------------------------------------------
// Small helpers

fn non_empty(s: &str) -> Option<String> {
    (!s.is_empty()).then(|| s.to_owned())
}

fn extras(map: &Map<String, Value>) -> Result<json::Extras, Error> {
    if map.is_empty() {
        return Ok(None);
    }
    if !holds_long_string(map.values()) {
        return Ok(Some(serde_json::value::to_raw_value(map)?));
    }
    let mut text = String::new();
    compact_object(map, &mut text)?;
    Ok(Some(serde_json::value::RawValue::from_string(text)?))
}

/// Strings from this length on are written by [`compact_object`]; shorter ones, and numbers,
/// cost serde_json less than the check and the validating parse `RawValue` then needs (a
/// collision mesh's thousands of numbers came out 8 % slower that way).
const LONG_STRING: usize = 1024;

/// Whether some string in `values` (or nested in them) is [`LONG_STRING`] bytes or more.
fn holds_long_string<'a>(values: impl IntoIterator<Item = &'a Value>) -> bool {
    values.into_iter().any(|v| match v {
        Value::String(s) => s.len() >= LONG_STRING,
        Value::Array(items) => holds_long_string(items),
        Value::Object(map) => holds_long_string(map.values()),
        _ => false,
    })
}

/// `map` as serde_json writes it compactly, appended to `out`. Its own walk because serde_json
/// escapes a string byte by byte, and the extras' long hex and base64 strings need no escape:
/// a vectorised check and one copy cost less (issue 18: serialising a skinned SMF's 231 KB of
/// rotation hex was 5 % of its conversion).
fn compact_object(map: &Map<String, Value>, out: &mut String) -> Result<(), Error> {
    out.push('{');
    for (i, (key, value)) in map.iter().enumerate() {
        if i > 0 {
            out.push(',');
        }
        compact_string(key, out)?;
        out.push(':');
        compact_value(value, out)?;
    }
    out.push('}');
    Ok(())
}

fn compact_value(value: &Value, out: &mut String) -> Result<(), Error> {
    match value {
        Value::Null => out.push_str("null"),
        Value::Bool(b) => out.push_str(if *b { "true" } else { "false" }),
        Value::Number(n) => out.push_str(&serde_json::to_string(n)?),
        Value::String(s) => compact_string(s, out)?,
        Value::Array(items) => {
            out.push('[');
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                compact_value(item, out)?;
            }
            out.push(']');
        }
        Value::Object(map) => compact_object(map, out)?,
    }
    Ok(())
}

fn compact_string(s: &str, out: &mut String) -> Result<(), Error> {
    if crate::scene::needs_escape(s) {
        out.push_str(&serde_json::to_string(s)?);
    } else {
        out.reserve(s.len() + 2);
        out.push('"');
        out.push_str(s);
        out.push('"');
    }
    Ok(())
}

fn u32_of(i: usize, what: &'static str) -> Result<u32, Error> {
    u32::try_from(i).map_err(|_| Error::TooLarge {
        what,
        size: i as u64,
    })
}

fn push<T>(vec: &mut Vec<T>, value: T) -> Result<Index<T>, Error> {
    let i = u32_of(vec.len(), "array")?;
    vec.push(value);
    Ok(Index::new(i))
}

/// The one place this module makes a warning: `{place}: {message}`.
fn warning(place: &str, message: impl Into<String>) -> SceneWarning {
    SceneWarning::other(place, message)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    /// The extras come out as serde_json writes them, by either path: maps with a long string
    /// (escaped or not, at any depth) and maps without one.
    #[test]
    fn extras_are_serde_jsons_text() {
        let hex = "0123456789abcdef".repeat(LONG_STRING / 16 + 1);
        let every_ascii: String = (0u8..0x80).map(char::from).collect();
        let escaped = format!("{hex}\"\\\n{every_ascii}é😀");
        let maps = [
            json!({"smf_rotations_hex": {"3": hex, "7": hex}, "smf_set": 0, "t": 0.1}),
            json!({"a": [escaped, null, true, false, -1, 1e300, 5e-324, u64::MAX], "k\"": {}}),
            json!({"short": "x\ny", "n": [1, 2.5, -0.0], "o": {"p": []}}),
            json!({"deep": [[[{"s": hex}]]], "e": ""}),
        ];
        let mut long = 0;
        for map in maps {
            let Value::Object(map) = map else {
                unreachable!()
            };
            long += usize::from(holds_long_string(map.values()));
            let raw = extras(&map).unwrap().unwrap();
            assert_eq!(raw.get(), serde_json::to_string(&map).unwrap());
        }
        assert_eq!(long, 3, "both paths are taken");
    }
}
