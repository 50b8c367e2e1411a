//! glTF 2.0 → [`Scene`]: the reading side, for `.glb` bytes and `.gltf` files with external
//! `.bin` buffers or `data:` URIs.
//!
//! The JSON is deserialised and index-checked by `gltf-json` (the `gltf` crate's JSON layer);
//! the container, the buffers and every accessor are decoded here, because the `gltf` crate's
//! accessor iterators assume valid input (a zero count underflows, a stride shorter than the
//! element or an overflowing offset panics). Every count is checked against the bytes of the
//! buffer view backing it before anything is allocated, and all decoded data together is held
//! to [`ALLOCATION_FACTOR`] × the input's bytes (plus 1 MiB), so a 100-byte `.glb` claiming
//! 2³² vertices is refused at once. The JSON's own objects count toward the same limit,
//! worked out in a first pass before `gltf-json` builds them (`json_cost.rs`): `{}` is three
//! bytes of a `nodes` array but about 750 once read. Errors carry a position: a byte offset in the GLB, a
//! line and column in the JSON, or a JSON path such as `accessors[3]`.
//!
//! The scene model is already in glTF's conventions (right-handed, Y up, counter-clockwise,
//! seconds), so nothing is converted: indices are kept (glTF node, mesh, material, skin i is
//! scene node, mesh, material, skin i). Whatever the scene model has no place for is named in
//! a [`ReadWarning`].
//!
//! ```
//! use models::gltf::{read_glb, to_glb, GltfOptions};
//! use models::scene::{validate, Scene};
//! let glb = to_glb(&validate(Scene::default()).scene, &GltfOptions::default())?;
//! let read = read_glb(&glb)?;
//! assert!(read.scene.meshes.is_empty());
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

mod accessor;
mod buffers;
mod convert;
mod json_cost;
mod mesh;

use crate::scene::Scene;
use std::fmt;
use std::path::{Path, PathBuf};

pub use buffers::detect;

/// Decoded data (vertices, indices, keys, matrices) and the JSON's objects once read are held
/// together to this many times the input's bytes (the GLB, or the `.gltf` and its buffers),
/// plus 1 MiB. A `u8` texture coordinate becomes an `f32` (×4); one accessor shared by several
/// primitives is decoded once per use; an empty node `{}` becomes about 750 bytes.
pub const ALLOCATION_FACTOR: u64 = 32;

/// The reading budget for an input of `input_len` bytes: [`ALLOCATION_FACTOR`] × it + 1 MiB.
pub(crate) fn reading_limit(input_len: u64) -> u64 {
    input_len
        .saturating_mul(ALLOCATION_FACTOR)
        .saturating_add(1 << 20)
}

/// Nodes may nest this deep (a longer parent chain is refused).
pub const MAX_NODE_DEPTH: usize = 1024;

/// Options of the glTF reader.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ReadOptions {
    /// Also read buffer URIs that are absolute or lead out of the `.gltf`'s folder through
    /// `..` (refused by default, as texture paths are).
    pub allow_outside: bool,
}

/// Why a glTF file could not be read. Each variant says where.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ReadError {
    /// The GLB container is broken at `offset`.
    #[error("GLB byte {offset}: {message}")]
    Glb {
        /// Byte offset in the `.glb`.
        offset: u64,
        /// What is wrong.
        message: String,
    },
    /// The JSON does not parse or does not match the glTF schema.
    #[error("glTF JSON line {line}, column {column}: {message}")]
    Json {
        /// 1-based line.
        line: usize,
        /// 1-based column.
        column: usize,
        /// The parser's message.
        message: String,
    },
    /// The glTF is well-formed JSON but invalid (an index out of range, a count beyond its
    /// bytes, a cycle, …).
    #[error("{at}: {message}")]
    Invalid {
        /// JSON path, e.g. `accessors[3]` or `meshes[0].primitives[1].indices`.
        at: String,
        /// What is wrong.
        message: String,
    },
    /// An extension the file requires (`extensionsRequired`) that this reader does not
    /// support.
    #[error("{at}: the file requires the extension {name}, which is not supported")]
    UnsupportedExtension {
        /// JSON path of the entry.
        at: String,
        /// The extension's name.
        name: String,
    },
    /// The JSON's objects, once read, would take more than [`ALLOCATION_FACTOR`] × the input
    /// (+ 1 MiB): a JSON of many objects in few bytes (`{}` is three bytes of a `nodes` array and
    /// about 750 once read). Found before anything is built.
    #[error(
        "glTF JSON line {line}, column {column} ({at}): the JSON's objects would take {needed} \
         bytes once read, over the limit of {limit} bytes for this input"
    )]
    JsonTooLarge {
        /// 1-based line where the limit was passed.
        line: usize,
        /// 1-based column.
        column: usize,
        /// The element of a top-level list being read there, e.g. `nodes[70000]`, or `the JSON`.
        at: String,
        /// Bytes needed so far.
        needed: u64,
        /// The limit.
        limit: u64,
    },
    /// The decoded data would exceed [`ALLOCATION_FACTOR`] × the input.
    #[error("{at}: {needed} bytes of decoded data would exceed the limit of {limit} bytes for this input")]
    TooLarge {
        /// JSON path of the accessor that went over.
        at: String,
        /// Bytes needed so far.
        needed: u64,
        /// The limit.
        limit: u64,
    },
    /// An external buffer could not be read (refused URI, missing or unreadable file).
    #[error("{at}: {message}")]
    Resource {
        /// JSON path of the buffer.
        at: String,
        /// What went wrong.
        message: String,
    },
    /// Reading the input file failed.
    #[error(transparent)]
    Input(#[from] crate::Error),
}

