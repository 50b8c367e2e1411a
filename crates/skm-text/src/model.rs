//! The document types: what an `.skm` file *is*. No I/O here.
//!
//! Equality of every type that holds floats compares their **bits**, so `-0.0 != 0.0` and a
//! NaN equals the same NaN: `parse(write(doc)) == doc` is a statement about exact bits.

use bytemuck::{Pod, Zeroable};
use std::borrow::Cow;

/// How the names (bone names, texture file names) of a document are encoded.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum Encoding {
    /// Shift-JIS (code page 932), the EditAnimation default. Written without a BOM.
    #[default]
    ShiftJis,
    /// UTF-8. Written with a UTF-8 BOM, so that a reader can tell.
    Utf8,
}

/// A name as stored: its raw bytes, without the quotes.
///
/// The bytes are kept exactly so that writing reproduces them; [`Name::decode`] or
/// [`Skm::text`] turn them into text.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Default)]
pub struct Name {
    /// The bytes between the quotes (or of the unquoted token).
    pub raw: Vec<u8>,
}

impl Name {
    /// Wraps raw bytes.
    pub fn from_raw(raw: impl Into<Vec<u8>>) -> Self {
        Self { raw: raw.into() }
    }

    /// Encodes `text` in `encoding`; `None` when Shift-JIS cannot represent a character.
    pub fn encode(text: &str, encoding: Encoding) -> Option<Self> {
        match encoding {
            Encoding::Utf8 => Some(Self::from_raw(text.as_bytes())),
            Encoding::ShiftJis => binio::sjis::encode(text).map(|b| Self::from_raw(b.into_owned())),
        }
    }

    /// Decodes the bytes in `encoding` (invalid sequences become U+FFFD).
    pub fn decode(&self, encoding: Encoding) -> Cow<'_, str> {
        match encoding {
            Encoding::Utf8 => String::from_utf8_lossy(&self.raw),
            Encoding::ShiftJis => binio::sjis::decode(&self.raw),
        }
    }
}

/// One vertex row: `index x y z b0 b1 b2 blendIndices nx ny nz u v`.
///
/// The index column is informational and not stored (the position in
/// [`Skm::vertices`] wins).
#[repr(C)]
#[derive(Debug, Clone, Copy, Default, Pod, Zeroable)]
pub struct Vertex {
    /// Position `x y z`.
    pub position: [f32; 3],
    /// Blend weights `b0 b1 b2` of the first three influences; the fourth is implicit.
    pub weights: [f32; 3],
    /// The raw DWORD of four packed palette (bone) indices, influence 0 in the low byte.
    pub blend_indices: u32,
    /// Normal `nx ny nz`.
    pub normal: [f32; 3],
    /// Texture coordinates `u v` (origin top-left).
    pub uv: [f32; 2],
}

impl PartialEq for Vertex {
    fn eq(&self, other: &Self) -> bool {
        bytemuck::bytes_of(self) == bytemuck::bytes_of(other)
    }
}
impl Eq for Vertex {}

impl Vertex {
    /// The position as a mint point.
    pub fn position(&self) -> mint::Point3<f32> {
        self.position.into()
    }

    /// The normal as a mint vector.
    pub fn normal(&self) -> mint::Vector3<f32> {
        self.normal.into()
    }

    /// The texture coordinates as a mint vector.
    pub fn uv(&self) -> mint::Vector2<f32> {
        self.uv.into()
    }

    /// The four palette indices: influence `k` is byte `k` of [`Vertex::blend_indices`]
    /// counted from the low byte.
    pub fn palette(&self) -> [u8; 4] {
        self.blend_indices.to_le_bytes()
    }

    /// The four blend weights: `b0 b1 b2` and the implied `b3 = 1 − (b0 + b1 + b2)`
    /// (not clamped).
    pub fn weights4(&self) -> [f32; 4] {
        let [b0, b1, b2] = self.weights;
        [b0, b1, b2, 1.0 - (b0 + b1 + b2)]
    }
}

/// One attribute range (D3DXATTRIBUTERANGE): `id faceStart faceCount vertexStart vertexCount`.
#[repr(C)]
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash, Pod, Zeroable)]
pub struct AttributeRange {
    /// The material drawn for this range.
    pub material: u32,
    /// First face.
    pub face_start: u32,
    /// Number of faces.
    pub face_count: u32,
    /// First vertex.
    pub vertex_start: u32,
    /// Number of vertices.
    pub vertex_count: u32,
}

/// One material (D3DMATERIAL8 plus a texture name). Colours are `R G B A`.
#[derive(Debug, Clone, Default)]
pub struct Material {
    /// Diffuse RGBA.
    pub diffuse: [f32; 4],
    /// Ambient RGBA.
    pub ambient: [f32; 4],
    /// Specular RGBA.
    pub specular: [f32; 4],
    /// Emissive RGBA.
    pub emissive: [f32; 4],
    /// Specular power.
    pub power: f32,
    /// The texture file name, or `None` for `(NULL)`.
    pub texture: Option<Name>,
}

