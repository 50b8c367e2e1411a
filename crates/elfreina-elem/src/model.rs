//! The typed model: what an `.elem` file *means*.
//!
//! Conventions used throughout:
//!
//! * A scalar key that may be absent is an `Option`; the writer writes it when it is `Some`.
//! * A list without a count key of its own (`Normals`, `VertexFormat`, `HierarchyList`, …) is
//!   a `Vec` or a plain struct: absent and empty mean the same thing, and the writer omits it
//!   when it is empty.
//! * A list scope that holds its own count key (`MeshDataList`, `Materials`,
//!   `RenderingMeshList`, `AnimationList`) is an `Option`, because the count makes it non-empty.
//! * Count keys are not stored: they are derived from the data, checked when reading and
//!   written from the data (counts first, as Danmakufu needs).
//! * Unknown keys, scopes and data lines are kept verbatim, in order, in the `extra` list of
//!   the scope that held them, and written after the known items.
//! * Numbers are `f64` as in the specification (integers where it says INT); colours are
//!   stored in file order **a:r:g:b**; matrices are the 16 values in file order (row-major,
//!   `M11 M12 … M44`, Direct3D row vectors).

use crate::runs::Runs;
use crate::tree::{Item, Scope};

/// A whole `.elem` document.
#[derive(Debug, Clone, PartialEq)]
pub struct Elem {
    /// The text after `File Version` (`1.00` for every known file).
    pub version: String,
    /// The `Setting` scope (written when any field is set).
    pub setting: Setting,
    /// `MeshDataList` (read also under its alias `MeshDatas`).
    pub mesh_data: Option<MeshDataList>,
    /// `HierarchyList`: the top-level nodes (written when non-empty).
    pub hierarchy: HierarchyList,
    /// `RenderingMeshList`.
    pub rendering: Option<RenderingMeshList>,
    /// `AnimationList`.
    pub animation: Option<AnimationList>,
    /// Unknown top-level items, in file order.
    pub extra: Vec<Item>,
}

impl Default for Elem {
    fn default() -> Self {
        Self {
            version: "1.00".to_owned(),
            setting: Setting::default(),
            mesh_data: None,
            hierarchy: HierarchyList::default(),
            rendering: None,
            animation: None,
            extra: Vec::new(),
        }
    }
}

impl Elem {
    /// The mesh containers (empty when there is no `MeshDataList`).
    pub fn containers(&self) -> &[MeshContainer] {
        self.mesh_data
            .as_ref()
            .map_or(&[][..], |m| m.containers.as_slice())
    }

    /// The animations (empty when there is no `AnimationList`).
    pub fn animations(&self) -> &[AnimationData] {
        self.animation
            .as_ref()
            .map_or(&[][..], |a| a.animations.as_slice())
    }

    /// The rendering meshes (empty when there is no `RenderingMeshList`).
    pub fn rendering_meshes(&self) -> &[RenderingMesh] {
        self.rendering
            .as_ref()
            .map_or(&[][..], |r| r.meshes.as_slice())
    }
}

/// `Setting`.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Setting {
    /// `ElfreinaSoftVersion` (also read from `SoftVersion`).
    pub soft_version: Option<f64>,
    /// `ElfreinaBetaVersion` (Keystone only).
    pub beta_version: Option<i64>,
    /// `LoadType` (only `"View"` exists).
    pub load_type: Option<String>,
    /// `IsRightHand` (Keystone only).
    pub is_right_hand: Option<bool>,
    /// Unknown items.
    pub extra: Vec<Item>,
}

impl Setting {
    /// True when nothing is set (the writer then omits the scope).
    pub fn is_empty(&self) -> bool {
        self.soft_version.is_none()
            && self.beta_version.is_none()
            && self.load_type.is_none()
            && self.is_right_hand.is_none()
            && self.extra.is_empty()
    }
}

/// `MeshDataList`: the model data.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct MeshDataList {
    /// `MeshContainer` scopes (`MeshContainerCount` is their number).
    pub containers: Vec<MeshContainer>,
    /// Unknown items.
    pub extra: Vec<Item>,
}

/// A 4×4 matrix: 16 values in file order (`M11 M12 M13 M14 M21 … M44`, row-major).
pub type Matrix = [f64; 16];

