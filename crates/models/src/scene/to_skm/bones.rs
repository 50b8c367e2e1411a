//! The Bone section from the scene's skins: one bone per joint node (every skin's joints, in
//! order, each node once), parents from the node hierarchy, begin points from the inverse bind
//! matrices, and what the export kept in the nodes' extras (end point, symmetric partner,
//! initial posture, raw name).

use super::Ctx;
use crate::scene::lenient;
use crate::scene::{invert, mirror_z, mirror_z_quat, Node, Scene, IDENTITY};
use serde_json::Value;
use skm_text::{Bone, Name};
use std::collections::HashMap;

/// The node tree as the importer sees it: each node's parent (the first that lists it, found
/// breadth-first from the roots, so the result has no cycle) and a parents-first order.
pub(super) struct Tree {
    pub(super) parent: Vec<Option<usize>>,
    pub(super) order: Vec<usize>,
}

impl Tree {
    pub(super) fn new(scene: &Scene) -> Self {
        let n = scene.nodes.len();
        let mut parent = vec![None; n];
        let mut seen = vec![false; n];
        let mut order = Vec::with_capacity(n);
        let starts = scene.roots.iter().copied().chain(0..n);
        for start in starts {
            if seen.get(start).copied() != Some(false) {
                continue;
            }
            if let Some(s) = seen.get_mut(start) {
                *s = true;
            }
            let from = order.len();
            order.push(start);
            let mut at = from;
            while let Some(&node) = order.get(at) {
                at += 1;
                let children = scene.nodes.get(node).map_or(&[][..], |x| &x.children[..]);
                for &c in children {
                    if let Some(s) = seen.get_mut(c).filter(|s| !**s) {
                        *s = true;
                        if let Some(p) = parent.get_mut(c) {
                            *p = Some(node);
                        }
                        order.push(c);
                    }
                }
            }
        }
        Self { parent, order }
    }

    /// The node's rest transform in the scene's space (its ancestors' applied).
    pub(super) fn world(&self, scene: &Scene, node: usize) -> [f32; 16] {
        let mut m = IDENTITY;
        let mut at = Some(node);
        // The tree has no cycle; the count bounds the walk all the same.
        for _ in 0..=self.parent.len() {
            let Some(n) = at else { break };
            m = crate::scene::mul(local(scene.nodes.get(n)), m);
            at = self.parent.get(n).copied().flatten();
        }
        m
    }
}

fn local(node: Option<&Node>) -> [f32; 16] {
    match node.map(|n| n.transform) {
        Some(crate::scene::Transform::Trs {
            translation,
            rotation,
            scale,
        }) => crate::scene::compose(translation, rotation, scale),
        Some(crate::scene::Transform::Matrix(m)) => m,
        None => IDENTITY,
    }
}

/// The bones and, per node, its bone (for joints) or the bone of its nearest joint ancestor.
pub(super) struct Bones {
    pub(super) bones: Vec<Bone>,
    /// Node → its bone index, for joint nodes.
    pub(super) of_node: HashMap<usize, usize>,
    /// Node → the bone of the node or of its nearest ancestor that is one (for static meshes).
    pub(super) nearest: Vec<Option<usize>>,
}

