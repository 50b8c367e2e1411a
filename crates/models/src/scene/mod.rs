//! One scene model for all five formats: what a glTF file can say, in glTF's conventions.
//!
//! Every converter (`from_<format>.rs`) produces a [`Scene`] that is already right-handed,
//! Y up, counter-clockwise front faces, metres (the source units are kept: none of the formats
//! stores a unit), column-vector matrices stored column-major, quaternions `(x, y, z, w)`,
//! times in seconds and colours in linear RGBA. Converters convert, [`validate()`] repairs (every
//! repair a warning), and the glTF writer (`crate::gltf`) serialises a [`ValidScene`]; it knows
//! nothing of the source formats.
//!
//! Data that glTF cannot carry is never dropped silently: a converter puts what fits into an
//! `extras` map and returns a [`Warning`](SceneWarning) for the rest.

// A build with some formats leaves the other formats' shared helpers unused; only the full
// build (the one CI lints with `-D warnings`) is expected to be free of dead code.
#![cfg_attr(
    not(all(
        feature = "bmf",
        feature = "smf",
        feature = "mdl",
        feature = "elem",
        feature = "skm",
        feature = "gltf"
    )),
    allow(dead_code, unused_imports)
)]

use serde_json::{Map, Value};
use std::ops::Range;
use std::sync::Arc;

mod array;
pub(crate) mod blob;
mod budget;
mod extras;
#[cfg(feature = "bmf")]
pub(crate) mod from_bmf;
#[cfg(feature = "elem")]
pub(crate) mod from_elem;
#[cfg(feature = "mdl")]
pub(crate) mod from_mdl;
#[cfg(feature = "skm")]
pub(crate) mod from_skm;
#[cfg(feature = "smf")]
pub(crate) mod from_smf;
mod import;
pub(crate) mod lenient;
mod math;
mod merge;
mod pose;
#[cfg(any(feature = "bmf", feature = "elem", feature = "mdl", feature = "skm"))]
mod raw64;
// Shared index lists: made by the converters of the formats whose material ranges may overlap
// (BMF, SMF, SKM) and by validation when it repairs such a list.
pub(crate) mod shared;
// Colour bytes as unit floats and back (converters and the glTF writer).
#[cfg(feature = "bmf")]
pub(crate) mod to_bmf;
#[cfg(feature = "elem")]
pub(crate) mod to_elem;
#[cfg(feature = "mdl")]
pub(crate) mod to_mdl;
#[cfg(feature = "skm")]
pub(crate) mod to_skm;
#[cfg(feature = "smf")]
pub(crate) mod to_smf;
pub(crate) mod unit_bytes;
pub(crate) mod validate;
mod weld;

pub use array::Array;
#[cfg_attr(not(feature = "gltf"), allow(unused_imports))]
pub(crate) use budget::needs_escape;
pub use budget::{cost, Budget};
pub use import::{ImportOptions, Imported};
// The math users need (building transforms, checking skin weights and texture paths the way
// the converters do); the rest stays the converters' own.
pub(crate) use math::*;
pub use math::{
    axis_quat, compose, decompose, invert, mul, normalize_quat, relative_texture_path,
    translation_matrix, IDENTITY,
};
pub use merge::{merge_clips, ClipSource, MergeError};
pub use validate::{normalize_weights, validate, SlotOrder, ValidScene, Validated, WeightFixes};

/// A whole converted model.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Scene {
    /// A name for the glTF scene (usually the source file stem; may be empty).
    pub name: String,
    /// All nodes; [`Node::children`] and [`Scene::roots`] index into this.
    pub nodes: Vec<Node>,
    /// The top-level nodes of the single glTF scene.
    pub roots: Vec<usize>,
    /// Meshes, referenced by [`Node::mesh`].
    pub meshes: Vec<Mesh>,
    /// Materials, referenced by [`Primitive::material`].
    pub materials: Vec<Material>,
    /// Skins, referenced by [`Node::skin`].
    pub skins: Vec<Skin>,
    /// Animations.
    pub animations: Vec<Animation>,
    /// Scene-level data glTF has no place for (written as the glTF scene's `extras`).
    pub extras: Map<String, Value>,
    /// Large exact arrays the extras name as `{"bufferView": i}` (blob `i`), kept as bytes, not
    /// text: the glTF writer puts blob `i` in buffer view `i`, the reader fills them from the
    /// views the extras name (see `scene/blob.rs`).
    pub blobs: Vec<Array<u8>>,
}

