//! The one contract between the format converters and the writers, in both directions.
//!
//! Every [`Scene`] goes through [`validate`] before anything is written from it: the glTF
//! writer (export) and the format writers `scene::to_<fmt>` (import) take a [`ValidScene`], and
//! only [`validate`] makes one. Validation is the one place that repairs data glTF or a format
//! writer cannot take (non-finite values, zero normals, weights that do not sum to one,
//! indices past the vertices, broken hierarchies, unsorted keys, …), and every repair is
//! returned as a warning that names the place, the kind and how many values it touched.
//!
//! Done here today: vertex attributes (lengths, non-finite positions and UVs, unit normals and
//! tangents, colours, joints and weights), index lists and primitive materials ([`indices`]),
//! material colour factors and inverse bind matrices. Still done by the glTF writer, to be
//! moved: the hierarchy (two parents, cycles, common skin roots), animation keys and channels,
//! non-finite node transforms, invalid skins.

mod indices;

pub(crate) use indices::overlapping_groups;

use super::{Material, Mesh, Scene, SceneWarning, Skin, Vertices};
use serde_json::Value;
use std::collections::HashSet;

/// A scene that [`validate`] has checked and repaired: the invariants the writers rely on hold.
///
/// It derefs to [`Scene`] for reading; it cannot be changed in place (change the scene, then
/// validate it again).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ValidScene(Scene);

impl ValidScene {
    /// The scene, to change it (it must be validated again before it is written).
    pub fn into_inner(self) -> Scene {
        self.0
    }
}

impl std::ops::Deref for ValidScene {
    type Target = Scene;
    fn deref(&self) -> &Scene {
        &self.0
    }
}

/// A validated scene and the repairs validation made.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Validated {
    /// The scene.
    pub scene: ValidScene,
    /// One warning per kind of repair and place, with a count.
    pub warnings: Vec<SceneWarning>,
}

/// Checks `scene` and repairs what the writers cannot take, saying each repair.
///
/// Linear in the scene: every array is visited once, in place (nothing is copied but the
/// attributes dropped for a wrong length, which are freed). Never panics.
pub fn validate(mut scene: Scene) -> Validated {
    let mut warnings = Vec::new();
    let joint_counts = mesh_joint_counts(&scene);
    let material_count = scene.materials.len();
    for (i, mesh) in scene.meshes.iter_mut().enumerate() {
        let joint_count = joint_counts.get(i).copied().flatten();
        mesh_vertices(i, mesh, joint_count, &mut warnings);
        indices::mesh_indices(i, mesh, material_count, &mut warnings);
    }
    for (i, material) in scene.materials.iter_mut().enumerate() {
        material_factors(i, material, &mut warnings);
    }
    let node_count = scene.nodes.len();
    for (i, skin) in scene.skins.iter_mut().enumerate() {
        if skin_is_usable(skin, node_count) {
            inverse_bind_matrices(i, skin, &mut warnings);
        }
    }
    Validated {
        scene: ValidScene(scene),
        warnings,
    }
}

// ---------------------------------------------------------------------------------------------
// The shared helpers: one finite/unit set, one "count then warn".

/// Pushes `{place}: {n} {what}` when `n` repairs of one kind were made at one place.
pub(crate) fn warn_count(warnings: &mut Vec<SceneWarning>, place: &str, n: usize, what: &str) {
    if n > 0 {
        warnings.push(SceneWarning(format!("{place}: {n} {what}")));
    }
}

/// `v` with every non-finite component set to `fill`, and whether any was.
pub(crate) fn finite_or<const N: usize>(v: [f32; N], fill: f32) -> ([f32; N], bool) {
    if v.iter().all(|c| c.is_finite()) {
        (v, false)
    } else {
        (v.map(|c| if c.is_finite() { c } else { fill }), true)
    }
}

