//! `--base`: every part of the rebuilt document equal in value to the base's part of the same
//! name becomes the base's (raw name bytes, exact floats, index width). Equal in value: floats
//! within 1e-5 relative, normals within [`NORMAL_TOLERANCE`] and colour bytes within
//! [`COLOUR_STEPS`] (what Blender keeps of them); what the scene does not
//! carry (frames it lacks, OBBs, tangents, collision, render states, unknown chunks) comes
//! from the base. One warning lists what was taken.

use super::Ctx;
use crate::scene::weld::{COLOUR_STEPS, NORMAL_TOLERANCE};
use selene_smf as smf;
use std::collections::HashMap;

/// Relative tolerance under which a rebuilt float is the base's (glTF's TRS, normalised
/// normals and quaternions, seconds for ticks round within a few ulps).
const TOLERANCE: f32 = 1e-5;

fn close(a: f32, b: f32) -> bool {
    a.to_bits() == b.to_bits()
        || (a.is_nan() && b.is_nan())
        || (a - b).abs() <= TOLERANCE * a.abs().max(b.abs()).max(1.0)
}

fn colours_close(a: [u8; 4], b: [u8; 4]) -> bool {
    a.iter()
        .zip(&b)
        .all(|(x, y)| x.abs_diff(*y) <= COLOUR_STEPS)
}

fn normals_close<'a>(
    a: impl IntoIterator<Item = &'a f32>,
    b: impl IntoIterator<Item = &'a f32>,
) -> bool {
    pairwise(a, b, |x, y| {
        x.to_bits() == y.to_bits()
            || (x.is_nan() && y.is_nan())
            || (x - y).abs() <= NORMAL_TOLERANCE
    })
}

fn all_close<'a>(
    a: impl IntoIterator<Item = &'a f32>,
    b: impl IntoIterator<Item = &'a f32>,
) -> bool {
    pairwise(a, b, close)
}

/// As many values in `a` as in `b`, each pair `same`.
fn pairwise<'a>(
    a: impl IntoIterator<Item = &'a f32>,
    b: impl IntoIterator<Item = &'a f32>,
    same: impl Fn(f32, f32) -> bool,
) -> bool {
    let (a, b): (Vec<f32>, Vec<f32>) = (
        a.into_iter().copied().collect(),
        b.into_iter().copied().collect(),
    );
    a.len() == b.len() && a.iter().zip(&b).all(|(x, y)| same(*x, *y))
}

/// Index of each name's occurrences in `names`, to match parts by name in order.
struct ByName(HashMap<String, Vec<usize>>);

impl ByName {
    fn new<'a>(names: impl Iterator<Item = std::borrow::Cow<'a, str>>) -> Self {
        let mut map: HashMap<String, Vec<usize>> = HashMap::new();
        for (i, n) in names.enumerate() {
            map.entry(n.into_owned()).or_default().push(i);
        }
        for list in map.values_mut() {
            list.reverse();
        }
        Self(map)
    }

    /// The next unused part named `name`.
    fn take(&mut self, name: &str) -> Option<usize> {
        self.0.get_mut(name)?.pop()
    }
}

/// Keeps `base` in `slot` when `same` says the rebuilt value equals it.
fn keep<T: Clone>(slot: &mut T, base: &T, same: impl Fn(&T, &T) -> bool) {
    if same(slot, base) {
        *slot = base.clone();
    }
}

pub(super) fn apply(doc: &mut smf::Smf, base: &smf::Smf, ctx: &mut Ctx<'_>) {
    let mut taken: Vec<String> = Vec::new();
    frames(doc, base, &mut taken);
    let mut names = ByName::new(base.meshes.iter().map(|m| m.name.text()));
    for mesh in &mut doc.meshes {
        if let Some(b) = names
            .take(&mesh.name.text())
            .and_then(|i| base.meshes.get(i))
        {
            merge_mesh(mesh, b, &mut taken);
        }
    }
    let mut names = ByName::new(base.animation_sets.iter().map(|s| s.name.text()));
    let mut used = vec![false; base.animation_sets.len()];
    for set in &mut doc.animation_sets {
        let Some(i) = names.take(&set.name.text()) else {
            continue;
        };
        if let (Some(b), Some(u)) = (base.animation_sets.get(i), used.get_mut(i)) {
            *u = true;
            merge_set(set, b, &mut taken);
        }
    }
    for (b, _) in base.animation_sets.iter().zip(&used).filter(|(_, u)| !**u) {
        if b.animations.is_empty() {
            taken.push(format!("key-less animation set {:?}", b.name.text()));
            doc.animation_sets.push(b.clone());
        }
    }
    if doc.unknown.is_empty() && !base.unknown.is_empty() {
        doc.unknown = base.unknown.clone();
        taken.push(format!("{} top-level unknown chunk(s)", base.unknown.len()));
    }
    if !taken.is_empty() {
        ctx.warn(
            "smf",
            format!(
                "taken from the base (the scene does not carry them): {}",
                taken.join("; ")
            ),
        );
    }
}

