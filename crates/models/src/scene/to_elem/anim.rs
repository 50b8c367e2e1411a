//! Clips → `AnimationList`: one `AnimationData` per clip, one bone `AnimationPart` per
//! animated hierarchy node, keys relative to the node's `InitPostureMatrix`.

use super::hint::{self, agrees, all_agree, shortest};
use super::{in_hierarchy, Ctx};
use crate::scene::budget::Budget;
use crate::scene::lenient;
use crate::scene::{
    compose, decompose, invert, mirror_z, mirror_z_quat, mul, normalize_quat, Animation, Channel,
    ChannelPath, Interpolation, ValidScene,
};
use crate::Error;
use elfreina_elem as elem;
use serde_json::{Map, Value};

pub(super) fn animations(
    scene: &ValidScene,
    holder: &[bool],
    doc: &mut elem::Elem,
    cx: &mut Ctx<'_>,
) -> Result<(), Error> {
    let mut list = elem::AnimationList::default();
    // A key list the scene shares (clips of one MDL source) is written once per clip here.
    let mut budget = Budget::for_keys(scene);
    for a in &scene.animations {
        let keys: u64 = a.channels.iter().map(|c| c.times.len() as u64).sum();
        budget.charge(
            keys.saturating_mul(KEY_ROW_TEXT_BYTES),
            || {
                "its key rows (a key list the scene shares is written once per clip; a format \
                 writer may make 16 × the scene's cost + 16 MiB)"
                    .to_string()
            },
            || format!("elem animation {:?}", a.name),
        )?;
        if let Some(data) = animation(scene, holder, a, cx)? {
            list.animations.push(data);
        }
    }
    if !list.animations.is_empty() {
        doc.animation = Some(list);
    }
    Ok(())
}

/// What one key row (time, translation, rotation, scale: 11 numbers) may take as text: 25
/// characters a number, the longest shortest form of an `f64` and its separator.
const KEY_ROW_TEXT_BYTES: u64 = 11 * 25;

fn int(ex: &Map<String, Value>, key: &str) -> Option<i64> {
    ex.get(key)
        .and_then(|v| lenient::int(v).or_else(|| v.as_f64().map(|f| f.round() as i64)))
}

fn animation(
    scene: &ValidScene,
    holder: &[bool],
    a: &Animation,
    cx: &mut Ctx<'_>,
) -> Result<Option<elem::AnimationData>, Error> {
    let place = format!("animation {:?}", a.name);
    let ex = &a.extras;
    let from_elem = ex.contains_key("animation_time_ms");
    if !from_elem && scene.extras.get("source_format").and_then(Value::as_str) == Some("elem") {
        // Exported from ELEM, yet without the clip's settings: a tool dropped the animation's
        // extras (Blender 3.4 does) and the copy the glTF reader gives back from the scene's
        // (`gltf/animation_extras.rs`). Said, since the clip loses them.
        cx.warn(
            &place,
            "the ELEM clip settings the export kept (loop, priority, transition times, frames \
             per second, exact keys) are not in the animation's extras; written without them, \
             at 60 frames per second"
                .to_string(),
        );
    }
    let time_ms = int(ex, "animation_time_ms")
        .filter(|&t| t > 0)
        .unwrap_or_else(|| ((f64::from(a.duration()) * 1000.0).round() as i64).max(1));
    let mut data = elem::AnimationData {
        name: Some(cx.name(&place, &a.name)?),
        time_ms: Some(time_ms),
        frames_per_second: int(ex, "frames_per_second").or((!from_elem).then_some(60)),
        transition_time: int(ex, "transition_time_ms"),
        priority: int(ex, "priority"),
        looped: ex.get("loop").and_then(lenient::flag),
        ..elem::AnimationData::default()
    };
    // Channels by node, in order of first appearance.
    let mut nodes: Vec<(usize, Vec<&Channel>)> = Vec::new();
    for c in &a.channels {
        match nodes.iter_mut().find(|(n, _)| *n == c.node) {
            Some((_, list)) => list.push(c),
            None => nodes.push((c.node, vec![c])),
        }
    }
    let kept_parts: Vec<&Map<String, Value>> = ex
        .get("elem_parts")
        .and_then(Value::as_array)
        .map(|l| l.iter().filter_map(Value::as_object).collect())
        .unwrap_or_default();
    let transitions = ex
        .get("part_transition_times_ms")
        .and_then(Value::as_object);
    let mut skipped = Vec::new();
    for (node, channels) in nodes {
        let Some(n) = scene.nodes.get(node) else {
            continue;
        };
        if !in_hierarchy(scene, holder, node) {
            skipped.push(n.name.clone());
            continue;
        }
        let pplace = format!("{place} part {:?}", n.name);
        let kept = kept_parts
            .iter()
            .find(|k| k.get("node").and_then(Value::as_str) == Some(n.name.as_str()));
        let mut part = bone_part(
            n.transform.to_matrix(),
            &channels,
            time_ms,
            kept.copied(),
            &pplace,
            cx,
        );
        part.node_name = Some(cx.name(&pplace, &n.name)?);
        part.transition_time = transitions.and_then(|t| int(t, &n.name));
        data.bone_animation.parts.push(part);
    }
    if !skipped.is_empty() {
        cx.warn(
            &place,
            format!(
                "channels of nodes that are not HierarchyList nodes dropped: {}",
                skipped.join(", ")
            ),
        );
    }
    data.bone_animation.time_keys = match ex.get("elem_time_keys").and_then(Value::as_array) {
        Some(k) => k.iter().filter_map(hint::num_of).collect(),
        None => union(
            data.bone_animation
                .parts
                .iter()
                .map(|p| p.time_keys.as_slice()),
        ),
    };
    if let Some(uv) = ex.get("uv_animation") {
        data.uv_animation = uv_animation(uv);
    }
    Ok(Some(data))
}