/// A node of the hierarchy.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Node {
    /// Node name (bone or frame name, or a synthetic one such as `bone_3`).
    pub name: String,
    /// Local transform relative to the parent.
    pub transform: Transform,
    /// Child node indices.
    pub children: Vec<usize>,
    /// The mesh drawn at this node.
    pub mesh: Option<usize>,
    /// The skin deforming that mesh.
    pub skin: Option<usize>,
    /// Data glTF has no place for.
    pub extras: Map<String, Value>,
}

/// A local transform: translation, rotation, scale (what animations target), or a matrix.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Transform {
    /// Translation, rotation quaternion `(x, y, z, w)`, scale.
    Trs {
        /// Translation.
        translation: [f32; 3],
        /// Unit quaternion `(x, y, z, w)`.
        rotation: [f32; 4],
        /// Scale.
        scale: [f32; 3],
    },
    /// A column-major 4×4 matrix (glTF's `matrix`). Must not be used on an animated node.
    Matrix([f32; 16]),
}

impl Transform {
    /// The column-major 4×4 matrix of this transform (TRS composed, or the matrix itself).
    pub fn to_matrix(&self) -> [f32; 16] {
        match *self {
            Transform::Trs {
                translation,
                rotation,
                scale,
            } => compose(translation, rotation, scale),
            Transform::Matrix(m) => m,
        }
    }

    /// This transform as translation, rotation and scale, and for a matrix how far it is from
    /// that nearest TRS (`None` for a TRS, which is exact; see [`decompose`]): the one
    /// decomposition of the writers that need TRS (glTF nodes, MDL version 2 bones), each
    /// judging the error itself.
    ///
    /// ```
    /// use models::scene::Transform;
    /// let (t, q, s, err) = Transform::default().to_trs();
    /// assert_eq!((t, q, s, err), ([0.0; 3], [0.0, 0.0, 0.0, 1.0], [1.0; 3], None));
    /// ```
    pub fn to_trs(self) -> ([f32; 3], [f32; 4], [f32; 3], Option<f32>) {
        match self {
            Transform::Trs {
                translation,
                rotation,
                scale,
            } => (translation, rotation, scale, None),
            Transform::Matrix(m) => {
                let (t, q, s, err) = decompose(m);
                (t, q, s, Some(err))
            }
        }
    }
}

impl Default for Transform {
    fn default() -> Self {
        Transform::Trs {
            translation: [0.0; 3],
            rotation: [0.0, 0.0, 0.0, 1.0],
            scale: [1.0; 3],
        }
    }
}

/// A mesh: vertex attributes shared by its primitives, and the primitives.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Mesh {
    /// Mesh name.
    pub name: String,
    /// Per-vertex data, shared by every primitive of the mesh.
    pub vertices: Vertices,
    /// Triangle lists, one per material.
    pub primitives: Vec<Primitive>,
    /// Data glTF has no place for.
    pub extras: Map<String, Value>,
}

