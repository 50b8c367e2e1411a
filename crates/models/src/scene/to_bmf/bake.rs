//! Baking a scene's animation into BMF skinning matrices: the clips laid out on one track, the
//! node hierarchy evaluated at each sample, `global(joint) × inverseBind(joint)` per joint.

use super::super::pose::{rest_matrix, Skeleton, Targets};
use super::super::{decompose, mirror_z_matrix, mul, Animation, Scene, SceneWarning, IDENTITY};
use super::Baked;
use crate::scene::lenient;
use crate::{Error, Format};
use serde_json::Value;
use std::collections::HashMap;

/// How far a baked matrix may be from the exact one the export kept and still count as the
/// same (the TRS decomposition's rounding; the export warns above this).
const MATCH_TOLERANCE: f32 = 1e-4;

/// One clip on the track.
pub(crate) struct ClipPlan<'a> {
    pub(crate) animation: &'a Animation,
    /// Its samples (`round(duration × fps) + 1`).
    samples: usize,
    /// Per animated node, its translation, rotation and scale channels.
    targets: Targets<'a>,
    /// The export's exact matrices per scene skin (sample-major), when they fit.
    exact: HashMap<usize, (usize, Vec<f32>)>,
}

/// The clips BMF's one track plays, one after the other, at `fps`.
pub(crate) struct Track<'a> {
    pub(crate) clips: Vec<ClipPlan<'a>>,
    fps: f32,
    /// The most matrix bytes the bakes may make, all skins together (bounded by the scene's
    /// size).
    limit: u64,
    /// The matrix bytes made so far: every skin's bake and every mesh's copy of one (a BMF
    /// mesh holds its own AnimeMatrix block), so that neither many skins nor many meshes of
    /// one skin make the limit many times over.
    baked: std::cell::Cell<u64>,
}

impl<'a> Track<'a> {
    /// The clip named `clip`, or every clip one after the other (with a warning listing each
    /// clip's time range on the track).
    pub(crate) fn new(
        scene: &'a Scene,
        clip: Option<&str>,
        fps: f32,
        warnings: &mut Vec<SceneWarning>,
    ) -> Result<Self, Error> {
        let chosen: Vec<&Animation> = match clip {
            Some(name) => {
                let Some(a) = scene.animations.iter().find(|a| a.name == name) else {
                    let names: Vec<String> = scene
                        .animations
                        .iter()
                        .map(|a| format!("{:?}", a.name))
                        .collect();
                    return Err(Error::FormatLimit {
                        format: Format::Bmf,
                        place: format!("clip {name:?}"),
                        what: if names.is_empty() {
                            "no such clip; the scene has no animation".into()
                        } else {
                            format!("no such clip; the clips are {}", names.join(", "))
                        },
                    });
                };
                vec![a]
            }
            None => scene.animations.iter().collect(),
        };
        let mut clips = Vec::with_capacity(chosen.len());
        for a in chosen {
            clips.push(plan(a, fps)?);
        }
        let track = Self {
            clips,
            fps,
            limit: crate::scene::budget::writing_limit(scene),
            baked: std::cell::Cell::new(0),
        };
        for c in &track.clips {
            let stored = c
                .animation
                .extras
                .get("bmf_samples_per_second")
                .and_then(Value::as_f64);
            if let Some(rate) = stored.filter(|&r| r as f32 != fps) {
                warnings.push(warning(
                    "bmf",
                    format!(
                        "clip {:?} was exported at {rate} samples per second and is baked at \
                     {fps} (option bmf_fps): its samples are resampled",
                        c.animation.name
                    ),
                ));
            }
        }
        if track.clips.len() > 1 {
            warnings.push(warning("bmf", track.ranges()));
        }
        Ok(track)
    }

    /// Charges `bytes` more of matrices (`what` makes them, at `place`) to the limit, which
    /// also holds them to one AnimeMatrix block's size.
    pub(crate) fn charge(
        &self,
        bytes: u64,
        place: &str,
        what: impl FnOnce() -> String,
    ) -> Result<(), Error> {
        let before = self.baked.get();
        let total = before.saturating_add(bytes);
        if total > self.limit || bytes > u64::from(u32::MAX) {
            let others = match before {
                0 => String::new(),
                n => format!(" (with the {n} bytes of matrices made before)"),
            };
            return Err(Error::FormatLimit {
                format: Format::Bmf,
                place: place.to_owned(),
                what: format!(
                    "{} make {bytes} bytes of matrices{others}, more than this scene may make \
                     ({} bytes) or an AnimeMatrix block holds ({} bytes)",
                    what(),
                    self.limit,
                    u32::MAX
                ),
            });
        }
        self.baked.set(total);
        Ok(())
    }

    /// The warning (at `bmf`) that lists each clip's time range on the concatenated track.
    fn ranges(&self) -> String {
        let mut first = 0usize;
        let mut parts = Vec::new();
        for c in &self.clips {
            let last = first + c.samples.saturating_sub(1);
            parts.push(format!(
                "{:?} {} s to {} s (samples {first} to {last})",
                c.animation.name,
                first as f32 / self.fps,
                last as f32 / self.fps
            ));
            first = last + 1;
        }
        format!(
            "BMF holds one animation; {} clips played one after the other at {} samples \
             per second (play a clip by its time range, or choose one with the clip option): {}",
            self.clips.len(),
            self.fps,
            parts.join(", ")
        )
    }