/// Frames by name; base frames the scene lacks are appended under their parent (by name).
fn frames(doc: &mut smf::Smf, base: &smf::Smf, taken: &mut Vec<String>) {
    let mut names = ByName::new(base.frames.iter().map(|f| f.name.text()));
    let mut doc_of_base: Vec<Option<usize>> = vec![None; base.frames.len()];
    for (i, frame) in doc.frames.iter_mut().enumerate() {
        let Some(k) = names.take(&frame.name.text()) else {
            continue;
        };
        let Some(b) = base.frames.get(k) else {
            continue;
        };
        if let Some(slot) = doc_of_base.get_mut(k) {
            *slot = Some(i);
        }
        frame.name = b.name.clone();
        keep(&mut frame.transform, &b.transform, |x, y| all_close(x, y));
        merge_obb(&mut frame.obb, b.obb, "frame", &frame.name.text(), taken);
        if frame.unknown.is_empty() && !b.unknown.is_empty() {
            frame.unknown = b.unknown.clone();
            taken.push(format!("unknown chunks of frame {:?}", b.name.text()));
        }
    }
    for (k, b) in base.frames.iter().enumerate() {
        if doc_of_base.get(k).copied().flatten().is_some() {
            continue;
        }
        let parent = usize::try_from(b.parent)
            .ok()
            .and_then(|p| doc_of_base.get(p).copied().flatten())
            .map_or(-1, super::to_i32);
        let i = doc.frames.len();
        if let Some(slot) = doc_of_base.get_mut(k) {
            *slot = Some(i);
        }
        taken.push(format!("frame {:?}", b.name.text()));
        doc.frames.push(smf::Frame {
            parent,
            mesh: -1,
            ..b.clone()
        });
    }
}

fn obb_close(a: &smf::Obb, b: &smf::Obb) -> bool {
    all_close(
        a.center
            .iter()
            .chain(a.axes.iter().flatten())
            .chain(&a.lengths),
        b.center
            .iter()
            .chain(b.axes.iter().flatten())
            .chain(&b.lengths),
    )
}

fn merge_obb(
    slot: &mut Option<smf::Obb>,
    base: Option<smf::Obb>,
    kind: &str,
    name: &str,
    taken: &mut Vec<String>,
) {
    match (slot.as_ref(), base) {
        (None, Some(b)) => {
            *slot = Some(b);
            taken.push(format!("OBB of {kind} {name:?}"));
        }
        (Some(a), Some(b)) if obb_close(a, &b) => *slot = Some(b),
        _ => {}
    }
}

fn merge_mesh(mesh: &mut smf::Mesh, b: &smf::Mesh, taken: &mut Vec<String>) {
    let name = b.name.text().into_owned();
    mesh.name = b.name.clone();
    let same_vertices = mesh.vertices.len() == b.vertices.len()
        && mesh
            .vertices
            .iter()
            .zip(&b.vertices)
            .all(|(x, y)| colours_close(x.bgra, y.bgra) && all_close(&x.position, &y.position));
    if same_vertices {
        mesh.vertices = b.vertices.clone();
        // The box of unchanged geometry is the base's (its algorithm is not reproducible).
        if mesh.obb.is_some() || b.obb.is_some() {
            mesh.obb = b.obb;
        }
        if mesh.tangents.is_none() && b.tangents.is_some() {
            mesh.tangents = b.tangents.clone();
            taken.push(format!("V_B tangents of mesh {name:?}"));
        }
    } else {
        merge_obb(&mut mesh.obb, b.obb, "mesh", &name, taken);
    }
    keep(&mut mesh.normals, &b.normals, |x, y| match (x, y) {
        (Some(x), Some(y)) => {
            normals_close(x.iter().flat_map(|v| &v.0), y.iter().flat_map(|v| &v.0))
        }
        _ => false,
    });
    keep(&mut mesh.tangents, &b.tangents, |x, y| match (x, y) {
        (Some(x), Some(y)) => all_close(x.iter().flat_map(|v| &v.0), y.iter().flat_map(|v| &v.0)),
        _ => false,
    });
    keep(&mut mesh.uvs, &b.uvs, |x, y| match (x, y) {
        (Some(x), Some(y)) => all_close(
            x.iter().flat_map(|v| v.uv.iter().chain(&v.uv2)),
            y.iter().flat_map(|v| v.uv.iter().chain(&v.uv2)),
        ),
        _ => false,
    });
    keep(&mut mesh.indices, &b.indices, |x, y| {
        x.len() == y.len() && x.iter().eq(y.iter())
    });
    keep(&mut mesh.bones, &b.bones, |x, y| match (x, y) {
        (Some(x), Some(y)) => {
            x.len() == y.len()
                && x.iter()
                    .zip(y)
                    .all(|(p, q)| p.frame == q.frame && all_close(&p.offset, &q.offset))
        }
        _ => false,
    });
    keep(&mut mesh.blend, &b.blend, |x, y| match (x, y) {
        (Some(x), Some(y)) => {
            x.len() == y.len()
                && x.iter().zip(y).all(|(p, q)| {
                    p.indices.get(..2) == q.indices.get(..2) && close(p.weight, q.weight)
                })
        }
        _ => false,
    });
    if mesh.collision_runs.is_none()
        && mesh.collision_faces.is_none()
        && mesh.collision_vertices.is_none()
        && (b.collision_runs.is_some()
            || b.collision_faces.is_some()
            || b.collision_vertices.is_some())
    {
        mesh.collision_runs = b.collision_runs.clone();
        mesh.collision_faces = b.collision_faces.clone();
        mesh.collision_vertices = b.collision_vertices.clone();
        taken.push(format!("collision data of mesh {name:?}"));
    }
    if mesh.unknown.is_empty() && !b.unknown.is_empty() {
        mesh.unknown = b.unknown.clone();
        taken.push(format!("unknown chunks of mesh {name:?}"));
    }
    let mut names = ByName::new(b.materials.iter().map(|m| m.name.text()));
    for m in &mut mesh.materials {
        if let Some(bm) = names.take(&m.name.text()).and_then(|i| b.materials.get(i)) {
            merge_material(m, bm, &name, taken);
        }
    }
}