/// Vertex attributes. Every present attribute has `positions.len()` entries.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Vertices {
    /// POSITION.
    pub positions: Array<[f32; 3]>,
    /// NORMAL (unit length).
    pub normals: Option<Array<[f32; 3]>>,
    /// TANGENT `(x, y, z, w)`, w = ±1.
    pub tangents: Option<Array<[f32; 4]>>,
    /// TEXCOORD_0 (top-left origin, as glTF).
    pub uv0: Option<Array<[f32; 2]>>,
    /// TEXCOORD_1.
    pub uv1: Option<Array<[f32; 2]>>,
    /// COLOR_0, linear RGBA in 0..=1: bytes or floats, as the source stores them ([`Colors`]).
    pub colors: Option<Colors>,
    /// JOINTS_0: indices into the skin's `joints` list.
    pub joints: Option<Array<[u16; 4]>>,
    /// WEIGHTS_0: summing to 1 for every vertex that is used.
    pub weights: Option<Array<[f32; 4]>>,
}

/// Vertex colours (`COLOR_0`), linear RGBA in 0..=1, in the form the source stores them: bytes
/// stay bytes (a quarter of the memory, and nothing to check or round on the way through).
#[derive(Debug, Clone, PartialEq)]
pub enum Colors {
    /// Bytes, each channel meaning `byte / 255`: SMF and MDL colours, a glTF `UNSIGNED_BYTE`
    /// accessor. The glTF writer stores them as normalised `u8` (as the SMF and MDL
    /// specifications ask), so they come back as the same bytes.
    Bytes(Array<[u8; 4]>),
    /// Floats (ELEM's decimals, a glTF file's float or 16-bit colours); the glTF writer keeps
    /// them floats, as the ELEM specification asks, even when they happen to be bytes.
    Floats(Array<[f32; 4]>),
}

impl Colors {
    /// How many colours (one per vertex).
    pub fn len(&self) -> usize {
        match self {
            Colors::Bytes(c) => c.len(),
            Colors::Floats(c) => c.len(),
        }
    }

    /// Whether there are none.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Colour `i` as floats (a byte `b` as `b / 255`, correctly rounded).
    ///
    /// ```
    /// use models::scene::Colors;
    /// let bytes = Colors::Bytes(vec![[255, 0, 51, 255]].into());
    /// assert_eq!(bytes.get(0), Some([1.0, 0.0, 0.2, 1.0]));
    /// assert_eq!(bytes.get(1), None);
    /// ```
    pub fn get(&self, i: usize) -> Option<[f32; 4]> {
        match self {
            Colors::Bytes(c) => c.get(i).map(|&b| unit_bytes::unit_floats(b)),
            Colors::Floats(c) => c.get(i).copied(),
        }
    }

    /// Every colour as floats: borrowed when they are floats, converted when they are bytes.
    pub fn to_floats(&self) -> std::borrow::Cow<'_, [[f32; 4]]> {
        match self {
            Colors::Bytes(c) => c.iter().map(|&b| unit_bytes::unit_floats(b)).collect(),
            Colors::Floats(c) => std::borrow::Cow::Borrowed(c),
        }
    }
}

/// One triangle list with one material.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Primitive {
    /// Triangle list, counter-clockwise front faces; indices into the mesh's vertices. May be a
    /// range of a list shared with other primitives (see [`Indices::shared`]).
    pub indices: Indices,
    /// Index into [`Scene::materials`].
    pub material: Option<usize>,
}

/// A primitive's triangle list: a range of a reference-counted index list, so that primitives
/// whose ranges overlap (BMF, SMF and SKM material ranges may) share one list instead of each
/// copying its part. The glTF writer writes a shared list once when its ranges overlap. Reads
/// as a `[u32]` slice.
#[derive(Clone, Default)]
pub struct Indices {
    list: Arc<Array<u32>>,
    range: Range<usize>,
    /// A vertex count every index of `list` is known to be below: the conversion or the glTF
    /// reader that made the list checked it there, while the list was in cache, so validation
    /// need not read the whole list again (a large model's is tens of MB). `None`: not known
    /// (a list made outside this crate). The list behind the `Arc` cannot change while these
    /// indices hold it, so the fact stays true.
    known_below: Option<usize>,
}

impl Indices {
    /// The range `range` of the shared `list`, or `None` when it lies outside the list.
    pub fn shared(list: &Arc<Array<u32>>, range: Range<usize>) -> Option<Self> {
        Self::shared_below(list, range, None)
    }

