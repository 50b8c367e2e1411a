//! Altseed `.mdl` → [`Scene`], following `shared/formats/mdl.md` §4.
//!
//! * **Axes:** MDL is right-handed, Y up, like glTF: no mirror. Front faces are clockwise, so
//!   every face `(a, b, c)` becomes `(a, c, b)`. UVs are unchanged (top-left origin in both).
//! * **Matrices** are stored row by row with column vectors: they are transposed
//!   ([`transpose`]) into glTF's column-major layout.
//! * **Bones → nodes** (node `i` is bone `i`). Version 1: the local matrix, as TRS (or as a
//!   matrix when it is not a TRS and no curve animates the bone). Version 2: `T · R · S` with
//!   the Euler angles (degrees) applied in the bone's rotation order (`ABC` = A first:
//!   `q = q_C · q_B · q_A`); order 0 (FBX SphericXYZ) is read as XYZ and order 14 (ZYX) as the
//!   intended Z-then-Y-then-X, both with a warning; orders 10 (quaternion) and 18 (axis–angle)
//!   are read literally, with a warning about the engine's own reading.
//! * **Divided meshes:** each becomes its own scene mesh on its own untransformed root node,
//!   with its own skin: joints = the nodes of its connectors' bones (deduplicated), inverse bind
//!   matrices = the transposed connector offsets, JOINTS = the vertex's divided (connector)
//!   indices mapped to that joint list, WEIGHTS = bytes / 255 renormalised with
//!   [`normalize_weights`]. One primitive per material run. Colours are the u8 RGBA bytes (`Colors::Bytes`); the
//!   sub-uv becomes TEXCOORD_1 when it is not all zero; binormals are not exported (warning).
//! * **Materials:** internal: colour → colour texture, normal → normal texture, metalness →
//!   `extras.metalness_texture`; external (type 1): a default material whose
//!   `extras.external_material` holds the path, with a warning.
//! * **Animations:** one glTF animation per clip (named after the clip) from its source's
//!   curves. `pos.*` → translation, `scl.*` → scale, `rot.*` (Euler degrees in the bone's
//!   order) → rotation quaternions. The three component curves of one channel are **sampled**
//!   at the union of their key times (times = frame / `options.mdl_fps`); a missing component
//!   takes the bone's rest value. Each curve is evaluated with the tool's interpolation meaning
//!   (1 constant, 2 linear, 3 cubic Bézier through the handles, anything else linear with a
//!   warning): cubic segments get an extra sample at every frame (at least 4 per segment),
//!   rotation segments get extra samples so no sample step exceeds 45° per axis, and a constant
//!   segment inside a channel that also has non-constant keys gets an extra sample just before
//!   the next key (0.01 frame, or a quarter of the segment) so the LINEAR result holds the value;
//!   a channel whose keys are all constant is exported as STEP. Keys out of order are sorted,
//!   keys at a repeated time or with non-finite numbers dropped, and samples before time 0 are
//!   replaced by one at 0 (warnings). Curves whose node is not a bone (Camera, Lamp) and
//!   malformed targets are reported, one warning per source.
//! * **For the way back** (`to_mdl`), what glTF has no place for goes into `mdl_*` extras:
//!   scene `mdl_version` and `mdl_animation` (every source's raw curves, keys as base64 of their
//!   28 bytes, and every clip); bone nodes `mdl_rotation_order` and `mdl_transform` (the stored
//!   floats, base64), `mdl_name` (the UTF-16 units of a name that is not well-formed); mesh-holding nodes `mdl_mesh_node`; meshes `mdl_mesh`, `mdl_divided`,
//!   `mdl_runs`, `mdl_vertices` and `mdl_connectors` (raw bytes, base64); materials
//!   `mdl_mesh`; animations `mdl_clip`.
//! * **Bounded resampling:** each source is resampled once, by the first clip that plays it;
//!   every other clip shares its channels (reference-counted keys, written once by the glTF
//!   writer). A channel gets at most [`MAX_SAMPLES_PER_CHANNEL`] samples and the file at most
//!   [`MAX_SAMPLES_PER_FILE`] (fewer when the conversion budget affords fewer); beyond that the
//!   in-between samples are thinned evenly, every key is kept, and a warning says how many
//!   channels were thinned. Keys are found by binary search. Each further clip of a source
//!   is charged to the conversion budget (its channel list and glTF objects) before it is made:
//!   a clip costs a few bytes in the file, its channels can cost kilobytes.

mod divided;

use super::budget::{Budget, JSON_OBJECT};
use super::extras::object;
use super::raw64;
use super::shared::{items, take_list};
use super::{
    decompose, euler_to_quat, make_quats_continuous, normalize3, normalize_quat, normalize_weights,
    quat_to_euler, transpose, Animation, Channel, ChannelPath, Conversion, Interpolation, Material,
    Node, Scene, SceneOptions, SceneWarning, SlotOrder, Transform,
};
use super::{Known, MDL_BINORMAL_NOTE};
use crate::Error;
use mdl_format as mdl;
use serde_json::{json, Map, Value};
use std::borrow::Cow;
use std::collections::{BTreeMap, HashMap, HashSet};

/// Largest decomposition error accepted silently.
const DECOMPOSE_TOLERANCE: f32 = 1e-4;

/// How a bone's rotation is expressed.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(super) enum Order {
    /// Euler angles applied in this axis order (first axis first).
    Euler([usize; 3]),
    /// Rotation order 10.
    Quaternion,
    /// Rotation order 18.
    AxisAngle,
}

