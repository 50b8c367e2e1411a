//! The whole document → [`Scene`]: materials, meshes, nodes and their hierarchy, skins,
//! animations; what the scene model has no place for is named in a warning.

use super::accessor::Reader;
use super::buffers::{percent_decode, Asset, Loaded};
use super::{mesh, At, Import, ReadError, ReadWarning, ReadWarningKind, MAX_NODE_DEPTH};
use crate::gltf::json;
use crate::scene::lenient;
use crate::scene::Array;
use crate::scene::{blob, Keys};
use crate::scene::{
    AlphaMode, Animation, Channel, ChannelPath, Interpolation, Material, Node, Scene, Skin,
    Transform,
};
use json::accessor::Type;
use json::validation::Checked::{self, Valid};
use serde_json::{Map, Value};
use std::collections::{HashMap, HashSet};
use std::fmt::Display;

struct Converter<'a> {
    root: &'a json::Root,
    reader: Reader<'a>,
    warnings: Vec<ReadWarning>,
    /// Key accessors already decoded: samplers usually share their input times, and the
    /// scene holds shared keys once.
    keys: HashMap<(usize, usize), Keys>,
}

impl Converter<'_> {
    fn warn(&mut self, at: impl Display, kind: ReadWarningKind) {
        self.warnings.push(ReadWarning {
            at: at.to_string(),
            kind,
        });
    }

    fn not_carried(&mut self, at: impl Display, what: impl Into<String>) {
        self.warn(at, ReadWarningKind::NotCarried { what: what.into() });
    }
}

pub(crate) fn convert(asset: &Asset<'_>, loaded: Loaded<'_>) -> Result<Import, ReadError> {
    let root = &asset.root;
    // At most an input and an output per sampler, and no more than there are accessors: sized
    // once rather than rehashed (SipHash) at each doubling.
    let samplers: usize = root.animations.iter().map(|a| a.samplers.len()).sum();
    let mut c = Converter {
        root,
        reader: Reader::new(root, &loaded),
        warnings: asset.warnings.clone(),
        keys: HashMap::with_capacity(samplers.saturating_mul(2).min(root.accessors.len())),
    };
    let mut scene = Scene::default();
    for (i, m) in root.materials.iter().enumerate() {
        let material = c.material(i, m);
        scene.materials.push(material);
    }
    for (i, m) in root.meshes.iter().enumerate() {
        scene.meshes.push(mesh::mesh(
            &mut c.reader,
            i,
            m,
            root.materials.len(),
            &mut c.warnings,
        )?);
    }
    for (i, n) in root.nodes.iter().enumerate() {
        let node = c.node(i, n)?;
        scene.nodes.push(node);
    }
    check_hierarchy(&scene.nodes)?;
    c.choose_scene(&mut scene)?;
    for (i, s) in root.skins.iter().enumerate() {
        let skin = c.skin(i, s)?;
        scene.skins.push(skin);
    }
    for (i, a) in root.animations.iter().enumerate() {
        let animation = c.animation(i, a)?;
        scene.animations.push(animation);
    }
    if !root.cameras.is_empty() {
        c.not_carried("cameras", format!("{} camera(s)", root.cameras.len()));
    }
    if let Some((count, at)) = super::super::names::restore(&mut scene) {
        c.warnings.push(ReadWarning {
            at,
            kind: ReadWarningKind::NamesRestored { count },
        });
    }
    if let Some((count, at)) = super::super::animation_extras::restore(&mut scene) {
        c.warnings.push(ReadWarning {
            at,
            kind: ReadWarningKind::AnimationExtrasRestored { count },
        });
    }
    blobs(root, &mut c.reader, &mut c.warnings, &mut scene)?;
    Ok(Import {
        scene,
        warnings: c.warnings,
    })
}

