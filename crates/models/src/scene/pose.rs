//! A scene's pose: its node hierarchy, and every node's transform at a time of an animation.
//! Shared by the BMF bake (skinning matrices at each sample) and the weld onto a base (whether
//! an editor's samples lie on the base's keys).

use super::{
    compose, mul, normalize_quat, Animation, Channel, ChannelPath, Interpolation, Scene, Transform,
    IDENTITY,
};
use std::collections::HashMap;

/// The node hierarchy as parents, and an order in which parents come before children.
pub(crate) struct Skeleton {
    parent: Vec<Option<usize>>,
    order: Vec<usize>,
}

impl Skeleton {
    /// The hierarchy of `scene`: a node's first parent counts, a cycle is cut.
    pub(crate) fn new(scene: &Scene) -> Self {
        let n = scene.nodes.len();
        let mut parent: Vec<Option<usize>> = vec![None; n];
        for (p, node) in scene.nodes.iter().enumerate() {
            for &c in &node.children {
                if let Some(slot) = parent.get_mut(c) {
                    if slot.is_none() && c != p {
                        *slot = Some(p);
                    }
                }
            }
        }
        // Depths by walking up each chain once (0 unknown, 1 on the current chain, 2 done).
        let mut state = vec![0u8; n];
        let mut depth = vec![0usize; n];
        for start in 0..n {
            let mut chain = Vec::new();
            let mut cur = Some(start);
            while let Some(c) = cur {
                match state.get(c).copied() {
                    Some(0) => {
                        if let Some(s) = state.get_mut(c) {
                            *s = 1;
                        }
                        chain.push(c);
                        cur = parent.get(c).copied().flatten();
                    }
                    Some(1) => {
                        // A cycle: the last node of the chain becomes a root.
                        if let Some(p) = chain.last().and_then(|&l| parent.get_mut(l)) {
                            *p = None;
                        }
                        cur = None;
                    }
                    _ => cur = None,
                }
            }
            for &c in chain.iter().rev() {
                let d = parent
                    .get(c)
                    .copied()
                    .flatten()
                    .and_then(|p| depth.get(p).copied())
                    .map_or(0, |d| d + 1);
                if let (Some(x), Some(s)) = (depth.get_mut(c), state.get_mut(c)) {
                    *x = d;
                    *s = 2;
                }
            }
        }
        let mut order: Vec<usize> = (0..n).collect();
        order.sort_by_key(|&i| depth.get(i).copied().unwrap_or(0));
        Self { parent, order }
    }

    /// The parent of `node`.
    pub(crate) fn parent(&self, node: usize) -> Option<usize> {
        self.parent.get(node).copied().flatten()
    }

    /// The global rest transform of `node` (its own and its ancestors' rest transforms).
    pub(crate) fn rest_global(&self, scene: &Scene, node: usize) -> [f32; 16] {
        let mut m = rest_matrix(scene, node);
        let mut cur = self.parent(node);
        let mut steps = 0usize;
        while let Some(p) = cur {
            steps += 1;
            if steps > scene.nodes.len() {
                break;
            }
            m = mul(rest_matrix(scene, p), m);
            cur = self.parent(p);
        }
        m
    }

    /// Global transforms of every node, given every node's local one.
    pub(crate) fn globals(&self, locals: &[[f32; 16]]) -> Vec<[f32; 16]> {
        let mut g = locals.to_vec();
        for &n in &self.order {
            let Some(p) = self.parent(n) else { continue };
            if let (Some(&pm), Some(&local)) = (g.get(p), locals.get(n)) {
                if let Some(slot) = g.get_mut(n) {
                    *slot = mul(pm, local);
                }
            }
        }
        g
    }
}

/// The rest transform of `node` as a matrix (identity for no such node).
pub(crate) fn rest_matrix(scene: &Scene, node: usize) -> [f32; 16] {
    scene
        .nodes
        .get(node)
        .map_or(IDENTITY, |n| n.transform.to_matrix())
}

/// The rest transform of `node` as translation, rotation and scale (a matrix decomposed).
pub(crate) fn rest_trs(scene: &Scene, node: usize) -> ([f32; 3], [f32; 4], [f32; 3]) {
    let (t, q, s, _) = scene
        .nodes
        .get(node)
        .map_or_else(|| Transform::default().to_trs(), |n| n.transform.to_trs());
    (t, q, s)
}

/// An animation's channels by node: translation, rotation and scale (the first of each).
pub(crate) struct Targets<'a>(pub(crate) Vec<(usize, [Option<&'a Channel>; 3])>);