/// A bone's rest pose, as the animation needs it.
pub(super) struct Rest {
    translation: [f32; 3],
    /// Euler angles in degrees, by axis, in the bone's order (for filling missing components).
    euler_deg: [f32; 3],
    scale: [f32; 3],
    pub(super) order: Order,
}

pub(crate) fn convert(
    doc: Cow<'_, mdl::Mdl>,
    options: &SceneOptions,
    budget: &mut Budget,
) -> Result<Conversion, Error> {
    // An owned document's meshes are moved out and each part freed once converted.
    let (doc, owned_meshes) = take_list(doc, |d| &mut d.meshes);
    let mut scene = Scene::default();
    let mut warnings = Vec::new();
    let fps = if options.mdl_fps.is_finite() && options.mdl_fps > 0.0 {
        options.mdl_fps
    } else {
        warnings.push(warning(
            "mdl",
            format!("invalid frame rate {}; using 60", options.mdl_fps),
        ));
        60.0
    };
    let names: Vec<String> = doc.bones.iter().map(|b| b.name.to_string_lossy()).collect();
    // The first bone of each name (a map: curves look their bone up by name).
    let mut by_name: HashMap<&str, usize> = HashMap::with_capacity(names.len());
    for (i, n) in names.iter().enumerate() {
        by_name.entry(n.as_str()).or_insert(i);
    }
    let rests = bone_nodes(&doc, &names, &by_name, &mut scene, &mut warnings);
    // Every bone's root, computed once (a parent always comes before its child).
    let mut roots: Vec<usize> = Vec::with_capacity(doc.bones.len());
    for (i, bone) in doc.bones.iter().enumerate() {
        let parent = usize::try_from(bone.parent).ok().filter(|&p| p < i);
        let root = parent.and_then(|p| roots.get(p).copied()).unwrap_or(i);
        roots.push(root);
    }
    let root_of = |b: usize| roots.get(b).copied().unwrap_or(b);

    // Meshes.
    let mut binormals = false;
    for (mi, mesh) in items(owned_meshes, &doc.meshes).enumerate() {
        let base = scene.materials.len();
        for (k, m) in mesh.materials.iter().enumerate() {
            let mut material = convert_material(mi, k, m, &mut warnings);
            material.extras.insert("mdl_mesh".into(), json!(mi));
            scene.materials.push(material);
        }
        let (mesh, owned_parts) = take_list(mesh, |m| &mut m.divided);
        let target = divided::Target {
            material_base: base,
            material_count: mesh.materials.len(),
            bone_count: doc.bones.len(),
            root_of: &root_of,
        };
        for (di, part) in items(owned_parts, &mesh.divided).enumerate() {
            binormals |=
                divided::convert_divided((mi, di), part, &target, &mut scene, &mut warnings);
        }
    }
    if binormals {
        warnings.push(note(
            MDL_BINORMAL_NOTE,
            " (glTF has no binormal; tangents are not derived)",
        ));
    }

    let cx = SourceContext {
        by_name: &by_name,
        rests: &rests,
        fps,
    };
    animations(&doc, &cx, budget, &mut scene, &mut warnings)?;
    scene
        .extras
        .insert("mdl_version".into(), json!(doc.version));
    if !doc.animation_sources.is_empty() || !doc.clips.is_empty() {
        scene
            .extras
            .insert("mdl_animation".into(), raw_animation(&doc));
    }
    Ok(Conversion { scene, warnings })
}

/// Bones → nodes (node `i` is bone `i`), with their children and roots; each bone's rest pose
/// for the animations.
fn bone_nodes(
    doc: &mdl::Mdl,
    names: &[String],
    by_name: &HashMap<&str, usize>,
    scene: &mut Scene,
    warnings: &mut Vec<SceneWarning>,
) -> Vec<Rest> {
    let bone_by_name = |node: &str| by_name.get(node).copied();
    // Bones animated by any curve must get a TRS transform.
    let mut animated = vec![false; doc.bones.len()];
    for c in doc.animation_sources.iter().flat_map(|s| &s.curves) {
        if let Some(b) = c.parse_target().and_then(|t| bone_by_name(&t.node)) {
            if let Some(a) = animated.get_mut(b) {
                *a = true;
            }
        }
    }

    // Bones → nodes.
    let mut rests = Vec::with_capacity(doc.bones.len());
    let mut bone_tally = BoneTally::default();
    for (i, bone) in doc.bones.iter().enumerate() {
        let (order, order_warning) = rotation_order(bone.rotation_order.0);
        if let Some(w) = order_warning {
            let name = names.get(i).map_or("", String::as_str);
            // Keyed by the message: each raw order is its own kind.
            let key = w.clone();
            bone_tally.add(key, format!("mdl bone {i} ({name:?})"), w);
        }
        let (transform, rest) = bone_transform(i, bone, order, &animated, &mut bone_tally);
        rests.push(rest);
        scene.nodes.push(Node {
            name: names.get(i).cloned().unwrap_or_default(),
            transform,
            extras: bone_extras(bone),
            ..Node::default()
        });
    }
    for (i, bone) in doc.bones.iter().enumerate() {
        match usize::try_from(bone.parent).ok().filter(|&p| p < i) {
            Some(p) => {
                if let Some(n) = scene.nodes.get_mut(p) {
                    n.children.push(i);
                }
            }
            None => {
                if bone.parent != -1 {
                    bone_tally.add(
                        "invalid parent".into(),
                        format!("mdl bone {i}"),
                        format!("invalid parent {}; made a root", bone.parent),
                    );
                }
                scene.roots.push(i);
            }
        }
    }
    bone_tally.report(warnings);
    rests
}

