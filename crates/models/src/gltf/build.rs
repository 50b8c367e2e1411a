//! The builder: [`Scene`] → glTF JSON + one binary buffer, repairing (with a warning) whatever
//! the glTF-Validator would reject.

use super::indices::{self, PrimIndices};
use super::textures::{self, Embedded};
use super::{Error, Gltf, GltfOptions};
use crate::scene::{
    decompose, normalize_quat, AlphaMode, Animation, ChannelPath, Interpolation, Material, Mesh,
    Scene, SceneWarning, Transform,
};
use gltf_json as json;
use json::accessor::{ComponentType, GenericComponentType, Type};
use json::buffer::Target;
use json::validation::{Checked::Valid, USize64};
use json::Index;
use serde_json::{Map, Value};
use std::borrow::Cow;
use std::collections::{BTreeMap, HashMap, HashSet};

/// Which textures a written material uses (its primitives need TEXCOORD_0, and TANGENT for a
/// normal map).
#[derive(Clone, Copy, Default)]
struct TextureUse {
    any: bool,
    normal_map: bool,
}

/// A skin that survived validation, with its joints and inverse bind matrices.
struct SkinPlan {
    joints: Vec<usize>,
    ibm: Vec<[f32; 16]>,
    skeleton: Option<usize>,
    name: String,
}

/// What [`Builder::found_image`] found.
enum FoundImage {
    /// The file already has a texture.
    Done(Index<json::Texture>),
    /// A new file: its real path and its PNG or JPEG bytes with their MIME type.
    New(std::path::PathBuf, Vec<u8>, &'static str),
}

/// Key arrays already written: input accessors by their times (within one animation), and
/// whole samplers by the scene's shared key arrays (across animations).
#[derive(Default)]
struct WrittenKeys {
    inputs: HashMap<Vec<u32>, Index<json::Accessor>>,
    #[allow(clippy::type_complexity)]
    samplers: HashMap<
        (*const Vec<f32>, *const Vec<f32>, ChannelPath, Interpolation),
        (Index<json::Accessor>, Index<json::Accessor>, Interpolation),
    >,
}

struct Builder<'a> {
    root: json::Root,
    bin: Vec<u8>,
    warnings: Vec<SceneWarning>,
    options: &'a GltfOptions,
    textures: HashMap<String, Option<Index<json::Texture>>>,
    /// One texture per real file (embedding) or per URI (referencing), whatever the spelling.
    texture_files: HashMap<std::path::PathBuf, Index<json::Texture>>,
    /// Texture paths not found (one warning per model lists them).
    missing_textures: Vec<String>,
    /// Image files to write beside the output ([`GltfOptions::texture_folder`]).
    image_files: Vec<(String, Vec<u8>)>,
}

pub(crate) fn build(scene: &Scene, options: &GltfOptions) -> Result<Gltf, Error> {
    let mut b = Builder {
        root: json::Root::default(),
        bin: Vec::with_capacity(bin_estimate(scene)),
        warnings: Vec::new(),
        options,
        textures: HashMap::new(),
        texture_files: HashMap::new(),
        missing_textures: Vec::new(),
        image_files: Vec::new(),
    };
    b.root.asset = json::Asset {
        generator: Some(format!("models {}", env!("CARGO_PKG_VERSION"))),
        ..json::Asset::default()
    };

    // Hierarchy: a forest over the scene's nodes plus any synthetic roots added below.
    let mut h = Hierarchy::new(scene, &mut b.warnings);
    let skins = b.plan_skins(scene, &mut h);

    // Materials are written one for one, so scene material i is glTF material i.
    let mut textured = Vec::with_capacity(scene.materials.len());
    for (i, m) in scene.materials.iter().enumerate() {
        let (mat, uses) = b.material(i, m)?;
        push(&mut b.root.materials, mat)?;
        textured.push(uses);
    }
    b.warn_missing_textures();

    // Which valid skins each mesh is drawn with.
    let mut mesh_skins: Vec<Vec<usize>> = vec![Vec::new(); scene.meshes.len()];
    for node in &scene.nodes {
        if let (Some(m), Some(s)) = (node.mesh, node.skin) {
            if let (Some(list), Some(Some(_))) = (mesh_skins.get_mut(m), skins.get(s)) {
                list.push(s);
            }
        }
    }
    for list in &mut mesh_skins {
        list.sort_unstable();
        list.dedup();
    }
    let mut meshes: Vec<Option<(Index<json::Mesh>, bool)>> = Vec::new();
    for (i, mesh) in scene.meshes.iter().enumerate() {
        let joint_count = mesh_skins
            .get(i)
            .into_iter()
            .flatten()
            .filter_map(|&s| skins.get(s).and_then(Option::as_ref))
            .map(|s| s.joints.len())
            .min();
        meshes.push(b.mesh(i, mesh, joint_count, &textured, scene.materials.len())?);
    }

    // Nodes (scene nodes, then synthetic roots).
    for (i, node) in scene.nodes.iter().enumerate() {
        let label = label("node", i, &node.name);
        let mut out = b.node_transform(&label, &node.transform);
        out.name = non_empty(&node.name);
        out.extras = extras(&node.extras)?;
        out.children = h.children_index(i)?;
        if let Some(m) = node.mesh {
            match meshes.get(m) {
                Some(Some((index, skinned))) => {
                    out.mesh = Some(*index);
                    match node.skin {
                        Some(s) if *skinned && matches!(skins.get(s), Some(Some(_))) => {
                            out.skin = Some(Index::new(u32_of(s, "skins")?));
                        }
                        Some(s) => b.warn(format!(
                            "{label}: skin {s} not written (it is invalid, or mesh {m} has no joints and weights)"
                        )),
                        None => {}
                    }
                }
                Some(None) => b.warn(format!(
                    "{label}: mesh {m} has no drawable triangles and is not written"
                )),
                None => b.warn(format!(
                    "{label}: mesh index {m} out of range ({} meshes); dropped",
                    scene.meshes.len()
                )),
            }
        } else if node.skin.is_some() {
            b.warn(format!("{label}: a skin without a mesh; dropped"));
        }
        push(&mut b.root.nodes, out)?;
    }
    for (k, name) in h.synthetic.iter().enumerate() {
        let i = scene.nodes.len() + k;
        let node = json::Node {
            name: Some(name.clone()),
            children: h.children_index(i)?,
            ..json::Node::default()
        };
        push(&mut b.root.nodes, node)?;
    }

    // Skins keep their indices: an invalid skin is written as a stub only if a later one is
    // valid would shift them, so instead invalid skins are never referenced and valid ones are
    // re-indexed densely below.
    let mut skin_index = vec![None; skins.len()];
    for (i, plan) in skins.iter().enumerate() {
        let Some(plan) = plan else { continue };
        let ibm = if plan.ibm.is_empty() {
            None
        } else {
            let bytes = f32_bytes(&plan.ibm);
            Some(b.accessor(
                &bytes,
                plan.ibm.len(),
                ComponentType::F32,
                Type::Mat4,
                None,
                None,
            )?)
        };
        let skin = json::Skin {
            extensions: None,
            extras: None,
            inverse_bind_matrices: ibm,
            joints: plan
                .joints
                .iter()
                .map(|&j| u32_of(j, "nodes").map(Index::new))
                .collect::<Result<_, _>>()?,
            name: non_empty(&plan.name),
            skeleton: plan
                .skeleton
                .map(|s| u32_of(s, "nodes").map(Index::new))
                .transpose()?,
        };
        let index = push(&mut b.root.skins, skin)?;
        if let Some(slot) = skin_index.get_mut(i) {
            *slot = Some(index);
        }
    }
    for node in &mut b.root.nodes {
        if let Some(s) = node.skin {
            node.skin = skin_index.get(s.value()).copied().flatten();
        }
    }

    let mut written = WrittenKeys::default();
    for (i, anim) in scene.animations.iter().enumerate() {
        b.animation(i, anim, h.len(), &mut written)?;
        // Times are shared within an animation only (as before); samplers across animations.
        written.inputs.clear();
    }

    // glTF allows a scene without nodes, but common readers (the `gltf` crate, so Bevy)
    // require the `nodes` array: an empty scene gets one empty node.
    let mut roots = h.roots.clone();
    if roots.is_empty() {
        roots.push(b.root.nodes.len());
        push(
            &mut b.root.nodes,
            json::Node {
                name: Some("empty".into()),
                ..json::Node::default()
            },
        )?;
    }
    let scene_out = json::Scene {
        extensions: None,
        extras: extras(&scene.extras)?,
        name: non_empty(&scene.name),
        nodes: roots
            .iter()
            .map(|&r| u32_of(r, "nodes").map(Index::new))
            .collect::<Result<_, _>>()?,
    };
    let scene_index = push(&mut b.root.scenes, scene_out)?;
    b.root.scene = Some(scene_index);

    pad4(&mut b.bin);
    if !b.bin.is_empty() {
        b.root.buffers.push(json::Buffer {
            byte_length: USize64::from(b.bin.len()),
            name: None,
            uri: None,
            extensions: None,
            extras: None,
        });
    }
    Ok(Gltf {
        root: b.root,
        bin: b.bin,
        warnings: b.warnings,
        images: b.image_files,
    })
}

