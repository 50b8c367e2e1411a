//! Read and write Selene/Lue `.smf` models (GUID `0x20071101`), byte for byte.
//!
//! An SMF file is a tree of chunks (an 8-byte id + size header, then the payload, no padding):
//! an `SMF` head, then frames (`FRM`), animation sets (`ANIS`) and meshes (`MESH`); a mesh
//! holds vertex arrays, an index list, materials (`MTRL`, with sixteen kinds of subchunk) and
//! collision data. Chunk ids are MSVC multi-character literals stored little-endian, so
//! `'MESH'` is the bytes `HSEM` (see [`ChunkId`]).
//!
//! * [`Smf::from_bytes`] checks every rule of the specification (sizes against their parents,
//!   element sizes, counts, index ranges, key counts) and reports the byte offset of the first
//!   problem; [`Smf::from_bytes_with_warnings`] also returns the [`Warning`]s.
//! * [`Smf::to_bytes`] writes chunks in the canonical order, `LGT` after `CULL`, unknown chunks
//!   back where they were. Floats keep their bits and names their 64 raw bytes, so
//!   `to_bytes(from_bytes(f)) == f` for every file in canonical order (every known real file).
//!
//! The chunk walk is bounded: nesting never exceeds [`MAX_DEPTH`], and no size leads to an
//! allocation larger than the input that backs it.
//!
//! ```
//! use selene_smf::{Indices, Material, Mesh, Frame, Model, Smf, VertexPc};
//!
//! let vertices = vec![
//!     VertexPc::new([0.0, 0.0, 0.0].into()),
//!     VertexPc::new([0.0, 1.0, 0.0].into()),
//!     VertexPc::new([1.0, 0.0, 0.0].into()),
//! ];
//! let mut mesh = Mesh::new("三角", vertices, Indices::U16(vec![0, 1, 2])).unwrap();
//! mesh.materials.push(Material::new("Material", (0, 1), (0, 3)).unwrap());
//! let doc = Smf {
//!     frames: vec![Frame::new("FRAME_ROOT", 0, -1).unwrap()],
//!     meshes: vec![mesh],
//!     ..Smf::default()
//! };
//!
//! let bytes = doc.to_bytes()?;
//! assert!(selene_smf::sniff(&bytes));
//! let back = Smf::from_bytes(&bytes)?;
//! assert_eq!(back.meshes[0].name.text(), "三角");
//! assert_eq!(back.meshes[0].triangle_count(), 1);
//! assert_eq!(back.to_bytes()?, bytes);
//! # Ok::<(), selene_smf::Error>(())
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

mod chunk;
mod error;
mod layout;
mod model;
mod read;
mod rules;
mod write;

pub use binio::sjis::SjisField;
pub use binio::Model;
pub use chunk::{ChunkId, MAX_DEPTH};
pub use error::{Error, SizeProblem, Warning, WarningKind, GUID, GUID_0100};
pub use model::*;
pub use rules::{collision_fault, mtrl_range_fits, CollisionFault};

/// True when `bytes` starts like a Selene SMF file: the chunk id `FMS\0` followed by at least
/// a size and a GUID (12 bytes). Any GUID is accepted, so that reading an older Selene
/// generation reports [`Error::UnsupportedVersion`] instead of "unknown format". A Standard
/// MIDI File (`MThd`) or a Spring map never matches.
pub fn sniff(bytes: &[u8]) -> bool {
    bytes.len() >= 12 && bytes.get(..4) == Some(&ChunkId::SMF.0[..])
}

impl Model for Smf {
    type Error = Error;
    type Warning = Warning;
    const NAME: &'static str = "smf";

    fn sniff(bytes: &[u8]) -> bool {
        sniff(bytes)
    }

    /// Parses a whole file and returns the warnings too (unknown chunks, non-canonical order,
    /// odd names, …).
    fn from_bytes_with_warnings(bytes: &[u8]) -> Result<(Self, Vec<Warning>), Error> {
        read::read(bytes)
    }

    /// Serialises the document. Counts stored in the file (MeshCount, MaterialCount, key
    /// counts, …) are derived from the model; cross-references (index ranges, frame numbers)
    /// are written as they are, so a model whose references are wrong is written but will not
    /// read back.
    fn to_bytes(&self) -> Result<Vec<u8>, Error> {
        write::write(self)
    }
}