/// Animations: one per clip, from its source's curves (the module documentation says how).
fn animations(
    doc: &mdl::Mdl,
    cx: &SourceContext<'_>,
    budget: &mut Budget,
    scene: &mut Scene,
    warnings: &mut Vec<SceneWarning>,
) -> Result<(), Error> {
    // Animations: one per clip. Each source is resampled once, by the first clip that plays
    // it; later clips share its channels (the key arrays are reference-counted).
    let mut resampled: HashMap<usize, Vec<Channel>> = HashMap::new();
    // Samples also fit the budget: one costs at most 4 + 16 bytes of keys, 64 with margin.
    let affordable = budget.limit().saturating_sub(budget.used()) / 64;
    let mut allowance = SampleAllowance {
        left: MAX_SAMPLES_PER_FILE.min(usize::try_from(affordable).unwrap_or(usize::MAX)),
        thinned: 0,
    };
    let mut played = vec![false; doc.animation_sources.len()];
    let mut tally = CurveTally::default();
    for (c, clip) in doc.clips.iter().enumerate() {
        let name = clip.name.to_string_lossy();
        let Some((k, source)) = usize::try_from(clip.source_index)
            .ok()
            .and_then(|s| Some((s, doc.animation_sources.get(s)?)))
        else {
            warnings.push(warning(
                &format!("mdl clip {c} ({name:?})"),
                format!("source {} does not exist; not exported", clip.source_index),
            ));
            continue;
        };
        if let Some(p) = played.get_mut(k) {
            *p = true;
        }
        let channels = match resampled.get(&k) {
            Some(channels) => {
                // Every further clip of a source shares its keys but still costs its channel
                // list and glTF channel and sampler objects: charged before it is made, since
                // clips are cheap in the file (a name and an index).
                let per_channel = 2 * JSON_OBJECT + std::mem::size_of::<Channel>() as u64;
                budget.charge(
                    channels.len() as u64 * per_channel,
                    || format!("{} more channels", channels.len()),
                    || format!("mdl clip {c} ({name:?}) playing source {k} again"),
                )?;
                channels.clone()
            }
            None => {
                let channels = source_channels(c, source, cx, &mut allowance, &mut tally);
                resampled.insert(k, channels.clone());
                channels
            }
        };
        if channels.is_empty() {
            warnings.push(warning(
                &format!("mdl clip {c} ({name:?})"),
                format!(
                    "its source {:?} animates no bone; not exported \
                 (glTF needs at least one channel)",
                    source.name.to_string_lossy()
                ),
            ));
            continue;
        }
        let mut extras = Map::new();
        extras.insert("mdl_source".into(), json!(source.name.to_string_lossy()));
        extras.insert("mdl_clip".into(), json!(c));
        scene.animations.push(Animation {
            name,
            channels,
            extras,
        });
    }
    tally.report(warnings);
    if allowance.thinned > 0 {
        warnings.push(warning(
            "mdl",
            format!(
                "{} channels would have needed more than {MAX_SAMPLES_PER_CHANNEL} samples \
             each, or more than the file's allowance ({MAX_SAMPLES_PER_FILE}, or what the \
             conversion budget affords); their in-between samples were thinned (every key is \
             kept)",
                allowance.thinned
            ),
        ));
    }
    for (k, source) in doc.animation_sources.iter().enumerate() {
        let played = played.get(k).copied().unwrap_or(false);
        if !played && !source.curves.is_empty() {
            let name = source.name.to_string_lossy();
            warnings.push(warning(
                &format!("mdl animation source {k} ({name:?})"),
                format!(
                    "{} curves, played by no clip; not exported",
                    source.curves.len()
                ),
            ));
        }
    }
    Ok(())
}

/// A bone's transform as stored: 16 matrix floats (version 1) or translation, rotation and
/// scale (version 2). The layout of `mdl_transform`, which `to_mdl::base` compares against.
pub(crate) fn transform_floats(t: &mdl::BoneTransform) -> Vec<f32> {
    match t {
        mdl::BoneTransform::Matrix(m) => m.0.to_vec(),
        mdl::BoneTransform::Trs {
            translation: t,
            rotation: r,
            scaling: s,
        } => vec![t.x, t.y, t.z, r.x, r.y, r.z, r.w, s.x, s.y, s.z],
    }
}

/// What a bone's node cannot say in glTF terms, for `to_mdl`: the raw rotation order and the
/// transform exactly as stored (base64 of the f32 bits: 16 matrix floats in version 1,
/// translation, rotation and scale in version 2), used back while the node still agrees.
fn bone_extras(bone: &mdl::Bone) -> Map<String, serde_json::Value> {
    let raw = transform_floats(&bone.transform);
    let mut extras = Map::new();
    extras.insert("mdl_rotation_order".into(), json!(bone.rotation_order.0));
    extras.insert(
        "mdl_transform".into(),
        Value::String(raw64::encode_f32(&raw)),
    );
    if !bone.name.is_well_formed() {
        // The node's name has U+FFFD for the unpaired surrogates; the units come back.
        extras.insert("mdl_name".into(), units_text(&bone.name));
    }
    extras
}

