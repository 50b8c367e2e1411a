//! [`ValidScene`] → Altseed `.mdl`: the mirror of [`from_mdl`](super::from_mdl).
//!
//! MDL and glTF share their axes (right-handed, Y up) and UV origin, so what `from_mdl` undid
//! is only: the winding (faces `(a, b, c)` back to `(a, c, b)`), the matrix layout (transposed
//! back to rows), Euler angles in degrees in the bone's rotation order, and key times in frames
//! (seconds × [`ImportOptions::mdl_fps`]).
//!
//! * **Version:** [`ImportOptions::mdl_version`], else the base's, else the export's
//!   (`extras.mdl_version`), else 2.
//! * **Nodes → bones**, every node but the ones the export made to hold a divided mesh
//!   (`extras.mdl_mesh_node`), in node order when parents already come first, else in
//!   depth-first pre-order (the format requires parents first). Version 2: translation, Euler
//!   degrees in the bone's order (`extras.mdl_rotation_order`, else 12 = XYZ), scale; version
//!   1: the local matrix. The stored transform (`extras.mdl_transform`) is used while it still
//!   gives the node's transform.
//! * **Meshes:** scene meshes the export made from one MDL mesh (`extras.mdl_mesh`) become the
//!   divided meshes of one MDL mesh again, sharing its materials (the scene materials with the
//!   same `extras.mdl_mesh`); any other mesh is an MDL mesh of its own. One material run per
//!   primitive (the export's runs, `extras.mdl_runs`, while they agree, so empty runs come
//!   back). Skin joints become bone connectors (inverse bind matrices transposed back); an
//!   unskinned mesh on a bone gets that bone with an identity offset, as FBX2MDL writes. A
//!   skin of more than [`MAX_CONNECTORS`] joints is divided. Vertices: the export's raw
//!   vertices (`extras.mdl_vertices`: binormals, original bone indices, weight bytes) are used
//!   one by one while they agree with the scene's; otherwise binormals come from the tangents,
//!   weights are rounded to bytes summing to 255.
//! * **Materials:** external (type 1) when `extras.external_material` says so and the
//!   material has no texture, else internal with the colour, normal and metalness
//!   (`extras.metalness_texture`) paths; the raw type from `extras.mdl_material_type`.
//! * **Animations:** the export's whole animation table (`extras.mdl_animation`) while every
//!   animation still is what that table converts to; otherwise one source and one clip per
//!   animation, with one curve per component (see [`anim`]).
//!
//! With a `base` (the MDL the scene was exported from), every rebuilt part equal in value to
//! the base's part of the same index is the base's part, bytes and all (see [`base`]).

use super::{
    compose, transpose, ImportOptions, Imported, Scene, SceneWarning, Transform, ValidScene,
};
use crate::scene::lenient;
use crate::{Error, Format};
use mdl_format as mdl;
use serde_json::{Map, Value};

mod anim;
mod base;
mod mesh;

#[cfg(test)]
pub(crate) use mesh::needs_raw_vertices;
pub(crate) use mesh::{derived_influence, rigid_influence, Quantized};

/// Bone connectors per divided mesh: the engine's renderer uploads at most 32 bone matrices
/// per draw and ignores the connectors after the 32nd (mdl.md §3.3 and §5 "Connector limit",
/// from Altseed's `asd.RenderedModelObject3D.cpp`; FBX2MDL divides meshes at this number).
pub const MAX_CONNECTORS: usize = 32;

/// Converts a validated scene to an MDL document; see the module docs.
pub(crate) fn convert(
    scene: &ValidScene,
    base: Option<&mdl::Mdl>,
    options: &ImportOptions,
) -> Result<Imported<mdl::Mdl>, Error> {
    convert_scene(scene, mesh::Taken::default(), base, options)
}