// ---------------------------------------------------------------------------------------------
// Hierarchy

/// The node forest as it will be written: every node has at most one parent, there are no
/// cycles, and the scene's roots are exactly the parentless nodes.
struct Hierarchy {
    children: Vec<Vec<usize>>,
    parent: Vec<Option<usize>>,
    roots: Vec<usize>,
    /// Names of synthetic nodes appended after the scene's nodes.
    synthetic: Vec<String>,
    /// Depth-first entry and exit numbers of the scene's nodes in the forest as built by
    /// [`Hierarchy::new`] (adopting roots does not change who is whose ancestor among them).
    visit: Vec<(usize, usize)>,
    /// Union-find over tree tops: `top[i]` leads (through `top` again) to the root of node
    /// `i`'s tree, with path compression; [`Hierarchy::adopt`] links adopted roots to the new
    /// node. Finding a root is then near O(1) instead of a walk up a long chain.
    top: Vec<usize>,
}

impl Hierarchy {
    fn new(scene: &Scene, warnings: &mut Vec<SceneWarning>) -> Self {
        let n = scene.nodes.len();
        let mut children = vec![Vec::new(); n];
        let mut parent: Vec<Option<usize>> = vec![None; n];
        for (i, (node, kids)) in scene.nodes.iter().zip(&mut children).enumerate() {
            for &c in &node.children {
                match parent.get_mut(c) {
                    None => warnings.push(SceneWarning(format!(
                        "{}: child index {c} out of range ({n} nodes); dropped",
                        label("node", i, &node.name)
                    ))),
                    Some(p) if c == i || p.is_some() => {
                        warnings.push(SceneWarning(format!(
                            "{}: node {c} is already a child of node {}; second link dropped",
                            label("node", i, &node.name),
                            p.unwrap_or(c)
                        )));
                    }
                    Some(p) => {
                        *p = Some(i);
                        kids.push(c);
                    }
                }
            }
        }
        // Nodes unreachable from a parentless node sit on (or under) a cycle: cut the cycle at
        // the first such node, which becomes a root.
        let mut reached = vec![false; n];
        let mut next_unreached = 0usize;
        let mut stack: Vec<usize> = parent
            .iter()
            .enumerate()
            .filter_map(|(i, p)| p.is_none().then_some(i))
            .collect();
        loop {
            // Every index on the stack is a node index (`< n`): a parentless node, a child
            // checked above, or the unreached node pushed below.
            while let Some(i) = stack.pop() {
                if reached
                    .get_mut(i)
                    .is_some_and(|r| !std::mem::replace(r, true))
                {
                    stack.extend(children.get(i).into_iter().flatten().copied());
                }
            }
            // Resume the search for an unreached node where the last one stopped.
            while reached.get(next_unreached).is_some_and(|&r| r) {
                next_unreached += 1;
            }
            let i = next_unreached;
            if i >= n {
                break;
            }
            if let Some(p) = parent.get_mut(i).and_then(Option::take) {
                if let Some(siblings) = children.get_mut(p) {
                    siblings.retain(|&c| c != i);
                }
                let name = scene.nodes.get(i).map_or("", |node| node.name.as_str());
                warnings.push(SceneWarning(format!(
                    "{}: the hierarchy has a cycle through node {p}; link from node {p} cut",
                    label("node", i, name)
                )));
            }
            stack.push(i);
        }
        let mut roots = Vec::new();
        let mut is_root = HashSet::new();
        for &r in &scene.roots {
            match parent.get(r) {
                None => warnings.push(SceneWarning(format!(
                    "scene root {r} out of range ({n} nodes); dropped"
                ))),
                Some(Some(p)) => warnings.push(SceneWarning(format!(
                    "scene root {r} is a child of node {p}; kept only as a child"
                ))),
                Some(None) => {
                    if is_root.insert(r) {
                        roots.push(r);
                    }
                }
            }
        }
        for (i, p) in parent.iter().enumerate() {
            if p.is_none() && is_root.insert(i) {
                roots.push(i);
            }
        }
        let (visit, top) = number_forest(&roots, &children, n);
        Self {
            children,
            parent,
            roots,
            synthetic: Vec::new(),
            visit,
            top,
        }
    }

    fn len(&self) -> usize {
        self.parent.len()
    }

    fn root_of(&mut self, i: usize) -> usize {
        let mut r = i;
        while let Some(&up) = self.top.get(r).filter(|&&up| up != r) {
            r = up;
        }
        // Path compression.
        let mut x = i;
        while let Some(up) = self.top.get_mut(x).filter(|up| **up != r) {
            x = std::mem::replace(up, r);
        }
        r
    }

    /// Whether scene node `a` is `b` or one of its ancestors.
    fn is_ancestor_or_self(&self, a: usize, b: usize) -> bool {
        match (self.visit.get(a), self.visit.get(b)) {
            (Some(&(a_in, a_out)), Some(&(b_in, b_out))) => a_in <= b_in && b_out <= a_out,
            _ => false,
        }
    }

    /// Puts the trees of `roots` under a new identity node (so that a skin has a common root).
    fn adopt(&mut self, roots: &[usize], name: String) -> usize {
        let new = self.parent.len();
        self.parent.push(None);
        self.children.push(roots.to_vec());
        self.synthetic.push(name);
        self.top.push(new);
        for &r in roots {
            if let Some(p) = self.parent.get_mut(r) {
                *p = Some(new);
            }
            if let Some(t) = self.top.get_mut(r) {
                *t = new;
            }
        }
        let adopted: HashSet<usize> = roots.iter().copied().collect();
        let at = self
            .roots
            .iter()
            .position(|r| adopted.contains(r))
            .unwrap_or(self.roots.len());
        self.roots.retain(|r| !adopted.contains(r));
        self.roots.insert(at.min(self.roots.len()), new);
        new
    }

    fn children_index(&self, i: usize) -> Result<Option<Vec<Index<json::Node>>>, Error> {
        let c = self.children.get(i).map(Vec::as_slice).unwrap_or(&[]);
        if c.is_empty() {
            return Ok(None);
        }
        c.iter()
            .map(|&c| u32_of(c, "nodes").map(Index::new))
            .collect::<Result<Vec<_>, _>>()
            .map(Some)
    }
}

/// Depth-first entry/exit numbers of every node of the forest under `roots` (iteratively: a
/// chain of 120 000 bones must not overflow the stack), and every node's tree root.
fn number_forest(
    roots: &[usize],
    children: &[Vec<usize>],
    n: usize,
) -> (Vec<(usize, usize)>, Vec<usize>) {
    let mut visit = vec![(0usize, 0usize); n];
    let mut top: Vec<usize> = (0..n).collect();
    let mut clock = 0usize;
    // (node, entered): a node is pushed twice, for its entry and its exit.
    let mut stack: Vec<(usize, bool)> = Vec::new();
    for &r in roots {
        stack.push((r, false));
        while let Some((i, entered)) = stack.pop() {
            clock += 1;
            if entered {
                if let Some(v) = visit.get_mut(i) {
                    v.1 = clock;
                }
                continue;
            }
            if let Some(v) = visit.get_mut(i) {
                v.0 = clock;
            }
            if let Some(t) = top.get_mut(i) {
                *t = r;
            }
            stack.push((i, true));
            stack.extend(children.get(i).into_iter().flatten().map(|&c| (c, false)));
        }
    }
    (visit, top)
}

// ---------------------------------------------------------------------------------------------