/// `MeshContainer`.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct MeshContainer {
    /// `Name`.
    pub name: Option<String>,
    /// `VertexFormat`: the component names as written (informational).
    pub vertex_format: Vec<String>,
    /// `BoneNames`; position = palette index.
    pub bone_names: Vec<String>,
    /// `OffsetMatrices`, one per bone.
    pub offset_matrices: Vec<Matrix>,
    /// `Materials`.
    pub materials: Option<Materials>,
    /// `Mesh` scopes (`MeshCount` is their number).
    pub meshes: Vec<Mesh>,
    /// Unknown items.
    pub extra: Vec<Item>,
}

impl MeshContainer {
    /// The number of bones: the longer of `BoneNames` and `OffsetMatrices`.
    pub fn bone_count(&self) -> usize {
        self.bone_names.len().max(self.offset_matrices.len())
    }

    /// The materials (empty when there is no `Materials` scope).
    pub fn material_list(&self) -> &[Material] {
        self.materials
            .as_ref()
            .map_or(&[][..], |m| m.materials.as_slice())
    }

    /// Offset matrix `i` as a mint row matrix.
    pub fn offset_matrix(&self, i: usize) -> Option<mint::RowMatrix4<f64>> {
        self.offset_matrices.get(i).map(matrix_to_mint)
    }
}

/// Converts 16 row-major values into a mint row matrix.
pub fn matrix_to_mint(m: &Matrix) -> mint::RowMatrix4<f64> {
    mint::RowMatrix4::from(*m)
}

/// `Materials`: `MaterialCount` and the `Material` scopes.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Materials {
    /// The materials.
    pub materials: Vec<Material>,
    /// Unknown items.
    pub extra: Vec<Item>,
}

/// A colour in file order: alpha, red, green, blue.
pub type Argb = [f64; 4];

/// Converts a file-order `a:r:g:b` colour to RGBA.
pub fn argb_to_rgba(c: &Argb) -> mint::Vector4<f64> {
    mint::Vector4 {
        x: c[1],
        y: c[2],
        z: c[3],
        w: c[0],
    }
}

/// `Material`.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Material {
    /// `Name`.
    pub name: Option<String>,
    /// `Diffuse`, a:r:g:b.
    pub diffuse: Option<Argb>,
    /// `Ambient`, a:r:g:b.
    pub ambient: Option<Argb>,
    /// `Emissive`, a:r:g:b.
    pub emissive: Option<Argb>,
    /// `Specular`, a:r:g:b.
    pub specular: Option<Argb>,
    /// `SpecularSharpness`.
    pub specular_sharpness: Option<f64>,
    /// `TextureFilename` (`""` = none).
    pub texture_filename: Option<String>,
    /// Unknown items.
    pub extra: Vec<Item>,
}

/// Number of UV sets a mesh can hold (`Texture1UV` … `Texture8UV`).
pub const UV_SETS: usize = 8;

/// `Mesh`: one part of a container.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Mesh {
    /// `Name`.
    pub name: Option<String>,
    /// `Positions` (`VertexCount` is their number).
    pub positions: Vec<[f64; 3]>,
    /// `Normals` (empty = absent).
    pub normals: Vec<[f64; 3]>,
    /// Per-vertex `Diffuse`, a:r:g:b (empty = absent).
    pub diffuse: Vec<Argb>,
    /// UV sets: index 0 is `TextureUV` / `Texture1UV`, index k is `Texture{k+1}UV` (empty =
    /// absent). The writer writes `TextureUV` when set 0 is the only one.
    pub uv_sets: [Vec<[f64; 2]>; UV_SETS],
    /// `BlendList` (empty = absent).
    pub blend_list: BlendList,
    /// `Blends`, kept verbatim (described nowhere).
    pub blends: Option<Scope>,
    /// `BlendIndices`, kept verbatim (described nowhere).
    pub blend_indices: Option<Scope>,
    /// `VertexIndices`: the corner count of each face (`FaceCount` is their number), as runs
    /// (mostly one run of 3).
    pub face_sizes: Runs,
    /// `VertexIndices`: every face's corner indices, concatenated.
    pub face_indices: Vec<u32>,
    /// `Attributes`: the material index of each face (empty = absent), as runs.
    pub attributes: Runs,
    /// Unknown items.
    pub extra: Vec<Item>,
}

impl Mesh {
    /// The number of vertices.
    pub fn vertex_count(&self) -> usize {
        self.positions.len()
    }

    /// The number of faces (polygons).
    pub fn face_count(&self) -> usize {
        self.face_sizes.len()
    }