/// `v` scaled to unit length, `None` when it is zero or not finite.
pub(crate) fn unit3(v: [f32; 3]) -> Option<[f32; 3]> {
    let [x, y, z] = v.map(f64::from);
    let len = (x * x + y * y + z * z).sqrt();
    (len.is_finite() && len > 1e-12).then(|| [(x / len) as f32, (y / len) as f32, (z / len) as f32])
}

/// "kind i" or "kind i "name"": how a warning names the place.
pub(crate) fn label(kind: &str, i: usize, name: &str) -> String {
    if name.is_empty() {
        format!("{kind} {i}")
    } else {
        format!("{kind} {i} {name:?}")
    }
}

// ---------------------------------------------------------------------------------------------
// Skins

/// Whether the glTF writer writes `skin`: it has joints, all of them nodes, none twice. (An
/// unusable skin is not repaired; the writer leaves it out with a warning.)
pub(crate) fn skin_is_usable(skin: &Skin, node_count: usize) -> bool {
    let mut seen = HashSet::with_capacity(skin.joints.len());
    !skin.joints.is_empty()
        && skin
            .joints
            .iter()
            .all(|&j| j < node_count && seen.insert(j))
}

/// For each mesh, the fewest joints of the usable skins it is drawn with (`None` when no node
/// draws it with one): weights on joints beyond that are dropped.
fn mesh_joint_counts(scene: &Scene) -> Vec<Option<usize>> {
    let n = scene.nodes.len();
    let usable: Vec<bool> = scene.skins.iter().map(|s| skin_is_usable(s, n)).collect();
    let mut counts: Vec<Option<usize>> = vec![None; scene.meshes.len()];
    for node in &scene.nodes {
        let (Some(m), Some(s)) = (node.mesh, node.skin) else {
            continue;
        };
        let (Some(slot), Some(true), Some(skin)) = (
            counts.get_mut(m),
            usable.get(s).copied(),
            scene.skins.get(s),
        ) else {
            continue;
        };
        let joints = skin.joints.len();
        *slot = Some(slot.map_or(joints, |c: usize| c.min(joints)));
    }
    counts
}

/// Inverse bind matrices: one per joint (extra ones dropped, missing ones identities), finite,
/// with the last row `0 0 0 1`.
fn inverse_bind_matrices(i: usize, skin: &mut Skin, warnings: &mut Vec<SceneWarning>) {
    let label = label("skin", i, &skin.name);
    let ibm = &mut skin.inverse_bind_matrices;
    if !ibm.is_empty() && ibm.len() != skin.joints.len() {
        warnings.push(SceneWarning(format!(
            "{label}: {} inverse bind matrices for {} joints; {} with identities",
            ibm.len(),
            skin.joints.len(),
            if ibm.len() > skin.joints.len() {
                "extra ones dropped"
            } else {
                "padded"
            }
        )));
        ibm.resize(skin.joints.len(), crate::scene::IDENTITY);
    }
    let mut fixed = 0usize;
    for m in ibm.iter_mut() {
        let before = *m;
        (*m, _) = finite_or(*m, 0.0);
        m[3] = 0.0;
        m[7] = 0.0;
        m[11] = 0.0;
        m[15] = 1.0;
        // By value: a mirrored -0.0 is fine (written as 0.0).
        if before.iter().zip(m.iter()).any(|(a, b)| a != b) {
            fixed += 1;
        }
    }
    if fixed > 0 {
        warnings.push(SceneWarning(format!(
            "{label}: {fixed} inverse bind matrices were not affine (or not finite); their last row was set to 0 0 0 1"
        )));
    }
}

// ---------------------------------------------------------------------------------------------
// Materials

