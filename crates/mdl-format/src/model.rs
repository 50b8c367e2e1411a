//! The document types: what an Altseed `.mdl` file *is*. No I/O here.
//!
//! Everything needed for a byte-exact rewrite is kept: floats as stored (their bits are never
//! touched), strings as raw UTF-16 code units, and every enum (rotation order, material type,
//! interpolation) as its raw `i32`. Bulk arrays (vertices, faces, material runs, bone
//! connectors, keyframes) are `bytemuck` [`Pod`] structs whose memory layout is
//! the file layout, so they are copied in bulk.

use bytemuck::{Pod, Zeroable};
use std::fmt;

/// The four magic bytes every file starts with: `"MDL"` and a NUL.
pub const MAGIC: [u8; 4] = *b"MDL\0";

/// A whole `.mdl` file.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Mdl {
    /// File version: 1 (bone transforms are matrices) or 2 (translation, rotation, scale).
    pub version: i32,
    /// The skeleton (the engine calls it the deformer); parents come before their children.
    pub bones: Vec<Bone>,
    /// Meshes, each split into divided meshes that share one material list.
    pub meshes: Vec<Mesh>,
    /// Animation sources: named sets of scalar curves.
    pub animation_sources: Vec<AnimationSource>,
    /// Animation clips, each naming one source by index.
    pub clips: Vec<AnimationClip>,
}

/// A string as stored: UTF-16LE code units without a terminator.
///
/// The units are kept as they are, so unpaired surrogates survive a round trip; use
/// [`MdlString::to_string_lossy`] for display.
#[derive(Clone, PartialEq, Eq, Hash, Default)]
pub struct MdlString {
    /// The UTF-16 code units.
    pub units: Vec<u16>,
}

impl MdlString {
    /// Encodes `text` as UTF-16.
    pub fn new(text: &str) -> Self {
        Self {
            units: text.encode_utf16().collect(),
        }
    }

    /// Wraps raw code units (which may be ill-formed UTF-16).
    pub fn from_units(units: impl Into<Vec<u16>>) -> Self {
        Self {
            units: units.into(),
        }
    }

    /// The text, with unpaired surrogates replaced by U+FFFD.
    pub fn to_string_lossy(&self) -> String {
        char::decode_utf16(self.units.iter().copied())
            .map(|r| r.unwrap_or(char::REPLACEMENT_CHARACTER))
            .collect()
    }

    /// The text, or `None` when the units hold an unpaired surrogate.
    pub fn to_string_strict(&self) -> Option<String> {
        String::from_utf16(&self.units).ok()
    }

    /// True when the units are well-formed UTF-16 (no unpaired surrogate).
    pub fn is_well_formed(&self) -> bool {
        char::decode_utf16(self.units.iter().copied()).all(|r| r.is_ok())
    }

    /// True for the empty string.
    pub fn is_empty(&self) -> bool {
        self.units.is_empty()
    }
}

impl fmt::Debug for MdlString {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(&self.to_string_lossy(), f)
    }
}

impl fmt::Display for MdlString {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.to_string_lossy())
    }
}

impl From<&str> for MdlString {
    fn from(text: &str) -> Self {
        Self::new(text)
    }
}

impl PartialEq<str> for MdlString {
    fn eq(&self, other: &str) -> bool {
        self.units.iter().copied().eq(other.encode_utf16())
    }
}

impl PartialEq<&str> for MdlString {
    fn eq(&self, other: &&str) -> bool {
        *self == **other
    }
}

/// A 4 × 4 matrix as stored: 16 floats row by row (`m[4 * row + col]`), column-vector
/// convention, so the translation is at flat indices 3, 7 and 11.
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, Pod, Zeroable)]
pub struct Matrix44(pub [f32; 16]);

impl Matrix44 {
    /// The identity matrix.
    pub const IDENTITY: Self = Self([
        1.0, 0.0, 0.0, 0.0, //
        0.0, 1.0, 0.0, 0.0, //
        0.0, 0.0, 1.0, 0.0, //
        0.0, 0.0, 0.0, 1.0,
    ]);

