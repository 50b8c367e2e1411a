//! What a modder wants to know about a model before using it: its size, its meshes, its
//! skeleton, its clips, its materials and whether their texture files are there.
//!
//! A [`Report`] is built from a converted [`Scene`] (so it reads the same for every format and
//! for glTF): [`Report::from_parsed`] for a model file, [`Report::from_import`] for a `.glb` or
//! `.gltf` (feature `gltf`). It holds figures, names and warnings, never raw arrays, and
//! serialises to JSON with [`Report::to_json`]; front ends print it.
//!
//! ```
//! use models::inspect::{Report, TextureLookup};
//! let parsed = models::open_with_warnings("../../fixtures/bmf/static_cube.bmf")?;
//! let conversion = models::scene::Scene::from_document(&parsed.document)?;
//! let lookup = TextureLookup::beside("../../fixtures/bmf/static_cube.bmf");
//! let report = Report::from_parsed(&parsed, &conversion, &lookup);
//! assert_eq!(report.counts.meshes, 1);
//! assert!(report.bounds.is_some());
//! assert_eq!(report.to_json()["counts"]["meshes"], 1);
//! # Ok::<(), models::Error>(())
//! ```

use crate::scene::{transform_point, Conversion, Scene};
use crate::Parsed;
use serde_json::{json, Value};
use std::path::{Path, PathBuf};

/// Where texture files are looked for: the one policy of the glTF writer
/// (`gltf::textures::locate_in`): the model's folder, then each of `dirs`.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct TextureLookup {
    /// The model's folder (texture paths are relative to it).
    pub base: PathBuf,
    /// Further folders (`--texture-dir`).
    pub dirs: Vec<PathBuf>,
    /// Also accept absolute paths and paths leading out of `base`.
    pub allow_outside: bool,
    /// The folder listings used to match names ignoring case: a cache, read once per folder
    /// by all the lookups that share this handle (see [`crate::gltf::TextureListings`]).
    #[cfg(feature = "gltf")]
    pub listings: crate::gltf::TextureListings,
    /// Textures held in memory, looked up first (see [`crate::gltf::HeldTextures`]).
    #[cfg(feature = "gltf")]
    pub held: crate::gltf::HeldTextures,
}

impl TextureLookup {
    /// Textures beside the model file `source`, and nowhere else.
    pub fn beside(source: impl AsRef<Path>) -> Self {
        let base = match source.as_ref().parent() {
            Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
            _ => PathBuf::from("."),
        };
        Self {
            base,
            ..Self::default()
        }
    }

    /// Whether the texture `raw` (as the model writes it) is found, and where: the held
    /// textures first, then the glTF writer's file policy (the model's folder matched in any
    /// ASCII case and as CP932, then `dirs`).
    ///
    /// ```
    /// use models::inspect::{TextureLookup, TextureStatus};
    /// let lookup = TextureLookup::beside("no/such/folder/model.smf");
    /// assert_eq!(lookup.status("wood.png"), TextureStatus::Missing);
    /// ```
    pub fn status(&self, raw: &str) -> TextureStatus {
        #[cfg(feature = "gltf")]
        {
            if let Some(held) = self.held.get(raw) {
                return match &held.bytes {
                    Ok(_) => TextureStatus::Found(PathBuf::from(&held.name)),
                    Err(why) => TextureStatus::Refused(why.clone()),
                };
            }
            let located = crate::gltf::locate_texture(
                &self.base,
                &self.dirs,
                raw,
                self.allow_outside,
                &self.listings,
            );
            match located {
                Ok(path) => TextureStatus::Found(path),
                Err((true, _)) => TextureStatus::Missing,
                Err((false, reason)) => TextureStatus::Refused(reason),
            }
        }
        #[cfg(not(feature = "gltf"))]
        {
            let _ = raw;
            TextureStatus::NotChecked
        }
    }
}

/// Whether a texture's file was found.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum TextureStatus {
    /// Found at this path.
    Found(PathBuf),
    /// No such file beside the model or in the texture folders.
    Missing,
    /// Refused by the texture-path policy (absolute, outside the model's folder, not a file…).
    Refused(String),
    /// Not looked up (built without the `gltf` feature, which holds the lookup).
    NotChecked,
}