/// The sorted union of key lists (each value once).
fn union<'a>(lists: impl Iterator<Item = &'a [f64]>) -> Vec<f64> {
    let mut all: Vec<f64> = lists.flatten().copied().collect();
    all.sort_by(f64::total_cmp);
    all.dedup_by(|a, b| a.to_bits() == b.to_bits());
    all
}

/// One channel's value at `t`: linear (normalised lerp for rotations), step, or a cubic
/// spline's key values taken linearly.
fn sample(c: &Channel, t: f32, width: usize) -> Vec<f32> {
    let stride = if c.interpolation == Interpolation::CubicSpline {
        width * 3
    } else {
        width
    };
    let offset = if c.interpolation == Interpolation::CubicSpline {
        width
    } else {
        0
    };
    let value = |k: usize| -> Vec<f32> {
        let at = k * stride + offset;
        c.values
            .get(at..at + width)
            .map_or_else(|| vec![0.0; width], <[f32]>::to_vec)
    };
    let times = &c.times;
    let after = times.partition_point(|&x| x <= t);
    if after == 0 {
        return value(0);
    }
    let k = after - 1;
    let (Some(&t0), Some(&t1)) = (times.get(k), times.get(k + 1)) else {
        return value(k);
    };
    if c.interpolation == Interpolation::Step || t1 <= t0 {
        return value(k);
    }
    let f = (t - t0) / (t1 - t0);
    let (a, mut b) = (value(k), value(k + 1));
    if c.path == ChannelPath::Rotation && a.iter().zip(&b).map(|(x, y)| x * y).sum::<f32>() < 0.0 {
        b.iter_mut().for_each(|v| *v = -*v);
    }
    a.iter().zip(&b).map(|(x, y)| x + (y - x) * f).collect()
}

