//! Animations: channels, samplers and their key accessors (shared key arrays written once).
//! Validation checked the channels and their keys; this only writes them.

use super::buffer::{f32_bytes, Chunk};
use super::{extras, floats, label, non_empty, push, u32_of, Builder};
use crate::gltf::Error;
use crate::hash::AddressMap;
use crate::scene::{Animation, ChannelPath, Interpolation, Scene};
use gltf_json as json;
use json::accessor::{ComponentType, Type};
use json::validation::Checked::Valid;
use json::Index;
use std::collections::HashMap;

/// Key arrays already written: input accessors by their times (within one animation; the
/// times are the file's, so SipHash: `crate::hash`), and whole samplers by the addresses of
/// the scene's shared key arrays (across animations).
#[derive(Default)]
pub(super) struct WrittenKeys {
    inputs: WrittenTimes,
    #[allow(clippy::type_complexity)]
    samplers: AddressMap<
        (*const Vec<f32>, *const Vec<f32>, ChannelPath, Interpolation),
        (Index<json::Accessor>, Index<json::Accessor>, Interpolation),
    >,
}

/// Input accessors already written in one animation, by their times' bits.
#[derive(Default)]
pub(super) struct WrittenTimes {
    by_times: HashMap<Vec<u32>, Index<json::Accessor>>,
    /// The times looked up last and their accessor. A clip's channels mostly share one list of
    /// times, so most lookups end at one comparison of the bits, without making and
    /// SipHashing a key (SipHash on 216 channels' times was 3 % of an animated character's
    /// export).
    last: Option<(Vec<u32>, Index<json::Accessor>)>,
}

impl WrittenTimes {
    fn clear(&mut self) {
        self.by_times.clear();
        self.last = None;
    }
}

impl<'a> Builder<'a> {
    /// The input accessor of `times`, written once per distinct list of times.
    pub(super) fn times_accessor(
        &mut self,
        times: &'a [f32],
        written: &mut WrittenTimes,
    ) -> Result<Index<json::Accessor>, Error> {
        let bits: &[u32] = bytemuck::cast_slice(times);
        if let Some((last, a)) = &written.last {
            if last.as_slice() == bits {
                return Ok(*a);
            }
        }
        let a = match written.by_times.get(bits) {
            Some(&a) => a,
            None => {
                let first = times.first().copied().unwrap_or_default();
                let last = times.last().copied().unwrap_or_default();
                let a = self.accessor(
                    Chunk::Bytes(f32_bytes(bytemuck::cast_slice::<f32, [f32; 1]>(times))),
                    times.len(),
                    ComponentType::F32,
                    Type::Scalar,
                    None,
                    Some((floats(&[first]), floats(&[last]))),
                )?;
                written.by_times.insert(bits.to_vec(), a);
                a
            }
        };
        // The list the map holds is copied again, once per change of list: a handful per clip.
        written.last = Some((bits.to_vec(), a));
        Ok(a)
    }

    pub(super) fn animation(
        &mut self,
        i: usize,
        anim: &'a Animation,
        written: &mut WrittenKeys,
    ) -> Result<(), Error> {
        let label = label("animation", i, &anim.name);
        let mut channels = Vec::new();
        let mut samplers = Vec::new();
        written.samplers.reserve(anim.channels.len());
        // Validation made every channel target a node, once per property, with keys in order.
        for ch in &anim.channels {
            let (type_, property) = match ch.path {
                ChannelPath::Translation => (Type::Vec3, json::animation::Property::Translation),
                ChannelPath::Rotation => (Type::Vec4, json::animation::Property::Rotation),
                ChannelPath::Scale => (Type::Vec3, json::animation::Property::Scale),
            };
            // Key arrays already written for another channel (another clip of the same MDL
            // source) are referred to again instead of being written again.
            let memo = (
                ch.times.as_ptr(),
                ch.values.as_ptr(),
                ch.path,
                ch.interpolation,
            );
            let (input, output, interpolation) = match written.samplers.get(&memo) {
                Some(&done) => done,
                None => {
                    let (times, values, interpolation) = (&ch.times, &ch.values, ch.interpolation);
                    let input = self.times_accessor(times, &mut written.inputs)?;
                    let comps = if ch.path == ChannelPath::Rotation {
                        4
                    } else {
                        3
                    };
                    let output = self.accessor(
                        Chunk::Bytes(f32_bytes(bytemuck::cast_slice::<f32, [f32; 1]>(values))),
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
            // Not a repair: glTF has no empty animation, so it is left out (and said).
            self.warn(
                label,
                "no channel with keys; glTF cannot hold an empty animation, not written",
            );
            return Ok(());
        }
        let copy = super::super::animation_extras::small_copy(&anim.name, &anim.extras);
        self.animation_copies.push(copy);
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

impl<'a> Builder<'a> {
    /// Writes every animation that has a usable channel.
    pub(super) fn animations(&mut self, scene: &'a Scene) -> Result<(), Error> {
        let mut written = WrittenKeys::default();
        for (i, anim) in scene.animations.iter().enumerate() {
            self.animation(i, anim, &mut written)?;
            // Times are shared within an animation only (as before); samplers across animations.
            written.inputs.clear();
        }
        Ok(())
    }
}
