//! The BMF document: what the format *is*, with no I/O.
//!
//! Bulk arrays (vertices, indices, matrices) are vectors of bytemuck `Pod` structs whose memory
//! layout is the file's, so reading and writing them is a single copy. Accessors return `mint`
//! types for interoperability with any math library.

use bytemuck::{Pod, Zeroable};

/// The 16-byte file header.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Header {
    /// The raw 16 bytes: `BDV1.0` or `BDV1.1`, then NUL padding. Bytes 7..15 are kept even when
    /// they are not zero (the loader ignores them).
    pub raw: [u8; 16],
}

impl Header {
    /// A header as the Fbx2Bin tool writes it: the version text, NUL-padded.
    pub fn new(version: Version) -> Self {
        let mut raw = [0u8; 16];
        raw[..6].copy_from_slice(version.as_str().as_bytes());
        Self { raw }
    }

    /// The version named by the header.
    pub fn version(&self) -> Version {
        if self.raw[5] == b'1' {
            Version::V1_1
        } else {
            Version::V1_0
        }
    }
}

/// The two versions of the format.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Version {
    /// `BDV1.0`: exactly one mesh.
    V1_0,
    /// `BDV1.1`: a MashCount block, then one or more meshes.
    V1_1,
}

impl Version {
    /// The header text, `BDV1.0` or `BDV1.1`.
    pub fn as_str(self) -> &'static str {
        match self {
            Version::V1_0 => "BDV1.0",
            Version::V1_1 => "BDV1.1",
        }
    }
}

/// A whole `.bmf` file.
#[derive(Debug, Clone, PartialEq)]
pub struct Bmf {
    /// The file header.
    pub header: Header,
    /// The meshes, in file order. A `BDV1.0` file has exactly one.
    pub meshes: Vec<Mesh>,
}

impl Bmf {
    /// A document of the given meshes with the header the tool would write: `BDV1.0` for one
    /// mesh, `BDV1.1` for more.
    pub fn new(meshes: Vec<Mesh>) -> Self {
        let version = if meshes.len() == 1 {
            Version::V1_0
        } else {
            Version::V1_1
        };
        Self {
            header: Header::new(version),
            meshes,
        }
    }
}

/// One mesh: a vertex block, an index block, materials, an optional skin and its End block.
#[derive(Debug, Clone, PartialEq)]
pub struct Mesh {
    /// The vertices; their kind decides the block type (0, 7, 4 or 8).
    pub vertices: Vertices,
    /// Triangle list indices into `vertices`.
    pub indices: Vec<u16>,
    /// The materials, each owning a range of `indices`.
    pub materials: Vec<Material>,
    /// Bone count and baked skinning matrices. Present exactly when the vertices are skinned.
    pub skin: Option<Skin>,
    /// The End block's size field: 0 in every real file, kept for an exact rewrite.
    pub end_size: u32,
}

impl Mesh {
    /// A static or skinned mesh with an End size of 0.
    pub fn new(
        vertices: Vertices,
        indices: Vec<u16>,
        materials: Vec<Material>,
        skin: Option<Skin>,
    ) -> Self {
        Self {
            vertices,
            indices,
            materials,
            skin,
            end_size: 0,
        }
    }

    /// Number of triangles (`indices.len() / 3`).
    pub fn triangle_count(&self) -> usize {
        self.indices.len() / 3
    }
}

/// The four vertex layouts.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum VertexKind {
    /// Block type 0: position, normal, uv (32 bytes).
    Plain,
    /// Block type 7: position, normal, tangent, uv (48 bytes).
    Tangent,
    /// Block type 4: position, normal, uv, 4 bone indices, 4 weights (64 bytes).
    Skinned,
    /// Block type 8: position, normal, tangent, uv, 4 bone indices, 4 weights (80 bytes).
    SkinnedTangent,
}

impl VertexKind {
    /// The block type number in the file.
    pub fn block_type(self) -> u32 {
        match self {
            VertexKind::Plain => 0,
            VertexKind::Skinned => 4,
            VertexKind::Tangent => 7,
            VertexKind::SkinnedTangent => 8,
        }
    }

    /// The vertex kind of a block type, if it is a vertex block.
    pub fn from_block_type(kind: u32) -> Option<Self> {
        match kind {
            0 => Some(VertexKind::Plain),
            4 => Some(VertexKind::Skinned),
            7 => Some(VertexKind::Tangent),
            8 => Some(VertexKind::SkinnedTangent),
            _ => None,
        }
    }

    /// Bytes per vertex.
    pub fn size(self) -> usize {
        match self {
            VertexKind::Plain => size_of::<Vertex>(),
            VertexKind::Tangent => size_of::<TangentVertex>(),
            VertexKind::Skinned => size_of::<SkinnedVertex>(),
            VertexKind::SkinnedTangent => size_of::<SkinnedTangentVertex>(),
        }
    }

