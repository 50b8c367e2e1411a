//! Read and write Altseed (ACE) `.mdl` 3D models, versions 1 and 2, byte for byte.
//!
//! An `.mdl` file, as written by Altseed's FBX2MDL converter, is the magic `MDL\0`, an `i32`
//! version and four length-prefixed arrays: bones, meshes (each split into *divided meshes*
//! that share a material list), animation sources (named sets of scalar keyframe curves) and
//! animation clips. Version 1 stores each bone's local transform as a 4 × 4 matrix; version 2
//! stores translation, rotation (degrees) and scale.
//!
//! * [`Mdl::from_bytes`] reads strictly: every count is checked before anything is allocated,
//!   every index is checked, and every error says at which byte it happened. Odd but readable
//!   content (curves aimed at cameras, unusual enum values…) produces [`Warning`]s, returned
//!   by [`Mdl::from_bytes_with_warnings`] and never printed.
//! * [`Mdl::to_bytes`] writes the document back; for every real file,
//!   `to_bytes(from_bytes(f)) == f`. Floats keep their bits, strings keep their UTF-16 code
//!   units (unpaired surrogates included) and enums keep their raw values.
//! * Files written by FBX2MDL between April and June 2014 claim version 1 but use an older
//!   layout; [`Mdl::from_bytes`] recognises them and fails with [`Error::UnsupportedLayout`].
//!   [`LegacyMdl`] reads and writes that layout as it is; [`LegacyMdl::to_stable`] converts it
//!   to an [`Mdl`] (bones of every group in one array, one divided mesh per legacy mesh, its
//!   bone palette as connectors). Earlier 2014 prototypes, whose first bone is not a root,
//!   fail with [`Error::EarlyLayout`].
//!
//! Interpolation values follow the converter (1 constant, 2 linear, 3 cubic); the engine's
//! own enum is shifted by one, which makes no difference for the files FBX2MDL wrote.
//!
//! # Example
//!
//! ```
//! use mdl_format::{Mdl, Model, Bone, BoneTransform, Matrix44, RotationOrder, Mesh, DividedMesh,
//!     Vertex, Face, MaterialRun, BoneConnector, Material};
//!
//! let vertex = |x: f32, y: f32| Vertex {
//!     position: [x, y, 0.0],
//!     normal: [0.0, 0.0, 1.0],
//!     weights: [255, 0, 0, 0],
//!     color: [255; 4],
//!     ..Vertex::default()
//! };
//! let doc = Mdl {
//!     version: 1,
//!     bones: vec![Bone {
//!         name: "RootNode".into(),
//!         parent: -1,
//!         rotation_order: RotationOrder::XYZ,
//!         transform: BoneTransform::Matrix(Matrix44::IDENTITY),
//!     }],
//!     meshes: vec![Mesh {
//!         divided: vec![DividedMesh {
//!             vertices: vec![vertex(0.0, 0.0), vertex(1.0, 0.0), vertex(0.0, 1.0)],
//!             faces: vec![Face([0, 2, 1])],
//!             material_runs: vec![MaterialRun { material_index: 0, face_count: 1 }],
//!             connectors: vec![BoneConnector { bone_index: 0, offset: Matrix44::IDENTITY }],
//!         }],
//!         materials: vec![Material::with_color("Texture/a.png")],
//!     }],
//!     ..Mdl::default()
//! };
//! let bytes = doc.to_bytes()?;
//! assert!(mdl_format::sniff(&bytes));
//! let back = Mdl::from_bytes(&bytes)?;
//! assert_eq!(back, doc);
//! assert_eq!(back.bones[0].name, "RootNode");
//! # Ok::<(), mdl_format::Error>(())
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
mod layout;
mod legacy;
mod model;
mod read;
mod write;

pub use binio::Model;
pub use error::{Error, Warning};
pub use model::*;
pub use read::LEGACY_LAYOUT;

/// True when `bytes` start like an Altseed `.mdl` file: the four bytes `MDL\0` (the NUL tells
/// it apart from 3D GameStudio's `MDL3`…`MDL7`; Quake `IDPO` and Source `IDST` files never
/// match) followed by a small non-negative `i32` version. Versions other than 1 and 2 are
/// still claimed, so that reading reports `UnsupportedVersion`. Looks at the first 8 bytes only.
pub fn sniff(bytes: &[u8]) -> bool {
    let version = bytes.get(4..8).and_then(|v| <[u8; 4]>::try_from(v).ok());
    match (bytes.get(..4), version) {
        (Some(magic), Some(version)) if magic == MAGIC => {
            (0..=15).contains(&i32::from_le_bytes(version))
        }
        _ => false,
    }
}

impl LegacyMdl {
    /// Reads a file in the 2014 development layout, discarding warnings.
    pub fn from_bytes(bytes: &[u8]) -> Result<Self, Error> {
        read::read_legacy(bytes).map(|(doc, _)| doc)
    }

    /// Reads a file in the 2014 development layout and returns the warnings as well.
    pub fn from_bytes_with_warnings(bytes: &[u8]) -> Result<(Self, Vec<Warning>), Error> {
        read::read_legacy(bytes)
    }

    /// Serialises the document in the 2014 development layout.
    pub fn to_bytes(&self) -> Result<Vec<u8>, Error> {
        write::write_legacy(self)
    }
}

impl Model for Mdl {
    type Error = Error;
    type Warning = Warning;
    const NAME: &'static str = "mdl";

    fn sniff(bytes: &[u8]) -> bool {
        sniff(bytes)
    }

    fn from_bytes_with_warnings(bytes: &[u8]) -> Result<(Self, Vec<Warning>), Error> {
        read::read(bytes)
    }

    fn to_bytes(&self) -> Result<Vec<u8>, Error> {
        write::write(self)
    }
}