    /// The faces, each as its corner indices.
    pub fn faces(&self) -> impl Iterator<Item = &[u32]> + '_ {
        let mut rest: &[u32] = &self.face_indices;
        self.face_sizes.iter().map(move |n| {
            let n = (n as usize).min(rest.len());
            let (face, tail) = rest.split_at(n);
            rest = tail;
            face
        })
    }

    /// Appends a face.
    pub fn push_face(&mut self, corners: &[u32]) {
        self.face_sizes
            .push(u32::try_from(corners.len()).unwrap_or(u32::MAX));
        self.face_indices.extend_from_slice(corners);
    }

    /// Position `i` as a mint point.
    pub fn position(&self, i: usize) -> Option<mint::Point3<f64>> {
        self.positions.get(i).map(|p| mint::Point3::from(*p))
    }

    /// Normal `i` as a mint vector.
    pub fn normal(&self, i: usize) -> Option<mint::Vector3<f64>> {
        self.normals.get(i).map(|n| mint::Vector3::from(*n))
    }

    /// UV `i` of set `set` (0-based) as a mint vector.
    pub fn uv(&self, set: usize, i: usize) -> Option<mint::Vector2<f64>> {
        self.uv_sets
            .get(set)
            .and_then(|s| s.get(i))
            .map(|uv| mint::Vector2::from(*uv))
    }

    /// The number of triangles after a fan split of every polygon.
    pub fn triangle_count(&self) -> usize {
        self.face_sizes
            .runs()
            .iter()
            .map(|&(n, k)| (n as usize).saturating_sub(2).saturating_mul(k as usize))
            .sum()
    }
}

/// `BlendList`: the skinning of one mesh.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct BlendList {
    /// `BlendPart` scopes.
    pub parts: Vec<BlendPart>,
    /// Unknown items.
    pub extra: Vec<Item>,
}

impl BlendList {
    /// True when there is nothing to write.
    pub fn is_empty(&self) -> bool {
        self.parts.is_empty() && self.extra.is_empty()
    }
}

/// `BlendPart`: the vertices one bone influences.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct BlendPart {
    /// `BoneName`.
    pub bone_name: Option<String>,
    /// `TransformIndex`: index into `BoneNames` / `OffsetMatrices`.
    pub transform_index: Option<u32>,
    /// `VertexBlend` rows.
    pub vertex_blends: Vec<VertexBlend>,
    /// Unknown items.
    pub extra: Vec<Item>,
}

/// One `vertex,weight` row of `VertexBlend`.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct VertexBlend {
    /// Vertex index into the mesh.
    pub vertex: u32,
    /// Weight.
    pub weight: f64,
}

/// `HierarchyList`: the node tree.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct HierarchyList {
    /// Top-level `Node` scopes.
    pub nodes: Vec<Node>,
    /// Unknown items.
    pub extra: Vec<Item>,
}

impl HierarchyList {
    /// True when there is nothing to write.
    pub fn is_empty(&self) -> bool {
        self.nodes.is_empty() && self.extra.is_empty()
    }

    /// Every node, depth first, parents before children, with its parent's index in this
    /// order (`None` for top-level nodes). Iterative: deep chains do not use the call stack.
    pub fn flatten(&self) -> Vec<(Option<usize>, &Node)> {
        let mut out = Vec::new();
        let mut stack: Vec<(Option<usize>, &Node)> =
            self.nodes.iter().rev().map(|n| (None, n)).collect();
        while let Some((parent, node)) = stack.pop() {
            let index = out.len();
            out.push((parent, node));
            stack.extend(node.children.iter().rev().map(|c| (Some(index), c)));
        }
        out
    }

    /// The number of nodes at every level.
    pub fn node_count(&self) -> usize {
        let mut count = 0;
        let mut stack: Vec<&Node> = self.nodes.iter().collect();
        while let Some(node) = stack.pop() {
            count += 1;
            stack.extend(node.children.iter());
        }
        count
    }
}

/// `Node`: one node of the hierarchy.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Node {
    /// `NodeName`.
    pub name: Option<String>,
    /// `InitPostureMatrix`: the bind-pose local transform, 16 values row-major.
    pub init_posture: Option<Matrix>,
    /// Child `Node` scopes.
    pub children: Vec<Node>,
    /// Unknown items.
    pub extra: Vec<Item>,
}

