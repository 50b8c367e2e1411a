//! Read and write Elfreina `.elem` models ("Elfreina Extension Model File", File Version 1.00),
//! a UTF-8 text format of nested scopes.
//!
//! Two layers:
//!
//! * [`Tree`]: the lossless scope tree — header, version, scopes, `Key=values` entries, bare
//!   data lines, values split on `:` and `,`, quoted strings — in file order, every node with
//!   its 1-based line and column;
//! * [`Elem`]: the typed model on top of it (settings, mesh containers, materials, meshes,
//!   skinning, the node hierarchy, rendering meshes, bone and UV animations). Unknown keys and
//!   scopes are kept verbatim in the `extra` list of the scope that held them.
//!
//! The reader is tolerant (LF, CRLF or CR; a BOM; any indentation; blank lines; empty scopes;
//! `MeshDatas`; exponents; the MSVC spellings `1.#QNAN`, `-1.#IND`, `1.#INF`, read with a
//! warning) but never silently wrong: a bad header, version 2 or above, unbalanced braces, an
//! unterminated string, a malformed number, a count that disagrees with its data, an index out
//! of range, or scopes nested deeper than [`MAX_DEPTH`] are typed [`Error`]s with a line and
//! column. Nothing is allocated from a declared count; nesting uses an explicit stack. The
//! scope tree's memory is budgeted at [`TREE_BUDGET_FACTOR`] × the input + 1 MiB (beyond it,
//! [`Error::TooLarge`]); repeated warnings are one [`Warning`] with a count; messages quote at
//! most [`MAX_QUOTED`] bytes of a token.
//!
//! The writer emits the canonical style: UTF-8 without BOM, CRLF, one tab per level, `Tag {`,
//! count keys before their data, and the shortest decimal that reads back to the same `f64`
//! (never an exponent); [`WriteOptions::six_decimals`] gives Elfreina's `1.000000` style.
//! `Elem::from_bytes(&doc.to_bytes()?)? == doc` for every document the writer accepts (with
//! NaN compared by bits), and `to_bytes(from_bytes(f)) == f` for every file already in the
//! canonical style.
//!
//! ```
//! use elfreina_elem::{Elem, Model, MeshContainer, MeshDataList, Mesh, Materials, Material};
//!
//! let mut mesh = Mesh { name: Some("Tri".into()), ..Mesh::default() };
//! mesh.positions = vec![[0.0, 0.0, 0.0], [1.0, 0.0, 0.0], [0.0, 1.0, 0.5]];
//! mesh.push_face(&[0, 1, 2]);
//! mesh.attributes = vec![0].into();
//! let material = Material { name: Some("white".into()), diffuse: Some([1.0; 4]), ..Material::default() };
//! let container = MeshContainer {
//!     name: Some("Tri".into()),
//!     materials: Some(Materials { materials: vec![material], extra: vec![] }),
//!     meshes: vec![mesh],
//!     ..MeshContainer::default()
//! };
//! let doc = Elem {
//!     mesh_data: Some(MeshDataList { containers: vec![container], extra: vec![] }),
//!     ..Elem::default()
//! };
//!
//! let bytes = doc.to_bytes()?;
//! assert!(bytes.starts_with(b"Elfreina Extension Model File\r\nFile Version 1.00\r\n"));
//! assert!(elfreina_elem::sniff(&bytes));
//! let back = Elem::from_bytes(&bytes)?;
//! assert_eq!(back, doc);
//! assert_eq!(back.containers()[0].meshes[0].positions[2], [0.0, 1.0, 0.5]);
//! # Ok::<(), elfreina_elem::Error>(())
//! ```
#![forbid(unsafe_code)]
// Issue 8: never panic on input. No unwrap/expect/panic!/unchecked indexing in library code
// (tests may); an exception needs an `#[allow]` with the reason next to it.
#![cfg_attr(
    not(test),
    warn(
        clippy::unwrap_used,
        clippy::expect_used,
        clippy::indexing_slicing,
        clippy::panic
    )
)]
#![warn(missing_docs)]

mod error;
mod model;
mod number;
mod read;
mod rules;
mod runs;
pub mod tree;
mod write;

pub use binio::Model;
pub use error::{Error, Warning, WarningKind, MAX_QUOTED, MAX_SUBJECTS};
pub use model::*;
pub use number::FloatStyle;
pub use runs::Runs;
pub use tree::{Atom, Data, Entry, Item, LineEnding, Pos, Scope, Tree, Values};
pub use write::WriteOptions;

/// The first line of every `.elem` file.
pub const HEADER: &str = "Elfreina Extension Model File";