/// [`convert`] consuming the scene: the triangle lists of the meshes one node draws are
/// taken out of it, so that their faces are made in place (a triangle list and the faces
/// have the same 12 bytes a triangle; fresh faces were a quarter of a large model's import's
/// page faults). The rest of the conversion reads the scene as it was validated: only the
/// lists moved, and the meshes' conversion reads them from [`mesh::Taken`].
pub(crate) fn convert_owned(
    scene: ValidScene,
    base: Option<&mdl::Mdl>,
    options: &ImportOptions,
) -> Result<Imported<mdl::Mdl>, Error> {
    let mut scene = scene.into_inner();
    let taken = mesh::Taken::from_scene(&mut scene);
    convert_scene(&scene, taken, base, options)
}

/// [`convert`] of a validated scene whose index lists `taken` holds (or the scene itself).
fn convert_scene(
    scene: &Scene,
    taken: mesh::Taken,
    base: Option<&mdl::Mdl>,
    options: &ImportOptions,
) -> Result<Imported<mdl::Mdl>, Error> {
    let mut cx = Ctx {
        options,
        warnings: Vec::new(),
    };
    let version = choose_version(scene, base, options)?;
    let bones = build_bones(scene, version, &mut cx);
    let meshes = mesh::build(scene, taken, &bones, &mut cx)?;
    let (animation_sources, clips) = anim::build(scene, &bones, &mut cx)?;
    let mut doc = mdl::Mdl {
        version,
        bones: bones.list,
        meshes,
        animation_sources,
        clips,
    };
    if let Some(base) = base {
        base::apply(&mut doc, base, &mut cx);
    }
    Ok(Imported {
        document: doc,
        warnings: cx.warnings,
    })
}

/// The conversion's options and warnings.
pub(super) struct Ctx<'a> {
    options: &'a ImportOptions,
    warnings: Vec<SceneWarning>,
}

impl Ctx<'_> {
    /// The one place this module makes a warning.
    fn warn(&mut self, place: &str, message: String) {
        self.warnings
            .push(SceneWarning::other(format!("mdl {place}"), message));
    }

    /// Frames per second of key times, checked.
    fn fps(&mut self) -> f32 {
        let fps = self.options.mdl_fps;
        if fps.is_finite() && fps > 0.0 {
            fps
        } else {
            self.warn("animations", format!("invalid frame rate {fps}; using 60"));
            60.0
        }
    }
}

fn choose_version(
    scene: &Scene,
    base: Option<&mdl::Mdl>,
    options: &ImportOptions,
) -> Result<i32, Error> {
    if let Some(v) = options.mdl_version {
        return match v {
            1 | 2 => Ok(v as i32),
            other => Err(Error::FormatLimit {
                format: Format::Mdl,
                place: "mdl file".into(),
                what: format!("version {other} (only 1 and 2 exist)"),
            }),
        };
    }
    if let Some(b) = base.filter(|b| matches!(b.version, 1 | 2)) {
        return Ok(b.version);
    }
    Ok(scene
        .extras
        .get("mdl_version")
        .and_then(lenient::int)
        .filter(|v| matches!(v, 1 | 2))
        .map_or(2, |v| v as i32))
}

/// The bones made from the scene's nodes.
pub(super) struct Bones {
    /// The bones, parents first.
    pub(super) list: Vec<mdl::Bone>,
    /// The bone of each scene node (`None` for the export's mesh-holding nodes).
    pub(super) of_node: Vec<Option<usize>>,
}

/// True for the nodes the export added to hold a divided mesh.
fn is_mesh_node(extras: &Map<String, Value>) -> bool {
    extras.get("mdl_mesh_node").and_then(lenient::flag) == Some(true)
}

/// Equal within float rounding (relative 1e-5, absolute near 0), NaN equal to NaN.
pub(super) fn close(a: f32, b: f32) -> bool {
    near(a, b, 1e-5)
}

/// Equal within `tol`, relative (absolute below 1).
fn near(a: f32, b: f32, tol: f32) -> bool {
    a.to_bits() == b.to_bits()
        || (a - b).abs() <= tol * a.abs().max(b.abs()).max(1.0)
        || (a.is_nan() && b.is_nan())
}

/// How far a stored bone transform may be from the node's and still be the same: the
/// export's TRS decomposition of a version-1 matrix is accepted up to 1e-4
/// (`from_mdl::DECOMPOSE_TOLERANCE`), so composing it back may differ by about as much.
const BONE_TOLERANCE: f32 = 2e-4;