impl TextureStatus {
    /// `found`, `missing`, `refused` or `not checked`.
    pub fn label(&self) -> &'static str {
        match self {
            TextureStatus::Found(_) => "found",
            TextureStatus::Missing => "missing",
            TextureStatus::Refused(_) => "refused",
            TextureStatus::NotChecked => "not checked",
        }
    }
}

/// Counts over the converted scene.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Counts {
    /// Nodes (bones, frames and mesh nodes).
    pub nodes: usize,
    /// Meshes.
    pub meshes: usize,
    /// Vertices, over all meshes.
    pub vertices: usize,
    /// Triangles, over all primitives.
    pub faces: usize,
    /// Materials.
    pub materials: usize,
    /// Skins.
    pub skins: usize,
    /// Animations (clips).
    pub animations: usize,
}

/// An axis-aligned box around every vertex, placed by its node (a skinned mesh by its bind
/// pose, as glTF draws it).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Bounds {
    /// Smallest x, y, z.
    pub min: [f32; 3],
    /// Largest x, y, z.
    pub max: [f32; 3],
}

impl Bounds {
    /// `max − min`.
    pub fn size(&self) -> [f32; 3] {
        [
            self.max[0] - self.min[0],
            self.max[1] - self.min[1],
            self.max[2] - self.min[2],
        ]
    }
}

/// One mesh.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MeshInfo {
    /// Name (may be empty).
    pub name: String,
    /// Vertices.
    pub vertices: usize,
    /// Triangles.
    pub faces: usize,
    /// Primitives (one per material used).
    pub primitives: usize,
}

/// What the nodes listed under [`Report::skeleton`] are.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SkeletonKind {
    /// The joints of the skins (a skinned model).
    Bones,
    /// The frame hierarchy of a static Selene SMF (frames move meshes, they skin nothing).
    Frames,
    /// The nodes of any other unskinned model.
    Nodes,
}

impl SkeletonKind {
    /// `bones`, `frames` or `nodes`.
    pub fn label(self) -> &'static str {
        match self {
            SkeletonKind::Bones => "bones",
            SkeletonKind::Frames => "frames",
            SkeletonKind::Nodes => "nodes",
        }
    }
}

/// A bone, frame or node.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BoneInfo {
    /// Its scene node index.
    pub node: usize,
    /// Name (may be empty).
    pub name: String,
    /// The parent's scene node index (the first parent found, in a broken hierarchy).
    pub parent: Option<usize>,
}

/// One animation clip.
#[derive(Debug, Clone, PartialEq)]
pub struct ClipInfo {
    /// Name (may be empty).
    pub name: String,
    /// The last key's time, in seconds.
    pub duration: f32,
    /// Animated properties.
    pub channels: usize,
    /// Keys, over all channels.
    pub keys: usize,
}

/// One texture reference of a material.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TextureInfo {
    /// `color`, `normal`, `light` or `specular`.
    pub slot: &'static str,
    /// The path as the model writes it.
    pub path: String,
    /// Whether its file is there.
    pub status: TextureStatus,
}

/// One material.
#[derive(Debug, Clone, PartialEq)]
pub struct MaterialInfo {
    /// Name (may be empty).
    pub name: String,
    /// Base colour, linear RGBA.
    pub base_color: [f32; 4],
    /// Emissive colour, linear RGB.
    pub emissive: [f32; 3],
    /// The texture references.
    pub textures: Vec<TextureInfo>,
}

/// A warning, and who said it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ReportWarning {
    /// `reader` (the format's reader) or `conversion` (the scene converter, the glTF reader).
    pub source: &'static str,
    /// The message.
    pub message: String,
}

/// Everything [`crate::inspect`] reports about one model.
#[derive(Debug, Clone, PartialEq)]
pub struct Report {
    /// Counts over the scene.
    pub counts: Counts,
    /// The box around the model, when it has vertices.
    pub bounds: Option<Bounds>,
    /// The meshes.
    pub meshes: Vec<MeshInfo>,
    /// What [`skeleton`](Self::skeleton) lists.
    pub skeleton_kind: SkeletonKind,
    /// The bones, frames or nodes, in scene order.
    pub skeleton: Vec<BoneInfo>,
    /// The clips.
    pub clips: Vec<ClipInfo>,
    /// The materials.
    pub materials: Vec<MaterialInfo>,
    /// The reader's and the conversion's warnings, in that order.
    pub warnings: Vec<ReportWarning>,
}

