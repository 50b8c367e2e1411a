//! Read and write BaseCross `.bmf` models (the Fbx2Bin "binary model file", `BDV1.0` and
//! `BDV1.1`), byte for byte.
//!
//! A `.bmf` file is a 16-byte header followed by typed blocks: a vertex block in one of four
//! layouts (plain, with tangent, skinned, skinned with tangent), u16 indices, materials with
//! UTF-16 texture names, and for skinned meshes a bone count and baked skinning matrices
//! (sample-major). `BDV1.1` files hold several meshes. The full specification this crate
//! implements is `shared/formats/bmf.md` in the project.
//!
//! * Reading is strict: every rule of the specification's validation table is checked, and
//!   each failure is a typed [`Error`] carrying the byte offset. Declared sizes and counts are
//!   checked against the remaining input before anything is allocated.
//! * Nothing is lost: `to_bytes(from_bytes(f)) == f` for every file the tool wrote, including
//!   the garbage it leaves in vertices no triangle uses.
//! * Blocks may sit 2 bytes off a 4-byte boundary; everything is decoded from byte slices.
//!
//! # Example
//!
//! ```
//! use bmf_block::{Bmf, Material, Model, Mesh, TextureName, Vertex, Vertices};
//!
//! let white = [1.0, 1.0, 1.0, 1.0].into();
//! let black = [0.0, 0.0, 0.0, 1.0].into();
//! let v = |x: f32, y: f32| Vertex { position: [x, y, 0.0], normal: [0.0, 0.0, -1.0], uv: [x, 1.0 - y] };
//! let mesh = Mesh::new(
//!     Vertices::Plain(vec![v(0.0, 0.0), v(0.0, 1.0), v(1.0, 0.0)]),
//!     vec![0, 1, 2],
//!     vec![Material {
//!         start_index: 0,
//!         index_count: 3,
//!         diffuse: white,
//!         specular: black,
//!         ambient: black,
//!         emissive: black,
//!         texture: TextureName::new("Checker.png"),
//!     }],
//!     None,
//! );
//! let bytes = Bmf::new(vec![mesh]).to_bytes()?;
//! assert!(bmf_block::sniff(&bytes));
//!
//! let doc = Bmf::from_bytes(&bytes)?;
//! assert_eq!(doc.header.version().as_str(), "BDV1.0");
//! assert_eq!(doc.meshes[0].materials[0].texture.to_string_lossy(), "Checker.png");
//! assert_eq!(doc.to_bytes()?, bytes);
//! # Ok::<(), bmf_block::Error>(())
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
mod model;
mod read;
mod write;

pub use binio::Model;
pub use error::{Error, Result, Warning};
pub use model::*;
pub use read::sniff;

impl Model for Bmf {
    type Error = Error;
    type Warning = Warning;
    const NAME: &'static str = "bmf";

    fn sniff(bytes: &[u8]) -> bool {
        read::sniff(bytes)
    }

    fn from_bytes_with_warnings(bytes: &[u8]) -> Result<(Self, Vec<Warning>)> {
        read::parse(bytes)
    }

    fn to_bytes(&self) -> Result<Vec<u8>> {
        write::serialize(self)
    }
}