    /// The name used in the BaseCross sources.
    pub fn name(self) -> &'static str {
        match self {
            VertexKind::Plain => "Vertex",
            VertexKind::Tangent => "VertexWithTangent",
            VertexKind::Skinned => "SkinedVertex",
            VertexKind::SkinnedTangent => "SkinedVertexWithTangent",
        }
    }

    /// True for the two skinned layouts.
    pub fn is_skinned(self) -> bool {
        matches!(self, VertexKind::Skinned | VertexKind::SkinnedTangent)
    }
}

/// A mesh's vertex array, in one of the four layouts.
#[derive(Debug, Clone, PartialEq)]
pub enum Vertices {
    /// Block type 0.
    Plain(Vec<Vertex>),
    /// Block type 7.
    Tangent(Vec<TangentVertex>),
    /// Block type 4.
    Skinned(Vec<SkinnedVertex>),
    /// Block type 8.
    SkinnedTangent(Vec<SkinnedTangentVertex>),
}

impl Vertices {
    /// The layout.
    pub fn kind(&self) -> VertexKind {
        match self {
            Vertices::Plain(_) => VertexKind::Plain,
            Vertices::Tangent(_) => VertexKind::Tangent,
            Vertices::Skinned(_) => VertexKind::Skinned,
            Vertices::SkinnedTangent(_) => VertexKind::SkinnedTangent,
        }
    }

    /// Number of vertices.
    pub fn len(&self) -> usize {
        match self {
            Vertices::Plain(v) => v.len(),
            Vertices::Tangent(v) => v.len(),
            Vertices::Skinned(v) => v.len(),
            Vertices::SkinnedTangent(v) => v.len(),
        }
    }

    /// True when there are no vertices.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The vertex block payload exactly as stored in the file.
    pub fn as_bytes(&self) -> &[u8] {
        match self {
            Vertices::Plain(v) => bytemuck::cast_slice(v),
            Vertices::Tangent(v) => bytemuck::cast_slice(v),
            Vertices::Skinned(v) => bytemuck::cast_slice(v),
            Vertices::SkinnedTangent(v) => bytemuck::cast_slice(v),
        }
    }

    /// Vertex `i` seen through the layout-independent [`VertexView`].
    pub fn get(&self, i: usize) -> Option<VertexView> {
        match self {
            Vertices::Plain(v) => v.get(i).map(|v| VertexView {
                position: v.position,
                normal: v.normal,
                uv: v.uv,
                tangent: None,
                joints: None,
            }),
            Vertices::Tangent(v) => v.get(i).map(|v| VertexView {
                position: v.position,
                normal: v.normal,
                uv: v.uv,
                tangent: Some(v.tangent),
                joints: None,
            }),
            Vertices::Skinned(v) => v.get(i).map(|v| VertexView {
                position: v.position,
                normal: v.normal,
                uv: v.uv,
                tangent: None,
                joints: Some((v.bone_indices, v.weights)),
            }),
            Vertices::SkinnedTangent(v) => v.get(i).map(|v| VertexView {
                position: v.position,
                normal: v.normal,
                uv: v.uv,
                tangent: Some(v.tangent),
                joints: Some((v.bone_indices, v.weights)),
            }),
        }
    }

    /// Every vertex through [`VertexView`].
    pub fn iter(&self) -> impl Iterator<Item = VertexView> + '_ {
        (0..self.len()).filter_map(|i| self.get(i))
    }
}

/// A layout-independent copy of one vertex.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct VertexView {
    /// Position, left-handed, as stored.
    pub position: [f32; 3],
    /// Normal, as stored.
    pub normal: [f32; 3],
    /// Texture coordinate, top-left origin.
    pub uv: [f32; 2],
    /// Raw FBX tangent (x, y, z, w), for the tangent layouts.
    pub tangent: Option<[f32; 4]>,
    /// Bone indices and weights, for the skinned layouts.
    pub joints: Option<([u32; 4], [f32; 4])>,
}

macro_rules! mint_accessors {
    ($t:ty) => {
        impl $t {
            /// The position as a `mint` point.
            pub fn position(&self) -> mint::Point3<f32> {
                self.position.into()
            }
            /// The normal as a `mint` vector.
            pub fn normal(&self) -> mint::Vector3<f32> {
                self.normal.into()
            }
            /// The texture coordinate as a `mint` point.
            pub fn uv(&self) -> mint::Point2<f32> {
                self.uv.into()
            }
        }
    };
}

/// Block type 0 vertex (32 bytes).
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Default, Pod, Zeroable)]
pub struct Vertex {
    /// Position.
    pub position: [f32; 3],
    /// Normal.
    pub normal: [f32; 3],
    /// Texture coordinate.
    pub uv: [f32; 2],
}
mint_accessors!(Vertex);

