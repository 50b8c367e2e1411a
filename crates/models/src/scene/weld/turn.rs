//! An edited clip, turned from the editor's bone axes into the base's.
//!
//! When the skeleton is the base's at rest but a clip is not (the user edited it, or made a
//! new one), the scene still takes the base's rest transforms and inverse bind matrices
//! (`skeleton.rs`), so that the other clips can be the base's exactly. The edited clip's keys
//! are in the editor's axes, though: each node's global transform differs from the base's by
//! a constant change of axes, `global(base) = global(editor) × D`, with
//! `D = global(editor at rest)⁻¹ × global(base at rest)`. So at each of the clip's key times,
//! a node's local transform in the base's hierarchy is
//! `D(parent)⁻¹ × global(editor, parent)⁻¹ × global(editor, node) × D(node)`, which draws the
//! same skinning as the editor's clip. It is written as translation, rotation and scale
//! channels at the clip's key times, linear (or step, where all the node's channels were).
//!
//! A clip with cubic-spline keys is not turned (its tangents have no place between samples),
//! nor one whose turned transforms would need a shear (a scale along axes that are no longer
//! the node's), nor one that would hold more than [`MADE_PER_KEY_VALUE`] times its key values
//! (plus a constant; a clip of sparse keys on many nodes): the caller then keeps the editor's
//! whole skeleton.

use super::super::pose::{self, Skeleton, Targets};
use super::super::{
    decompose, invert, make_quats_continuous, mul, Animation, Channel, ChannelPath, Interpolation,
    Scene, IDENTITY,
};
use super::skeleton::key_times;

/// How far a turned transform may be from its translation, rotation and scale: relative to
/// its largest element beyond 1. Above it the transform needs a shear.
const SHEAR_TOLERANCE: f32 = 1e-3;

/// A turned clip holds at most this many key values per key value of the clip, plus
/// [`MADE_FREE`]: it keys every node it moves at every key time of any of its channels.
const MADE_PER_KEY_VALUE: usize = 4;

/// See [`MADE_PER_KEY_VALUE`].
const MADE_FREE: usize = 1 << 20;

/// The changes of axes between the editor's skeleton and the base's.
pub(super) struct Turn<'a> {
    scene: &'a Scene,
    skeleton: Skeleton,
    rest: Vec<[f32; 16]>,
    /// Per scene node: `D` and `D⁻¹` (module docs).
    axes: Vec<([f32; 16], [f32; 16])>,
    /// Per scene node: its parent in the base's hierarchy, as a scene node.
    parent: Vec<Option<usize>>,
    /// Per scene node: the base node it is.
    to_base: &'a [Option<usize>],
}

impl<'a> Turn<'a> {
    /// The changes of axes of each scene node paired with a base node (`to_base`, `to_scene`
    /// its inverse); `None` when a rest transform cannot be inverted.
    pub(super) fn new(
        scene: &'a Scene,
        base: &Scene,
        to_base: &'a [Option<usize>],
        to_scene: &[usize],
    ) -> Option<Self> {
        let skeleton = Skeleton::new(scene);
        let theirs = Skeleton::new(base);
        let rest: Vec<[f32; 16]> = (0..scene.nodes.len())
            .map(|n| pose::rest_matrix(scene, n))
            .collect();
        let base_rest: Vec<[f32; 16]> = (0..base.nodes.len())
            .map(|n| pose::rest_matrix(base, n))
            .collect();
        let (ours_at_rest, theirs_at_rest) = (skeleton.globals(&rest), theirs.globals(&base_rest));
        let mut axes = Vec::with_capacity(scene.nodes.len());
        let mut parent = Vec::with_capacity(scene.nodes.len());
        for (n, b) in to_base.iter().enumerate() {
            let d = match b {
                Some(b) => {
                    let ours = invert(*ours_at_rest.get(n)?)?;
                    mul(ours, *theirs_at_rest.get(*b)?)
                }
                None => IDENTITY,
            };
            axes.push((d, invert(d)?));
            let above = b.and_then(|b| theirs.parent(b));
            parent.push(match above {
                Some(p) => Some(*to_scene.get(p)?),
                None => None,
            });
        }
        Some(Self {
            scene,
            skeleton,
            rest,
            axes,
            parent,
            to_base,
        })
    }