/// The whole animation table as stored (scene `extras.mdl_animation`): every source with its
/// raw curves (targets as text, keys as base64 of their 28 bytes) and every clip, so that
/// curves glTF cannot carry (Bézier handles, raw interpolations, Euler angles, curves of
/// non-bones, unplayed sources) come back exactly while the animations are unedited.
fn raw_animation(doc: &mdl::Mdl) -> serde_json::Value {
    let sources: Vec<serde_json::Value> = doc
        .animation_sources
        .iter()
        .map(|s| {
            let curves: Vec<serde_json::Value> = s
                .curves
                .iter()
                .map(|c| {
                    let keys: &[f32] = bytemuck::cast_slice(&c.keys);
                    object([
                        ("target", units_text(&c.target)),
                        ("keys", Value::String(raw64::encode_f32(keys))),
                    ])
                })
                .collect();
            object([
                ("name", units_text(&s.name)),
                ("curves", Value::Array(curves)),
            ])
        })
        .collect();
    let clips: Vec<serde_json::Value> = doc
        .clips
        .iter()
        .map(|c| {
            object([
                ("name", units_text(&c.name)),
                ("source", json!(c.source_index)),
            ])
        })
        .collect();
    object([
        ("sources", Value::Array(sources)),
        ("clips", Value::Array(clips)),
    ])
}

/// A string's UTF-16 units as JSON: the text when well-formed, else the list of units.
pub(crate) fn units_text(s: &mdl::MdlString) -> serde_json::Value {
    match s.to_string_strict() {
        Some(t) => json!(t),
        None => json!(s.units),
    }
}

/// The axis order of a raw rotation order, and a warning when it is not a plain Euler order.
pub(super) fn rotation_order(raw: i32) -> (Order, Option<String>) {
    match raw {
        11 => (Order::Euler([0, 2, 1]), None),
        12 => (Order::Euler([0, 1, 2]), None),
        13 => (Order::Euler([2, 0, 1]), None),
        14 => (
            Order::Euler([2, 1, 0]),
            Some(
                "rotation order 14 (ZYX) is miscomputed by the engine (Rz·Ry·Rz); the intended \
                 Z, then Y, then X is used"
                    .into(),
            ),
        ),
        15 => (Order::Euler([1, 0, 2]), None),
        16 => (Order::Euler([1, 2, 0]), None),
        10 => (
            Order::Quaternion,
            Some(
                "rotation order 10 (quaternion): the values are read as a quaternion x, y, z, w \
                 (the engine also converts them from degrees)"
                    .into(),
            ),
        ),
        18 => (
            Order::AxisAngle,
            Some(
                "rotation order 18 (axis-angle): read as axis x, y, z and angle w in degrees \
                 (the engine swizzles the axis to (x, z, -y))"
                    .into(),
            ),
        ),
        0 => (
            Order::Euler([0, 1, 2]),
            Some(
                "rotation order 0 (FBX SphericXYZ, unset; the engine gives an identity) read \
                 as XYZ"
                    .into(),
            ),
        ),
        other => (
            Order::Euler([0, 1, 2]),
            Some(format!("unknown rotation order {other}; read as XYZ")),
        ),
    }
}

pub(super) fn rotation_quat(r: [f32; 4], order: Order) -> [f32; 4] {
    match order {
        Order::Euler(o) => euler_to_quat([r[0], r[1], r[2]].map(f32::to_radians), o),
        Order::Quaternion => normalize_quat(r),
        Order::AxisAngle => match normalize3([r[0], r[1], r[2]]) {
            Some(axis) => {
                let (s, c) = (r[3].to_radians() * 0.5).sin_cos();
                normalize_quat([axis[0] * s, axis[1] * s, axis[2] * s, c])
            }
            None => [0.0, 0.0, 0.0, 1.0],
        },
    }
}

pub(super) fn bone_transform(
    i: usize,
    bone: &mdl::Bone,
    order: Order,
    animated: &[bool],
    tally: &mut BoneTally,
) -> (Transform, Rest) {
    let finite3 = |v: [f32; 3], d: f32| v.map(|x| if x.is_finite() { x } else { d });
    let euler_of = |q: [f32; 4]| match order {
        Order::Euler(o) => quat_to_euler(q, o).map(f32::to_degrees),
        _ => quat_to_euler(q, [0, 1, 2]).map(f32::to_degrees),
    };
    match bone.transform {
        mdl::BoneTransform::Matrix(m) => {
            let m = transpose(m.0);
            let (t, q, s, err) = decompose(m);
            let rest = |t, q, s| Rest {
                translation: t,
                euler_deg: euler_of(q),
                scale: s,
                order,
            };
            if err <= DECOMPOSE_TOLERANCE {
                let tr = Transform::Trs {
                    translation: t,
                    rotation: q,
                    scale: s,
                };
                (tr, rest(t, q, s))
            } else if !err.is_finite() {
                tally.add(
                    "non-finite matrix".into(),
                    format!("mdl bone {i}"),
                    "non-finite local matrix; identity used".into(),
                );
                (
                    Transform::default(),
                    rest([0.0; 3], [0.0, 0.0, 0.0, 1.0], [1.0; 3]),
                )
            } else if animated.get(i).copied().unwrap_or(false) {
                tally.add(
                    "not TRS".into(),
                    format!("mdl bone {i}"),
                    format!(
                        "local matrix is not translation·rotation·scale (error {err:e}); \
                     the nearest TRS is used because the bone is animated"
                    ),
                );
                let tr = Transform::Trs {
                    translation: t,
                    rotation: q,
                    scale: s,
                };
                (tr, rest(t, q, s))
            } else {
                (Transform::Matrix(m), rest(t, q, s))
            }
        }
        mdl::BoneTransform::Trs {
            translation,
            rotation,
            scaling,
        } => {
            // The curves are converted relative to this rest pose, so it must be finite here
            // (validation repairing the node later would leave the keys on another rest).
            let (t0, s0, r0): ([f32; 3], [f32; 3], [f32; 4]) =
                (translation.into(), scaling.into(), rotation.into());
            if !t0.iter().chain(&s0).chain(&r0).all(|x| x.is_finite()) {
                tally.add(
                    "non-finite TRS".into(),
                    format!("mdl bone {i}"),
                    "non-finite translation, rotation or scale components replaced by the \
                     identity's"
                        .into(),
                );
            }
            let t = finite3(t0, 0.0);
            let s = finite3(s0, 1.0);
            let r = r0.map(|x| if x.is_finite() { x } else { 0.0 });
            let q = rotation_quat(r, order);
            let euler_deg = match order {
                Order::Euler(_) => [r[0], r[1], r[2]],
                _ => euler_of(q),
            };
            (
                Transform::Trs {
                    translation: t,
                    rotation: q,
                    scale: s,
                },
                Rest {
                    translation: t,
                    euler_deg,
                    scale: s,
                    order,
                },
            )
        }
    }
}

