//! The one contract between the format converters and the writers, in both directions.
//!
//! Every [`Scene`] goes through [`validate`] before anything is written from it: the glTF
//! writer (export) and the format writers `scene::to_<fmt>` (import) take a [`ValidScene`], and
//! only [`validate`] makes one. Validation is the one place that repairs data glTF or a format
//! writer cannot take, and every repair is returned as a warning that names the place, the kind
//! and how many values it touched. One file per concern:
//!
//! * [`hierarchy`]: child indices in range, one parent per node, no cycle, complete roots;
//! * [`nodes`]: finite transforms, unit rotations, no matrix on an animated node;
//! * [`vertices`]: attribute lengths, non-finite positions and UVs, unit normals and
//!   tangents, colours, joints and weights; [`bounds`]: each mesh's `POSITION` bounds, found
//!   in the pass that checks the positions (the glTF writer's `min`/`max`);
//! * [`weights`]: the one skin-weight normaliser, which the converters and format writers call too;
//! * [`indices`]: index lists (whole triangles, in range) and primitive materials;
//! * [`materials`]: colour factors; [`skins`]: inverse bind matrices;
//! * [`animation`]: channel targets, key order, non-finite keys, unit rotation keys.
//!
//! Skins that cannot be written (no joints, a joint out of range or twice) are taken from their
//! nodes (whose meshes are then unskinned), and left out by the glTF writer.

mod indices;

pub(crate) use indices::{below, overlapping_groups};

use super::{Scene, SceneWarning};
use crate::scene::Array;

mod animation;
mod bounds;
mod hierarchy;
mod materials;
mod nodes;
mod skins;
mod vertices;
mod weights;

pub(crate) use bounds::{position_bounds, Bounds};
pub(crate) use materials::{floats, unit_factor};
pub(crate) use nodes::{matrix_is_trs, not_trs_message};
pub(crate) use skins::{mesh_joint_counts, skin_is_usable, why_unusable};
pub(crate) use vertices::unit_tangent;
pub use weights::{normalize_weights, SlotOrder, WeightFixes};

/// A scene that [`validate`] has checked and repaired: the invariants the writers rely on hold.
///
/// It derefs to [`Scene`] for reading; it cannot be changed in place (change the scene, then
/// validate it again).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ValidScene {
    scene: Scene,
    /// Each mesh's `POSITION` bounds, found while the positions were checked.
    bounds: Vec<Bounds>,
}

impl ValidScene {
    /// The scene, to change it (it must be validated again before it is written).
    pub fn into_inner(self) -> Scene {
        self.scene
    }

    /// The least and greatest position coordinate on each axis of mesh `mesh` (±infinity for
    /// a mesh without vertices), as validation found them.
    pub(crate) fn position_bounds(&self, mesh: usize) -> Option<Bounds> {
        self.bounds.get(mesh).copied()
    }