impl Builder<'_> {
    fn warn(&mut self, message: String) {
        self.warnings.push(SceneWarning(message));
    }

    /// Appends `data` to the buffer (4-byte aligned) and returns its view.
    fn view(
        &mut self,
        data: &[u8],
        target: Option<Target>,
    ) -> Result<Index<json::buffer::View>, Error> {
        pad4(&mut self.bin);
        let offset = self.bin.len();
        self.bin.extend_from_slice(data);
        if u32::try_from(self.bin.len()).is_err() {
            return Err(Error::TooLarge {
                what: "buffer",
                size: self.bin.len() as u64,
            });
        }
        push(
            &mut self.root.buffer_views,
            json::buffer::View {
                buffer: Index::new(0),
                byte_length: USize64::from(data.len()),
                byte_offset: (offset > 0).then(|| USize64::from(offset)),
                byte_stride: None,
                name: None,
                target: target.map(Valid),
                extensions: None,
                extras: None,
            },
        )
    }

    /// A tightly packed accessor over a new view holding `data` (`count` ≥ 1 elements).
    fn accessor(
        &mut self,
        data: &[u8],
        count: usize,
        component: ComponentType,
        type_: Type,
        target: Option<Target>,
        min_max: Option<(Value, Value)>,
    ) -> Result<Index<json::Accessor>, Error> {
        let view = self.view(data, target)?;
        let (min, max) = match min_max {
            Some((a, b)) => (Some(a), Some(b)),
            None => (None, None),
        };
        push(
            &mut self.root.accessors,
            json::Accessor {
                buffer_view: Some(view),
                byte_offset: None,
                count: USize64::from(count),
                component_type: Valid(GenericComponentType(component)),
                extensions: None,
                extras: None,
                type_: Valid(type_),
                min,
                max,
                name: None,
                normalized: false,
                sparse: None,
            },
        )
    }

    /// An accessor of `count` elements at `offset` bytes into an existing view.
    fn accessor_in(
        &mut self,
        view: Index<json::buffer::View>,
        offset: usize,
        count: usize,
        component: ComponentType,
        type_: Type,
    ) -> Result<Index<json::Accessor>, Error> {
        push(
            &mut self.root.accessors,
            json::Accessor {
                buffer_view: Some(view),
                byte_offset: (offset > 0).then(|| USize64::from(offset)),
                count: USize64::from(count),
                component_type: Valid(GenericComponentType(component)),
                extensions: None,
                extras: None,
                type_: Valid(type_),
                min: None,
                max: None,
                name: None,
                normalized: false,
                sparse: None,
            },
        )
    }

    fn node_transform(&mut self, label: &str, t: &Transform) -> json::Node {
        let (mut tr, mut q, mut s) = match *t {
            Transform::Trs {
                translation,
                rotation,
                scale,
            } => (translation, rotation, scale),
            Transform::Matrix(m) => {
                let (tr, q, s, err) = decompose(m);
                let magnitude = m
                    .iter()
                    .filter(|v| v.is_finite())
                    .fold(1.0f32, |a, v| a.max(v.abs()));
                if err.is_nan() || err > 1e-4 * magnitude {
                    self.warn(format!(
                        "{label}: its matrix is not a pure translation/rotation/scale (off by {err}); written as the nearest TRS"
                    ));
                }
                (tr, q, s)
            }
        };
        if tr.iter().chain(&s).chain(&q).any(|v| !v.is_finite()) {
            self.warn(format!(
                "{label}: non-finite transform values replaced by the identity's"
            ));
            tr = tr.map(|v| if v.is_finite() { v } else { 0.0 });
            s = s.map(|v| if v.is_finite() { v } else { 1.0 });
        }
        q = normalize_quat(q);
        json::Node {
            translation: (tr != [0.0; 3]).then_some(tr),
            rotation: (q != [0.0, 0.0, 0.0, 1.0]).then_some(json::scene::UnitQuaternion(q)),
            scale: (s != [1.0; 3]).then_some(s),
            ..json::Node::default()
        }
    }

    /// Validates every skin; may add a synthetic common root. `None` for a skin not written.
    fn plan_skins(&mut self, scene: &Scene, h: &mut Hierarchy) -> Vec<Option<SkinPlan>> {
        let n = scene.nodes.len();
        let mut plans = Vec::with_capacity(scene.skins.len());
        for (i, skin) in scene.skins.iter().enumerate() {
            let label = label("skin", i, &skin.name);
            if skin.joints.is_empty() {
                self.warn(format!("{label}: no joints; skin not written"));
                plans.push(None);
                continue;
            }
            if let Some(&j) = skin.joints.iter().find(|&&j| j >= n) {
                self.warn(format!(
                    "{label}: joint node {j} out of range ({n} nodes); skin not written"
                ));
                plans.push(None);
                continue;
            }
            let mut seen = HashSet::with_capacity(skin.joints.len());
            if let Some(&j) = skin.joints.iter().find(|&&j| !seen.insert(j)) {
                self.warn(format!(
                    "{label}: joint node {j} listed twice; skin not written"
                ));
                plans.push(None);
                continue;
            }
            let mut ibm = skin.inverse_bind_matrices.clone();
            if !ibm.is_empty() && ibm.len() != skin.joints.len() {
                self.warn(format!(
                    "{label}: {} inverse bind matrices for {} joints; {} with identities",
                    ibm.len(),
                    skin.joints.len(),
                    if ibm.len() > skin.joints.len() {
                        "extra ones dropped"
                    } else {
                        "padded"
                    }
                ));
                ibm.resize(skin.joints.len(), crate::scene::IDENTITY);
            }
            let mut fixed = 0usize;
            for m in &mut ibm {
                let before = *m;
                for v in m.iter_mut() {
                    if !v.is_finite() {
                        *v = 0.0;
                    }
                }
                m[3] = 0.0;
                m[7] = 0.0;
                m[11] = 0.0;
                m[15] = 1.0;
                if before.iter().zip(m.iter()).any(|(a, b)| a != b)
                // by value: a mirrored -0.0 is fine (written as 0.0)
                {
                    fixed += 1;
                }
            }
            if fixed > 0 {
                self.warn(format!(
                    "{label}: {fixed} inverse bind matrices were not affine (or not finite); their last row was set to 0 0 0 1"
                ));
            }
            // A common root for the joints.
            let mut roots: Vec<usize> = Vec::new();
            let mut distinct = HashSet::new();
            for &j in &skin.joints {
                let r = h.root_of(j);
                if distinct.insert(r) {
                    roots.push(r);
                }
            }
            if roots.len() > 1 {
                let name = format!(
                    "{}_root",
                    if skin.name.is_empty() {
                        "skin"
                    } else {
                        &skin.name
                    }
                );
                self.warn(format!(
                    "{label}: its joints lie in {} separate trees; a common root node {name:?} was added above them",
                    roots.len()
                ));
                h.adopt(&roots, name);
            }
            let skeleton = match skin.skeleton {
                Some(s) if s < n && skin.joints.iter().all(|&j| h.is_ancestor_or_self(s, j)) => {
                    Some(s)
                }
                Some(s) => {
                    self.warn(format!(
                        "{label}: skeleton node {s} is not a common root of the joints; omitted"
                    ));
                    None
                }
                None => None,
            };
            plans.push(Some(SkinPlan {
                joints: skin.joints.clone(),
                ibm,
                skeleton,
                name: skin.name.clone(),
            }));
        }
        plans
    }

    /// The texture for a source path, written once per distinct path.
    fn texture(&mut self, raw: &str, owner: &str) -> Result<Option<Index<json::Texture>>, Error> {
        if let Some(t) = self.textures.get(raw) {
            return Ok(*t);
        }
        let texture = if self.options.embed_textures {
            self.file_texture(raw, owner, None)?
        } else if let Some(folder) = &self.options.texture_folder {
            let folder = folder.clone();
            self.file_texture(raw, owner, Some(&folder))?
        } else {
            self.referenced_texture(raw, owner)?
        };
        self.textures.insert(raw.to_owned(), texture);
        Ok(texture)
    }

    /// The real file `raw` names and its image as PNG or JPEG, with the texture already made
    /// for that file if any. `None` (with a warning, or listed as missing) when it is not
    /// found, refused by the path policy, too large or not an image.
    fn found_image(&mut self, raw: &str, owner: &str) -> Option<FoundImage> {
        let base = self.options.texture_base();
        let located = textures::locate_in(
            &base,
            &self.options.texture_dirs,
            raw,
            self.options.allow_outside_textures,
        );
        let file = match located {
            Ok(file) => file,
            Err(e) if e.missing => {
                if !self.missing_textures.iter().any(|m| m == raw) {
                    self.missing_textures.push(raw.to_owned());
                }
                return None;
            }
            Err(e) => {
                self.warn(format!("{owner}: {}", e.reason));
                return None;
            }
        };
        if let Some(t) = self.texture_files.get(&file) {
            return Some(FoundImage::Done(*t));
        }
        match textures::load(&file, raw) {
            Embedded::Image(bytes, mime) => Some(FoundImage::New(file, bytes, mime)),
            Embedded::Refused(reason) => {
                self.warn(format!("{owner}: {reason}"));
                None
            }
        }
    }

    /// One warning per model listing the textures that were not found.
    fn warn_missing_textures(&mut self) {
        if self.missing_textures.is_empty() {
            return;
        }
        let list: Vec<String> = self
            .missing_textures
            .iter()
            .map(|m| format!("{m:?}"))
            .collect();
        let dirs = if self.options.texture_dirs.is_empty() {
            String::new()
        } else {
            " and in the --texture-dir folders".to_owned()
        };
        self.warn(format!(
            "{} texture file(s) not found beside the model{dirs} (kept in the materials' extras): {}",
            list.len(),
            list.join(", ")
        ));
    }

    /// The texture for the file `raw` names, once per real file: embedded (`folder` `None`),
    /// or written into `folder` beside the output and referred to by relative URI (PNG and
    /// JPEG copied, other formats converted to PNG).
    fn file_texture(
        &mut self,
        raw: &str,
        owner: &str,
        folder: Option<&str>,
    ) -> Result<Option<Index<json::Texture>>, Error> {
        let (file, bytes, mime) = match self.found_image(raw, owner) {
            None => return Ok(None),
            Some(FoundImage::Done(t)) => return Ok(Some(t)),
            Some(FoundImage::New(file, bytes, mime)) => (file, bytes, mime),
        };
        let image = match folder {
            None => json::Image {
                buffer_view: Some(self.view(&bytes, None)?),
                mime_type: Some(json::image::MimeType(mime.to_owned())),
                name: non_empty(raw),
                uri: None,
                extensions: None,
                extras: None,
            },
            Some(folder) => {
                let relative = self.image_file_name(folder, &file, mime);
                self.image_files.push((relative.clone(), bytes));
                json::Image {
                    buffer_view: None,
                    mime_type: None,
                    name: non_empty(raw),
                    uri: Some(textures::percent_encode(&relative)),
                    extensions: None,
                    extras: None,
                }
            }
        };
        let texture = self.push_texture(image)?;
        self.texture_files.insert(file, texture);
        Ok(Some(texture))
    }

    /// `folder/STEM.png` (or `.jpg`) for `file`; distinct files with the same name (from two
    /// folders) get distinct names (`STEM-1.png`, …).
    fn image_file_name(&self, folder: &str, file: &std::path::Path, mime: &str) -> String {
        let ext = if mime == "image/jpeg" { "jpg" } else { "png" };
        let stem = file
            .file_stem()
            .map(|s| s.to_string_lossy().into_owned())
            .filter(|s| !s.is_empty() && s != "..")
            .unwrap_or_else(|| "texture".to_owned());
        let taken = |name: &str| {
            self.image_files
                .iter()
                .any(|(t, _)| t.eq_ignore_ascii_case(name))
        };
        let mut name = format!("{folder}/{stem}.{ext}");
        let mut n = 1;
        while taken(&name) {
            name = format!("{folder}/{stem}-{n}.{ext}");
            n += 1;
        }
        name
    }

    /// The texture referring to `raw` by relative URI, once per URI.
    fn referenced_texture(
        &mut self,
        raw: &str,
        owner: &str,
    ) -> Result<Option<Index<json::Texture>>, Error> {
        let Some((uri, absolute)) = textures::relative_uri(raw) else {
            self.warn(format!(
                "{owner}: texture path {raw:?} names no file; not referenced"
            ));
            return Ok(None);
        };
        let ext = uri
            .rsplit('.')
            .next()
            .unwrap_or_default()
            .to_ascii_lowercase();
        if !matches!(ext.as_str(), "png" | "jpg" | "jpeg") {
            // glTF allows only PNG and JPEG images: a .tga URI fails the validator and
            // viewers. The path stays in the material's extras.
            self.warn(format!(
                "{owner}: texture {raw:?} is not PNG or JPEG, which a glTF URI cannot name; not referenced (embed it, or write it beside the output, to convert it)"
            ));
            return Ok(None);
        }
        if absolute {
            self.warn(format!(
                "{owner}: absolute texture path {raw:?} written as the relative URI {uri:?}"
            ));
        }
        if let Some(t) = self.texture_files.get(std::path::Path::new(&uri)) {
            return Ok(Some(*t));
        }
        let image = json::Image {
            buffer_view: None,
            mime_type: None,
            name: non_empty(raw),
            uri: Some(uri.clone()),
            extensions: None,
            extras: None,
        };
        let texture = self.push_texture(image)?;
        self.texture_files.insert(uri.into(), texture);
        Ok(Some(texture))
    }

    fn push_texture(&mut self, image: json::Image) -> Result<Index<json::Texture>, Error> {
        let source = push(&mut self.root.images, image)?;
        push(
            &mut self.root.textures,
            json::Texture {
                name: None,
                sampler: None,
                source,
                extensions: None,
                extras: None,
            },
        )
    }

    fn material(&mut self, i: usize, m: &Material) -> Result<(json::Material, TextureUse), Error> {
        let label = label("material", i, &m.name);
        let mut extra = m.extras.clone();
        let clamp = |v: f32| {
            if v.is_finite() {
                v.clamp(0.0, 1.0)
            } else {
                1.0
            }
        };
        let base = m.base_color.map(clamp);
        let emissive = m.emissive.map(|v| {
            if v.is_finite() {
                v.clamp(0.0, 1.0)
            } else {
                0.0
            }
        });
        if base != m.base_color || emissive != m.emissive {
            self.warn(format!(
                "{label}: colour factors outside 0..1 clamped (the source values are in extras)"
            ));
            extra
                .entry("sourceBaseColor")
                .or_insert_with(|| floats(&m.base_color));
            extra
                .entry("sourceEmissive")
                .or_insert_with(|| floats(&m.emissive));
        }
        let mut roughness = 1.0;
        if let Some((color, power)) = m.specular {
            extra.entry("specular").or_insert_with(|| floats(&color));
            extra
                .entry("specularPower")
                .or_insert_with(|| Value::from(f64::from(power)));
            // Blinn-Phong exponent → GGX roughness (a common approximation).
            if power.is_finite() && power > 0.0 {
                roughness = (2.0 / (power + 2.0)).sqrt().sqrt().clamp(0.0, 1.0);
            }
        }
        if let Some(p) = &m.light_map {
            extra
                .entry("lightMap")
                .or_insert_with(|| Value::from(p.clone()));
        }
        if let Some(p) = &m.specular_texture {
            extra
                .entry("specularMap")
                .or_insert_with(|| Value::from(p.clone()));
        }
        let color = match &m.color_texture {
            Some(p) => {
                let t = self.texture(p, &label)?;
                if t.is_none() {
                    extra
                        .entry("colorTexture")
                        .or_insert_with(|| Value::from(p.clone()));
                }
                t
            }
            None => None,
        };
        let normal = match &m.normal_texture {
            Some(p) => {
                let t = self.texture(p, &label)?;
                if t.is_none() {
                    extra
                        .entry("normalTexture")
                        .or_insert_with(|| Value::from(p.clone()));
                }
                t
            }
            None => None,
        };
        let alpha_cutoff = match (m.alpha_mode, m.alpha_cutoff) {
            (AlphaMode::Mask, Some(c)) if c.is_finite() && c >= 0.0 => {
                Some(json::material::AlphaCutoff(c))
            }
            _ => None,
        };
        let mat = json::Material {
            alpha_cutoff,
            alpha_mode: Valid(match m.alpha_mode {
                AlphaMode::Opaque => json::material::AlphaMode::Opaque,
                AlphaMode::Mask => json::material::AlphaMode::Mask,
                AlphaMode::Blend => json::material::AlphaMode::Blend,
            }),
            double_sided: m.double_sided,
            name: non_empty(&m.name),
            pbr_metallic_roughness: json::material::PbrMetallicRoughness {
                base_color_factor: json::material::PbrBaseColorFactor(base),
                base_color_texture: color.map(|index| json::texture::Info {
                    index,
                    tex_coord: 0,
                    extensions: None,
                    extras: None,
                }),
                metallic_factor: json::material::StrengthFactor(0.0),
                roughness_factor: json::material::StrengthFactor(roughness),
                metallic_roughness_texture: None,
                extensions: None,
                extras: None,
            },
            normal_texture: normal.map(|index| json::material::NormalTexture {
                index,
                scale: 1.0,
                tex_coord: 0,
                extensions: None,
                extras: None,
            }),
            occlusion_texture: None,
            emissive_texture: None,
            emissive_factor: json::material::EmissiveFactor(emissive),
            extensions: None,
            extras: extras(&extra)?,
        };
        let uses = TextureUse {
            any: color.is_some() || normal.is_some(),
            normal_map: normal.is_some(),
        };
        Ok((mat, uses))
    }

    /// Writes one mesh; `None` when nothing of it is drawable. The flag says whether it carries
    /// JOINTS_0/WEIGHTS_0 (only when some node draws it with a valid skin of `joint_count`).
    fn mesh(
        &mut self,
        i: usize,
        mesh: &Mesh,
        joint_count: Option<usize>,
        textured: &[TextureUse],
        material_count: usize,
    ) -> Result<Option<(Index<json::Mesh>, bool)>, Error> {
        let label = label("mesh", i, &mesh.name);
        let v = &mesh.vertices;
        let n = v.positions.len();
        let total_indices: usize = mesh.primitives.iter().map(|p| p.indices.len()).sum();
        if n == 0 {
            if total_indices > 0 {
                self.warn(format!(
                    "{label}: {total_indices} indices but no vertices; not written"
                ));
            }
            return Ok(None);
        }

        // Primitives first: which survive decides whether the mesh is written at all.
        let plan = indices::plan(&label, mesh, n, material_count, &mut self.warnings);
        let mut needs_uv = false;
        let mut needs_tangents = false;
        for (_, material) in &plan.prims {
            if let Some(uses) = material.and_then(|m| textured.get(m)) {
                needs_uv |= uses.any;
                needs_tangents |= uses.normal_map;
            }
        }
        let prims = &plan.prims;
        if prims.is_empty() {
            if total_indices > 0 {
                self.warn(format!("{label}: no drawable triangles; not written"));
            }
            return Ok(None);
        }

        let mut attributes: BTreeMap<json::validation::Checked<json::mesh::Semantic>, _> =
            BTreeMap::new();
        use json::mesh::Semantic;

        // POSITION.
        let mut bad = 0usize;
        let positions: Vec<[f32; 3]> = v
            .positions
            .iter()
            .map(|p| {
                if p.iter().all(|c| c.is_finite()) {
                    *p
                } else {
                    bad += 1;
                    p.map(|c| if c.is_finite() { c } else { 0.0 })
                }
            })
            .collect();
        if bad > 0 {
            self.warn(format!(
                "{label}: {bad} positions had non-finite coordinates, set to 0"
            ));
        }
        let mut min = [f32::INFINITY; 3];
        let mut max = [f32::NEG_INFINITY; 3];
        for p in &positions {
            for ((lo, hi), &v) in min.iter_mut().zip(&mut max).zip(p) {
                *lo = lo.min(v);
                *hi = hi.max(v);
            }
        }
        let acc = self.accessor(
            &f32_bytes(&positions),
            n,
            ComponentType::F32,
            Type::Vec3,
            Some(Target::ArrayBuffer),
            Some((floats(&min), floats(&max))),
        )?;
        attributes.insert(Valid(Semantic::Positions), acc);

        // NORMAL.
        let normals = self.same_len(&label, "normals", v.normals.as_deref(), n);
        if let Some(normals) = normals {
            let mut zero = 0usize;
            let fixed: Vec<[f32; 3]> = normals
                .iter()
                .map(|&nv| {
                    unit3(nv).unwrap_or_else(|| {
                        zero += 1;
                        [0.0, 1.0, 0.0]
                    })
                })
                .collect();
            if zero > 0 {
                self.warn(format!(
                    "{label}: {zero} normals were zero or not finite; set to (0, 1, 0)"
                ));
            }
            let acc = self.accessor(
                &f32_bytes(&fixed),
                n,
                ComponentType::F32,
                Type::Vec3,
                Some(Target::ArrayBuffer),
                None,
            )?;
            attributes.insert(Valid(Semantic::Normals), acc);
            // TANGENT (only with NORMAL); generated for a normal map when the source has none,
            // so that viewers need not make up their own tangent space.
            let given = self.same_len(&label, "tangents", v.tangents.as_deref(), n);
            let generated = match (given, v.uv0.as_deref()) {
                (None, Some(uv)) if needs_tangents && uv.len() == n => {
                    let triangles = plan.triangles().into_iter();
                    Some(generate_tangents(&positions, &fixed, uv, triangles))
                }
                _ => None,
            };
            if let Some(tangents) = given.or(generated.as_deref()) {
                let mut zero = 0usize;
                let fixed: Vec<[f32; 4]> = tangents
                    .iter()
                    .map(|t| {
                        let [x, y, z] = unit3([t[0], t[1], t[2]]).unwrap_or_else(|| {
                            zero += 1;
                            [1.0, 0.0, 0.0]
                        });
                        [x, y, z, if t[3] < 0.0 { -1.0 } else { 1.0 }]
                    })
                    .collect();
                if zero > 0 {
                    self.warn(format!(
                        "{label}: {zero} tangents were zero or not finite; set to (1, 0, 0)"
                    ));
                }
                let acc = self.accessor(
                    &f32_bytes(&fixed),
                    n,
                    ComponentType::F32,
                    Type::Vec4,
                    Some(Target::ArrayBuffer),
                    None,
                )?;
                attributes.insert(Valid(Semantic::Tangents), acc);
            }
        } else if v.tangents.is_some() {
            self.warn(format!(
                "{label}: tangents without normals cannot be written in glTF; dropped"
            ));
        }

        // TEXCOORD_0 / TEXCOORD_1.
        let uv0 = self.same_len(&label, "uv0", v.uv0.as_deref(), n);
        let uv1 = self.same_len(&label, "uv1", v.uv1.as_deref(), n);
        let uv0: Option<Vec<[f32; 2]>> = match uv0 {
            Some(uv) => Some(uv.to_vec()),
            None if uv1.is_some() || needs_uv => {
                self.warn(format!(
                    "{label}: {} but no first UV set; TEXCOORD_0 written as zeros",
                    if uv1.is_some() {
                        "a second UV set"
                    } else {
                        "a textured material"
                    }
                ));
                Some(vec![[0.0; 2]; n])
            }
            None => None,
        };
        for (set, uv) in [(0u32, uv0.as_deref()), (1, uv1)] {
            let Some(uv) = uv else { continue };
            let mut bad = 0usize;
            let fixed: Vec<[f32; 2]> = uv
                .iter()
                .map(|t| {
                    if t.iter().all(|c| c.is_finite()) {
                        *t
                    } else {
                        bad += 1;
                        t.map(|c| if c.is_finite() { c } else { 0.0 })
                    }
                })
                .collect();
            if bad > 0 {
                self.warn(format!(
                    "{label}: {bad} texture coordinates of set {set} were not finite; set to 0"
                ));
            }
            let acc = self.accessor(
                &f32_bytes(&fixed),
                n,
                ComponentType::F32,
                Type::Vec2,
                Some(Target::ArrayBuffer),
                None,
            )?;
            attributes.insert(Valid(Semantic::TexCoords(set)), acc);
        }

        // COLOR_0.
        if let Some(colors) = self.same_len(&label, "colours", v.colors.as_deref(), n) {
            let mut clamped = 0usize;
            let fixed: Vec<[f32; 4]> = colors
                .iter()
                .map(|c| {
                    let f = c.map(|x| {
                        if x.is_finite() {
                            x.clamp(0.0, 1.0)
                        } else {
                            1.0
                        }
                    });
                    if f != *c {
                        clamped += 1;
                    }
                    f
                })
                .collect();
            if clamped > 0 {
                self.warn(format!(
                    "{label}: {clamped} vertex colours outside 0..1 (or not finite) clamped"
                ));
            }
            let acc = self.accessor(
                &f32_bytes(&fixed),
                n,
                ComponentType::F32,
                Type::Vec4,
                Some(Target::ArrayBuffer),
                None,
            )?;
            attributes.insert(Valid(Semantic::Colors(0)), acc);
        }

        // JOINTS_0 / WEIGHTS_0.
        let joints = self.same_len(&label, "joints", v.joints.as_deref(), n);
        let weights = self.same_len(&label, "weights", v.weights.as_deref(), n);
        let mut skinned = false;
        match (joints, weights, joint_count) {
            (Some(joints), Some(weights), Some(count)) => {
                let mut stats = SkinStats::default();
                let mut js = Vec::with_capacity(n);
                let mut ws = Vec::with_capacity(n);
                for (j, w) in joints.iter().zip(weights) {
                    let (j, w) = fix_skin_vertex(*j, *w, count, &mut stats);
                    js.push(j);
                    ws.push(w);
                }
                stats.report(&label, count, &mut self.warnings);
                let wide = js.iter().flatten().any(|&j| j > 255);
                let bytes: Vec<u8> = if wide {
                    js.iter().flatten().flat_map(|j| j.to_le_bytes()).collect()
                } else {
                    js.iter()
                        .flatten()
                        .map(|&j| u8::try_from(j).unwrap_or(0))
                        .collect()
                };
                let component = if wide {
                    ComponentType::U16
                } else {
                    ComponentType::U8
                };
                let acc = self.accessor(
                    &bytes,
                    n,
                    component,
                    Type::Vec4,
                    Some(Target::ArrayBuffer),
                    None,
                )?;
                attributes.insert(Valid(Semantic::Joints(0)), acc);
                let acc = self.accessor(
                    &f32_bytes(&ws),
                    n,
                    ComponentType::F32,
                    Type::Vec4,
                    Some(Target::ArrayBuffer),
                    None,
                )?;
                attributes.insert(Valid(Semantic::Weights(0)), acc);
                skinned = true;
            }
            (Some(_), Some(_), None) => self.warn(format!(
                "{label}: has joints and weights but no node draws it with a valid skin; skinning dropped"
            )),
            (Some(_), None, _) | (None, Some(_), _) => self.warn(format!(
                "{label}: joints without weights (or weights without joints); skinning dropped"
            )),
            (None, None, _) => {}
        }

        // Index accessors; a shared list is written once, at its first use.
        let mut primitives = Vec::with_capacity(prims.len());
        let mut list_views: Vec<Option<Index<json::buffer::View>>> = vec![None; plan.lists.len()];
        let (component, size) = if n <= 65_535 {
            (ComponentType::U16, 2)
        } else {
            (ComponentType::U32, 4)
        };
        for (indices, material) in prims {
            let acc = match indices {
                PrimIndices::Own(indices) => self.accessor(
                    &index_bytes(indices, component),
                    indices.len(),
                    component,
                    Type::Scalar,
                    Some(Target::ElementArrayBuffer),
                    None,
                )?,
                PrimIndices::Shared { list, range } => {
                    let view = match list_views.get(*list).copied().flatten() {
                        Some(view) => view,
                        None => {
                            let data = plan.lists.get(*list).map_or(&[][..], |l| l.as_slice());
                            let view = self.view(
                                &index_bytes(data, component),
                                Some(Target::ElementArrayBuffer),
                            )?;
                            if let Some(slot) = list_views.get_mut(*list) {
                                *slot = Some(view);
                            }
                            view
                        }
                    };
                    self.accessor_in(
                        view,
                        range.start * size,
                        range.len(),
                        component,
                        Type::Scalar,
                    )?
                }
            };
            let material = *material;
            primitives.push(json::mesh::Primitive {
                attributes: attributes.clone(),
                extensions: None,
                extras: None,
                indices: Some(acc),
                material: material
                    .map(|m| u32_of(m, "materials").map(Index::new))
                    .transpose()?,
                mode: Valid(json::mesh::Mode::Triangles),
                targets: None,
            });
        }
        let index = push(
            &mut self.root.meshes,
            json::Mesh {
                extensions: None,
                extras: extras(&mesh.extras)?,
                name: non_empty(&mesh.name),
                primitives,
                weights: None,
            },
        )?;
        Ok(Some((index, skinned)))
    }

    /// The input accessor of `times`, written once per distinct list of times.
    fn times_accessor(
        &mut self,
        times: &[f32],
        inputs: &mut HashMap<Vec<u32>, Index<json::Accessor>>,
    ) -> Result<Index<json::Accessor>, Error> {
        let key: Vec<u32> = times.iter().map(|t| t.to_bits()).collect();
        if let Some(&a) = inputs.get(&key) {
            return Ok(a);
        }
        let first = times.first().copied().unwrap_or_default();
        let last = times.last().copied().unwrap_or_default();
        let a = self.accessor(
            &f32_bytes(bytemuck::cast_slice::<f32, [f32; 1]>(times)),
            times.len(),
            ComponentType::F32,
            Type::Scalar,
            None,
            Some((floats(&[first]), floats(&[last]))),
        )?;
        inputs.insert(key, a);
        Ok(a)
    }

    /// `attr` when it has one entry per vertex; otherwise `None` and a warning.
    fn same_len<'s, T>(
        &mut self,
        label: &str,
        what: &str,
        attr: Option<&'s [T]>,
        n: usize,
    ) -> Option<&'s [T]> {
        let attr = attr?;
        if attr.len() == n {
            Some(attr)
        } else {
            self.warn(format!(
                "{label}: {} {what} for {n} vertices; {what} dropped",
                attr.len()
            ));
            None
        }
    }

    fn animation(
        &mut self,
        i: usize,
        anim: &Animation,
        node_count: usize,
        written: &mut WrittenKeys,
    ) -> Result<(), Error> {
        let label = label("animation", i, &anim.name);
        let mut channels = Vec::new();
        let mut samplers = Vec::new();
        let mut targets: HashSet<(usize, ChannelPath)> = HashSet::new();
        for (c, ch) in anim.channels.iter().enumerate() {
            let clabel = format!("{label} channel {c}");
            if ch.node >= node_count {
                self.warn(format!(
                    "{clabel}: target node {} out of range; channel dropped",
                    ch.node
                ));
                continue;
            }
            if !targets.insert((ch.node, ch.path)) {
                self.warn(format!(
                    "{clabel}: node {} {:?} is already animated by an earlier channel; dropped",
                    ch.node, ch.path
                ));
                continue;
            }
            let (type_, property) = match ch.path {
                ChannelPath::Translation => (Type::Vec3, json::animation::Property::Translation),
                ChannelPath::Rotation => (Type::Vec4, json::animation::Property::Rotation),
                ChannelPath::Scale => (Type::Vec3, json::animation::Property::Scale),
            };
            // Key arrays already written for another channel (another clip of the same MDL
            // source) are referred to again instead of being cleaned and written again.
            let memo = (
                ch.times.as_ptr(),
                ch.values.as_ptr(),
                ch.path,
                ch.interpolation,
            );
            let (input, output, interpolation) = match written.samplers.get(&memo) {
                Some(&done) => done,
                None => {
                    let (times, values, interpolation) = match clean_channel(ch) {
                        Ok((t, v, interp, notes)) => {
                            for note in notes {
                                self.warn(format!("{clabel}: {note}"));
                            }
                            (t, v, interp)
                        }
                        Err(reason) => {
                            self.warn(format!("{clabel}: {reason}; channel dropped"));
                            continue;
                        }
                    };
                    let input = self.times_accessor(&times, &mut written.inputs)?;
                    let comps = if ch.path == ChannelPath::Rotation {
                        4
                    } else {
                        3
                    };
                    let output = self.accessor(
                        &f32_bytes(bytemuck::cast_slice::<f32, [f32; 1]>(&values)),
                        values.len() / comps,
                        ComponentType::F32,
                        type_,
                        None,
                        None,
                    )?;
                    written
                        .samplers
                        .insert(memo, (input, output, interpolation));
                    (input, output, interpolation)
                }
            };
            let sampler = push(
                &mut samplers,
                json::animation::Sampler {
                    extensions: None,
                    extras: None,
                    input,
                    interpolation: Valid(match interpolation {
                        Interpolation::Linear => json::animation::Interpolation::Linear,
                        Interpolation::Step => json::animation::Interpolation::Step,
                        Interpolation::CubicSpline => json::animation::Interpolation::CubicSpline,
                    }),
                    output,
                },
            )?;
            channels.push(json::animation::Channel {
                sampler,
                target: json::animation::Target {
                    extensions: None,
                    extras: None,
                    node: Index::new(u32_of(ch.node, "nodes")?),
                    path: Valid(property),
                },
                extensions: None,
                extras: None,
            });
        }
        if channels.is_empty() {
            self.warn(format!(
                "{label}: no channel with keys; glTF cannot hold an empty animation, not written"
            ));
            return Ok(());
        }
        push(
            &mut self.root.animations,
            json::Animation {
                extensions: None,
                extras: extras(&anim.extras)?,
                channels,
                name: non_empty(&anim.name),
                samplers,
            },
        )?;
        Ok(())
    }
}