    /// Bakes scene skin `s`: every joint's skinning matrix at every sample of the track (or one
    /// rest sample when there is no clip, unless the skin's meshes came from a BMF file without
    /// samples), in BMF's convention.
    pub(crate) fn bake(
        &self,
        scene: &Scene,
        skeleton: &Skeleton,
        s: usize,
    ) -> Result<Baked, Error> {
        let skin = scene.skins.get(s);
        let joints: &[usize] = skin.map_or(&[], |k| &k.joints);
        let bones = joints.len();
        let ibm = |b: usize| {
            skin.and_then(|k| k.inverse_bind_matrices.get(b).copied())
                .unwrap_or(IDENTITY)
        };
        let from_bmf_without_samples = scene.nodes.iter().any(|n| {
            n.skin == Some(s)
                && n.mesh
                    .and_then(|m| scene.meshes.get(m))
                    .is_some_and(|m| m.extras.contains_key("bmf_bone_count"))
        });
        let rest_samples = usize::from(!from_bmf_without_samples);
        let samples: usize = if self.clips.is_empty() {
            rest_samples
        } else {
            self.clips.iter().map(|c| c.samples).sum()
        };
        let bytes = (samples as u64)
            .saturating_mul(bones as u64)
            .saturating_mul(64);
        self.charge(bytes, &format!("skin {s}"), || {
            format!(
                "{bones} bones × {samples} samples at {} per second",
                self.fps
            )
        })?;
        let mut matrices = Vec::with_capacity(samples * bones);
        let mut replaced = 0usize;
        let rest: Vec<[f32; 16]> = (0..scene.nodes.len())
            .map(|n| rest_matrix(scene, n))
            .collect();
        let bake_sample = |locals: &[[f32; 16]],
                           exact: Option<&[f32]>,
                           out: &mut Vec<[f32; 16]>,
                           replaced: &mut usize| {
            let globals = skeleton.globals(locals);
            for (b, &j) in joints.iter().enumerate() {
                let g = globals.get(j).copied().unwrap_or(IDENTITY);
                let m = mirror_z_matrix(mul(g, ibm(b)));
                let kept = exact
                    .and_then(|e| e.get(b * 16..b * 16 + 16))
                    .and_then(|e| <[f32; 16]>::try_from(e).ok())
                    .filter(|e| close(e, &m));
                match kept {
                    Some(e) => out.push(e),
                    None => {
                        *replaced += 1;
                        out.push(m);
                    }
                }
            }
        };
        if self.clips.is_empty() {
            for _ in 0..samples {
                bake_sample(&rest, None, &mut matrices, &mut replaced);
            }
        }
        for c in &self.clips {
            let exact = c
                .exact
                .get(&s)
                .filter(|(b, _)| *b == bones)
                .map(|(_, e)| e.as_slice());
            for k in 0..c.samples {
                let t = k as f32 / self.fps;
                let locals = c.targets.locals(scene, &rest, t);
                let e = exact.and_then(|e| e.get(k * bones * 16..(k + 1) * bones * 16));
                bake_sample(&locals, e, &mut matrices, &mut replaced);
            }
        }
        Ok(Baked {
            skin: s,
            bones,
            matrices,
            replaced,
        })
    }
}

/// A clip's sample count, animated nodes and exact matrices.
fn plan(a: &Animation, fps: f32) -> Result<ClipPlan<'_>, Error> {
    let duration = a.duration();
    let n = (f64::from(duration) * f64::from(fps)).round();
    if !(n.is_finite() && (0.0..1e9).contains(&n)) {
        return Err(Error::FormatLimit {
            format: Format::Bmf,
            place: format!("clip {:?}", a.name),
            what: format!("a duration of {duration} s at {fps} samples per second"),
        });
    }
    let samples = n as usize + 1;
    let targets = Targets::new(a);
    let mut exact = HashMap::new();
    if let Some(list) = a.extras.get("bmf_matrices").and_then(Value::as_array) {
        for e in list {
            let skin = e.get("skin").and_then(lenient::uint);
            let bones = e.get("bones").and_then(lenient::uint);
            let data = e
                .get("data")
                .and_then(Value::as_str)
                .and_then(super::super::raw64::decode_f32);
            if let (Some(skin), Some(bones), Some(data)) = (skin, bones, data) {
                if let (Ok(skin), Ok(bones)) = (usize::try_from(skin), usize::try_from(bones)) {
                    exact.insert(skin, (bones, data));
                }
            }
        }
    }
    Ok(ClipPlan {
        animation: a,
        samples,
        targets,
        exact,
    })
}

/// True when the baked matrix `m` is the exact one `e` within the decomposition's rounding
/// (plus its error, for matrices with shear that TRS cannot hold).
pub(crate) fn close(e: &[f32; 16], m: &[f32; 16]) -> bool {
    let (_, _, _, err) = decompose(mirror_z_matrix(*e));
    if !err.is_finite() {
        return e.iter().zip(m).all(|(a, b)| a.to_bits() == b.to_bits());
    }
    let tol = MATCH_TOLERANCE + err;
    e.iter()
        .zip(m)
        .all(|(a, b)| (a - b).abs() <= tol * a.abs().max(1.0))
}

/// The one place this module makes a warning: `{place}: {message}`.
fn warning(place: &str, message: impl Into<String>) -> SceneWarning {
    SceneWarning::other(place, message)
}
