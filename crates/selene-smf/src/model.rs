//! The document types: what an SMF file *is*. No I/O here.
//!
//! Counts that the file stores redundantly (MeshCount, FrameCount, AnimationSetCount in the
//! head, MaterialCount in MESH, AnimationCount in ANIS, key counts in ANI) are not kept: the
//! reader checks that they agree with the chunks present and the writer derives them.
//!
//! Bulk arrays are `#[repr(C)]` [`bytemuck::Pod`] structs with exactly the file layout, copied
//! in bulk; floats keep their bits. Accessors return [`mint`] types.

use crate::chunk::ChunkId;
use binio::sjis::SjisField;
use bytemuck::{Pod, Zeroable};

/// Size in bytes of every name field.
pub const NAME_SIZE: usize = 64;

/// A 64-byte Shift-JIS name field from `text`, NUL-padded; `None` if `text` has a character
/// Shift-JIS cannot encode or is longer than 63 bytes once encoded.
pub fn name(text: &str) -> Option<SjisField> {
    SjisField::encode_padded(text, NAME_SIZE)
}

/// The 4×4 identity matrix, row by row.
pub const IDENTITY: [f32; 16] = [
    1.0, 0.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 0.0, 1.0,
];

/// A whole `.smf` file.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Smf {
    /// FRM chunks, in order: frame *n* is the *n*-th FRM. The frame tree is the skeleton.
    pub frames: Vec<Frame>,
    /// ANIS chunks, in order.
    pub animation_sets: Vec<AnimationSet>,
    /// MESH chunks, in order.
    pub meshes: Vec<Mesh>,
    /// Unknown top-level chunks, kept in place.
    pub unknown: Vec<UnknownChunk>,
}

/// Where an unknown chunk stood: after the `index`-th (0-based) chunk with id `id` in the same
/// parent. The writer puts it back right after that chunk.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Anchor {
    /// Id of the known chunk it followed.
    pub id: ChunkId,
    /// Which occurrence of that id (for MTRL, FRM, MESH, ANIS and ANI; 0 otherwise).
    pub index: u32,
}

/// A chunk this crate does not know (or a known id under the wrong parent), kept byte for byte.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UnknownChunk {
    /// The known chunk it followed, `None` when it came before every known chunk of its parent
    /// (at the top level: right after the `SMF` head).
    pub after: Option<Anchor>,
    /// Its id.
    pub id: ChunkId,
    /// Its payload.
    pub data: Vec<u8>,
}

/// An oriented bounding box (`OBB`, 60 bytes).
#[derive(Debug, Clone, Copy, PartialEq, Pod, Zeroable)]
#[repr(C)]
pub struct Obb {
    /// Centre.
    pub center: [f32; 3],
    /// Local X, Y and Z axes.
    pub axes: [[f32; 3]; 3],
    /// Full extent (not half) along each axis.
    pub lengths: [f32; 3],
}

impl Obb {
    /// The axis-aligned box from `min` to `max` (what a writer uses for new geometry).
    pub fn axis_aligned(min: mint::Point3<f32>, max: mint::Point3<f32>) -> Self {
        Self {
            center: [
                (min.x + max.x) * 0.5,
                (min.y + max.y) * 0.5,
                (min.z + max.z) * 0.5,
            ],
            axes: [[1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0]],
            lengths: [max.x - min.x, max.y - min.y, max.z - min.z],
        }
    }

    /// The centre.
    pub fn center(&self) -> mint::Point3<f32> {
        self.center.into()
    }
}

/// A frame (`FRM`): a node of the frame tree, which is also the skeleton.
#[derive(Debug, Clone, PartialEq)]
pub struct Frame {
    /// Local transform relative to the parent, 16 floats row by row (row vectors).
    pub transform: [f32; 16],
    /// Name (64 raw bytes).
    pub name: SjisField,
    /// Mesh carried by this frame, −1 for none.
    pub mesh: i32,
    /// Parent frame, −1 for a root.
    pub parent: i32,
    /// Optional bounding box.
    pub obb: Option<Obb>,
    /// Unknown subchunks, kept in place.
    pub unknown: Vec<UnknownChunk>,
}