fn convert_material(
    mi: usize,
    k: usize,
    m: &mdl::Material,
    warnings: &mut Vec<SceneWarning>,
) -> Material {
    let path = |s: &mdl::MdlString| Some(s.to_string_lossy()).filter(|s| !s.is_empty());
    let mut out = Material {
        name: format!("mesh{mi}_material{k}"),
        ..Material::default()
    };
    match m {
        mdl::Material::External { path: p } => {
            let p = p.to_string_lossy();
            warnings.push(warning(
                &format!("mdl mesh {mi} material {k}"),
                format!(
                    "external material file {p:?} is not read; a default \
                 material is used (path in extras.external_material)"
                ),
            ));
            out.extras.insert("external_material".into(), json!(p));
        }
        mdl::Material::Internal {
            raw_type,
            color,
            normal,
            metalness,
        } => {
            out.color_texture = path(color);
            out.normal_texture = path(normal);
            if let Some(p) = path(metalness) {
                out.extras.insert("metalness_texture".into(), json!(p));
            }
            if *raw_type != mdl::Material::INTERNAL {
                out.extras
                    .insert("mdl_material_type".into(), json!(raw_type));
            }
        }
    }
    out
}

/// Sorted, finite keys of one curve (`problems` counts what was dropped or reordered).
fn prepare(
    keys: &[mdl::Keyframe],
    problems: &mut usize,
    unknown: &mut usize,
) -> Vec<mdl::Keyframe> {
    let mut out: Vec<mdl::Keyframe> = keys
        .iter()
        .filter(|k| k.time.is_finite() && k.value.is_finite())
        .copied()
        .collect();
    *problems += keys.len() - out.len();
    if out
        .windows(2)
        .any(|w| matches!(w, [a, b] if a.time > b.time))
    {
        *problems += 1;
        out.sort_by(|a, b| a.time.total_cmp(&b.time));
    }
    let before = out.len();
    out.dedup_by(|b, a| a.time == b.time);
    *problems += before - out.len();
    *unknown += out.iter().filter(|k| !k.interpolation.is_known()).count();
    out
}

/// The curve's value at `t` (frames), with the tool's interpolation meaning.
fn evaluate(keys: &[mdl::Keyframe], t: f32) -> Option<f32> {
    let first = keys.first()?;
    if t <= first.time {
        return Some(first.value);
    }
    // The first key after `t` (keys are sorted by time): binary search.
    let next = keys.partition_point(|k| k.time <= t);
    let (Some(&k0), Some(&k1)) = (keys.get(next.wrapping_sub(1)), keys.get(next)) else {
        return keys.last().map(|k| k.value);
    };
    let span = k1.time - k0.time;
    if span <= 0.0 {
        return Some(k1.value);
    }
    Some(match k0.interpolation {
        mdl::Interpolation::CONSTANT => k0.value,
        mdl::Interpolation::CUBIC => {
            let x1 = k0.right_handle[0].clamp(k0.time, k1.time);
            let x2 = k1.left_handle[0].clamp(k0.time, k1.time);
            let bez = |a: f32, b: f32, c: f32, d: f32, u: f32| {
                let v = 1.0 - u;
                v * v * v * a + 3.0 * v * v * u * b + 3.0 * v * u * u * c + u * u * u * d
            };
            let (mut lo, mut hi) = (0.0f32, 1.0f32);
            for _ in 0..40 {
                let mid = 0.5 * (lo + hi);
                if bez(k0.time, x1, x2, k1.time, mid) < t {
                    lo = mid;
                } else {
                    hi = mid;
                }
            }
            let u = 0.5 * (lo + hi);
            let y = bez(k0.value, k0.right_handle[1], k1.left_handle[1], k1.value, u);
            if y.is_finite() {
                y
            } else {
                k0.value + (k1.value - k0.value) * (t - k0.time) / span
            }
        }
        _ => k0.value + (k1.value - k0.value) * (t - k0.time) / span,
    })
}