// ---------------------------------------------------------------------------------------------
// Data repairs

/// Counts of the repairs made to one mesh's skinning data.
#[derive(Default)]
struct SkinStats {
    bad_weights: usize,
    out_of_range: usize,
    merged: usize,
    unweighted: usize,
    renormalised: usize,
}

impl SkinStats {
    fn report(&self, label: &str, count: usize, warnings: &mut Vec<SceneWarning>) {
        let mut say = |n: usize, what: String| {
            if n > 0 {
                warnings.push(SceneWarning(format!("{label}: {n} {what}")));
            }
        };
        say(
            self.bad_weights,
            "negative or non-finite weights set to 0".into(),
        );
        say(
            self.out_of_range,
            format!("weights on joints beyond the skin's {count} joints dropped"),
        );
        say(self.merged, "repeated joints of a vertex merged".into());
        say(
            self.unweighted,
            "vertices without any weight bound fully to joint 0".into(),
        );
        say(
            self.renormalised,
            "vertices' weights did not sum to 1 and were renormalised".into(),
        );
    }
}

/// Makes one vertex's skinning valid glTF: weights ≥ 0 summing to 1, no repeated joint with a
/// weight, joint 0 wherever the weight is 0, every weighted joint `< count`.
fn fix_skin_vertex(
    mut j: [u16; 4],
    w: [f32; 4],
    count: usize,
    stats: &mut SkinStats,
) -> ([u16; 4], [f32; 4]) {
    let mut w: [f64; 4] = w.map(f64::from);
    for (wk, &jk) in w.iter_mut().zip(&j) {
        if !wk.is_finite() || *wk < 0.0 {
            stats.bad_weights += 1;
            *wk = 0.0;
        }
        if *wk > 0.0 && usize::from(jk) >= count {
            stats.out_of_range += 1;
            *wk = 0.0;
        }
    }
    // Slot k's weight moves to the first earlier slot m < k with a weight and the same joint.
    for k in 1..4 {
        let Some(((earlier, [wk, ..]), &jk)) = w.split_at_mut_checked(k).zip(j.get(k)) else {
            continue;
        };
        if *wk > 0.0 {
            let same = earlier
                .iter_mut()
                .zip(&j)
                .find(|(wm, &jm)| **wm > 0.0 && jm == jk);
            if let Some((wm, _)) = same {
                *wm += *wk;
                *wk = 0.0;
                stats.merged += 1;
            }
        }
    }
    for (jk, &wk) in j.iter_mut().zip(&w) {
        if wk == 0.0 {
            *jk = 0;
        }
    }
    let sum: f64 = w.iter().sum();
    if sum <= 0.0 || !sum.is_finite() {
        stats.unweighted += 1;
        return ([0; 4], [1.0, 0.0, 0.0, 0.0]);
    }
    if (sum - 1.0).abs() > 1e-3 {
        stats.renormalised += 1;
    }
    let mut out = w.map(|x| (x / sum) as f32);
    // Put any f32 rounding error on the largest weight so the sum is as close to 1 as f32 gets.
    let total: f32 = out.iter().sum();
    if let Some(largest) = out.iter_mut().max_by(|a, b| a.total_cmp(b)) {
        *largest += 1.0 - total;
    }
    (j, out)
}

