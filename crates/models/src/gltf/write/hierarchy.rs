//! The node forest as written: the validated scene's forest, synthetic common roots for
//! skins, and node transforms as TRS.

use super::mesh::WrittenMesh;
use super::skin::SkinPlan;
use super::{extras, label, non_empty, push, u32_of, Builder};
use crate::gltf::Error;
use crate::scene::validate::{matrix_is_trs, not_trs_message};
use crate::scene::{normalize_quat, Scene, Transform};
use gltf_json as json;
use json::Index;
use std::collections::HashSet;
use std::fmt::Display;

/// The node forest as it will be written: the validated scene's (one parent per node, no
/// cycles, the roots exactly the parentless nodes), plus synthetic common roots.
pub(super) struct Hierarchy {
    children: Vec<Vec<usize>>,
    parent: Vec<Option<usize>>,
    pub(super) roots: Vec<usize>,
    /// Names of synthetic nodes appended after the scene's nodes.
    pub(super) synthetic: Vec<String>,
    /// Depth-first entry and exit numbers of the scene's nodes in the forest as built by
    /// [`Hierarchy::new`] (adopting roots does not change who is whose ancestor among them).
    visit: Vec<(usize, usize)>,
    /// Union-find over tree tops: `top[i]` leads (through `top` again) to the root of node
    /// `i`'s tree, with path compression; [`Hierarchy::adopt`] links adopted roots to the new
    /// node. Finding a root is then near O(1) instead of a walk up a long chain.
    top: Vec<usize>,
}

impl Hierarchy {
    /// The forest of a validated scene, taken as it is: validation made every child index a
    /// node, gave each node one parent at most, cut cycles and listed every parentless node
    /// in [`Scene::roots`].
    pub(super) fn new(scene: &Scene) -> Self {
        let n = scene.nodes.len();
        let children: Vec<Vec<usize>> = scene.nodes.iter().map(|c| c.children.clone()).collect();
        let mut parent: Vec<Option<usize>> = vec![None; n];
        for (i, kids) in children.iter().enumerate() {
            for &c in kids {
                if let Some(p) = parent.get_mut(c) {
                    *p = Some(i);
                }
            }
        }
        let roots = scene.roots.clone();
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

    pub(super) fn root_of(&mut self, i: usize) -> usize {
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
    pub(super) fn is_ancestor_or_self(&self, a: usize, b: usize) -> bool {
        match (self.visit.get(a), self.visit.get(b)) {
            (Some(&(a_in, a_out)), Some(&(b_in, b_out))) => a_in <= b_in && b_out <= a_out,
            _ => false,
        }
    }

    /// Puts the trees of `roots` under a new identity node (so that a skin has a common root).
    pub(super) fn adopt(&mut self, roots: &[usize], name: String) -> usize {
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

    pub(super) fn children_index(&self, i: usize) -> Result<Option<Vec<Index<json::Node>>>, Error> {
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
pub(super) fn number_forest(
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

impl Builder<'_> {
    /// A node's transform as TRS. Validation made it finite with a unit rotation; a matrix
    /// is written as its nearest TRS (a glTF-only choice), with a warning when it is not one.
    pub(super) fn node_transform(&mut self, label: &dyn Display, t: &Transform) -> json::Node {
        let (tr, q, s, err) = t.to_trs();
        let q = match err {
            None => q,
            Some(err) => {
                if !matrix_is_trs(&t.to_matrix(), err) {
                    self.warn(label, not_trs_message(err));
                }
                normalize_quat(q)
            }
        };
        json::Node {
            translation: (tr != [0.0; 3]).then_some(tr),
            rotation: (q != [0.0, 0.0, 0.0, 1.0]).then_some(json::scene::UnitQuaternion(q)),
            scale: (s != [1.0; 3]).then_some(s),
            ..json::Node::default()
        }
    }
}

impl Builder<'_> {
    /// Writes the scene's nodes, then the synthetic roots, with their meshes and skins.
    pub(super) fn nodes(
        &mut self,
        scene: &Scene,
        h: &Hierarchy,
        meshes: &[WrittenMesh],
        skins: &[Option<SkinPlan>],
    ) -> Result<(), Error> {
        // Nodes (scene nodes, then synthetic roots).
        for (i, node) in scene.nodes.iter().enumerate() {
            let label = label("node", i, &node.name);
            let mut out = self.node_transform(&label, &node.transform);
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
                            Some(s) => self.warn(label, format!(
                                "skin {s} not written (it is invalid, or mesh {m} has no joints and weights)"
                            )),
                            None => {}
                        }
                    }
                    Some(None) => self.warn(
                        label,
                        format!("mesh {m} has no drawable triangles and is not written"),
                    ),
                    None => self.warn(
                        label,
                        format!(
                            "mesh index {m} out of range ({} meshes); dropped",
                            scene.meshes.len()
                        ),
                    ),
                }
            } else if node.skin.is_some() {
                self.warn(label, "a skin without a mesh; dropped");
            }
            push(&mut self.root.nodes, out)?;
        }
        for (k, name) in h.synthetic.iter().enumerate() {
            let i = scene.nodes.len() + k;
            let node = json::Node {
                name: Some(name.clone()),
                children: h.children_index(i)?,
                ..json::Node::default()
            };
            push(&mut self.root.nodes, node)?;
        }
        Ok(())
    }
}