/// Channels of one animation source.
pub(super) fn source_channels(
    c: usize,
    source: &mdl::AnimationSource,
    cx: &SourceContext<'_>,
    allowance: &mut SampleAllowance,
    tally: &mut CurveTally,
) -> Vec<Channel> {
    let here = format!("mdl clip {c} source {:?}", source.name.to_string_lossy());
    let groups = group_curves(source, cx, tally, &here);
    let mut dropped = Dropped::default();
    let mut channels = Vec::new();
    for (&(bone, ch), curves) in &groups {
        let Some(rest) = cx.rests.get(bone) else {
            continue;
        };
        let channel = group_channel((bone, ch), curves, rest, cx.fps, allowance, &mut dropped);
        channels.extend(channel);
    }
    let Dropped {
        negative,
        w_ignored,
        rot_skipped,
    } = dropped;
    tally.add(CurveIssue::BeforeZero, &here, negative, negative > 0);
    tally.add(CurveIssue::WIgnored, &here, w_ignored, w_ignored > 0);
    tally.add(
        CurveIssue::RotationSkipped,
        &here,
        rot_skipped,
        rot_skipped > 0,
    );
    channels
}

/// A source's curves by (bone, channel: 0 position, 1 rotation, 2 scale), each group's curves
/// by axis x, y, z, w.
type CurveGroups = BTreeMap<(usize, u8), [Option<Vec<mdl::Keyframe>>; 4]>;

/// The curves of `source` (at `here`) by bone and channel, their keys prepared; what is left
/// out (curves of no bone, malformed targets, duplicates, key problems) goes to `tally`.
fn group_curves(
    source: &mdl::AnimationSource,
    cx: &SourceContext<'_>,
    tally: &mut CurveTally,
    here: &str,
) -> CurveGroups {
    let mut groups = CurveGroups::new();
    let mut missing: Vec<String> = Vec::new();
    let mut missing_set: HashSet<String> = HashSet::new();
    let mut malformed = 0usize;
    let mut duplicates = 0usize;
    let (mut problems, mut unknown) = (0usize, 0usize);
    for curve in &source.curves {
        let Some(target) = curve.parse_target() else {
            malformed += 1;
            continue;
        };
        let Some(&bone) = cx.by_name.get(target.node.as_str()) else {
            if missing_set.insert(target.node.clone()) {
                missing.push(target.node.clone());
            }
            continue;
        };
        let ch = match target.channel {
            mdl::Channel::Position => 0u8,
            mdl::Channel::Rotation => 1,
            mdl::Channel::Scale => 2,
        };
        let axis = match target.axis {
            mdl::Axis::X => 0,
            mdl::Axis::Y => 1,
            mdl::Axis::Z => 2,
            mdl::Axis::W => 3,
        };
        let slot = groups.entry((bone, ch)).or_default();
        if let Some(s) = slot.get_mut(axis) {
            if s.is_some() {
                duplicates += 1;
            } else {
                *s = Some(prepare(&curve.keys, &mut problems, &mut unknown));
            }
        }
    }
    let in_source = !missing.is_empty();
    let before = tally.not_bone_names.len();
    for node in missing {
        if tally.not_bones.insert(node.clone()) {
            tally.not_bone_names.push(node);
        }
    }
    let new = tally.not_bone_names.len() - before;
    tally.add(CurveIssue::NotBone, here, new, in_source);
    tally.add(CurveIssue::Malformed, here, malformed, malformed > 0);
    tally.add(CurveIssue::Duplicate, here, duplicates, duplicates > 0);
    tally.add(CurveIssue::KeyProblem, here, problems, problems > 0);
    tally.add(CurveIssue::UnknownInterpolation, here, unknown, unknown > 0);
    groups
}

/// What [`group_channel`] drops or changes, counted over a source for [`CurveTally`].
#[derive(Default)]
struct Dropped {
    /// Channels whose first sample is before frame 0 (clamped to 0).
    negative: usize,
    /// Groups with a `.w` curve (ignored: only quaternion and axis-angle bones use it).
    w_ignored: usize,
    /// Rotation groups of quaternion or axis-angle bones (not converted).
    rot_skipped: usize,
}

/// The channel of one (bone, channel) group, sampled from its x, y, z curves (a missing one
/// holds the rest value); `None` when it has no keys or cannot be converted.
fn group_channel(
    (bone, ch): (usize, u8),
    curves: &[Option<Vec<mdl::Keyframe>>; 4],
    rest: &Rest,
    fps: f32,
    allowance: &mut SampleAllowance,
    dropped: &mut Dropped,
) -> Option<Channel> {
    let [cx, cy, cz, cw] = curves;
    if cw.is_some() {
        dropped.w_ignored += 1;
    }
    let xyz = [cx.as_deref(), cy.as_deref(), cz.as_deref()];
    if xyz.iter().all(|c| c.is_none_or(|k| k.is_empty())) {
        return None;
    }
    if ch == 1 && !matches!(rest.order, Order::Euler(_)) {
        dropped.rot_skipped += 1;
        return None;
    }
    let (frames, step) = sample_times(&xyz, ch == 1, allowance);
    let mut times: Vec<f32> = Vec::with_capacity(frames.len());
    let mut kept: Vec<f32> = Vec::with_capacity(frames.len());
    dropped.negative += usize::from(frames.first().is_some_and(|&f| f < 0.0));
    for f in frames {
        let f = if f < 0.0 { 0.0 } else { f };
        let t = f / fps;
        if times.last().is_none_or(|&l| t > l) {
            times.push(t);
            kept.push(f);
        }
    }
    let mut values = sampled_values(ch, &xyz, rest, &kept);
    let path = match ch {
        0 => ChannelPath::Translation,
        1 => {
            make_quats_continuous(&mut values);
            ChannelPath::Rotation
        }
        _ => ChannelPath::Scale,
    };
    if times.is_empty() {
        return None;
    }
    Some(Channel {
        node: bone,
        path,
        interpolation: if step {
            Interpolation::Step
        } else {
            Interpolation::Linear
        },
        times: times.into(),
        values: values.into(),
    })
}