    /// A translation matrix (column vectors: the offsets go to indices 3, 7, 11).
    pub fn translation(x: f32, y: f32, z: f32) -> Self {
        let mut m = Self::IDENTITY;
        m.0[3] = x;
        m.0[7] = y;
        m.0[11] = z;
        m
    }

    /// The matrix as a `mint` row-major matrix (rows as stored).
    pub fn to_mint(&self) -> mint::RowMatrix4<f32> {
        mint::RowMatrix4::from(self.0)
    }
}

impl From<mint::RowMatrix4<f32>> for Matrix44 {
    fn from(m: mint::RowMatrix4<f32>) -> Self {
        let rows: [[f32; 4]; 4] = m.into();
        let mut out = [0.0; 16];
        for (dst, src) in out.chunks_exact_mut(4).zip(rows) {
            dst.copy_from_slice(&src);
        }
        Self(out)
    }
}

impl From<Matrix44> for mint::RowMatrix4<f32> {
    fn from(m: Matrix44) -> Self {
        m.to_mint()
    }
}

/// A bone's rotation order, kept as the raw `i32`; the known values are associated constants.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub struct RotationOrder(pub i32);

impl RotationOrder {
    /// 0: never set by FBX2MDL for the FBX "SphericXYZ" order (the engine gives an identity).
    pub const UNSET: Self = Self(0);
    /// 10: the rotation is a quaternion x, y, z, w.
    pub const QUATERNION: Self = Self(10);
    /// 11: Euler X, then Z, then Y.
    pub const XZY: Self = Self(11);
    /// 12: Euler X, then Y, then Z.
    pub const XYZ: Self = Self(12);
    /// 13: Euler Z, then X, then Y.
    pub const ZXY: Self = Self(13);
    /// 14: Euler Z, then Y, then X (miscomputed by the engine).
    pub const ZYX: Self = Self(14);
    /// 15: Euler Y, then X, then Z.
    pub const YXZ: Self = Self(15);
    /// 16: Euler Y, then Z, then X.
    pub const YZX: Self = Self(16);
    /// 18: the rotation is an axis x, y, z and an angle w.
    pub const AXIS_ANGLE: Self = Self(18);

    /// True for the values the engine knows (10–16 and 18).
    pub fn is_known(self) -> bool {
        matches!(self.0, 10..=16 | 18)
    }

    /// The name of a known value (`"XYZ"`, `"quaternion"`, …).
    pub fn name(self) -> Option<&'static str> {
        Some(match self.0 {
            10 => "quaternion",
            11 => "XZY",
            12 => "XYZ",
            13 => "ZXY",
            14 => "ZYX",
            15 => "YXZ",
            16 => "YZX",
            18 => "axis-angle",
            _ => return None,
        })
    }
}

/// A bone's local transform; which form a file uses depends on its version.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum BoneTransform {
    /// Version 1: the transform relative to the parent, as a matrix.
    Matrix(Matrix44),
    /// Version 2: translation, rotation (Euler angles in degrees plus a 4th value, or a
    /// quaternion / axis-angle depending on the rotation order) and scale.
    Trs {
        /// Local translation.
        translation: mint::Vector3<f32>,
        /// Rotation: x, y, z, w (see [`RotationOrder`]).
        rotation: mint::Vector4<f32>,
        /// Local scale.
        scaling: mint::Vector3<f32>,
    },
}

/// One bone.
#[derive(Clone, Debug, PartialEq)]
pub struct Bone {
    /// Name (curve targets refer to it).
    pub name: MdlString,
    /// Index of the parent bone, or −1 for a root; always below the bone's own index.
    pub parent: i32,
    /// Rotation order, raw.
    pub rotation_order: RotationOrder,
    /// Local transform: a matrix in version 1, TRS in version 2.
    pub transform: BoneTransform,
}

/// A mesh: its divided meshes and the materials they share.
#[derive(Clone, Debug, PartialEq, Default)]
pub struct Mesh {
    /// Parts of the mesh, each with at most 32 bone connectors in practice.
    pub divided: Vec<DividedMesh>,
    /// Materials, indexed by the material runs of every divided mesh.
    pub materials: Vec<Material>,
}