impl<'a> Targets<'a> {
    /// The channels of `a`, grouped by the node they move.
    pub(crate) fn new(a: &'a Animation) -> Self {
        let mut targets: Vec<(usize, [Option<&Channel>; 3])> = Vec::new();
        let mut at: HashMap<usize, usize> = HashMap::new();
        for ch in &a.channels {
            let k = *at.entry(ch.node).or_insert_with(|| {
                targets.push((ch.node, [None; 3]));
                targets.len() - 1
            });
            let slot = match ch.path {
                ChannelPath::Translation => 0,
                ChannelPath::Rotation => 1,
                ChannelPath::Scale => 2,
            };
            if let Some(s) = targets.get_mut(k).and_then(|(_, c)| c.get_mut(slot)) {
                s.get_or_insert(ch);
            }
        }
        Self(targets)
    }

    /// Every node's local transform at time `t`: `rest` (each node's rest matrix), with each
    /// animated node's channels sampled over its rest translation, rotation and scale.
    pub(crate) fn locals(&self, scene: &Scene, rest: &[[f32; 16]], t: f32) -> Vec<[f32; 16]> {
        let mut locals = rest.to_vec();
        for (node, channels) in &self.0 {
            let (mut tr, mut q, mut sc) = rest_trs(scene, *node);
            for ch in channels.iter().flatten() {
                let v = sample(ch, t);
                match ch.path {
                    ChannelPath::Translation => tr = [v[0], v[1], v[2]],
                    ChannelPath::Rotation => q = v,
                    ChannelPath::Scale => sc = [v[0], v[1], v[2]],
                }
            }
            if let Some(l) = locals.get_mut(*node) {
                *l = compose(tr, q, sc);
            }
        }
        locals
    }
}

/// The value of a channel at time `t` (held before the first key and after the last).
pub(crate) fn sample(ch: &Channel, t: f32) -> [f32; 4] {
    let width = match ch.path {
        ChannelPath::Rotation => 4,
        _ => 3,
    };
    let cubic = ch.interpolation == Interpolation::CubicSpline;
    let stride = if cubic { 3 * width } else { width };
    let value = |k: usize, part: usize| -> [f32; 4] {
        let at = k * stride + part * width;
        let mut v = [0.0, 0.0, 0.0, 1.0];
        for (i, o) in v.iter_mut().take(width).enumerate() {
            *o = ch.values.get(at + i).copied().unwrap_or(0.0);
        }
        v
    };
    let key_value = |k: usize| value(k, usize::from(cubic));
    let times: &[f32] = &ch.times;
    let keys = times.len().min(ch.values.len() / stride.max(1));
    if keys == 0 {
        return [0.0, 0.0, 0.0, 1.0];
    }
    let after = times
        .get(..keys)
        .map_or(0, |t0| t0.partition_point(|&x| x <= t));
    let (k0, k1) = match after {
        0 => return key_value(0),
        a if a >= keys => return key_value(keys - 1),
        a => (a - 1, a),
    };
    let (t0, t1) = (
        times.get(k0).copied().unwrap_or(0.0),
        times.get(k1).copied().unwrap_or(0.0),
    );
    if t0 == t || t1.partial_cmp(&t0) != Some(std::cmp::Ordering::Greater) {
        return key_value(k0);
    }
    let u = (t - t0) / (t1 - t0);
    let (a, b) = (key_value(k0), key_value(k1));
    let mut out = match ch.interpolation {
        Interpolation::Step => a,
        Interpolation::Linear => {
            // Shortest-path blend for rotations (normalised below).
            let sign = if width == 4 && a.iter().zip(&b).map(|(x, y)| x * y).sum::<f32>() < 0.0 {
                -1.0
            } else {
                1.0
            };
            let mut v = a;
            for (i, o) in v.iter_mut().enumerate().take(width) {
                *o = a.get(i).copied().unwrap_or(0.0) * (1.0 - u)
                    + sign * b.get(i).copied().unwrap_or(0.0) * u;
            }
            v
        }
        Interpolation::CubicSpline => {
            let dt = t1 - t0;
            let (out_a, in_b) = (value(k0, 2), value(k1, 0));
            let (u2, u3) = (u * u, u * u * u);
            let h = [
                2.0 * u3 - 3.0 * u2 + 1.0,
                u3 - 2.0 * u2 + u,
                -2.0 * u3 + 3.0 * u2,
                u3 - u2,
            ];
            let mut v = a;
            for (i, o) in v.iter_mut().enumerate().take(width) {
                let g = |x: [f32; 4]| x.get(i).copied().unwrap_or(0.0);
                *o = h[0] * g(a) + h[1] * dt * g(out_a) + h[2] * g(b) + h[3] * dt * g(in_b);
            }
            v
        }
    };
    if width == 4 {
        out = normalize_quat(out);
    }
    out
}