impl Report {
    /// The report of a model file: its reader's warnings, its scene and the conversion's
    /// warnings. A static Selene SMF lists its frames; a skinned model its bones.
    pub fn from_parsed(parsed: &Parsed, conversion: &Conversion, lookup: &TextureLookup) -> Self {
        let is_smf = parsed.document.format() == crate::Format::Smf;
        let mut report = Self::from_scene(&conversion.scene, is_smf, lookup);
        report.warnings = parsed
            .warnings
            .iter()
            .map(|w| ReportWarning {
                source: "reader",
                message: w.to_string(),
            })
            .chain(conversion.warnings.iter().map(|w| ReportWarning {
                source: "conversion",
                message: w.to_string(),
            }))
            .collect();
        report
    }

    /// The report of a `.glb` or `.gltf` read with [`crate::gltf::read_path`], with its
    /// reader's warnings.
    #[cfg(feature = "gltf")]
    pub fn from_import(import: &crate::gltf::Import, lookup: &TextureLookup) -> Self {
        let mut report = Self::from_scene(&import.scene, false, lookup);
        report.warnings = import
            .warnings
            .iter()
            .map(|w| ReportWarning {
                source: "reader",
                message: w.to_string(),
            })
            .collect();
        report
    }

    /// The report of a scene, without warnings. `frames` labels an unskinned hierarchy as
    /// frames (Selene SMF) rather than nodes.
    pub fn from_scene(scene: &Scene, frames: bool, lookup: &TextureLookup) -> Self {
        let meshes: Vec<MeshInfo> = scene
            .meshes
            .iter()
            .map(|m| MeshInfo {
                name: m.name.clone(),
                vertices: m.vertices.positions.len(),
                faces: m.primitives.iter().map(|p| p.indices.len() / 3).sum(),
                primitives: m.primitives.len(),
            })
            .collect();
        let counts = Counts {
            nodes: scene.nodes.len(),
            meshes: meshes.len(),
            vertices: meshes.iter().map(|m| m.vertices).sum(),
            faces: meshes.iter().map(|m| m.faces).sum(),
            materials: scene.materials.len(),
            skins: scene.skins.len(),
            animations: scene.animations.len(),
        };
        let (skeleton_kind, skeleton) = skeleton(scene, frames);
        Self {
            counts,
            bounds: bounds(scene),
            meshes,
            skeleton_kind,
            skeleton,
            clips: scene
                .animations
                .iter()
                .map(|a| ClipInfo {
                    name: a.name.clone(),
                    duration: a.duration(),
                    channels: a.channels.len(),
                    keys: a.channels.iter().map(|c| c.times.len()).sum(),
                })
                .collect(),
            materials: scene
                .materials
                .iter()
                .map(|m| MaterialInfo {
                    name: m.name.clone(),
                    base_color: m.base_color,
                    emissive: m.emissive,
                    textures: [
                        ("color", &m.color_texture),
                        ("normal", &m.normal_texture),
                        ("light", &m.light_map),
                        ("specular", &m.specular_texture),
                    ]
                    .into_iter()
                    .filter_map(|(slot, path)| {
                        let path = path.as_deref().filter(|p| !p.is_empty())?;
                        Some(TextureInfo {
                            slot,
                            path: path.to_owned(),
                            status: lookup.status(path),
                        })
                    })
                    .collect(),
                })
                .collect(),
            warnings: Vec::new(),
        }
    }

    /// The textures referenced but not found (missing or refused), each once, in order.
    pub fn missing_textures(&self) -> Vec<&str> {
        let mut seen = std::collections::HashSet::new();
        self.materials
            .iter()
            .flat_map(|m| &m.textures)
            .filter(|t| matches!(t.status, TextureStatus::Missing | TextureStatus::Refused(_)))
            .map(|t| t.path.as_str())
            .filter(|p| seen.insert(*p))
            .collect()
    }

