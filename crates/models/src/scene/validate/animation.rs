//! Animation channels: each targets a node, at most one channel per node and property, key
//! times finite, ≥ 0 and strictly increasing, values finite, rotations of unit length.

use super::{all_finite, label, warn};
use crate::hash::{address_map, AddressMap};
use crate::scene::math::normalize_quat_and_square;
use crate::scene::{normalize_quat, Animation, Channel, ChannelPath, Interpolation, Keys};
use crate::scene::{Scene, SceneWarning};
use std::collections::HashSet;

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
    let channels = scene.animations.iter().map(|a| a.channels.len()).sum();
    let mut checked = address_map(channels);
    for (i, anim) in scene.animations.iter_mut().enumerate() {
        animation(i, anim, node_count, &mut checked, warnings);
    }
}

fn animation(
    i: usize,
    anim: &mut Animation,
    node_count: usize,
    checked: &mut AddressMap<KeysId, (Keys, Keys, Interpolation)>,
    warnings: &mut Vec<SceneWarning>,
) {
    let label = label("animation", i, &anim.name);
    // Keyed by node indices, which the file chooses: SipHash (`crate::hash`), sized once.
    let mut targets: HashSet<(usize, ChannelPath)> = HashSet::with_capacity(anim.channels.len());
    let mut c = 0usize;
    anim.channels.retain_mut(|ch| {
        // Spelled only for a warning: a clip of thousands of channels has none to give.
        let index = c;
        let place = || format!("{label} channel {index}");
        c += 1;
        if ch.node >= node_count {
            let message = format!("target node {} out of range; channel dropped", ch.node);
            warn(warnings, place(), message);
            return false;
        }
        if !targets.insert((ch.node, ch.path)) {
            let message = format!(
                "node {} {:?} is already animated by an earlier channel; dropped",
                ch.node, ch.path
            );
            warn(warnings, place(), message);
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
        if keys_are_clean(ch) {
            // What `clean_channel` would give back bit for bit, without building it.
            checked.insert(id, (ch.times.clone(), ch.values.clone(), ch.interpolation));
            return true;
        }
        match clean_channel(ch) {
            Ok((times, values, interpolation, notes)) => {
                for note in notes {
                    warn(warnings, place(), note);
                }
                keep_or_replace(ch, times, values, interpolation);
                let done = (ch.times.clone(), ch.values.clone(), ch.interpolation);
                checked.insert(id, done);
                true
            }
            Err(reason) => {
                warn(warnings, place(), format!("{reason}; channel dropped"));
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

/// Whether `times` are what the cleaning keeps as they are: at least one, finite, ≥ 0 and
/// strictly increasing. Increasing from a finite first time to a finite last one makes every
/// time finite (a NaN fails its comparisons). The comparisons are folded without an early
/// exit, so that they vectorise.
fn times_are_clean(times: &[f32]) -> bool {
    let (Some(&first), Some(&last)) = (times.first(), times.last()) else {
        return false;
    };
    first.is_finite()
        && first >= 0.0
        && last.is_finite()
        && times
            .iter()
            .zip(times.get(1..).unwrap_or_default())
            .fold(true, |ok, (a, b)| ok & (b > a))
}

/// Whether [`clean_channel`] would keep `ch` as it is: as many values as keys need, times
/// finite, ≥ 0 and strictly increasing, values finite, every rotation value of unit length to
/// the bit (as [`normalize_quat`] leaves it), and a cubic spline of at least two keys. One pass
/// and no allocation, for the common case of keys a converter or a reader already made valid.
fn keys_are_clean(ch: &Channel) -> bool {
    let comps = match ch.path {
        ChannelPath::Rotation => 4,
        _ => 3,
    };
    let cubic = ch.interpolation == Interpolation::CubicSpline;
    let per_key = comps * if cubic { 3 } else { 1 };
    if ch.times.len().checked_mul(per_key) != Some(ch.values.len())
        || ch.times.is_empty()
        || (cubic && ch.times.len() < 2)
    {
        return false;
    }
    let times_ok = times_are_clean(&ch.times);
    let values_ok = all_finite(&ch.values);
    if !times_ok || !values_ok {
        return false;
    }
    if ch.path != ChannelPath::Rotation {
        return true;
    }
    // The value of each key: the middle of the three parts of a cubic key.
    let (skip, step) = if cubic { (4, 12) } else { (0, 4) };
    ch.values
        .get(skip..)
        .unwrap_or_default()
        .chunks(step)
        .all(|key| match key {
            &[x, y, z, w, ..] => {
                let q = [x, y, z, w];
                normalize_quat(q).map(f32::to_bits) == q.map(f32::to_bits)
            }
            _ => false,
        })
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
    if let Some((values, far)) = values_cleaned_in_bulk(ch, comps, cubic) {
        let notes = far_note(far).into_iter().collect();
        return Ok((ch.times.to_vec(), values, ch.interpolation, notes));
    }
    clean_channel_by_key(ch, comps, cubic, per_key)
}

/// The common case of [`clean_channel`], in one pass without a push a key: every time is
/// kept (finite, ≥ 0, increasing), every value is finite, and a cubic spline has two keys or
/// more, so that the cleaning only normalises the rotation values (an animated SMF's
/// quaternions are normalised, but not always to a fixed point of the normalisation). `None`
/// for any other channel. The same values, bit for bit, as [`clean_channel_by_key`], and how
/// many rotation values were not of unit length ([`far_from_unit`]).
fn values_cleaned_in_bulk(ch: &Channel, comps: usize, cubic: bool) -> Option<(Vec<f32>, usize)> {
    if !times_are_clean(&ch.times) || !all_finite(&ch.values) || (cubic && ch.times.len() < 2) {
        return None;
    }
    if ch.path != ChannelPath::Rotation {
        return Some((ch.values.to_vec(), 0));
    }
    let mut far = 0usize;
    // The sum of squares the normalising found says how far from unit length a key was.
    let mut normalized = |q: &[f32]| match *q {
        [x, y, z, w] => {
            let (unit, square) = normalize_quat_and_square([x, y, z, w]);
            far += usize::from(square_far_from_one(square));
            unit
        }
        _ => [0.0, 0.0, 0.0, 1.0], // chunks_exact(4): always four
    };
    let quats = ch.values.chunks_exact(comps);
    let values: Vec<[f32; 4]> = if cubic {
        // In-tangent, value, out-tangent: only the value is a rotation.
        quats
            .enumerate()
            .map(|(i, q)| match q {
                &[x, y, z, w] if i % 3 != 1 => [x, y, z, w],
                q => normalized(q),
            })
            .collect()
    } else {
        quats.map(normalized).collect()
    };
    Some((values.into_flattened(), far))
}

/// Whether a rotation is so far from unit length (or zero) that normalising it is a repair to
/// say, not the rounding every converter's and tool's quaternions carry.
pub(super) fn far_from_unit(q: [f32; 4]) -> bool {
    square_far_from_one(normalize_quat_and_square(q).1)
}

/// [`far_from_unit`] of a quaternion whose `f32` sum of squares is `square`.
#[inline]
fn square_far_from_one(square: f32) -> bool {
    square.is_nan() || (square - 1.0).abs() > 2e-3
}

/// The note for `far` rotation values [`far_from_unit`] normalised.
fn far_note(far: usize) -> Option<String> {
    (far > 0).then(|| format!("{far} rotation keys not of unit length normalised"))
}

/// [`clean_channel`] key by key: drops the keys whose time is not finite, negative or not
/// increasing, zeroes non-finite values, normalises the rotation values, and notes each.
#[allow(clippy::type_complexity)]
fn clean_channel_by_key(
    ch: &Channel,
    comps: usize,
    cubic: bool,
    per_key: usize,
) -> Result<(Vec<f32>, Vec<f32>, Interpolation, Vec<String>), String> {
    let mut notes = Vec::new();
    let mut times = Vec::with_capacity(ch.times.len());
    let mut values = Vec::with_capacity(ch.values.len());
    let mut dropped = 0usize;
    let mut non_finite = 0usize;
    let mut far = 0usize;
    // The length check above makes this pair every time with its key.
    for (&t, key) in ch.times.iter().zip(ch.values.chunks_exact(per_key)) {
        let ok = t.is_finite() && t >= 0.0 && times.last().is_none_or(|&last| t > last);
        if !ok {
            dropped += 1;
            continue;
        }
        times.push(t);
        for (part, chunk) in key.chunks_exact(comps).enumerate() {
            let mut v = [0.0f32; 4];
            for (out, &x) in v.iter_mut().zip(chunk) {
                if x.is_finite() {
                    *out = x;
                } else {
                    non_finite += 1;
                }
            }
            let is_value = !cubic || part == 1;
            if ch.path == ChannelPath::Rotation && is_value {
                let square;
                (v, square) = normalize_quat_and_square(v);
                far += usize::from(square_far_from_one(square));
            }
            values.extend_from_slice(v.get(..comps).unwrap_or_default());
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
    notes.extend(far_note(far));
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

    /// The folded checks agree with the plain definitions on the cases that matter: empty,
    /// one key, a NaN or an infinity anywhere, a repeated or decreasing time, −0 first.
    #[test]
    fn folded_checks_match_their_definitions() {
        let (nan, inf) = (f32::NAN, f32::INFINITY);
        let lists: [&[f32]; 11] = [
            &[],
            &[0.0],
            &[-0.0, 1.0],
            &[-1.0, 1.0],
            &[0.0, nan, 2.0],
            &[0.0, 1.0, inf],
            &[-inf, 1.0],
            &[0.0, 1.0, 1.0],
            &[0.0, 2.0, 1.0],
            &[nan],
            &[0.5, 0.75, 1.0, 3.0],
        ];
        for times in lists {
            let plain = !times.is_empty()
                && times.iter().all(|t| t.is_finite() && *t >= 0.0)
                && times.windows(2).all(|w| w[1] > w[0]);
            assert_eq!(times_are_clean(times), plain, "{times:?}");
            let finite = times.iter().all(|t| t.is_finite());
            assert_eq!(all_finite(times), finite, "{times:?}");
        }
        // Every position of a long list, where a vectorised fold works in lanes.
        for at in 0..67 {
            let mut values = vec![1.0f32; 67];
            values[at] = f32::NEG_INFINITY;
            assert!(!all_finite(&values), "{at}");
        }
    }

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
        // The keys dropped, and the kept ones of length 2, 3 and 0 (a repair, said).
        assert_eq!(notes.len(), 2, "{notes:?}");
        assert_eq!(notes[1], "3 rotation keys not of unit length normalised");
        let short = Channel {
            values: vec![0.0; 3].into(),
            ..ch
        };
        assert!(clean_channel(&short).is_err());
    }

    /// The bulk cleaning gives the key-by-key cleaning's values bit for bit, and takes every
    /// channel the key-by-key cleaning keeps whole without a note: over each kind of flaw,
    /// and over thousands of quaternions normalised once (many not fixed points).
    #[test]
    fn the_bulk_cleaning_agrees_with_the_cleaning_by_key() {
        let mut seed = 0x2545_f491_u32;
        let mut next = move || {
            seed = seed.wrapping_mul(1_664_525).wrapping_add(1_013_904_223);
            (seed >> 8) as f32 / (1u32 << 24) as f32 * 2.0 - 1.0
        };
        let random: Vec<f32> = (0..4000)
            .flat_map(|_| normalize_quat([next(), next(), next(), next()]))
            .collect();
        let times_cases: Vec<Vec<f32>> = vec![
            (0..1000).map(|i| i as f32 / 30.0).collect(),
            vec![0.0, 1.0],
            vec![-0.0, 1.0],
            vec![0.5, 0.25],
            vec![1.0, 1.0],
            vec![-1.0, 1.0],
            vec![0.0, f32::INFINITY],
            vec![f32::NAN, 1.0],
            vec![2.0],
            vec![],
        ];
        let mut bulk = 0;
        for path in [ChannelPath::Rotation, ChannelPath::Translation] {
            let comps = if path == ChannelPath::Rotation { 4 } else { 3 };
            for interpolation in [Interpolation::Linear, Interpolation::CubicSpline] {
                let cubic = interpolation == Interpolation::CubicSpline;
                let per_key = comps * if cubic { 3 } else { 1 };
                for times in &times_cases {
                    for flaw in [None, Some(f32::NAN), Some(f32::INFINITY)] {
                        let mut values: Vec<f32> = random
                            .iter()
                            .copied()
                            .cycle()
                            .take(times.len() * per_key)
                            .collect();
                        if let (Some(bad), Some(v)) = (flaw, values.get_mut(1)) {
                            *v = bad;
                        }
                        let ch = Channel {
                            node: 0,
                            path,
                            interpolation,
                            times: times.clone().into(),
                            values: values.into(),
                        };
                        let by_key = clean_channel_by_key(&ch, comps, cubic, per_key);
                        let bits = |a: &[f32]| a.iter().map(|x| x.to_bits()).collect::<Vec<_>>();
                        // Whole: nothing but normalised rotations (their note aside).
                        let whole = by_key.as_ref().is_ok_and(|(t, _, i, notes)| {
                            notes.iter().all(|n| n.contains("not of unit length"))
                                && bits(t) == bits(&ch.times)
                                && *i == interpolation
                        });
                        match values_cleaned_in_bulk(&ch, comps, cubic) {
                            Some((v, far)) => {
                                let (_, expected, _, notes) = by_key.unwrap();
                                assert_eq!(bits(&v), bits(&expected), "{path:?} {times:?}");
                                assert_eq!(far_note(far).as_slice(), notes.as_slice());
                                bulk += 1;
                            }
                            None => assert!(!whole, "{path:?} {interpolation:?} {times:?}"),
                        }
                    }
                }
            }
        }
        // Three lists of good times and the one-key list (not as a cubic spline), both paths.
        assert_eq!(bulk, 14, "the channels without a flaw");
    }

    /// The shortcut says "clean" exactly when the full cleaning gives the same keys back
    /// without a note, over channels with each kind of flaw, alone and in a valid neighbourhood.
    #[test]
    fn the_shortcut_agrees_with_the_cleaning() {
        let unit = std::f32::consts::FRAC_1_SQRT_2;
        let good_rotation = [0.0, 0.0, 0.0, 1.0, 0.0, unit, 0.0, unit];
        let times_cases: [&[f32]; 7] = [
            &[0.0, 1.0],
            &[0.5, 0.25],
            &[1.0, 1.0],
            &[-1.0, 1.0],
            &[0.0, f32::INFINITY],
            &[f32::NAN, 1.0],
            &[2.0],
        ];
        let value_cases: [&[f32]; 6] = [
            &good_rotation,
            &[0.0, 0.0, 0.0, 2.0, 0.0, 0.0, 0.0, 1.0],
            &[0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 1.0],
            &[0.0, 0.0, 0.0, 1.0, f32::NAN, 0.0, 0.0, 1.0],
            &[0.0, 0.0, 0.0, 1.0, 0.0, f32::INFINITY, 0.0, 1.0],
            &[0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0],
        ];
        let mut clean = 0;
        for path in [ChannelPath::Rotation, ChannelPath::Translation] {
            for interpolation in [Interpolation::Linear, Interpolation::CubicSpline] {
                for times in times_cases {
                    for values in value_cases {
                        let comps = if path == ChannelPath::Rotation { 4 } else { 3 };
                        let parts = if interpolation == Interpolation::CubicSpline {
                            3
                        } else {
                            1
                        };
                        // Each key's value repeated as its tangents, cut to the keys' need.
                        let values: Vec<f32> = values
                            .chunks(4)
                            .flat_map(|v| {
                                let v = v.get(..comps.min(v.len())).unwrap_or_default();
                                std::iter::repeat_n(v, parts).flatten().copied()
                            })
                            .take(times.len() * comps * parts)
                            .collect();
                        let ch = Channel {
                            node: 0,
                            path,
                            interpolation,
                            times: times.to_vec().into(),
                            values: values.clone().into(),
                        };
                        let same = clean_channel(&ch).is_ok_and(|(t, v, i, notes)| {
                            let bits =
                                |a: &[f32]| a.iter().map(|x| x.to_bits()).collect::<Vec<_>>();
                            notes.is_empty()
                                && bits(&t) == bits(times)
                                && bits(&v) == bits(&values)
                                && i == interpolation
                        });
                        assert_eq!(keys_are_clean(&ch), same, "{ch:?}");
                        clean += usize::from(same);
                    }
                }
            }
        }
        assert!(
            clean >= 3,
            "only {clean} clean channels: the test would not see a wrong `true`"
        );
    }
}
