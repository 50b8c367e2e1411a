//! Read and write y_kim's EditAnimation `.skm` skinned meshes: a text format of six sections
//! (`Vertices:`, `Indices:`, `Adjacency:`, `Materials:`, `Attributes:`, `Bone:`) dumping
//! Direct3D 8/9 D3DX mesh data.
//!
//! No real `.skm` file is publicly known; the project's specification (`skm.md`) is the
//! contract. The reader is **tolerant about spelling and layout** and **strict about the order
//! and count of values**; the writer emits **one canonical spelling**.
//!
//! # Example
//!
//! ```
//! use skm_text::{AttributeRange, Bone, Encoding, Material, Model, Name, Skm, Vertex};
//!
//! let vertex = |x: f32| Vertex {
//!     position: [x, 0.0, 0.5],
//!     weights: [1.0, 0.0, 0.0],
//!     blend_indices: 0,
//!     normal: [0.0, 0.0, -1.0],
//!     uv: [x, 0.0],
//! };
//! let doc = Skm {
//!     encoding: Encoding::ShiftJis,
//!     vertices: vec![vertex(0.0), vertex(1.0), vertex(0.25)],
//!     triangles: vec![[0, 1, 2]],
//!     adjacency: vec![[u32::MAX; 3]],
//!     materials: vec![Material {
//!         diffuse: [1.0, 1.0, 1.0, 1.0],
//!         texture: Some(Name::encode("腕.bmp", Encoding::ShiftJis).unwrap()),
//!         ..Material::default()
//!     }],
//!     attributes: vec![AttributeRange {
//!         material: 0,
//!         face_start: 0,
//!         face_count: 1,
//!         vertex_start: 0,
//!         vertex_count: 3,
//!     }],
//!     bones: vec![Bone {
//!         name: Name::encode("*root", Encoding::ShiftJis).unwrap(),
//!         parent: -1,
//!         symmetric: -1,
//!         rotation: [0.0, 0.0, 0.0, 1.0],
//!         ..Bone::default()
//!     }],
//! };
//!
//! let bytes = doc.to_bytes()?;
//! assert!(bytes.starts_with(b"Vertices: 3\r\n0 0 0 0.5 1 0 0 0 0 0 -1 0 0\r\n"));
//! assert!(skm_text::sniff(&bytes));
//!
//! let back = Skm::from_bytes(&bytes)?;
//! assert_eq!(back, doc);
//! assert_eq!(back.text(back.materials[0].texture.as_ref().unwrap()), "腕.bmp");
//! assert_eq!(back.vertices[2].weights4(), [1.0, 0.0, 0.0, 0.0]);
//! # Ok::<(), skm_text::Error>(())
//! ```
//!
//! # What the reader accepts
//!
//! The text is read as a stream of tokens: any run of spaces, tabs, CR, LF (CRLF, LF or CR
//! line ends) separates values, so line breaks inside a record do not matter. Errors carry the
//! 1-based line and byte column.
//!
//! * An optional UTF-8 BOM. Names (bone and texture names) are kept as raw bytes
//!   ([`Name`]) and decoded for the API ([`Skm::text`]) as Shift-JIS (code page 932), or as
//!   UTF-8 when the file has a BOM, or when the non-ASCII names are all valid UTF-8 (a
//!   [`Warning::Utf8Text`]; Shift-JIS Japanese is practically never valid UTF-8).
//! * Headers `Keyword: N`, `Keyword:N` or `Keyword:` and `N` on different lines; the six
//!   sections in order. `Bones:` is accepted for `Bone:` (warning). A file that ends after the
//!   Attributes section is a static mesh (warning, no bones).
//! * Counts, indices and attribute rows: unsigned decimal integers (an optional `+`).
//! * The blend-index word, adjacency values, parent and symmetric bone: 32-bit words in
//!   unsigned decimal, negative decimal (two's complement, so `-1` = `4294967295`) or
//!   `0x`/`0X` hexadecimal.
//! * Floats: any C `strtod` spelling: `1`, `-0.5`, `.5`, `5.`, `1e-3`, `+2.5E+01`, hexadecimal
//!   `0x1.8p3`, `inf`/`infinity`/`nan`/`nan(…)` in any case, and the MSVC forms `1.#INF00`,
//!   `1.#QNAN0`, `1.#SNAN0`, `-1.#IND00` (non-finite values give a warning). Values are rounded
//!   to the nearest `f32`.
//! * Strings: `"…"` on one line, without escapes (spaces kept), or a single unquoted token.
//!   A texture of `(NULL)` or `"(NULL)"` in any case means no texture.
//! * The index columns of vertex, material and bone records are informational: a mismatch
//!   with the record's position is a warning, and the position wins (the column is not kept).
//!
//! # What the reader refuses
//!
//! Every [`Error`] carries the line and column of the offending token:
//!
//! * [`Error::NotThisFormat`]: the first token is not `Vertices:`;
//! * [`Error::MissingPart`]: a section header missing, misspelled or out of order;
//! * [`Error::CountMismatch`]: a section header where a row value is due, or a number where
//!   the next header is due (a count that disagrees with the rows present), and an
//!   `Adjacency:` count other than the `Indices:` count ÷ 3;
//! * [`Error::BadSize`]: an `Indices:` count that is not a multiple of 3;
//! * [`Error::IndexOutOfRange`]: a triangle index ≥ the vertex count; an attribute range whose
//!   material, faces or vertices lie outside the document; a parent that is neither −1 nor a
//!   bone, or parents that form a cycle; a *used* influence (weight ≠ 0, the implied fourth
//!   weight when |b3| > 1e-5) whose palette index is not a bone (checked when there are bones);
//! * [`Error::BadNumber`]: a malformed number or count, or one that does not fit;
//! * [`Error::Truncated`]: the input ends inside a section, or a declared count needs more
//!   text than remains (checked before anything is allocated: a vertex row needs at least 26
//!   bytes, an index 2, an adjacency row 6, a material 38, an attribute row 10, a bone 28);
//! * [`Error::Syntax`]: an unterminated quoted string, or a stray `"`;
//! * [`Error::TrailingData`]: tokens after the Bone section.
//!
//! # What the writer writes
//!
//! CRLF line ends, no BOM for [`Encoding::ShiftJis`] (a UTF-8 BOM for [`Encoding::Utf8`]),
//! headers `Keyword: N` with all six sections always present (`Bone: 0` for a static mesh), one
//! record per line as in the specification, values separated by one space, integers in decimal
//! (the blend word unsigned, parents and symmetric bones signed, so `-1` for none), names in
//! quotes, `"(NULL)"` for no texture. Floats use the shortest plain decimal (no exponent) that
//! reads back to the same bits (Rust's `{}`); infinities are `inf`/`-inf`, the default quiet
//! NaN is `nan`/`-nan` and any other NaN is `nan(0x…)` with its mantissa bits, so every bit
//! pattern survives. For every document the writer accepts, `Skm::from_bytes(&doc.to_bytes()?)
//! == doc` (equality compares float bits); the writer refuses, with the reader's error kinds,
//! what would not read back (an out-of-range index, a name holding a `"`, …).
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

