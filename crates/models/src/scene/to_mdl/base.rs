//! `--base`: each rebuilt part equal in value to the base's part of the same index is the
//! base's part, bytes and all (floats within [`close`]'s rounding, so the export's float
//! round trips do not count as edits); one warning lists what was taken.

use super::{close, Ctx};
use mdl_format as mdl;

pub(super) fn apply(doc: &mut mdl::Mdl, base: &mdl::Mdl, cx: &mut Ctx<'_>) {
    let mut taken = Vec::new();
    let bones = take(&mut doc.bones, &base.bones, bone_eq);
    if bones > 0 {
        taken.push(format!("{bones} bones"));
    }
    let meshes = take(&mut doc.meshes, &base.meshes, mesh_eq);
    if meshes > 0 {
        taken.push(format!("{meshes} meshes"));
    }
    let sources = take(
        &mut doc.animation_sources,
        &base.animation_sources,
        source_eq,
    );
    if sources > 0 {
        taken.push(format!("{sources} animation sources"));
    }
    if !taken.is_empty() {
        cx.warn(
            "file",
            format!(
                "parts equal to the base's within float rounding taken from the base, bytes \
                 and all: {}",
                taken.join(", ")
            ),
        );
    }
}

/// Replaces each part equal to the base's part of the same index by the base's; the count.
fn take<T: Clone>(parts: &mut [T], base: &[T], eq: fn(&T, &T) -> bool) -> usize {
    let mut n = 0;
    for (p, b) in parts.iter_mut().zip(base) {
        if eq(p, b) {
            *p = b.clone();
            n += 1;
        }
    }
    n
}

fn floats_eq(a: &[f32], b: &[f32]) -> bool {
    a.len() == b.len() && a.iter().zip(b).all(|(x, y)| close(*x, *y))
}

fn bone_eq(a: &mdl::Bone, b: &mdl::Bone) -> bool {
    a.name == b.name
        && a.parent == b.parent
        && a.rotation_order == b.rotation_order
        && std::mem::discriminant(&a.transform) == std::mem::discriminant(&b.transform)
        && floats_eq(
            &super::super::from_mdl::transform_floats(&a.transform),
            &super::super::from_mdl::transform_floats(&b.transform),
        )
}

fn mesh_eq(a: &mdl::Mesh, b: &mdl::Mesh) -> bool {
    a.materials == b.materials
        && a.divided.len() == b.divided.len()
        && a.divided.iter().zip(&b.divided).all(|(x, y)| {
            x.faces == y.faces
                && x.material_runs == y.material_runs
                && x.vertices.len() == y.vertices.len()
                && x.vertices.iter().zip(&y.vertices).all(|(p, q)| {
                    let fp: &[f32] = bytemuck::cast_slice(std::slice::from_ref(p));
                    let fq: &[f32] = bytemuck::cast_slice(std::slice::from_ref(q));
                    // The last four words are the byte groups: compared exactly.
                    fp.get(13..) == fq.get(13..)
                        && floats_eq(
                            fp.get(..13).unwrap_or_default(),
                            fq.get(..13).unwrap_or_default(),
                        )
                })
                && x.connectors.len() == y.connectors.len()
                && x.connectors.iter().zip(&y.connectors).all(|(p, q)| {
                    p.bone_index == q.bone_index && floats_eq(&p.offset.0, &q.offset.0)
                })
        })
}

fn source_eq(a: &mdl::AnimationSource, b: &mdl::AnimationSource) -> bool {
    a.name == b.name
        && a.curves.len() == b.curves.len()
        && a.curves.iter().zip(&b.curves).all(|(p, q)| {
            p.target == q.target
                && p.keys.len() == q.keys.len()
                && p.keys.iter().zip(&q.keys).all(|(k, l)| {
                    k.interpolation == l.interpolation
                        && floats_eq(
                            &[
                                k.time,
                                k.value,
                                k.left_handle[0],
                                k.left_handle[1],
                                k.right_handle[0],
                                k.right_handle[1],
                            ],
                            &[
                                l.time,
                                l.value,
                                l.left_handle[0],
                                l.left_handle[1],
                                l.right_handle[0],
                                l.right_handle[1],
                            ],
                        )
                })
        })
}