    /// Clip `a` of the scene, its channels moving the base's nodes in the base's axes; why not,
    /// when it cannot be (module docs).
    pub(super) fn clip(&self, a: &Animation) -> Result<Animation, String> {
        if (a.channels.iter()).any(|c| c.interpolation == Interpolation::CubicSpline) {
            return Err("its cubic-spline keys cannot be turned".to_owned());
        }
        let times = key_times(a);
        let targets = Targets::new(a);
        let nodes: Vec<usize> = targets.0.iter().map(|(n, _)| *n).collect();
        // Every node at every key time: bounded by the clip's own key values (an editor's
        // sampled clip keys every path of every node at every time already).
        let made = times.len().saturating_mul(nodes.len()).saturating_mul(10);
        let had: usize = a.channels.iter().map(|c| c.values.len()).sum();
        if made
            > MADE_PER_KEY_VALUE
                .saturating_mul(had)
                .saturating_add(MADE_FREE)
        {
            return Err(format!(
                "turned, it would hold {made} key values, against its {had}"
            ));
        }
        let mut values: Vec<[Vec<f32>; 3]> = vec![Default::default(); nodes.len()];
        for &t in &times {
            let locals = targets.locals(self.scene, &self.rest, t);
            let globals = self.skeleton.globals(&locals);
            for (&n, out) in nodes.iter().zip(values.iter_mut()) {
                let (t, r, s) = self.turned(n, &globals).ok_or_else(|| {
                    let name = self.scene.nodes.get(n).map_or("", |x| x.name.as_str());
                    format!("node {name:?} would need a shear in the base's bone axes at {t} s")
                })?;
                let [tv, rv, sv] = out;
                tv.extend(t);
                rv.extend(r);
                sv.extend(s);
            }
        }
        let mut channels = Vec::with_capacity(3 * nodes.len());
        for ((n, moved), [t, mut r, s]) in targets.0.iter().zip(values) {
            let Some(node) = self.to_base.get(*n).copied().flatten() else {
                return Err("it moves a node the base does not have".to_owned());
            };
            let step = moved
                .iter()
                .flatten()
                .all(|c| c.interpolation == Interpolation::Step);
            let interpolation = if step {
                Interpolation::Step
            } else {
                Interpolation::Linear
            };
            make_quats_continuous(&mut r);
            let paths = [
                (ChannelPath::Translation, t),
                (ChannelPath::Rotation, r),
                (ChannelPath::Scale, s),
            ];
            for (path, values) in paths {
                channels.push(Channel {
                    node,
                    path,
                    interpolation,
                    times: times.clone().into(),
                    values: values.into(),
                });
            }
        }
        Ok(Animation {
            name: a.name.clone(),
            channels,
            extras: a.extras.clone(),
        })
    }

    /// Node `n`'s local transform in the base's hierarchy and axes, from the editor's
    /// `globals`, as translation, rotation and scale; `None` when it needs a shear.
    fn turned(&self, n: usize, globals: &[[f32; 16]]) -> Option<([f32; 3], [f32; 4], [f32; 3])> {
        let (d, _) = self.axes.get(n)?;
        let (parent, inverse_d_parent) = match self.parent.get(n).copied().flatten() {
            Some(p) => (invert(*globals.get(p)?)?, self.axes.get(p)?.1),
            None => (IDENTITY, IDENTITY),
        };
        let local = mul(mul(inverse_d_parent, parent), mul(*globals.get(n)?, *d));
        let (t, r, s, error) = decompose(local);
        let size = local.iter().take(11).fold(1.0f32, |m, x| m.max(x.abs()));
        (error <= SHEAR_TOLERANCE * size).then_some((t, r, s))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scene::Node;

    #[test]
    fn a_clip_of_sparse_keys_on_many_nodes_is_not_turned() {
        // Each of 1 500 nodes keyed once, each at its own time: turned, every node would be
        // keyed at every time.
        let n = 1_500;
        let channel = |i: usize| Channel {
            node: i,
            path: ChannelPath::Translation,
            interpolation: Interpolation::Linear,
            times: vec![i as f32].into(),
            values: vec![0.0; 3].into(),
        };
        let scene = Scene {
            nodes: (0..n)
                .map(|i| Node {
                    name: format!("n{i}"),
                    ..Node::default()
                })
                .collect(),
            roots: (0..n).collect(),
            animations: vec![Animation {
                name: "a".into(),
                channels: (0..n).map(channel).collect(),
                ..Animation::default()
            }],
            ..Scene::default()
        };
        let to_base: Vec<Option<usize>> = (0..n).map(Some).collect();
        let to_scene: Vec<usize> = (0..n).collect();
        let turn = Turn::new(&scene, &scene, &to_base, &to_scene).unwrap();
        let why = turn.clip(&scene.animations[0]).unwrap_err();
        assert!(why.contains("key values"), "{why}");
        // A clip keyed on a few nodes at the same times is turned.
        let few = Animation {
            name: "b".into(),
            channels: (0..3)
                .map(|i| Channel {
                    times: vec![0.0].into(),
                    ..channel(i)
                })
                .collect(),
            ..Animation::default()
        };
        assert_eq!(turn.clip(&few).unwrap().channels.len(), 9);
    }
}