fn bone_part(
    rest: [f32; 16],
    channels: &[&Channel],
    time_ms: i64,
    kept: Option<&Map<String, Value>>,
    place: &str,
    cx: &mut Ctx<'_>,
) -> elem::BoneAnimationPart {
    let get = |path| channels.iter().find(|c| c.path == path).copied();
    let (tc, rc, sc) = (
        get(ChannelPath::Translation),
        get(ChannelPath::Rotation),
        get(ChannelPath::Scale),
    );
    let (rt, rq, rs, _) = decompose(rest);
    let mut times: Vec<f32> = channels
        .iter()
        .flat_map(|c| c.times.iter().copied())
        .collect();
    times.sort_by(f32::total_cmp);
    times.dedup();
    let inverse = invert(rest).unwrap_or_else(|| {
        cx.warn(
            place,
            "the node's matrix is not invertible; keys taken as absolute".into(),
        );
        crate::scene::IDENTITY
    });
    let arr = |v: Vec<f32>, d: [f32; 3]| -> [f32; 3] {
        let mut out = d;
        for (o, x) in out.iter_mut().zip(v) {
            *o = x;
        }
        out
    };
    let mut made = Vec::with_capacity(times.len());
    for &t in &times {
        let tt = tc.map_or(rt, |c| arr(sample(c, t, 3), rt));
        let q = rc.map_or(rq, |c| {
            let v = sample(c, t, 4);
            normalize_quat([0, 1, 2, 3].map(|i| v.get(i).copied().unwrap_or(0.0)))
        });
        let ss = sc.map_or(rs, |c| arr(sample(c, t, 3), rs));
        let local = mul(inverse, compose(tt, q, ss));
        let (kt, kq, ks, _) = decompose(local);
        let (kt, kq) = if cx.mirror {
            (mirror_z(kt), mirror_z_quat(kq))
        } else {
            (kt, kq)
        };
        let time = shortest(t) * 1000.0 / time_ms as f64;
        made.push([
            time,
            shortest(kt[0]),
            shortest(kt[1]),
            shortest(kt[2]),
            shortest(kq[0]),
            shortest(kq[1]),
            shortest(kq[2]),
            shortest(kq[3]),
            shortest(ks[0]),
            shortest(ks[1]),
            shortest(ks[2]),
        ]);
    }
    let interpolation = channels.first().map(|c| c.interpolation);
    if interpolation == Some(Interpolation::CubicSpline) {
        cx.warn(
            place,
            "cubic spline keys written as linear keys at the same times".into(),
        );
    }
    let kept_type = kept.and_then(|k| k.get("interpolation_type"));
    let mut part = elem::BoneAnimationPart {
        interpolation_type: match (kept_type, interpolation) {
            (Some(Value::String(s)), Some(Interpolation::Step)) if s == "Step" => Some(s.clone()),
            (Some(Value::String(s)), Some(Interpolation::Linear)) if s != "Step" => Some(s.clone()),
            (Some(Value::Null), Some(Interpolation::Linear)) => None,
            (_, Some(Interpolation::Step)) => Some("Step".to_owned()),
            _ => None,
        },
        ..elem::BoneAnimationPart::default()
    };
    let rows = match kept.and_then(|k| kept_keys(k, &made)) {
        Some(k) => k,
        None => made,
    };
    for r in rows {
        let [t, x, y, z, qx, qy, qz, qw, sx, sy, sz] = r;
        part.time_keys.push(t);
        part.trans_keys.push([x, y, z]);
        part.rotate_keys.push([qx, qy, qz, qw]);
        part.scale_keys.push([sx, sy, sz]);
    }
    part
}

/// The file's keys kept by the export, when every one still is the scene's key.
fn kept_keys(kept: &Map<String, Value>, made: &[[f64; 11]]) -> Option<Vec<[f64; 11]>> {
    let rows: Vec<[f64; 11]> = kept
        .get("keys")?
        .as_array()?
        .iter()
        .map(hint::row_of::<11>)
        .collect::<Option<_>>()?;
    if rows.len() != made.len() {
        return None;
    }
    let same = rows.iter().zip(made).all(|(k, m)| {
        let q = |r: &[f64; 11]| {
            let [_, _, _, _, x, y, z, w, ..] = *r;
            let n = (x * x + y * y + z * z + w * w).sqrt();
            [x / n, y / n, z / n, w / n]
        };
        let (kq, mq) = (q(k), q(m));
        let neg = mq.map(|v| -v);
        agrees(k[0], m[0])
            && all_agree(&k[1..4], &m[1..4])
            && all_agree(&k[8..11], &m[8..11])
            && (all_agree(&kq, &mq) || all_agree(&kq, &neg))
    });
    same.then_some(rows)
}

fn numbers(v: Option<&Value>) -> Vec<f64> {
    v.and_then(Value::as_array)
        .map(|a| a.iter().filter_map(hint::num_of).collect())
        .unwrap_or_default()
}

fn number_rows(v: Option<&Value>) -> Vec<Vec<f64>> {
    v.and_then(Value::as_array)
        .map(|a| a.iter().map(|r| numbers(Some(r))).collect())
        .unwrap_or_default()
}

/// `extras.uv_animation` (the export's, in file terms) back as the `UVAnimation` scope.
fn uv_animation(v: &Value) -> elem::UvAnimation {
    let text = |p: &Value, k: &str| p.get(k).and_then(Value::as_str).map(str::to_owned);
    elem::UvAnimation {
        time_keys: numbers(v.get("time_keys")),
        parts: v
            .get("parts")
            .and_then(Value::as_array)
            .map(|l| {
                l.iter()
                    .map(|p| elem::UvAnimationPart {
                        mesh_container_name: text(p, "mesh_container"),
                        material_name: text(p, "material"),
                        time_keys: numbers(p.get("time_keys")),
                        trans_keys: number_rows(p.get("trans_keys")),
                        rotate_keys: number_rows(p.get("rotate_keys")),
                        scale_keys: number_rows(p.get("scale_keys")),
                        extra: Vec::new(),
                    })
                    .collect()
            })
            .unwrap_or_default(),
        extra: Vec::new(),
    }
}