/// A channel's keys made valid: times finite, ≥ 0 and strictly increasing (other keys are
/// dropped), values finite, rotations unit length; a cubic spline of one key becomes linear.
/// Returns times, flattened values, the interpolation and notes for warnings.
#[allow(clippy::type_complexity)]
fn clean_channel(
    ch: &crate::scene::Channel,
) -> Result<(Vec<f32>, Vec<f32>, Interpolation, Vec<String>), String> {
    let comps = match ch.path {
        ChannelPath::Rotation => 4,
        _ => 3,
    };
    let cubic = ch.interpolation == Interpolation::CubicSpline;
    let per_key = comps * if cubic { 3 } else { 1 };
    if ch.times.len().checked_mul(per_key) != Some(ch.values.len()) {
        return Err(format!(
            "{} values for {} keys of {per_key} values each",
            ch.values.len(),
            ch.times.len()
        ));
    }
    let mut notes = Vec::new();
    let mut times = Vec::with_capacity(ch.times.len());
    let mut values = Vec::with_capacity(ch.values.len());
    let mut dropped = 0usize;
    let mut non_finite = 0usize;
    // The length check above makes this pair every time with its key.
    for (&t, key) in ch.times.iter().zip(ch.values.chunks_exact(per_key)) {
        let ok = t.is_finite() && t >= 0.0 && times.last().is_none_or(|&last| t > last);
        if !ok {
            dropped += 1;
            continue;
        }
        times.push(t);
        for (part, chunk) in key.chunks_exact(comps).enumerate() {
            let mut v: Vec<f32> = chunk
                .iter()
                .map(|&x| {
                    if x.is_finite() {
                        x
                    } else {
                        non_finite += 1;
                        0.0
                    }
                })
                .collect();
            let is_value = !cubic || part == 1;
            if let (ChannelPath::Rotation, true, &[x, y, z, w]) = (ch.path, is_value, &v[..]) {
                v.copy_from_slice(&normalize_quat([x, y, z, w]));
            }
            values.extend_from_slice(&v);
        }
    }
    if dropped > 0 {
        notes.push(format!(
            "{dropped} keys with a negative, non-finite or non-increasing time dropped"
        ));
    }
    if non_finite > 0 {
        notes.push(format!("{non_finite} non-finite key values set to 0"));
    }
    if times.is_empty() {
        return Err("no usable keys".into());
    }
    let mut interpolation = ch.interpolation;
    if cubic && times.len() < 2 {
        notes.push("a cubic spline of one key written as linear".into());
        values = values.get(comps..2 * comps).unwrap_or_default().to_vec();
        interpolation = Interpolation::Linear;
    }
    Ok((times, values, interpolation, notes))
}