/// The values of channel `ch` at each of the `frames`: x, y, z (a missing curve holds the rest
/// value), a rotation's Euler angles as a quaternion.
fn sampled_values(
    ch: u8,
    xyz: &[Option<&[mdl::Keyframe]>; 3],
    rest: &Rest,
    frames: &[f32],
) -> Vec<f32> {
    let rest_v = match ch {
        0 => rest.translation,
        1 => rest.euler_deg,
        _ => rest.scale,
    };
    let comp = |k: usize, f: f32| {
        xyz.get(k)
            .copied()
            .flatten()
            .and_then(|keys| evaluate(keys, f))
            .unwrap_or(rest_v.get(k).copied().unwrap_or(0.0))
    };
    let mut values = Vec::with_capacity(frames.len() * 4);
    for &f in frames {
        let v = [comp(0, f), comp(1, f), comp(2, f)];
        if ch == 1 {
            if let Order::Euler(o) = rest.order {
                values.extend(euler_to_quat(v.map(f32::to_radians), o));
            }
        } else {
            values.extend(v);
        }
    }
    values
}

/// One kind of curve problem [`source_channels`] reports.
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum CurveIssue {
    NotBone,
    Malformed,
    Duplicate,
    KeyProblem,
    UnknownInterpolation,
    BeforeZero,
    WIgnored,
    RotationSkipped,
}

impl CurveIssue {
    /// What a count of this issue is, after the number.
    fn what(self) -> &'static str {
        match self {
            Self::NotBone => "nodes that are not bones have curves; skipped",
            Self::Malformed => "curves with a malformed target skipped",
            Self::Duplicate => "curves repeat a bone component; the first is used",
            Self::KeyProblem => "key problems fixed (non-finite, out of order or repeated times)",
            Self::UnknownInterpolation => {
                "keys with an unknown interpolation value interpolated linearly"
            }
            Self::BeforeZero => {
                "channels with keys before time 0 clamped to 0 (glTF times start at 0)"
            }
            Self::WIgnored => "'.w' curves ignored (only quaternion/axis-angle bones use w)",
            Self::RotationSkipped => "quaternion/axis-angle bones' rotation curves not converted",
        }
    }
}

/// The bone problems (rotation orders, invalid parents, matrices), one warning per kind rather
/// than one per bone: a rig of a hundred bones with the same order says it once.
#[derive(Default)]
pub(super) struct BoneTally {
    /// Per kind, in the order first seen: its key, the first bone's place and message, and
    /// how many bones had it.
    seen: Vec<(String, String, String, usize)>,
}

impl BoneTally {
    /// A problem of kind `key` at bone `place`, saying `message`.
    fn add(&mut self, key: String, place: String, message: String) {
        match self.seen.iter_mut().find(|e| e.0 == key) {
            Some(e) => e.3 += 1,
            None => self.seen.push((key, place, message, 1)),
        }
    }

    /// One warning per kind: the bone's own when only one bone has it, else a counted one at
    /// the first bone, with its message.
    fn report(&self, warnings: &mut Vec<SceneWarning>) {
        for (_, place, message, count) in &self.seen {
            warnings.push(match count {
                1 => warning(place, message.as_str()),
                n => counted(place, *n, &format!("bones (this is the first): {message}")),
            });
        }
    }
}

/// The curve problems of every animation source, reported once per kind (a count, the first
/// source it was seen in and how many sources) rather than once per source: a file with a
/// hundred clips of the same rig would otherwise say the same thing a hundred times.
#[derive(Default)]
pub(super) struct CurveTally {
    /// Per kind: the total count, the first source's place and how many sources had it.
    seen: BTreeMap<CurveIssue, (usize, String, usize)>,
    /// Nodes that are not bones, each once, in the order first seen.
    not_bones: HashSet<String>,
    not_bone_names: Vec<String>,
}

impl CurveTally {
    /// `count` problems of `issue` in the source at `here` (for [`CurveIssue::NotBone`], the
    /// nodes not seen in an earlier source, `in_source` whether it had any at all).
    fn add(&mut self, issue: CurveIssue, here: &str, count: usize, in_source: bool) {
        match self.seen.get_mut(&issue) {
            Some(e) => {
                e.0 += count;
                e.2 += usize::from(in_source);
            }
            None if count > 0 => {
                self.seen.insert(issue, (count, here.to_owned(), 1));
            }
            None => {}
        }
    }

    /// One counted warning per kind.
    fn report(&self, warnings: &mut Vec<SceneWarning>) {
        for (&issue, (count, first, sources)) in &self.seen {
            let mut what = issue.what().to_owned();
            if issue == CurveIssue::NotBone {
                what = format!("{what}: {}", self.not_bone_names.join(", "));
            }
            if *sources > 1 {
                what = format!("{what} (in {sources} animation sources; this is the first)");
            }
            warnings.push(counted(first, *count, &what));
        }
    }
}

/// Most samples one channel gets: the keys themselves always, plus in-between samples (cubic
/// segments, large rotations, constant holds) up to this total. 100 000 samples is about 28
/// minutes of animation at 60 fps.
const MAX_SAMPLES_PER_CHANNEL: usize = 100_000;
/// Most samples of all channels of a file together (keys beyond it are still kept): 2 000 000
/// samples hold at most 40 MB of times and values.
pub(super) const MAX_SAMPLES_PER_FILE: usize = 2_000_000;