fn merge_material(m: &mut smf::Material, b: &smf::Material, mesh: &str, taken: &mut Vec<String>) {
    m.name = b.name.clone();
    let texture = |slot: &mut Option<smf::SjisField>, base: &Option<smf::SjisField>| {
        let same = match (slot.as_ref(), base.as_ref()) {
            (Some(x), Some(y)) => x.text() == y.text(),
            // An empty name the export could not carry.
            (None, Some(y)) => y.text().is_empty(),
            (None, None) => true,
            _ => false,
        };
        if same {
            slot.clone_from(base);
        }
    };
    texture(&mut m.texture, &b.texture);
    texture(&mut m.light_map, &b.light_map);
    texture(&mut m.environment_map, &b.environment_map);
    texture(&mut m.specular_map, &b.specular_map);
    texture(&mut m.normal_map, &b.normal_map);
    keep(&mut m.diffuse, &b.diffuse, |x, y| match (x, y) {
        (Some(x), Some(y)) => all_close(x, y),
        _ => false,
    });
    keep(&mut m.emissive, &b.emissive, |x, y| match (x, y) {
        (Some(x), Some(y)) => all_close(x, y),
        _ => false,
    });
    keep(&mut m.specular, &b.specular, |x, y| match (x, y) {
        (Some(x), Some(y)) => all_close(
            x.color.iter().chain([&x.refractive, &x.roughness]),
            y.color.iter().chain([&y.refractive, &y.roughness]),
        ),
        _ => false,
    });
    let mut states = 0usize;
    for (slot, base) in [
        (&mut m.z_test, b.z_test),
        (&mut m.z_write, b.z_write),
        (&mut m.alpha_test, b.alpha_test),
        (&mut m.alpha_threshold, b.alpha_threshold),
        (&mut m.cull, b.cull),
        (&mut m.lighting, b.lighting),
    ] {
        if slot.is_none() && base.is_some() {
            *slot = base;
            states += 1;
        }
    }
    if m.draw.is_none() && b.draw.is_some() {
        m.draw = b.draw;
        states += 1;
    }
    if m.bump.is_none() && b.bump.is_some() {
        m.bump = b.bump;
        states += 1;
    }
    if states > 0 {
        taken.push(format!(
            "{states} render state(s) of material {:?} of mesh {mesh:?}",
            b.name.text()
        ));
    }
    if m.unknown.is_empty() && !b.unknown.is_empty() {
        m.unknown = b.unknown.clone();
        taken.push(format!(
            "unknown chunks of material {:?} of mesh {mesh:?}",
            b.name.text()
        ));
    }
}

fn merge_set(set: &mut smf::AnimationSet, b: &smf::AnimationSet, taken: &mut Vec<String>) {
    set.name = b.name.clone();
    if set.unknown.is_empty() && !b.unknown.is_empty() {
        set.unknown = b.unknown.clone();
        taken.push(format!(
            "unknown chunks of animation set {:?}",
            b.name.text()
        ));
    }
    let of_frame: HashMap<i32, &smf::Animation> =
        b.animations.iter().map(|a| (a.target_frame, a)).collect();
    for ani in &mut set.animations {
        let Some(ba) = of_frame.get(&ani.target_frame) else {
            continue;
        };
        let vectors = |x: &Vec<smf::VectorKey>, y: &Vec<smf::VectorKey>| {
            x.len() == y.len()
                && x.iter()
                    .zip(y)
                    .all(|(p, q)| p.time == q.time && all_close(&p.value, &q.value))
        };
        keep(&mut ani.scale_keys, &ba.scale_keys, vectors);
        keep(&mut ani.translation_keys, &ba.translation_keys, vectors);
        keep(&mut ani.rotation_keys, &ba.rotation_keys, |x, y| {
            x.len() == y.len()
                && x.iter().zip(y).all(|(p, q)| {
                    let neg = q.value.map(|v| -v);
                    p.time == q.time && (all_close(&p.value, &q.value) || all_close(&p.value, &neg))
                })
        });
    }
}