impl Frame {
    /// A frame with an identity transform and no OBB. `None` when `name` cannot be encoded.
    pub fn new(name_text: &str, mesh: i32, parent: i32) -> Option<Self> {
        Some(Self {
            transform: IDENTITY,
            name: name(name_text)?,
            mesh,
            parent,
            obb: None,
            unknown: Vec::new(),
        })
    }

    /// The local transform as a row matrix (row vectors, translation in row `w`).
    pub fn transform_matrix(&self) -> mint::RowMatrix4<f32> {
        self.transform.into()
    }
}

/// An animation set (`ANIS`): one clip.
#[derive(Debug, Clone, PartialEq)]
pub struct AnimationSet {
    /// Name (64 raw bytes).
    pub name: SjisField,
    /// Length of the clip, in key time units.
    pub last_time: i32,
    /// ANI subchunks, one per animated frame.
    pub animations: Vec<Animation>,
    /// Unknown subchunks, kept in place.
    pub unknown: Vec<UnknownChunk>,
}

/// The keys of one animated frame (`ANI`).
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Animation {
    /// Frame index it drives.
    pub target_frame: i32,
    /// Scale keys (1.0 = 100 %).
    pub scale_keys: Vec<VectorKey>,
    /// Rotation keys (quaternions x, y, z, w).
    pub rotation_keys: Vec<RotationKey>,
    /// Translation keys.
    pub translation_keys: Vec<VectorKey>,
}

/// A scale or translation key (16 bytes).
#[derive(Debug, Clone, Copy, PartialEq, Pod, Zeroable)]
#[repr(C)]
pub struct VectorKey {
    /// Time (raw integer ticks).
    pub time: i32,
    /// x, y, z.
    pub value: [f32; 3],
}

impl VectorKey {
    /// The value.
    pub fn vector(&self) -> mint::Vector3<f32> {
        self.value.into()
    }
}

/// A rotation key (20 bytes).
#[derive(Debug, Clone, Copy, PartialEq, Pod, Zeroable)]
#[repr(C)]
pub struct RotationKey {
    /// Time (raw integer ticks).
    pub time: i32,
    /// Quaternion x, y, z, w.
    pub value: [f32; 4],
}

impl RotationKey {
    /// The quaternion.
    pub fn quaternion(&self) -> mint::Quaternion<f32> {
        let [x, y, z, w] = self.value;
        mint::Quaternion {
            v: mint::Vector3 { x, y, z },
            s: w,
        }
    }
}

/// A mesh (`MESH`).
#[derive(Debug, Clone, PartialEq)]
pub struct Mesh {
    /// Name (64 raw bytes).
    pub name: SjisField,
    /// `OBB`.
    pub obb: Option<Obb>,
    /// `BONE`: the bones the V_A indices refer to.
    pub bones: Option<Vec<Bone>>,
    /// `V_PC`: positions and colours (required).
    pub vertices: Vec<VertexPc>,
    /// `V_N`: normals.
    pub normals: Option<Vec<Vec3>>,
    /// `V_B`: tangents.
    pub tangents: Option<Vec<Vec3>>,
    /// `V_A`: blend weights.
    pub blend: Option<Vec<BlendVertex>>,
    /// `V_UV`: texture coordinates.
    pub uvs: Option<Vec<UvVertex>>,
    /// `IDX2` or `IDX4`: triangle list (required).
    pub indices: Indices,
    /// `MTRL` chunks, in order.
    pub materials: Vec<Material>,
    /// `C_AT`: collision attribute runs.
    pub collision_runs: Option<Vec<CollisionRun>>,
    /// `C_FC`: collision faces.
    pub collision_faces: Option<Vec<CollisionFace>>,
    /// `C_VX`: collision vertices.
    pub collision_vertices: Option<Vec<CollisionVertex>>,
    /// Unknown subchunks, kept in place.
    pub unknown: Vec<UnknownChunk>,
}

impl Mesh {
    /// A mesh with positions and indices only; `None` when `name` cannot be encoded.
    pub fn new(name_text: &str, vertices: Vec<VertexPc>, indices: Indices) -> Option<Self> {
        Some(Self {
            name: name(name_text)?,
            obb: None,
            bones: None,
            vertices,
            normals: None,
            tangents: None,
            blend: None,
            uvs: None,
            indices,
            materials: Vec::new(),
            collision_runs: None,
            collision_faces: None,
            collision_vertices: None,
            unknown: Vec::new(),
        })
    }