/// Per-vertex tangents from positions, unit normals and UVs (accumulated per triangle,
/// Gram-Schmidt orthogonalised against the normal; `w` is the handedness of the UV mapping,
/// +1 for a quad facing +z with u to the right and v down, as in glTF's sample models).
fn generate_tangents<'t>(
    positions: &[[f32; 3]],
    normals: &[[f32; 3]],
    uv: &[[f32; 2]],
    triangles: impl Iterator<Item = &'t [u32]>,
) -> Vec<[f32; 4]> {
    let n = positions.len();
    let mut tan = vec![[0.0f64; 3]; n];
    let mut bit = vec![[0.0f64; 3]; n];
    let p = |i: usize| positions.get(i).copied().unwrap_or_default().map(f64::from);
    // glTF's bitangent, cross(normal, tangent) * w, points towards decreasing v (v runs down
    // the image): work with -v, as MikkTSpace on a flipped V does in the reference exporters.
    let t = |i: usize| {
        let q = uv.get(i).copied().unwrap_or_default();
        [f64::from(q[0]), -f64::from(q[1])]
    };
    let sub = |a: [f64; 3], b: [f64; 3]| [a[0] - b[0], a[1] - b[1], a[2] - b[2]];
    for tri in triangles {
        let &[a, b, c] = tri else { continue };
        let [a, b, c] = [a as usize, b as usize, c as usize];
        let (e1, e2) = (sub(p(b), p(a)), sub(p(c), p(a)));
        let (ta, tb, tc) = (t(a), t(b), t(c));
        let (s1, t1, s2, t2) = (tb[0] - ta[0], tb[1] - ta[1], tc[0] - ta[0], tc[1] - ta[1]);
        let det = s1 * t2 - s2 * t1;
        if det.abs() < 1e-20 || !det.is_finite() {
            continue;
        }
        let r = 1.0 / det;
        // Per component: `(x * p - y * q) * r`.
        let combine = |[x0, x1, x2]: [f64; 3], p: f64, [y0, y1, y2]: [f64; 3], q: f64| {
            [
                (x0 * p - y0 * q) * r,
                (x1 * p - y1 * q) * r,
                (x2 * p - y2 * q) * r,
            ]
        };
        let sdir = combine(e1, t2, e2, t1);
        let tdir = combine(e2, s1, e1, s2);
        for v in [a, b, c] {
            if let (Some(tv), Some(bv)) = (tan.get_mut(v), bit.get_mut(v)) {
                for ((tk, bk), (ds, dt)) in tv.iter_mut().zip(bv).zip(sdir.iter().zip(&tdir)) {
                    *tk += ds;
                    *bk += dt;
                }
            }
        }
    }
    tan.iter()
        .zip(&bit)
        .enumerate()
        .map(|(i, (&tv, &b))| {
            let nv = normals
                .get(i)
                .copied()
                .unwrap_or([0.0, 1.0, 0.0])
                .map(f64::from);
            let d = nv[0] * tv[0] + nv[1] * tv[1] + nv[2] * tv[2];
            let mut o = [tv[0] - nv[0] * d, tv[1] - nv[1] * d, tv[2] - nv[2] * d];
            let len = (o[0] * o[0] + o[1] * o[1] + o[2] * o[2]).sqrt();
            if !(len > 1e-12 && len.is_finite()) {
                // Any direction perpendicular to the normal.
                let axis = if nv[0].abs() < 0.9 {
                    [1.0, 0.0, 0.0]
                } else {
                    [0.0, 1.0, 0.0]
                };
                let d = nv[0] * axis[0] + nv[1] * axis[1] + nv[2] * axis[2];
                o = [
                    axis[0] - nv[0] * d,
                    axis[1] - nv[1] * d,
                    axis[2] - nv[2] * d,
                ];
            }
            let o32 = o.map(|x| x as f32);
            let unit = unit3(o32).unwrap_or([1.0, 0.0, 0.0]).map(f64::from);
            let cross = [
                nv[1] * unit[2] - nv[2] * unit[1],
                nv[2] * unit[0] - nv[0] * unit[2],
                nv[0] * unit[1] - nv[1] * unit[0],
            ];
            let w = if cross[0] * b[0] + cross[1] * b[1] + cross[2] * b[2] < 0.0 {
                -1.0
            } else {
                1.0
            };
            [unit[0] as f32, unit[1] as f32, unit[2] as f32, w]
        })
        .collect()
}