/// One part of a mesh, with its own vertex array and bone palette.
#[derive(Clone, Debug, PartialEq, Default)]
pub struct DividedMesh {
    /// Vertices (68 bytes each in the file).
    pub vertices: Vec<Vertex>,
    /// Triangles, as indices into `vertices`.
    pub faces: Vec<Face>,
    /// Consecutive runs of faces sharing one material; their counts sum to `faces.len()`.
    pub material_runs: Vec<MaterialRun>,
    /// The bone palette indexed by [`Vertex::bone_indices`].
    pub connectors: Vec<BoneConnector>,
}

/// A vertex, exactly as stored (68 bytes, no padding).
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, Pod, Zeroable, Default)]
pub struct Vertex {
    /// Position.
    pub position: [f32; 3],
    /// Normal.
    pub normal: [f32; 3],
    /// Binormal (points towards increasing v).
    pub binormal: [f32; 3],
    /// Texture coordinate; (0, 0) is the top-left of the image.
    pub uv: [f32; 2],
    /// Second texture coordinate (FBX2MDL writes 0, 0).
    pub sub_uv: [f32; 2],
    /// Colour R, G, B, A.
    pub color: [u8; 4],
    /// Bone weights, unorm bytes (255 = 1.0) that sum to 255.
    pub weights: [u8; 4],
    /// Bone indices into this divided mesh's connector array.
    pub bone_indices: [u8; 4],
    /// Bone indices into the mesh's original skin-cluster list (informational).
    pub original_bone_indices: [u8; 4],
}

impl Vertex {
    /// Size of a vertex in the file.
    pub const SIZE: usize = 68;

    /// The position as a `mint` vector.
    pub fn position(&self) -> mint::Vector3<f32> {
        self.position.into()
    }

    /// The normal as a `mint` vector.
    pub fn normal(&self) -> mint::Vector3<f32> {
        self.normal.into()
    }

    /// The binormal as a `mint` vector.
    pub fn binormal(&self) -> mint::Vector3<f32> {
        self.binormal.into()
    }

    /// The texture coordinate as a `mint` vector.
    pub fn uv(&self) -> mint::Vector2<f32> {
        self.uv.into()
    }

    /// The second texture coordinate as a `mint` vector.
    pub fn sub_uv(&self) -> mint::Vector2<f32> {
        self.sub_uv.into()
    }
}

/// A triangle: three indices into its divided mesh's vertices (front faces are clockwise).
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Pod, Zeroable, Default)]
pub struct Face(pub [i32; 3]);

/// A run of consecutive faces using one material.
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Pod, Zeroable, Default)]
pub struct MaterialRun {
    /// Index into the owning [`Mesh::materials`].
    pub material_index: i32,
    /// Number of faces in the run.
    pub face_count: i32,
}

/// An entry of a divided mesh's bone palette.
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, Pod, Zeroable)]
pub struct BoneConnector {
    /// Index into the global bone array.
    pub bone_index: i32,
    /// The bind-pose (inverse bind) matrix taking mesh space into the bone's space.
    pub offset: Matrix44,
}

/// A material: external (a path to a material file) or internal (three texture paths).
#[derive(Clone, Debug, PartialEq)]
pub enum Material {
    /// Type 1: one path to a material file.
    External {
        /// Path of the material file.
        path: MdlString,
    },
    /// Any type other than 1 (FBX2MDL writes 0): three texture paths, relative to the file,
    /// with `/` separators; empty means none.
    Internal {
        /// The raw type value (never 1).
        raw_type: i32,
        /// Colour texture.
        color: MdlString,
        /// Normal map.
        normal: MdlString,
        /// Metalness map (called "specular" in the old spec page).
        metalness: MdlString,
    },
}

impl Material {
    /// The raw type value of the external form.
    pub const EXTERNAL: i32 = 1;
    /// The raw type value FBX2MDL writes for internal materials.
    pub const INTERNAL: i32 = 0;