    /// Number of triangles.
    pub fn triangle_count(&self) -> usize {
        self.indices.len() / 3
    }
}

/// A vector of three floats (normal, tangent), 12 bytes.
#[derive(Debug, Clone, Copy, PartialEq, Pod, Zeroable, Default)]
#[repr(transparent)]
pub struct Vec3(pub [f32; 3]);

impl From<Vec3> for mint::Vector3<f32> {
    fn from(v: Vec3) -> Self {
        v.0.into()
    }
}

impl From<mint::Vector3<f32>> for Vec3 {
    fn from(v: mint::Vector3<f32>) -> Self {
        Self(v.into())
    }
}

/// A `V_PC` element: position and colour (16 bytes).
#[derive(Debug, Clone, Copy, PartialEq, Pod, Zeroable, Default)]
#[repr(C)]
pub struct VertexPc {
    /// x, y, z.
    pub position: [f32; 3],
    /// Colour bytes in file order: **B, G, R, A** (a Direct3D `D3DCOLOR`).
    pub bgra: [u8; 4],
}

impl VertexPc {
    /// A vertex with the given position and opaque white.
    pub fn new(position: mint::Point3<f32>) -> Self {
        Self {
            position: position.into(),
            bgra: [0xFF; 4],
        }
    }

    /// The position.
    pub fn position(&self) -> mint::Point3<f32> {
        self.position.into()
    }

    /// The colour as R, G, B, A.
    pub fn rgba(&self) -> [u8; 4] {
        let [b, g, r, a] = self.bgra;
        [r, g, b, a]
    }
}

/// A `V_A` element (8 bytes): the weight of `indices[0]`; `indices[1]` gets `1 − weight`;
/// `indices[2..4]` are unused by the engine.
#[derive(Debug, Clone, Copy, PartialEq, Pod, Zeroable, Default)]
#[repr(C)]
pub struct BlendVertex {
    /// Weight of the first bone.
    pub weight: f32,
    /// Bone indices into the mesh's BONE list.
    pub indices: [u8; 4],
}

/// A `V_UV` element (16 bytes): colour-map and light-map coordinates.
#[derive(Debug, Clone, Copy, PartialEq, Pod, Zeroable, Default)]
#[repr(C)]
pub struct UvVertex {
    /// u, v of the colour map.
    pub uv: [f32; 2],
    /// u2, v2 of the light map.
    pub uv2: [f32; 2],
}

impl UvVertex {
    /// Both pairs equal to `uv` (what the converter writes).
    pub fn same(uv: mint::Vector2<f32>) -> Self {
        let uv: [f32; 2] = uv.into();
        Self { uv, uv2: uv }
    }

    /// The colour-map coordinates.
    pub fn uv(&self) -> mint::Vector2<f32> {
        self.uv.into()
    }

    /// The light-map coordinates.
    pub fn uv2(&self) -> mint::Vector2<f32> {
        self.uv2.into()
    }
}

/// A `BONE` element (68 bytes).
#[derive(Debug, Clone, Copy, PartialEq, Pod, Zeroable)]
#[repr(C)]
pub struct Bone {
    /// Offset (inverse bind) matrix, row by row.
    pub offset: [f32; 16],
    /// Frame that drives this bone.
    pub frame: i32,
}

impl Bone {
    /// The offset matrix.
    pub fn offset_matrix(&self) -> mint::RowMatrix4<f32> {
        self.offset.into()
    }
}

/// The triangle list of a mesh.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Indices {
    /// `IDX2`: 16-bit indices.
    U16(Vec<u16>),
    /// `IDX4`: 32-bit indices.
    U32(Vec<u32>),
}

impl Default for Indices {
    fn default() -> Self {
        Self::U16(Vec::new())
    }
}