mod error;
mod lex;
mod model;
mod read;
mod rules;
mod write;

pub use binio::Model;
pub use error::{Error, Pos, Warning};
pub use model::{AttributeRange, Bone, Encoding, Material, Name, Skm, Vertex};

/// Does `bytes` look like an `.skm` text? After an optional UTF-8 BOM and whitespace, the
/// text must start with `Vertices:`, optional spaces or tabs, and a digit, all within the
/// first 64 bytes. Binary files that share the extension (Temple of Elemental Evil's SKM, …)
/// are not accepted.
pub fn sniff(bytes: &[u8]) -> bool {
    let head = bytes.get(..64).unwrap_or(bytes);
    let head = head.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(head);
    let start = head
        .iter()
        .position(|b| !b.is_ascii_whitespace())
        .unwrap_or(head.len());
    let Some(rest) = head.get(start..).and_then(|h| h.strip_prefix(b"Vertices:")) else {
        return false;
    };
    rest.iter()
        .find(|&&b| b != b' ' && b != b'\t')
        .is_some_and(u8::is_ascii_digit)
}

impl Skm {
    /// Like [`Model::from_bytes_with_warnings`], taking the text: once the vertex rows (most
    /// of a large file) are read, the text before them is released, so that a large file and
    /// its whole document are not in memory together. Same document, warnings and errors.
    pub fn from_vec_with_warnings(bytes: Vec<u8>) -> Result<(Self, Vec<Warning>), Error> {
        read::parse_owned(bytes)
    }
}

impl Model for Skm {
    type Error = Error;
    type Warning = Warning;
    const NAME: &'static str = "skm";

    fn sniff(bytes: &[u8]) -> bool {
        sniff(bytes)
    }

    fn from_bytes_with_warnings(bytes: &[u8]) -> Result<(Self, Vec<Warning>), Error> {
        read::parse(bytes)
    }

    /// Writes the document in the canonical spelling (see the crate docs).
    fn to_bytes(&self) -> Result<Vec<u8>, Error> {
        write::write(self)
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn sniffs() {
        assert!(super::sniff(b"Vertices: 8\r\n"));
        assert!(super::sniff(b"\xEF\xBB\xBF\r\n  Vertices:\t0"));
        assert!(super::sniff(b"Vertices:12"));
        assert!(!super::sniff(b"Vertices: x"));
        assert!(!super::sniff(b"Vertices:"));
        assert!(!super::sniff(b"vertices: 1"));
        assert!(!super::sniff(b"Indices: 3"));
        // Temple of Elemental Evil SKM: binary counts and offsets.
        assert!(!super::sniff(&[
            0x1C, 0, 0, 0, 0x40, 0, 0, 0, 0x02, 0, 0, 0
        ]));
        assert!(!super::sniff(b""));
    }
}