    /// [`shared`](Self::shared), with `known_below`: a count every index of `list` was checked
    /// to be below (`None` when not checked).
    pub(crate) fn shared_below(
        list: &Arc<Array<u32>>,
        range: Range<usize>,
        known_below: Option<usize>,
    ) -> Option<Self> {
        list.get(range.clone())?;
        debug_assert!(known_below.is_none_or(|n| validate::below(list, n)));
        Some(Self {
            list: Arc::clone(list),
            range,
            known_below,
        })
    }

    /// The whole of `list`, every index of which was checked to be below `below`.
    pub(crate) fn checked(list: impl Into<Array<u32>>, below: usize) -> Self {
        let list = list.into();
        let range = 0..list.len();
        debug_assert!(validate::below(&list, below));
        Self {
            list: Arc::new(list),
            range,
            known_below: Some(below),
        }
    }

    /// A count every index of [`list`](Self::list) is known to be below, when the list was
    /// checked where it was made.
    pub(crate) fn known_below(&self) -> Option<usize> {
        self.known_below
    }

    /// The whole list these indices are a range of.
    pub fn list(&self) -> &Arc<Array<u32>> {
        &self.list
    }

    /// Where these indices lie in [`list`](Self::list).
    pub fn range(&self) -> Range<usize> {
        self.range.clone()
    }

    /// The indices as a slice.
    pub fn as_slice(&self) -> &[u32] {
        self.list.get(self.range.clone()).unwrap_or_default()
    }
}

impl From<Vec<u32>> for Indices {
    fn from(list: Vec<u32>) -> Self {
        let range = 0..list.len();
        Self {
            list: Arc::new(list.into()),
            range,
            known_below: None,
        }
    }
}

impl std::ops::Deref for Indices {
    type Target = [u32];
    fn deref(&self) -> &[u32] {
        self.as_slice()
    }
}

impl PartialEq for Indices {
    fn eq(&self, other: &Self) -> bool {
        self.as_slice() == other.as_slice()
    }
}

impl std::fmt::Debug for Indices {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        self.as_slice().fmt(f)
    }
}

impl Extend<u32> for Indices {
    /// Appends to an unshared copy of these indices.
    fn extend<I: IntoIterator<Item = u32>>(&mut self, iter: I) {
        let mut own = self.as_slice().to_vec();
        own.extend(iter);
        *self = own.into();
    }
}

/// How a material's alpha is used.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum AlphaMode {
    /// Alpha ignored.
    #[default]
    Opaque,
    /// Alpha tested against `cutoff`.
    Mask,
    /// Alpha blended.
    Blend,
}

/// A material, with the source's texture references as written in the source.
#[derive(Debug, Clone, PartialEq)]
pub struct Material {
    /// Material name.
    pub name: String,
    /// Base colour factor, linear RGBA.
    pub base_color: [f32; 4],
    /// Emissive factor, linear RGB.
    pub emissive: [f32; 3],
    /// Specular colour (RGBA) and power, where the source has them (written to `extras`).
    pub specular: Option<([f32; 4], f32)>,
    /// Alpha mode.
    pub alpha_mode: AlphaMode,
    /// Alpha cutoff for [`AlphaMode::Mask`].
    pub alpha_cutoff: Option<f32>,
    /// Draw both faces.
    pub double_sided: bool,
    /// Colour texture path, as written in the source (relative to the model's folder).
    pub color_texture: Option<String>,
    /// Normal map path.
    pub normal_texture: Option<String>,
    /// Light map path (glTF has no slot: written to `extras`).
    pub light_map: Option<String>,
    /// Specular map path (written to `extras`).
    pub specular_texture: Option<String>,
    /// Data glTF has no place for.
    pub extras: Map<String, Value>,
}

