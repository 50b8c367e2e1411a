//! The fixed on-disk records of an `.mdl` file (mdl.md §3), shared by `read.rs` and
//! `write.rs`: the fixed part of each bone, and the sizes and field offsets of the element
//! records.
//!
//! Every record is a `#[repr(C)]` `Pod` struct whose size is the on-disk size (checked at
//! compile time below), read with `binio::Cursor::record` and written with
//! `binio::put::PutLe::put_record`: little-endian, at any alignment. The array elements
//! (`Vertex`, `Face`, `MaterialRun`, `BoneConnector`, `Keyframe`, `LegacyBoneOffset`) are
//! the document's own `Pod` types (`model.rs`), copied in bulk; the sizes and offsets here
//! place the reader's errors and warnings on the exact byte.

use crate::model::{BoneConnector, Face, Keyframe, MaterialRun, Vertex};
use bytemuck::{Pod, Zeroable};
use std::mem::{offset_of, size_of};

/// A version-1 bone after its name: parent, rotation order, local matrix.
#[repr(C)]
#[derive(Debug, Clone, Copy, Pod, Zeroable)]
pub(crate) struct BoneV1 {
    pub parent: i32,
    pub rotation_order: i32,
    pub matrix: [f32; 16],
}

/// A version-2 bone after its name: parent, rotation order, translation, rotation (degrees),
/// scaling.
#[repr(C)]
#[derive(Debug, Clone, Copy, Pod, Zeroable)]
pub(crate) struct BoneV2 {
    pub parent: i32,
    pub rotation_order: i32,
    pub translation: [f32; 3],
    pub rotation: [f32; 4],
    pub scaling: [f32; 3],
}

/// A bone of the 2014 development layout after its name: parent, rotation order, local and
/// inverse global matrices.
#[repr(C)]
#[derive(Debug, Clone, Copy, Pod, Zeroable)]
pub(crate) struct LegacyBoneRecord {
    pub parent: i32,
    pub rotation_order: i32,
    pub local: [f32; 16],
    pub inverse_global: [f32; 16],
}

/// A count or string length (`i32`).
pub(crate) const COUNT_SIZE: u64 = 4;
/// Where a bone's rotation order sits in its fixed part (the same in every layout).
pub(crate) const BONE_ROTATION_ORDER: u64 = offset_of!(BoneV1, rotation_order) as u64;
const _: () = assert!(offset_of!(BoneV2, rotation_order) == offset_of!(BoneV1, rotation_order));
/// Where a bone's transform starts in its fixed part (matrix or translation).
pub(crate) const BONE_TRANSFORM: u64 = offset_of!(BoneV1, matrix) as u64;
const _: () = assert!(offset_of!(BoneV2, translation) == offset_of!(BoneV1, matrix));

pub(crate) const BONE_V1_SIZE: u64 = size_of::<BoneV1>() as u64;
pub(crate) const BONE_V2_SIZE: u64 = size_of::<BoneV2>() as u64;
pub(crate) const LEGACY_BONE_SIZE: u64 = size_of::<LegacyBoneRecord>() as u64;
pub(crate) const VERTEX_SIZE: u64 = size_of::<Vertex>() as u64;
pub(crate) const VERTEX_WEIGHTS: u64 = offset_of!(Vertex, weights) as u64;
pub(crate) const VERTEX_BONE_INDICES: u64 = offset_of!(Vertex, bone_indices) as u64;
pub(crate) const FACE_SIZE: u64 = size_of::<Face>() as u64;
/// One vertex index of a face.
pub(crate) const FACE_INDEX_SIZE: u64 = size_of::<i32>() as u64;
pub(crate) const MATERIAL_RUN_SIZE: u64 = size_of::<MaterialRun>() as u64;
pub(crate) const MATERIAL_RUN_FACE_COUNT: u64 = offset_of!(MaterialRun, face_count) as u64;
pub(crate) const CONNECTOR_SIZE: u64 = size_of::<BoneConnector>() as u64;
pub(crate) const KEYFRAME_SIZE: u64 = size_of::<Keyframe>() as u64;
pub(crate) const KEYFRAME_INTERPOLATION: u64 = offset_of!(Keyframe, interpolation) as u64;

// The sizes mdl.md gives; a field added by mistake fails the build.
const _: () = assert!(BONE_V1_SIZE == 72 && BONE_V2_SIZE == 48 && LEGACY_BONE_SIZE == 136);
const _: () = assert!(VERTEX_SIZE == 68 && VERTEX_WEIGHTS == 56 && VERTEX_BONE_INDICES == 60);
const _: () = assert!(FACE_SIZE == 12 && MATERIAL_RUN_SIZE == 8 && CONNECTOR_SIZE == 68);
const _: () = assert!(KEYFRAME_SIZE == 28 && KEYFRAME_INTERPOLATION == 24);