impl Converter<'_> {
    fn node(&mut self, i: usize, n: &json::Node) -> Result<Node, ReadError> {
        let root = self.root;
        let at = At::Item("nodes", i);
        if n.camera.is_some() {
            self.not_carried(at, "a camera");
        }
        if n.weights.as_ref().is_some_and(|w| !w.is_empty()) {
            self.not_carried(at, "morph target weights");
        }
        let transform = match n.matrix {
            Some(m) => Transform::Matrix(m),
            None => Transform::Trs {
                translation: n.translation.unwrap_or([0.0; 3]),
                rotation: n.rotation.map_or([0.0, 0.0, 0.0, 1.0], |q| q.0),
                scale: n.scale.unwrap_or([1.0; 3]),
            },
        };
        Ok(Node {
            name: n.name.clone().unwrap_or_default(),
            transform,
            children: n
                .children
                .iter()
                .flatten()
                .map(|c| in_range(&at, "children", c.value(), root.nodes.len()))
                .collect::<Result<_, _>>()?,
            mesh: n
                .mesh
                .map(|m| in_range(&at, "mesh", m.value(), root.meshes.len()))
                .transpose()?,
            skin: n
                .skin
                .map(|s| in_range(&at, "skin", s.value(), root.skins.len()))
                .transpose()?,
            extras: self.extras(&at, &n.extras),
        })
    }

    /// An object's `extras` as a map (where the export put what glTF has no place for); extras
    /// that are not a JSON object are named in a warning and left out.
    fn extras(&mut self, at: &dyn Display, extras: &json::Extras) -> Map<String, Value> {
        extras_map(extras).unwrap_or_else(|| {
            self.not_carried(at, "extras that are not a JSON object");
            Map::new()
        })
    }

    /// The default scene, else the first; with none, every parentless node.
    fn choose_scene(&mut self, scene: &mut Scene) -> Result<(), ReadError> {
        let root = self.root;
        let chosen = root
            .scene
            .map(|s| s.value())
            .or((!root.scenes.is_empty()).then_some(0));
        if let Some(s) = chosen {
            in_range(&"", "scene", s, root.scenes.len())?;
        }
        match chosen.and_then(|s| root.scenes.get(s).map(|x| (s, x))) {
            Some((s, chosen)) => {
                scene.name = chosen.name.clone().unwrap_or_default();
                let at = format!("scenes[{s}]");
                scene.extras = self.extras(&at, &chosen.extras);
                scene.roots = chosen
                    .nodes
                    .iter()
                    .map(|n| in_range(&at, "nodes", n.value(), root.nodes.len()))
                    .collect::<Result<_, _>>()?;
                if root.scenes.len() > 1 {
                    self.warn(
                        "scenes",
                        ReadWarningKind::SceneChoice {
                            message: format!(
                                "scene {s} read; the other {} scene(s) are not in the scene model (their nodes are kept)",
                                root.scenes.len() - 1
                            ),
                        },
                    );
                }
            }
            None => {
                let mut has_parent = vec![false; scene.nodes.len()];
                for n in &scene.nodes {
                    for &c in &n.children {
                        if let Some(p) = has_parent.get_mut(c) {
                            *p = true;
                        }
                    }
                }
                scene.roots = (0..scene.nodes.len())
                    .filter(|&i| !has_parent.get(i).copied().unwrap_or(true))
                    .collect();
                if !scene.nodes.is_empty() {
                    self.warn(
                        "scenes",
                        ReadWarningKind::SceneChoice {
                            message: "no scene: every parentless node is a root".into(),
                        },
                    );
                }
            }
        }
        Ok(())
    }

    fn material(&mut self, i: usize, m: &json::Material) -> Material {
        let at = format!("materials[{i}]");
        let pbr = &m.pbr_metallic_roughness;
        let alpha_mode = match m.alpha_mode {
            Valid(json::material::AlphaMode::Mask) => AlphaMode::Mask,
            Valid(json::material::AlphaMode::Blend) => AlphaMode::Blend,
            _ => AlphaMode::Opaque,
        };
        let color_texture = pbr.base_color_texture.as_ref().and_then(|t| {
            self.texture(
                &format!("{at}.pbrMetallicRoughness.baseColorTexture"),
                t.index,
                t.tex_coord,
            )
        });
        let normal_texture = m
            .normal_texture
            .as_ref()
            .and_then(|t| self.texture(&format!("{at}.normalTexture"), t.index, t.tex_coord));
        for (name, present) in [
            (
                "metallicRoughnessTexture",
                pbr.metallic_roughness_texture.is_some(),
            ),
            ("occlusionTexture", m.occlusion_texture.is_some()),
            ("emissiveTexture", m.emissive_texture.is_some()),
        ] {
            if present {
                self.not_carried(&at, format!("the {name}"));
            }
        }
        let mut extras = self.extras(&at, &m.extras);
        let mut material = Material {
            name: m.name.clone().unwrap_or_default(),
            base_color: pbr.base_color_factor.0,
            emissive: m.emissive_factor.0,
            alpha_mode,
            alpha_cutoff: match alpha_mode {
                AlphaMode::Mask => m.alpha_cutoff.map(|c| c.0),
                _ => None,
            },
            double_sided: m.double_sided,
            color_texture,
            normal_texture,
            ..Material::default()
        };
        take_material_extras(&mut material, &mut extras);
        material.extras = extras;
        material
    }

    /// The image path a texture refers to (its URI, percent-decoded); embedded images have
    /// no path in the scene model and are named in a warning.
    fn texture(
        &mut self,
        at: &str,
        index: json::Index<json::Texture>,
        tex_coord: u32,
    ) -> Option<String> {
        if tex_coord != 0 {
            self.not_carried(
                at,
                format!("TEXCOORD_{tex_coord} for this texture (TEXCOORD_0 is used)"),
            );
        }
        let root = self.root;
        let Some(image) = root
            .textures
            .get(index.value())
            .and_then(|t| root.images.get(t.source.value()))
        else {
            self.not_carried(
                at,
                format!("textures[{}] (missing, or its image is)", index.value()),
            );
            return None;
        };
        let source = root
            .textures
            .get(index.value())
            .map_or(0, |t| t.source.value());
        match image.uri.as_deref() {
            Some(uri) if !uri.starts_with("data:") => match percent_decode(uri) {
                Some(path) => Some(path),
                None => {
                    self.not_carried(at, format!("the image URI {uri:?} (not UTF-8)"));
                    None
                }
            },
            _ => {
                self.not_carried(at, format!("the embedded image images[{source}]"));
                None
            }
        }
    }

    fn skin(&mut self, i: usize, s: &json::Skin) -> Result<Skin, ReadError> {
        let at = format!("skins[{i}]");
        let inverse_bind_matrices = match s.inverse_bind_matrices {
            Some(a) => {
                let (flat, _) =
                    self.reader
                        .floats(a, &format!("{at}.inverseBindMatrices"), &[Type::Mat4])?;
                let m: Vec<[f32; 16]> = flat
                    .chunks_exact(16)
                    .map(|c| {
                        let mut m = [0.0; 16];
                        m.copy_from_slice(c);
                        m
                    })
                    .collect();
                if m.len() < s.joints.len() {
                    return Err(ReadError::invalid(
                        format!("{at}.inverseBindMatrices"),
                        format!("{} matrices for {} joints", m.len(), s.joints.len()),
                    ));
                }
                m
            }
            None => Vec::new(),
        };
        let nodes = self.root.nodes.len();
        Ok(Skin {
            name: s.name.clone().unwrap_or_default(),
            joints: s
                .joints
                .iter()
                .map(|j| in_range(&at, "joints", j.value(), nodes))
                .collect::<Result<_, _>>()?,
            inverse_bind_matrices,
            skeleton: s
                .skeleton
                .map(|j| in_range(&at, "skeleton", j.value(), nodes))
                .transpose()?,
        })
    }

    /// A key accessor, decoded once however many samplers use it.
    fn keys(
        &mut self,
        index: json::Index<json::Accessor>,
        at: &dyn Display,
        ty: Type,
    ) -> Result<Keys, ReadError> {
        let key = (index.value(), ty.multiplicity());
        if let Some(keys) = self.keys.get(&key) {
            return Ok(keys.clone());
        }
        let (values, _) = self.reader.floats(index, at, &[ty])?;
        let keys = Keys::from(values);
        self.keys.insert(key, keys.clone());
        Ok(keys)
    }

    fn animation(&mut self, i: usize, a: &json::Animation) -> Result<Animation, ReadError> {
        let at = At::Item("animations", i);
        let mut out = Animation {
            name: a.name.clone().unwrap_or_default(),
            extras: self.extras(&at, &a.extras),
            ..Animation::default()
        };
        for (k, ch) in a.channels.iter().enumerate() {
            let ch_at = At::Nested(&at, "channels", k);
            let (path, comps) = match ch.target.path {
                Valid(json::animation::Property::Translation) => (ChannelPath::Translation, 3),
                Valid(json::animation::Property::Rotation) => (ChannelPath::Rotation, 4),
                Valid(json::animation::Property::Scale) => (ChannelPath::Scale, 3),
                Valid(json::animation::Property::MorphTargetWeights) => {
                    self.not_carried(ch_at, "a morph target weights channel");
                    continue;
                }
                Checked::Invalid => return Err(ReadError::invalid(ch_at, "unknown target path")),
            };
            let sampler = a
                .samplers
                .get(ch.sampler.value())
                .ok_or_else(|| ReadError::invalid(ch_at, "sampler out of range"))?;
            let interpolation = match sampler.interpolation {
                Valid(json::animation::Interpolation::Step) => Interpolation::Step,
                Valid(json::animation::Interpolation::CubicSpline) => Interpolation::CubicSpline,
                _ => Interpolation::Linear,
            };
            let s_at = At::Nested(&at, "samplers", ch.sampler.value());
            let times = self.keys(sampler.input, &At::Field(&s_at, "input"), Type::Scalar)?;
            let ty = if comps == 3 { Type::Vec3 } else { Type::Vec4 };
            let values = self.keys(sampler.output, &At::Field(&s_at, "output"), ty)?;
            let per_key = comps
                * if interpolation == Interpolation::CubicSpline {
                    3
                } else {
                    1
                };
            if values.len() != times.len() * per_key {
                self.warn(
                    ch_at,
                    ReadWarningKind::ChannelSkipped {
                        reason: format!(
                            "{} output values for {} keys (expected {} per key)",
                            values.len() / comps,
                            times.len(),
                            per_key / comps
                        ),
                    },
                );
                continue;
            }
            let node = in_range(
                &ch_at,
                "target.node",
                ch.target.node.value(),
                self.root.nodes.len(),
            )?;
            out.channels.push(Channel {
                node,
                path,
                interpolation,
                times,
                values,
            });
        }
        Ok(out)
    }
}

