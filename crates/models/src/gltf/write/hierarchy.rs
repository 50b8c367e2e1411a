//! The node forest as written: one parent per node, no cycles, synthetic common roots for
//! skins, and node transforms as TRS.

use super::mesh::WrittenMesh;
use super::skin::SkinPlan;
use super::{extras, label, non_empty, push, u32_of, Builder};
use crate::gltf::Error;
use crate::scene::{decompose, normalize_quat, Scene, SceneWarning, Transform};
use gltf_json as json;
use json::Index;
use std::collections::HashSet;

/// The node forest as it will be written: every node has at most one parent, there are no
/// cycles, and the scene's roots are exactly the parentless nodes.
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
    pub(super) fn new(scene: &Scene, warnings: &mut Vec<SceneWarning>) -> Self {
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

    pub(super) fn len(&self) -> usize {
        self.parent.len()
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
    pub(super) fn node_transform(&mut self, label: &str, t: &Transform) -> json::Node {
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
                            Some(s) => self.warn(format!(
                                "{label}: skin {s} not written (it is invalid, or mesh {m} has no joints and weights)"
                            )),
                            None => {}
                        }
                    }
                    Some(None) => self.warn(format!(
                        "{label}: mesh {m} has no drawable triangles and is not written"
                    )),
                    None => self.warn(format!(
                        "{label}: mesh index {m} out of range ({} meshes); dropped",
                        scene.meshes.len()
                    )),
                }
            } else if node.skin.is_some() {
                self.warn(format!("{label}: a skin without a mesh; dropped"));
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