/// Colour factors clamped to 0..1 (non-finite: base colour 1, emissive 0); the source values
/// go into the material's extras.
fn material_factors(i: usize, m: &mut Material, warnings: &mut Vec<SceneWarning>) {
    let clamp = |fill: f32| {
        move |v: f32| {
            if v.is_finite() {
                v.clamp(0.0, 1.0)
            } else {
                fill
            }
        }
    };
    let base = m.base_color.map(clamp(1.0));
    let emissive = m.emissive.map(clamp(0.0));
    if base == m.base_color && emissive == m.emissive {
        return;
    }
    warnings.push(SceneWarning(format!(
        "{}: colour factors outside 0..1 clamped (the source values are in extras)",
        label("material", i, &m.name)
    )));
    let (source_base, source_emissive) = (floats(&m.base_color), floats(&m.emissive));
    m.extras
        .entry("sourceBaseColor")
        .or_insert_with(|| source_base);
    m.extras
        .entry("sourceEmissive")
        .or_insert_with(|| source_emissive);
    m.base_color = base;
    m.emissive = emissive;
}

/// `v` as a JSON array (non-finite values as `null`, which JSON cannot otherwise say).
pub(crate) fn floats(v: &[f32]) -> Value {
    Value::Array(
        v.iter()
            .map(|&x| {
                if x.is_finite() {
                    Value::from(f64::from(x))
                } else {
                    Value::Null
                }
            })
            .collect(),
    )
}

// ---------------------------------------------------------------------------------------------
// Mesh vertices

/// Drops an attribute without one entry per vertex (`n`), with a warning.
fn same_len<T>(
    attr: &mut Option<Vec<T>>,
    label: &str,
    what: &str,
    n: usize,
    warnings: &mut Vec<SceneWarning>,
) {
    if let Some(len) = attr.as_ref().map(Vec::len).filter(|&len| len != n) {
        warnings.push(SceneWarning(format!(
            "{label}: {len} {what} for {n} vertices; {what} dropped"
        )));
        *attr = None;
    }
}

/// Every vertex attribute made valid glTF. A mesh without vertices is left alone (the writer
/// does not write it).
fn mesh_vertices(
    i: usize,
    mesh: &mut Mesh,
    joint_count: Option<usize>,
    warnings: &mut Vec<SceneWarning>,
) {
    let label = label("mesh", i, &mesh.name);
    let v = &mut mesh.vertices;
    let n = v.positions.len();
    if n == 0 {
        return;
    }
    let mut bad = 0usize;
    for p in &mut v.positions {
        let fixed;
        (*p, fixed) = finite_or(*p, 0.0);
        bad += usize::from(fixed);
    }
    if bad > 0 {
        warnings.push(SceneWarning(format!(
            "{label}: {bad} positions had non-finite coordinates, set to 0"
        )));
    }
    normals_and_tangents(&label, v, warnings);
    same_len(&mut v.uv0, &label, "uv0", n, warnings);
    same_len(&mut v.uv1, &label, "uv1", n, warnings);
    for (set, uv) in [(0u32, &mut v.uv0), (1, &mut v.uv1)] {
        let mut bad = 0usize;
        for t in uv.iter_mut().flatten() {
            let fixed;
            (*t, fixed) = finite_or(*t, 0.0);
            bad += usize::from(fixed);
        }
        if bad > 0 {
            warnings.push(SceneWarning(format!(
                "{label}: {bad} texture coordinates of set {set} were not finite; set to 0"
            )));
        }
    }
    same_len(&mut v.colors, &label, "colours", n, warnings);
    let mut clamped = 0usize;
    for c in v.colors.iter_mut().flatten() {
        let f = c.map(|x| {
            if x.is_finite() {
                x.clamp(0.0, 1.0)
            } else {
                1.0
            }
        });
        if f != *c {
            clamped += 1;
            *c = f;
        }
    }
    warn_count(
        warnings,
        &label,
        clamped,
        "vertex colours outside 0..1 (or not finite) clamped",
    );
    skinning(&label, v, joint_count, warnings);
}