/// Block type 7 vertex (48 bytes). The tangent comes *before* the uv.
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Default, Pod, Zeroable)]
pub struct TangentVertex {
    /// Position.
    pub position: [f32; 3],
    /// Normal.
    pub normal: [f32; 3],
    /// Raw FBX tangent (x, y, z, w).
    pub tangent: [f32; 4],
    /// Texture coordinate.
    pub uv: [f32; 2],
}
mint_accessors!(TangentVertex);

/// Block type 4 vertex (64 bytes).
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Default, Pod, Zeroable)]
pub struct SkinnedVertex {
    /// Position.
    pub position: [f32; 3],
    /// Normal.
    pub normal: [f32; 3],
    /// Texture coordinate.
    pub uv: [f32; 2],
    /// Indices into the mesh's bones (full u32; real values are ≤ 255).
    pub bone_indices: [u32; 4],
    /// Influence weights; unused slots have index 0 and weight 0.
    pub weights: [f32; 4],
}
mint_accessors!(SkinnedVertex);

/// Block type 8 vertex (80 bytes).
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Default, Pod, Zeroable)]
pub struct SkinnedTangentVertex {
    /// Position.
    pub position: [f32; 3],
    /// Normal.
    pub normal: [f32; 3],
    /// Raw FBX tangent (x, y, z, w).
    pub tangent: [f32; 4],
    /// Texture coordinate.
    pub uv: [f32; 2],
    /// Indices into the mesh's bones.
    pub bone_indices: [u32; 4],
    /// Influence weights.
    pub weights: [f32; 4],
}
mint_accessors!(SkinnedTangentVertex);

/// A material block: a range of the mesh's indices, four colours and a texture name.
#[derive(Debug, Clone, PartialEq)]
pub struct Material {
    /// First index (into the mesh's index array) drawn with this material.
    pub start_index: u32,
    /// Number of indices drawn (3 × triangles).
    pub index_count: u32,
    /// Diffuse RGBA.
    pub diffuse: mint::Vector4<f32>,
    /// Specular RGBA.
    pub specular: mint::Vector4<f32>,
    /// Ambient RGBA.
    pub ambient: mint::Vector4<f32>,
    /// Emissive RGBA.
    pub emissive: mint::Vector4<f32>,
    /// The texture file name (bare name with extension; empty for an untextured material).
    pub texture: TextureName,
}

/// A UTF-16LE, NUL-terminated texture file name, kept as its raw code units.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct TextureName {
    units: Vec<u16>,
}

impl TextureName {
    /// A name as the tool writes it: the UTF-16 units of `name` and one NUL.
    pub fn new(name: &str) -> Self {
        let mut units: Vec<u16> = name.encode_utf16().collect();
        units.push(0);
        Self { units }
    }

    /// Wraps raw units, which must contain a NUL (the reader guarantees it). Returns `None`
    /// otherwise.
    pub fn from_units(units: Vec<u16>) -> Option<Self> {
        units.contains(&0).then_some(Self { units })
    }

    /// Every stored unit, the terminator and anything after it included.
    pub fn units(&self) -> &[u16] {
        &self.units
    }

    /// The units before the first NUL.
    pub fn text_units(&self) -> &[u16] {
        let end = self
            .units
            .iter()
            .position(|&u| u == 0)
            .unwrap_or(self.units.len());
        self.units.get(..end).unwrap_or_default()
    }

    /// The name, with unpaired surrogates replaced by U+FFFD.
    pub fn to_string_lossy(&self) -> String {
        String::from_utf16_lossy(self.text_units())
    }

    /// True for an untextured material.
    pub fn is_empty(&self) -> bool {
        self.text_units().is_empty()
    }
}

impl std::fmt::Display for TextureName {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.to_string_lossy())
    }
}

/// A skinned mesh's bone count and its baked animation.
#[derive(Debug, Clone, PartialEq)]
pub struct Skin {
    /// Number of bones (B).
    pub bone_count: u32,
    /// B × S final skinning matrices, sample-major (matrix `s·B + b` is bone `b` at sample
    /// `s`). Each is `float m[4][4]` row-major, Direct3D row-vector convention (translation in
    /// elements 12..14).
    pub matrices: Vec<[f32; 16]>,
}

impl Skin {
    /// Number of animation samples (S).
    pub fn sample_count(&self) -> usize {
        match self.bone_count {
            0 => 0,
            b => self.matrices.len() / b as usize,
        }
    }

    /// The matrix of `bone` at `sample`, as a `mint` row matrix.
    pub fn matrix(&self, sample: usize, bone: usize) -> Option<mint::RowMatrix4<f32>> {
        if bone >= self.bone_count as usize {
            return None;
        }
        let i = sample
            .checked_mul(self.bone_count as usize)?
            .checked_add(bone)?;
        self.matrices.get(i).map(|m| (*m).into())
    }
}