fn build_bones(scene: &Scene, version: i32, cx: &mut Ctx<'_>) -> Bones {
    let n = scene.nodes.len();
    // Each node's first parent (validation leaves a repeated child link to the writer).
    let mut parent: Vec<Option<usize>> = vec![None; n];
    for (p, node) in scene.nodes.iter().enumerate() {
        for &c in &node.children {
            if let Some(slot) = parent.get_mut(c).filter(|s| s.is_none() && c != p) {
                *slot = Some(p);
            }
        }
    }
    let is_bone: Vec<bool> = scene
        .nodes
        .iter()
        .map(|nd| !is_mesh_node(&nd.extras))
        .collect();
    // The nearest ancestor that is a bone (bounded: a cycle ends the walk).
    let bone_parent = |i: usize| -> Option<usize> {
        let mut at = parent.get(i).copied().flatten();
        let mut steps = 0;
        while let Some(p) = at {
            if is_bone.get(p).copied().unwrap_or(false) {
                return Some(p);
            }
            steps += 1;
            if steps > n {
                return None;
            }
            at = parent.get(p).copied().flatten();
        }
        None
    };
    let parents: Vec<Option<usize>> = (0..n).map(bone_parent).collect();
    let order = bone_order(&is_bone, &parents, cx);
    let mut of_node = vec![None; n];
    for (b, &node) in order.iter().enumerate() {
        if let Some(slot) = of_node.get_mut(node) {
            *slot = Some(b);
        }
    }
    let mut list = Vec::with_capacity(order.len());
    for &i in &order {
        let Some(node) = scene.nodes.get(i) else {
            continue;
        };
        let parent = parents
            .get(i)
            .copied()
            .flatten()
            .and_then(|p| of_node.get(p).copied().flatten())
            .filter(|&p| p < list.len())
            .map_or(-1, |p| p as i32);
        list.push(bone_of(i, node, parent, version, cx));
    }
    Bones { list, of_node }
}

/// Bone nodes, parents first: node order when it already is, else depth-first pre-order
/// (children in their lists' order); nodes in a parent cycle become roots, with a warning.
fn bone_order(is_bone: &[bool], parents: &[Option<usize>], cx: &mut Ctx<'_>) -> Vec<usize> {
    let bones: Vec<usize> = (0..is_bone.len())
        .filter(|&i| is_bone.get(i).copied().unwrap_or(false))
        .collect();
    if bones
        .iter()
        .all(|&i| parents.get(i).copied().flatten().is_none_or(|p| p < i))
    {
        return bones;
    }
    let mut out = Vec::with_capacity(bones.len());
    let mut seen = vec![false; is_bone.len()];
    // Children (bones) of each bone, in node order of their parents' lists.
    let mut kids: Vec<Vec<usize>> = vec![Vec::new(); is_bone.len()];
    for &b in &bones {
        if let Some(p) = parents.get(b).copied().flatten() {
            if let Some(k) = kids.get_mut(p) {
                k.push(b);
            }
        }
    }
    let roots: Vec<usize> = bones
        .iter()
        .copied()
        .filter(|&b| parents.get(b).copied().flatten().is_none())
        .collect();
    let visit = |start: usize, out: &mut Vec<usize>, seen: &mut Vec<bool>| {
        let mut stack = vec![start];
        while let Some(b) = stack.pop() {
            if seen.get(b).copied().unwrap_or(true) {
                continue;
            }
            if let Some(s) = seen.get_mut(b) {
                *s = true;
            }
            out.push(b);
            if let Some(k) = kids.get(b) {
                stack.extend(k.iter().rev());
            }
        }
    };
    for r in roots {
        visit(r, &mut out, &mut seen);
    }
    let mut cut = 0usize;
    for &b in &bones {
        if !seen.get(b).copied().unwrap_or(true) {
            cut += 1;
            visit(b, &mut out, &mut seen);
        }
    }
    if cut > 0 {
        cx.warn(
            "bones",
            format!("{cut} parent cycles cut (the first node of each made a root)"),
        );
    }
    out
}