/// The deepest scope nesting the reader accepts (and the writer writes): 256 levels, counting
/// the top-level scopes as level 1. Deeper input is [`Error::LimitExceeded`]. The reader
/// uses an explicit stack, so any input depth fails cleanly.
pub const MAX_DEPTH: usize = 256;

/// The reader's memory budget for the scope tree: the nodes it builds (the reader's tree
/// borrows its text from the input, so its node lists; then every owned node made from it,
/// for [`Tree`] or for the unknown items a document keeps: items, values and their text,
/// counted at their in-memory size) may take at most this many times the input's size, plus
/// 1 MiB; beyond that the file is [`Error::TooLarge`]. Real files take about twice their size
/// when read into an [`Elem`]; only files made of very short lines or values (e.g. millions
/// of `K=1` lines) come near it.
/// Counting Vec growth and the typed model, the reader's peak stays under about twice the
/// budget (see `crates/alloc-counter/tests/alloc_bounds.rs`).
pub const TREE_BUDGET_FACTOR: usize = 32;

/// True when `bytes` start (after an optional UTF-8 BOM and blank lines) with the line
/// `Elfreina Extension Model File`. Looks at the first 64 bytes at most.
pub fn sniff(bytes: &[u8]) -> bool {
    let head = bytes.get(..bytes.len().min(64)).unwrap_or_default();
    let head = head.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(head);
    let start = head
        .iter()
        .position(|b| !matches!(b, b' ' | b'\t' | b'\r' | b'\n'))
        .unwrap_or(head.len());
    let line = head.get(start..).unwrap_or_default();
    match line.strip_prefix(HEADER.as_bytes()) {
        Some(rest) => {
            let rest_start = rest
                .iter()
                .position(|b| !matches!(b, b' ' | b'\t'))
                .unwrap_or(rest.len());
            // End of line, or the 64-byte window ended inside trailing blanks.
            matches!(rest.get(rest_start), Some(b'\r' | b'\n'))
                || (rest_start == rest.len() && bytes.len() > 64)
        }
        None => false,
    }
}

impl Tree {
    /// Reads the scope tree of a file (no typed validation).
    pub fn from_bytes(bytes: &[u8]) -> Result<Self, Error> {
        Self::from_bytes_with_warnings(bytes).map(|(t, _)| t)
    }

    /// Reads the scope tree of a file, with the warnings of the lexical level (version,
    /// encoding).
    pub fn from_bytes_with_warnings(bytes: &[u8]) -> Result<(Self, Vec<Warning>), Error> {
        let mut warnings = Vec::new();
        let tree = read::tree(bytes, &mut warnings)?;
        Ok((tree, warnings))
    }

    /// Writes the tree in the canonical style.
    pub fn to_bytes(&self) -> Result<Vec<u8>, Error> {
        self.to_bytes_with(&WriteOptions::default())
    }

    /// Writes the tree with the given options.
    pub fn to_bytes_with(&self, opts: &WriteOptions) -> Result<Vec<u8>, Error> {
        write::tree(self, opts).map(String::into_bytes)
    }
}

impl Model for Elem {
    type Error = Error;
    type Warning = Warning;
    const NAME: &'static str = "elem";

    fn sniff(bytes: &[u8]) -> bool {
        sniff(bytes)
    }

    /// Reads a document from the bytes of a whole file (a UTF-8 BOM is accepted) and returns
    /// the warnings beside it.
    fn from_bytes_with_warnings(bytes: &[u8]) -> Result<(Self, Vec<Warning>), Error> {
        read::elem(bytes)
    }

    /// Writes the document in the canonical style.
    fn to_bytes(&self) -> Result<Vec<u8>, Error> {
        self.to_bytes_with(&WriteOptions::default())
    }
}

impl Elem {
    /// Reads a document from text.
    pub fn parse(text: &str) -> Result<Self, Error> {
        Self::from_bytes(text.as_bytes())
    }

    /// Gives meaning to a scope tree read with [`Tree::from_bytes`].
    pub fn from_tree(tree: Tree) -> Result<(Self, Vec<Warning>), Error> {
        let mut warnings = Vec::new();
        let doc = read::from_tree(&tree, &mut warnings)?;
        Ok((doc, warnings))
    }

    /// Writes the document with the given options.
    pub fn to_bytes_with(&self, opts: &WriteOptions) -> Result<Vec<u8>, Error> {
        write::elem(self, opts).map(String::into_bytes)
    }

    /// Writes the document as text in the canonical style (without BOM).
    pub fn to_text(&self) -> Result<String, Error> {
        write::elem(self, &WriteOptions::default())
    }
}

impl std::str::FromStr for Elem {
    type Err = Error;

    fn from_str(s: &str) -> Result<Self, Error> {
        Self::parse(s)
    }
}