impl Default for Material {
    fn default() -> Self {
        Self {
            name: String::new(),
            base_color: [1.0; 4],
            emissive: [0.0; 3],
            specular: None,
            alpha_mode: AlphaMode::Opaque,
            alpha_cutoff: None,
            double_sided: false,
            color_texture: None,
            normal_texture: None,
            light_map: None,
            specular_texture: None,
            extras: Map::new(),
        }
    }
}

/// A skin: joint nodes and their inverse bind matrices.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Skin {
    /// Skin name.
    pub name: String,
    /// Joint node indices; `JOINTS_0` values index into this list.
    pub joints: Vec<usize>,
    /// One column-major inverse bind matrix per joint.
    pub inverse_bind_matrices: Vec<[f32; 16]>,
    /// The common root of the joints, if there is one.
    pub skeleton: Option<usize>,
}

/// Which node property a channel animates.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ChannelPath {
    /// `translation`: 3 values per key.
    Translation,
    /// `rotation`: 4 values per key (unit quaternion x, y, z, w).
    Rotation,
    /// `scale`: 3 values per key.
    Scale,
}

/// Key interpolation.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash)]
pub enum Interpolation {
    /// Linear (slerp for rotations).
    #[default]
    Linear,
    /// Constant until the next key.
    Step,
    /// Cubic spline: each key has in-tangent, value, out-tangent (3 × the components).
    CubicSpline,
}

/// One animated property of one node.
#[derive(Debug, Clone, PartialEq)]
pub struct Channel {
    /// Target node index.
    pub node: usize,
    /// Target property.
    pub path: ChannelPath,
    /// Interpolation.
    pub interpolation: Interpolation,
    /// Key times in seconds, strictly increasing, ≥ 0.
    pub times: Keys,
    /// Key values, flattened: `times.len()` × components (× 3 for cubic spline).
    pub values: Keys,
}

/// Key times or values: a reference-counted list, so that channels playing the same data
/// (every MDL clip of one source, every BMF joint's sample times) hold it once and the glTF
/// writer writes it once. Reads as a `[f32]` slice.
#[derive(Clone, Default, PartialEq)]
pub struct Keys(Arc<Vec<f32>>);

impl Keys {
    /// The address of the shared list (equal for clones of one `Keys`).
    pub fn as_ptr(&self) -> *const Vec<f32> {
        Arc::as_ptr(&self.0)
    }
}

impl From<Vec<f32>> for Keys {
    fn from(v: Vec<f32>) -> Self {
        Self(Arc::new(v))
    }
}

impl std::ops::Deref for Keys {
    type Target = [f32];
    fn deref(&self) -> &[f32] {
        &self.0
    }
}

impl std::fmt::Debug for Keys {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        self.0.fmt(f)
    }
}

/// A named set of channels.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Animation {
    /// Animation name.
    pub name: String,
    /// Its channels.
    pub channels: Vec<Channel>,
    /// Data glTF has no place for.
    pub extras: Map<String, Value>,
}

impl Animation {
    /// The time of the last key over all channels, in seconds (0 for no keys).
    pub fn duration(&self) -> f32 {
        self.channels
            .iter()
            .filter_map(|c| c.times.last().copied())
            .fold(0.0, f32::max)
    }
}

/// Options of the conversion to a scene.
#[derive(Debug, Clone, PartialEq)]
pub struct SceneOptions {
    /// BMF AnimeMatrix samples per second (not stored in the file). Default 30.
    pub bmf_fps: f32,
    /// SMF animation key ticks per second (not stored in the file). Default 4800, the DirectX
    /// `.x` default; a guess, and the converter says so in a warning when it is used.
    pub smf_ticks_per_second: f32,
    /// MDL keyframes per second. Default 60 (FBX2MDL bakes at 60 fps).
    pub mdl_fps: f32,
    /// How much the conversion may cost ([`Budget::for_input`] of the file's size; the
    /// default is [`Budget::unlimited`], which keeps only the converters' structural bounds).
    pub budget: Budget,
}