impl Indices {
    /// IDX2 when `vertex_count ≤ 65 535` and every index fits, else IDX4 (the converter rule).
    pub fn for_vertex_count(indices: Vec<u32>, vertex_count: usize) -> Self {
        if vertex_count <= 0xFFFF && indices.iter().all(|&i| i <= 0xFFFF) {
            Self::U16(indices.into_iter().map(|i| i as u16).collect())
        } else {
            Self::U32(indices)
        }
    }

    /// Number of indices.
    pub fn len(&self) -> usize {
        match self {
            Self::U16(v) => v.len(),
            Self::U32(v) => v.len(),
        }
    }

    /// True when there are none.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The `i`-th index.
    pub fn get(&self, i: usize) -> Option<u32> {
        match self {
            Self::U16(v) => v.get(i).map(|&x| u32::from(x)),
            Self::U32(v) => v.get(i).copied(),
        }
    }

    /// Every index, widened to `u32`.
    pub fn iter(&self) -> impl Iterator<Item = u32> + '_ {
        let (a, b) = match self {
            Self::U16(v) => (Some(v.iter().map(|&x| u32::from(x))), None),
            Self::U32(v) => (None, Some(v.iter().copied())),
        };
        a.into_iter().flatten().chain(b.into_iter().flatten())
    }

    /// The chunk id this list is stored under.
    pub fn chunk_id(&self) -> ChunkId {
        match self {
            Self::U16(_) => ChunkId::IDX2,
            Self::U32(_) => ChunkId::IDX4,
        }
    }
}

/// Draw type (`DRAW`), keeping unknown values.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum DrawMode {
    /// 0: opaque.
    Normal,
    /// 1: alpha blend.
    Blend,
    /// 2: additive.
    Add,
    /// 3: additive without alpha.
    AddNoAlpha,
    /// 4: subtractive.
    Sub,
    /// 5: subtractive without alpha.
    SubNoAlpha,
    /// 6: multiplicative.
    Multiple,
    /// Any other raw value.
    Unknown(u32),
}

impl DrawMode {
    /// From the raw value.
    pub fn from_raw(v: u32) -> Self {
        match v {
            0 => Self::Normal,
            1 => Self::Blend,
            2 => Self::Add,
            3 => Self::AddNoAlpha,
            4 => Self::Sub,
            5 => Self::SubNoAlpha,
            6 => Self::Multiple,
            v => Self::Unknown(v),
        }
    }

    /// The raw value.
    pub fn raw(self) -> u32 {
        match self {
            Self::Normal => 0,
            Self::Blend => 1,
            Self::Add => 2,
            Self::AddNoAlpha => 3,
            Self::Sub => 4,
            Self::SubNoAlpha => 5,
            Self::Multiple => 6,
            Self::Unknown(v) => v,
        }
    }
}

/// `SPEC` (20 bytes).
#[derive(Debug, Clone, Copy, PartialEq, Pod, Zeroable)]
#[repr(C)]
pub struct Specular {
    /// Specular colour r, g, b.
    pub color: [f32; 3],
    /// `fRefractive` (higher = stronger).
    pub refractive: f32,
    /// `fRoughly` (higher = softer).
    pub roughness: f32,
}

/// A material (`MTRL`). Every subchunk is optional; flags are raw `u32` (the engine tests
/// `value != 0`).
#[derive(Debug, Clone, PartialEq)]
pub struct Material {
    /// Name (64 raw bytes).
    pub name: SjisField,
    /// First triangle.
    pub polygon_start: i32,
    /// Number of triangles.
    pub polygon_count: i32,
    /// First vertex used.
    pub vertex_start: i32,
    /// Number of vertices used.
    pub vertex_count: i32,
    /// `TEXC`: colour texture.
    pub texture: Option<SjisField>,
    /// `TEXL`: light map.
    pub light_map: Option<SjisField>,
    /// `TEXE`: cube environment map.
    pub environment_map: Option<SjisField>,
    /// `TEXS`: specular map.
    pub specular_map: Option<SjisField>,
    /// `TEXN`: normal map.
    pub normal_map: Option<SjisField>,
    /// `DRAW`.
    pub draw: Option<DrawMode>,
    /// `ZTES`: depth test.
    pub z_test: Option<u32>,
    /// `ZWRI`: depth write.
    pub z_write: Option<u32>,
    /// `ATES`: alpha test.
    pub alpha_test: Option<u32>,
    /// `ABND`: alpha-test threshold.
    pub alpha_threshold: Option<u32>,
    /// `CULL`: back-face culling.
    pub cull: Option<u32>,
    /// `LGT`: lighting (always written after CULL).
    pub lighting: Option<u32>,
    /// `DIFF`: r, g, b, a.
    pub diffuse: Option<[f32; 4]>,
    /// `EMIS`: r, g, b.
    pub emissive: Option<[f32; 3]>,
    /// `SPEC`.
    pub specular: Option<Specular>,
    /// `BUMP`: parallax depth.
    pub bump: Option<f32>,
    /// Unknown subchunks, kept in place.
    pub unknown: Vec<UnknownChunk>,
}

