//! Animation channels: each targets a node, at most one channel per node and property, key
//! times finite, ≥ 0 and strictly increasing, values finite, rotations of unit length.

use super::{label, warn};
use crate::scene::{normalize_quat, Animation, Channel, ChannelPath, Interpolation, Keys};
use crate::scene::{Scene, SceneWarning};
use std::collections::{HashMap, HashSet};

/// A channel's keys as the memo key: channels sharing their key arrays (every clip of one MDL
/// source) are checked once and keep sharing the checked arrays, so the writer still writes
/// them once.
type KeysId = (*const Vec<f32>, *const Vec<f32>, ChannelPath, Interpolation);

/// The nodes some channel targets (out-of-range targets left out).
pub(super) fn animated_nodes(scene: &Scene) -> HashSet<usize> {
    let n = scene.nodes.len();
    let channels = scene.animations.iter().flat_map(|a| &a.channels);
    channels.map(|c| c.node).filter(|&i| i < n).collect()
}

/// Checks every animation's channels, dropping those that cannot be written with a warning.
/// An animation left without channels is kept (a format writer may keep its name); the glTF
/// writer leaves it out, since glTF has no empty animation.
pub(super) fn animations(scene: &mut Scene, warnings: &mut Vec<SceneWarning>) {
    let node_count = scene.nodes.len();
    let mut checked: HashMap<KeysId, (Keys, Keys, Interpolation)> = HashMap::new();
    for (i, anim) in scene.animations.iter_mut().enumerate() {
        animation(i, anim, node_count, &mut checked, warnings);
    }
}

fn animation(
    i: usize,
    anim: &mut Animation,
    node_count: usize,
    checked: &mut HashMap<KeysId, (Keys, Keys, Interpolation)>,
    warnings: &mut Vec<SceneWarning>,
) {
    let label = label("animation", i, &anim.name);
    let mut targets: HashSet<(usize, ChannelPath)> = HashSet::new();
    let mut c = 0usize;
    anim.channels.retain_mut(|ch| {
        let place = format!("{label} channel {c}");
        c += 1;
        if ch.node >= node_count {
            let message = format!("target node {} out of range; channel dropped", ch.node);
            warn(warnings, &place, message);
            return false;
        }
        if !targets.insert((ch.node, ch.path)) {
            let message = format!(
                "node {} {:?} is already animated by an earlier channel; dropped",
                ch.node, ch.path
            );
            warn(warnings, &place, message);
            return false;
        }
        let id = (
            ch.times.as_ptr(),
            ch.values.as_ptr(),
            ch.path,
            ch.interpolation,
        );
        if let Some((times, values, interpolation)) = checked.get(&id) {
            (ch.times, ch.values) = (times.clone(), values.clone());
            ch.interpolation = *interpolation;
            return true;
        }
        match clean_channel(ch) {
            Ok((times, values, interpolation, notes)) => {
                for note in notes {
                    warn(warnings, &place, note);
                }
                keep_or_replace(ch, times, values, interpolation);
                let done = (ch.times.clone(), ch.values.clone(), ch.interpolation);
                checked.insert(id, done);
                true
            }
            Err(reason) => {
                warn(warnings, &place, format!("{reason}; channel dropped"));
                false
            }
        }
    });
}

/// Puts the checked keys into `ch`, keeping its own (shared) arrays where they did not change.
fn keep_or_replace(
    ch: &mut Channel,
    times: Vec<f32>,
    values: Vec<f32>,
    interpolation: Interpolation,
) {
    let same = |a: &[f32], b: &[f32]| {
        a.len() == b.len() && a.iter().zip(b).all(|(x, y)| x.to_bits() == y.to_bits())
    };
    if !same(&ch.times, &times) {
        ch.times = times.into();
    }
    if !same(&ch.values, &values) {
        ch.values = values.into();
    }
    ch.interpolation = interpolation;
}

/// A channel's keys made valid: times finite, ≥ 0 and strictly increasing (other keys are
/// dropped), values finite, rotations unit length; a cubic spline of one key becomes linear.
/// Returns times, flattened values, the interpolation and notes for warnings.
#[allow(clippy::type_complexity)]
fn clean_channel(ch: &Channel) -> Result<(Vec<f32>, Vec<f32>, Interpolation, Vec<String>), String> {
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn channel_keys_are_cleaned() {
        let ch = Channel {
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
        let short = Channel {
            values: vec![0.0; 3].into(),
            ..ch
        };
        assert!(clean_channel(&short).is_err());
    }
}