fn unit3(v: [f32; 3]) -> Option<[f32; 3]> {
    let [x, y, z] = v.map(f64::from);
    let len = (x * x + y * y + z * z).sqrt();
    (len.is_finite() && len > 1e-12).then(|| [(x / len) as f32, (y / len) as f32, (z / len) as f32])
}

// ---------------------------------------------------------------------------------------------
// Small helpers

fn label(kind: &str, i: usize, name: &str) -> String {
    if name.is_empty() {
        format!("{kind} {i}")
    } else {
        format!("{kind} {i} {name:?}")
    }
}

fn non_empty(s: &str) -> Option<String> {
    (!s.is_empty()).then(|| s.to_owned())
}

fn floats(v: &[f32]) -> Value {
    Value::Array(
        v.iter()
            .map(|&x| {
                if x.is_finite() {
                    Value::from(f64::from(x))
                } else {
                    Value::Null
                }
            })
            .collect(),
    )
}

fn extras(map: &Map<String, Value>) -> Result<json::Extras, Error> {
    if map.is_empty() {
        return Ok(None);
    }
    Ok(Some(serde_json::value::to_raw_value(map)?))
}

/// The little-endian bytes of `v`. glTF buffers are little-endian, so on a little-endian host
/// this is `v` itself, borrowed (no per-element pass and no copy before the one into the
/// buffer); elsewhere every value is swapped.
fn f32_bytes<const N: usize>(v: &[[f32; N]]) -> Cow<'_, [u8]> {
    if cfg!(target_endian = "little") {
        Cow::Borrowed(bytemuck::cast_slice(v))
    } else {
        Cow::Owned(v.iter().flatten().flat_map(|x| x.to_le_bytes()).collect())
    }
}

