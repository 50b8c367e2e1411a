//! The fixed on-disk records of a `.bmf` file and the block type numbers (bmf.md §3), shared by
//! `read.rs` and `write.rs`.
//!
//! Every record is a `#[repr(C)]` `Pod` struct whose size is the on-disk size (checked at
//! compile time below), read with `binio::Cursor::record` and written with
//! `binio::put::PutLe::put_record`: little-endian, at any alignment. The vertex records are the
//! document's own vertex types (`model.rs`), copied in bulk.

use bytemuck::{Pod, Zeroable};
use std::mem::size_of;

/// The 8-byte header of every block.
#[repr(C)]
#[derive(Debug, Clone, Copy, Pod, Zeroable)]
pub(crate) struct BlockHeader {
    /// The block type (`BLOCK_*`, or a vertex block's `VertexKind::block_type`).
    pub kind: u32,
    /// The payload size in bytes (or the value, for the count blocks).
    pub size: u32,
}

/// The fixed 72-byte head of a Material block (`MaterialExPOD` in the BaseCross sources),
/// followed by the NUL-terminated UTF-16 texture name.
#[repr(C)]
#[derive(Debug, Clone, Copy, Pod, Zeroable)]
pub(crate) struct MaterialHead {
    pub start_index: u32,
    pub index_count: u32,
    pub diffuse: [f32; 4],
    pub specular: [f32; 4],
    pub ambient: [f32; 4],
    pub emissive: [f32; 4],
}

pub(crate) const BLOCK_INDEX: u32 = 1;
pub(crate) const BLOCK_MATERIAL: u32 = 2;
pub(crate) const BLOCK_MATERIAL_COUNT: u32 = 3;
pub(crate) const BLOCK_BONE_COUNT: u32 = 5;
pub(crate) const BLOCK_ANIME_MATRIX: u32 = 6;
pub(crate) const BLOCK_MESH_COUNT: u32 = 9;
pub(crate) const BLOCK_END: u32 = 100;

pub(crate) const BLOCK_HEADER_SIZE: u32 = size_of::<BlockHeader>() as u32;
pub(crate) const MATERIAL_HEAD_SIZE: u32 = size_of::<MaterialHead>() as u32;

// The sizes bmf.md gives; a field added by mistake fails the build.
const _: () = assert!(BLOCK_HEADER_SIZE == 8);
const _: () = assert!(MATERIAL_HEAD_SIZE == 72);