impl ReadError {
    pub(crate) fn invalid(at: impl std::fmt::Display, message: impl Into<String>) -> Self {
        ReadError::Invalid {
            at: at.to_string(),
            message: message.into(),
        }
    }
}

pub(crate) use crate::json_path::At;

/// Something the reader left out or changed, and where (a JSON path).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ReadWarning {
    /// JSON path, e.g. `meshes[2].primitives[0]`.
    pub at: String,
    /// What.
    pub kind: ReadWarningKind,
}

/// What a [`ReadWarning`] is about.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum ReadWarningKind {
    /// A primitive of a mode the scene model does not hold (points, lines) was skipped.
    PrimitiveSkipped {
        /// `POINTS`, `LINES`, `LINE_LOOP` or `LINE_STRIP`.
        mode: &'static str,
    },
    /// Something glTF has and the scene model does not (morph targets, cameras, lights, an
    /// extension, a vertex attribute, a texture slot, …) was left out.
    NotCarried {
        /// What it is.
        what: String,
    },
    /// An extras value names a buffer view that an accessor or an image reads, where the export
    /// names only views of its own: the file was written again by a tool that keeps extras but
    /// not the views they name (Blender does), so the view holds other bytes. The exact values
    /// the export kept there are not used; the importers fall back on the scene's.
    ExtrasViewRewritten {
        /// The buffer view named.
        view: usize,
    },
    /// Names an editor made unique (`Material.001`) or cut to 63 bytes were given back as the
    /// export wrote them (`extras.exported_name`, see the README's "Editing in Blender").
    NamesRestored {
        /// How many names (nodes, meshes, materials); the warning's place is the first.
        count: usize,
    },
    /// Animations without extras got back the copy of their small extras the export keeps in the
    /// scene's (`extras.animation_extras`): the tool that wrote the file drops the extras of
    /// animations (Blender does).
    AnimationExtrasRestored {
        /// How many animations; the warning's place is the first.
        count: usize,
    },
    /// Vertices with more than four joint influences kept their four largest (renormalised).
    InfluencesReduced {
        /// How many vertices.
        vertices: usize,
    },
    /// Primitives of one mesh had different attributes; the missing ones were filled in.
    AttributeFilled {
        /// The attribute (`NORMAL`, `TEXCOORD_0`, …).
        attribute: &'static str,
        /// The value used.
        with: &'static str,
    },
    /// Another scene than the one read, or nodes outside it.
    SceneChoice {
        /// What was chosen and what was left.
        message: String,
    },
    /// An animation channel that could not be read was skipped.
    ChannelSkipped {
        /// Why.
        reason: String,
    },
    /// The GLB has bytes after its stated length, or an unknown chunk.
    Container {
        /// What.
        message: String,
    },
}