/// Every node has at most one parent, there is no cycle, and no chain is deeper than
/// [`MAX_NODE_DEPTH`]. (Children indices are already in range: `gltf-json` checked them.)
/// Copies the buffer views the extras name (`{"bufferView": i}`, the export's large exact
/// arrays) into the scene's blobs, each view once, and renumbers the references to them. A
/// reference to a view that cannot be read is cut (`null`) with a warning; going over the
/// decoding budget is an error, as for accessors.
///
/// The export's blob views are read by no accessor and no image. A reference to a view that
/// one reads is cut too, with a warning: the file was written again by a tool that kept the
/// extras but not the views they name (Blender does: its views are its own meshes' data), so
/// that view holds other bytes, which would otherwise pass for the exact values.
fn blobs(
    root: &json::Root,
    reader: &mut Reader<'_>,
    warnings: &mut Vec<ReadWarning>,
    scene: &mut Scene,
) -> Result<(), ReadError> {
    let mut of_view: HashMap<usize, usize> = HashMap::new();
    let mut blobs: Vec<Array<u8>> = Vec::new();
    let mut result = Ok(());
    let data_views = views_with_data(root);
    blob::for_each_ref(scene, |at, value| {
        let Some(view) = value.get(blob::KEY).and_then(lenient::uint) else {
            return;
        };
        let view = usize::try_from(view).unwrap_or(usize::MAX);
        if data_views.contains(&view) {
            warnings.push(ReadWarning {
                at: at.to_string(),
                kind: ReadWarningKind::ExtrasViewRewritten { view },
            });
            value[blob::KEY] = Value::Null;
            return;
        }
        let found = match of_view.get(&view) {
            Some(&b) => Ok(b),
            None if result.is_err() => return,
            None => reader.view_bytes(view, at).map(|bytes| {
                blobs.push(bytes);
                of_view.insert(view, blobs.len() - 1);
                blobs.len() - 1
            }),
        };
        match found {
            Ok(b) => value[blob::KEY] = b.into(),
            Err(e @ ReadError::TooLarge { .. }) => result = Err(e),
            Err(e) => {
                warnings.push(ReadWarning {
                    at: at.to_string(),
                    kind: ReadWarningKind::NotCarried {
                        what: format!("extras naming a buffer view that cannot be read ({e})"),
                    },
                });
                value[blob::KEY] = Value::Null;
            }
        }
    });
    scene.blobs = blobs;
    result
}