/// Index bytes as `u16` (every index is below 65 536: checked by the caller) or `u32`.
fn index_bytes(indices: &[u32], component: ComponentType) -> Cow<'_, [u8]> {
    if component == ComponentType::U16 {
        Cow::Owned(
            indices
                .iter()
                .flat_map(|&x| u16::try_from(x).unwrap_or(0).to_le_bytes())
                .collect(),
        )
    } else {
        u32_bytes(indices)
    }
}

/// [`f32_bytes`] for `u32` values.
fn u32_bytes(v: &[u32]) -> Cow<'_, [u8]> {
    if cfg!(target_endian = "little") {
        Cow::Borrowed(bytemuck::cast_slice(v))
    } else {
        Cow::Owned(v.iter().flat_map(|x| x.to_le_bytes()).collect())
    }
}

/// An upper bound of the binary buffer's size for `scene` without textures, so that the
/// buffer is allocated once instead of doubling (and copying) its way up to hundreds of MB.
/// Reserved capacity that is never written costs no memory pages.
fn bin_estimate(scene: &Scene) -> usize {
    scene
        .meshes
        .iter()
        .map(|m| {
            let v = &m.vertices;
            let n = v.positions.len();
            // position, normal, tangent, 2 UV sets, colour, joints, weights, and alignment
            let per_vertex = 12 + 12 + 16 + 8 + 8 + 16 + 8 + 16;
            // A list shared by several primitives is written at most once in all.
            let mut lists = HashSet::new();
            let indices: usize = m
                .primitives
                .iter()
                .filter(|p| lists.insert(std::sync::Arc::as_ptr(p.indices.list())))
                .map(|p| p.indices.list().len())
                .sum();
            n.saturating_mul(per_vertex)
                .saturating_add(indices.saturating_mul(4))
                .saturating_add(m.primitives.len().saturating_mul(4))
        })
        .fold(0usize, usize::saturating_add)
        .min(u32::MAX as usize)
}

fn pad4(bin: &mut Vec<u8>) {
    while bin.len() % 4 != 0 {
        bin.push(0);
    }
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn skin_vertices_become_valid() {
        let mut s = SkinStats::default();
        let (j, w) = fix_skin_vertex([3, 3, 9, 1], [0.25, 0.25, 0.5, 0.0], 4, &mut s);
        assert_eq!(j, [3, 0, 0, 0]);
        assert_eq!(w, [1.0, 0.0, 0.0, 0.0]);
        assert_eq!((s.merged, s.out_of_range, s.renormalised), (1, 1, 1));
        let (j, w) = fix_skin_vertex([1, 2, 0, 0], [0.0, 0.0, 0.0, 0.0], 4, &mut s);
        assert_eq!((j, w), ([0; 4], [1.0, 0.0, 0.0, 0.0]));
        let (_, w) = fix_skin_vertex([0, 1, 2, 3], [0.1, 0.2, 0.3, 0.3], 4, &mut s);
        assert!((w.iter().sum::<f32>() - 1.0).abs() < 1e-6);
    }

    #[test]
    fn channel_keys_are_cleaned() {
        let ch = crate::scene::Channel {
            node: 0,
            path: ChannelPath::Rotation,
            interpolation: Interpolation::Linear,
            times: vec![0.0, 0.0, 1.0, f32::NAN, 0.5, 2.0].into(),
            values: [
                [0.0, 0.0, 0.0, 2.0],
                [9.0; 4],
                [0.0, 3.0, 0.0, 0.0],
                [9.0; 4],
                [9.0; 4],
                [0.0, 0.0, 0.0, 0.0],
            ]
            .concat()
            .into(),
        };
        let (t, v, _, notes) = clean_channel(&ch).unwrap();
        assert_eq!(t, [0.0, 1.0, 2.0]);
        assert_eq!(
            v,
            [0.0, 0.0, 0.0, 1.0, 0.0, 1.0, 0.0, 0.0, 0.0, 0.0, 0.0, 1.0]
        );
        assert_eq!(notes.len(), 1);
        let short = crate::scene::Channel {
            values: vec![0.0; 3].into(),
            ..ch
        };
        assert!(clean_channel(&short).is_err());
    }
}