impl fmt::Display for ReadWarningKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ReadWarningKind::PrimitiveSkipped { mode } => {
                write!(f, "a {mode} primitive is not a triangle list; skipped")
            }
            ReadWarningKind::NotCarried { what } => write!(f, "{what} not read (the scene model has no place for it)"),
            ReadWarningKind::ExtrasViewRewritten { view } => write!(
                f,
                "names buffer view {view}, which holds the file's own data (a tool wrote the file \
                 again, keeping extras but not the views they name); the exact values kept there \
                 are not used"
            ),
            ReadWarningKind::NamesRestored { count } => write!(
                f,
                "{count} name(s) an editor made unique (`.001`) or cut to 63 bytes given back as \
                 exported (extras.exported_name)"
            ),
            ReadWarningKind::AnimationExtrasRestored { count } => write!(
                f,
                "{count} animation(s) without extras given back the copy the export kept in the \
                 scene's extras (the tool that wrote the file drops animation extras)"
            ),
            ReadWarningKind::InfluencesReduced { vertices } => write!(
                f,
                "{vertices} vertices have more than 4 joint influences; the 4 largest kept and renormalised"
            ),
            ReadWarningKind::AttributeFilled { attribute, with } => write!(
                f,
                "some primitives have no {attribute} and others do; filled with {with}"
            ),
            ReadWarningKind::SceneChoice { message }
            | ReadWarningKind::ChannelSkipped { reason: message }
            | ReadWarningKind::Container { message } => f.write_str(message),
        }
    }
}

impl fmt::Display for ReadWarning {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.at, self.kind)
    }
}

/// A scene read from glTF, and the reader's warnings.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Import {
    /// The scene.
    pub scene: Scene,
    /// What was left out or changed, each saying where.
    pub warnings: Vec<ReadWarning>,
}

/// Reads a `.glb` (or a self-contained `.gltf` JSON whose buffers are all `data:` URIs) from
/// memory, copying what the scene keeps. A buffer that names an external file is refused: use
/// [`read_path`]. [`read_glb_shared`] reads the same without the copies.
pub fn read_glb(bytes: &[u8]) -> Result<Import, ReadError> {
    let asset = buffers::Asset::parse(bytes)?;
    let loaded = asset.load_buffers(None, &ReadOptions::default())?;
    convert::convert(&asset, loaded)
}

/// [`read_glb`] of bytes the scene may keep (given, or shared through an `Arc`): the scene's
/// large arrays (vertex attributes, index lists, blobs) that the `.glb` stores tightly packed
/// and aligned, as every export of this crate does, are views of these bytes
/// ([`Array`](crate::scene::Array)) instead of copies. No memory is allocated or copied for
/// them, and the bytes stay in memory while any such array does. [`read_path`] reads a file
/// so.
///
/// ```
/// use models::gltf::{read_glb_shared, to_glb, GltfOptions};
/// use models::scene::{validate, Mesh, Node, Primitive, Scene, Vertices};
/// let triangle = Scene {
///     nodes: vec![Node { mesh: Some(0), ..Node::default() }],
///     roots: vec![0],
///     meshes: vec![Mesh {
///         vertices: Vertices {
///             positions: vec![[0.0, 0.0, 0.0], [1.0, 0.0, 0.0], [0.0, 1.0, 0.0]].into(),
///             ..Vertices::default()
///         },
///         primitives: vec![Primitive { indices: vec![0, 1, 2].into(), material: None }],
///         ..Mesh::default()
///     }],
///     ..Scene::default()
/// };
/// let glb = to_glb(&validate(triangle).scene, &GltfOptions::default())?;
/// let read = read_glb_shared(glb)?;
/// let positions = &read.scene.meshes[0].vertices.positions;
/// assert!(positions.is_view(), "read in place, not copied");
/// assert_eq!(positions[1], [1.0, 0.0, 0.0]);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn read_glb_shared(
    bytes: impl Into<std::sync::Arc<crate::Bytes>>,
) -> Result<Import, ReadError> {
    let bytes = bytes.into();
    let asset = buffers::Asset::parse(&bytes)?;
    let mut loaded = asset.load_buffers(None, &ReadOptions::default())?;
    loaded.shared = Some(std::sync::Arc::clone(&bytes));
    convert::convert(&asset, loaded)
}

/// Reads the `.glb` or `.gltf` file `path` (chosen by its content), with external buffers
/// resolved relative to its folder: only regular files, only inside that folder unless
/// [`ReadOptions::allow_outside`].
pub fn read_path(path: &Path, options: &ReadOptions) -> Result<Import, ReadError> {
    // Kept by the scene's arrays that view it (see [`read_glb_shared`]).
    let bytes = std::sync::Arc::new(crate::input::read_input(path)?);
    let asset = buffers::Asset::parse(&bytes)?;
    let base = match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
        _ => PathBuf::from("."),
    };
    let mut loaded = asset.load_buffers(Some(&base), options)?;
    loaded.shared = Some(std::sync::Arc::clone(&bytes));
    convert::convert(&asset, loaded)
}