/// The buffer views an accessor (its elements or sparse parts) or an image reads.
fn views_with_data(root: &json::Root) -> HashSet<usize> {
    let mut views = HashSet::new();
    for a in &root.accessors {
        views.extend(a.buffer_view.map(|v| v.value()));
        if let Some(sparse) = &a.sparse {
            views.insert(sparse.indices.buffer_view.value());
            views.insert(sparse.values.buffer_view.value());
        }
    }
    views.extend(
        root.images
            .iter()
            .filter_map(|i| i.buffer_view.map(|v| v.value())),
    );
    views
}

fn check_hierarchy(nodes: &[Node]) -> Result<(), ReadError> {
    let mut parent: Vec<Option<usize>> = vec![None; nodes.len()];
    for (p, n) in nodes.iter().enumerate() {
        for &c in &n.children {
            match parent.get_mut(c) {
                Some(slot @ None) => *slot = Some(p),
                Some(Some(other)) => {
                    return Err(ReadError::invalid(
                        format!("nodes[{p}].children"),
                        format!("node {c} is already a child of node {other}"),
                    ))
                }
                None => {
                    return Err(ReadError::invalid(
                        format!("nodes[{p}].children"),
                        format!("node {c} out of range"),
                    ))
                }
            }
        }
    }
    // Depth of every node, walking down from the parentless ones; a node never reached is
    // on (or under) a cycle.
    let mut depth: Vec<Option<usize>> = vec![None; nodes.len()];
    let mut stack: Vec<(usize, usize)> = (0..nodes.len())
        .filter(|&i| parent.get(i).is_some_and(Option::is_none))
        .map(|i| (i, 1))
        .collect();
    while let Some((i, d)) = stack.pop() {
        if d > MAX_NODE_DEPTH {
            return Err(ReadError::invalid(
                format!("nodes[{i}]"),
                format!("nested deeper than {MAX_NODE_DEPTH} levels"),
            ));
        }
        if let Some(slot) = depth.get_mut(i) {
            *slot = Some(d);
        }
        for &c in nodes
            .get(i)
            .map(|n| n.children.as_slice())
            .unwrap_or_default()
        {
            stack.push((c, d + 1));
        }
    }
    if let Some(i) = depth.iter().position(Option::is_none) {
        return Err(ReadError::invalid(
            format!("nodes[{i}]"),
            "the node hierarchy has a cycle through this node",
        ));
    }
    Ok(())
}

