//! Animations: channels, samplers and their key accessors (shared key arrays written once).

use super::buffer::{f32_bytes, Chunk};
use super::{extras, floats, label, non_empty, push, u32_of, Builder};
use crate::gltf::Error;
use crate::scene::{normalize_quat, Animation, ChannelPath, Interpolation, Scene};
use gltf_json as json;
use json::accessor::{ComponentType, Type};
use json::validation::Checked::Valid;
use json::Index;
use std::collections::{HashMap, HashSet};

/// Key arrays already written: input accessors by their times (within one animation), and
/// whole samplers by the scene's shared key arrays (across animations).
#[derive(Default)]
pub(super) struct WrittenKeys {
    inputs: HashMap<Vec<u32>, Index<json::Accessor>>,
    #[allow(clippy::type_complexity)]
    samplers: HashMap<
        (*const Vec<f32>, *const Vec<f32>, ChannelPath, Interpolation),
        (Index<json::Accessor>, Index<json::Accessor>, Interpolation),
    >,
}

/// A channel's keys made valid: times finite, ≥ 0 and strictly increasing (other keys are
/// dropped), values finite, rotations unit length; a cubic spline of one key becomes linear.
/// Returns times, flattened values, the interpolation and notes for warnings.
#[allow(clippy::type_complexity)]
pub(super) fn clean_channel(
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

impl Builder<'_> {
    /// The input accessor of `times`, written once per distinct list of times.
    pub(super) fn times_accessor(
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
            Chunk::owned(f32_bytes(bytemuck::cast_slice::<f32, [f32; 1]>(times))),
            times.len(),
            ComponentType::F32,
            Type::Scalar,
            None,
            Some((floats(&[first]), floats(&[last]))),
        )?;
        inputs.insert(key, a);
        Ok(a)
    }

    pub(super) fn animation(
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
                        Chunk::owned(f32_bytes(bytemuck::cast_slice::<f32, [f32; 1]>(&values))),
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

impl Builder<'_> {
    /// Writes every animation that has a usable channel.
    pub(super) fn animations(&mut self, scene: &Scene, node_count: usize) -> Result<(), Error> {
        let mut written = WrittenKeys::default();
        for (i, anim) in scene.animations.iter().enumerate() {
            self.animation(i, anim, node_count, &mut written)?;
            // Times are shared within an animation only (as before); samplers across animations.
            written.inputs.clear();
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

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