    /// An internal material of type 0 with only a colour texture.
    pub fn with_color(path: &str) -> Self {
        Self::Internal {
            raw_type: Self::INTERNAL,
            color: path.into(),
            normal: MdlString::default(),
            metalness: MdlString::default(),
        }
    }

    /// The raw type value as stored.
    pub fn raw_type(&self) -> i32 {
        match self {
            Self::External { .. } => Self::EXTERNAL,
            Self::Internal { raw_type, .. } => *raw_type,
        }
    }

    /// Every path of the material, in file order.
    pub fn paths(&self) -> Vec<&MdlString> {
        match self {
            Self::External { path } => vec![path],
            Self::Internal {
                color,
                normal,
                metalness,
                ..
            } => vec![color, normal, metalness],
        }
    }
}

/// A named set of curves.
#[derive(Clone, Debug, PartialEq, Default)]
pub struct AnimationSource {
    /// Name (FBX2MDL: the FBX take name).
    pub name: MdlString,
    /// Scalar curves.
    pub curves: Vec<Curve>,
}

/// One scalar curve (the engine's KeyframeAnimation).
#[derive(Clone, Debug, PartialEq, Default)]
pub struct Curve {
    /// The raw target, `"<node>.<pos|rot|scl>.<x|y|z|w>"`.
    pub target: MdlString,
    /// Keyframes.
    pub keys: Vec<Keyframe>,
}

impl Curve {
    /// The target split into node, channel and axis, or `None` when it is malformed.
    pub fn parse_target(&self) -> Option<CurveTarget> {
        CurveTarget::parse(&self.target.to_string_lossy())
    }
}

/// What a curve animates.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Channel {
    /// `pos`: translation.
    Position,
    /// `rot`: rotation (Euler degrees in the bone's rotation order).
    Rotation,
    /// `scl`: scale.
    Scale,
}

/// The component a curve animates.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Axis {
    /// `x`
    X,
    /// `y`
    Y,
    /// `z`
    Z,
    /// `w` (used only by the quaternion and axis-angle rotation orders)
    W,
}

/// A parsed curve target.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct CurveTarget {
    /// Node (bone) name: everything before the last two dot-separated parts.
    pub node: String,
    /// Channel.
    pub channel: Channel,
    /// Axis.
    pub axis: Axis,
}

impl CurveTarget {
    /// Parses `"<node>.<pos|rot|scl>.<x|y|z|w>"`; the node may itself contain dots.
    pub fn parse(target: &str) -> Option<Self> {
        let mut parts = target.rsplitn(3, '.');
        let axis = match parts.next()? {
            "x" => Axis::X,
            "y" => Axis::Y,
            "z" => Axis::Z,
            "w" => Axis::W,
            _ => return None,
        };
        let channel = match parts.next()? {
            "pos" => Channel::Position,
            "rot" => Channel::Rotation,
            "scl" => Channel::Scale,
            _ => return None,
        };
        let node = parts.next()?;
        Some(Self {
            node: node.to_owned(),
            channel,
            axis,
        })
    }
}

/// A keyframe's interpolation, kept as the raw `i32`.
///
/// The values are the converter's (and the spec page's); the engine's own enum is shifted by
/// one (0 = constant, 1 = linear, 2 = cubic). See the crate documentation.
#[repr(transparent)]
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Pod, Zeroable, Default)]
pub struct Interpolation(pub i32);

impl Interpolation {
    /// 1: hold the value until the next key.
    pub const CONSTANT: Self = Self(1);
    /// 2: straight line to the next key.
    pub const LINEAR: Self = Self(2);
    /// 3: cubic Bézier using the handles.
    pub const CUBIC: Self = Self(3);

    /// True for 1, 2 and 3.
    pub fn is_known(self) -> bool {
        matches!(self.0, 1..=3)
    }
}