    /// The report as JSON: `counts`, `bounds` (`{min, max, size}` or null), `meshes`,
    /// `skeleton` (`{kind, nodes: [{node, name, parent}]}`), `clips`, `materials` (with
    /// `textures: [{slot, path, status, file?, reason?}]`) and `warnings`
    /// (`[{source, message}]`). Non-finite numbers become null.
    pub fn to_json(&self) -> Value {
        let c = &self.counts;
        json!({
            "counts": {
                "nodes": c.nodes, "meshes": c.meshes, "vertices": c.vertices, "faces": c.faces,
                "materials": c.materials, "skins": c.skins, "animations": c.animations,
            },
            "bounds": self.bounds.map(|b| json!({
                "min": floats(&b.min), "max": floats(&b.max), "size": floats(&b.size()),
            })),
            "meshes": self.meshes.iter().map(|m| json!({
                "name": m.name, "vertices": m.vertices, "faces": m.faces,
                "primitives": m.primitives,
            })).collect::<Vec<_>>(),
            "skeleton": {
                "kind": self.skeleton_kind.label(),
                "nodes": self.skeleton.iter().map(|b| json!({
                    "node": b.node, "name": b.name, "parent": b.parent,
                })).collect::<Vec<_>>(),
            },
            "clips": self.clips.iter().map(|a| json!({
                "name": a.name, "duration": float(a.duration), "channels": a.channels,
                "keys": a.keys,
            })).collect::<Vec<_>>(),
            "materials": self.materials.iter().map(material_json).collect::<Vec<_>>(),
            "warnings": self.warnings.iter().map(|w| json!({
                "source": w.source, "message": w.message,
            })).collect::<Vec<_>>(),
        })
    }
}

fn material_json(m: &MaterialInfo) -> Value {
    let textures: Vec<Value> = m
        .textures
        .iter()
        .map(|t| {
            let mut v = serde_json::Map::new();
            v.insert("slot".into(), t.slot.into());
            v.insert("path".into(), t.path.clone().into());
            v.insert("status".into(), t.status.label().into());
            match &t.status {
                TextureStatus::Found(file) => {
                    v.insert("file".into(), file.display().to_string().into());
                }
                TextureStatus::Refused(reason) => {
                    v.insert("reason".into(), reason.clone().into());
                }
                TextureStatus::Missing | TextureStatus::NotChecked => {}
            }
            Value::Object(v)
        })
        .collect();
    json!({
        "name": m.name,
        "base_color": floats(&m.base_color),
        "emissive": floats(&m.emissive),
        "textures": textures,
    })
}

/// A float as JSON (null when not finite, which JSON cannot hold).
fn float(x: f32) -> Value {
    serde_json::Number::from_f64(f64::from(x)).map_or(Value::Null, Value::Number)
}

fn floats(xs: &[f32]) -> Value {
    Value::Array(xs.iter().copied().map(float).collect())
}

/// The first parent of every node (children lists name them; a broken scene may give a node
/// two parents or none).
fn parents(scene: &Scene) -> Vec<Option<usize>> {
    let mut parents = vec![None; scene.nodes.len()];
    for (i, node) in scene.nodes.iter().enumerate() {
        for &child in &node.children {
            if let Some(slot @ None) = parents.get_mut(child) {
                *slot = Some(i);
            }
        }
    }
    parents
}

/// The joints of every skin (in node order) for a skinned scene, else every node.
fn skeleton(scene: &Scene, frames: bool) -> (SkeletonKind, Vec<BoneInfo>) {
    let parents = parents(scene);
    let mut is_joint = vec![false; scene.nodes.len()];
    for &j in scene.skins.iter().flat_map(|s| &s.joints) {
        if let Some(flag) = is_joint.get_mut(j) {
            *flag = true;
        }
    }
    let skinned = is_joint.iter().any(|&j| j);
    let kind = match (skinned, frames) {
        (true, _) => SkeletonKind::Bones,
        (false, true) => SkeletonKind::Frames,
        (false, false) => SkeletonKind::Nodes,
    };
    let list = scene
        .nodes
        .iter()
        .zip(&parents)
        .zip(&is_joint)
        .enumerate()
        .filter(|(_, (_, &joint))| joint || !skinned)
        .map(|(node, ((n, &parent), _))| BoneInfo {
            node,
            name: n.name.clone(),
            parent,
        })
        .collect();
    (kind, list)
}

