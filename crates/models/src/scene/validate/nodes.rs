//! Node transforms: finite, rotations of unit length, and no matrix on an animated node (glTF
//! animates translation, rotation and scale only).

use super::{label, warn};
use crate::scene::{decompose, normalize_quat, Node, Scene, SceneWarning, Transform};
use std::collections::HashSet;

/// Repairs every node's transform. Runs after the animations are checked, so that `animated`
/// holds the nodes their channels target.
pub(super) fn transforms(
    scene: &mut Scene,
    animated: &HashSet<usize>,
    warnings: &mut Vec<SceneWarning>,
) {
    for (i, node) in scene.nodes.iter_mut().enumerate() {
        transform(i, node, animated.contains(&i), warnings);
    }
}

/// One node's transform. A matrix stays a matrix (the glTF writer writes it as the nearest TRS)
/// unless the node is animated or its TRS would not be finite: then it becomes that TRS here,
/// with the warning the writer would have given.
fn transform(i: usize, node: &mut Node, animated: bool, warnings: &mut Vec<SceneWarning>) {
    let place = label("node", i, &node.name);
    // The rotation as the writer would write it: unit length (the identity for a zero or
    // non-finite one), normalised once. For a rotation a converter made that is a
    // rounding-level change, not a warning of its own; one far from unit length is a repair.
    let (tr, q, s) = match node.transform {
        Transform::Trs {
            translation,
            rotation,
            scale,
        } => (translation, rotation, scale),
        Transform::Matrix(m) => {
            let (tr, q, s, err) = decompose(m);
            let finite = tr.iter().chain(&s).chain(&q).all(|v| v.is_finite());
            if finite && !animated {
                return;
            }
            if !matrix_is_trs(&m, err) {
                warn(warnings, place, not_trs_message(err));
            }
            // `decompose` gives a unit quaternion; the writer normalised it once more.
            (tr, normalize_quat(q), s)
        }
    };
    let (mut tr, mut s) = (tr, s);
    if tr.iter().chain(&s).chain(&q).any(|v| !v.is_finite()) {
        warn(
            warnings,
            place,
            "non-finite transform values replaced by the identity's".into(),
        );
        tr = tr.map(|v| if v.is_finite() { v } else { 0.0 });
        s = s.map(|v| if v.is_finite() { v } else { 1.0 });
    }
    let rotation = match node.transform {
        Transform::Trs { .. } => {
            if q.iter().all(|v| v.is_finite()) && super::animation::far_from_unit(q) {
                let length = q.iter().map(|&x| f64::from(x).powi(2)).sum::<f64>().sqrt();
                let message = format!("a rotation of length {length:.3e} normalised");
                warn(warnings, place, message);
            }
            normalize_quat(q)
        }
        Transform::Matrix(_) => q,
    };
    node.transform = Transform::Trs {
        translation: tr,
        rotation,
        scale: s,
    };
}

/// Whether `m` is a translation/rotation/scale, given the error `err` of its decomposition
/// (relative to its largest finite element).
pub(crate) fn matrix_is_trs(m: &[f32; 16], err: f32) -> bool {
    let magnitude = m
        .iter()
        .filter(|v| v.is_finite())
        .fold(1.0f32, |a, v| a.max(v.abs()));
    !(err.is_nan() || err > 1e-4 * magnitude)
}

/// The warning for a matrix written as its nearest TRS.
pub(crate) fn not_trs_message(err: f32) -> String {
    format!("its matrix is not a pure translation/rotation/scale (off by {err}); written as the nearest TRS")
}
