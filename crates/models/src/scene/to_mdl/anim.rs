//! Scene animations → MDL animation sources and clips.
//!
//! * **Unedited:** the export's raw table (`extras.mdl_animation`) is taken as it is when each
//!   of its clips still converts (with `from_mdl`'s own resampling, on the rebuilt bones) to
//!   the scene's animation of that clip (`extras.mdl_clip`), within float rounding, and the
//!   scene has no other animation.
//! * **Otherwise** one source and one clip per animation (same name); animations whose
//!   channels play the very same key lists (clips of one MDL source, read back from shared
//!   glTF samplers) share the first one's source, as the file they came from did. The curves
//!   are charged to the writing limit (`budget::writing_limit`) before they are made. Each channel becomes one
//!   curve per component, `"<bone>.<pos|rot|scl>.<x|y|z>"`, one key per glTF key at
//!   `time × mdl_fps` frames: STEP → 1 (constant), LINEAR → 2 (linear, handles on the key
//!   point), CUBICSPLINE → 3 (cubic Bézier, handles a third of the way along the glTF
//!   tangents). Rotations become Euler degrees in the bone's order, unwrapped so that no step
//!   jumps by a turn; they are interpolated per angle between keys (not slerp; a warning).

use super::{close, Bones, Ctx};
use crate::scene::budget::Budget;
use crate::scene::from_mdl::{self, SampleAllowance, SourceContext, MAX_SAMPLES_PER_FILE};
use crate::scene::lenient;
use crate::scene::{raw64, Channel, ChannelPath, Interpolation, Scene};
use crate::Error;
use mdl_format as mdl;
use serde_json::Value;
use std::collections::HashMap;

type Table = (Vec<mdl::AnimationSource>, Vec<mdl::AnimationClip>);

pub(super) fn build(scene: &Scene, bones: &Bones, cx: &mut Ctx<'_>) -> Result<Table, Error> {
    let fps = cx.fps();
    if let Some(table) = scene.extras.get("mdl_animation").and_then(parse_table) {
        if unedited(scene, &table, bones, fps) {
            return Ok(table);
        }
        cx.warn(
            "animations",
            "the animations differ from the exported file's; rebuilt from the scene (the \
             file's Bézier handles, raw interpolations and curves of nodes that are not bones \
             are lost)"
                .into(),
        );
    }
    let mut sources = Vec::with_capacity(scene.animations.len());
    let mut clips = Vec::with_capacity(scene.animations.len());
    let mut euler = 0usize;
    // Animations whose channels are the very same key lists (every clip of one MDL source,
    // read back from one glTF sampler) share one source, as the file did: written once per
    // clip they would multiply the output.
    let mut source_of: HashMap<Vec<ChannelId>, usize> = HashMap::new();
    let mut budget = Budget::for_keys(scene);
    for (a, anim) in scene.animations.iter().enumerate() {
        let id: Vec<ChannelId> = anim.channels.iter().map(ChannelId::of).collect();
        if let Some(&s) = source_of.get(&id).filter(|_| !id.is_empty()) {
            clips.push(mdl::AnimationClip {
                name: anim.name.as_str().into(),
                source_index: s as i32,
            });
            continue;
        }
        let key_bytes: u64 = anim
            .channels
            .iter()
            .map(|ch| (ch.times.len() as u64).saturating_mul(CURVE_KEY_BYTES))
            .sum();
        budget.charge(
            key_bytes,
            || {
                "its curves (3 per channel, a key each per glTF key; a format writer may make \
                 16 × the scene's cost + 16 MiB)"
                    .to_string()
            },
            || format!("mdl animation {a} ({:?})", anim.name),
        )?;
        let mut curves = Vec::new();
        for ch in &anim.channels {
            curves.extend(channel_curves(a, ch, bones, fps, &mut euler, cx));
        }
        source_of.insert(id, sources.len());
        clips.push(mdl::AnimationClip {
            name: anim.name.as_str().into(),
            source_index: sources.len() as i32,
        });
        sources.push(mdl::AnimationSource {
            name: anim.name.as_str().into(),
            curves,
        });
    }
    if euler > 0 {
        cx.warn(
            "animations",
            format!(
                "{euler} rotation channels written as Euler angles in their bone's rotation \
                 order; between keys they turn per angle, not along the shortest arc"
            ),
        );
    }
    Ok((sources, clips))
}

/// Three curves (x, y, z) of one key each per glTF key: what one key of a channel writes.
const CURVE_KEY_BYTES: u64 = 3 * std::mem::size_of::<mdl::Keyframe>() as u64;

/// A channel's identity for sharing a source: its target and the addresses of its key lists.
#[derive(PartialEq, Eq, Hash)]
struct ChannelId {
    node: usize,
    path: ChannelPath,
    interpolation: Interpolation,
    times: *const Vec<f32>,
    values: *const Vec<f32>,
}

