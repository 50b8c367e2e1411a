//! Rules of the format that the reader enforces and that a writer of SMF files must keep too
//! (the way back from glTF: `models::scene::to_smf`), stated once for both.

use crate::{CollisionFace, CollisionRun};

/// Where a mesh's collision data breaks rule 22 (C_FC faces index C_VX vertices, and C_AT runs
/// cover C_FC faces): Selene indexes with these numbers unchecked.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum CollisionFault {
    /// Face `face`'s index in slot `slot` is `index`, which is no C_VX vertex.
    #[error("C_FC face {face} index {slot} is {index}, but C_VX has {vertices} vertices")]
    FaceIndex {
        /// The face, in C_FC order.
        face: usize,
        /// Which of its three indices (0–2).
        slot: usize,
        /// The index.
        index: i32,
        /// How many C_VX vertices there are.
        vertices: usize,
    },
    /// Run `run` covers faces `start..end`, which are not all C_FC faces.
    #[error("C_AT run {run} covers faces {start}..{end}, outside the {faces} C_FC faces")]
    Run {
        /// The run, in C_AT order.
        run: usize,
        /// Its first face.
        start: i32,
        /// Its first face plus its count.
        end: i64,
        /// How many C_FC faces there are.
        faces: usize,
    },
}

/// The first break of rule 22 in a mesh's collision runs, faces and vertex count (absent
/// lists count as empty); `None` when there is none.
pub fn collision_fault(
    runs: &[CollisionRun],
    faces: &[CollisionFace],
    vertex_count: usize,
) -> Option<CollisionFault> {
    for (face, f) in faces.iter().enumerate() {
        for (slot, &index) in f.indices.iter().enumerate() {
            if usize::try_from(index).map_or(true, |i| i >= vertex_count) {
                return Some(CollisionFault::FaceIndex {
                    face,
                    slot,
                    index,
                    vertices: vertex_count,
                });
            }
        }
    }
    let face_count = i64::try_from(faces.len()).unwrap_or(i64::MAX);
    for (run, r) in runs.iter().enumerate() {
        let end = i64::from(r.start) + i64::from(r.count);
        if r.start < 0 || r.count < 0 || end > face_count {
            return Some(CollisionFault::Run {
                run,
                start: r.start,
                end,
                faces: faces.len(),
            });
        }
    }
    None
}

/// Whether an MTRL range fits rule 18: `start` and `count` not negative and `start + count` at
/// most `limit` (the mesh's triangles for a polygon range, its vertices for a vertex range).
/// Selene draws `count` triangles from `start`, and tells Direct3D the vertices it may read,
/// unchecked.
///
/// ```
/// // A 12-vertex mesh: all of it, none of it, and ranges past it or negative.
/// assert!(selene_smf::mtrl_range_fits(0, 12, 12));
/// assert!(selene_smf::mtrl_range_fits(12, 0, 12));
/// assert!(!selene_smf::mtrl_range_fits(5, 12, 12));
/// assert!(!selene_smf::mtrl_range_fits(-1, 1, 12));
/// // The sum is taken without overflow.
/// assert!(selene_smf::mtrl_range_fits(i32::MAX, i32::MAX, usize::MAX));
/// assert!(!selene_smf::mtrl_range_fits(i32::MAX, i32::MAX, i32::MAX as usize));
/// ```
pub fn mtrl_range_fits(start: i32, count: i32, limit: usize) -> bool {
    let end = i64::from(start) + i64::from(count);
    start >= 0 && count >= 0 && end <= i64::try_from(limit).unwrap_or(i64::MAX)
}
