//! Small, shared building blocks for the `models` format crates.
//!
//! * [`Cursor`]: a bounds-checked little-endian reader over a byte slice that knows its
//!   absolute offset, so every error can say *where* it happened;
//! * [`pod`]: bulk copies between byte slices and `Pod` element vectors that never assume the
//!   source is aligned (BMF and SMF payloads are routinely 2 bytes off a 4-byte boundary);
//! * [`sjis`]: decoding of fixed-size Shift-JIS name fields while keeping the raw bytes;
//! * [`put`]: little-endian appends for the writers, the mirror of [`Cursor`];
//! * [`Model`]: the trait every format crate implements (sniff, read with warnings, write),
//!   with `from_bytes`, `read`, `from_path`, `write` and `save` written once.
//!
//! [`Model`] is public API: every format crate re-exports it. The rest of this crate is an
//! implementation detail of the workspace; its API follows the needs of the format crates and
//! carries no stability promise of its own.
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

mod cursor;
mod model;
pub mod pod;
pub mod put;
pub mod sjis;

pub use cursor::{Cursor, Eof};
pub use model::Model;