    /// The parts of the scene the weld gives back from another valid scene (`scene::weld`): the
    /// scene's extras, the materials, the nodes and roots, the skins, the meshes, the
    /// animations and the blobs extras name. Validation checks no extras; the caller keeps the
    /// other invariants: the nodes become the other scene's hierarchy (its nodes' children,
    /// transforms and roots, with the animations that went with them), each keeping the mesh
    /// of a node of this scene; the skins are the other scene's or this one's with the joints
    /// renumbered to match, each joint with a valid inverse bind matrix; and a mesh's joint
    /// indices change only into its new skin's joints, for the same joint nodes.
    pub(crate) fn parts_mut(&mut self) -> PartsMut<'_> {
        PartsMut {
            extras: &mut self.scene.extras,
            materials: &mut self.scene.materials,
            nodes: &mut self.scene.nodes,
            roots: &mut self.scene.roots,
            skins: &mut self.scene.skins,
            meshes: &mut self.scene.meshes,
            animations: &mut self.scene.animations,
            blobs: &mut self.scene.blobs,
        }
    }

    /// The materials in another order: material `i` becomes material `new_index[i]`, and every
    /// primitive follows (`scene::weld`: an editor that reordered them). Does nothing unless
    /// `new_index` is a permutation of the materials.
    pub(crate) fn reorder_materials(&mut self, new_index: &[usize]) {
        let n = self.scene.materials.len();
        let mut seen = vec![false; n];
        for &j in new_index {
            match seen.get_mut(j) {
                Some(slot @ false) => *slot = true,
                _ => return,
            }
        }
        if new_index.len() != n {
            return;
        }
        let mut slots: Vec<Option<super::Material>> = vec![None; n];
        for (material, &j) in self.scene.materials.drain(..).zip(new_index) {
            if let Some(slot) = slots.get_mut(j) {
                *slot = Some(material);
            }
        }
        self.scene.materials = slots.into_iter().flatten().collect();
        for primitive in self.scene.meshes.iter_mut().flat_map(|m| &mut m.primitives) {
            if let Some(m) = &mut primitive.material {
                *m = new_index.get(*m).copied().unwrap_or(*m);
            }
        }
    }

    /// Mesh `mesh`'s extras and the scene's blobs, to change (validation checks neither).
    pub(crate) fn mesh_extras_and_blobs(&mut self, mesh: usize) -> Option<ExtrasAndBlobs<'_>> {
        let extras = &mut self.scene.meshes.get_mut(mesh)?.extras;
        Some((extras, &mut self.scene.blobs))
    }

    /// Mesh `mesh` given `vertices` (another valid scene's, with their `bounds`) and, in order,
    /// its primitives' `indices` (each below the new vertex count): the base's vertices for a
    /// mesh an editor gave back unchanged (`scene::weld`). The caller has checked that the
    /// vertices' joints are within the skins this scene draws the mesh with.
    pub(crate) fn replace_geometry(
        &mut self,
        mesh: usize,
        vertices: super::Vertices,
        bounds: Bounds,
        indices: Vec<super::Indices>,
    ) {
        let (Some(target), Some(slot)) =
            (self.scene.meshes.get_mut(mesh), self.bounds.get_mut(mesh))
        else {
            return;
        };
        debug_assert_eq!(target.primitives.len(), indices.len());
        target.vertices = vertices;
        *slot = bounds;
        for (primitive, list) in target.primitives.iter_mut().zip(indices) {
            primitive.indices = list;
        }
    }
}

impl std::ops::Deref for ValidScene {
    type Target = Scene;
    fn deref(&self) -> &Scene {
        &self.scene
    }
}

/// An item's extras and its scene's blobs, borrowed to change together.
pub(crate) type ExtrasAndBlobs<'a> = (
    &'a mut serde_json::Map<String, serde_json::Value>,
    &'a mut Vec<Array<u8>>,
);

/// Mutable access to the parts of a valid scene the weld gives back ([`ValidScene::parts_mut`]).
pub(crate) struct PartsMut<'a> {
    pub(crate) extras: &'a mut serde_json::Map<String, serde_json::Value>,
    pub(crate) materials: &'a mut [super::Material],
    pub(crate) nodes: &'a mut Vec<super::Node>,
    pub(crate) roots: &'a mut Vec<usize>,
    pub(crate) skins: &'a mut Vec<super::Skin>,
    pub(crate) meshes: &'a mut [super::Mesh],
    pub(crate) animations: &'a mut Vec<super::Animation>,
    pub(crate) blobs: &'a mut Vec<Array<u8>>,
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
    hierarchy::forest(&mut scene, &mut warnings);
    let animated = animation::animated_nodes(&scene);
    nodes::transforms(&mut scene, &animated, &mut warnings);
    skins::detach_unusable(&mut scene, &mut warnings);
    let joint_counts = skins::mesh_joint_counts(&scene);
    let material_count = scene.materials.len();
    let mut bounds = Vec::with_capacity(scene.meshes.len());
    for (i, mesh) in scene.meshes.iter_mut().enumerate() {
        let joint_count = joint_counts.get(i).copied().flatten();
        bounds.push(vertices::mesh_vertices(i, mesh, joint_count, &mut warnings));
        indices::mesh_indices(i, mesh, material_count, &mut warnings);
    }
    for (i, material) in scene.materials.iter_mut().enumerate() {
        materials::material_factors(i, material, &mut warnings);
    }
    let node_count = scene.nodes.len();
    for (i, skin) in scene.skins.iter_mut().enumerate() {
        if skin_is_usable(skin, node_count) {
            skins::inverse_bind_matrices(i, skin, &mut warnings);
        }
    }
    animation::animations(&mut scene, &mut warnings);
    Validated {
        scene: ValidScene { scene, bounds },
        warnings,
    }
}