/// Builds the bone list; see the module docs.
pub(super) fn bones(cx: &mut Ctx<'_>, tree: &Tree) -> Result<Bones, crate::Error> {
    let scene = cx.scene;
    let mut joints: Vec<(usize, [f32; 16])> = Vec::new();
    let mut of_node: HashMap<usize, usize> = HashMap::new();
    let (mut differing, mut missing) = (0usize, 0usize);
    for skin in &scene.skins {
        for (k, &node) in skin.joints.iter().enumerate() {
            if scene.nodes.get(node).is_none() {
                missing += 1;
                continue;
            }
            let ibm = skin
                .inverse_bind_matrices
                .get(k)
                .copied()
                .unwrap_or(IDENTITY);
            match of_node.get(&node).and_then(|&b| joints.get(b)) {
                Some((_, first)) => differing += usize::from(*first != ibm),
                None => {
                    of_node.insert(node, joints.len());
                    joints.push((node, ibm));
                }
            }
        }
    }
    if missing > 0 {
        cx.warn(
            "skin",
            format!("{missing} joints name a node that does not exist; left out"),
        );
    }
    if scene.skins.len() > 1 {
        cx.warn(
            "scene",
            format!(
                "{} skins merged into one bone list of {} bones (SKM has one skeleton){}",
                scene.skins.len(),
                joints.len(),
                if differing > 0 {
                    format!("; {differing} joints shared with another bind pose keep the first")
                } else {
                    String::new()
                }
            ),
        );
    }
    let mut nearest: Vec<Option<usize>> = vec![None; scene.nodes.len()];
    for &n in &tree.order {
        let own = of_node.get(&n).copied();
        let up = tree
            .parent
            .get(n)
            .copied()
            .flatten()
            .and_then(|p| nearest.get(p).copied().flatten());
        if let Some(slot) = nearest.get_mut(n) {
            *slot = own.or(up);
        }
    }
    let begins: Vec<[f32; 3]> = joints.iter().map(|(_, ibm)| begin(ibm)).collect();
    let mut rotated = 0usize;
    let mut out = Vec::with_capacity(joints.len());
    for (i, &(node, ibm)) in joints.iter().enumerate() {
        if !translation_only(&ibm) {
            rotated += 1;
        }
        let parent = tree
            .parent
            .get(node)
            .copied()
            .flatten()
            .and_then(|p| nearest.get(p).copied().flatten());
        let b = begins.get(i).copied().unwrap_or_default();
        let Some(n) = scene.nodes.get(node) else {
            continue;
        };
        let name = cx.bone_name(n, i)?;
        let end = vec3(n.extras.get("end"))
            .map(mirror_z)
            .or_else(|| first_child_begin(n, &of_node, &begins))
            .unwrap_or(b);
        let rotation = n
            .extras
            .get("initial_rotation")
            .and_then(floats::<4>)
            .map_or([0.0, 0.0, 0.0, 1.0], mirror_z_quat);
        let symmetric = match n.extras.get("skm_symmetric").and_then(lenient::int) {
            Some(raw) => i32::try_from(raw).unwrap_or(-1),
            None => n
                .extras
                .get("symmetric")
                .and_then(lenient::uint)
                .filter(|&s| s < joints.len() as u64)
                .and_then(|s| i32::try_from(s).ok())
                .unwrap_or(-1),
        };
        out.push(Bone {
            name,
            parent: parent.and_then(|p| i32::try_from(p).ok()).unwrap_or(-1),
            symmetric,
            begin: b,
            end,
            rotation,
        });
    }
    if rotated > 0 {
        cx.warn(
            "skin",
            format!(
                "{rotated} joints have a bind pose with rotation or scale; SKM's rest pose is \
                 a translation to each bone's begin point, so only their positions are kept"
            ),
        );
    }
    Ok(Bones {
        bones: out,
        of_node,
        nearest,
    })
}

/// The bone's begin point (file axes) from its inverse bind matrix: minus the translation
/// when it is a pure translation (exact: what the export wrote), else the inverse's origin.
fn begin(ibm: &[f32; 16]) -> [f32; 3] {
    let world = if translation_only(ibm) {
        [-ibm[12], -ibm[13], -ibm[14]]
    } else {
        let inv = invert(*ibm).unwrap_or(IDENTITY);
        [inv[12], inv[13], inv[14]]
    };
    let world = world.map(|x| if x.is_finite() { x } else { 0.0 });
    mirror_z(world)
}

fn translation_only(m: &[f32; 16]) -> bool {
    m.get(..12) == IDENTITY.get(..12)
}

fn first_child_begin(
    node: &Node,
    of_node: &HashMap<usize, usize>,
    begins: &[[f32; 3]],
) -> Option<[f32; 3]> {
    node.children
        .iter()
        .find_map(|c| of_node.get(c).and_then(|&b| begins.get(b)).copied())
}

fn vec3(v: Option<&Value>) -> Option<[f32; 3]> {
    v.and_then(floats::<3>)
}

/// A JSON array of exactly `N` finite numbers.
pub(super) fn floats<const N: usize>(v: &Value) -> Option<[f32; N]> {
    let a = v.as_array()?;
    let mut out = [0.0f32; N];
    if a.len() != N {
        return None;
    }
    for (o, x) in out.iter_mut().zip(a) {
        *o = x.as_f64()? as f32;
        if !o.is_finite() {
            return None;
        }
    }
    Some(out)
}

/// A JSON array of bytes (the export's raw names).
pub(super) fn raw_bytes(v: Option<&Value>) -> Option<Name> {
    let bytes: Option<Vec<u8>> = v?
        .as_array()?
        .iter()
        .map(|b| lenient::uint(b).and_then(|b| u8::try_from(b).ok()))
        .collect();
    bytes.map(Name::from_raw)
}