fn bits_eq(a: &[f32], b: &[f32]) -> bool {
    a.len() == b.len() && a.iter().zip(b).all(|(x, y)| x.to_bits() == y.to_bits())
}

impl PartialEq for Material {
    fn eq(&self, o: &Self) -> bool {
        bits_eq(&self.diffuse, &o.diffuse)
            && bits_eq(&self.ambient, &o.ambient)
            && bits_eq(&self.specular, &o.specular)
            && bits_eq(&self.emissive, &o.emissive)
            && self.power.to_bits() == o.power.to_bits()
            && self.texture == o.texture
    }
}
impl Eq for Material {}

impl Material {
    /// Diffuse colour as a mint vector (x = R … w = A).
    pub fn diffuse(&self) -> mint::Vector4<f32> {
        self.diffuse.into()
    }
    /// Ambient colour as a mint vector.
    pub fn ambient(&self) -> mint::Vector4<f32> {
        self.ambient.into()
    }
    /// Specular colour as a mint vector.
    pub fn specular(&self) -> mint::Vector4<f32> {
        self.specular.into()
    }
    /// Emissive colour as a mint vector.
    pub fn emissive(&self) -> mint::Vector4<f32> {
        self.emissive.into()
    }
}

/// One bone: `"name"`, `index parent symmetric`, begin and end points, and a quaternion.
///
/// The index column is informational and not stored (the position in [`Skm::bones`] wins).
#[derive(Debug, Clone, Default)]
pub struct Bone {
    /// The bone's name.
    pub name: Name,
    /// The parent bone, −1 for a root (`4294967295` in a file reads as −1).
    pub parent: i32,
    /// The mirror-partner bone, −1 for none. Any value is kept; one that is neither −1 nor a
    /// bone index gives a warning.
    pub symmetric: i32,
    /// Start point (the rotation centre).
    pub begin: [f32; 3],
    /// End point.
    pub end: [f32; 3],
    /// Initial posture `x y z w`.
    pub rotation: [f32; 4],
}

impl PartialEq for Bone {
    fn eq(&self, o: &Self) -> bool {
        self.name == o.name
            && self.parent == o.parent
            && self.symmetric == o.symmetric
            && bits_eq(&self.begin, &o.begin)
            && bits_eq(&self.end, &o.end)
            && bits_eq(&self.rotation, &o.rotation)
    }
}
impl Eq for Bone {}

impl Bone {
    /// The parent's index, or `None` for a root.
    pub fn parent_index(&self) -> Option<usize> {
        usize::try_from(self.parent).ok()
    }

    /// The symmetric partner's index, or `None` when there is none (negative).
    pub fn symmetric_index(&self) -> Option<usize> {
        usize::try_from(self.symmetric).ok()
    }

    /// The start point as a mint point.
    pub fn begin(&self) -> mint::Point3<f32> {
        self.begin.into()
    }

    /// The end point as a mint point.
    pub fn end(&self) -> mint::Point3<f32> {
        self.end.into()
    }

    /// The initial posture as a mint quaternion.
    pub fn rotation(&self) -> mint::Quaternion<f32> {
        let [x, y, z, w] = self.rotation;
        mint::Quaternion {
            v: mint::Vector3 { x, y, z },
            s: w,
        }
    }
}

/// A whole `.skm` document: the six sections in file order.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Skm {
    /// How the names are encoded.
    pub encoding: Encoding,
    /// The `Vertices:` section.
    pub vertices: Vec<Vertex>,
    /// The `Indices:` section, one triangle per entry (the file's count is `3 × len`).
    pub triangles: Vec<[u32; 3]>,
    /// The `Adjacency:` section: per face, the faces across its three edges. A value
    /// `>= triangles.len()` (D3DX writes `4294967295`, files may say `-1`) means no neighbour;
    /// the raw value is kept.
    pub adjacency: Vec<[u32; 3]>,
    /// The `Materials:` section.
    pub materials: Vec<Material>,
    /// The `Attributes:` section.
    pub attributes: Vec<AttributeRange>,
    /// The `Bone:` section (empty for a static mesh).
    pub bones: Vec<Bone>,
}

impl Skm {
    /// Decodes a name in this document's encoding.
    pub fn text<'a>(&self, name: &'a Name) -> Cow<'a, str> {
        name.decode(self.encoding)
    }

    /// The neighbour of face `face` across edge `edge` (0..3), or `None` when there is none
    /// (an out-of-range value) or the face or edge does not exist.
    pub fn neighbour(&self, face: usize, edge: usize) -> Option<u32> {
        let v = *self.adjacency.get(face)?.get(edge)?;
        ((v as usize) < self.triangles.len()).then_some(v)
    }

    /// The number of indices, as declared by the `Indices:` header (`3 × triangles`).
    pub fn index_count(&self) -> u64 {
        self.triangles.len() as u64 * 3
    }
}