/// The bone of node `i`; see the module docs.
fn bone_of(i: usize, node: &super::Node, parent: i32, version: i32, cx: &mut Ctx<'_>) -> mdl::Bone {
    let raw_order = node
        .extras
        .get("mdl_rotation_order")
        .and_then(lenient::int)
        .and_then(|v| i32::try_from(v).ok());
    let order = mdl::RotationOrder(raw_order.unwrap_or(mdl::RotationOrder::XYZ.0));
    let (kind, _) = super::from_mdl::rotation_order(order.0);
    let m = node.transform.to_matrix();
    let stored = node
        .extras
        .get("mdl_transform")
        .and_then(Value::as_str)
        .and_then(super::raw64::decode_f32);
    let agrees = |raw: &[f32]| -> Option<mdl::BoneTransform> {
        let (t, raw_m) = match *raw {
            [a, b, c, d, e, f, g, h, k, l] => {
                let t = mdl::BoneTransform::Trs {
                    translation: [a, b, c].into(),
                    rotation: [d, e, f, g].into(),
                    scaling: [h, k, l].into(),
                };
                let q = super::from_mdl::rotation_quat([d, e, f, g], kind);
                (t, compose([a, b, c], q, [h, k, l]))
            }
            _ => {
                let arr: [f32; 16] = raw.try_into().ok()?;
                (
                    mdl::BoneTransform::Matrix(mdl::Matrix44(arr)),
                    transpose(arr),
                )
            }
        };
        raw_m
            .iter()
            .zip(&m)
            .all(|(a, b)| near(*a, *b, BONE_TOLERANCE))
            .then_some(t)
    };
    let want_trs = version >= 2;
    let transform = match stored.as_deref().and_then(agrees) {
        Some(t @ mdl::BoneTransform::Trs { .. }) if want_trs => t,
        Some(t @ mdl::BoneTransform::Matrix(_)) if !want_trs => t,
        _ if want_trs => trs_of(&node.transform, kind, i, cx),
        _ => mdl::BoneTransform::Matrix(mdl::Matrix44(transpose(m))),
    };
    // The stored units of a name with unpaired surrogates, while the node keeps its text.
    let name = node
        .extras
        .get("mdl_name")
        .and_then(anim::parse_units)
        .filter(|u| u.to_string_lossy() == node.name)
        .unwrap_or_else(|| mdl::MdlString::new(&node.name));
    mdl::Bone {
        name,
        parent,
        rotation_order: order,
        transform,
    }
}

/// A version-2 transform from the node's: Euler degrees in the bone's order (the quaternion
/// itself for order 10, axis and angle for 18).
fn trs_of(
    t: &Transform,
    kind: super::from_mdl::Order,
    i: usize,
    cx: &mut Ctx<'_>,
) -> mdl::BoneTransform {
    use super::from_mdl::Order;
    let (tr, q, s, err) = t.to_trs();
    if let Some(err) = err.filter(|&e| e > 1e-4) {
        cx.warn(
            &format!("node {i}"),
            format!(
                "matrix is not translation·rotation·scale (error {err:e}); the nearest is \
                 written (version 2 bones are TRS)"
            ),
        );
    }
    let rotation = match kind {
        Order::Euler(o) => {
            let e = super::quat_to_euler(q, o).map(f32::to_degrees);
            [e[0], e[1], e[2], 0.0]
        }
        Order::Quaternion => q,
        Order::AxisAngle => {
            let w = q[3].clamp(-1.0, 1.0);
            let s = (1.0 - w * w).max(0.0).sqrt();
            let angle = (2.0 * w.acos()).to_degrees();
            if s < 1e-6 {
                [1.0, 0.0, 0.0, 0.0]
            } else {
                [q[0] / s, q[1] / s, q[2] / s, angle]
            }
        }
    };
    mdl::BoneTransform::Trs {
        translation: tr.into(),
        rotation: rotation.into(),
        scaling: s.into(),
    }
}