impl Default for SceneOptions {
    fn default() -> Self {
        Self {
            bmf_fps: 30.0,
            smf_ticks_per_second: 4800.0,
            mdl_fps: 60.0,
            budget: Budget::unlimited(),
        }
    }
}

/// Something a conversion could not carry over exactly, had to guess, or repaired: where
/// ([`place`](Self::place)), what kind ([`kind`](Self::kind)), how many values when it counts
/// repairs ([`count`](Self::count)), and the message. `Display` gives `{place}: {message}`, or
/// the message alone when there is no place.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SceneWarning {
    place: String,
    kind: SceneWarningKind,
    count: Option<u64>,
    message: String,
}

/// A warning recognised by where it is and how its message starts: (place, start).
pub(crate) type Known = (&'static str, &'static str);

/// The warning an SMF conversion gives when it guessed the tick rate.
pub(crate) const SMF_RATE_GUESS: Known = ("smf", "animation key times are raw ticks");

/// The warnings that say what a conversion always does with a part of the format glTF has no
/// place for: true of every file that has that part, not a sign that something is wrong with
/// this one (see [`SceneWarningKind::Note`]).
pub(crate) const NOTES: [Known; 4] = [
    SMF_VB_NOTE,
    SMF_OBB_NOTE,
    MDL_BINORMAL_NOTE,
    BMF_TANGENT_NOTE,
];
pub(crate) const SMF_VB_NOTE: Known = ("smf", "V_B tangents of ");
pub(crate) const SMF_OBB_NOTE: Known = ("smf", "OBB(s) kept only in extras");
pub(crate) const MDL_BINORMAL_NOTE: Known = ("mdl", "vertex binormals not exported");
pub(crate) const BMF_TANGENT_NOTE: Known = ("bmf", "stored tangents of ");

/// What a [`SceneWarning`] is about, for front ends that group warnings or add their own
/// advice (such as the name of their option for a guessed rate).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum SceneWarningKind {
    /// A rate the file does not store was guessed: [`SceneOptions::smf_ticks_per_second`].
    SmfRateGuess,
    /// A systematic note: what the conversion always does with a part glTF cannot carry
    /// (SMF V_B tangents and OBBs, MDL binormals, BMF stored tangents).
    Note,
    /// Anything else.
    Other,
}

impl SceneWarning {
    /// A warning at `place` (the mesh, node, … it concerns, with its index and name, or a
    /// format name such as `smf`; may be empty) saying `message`. Its kind is
    /// [`SceneWarningKind::Other`], except for the systematic notes and the SMF tick-rate
    /// guess, which are recognised by their place and the start of their message wherever
    /// they are made.
    pub fn other(place: impl Into<String>, message: impl Into<String>) -> Self {
        let mut w = Self {
            place: place.into(),
            kind: SceneWarningKind::Other,
            count: None,
            message: message.into(),
        };
        let is = |(place, start): Known| w.place == place && w.message.starts_with(start);
        w.kind = if is(SMF_RATE_GUESS) {
            SceneWarningKind::SmfRateGuess
        } else if NOTES.into_iter().any(is) {
            SceneWarningKind::Note
        } else {
            SceneWarningKind::Other
        };
        w
    }

    /// The known warning `known` (a note or the SMF rate guess) with the rest of its message.
    pub(crate) fn known(known: Known, rest: impl std::fmt::Display) -> Self {
        Self::other(known.0, format!("{}{rest}", known.1))
    }

    /// `count` repairs of one kind at `place`: `{place}: {count} {what}`.
    pub fn counted(place: impl Into<String>, count: u64, what: &str) -> Self {
        Self {
            count: Some(count),
            ..Self::other(place, format!("{count} {what}"))
        }
    }

    /// What this warning is about.
    pub fn kind(&self) -> SceneWarningKind {
        self.kind
    }

    /// The mesh, node, skin, … concerned (with its index and name), or a format name; empty
    /// when the warning concerns the whole scene.
    pub fn place(&self) -> &str {
        &self.place
    }