impl Material {
    /// A material with the Amaryllis converter's defaults (DRAW 0, ZTES 1, ZWRI 1, ATES 1,
    /// ABND 0, CULL 1, LGT 1, DIFF white, EMIS black) over the given ranges. `None` when
    /// `name` cannot be encoded.
    pub fn new(name_text: &str, polygons: (i32, i32), vertices: (i32, i32)) -> Option<Self> {
        Some(Self {
            name: name(name_text)?,
            polygon_start: polygons.0,
            polygon_count: polygons.1,
            vertex_start: vertices.0,
            vertex_count: vertices.1,
            texture: None,
            light_map: None,
            environment_map: None,
            specular_map: None,
            normal_map: None,
            draw: Some(DrawMode::Normal),
            z_test: Some(1),
            z_write: Some(1),
            alpha_test: Some(1),
            alpha_threshold: Some(0),
            cull: Some(1),
            lighting: Some(1),
            diffuse: Some([1.0; 4]),
            emissive: Some([0.0; 3]),
            specular: None,
            bump: None,
            unknown: Vec::new(),
        })
    }

    /// The texture names present, in canonical order (TEXC, TEXL, TEXE, TEXS, TEXN).
    pub fn texture_names(&self) -> impl Iterator<Item = &SjisField> + '_ {
        [
            &self.texture,
            &self.light_map,
            &self.environment_map,
            &self.specular_map,
            &self.normal_map,
        ]
        .into_iter()
        .flatten()
    }
}

/// A `C_AT` element (12 bytes): a run of collision faces sharing an attribute.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Pod, Zeroable, Default)]
#[repr(C)]
pub struct CollisionRun {
    /// First face.
    pub start: i32,
    /// Number of faces.
    pub count: i32,
    /// Attribute.
    pub attribute: i32,
}

/// A `C_FC` element (32 bytes).
#[derive(Debug, Clone, Copy, PartialEq, Pod, Zeroable, Default)]
#[repr(C)]
pub struct CollisionFace {
    /// Attribute.
    pub attribute: i32,
    /// Indices into C_VX.
    pub indices: [i32; 3],
    /// Plane normal.
    pub normal: [f32; 3],
    /// Plane distance (`n·p + d = 0`).
    pub d: f32,
}

/// A `C_VX` element (28 bytes).
#[derive(Debug, Clone, Copy, PartialEq, Pod, Zeroable, Default)]
#[repr(C)]
pub struct CollisionVertex {
    /// Position.
    pub position: [f32; 3],
    /// Colour bytes B, G, R, A.
    pub bgra: [u8; 4],
    /// Normal.
    pub normal: [f32; 3],
}

impl Smf {
    /// Every chunk id of the document, in the order the writer emits them (depth first).
    pub fn chunk_ids(&self) -> Vec<ChunkId> {
        let mut out = Vec::new();
        crate::write::visit_ids(self, &mut |id| out.push(id));
        out
    }

    /// Distinct texture names (TEXC, TEXL, TEXE, TEXS, TEXN), decoded, in order of first use.
    pub fn texture_names(&self) -> Vec<String> {
        let mut out: Vec<String> = Vec::new();
        for m in self.meshes.iter().flat_map(|m| &m.materials) {
            for t in m.texture_names() {
                let t = t.text();
                if !t.is_empty() && !out.iter().any(|o| *o == t) {
                    out.push(t.into_owned());
                }
            }
        }
        out
    }
}
