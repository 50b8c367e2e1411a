//! One library for five legacy Japanese hobby-engine 3D model formats.
//!
//! | format | module | crate | feature |
//! |---|---|---|---|
//! | Selene/Lue `.smf` | [`smf`] | `selene-smf` | `smf` |
//! | y_kim EditAnimation `.skm` | [`skm`] | `skm-text` | `skm` |
//! | Elfreina `.elem` | [`elem`] | `elfreina-elem` | `elem` |
//! | Altseed `.mdl` | [`mdl`] | `mdl-format` | `mdl` |
//! | BaseCross `.bmf` | [`bmf`] | `bmf-block` | `bmf` |
//! | Selene/Lue `.Pack` archives (a container, not a model) | [`pack`] | `selene-pack` | `pack` |
//!
//! Every feature is on by default. This crate adds what no single format crate can:
//! detection from the first bytes ([`detect`]), a [`Document`] of any format ([`open`],
//! [`from_bytes`]), bounded reading of regular files only ([`input`]), a [`Summary`] with the same figures for every format, safe output
//! ([`output::write_new_file`]), one scene model for every format ([`scene::Scene`]) and its
//! conversion to glTF 2.0 ([`gltf::write_file`], [`gltf::to_glb`]).
//!
//! # Example
//!
//! ```no_run
//! let doc = models::open("Chara_R.bmf")?;
//! let s = doc.summary();
//! println!("{}: {} meshes, {} vertices, {} faces", s.format, s.meshes, s.vertices, s.faces);
//! // Write it back in its own format, never over an existing file.
//! models::output::write_new_file(
//!     "copy.bmf".as_ref(),
//!     &doc.to_bytes()?,
//!     Some("Chara_R.bmf".as_ref()),
//!     models::output::Overwrite::Never,
//! )?;
//! # Ok::<(), models::Error>(())
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
// A build without any format has nothing to dispatch to: the generic helpers stay unused.
#![cfg_attr(
    not(any(
        feature = "bmf",
        feature = "smf",
        feature = "mdl",
        feature = "elem",
        feature = "skm"
    )),
    allow(
        dead_code,
        unreachable_code,
        unused_imports,
        unused_mut,
        unused_variables
    )
)]

pub mod bytes;
mod container;
mod document;
mod error;
mod format;
mod formats;
#[cfg(feature = "gltf")]
pub mod gltf;
mod hash;
pub mod input;
pub mod inspect;
mod json_path;
pub mod output;
pub mod scene;
mod summary;
mod warning;

pub use binio::Model;
pub use bytes::Bytes;
pub use container::{detect_container, Container};
pub use document::{
    from_bytes, from_bytes_with_warnings, open, open_with_upgrades, open_with_warnings,
    parse_with_upgrades, Document, Parsed,
};
pub use error::{Error, Position};
pub use format::{detect, detect_with_hint, Format, MAGIC};
pub use summary::Summary;
pub use warning::Warning;

/// BaseCross `.bmf` (the `bmf-block` crate).
#[cfg(feature = "bmf")]
pub use bmf_block as bmf;
/// Elfreina `.elem` (the `elfreina-elem` crate).
#[cfg(feature = "elem")]
pub use elfreina_elem as elem;
/// Altseed `.mdl` (the `mdl-format` crate).
#[cfg(feature = "mdl")]
pub use mdl_format as mdl;
/// Selene/Lue `.Pack` archives (the `selene-pack` crate): containers of models and other
/// files, recognised by [`detect_container`], never a [`Document`].
#[cfg(feature = "pack")]
pub use selene_pack as pack;
/// Selene `.smf` (the `selene-smf` crate).
#[cfg(feature = "smf")]
pub use selene_smf as smf;
/// EditAnimation `.skm` (the `skm-text` crate).
#[cfg(feature = "skm")]
pub use skm_text as skm;