/// `RenderingMeshList`.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct RenderingMeshList {
    /// `RenderingMesh` scopes (`RenderingMeshCount` is their number).
    pub meshes: Vec<RenderingMesh>,
    /// Unknown items.
    pub extra: Vec<Item>,
}

/// `RenderingMesh`.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct RenderingMesh {
    /// `RenderingMeshName`: a mesh container name.
    pub name: Option<String>,
    /// `HierarchyNames` (`HierarchyNamesCount` is their number).
    pub hierarchy_names: Vec<String>,
    /// Unknown items.
    pub extra: Vec<Item>,
}

/// `AnimationList`.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct AnimationList {
    /// `AnimationData` scopes (`AnimationCount` is their number).
    pub animations: Vec<AnimationData>,
    /// Unknown items.
    pub extra: Vec<Item>,
}

/// `AnimationData`: one animation.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct AnimationData {
    /// `AnimationName`.
    pub name: Option<String>,
    /// `AnimationTime`: length of one loop in milliseconds.
    pub time_ms: Option<i64>,
    /// `FrameParSecond` (sic).
    pub frames_per_second: Option<i64>,
    /// `TransitionTime`.
    pub transition_time: Option<i64>,
    /// `Priority`.
    pub priority: Option<i64>,
    /// `Loop`.
    pub looped: Option<bool>,
    /// `BoneAnimation` (empty = absent).
    pub bone_animation: BoneAnimation,
    /// `UVAnimation` (empty = absent).
    pub uv_animation: UvAnimation,
    /// Unknown items.
    pub extra: Vec<Item>,
}

/// `BoneAnimation`.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct BoneAnimation {
    /// The overall `TimeKeys` (informational).
    pub time_keys: Vec<f64>,
    /// `AnimationPart` scopes.
    pub parts: Vec<BoneAnimationPart>,
    /// Unknown items.
    pub extra: Vec<Item>,
}

impl BoneAnimation {
    /// True when there is nothing to write.
    pub fn is_empty(&self) -> bool {
        self.time_keys.is_empty() && self.parts.is_empty() && self.extra.is_empty()
    }
}

/// A bone `AnimationPart`.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct BoneAnimationPart {
    /// `NodeName`.
    pub node_name: Option<String>,
    /// `TransitionTime` (Keystone only).
    pub transition_time: Option<i64>,
    /// `InterpolationType` (Keystone only): `"Linear"`, `"Step"`, `"Spline"`, `"Lagrange"`.
    pub interpolation_type: Option<String>,
    /// `TimeKeys`, normalised (1.0 = `AnimationTime`).
    pub time_keys: Vec<f64>,
    /// `TransKeys`, x:y:z.
    pub trans_keys: Vec<[f64; 3]>,
    /// `RotateKeys`, quaternion x:y:z:w.
    pub rotate_keys: Vec<[f64; 4]>,
    /// `ScaleKeys`, x:y:z.
    pub scale_keys: Vec<[f64; 3]>,
    /// Unknown items.
    pub extra: Vec<Item>,
}

/// `UVAnimation`.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct UvAnimation {
    /// The overall `TimeKeys` (informational).
    pub time_keys: Vec<f64>,
    /// `AnimationPart` scopes.
    pub parts: Vec<UvAnimationPart>,
    /// Unknown items.
    pub extra: Vec<Item>,
}

impl UvAnimation {
    /// True when there is nothing to write.
    pub fn is_empty(&self) -> bool {
        self.time_keys.is_empty() && self.parts.is_empty() && self.extra.is_empty()
    }
}

/// A UV `AnimationPart`. Key rows are kept as written (the specification says u:v, one angle,
/// u:v, but files are known to differ).
#[derive(Debug, Clone, PartialEq, Default)]
pub struct UvAnimationPart {
    /// `MeshContainerName`.
    pub mesh_container_name: Option<String>,
    /// `MaterialName`.
    pub material_name: Option<String>,
    /// `TimeKeys`, normalised.
    pub time_keys: Vec<f64>,
    /// `TransKeys` rows.
    pub trans_keys: Vec<Vec<f64>>,
    /// `RotateKeys` rows.
    pub rotate_keys: Vec<Vec<f64>>,
    /// `ScaleKeys` rows.
    pub scale_keys: Vec<Vec<f64>>,
    /// Unknown items.
    pub extra: Vec<Item>,
}