/// The box around every mesh vertex, each mesh placed by the world transform of the first
/// node drawing it (skinned meshes and meshes no node draws are taken as they are). Non-finite
/// positions are left out.
fn bounds(scene: &Scene) -> Option<Bounds> {
    // World matrices, from the roots down; each node once (a broken hierarchy may loop).
    let mut world: Vec<Option<[f32; 16]>> = vec![None; scene.nodes.len()];
    let identity = crate::scene::compose([0.0; 3], [0.0, 0.0, 0.0, 1.0], [1.0; 3]);
    let mut stack: Vec<(usize, [f32; 16])> = scene.roots.iter().map(|&r| (r, identity)).collect();
    while let Some((i, parent)) = stack.pop() {
        let Some(node) = scene.nodes.get(i) else {
            continue;
        };
        match world.get_mut(i) {
            Some(slot @ None) => {
                let m = crate::scene::mul(parent, node.transform.to_matrix());
                *slot = Some(m);
                stack.extend(node.children.iter().map(|&c| (c, m)));
            }
            _ => continue,
        }
    }
    let mut placement: Vec<Option<[f32; 16]>> = vec![None; scene.meshes.len()];
    for (node, m) in scene.nodes.iter().zip(&world) {
        if let (Some(mesh), None, Some(m)) = (node.mesh, node.skin, m) {
            if let Some(slot @ None) = placement.get_mut(mesh) {
                *slot = Some(*m);
            }
        }
    }
    let mut out: Option<Bounds> = None;
    for (mesh, m) in scene.meshes.iter().zip(&placement) {
        for &p in &mesh.vertices.positions {
            let p = m.map_or(p, |m| transform_point(m, p));
            if !p.iter().all(|x| x.is_finite()) {
                continue;
            }
            let b = out.get_or_insert(Bounds { min: p, max: p });
            for k in 0..3 {
                if let (Some(lo), Some(hi), Some(&x)) =
                    (b.min.get_mut(k), b.max.get_mut(k), p.get(k))
                {
                    *lo = lo.min(x);
                    *hi = hi.max(x);
                }
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scene::{Mesh, Node, Transform, Vertices};

    fn two_node_scene() -> Scene {
        Scene {
            nodes: vec![
                Node {
                    name: "root".into(),
                    transform: Transform::Trs {
                        translation: [10.0, 0.0, 0.0],
                        rotation: [0.0, 0.0, 0.0, 1.0],
                        scale: [2.0; 3],
                    },
                    children: vec![1],
                    ..Node::default()
                },
                Node {
                    name: "child".into(),
                    mesh: Some(0),
                    ..Node::default()
                },
            ],
            roots: vec![0],
            meshes: vec![Mesh {
                vertices: Vertices {
                    positions: vec![[0.0, 0.0, 0.0], [1.0, 2.0, -1.0], [f32::NAN, 0.0, 0.0]].into(),
                    ..Vertices::default()
                },
                ..Mesh::default()
            }],
            ..Scene::default()
        }
    }

    #[test]
    fn bounds_place_meshes_by_their_node_and_skip_nan() {
        let r = Report::from_scene(&two_node_scene(), false, &TextureLookup::default());
        let b = r.bounds.unwrap();
        assert_eq!(b.min, [10.0, 0.0, -2.0]);
        assert_eq!(b.max, [12.0, 4.0, 0.0]);
        assert_eq!(b.size(), [2.0, 4.0, 2.0]);
        assert_eq!(r.skeleton_kind, SkeletonKind::Nodes);
        assert_eq!(r.skeleton[1].parent, Some(0));
    }

    #[test]
    fn a_cycle_does_not_hang_and_frames_are_labelled() {
        let mut scene = two_node_scene();
        scene.nodes[1].children = vec![0];
        let r = Report::from_scene(&scene, true, &TextureLookup::default());
        assert_eq!(r.skeleton_kind, SkeletonKind::Frames);
        assert!(r.bounds.is_some());
        assert_eq!(r.to_json()["skeleton"]["kind"], "frames");
    }

    #[test]
    fn json_has_null_for_non_finite_numbers() {
        let mut scene = two_node_scene();
        scene.materials.push(crate::scene::Material {
            base_color: [f32::INFINITY, 0.0, 0.0, 1.0],
            ..Default::default()
        });
        let v = Report::from_scene(&scene, false, &TextureLookup::default()).to_json();
        assert_eq!(v["materials"][0]["base_color"][0], Value::Null);
        assert_eq!(v["counts"]["materials"], 1);
    }
}