// ---------------------------------------------------------------------------------------------
// The shared helpers: one finite/unit set, one "count then warn".

/// Pushes one repair warning, `{place}: {message}` (or the message alone for no place).
pub(crate) fn warn(
    warnings: &mut Vec<SceneWarning>,
    place: impl std::fmt::Display,
    message: String,
) {
    warnings.push(SceneWarning::other(place.to_string(), message));
}

/// Pushes `{place}: {n} {what}` when `n` repairs of one kind were made at one place (a
/// [`SceneWarning::counted`]).
pub(crate) fn warn_count(
    warnings: &mut Vec<SceneWarning>,
    place: impl std::fmt::Display,
    n: usize,
    what: &str,
) {
    if n > 0 {
        warnings.push(SceneWarning::counted(place.to_string(), n as u64, what));
    }
}

/// Whether every value of `values` is finite. One OR over the exponent bits with no early
/// exit, which vectorises: `all(is_finite)` stops to branch at each value, and a sum of `x · 0`
/// adds one value after another (floating-point addition keeps its order), about two
/// instructions a value over a clip's keys.
pub(crate) fn all_finite(values: &[f32]) -> bool {
    const EXPONENT: u32 = 0x7f80_0000;
    let bits: &[u32] = bytemuck::cast_slice(values);
    bits.iter()
        .fold(0u32, |bad, &b| bad | u32::from(b & EXPONENT == EXPONENT))
        == 0
}

/// `v` with every non-finite component set to `fill`, and whether any was.
pub(crate) fn finite_or<const N: usize>(v: [f32; N], fill: f32) -> ([f32; N], bool) {
    if v.iter().all(|c| c.is_finite()) {
        (v, false)
    } else {
        (v.map(|c| if c.is_finite() { c } else { fill }), true)
    }
}

/// `v` scaled to unit length, `None` when it is zero or not finite; `v` itself when it is
/// already unit length to within [`NEAR_UNIT_SQUARE`].
pub(crate) fn unit3(v: [f32; 3]) -> Option<[f32; 3]> {
    unit3_and_square(v).map(|(unit, _)| unit)
}

/// Whether `v` is unit length to within [`NEAR_UNIT_SQUARE`]: what [`unit3`] keeps as it is.
#[inline(always)]
pub(crate) fn near_unit(v: [f32; 3]) -> bool {
    let [x, y, z] = v.map(f64::from);
    (x * x + y * y + z * z - 1.0).abs() <= NEAR_UNIT_SQUARE
}

/// [`unit3`] and the squared length of `v` (in f64).
pub(crate) fn unit3_and_square(v: [f32; 3]) -> Option<([f32; 3], f64)> {
    let [x, y, z] = v.map(f64::from);
    let square = x * x + y * y + z * z;
    if (square - 1.0).abs() <= NEAR_UNIT_SQUARE {
        // Unit already: kept bit for bit (no square root, no divisions).
        return Some((v, square));
    }
    let len = square.sqrt();
    (len.is_finite() && len > 1e-12).then(|| {
        (
            [(x / len) as f32, (y / len) as f32, (z / len) as f32],
            square,
        )
    })
}

/// How far the f64 square length of an f32 vector may be from 1 for [`unit3`] (so validation's
/// normals and tangents) to keep it as it is: 2⁻¹⁶, a length within about 8·10⁻⁶ of 1. That
/// is unit as far as any renderer can tell (the Khronos validator allows about 7·10⁻³), and it
/// covers the rounding of normals that tools normalised in f32 (the large models' stored
/// normals are up to 1.4·10⁻⁶ off in square length). Renormalising those in f64 changed the
/// last bits of most of them (90 % of the large models', most of the samples'), so the export
/// had to keep every file's normals a second time in extras (`bmf_normals`,
/// `smf_normals_hex`, …) for the way back to give the file's bytes; kept as they are, they
/// go through glTF bit for bit, in the `NORMAL` accessor alone. (Before, the bound was 2⁻²⁵,
/// below which normalising gives the same bits back.)
pub(crate) const NEAR_UNIT_SQUARE: f64 = 1.0 / (1u64 << 16) as f64;