/// Normals unit length (zero or non-finite ones become (0, 1, 0)); tangents unit length (zero
/// ones (1, 0, 0)) with `w` ±1, and dropped without normals.
fn normals_and_tangents(label: &str, v: &mut Vertices, warnings: &mut Vec<SceneWarning>) {
    let n = v.positions.len();
    same_len(&mut v.normals, label, "normals", n, warnings);
    let Some(normals) = &mut v.normals else {
        if v.tangents.take().is_some() {
            warnings.push(SceneWarning(format!(
                "{label}: tangents without normals cannot be written in glTF; dropped"
            )));
        }
        return;
    };
    let mut zero = 0usize;
    for nv in normals.iter_mut() {
        *nv = unit3(*nv).unwrap_or_else(|| {
            zero += 1;
            [0.0, 1.0, 0.0]
        });
    }
    warn_count(
        warnings,
        label,
        zero,
        "normals were zero or not finite; set to (0, 1, 0)",
    );
    same_len(&mut v.tangents, label, "tangents", n, warnings);
    let mut zero = 0usize;
    for t in v.tangents.iter_mut().flatten() {
        *t = unit_tangent(*t, &mut zero);
    }
    warn_count(
        warnings,
        label,
        zero,
        "tangents were zero or not finite; set to (1, 0, 0)",
    );
}

/// A tangent of unit length (zero or non-finite: (1, 0, 0), counted in `zero`) with `w` ±1.
pub(crate) fn unit_tangent(t: [f32; 4], zero: &mut usize) -> [f32; 4] {
    let [x, y, z] = unit3([t[0], t[1], t[2]]).unwrap_or_else(|| {
        *zero += 1;
        [1.0, 0.0, 0.0]
    });
    [x, y, z, if t[3] < 0.0 { -1.0 } else { 1.0 }]
}

/// Joints and weights: both or neither, one per vertex; with a skin of `joint_count` joints,
/// every vertex fixed by [`fix_skin_vertex`].
fn skinning(
    label: &str,
    v: &mut Vertices,
    joint_count: Option<usize>,
    warnings: &mut Vec<SceneWarning>,
) {
    let n = v.positions.len();
    same_len(&mut v.joints, label, "joints", n, warnings);
    same_len(&mut v.weights, label, "weights", n, warnings);
    if v.joints.is_some() != v.weights.is_some() {
        warnings.push(SceneWarning(format!(
            "{label}: joints without weights (or weights without joints); skinning dropped"
        )));
        v.joints = None;
        v.weights = None;
    }
    let (Some(joints), Some(weights), Some(count)) = (&mut v.joints, &mut v.weights, joint_count)
    else {
        return;
    };
    let mut stats = SkinStats::default();
    for (j, w) in joints.iter_mut().zip(weights.iter_mut()) {
        (*j, *w) = fix_skin_vertex(*j, *w, count, &mut stats);
    }
    stats.report(label, count, warnings);
}

/// Counts of the repairs made to one mesh's skinning data.
#[derive(Default)]
struct SkinStats {
    bad_weights: usize,
    out_of_range: usize,
    merged: usize,
    unweighted: usize,
    renormalised: usize,
}

impl SkinStats {
    fn report(&self, label: &str, count: usize, warnings: &mut Vec<SceneWarning>) {
        let mut say = |n: usize, what: String| warn_count(warnings, label, n, &what);
        say(
            self.bad_weights,
            "negative or non-finite weights set to 0".into(),
        );
        say(
            self.out_of_range,
            format!("weights on joints beyond the skin's {count} joints dropped"),
        );
        say(self.merged, "repeated joints of a vertex merged".into());
        say(
            self.unweighted,
            "vertices without any weight bound fully to joint 0".into(),
        );
        say(
            self.renormalised,
            "vertices' weights did not sum to 1 and were renormalised".into(),
        );
    }
}

