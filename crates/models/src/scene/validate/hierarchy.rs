//! The node hierarchy: every child index a node, one parent per node, no cycle, and
//! [`Scene::roots`] exactly the parentless nodes (the listed ones first, then the others in node
//! order), so that a writer can take `children` and `roots` as they are.

use super::{label, warn};
use crate::scene::{Scene, SceneWarning};
use std::collections::HashSet;

/// Makes the scene's nodes a forest, saying each link cut. Linear in nodes and links.
pub(super) fn forest(scene: &mut Scene, warnings: &mut Vec<SceneWarning>) {
    let n = scene.nodes.len();
    let mut parent: Vec<Option<usize>> = vec![None; n];
    for (i, node) in scene.nodes.iter_mut().enumerate() {
        let place = label("node", i, &node.name);
        node.children.retain(|&c| match parent.get_mut(c) {
            None => {
                warn(
                    warnings,
                    place,
                    format!("child index {c} out of range ({n} nodes); dropped"),
                );
                false
            }
            Some(p) if c == i || p.is_some() => {
                warn(
                    warnings,
                    place,
                    format!(
                        "node {c} is already a child of node {}; second link dropped",
                        p.unwrap_or(c)
                    ),
                );
                false
            }
            Some(p) => {
                *p = Some(i);
                true
            }
        });
    }
    cut_cycles(scene, &mut parent, warnings);
    scene.roots = roots(&scene.roots, &parent, warnings);
}

/// Nodes unreachable from a parentless node sit on (or under) a cycle: each cycle is cut at its
/// first node in node order, which becomes a root.
fn cut_cycles(scene: &mut Scene, parent: &mut [Option<usize>], warnings: &mut Vec<SceneWarning>) {
    let n = scene.nodes.len();
    let mut reached = vec![false; n];
    let mut next_unreached = 0usize;
    let mut stack: Vec<usize> = parent
        .iter()
        .enumerate()
        .filter_map(|(i, p)| p.is_none().then_some(i))
        .collect();
    loop {
        // Every index on the stack is a node index (`< n`): a parentless node, a child checked
        // by `forest`, or the unreached node pushed below.
        while let Some(i) = stack.pop() {
            if reached
                .get_mut(i)
                .is_some_and(|r| !std::mem::replace(r, true))
            {
                let kids = scene.nodes.get(i).map(|node| node.children.as_slice());
                stack.extend(kids.into_iter().flatten().copied());
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
            if let Some(up) = scene.nodes.get_mut(p) {
                up.children.retain(|&c| c != i);
            }
            let name = scene.nodes.get(i).map_or("", |node| node.name.as_str());
            warn(
                warnings,
                label("node", i, name),
                format!("the hierarchy has a cycle through node {p}; link from node {p} cut"),
            );
        }
        stack.push(i);
    }
}

/// The scene's roots: the listed ones that are parentless nodes (once each), then every other
/// parentless node in node order.
fn roots(
    listed: &[usize],
    parent: &[Option<usize>],
    warnings: &mut Vec<SceneWarning>,
) -> Vec<usize> {
    let n = parent.len();
    let mut roots = Vec::with_capacity(listed.len());
    let mut is_root = HashSet::new();
    for &r in listed {
        match parent.get(r) {
            None => warn(
                warnings,
                "",
                format!("scene root {r} out of range ({n} nodes); dropped"),
            ),
            Some(Some(p)) => warn(
                warnings,
                "",
                format!("scene root {r} is a child of node {p}; kept only as a child"),
            ),
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
    roots
}