/// A keyframe (28 bytes in the file).
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, Pod, Zeroable, Default)]
pub struct Keyframe {
    /// Time in frames at 60 fps.
    pub time: f32,
    /// Value.
    pub value: f32,
    /// Left Bézier handle (time, value).
    pub left_handle: [f32; 2],
    /// Right Bézier handle (time, value).
    pub right_handle: [f32; 2],
    /// Interpolation towards the next key, raw.
    pub interpolation: Interpolation,
}

impl Keyframe {
    /// A key whose handles sit on the key point (as FBX2MDL writes them).
    pub fn new(time: f32, value: f32, interpolation: Interpolation) -> Self {
        Self {
            time,
            value,
            left_handle: [time, value],
            right_handle: [time, value],
            interpolation,
        }
    }

    /// The left handle as a `mint` vector.
    pub fn left(&self) -> mint::Vector2<f32> {
        self.left_handle.into()
    }

    /// The right handle as a `mint` vector.
    pub fn right(&self) -> mint::Vector2<f32> {
        self.right_handle.into()
    }
}

/// An animation clip: a name and the source it plays.
#[derive(Clone, Debug, PartialEq, Default)]
pub struct AnimationClip {
    /// Name.
    pub name: MdlString,
    /// Index into [`Mdl::animation_sources`].
    pub source_index: i32,
}

/// A file in the 2014 development layout (written by FBX2MDL between about April and June
/// 2014). It claims version 1 like the stable layout but orders its parts differently:
/// mesh groups first, each holding its meshes, its own bones and its materials. Read it with
/// [`LegacyMdl::from_bytes`](crate::LegacyMdl::from_bytes);
/// [`Mdl::from_bytes`](crate::Model::from_bytes) rejects it with `UnsupportedLayout`.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct LegacyMdl {
    /// Always 1 in known files.
    pub version: i32,
    /// Mesh groups.
    pub mesh_groups: Vec<LegacyMeshGroup>,
    /// Animation sources (same encoding as the stable layout).
    pub animation_sources: Vec<AnimationSource>,
    /// Animation clips (same encoding as the stable layout).
    pub clips: Vec<AnimationClip>,
}

/// A legacy mesh group: meshes, then their bones, then their materials.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct LegacyMeshGroup {
    /// Meshes.
    pub meshes: Vec<LegacyMesh>,
    /// Bones of the group.
    pub bones: Vec<LegacyBone>,
    /// Materials, indexed by the meshes' material runs.
    pub materials: Vec<Material>,
}

/// A legacy mesh: like a divided mesh, but with bone-offset records instead of connectors.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct LegacyMesh {
    /// Vertices (same 68-byte layout as the stable format).
    pub vertices: Vec<Vertex>,
    /// Triangles.
    pub faces: Vec<Face>,
    /// Material runs.
    pub material_runs: Vec<MaterialRun>,
    /// Bone palettes per face range.
    pub bone_offsets: Vec<LegacyBoneOffset>,
}

/// A legacy bone palette entry (36 bytes): 32 bone indices and the first face they apply to.
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Pod, Zeroable)]
pub struct LegacyBoneOffset {
    /// Bone indices.
    pub bone_indices: [u8; 32],
    /// First face of the range.
    pub face_offset: i32,
}

/// A legacy bone: two matrices instead of one transform.
#[derive(Debug, Clone, PartialEq)]
pub struct LegacyBone {
    /// Name.
    pub name: MdlString,
    /// Parent index within the group, −1 for a root (kept raw, not validated).
    pub parent: i32,
    /// Rotation order, raw.
    pub rotation_order: RotationOrder,
    /// Transform relative to the parent.
    pub local: Matrix44,
    /// Inverse of the global (bind) transform.
    pub inverse_global: Matrix44,
}

const _: () = {
    assert!(std::mem::size_of::<Vertex>() == 68);
    assert!(std::mem::size_of::<Face>() == 12);
    assert!(std::mem::size_of::<MaterialRun>() == 8);
    assert!(std::mem::size_of::<BoneConnector>() == 68);
    assert!(std::mem::size_of::<Keyframe>() == 28);
    assert!(std::mem::size_of::<LegacyBoneOffset>() == 36);
};