impl ChannelId {
    fn of(ch: &Channel) -> Self {
        Self {
            node: ch.node,
            path: ch.path,
            interpolation: ch.interpolation,
            times: ch.times.as_ptr(),
            values: ch.values.as_ptr(),
        }
    }
}

/// A string as `from_mdl::units_text` wrote it: text, or the list of UTF-16 units.
pub(super) fn parse_units(v: &Value) -> Option<mdl::MdlString> {
    match v {
        Value::String(s) => Some(s.as_str().into()),
        Value::Array(a) => a
            .iter()
            .map(|u| lenient::uint(u).and_then(|u| u16::try_from(u).ok()))
            .collect::<Option<Vec<u16>>>()
            .map(mdl::MdlString::from_units),
        _ => None,
    }
}

/// The export's raw animation table, or `None` when it is not one.
fn parse_table(v: &Value) -> Option<Table> {
    let sources = v
        .get("sources")?
        .as_array()?
        .iter()
        .map(|s| {
            let curves = s
                .get("curves")?
                .as_array()?
                .iter()
                .map(|c| {
                    let floats = raw64::decode_f32(c.get("keys")?.as_str()?)?;
                    if floats.len() % 7 != 0 {
                        return None;
                    }
                    Some(mdl::Curve {
                        target: parse_units(c.get("target")?)?,
                        keys: bytemuck::pod_collect_to_vec::<f32, mdl::Keyframe>(&floats),
                    })
                })
                .collect::<Option<Vec<_>>>()?;
            Some(mdl::AnimationSource {
                name: parse_units(s.get("name")?)?,
                curves,
            })
        })
        .collect::<Option<Vec<_>>>()?;
    let clips = v
        .get("clips")?
        .as_array()?
        .iter()
        .map(|c| {
            Some(mdl::AnimationClip {
                name: parse_units(c.get("name")?)?,
                source_index: i32::try_from(lenient::int(c.get("source")?)?).ok()?,
            })
        })
        .collect::<Option<Vec<_>>>()?;
    Some((sources, clips))
}

/// True when the scene's animations are what `from_mdl` makes of `table` on these bones.
fn unedited(scene: &Scene, table: &Table, bones: &Bones, fps: f32) -> bool {
    let (sources, clips) = table;
    let mut clip_anim: HashMap<usize, usize> = HashMap::new();
    for (a, anim) in scene.animations.iter().enumerate() {
        let Some(c) = anim.extras.get("mdl_clip").and_then(lenient::uint) else {
            return false;
        };
        if c as usize >= clips.len() || clip_anim.insert(c as usize, a).is_some() {
            return false;
        }
    }
    let names: Vec<String> = bones
        .list
        .iter()
        .map(|b| b.name.to_string_lossy())
        .collect();
    let mut by_name: HashMap<&str, usize> = HashMap::with_capacity(names.len());
    for (i, n) in names.iter().enumerate() {
        by_name.entry(n.as_str()).or_insert(i);
    }
    let all = vec![true; bones.list.len()];
    // Only the rest poses are wanted here; the import already warned about the bones.
    let mut ignored = from_mdl::BoneTally::default();
    let rests: Vec<from_mdl::Rest> = bones
        .list
        .iter()
        .enumerate()
        .map(|(i, b)| {
            let (order, _) = from_mdl::rotation_order(b.rotation_order.0);
            from_mdl::bone_transform(i, b, order, &all, &mut ignored).1
        })
        .collect();
    let context = SourceContext {
        by_name: &by_name,
        rests: &rests,
        fps,
    };
    let mut allowance = SampleAllowance {
        left: MAX_SAMPLES_PER_FILE,
        thinned: 0,
    };
    let mut derived: HashMap<usize, Vec<Channel>> = HashMap::new();
    // Only whether the channels match matters here, not what deriving them reported.
    let mut tally = from_mdl::CurveTally::default();
    for (c, clip) in clips.iter().enumerate() {
        let source = usize::try_from(clip.source_index)
            .ok()
            .and_then(|s| Some((s, sources.get(s)?)));
        let channels = match source {
            Some((s, source)) => derived
                .entry(s)
                .or_insert_with(|| {
                    from_mdl::source_channels(c, source, &context, &mut allowance, &mut tally)
                })
                .clone(),
            None => Vec::new(),
        };
        let anim = clip_anim.get(&c).and_then(|&a| scene.animations.get(a));
        match anim {
            None if channels.is_empty() => {}
            Some(anim) if same_channels(&anim.channels, &channels, bones) => {}
            _ => return false,
        }
    }
    allowance.thinned == 0
}