/// What is left of [`MAX_SAMPLES_PER_FILE`], and how many channels were thinned.
pub(super) struct SampleAllowance {
    pub(super) left: usize,
    pub(super) thinned: usize,
}

/// What [`source_channels`] looks up.
pub(super) struct SourceContext<'a> {
    pub(super) by_name: &'a HashMap<&'a str, usize>,
    pub(super) rests: &'a [Rest],
    pub(super) fps: f32,
}

/// In-between samples of the segment `k0 → k1` (before any thinning): `(hold, steps)`, where
/// `hold` asks for one sample just before `k1` (a constant segment) and `steps > 1` for
/// `steps - 1` evenly spaced samples.
fn segment_samples(
    k0: &mdl::Keyframe,
    k1: &mdl::Keyframe,
    rotation: bool,
    all_constant: bool,
) -> (bool, usize) {
    let span = k1.time - k0.time;
    if all_constant || span.is_nan() || span <= 0.0 {
        return (false, 0);
    }
    match k0.interpolation {
        mdl::Interpolation::CONSTANT => (true, 0),
        mdl::Interpolation::CUBIC => (false, (span.ceil() as usize).clamp(4, 10_000)),
        _ if rotation => (
            false,
            (((k1.value - k0.value).abs() / 45.0).ceil() as usize).min(10_000),
        ),
        _ => (false, 0),
    }
}

/// Sample times (frames, sorted, distinct) for the component curves of one channel, and
/// whether the channel can be STEP (every key constant). See the module docs. The in-between
/// samples are thinned evenly (every key kept) when the channel would pass
/// [`MAX_SAMPLES_PER_CHANNEL`] or the file's remaining `allowance`.
fn sample_times(
    curves: &[Option<&[mdl::Keyframe]>; 3],
    rotation: bool,
    allowance: &mut SampleAllowance,
) -> (Vec<f32>, bool) {
    let all_constant = curves
        .iter()
        .flatten()
        .flat_map(|k| k.iter())
        .all(|k| k.interpolation == mdl::Interpolation::CONSTANT);
    let segments = || {
        curves.iter().flatten().flat_map(|keys| {
            keys.windows(2).filter_map(|w| match w {
                [k0, k1] => Some((k0, k1, segment_samples(k0, k1, rotation, all_constant))),
                _ => None,
            })
        })
    };
    // Count first, allocate once: keys plus the planned in-between samples.
    let keys: usize = curves.iter().flatten().map(|k| k.len()).sum();
    let planned: usize = segments()
        .map(|(_, _, (hold, steps))| usize::from(hold) + steps.saturating_sub(1))
        .fold(0, usize::saturating_add);
    let room = MAX_SAMPLES_PER_CHANNEL
        .min(allowance.left)
        .saturating_sub(keys);
    let thin = planned > room;
    if thin {
        allowance.thinned += 1;
    }
    // Scale a segment's sample count by room / planned (exact in u128).
    let scale = |n: usize| -> usize {
        if thin {
            (n as u128 * room as u128 / planned.max(1) as u128) as usize
        } else {
            n
        }
    };
    let mut times: Vec<f32> = Vec::with_capacity(keys.saturating_add(planned.min(room)));
    for keys in curves.iter().flatten() {
        times.extend(keys.iter().map(|k| k.time));
    }
    for (k0, k1, (hold, steps)) in segments() {
        let span = k1.time - k0.time;
        if hold && scale(1) == 1 {
            times.push(k1.time - (0.01f32).min(span * 0.25));
        }
        let steps = if steps > 1 {
            scale(steps - 1) + 1
        } else {
            steps
        };
        for s in 1..steps {
            times.push(k0.time + span * s as f32 / steps as f32);
        }
    }
    times.sort_by(f32::total_cmp);
    times.dedup();
    allowance.left = allowance.left.saturating_sub(times.len());
    (times, all_constant)
}

/// The one place this module makes a warning: `{place}: {message}`.
fn warning(place: &str, message: impl Into<String>) -> SceneWarning {
    SceneWarning::other(place, message)
}

/// A known warning (a note: what the conversion always does with a part glTF has no place for,
/// or the tick-rate guess), at the format's name (`mdl`), with the rest of its message.
fn note(known: Known, rest: impl std::fmt::Display) -> SceneWarning {
    SceneWarning::known(known, rest)
}

/// The one place this module makes a counted warning: `{place}: {count} {what}`.
fn counted(place: &str, count: usize, what: &str) -> SceneWarning {
    SceneWarning::counted(place, count as u64, what)
}

/// An MDL vertex's four connector indices and weight bytes as the scene's joints and weights
/// (connectors mapped through `conn_to_joint`, bytes / 255, normalised by validation's one
/// normaliser in the file's slot order); shared by the export and by `to_mdl`'s check that a
/// vertex converts back to its own bytes.
pub(crate) fn influences(
    bone_indices: [u8; 4],
    weights: [u8; 4],
    conn_to_joint: &[u32],
    joint_count: usize,
) -> ([u16; 4], [f32; 4], crate::scene::WeightFixes) {
    let joint = |i: u8| {
        conn_to_joint
            .get(usize::from(i))
            .copied()
            .unwrap_or(u32::MAX)
    };
    normalize_weights(
        bone_indices
            .map(joint)
            .into_iter()
            .zip(weights.map(|b| f32::from(b) / 255.0)),
        joint_count,
        SlotOrder::Source,
    )
}
