//! The fixed on-disk records of an `.smf` file: the fixed part at the start of the `SMF`,
//! `FRM`, `ANIS`, `ANI`, `MESH` and `MTRL` payloads (smf.md §4), shared by `read.rs` and
//! `write.rs`.
//!
//! Every record is a `#[repr(C)]` `Pod` struct whose size is the on-disk size (checked at
//! compile time below), read with `binio::Cursor::record` and written with
//! `binio::put::PutLe::put_record`: little-endian, at any alignment. Names are the raw 64-byte
//! Shift-JIS fields. The element records of the array chunks (`V_PC`, `IDX2`, keys, …) are the
//! document's own types (`model.rs`), copied in bulk. The 8-byte chunk header is read by the
//! chunk walker (`chunk.rs`).

use bytemuck::{Pod, Zeroable};
use std::mem::size_of;

/// The `SMF` payload: the file head.
#[repr(C)]
#[derive(Debug, Clone, Copy, Pod, Zeroable)]
pub(crate) struct SmfHead {
    pub guid: u32,
    pub mesh_count: i32,
    pub frame_count: i32,
    pub animation_set_count: i32,
}

/// The fixed part of `FRM`.
#[repr(C)]
#[derive(Debug, Clone, Copy, Pod, Zeroable)]
pub(crate) struct FrameHead {
    pub transform: [f32; 16],
    pub name: [u8; 64],
    pub mesh: i32,
    pub parent: i32,
}

/// The fixed part of `ANIS`.
#[repr(C)]
#[derive(Debug, Clone, Copy, Pod, Zeroable)]
pub(crate) struct AnimationSetHead {
    pub name: [u8; 64],
    pub animation_count: i32,
    pub last_time: i32,
}

/// The fixed part of `ANI`, followed by the scale, rotation and translation keys.
#[repr(C)]
#[derive(Debug, Clone, Copy, Pod, Zeroable)]
pub(crate) struct AnimationHead {
    pub target_frame: i32,
    pub scale_count: i32,
    pub rotation_count: i32,
    pub translation_count: i32,
}

/// The fixed part of `MESH`.
#[repr(C)]
#[derive(Debug, Clone, Copy, Pod, Zeroable)]
pub(crate) struct MeshHead {
    pub name: [u8; 64],
    pub material_count: i32,
}

/// The fixed part of `MTRL`.
#[repr(C)]
#[derive(Debug, Clone, Copy, Pod, Zeroable)]
pub(crate) struct MaterialHead {
    pub name: [u8; 64],
    pub polygon_start: i32,
    pub polygon_count: i32,
    pub vertex_start: i32,
    pub vertex_count: i32,
}

pub(crate) const SMF_HEAD_SIZE: usize = size_of::<SmfHead>();
pub(crate) const FRAME_HEAD_SIZE: usize = size_of::<FrameHead>();
pub(crate) const ANIS_HEAD_SIZE: usize = size_of::<AnimationSetHead>();
pub(crate) const ANI_HEAD_SIZE: usize = size_of::<AnimationHead>();
pub(crate) const MESH_HEAD_SIZE: usize = size_of::<MeshHead>();
pub(crate) const MATERIAL_HEAD_SIZE: usize = size_of::<MaterialHead>();

// The sizes smf.md gives; a field added by mistake fails the build.
const _: () = assert!(SMF_HEAD_SIZE == 16);
const _: () = assert!(FRAME_HEAD_SIZE == 136);
const _: () = assert!(ANIS_HEAD_SIZE == 72);
const _: () = assert!(ANI_HEAD_SIZE == 16);
const _: () = assert!(MESH_HEAD_SIZE == 68);
const _: () = assert!(MATERIAL_HEAD_SIZE == 80);