/// Makes one vertex's skinning valid glTF: weights ≥ 0 summing to 1, no repeated joint with a
/// weight, joint 0 wherever the weight is 0, every weighted joint `< count`.
fn fix_skin_vertex(
    mut j: [u16; 4],
    w: [f32; 4],
    count: usize,
    stats: &mut SkinStats,
) -> ([u16; 4], [f32; 4]) {
    let mut w: [f64; 4] = w.map(f64::from);
    for (wk, &jk) in w.iter_mut().zip(&j) {
        if !wk.is_finite() || *wk < 0.0 {
            stats.bad_weights += 1;
            *wk = 0.0;
        }
        if *wk > 0.0 && usize::from(jk) >= count {
            stats.out_of_range += 1;
            *wk = 0.0;
        }
    }
    // Slot k's weight moves to the first earlier slot m < k with a weight and the same joint.
    for k in 1..4 {
        let Some(((earlier, [wk, ..]), &jk)) = w.split_at_mut_checked(k).zip(j.get(k)) else {
            continue;
        };
        if *wk > 0.0 {
            let same = earlier
                .iter_mut()
                .zip(&j)
                .find(|(wm, &jm)| **wm > 0.0 && jm == jk);
            if let Some((wm, _)) = same {
                *wm += *wk;
                *wk = 0.0;
                stats.merged += 1;
            }
        }
    }
    for (jk, &wk) in j.iter_mut().zip(&w) {
        if wk == 0.0 {
            *jk = 0;
        }
    }
    let sum: f64 = w.iter().sum();
    if sum <= 0.0 || !sum.is_finite() {
        stats.unweighted += 1;
        return ([0; 4], [1.0, 0.0, 0.0, 0.0]);
    }
    if (sum - 1.0).abs() > 1e-3 {
        stats.renormalised += 1;
    }
    let mut out = w.map(|x| (x / sum) as f32);
    // Put any f32 rounding error on the largest weight so the sum is as close to 1 as f32 gets.
    let total: f32 = out.iter().sum();
    if let Some(largest) = out.iter_mut().max_by(|a, b| a.total_cmp(b)) {
        *largest += 1.0 - total;
    }
    (j, out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn skin_vertices_become_valid() {
        let mut s = SkinStats::default();
        let (j, w) = fix_skin_vertex([3, 3, 9, 1], [0.25, 0.25, 0.5, 0.0], 4, &mut s);
        assert_eq!(j, [3, 0, 0, 0]);
        assert_eq!(w, [1.0, 0.0, 0.0, 0.0]);
        assert_eq!((s.merged, s.out_of_range, s.renormalised), (1, 1, 1));
        let (j, w) = fix_skin_vertex([1, 2, 0, 0], [0.0, 0.0, 0.0, 0.0], 4, &mut s);
        assert_eq!((j, w), ([0; 4], [1.0, 0.0, 0.0, 0.0]));
        let (_, w) = fix_skin_vertex([0, 1, 2, 3], [0.1, 0.2, 0.3, 0.3], 4, &mut s);
        assert!((w.iter().sum::<f32>() - 1.0).abs() < 1e-6);
    }

    /// A scene with one of each repair validation makes, and none it should not.
    fn broken() -> Scene {
        let mesh = Mesh {
            name: "m".into(),
            vertices: Vertices {
                positions: vec![[f32::NAN, 1.0, 2.0], [0.0; 3], [1.0, 0.0, 0.0]],
                normals: Some(vec![[0.0; 3], [0.0, 2.0, 0.0], [0.0, 0.0, 1.0]]),
                tangents: Some(vec![[2.0, 0.0, 0.0, -3.0]; 3]),
                uv0: Some(vec![[f32::INFINITY, 0.0]; 3]),
                uv1: Some(vec![[0.0; 2]; 2]),
                colors: Some(vec![[2.0, 0.5, -1.0, 1.0]; 3]),
                joints: Some(vec![[3, 3, 9, 1]; 3]),
                weights: Some(vec![[0.25, 0.25, 0.5, 0.0]; 3]),
            },
            ..Mesh::default()
        };
        Scene {
            nodes: vec![
                crate::scene::Node {
                    mesh: Some(0),
                    skin: Some(0),
                    ..Default::default()
                },
                crate::scene::Node::default(),
                crate::scene::Node::default(),
                crate::scene::Node::default(),
            ],
            meshes: vec![mesh],
            materials: vec![Material {
                base_color: [2.0, 0.5, f32::NAN, 1.0],
                ..Material::default()
            }],
            skins: vec![Skin {
                joints: vec![1, 2, 3, 0],
                inverse_bind_matrices: vec![[1.0; 16]],
                ..Skin::default()
            }],
            ..Scene::default()
        }
    }

    #[test]
    fn every_repair_is_made_once_and_said() {
        let valid = validate(broken());
        let said: Vec<&str> = valid.warnings.iter().map(|w| w.0.as_str()).collect();
        let expect = [
            "mesh 0 \"m\": 1 positions had non-finite coordinates, set to 0",
            "mesh 0 \"m\": 1 normals were zero or not finite; set to (0, 1, 0)",
            "mesh 0 \"m\": 2 uv1 for 3 vertices; uv1 dropped",
            "mesh 0 \"m\": 3 texture coordinates of set 0 were not finite; set to 0",
            "mesh 0 \"m\": 3 vertex colours outside 0..1 (or not finite) clamped",
            "mesh 0 \"m\": 3 weights on joints beyond the skin's 4 joints dropped",
            "mesh 0 \"m\": 3 repeated joints of a vertex merged",
            "mesh 0 \"m\": 3 vertices' weights did not sum to 1 and were renormalised",
            "material 0: colour factors outside 0..1 clamped (the source values are in extras)",
            "skin 0: 1 inverse bind matrices for 4 joints; padded with identities",
            "skin 0: 1 inverse bind matrices were not affine (or not finite); their last row was set to 0 0 0 1",
        ];
        for e in expect {
            assert!(said.contains(&e), "missing {e:?} in {said:#?}");
        }
        assert_eq!(said.len(), expect.len(), "{said:#?}");
        let s = &valid.scene;
        let v = &s.meshes[0].vertices;
        assert_eq!(v.positions[0], [0.0, 1.0, 2.0]);
        assert_eq!(v.normals.as_deref().unwrap()[..2], [[0.0, 1.0, 0.0]; 2]);
        assert_eq!(v.tangents.as_deref().unwrap()[0], [1.0, 0.0, 0.0, -1.0]);
        assert!(v.uv1.is_none());
        assert_eq!(v.colors.as_deref().unwrap()[0], [1.0, 0.5, 0.0, 1.0]);
        assert_eq!(v.joints.as_deref().unwrap()[0], [3, 0, 0, 0]);
        assert_eq!(s.materials[0].base_color, [1.0, 0.5, 1.0, 1.0]);
        assert!(s.materials[0].extras.contains_key("sourceBaseColor"));
        assert_eq!(s.skins[0].inverse_bind_matrices.len(), 4);
        // Validating again finds nothing: each repair is made once.
        let again = validate(valid.scene.into_inner());
        assert!(again.warnings.is_empty(), "{:#?}", again.warnings);
    }

    #[test]
    fn tangents_without_normals_and_lone_joints_are_dropped() {
        let mut scene = broken();
        let v = &mut scene.meshes[0].vertices;
        v.normals = None;
        v.weights = None;
        let valid = validate(scene);
        let v = &valid.scene.meshes[0].vertices;
        assert!(v.tangents.is_none() && v.joints.is_none());
        let said: Vec<&str> = valid.warnings.iter().map(|w| w.0.as_str()).collect();
        assert!(said.contains(
            &"mesh 0 \"m\": tangents without normals cannot be written in glTF; dropped"
        ));
        assert!(said.contains(
            &"mesh 0 \"m\": joints without weights (or weights without joints); skinning dropped"
        ));
    }
}