/// `i` if it is below `len`, else an error at `{at}.{field}`.
fn in_range(at: &dyn Display, field: &str, i: usize, len: usize) -> Result<usize, ReadError> {
    if i < len {
        Ok(i)
    } else {
        let at = at.to_string();
        let at = if at.is_empty() {
            field.to_string()
        } else {
            format!("{at}.{field}")
        };
        Err(ReadError::invalid(
            at,
            format!("index {i} out of range (there are {len})"),
        ))
    }
}

/// Takes back the material fields the glTF writer keeps in `extras` (the source's colours
/// where they were clamped, specular colour and power, light and specular maps, texture paths
/// that were not found), so that an exported material reads back as it was.
fn take_material_extras(m: &mut Material, extras: &mut Map<String, Value>) {
    fn floats<const N: usize>(v: Option<Value>) -> Option<[f32; N]> {
        let list = v?;
        let list = list.as_array()?;
        let mut out = [0.0; N];
        if list.len() != N {
            return None;
        }
        for (o, x) in out.iter_mut().zip(list) {
            *o = x.as_f64()? as f32;
        }
        Some(out)
    }
    fn text(v: Option<Value>) -> Option<String> {
        v.and_then(|v| v.as_str().map(str::to_owned))
    }
    if let Some(c) = floats::<4>(extras.remove("sourceBaseColor")) {
        m.base_color = c;
    }
    if let Some(c) = floats::<3>(extras.remove("sourceEmissive")) {
        m.emissive = c;
    }
    if let Some(color) = floats::<4>(extras.remove("specular")) {
        let power = extras
            .remove("specularPower")
            .and_then(|p| p.as_f64())
            .unwrap_or(0.0) as f32;
        m.specular = Some((color, power));
    }
    m.light_map = text(extras.remove("lightMap")).or(m.light_map.take());
    m.specular_texture = text(extras.remove("specularMap")).or(m.specular_texture.take());
    if m.color_texture.is_none() {
        m.color_texture = text(extras.remove("colorTexture"));
    }
    if m.normal_texture.is_none() {
        m.normal_texture = text(extras.remove("normalTexture"));
    }
}

/// `extras` as a map: empty when absent, `None` when they are not a JSON object.
pub(super) fn extras_map(extras: &json::Extras) -> Option<Map<String, Value>> {
    let Some(raw) = extras else {
        return Some(Map::new());
    };
    match serde_json::from_str::<Value>(raw.get()) {
        Ok(Value::Object(map)) => Some(map),
        _ => None,
    }
}