/// How a warning names a place: "kind i", or "kind i "name"" when it has a name. Spelt only
/// when a warning is given: made eagerly for every node, mesh and skin, the strings were 5 %
/// of an animated character's export (the name's `Debug` escaping, char by char).
#[derive(Clone, Copy)]
pub(crate) struct Label<'a> {
    kind: &'static str,
    i: usize,
    name: &'a str,
}

impl std::fmt::Display for Label<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let Label { kind, i, name } = *self;
        if name.is_empty() {
            write!(f, "{kind} {i}")
        } else {
            write!(f, "{kind} {i} {name:?}")
        }
    }
}

/// The [`Label`] of the `i`-th `kind` named `name`.
pub(crate) fn label<'a>(kind: &'static str, i: usize, name: &'a str) -> Label<'a> {
    Label { kind, i, name }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scene::{Colors, Material, Mesh, Skin, Vertices};

    /// `unit3` without keeping near-unit vectors: the square root and the divisions for every
    /// vector.
    fn unit3_general(v: [f32; 3]) -> Option<[f32; 3]> {
        let [x, y, z] = v.map(f64::from);
        let len = (x * x + y * y + z * z).sqrt();
        (len.is_finite() && len > 1e-12)
            .then(|| [(x / len) as f32, (y / len) as f32, (z / len) as f32])
    }

    /// `unit3` keeps a vector within `NEAR_UNIT_SQUARE` of unit length bit for bit and gives
    /// the general path's bits for any other: on unit vectors a few ulps off, vectors scaled
    /// just inside or outside the bound, axis vectors, signed zeros and subnormal components.
    #[test]
    fn unit3_keeps_near_unit_vectors_and_normalises_the_rest() {
        let mut seed = 0x9E37_79B9_7F4A_7C15u64;
        let mut next = || {
            seed = seed
                .wrapping_mul(6_364_136_223_846_793_005)
                .wrapping_add(1_442_695_040_888_963_407);
            seed >> 11
        };
        let mut cases: Vec<[f32; 3]> = vec![
            [0.0, 1.0, 0.0],
            [-0.0, -1.0, 0.0],
            [1.0, -0.0, f32::from_bits(1)],
            [f32::MIN_POSITIVE, 0.0, -1.0],
            [0.0, 1.0 + 1e-5, 0.0],
            [0.0, 1.0 - 1e-5, 0.0],
        ];
        for _ in 0..200_000 {
            let d = [next(), next(), next()].map(|r| r as f64 / (1u64 << 53) as f64 - 0.5);
            let len = (d[0] * d[0] + d[1] * d[1] + d[2] * d[2]).sqrt();
            let unit = d.map(|c| (c / len) as f32);
            // A few ulps off on each component, or scaled just inside or outside the bound
            // (a length 1 ± 2⁻¹⁷ has a square 1 ± 2⁻¹⁶).
            let ulps = unit.map(|c| {
                let step = (next() % 9) as i32 - 4;
                f32::from_bits(c.to_bits().wrapping_add_signed(step))
            });
            let scale = 1.0 + ((next() % 64) as f64 - 32.0) / (1u64 << 21) as f64;
            cases.push(ulps);
            cases.push(unit.map(|c| (f64::from(c) * scale) as f32));
        }
        let (mut kept, mut normalised) = (0usize, 0usize);
        for v in cases {
            let [x, y, z] = v.map(f64::from);
            let near = ((x * x + y * y + z * z) - 1.0).abs() <= NEAR_UNIT_SQUARE;
            let expected = if near {
                Some(v.map(f32::to_bits))
            } else {
                unit3_general(v).map(|u| u.map(f32::to_bits))
            };
            assert_eq!(unit3(v).map(|u| u.map(f32::to_bits)), expected, "{v:?}");
            kept += usize::from(near);
            normalised += usize::from(!near);
        }
        // Both sides of the bound were taken.
        assert!(kept > 10_000 && normalised > 10_000, "{kept} {normalised}");
    }

    /// A scene with one of each repair validation makes, and none it should not.
    fn broken() -> Scene {
        let mesh = Mesh {
            name: "m".into(),
            vertices: Vertices {
                positions: vec![[f32::NAN, 1.0, 2.0], [0.0; 3], [1.0, 0.0, 0.0]].into(),
                normals: Some(vec![[0.0; 3], [0.0, 2.0, 0.0], [0.0, 0.0, 1.0]].into()),
                tangents: Some(vec![[2.0, 0.0, 0.0, -3.0]; 3].into()),
                uv0: Some(vec![[f32::INFINITY, 0.0]; 3].into()),
                uv1: Some(vec![[0.0; 2]; 2].into()),
                colors: Some(Colors::Floats(vec![[2.0, 0.5, -1.0, 1.0]; 3].into())),
                joints: Some(vec![[3, 3, 9, 1]; 3].into()),
                weights: Some(vec![[0.25, 0.25, 0.5, 0.0]; 3].into()),
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
        let said: Vec<String> = valid.warnings.iter().map(|w| w.to_string()).collect();
        let expect = [
            "mesh 0 \"m\": 1 positions had non-finite coordinates, set to 0",
            "mesh 0 \"m\": 1 normals were zero or not finite; set to (0, 1, 0)",
            "mesh 0 \"m\": 1 normals were not unit length; normalised",
            "mesh 0 \"m\": 2 uv1 for 3 vertices; uv1 dropped",
            "mesh 0 \"m\": 3 texture coordinates of set 0 were not finite; set to 0",
            "mesh 0 \"m\": 3 vertex colours outside 0..1 (or not finite) clamped",
            "mesh 0 \"m\": 3 weights on joints beyond the skin's 4 joints dropped",
            "mesh 0 \"m\": 3 repeated joints of a vertex merged",
            "mesh 0 \"m\": 3 vertices' weights did not sum to 1 and were renormalised",
            "material 0: 2 colour factors outside 0..1 or not finite clamped (a non-finite base colour component becomes 1, an emissive one 0; the source values are in extras)",
            "skin 0: 1 inverse bind matrices for 4 joints; padded with identities",
            "skin 0: 1 inverse bind matrices were not affine (or not finite); their last row was set to 0 0 0 1",
        ];
        for e in expect {
            assert!(said.iter().any(|s| s == e), "missing {e:?} in {said:#?}");
        }
        assert_eq!(said.len(), expect.len(), "{said:#?}");
        let s = &valid.scene;
        let v = &s.meshes[0].vertices;
        assert_eq!(v.positions[0], [0.0, 1.0, 2.0]);
        assert_eq!(v.normals.as_deref().unwrap()[..2], [[0.0, 1.0, 0.0]; 2]);
        assert_eq!(v.tangents.as_deref().unwrap()[0], [1.0, 0.0, 0.0, -1.0]);
        assert!(v.uv1.is_none());
        assert_eq!(
            v.colors.as_ref().unwrap().get(0),
            Some([1.0, 0.5, 0.0, 1.0])
        );
        assert_eq!(v.joints.as_deref().unwrap()[0], [3, 0, 0, 0]);
        assert_eq!(s.materials[0].base_color, [1.0, 0.5, 1.0, 1.0]);
        assert!(s.materials[0].extras.contains_key("sourceBaseColor"));
        assert_eq!(s.skins[0].inverse_bind_matrices.len(), 4);
        // Validating again finds nothing: each repair is made once.
        let again = validate(valid.scene.into_inner());
        assert!(again.warnings.is_empty(), "{:#?}", again.warnings);
    }

    /// A rotation far from unit length is normalised and said; one off by rounding only is
    /// normalised without a word.
    #[test]
    fn node_rotations_far_from_unit_length_are_said() {
        use crate::scene::{Node, Transform};
        let rotated = |rotation| Node {
            transform: Transform::Trs {
                translation: [0.0; 3],
                rotation,
                scale: [1.0; 3],
            },
            ..Node::default()
        };
        let scene = Scene {
            nodes: vec![
                rotated([0.0, 0.0, 0.0, 2.0]),
                rotated([0.0, 0.0, 0.0, 1.0 + 1e-6]),
            ],
            roots: vec![0, 1],
            ..Scene::default()
        };
        let valid = validate(scene);
        let said: Vec<String> = valid.warnings.iter().map(|w| w.to_string()).collect();
        assert_eq!(said, ["node 0: a rotation of length 2.000e0 normalised"]);
        for n in &valid.scene.nodes {
            assert!(matches!(
                n.transform,
                Transform::Trs {
                    rotation: [0.0, 0.0, 0.0, 1.0],
                    ..
                }
            ));
        }
    }

    /// A skin that cannot be written is taken from its node (its mesh then unskinned, its
    /// weights no longer checked against it), and so is a skin that does not exist.
    #[test]
    fn unusable_and_missing_skins_are_taken_from_their_nodes() {
        for (joints, skin, reason) in [
            (
                vec![1, 1, 3, 0],
                0,
                "its skin 0 cannot be used (joint node 1 listed twice)",
            ),
            (
                vec![1, 2, 7, 0],
                0,
                "its skin 0 cannot be used (joint node 7 out of range (4 nodes))",
            ),
            (vec![], 0, "its skin 0 cannot be used (no joints)"),
            (vec![1, 2, 3, 0], 5, "skin 5 does not exist (1 skins)"),
        ] {
            let mut scene = broken();
            scene.skins[0].joints = joints;
            scene.nodes[0].skin = Some(skin);
            let valid = validate(scene);
            assert_eq!(valid.scene.nodes[0].skin, None, "{reason}");
            let said: Vec<String> = valid.warnings.iter().map(|w| w.to_string()).collect();
            let expect = format!("node 0: {reason}; its mesh is drawn without a skin");
            assert!(said.contains(&expect), "missing {expect:?} in {said:#?}");
            // Not cleaned against a skin it is no longer drawn with.
            assert_eq!(
                valid.scene.meshes[0].vertices.joints.as_deref().unwrap()[0],
                [3, 3, 9, 1]
            );
        }
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
        let said: Vec<String> = valid.warnings.iter().map(|w| w.to_string()).collect();
        assert!(said
            .iter()
            .any(|s| s
                == "mesh 0 \"m\": tangents without normals cannot be written in glTF; dropped"));
        assert!(said.iter().any(|s| {
            s
            == "mesh 0 \"m\": joints without weights (or weights without joints); skinning dropped"
        }));
    }

    /// Hierarchy, node and animation repairs: made once, said, and the scene a forest after.
    #[test]
    fn hierarchy_nodes_and_keys_are_repaired_once() {
        use crate::scene::{Animation, Channel, ChannelPath, Interpolation, Node, Transform};
        let node = |children: Vec<usize>| Node {
            children,
            ..Node::default()
        };
        let mut scene = Scene {
            // 0 → 1 twice, 2 → 3 → 2 (a cycle), 4 → 9 (out of range).
            nodes: vec![
                node(vec![1, 1]),
                node(vec![]),
                node(vec![3]),
                node(vec![2]),
                node(vec![9]),
            ],
            roots: vec![3, 7, 0],
            ..Scene::default()
        };
        scene.nodes[4].transform = Transform::Matrix([f32::NAN; 16]);
        scene.animations.push(Animation {
            channels: vec![Channel {
                node: 0,
                path: ChannelPath::Rotation,
                interpolation: Interpolation::Linear,
                times: vec![1.0, 0.5].into(),
                values: vec![0.0, 0.0, 0.0, 2.0, 0.0, 0.0, 0.0, 2.0].into(),
            }],
            ..Animation::default()
        });
        let valid = validate(scene);
        let said: Vec<String> = valid.warnings.iter().map(|w| w.to_string()).collect();
        assert_eq!(said.len(), 9, "{said:#?}");
        assert!(
            said.contains(
                &"animation 0 channel 0: 1 rotation keys not of unit length normalised".to_string()
            ),
            "{said:#?}"
        );
        let s = &valid.scene;
        let children: Vec<&[usize]> = s.nodes.iter().map(|n| n.children.as_slice()).collect();
        assert_eq!(children, [&[1][..], &[], &[3], &[], &[]]);
        assert_eq!(s.roots, [0, 2, 4]);
        assert!(matches!(s.nodes[4].transform, Transform::Trs { .. }));
        let ch = &s.animations[0].channels[0];
        assert_eq!(
            (&ch.times[..], &ch.values[..]),
            (&[1.0][..], &[0.0, 0.0, 0.0, 1.0][..])
        );
        let again = validate(valid.scene.into_inner());
        assert!(again.warnings.is_empty(), "{:#?}", again.warnings);
    }
}