    /// How many values were repaired, for a counted repair.
    pub fn count(&self) -> Option<u64> {
        self.count
    }

    /// The message, without the place.
    pub fn message(&self) -> &str {
        &self.message
    }
}

impl std::fmt::Display for SceneWarning {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        if self.place.is_empty() {
            f.write_str(&self.message)
        } else {
            write!(f, "{}: {}", self.place, self.message)
        }
    }
}

/// A scene and the warnings of its conversion.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Conversion {
    /// The converted scene.
    pub scene: Scene,
    /// What could not be carried over exactly (each says what and where).
    pub warnings: Vec<SceneWarning>,
}

impl Conversion {
    /// The one easy path to a writer: [`validate`](fn@validate)s the scene and returns it with the
    /// conversion's warnings followed by validation's (every repair), in one list.
    pub fn validated(self) -> Validated {
        let mut valid = validate(self.scene);
        let mut warnings = self.warnings;
        warnings.append(&mut valid.warnings);
        valid.warnings = warnings;
        valid
    }
}

impl Scene {
    /// Converts any document with the default options (no budget: see
    /// [`from_document_with`](Self::from_document_with)).
    pub fn from_document(doc: &crate::Document) -> Result<Conversion, crate::Error> {
        Self::from_document_with(doc, &SceneOptions::default())
    }

    /// Converts any document within `options.budget`: a file whose conversion would cost more
    /// (see [`cost`]) is refused with [`Error::BudgetExceeded`](crate::Error::BudgetExceeded),
    /// before the large allocation where the file declares it (a BMF bone count) and otherwise
    /// once the scene is built, before the glTF writer runs.
    ///
    /// ```
    /// use models::scene::{Budget, Scene, SceneOptions};
    /// let bytes = std::fs::read("../../fixtures/bmf/static_cube.bmf")?;
    /// let doc = models::from_bytes(&bytes)?;
    /// let options = SceneOptions {
    ///     budget: Budget::for_input(bytes.len() as u64),
    ///     ..SceneOptions::default()
    /// };
    /// let conversion = Scene::from_document_with(&doc, &options)?;
    /// assert_eq!(conversion.scene.meshes.len(), 1);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn from_document_with(
        doc: &crate::Document,
        options: &SceneOptions,
    ) -> Result<Conversion, crate::Error> {
        let mut budget = options.budget;
        let conversion: Conversion = crate::formats::with_document!(
            *doc,
            d => crate::formats::FormatModel::to_scene(d, options, &mut budget)?
        );
        charge_whole(conversion, options, doc.format())
    }

    /// [`from_document_with`](Self::from_document_with), consuming the document: the BMF, SMF
    /// and MDL converters free each mesh (and the largest arrays within one) as soon as it is
    /// converted, so that peak memory is about the larger of the document and the scene, not
    /// their sum. Same scene, same warnings, same budget.
    pub fn from_owned_document_with(
        doc: crate::Document,
        options: &SceneOptions,
    ) -> Result<Conversion, crate::Error> {
        let format = doc.format();
        let mut budget = options.budget;
        let conversion: Conversion = crate::formats::with_document!(
            move doc,
            d => crate::formats::FormatModel::into_scene(d, options, &mut budget)?
        );
        charge_whole(conversion, options, format)
    }
}

/// Charges the whole converted scene, exactly, to a fresh `options.budget`: this bounds what
/// the glTF writer makes of it.
fn charge_whole(
    conversion: Conversion,
    options: &SceneOptions,
    format: crate::Format,
) -> Result<Conversion, crate::Error> {
    let mut whole = options.budget;
    whole.charge(
        cost(&conversion.scene),
        || "the converted scene and its glTF".into(),
        || format!("{format} file"),
    )?;
    Ok(conversion)
}

impl TryFrom<&crate::Document> for Scene {
    type Error = crate::Error;
    fn try_from(doc: &crate::Document) -> Result<Self, crate::Error> {
        Scene::from_document(doc).map(|c| c.scene)
    }
}