fn same_channels(scene: &[Channel], derived: &[Channel], bones: &Bones) -> bool {
    let same =
        |a: &[f32], b: &[f32]| a.len() == b.len() && a.iter().zip(b).all(|(x, y)| close(*x, *y));
    scene.len() == derived.len()
        && scene.iter().zip(derived).all(|(s, d)| {
            bones.of_node.get(s.node).copied().flatten() == Some(d.node)
                && s.path == d.path
                && s.interpolation == d.interpolation
                && same(&s.times, &d.times)
                && same(&s.values, &d.values)
        })
}

/// The curves of one channel; see the module docs.
fn channel_curves(
    a: usize,
    ch: &Channel,
    bones: &Bones,
    fps: f32,
    euler: &mut usize,
    cx: &mut Ctx<'_>,
) -> Vec<mdl::Curve> {
    let place = format!("animation {a}");
    let Some(bone) = bones
        .of_node
        .get(ch.node)
        .copied()
        .flatten()
        .and_then(|b| bones.list.get(b))
    else {
        cx.warn(
            &place,
            format!("a channel animates node {}, not a bone; dropped", ch.node),
        );
        return Vec::new();
    };
    let name = bone.name.to_string_lossy();
    let comps = if ch.path == ChannelPath::Rotation {
        4
    } else {
        3
    };
    let cubic = ch.interpolation == Interpolation::CubicSpline;
    let stride = if cubic { 3 * comps } else { comps };
    let n = ch.times.len().min(ch.values.len() / stride.max(1));
    let value = |k: usize, part: usize, c: usize| -> f32 {
        ch.values
            .get(k * stride + part * comps + c)
            .copied()
            .unwrap_or(0.0)
    };
    let vpart = usize::from(cubic);
    let frames: Vec<f32> = ch.times.iter().take(n).map(|t| t * fps).collect();
    let interp = match ch.interpolation {
        Interpolation::Step => mdl::Interpolation::CONSTANT,
        Interpolation::Linear => mdl::Interpolation::LINEAR,
        Interpolation::CubicSpline if comps == 3 => mdl::Interpolation::CUBIC,
        Interpolation::CubicSpline => mdl::Interpolation::LINEAR,
    };
    let (channel, values): (&str, Vec<[f32; 3]>) = match ch.path {
        ChannelPath::Translation | ChannelPath::Scale => {
            let v = (0..n)
                .map(|k| [0, 1, 2].map(|c| value(k, vpart, c)))
                .collect();
            let tag = if ch.path == ChannelPath::Scale {
                "scl"
            } else {
                "pos"
            };
            (tag, v)
        }
        ChannelPath::Rotation => {
            let (kind, _) = from_mdl::rotation_order(bone.rotation_order.0);
            let from_mdl::Order::Euler(order) = kind else {
                cx.warn(
                    &place,
                    format!(
                        "bone {name:?} has a quaternion or axis-angle rotation order; its \
                         rotation keys are dropped (MDL curves of such bones are not read)"
                    ),
                );
                return Vec::new();
            };
            if cubic {
                cx.warn(
                    &place,
                    format!("bone {name:?}: cubic rotation keys written as linear"),
                );
            }
            *euler += 1;
            let mut out: Vec<[f32; 3]> = Vec::with_capacity(n);
            for k in 0..n {
                let q = [0, 1, 2, 3].map(|c| value(k, vpart, c));
                let mut e = crate::scene::quat_to_euler(q, order).map(f32::to_degrees);
                if let Some(prev) = out.last() {
                    for (x, p) in e.iter_mut().zip(prev) {
                        *x += ((*p - *x) / 360.0).round() * 360.0;
                    }
                }
                out.push(e);
            }
            ("rot", out)
        }
    };
    ["x", "y", "z"]
        .iter()
        .enumerate()
        .map(|(c, axis)| {
            let keys = (0..n)
                .map(|k| {
                    let f = frames.get(k).copied().unwrap_or(0.0);
                    let v = values.get(k).and_then(|v| v.get(c)).copied().unwrap_or(0.0);
                    let mut key = mdl::Keyframe::new(f, v, interp);
                    if interp == mdl::Interpolation::CUBIC {
                        // Hermite tangents (per second) to Bézier handles a third of the way.
                        if let Some(&prev) = k.checked_sub(1).and_then(|p| frames.get(p)) {
                            let df = f - prev;
                            key.left_handle = [f - df / 3.0, v - value(k, 0, c) * df / fps / 3.0];
                        }
                        if let Some(&next) = frames.get(k + 1) {
                            let df = next - f;
                            key.right_handle = [f + df / 3.0, v + value(k, 2, c) * df / fps / 3.0];
                        }
                    }
                    key
                })
                .collect();
            mdl::Curve {
                target: format!("{name}.{channel}.{axis}").as_str().into(),
                keys,
            }
        })
        .collect()
}
